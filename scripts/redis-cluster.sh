#!/bin/sh
# Start or stop a 3-primary / 3-replica Redis Cluster with the tdbf module,
# on 127.0.0.1 only, each node in its own directory under DIR with a PID file.
# Usage: scripts/redis-cluster.sh start|stop DIR [BASE_PORT]
#   start: ports BASE_PORT .. BASE_PORT+5 (default 7200); creates the cluster
#          with redis-cli --cluster create --cluster-replicas 1 and waits
#          (bounded, 30 s) until every node reports cluster_state:ok.
#   stop:  kills every node by its PID file and waits; safe to repeat.
# Env: REDIS_SERVER, REDIS_CLI, TDBF_MODULE (default build/tdbf.so).
set -eu

name=redis-cluster
default_port=7200
NODES=6
. "$(dirname -- "$0")/redis-nodes.sh"

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
    for a in $addrs; do
      i=0
      until "$REDIS_CLI" -h 127.0.0.1 -p "${a#*:}" cluster info 2>/dev/null \
            | grep -q '^cluster_state:ok'; do
        i=$((i + 1))
        [ $i -lt 300 ] || die "$a not cluster_state:ok after 30 s"
        sleep 0.1
      done
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
