#!/bin/sh
# check-lib-layers.sh — keep the library's files in their layers.
#
#   sh scripts/check-lib-layers.sh OBJ...    (the built src/lib objects)
#
# The layers, bottom up (README.md, Architecture):
#   services   core/alloc, bits, hash, stream (the codec streams)
#   models     planning/*, inference/*
#   designs    designs/*: each uses the layers below only
#   shell      core/shell: the table of designs and the handle
#   API        core/filter, codec (the file format), planner (the
#              planners' public doors): they call the designs through
#              the table, never the other way round
# Fails, naming each offender, when a file of the models or the designs
# uses (calls, reads) a symbol of the shell or the API, or when any files
# use each other in a cycle.  Exit status 0 when the layering holds.
set -eu
[ $# -gt 0 ] || { echo "usage: $0 OBJ..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# "user definer symbol" with paths shortened to group/file.
sh "$root/scripts/uses.sh" edges "$@" |
    awk '{ for (i = 1; i <= 2; i++) { n = split($i, p, "/"); sub(/\.o$/, "", p[n]); $i = p[n - 1] "/" p[n] }
           print }' > "$tmp/uses"
status=0
upward=$(awk '$1 ~ /^(designs|planning|inference)\// &&
              $2 ~ /^core\/(shell|filter|codec|planner)$/ { print "  " $1 " uses " $2 ": " $3 }' "$tmp/uses")
if [ -n "$upward" ]; then
    echo "check-lib-layers: a design or model calls up into the shell or the API:" >&2
    echo "$upward" >&2
    status=1
fi
cycle=$(awk '{ print $1, $2 }' "$tmp/uses" | sort -u | sh "$root/scripts/uses.sh" cycle)
if [ -n "$cycle" ]; then
    echo "check-lib-layers: these files use each other in a cycle: $cycle" >&2
    status=1
fi
[ "$status" -ne 0 ] || echo "check-lib-layers: $# objects, no upward use, no cycle"
exit "$status"
