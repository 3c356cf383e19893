/*
 * cmd_info.c — `tdbf info FILE`: describe a saved filter.
 *
 * Loads FILE as tdbf_load does, which checks every field and the
 * checksum (docs/format.md), so a file that `info` describes is one that
 * `tdbf dedup --state` and tdbf_load accept; a `tdbf dedup` state also
 * has the key section that follows the filter (dedup_state.h), shown as
 * the options that made it.  Prints the design, its
 * parameters and state from tdbf_get_stats: window, error rates (as
 * configured, as planned, as estimated from the current fill), k, l,
 * slices, memory, adds and the filter's clock.  The hash seed is hidden
 * unless --show-seed: with it, anyone can craft keys that collide.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "dedup_state.h"
#include "filter_sizing.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <tdbf.h>

enum {
    OPT_JSON,
    OPT_SHOW_SEED
};

static const cli_option info_options[] = {
    [OPT_JSON]      = {"json", NULL, "print one JSON object on one line"},
    [OPT_SHOW_SEED] = {"show-seed", NULL, "print the hash seed (a secret if "
                                          "the input is untrusted)"},
    {NULL, NULL, NULL}
};

typedef struct info_request {
    const char *path;
    int json;
    int show_seed;
} info_request;

/* The clock as a UTC date when it looks like one (2000 .. 2200). */
static int format_wall_clock(char *buf, size_t size, uint64_t ns)
{
    const uint64_t from = UINT64_C(946684800) * UINT64_C(1000000000);
    const uint64_t until = UINT64_C(7258118400) * UINT64_C(1000000000);
    if (ns < from || ns >= until)
        return -1;
    time_t seconds = (time_t)(ns / UINT64_C(1000000000));
    struct tm tm;
    if (gmtime_r(&seconds, &tm) == NULL)
        return -1;
    return strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) > 0 ? 0 : -1;
}

/* A --field or --time-field list as an array of numbers. */
static void json_fields(cli_json *j, const char *key, const dedup_fields *fields)
{
    cli_json_array_begin(j, key);
    for (unsigned i = 0; i < fields->count; i++)
        cli_json_u64(j, NULL, fields->index[i]);
    cli_json_array_end(j);
}

static void json_keys(cli_json *j, const dedup_state *state)
{
    if (!state->has_spec) {
        cli_json_string(j, "dedup_keys", NULL);
        return;
    }
    const dedup_keyspec *spec = &state->spec;
    cli_json_object_begin(j, "dedup_keys");
    cli_json_u64(j, "last", spec->window_items);
    cli_json_u64(j, "window_ns", spec->window_ns);
    cli_json_u64(j, "field", spec->field);
    if (spec->delimiter == DEDUP_BLANKS) {
        cli_json_string(j, "delimiter", NULL);
    } else {
        char delimiter[2] = {(char)spec->delimiter, '\0'};
        cli_json_string(j, "delimiter", delimiter);
    }
    json_fields(j, "fields", &spec->key_fields);
    cli_json_string(j, "key_regex", spec->regex);
    cli_json_bool(j, "ignore_case", spec->ignore_case);
    cli_json_u64(j, "time_field", spec->time_field);
    json_fields(j, "time_fields", &spec->time_fields);
    cli_json_string(j, "time_format", spec->time_field != 0
                    ? dedup_time_format_name((dedup_time_format)spec->time_format) : NULL);
    cli_json_string(j, "time_pattern", spec->time_pattern);
    cli_json_object_end(j);
}

/* The sections after the filter, in file order (the first
 * DEDUP_SECTIONS_LISTED; section_count counts them all). */
static void json_sections(cli_json *j, const dedup_state *state)
{
    cli_json_u64(j, "section_count", state->sections);
    cli_json_array_begin(j, "sections");
    for (unsigned i = 0; i < state->sections && i < DEDUP_SECTIONS_LISTED; i++) {
        const dedup_section_seen *seen = &state->seen[i];
        cli_json_object_begin(j, NULL);
        cli_json_string(j, "tag", seen->tag);
        cli_json_u64(j, "version", seen->version);
        cli_json_u64(j, "bytes", seen->length);
        cli_json_bool(j, "read", seen->known);
        cli_json_object_end(j);
    }
    cli_json_array_end(j);
}

static void print_json(const info_request *req, uint64_t file_bytes,
                       const tdbf_stats *st, const tdbf_shape *shape,
                       const dedup_state *state)
{
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "file", req->path);
    cli_json_u64(&j, "file_bytes", file_bytes);
    cli_json_string(&j, "design", tdbf_design_name(st->design));
    cli_json_u64(&j, "window_items", st->window_items);
    cli_json_u64(&j, "window_ns", st->window_ns);
    /* the expiry bound (tdbf_slack); null: none (bloom, fpdecay, stable) */
    if (shape->slack_items == UINT64_MAX || shape->slack_ns == UINT64_MAX) {
        cli_json_string(&j, "slack_items", NULL);
        cli_json_string(&j, "slack_ns", NULL);
    } else {
        cli_json_u64(&j, "slack_items", shape->slack_items);
        cli_json_u64(&j, "slack_ns", shape->slack_ns);
    }
    cli_json_double(&j, "error_configured", st->error_configured);
    cli_json_double(&j, "error_planned", st->error_planned);
    cli_json_double(&j, "error_estimated", st->error_estimated);
    cli_json_u64(&j, "k", st->k);
    cli_json_u64(&j, "l", st->l);
    cli_json_u64(&j, "slices", st->slices);
    cli_json_u64(&j, "slice_bits", st->slice_bits);
    cli_json_u64(&j, "generation_size", st->generation_size);
    cli_json_u64(&j, "generation_fill", st->generation_fill);
    cli_json_u64(&j, "generations", st->generations);
    cli_json_u64(&j, "memory_bytes", st->memory_bytes);
    cli_json_double(&j, "bits_per_item", st->bits_per_item);
    cli_json_u64(&j, "items", st->items);
    cli_json_u64(&j, "keys", st->keys);
    cli_json_u64(&j, "cap_hits", st->cap_hits);
    cli_json_u64(&j, "cells", st->cells);
    cli_json_u64(&j, "cell_bits", st->cell_bits);
    cli_json_u64(&j, "padding", st->padding);
    cli_json_u64(&j, "scan_per_insert", st->scan_per_insert);
    cli_json_u64(&j, "now_ns", st->now_ns);
    json_keys(&j, state);
    json_sections(&j, state);
    if (req->show_seed)
        cli_json_u64(&j, "seed", st->seed);
    else
        cli_json_string(&j, "seed", NULL);
    cli_json_object_end(&j);
    fputc('\n', stdout);
}

/* What tdbf_get_stats counts as slices: the sqf's are its bins, each a
 * fixed block of memory a key's fingerprint lives in. */
static const char *slices_name(tdbf_design design)
{
    return design == TDBF_SQF ? "bins" : "slices";
}

/* One "name  value" row; the value is a printf format. */
static void row(cli_table *t, const char *name, const char *fmt, ...)
    CLI_PRINTF(3, 4);
static void row(cli_table *t, const char *name, const char *fmt, ...)
{
    char value[CLI_TABLE_CELL];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    cli_table_cell(t, "%s", name);
    cli_table_cell(t, "%s", value);
}

static int print_text(const info_request *req, uint64_t file_bytes,
                      const tdbf_stats *st, const tdbf_shape *shape,
                      const dedup_state *state)
{
    char a[48], b[48], c[48], expiry[320];
    cli_table t;
    cli_table_init(&t, 2, "ll");
    row(&t, "file", "%s (%s bytes)", req->path,
        cli_format_count(a, sizeof a, file_bytes));
    row(&t, "design", "%s", tdbf_design_name(st->design));
    if (st->window_ns != 0)
        row(&t, "window", "%s (%s ns)",
            cli_format_duration_ns(a, sizeof a, st->window_ns),
            cli_format_count(b, sizeof b, st->window_ns));
    else
        row(&t, "window", "%s insertions",
            cli_format_count(a, sizeof a, st->window_items));
    row(&t, "slack", "%s", cli_format_slack(expiry, sizeof expiry, shape, "insertions"));
    row(&t, "error", "configured %.4g, planned %.4g, estimated now %.4g",
        st->error_configured, st->error_planned, st->error_estimated);
    if (st->k != 0)
        row(&t, "k, l", "%u, %u", st->k, st->l);
    if (st->slices != 0)
        row(&t, slices_name(st->design), "%u of %s bits", st->slices,
            cli_format_count(a, sizeof a, st->slice_bits));
    else if (st->slice_bits != 0)
        row(&t, "bits", "%s", cli_format_count(a, sizeof a, st->slice_bits));
    if (st->generation_size != 0)
        row(&t, "generation", "%s insertions; %s in the current one; %s "
            "shifts", cli_format_count(a, sizeof a, st->generation_size),
            cli_format_count(b, sizeof b, st->generation_fill),
            cli_format_count(c, sizeof c, st->generations));
    else if (st->generations != 0)
        row(&t, "shifts", "%s", cli_format_count(a, sizeof a, st->generations));
    if (st->cells != 0)
        row(&t, "timer cells", "%s of %u bits, padding %s, %s scanned per add",
            cli_format_count(a, sizeof a, st->cells), st->cell_bits,
            cli_format_count(b, sizeof b, st->padding),
            cli_format_count(c, sizeof c, st->scan_per_insert));
    row(&t, "memory", "%s (%.1f bits per window item)",
        cli_format_bytes(a, sizeof a, st->memory_bytes), st->bits_per_item);
    row(&t, "adds", "%s since the filter was made",
        cli_format_count(a, sizeof a, st->items));
    if (st->keys != 0)
        row(&t, "keys", "%s held", cli_format_count(a, sizeof a, st->keys));
    if (st->cap_hits != 0)
        row(&t, "cap hits", "%s (growth refused: FP above plan)",
            cli_format_count(a, sizeof a, st->cap_hits));
    if (format_wall_clock(b, sizeof b, st->now_ns) == 0)
        row(&t, "clock (now)", "%llu ns (%s)",
            (unsigned long long)st->now_ns, b);
    else
        row(&t, "clock (now)", "%llu ns", (unsigned long long)st->now_ns);
    if (state->has_spec) {
        char keys[CLI_TABLE_CELL];
        dedup_keyspec_describe(&state->spec, keys, sizeof keys);
        row(&t, "dedup keys", "%s", keys);
    }
    if (state->sections != 0) {
        char sections[CLI_TABLE_CELL];
        dedup_sections_describe(state, sections, sizeof sections);
        row(&t, "sections", "%s", sections);
    }
    if (req->show_seed)
        row(&t, "seed", "0x%016llx", (unsigned long long)st->seed);
    else
        row(&t, "seed", "hidden (--show-seed prints it)");
    int rc = cli_table_print(&t, stdout, "", 0);
    cli_table_free(&t);
    return rc == 0 ? CLI_EXIT_OK : cli_error("info", "out of memory");
}

static int parse_args(const cli_command *self, int argc, char **argv,
                      info_request *req)
{
    cli_parser parser;
    cli_parser_init(&parser, self->name, self->options, argc, argv);
    parser.operands = 1;
    memset(req, 0, sizeof *req);
    const char *value;
    int opt;
    while ((opt = cli_next_option(&parser, &value)) != CLI_OPT_END) {
        switch (opt) {
        case CLI_OPT_HELP:
            cli_command_help(self, stdout);
            return -1;
        case CLI_OPT_OPERAND:
            if (req->path != NULL)
                return cli_usage_error(self->name, "one FILE at a time "
                                       "(got '%s' and '%s')", req->path, value);
            req->path = value;
            break;
        case OPT_JSON:
            req->json = 1;
            break;
        case OPT_SHOW_SEED:
            req->show_seed = 1;
            break;
        default:
            return CLI_EXIT_USAGE;   /* CLI_OPT_ERROR: already reported */
        }
    }
    if (req->path == NULL)
        return cli_usage_error(self->name, "which file? (tdbf info FILE)");
    return CLI_EXIT_OK;
}

static int run_info(const cli_command *self, int argc, char **argv)
{
    info_request req;
    int status = parse_args(self, argc, argv, &req);
    if (status < 0)
        return CLI_EXIT_OK;   /* --help */
    if (status != CLI_EXIT_OK)
        return status;

    dedup_state state;
    const char *why = NULL;
    /* no cap: describing a file allocates what it holds, whatever that is */
    tdbf_load_options opts = {UINT64_MAX, NULL, 0};
    int rc = dedup_state_load(req.path, &opts, &state, &why);
    if (rc == DEDUP_STATE_IO)
        return cli_io_error(self->name, "%s: cannot read: %s", req.path, strerror(errno));
    if (rc == DEDUP_STATE_NOMEM)
        return cli_error(self->name, "%s: out of memory", req.path);
    if (rc != DEDUP_STATE_OK)
        return cli_error(self->name, "%s: not a usable tdbf file: %s", req.path, why);
    tdbf_stats st;
    tdbf_shape shape;
    rc = tdbf_get_stats(state.filter, &st);
    if (rc == TDBF_OK)
        rc = tdbf_get_shape(state.filter, &shape);
    struct stat file;
    uint64_t file_bytes = stat(req.path, &file) == 0 ? (uint64_t)file.st_size
                                                     : tdbf_saved_size(state.filter);
    status = CLI_EXIT_OK;
    if (rc != TDBF_OK)
        status = cli_lib_error(self->name, "stats", rc);
    else if (req.json)
        print_json(&req, file_bytes, &st, &shape, &state);
    else
        status = print_text(&req, file_bytes, &st, &shape, &state);
    dedup_state_free(&state);
    return status;
}

const cli_command cli_cmd_info = {
    .name = "info",
    .summary = "describe a saved filter (tdbf dedup --state, tdbf_save_file)",
    .usage = "[--json] [--show-seed] FILE",
    .details =
        "Loads FILE as tdbf_load_file does -- every field and the checksum\n"
        "are checked (docs/format.md) -- and prints the design, window, error\n"
        "rates (configured; planned for these parameters; estimated from the\n"
        "current fill), k and l, slices (sqf: bins), memory, adds and the\n"
        "filter's clock, and the slack: how far past the window a key may still\n"
        "be reported (tdbf_slack; --json slack_items, slack_ns, null when the\n"
        "design has no bound).  --error bounds how often a key never seen, or last seen\n"
        "longer ago than the window plus the slack, is reported as seen.\n"
        "A `tdbf dedup` state also shows how its keys were cut from lines,\n"
        "and every section after the filter is listed (docs/format.md).\n"
        "A file that does not load is reported with the reason (exit 1; one\n"
        "that cannot be read: exit 3).\n",
    .options = info_options,
    .run = run_info,
};
