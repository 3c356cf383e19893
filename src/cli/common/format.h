/*
 * format.h — counts, byte sizes and durations formatted for people (the tdbf command-line tool).
 */
#ifndef TDBF_CLI_COMMON_FORMAT_H
#define TDBF_CLI_COMMON_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* ======================================================================
 * Formatting
 * ====================================================================== */

/* "3,000,000".  Returns buf. */
char *cli_format_count(char *buf, size_t size, uint64_t value);

/* "1.71 MiB", "512 B".  Returns buf. */
char *cli_format_bytes(char *buf, size_t size, uint64_t bytes);

/* A duration in the units cli_parse_duration_ns reads, three significant
 * digits: "750 ns", "1.33 s", "60 s", "25 m" (minutes from 10 m on, hours
 * from 10 h on).  Returns buf. */
char *cli_format_duration_ns(char *buf, size_t size, uint64_t ns);

#endif /* TDBF_CLI_COMMON_FORMAT_H */
