/*
 * table.h — aligned text tables (the tdbf command-line tool).
 */
#ifndef TDBF_CLI_COMMON_TABLE_H
#define TDBF_CLI_COMMON_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "printf_attr.h"

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

#endif /* TDBF_CLI_COMMON_TABLE_H */
