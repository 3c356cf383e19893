/*
 * test_against_exact.c — every design that promises no false negatives,
 * run side by side with the EXACT window on one stream WITH repeats.
 *
 * The generic driver (driver.c) feeds distinct keys and checks the keys it
 * remembers; real streams repeat keys, and a re-add is where test-and-set
 * semantics can go wrong (a present key must be reported present, and its
 * re-add must keep it in the window as long as EXACT keeps it).  Here each
 * step adds one key to both filters at the same time: half the steps a key
 * never seen, half a key drawn from the last two windows' keys (so some are
 * inside the window, some just past it).  Checked:
 *   - no false negative: whenever EXACT answers "present", the design does;
 *   - false positives, on the never-seen keys only (a key just past the
 *     window may still answer yes within a design's documented slack,
 *     which is not a false positive): at most the planned error, within
 *     the binomial band, plus 25 % (a small filter's own loads vary).
 * Designs that forget at random by design (FPDECAY, STABLE) and the
 * classic Bloom filter (no window) are not in the list.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "driver.h"

enum { WINDOW = 2000, RECENT = 2 * WINDOW };
#define WINDOW_NS UINT64_C(1000000000)                    /* 1 s for WINDOW keys */
#define STEP_NS (WINDOW_NS / WINDOW)

typedef struct exact_case {
    const char *name;
    tdbf_design design;
    int         time_window;
    unsigned    block_bits;
} exact_case;

typedef struct tally {
    uint64_t present;        /* EXACT said present */
    uint64_t false_negatives;
    uint64_t fresh;          /* never-seen keys added */
    uint64_t fresh_yes;      /* ... that the design reported present */
} tally;

static tdbf_config case_config(const exact_case *c, tdbf_design design)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.error = 0.01;
    cfg.seed = 0xe4ac7;
    if (c->time_window) {
        cfg.window_ns = WINDOW_NS;
        cfg.capacity = WINDOW;
    } else {
        cfg.window_items = WINDOW;
    }
    if (design == c->design)
        cfg.block_bits = c->block_bits;
    return cfg;
}

/* One step: the key to add, fresh or recent; returns its index. */
static uint64_t pick_key(uint64_t *rng, uint64_t *next_fresh, const uint64_t *recent,
                         uint64_t added, bool *fresh)
{
    *fresh = added == 0 || drv_below(rng, 2) == 0;
    if (*fresh)
        return (*next_fresh)++;
    uint64_t span = added < RECENT ? added : RECENT;
    return recent[(added - 1 - drv_below(rng, span)) % RECENT];
}

static void add_both(tdbf *f, tdbf *exact, uint64_t index, uint64_t now, bool fresh,
                     tally *t, const char *name)
{
    uint8_t key[DRV_KEY_MAX];
    size_t len = drv_key(key, DRV_SPACE_INSERT, 0x5e7, index);
    int want = tdbf_add(exact, key, len, now);
    int got = tdbf_add(f, key, len, now);
    if (want < 0 || got < 0)
        fail_msg("%s: add returned %d (exact %d)", name, got, want);
    t->present += (uint64_t)want;
    if (want == 1 && got != 1 && t->false_negatives++ == 0)
        print_message("  %s: first false negative, key %llu at %llu ns\n", name,
                      (unsigned long long)index, (unsigned long long)now);
    if (fresh) {
        t->fresh++;
        t->fresh_yes += (uint64_t)got;
    }
}

static void run_case(const exact_case *c, uint64_t steps)
{
    tdbf_config cfg = case_config(c, c->design);
    tdbf_config exact_cfg = case_config(c, TDBF_EXACT);
    tdbf *f = drv_open(&cfg);
    tdbf *exact = drv_open(&exact_cfg);
    uint64_t *recent = calloc(RECENT, sizeof *recent);
    assert_non_null(recent);
    uint64_t rng = 0x7e57 + (uint64_t)c->design, next_fresh = 0, now = UINT64_C(1) << 40;
    tally t = {0};
    for (uint64_t step = 0; step < steps; step++) {
        if (c->time_window)
            now += STEP_NS / 2 + drv_below(&rng, STEP_NS);   /* WINDOW keys a window */
        bool fresh;
        uint64_t index = pick_key(&rng, &next_fresh, recent, step, &fresh);
        recent[step % RECENT] = index;
        add_both(f, exact, index, now, fresh, &t, c->name);
    }
    tdbf_stats st;
    CHECK_RC(tdbf_get_stats(f, &st), TDBF_OK);
    double planned = st.error_planned > cfg.error ? st.error_planned : cfg.error;
    double fp = (double)t.fresh_yes / (double)t.fresh;
    double bound = 1.25 * planned + drv_band(planned, (double)t.fresh, 0.0);
    print_message("  %-14s %llu adds, %llu present in EXACT's window, %llu false "
                  "negatives; FP on never-seen keys %.4f (planned %.4f, bound %.4f)\n",
                  c->name, (unsigned long long)steps, (unsigned long long)t.present,
                  (unsigned long long)t.false_negatives, fp, st.error_planned, bound);
    CHECK_U64_EQ(t.false_negatives, 0);
    if (t.present < steps / 5)
        fail_msg("%s: too few repeats inside the window (%llu) to test", c->name,
                 (unsigned long long)t.present);
    if (fp > bound)
        fail_msg("%s: FP %.4f on never-seen keys above %.4f", c->name, fp, bound);
    free(recent);
    tdbf_close(f);
    tdbf_close(exact);
}

static void test_designs_against_exact(void **state)
{
    (void)state;
    const exact_case cases[] = {
        {"apbf", TDBF_APBF, 0, 0},
        {"apbbf", TDBF_APBBF, 0, 0},
        {"apbbf-64", TDBF_APBBF, 0, 64},
        {"apbf-line", TDBF_APBF_LINE, 0, 0},
        {"apbf-line-512", TDBF_APBF_LINE, 0, 512},
        {"tbf", TDBF_TBF, 0, 0},
        {"btbf", TDBF_BTBF, 0, 0},
        {"rotating", TDBF_ROTATING, 0, 0},
        {"tlbf", TDBF_TLBF, 1, 0},
        {"tlbf-line", TDBF_TLBF_LINE, 1, 0},
        {"clock", TDBF_CLOCK, 1, 0},
        {"rotating-time", TDBF_ROTATING, 1, 0},
    };
    const uint64_t steps = DRV_PICK(60000, 12000);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        run_case(&cases[i], steps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_designs_against_exact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
