/*
 * report.h — how the lab's commands (eval, bench, demo) report: one table
 * printer, one progress line ("[step/steps] what", common/diag.h's
 * line), and the confidence interval of a measured rate.
 */
#ifndef TDBF_CLI_LAB_REPORT_H
#define TDBF_CLI_LAB_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../common/diag.h"
#include "../common/output.h"

/* Print `t` on stdout, indented by two spaces, with a rule under its
 * first row if `header_rule`, and free it.  Returns CLI_EXIT_OK, or
 * reports "tdbf CMD: out of memory" and returns CLI_EXIT_DATA. */
int lab_print_table(cli_table *t, const char *cmd, int header_rule);

/* Write `t` to `out` as a Markdown table (its first row the header,
 * columns aligned as printed).  Returns 0, or -1 if an allocation had
 * failed (nothing written). */
int lab_table_markdown(const cli_table *t, FILE *out);

/* Draw "tdbf CMD: [step/steps] text" over the progress line when `on`
 * (stderr is a terminal and not --quiet); erase it with lab_progress_end. */
void lab_progress(int on, const char *cmd, size_t step, size_t steps,
                  const char *fmt, ...) CLI_PRINTF(5, 6);
void lab_progress_end(int on);

/* The Wilson score interval at 95 % of a rate of x in n (n = 0: 0 .. 1). */
void lab_wilson95(uint64_t x, uint64_t n, double *low, double *high);

#endif /* TDBF_CLI_LAB_REPORT_H */
