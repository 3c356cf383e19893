/*
 * shell.c — the table of designs and the handle every filter lives in.
 *
 * The bottom of the generic layer: the designs' operation tables, indexed
 * by tdbf_design, and the shell (struct tdbf) that open and load create
 * around a design's state.  The API (filter.c), the file format (codec.c)
 * and the planners' doors (planner.c) build on it; the designs never call
 * any of them.
 */
#include <stdatomic.h>
#include <strings.h>

#include "designs/ops.h"

/* ---- designs -------------------------------------------------------- */

static const char *const design_names[TDBF_DESIGN_COUNT] = {
    "apbf", "apbbf", "tlbf", "tbf", "btbf", "clock",
    "rotating", "fpdecay", "stable", "bloom", "exact", "apbf-line", "tlbf-line",
    "sqf",
};

static const tdbf_ops *const design_ops[TDBF_DESIGN_COUNT] = {
    [TDBF_APBF] = &tdbf_apbf_ops,
    [TDBF_APBBF] = &tdbf_apbbf_ops,
    [TDBF_TLBF] = &tdbf_tlbf_ops,
    [TDBF_TBF] = &tdbf_tbf_ops,
    [TDBF_BTBF] = &tdbf_btbf_ops,
    [TDBF_CLOCK] = &tdbf_clock_ops,
    [TDBF_ROTATING] = &tdbf_rotating_ops,
    [TDBF_FPDECAY] = &tdbf_fpdecay_ops,
    [TDBF_STABLE] = &tdbf_stable_ops,
    [TDBF_BLOOM] = &tdbf_bloom_ops,
    [TDBF_EXACT] = &tdbf_exact_ops,
    [TDBF_APBF_LINE] = &tdbf_apbf_line_ops,
    [TDBF_TLBF_LINE] = &tdbf_tlbf_line_ops,
    [TDBF_SQF] = &tdbf_sqf_ops,
};

const char *tdbf_design_name(tdbf_design design)
{
    return (unsigned)design < TDBF_DESIGN_COUNT ? design_names[design] : NULL;
}

int tdbf_design_parse(const char *name, tdbf_design *out)
{
    if (!name || !out)
        return TDBF_EINVAL;
    for (unsigned i = 0; i < TDBF_DESIGN_COUNT; i++) {
        if (strcasecmp(name, design_names[i]) == 0) {
            *out = (tdbf_design)i;
            return TDBF_OK;
        }
    }
    return TDBF_EDESIGN;
}

int tdbf_design_available(tdbf_design design)
{
    return (unsigned)design < TDBF_DESIGN_COUNT && design_ops[design] != NULL;
}

const tdbf_ops *tdbf_design_ops(tdbf_design design)
{
    return tdbf_design_available(design) ? design_ops[design] : NULL;
}

tdbf *tdbf_shell_new(const tdbf_allocator *alloc, tdbf_design design,
                     double error, uint64_t seed)
{
    tdbf *f = alloc->calloc(alloc->opaque, 1, sizeof *f);
    if (!f)
        return NULL;
    f->alloc = *alloc;
    f->state.memory_bytes = sizeof *f;
    f->settings.walk_min_bytes = TDBF_WALK_MIN_BYTES;
    f->state.prefetch_ahead = TDBF_PREFETCH_AHEAD;
    f->ops = design_ops[design];
    f->state.add = f->ops->add;
    f->state.contains = f->ops->contains;
    f->concurrent = f->ops->concurrent;
    f->design = design;
    f->error = error;
    f->seed = seed;
    return f;
}

void tdbf_shell_free(tdbf *f)
{
    f->alloc.free(f->alloc.opaque, f);
}

int tdbf_config_normalize(const tdbf_config *cfg, tdbf_config *local)
{
    if (!tdbf_design_available(cfg->design))
        return TDBF_EDESIGN;
    if (!(cfg->error > 0.0 && cfg->error < 1.0))
        return TDBF_EERROR;
    if (cfg->k > TDBF_MAX_K || cfg->l > TDBF_MAX_L)
        return TDBF_EPARAM;
    *local = *cfg;
    if (local->max_memory == 0)
        local->max_memory = TDBF_DEFAULT_MAX_MEMORY;
    return TDBF_OK;
}

void tdbf_close(tdbf *f)
{
    if (!f)
        return;
    f->ops->close(f);
    tdbf_shell_free(f);
}

uint64_t tdbf_items(const tdbf *f)
{
    return f->state.own_items ? f->ops->items(f)
                              : atomic_load_explicit(&f->items, memory_order_relaxed);
}
