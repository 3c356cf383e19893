#!/bin/sh
# uses.sh — which built objects use which, and whether they use each
# other in a cycle.  Shared by check-lib-layers.sh and
# check-redis-layers.sh.
#
#   sh scripts/uses.sh edges OBJ...   "user definer symbol" lines: the
#                                     object `user` uses (calls, reads) the
#                                     global `symbol` that `definer`
#                                     defines; paths as given
#   sh scripts/uses.sh cycle < EDGES  the objects caught in a cycle, on
#                                     one line (empty when there is none)
set -eu

case "${1:-}" in
edges)
    shift
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT INT TERM
    : > "$tmp/defs"
    : > "$tmp/uses"
    for obj in "$@"; do
        "${NM:-nm}" -P -g --defined-only "$obj" | awk -v f="$obj" '{ print $1, f }' >> "$tmp/defs"
        "${NM:-nm}" -P -u "$obj" | awk -v f="$obj" '{ print f, $1 }' >> "$tmp/uses"
    done
    awk 'NR == FNR { def[$1] = $2; next }
         ($2 in def) && def[$2] != $1 { print $1, def[$2], $2 }' \
        "$tmp/defs" "$tmp/uses" | sort -u
    ;;
cycle)
    # (A third field, the symbol, is ignored.)  What is left after
    # repeatedly removing the nodes that use nothing
    # left, or that nothing left uses (Kahn's algorithm, both ways).
    awk '{ out[$1]++; in_[$2]++; node[$1]; node[$2]; from[NR] = $1; to[NR] = $2 }
        END {
            do {
                removed = 0
                for (n in node) if (!out[n] || !in_[n]) {
                    delete node[n]; removed = 1
                    for (e in from) if (to[e] == n || from[e] == n) {
                        out[from[e]]--; in_[to[e]]--; delete from[e]
                    }
                }
            } while (removed)
            for (n in node) printf "%s ", n
        }'
    ;;
*)
    echo "usage: $0 edges OBJ... | $0 cycle < EDGES" >&2
    exit 2
    ;;
esac
