#!/bin/sh
# install-smoke.sh — install tdbf the way a user would and build against
# it: <tdbf.h>, <tdbf_model.h> and `pkg-config tdbf`, once with the shared library and once
# statically.  Also checks the shared library's SONAME, that it exports
# nothing without the tdbf_ prefix, that tdbf.pc names the PREFIX of the
# install (not the one of an earlier `make`), that the man pages and the
# Redis module are installed, and that `make uninstall` removes everything
# `make install` put there (with DESTDIR).
#
# Usage: sh tests/install-smoke.sh      (from anywhere; uses $CC or cc)
set -eu

cd "$(dirname "$0")/.."
CC=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tdbf-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

fail() {
    echo "install-smoke: FAIL: $*" >&2
    exit 1
}

# The files an install must hold, relative to PREFIX.
installed="include/tdbf.h include/tdbf_model.h lib/libtdbf.a lib/libtdbf.so lib/libtdbf.so.0
           lib/pkgconfig/tdbf.pc bin/tdbf lib/redis/modules/tdbf.so
           share/man/man1/tdbf.1 share/man/man3/libtdbf.3
           share/man/man3/tdbf_open.3 share/man/man3/tdbf_add.3
           share/man/man3/libtdbf_model.3 share/man/man3/tdbf_plan_apbf.3"

# 1. Staged (DESTDIR), as a packager does: a PREFIX other than the build's
#    default, then uninstall.
stage=$tmp/stage
make -s install DESTDIR="$stage" PREFIX=/opt/tdbf >"$tmp/make.log" 2>&1 ||
    { cat "$tmp/make.log" >&2; fail "make install DESTDIR=$stage PREFIX=/opt/tdbf"; }
for f in $installed; do
    [ -e "$stage/opt/tdbf/$f" ] || fail "not installed: /opt/tdbf/$f"
done
grep -qx 'prefix=/opt/tdbf' "$stage/opt/tdbf/lib/pkgconfig/tdbf.pc" ||
    fail "tdbf.pc installed with PREFIX=/opt/tdbf says: $(grep '^prefix=' "$stage/opt/tdbf/lib/pkgconfig/tdbf.pc")"
[ -x "$stage/opt/tdbf/lib/redis/modules/tdbf.so" ] ||
    fail "the Redis module is not executable (redis-server 7 refuses it)"
make -s uninstall DESTDIR="$stage" PREFIX=/opt/tdbf >"$tmp/make.log" 2>&1 ||
    { cat "$tmp/make.log" >&2; fail "make uninstall DESTDIR=$stage PREFIX=/opt/tdbf"; }
left=$(find "$stage" ! -type d)
[ -z "$left" ] || fail "make uninstall left: $left"

# 2. Straight into a PREFIX, as a user does; then build against it with
#    nothing but pkg-config.
prefix=$tmp/prefix
make -s install PREFIX="$prefix" >"$tmp/make.log" 2>&1 ||
    { cat "$tmp/make.log" >&2; fail "make install PREFIX=$prefix"; }
for f in $installed; do
    [ -e "$prefix/$f" ] || fail "not installed: $prefix/$f"
done
if command -v man >/dev/null 2>&1; then
    for page in tdbf libtdbf tdbf_add libtdbf_model tdbf_plan_apbf; do
        MANPATH=$prefix/share/man man -w "$page" >/dev/null 2>&1 ||
            fail "man -w $page finds nothing under $prefix/share/man"
    done
fi

root=$prefix
PKG_CONFIG_LIBDIR=$root/lib/pkgconfig # only our .pc, not the system's
export PKG_CONFIG_LIBDIR
cflags=$(pkg-config --cflags tdbf) || fail "pkg-config --cflags tdbf"
libs=$(pkg-config --libs tdbf) || fail "pkg-config --libs tdbf"
static_libs=$(pkg-config --static --libs tdbf) || fail "pkg-config --static --libs tdbf"
[ "$(pkg-config --modversion tdbf)" = "$(sed -n 's/^#define TDBF_VERSION_STRING "\(.*\)"/\1/p' include/tdbf.h)" ] ||
    fail "pkg-config --modversion tdbf does not match TDBF_VERSION_STRING"

# A small user program: only <tdbf.h> and <tdbf_model.h>, nothing from
# the source tree.
cp tests/smoke/smoke.c "$tmp/smoke.c"

# Shared: must need libtdbf.so.0 and run from the installed copy.
# shellcheck disable=SC2086
"$CC" -std=c11 -Wall -Wextra -Werror $cflags -o "$tmp/smoke-shared" "$tmp/smoke.c" $libs ||
    fail "compile against the shared library ($cflags ... $libs)"
readelf -d "$tmp/smoke-shared" | grep -q 'NEEDED.*\[libtdbf\.so\.0\]' ||
    fail "smoke-shared does not need libtdbf.so.0"
LD_LIBRARY_PATH=$root/lib "$tmp/smoke-shared" || fail "smoke-shared did not exit 0"
resolved=$(LD_LIBRARY_PATH=$root/lib ldd "$tmp/smoke-shared" | sed -n 's/.*libtdbf\.so\.0 => \([^ ]*\).*/\1/p')
case $resolved in
    "$root"/lib/*) ;;
    *) fail "smoke-shared loads libtdbf.so.0 from '$resolved', not the install" ;;
esac

# Static: -ltdbf resolved to libtdbf.a, with the private libraries.
static_link=$(echo "$static_libs" | sed 's/-ltdbf/-Wl,-Bstatic -ltdbf -Wl,-Bdynamic/')
# shellcheck disable=SC2086
"$CC" -std=c11 -Wall -Wextra -Werror $cflags -o "$tmp/smoke-static" "$tmp/smoke.c" $static_link ||
    fail "compile against the static library ($static_link)"
if readelf -d "$tmp/smoke-static" | grep -q 'NEEDED.*libtdbf'; then
    fail "smoke-static still needs a shared libtdbf"
fi
"$tmp/smoke-static" || fail "smoke-static did not exit 0"

# The shared library: SONAME, and only tdbf_* exported.
so=$(readlink -f "$root/lib/libtdbf.so")
readelf -d "$so" | grep -q 'SONAME.*\[libtdbf\.so\.0\]' ||
    fail "$(basename "$so") has no SONAME libtdbf.so.0"
exported=$(nm -D --defined-only "$so" | awk 'NF >= 3 { print $3 }')
[ -n "$exported" ] || fail "$(basename "$so") exports nothing"
offenders=$(echo "$exported" | grep -v '^tdbf_' || true)
if [ -n "$offenders" ]; then
    echo "$offenders" | sed 's/^/    /' >&2
    fail "$(basename "$so") exports symbols without the tdbf_ prefix (listed above)"
fi
count=$(echo "$exported" | wc -l | tr -d ' ')

echo "install-smoke: OK ($count tdbf_* symbols exported, SONAME libtdbf.so.0, shared and static builds via pkg-config run, man pages and module installed, uninstall clean)"
