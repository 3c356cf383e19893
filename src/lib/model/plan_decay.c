/*
 * plan_decay.c — what sizing the two designs that forget at random shares:
 * the fingerprint decay array (fpdecay.c, paper 003) and the Stable Bloom
 * filter (stable.c, Deng & Rafiei 2006).
 *
 * Neither has a hard window, so a window request (w, error) is read as two
 * targets: the false-positive rate at steady state meets `error`, and a
 * key added w adds ago still answers yes with probability at least S
 * (cfg.survival, default 1 - error: the same rate for both kinds of
 * mistake at the window's edge; younger keys fare much better).  Each
 * design searches its own parameters for the least memory that meets both
 * (tdbf_fpdecay_plan, tdbf_stable_plan); tdbf_open and tdbf_plan_decay
 * call the same search, so `tdbf plan` shows exactly what a filter gets.
 */
#include "util/mem.h"
#include "designs/ops.h"
#include "model/planning.h"

/* The survival target of a window request, once cfg is checked. */
static int decay_target(const tdbf_config *cfg, double *target)
{
    if (!(cfg->error > 0.0 && cfg->error < 1.0))
        return TDBF_EERROR;
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    if (cfg->k != 0 || cfg->l != 0 || cfg->positions > TDBF_MAX_K)
        return TDBF_EPARAM;
    *target = cfg->survival == 0.0 ? 1.0 - cfg->error : cfg->survival;
    return *target > 0.0 && *target < 1.0 ? TDBF_OK : TDBF_EPARAM;
}

int tdbf_decay_plan_by(const tdbf_config *cfg, tdbf_design design, tdbf_decay_search search,
                       tdbf_decay_plan *out)
{
    double target;
    int rc = decay_target(cfg, &target);
    if (rc != TDBF_OK)
        return rc;
    tdbf_decay_plan plan = {.design = design};
    rc = search(cfg, target, &plan);
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

void tdbf_decay_shape(const tdbf_decay_plan *plan, size_t state_bytes, tdbf_shape *out)
{
    out->k = plan->k;
    out->window_items = plan->window;
    out->error_planned = plan->fp;
    out->memory_bytes = sizeof(tdbf) + state_bytes + TDBF_ALIGNED_OVERHEAD + plan->bytes;
}
