/*
 * diag.c — exit codes and one-line diagnostics on stderr (see diag.h).
 */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

#include <tdbf.h>

static void print_prefixed(const char *cmd, const char *fmt, va_list ap)
{
    if (cmd != NULL)
        fprintf(stderr, "tdbf %s: ", cmd);
    else
        fputs("tdbf: ", stderr);
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
        fprintf(stderr, "Try 'tdbf %s --help'.\n", cmd);
    else
        fputs("Try 'tdbf --help'.\n", stderr);
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
