/*
 * json.h — a tiny compact JSON writer (the tdbf command-line tool).
 */
#ifndef TDBF_CLI_COMMON_JSON_H
#define TDBF_CLI_COMMON_JSON_H

#include <stdint.h>
#include <stdio.h>

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

#endif /* TDBF_CLI_COMMON_JSON_H */
