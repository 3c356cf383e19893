#!/bin/sh
# The whole test suite: install what is missing, build, run the unit,
# property and statistical tests, an install smoke test (pkg-config + a
# program built against the installed library), valgrind memcheck of the
# quick tests, and last the same unit tests built with ASan+UBSan.
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
echo "== ASan+UBSan build of the tests"
make -s -j"$jobs" san
