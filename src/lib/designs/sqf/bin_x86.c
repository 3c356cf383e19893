/*
 * bin_x86.c — the bin operations (bin_ops.h) compiled for x86-64 CPUs with
 * POPCNT, BMI1 and BMI2, chosen at run time (tdbf_sqf_core_init).
 *
 * Why.  Finding a quotient's run selects the q-th 0 of the header: the
 * portable broadword select (bin.h) spends ~45 instructions on it, PDEP
 * and TZCNT two; a bin's entry count is one POPCNT a header word instead
 * of a dozen shifts and adds.  A generic x86-64 build may assume none of
 * these instructions, so this file compiles the same operations a second
 * time with them allowed (SQF_BITS_X86 switches bin.h's counts and
 * selects, and the purge's PEXT and PDEP), and sqf_core.c calls this
 * copy only when the CPU reports them; its shifts of a bin's words take
 * two words a step with SSE2, which every x86-64 CPU has.  AMD's family
 * 17h (Zen 1 and 2) runs PDEP in microcode, hundreds of cycles: those
 * CPUs keep the portable code.
 *
 * Both copies write the same bits: tests/unit/test_sqf.c runs its golden
 * streams once on each (tdbf_set_simd(TDBF_SIMD_PORTABLE) selects the
 * portable one).
 */
#include <stdint.h>
#include <string.h>

#include "tdbf.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("popcnt,bmi,bmi2"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("popcnt,bmi,bmi2")
#endif

#define SQF_BITS_X86 1
#include "designs/sqf/bin_ops.h"

sqf_bin_ops tdbf_sqf_x86_ops(const sqf_shape *s)
{
    return bin_ops_for(s);
}

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif

int tdbf_sqf_x86_usable(void)
{
    if (tdbf_simd_in_use() == TDBF_SIMD_PORTABLE)
        return 0;
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt") && __builtin_cpu_supports("bmi") &&
           __builtin_cpu_supports("bmi2") && !__builtin_cpu_is("amdfam17h");
}

#endif
