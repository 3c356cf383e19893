#!/bin/sh
# The whole test suite: install what is missing, build, run the unit,
# property and statistical tests, the golden files, codec and API tests
# cross-built for other architectures and run under qemu-user, an install
# smoke test (pkg-config + a program built against the installed library,
# man pages, the module, uninstall), the Debian packages (built, lintian, installed with dpkg -i,
# used, purged), valgrind memcheck of the
# quick tests, the CLI's end-to-end tests, the Python package's tests
# (built with pip from python/, run with pytest), the cross-front tests
# (one option table and saved filters through all three), a short fuzzing run, the
# lock-free designs' thread tests under ThreadSanitizer, and last the same
# unit tests built with ASan+UBSan.
set -eu
cd "$(dirname "$0")/.."
sh scripts/deps.sh test
jobs=$(nproc)
# Each stage's wall time follows it (on stderr: the last line of stdout
# stays the runner's summary), so a slow stage shows in CI's log.
start=$(date +%s)
last=$start
stage() {
    now=$(date +%s)
    echo "   (stage took $((now - last)) s; $((now - start)) s so far)" >&2
    last=$now
    [ $# -eq 0 ] || echo "== $1"
}
make -s -j"$jobs" all
stage "unit, property and statistical tests"
make -s -j"$jobs" test
stage "other architectures under qemu (s390x big-endian, aarch64, i686): golden files, codec, API, differential, wide arithmetic, option language"
make -s test-cross
stage "install smoke test"
sh tests/install-smoke.sh
stage "Debian packages: dpkg-buildpackage, lintian, dpkg -i, pkg-config, redis-server --loadmodule, purge"
sh tests/deb-smoke.sh
stage "valgrind memcheck of the quick tests"
make -s valgrind
stage "Redis module tests (pytest, real redis-server)"
make -s test-redis
stage "tdbf dedup and tdbf info, end to end (valgrind included)"
make -s test-cli
stage "Python package: pip build of import tdbf, pytest"
make -s test-python
stage "every front alike: one option table and saved filters through the tool, Python and Redis"
make -s test-fronts
stage "fuzzing: loader and dedup parsing, 30 s each (libFuzzer)"
make -s -j"$jobs" fuzz FUZZ_SECONDS=30
stage "ThreadSanitizer: FPDECAY and concurrent apbf-line, several threads"
make -s tsan
stage "ASan+UBSan build of the tests"
make -s -j"$jobs" san
