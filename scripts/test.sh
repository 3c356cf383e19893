#!/bin/sh
# The whole test suite: install what is missing, build, run the unit,
# property and statistical tests, an install smoke test (pkg-config + a
# program built against the installed library), valgrind memcheck of the
# quick tests, the CLI's end-to-end tests, a short fuzzing run, the
# lock-free designs' thread tests under ThreadSanitizer, and last the same
# unit tests built with ASan+UBSan.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
jobs=$(nproc)
make -s -j"$jobs" all
echo "== unit, property and statistical tests"
make -s -j"$jobs" test
echo "== install smoke test"
sh tests/install-smoke.sh
echo "== valgrind memcheck of the quick tests"
make -s valgrind
echo "== Redis module tests (pytest, real redis-server)"
make -s test-redis
echo "== tdbf dedup and tdbf info, end to end (valgrind included)"
make -s test-cli
echo "== fuzzing: loader and dedup parsing, 30 s each (libFuzzer)"
make -s -j"$jobs" fuzz FUZZ_SECONDS=30
echo "== ThreadSanitizer: FPDECAY and concurrent apbf-line, several threads"
make -s tsan
echo "== ASan+UBSan build of the tests"
make -s -j"$jobs" san
