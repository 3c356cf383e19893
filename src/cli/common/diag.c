/*
 * diag.c — exit codes, one-line diagnostics and the progress line, all on
 * stderr (the tdbf command-line tools).
 */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

#include <tdbf.h>

/* ======================================================================
 * Exit codes and one-line diagnostics on stderr.
 * ====================================================================== */

/* The program every message names: tdbf, or tdbf-lab for the lab's. */
static const char *program_name = "tdbf";

void cli_set_program(const char *name)
{
    program_name = name;
}

const char *cli_program(void)
{
    return program_name;
}

static void print_prefixed(const char *cmd, const char *fmt, va_list ap)
{
    if (cmd != NULL)
        fprintf(stderr, "%s %s: ", program_name, cmd);
    else
        fprintf(stderr, "%s: ", program_name);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_prefixed(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_DATA;
}

int cli_io_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_prefixed(cmd, fmt, ap);
    va_end(ap);
    return CLI_EXIT_IO;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_prefixed(cmd, fmt, ap);
    va_end(ap);
    if (cmd != NULL)
        fprintf(stderr, "Try '%s %s --help'.\n", program_name, cmd);
    else
        fprintf(stderr, "Try '%s --help'.\n", program_name);
    return CLI_EXIT_USAGE;
}

int cli_exit_code(int code)
{
    switch (code) {
    case TDBF_OK:
        return CLI_EXIT_OK;
    case TDBF_EIO:
        return CLI_EXIT_IO;
    case TDBF_ECORRUPT:
    case TDBF_EVERSION:
    case TDBF_ENOMEM:
        return CLI_EXIT_DATA;
    default:   /* what the options asked for: design, window, error, size */
        return CLI_EXIT_USAGE;
    }
}

int cli_lib_error(const char *cmd, const char *what, int code)
{
    cli_error(cmd, "%s: %s", what, tdbf_strerror(code));
    return cli_exit_code(code);
}

/* ======================================================================
 * The progress line redrawn in place on stderr.
 * ====================================================================== */

void cli_progress(const char *command, const char *fmt, ...)
{
    char line[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\r%s %s: %s\033[K", program_name, command, line);
    fflush(stderr);
}

void cli_progress_clear(void)
{
    fputs("\r\033[K", stderr);
    fflush(stderr);
}
