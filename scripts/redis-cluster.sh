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

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_CLI=${REDIS_CLI:-redis-cli}
TDBF_MODULE=${TDBF_MODULE:-$root/build/tdbf.so}
NODES=6

die() { echo "redis-cluster: $*" >&2; exit 1; }
usage() { echo "usage: $0 start|stop DIR [BASE_PORT]" >&2; exit 2; }

[ $# -ge 2 ] || usage
cmd=$1; dir=$2; base=${3:-7200}
case $base in ''|*[!0-9]*) die "BASE_PORT must be a number: $base" ;; esac

stop_node() {
  pidfile=$1/redis.pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile" 2>/dev/null || true)
  case $pid in ''|*[!0-9]*) rm -f "$pidfile"; return 0 ;; esac
  if kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$pid" 2>/dev/null; then
      kill -9 "$pid" 2>/dev/null || true
      i=0
      while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    fi
  fi
  rm -f "$pidfile"
}

case $cmd in
  start)
    [ -f "$TDBF_MODULE" ] || die "$TDBF_MODULE is missing: run make module"
    command -v "$REDIS_SERVER" >/dev/null 2>&1 || die "$REDIS_SERVER not found"
    mkdir -p "$dir" || die "cannot create $dir"
    dir=$(CDPATH='' cd -- "$dir" && pwd)
    addrs=""
    n=0
    while [ $n -lt $NODES ]; do
      port=$((base + n)); ndir=$dir/node$n
      mkdir -p "$ndir"
      if [ -f "$ndir/redis.pid" ] && kill -0 "$(cat "$ndir/redis.pid")" 2>/dev/null; then
        die "$ndir already runs PID $(cat "$ndir/redis.pid"); stop it first"
      fi
      rm -f "$ndir/nodes.conf"
      "$REDIS_SERVER" --bind 127.0.0.1 --port "$port" --dir "$ndir" \
        --pidfile "$ndir/redis.pid" --logfile "$ndir/redis.log" --daemonize yes \
        --save '' --appendonly no --enable-debug-command local \
        --cluster-enabled yes --cluster-config-file nodes.conf \
        --cluster-node-timeout 2000 --loadmodule "$TDBF_MODULE" \
        || die "redis-server failed to start on port $port (see $ndir/redis.log)"
      addrs="$addrs 127.0.0.1:$port"
      n=$((n + 1))
    done
    for a in $addrs; do
      i=0
      until "$REDIS_CLI" -h 127.0.0.1 -p "${a#*:}" ping >/dev/null 2>&1; do
        i=$((i + 1))
        [ $i -lt 100 ] || die "$a not answering after 10 s"
        sleep 0.1
      done
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
