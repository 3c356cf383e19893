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

# alive PID: the process exists and has not exited. A daemonized node that
# exited stays a zombie until PID 1 reaps it (seconds, in some containers),
# and kill -0 succeeds on a zombie: so a zombie counts as gone.
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  case $(ps -o stat= -p "$1" 2>/dev/null) in Z*) return 1 ;; esac
  return 0
}

# stop_node NODE_DIR: SIGTERM by PID file, wait up to 10 s, then SIGKILL.
stop_node() {
  pidfile=$1/redis.pid
  [ -f "$pidfile" ] || return 0
  pid=$(cat "$pidfile" 2>/dev/null || true)
  case $pid in ''|*[!0-9]*) rm -f "$pidfile"; return 0 ;; esac
  if alive "$pid"; then
    kill "$pid" 2>/dev/null || true
    i=0
    while alive "$pid" && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if alive "$pid"; then
      kill -9 "$pid" 2>/dev/null || true
      i=0
      while alive "$pid" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    fi
  fi
  rm -f "$pidfile"
}

# refuse_running NODE_DIR: die if the node in NODE_DIR is alive.
refuse_running() {
  if [ -f "$1/redis.pid" ] && alive "$(cat "$1/redis.pid")"; then
    die "$1 already runs PID $(cat "$1/redis.pid"); stop it first"
  fi
}

# start_node NODE_DIR PORT [extra redis-server args...]: starts the node
# and waits (10 s at most) until it answers PING. A replica's full sync
# starts at once (repl-diskless-sync-delay 0, not after the default 5 s).
start_node() {
  ndir=$1; port=$2; shift 2
  mkdir -p "$ndir"
  refuse_running "$ndir"
  "$REDIS_SERVER" --bind 127.0.0.1 --port "$port" --dir "$ndir" \
    --pidfile "$ndir/redis.pid" --logfile "$ndir/redis.log" --daemonize yes \
    --save '' --enable-debug-command local --repl-diskless-sync-delay 0 \
    --loadmodule "$TDBF_MODULE" "$@" \
    || die "redis-server failed to start on port $port (see $ndir/redis.log)"
  wait_for 100 "port $port not answering after 10 s (see $ndir/redis.log)" \
    answers_ping "$port"
}

# wait_for TRIES MESSAGE CMD...: run CMD every 0.1 s until it succeeds; after
# TRIES failures, die with MESSAGE.
wait_for() {
  tries=$1; message=$2; shift 2
  i=0
  until "$@"; do
    i=$((i + 1))
    [ $i -lt "$tries" ] || die "$message"
    sleep 0.1
  done
}

answers_ping() { "$REDIS_CLI" -h 127.0.0.1 -p "$1" ping >/dev/null 2>&1; }

# synced PORT: the node on PORT is a primary, or a replica whose link to
# its primary is up (its first sync is done).
synced() {
  "$REDIS_CLI" -h 127.0.0.1 -p "$1" info replication 2>/dev/null | tr -d '\r' |
    grep -Eq '^(role:master|master_link_status:up)$'
}

# prepare_dir: check the tools, create DIR and make it absolute.
prepare_dir() {
  [ -f "$TDBF_MODULE" ] || die "$TDBF_MODULE is missing: run make module"
  command -v "$REDIS_SERVER" >/dev/null 2>&1 || die "$REDIS_SERVER not found"
  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(CDPATH='' cd -- "$dir" && pwd)
}
