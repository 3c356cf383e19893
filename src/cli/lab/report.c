/*
 * report.c — the lab's tables, progress line and intervals (see report.h).
 */
#include "report.h"
#include "../common/diag.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

int lab_print_table(cli_table *t, const char *cmd, int header_rule)
{
    int rc = cli_table_print(t, stdout, "  ", header_rule);
    cli_table_free(t);
    return rc == 0 ? CLI_EXIT_OK : cli_error(cmd, "out of memory");
}

int lab_table_markdown(const cli_table *t, FILE *out)
{
    if (t->failed)
        return -1;
    for (size_t r = 0; r < t->rows; r++) {
        for (size_t c = 0; c < t->cols; c++)
            fprintf(out, "| %s ", t->cells[r * t->cols + c]);
        fputs("|\n", out);
        if (r == 0) {
            for (size_t c = 0; c < t->cols; c++)
                fputs(t->align[c] == 'l' ? "|:---" : "|---:", out);
            fputs("|\n", out);
        }
    }
    return 0;
}

void lab_progress(int on, const char *cmd, size_t step, size_t steps,
                  const char *fmt, ...)
{
    if (!on)
        return;
    char line[128];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    cli_progress(cmd, "[%zu/%zu] %s", step, steps, line);
}

void lab_progress_end(int on)
{
    if (on)
        cli_progress_clear();
}

void lab_wilson95(uint64_t x, uint64_t n, double *low, double *high)
{
    if (n == 0) {
        *low = 0.0;
        *high = 1.0;
        return;
    }
    const double z = 1.959964;
    double p = (double)x / (double)n;
    double nn = (double)n;
    double denom = 1.0 + z * z / nn;
    double centre = (p + z * z / (2.0 * nn)) / denom;
    double half = z * sqrt(p * (1.0 - p) / nn + z * z / (4.0 * nn * nn)) / denom;
    *low = centre - half > 0.0 ? centre - half : 0.0;
    *high = centre + half < 1.0 ? centre + half : 1.0;
}
