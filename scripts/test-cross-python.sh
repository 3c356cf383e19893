#!/bin/sh
# test-cross-python.sh — build the Python extension with a cross compiler
# (-Werror) against another architecture's CPython, and run the Python
# test suite with that architecture's interpreter under qemu-user.
#
# Usage: sh scripts/test-cross-python.sh [TRIPLET]   (default i686-linux-gnu)
#
# Debian cannot install libpython3.11-dev:i386 next to the amd64 one, so
# the foreign CPython (headers, interpreter, standard library and the
# shared libraries it loads) is fetched with `apt-get download` and
# unpacked with `dpkg -x` into build/cross-ARCH/python/root: nothing is
# installed.  Its own libc comes too, and qemu's -L points at that tree
# alone, so the loader and libc always match.  The architecture must be one of dpkg's foreign ones
# (scripts/deps.sh cross adds i386, arm64 and s390x).  The tests that
# run the tool use this machine's build/tdbf: files then cross between
# the two architectures.  i686 takes about 6 minutes; not part of CI.
set -eu
cd "$(dirname "$0")/.."

triplet=${1:-i686-linux-gnu}
case "$triplet" in
  i?86-*) deb=i386 qemu=qemu-i386 ;;
  aarch64-*) deb=arm64 qemu=qemu-aarch64 ;;
  arm-*hf) deb=armhf qemu=qemu-arm ;;
  s390x-*) deb=s390x qemu=qemu-s390x ;;
  *) echo "test-cross-python: no Debian architecture known for $triplet" >&2; exit 2 ;;
esac
arch=${triplet%%-*}
py=python3.11
multiarch=$(echo "$triplet" | sed 's/^i[0-9]86-/i386-/')
top=$(pwd)
dir="$top/build/cross-$arch/python"
root="$dir/root"

for tool in "$triplet-gcc" "$qemu" apt-get dpkg; do
    command -v "$tool" >/dev/null 2>&1 ||
        { echo "test-cross-python: $tool not found: sh scripts/deps.sh cross" >&2; exit 2; }
done
dpkg --print-foreign-architectures | grep -qx "$deb" ||
    { echo "test-cross-python: dpkg has no $deb architecture (dpkg --add-architecture $deb; apt-get update)" >&2; exit 2; }

# The interpreter, its headers and what its standard library links.
pkgs="libc6 libgcc-s1 lib$py-dev lib$py-minimal lib$py-stdlib $py-minimal libexpat1 zlib1g
      libffi8 libbz2-1.0 liblzma5 libssl3 libsqlite3-0 libuuid1 libncursesw6
      libtinfo6 libreadline8 libgdbm6 libdb5.3 libnsl2 libtirpc3 libcrypt1"
if [ ! -x "$root/usr/bin/$py" ]; then
    echo "test-cross-python: unpacking $py for $deb into $root"
    rm -rf "$dir/debs" "$root"
    mkdir -p "$dir/debs" "$root"
    # shellcheck disable=SC2046 # one word per package
    (cd "$dir/debs" && apt-get download -q $(for p in $pkgs; do echo "$p:$deb"; done) \
        2>&1 | grep -v unsandboxed || true)
    for d in "$dir"/debs/*.deb; do dpkg -x "$d" "$root"; done
    [ -x "$root/usr/bin/$py" ] || { echo "test-cross-python: could not unpack $py:$deb" >&2; exit 1; }
fi

# The extension from the same sources and flags as python/setup.py.
pkg="$dir/tdbf"
obj="$dir/obj"
rm -rf "$pkg" "$obj"
mkdir -p "$obj"
cp -r python/tdbf "$pkg"
rm -f "$pkg"/*.so
echo "test-cross-python: building _tdbf with $triplet-gcc -Werror"
for src in python/src/*.c $(find src/lib -name "*.c" | sort); do
    "$triplet-gcc" -std=c11 -O2 -fPIC -fvisibility=hidden -Wall -Wextra -Werror \
        -Iinclude -Isrc/lib -I"$root/usr/include" -I"$root/usr/include/$py" \
        -c "$src" -o "$obj/$(echo "$src" | tr / _).o" 2>&1 | grep -v "psabi\|alignment of\|^ *[0-9]* | \|^ *| \|In file included\|^ *from " || true
    [ -f "$obj/$(echo "$src" | tr / _).o" ] || { echo "test-cross-python: $src did not build" >&2; exit 1; }
done
suffix=$(echo "$py" | tr -d .)
suffix="cpython-${suffix#python}-$multiarch"
"$triplet-gcc" -shared -Wl,--version-script=python/src/exports.map \
    -o "$pkg/_tdbf.$suffix.so" "$obj"/*.o -lm

[ -x build/tdbf ] || make -s build/tdbf
echo "test-cross-python: python tests with $py:$deb under $qemu"
"$qemu" -L "$root" -E PYTHONHOME="$root/usr" \
    -E PYTHONPATH="$dir:/usr/lib/python3/dist-packages" \
    -E TDBF_CLI="$top/build/tdbf" \
    "$root/usr/bin/$py" -m pytest -q -p no:cacheprovider python/tests
