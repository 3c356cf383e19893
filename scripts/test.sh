#!/bin/sh
# The whole test suite: install what is missing, build, run the unit,
# property and statistical tests, then the same tests under ASan+UBSan,
# then an install smoke test (pkg-config + a program built against it).
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
jobs=$(nproc)
make -s -j"$jobs" all
echo "== unit, property and statistical tests"
make -s -j"$jobs" test
echo "== install smoke test"
sh tests/install-smoke.sh
echo "== ASan+UBSan build of the tests"
make -s -j"$jobs" san
