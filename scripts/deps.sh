#!/bin/sh
# Install the Debian packages tdbf needs, only those that are missing.
# Usage: scripts/deps.sh [build|test|all|plot]   (default: all)
# plot: what `make eval` needs to render docs/results/ (not used by CI).
# Fast when everything is present: one dpkg-query, no apt-get.
set -eu

build_pkgs="make gcc libc6-dev libxxhash-dev pkg-config"
# wamerican: the word list of `tdbf eval compare`'s real stream (its
# --quick run is part of test-cli).
# debhelper .. man-db: tests/deb-smoke.sh builds, checks and installs the
# Debian packages; groff-base renders the man pages (tests/man-pages.sh).
# python3-dev .. python3-wheel: building the Python package (make python)
# offline with Debian's python3: headers, setuptools, pip and the wheel
# package pip builds with.
test_pkgs="libcmocka-dev clang libclang-rt-14-dev valgrind redis-server redis-tools python3-redis python3-pytest python3 wamerican
           debhelper dpkg-dev lintian fakeroot man-db groff-base git
           python3-dev python3-setuptools python3-pip python3-wheel"
plot_pkgs="python3 python3-matplotlib wamerican"

case "${1:-all}" in
  build) want="$build_pkgs" ;;
  test|all) want="$build_pkgs $test_pkgs" ;;
  plot) want="$plot_pkgs" ;;
  *) echo "usage: $0 [build|test|all|plot]" >&2; exit 2 ;;
esac

missing=""
for p in $want; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing="$missing $p"
done

[ -z "$missing" ] && exit 0

echo "deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
