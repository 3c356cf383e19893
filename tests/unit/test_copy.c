/*
 * test_copy.c — tdbf_copy, tdbf_clear and tdbf_get_shape over every design.
 *
 *   copy   answers every query as the original does (inserted keys and
 *          fresh probes alike), has the same shape and stats, and then
 *          lives on its own: keys added to one are not in the other
 *          (beyond false positives);
 *   clear  forgets every key (old keys answer at most at the FP rate),
 *          counts no adds, keeps the shape and the seed, and takes new
 *          keys with no false negative; a loaded filter refuses it;
 *   shape  equals the fields of tdbf_get_stats of the same names, before
 *          and after adds.
 */
#include "driver.h"

#include <string.h>

enum { KEYS = 600, PROBES = 4000 };

#define SECOND UINT64_C(1000000000)

/* A small filter of each design, count window where it has one. */
static tdbf_config config_for(tdbf_design design)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.seed = 0x5eed0000u + (unsigned)design;
    if (design == TDBF_TLBF || design == TDBF_CLOCK || design == TDBF_TLBF_LINE) {
        cfg.window_ns = 60 * SECOND;
        cfg.capacity = 2 * KEYS;
    } else {
        cfg.window_items = 2 * KEYS;
    }
    return cfg;
}

/* The time of the i-th add: 10 ms apart, well inside a 60 s window. */
static uint64_t time_of(uint64_t i)
{
    return 1000 * SECOND + i * (SECOND / 100);
}

static void add_keys(tdbf *f, uint64_t key_seed, uint64_t first, uint64_t count)
{
    uint8_t key[DRV_KEY_MAX];
    for (uint64_t i = first; i < first + count; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, key_seed, i);
        int rc = tdbf_add(f, key, len, time_of(i));
        if (rc < 0)
            fail_msg("add %llu: %s", (unsigned long long)i, tdbf_strerror(rc));
    }
}

/* How many of keys [first, first + count) of key_seed f reports present. */
static uint64_t present(const tdbf *f, uint64_t key_seed, uint64_t first, uint64_t count,
                        uint64_t now)
{
    uint8_t key[DRV_KEY_MAX];
    uint64_t hits = 0;
    for (uint64_t i = first; i < first + count; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, key_seed, i);
        hits += tdbf_contains(f, key, len, now) == 1;
    }
    return hits;
}

/* The designs that forget at random may miss a few recent keys. */
static int forgets(tdbf_design design)
{
    return design == TDBF_FPDECAY || design == TDBF_STABLE;
}

/* A count of false positives that `trials` queries at the planned rate
 * exceed with negligible probability. */
static uint64_t fp_bound(const tdbf *f, uint64_t trials)
{
    tdbf_shape shape;
    CHECK_RC(tdbf_get_shape(f, &shape), TDBF_OK);
    /* the target, or the plan where it is worse (a planner may undershoot
     * it on small windows, and the designs that forget overshoot it) */
    double rate = shape.error_planned > shape.error_configured ? shape.error_planned
                                                              : shape.error_configured;
    return (uint64_t)((double)trials * (rate + drv_band(rate, (double)trials, 0.0))) + 3;
}

static void check_shape_matches_stats(const tdbf *f, const char *what)
{
    tdbf_shape shape;
    tdbf_stats st;
    CHECK_RC(tdbf_get_shape(f, &shape), TDBF_OK);
    CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
    if (shape.design != st.design || shape.k != st.k || shape.l != st.l ||
        shape.window_items != st.window_items || shape.window_ns != st.window_ns ||
        shape.memory_bytes != st.memory_bytes || shape.seed != st.seed ||
        shape.error_configured != st.error_configured ||
        shape.error_planned != st.error_planned)
        fail_msg("%s: shape (k %u, l %u, window %llu / %llu ns, %llu bytes, planned %g) "
                 "differs from stats (k %u, l %u, window %llu / %llu ns, %llu bytes, "
                 "planned %g)", what, shape.k, shape.l,
                 (unsigned long long)shape.window_items, (unsigned long long)shape.window_ns,
                 (unsigned long long)shape.memory_bytes, shape.error_planned, st.k, st.l,
                 (unsigned long long)st.window_items, (unsigned long long)st.window_ns,
                 (unsigned long long)st.memory_bytes, st.error_planned);
}

/* Inserted keys and fresh probes get the same answer from both. */
static void check_same_answers(const tdbf *a, const tdbf *b, const char *what)
{
    uint8_t key[DRV_KEY_MAX];
    uint64_t now = time_of(KEYS);
    for (uint64_t i = 0; i < KEYS + PROBES; i++) {
        size_t len = i < KEYS ? drv_key(key, DRV_SPACE_INSERT, 1, i)
                              : drv_key(key, DRV_SPACE_PROBE, 1, i);
        int x = tdbf_contains(a, key, len, now), y = tdbf_contains(b, key, len, now);
        if (x != y)
            fail_msg("%s: key %llu: original says %d, copy %d", what,
                     (unsigned long long)i, x, y);
    }
}

static void test_shape_every_design(void **state)
{
    (void)state;
    for (int d = 0; d < TDBF_DESIGN_COUNT; d++) {
        tdbf_config cfg = config_for((tdbf_design)d);
        tdbf *f = drv_open(&cfg);
        const char *name = tdbf_design_name((tdbf_design)d);
        check_shape_matches_stats(f, name);
        add_keys(f, 1, 0, KEYS);
        check_shape_matches_stats(f, name);
        tdbf_shape shape;
        CHECK_RC(tdbf_get_shape(f, &shape), TDBF_OK);
        CHECK_U64_EQ(shape.design, d);
        CHECK_U64_EQ(shape.seed, cfg.seed);
        CHECK_U64_EQ(shape.concurrent, d == TDBF_FPDECAY);
        tdbf_close(f);
    }
    CHECK_RC(tdbf_get_shape(NULL, NULL), TDBF_EINVAL);
}

static void test_copy_every_design(void **state)
{
    (void)state;
    for (int d = 0; d < TDBF_DESIGN_COUNT; d++) {
        tdbf_config cfg = config_for((tdbf_design)d);
        tdbf *f = drv_open(&cfg);
        const char *name = tdbf_design_name((tdbf_design)d);
        add_keys(f, 1, 0, KEYS);
        tdbf *c = NULL;
        CHECK_RC(tdbf_copy(&c, f), TDBF_OK);
        check_same_answers(f, c, name);
        check_shape_matches_stats(c, name);
        tdbf_stats a, b;
        CHECK_RC(tdbf_get_stats(f, &a), TDBF_OK);
        CHECK_RC(tdbf_get_stats(c, &b), TDBF_OK);
        CHECK_U64_EQ(b.items, a.items);
        CHECK_U64_EQ(b.now_ns, a.now_ns);
        CHECK_U64_EQ(b.seed, a.seed);
        CHECK_U64_EQ(b.k, a.k);
        CHECK_U64_EQ(b.window_items, a.window_items);

        /* independent: keys of seed 2 go to the original only, of seed 3
         * to the copy only */
        add_keys(f, 2, KEYS, KEYS / 2);
        add_keys(c, 3, KEYS, KEYS / 2);
        uint64_t now = time_of(KEYS + KEYS / 2);
        uint64_t own_f = present(f, 2, KEYS, KEYS / 2, now);
        uint64_t own_c = present(c, 3, KEYS, KEYS / 2, now);
        uint64_t cross_f = present(f, 3, KEYS, KEYS / 2, now);
        uint64_t cross_c = present(c, 2, KEYS, KEYS / 2, now);
        if (!forgets((tdbf_design)d) && (own_f != KEYS / 2 || own_c != KEYS / 2))
            fail_msg("%s: after the copy, %llu and %llu of %d own keys present", name,
                     (unsigned long long)own_f, (unsigned long long)own_c, KEYS / 2);
        uint64_t bound = fp_bound(f, KEYS / 2);
        if (cross_f > bound || cross_c > bound)
            fail_msg("%s: %llu / %llu of the other's %d keys present (bound %llu): not "
                     "independent", name, (unsigned long long)cross_f,
                     (unsigned long long)cross_c, KEYS / 2, (unsigned long long)bound);
        tdbf_close(c);
        tdbf_close(f);
    }
    tdbf *c = (tdbf *)&c;
    CHECK_RC(tdbf_copy(&c, NULL), TDBF_EINVAL);
    assert_null(c);
    CHECK_RC(tdbf_copy(NULL, NULL), TDBF_EINVAL);
}

static void test_copy_keeps_concurrent_mode(void **state)
{
    (void)state;
    tdbf_config cfg = config_for(TDBF_APBF_LINE);
    cfg.concurrent = 1;
    tdbf *f = drv_open(&cfg);
    add_keys(f, 1, 0, KEYS);
    tdbf *c = NULL;
    CHECK_RC(tdbf_copy(&c, f), TDBF_OK);
    tdbf_shape shape;
    CHECK_RC(tdbf_get_shape(c, &shape), TDBF_OK);
    CHECK_U64_EQ(shape.concurrent, 1);
    check_same_answers(f, c, "concurrent apbf-line");
    tdbf_close(c);
    tdbf_close(f);
}

static void test_clear_every_design(void **state)
{
    (void)state;
    for (int d = 0; d < TDBF_DESIGN_COUNT; d++) {
        tdbf_config cfg = config_for((tdbf_design)d);
        tdbf *f = drv_open(&cfg);
        const char *name = tdbf_design_name((tdbf_design)d);
        tdbf_shape before, after;
        CHECK_RC(tdbf_get_shape(f, &before), TDBF_OK);
        add_keys(f, 1, 0, KEYS);
        CHECK_RC(tdbf_clear(f), TDBF_OK);
        CHECK_RC(tdbf_get_shape(f, &after), TDBF_OK);
        if (memcmp(&before, &after, sizeof before) != 0)
            fail_msg("%s: the shape changed across clear (k %u -> %u, l %u -> %u, "
                     "%llu -> %llu bytes)", name, before.k, after.k, before.l, after.l,
                     (unsigned long long)before.memory_bytes,
                     (unsigned long long)after.memory_bytes);
        tdbf_stats st;
        CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
        CHECK_U64_EQ(st.items, 0);
        CHECK_U64_EQ(st.now_ns, time_of(KEYS - 1));   /* the clock is kept */
        uint64_t now = time_of(KEYS);
        uint64_t old = present(f, 1, 0, KEYS, now);
        uint64_t bound = fp_bound(f, KEYS);
        if (old > bound)
            fail_msg("%s: %llu of %d keys still present after clear (bound %llu)", name,
                     (unsigned long long)old, KEYS, (unsigned long long)bound);
        /* new keys after the clear: no false negatives */
        add_keys(f, 4, KEYS, KEYS);
        uint64_t fresh = present(f, 4, KEYS, KEYS, time_of(2 * KEYS));
        if (!forgets((tdbf_design)d) && fresh != KEYS)
            fail_msg("%s: %llu of %d keys added after clear present", name,
                     (unsigned long long)fresh, KEYS);
        check_shape_matches_stats(f, name);

        /* a copy of an opened filter can be cleared; a loaded one cannot */
        tdbf *c = NULL;
        CHECK_RC(tdbf_copy(&c, f), TDBF_OK);
        CHECK_RC(tdbf_clear(c), TDBF_OK);
        CHECK_U64_EQ(present(c, 4, KEYS, KEYS, time_of(2 * KEYS)) <= bound, 1);
        tdbf_close(c);
        tdbf_close(f);
    }
    CHECK_RC(tdbf_clear(NULL), TDBF_EINVAL);
}

static int buffer_write(void *ctx, const void *buf, size_t len)
{
    uint8_t **at = ctx;
    memcpy(*at, buf, len);
    *at += len;
    return 0;
}

static void test_clear_loaded_is_not_supported(void **state)
{
    (void)state;
    tdbf_config cfg = config_for(TDBF_APBF);
    tdbf *f = drv_open(&cfg);
    add_keys(f, 1, 0, 10);
    static uint8_t saved[1 << 16];
    uint8_t *end = saved;
    CHECK_U64_GE(sizeof saved, tdbf_saved_size(f));
    CHECK_RC(tdbf_save(f, buffer_write, &end), TDBF_OK);
    tdbf *loaded = NULL;
    CHECK_RC(tdbf_load_buffer(&loaded, saved, (size_t)(end - saved), NULL), TDBF_OK);
    CHECK_RC(tdbf_clear(loaded), TDBF_ENOTSUP);
    CHECK_U64_EQ(present(loaded, 1, 0, 10, 0), 10);   /* unchanged */
    tdbf_close(loaded);
    tdbf_close(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_every_design),
        cmocka_unit_test(test_copy_every_design),
        cmocka_unit_test(test_copy_keeps_concurrent_mode),
        cmocka_unit_test(test_clear_every_design),
        cmocka_unit_test(test_clear_loaded_is_not_supported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
