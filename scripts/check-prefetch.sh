#!/bin/sh
# Every design's batch callback that exists to overlap memory accesses
# (ops->prefetch, ops->contains_many, ops->add_many: functions named
# *_prefetch, *_contains_many, *_add_many in the library's objects), and
# the single calls of APBF and APBBF that ask for their first reads
# together (apbf_add, apbbf_add, apbbf_contains), must
# still contain a prefetch instruction after optimisation.  GCC may delete a helper that only prefetches (see
# tdbf_prefetch in src/lib/core/bits.h); the batch calls then lose their
# memory-level parallelism without any test noticing, so this looks at
# the machine code itself.  Usage: check-prefetch.sh OBJECT...
set -eu
[ $# -gt 0 ] || { echo "usage: $0 OBJECT..." >&2; exit 2; }
status=0
checked=0
for obj in "$@"; do
    report=$(objdump -d --no-show-raw-insn "$obj" | awk '
        /^[0-9a-f]+ <([A-Za-z0-9_]+_(prefetch|contains_many|add_many)|apbf_add|apbbf_(add|contains))>:$/ {
            if (fn != "") print fn, n
            fn = $2; n = 0; next
        }
        /^[0-9a-f]+ <.*>:$/ { if (fn != "") print fn, n; fn = ""; next }
        fn != "" && /\tprefetch/ { n++ }
        END { if (fn != "") print fn, n }')
    [ -n "$report" ] || continue
    while read -r fn n; do
        checked=$((checked + 1))
        if [ "$n" -eq 0 ]; then
            echo "check-prefetch: $obj: $fn has no prefetch instruction left" >&2
            status=1
        fi
    done <<END
$report
END
done
[ "$checked" -gt 0 ] || { echo "check-prefetch: no batch callback found" >&2; exit 1; }
[ "$status" -eq 0 ] && echo "check-prefetch: $checked batch callbacks and single calls keep their prefetches"
exit "$status"
