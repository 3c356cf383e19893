/*
 * test_plan_shape.c — tdbf_plan_shape, the one planning entry point, over
 * every design.
 *
 *   agrees   for each design and a spread of configurations (count and
 *            time windows, two errors, small and large windows, fixed
 *            k and l, blocks, the concurrent layout), the planned shape
 *            is field for field what tdbf_get_shape reports right after
 *            tdbf_open(cfg): k, l, windows, the planned error bit for
 *            bit, and the memory to the byte (every design but TLBF,
 *            which allocates its slices as keys arrive);
 *   steady   TLBF's planned memory is what it holds at the planned rate;
 *   refuses  what tdbf_open refuses, with the same code (bad windows,
 *            fields out of range, a memory cap, the concurrent mode of a
 *            design without one, NULL arguments), and leaves *out alone.
 */
#include "driver.h"

#include <stdbool.h>
#include <string.h>

#define SECOND UINT64_C(1000000000)

typedef struct plan_case {
    tdbf_design design;
    uint64_t    window_items;
    uint64_t    window_ns;
    uint64_t    capacity;
    double      error;
    unsigned    k, l, block_bits;
    int         concurrent;
} plan_case;

static tdbf_config config_of(const plan_case *c)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = c->design;
    cfg.window_items = c->window_items;
    cfg.window_ns = c->window_ns;
    cfg.capacity = c->capacity;
    cfg.error = c->error;
    cfg.k = c->k;
    cfg.l = c->l;
    cfg.block_bits = c->block_bits;
    cfg.concurrent = c->concurrent;
    cfg.seed = 0x91a2;
    return cfg;
}

/* Count windows for the designs that take one, time windows for the rest
 * (ROTATING, EXACT and SQF take both). */
static const plan_case cases[] = {
    {TDBF_APBF, 1000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_APBF, 200000, 0, 0, 0.001, 0, 0, 0, 0},
    {TDBF_APBF, 50000, 0, 0, 0.01, 4, 12, 0, 0},
    {TDBF_APBBF, 1000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_APBBF, 200000, 0, 0, 0.001, 0, 0, 64, 0},
    {TDBF_APBF_LINE, 1000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_APBF_LINE, 300000, 0, 0, 0.001, 0, 0, 0, 0},
    {TDBF_APBF_LINE, 100000, 0, 0, 0.01, 0, 0, 512, 0},
    {TDBF_APBF_LINE, 100000, 0, 0, 0.01, 0, 0, 0, 1},
    {TDBF_SQF, 1000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_SQF, 300000, 0, 0, 0.001, 0, 0, 0, 0},
    {TDBF_SQF, 100000, 0, 0, 0.01, 0, 0, 512, 0},
    {TDBF_SQF, 0, 60 * SECOND, 0, 0.01, 0, 0, 0, 0},
    {TDBF_SQF, 0, SECOND, 200000, 0.001, 0, 0, 0, 0},
    {TDBF_SQF, 0, SECOND, 50000, 0.01, 0, 0, 1024, 0},
    {TDBF_BLOOM, 1000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_BLOOM, 200000, 0, 0, 0.001, 0, 0, 512, 0},
    {TDBF_TBF, 1000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_TBF, 100000, 0, 0, 0.001, 0, 0, 0, 0},
    {TDBF_BTBF, 100000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_FPDECAY, 1000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_FPDECAY, 100000, 0, 0, 0.001, 0, 0, 0, 1},
    {TDBF_STABLE, 1000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_STABLE, 100000, 0, 0, 0.001, 0, 0, 0, 0},
    {TDBF_EXACT, 1000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_EXACT, 0, 60 * SECOND, 0, 0.01, 0, 0, 0, 0},
    {TDBF_ROTATING, 100000, 0, 0, 0.01, 0, 0, 0, 0},
    {TDBF_ROTATING, 0, 60 * SECOND, 50000, 0.001, 0, 0, 0, 0},
    {TDBF_CLOCK, 0, 60 * SECOND, 0, 0.01, 0, 0, 0, 0},
    {TDBF_CLOCK, 0, SECOND, 200000, 0.001, 0, 0, 0, 0},
    {TDBF_TLBF, 0, 60 * SECOND, 0, 0.01, 0, 0, 0, 0},
    {TDBF_TLBF, 0, SECOND, 100000, 0.001, 0, 0, 0, 0},
    {TDBF_TLBF, 0, SECOND, 100000, 0.01, 3, 9, 0, 0},
    {TDBF_TLBF_LINE, 0, 60 * SECOND, 0, 0.01, 0, 0, 0, 0},
    {TDBF_TLBF_LINE, 0, SECOND, 200000, 0.001, 0, 0, 0, 0},
};

static void check_case(const plan_case *c)
{
    tdbf_config cfg = config_of(c);
    tdbf_shape planned, built;
    const char *name = tdbf_design_name(c->design);
    int rc = tdbf_plan_shape(&cfg, &planned);
    if (rc != TDBF_OK)
        fail_msg("%s window %llu/%llu ns: plan %s", name, (unsigned long long)c->window_items,
                 (unsigned long long)c->window_ns, tdbf_strerror(rc));
    tdbf *f;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_OK);
    CHECK_RC(tdbf_get_shape(f, &built), TDBF_OK);

    if (planned.design != built.design || planned.k != built.k || planned.l != built.l ||
        planned.window_items != built.window_items || planned.window_ns != built.window_ns ||
        planned.concurrent != built.concurrent)
        fail_msg("%s: planned (k %u, l %u, window %llu / %llu ns, concurrent %d), built "
                 "(k %u, l %u, window %llu / %llu ns, concurrent %d)",
                 name, planned.k, planned.l, (unsigned long long)planned.window_items,
                 (unsigned long long)planned.window_ns, planned.concurrent, built.k, built.l,
                 (unsigned long long)built.window_items, (unsigned long long)built.window_ns,
                 built.concurrent);
    if (memcmp(&planned.error_planned, &built.error_planned, sizeof(double)) != 0 ||
        planned.error_configured != built.error_configured)
        fail_msg("%s: planned error %.17g, built %.17g", name, planned.error_planned,
                 built.error_planned);
    CHECK_U64_EQ(planned.seed, cfg.seed);
    CHECK_U64_EQ(built.seed, cfg.seed);
    if (c->design != TDBF_TLBF && planned.memory_bytes != built.memory_bytes)
        fail_msg("%s window %llu/%llu ns: planned %llu bytes, open allocated %llu", name,
                 (unsigned long long)c->window_items, (unsigned long long)c->window_ns,
                 (unsigned long long)planned.memory_bytes,
                 (unsigned long long)built.memory_bytes);
    tdbf_close(f);
}

static void test_plan_agrees_with_open(void **state)
{
    (void)state;
    bool seen[64] = {false};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        check_case(&cases[i]);
        seen[cases[i].design] = true;
    }
    /* a design without a case here fails until it gets one */
    for (int d = 0; d < 64; d++)
        if (tdbf_design_available((tdbf_design)d) && !seen[d])
            fail_msg("no plan case for %s", tdbf_design_name((tdbf_design)d));
}

/* TLBF allocates a slice per generation as keys arrive: at the planned
 * rate (capacity keys per window, spread evenly) it holds k + l slices of
 * the planned size, which is what the plan counts. */
static void test_tlbf_plan_is_its_steady_memory(void **state)
{
    (void)state;
    const uint64_t capacity = DRV_PICK(20000, 4000);
    plan_case c = {TDBF_TLBF, 0, SECOND, capacity, 0.01, 0, 0, 0, 0};
    tdbf_config cfg = config_of(&c);
    tdbf_shape planned;
    CHECK_RC(tdbf_plan_shape(&cfg, &planned), TDBF_OK);
    tdbf *f;
    CHECK_RC(tdbf_open(&f, &cfg), TDBF_OK);
    uint64_t step = SECOND / capacity, most = 0, least = UINT64_MAX;
    uint8_t key[DRV_KEY_MAX];
    for (uint64_t i = 0; i < 4 * capacity; i++) {
        size_t len = drv_key(key, DRV_SPACE_INSERT, 7, i);
        int rc = tdbf_add(f, key, len, 1000 * SECOND + i * step);
        if (rc < 0)
            fail_msg("add %llu: %s", (unsigned long long)i, tdbf_strerror(rc));
        if (i >= 2 * capacity) {
            tdbf_shape now;
            CHECK_RC(tdbf_get_shape(f, &now), TDBF_OK);
            most = now.memory_bytes > most ? now.memory_bytes : most;
            least = now.memory_bytes < least ? now.memory_bytes : least;
        }
    }
    tdbf_close(f);
    /* between the moments k + l and k + l + 1 slices are live */
    double slice = (double)(planned.memory_bytes) / (double)(planned.k + planned.l);
    if ((double)least > (double)planned.memory_bytes + slice ||
        (double)most < (double)planned.memory_bytes - slice)
        fail_msg("TLBF planned %llu bytes, held %llu .. %llu at the planned rate",
                 (unsigned long long)planned.memory_bytes, (unsigned long long)least,
                 (unsigned long long)most);
}

/* The code tdbf_open returns for cfg, with the filter closed again. */
static int open_rc(const tdbf_config *cfg)
{
    tdbf *f;
    int rc = tdbf_open(&f, cfg);
    if (rc == TDBF_OK)
        tdbf_close(f);
    return rc;
}

static void expect_refusal(const tdbf_config *cfg, int want)
{
    tdbf_shape out;
    memset(&out, 0xa5, sizeof out);
    tdbf_shape untouched = out;
    int rc = tdbf_plan_shape(cfg, &out);
    if (rc != want || open_rc(cfg) != want)
        fail_msg("%s: plan %s, open %s, expected %s", tdbf_design_name(cfg->design),
                 tdbf_strerror(rc), tdbf_strerror(open_rc(cfg)), tdbf_strerror(want));
    if (want != TDBF_OK && memcmp(&out, &untouched, sizeof out) != 0)
        fail_msg("%s: a refused plan wrote *out", tdbf_design_name(cfg->design));
}

static void test_plan_refuses_what_open_refuses(void **state)
{
    (void)state;
    tdbf_shape out;
    CHECK_RC(tdbf_plan_shape(NULL, &out), TDBF_EINVAL);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tdbf_config cfg = config_of(&cases[i]);
        CHECK_RC(tdbf_plan_shape(&cfg, NULL), TDBF_EINVAL);
        tdbf_config small = cfg;
        small.max_memory = 64;
        /* EXACT's cap applies as it grows; it has nothing to size */
        expect_refusal(&small, cases[i].design == TDBF_EXACT ? TDBF_OK : TDBF_ETOOBIG);
        tdbf_config bad_error = cfg;
        bad_error.error = 1.5;
        expect_refusal(&bad_error, TDBF_EERROR);
        tdbf_config no_window = cfg;
        no_window.window_items = no_window.window_ns = 0;
        expect_refusal(&no_window, TDBF_EWINDOW);
        if (cases[i].design != TDBF_EXACT && cases[i].design != TDBF_ROTATING &&
            cases[i].design != TDBF_SQF) {
            tdbf_config other = cfg;   /* the other kind of window */
            other.window_items = cfg.window_ns ? 1000 : 0;
            other.window_ns = cfg.window_ns ? 0 : SECOND;
            expect_refusal(&other, TDBF_EWINDOW);
        }
    }
    tdbf_config cfg = config_of(&cases[0]);
    cfg.concurrent = 1;                  /* APBF has no concurrent mode */
    expect_refusal(&cfg, TDBF_ENOTSUP);
    cfg = config_of(&cases[0]);
    cfg.k = 3;                           /* k without l */
    expect_refusal(&cfg, TDBF_EPARAM);
    cfg.design = (tdbf_design)999;
    expect_refusal(&cfg, TDBF_EDESIGN);
}

/* The planners keep their last few answers per thread (util/memo.h: a
 * server creating a filter per key asks the same question each time).
 * For every design that keeps them, twelve questions -- more than it
 * keeps, so each is planned afresh on every pass -- asked three times,
 * and each again at once (answered from what was kept), give the same
 * shape bit for bit, with
 * refusals asked in between (a cap the planned memory misses, a timer
 * or cell width out of range) that must neither be answered from a kept
 * plan nor leave one behind. */
static void check_same_shape(const tdbf_shape *a, const tdbf_shape *b, const char *name,
                             int pass, uint64_t window)
{
    if (a->k != b->k || a->l != b->l || a->memory_bytes != b->memory_bytes ||
        memcmp(&a->error_planned, &b->error_planned, sizeof(double)) != 0)
        fail_msg("%s window %llu, pass %d: (k %u, l %u, %llu bytes, FP %.17g) first "
                 "(k %u, l %u, %llu bytes, FP %.17g)", name, (unsigned long long)window, pass,
                 b->k, b->l, (unsigned long long)b->memory_bytes, b->error_planned, a->k, a->l,
                 (unsigned long long)a->memory_bytes, a->error_planned);
}

static void test_kept_plans_are_faithful(void **state)
{
    (void)state;
    static const tdbf_design kept[] = {TDBF_APBF, TDBF_APBBF, TDBF_APBF_LINE,
                                       TDBF_TBF,  TDBF_BTBF,  TDBF_STABLE};
    enum { QUESTIONS = 12 };
    for (size_t d = 0; d < sizeof kept / sizeof kept[0]; d++) {
        const char *name = tdbf_design_name(kept[d]);
        tdbf_shape first[QUESTIONS], again;
        for (int pass = 0; pass < 3; pass++) {
            for (unsigned i = 0; i < QUESTIONS; i++) {
                uint64_t window = 1000 + 7919 * (uint64_t)i;
                plan_case c = {kept[d], window, 0, 0, i % 2 ? 0.01 : 0.001, 0, 0, 0, 0};
                tdbf_config cfg = config_of(&c);
                CHECK_RC(tdbf_plan_shape(&cfg, pass == 0 ? &first[i] : &again), TDBF_OK);
                if (pass > 0)     /* planned afresh: the others evicted it */
                    check_same_shape(&first[i], &again, name, pass, window);
                CHECK_RC(tdbf_plan_shape(&cfg, &again), TDBF_OK);   /* the kept answer */
                check_same_shape(&first[i], &again, name, pass, window);
                tdbf_config capped = cfg;
                capped.max_memory = first[i].memory_bytes / 2;
                expect_refusal(&capped, TDBF_ETOOBIG);
                tdbf_config wide = cfg;
                if (kept[d] == TDBF_STABLE)
                    wide.cell_max_bits = 9;
                else if (kept[d] == TDBF_TBF || kept[d] == TDBF_BTBF)
                    wide.timer_bits = 63;
                else
                    continue;
                expect_refusal(&wide, TDBF_EPARAM);
            }
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_agrees_with_open),
        cmocka_unit_test(test_tlbf_plan_is_its_steady_memory),
        cmocka_unit_test(test_plan_refuses_what_open_refuses),
        cmocka_unit_test(test_kept_plans_are_faithful),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
