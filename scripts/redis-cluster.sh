#!/bin/sh
# Start or stop a 3-primary / 3-replica Redis Cluster with the tdbf module,
# on 127.0.0.1 only, each node in its own directory under DIR with a PID file.
# Usage: scripts/redis-cluster.sh start|stop DIR [BASE_PORT]
#   start: ports BASE_PORT .. BASE_PORT+5 (default 7200; the cluster bus
#          uses each port + 10000); creates the cluster with redis-cli
#          --cluster create --cluster-replicas 1 and waits (bounded, 30 s
#          per step) until every node reports cluster_state:ok, sees 3
#          primaries and 3 replicas, and every replica is in sync.
#   stop:  kills every node by its PID file and waits; safe to repeat.
# Env: REDIS_SERVER, REDIS_CLI, TDBF_MODULE (default build/tdbf.so).
set -eu

name=redis-cluster
default_port=7200
NODES=6
. "$(dirname -- "$0")/redis-nodes.sh"

cluster_ok() {
  "$REDIS_CLI" -h 127.0.0.1 -p "$1" cluster info 2>/dev/null | tr -d '\r' |
    grep -q '^cluster_state:ok$'
}

# roles_settled PORT: the node on PORT knows 3 primaries serving slots and
# 3 replicas (CLUSTER NODES: the flags are field 3, slot ranges from 9 on).
roles_settled() {
  table=$("$REDIS_CLI" -h 127.0.0.1 -p "$1" cluster nodes 2>/dev/null) || return 1
  [ "$(printf '%s\n' "$table" | awk '$3 ~ /master/ && NF >= 9' | wc -l)" -eq 3 ] &&
    [ "$(printf '%s\n' "$table" | awk '$3 ~ /slave/' | wc -l)" -eq 3 ]
}

case $cmd in
  start)
    prepare_dir
    addrs=""
    n=0
    while [ $n -lt $NODES ]; do
      port=$((base + n)); ndir=$dir/node$n
      refuse_running "$ndir"
      rm -f "$ndir/nodes.conf"
      start_node "$ndir" "$port" --appendonly no --cluster-enabled yes \
        --cluster-config-file nodes.conf --cluster-node-timeout 2000
      addrs="$addrs 127.0.0.1:$port"
      n=$((n + 1))
    done
    # shellcheck disable=SC2086
    "$REDIS_CLI" --cluster create $addrs --cluster-replicas 1 --cluster-yes \
      >"$dir/create.log" 2>&1 || die "cluster create failed (see $dir/create.log)"
    # The slots are served once cluster_state is ok, but the replicas attach
    # later: wait until every node sees 3 primaries and 3 replicas, and
    # every replica has finished its first sync.
    for a in $addrs; do
      port=${a#*:}
      wait_for 300 "$a not cluster_state:ok after 30 s" cluster_ok "$port"
      wait_for 300 "$a does not see 3 primaries and 3 replicas after 30 s" \
        roles_settled "$port"
      wait_for 300 "$a did not finish its first sync in 30 s" synced "$port"
    done
    echo "cluster ok: 127.0.0.1:$base..$((base + NODES - 1)) (dir $dir)"
    ;;
  stop)
    [ -d "$dir" ] || exit 0
    n=$((NODES - 1))
    while [ $n -ge 0 ]; do stop_node "$dir/node$n"; n=$((n - 1)); done
    ;;
  *) usage ;;
esac
