#!/bin/sh
# redis-nodes.sh — sourced by redis-replicas.sh and redis-cluster.sh: the
# tools, argument checks, and starting / stopping one loopback redis-server
# node (own directory, PID file, the tdbf module) by its PID.
# The sourcing script sets `name` (for messages) and `default_port`.
root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
REDIS_SERVER=${REDIS_SERVER:-redis-server}
REDIS_CLI=${REDIS_CLI:-redis-cli}
TDBF_MODULE=${TDBF_MODULE:-$root/build/tdbf.so}

die() { echo "$name: $*" >&2; exit 1; }
usage() { echo "usage: $0 start|stop DIR [BASE_PORT]" >&2; exit 2; }

[ $# -ge 2 ] || usage
cmd=$1; dir=$2; base=${3:-$default_port}
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

# refuse_running NODE_DIR: die if the node in NODE_DIR is alive.
refuse_running() {
  if [ -f "$1/redis.pid" ] && kill -0 "$(cat "$1/redis.pid")" 2>/dev/null; then
    die "$1 already runs PID $(cat "$1/redis.pid"); stop it first"
  fi
}

# start_node NODE_DIR PORT [extra redis-server args...]: starts the node
# and waits (10 s at most) until it answers PING.
start_node() {
  ndir=$1; port=$2; shift 2
  mkdir -p "$ndir"
  refuse_running "$ndir"
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

# prepare_dir: check the tools, create DIR and make it absolute.
prepare_dir() {
  [ -f "$TDBF_MODULE" ] || die "$TDBF_MODULE is missing: run make module"
  command -v "$REDIS_SERVER" >/dev/null 2>&1 || die "$REDIS_SERVER not found"
  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(CDPATH='' cd -- "$dir" && pwd)
}
