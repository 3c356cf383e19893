#!/bin/sh
# Every design's batch callback that exists to overlap memory accesses
# (ops->prefetch, ops->contains_many, ops->add_many: functions named
# *_prefetch, *_contains_many, *_add_many in the library's objects), and
# the single calls of APBF and APBBF that ask for their first reads
# together (apbf_add, apbbf_add, apbbf_contains), must
# still contain a prefetch instruction after optimisation.  GCC may delete a helper that only prefetches (see
# tdbf_prefetch in src/lib/util/bits.h); the batch calls then lose their
# memory-level parallelism without any test noticing, so this looks at
# the machine code itself.  Usage: check-prefetch.sh OBJECT...
#
# Each object's architecture is read from its ELF header (readelf), and
# its code disassembled by $OBJDUMP if set, else by objdump when it knows
# the architecture, else by TRIPLET-objdump (Debian's binutils-TRIPLET).
# The prefetch instruction of each architecture:
#   x86, x86-64   prefetcht0/t1/t2/nta/w     aarch64     prfm, prfum
#   arm           pld, pldw                  s390x       pfd, pfdrl
#   powerpc       dcbt, dcbtst               mips        pref, prefx
#   riscv         prefetch.r/.w/.i (Zicbop)  loongarch   preld
#   sparc         prefetch, prefetcha
# Where the instruction set has none, or has one only in an extension the
# objects were compiled without (i386 below SSE, riscv without Zicbop:
# GCC then emits no prefetch anywhere), or where the architecture or a
# disassembler for it cannot be found, the check says why and exits 0.
set -eu
[ $# -gt 0 ] || { echo "usage: $0 OBJECT..." >&2; exit 2; }

# The first object's ELF machine, e.g. "AArch64", "IBM S/390".
machine=$(readelf -h "$1" 2>/dev/null | sed -n 's/^ *Machine: *//p')
# mnemonics: an extended regex of the prefetch mnemonics; optional: the
# extension that brings them, when the base instruction set has none;
# triplet: the Debian binutils prefix able to disassemble the objects.
optional=""
case "$machine" in
    *X86-64*)      mnemonics='prefetch[a-z0-9]*'; triplet=x86_64-linux-gnu ;;
    *80386*)       mnemonics='prefetch[a-z0-9]*'; triplet=i686-linux-gnu; optional="SSE or 3DNow!" ;;
    AArch64)       mnemonics='prfu?m'; triplet=aarch64-linux-gnu ;;
    ARM)           mnemonics='pldw?'; triplet=arm-linux-gnueabihf ;;
    "IBM S/390")   mnemonics='pfd|pfdrl'; triplet=s390x-linux-gnu ;;
    PowerPC64)     mnemonics='dcbt|dcbtst'; triplet=powerpc64le-linux-gnu ;;
    PowerPC)       mnemonics='dcbt|dcbtst'; triplet=powerpc-linux-gnu ;;
    *MIPS*)        mnemonics='prefx?'; triplet=mips64el-linux-gnuabi64 ;;
    RISC-V)        mnemonics='prefetch\.[rwi]'; triplet=riscv64-linux-gnu; optional="Zicbop" ;;
    LoongArch)     mnemonics='preld'; triplet=loongarch64-linux-gnu ;;
    *Sparc*|*SPARC*) mnemonics='prefetcha?'; triplet=sparc64-linux-gnu ;;
    "")            echo "check-prefetch: skipped: cannot read the architecture of $1 (not ELF, or no readelf)"; exit 0 ;;
    *)             echo "check-prefetch: skipped: no prefetch instruction known for $machine"; exit 0 ;;
esac

# A disassembler for these objects: objdump -d fails, or prints no
# instruction, for an architecture it was not built for.
tab=$(printf '\t')
disassembles() {
    "$1" -d --no-show-raw-insn "$2" 2>/dev/null | grep -q "^ *[0-9a-f]*:$tab"
}
objdump_tool=""
for tool in ${OBJDUMP:-} objdump "$triplet-objdump"; do
    if command -v "$tool" >/dev/null 2>&1 && disassembles "$tool" "$1"; then
        objdump_tool=$tool
        break
    fi
done
[ -n "$objdump_tool" ] || {
    echo "check-prefetch: skipped: no objdump disassembles $machine objects (install binutils-$triplet or set OBJDUMP)"
    exit 0
}

status=0
checked=0
found=0
missing=""
for obj in "$@"; do
    # The mnemonics pass through the environment: awk -v would eat the
    # backslashes of their regex.
    report=$("$objdump_tool" -d --no-show-raw-insn "$obj" | MNEMONICS=$mnemonics awk '
        BEGIN { prefetch = "^ *[0-9a-f]+:\t(" ENVIRON["MNEMONICS"] ")([ \t]|$)" }
        /^[0-9a-f]+ <([A-Za-z0-9_]+_(prefetch|contains_many|add_many)|apbf_add|apbbf_(add|contains))>:$/ {
            if (fn != "") print fn, n
            fn = $2; n = 0; next
        }
        /^[0-9a-f]+ <.*>:$/ { if (fn != "") print fn, n; fn = ""; next }
        fn != "" && $0 ~ prefetch { n++ }
        END { if (fn != "") print fn, n }')
    [ -n "$report" ] || continue
    while read -r fn n; do
        checked=$((checked + 1))
        if [ "$n" -eq 0 ]; then
            missing="$missing
check-prefetch: $obj: $fn has no prefetch instruction left"
        else
            found=$((found + 1))
        fi
    done <<END
$report
END
done
[ "$checked" -gt 0 ] || { echo "check-prefetch: no batch callback found" >&2; exit 1; }
if [ "$found" -eq 0 ] && [ -n "$optional" ]; then
    echo "check-prefetch: skipped: $machine has prefetch instructions only with $optional, and none of the $checked batch callbacks has one: compiled without it"
    exit 0
fi
if [ -n "$missing" ]; then
    echo "${missing#?}" >&2
    status=1
fi
[ "$status" -eq 0 ] && echo "check-prefetch: $checked batch callbacks and single calls keep their prefetches ($machine: $mnemonics)"
exit "$status"
