/*
 * table.c — aligned text tables (see table.h).
 */
#include "table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void cli_table_init(cli_table *t, size_t cols, const char *align)
{
    memset(t, 0, sizeof *t);
    if (cols > CLI_TABLE_MAX_COLS)
        cols = CLI_TABLE_MAX_COLS;
    t->cols = cols;
    for (size_t c = 0; c < cols; c++) {
        if (align != NULL && c < strlen(align))
            t->align[c] = align[c];
        else
            t->align[c] = c == 0 ? 'l' : 'r';
    }
}

void cli_table_cell(cli_table *t, const char *fmt, ...)
{
    if (t->failed || t->cols == 0)
        return;
    if (t->rows == 0 || t->filled == t->cols) {
        if (t->rows == t->capacity) {
            size_t capacity = t->capacity == 0 ? 16 : 2 * t->capacity;
            void *grown = realloc(t->cells, capacity * t->cols * CLI_TABLE_CELL);
            if (grown == NULL) {
                t->failed = 1;
                return;
            }
            t->cells = grown;
            t->capacity = capacity;
        }
        t->rows++;
        t->filled = 0;
        for (size_t c = 0; c < t->cols; c++)
            t->cells[(t->rows - 1) * t->cols + c][0] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->cells[(t->rows - 1) * t->cols + t->filled], CLI_TABLE_CELL,
              fmt, ap);
    va_end(ap);
    t->filled++;
}

int cli_table_print(const cli_table *t, FILE *out, const char *indent,
                    int header_rule)
{
    if (t->failed)
        return -1;
    size_t width[CLI_TABLE_MAX_COLS] = {0};
    for (size_t r = 0; r < t->rows; r++)
        for (size_t c = 0; c < t->cols; c++) {
            size_t w = strlen(t->cells[r * t->cols + c]);
            if (w > width[c])
                width[c] = w;
        }
    size_t total = 0;
    for (size_t c = 0; c < t->cols; c++)
        total += width[c] + (c > 0 ? 2 : 0);

    /* Each line is built in memory so that trailing blanks (empty or
     * left-aligned last cells) can be dropped. */
    size_t line_size = strlen(indent) + total + 1;
    char *line = malloc(line_size);
    if (line == NULL)
        return -1;
    for (size_t r = 0; r < t->rows; r++) {
        size_t len = (size_t)snprintf(line, line_size, "%s", indent);
        for (size_t c = 0; c < t->cols; c++) {
            const char *cell = t->cells[r * t->cols + c];
            len += (size_t)snprintf(line + len, line_size - len,
                                    t->align[c] == 'l' ? "%s%-*s" : "%s%*s",
                                    c > 0 ? "  " : "", (int)width[c], cell);
        }
        while (len > 0 && line[len - 1] == ' ')
            line[--len] = '\0';
        fprintf(out, "%s\n", line);
        if (r == 0 && header_rule) {
            fputs(indent, out);
            for (size_t i = 0; i < total; i++)
                fputc('-', out);
            fputc('\n', out);
        }
    }
    free(line);
    return 0;
}

void cli_table_free(cli_table *t)
{
    free(t->cells);
    t->cells = NULL;
    t->rows = t->capacity = t->filled = 0;
}
