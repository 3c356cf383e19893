/*
 * plan_decay.c — sizing the two designs that forget at random: the
 * fingerprint decay array (fpdecay.c, paper 003) and the Stable Bloom
 * filter (stable.c, Deng & Rafiei 2006).
 *
 * Neither has a hard window, so a window request (w, error) is read as two
 * targets: the false-positive rate at steady state meets `error`, and a
 * key added w adds ago still answers yes with probability at least S
 * (cfg.survival, default 1 - error: the same rate for both kinds of
 * mistake at the window's edge; younger keys fare much better).  The
 * formulas live with their designs; this file searches their parameters
 * for the least memory that meets both targets.  tdbf_open calls the same
 * tdbf_plan_decay, so `tdbf plan` shows exactly what a filter would get.
 */
#include <math.h>

#include "core/mem.h"

/* Cell arrays larger than this are not sized (like the APBF planner). */
#define MAX_BITS 4503599627370496.0   /* 2^52 */

/* STABLE: d when cfg.cell_max_bits is 0 (see stable.c, "Sizing"). */
#define STABLE_DEFAULT_BITS 4

/* ---- FPDECAY ------------------------------------------------------------ */

/* 1 - (1 - e_b)^n: the FP once every cell holds some fingerprint. */
static double fpdecay_full_fp(unsigned n, unsigned b)
{
    double foreign_match = 1.0 / (double)((UINT64_C(1) << b) - 1);
    return -expm1((double)n * log1p(-foreign_match));
}

static int plan_fpdecay(const tdbf_config *cfg, double target, tdbf_decay_plan *out)
{
    static const unsigned widths[] = {8, 16, 32};
    unsigned fixed_b = cfg->fingerprint_bits, fixed_n = cfg->positions;
    if (fixed_b != 0 && fixed_b != 8 && fixed_b != 16 && fixed_b != 32)
        return TDBF_EPARAM;
    bool found = false, too_big = false;
    double best_bits = 0.0;

    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++) {
        unsigned b = widths[i];
        if (fixed_b && b != fixed_b)
            continue;
        unsigned n_last = fixed_n ? fixed_n : TDBF_MAX_K;
        for (unsigned n = fixed_n ? fixed_n : 1; n <= n_last; n++) {
            double fp = fpdecay_full_fp(n, b);
            if (fp > cfg->error)
                break;              /* and more so for larger n */
            uint64_t cells;
            int rc = tdbf_fpdecay_size(cfg->window_items, n, b, target, &cells);
            if (rc == TDBF_ETOOBIG) {
                too_big = true;
                continue;
            }
            if (rc != TDBF_OK)
                return rc;
            double bits = (double)cells * b;
            if (found && bits >= best_bits)
                continue;
            found = true;
            best_bits = bits;
            out->cells = cells;
            out->k = n;
            out->cell_bits = b;
            out->bytes = cells * (b / 8);
            out->fp = fp;
            out->survival = tdbf_fpdecay_survival(cells, n, b, cfg->window_items);
        }
    }
    if (!found)
        return too_big ? TDBF_ETOOBIG : TDBF_EINFEASIBLE;
    out->decrements = 0;
    return TDBF_OK;
}

/* ---- STABLE ------------------------------------------------------------- */

typedef struct stable_shape {
    uint64_t window;
    double   error, target;
    unsigned k, d;
    uint64_t fixed_decrements;  /* 0 = from the FP formula */
} stable_shape;

/* The least P whose stable-point FP (1 - zeros)^K meets the error, for m
 * cells (Deng & Rafiei); 0 if none does with P <= m. */
static uint64_t least_decrements(const stable_shape *sh, uint64_t cells)
{
    double zeros_needed = 1.0 - pow(sh->error, 1.0 / sh->k);
    double max = (double)((1u << sh->d) - 1);
    double p = 1.0 / ((pow(zeros_needed, -1.0 / max) - 1.0) *
                      (1.0 / sh->k - 1.0 / (double)cells));
    if (!(p >= 1.0))
        p = 1.0;
    if (!(p <= (double)cells))
        return 0;
    uint64_t decrements = (uint64_t)ceil(p);
    /* settle the rounding against the formula the filter reports */
    while (decrements > 1 &&
           pow(1.0 - tdbf_stable_zeros(cells, sh->k, sh->d, decrements - 1, UINT64_MAX),
               sh->k) <= sh->error)
        decrements--;
    while (pow(1.0 - tdbf_stable_zeros(cells, sh->k, sh->d, decrements, UINT64_MAX),
               sh->k) > sh->error)
        if (++decrements > cells)
            return 0;
    return decrements;
}

static uint64_t decrements_for(const stable_shape *sh, uint64_t cells)
{
    if (sh->fixed_decrements)
        return sh->fixed_decrements <= cells ? sh->fixed_decrements : 0;
    return least_decrements(sh, cells);
}

/* Does a filter of `segment` cells per segment forget at most 1 - S of
 * the keys added `window` adds ago? */
static bool stable_meets(const stable_shape *sh, uint64_t segment)
{
    uint64_t cells = segment * sh->k;
    uint64_t decrements = decrements_for(sh, cells);
    return decrements != 0 &&
           tdbf_stable_forget(cells, sh->k, sh->d, decrements, sh->window) <= 1.0 - sh->target;
}

/* The least segment size meeting the target for this K (0: none fits).
 * Forgetting falls as the array grows (P/m and K/m shrink together), so
 * a bisection finds it. */
static uint64_t stable_least_segment(const stable_shape *sh)
{
    uint64_t lo = 2, hi = (uint64_t)(MAX_BITS / ((double)sh->k * sh->d));
    if (!stable_meets(sh, hi))
        return 0;
    if (stable_meets(sh, lo))
        return lo;
    while (hi - lo > 1) {            /* lo fails, hi meets */
        uint64_t mid = lo + (hi - lo) / 2;
        if (stable_meets(sh, mid))
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

static int plan_stable(const tdbf_config *cfg, double target, tdbf_decay_plan *out)
{
    stable_shape sh = {cfg->window_items, cfg->error, target, 0,
                       cfg->cell_max_bits ? cfg->cell_max_bits : STABLE_DEFAULT_BITS,
                       cfg->decrements};
    if (sh.d > 8)
        return TDBF_EPARAM;
    unsigned per_word = 64 / sh.d;
    bool found = false, fp_missed = false;
    uint64_t best_words = 0;

    unsigned k_last = cfg->positions ? cfg->positions : TDBF_MAX_K;
    for (sh.k = cfg->positions ? cfg->positions : 1; sh.k <= k_last; sh.k++) {
        uint64_t segment = stable_least_segment(&sh);
        if (segment == 0)
            continue;
        uint64_t cells = segment * sh.k;
        uint64_t decrements = decrements_for(&sh, cells);
        double fp = pow(1.0 - tdbf_stable_zeros(cells, sh.k, sh.d, decrements, UINT64_MAX),
                        sh.k);
        if (fp > sh.error) {            /* a fixed P too small for this m */
            fp_missed = true;
            continue;
        }
        uint64_t words = (cells + per_word - 1) / per_word;
        if (found && words >= best_words)
            continue;
        found = true;
        best_words = words;
        out->cells = cells;
        out->k = sh.k;
        out->cell_bits = sh.d;
        out->decrements = decrements;
        out->bytes = words * sizeof(uint64_t);
        out->fp = fp;
        out->survival = 1.0 - tdbf_stable_forget(cells, sh.k, sh.d, decrements, sh.window);
    }
    if (!found)
        return fp_missed ? TDBF_EINFEASIBLE : TDBF_ETOOBIG;
    return TDBF_OK;
}

/* ---- both ------------------------------------------------------------- */

int tdbf_plan_decay(const tdbf_config *cfg, tdbf_decay_plan *out)
{
    if (!cfg || !out)
        return TDBF_EINVAL;
    if (cfg->design != TDBF_FPDECAY && cfg->design != TDBF_STABLE)
        return TDBF_EDESIGN;
    if (!(cfg->error > 0.0 && cfg->error < 1.0))
        return TDBF_EERROR;
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    if (cfg->k != 0 || cfg->l != 0 || cfg->positions > TDBF_MAX_K)
        return TDBF_EPARAM;
    double target = cfg->survival == 0.0 ? 1.0 - cfg->error : cfg->survival;
    if (!(target > 0.0 && target < 1.0))
        return TDBF_EPARAM;

    tdbf_decay_plan plan = {.design = cfg->design};
    int rc = cfg->design == TDBF_FPDECAY ? plan_fpdecay(cfg, target, &plan)
                                         : plan_stable(cfg, target, &plan);
    if (rc != TDBF_OK)
        return rc;
    uint64_t max_memory = cfg->max_memory ? cfg->max_memory : TDBF_DEFAULT_MAX_MEMORY;
    if (!tdbf_fits((double)plan.bytes, max_memory))
        return TDBF_ETOOBIG;
    plan.window = cfg->window_items;
    plan.bits_per_item = 8.0 * (double)plan.bytes / (double)plan.window;
    plan.survival_target = target;
    *out = plan;
    return TDBF_OK;
}
