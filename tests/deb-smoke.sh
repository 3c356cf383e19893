#!/bin/sh
# deb-smoke.sh — build the Debian packages from this tree, check them with
# lintian, install them into this machine with dpkg -i and use them as a
# user would:
#   - a program built with `pkg-config --cflags --libs tdbf` runs against
#     /usr/lib/<multiarch>/libtdbf.so.0;
#   - /usr/bin/tdbf --version, and man finds tdbf(1), libtdbf(3), tdbf_add(3),
#     libtdbf_model(3), tdbf_plan_apbf(3);
#   - redis-server on a free loopback port loads the installed module and
#     answers TDBF.RESERVE and TDBF.ADD (the server is stopped by its PID);
# then purges them, leaving the machine as it was.  The build runs in a
# copy of the tree under /tmp, so nothing lands in or beside the tree, and
# with dpkg-gensymbols' strictest check: debian/libtdbf0.symbols must list
# exactly the symbols the library exports.
#
# Usage: sh tests/deb-smoke.sh      (root, or a user with sudo)
set -eu

cd "$(dirname "$0")/.."
CC=${CC:-cc}
packages="libtdbf0 libtdbf-dev tdbf redis-tdbf"
module=/usr/lib/redis/modules/tdbf.so
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/tdbf-deb.XXXXXX")
installed=""
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    # shellcheck disable=SC2086
    [ -z "$installed" ] || $SUDO dpkg --purge $packages >/dev/null 2>&1 || true
    rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM HUP

fail() {
    echo "deb-smoke: FAIL: $*" >&2
    exit 1
}

version=$(dpkg-parsechangelog -l debian/changelog -S Version)

# Installed already?  A leftover of this test (same version) is purged
# first; anything else is the machine owner's and is not touched.
for p in $packages; do
    status=$(dpkg-query -W -f='${db:Status-Status} ${Version}' "$p" 2>/dev/null || true)
    case $status in
        "" | "not-installed "* | "config-files "*) ;;
        "installed $version") installed=leftover ;;
        *) fail "$p is installed ($status): purge it first (dpkg --purge $packages)" ;;
    esac
done
if [ -n "$installed" ]; then
    echo "deb-smoke: purging packages left by an earlier run" >&2
    # shellcheck disable=SC2086
    $SUDO dpkg --purge $packages >/dev/null
    installed=""
fi

# 1. Build from a copy: the tree's files as git knows them (tracked and
#    new, not ignored), or everything but build output outside git.
src=$tmp/tdbf-$version
mkdir -p "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard |
        xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\n" "$f"; done' sh |
        tar -cf - -T - | tar -xf - -C "$src"
else
    tar -cf - --exclude='./build' --exclude='./build-*' . | tar -xf - -C "$src"
fi
(cd "$src" && DPKG_GENSYMBOLS_CHECK_LEVEL=4 \
    dpkg-buildpackage -us -uc -b -j"$(nproc)") >"$tmp/build.log" 2>&1 ||
    { tail -40 "$tmp/build.log" >&2
      grep -q 'dpkg-gensymbols: error' "$tmp/build.log" &&
          echo "deb-smoke: the library's exports changed: list them in debian/libtdbf0.symbols" \
               "(the '+' lines above, with the version that added them; '-' lines: a removed" \
               "symbol breaks the ABI and needs a new SOVERSION)" >&2
      fail "dpkg-buildpackage -us -uc -b (log above)"; }
debs=""
for p in $packages; do
    deb=$tmp/${p}_${version}_$(dpkg --print-architecture).deb
    [ -f "$deb" ] || fail "dpkg-buildpackage made no $(basename "$deb")"
    debs="$debs $deb"
done

# 2. lintian: errors fail; the rest is shown.
lintian --fail-on error --display-info "$tmp"/tdbf_"$version"_*.changes \
    >"$tmp/lintian.log" 2>&1 || { cat "$tmp/lintian.log" >&2; fail "lintian reports errors (above)"; }
tags=$(grep -c '^[EWIP]: ' "$tmp/lintian.log" || true)
echo "deb-smoke: packages built; lintian: no errors, $tags other tags"
grep '^[EWIP]: ' "$tmp/lintian.log" | sed 's/^/    /' || true

# 3. Install.
# shellcheck disable=SC2086
$SUDO dpkg -i $debs >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log" >&2; fail "dpkg -i"; }
installed=yes

# 4. A program against the installed library, found by pkg-config alone.
cp tests/smoke/smoke.c "$tmp/smoke.c"
# shellcheck disable=SC2046
"$CC" -std=c11 -Wall -Wextra -Werror -o "$tmp/smoke" "$tmp/smoke.c" \
    $(pkg-config --cflags --libs tdbf) || fail "cc smoke.c \$(pkg-config --cflags --libs tdbf)"
"$tmp/smoke" || fail "the program built with pkg-config tdbf did not exit 0"
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
# (merged /usr: the loader may name it /lib/<multiarch>/...)
ldd "$tmp/smoke" | grep -Eq "libtdbf\.so\.0 => (/usr)?/lib/$multiarch/libtdbf\.so\.0" ||
    fail "the program does not load /usr/lib/$multiarch/libtdbf.so.0"

# 5. The tool and its man pages.
/usr/bin/tdbf --version | grep -q "^tdbf $(echo "$version" | sed 's/-.*//')\$" ||
    fail "/usr/bin/tdbf --version does not print version $version"
for page in 1/tdbf 3/libtdbf 3/tdbf_add 3/libtdbf_model 3/tdbf_plan_apbf; do
    dpkg -S "/usr/share/man/man${page%%/*}/${page#*/}.${page%%/*}.gz" >/dev/null 2>&1 ||
        fail "no package ships the man page ${page#*/}(${page%%/*})"
    # dpkg may be told to skip man pages (path-exclude): check them when present.
    if [ -e "/usr/share/man/man${page%%/*}/${page#*/}.${page%%/*}.gz" ] && command -v man >/dev/null; then
        man -w "${page%%/*}" "${page#*/}" >/dev/null 2>&1 || fail "man -w ${page#*/} finds nothing"
    fi
done

# 6. redis-server loads the installed module on a free loopback port.
[ -x "$module" ] || fail "$module is missing or not executable"
grep -q "^#loadmodule $module\$" /etc/redis/modules.d/tdbf.conf ||
    fail "/etc/redis/modules.d/tdbf.conf has no commented 'loadmodule $module' line"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
    --dir "$tmp" --loadmodule "$module" >"$tmp/redis.log" 2>&1 &
server_pid=$!
tries=0
until [ "$(redis-cli -p "$port" PING 2>/dev/null)" = PONG ]; do
    tries=$((tries + 1))
    kill -0 "$server_pid" 2>/dev/null || { cat "$tmp/redis.log" >&2; fail "redis-server --loadmodule $module exited"; }
    [ "$tries" -lt 100 ] || fail "redis-server on port $port does not answer"
    sleep 0.1
done
reply=$(redis-cli -p "$port" TDBF.RESERVE seen 0.01 WINDOW 1000)
[ "$reply" = OK ] || fail "TDBF.RESERVE seen 0.01 WINDOW 1000 replied '$reply'"
first=$(redis-cli -p "$port" TDBF.ADD seen user:42)
again=$(redis-cli -p "$port" TDBF.ADD seen user:42)
[ "$first" = 1 ] && [ "$again" = 0 ] ||
    fail "TDBF.ADD seen user:42 twice replied '$first', '$again' (expected 1, 0)"
kill "$server_pid"
wait "$server_pid" 2>/dev/null || true
server_pid=""

# 7. Purge, and check nothing is left.
# shellcheck disable=SC2086
$SUDO dpkg --purge $packages >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log" >&2; fail "dpkg --purge"; }
installed=""
for f in "$module" /etc/redis/modules.d /usr/bin/tdbf /usr/include/tdbf.h /usr/include/tdbf_model.h \
         "/usr/lib/$multiarch/libtdbf.so.0"; do
    [ ! -e "$f" ] || fail "$f is still there after dpkg --purge"
done

echo "deb-smoke: OK ($packages $version: built, lintian clean of errors, installed, pkg-config program, tdbf --version, man pages, redis-server --loadmodule, purged)"
