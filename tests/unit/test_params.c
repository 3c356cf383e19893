/*
 * test_params.c — the parameter language every front reads options with
 * (tdbf_parse_*, tdbf_config_set, tdbf_config_check).
 *
 *   syntax    each kind accepts its documented spellings and refuses
 *             malformed, zero, negative and out-of-range text with a
 *             reason that quotes the text;
 *   doubles   error rates are the double nearest the decimal, whatever
 *             the locale, including the 17-digit forms Python prints;
 *   options   an option given twice is refused and leaves cfg unchanged;
 *             the rules between options (window required, capacity only
 *             with a time window, default design by window kind);
 *   opens     what tdbf_config_set accepts, tdbf_open builds.
 */
#include "driver.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SECOND UINT64_C(1000000000)

typedef int (*u64_parser)(const char *text, uint64_t *out, char *why, size_t why_size);

static void expect_u64(u64_parser parse, const char *kind, const char *text, uint64_t want)
{
    uint64_t got = 0;
    char why[200] = "";
    if (parse(text, &got, why, sizeof why) != TDBF_OK)
        fail_msg("%s '%s' refused: %s", kind, text, why);
    assert_int_equal(got, want);
}

static void expect_count(const char *text, uint64_t want)
{
    expect_u64(tdbf_parse_count, "count", text, want);
}

static void expect_bad_count(const char *text)
{
    uint64_t got = 12345;
    char why[200] = "";
    assert_int_equal(tdbf_parse_count(text, &got, why, sizeof why), TDBF_EINVAL);
    assert_int_equal(got, 12345);
    assert_non_null(strstr(why, text));     /* the reason quotes the text */
}

static void test_counts(void **state)
{
    (void)state;
    expect_count("0", 0);
    expect_count("1", 1);
    expect_count("1000", 1000);
    expect_count("1_000_000", 1000000);
    expect_count("1e6", 1000000);
    expect_count("2E3", 2000);
    expect_count("100k", 100000);
    expect_count("1M", 1000000);
    expect_count("3G", UINT64_C(3000000000));
    expect_count("64Ki", 65536);
    expect_count("1Mi", 1048576);
    expect_count("0x10", 16);
    expect_count("18446744073709551615", UINT64_MAX);
    const char *bad[] = {"", "-1", "+5", " 5", "5 ", "1.5", "1.5M", "1m", "12x",
                         "_1", "1_", "1__0", "1e", "1e-3", "0x", "0xg", "1MM", "1e6k"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_bad_count(bad[i]);
    uint64_t got;
    char why[200];
    assert_int_equal(tdbf_parse_count("18446744073709551616", &got, why, sizeof why),
                     TDBF_EINVAL);
    assert_non_null(strstr(why, "too large"));
    assert_int_equal(tdbf_parse_count("1e20", &got, why, sizeof why), TDBF_EINVAL);
    assert_int_equal(tdbf_parse_count("20000000T", &got, why, sizeof why), TDBF_EINVAL);
    /* why may be NULL, and a short buffer is cut, not overrun */
    assert_int_equal(tdbf_parse_count("x", &got, NULL, 0), TDBF_EINVAL);
    char tiny[4] = {'a', 'b', 'c', 'd'};
    assert_int_equal(tdbf_parse_count("x", &got, tiny, 3), TDBF_EINVAL);
    assert_int_equal(tiny[2], '\0');
    assert_int_equal(tiny[3], 'd');
}

static void expect_duration(const char *text, uint64_t want)
{
    expect_u64(tdbf_parse_duration, "duration", text, want);
}

static void test_durations(void **state)
{
    (void)state;
    expect_duration("1ns", 1);
    expect_duration("250ms", 250000000);
    expect_duration("1.5s", 1500000000);
    expect_duration(".5s", 500000000);
    expect_duration("10m", 600 * SECOND);
    expect_duration("1h30m", 5400 * SECOND);
    expect_duration("1d", 86400 * SECOND);
    expect_duration("2e3ms", 2 * SECOND);
    expect_duration("1m30s", 90 * SECOND);
    expect_duration("213503d", UINT64_C(213503) * 86400 * SECOND);
    const char *bad[] = {"", "10", "0s", "0.1ns", "-5s", "10x", "10 m", "1h30", "m",
                         "1M", "1mm", "1hs", "1.2.3s", "213504d", "1e30s"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t got = 7;
        char why[200] = "";
        if (tdbf_parse_duration(bad[i], &got, why, sizeof why) != TDBF_EINVAL)
            fail_msg("duration '%s' accepted as %llu", bad[i], (unsigned long long)got);
        assert_int_equal(got, 7);
        assert_non_null(strstr(why, bad[i]));
    }
}

static void expect_error(const char *text, double want)
{
    double got = 0.0;
    char why[200] = "";
    if (tdbf_parse_error(text, &got, why, sizeof why) != TDBF_OK)
        fail_msg("error '%s' refused: %s", text, why);
    if (got != want)
        fail_msg("error '%s' read as %.17g, not %.17g", text, got, want);
}

static void test_error_rates(void **state)
{
    (void)state;
    expect_error("0.01", 0.01);
    expect_error("1e-2", 0.01);
    expect_error("1%", 0.01);
    expect_error("0.5%", 0.005);
    expect_error("0.001", 0.001);
    expect_error("1E-3", 0.001);
    expect_error(".25", 0.25);
    expect_error("0.99999", 0.99999);
    /* the 17-digit forms %.17g prints come back within an ulp */
    char text[40];
    const double samples[] = {0.1 + 0.2, 1.0 / 3.0, 0.0123456789012345, 1e-9, 0.7, 1e-300};
    for (size_t i = 0; i < sizeof samples / sizeof samples[0]; i++) {
        snprintf(text, sizeof text, "%.17g", samples[i]);
        double got = 0.0;
        assert_int_equal(tdbf_parse_error(text, &got, NULL, 0), TDBF_OK);
        if (got != samples[i] && got != nextafter(samples[i], 0.0) &&
            got != nextafter(samples[i], 1.0))
            fail_msg("error '%s' read as %.17g", text, got);
    }
    /* %a (and Python's float.hex()) comes back exactly, every double */
    const double exact[] = {0.1 + 0.2, 1.0 / 3.0, 0.01, 1e-9, 0.7, 1e-300, 0.999999999999};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        snprintf(text, sizeof text, "%a", exact[i]);
        expect_error(text, exact[i]);
    }
    expect_error("0x1.47ae147ae147bp-7", 0.01);
    expect_error("0.3%", 0.003);
    expect_error("0.07%", 0.0007);
    const char *bad[] = {"", "0", "1", "0%", "100%", "0x1p0", "0x1.8p-1%", "0x.p-1", "0x1p", "1.5", "-0.01", "+0.01", "0.01 ",
                         " 0.01", "nan", "inf", "0x0.1", "1e-2%%", "0.01x", "%", "1e"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double got = 0.5;
        char why[200] = "";
        if (tdbf_parse_error(bad[i], &got, why, sizeof why) != TDBF_EINVAL)
            fail_msg("error '%s' accepted as %g", bad[i], got);
        assert_true(got == 0.5);
    }
}

/* Every decimal of up to 19 digits at a scale down to 10^-22 reads as the
 * double strtod (correctly rounded, in the C locale) gives: the parser
 * rounds once, in integers, so x87's double rounding cannot creep in. */
static void test_error_rates_round_once(void **state)
{
    (void)state;
    assert_non_null(setlocale(LC_NUMERIC, "C"));
    uint64_t rng = 11;
    unsigned checked = 0;
    for (unsigned i = 0; i < DRV_PICK(400000u, 40000u); i++) {
        uint64_t mantissa = drv_rand(&rng) >> drv_below(&rng, 64);
        char text[48];
        int digits = snprintf(text, sizeof text, "%llu", (unsigned long long)mantissa);
        if (mantissa == 0 || digits > 19)
            continue;
        int scale = -digits - (int)drv_below(&rng, (uint64_t)(23 - digits));
        snprintf(text, sizeof text, "%llue%d", (unsigned long long)mantissa, scale);
        double want = strtod(text, NULL), got = 0.0;
        if (!(want > 0.0 && want < 1.0))
            continue;
        assert_int_equal(tdbf_parse_error(text, &got, NULL, 0), TDBF_OK);
        if (got != want)
            fail_msg("error '%s' read as %a, the nearest double is %a", text, got, want);
        checked++;
    }
    assert_true(checked > DRV_PICK(300000u, 30000u));
}

/* A program that set LC_NUMERIC to a locale with a decimal comma still
 * reads "0.01" as 0.01 (strtod would stop at the point).  Skipped where
 * no such locale is installed: the other tests cover the parser. */
static void test_error_rates_ignore_the_locale(void **state)
{
    (void)state;
    const char *names[] = {"de_DE.UTF-8", "fr_FR.UTF-8", "de_DE.utf8", "C.UTF-8"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (setlocale(LC_NUMERIC, names[i]) == NULL)
            continue;
        expect_error("0.01", 0.01);
        expect_error("0.5%", 0.005);
        expect_duration("1.5s", 1500000000);
    }
    setlocale(LC_NUMERIC, "C");
}

static void test_sizes(void **state)
{
    (void)state;
    const struct {
        const char *text;
        uint64_t    bytes;
    } good[] = {
        {"1", 1}, {"512M", UINT64_C(512) << 20}, {"4G", UINT64_C(4) << 30},
        {"1.5GiB", UINT64_C(3) << 29}, {"2kB", 2000}, {"1MB", 1000000}, {"64K", 65536},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        uint64_t got = 0;
        assert_int_equal(tdbf_parse_size(good[i].text, &got, NULL, 0), TDBF_OK);
        assert_int_equal(got, good[i].bytes);
    }
    const char *bad[] = {"", "0", "0.5", "4X", "-1M", "1 M", "M", "99999999999T"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint64_t got = 3;
        assert_int_equal(tdbf_parse_size(bad[i], &got, NULL, 0), TDBF_EINVAL);
        assert_int_equal(got, 3);
    }
}

static void test_windows(void **state)
{
    (void)state;
    uint64_t items = 9, ns = 9;
    char why[200];
    assert_int_equal(tdbf_parse_window("1M", &items, &ns, why, sizeof why), TDBF_OK);
    assert_int_equal(items, 1000000);
    assert_int_equal(ns, 0);
    assert_int_equal(tdbf_parse_window("1m", &items, &ns, why, sizeof why), TDBF_OK);
    assert_int_equal(items, 0);
    assert_int_equal(ns, 60 * SECOND);
    assert_int_equal(tdbf_parse_window("1e6", &items, &ns, why, sizeof why), TDBF_OK);
    assert_int_equal(items, 1000000);
    assert_int_equal(tdbf_parse_window("0", &items, &ns, why, sizeof why), TDBF_EINVAL);
    assert_non_null(strstr(why, "positive"));
    assert_int_equal(tdbf_parse_window("0s", &items, &ns, why, sizeof why), TDBF_EINVAL);
    assert_non_null(strstr(why, "out of range"));
    assert_int_equal(tdbf_parse_window("12x", &items, &ns, why, sizeof why), TDBF_EINVAL);
    assert_non_null(strstr(why, "neither a count"));
    assert_int_equal(tdbf_parse_window("1.5", &items, &ns, why, sizeof why), TDBF_EINVAL);
    assert_int_equal(tdbf_parse_window("99999999999999999999", &items, &ns, why, sizeof why),
                     TDBF_EINVAL);
    assert_non_null(strstr(why, "too large"));
    assert_int_equal(items, 1000000);
}

static int set(tdbf_config *cfg, unsigned *given, tdbf_option opt, const char *text)
{
    char why[200];
    return tdbf_config_set(cfg, given, opt, text, why, sizeof why);
}

static void test_options(void **state)
{
    (void)state;
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    unsigned given = 0;
    assert_int_equal(set(&cfg, &given, TDBF_OPT_WINDOW, "10m"), TDBF_OK);
    assert_int_equal(set(&cfg, &given, TDBF_OPT_ERROR, "0.1%"), TDBF_OK);
    assert_int_equal(set(&cfg, &given, TDBF_OPT_CAPACITY, "5k"), TDBF_OK);
    assert_int_equal(set(&cfg, &given, TDBF_OPT_SEED, "42"), TDBF_OK);
    assert_int_equal(set(&cfg, &given, TDBF_OPT_DESIGN, "TLBF_line"), TDBF_OK);
    assert_int_equal(set(&cfg, &given, TDBF_OPT_MAX_MEMORY, "64M"), TDBF_OK);
    assert_int_equal(cfg.window_ns, 600 * SECOND);
    assert_int_equal(cfg.window_items, 0);
    /* Through a double variable: where FLT_EVAL_METHOD is 2 (x87) the
     * constant 0.001 itself is a long double, never equal to a double. */
    const double one_per_mille = 0.001;
    assert_true(cfg.error == one_per_mille);
    assert_int_equal(cfg.capacity, 5000);
    assert_int_equal(cfg.seed, 42);
    assert_int_equal(cfg.design, TDBF_TLBF_LINE);
    assert_int_equal(cfg.max_memory, UINT64_C(64) << 20);

    /* a repeat is refused and changes nothing */
    tdbf_config before = cfg;
    char why[200] = "";
    assert_int_equal(tdbf_config_set(&cfg, &given, TDBF_OPT_WINDOW, "100", why, sizeof why),
                     TDBF_EINVAL);
    assert_non_null(strstr(why, "twice"));
    assert_memory_equal(&cfg, &before, sizeof cfg);
    /* a bad value too */
    unsigned fresh = 0;
    assert_int_equal(set(&cfg, &fresh, TDBF_OPT_ERROR, "2"), TDBF_EINVAL);
    assert_int_equal(fresh, 0);
    assert_memory_equal(&cfg, &before, sizeof cfg);

    assert_int_equal(tdbf_config_check(&cfg, given, why, sizeof why), TDBF_OK);
    assert_int_equal(cfg.design, TDBF_TLBF_LINE);

    assert_int_equal(set(&cfg, &fresh, TDBF_OPT_SEED, "0"), TDBF_EINVAL);
    assert_int_equal(set(&cfg, &fresh, TDBF_OPT_DESIGN, "nope"), TDBF_EINVAL);
    assert_int_equal(set(&cfg, &fresh, (tdbf_option)TDBF_OPTION_COUNT, "1"), TDBF_EINVAL);
    assert_int_equal(tdbf_config_set(NULL, &fresh, TDBF_OPT_SEED, "1", NULL, 0), TDBF_EINVAL);
    assert_int_equal(tdbf_config_set(&cfg, NULL, TDBF_OPT_SEED, "1", NULL, 0), TDBF_EINVAL);
    assert_int_equal(set(&cfg, &fresh, TDBF_OPT_SEED, NULL), TDBF_EINVAL);
    assert_string_equal(tdbf_option_name(TDBF_OPT_MAX_MEMORY), "max-memory");
    assert_null(tdbf_option_name((tdbf_option)TDBF_OPTION_COUNT));
}

static void test_rules_between_options(void **state)
{
    (void)state;
    char why[200];
    tdbf_config cfg;
    unsigned given = 0;
    tdbf_config_init(&cfg);
    assert_int_equal(tdbf_config_check(&cfg, given, why, sizeof why), TDBF_EINVAL);
    assert_non_null(strstr(why, "window is required"));

    assert_int_equal(set(&cfg, &given, TDBF_OPT_WINDOW, "100"), TDBF_OK);
    assert_int_equal(set(&cfg, &given, TDBF_OPT_CAPACITY, "5"), TDBF_OK);
    assert_int_equal(tdbf_config_check(&cfg, given, why, sizeof why), TDBF_EINVAL);
    assert_non_null(strstr(why, "time window"));

    tdbf_config_init(&cfg);
    cfg.design = TDBF_TLBF;       /* not given: the window decides */
    given = 0;
    assert_int_equal(set(&cfg, &given, TDBF_OPT_WINDOW, "1M"), TDBF_OK);
    assert_int_equal(tdbf_config_check(&cfg, given, why, sizeof why), TDBF_OK);
    assert_int_equal(cfg.design, TDBF_APBF_LINE);
    given = 0;
    tdbf_config_init(&cfg);
    assert_int_equal(set(&cfg, &given, TDBF_OPT_WINDOW, "30s"), TDBF_OK);
    assert_int_equal(tdbf_config_check(&cfg, given, why, sizeof why), TDBF_OK);
    assert_int_equal(cfg.design, TDBF_TLBF_LINE);
}

/* What the language accepts opens: windows, errors and designs of each
 * kind, small enough to build here. */
static void test_accepted_text_opens(void **state)
{
    (void)state;
    const char *rows[][3] = {
        {"1000", "1%", NULL}, {"1e4", "0.001", "apbf"}, {"64Ki", "1e-2", "apbf_line"},
        {"10m", "0.01", NULL}, {"1h30m", "0.5%", "tlbf"}, {"2.5s", "0.05", "clock"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        tdbf_config cfg;
        tdbf_config_init(&cfg);
        unsigned given = 0;
        char why[200] = "";
        assert_int_equal(tdbf_config_set(&cfg, &given, TDBF_OPT_WINDOW, rows[i][0], why,
                                         sizeof why), TDBF_OK);
        assert_int_equal(set(&cfg, &given, TDBF_OPT_ERROR, rows[i][1]), TDBF_OK);
        if (rows[i][2] != NULL)
            assert_int_equal(set(&cfg, &given, TDBF_OPT_DESIGN, rows[i][2]), TDBF_OK);
        assert_int_equal(set(&cfg, &given, TDBF_OPT_SEED, "7"), TDBF_OK);
        assert_int_equal(tdbf_config_check(&cfg, given, why, sizeof why), TDBF_OK);
        tdbf *f = NULL;
        if (tdbf_open(&f, &cfg) != TDBF_OK)
            fail_msg("row %zu (%s, %s) did not open", i, rows[i][0], rows[i][1]);
        assert_int_equal(tdbf_add(f, "k", 1, 5 * SECOND), 0);
        assert_int_equal(tdbf_contains(f, "k", 1, 5 * SECOND), 1);
        tdbf_close(f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_error_rates),
        cmocka_unit_test(test_error_rates_round_once),
        cmocka_unit_test(test_error_rates_ignore_the_locale),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_windows),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_rules_between_options),
        cmocka_unit_test(test_accepted_text_opens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
