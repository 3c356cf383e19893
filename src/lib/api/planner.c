/*
 * planner.c — the planning entry points of tdbf.h: what tdbf_open(cfg)
 * would build, without building it.
 *
 * Each design owns its sizing, in its own file: open calls it and then
 * allocates, and ops->plan calls the same function and reports the
 * result, so a plan is never a second opinion.  Here sit only the public
 * doors: tdbf_plan_shape for every design (through ops->plan), and the
 * detailed plans of the designs whose parameters tdbf_shape cannot hold
 * (CLOCK and ROTATING: cells, filters, resolution; FPDECAY and STABLE:
 * fingerprint bits, decrements, survival).  The APBF family's planners
 * (tdbf_plan_apbf, tdbf_plan_apbbf, tdbf_plan_apbf_line) search
 * parameters rather than size a configuration and live with their models
 * in model/ and designs/apbf_line/apbf_line.c.
 */
#include "designs/ops.h"
#include "model/planning.h"

int tdbf_plan_shape(const tdbf_config *cfg, tdbf_shape *out)
{
    if (!cfg || !out)
        return TDBF_EINVAL;
    tdbf_config local;
    int rc = tdbf_config_normalize(cfg, &local);
    if (rc != TDBF_OK)
        return rc;
    const tdbf_ops *ops = tdbf_design_ops(cfg->design);
    if (cfg->concurrent && !ops->concurrent && !ops->concurrent_on_request)
        return TDBF_ENOTSUP;
    tdbf_shape shape = {
        .design = cfg->design,
        .error_configured = cfg->error,
        .seed = cfg->seed,
        .concurrent = ops->concurrent || cfg->concurrent,
    };
    rc = ops->plan(&local, &shape);
    if (rc != TDBF_OK)
        return rc;
    tdbf_shape_set_slack(&shape, ops->slack_step ? ops->slack_step(NULL, &local) : 0);
    *out = shape;
    return TDBF_OK;
}

int tdbf_plan_clock_rotating(const tdbf_config *cfg, tdbf_clock_rotating_plan *out)
{
    if (!cfg || !out)
        return TDBF_EINVAL;
    if (cfg->design != TDBF_CLOCK && cfg->design != TDBF_ROTATING)
        return TDBF_EDESIGN;
    /* tdbf_open's own checks, before the design's */
    tdbf_config local;
    int rc = tdbf_config_normalize(cfg, &local);
    if (rc != TDBF_OK)
        return rc;
    tdbf_clock_rotating_plan plan;
    rc = cfg->design == TDBF_CLOCK ? tdbf_clock_plan(&local, &plan)
                                   : tdbf_rotating_plan(&local, &plan);
    if (rc == TDBF_OK)
        *out = plan;
    return rc;
}

int tdbf_plan_decay(const tdbf_config *cfg, tdbf_decay_plan *out)
{
    if (!cfg || !out)
        return TDBF_EINVAL;
    if (cfg->design == TDBF_FPDECAY)
        return tdbf_fpdecay_plan(cfg, out);
    return cfg->design == TDBF_STABLE ? tdbf_stable_plan(cfg, out) : TDBF_EDESIGN;
}
