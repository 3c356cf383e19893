/*
 * dedup_report.h — what `tdbf dedup` tells about a run on stderr
 * (dedup_report.c): the progress line, the summary of the lines it
 * refused or adjusted, and the --stats table.
 */
#ifndef TDBF_CLI_DEDUP_REPORT_H
#define TDBF_CLI_DEDUP_REPORT_H

#include <stdint.h>

#include <tdbf.h>

#include "dedup_parse.h"

/* What a run counts as it goes. */
typedef struct dedup_tally {
    uint64_t lines_in, lines_out, lines_repeat;
    uint64_t lines_bad, lines_ahead, lines_clamped;
    char     first_bad[240]; /* "file:line: why" of the first bad line */
    double   error_target;   /* the filter's configured error */
    double   error_peak;     /* largest tdbf_current_error seen */
    double   error_at_stop;  /* the estimate that stopped the run, or 0 */
    uint64_t started;        /* monotonic clock at the start, ns */
} dedup_tally;

/* The progress line: lines in and out, and the rate since the start;
 * now_ns is the monotonic clock. */
void dedup_print_progress(const dedup_tally *tally, uint64_t now_ns);

/* What the run refused or adjusted (bad times passed through or
 * dropped, times clamped back), once, at the end; nothing if none. */
void dedup_print_summary(const dedup_args *args, const dedup_tally *tally);

/* The --stats table: the counts, the time taken, and the filter's
 * design, slack, memory and error (configured, planned, estimated now,
 * peak).  Prints nothing if the filter gives no statistics. */
void dedup_print_stats(const dedup_args *args, const tdbf *filter,
                       const dedup_tally *tally);

#endif /* TDBF_CLI_DEDUP_REPORT_H */
