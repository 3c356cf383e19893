#!/bin/sh
# The wall between libtdbf and its users: the CLI (src/cli), the Redis
# module (src/redis) and the Python extension (python/src) use the
# library through its installed headers alone (tdbf.h, tdbf_model.h),
# like any program built against it.  A quoted include in their sources
# must name one of those or a header of the including file's own tree,
# found from the including file's directory;
# anything else (designs/ops.h, ../lib/model/run.h, a header reached only
# through an -I path) is a violation.  The Makefile keeps src/lib off
# their include path, so most violations also fail to compile; this
# names them with file and line, and covers python/src, which setup.py
# compiles together with the library's sources.
# One exception: src/lib/util/wide.h, the 128-bit arithmetic (mul-high,
# multiply-shift, wide division), is header-only, stateless and includes
# <stdint.h> alone, so the CLI's lab reuses it rather than keeping a copy
# of its portable path; the check makes sure it stays that way.
# Usage: check-wall.sh [TREE...]   (default: src/cli src/redis python/src)
set -eu
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- src/cli src/redis python/src
status=0
checked=0
shared_header=$(pwd -P)/src/lib/util/wide.h
# The shared header may include system headers only (<...>), none quoted.
if grep -q '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$shared_header"; then
    echo "check-wall: src/lib/util/wide.h includes a quoted header: the fronts could not share it" >&2
    status=1
fi
for tree in "$@"; do
    [ -d "$tree" ] || { echo "check-wall: no directory $tree" >&2; exit 2; }
    root=$(cd "$tree" && pwd -P)
    files=$(find "$tree" -type f \( -name '*.c' -o -name '*.h' \) | sort)
    for file in $files; do
        checked=$((checked + 1))
        dir=$(dirname "$file")
        # line:header for each quoted include ("# include" spacing too).
        hits=$(grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$file" |
               sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1:\2/') || true
        for hit in $hits; do
            line=${hit%%:*}
            header=${hit#*:}
            case $header in tdbf.h | tdbf_model.h) continue ;; esac
            if [ -f "$dir/$header" ]; then
                found=$(cd "$(dirname "$dir/$header")" && pwd -P)
                [ "$found/$(basename "$header")" = "$shared_header" ] && continue
                case "$found/" in
                    "$root"/*) continue ;;
                esac
            fi
            echo "check-wall: $file:$line: includes \"$header\": only tdbf.h, tdbf_model.h and headers of $tree may be included" >&2
            status=1
        done
    done
done
[ "$checked" -gt 0 ] || { echo "check-wall: no sources found" >&2; exit 1; }
[ "$status" -eq 0 ] && echo "check-wall: $checked files in $* include only tdbf.h, tdbf_model.h, their own headers and util/wide.h"
exit "$status"
