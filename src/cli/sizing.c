/*
 * sizing.c — the memory a configuration asks for (see sizing.h).
 *
 * Each design's planner sizes exactly as tdbf_open does, so the figure is
 * the one the open refused.  TLBF has no public planner: its open
 * allocates no slice until the first add, so a throwaway filter without
 * a cap says which (k, l) it chose (tdbf_get_shape), and tdbf_plan_eval
 * gives the slices of that pair for the planned keys per window.
 */
#include "sizing.h"

#include <stdio.h>

enum { TLBF_DEFAULT_CAPACITY = 1024 };   /* tdbf.h: cfg.capacity 0 */

static int tlbf_bytes(const tdbf_config *cfg, uint64_t *bytes)
{
    tdbf_config open_cfg = *cfg;
    open_cfg.max_memory = UINT64_MAX;
    tdbf *probe;
    if (tdbf_open(&probe, &open_cfg) != TDBF_OK)
        return -1;
    tdbf_shape shape;
    tdbf_get_shape(probe, &shape);
    tdbf_close(probe);
    tdbf_plan plan;
    uint64_t capacity = cfg->capacity ? cfg->capacity : TLBF_DEFAULT_CAPACITY;
    if (tdbf_plan_eval(shape.k, shape.l, capacity, &plan) != TDBF_OK)
        return -1;
    *bytes = (plan.bits + 7) / 8;
    return 0;
}

static int line_bytes(const tdbf_config *cfg, uint64_t *bytes)
{
    tdbf_config line = *cfg;
    line.design = TDBF_APBF_LINE;
    if (cfg->design == TDBF_TLBF_LINE) {       /* its first ring */
        line.window_items = cfg->capacity ? cfg->capacity : TLBF_DEFAULT_CAPACITY;
        line.window_ns = 0;
    }
    tdbf_line_plan plan;
    if (tdbf_plan_apbf_line(&line, &plan) != TDBF_OK)
        return -1;
    *bytes = plan.bytes;
    return 0;
}

int cli_planned_bytes(const tdbf_config *cfg, uint64_t *bytes)
{
    tdbf_config c = *cfg;
    c.max_memory = UINT64_MAX;
    double tolerance = c.plan_tolerance > 0.0 ? c.plan_tolerance
                     : c.plan_tolerance < 0.0 ? 0.0 : TDBF_DEFAULT_PLAN_TOLERANCE;
    switch (c.design) {
    case TDBF_APBF: {
        tdbf_plan plan;
        int rc = c.k ? tdbf_plan_eval(c.k, c.l, c.window_items, &plan)
                     : tdbf_plan_apbf_fast(c.window_items, c.error, tolerance, &plan);
        *bytes = (plan.bits + 7) / 8;
        return rc == TDBF_OK ? 0 : -1;
    }
    case TDBF_APBBF: {
        tdbf_plan_blocked plan;
        int rc = tdbf_plan_apbbf_fast(c.window_items, c.error, c.block_bits, tolerance, &plan);
        *bytes = (plan.bits + 7) / 8;
        return rc == TDBF_OK ? 0 : -1;
    }
    case TDBF_APBF_LINE:
    case TDBF_TLBF_LINE:
        return line_bytes(&c, bytes);
    case TDBF_TLBF:
        return tlbf_bytes(&c, bytes);
    case TDBF_CLOCK:
    case TDBF_ROTATING: {
        tdbf_design_plan plan;
        int rc = tdbf_plan_design(&c, &plan);
        *bytes = plan.memory_bytes;
        return rc == TDBF_OK ? 0 : -1;
    }
    case TDBF_FPDECAY:
    case TDBF_STABLE: {
        tdbf_decay_plan plan;
        int rc = tdbf_plan_decay(&c, &plan);
        *bytes = plan.bytes;
        return rc == TDBF_OK ? 0 : -1;
    }
    default:
        return -1;
    }
}

char *cli_size_suggestion(char *buf, size_t size, uint64_t bytes)
{
    const uint64_t mib = UINT64_C(1) << 20, gib = UINT64_C(1) << 30;
    if (bytes < gib)
        snprintf(buf, size, "%lluM", (unsigned long long)(bytes / mib + 1));
    else
        snprintf(buf, size, "%lluG", (unsigned long long)(bytes / gib + 1));
    return buf;
}
