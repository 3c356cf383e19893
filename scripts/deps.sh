#!/bin/sh
# Install the Debian packages tdbf needs, only those that are missing.
# Usage: scripts/deps.sh [build|test|all|plot|cross]   (default: all)
# plot: what `make eval` needs to render docs/results/ (not used by CI).
# cross: what `make test-cross` needs (part of test): cross compilers,
# qemu-user, and libcmocka of each foreign architecture through Debian
# multiarch (dpkg --add-architecture s390x arm64 i386).
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
# The architectures of `make test-cross` (scripts/test-cross.sh): Debian's
# name, then the GNU triplet's, for each.
cross_arches="s390x arm64 i386"
cross_pkgs="qemu-user gcc-s390x-linux-gnu libc6-dev-s390x-cross libcmocka-dev:s390x
            gcc-aarch64-linux-gnu libc6-dev-arm64-cross libcmocka-dev:arm64
            gcc-i686-linux-gnu libc6-dev-i386-cross libcmocka-dev:i386"

case "${1:-all}" in
  build) want="$build_pkgs" ;;
  test|all) want="$build_pkgs $test_pkgs $cross_pkgs" ;;
  plot) want="$plot_pkgs" ;;
  cross) want="$build_pkgs $cross_pkgs" ;;
  *) echo "usage: $0 [build|test|all|plot|cross]" >&2; exit 2 ;;
esac

# A name without ":arch" wants the machine's own architecture (or "all"):
# with foreign architectures added, dpkg-query lists every instance of a
# multiarch package, one line each.
native=$(dpkg --print-architecture)
missing=""
for p in $want; do
  case "$p" in
    *:*) accept="[^ ]*" ;;
    *) accept="($native|all)" ;;
  esac
  dpkg-query -W -f='${Architecture} ${db:Status-Status}\n' "$p" 2>/dev/null |
    grep -Eqx "$accept installed" || missing="$missing $p"
done

[ -z "$missing" ] && exit 0

echo "deps: installing:$missing" >&2
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
# Foreign architectures first, so the update fetches their package lists.
case "$missing" in
  *:*)
    known=$(dpkg --print-foreign-architectures)
    for arch in $cross_arches; do
      echo "$known" | grep -qx "$arch" || $SUDO dpkg --add-architecture "$arch"
    done ;;
esac
# A mirror caught mid-sync fails one list now and then: install from the
# lists that did arrive (apt-get install names what it cannot find).
$SUDO apt-get update -qq || echo "deps: apt-get update reported errors; going on with the lists it has" >&2
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
