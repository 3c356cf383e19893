/*
 * output.c — what the tdbf commands print: counts, bytes and durations for
 * people, one-line JSON, aligned text tables.
 */
#include "output.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Counts, byte sizes and durations formatted for people.
 * ====================================================================== */

char *cli_format_count(char *buf, size_t size, uint64_t value)
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)value);
    char grouped[32];
    size_t pos = 0;
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            grouped[pos++] = ',';
        grouped[pos++] = digits[i];
    }
    grouped[pos] = '\0';
    snprintf(buf, size, "%s", grouped);
    return buf;
}

char *cli_format_bytes(char *buf, size_t size, uint64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(buf, size, "%llu B", (unsigned long long)bytes);
        return buf;
    }
    double value = (double)bytes / 1024.0;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        unit++;
    }
    if (value < 9.995)
        snprintf(buf, size, "%.2f %s", value, units[unit]);
    else if (value < 99.95)
        snprintf(buf, size, "%.1f %s", value, units[unit]);
    else
        snprintf(buf, size, "%.0f %s", value, units[unit]);
    return buf;
}

char *cli_format_duration_ns(char *buf, size_t size, uint64_t ns)
{
    /* Largest unit first; `from` is where it takes over, so that 90 s
     * stays "90 s" rather than "1.5 m". */
    static const struct {
        const char *name;
        double      ns;
        double      from;
    } units[] = {
        {"h", 3600e9, 36000e9},
        {"m", 60e9, 600e9},
        {"s", 1e9, 1e9},
        {"ms", 1e6, 1e6},
        {"us", 1e3, 1e3},
        {"ns", 1.0, 0.0},
    };
    if (ns == 0) {
        snprintf(buf, size, "0 s");
        return buf;
    }
    size_t unit = 0;
    while ((double)ns < units[unit].from)
        unit++;
    double value = (double)ns / units[unit].ns;
    snprintf(buf, size, value < 999.5 ? "%.3g %s" : "%.0f %s", value,
             units[unit].name);
    return buf;
}

/* ======================================================================
 * A tiny compact JSON writer.
 * ====================================================================== */

void cli_json_init(cli_json *j, FILE *out)
{
    j->out = out;
    j->depth = 0;
    memset(j->has_items, 0, sizeof j->has_items);
}

static void json_raw_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '"':  fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if (c < 0x20)
                fprintf(out, "\\u%04x", c);
            else
                fputc(c, out);
        }
    }
    fputc('"', out);
}

/* Comma and member name before a value. */
static void json_prefix(cli_json *j, const char *key)
{
    if (j->has_items[j->depth])
        fputc(',', j->out);
    j->has_items[j->depth] = 1;
    if (key != NULL) {
        json_raw_string(j->out, key);
        fputc(':', j->out);
    }
}

static void json_open(cli_json *j, const char *key, int bracket)
{
    json_prefix(j, key);
    fputc(bracket, j->out);
    if (j->depth + 1 < CLI_JSON_MAX_DEPTH)
        j->depth++;
    j->has_items[j->depth] = 0;
}

static void json_close(cli_json *j, int bracket)
{
    fputc(bracket, j->out);
    if (j->depth > 0)
        j->depth--;
}

void cli_json_object_begin(cli_json *j, const char *key) { json_open(j, key, '{'); }
void cli_json_object_end(cli_json *j) { json_close(j, '}'); }
void cli_json_array_begin(cli_json *j, const char *key) { json_open(j, key, '['); }
void cli_json_array_end(cli_json *j) { json_close(j, ']'); }

void cli_json_u64(cli_json *j, const char *key, uint64_t value)
{
    json_prefix(j, key);
    fprintf(j->out, "%llu", (unsigned long long)value);
}

void cli_json_i64(cli_json *j, const char *key, int64_t value)
{
    json_prefix(j, key);
    fprintf(j->out, "%lld", (long long)value);
}

void cli_json_double(cli_json *j, const char *key, double value)
{
    json_prefix(j, key);
    if (isfinite(value))
        fprintf(j->out, "%.10g", value);
    else
        fputs("null", j->out);
}

void cli_json_bool(cli_json *j, const char *key, int value)
{
    json_prefix(j, key);
    fputs(value ? "true" : "false", j->out);
}

void cli_json_string(cli_json *j, const char *key, const char *value)
{
    json_prefix(j, key);
    if (value != NULL)
        json_raw_string(j->out, value);
    else
        fputs("null", j->out);
}

/* ======================================================================
 * Aligned text tables.
 * ====================================================================== */

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
