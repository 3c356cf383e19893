/*
 * output.h — what the tdbf commands print: counts, bytes and durations for
 * people, one-line JSON, aligned text tables.
 */
#ifndef TDBF_CLI_COMMON_OUTPUT_H
#define TDBF_CLI_COMMON_OUTPUT_H

#include "diag.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* ======================================================================
 * JSON writer: compact output, one value per call, commas handled.
 * Doubles are printed with %.10g; NaN and infinities become null.
 * ====================================================================== */

#define CLI_JSON_MAX_DEPTH 16

typedef struct cli_json {
    FILE    *out;
    int      depth;
    unsigned char has_items[CLI_JSON_MAX_DEPTH];  /* a comma is needed */
} cli_json;

void cli_json_init(cli_json *j, FILE *out);
/* key is the member name inside an object, NULL inside an array or at the
 * top level. */
void cli_json_object_begin(cli_json *j, const char *key);
void cli_json_object_end(cli_json *j);
void cli_json_array_begin(cli_json *j, const char *key);
void cli_json_array_end(cli_json *j);
void cli_json_u64(cli_json *j, const char *key, uint64_t value);
void cli_json_i64(cli_json *j, const char *key, int64_t value);
void cli_json_double(cli_json *j, const char *key, double value);
void cli_json_bool(cli_json *j, const char *key, int value);
void cli_json_string(cli_json *j, const char *key, const char *value);

/* ======================================================================
 * Tables: collect cells, then print with each column padded to its widest
 * cell.  Columns are right-aligned unless their align letter is 'l'.
 * ====================================================================== */

#define CLI_TABLE_MAX_COLS 16
#define CLI_TABLE_CELL     96

typedef struct cli_table {
    size_t  cols;
    char    align[CLI_TABLE_MAX_COLS];
    size_t  rows;            /* rows stored, header included */
    size_t  capacity;        /* rows allocated */
    size_t  filled;          /* cells filled in the last row */
    char  (*cells)[CLI_TABLE_CELL];
    int     failed;          /* an allocation failed: print refuses */
} cli_table;

/* Set up a table with `cols` columns (at most CLI_TABLE_MAX_COLS); align
 * is a string of 'l'/'r', one per column (NULL: all right-aligned but the
 * first). */
void cli_table_init(cli_table *t, size_t cols, const char *align);
/* Append one cell (printf format) to the current row; a new row starts
 * once the previous one has `cols` cells.  Long cells are truncated. */
void cli_table_cell(cli_table *t, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Print every row, each prefixed by `indent`, columns separated by two
 * spaces; a dashed rule follows the first row if `header_rule`.
 * Returns 0, or -1 if an allocation had failed (nothing printed). */
int cli_table_print(const cli_table *t, FILE *out, const char *indent,
                    int header_rule);
void cli_table_free(cli_table *t);

#endif /* TDBF_CLI_COMMON_OUTPUT_H */
