/*
 * filter_sizing.h — how much memory a configuration asks for, without building
 * the filter (for messages such as "needs 5.2 GiB, more than the cap"),
 * and which design dedup builds when none is named.
 */
#ifndef TDBF_CLI_FILTER_SIZING_H
#define TDBF_CLI_FILTER_SIZING_H

#include <stddef.h>
#include <stdint.h>

#include <tdbf_model.h>

/* The bytes tdbf_open(cfg) would allocate (at the planned rate, for the
 * time designs that grow), whatever cfg->max_memory says: from the
 * design's own sizing (tdbf_plan_shape), never by allocating them.
 * Returns 0 and sets *bytes, or -1 for a configuration the design
 * refuses. */
int cli_planned_bytes(const tdbf_config *cfg, uint64_t *bytes);

/* The design `tdbf dedup` builds when no --design is given: for a time
 * window (--window T, time_window nonzero) or a count window (--last N).
 * The one place that says so: dedup opens it, `tdbf plan` shows its plan
 * by default, and tests/cli/test_defaults.py checks every text naming it. */
tdbf_design cli_default_design(int time_window);

/* A filter whose estimated false-positive rate (tdbf_current_error) is
 * above this many times its target (--error) is past its capacity:
 * `tdbf dedup` stops there, and `tdbf plan` says so.  The same line as
 * the Redis module's refusal (tdbf.max-error-ratio) and Python's
 * FullError (max_error_ratio) draw by default; the designs that grow
 * (apbf-line, tlbf-line) keep their estimate within the target itself. */
#define CLI_OVERLOAD_FACTOR 1.5

/* The slack of a filter or plan (tdbf_slack: how far past its window a
 * key may still be reported): "14,286 lines" (count window, `unit` the
 * word for an add), "2m30s" (time window), or "none (...)" for a design
 * with no bound.  Returns buf. */
char *cli_format_slack(char *buf, size_t size, const tdbf_shape *shape, const char *unit);

/* The same as a sentence: "14,286 lines: a key last seen 100,000-114,286
 * lines ago may still be dropped" (`verb` "dropped"), after "window
 * 100,000 lines, slack " when with_window is set.  Returns buf. */
char *cli_format_expiry(char *buf, size_t size, const tdbf_shape *shape, const char *unit,
                        const char *verb, int with_window);

/* What --error bounds, in the words of `tdbf dedup` (one paragraph,
 * newline-terminated, for help text and plan output). */
extern const char cli_error_bound_text[];

/* A --max-memory value that allows `bytes`: the next whole G (or M below
 * 1 GiB), "6G".  Returns buf. */
char *cli_size_suggestion(char *buf, size_t size, uint64_t bytes);

#endif /* TDBF_CLI_FILTER_SIZING_H */
