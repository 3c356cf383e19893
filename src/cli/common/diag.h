/*
 * diag.h — exit codes, one-line diagnostics and the progress line, all on
 * stderr (the tdbf command-line tools).
 */
#ifndef TDBF_CLI_COMMON_DIAG_H
#define TDBF_CLI_COMMON_DIAG_H

#include <stdint.h>
#include <stdio.h>

/* ======================================================================
 * Lets the compiler check the format strings of the CLI's printf-
 * like helpers (diagnostics, progress line, table cells).
 * ====================================================================== */

#if defined(__GNUC__)
#define CLI_PRINTF(fmt_index, first_arg) \
    __attribute__((format(printf, fmt_index, first_arg)))
#else
#define CLI_PRINTF(fmt_index, first_arg)
#endif

/* ======================================================================
 * Exit codes and diagnostics
 * ====================================================================== */

/* One convention for every subcommand (CLI_EXIT_STATUS_TEXT says it in
 * each --help). */
enum {
    CLI_EXIT_OK     = 0,   /* success */
    CLI_EXIT_DATA   = 1,   /* bad input data (a malformed line, a corrupt or
                              mismatched state file), or the run itself
                              failed (out of memory, a check that failed) */
    CLI_EXIT_USAGE  = 2,   /* bad or conflicting options, including a
                              filter they ask for that cannot be built */
    CLI_EXIT_IO     = 3,   /* a file cannot be opened, read or written */
    CLI_EXIT_SIGNAL = 128  /* + the signal number: 130 SIGINT, 143 SIGTERM */
};

/* The paragraph every help ends with. */
#define CLI_EXIT_STATUS_TEXT \
    "Exit status: 0 success; 1 bad input data (a malformed line, a corrupt or\n" \
    "mismatched state file) or a failed run (out of memory, a failed check);\n" \
    "2 usage error (bad or conflicting options); 3 I/O error (a file cannot\n" \
    "be opened, read or written); 130 / 143 interrupted by SIGINT / SIGTERM\n" \
    "(tdbf dedup saves its --state first).\n"

/* The program the messages below name ("tdbf CMD: ..."): "tdbf" unless
 * set (cli_main sets it: the lab's program is "tdbf-lab"). */
void cli_set_program(const char *name);
const char *cli_program(void);

/* Print "tdbf CMD: message" on stderr and return CLI_EXIT_DATA. */
int cli_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* The same for a file that cannot be opened, read or written: returns
 * CLI_EXIT_IO. */
int cli_io_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Print "tdbf CMD: message" and the hint "Try 'tdbf CMD --help'." on
 * stderr and return CLI_EXIT_USAGE.  cmd NULL means the top level. */
int cli_usage_error(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* Report a library return code: "tdbf CMD: WHAT: <tdbf_strerror(code)>"
 * and return the exit code of its kind: CLI_EXIT_IO for TDBF_EIO,
 * CLI_EXIT_DATA for corrupt data and out of memory, CLI_EXIT_USAGE for
 * the rest (a design, window, error rate or size the options asked for
 * that the library refuses). */
int cli_lib_error(const char *cmd, const char *what, int code);

/* The exit code cli_lib_error uses for a library return code. */
int cli_exit_code(int code);

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

#endif /* TDBF_CLI_COMMON_DIAG_H */
