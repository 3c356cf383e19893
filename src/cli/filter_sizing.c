/*
 * filter_sizing.c — the memory a configuration asks for, and the design dedup
 * builds by default (see filter_sizing.h).
 *
 * tdbf_plan_shape runs the design's own sizing, the one tdbf_open runs
 * before it allocates, so the figure is the one the open refused.
 */
#include "filter_sizing.h"
#include "common/output.h"

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

/* The line-local designs: one memory unit read per key, so the fastest
 * per line; tlbf-line's rings follow the rate of a time window. */
tdbf_design cli_default_design(int time_window)
{
    return time_window ? TDBF_TLBF_LINE : TDBF_APBF_LINE;
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

const char cli_error_bound_text[] =
    "--error E bounds how often a key never seen, or last seen longer ago than\n"
    "the window plus its slack, is reported as seen (so its line wrongly\n"
    "dropped).  Inside the slack a key may still be reported, less often as it\n"
    "ages: an exact window drops none of those, a filter some.\n";

/* A count in `unit`s, or a duration. */
static char *format_age(char *buf, size_t size, const tdbf_shape *shape, uint64_t age,
                        const char *unit)
{
    char number[32];
    if (shape->window_ns != 0)
        return cli_format_duration_ns(buf, size, age);
    snprintf(buf, size, "%s %s", cli_format_count(number, sizeof number, age), unit);
    return buf;
}

static uint64_t window_of(const tdbf_shape *shape)
{
    return shape->window_ns != 0 ? shape->window_ns : shape->window_items;
}

static uint64_t slack_of(const tdbf_shape *shape)
{
    return shape->window_ns != 0 ? shape->slack_ns : shape->slack_items;
}

char *cli_format_slack(char *buf, size_t size, const tdbf_shape *shape, const char *unit)
{
    if (slack_of(shape) == UINT64_MAX) {
        snprintf(buf, size, "none (%s)", shape->design == TDBF_BLOOM
                 ? "no window: a key is never forgotten"
                 : "no hard window: keys are forgotten at random, less often the younger");
        return buf;
    }
    return format_age(buf, size, shape, slack_of(shape), unit);
}

char *cli_format_expiry(char *buf, size_t size, const tdbf_shape *shape, const char *unit,
                        const char *verb, int with_window)
{
    char window[48], slack[160], oldest[48], from[32];
    uint64_t w = window_of(shape), extra = slack_of(shape);
    size_t used = 0;
    buf[0] = '\0';
    if (with_window)
        used = (size_t)snprintf(buf, size, "window %s, slack ",
                                format_age(window, sizeof window, shape, w, unit));
    if (used >= size)
        return buf;
    cli_format_slack(slack, sizeof slack, shape, unit);
    if (extra == UINT64_MAX || extra == 0) {
        snprintf(buf + used, size - used, "%s", extra == 0 ? "0: the window is exact" : slack);
        return buf;
    }
    format_age(oldest, sizeof oldest, shape, extra > UINT64_MAX - w ? UINT64_MAX : w + extra,
               unit);
    /* "100,000-114,286 lines": the unit once, after the range */
    if (shape->window_ns != 0)
        cli_format_duration_ns(from, sizeof from, w);
    else
        cli_format_count(from, sizeof from, w);
    snprintf(buf + used, size - used, "%s: a key last seen %s-%s ago may still be %s", slack,
             from, oldest, verb);
    return buf;
}
