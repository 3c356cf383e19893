/*
 * sizing.c — the memory a configuration asks for (see sizing.h).
 *
 * tdbf_plan_shape runs the design's own sizing, the one tdbf_open runs
 * before it allocates, so the figure is the one the open refused.
 */
#include "sizing.h"

#include <stdio.h>

int cli_planned_bytes(const tdbf_config *cfg, uint64_t *bytes)
{
    tdbf_config uncapped = *cfg;
    uncapped.max_memory = UINT64_MAX;
    tdbf_shape shape;
    if (tdbf_plan_shape(&uncapped, &shape) != TDBF_OK)
        return -1;
    *bytes = shape.memory_bytes;
    return 0;
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
