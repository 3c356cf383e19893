/*
 * dedup_report.c — what `tdbf dedup` tells about a run on stderr: the
 * progress line while it runs (stderr a terminal, no --quiet), and at
 * the end the summary of bad or clamped times and the --stats table.
 * Stdout carries only the lines that pass.
 */
#define _POSIX_C_SOURCE 200809L

#include "dedup_report.h"

#include "cli.h"
#include "common/measure.h"
#include "filter_sizing.h"      /* the overload line, the slack in words */

#include <stdio.h>

void dedup_print_progress(const dedup_tally *tally, uint64_t now_ns)
{
    char in[32], out[32];
    double seconds = (double)(now_ns - tally->started) / 1e9;
    cli_progress("dedup", "%s lines in, %s out, %.3g lines/s",
                 cli_format_count(in, sizeof in, tally->lines_in),
                 cli_format_count(out, sizeof out, tally->lines_out),
                 seconds > 0 ? (double)tally->lines_in / seconds : 0.0);
}

void dedup_print_stats(const dedup_args *args, const tdbf *filter,
                       const dedup_tally *tally)
{
    tdbf_stats st;
    if (tdbf_get_stats(filter, &st) != TDBF_OK)
        return;
    double seconds = (double)(cli_now_ns() - tally->started) / 1e9;
    char a[32], b[32], c[32], d[32], e[32];
    cli_table t;
    cli_table_init(&t, 2, "ll");
    cli_table_cell(&t, "lines in");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, tally->lines_in));
    cli_table_cell(&t, "lines out");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, tally->lines_out));
    cli_table_cell(&t, "repeats");
    cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, tally->lines_repeat));
    if (args->time_field != 0) {
        cli_table_cell(&t, "bad times refused");
        cli_table_cell(&t, "%s (%s ahead of the clock)%s",
                       cli_format_count(a, sizeof a, tally->lines_bad),
                       cli_format_count(b, sizeof b, tally->lines_ahead),
                       args->skip_bad ? ", passed through"
                       : args->drop_bad ? ", dropped" : "");
        cli_table_cell(&t, "times clamped back");
        cli_table_cell(&t, "%s", cli_format_count(a, sizeof a, tally->lines_clamped));
    }
    cli_table_cell(&t, "capacity stop");
    cli_table_cell(&t, "%s", tally->error_at_stop > 0 ? "yes" : "no");
    cli_table_cell(&t, "time");
    cli_table_cell(&t, "%s, %s lines/s",
                   cli_format_duration_ns(e, sizeof e, cli_now_ns() - tally->started),
                   cli_format_count(a, sizeof a, seconds > 0
                       ? (uint64_t)((double)tally->lines_in / seconds) : 0));
    cli_table_cell(&t, "design");
    if (st.window_ns != 0)
        cli_table_cell(&t, "%s, window %s", tdbf_design_name(st.design),
                       cli_format_duration_ns(b, sizeof b, st.window_ns));
    else
        cli_table_cell(&t, "%s, window %s lines", tdbf_design_name(st.design),
                       cli_format_count(b, sizeof b, st.window_items));
    tdbf_shape shape;
    char expiry[320];
    if (tdbf_get_shape(filter, &shape) == TDBF_OK) {
        cli_table_cell(&t, "slack");
        cli_table_cell(&t, "%s", cli_format_expiry(expiry, sizeof expiry, &shape, "lines",
                                                   "dropped", 0));
    }
    cli_table_cell(&t, "memory");
    cli_table_cell(&t, "%s", cli_format_bytes(c, sizeof c, st.memory_bytes));
    cli_table_cell(&t, "error: configured");
    cli_table_cell(&t, "%.4g", st.error_configured);
    cli_table_cell(&t, "error: planned");
    cli_table_cell(&t, "%.4g", st.error_planned);
    cli_table_cell(&t, "error: estimated now");
    cli_table_cell(&t, "%.4g", st.error_estimated);
    cli_table_cell(&t, "error: peak estimate");
    cli_table_cell(&t, "%.4g (%.3gx the target; a stop above %gx)",
                   tally->error_peak, tally->error_peak / tally->error_target,
                   CLI_OVERLOAD_FACTOR);
    cli_table_cell(&t, "filter adds (all runs)");
    cli_table_cell(&t, "%s", cli_format_count(d, sizeof d, st.items));
    fputs("tdbf dedup: statistics\n", stderr);
    cli_table_print(&t, stderr, "  ", 0);
    cli_table_free(&t);
}

/* What the run refused or adjusted, once, at the end. */
void dedup_print_summary(const dedup_args *args, const dedup_tally *tally)
{
    if (tally->lines_bad > 0)   /* passed through or dropped */
        cli_error("dedup", "%s %llu line%s with a bad time (%llu ahead of the "
                  "clock); the first: %s",
                  args->skip_bad ? "passed through, unfiltered," : "dropped",
                  (unsigned long long)tally->lines_bad,
                  tally->lines_bad == 1 ? "" : "s",
                  (unsigned long long)tally->lines_ahead, tally->first_bad);
    if (tally->lines_clamped > 0)
        cli_error("dedup", "%llu line%s had a time before an earlier line's and "
                  "%s taken at the latest time (clamped back)",
                  (unsigned long long)tally->lines_clamped,
                  tally->lines_clamped == 1 ? "" : "s",
                  tally->lines_clamped == 1 ? "was" : "were");
}
