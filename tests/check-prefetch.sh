#!/bin/sh
# check-prefetch.sh's own test: it must pass an object whose batch
# callback keeps its prefetch and fail one whose callback has none, for
# the host compiler and for every cross compiler installed (Debian's
# gcc-TRIPLET); on targets with no prefetch instruction it must skip
# (exit 0, saying so).
#
# Usage: sh tests/check-prefetch.sh [CC...]   (default: $CC or cc, then
#        aarch64-, s390x-, powerpc64le-, riscv64-, arm-linux-gnueabihf-
#        and i686-linux-gnu-gcc where installed)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tdbf-prefetch.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT HUP INT TERM

if [ $# -eq 0 ]; then
    set -- "${CC:-cc}"
    for triplet in aarch64-linux-gnu s390x-linux-gnu powerpc64le-linux-gnu \
                   riscv64-linux-gnu arm-linux-gnueabihf i686-linux-gnu; do
        command -v "$triplet-gcc" >/dev/null 2>&1 && set -- "$@" "$triplet-gcc"
    done
fi

# A batch callback as the designs write theirs: prefetch every key's
# word, then read them.  WITH_PREFETCH=0 leaves the prefetch out.
cat > "$tmp/batch.c" <<'EOF'
#include <stddef.h>
#include <stdint.h>
uint64_t demo_contains_many(const uint64_t *words, const size_t *index, size_t n);
uint64_t demo_contains_many(const uint64_t *words, const size_t *index, size_t n)
{
    uint64_t all = 0;
#if WITH_PREFETCH
    for (size_t i = 0; i < n; i++)
        __builtin_prefetch(&words[index[i]], 0, 3);
#endif
    for (size_t i = 0; i < n; i++)
        all |= words[index[i]];
    return all;
}
EOF

failed=0
# expect WANT OBJECT...: WANT is pass, fail or skip.
expect() {
    want=$1
    shift
    out=$(OBJDUMP= sh "$root/scripts/check-prefetch.sh" "$@" 2>&1)
    rc=$?
    case "$want:$rc:$out" in
        pass:0:*skipped*|skip:0:*skipped*) got=skip ;;
        pass:0:*|skip:0:*) got=pass ;;
        fail:0:*) got=pass ;;
        fail:*) got=fail ;;
        *) got="exit $rc" ;;
    esac
    printf '  %-28s want %-4s got %-4s  %s\n' "$cc" "$want" "$got" "$(echo "$out" | head -n 1)"
    [ "$got" = "$want" ] || failed=1
}

for cc in "$@"; do
    "$cc" -std=c11 -O2 -DWITH_PREFETCH=1 -c "$tmp/batch.c" -o "$tmp/with.o" 2>/dev/null &&
    "$cc" -std=c11 -O2 -DWITH_PREFETCH=0 -c "$tmp/batch.c" -o "$tmp/without.o" 2>/dev/null || {
        echo "  $cc: cannot compile, skipped"
        continue
    }
    # i686 below SSE and riscv64 without Zicbop have no prefetch
    # instruction: the compiler drops __builtin_prefetch, the check skips.
    if "$cc" -std=c11 -O2 -dM -E - </dev/null |
       grep -Eq '__(i386|riscv)__ ' &&
       ! "$cc" -std=c11 -O2 -dM -E - </dev/null |
       grep -Eq '__(SSE|3dNOW|riscv_zicbop)__ '; then
        expect skip "$tmp/with.o"
    else
        expect pass "$tmp/with.o"
        expect fail "$tmp/without.o"
        expect fail "$tmp/with.o" "$tmp/without.o"
    fi
done
[ "$failed" -eq 0 ] && echo "check-prefetch test: passed" || echo "check-prefetch test: FAILED" >&2
exit "$failed"
