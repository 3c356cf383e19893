#!/bin/sh
# check-lib-layers.sh — keep the library's modules in their layers.
#
#   sh scripts/check-lib-layers.sh OBJ...    (the built src/lib objects)
#
# The layers are the folders of src/lib, bottom up: util, model, designs,
# api (`order` below; what each holds: docs/architecture.md).
# A module is a design (designs/X.c, or the folder designs/X/) or, for
# the other layers, the whole layer.  Fails, naming each offender, when
#   - a module uses (calls, reads) a symbol of a module in a higher layer;
#   - modules use each other in a cycle (files inside one module may).
# A new file or design needs no edit here: its folder places it.
# TDBF_LAYERS_VERBOSE=1 prints the module graph (user -> definers);
# `TDBF_LAYERS_VERBOSE=1 make check-layers` checks the built objects.
# Exit status 0 when the layering holds.
set -eu
[ $# -gt 0 ] || { echo "usage: $0 OBJ..." >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# The layers in order, read from the folders that exist.
order="util model designs api"
for dir in "$root"/src/lib/*/; do
    name=$(basename "$dir")
    case " $order " in
      *" $name "*) ;;
      *) echo "check-lib-layers: src/lib/$name/ is not a layer ($order): place it" >&2; exit 1 ;;
    esac
done

# "user definer symbol", each object named by its module.
sh "$root/scripts/uses.sh" edges "$@" |
    awk '{ for (i = 1; i <= 2; i++) {
               path = $i; sub(/^.*src\/lib\//, "", path); sub(/\.o$/, "", path)
               n = split(path, p, "/")
               $i = (p[1] == "designs") ? "designs/" p[2] : p[1]
           }
           if ($1 != $2) print }' > "$tmp/uses"

if [ "${TDBF_LAYERS_VERBOSE:-0}" = 1 ]; then
    awk '{ print $1, $2 }' "$tmp/uses" | sort -u |
        awk '$1 != last { if (last != "") print line; last = $1; line = $1 " ->" }
             { line = line " " $2 } END { if (last != "") print line }'
fi

status=0
upward=$(awk -v order="$order" '
    BEGIN { n = split(order, o, " "); for (i = 1; i <= n; i++) rank[o[i]] = i }
    { split($1, u, "/"); split($2, d, "/")
      if (rank[d[1]] > rank[u[1]]) print "  " $1 " uses " $2 ": " $3 }' "$tmp/uses")
if [ -n "$upward" ]; then
    echo "check-lib-layers: a module uses one of a higher layer ($order):" >&2
    echo "$upward" >&2
    status=1
fi
cycle=$(awk '{ print $1, $2 }' "$tmp/uses" | sort -u | sh "$root/scripts/uses.sh" cycle)
if [ -n "$cycle" ]; then
    echo "check-lib-layers: these modules use each other in a cycle: $cycle" >&2
    status=1
fi
modules=$(awk '{ print $1; print $2 }' "$tmp/uses" | sort -u | wc -l)
[ "$status" -ne 0 ] || echo "check-lib-layers: $# objects in $modules modules, no upward use, no cycle"
exit "$status"
