/*
 * progress.c — the progress line redrawn in place on stderr (see progress.h).
 */
#include "progress.h"

#include <stdarg.h>
#include <stdio.h>

void cli_progress(const char *command, const char *fmt, ...)
{
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\rtdbf %s: %s\033[K", command, line);
    fflush(stderr);
}

void cli_progress_clear(void)
{
    fputs("\r\033[K", stderr);
    fflush(stderr);
}
