/*
 * test_wide.c — util/wide.h, the 64 x 64 -> 128-bit arithmetic.
 *
 *   known      products, sums and quotients worked out by hand for the
 *              edge operands (0, 1, 2^32 - 1, 2^32 + 1, 2^63, 2^64 - 1)
 *              hold on whichever path this build uses;
 *   identities (a * b) / b = a remainder 0 and (q d + r) / d = q
 *              remainder r on edge and random operands: checks the
 *              division against the multiplication on any target;
 *   paths      where the compiler has unsigned __int128, the portable
 *              path (32-bit halves) returns exactly what the native one
 *              does for every edge pair and 10^6 random pairs.
 *
 * `make test-portable` builds this test (and others) with TDBF_NO_INT128,
 * so the portable path also backs the public operations on x86-64.
 */
#include "driver.h"
#include "util/wide.h"

#include <stdio.h>

#define RANDOM_PAIRS 1000000

static const uint64_t edges[] = {
    0,
    1,
    2,
    3,
    UINT64_C(0xffffffff),               /* 2^32 - 1 */
    UINT64_C(0x100000000),              /* 2^32 */
    UINT64_C(0x100000001),              /* 2^32 + 1 */
    UINT64_C(0x7fffffffffffffff),       /* 2^63 - 1 */
    UINT64_C(0x8000000000000000),       /* 2^63 */
    UINT64_C(0x8000000000000001),
    UINT64_C(0xfffffffffffffffe),
    UINT64_C(0xffffffffffffffff),       /* 2^64 - 1 */
    UINT64_C(0xd6e8feb86659fd93),       /* the remix multiplier */
};
#define EDGES (sizeof edges / sizeof edges[0])

/* check(a, b, c) for every triple of edge operands. */
static void each_edge_triple(void (*check)(uint64_t, uint64_t, uint64_t))
{
    for (size_t i = 0; i < EDGES; i++)
        for (size_t j = 0; j < EDGES; j++)
            for (size_t k = 0; k < EDGES; k++)
                check(edges[i], edges[j], edges[k]);
}

static void expect_u128(tdbf_u128 got, uint64_t hi, uint64_t lo, const char *what)
{
    if (got.hi != hi || got.lo != lo)
        fail_msg("%s: got 0x%016llx%016llx, want 0x%016llx%016llx", what,
                 (unsigned long long)got.hi, (unsigned long long)got.lo,
                 (unsigned long long)hi, (unsigned long long)lo);
}

static void test_known_products(void **state)
{
    (void)state;
    const uint64_t max = UINT64_MAX;
    print_message("util/wide.h: %s path\n", TDBF_WIDE_NATIVE ? "native __int128" : "portable");
    expect_u128(tdbf_mul_wide(0, max), 0, 0, "0 * (2^64-1)");
    expect_u128(tdbf_mul_wide(1, max), 0, max, "1 * (2^64-1)");
    expect_u128(tdbf_mul_wide(max, max), max - 1, 1, "(2^64-1)^2 = 2^128 - 2^65 + 1");
    expect_u128(tdbf_mul_wide(UINT64_C(1) << 63, 2), 1, 0, "2^63 * 2");
    expect_u128(tdbf_mul_wide(UINT64_C(1) << 63, UINT64_C(1) << 63), UINT64_C(1) << 62, 0, "2^63 * 2^63");
    expect_u128(tdbf_mul_wide(UINT64_C(0x100000001), UINT64_C(0xffffffff)), 0, max,
                "(2^32+1)(2^32-1) = 2^64 - 1");
    expect_u128(tdbf_mul_wide(UINT64_C(0x100000001), UINT64_C(0x100000001)), 1,
                (UINT64_C(1) << 33) + 1, "(2^32+1)^2 = 2^64 + 2^33 + 1");
    expect_u128(tdbf_mul_wide(max, 3), 2, max - 2, "(2^64-1) * 3");
    assert_int_equal(tdbf_mul_hi64(max, max), max - 1);
    assert_int_equal(tdbf_mul_hi64(UINT64_C(0x8000000000000000), 10), 5);
}

static void test_known_reductions(void **state)
{
    (void)state;
    /* (x * n) >> 64: x / 2^64 of the way into [0, n). */
    assert_int_equal(tdbf_reduce(0, 1000), 0);
    assert_int_equal(tdbf_reduce(UINT64_MAX, 1000), 999);
    assert_int_equal(tdbf_reduce(UINT64_C(1) << 63, 1000), 500);
    assert_int_equal(tdbf_reduce(UINT64_C(1) << 62, 7), 1);
    assert_int_equal(tdbf_reduce(UINT64_MAX, 0), 0);
    assert_int_equal(tdbf_reduce(UINT64_MAX, UINT64_MAX), UINT64_MAX - 1);
}

static void test_known_sums_and_quotients(void **state)
{
    (void)state;
    const uint64_t max = UINT64_MAX;
    tdbf_u128 low_max = {0, max};
    expect_u128(tdbf_add_wide(low_max, 1), 1, 0, "(2^64-1) + 1 carries");
    expect_u128(tdbf_add_wide(low_max, max), 1, max - 1, "(2^64-1) + (2^64-1)");
    tdbf_u128 big = {5, 7};
    expect_u128(tdbf_add_wide(big, 0), 5, 7, "x + 0");

    uint64_t rem;
    tdbf_u128 n = {max - 1, 1};                     /* (2^64-1)^2 */
    assert_int_equal(tdbf_div_wide(n, max, &rem), max);
    assert_int_equal(rem, 0);
    tdbf_u128 two_64 = {1, 0};
    assert_int_equal(tdbf_div_wide(two_64, 3, &rem), UINT64_C(0x5555555555555555));
    assert_int_equal(rem, 1);
    /* The running remainder needs 65 bits: 2^127 / (2^63 + 1). */
    tdbf_u128 two_127 = {UINT64_C(1) << 63, 0};
    assert_int_equal(tdbf_div_wide(two_127, UINT64_C(0x8000000000000001), &rem),
                     UINT64_C(0xfffffffffffffffe));
    assert_int_equal(rem, 2);
    tdbf_u128 small = {0, 1000};
    assert_int_equal(tdbf_div_wide(small, 7, &rem), 142);
    assert_int_equal(rem, 6);
}

/* (a * b) / b = a, and (a b + r) / b = a remainder r for r < b. */
static void check_identities(uint64_t a, uint64_t b, uint64_t r)
{
    if (b == 0)
        return;
    uint64_t rem;
    tdbf_u128 product = tdbf_mul_wide(a, b);
    uint64_t quotient = tdbf_div_wide(product, b, &rem);
    if (quotient != a || rem != 0)
        fail_msg("(%llu * %llu) / %llu = %llu rem %llu", (unsigned long long)a,
                 (unsigned long long)b, (unsigned long long)b,
                 (unsigned long long)quotient, (unsigned long long)rem);
    r %= b;
    quotient = tdbf_div_wide(tdbf_add_wide(product, r), b, &rem);
    if (quotient != a || rem != r)
        fail_msg("(%llu * %llu + %llu) / %llu = %llu rem %llu", (unsigned long long)a,
                 (unsigned long long)b, (unsigned long long)r, (unsigned long long)b,
                 (unsigned long long)quotient, (unsigned long long)rem);
    if (tdbf_reduce(a, b) >= b)
        fail_msg("reduce(%llu, %llu) out of range", (unsigned long long)a, (unsigned long long)b);
}

static void test_identities(void **state)
{
    (void)state;
    each_edge_triple(check_identities);
    uint64_t rng = 0x3c6ef372fe94f82bu;
    for (int i = 0; i < RANDOM_PAIRS; i++) {
        uint64_t a = drv_rand(&rng), b = drv_rand(&rng), r = drv_rand(&rng);
        /* Small divisors too, as the turns use (g a few thousand). */
        check_identities(a, i & 1 ? b : b >> (r & 63), r);
    }
}

#if defined(__SIZEOF_INT128__)
static void check_paths_agree(uint64_t a, uint64_t b, uint64_t x)
{
    tdbf_u128 native = tdbf_mul_wide_native(a, b);
    tdbf_u128 portable = tdbf_mul_wide_portable(a, b);
    if (native.hi != portable.hi || native.lo != portable.lo)
        fail_msg("%llu * %llu: portable differs", (unsigned long long)a, (unsigned long long)b);
    tdbf_u128 sum_native = tdbf_add_wide_native(native, x);
    tdbf_u128 sum_portable = tdbf_add_wide_portable(native, x);
    if (sum_native.hi != sum_portable.hi || sum_native.lo != sum_portable.lo) {
        /* Only a sum that wraps past 2^128 may differ (not a valid use). */
        if (!(native.hi == UINT64_MAX && x > UINT64_MAX - native.lo))
            fail_msg("%llu * %llu + %llu: portable differs", (unsigned long long)a,
                     (unsigned long long)b, (unsigned long long)x);
    }
    /* Divide by anything above the high half (the quotient fits). */
    uint64_t divisor = x > native.hi ? x : b > native.hi ? b : 0;
    if (divisor == 0)
        return;
    uint64_t rem_native, rem_portable;
    uint64_t q_native = tdbf_div_wide_native(native, divisor, &rem_native);
    uint64_t q_portable = tdbf_div_wide_portable(native, divisor, &rem_portable);
    if (q_native != q_portable || rem_native != rem_portable)
        fail_msg("(%llu * %llu) / %llu: portable differs", (unsigned long long)a,
                 (unsigned long long)b, (unsigned long long)divisor);
}

static void test_portable_equals_native(void **state)
{
    (void)state;
    each_edge_triple(check_paths_agree);
    uint64_t rng = 0x6a09e667f3bcc908u;
    for (int i = 0; i < RANDOM_PAIRS; i++) {
        uint64_t a = drv_rand(&rng), b = drv_rand(&rng), x = drv_rand(&rng);
        check_paths_agree(a, b >> (x & 63), x >> (a & 63));
    }
}
#else
static void test_portable_equals_native(void **state)
{
    (void)state;
    print_message("no unsigned __int128 on this target: the identities test the portable path\n");
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_products),
        cmocka_unit_test(test_known_reductions),
        cmocka_unit_test(test_known_sums_and_quotients),
        cmocka_unit_test(test_identities),
        cmocka_unit_test(test_portable_equals_native),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
