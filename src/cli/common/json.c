/*
 * json.c — a tiny compact JSON writer (see json.h).
 */
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
