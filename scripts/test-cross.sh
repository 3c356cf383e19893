#!/bin/sh
# test-cross.sh — build the library and unit tests with a cross compiler
# and run them under qemu-user: s390x (64-bit big-endian), aarch64, i686
# (32-bit, x87 floating point).  Golden files written on x86-64 must load,
# answer and save back identically on each (tests/unit/test_golden.c).
#
# Usage: sh scripts/test-cross.sh quick|full [TRIPLET...]
#   quick  the golden files, the codec tests, the API tests, the
#          differential test against the exact window, the wide
#          (64x64->128-bit) arithmetic and the option language (its
#          decimals must round once, also on x87), on small sizes (TDBF_TEST_SMALL,
#          as the sanitizer build): 1.5 to 4 minutes an architecture,
#          build included
#   full   every unit test at its normal sizes (aarch64 about 20 minutes,
#          s390x and i686 2 and 5 times that: not part of CI)
#   TRIPLET  s390x-linux-gnu, aarch64-linux-gnu, i686-linux-gnu (default: all)
#
# Each architecture builds into build/cross-ARCH/MODE/ (the two modes
# compile the tests differently) with TRIPLET-gcc and
# TRIPLET-ar and runs under qemu-ARCH, which finds the architecture's
# dynamic loader and libcmocka where Debian's multiarch packages put them
# (scripts/deps.sh cross).  No -L for qemu: with the multiarch libc
# installed it would mix two loaders.  Prints one "cross ARCH: N passed,
# N failed" line per architecture; the last line totals them, and the
# exit status is non-zero if anything failed or did not build.
set -u
cd "$(dirname "$0")/.." || exit 2

mode=${1:-}
case "$mode" in
  quick) tests="test_golden test_codec test_api test_against_exact test_wide test_params"
         small="-DTDBF_TEST_SMALL=1" ;;
  full)  tests=$(for src in tests/unit/test_*.c; do basename "$src" .c; done)
         small="" ;;
  *) echo "usage: $0 quick|full [TRIPLET...]" >&2; exit 2 ;;
esac
shift
[ $# -gt 0 ] || set -- s390x-linux-gnu aarch64-linux-gnu i686-linux-gnu

# qemu-user's name for the architecture of a GNU triplet.
qemu_of() {
    case "$1" in
      i?86-*) echo qemu-i386 ;;
      *) echo "qemu-${1%%-*}" ;;
    esac
}

log=$(mktemp "${TMPDIR:-/tmp}/tdbf-cross.XXXXXX") || exit 2
trap 'rm -f "$log"' EXIT HUP INT TERM

total_passed=0
total_failed=0
summary=""
# An architecture that could not run its tests counts as one failure.
not_run() {
    echo "cross $1: $2" >&2
    total_failed=$((total_failed + 1))
    summary="$summary
cross $1: 0 passed, 1 failed ($2)"
}
for triplet in "$@"; do
    arch=${triplet%%-*}
    build="build/cross-$arch/$mode"
    qemu=$(qemu_of "$triplet")
    for tool in "$triplet-gcc" "$triplet-ar" "$qemu"; do
        if ! command -v "$tool" >/dev/null 2>&1; then
            not_run "$arch" "$tool not found: sh scripts/deps.sh cross"
            continue 2
        fi
    done
    bins=""
    for t in $tests; do bins="$bins $build/tests/$t"; done
    start=$(date +%s)
    # shellcheck disable=SC2086 # lists of words
    if ! make -s -j"$(nproc)" BUILD="$build" CC="$triplet-gcc" AR="$triplet-ar" \
            CFLAGS="$small" $bins; then
        not_run "$arch" "build failed"
        continue
    fi
    built=$(date +%s)
    # shellcheck disable=SC2086
    TDBF_TEST_WRAPPER="$qemu" sh tests/run-unit.sh $bins >"$log" 2>&1
    cat "$log"
    result=$(tail -n 1 "$log")
    done_at=$(date +%s)
    passed=$(echo "$result" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
    failed=$(echo "$result" | sed -n 's/^unit: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
    [ -n "$passed" ] || { passed=0; failed=1; }
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    summary="$summary
cross $arch: $passed passed, $failed failed (build $((built - start)) s, tests $((done_at - built)) s under $qemu)"
done

echo "$summary" | sed '/^$/d'
echo "cross: $total_passed passed, $total_failed failed"
[ "$total_failed" -eq 0 ]
