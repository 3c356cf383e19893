/*
 * progress.h — the progress line redrawn in place on stderr (the tdbf command-line tool).
 */
#ifndef TDBF_CLI_COMMON_PROGRESS_H
#define TDBF_CLI_COMMON_PROGRESS_H

#include <stdint.h>

#include "printf_attr.h"

/* ======================================================================
 * Progress line: one line on stderr, redrawn in place ("\r", then
 * clear to the end of the line), for commands that run for a while.
 * Callers draw it only when stderr is a terminal and not --quiet.
 * ====================================================================== */

/* How often a command redraws its line, at most. */
#define CLI_PROGRESS_PERIOD_NS UINT64_C(500000000)

/* Draw "tdbf COMMAND: " and the formatted text over the current line. */
void cli_progress(const char *command, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Erase the line (before the command prints its results). */
void cli_progress_clear(void);

#endif /* TDBF_CLI_COMMON_PROGRESS_H */
