#!/bin/sh
# check-redis-layers.sh — keep the Redis module's files in their layers.
#
#   sh scripts/check-redis-layers.sh [OBJDIR]
#
# The layers are the table in src/redis/README.md (layer number, headers,
# files).  Fails, naming each offender, when
#   - a .c or .h file of src/redis is missing from the table, or listed
#     twice, or listed but absent;
#   - a file includes a local header of a higher layer, or a local header
#     the table does not place (tdbf.h and tdbf_model.h, the library's, are below them all);
# and, given OBJDIR (the directory of the built src/redis objects, e.g.
# build/src/redis), when
#   - an object uses (calls, reads) a symbol defined by an object of a
#     higher layer;
#   - the objects' uses form a cycle (within a layer too).
# Callbacks the server calls are not uses between files, so they never
# count.  TDBF_LAYERS_VERBOSE=1 prints the uses found (user, definer).
# Exit status 0 when the layering holds, 1 otherwise.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/src/redis
objdir=${1:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# "file layer" for every header and source file in the table.
awk -F'|' '/^\| *[0-9]+ *\|/ {
    layer = $2 + 0
    n = split($4 " " $5, names, " ")
    for (i = 1; i <= n; i++) print names[i], layer
}' "$src/README.md" > "$tmp/layers"

status=0
fail() { echo "check-redis-layers: $*" >&2; status=1; }

if [ ! -s "$tmp/layers" ]; then
    fail "no layer table found in src/redis/README.md"
    exit 1
fi
for twice in $(awk '{ print $1 }' "$tmp/layers" | sort | uniq -d); do
    fail "$twice is listed in more than one layer"
done
for f in $(awk '{ print $1 }' "$tmp/layers"); do
    [ -f "$src/$f" ] || fail "$f is in the layer table but not in src/redis"
done
for path in "$src"/*.c "$src"/*.h; do
    f=$(basename "$path")
    grep -q "^$f " "$tmp/layers" || fail "$f is in no layer: add it to src/redis/README.md"
done

layer_of() { awk -v f="$1" '$1 == f { print $2 }' "$tmp/layers"; }

# Includes: "file header" pairs, checked against the table.
for path in "$src"/*.c "$src"/*.h; do
    f=$(basename "$path")
    sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$path" |
        while read -r header; do echo "$f $header"; done
done > "$tmp/includes"
while read -r f header; do
    case "$header" in tdbf.h|tdbf_model.h) continue ;; esac
    own=$(layer_of "$f")
    theirs=$(layer_of "$header")
    [ -n "$own" ] || continue                 # reported above
    if [ -z "$theirs" ]; then
        fail "$f includes $header, which is in no layer"
    elif [ "$theirs" -gt "$own" ]; then
        fail "$f (layer $own) includes $header (layer $theirs)"
    fi
done < "$tmp/includes"

# Uses between the built objects: who defines each global symbol, and
# who uses it.
if [ -n "$objdir" ]; then
    objs=
    for c in $(awk '$1 ~ /\.c$/ { print $1 }' "$tmp/layers"); do
        obj=$objdir/${c%.c}.o
        if [ -f "$obj" ]; then
            objs="$objs $obj"
        else
            fail "$obj is missing: build the module first"
        fi
    done
    # "user definer symbol" between different files, as file names.
    # shellcheck disable=SC2086
    sh "$root/scripts/uses.sh" edges $objs |
        awk '{ n = split($1, u, "/"); m = split($2, d, "/")
               sub(/\.o$/, ".c", u[n]); sub(/\.o$/, ".c", d[m]); print u[n], d[m], $3 }' \
        > "$tmp/uses"
    awk '{ print $1, $2 }' "$tmp/uses" | sort -u > "$tmp/edges"
    [ -z "${TDBF_LAYERS_VERBOSE:-}" ] || cat "$tmp/edges" >&2
    while read -r user definer; do
        own=$(layer_of "$user")
        theirs=$(layer_of "$definer")
        if [ "$theirs" -gt "$own" ]; then
            syms=$(awk -v u="$user" -v d="$definer" '$1 == u && $2 == d { printf "%s%s", sep, $3; sep = " " }' \
                "$tmp/uses")
            fail "$user (layer $own) uses $definer (layer $theirs): $syms"
        fi
    done < "$tmp/edges"
    cycle=$(sh "$root/scripts/uses.sh" cycle < "$tmp/edges")
    [ -z "$cycle" ] || fail "these files use each other in a cycle: $cycle"
fi

if [ "$status" -eq 0 ]; then
    echo "check-redis-layers: $(wc -l < "$tmp/layers") files in their layers${objdir:+, no upward use, no cycle}"
fi
exit "$status"
