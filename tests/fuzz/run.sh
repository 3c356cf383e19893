#!/bin/sh
# run.sh — run one libFuzzer target for a bounded time, then summarize.
#
# Usage: sh tests/fuzz/run.sh BINARY SECONDS WORKDIR SEEDDIR...
#
# New inputs go to WORKDIR/corpus (the seed directories are only read),
# crash reproducers to WORKDIR/artifacts/, the fuzzer's log to
# WORKDIR/fuzz.log.  The target's own stdout and stderr are closed
# (-close_fd_mask=3: usage errors would flood the log); sanitizer reports
# still reach the log.  Prints one line:
#     fuzz: NAME: N runs in S s (R/s), corpus C inputs
# and exits 1 after showing the end of the log if the fuzzer found a
# crash, leak, timeout (10 s per input) or out-of-memory.
set -u

bin=$1
seconds=$2
work=$3
shift 3
name=$(basename "$bin")
mkdir -p "$work/corpus" "$work/artifacts"
log="$work/fuzz.log"

"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -close_fd_mask=3 \
    -artifact_prefix="$work/artifacts/" "$work/corpus" "$@" >"$log" 2>&1
rc=$?

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
inputs=$(find "$work/corpus" -type f | wc -l)
if [ "$rc" -ne 0 ]; then
    tail -n 60 "$log"
    echo "fuzz: $name: FAILED (exit $rc); reproducers in $work/artifacts/, log $log"
    exit 1
fi
echo "fuzz: $name: ${runs:-?} runs in $seconds s (${speed:-?}/s), corpus $inputs inputs"
