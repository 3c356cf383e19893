#!/bin/sh
# run-unit.sh — run cmocka test binaries and total their results.
#
# Usage: sh tests/run-unit.sh BINARY...
#        TDBF_TEST_WRAPPER="valgrind -q --error-exitcode=99" sh tests/run-unit.sh ...
#
# Each binary's own output goes to stdout as it is.  The totals come from
# cmocka's summary lines ("[  PASSED  ] N test(s)." and "[  FAILED  ] N
# test(s), listed below:"); a binary that crashes, prints no summary, or
# exits non-zero without reporting a failed test (a sanitizer report at
# exit, say) counts as one failed test.  The last line is always
#     unit: N passed, N failed
# and the exit status is non-zero if anything failed.
set -u

passed=0
failed=0
broken=""
out=$(mktemp "${TMPDIR:-/tmp}/tdbf-unit.XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT HUP INT TERM

for bin in "$@"; do
    echo "== $bin"
    if [ ! -x "$bin" ]; then
        echo "run-unit: $bin: not an executable" >&2
        failed=$((failed + 1))
        broken="$broken $bin"
        continue
    fi
    # shellcheck disable=SC2086 # the wrapper is a command line
    ${TDBF_TEST_WRAPPER:-} "$bin" >"$out" 2>&1
    rc=$?
    cat "$out"
    # Sum every summary of the binary (one per cmocka group).
    p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test(s)\..*/\1/p' "$out" |
        awk '{ s += $1 } END { print s + 0 }')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test(s), listed below:.*/\1/p' "$out" |
        awk '{ s += $1 } END { print s + 0 }')
    summaries=$(grep -c -e '^\[  PASSED  \] [0-9]' -e '^\[  FAILED  \] [0-9]' "$out")
    if [ "$summaries" -eq 0 ]; then
        echo "run-unit: $bin printed no summary (exit status $rc): counted as 1 failed" >&2
        f=$((f + 1))
    elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "run-unit: $bin exited with status $rc after its tests passed: counted as 1 failed" >&2
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    [ "$f" -gt 0 ] && broken="$broken $bin"
done

[ -n "$broken" ] && echo "run-unit: failing binaries:$broken" >&2
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
