/*
 * plan_sqf.c — `tdbf plan --design sqf`: the sliding quotient filter, the
 * count design of least memory, next to apbf-line, the fastest (what
 * tdbf dedup builds by default); apbf-line's plan shows the same pair.
 *
 * Everything shown is the library's own sizing (tdbf_plan_shape, the one
 * tdbf_open runs): k = 1, l = 7 generations of g = ceil(W / 7) adds, the
 * window 7 g, the bytes and the model's worst-case FP (at the end of a
 * generation).  The bin size is not in the shape: the planner takes the
 * bins of least memory, 64 bytes on a tie, so it is the size whose forced
 * plan (cfg.unit_bits) takes the same bytes.
 */
#include "plan.h"

/* The sqf tdbf_open builds for a count window; unit_bits 0 = the
 * planner's bin size. */
static int sqf_shape_at(uint64_t window, double error, unsigned unit_bits, tdbf_shape *out)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_SQF;
    cfg.window_items = window;
    cfg.error = error;
    cfg.unit_bits = unit_bits;
    cfg.max_memory = UINT64_MAX;    /* show the plan whatever its size */
    return tdbf_plan_shape(&cfg, out);
}

int plan_sqf(uint64_t window, double error, unsigned unit_bits, sqf_plan_view *out)
{
    int rc = sqf_shape_at(window, error, unit_bits, &out->shape);
    if (rc != TDBF_OK)
        return rc;
    out->bin_bits = unit_bits;
    if (unit_bits == 0) {
        tdbf_shape small;
        int small_bins = sqf_shape_at(window, error, 512, &small) == TDBF_OK &&
                         small.memory_bytes == out->shape.memory_bytes;
        out->bin_bits = small_bins ? 512 : 1024;
    }
    out->generation = out->shape.window_items / out->shape.l;
    out->bits_per_item = 8.0 * (double)out->shape.memory_bytes / (double)window;
    return TDBF_OK;
}

void json_sqf_fields(cli_json *j, const sqf_plan_view *p)
{
    cli_json_u64(j, "unit_bits", p->bin_bits);
    cli_json_u64(j, "g", p->generation);
    cli_json_u64(j, "window", p->shape.window_items);
    cli_json_u64(j, "bytes", p->shape.memory_bytes);
    cli_json_double(j, "bits_per_item", p->bits_per_item);
    cli_json_double(j, "fp", p->shape.error_planned);
}

static void print_sqf_json(const plan_request *req, const sqf_plan_view *p)
{
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "design", "sqf");
    json_built(&j, p->shape.k, p->shape.l, p->shape.window_items, 0);
    plan_json_bound(&j, req);
    cli_json_u64(&j, "k", p->shape.k);
    cli_json_u64(&j, "l", p->shape.l);
    json_sqf_fields(&j, p);
    cli_json_double(&j, "target_error", req->error);
    cli_json_object_end(&j);
    fputc('\n', stdout);
}

static void print_sqf_row(const char *what, const sqf_plan_view *p)
{
    char memory[32];
    cli_format_bytes(memory, sizeof memory, p->shape.memory_bytes);
    printf("  %-14s %5u %12llu %10s %9.2f %10.4g\n", what, p->bin_bits / 8,
           (unsigned long long)p->generation, memory, p->bits_per_item,
           p->shape.error_planned);
}

/* A time window: the first core tdbf_open builds for the capacity, its
 * memory at the planned rate, and tlbf-line's beside it. */
static tdbf_config time_config(const plan_request *req, tdbf_design design,
                               unsigned unit_bits)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = design;
    cfg.window_ns = req->window_ns;
    cfg.capacity = req->capacity ? req->capacity : 1024;
    cfg.error = req->error;
    cfg.unit_bits = unit_bits;
    cfg.max_memory = UINT64_MAX;
    return cfg;
}

int plan_sqf_time(const plan_request *req, unsigned unit_bits, tdbf_shape *out)
{
    tdbf_config cfg = time_config(req, TDBF_SQF, unit_bits);
    return tdbf_plan_shape(&cfg, out);
}

static double bits_per_key(const tdbf_shape *s, uint64_t keys)
{
    return 8.0 * (double)s->memory_bytes / (double)keys;
}

static int run_sqf_time_plan(const cli_command *self, const plan_request *req)
{
    char window[32], what[96], span[32], slack[32], memory[32], capacity[32];
    cli_format_duration_ns(window, sizeof window, req->window_ns);
    snprintf(what, sizeof what, "sqf, window %s, error %g", window, req->error);
    tdbf_config line_cfg = time_config(req, TDBF_TLBF_LINE, 0);
    tdbf_shape shape, line;
    int rc = plan_sqf_time(req, req->block_bits, &shape);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    int have_line = tdbf_plan_shape(&line_cfg, &line) == TDBF_OK;
    uint64_t keys = line_cfg.capacity;   /* the capacity both were planned for */
    uint64_t span_ns = req->window_ns / shape.l + (req->window_ns % shape.l != 0);
    if (req->json) {
        cli_json j;
        cli_json_init(&j, stdout);
        json_time_plan_head(&j, req, "sqf", shape.k, shape.l, keys, span_ns);
        cli_json_u64(&j, "bytes", shape.memory_bytes);
        cli_json_double(&j, "bits_per_item", bits_per_key(&shape, keys));
        cli_json_double(&j, "fp", shape.error_planned);
        cli_json_double(&j, "target_error", req->error);
        cli_json_object_end(&j);
        fputc('\n', stdout);
        return CLI_EXIT_OK;
    }
    cli_format_duration_ns(span, sizeof span, span_ns);
    cli_format_duration_ns(slack, sizeof slack, shape.slack_ns);
    cli_format_bytes(memory, sizeof memory, shape.memory_bytes);
    cli_format_count(capacity, sizeof capacity, keys);
    printf("SQF (sliding quotient filter over a time window: cores of fingerprints with\n"
           "age tags) for a window of %s, %s keys per window, target error %g\n\n",
           window, capacity, req->error);
    printf("  generation        %s (window / 7)\n"
           "  memory            %s at the planned rate, one core (%.2f bits/item)\n",
           span, memory, bits_per_key(&shape, keys));
    if (have_line)
        printf("  tlbf-line         %.2f bits/item at the same rate (sqf/tlbf-line %.2f)\n",
               bits_per_key(&line, keys),
               (double)shape.memory_bytes / (double)line.memory_bytes);
    printf("  fp                %.4g (the first core's model, at the end of a generation)\n"
           "  fn in window      0 (a key may answer for up to 8 generations: %s past it)\n\n"
           "Faster streams open cores 4x larger and read the older ones until they age\n"
           "out; slower ones hand over to smaller cores: memory follows the rate.  The\n"
           "first core is planned for 0.8 of --error, a burst's cores share the rest.\n",
           shape.error_planned, slack);
    plan_print_bound(req);
    return CLI_EXIT_OK;
}

/* What tdbf_open builds, the other bin size, and apbf-line beside them. */
int run_sqf_plan(const cli_command *self, const plan_request *req)
{
    if (req->window_ns != 0)
        return run_sqf_time_plan(self, req);
    char what[96];
    snprintf(what, sizeof what, "sqf, window %llu, error %g",
             (unsigned long long)req->window, req->error);
    sqf_plan_view chosen, other;
    int rc = plan_sqf(req->window, req->error, req->block_bits, &chosen);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    if (req->json) {
        print_sqf_json(req, &chosen);
        return CLI_EXIT_OK;
    }
    unsigned other_bits = chosen.bin_bits == 1024 ? 512 : 1024;
    int have_other = plan_sqf(req->window, req->error, other_bits, &other) == TDBF_OK;
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_APBF_LINE;
    cfg.window_items = req->window;
    cfg.error = req->error;
    tdbf_line_plan line;
    int have_line = tdbf_plan_apbf_line(&cfg, &line) == TDBF_OK;

    printf("SQF (sliding quotient filter: fingerprints with age tags, one bin of memory\n"
           "per key) for a window of %llu insertions, target error %g\n\n",
           (unsigned long long)req->window, req->error);
    printf("  %-14s %5s %12s %10s %9s %10s\n", "plan", "bin", "g", "memory", "bits/item",
           "fp");
    print_sqf_row("built", &chosen);
    if (have_other)
        print_sqf_row(other.bin_bits == 1024 ? "128-byte bins" : "64-byte bins", &other);
    if (have_line) {
        char memory[32];
        printf("  %-14s %5u %12llu %10s %9.2f %10.4g\n", "apbf-line", line.unit_bits / 8,
               (unsigned long long)line.generation,
               cli_format_bytes(memory, sizeof memory, line.bytes), line.bits_per_item,
               line.fp);
    }
    printf("\nbin: bytes a key's fingerprint lives in (one read per query; a bin that\n"
           "overflows moves its oldest entries to a spare, so no key inside the window\n"
           "is lost).  g: adds per generation; a key stays 7 generations (the window,\n"
           "7 g) and its age tag expires it one generation later at most.\n"
           "fp: the model's worst case, at the end of a generation.\n"
           "sqf takes the least memory of the count designs; apbf-line, what tdbf dedup\n"
           "builds without --design, is the fastest.\n");
    plan_print_bound(req);
    return CLI_EXIT_OK;
}
