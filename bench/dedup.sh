#!/bin/sh
# dedup.sh — throughput of `tdbf dedup` against sort -u and awk.
#
# Usage: sh bench/dedup.sh [PATH/TO/tdbf]        (make bench-dedup)
#        LINES=1000000 KEYS=300000 sh bench/dedup.sh build/tdbf
#
# Writes LINES short lines ("u" and a number, 10^7 by default) drawn
# uniformly from KEYS keys (3*10^6) into a temporary file, then times each
# tool over it, output to /dev/null, in the same run:
#   awk '!seen[$0]++'    exact, keeps every key (the baseline of the ratios)
#   sort -u              exact, keeps every key, does not keep the order
#                        (LC_ALL=C: byte order, its fastest)
#   tdbf dedup ...       count windows of 10^6 lines (the default apbf-line,
#                        APBF, APBBF), a time window of 10 minutes (the
#                        default tlbf-line and TLBF: here every line is
#                        inside it, all of them in one burst; from the
#                        file, which sizes the filter, and through a pipe,
#                        where the filter learns the rate), and the exact
#                        design
# Reports wall seconds, lines/s, the ratio to awk and the lines printed: a
# report, not a test.  The machine's other load shows in the wall times;
# compare ratios from one run.
set -eu

tdbf=${1:-build/tdbf}
lines=${LINES:-10000000}
keys=${KEYS:-3000000}
input=$(mktemp "${TMPDIR:-/tmp}/tdbf-dedup-bench.XXXXXX")
trap 'rm -f "$input"' EXIT HUP INT TERM

echo "generating $lines lines over $keys keys..." >&2
awk -v n="$lines" -v k="$keys" 'BEGIN {
    srand(42)
    for (i = 0; i < n; i++) printf "u%d\n", int(rand() * k)
}' > "$input"
bytes=$(wc -c < "$input")

now_ns() { date +%s%N; }

baseline=""
printf '%-44s %8s %12s %8s %10s\n' "command" "seconds" "lines/s" "vs awk" "lines out"
measure() {
    label=$1
    shift
    start=$(now_ns)
    out=$("$@" < "$input" | wc -l)
    stop=$(now_ns)
    awk -v label="$label" -v ns="$((stop - start))" -v n="$lines" \
        -v base="${baseline:-0}" -v out="$out" 'BEGIN {
        s = ns / 1e9
        ratio = base > 0 ? sprintf("%.2fx", base / s) : "1.00x"
        printf "%-44s %8.2f %12.0f %8s %10d\n", label, s, n / s, ratio, out
    }'
    [ -n "$baseline" ] || baseline=$(awk -v ns="$((stop - start))" 'BEGIN { print ns / 1e9 }')
}

measure "awk '!seen[\$0]++'" awk '!seen[$0]++'
measure "LC_ALL=C sort -u" env LC_ALL=C sort -u
measure "tdbf dedup --last 1M (apbf-line)" "$tdbf" dedup --quiet --last 1M
measure "tdbf dedup --last 1M --design apbf" "$tdbf" dedup --quiet --last 1M --design apbf
measure "tdbf dedup --last 1M --design apbbf" "$tdbf" dedup --quiet --last 1M --design apbbf
measure "tdbf dedup --window 10m (tlbf-line)" "$tdbf" dedup --quiet --window 10m
measure "tdbf dedup --window 10m --design tlbf" "$tdbf" dedup --quiet --window 10m --design tlbf
measure "cat | tdbf dedup --window 10m (a pipe)" sh -c 'cat | "$0" dedup --quiet --window 10m' "$tdbf"
measure "cat | tdbf dedup --window 10m --design tlbf" sh -c 'cat | "$0" dedup --quiet --window 10m --design tlbf' "$tdbf"
measure "tdbf dedup --last 1M --design exact" "$tdbf" dedup --quiet --last 1M --design exact
echo "input: $lines lines, $bytes bytes, $keys keys; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
