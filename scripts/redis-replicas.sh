#!/bin/sh
# Start or stop a primary + 2 replicas of redis-server with the tdbf module,
# on 127.0.0.1 only, each in its own directory under DIR with a PID file.
# Usage: scripts/redis-replicas.sh start|stop DIR [BASE_PORT]
#   start: ports BASE_PORT (primary), BASE_PORT+1, BASE_PORT+2 (default 7100);
#          waits (bounded) until both replicas report master_link_status:up.
#   stop:  kills every node by its PID file and waits; safe to repeat.
# Env: REDIS_SERVER, REDIS_CLI, TDBF_MODULE (default build/tdbf.so).
set -eu

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_CLI=${REDIS_CLI:-redis-cli}
TDBF_MODULE=${TDBF_MODULE:-$root/build/tdbf.so}

die() { echo "redis-replicas: $*" >&2; exit 1; }
usage() { echo "usage: $0 start|stop DIR [BASE_PORT]" >&2; exit 2; }

[ $# -ge 2 ] || usage
cmd=$1; dir=$2; base=${3:-7100}
case $base in ''|*[!0-9]*) die "BASE_PORT must be a number: $base" ;; esac

# stop_node NODE_DIR: SIGTERM by PID file, wait up to 10 s, then SIGKILL.
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

# start_node NODE_DIR PORT [extra redis-server args...]
start_node() {
  ndir=$1; port=$2; shift 2
  mkdir -p "$ndir"
  if [ -f "$ndir/redis.pid" ] && kill -0 "$(cat "$ndir/redis.pid")" 2>/dev/null; then
    die "$ndir already runs PID $(cat "$ndir/redis.pid"); stop it first"
  fi
  "$REDIS_SERVER" --bind 127.0.0.1 --port "$port" --dir "$ndir" \
    --pidfile "$ndir/redis.pid" --logfile "$ndir/redis.log" --daemonize yes \
    --save '' --enable-debug-command local --loadmodule "$TDBF_MODULE" "$@" \
    || die "redis-server failed to start on port $port (see $ndir/redis.log)"
  i=0
  until "$REDIS_CLI" -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -lt 100 ] || die "port $port not answering after 10 s (see $ndir/redis.log)"
    sleep 0.1
  done
}

case $cmd in
  start)
    [ -f "$TDBF_MODULE" ] || die "$TDBF_MODULE is missing: run make module"
    command -v "$REDIS_SERVER" >/dev/null 2>&1 || die "$REDIS_SERVER not found"
    mkdir -p "$dir" || die "cannot create $dir"
    dir=$(CDPATH='' cd -- "$dir" && pwd)
    start_node "$dir/primary" "$base"
    for n in 1 2; do
      start_node "$dir/replica$n" $((base + n)) --replicaof 127.0.0.1 "$base"
    done
    for n in 1 2; do
      port=$((base + n)); i=0
      until "$REDIS_CLI" -h 127.0.0.1 -p "$port" info replication 2>/dev/null \
            | grep -q '^master_link_status:up'; do
        i=$((i + 1))
        [ $i -lt 200 ] || die "replica on port $port did not sync in 20 s"
        sleep 0.1
      done
    done
    echo "primary 127.0.0.1:$base, replicas :$((base + 1)) :$((base + 2)) (dir $dir)"
    ;;
  stop)
    [ -d "$dir" ] || exit 0
    for n in replica2 replica1 primary; do stop_node "$dir/$n"; done
    ;;
  *) usage ;;
esac
