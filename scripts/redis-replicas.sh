#!/bin/sh
# Start or stop a primary + 2 replicas of redis-server with the tdbf module,
# on 127.0.0.1 only, each in its own directory under DIR with a PID file.
# Usage: scripts/redis-replicas.sh start|stop DIR [BASE_PORT]
#   start: ports BASE_PORT (primary), BASE_PORT+1, BASE_PORT+2 (default 7100);
#          waits (bounded) until both replicas report master_link_status:up.
#   stop:  kills every node by its PID file and waits; safe to repeat.
# Env: REDIS_SERVER, REDIS_CLI, TDBF_MODULE (default build/tdbf.so).
set -eu

name=redis-replicas
default_port=7100
. "$(dirname -- "$0")/redis-nodes.sh"

case $cmd in
  start)
    prepare_dir
    start_node "$dir/primary" "$base"
    for n in 1 2; do
      start_node "$dir/replica$n" $((base + n)) --replicaof 127.0.0.1 "$base"
    done
    for n in 1 2; do
      port=$((base + n))
      wait_for 200 "replica on port $port did not sync in 20 s" synced "$port"
    done
    echo "primary 127.0.0.1:$base, replicas :$((base + 1)) :$((base + 2)) (dir $dir)"
    ;;
  stop)
    [ -d "$dir" ] || exit 0
    for n in replica2 replica1 primary; do stop_node "$dir/$n"; done
    ;;
  *) usage ;;
esac
