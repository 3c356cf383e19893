/*
 * printf_attr.h — lets the compiler check the format strings of the CLI's
 * printf-like helpers (diagnostics, progress line, table cells).
 */
#ifndef TDBF_CLI_COMMON_PRINTF_ATTR_H
#define TDBF_CLI_COMMON_PRINTF_ATTR_H

#if defined(__GNUC__)
#define CLI_PRINTF(fmt_index, first_arg) \
    __attribute__((format(printf, fmt_index, first_arg)))
#else
#define CLI_PRINTF(fmt_index, first_arg)
#endif

#endif /* TDBF_CLI_COMMON_PRINTF_ATTR_H */
