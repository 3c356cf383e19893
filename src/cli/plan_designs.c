/*
 * plan_designs.c — `tdbf plan` for the designs other than the APBF (see
 * cmd_plan.c): those that forget at random, the clock and rotating
 * filters, the blocked APBF, the line-local APBF and its time-window
 * rings, and the TLBF.
 */
#define _POSIX_C_SOURCE 200809L /* isatty */
#include "plan.h"
#include "filter_sizing.h"

#include <unistd.h>

#include <tdbf_model.h>

/* ---- what every plan ends with ----------------------------------------- */

void plan_request_config(const plan_request *req, tdbf_config *cfg)
{
    tdbf_config_init(cfg);
    cfg->design = req->design;
    if (req->error > 0.0)
        cfg->error = req->error;
    cfg->window_items = req->window;
    cfg->window_ns = req->window_ns;
    cfg->capacity = req->capacity;
    cfg->survival = req->survival;
    cfg->k = req->k;
    cfg->l = req->l;
    /* --block-bits names the line designs' unit and sqf's bin too
     * (cfg.unit_bits) */
    if (req->design == TDBF_APBF_LINE || req->design == TDBF_TLBF_LINE ||
        req->design == TDBF_SQF)
        cfg->unit_bits = req->block_bits;
    else
        cfg->block_bits = req->block_bits;
    cfg->max_memory = UINT64_MAX;     /* show the plan whatever its size */
}

static int dedup_default(const plan_request *req)
{
    return req->design == cli_default_design(req->window_ns != 0);
}

/* The shape tdbf_open would build; 0, or -1 when it is refused (the
 * plan above it has said why already). */
static int request_shape(const plan_request *req, tdbf_shape *shape)
{
    tdbf_config cfg;
    plan_request_config(req, &cfg);
    return tdbf_plan_shape(&cfg, shape) == TDBF_OK ? 0 : -1;
}

/* The time designs that keep their FP only up to a capacity hint: a
 * burst beyond it fills them (CLOCK: fixed cells), or grows them only up
 * to a cap (ROTATING filters, TLBF slices: cfg.max_slices); their FP then
 * climbs, up to 1 (tdbf_current_error).  NULL for the others. */
static const char *burst_limit(const plan_request *req)
{
    if (req->window_ns == 0)
        return NULL;
    switch (req->design) {
    case TDBF_CLOCK:
        return "its memory is fixed: past that its FP rises above the\nerror, up to 1";
    case TDBF_ROTATING:
        return "a burst beyond it adds filters, up to a cap (cfg.max_slices):\n"
               "past that its FP rises above the error, up to 1";
    case TDBF_TLBF:
        return "it adds slices as the rate grows, but a rate jump takes\n"
               "its FP over the error (1.1-1.65x in tdbf eval burst), and past a\n"
               "cap of slices (cfg.max_slices) it rises up to 1";
    default:
        return NULL;
    }
}

void plan_print_bound(const plan_request *req)
{
    tdbf_shape shape;
    char expiry[320], capacity[32];
    if (request_shape(req, &shape) != 0)
        return;
    printf("\n");
    if (dedup_default(req))
        printf("This is what tdbf dedup builds for a %s when no --design is given.\n",
               req->window_ns ? "time window (--window T)" : "count window (--last N)");
    int bounded = shape.slack_items != UINT64_MAX && shape.slack_ns != UINT64_MAX;
    printf("%s.\n%s", cli_format_expiry(expiry, sizeof expiry, &shape, "lines", "dropped", 1),
           bounded ? cli_error_bound_text
                   : "--error E bounds how often a key never seen is reported as seen; a key\n"
                     "seen before may be reported at any age, less often the older.\n");
    const char *limit = burst_limit(req);
    if (limit != NULL)
        printf("Sized for %s keys per window; %s.\ntdbf dedup stops (exit 1, state "
               "saved) once its estimate passes %g x %g,\nand says to raise --capacity "
               "or use tlbf-line, whose rings keep within the error.\n",
               cli_format_count(capacity, sizeof capacity, req->capacity ? req->capacity : 1024),
               limit, CLI_OVERLOAD_FACTOR, req->error);
}

void plan_json_bound(cli_json *j, const plan_request *req)
{
    tdbf_shape shape;
    cli_json_bool(j, "dedup_default", dedup_default(req));
    if (request_shape(req, &shape) != 0) {
        cli_json_string(j, "expiry", NULL);
        return;
    }
    cli_json_object_begin(j, "expiry");
    cli_json_u64(j, "window_items", shape.window_items);
    cli_json_u64(j, "window_ns", shape.window_ns);
    if (shape.slack_items == UINT64_MAX || shape.slack_ns == UINT64_MAX) {
        cli_json_string(j, "slack_items", NULL);
        cli_json_string(j, "slack_ns", NULL);
    } else {
        cli_json_u64(j, "slack_items", shape.slack_items);
        cli_json_u64(j, "slack_ns", shape.slack_ns);
    }
    cli_json_object_end(j);
}

void json_built(cli_json *j, unsigned k, unsigned l, uint64_t window_items,
                uint64_t window_ns)
{
    cli_json_object_begin(j, "built");
    cli_json_u64(j, "k", k);
    cli_json_u64(j, "l", l);
    cli_json_u64(j, "window_items", window_items);
    cli_json_u64(j, "window_ns", window_ns);
    cli_json_object_end(j);
}

void json_time_plan_head(cli_json *j, const plan_request *req, const char *design,
                         unsigned k, unsigned l, uint64_t capacity, uint64_t span_ns)
{
    cli_json_object_begin(j, NULL);
    cli_json_string(j, "design", design);
    json_built(j, k, l, 0, req->window_ns);
    plan_json_bound(j, req);
    cli_json_u64(j, "window_ns", req->window_ns);
    cli_json_u64(j, "capacity", capacity);
    cli_json_u64(j, "generation_ns", span_ns);
    cli_json_u64(j, "k", k);
    cli_json_u64(j, "l", l);
}

/* ---- designs that forget at random ----------------------------------- */

int run_decay_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    tdbf_decay_plan plan;
    char what[96], cells[32], memory[32], window[32];
    int fpdecay = req->design == TDBF_FPDECAY;

    plan_request_config(req, &cfg);
    int rc = tdbf_plan_decay(&cfg, &plan);
    snprintf(what, sizeof what, "%s, window %llu, error %g",
             tdbf_design_name(req->design), (unsigned long long)req->window,
             req->error);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    /* forgetting halfway through the window, to show the curve's shape */
    double fn_half = fpdecay
        ? 1.0 - tdbf_fpdecay_survival(plan.cells, plan.k, plan.cell_bits, plan.window / 2)
        : tdbf_stable_forget(plan.cells, plan.k, plan.cell_bits, plan.decrements,
                             plan.window / 2);

    if (req->json) {
        cli_json j;
        cli_json_init(&j, stdout);
        cli_json_object_begin(&j, NULL);
        cli_json_string(&j, "design", tdbf_design_name(plan.design));
        json_built(&j, plan.k, 0, plan.window, 0);
        plan_json_bound(&j, req);
        cli_json_u64(&j, "cells", plan.cells);
        cli_json_u64(&j, "k", plan.k);
        cli_json_u64(&j, "cell_bits", plan.cell_bits);
        cli_json_u64(&j, "decrements", plan.decrements);
        cli_json_u64(&j, "window", plan.window);
        cli_json_u64(&j, "bytes", plan.bytes);
        cli_json_double(&j, "bits_per_item", plan.bits_per_item);
        cli_json_double(&j, "fp", plan.fp);
        cli_json_double(&j, "fn_window", 1.0 - plan.survival);
        cli_json_double(&j, "fn_half_window", fn_half);
        cli_json_double(&j, "survival_target", plan.survival_target);
        cli_json_double(&j, "target_error", req->error);
        cli_json_object_end(&j);
        fputc('\n', stdout);
        return CLI_EXIT_OK;
    }
    cli_format_count(window, sizeof window, plan.window);
    cli_format_count(cells, sizeof cells, plan.cells);
    cli_format_bytes(memory, sizeof memory, plan.bytes);
    printf("%s plan for a window of %s insertions:\ntarget error %g, "
           "survival %g at the window's edge (least memory meeting both)\n\n",
           fpdecay ? "FPDECAY (fingerprint decay array, paper 003)"
                   : "STABLE (Stable Bloom filter, Deng & Rafiei 2006)",
           window, req->error, plan.survival_target);
    if (fpdecay)
        printf("  cells s           %s in %u segments\n"
               "  fingerprint b     %u bits\n"
               "  positions n       %u cells per key\n",
               cells, plan.k, plan.cell_bits, plan.k);
    else
        printf("  cells m           %s in %u segments\n"
               "  bits per cell d   %u (Max = %u)\n"
               "  positions K       %u cells per key\n"
               "  decrements P      %llu cells per insertion\n",
               cells, plan.k, plan.cell_bits, (1u << plan.cell_bits) - 1,
               plan.k, (unsigned long long)plan.decrements);
    printf("  memory            %s (%.2f bits/item)\n"
           "  fp                %.4g (%s)\n"
           "  fn at age N       %.4g\n"
           "  fn at age N/2     %.4g\n\n"
           "It forgets at random: a key added t insertions ago is missed with "
           "a probability\nthat grows with t (tdbf.h section 12); there is no "
           "hard window.\n",
           memory, plan.bits_per_item, plan.fp,
           fpdecay ? "every cell filled" : "at the stable point",
           1.0 - plan.survival, fn_half);
    plan_print_bound(req);
    return CLI_EXIT_OK;
}

/* ---- clock and rotating: hard windows, no false negatives ----------- */

int run_design_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    tdbf_clock_rotating_plan plan;
    char what[96], window[32], cells[32], memory[32];
    int clock = req->design == TDBF_CLOCK;

    plan_request_config(req, &cfg);
    int rc = tdbf_plan_clock_rotating(&cfg, &plan);
    if (req->window_ns)
        snprintf(window, sizeof window, "%s",
                 cli_format_duration_ns(what, sizeof what, req->window_ns));
    else
        cli_format_count(window, sizeof window, req->window);
    snprintf(what, sizeof what, "%s, window %s, error %g",
             tdbf_design_name(req->design), window, req->error);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);

    if (req->json) {
        cli_json j;
        cli_json_init(&j, stdout);
        cli_json_object_begin(&j, NULL);
        cli_json_string(&j, "design", tdbf_design_name(plan.design));
        json_built(&j, plan.k, 0, req->window_ns ? 0 : plan.capacity, req->window_ns);
        plan_json_bound(&j, req);
        cli_json_u64(&j, "cells", plan.cells);
        cli_json_u64(&j, "k", plan.k);
        cli_json_u64(&j, "cell_bits", plan.cell_bits);
        cli_json_u64(&j, "filters", plan.filters);
        cli_json_u64(&j, "resolution", plan.resolution);
        cli_json_u64(&j, "window", req->window);
        cli_json_u64(&j, "window_ns", req->window_ns);
        cli_json_u64(&j, "capacity", plan.capacity);
        cli_json_u64(&j, "bits", plan.bits);
        cli_json_u64(&j, "bytes", plan.memory_bytes);
        cli_json_double(&j, "bits_per_item", plan.bits_per_item);
        cli_json_double(&j, "fp", plan.fp);
        cli_json_double(&j, "fn_window", 0.0);
        cli_json_double(&j, "target_error", req->error);
        cli_json_object_end(&j);
        fputc('\n', stdout);
        return CLI_EXIT_OK;
    }
    cli_format_bytes(memory, sizeof memory, plan.memory_bytes);
    cli_format_count(cells, sizeof cells, plan.cells);
    printf("%s plan for a window of %s%s:\ntarget error %g "
           "(worst case, least memory)\n\n",
           clock ? "CLOCK (continuous clock-cell filter, paper 000)"
                 : "ROTATING (ring of Bloom filters, paper 000)",
           window, req->window_ns ? "" : " insertions", req->error);
    if (req->window_ns) {
        char capacity[32];
        printf("  keys per window   %s (planned rate; above it FP rises)\n",
               cli_format_count(capacity, sizeof capacity, plan.capacity));
    }
    if (clock)
        printf("  cells m           %s of %u bits\n"
               "  resolution d      %u ticks per window\n"
               "  positions k       %u cells per key\n",
               cells, plan.cell_bits, plan.resolution, plan.k);
    else
        printf("  sub-filters       %u (N = %u per window, plus one)\n"
               "  bits per filter   %s\n"
               "  positions k       %u bits per key\n",
               plan.filters, plan.resolution, cells, plan.k);
    printf("  memory            %s (%.2f bits/item)\n"
           "  fp                %.4g (worst case)\n"
           "  fn in window      0 (keys expire after the window, never "
           "inside it)\n",
           memory, plan.bits_per_item, plan.fp);
    plan_print_bound(req);
    return CLI_EXIT_OK;
}

/* ---- blocked APBF ------------------------------------------------------ */

static void json_blocked_fields(cli_json *j, const tdbf_plan_blocked *p)
{
    cli_json_u64(j, "k", p->k);
    cli_json_u64(j, "l", p->l);
    cli_json_u64(j, "block_bits", p->block_bits);
    cli_json_u64(j, "block_hashes", p->block_hashes);
    cli_json_u64(j, "blocks", p->blocks);
    cli_json_u64(j, "g", p->g);
    cli_json_u64(j, "window", p->window);
    cli_json_u64(j, "bits", p->bits);
    cli_json_double(j, "bits_per_item", p->bits_per_item);
    cli_json_double(j, "fp", p->fp);
}

/* The top level is the built plan; "built_plan" repeats it and
 * "least_memory" gives tdbf_plan_apbbf's. */
static void print_blocked_json(const plan_request *req, const tdbf_plan_blocked *p,
                               const tdbf_plan_blocked *least)
{
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "design", "apbbf");
    json_built(&j, p->k, p->l, p->window, 0);
    plan_json_bound(&j, req);
    cli_json_object_begin(&j, "built_plan");
    json_blocked_fields(&j, p);
    cli_json_object_end(&j);
    cli_json_object_begin(&j, "least_memory");
    json_blocked_fields(&j, least);
    cli_json_object_end(&j);
    json_blocked_fields(&j, p);
    cli_json_u64(&j, "slack", p->slack);
    cli_json_double(&j, "accesses_false", p->accesses_false);
    cli_json_double(&j, "accesses_window", p->accesses_window);
    cli_json_double(&j, "npws", p->npws);
    cli_json_double(&j, "target_error", req->error);
    cli_json_object_end(&j);
    fputc('\n', stdout);
}

static void print_blocked_row(const char *what, const tdbf_plan_blocked *p)
{
    char memory[32];
    cli_format_bytes(memory, sizeof memory, (p->bits + 7) / 8);
    printf("  %-13s %3u %3u %5u %3u %12llu %10s %9.2f %10.4g %7.2f %7.2f\n",
           what, p->k, p->l, p->block_bits, p->block_hashes,
           (unsigned long long)p->g, memory, p->bits_per_item, p->fp,
           p->accesses_false, p->accesses_window);
}

/* What tdbf_open builds (the fewest block reads within 5 % of the least
 * memory, tdbf_plan_apbbf_fast) next to the least-memory plan. */
int run_blocked_plan(const cli_command *self, const plan_request *req)
{
    tdbf_plan_blocked chosen, least;
    char what[96];
    unsigned block_bits = req->block_bits ? req->block_bits : 512;
    snprintf(what, sizeof what, "apbbf B=%u, window %llu, error %g", block_bits,
             (unsigned long long)req->window, req->error);
    int progress = !req->json && isatty(STDERR_FILENO);
    if (progress)
        fprintf(stderr, "%s: planning (a second or two for small windows)...\r",
                self->name);
    int rc = tdbf_plan_apbbf_fast(req->window, req->error, block_bits,
                                  TDBF_DEFAULT_PLAN_TOLERANCE, &chosen);
    if (rc == TDBF_OK)
        rc = tdbf_plan_apbbf(req->window, req->error, block_bits, &least);
    if (progress)
        fprintf(stderr, "%*s\r", 60, "");
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    if (req->json) {
        print_blocked_json(req, &chosen, &least);
        return CLI_EXIT_OK;
    }
    printf("APBBF (blocked APBF, paper 004 section 6) for a window of %llu "
           "insertions,\ntarget error %g, blocks of %u bits\n\n",
           (unsigned long long)req->window, req->error, block_bits);
    printf("  %-13s %3s %3s %5s %3s %12s %10s %9s %10s %7s %7s\n", "plan", "k",
           "l", "B", "b", "g", "memory", "bits/item", "fp", "rd neg", "rd win");
    print_blocked_row("built", &chosen);
    print_blocked_row("least memory", &least);
    printf("\nbuilt: what tdbf_open builds for apbbf (tdbf dedup --design apbbf too), the\n"
           "fewest block reads per negative query within 5 %% of the least memory.  fp:\n"
           "worst case, just before a shift.  rd neg / rd win: expected blocks read by\n"
           "a query for an absent key / a key inside the window (paper Table 3).\n");
    plan_print_bound(req);
    return CLI_EXIT_OK;
}

/* ---- line-local APBF ---------------------------------------------------- */

/* "least_memory": the sqf beside it (null when no sqf meets the error). */
static void print_line_json(const plan_request *req, const tdbf_line_plan *p,
                            const sqf_plan_view *least)
{
    cli_json j;
    cli_json_init(&j, stdout);
    cli_json_object_begin(&j, NULL);
    cli_json_string(&j, "design", "apbf-line");
    json_built(&j, p->k, p->l, p->window, 0);
    plan_json_bound(&j, req);
    cli_json_u64(&j, "k", p->k);
    cli_json_u64(&j, "l", p->l);
    cli_json_u64(&j, "b", p->b);
    cli_json_u64(&j, "unit_bits", p->unit_bits);
    cli_json_u64(&j, "fields", p->fields);
    cli_json_u64(&j, "field_bits", p->field_bits);
    cli_json_u64(&j, "units", p->units);
    cli_json_u64(&j, "g", p->generation);
    cli_json_u64(&j, "window", p->window);
    cli_json_u64(&j, "bytes", p->bytes);
    cli_json_double(&j, "bits_per_item", p->bits_per_item);
    cli_json_double(&j, "fp", p->fp);
    cli_json_double(&j, "target_error", req->error);
    if (least != NULL) {
        cli_json_object_begin(&j, "least_memory");
        cli_json_string(&j, "design", "sqf");
        json_sqf_fields(&j, least);
        cli_json_object_end(&j);
    } else {
        cli_json_string(&j, "least_memory", NULL);
    }
    cli_json_object_end(&j);
    fputc('\n', stdout);
}

static void print_line_row(const char *what, const tdbf_line_plan *p)
{
    char memory[32];
    cli_format_bytes(memory, sizeof memory, p->bytes);
    printf("  %-14s %3u %3u %2u %5u %3u %12llu %10s %9.2f %10.4g\n", what, p->k, p->l, p->b,
           p->unit_bits / 8, p->field_bits, (unsigned long long)p->generation, memory,
           p->bits_per_item, p->fp);
}

/* What tdbf_open builds, both unit sizes, the least-memory APBF and the
 * sqf, the count design of least memory. */
int run_line_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_APBF_LINE;
    cfg.window_items = req->window;
    cfg.error = req->error;
    cfg.unit_bits = req->block_bits;
    char what[96];
    snprintf(what, sizeof what, "apbf-line, window %llu, error %g",
             (unsigned long long)req->window, req->error);
    tdbf_line_plan chosen, other;
    int rc = tdbf_plan_apbf_line(&cfg, &chosen);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    sqf_plan_view sqf;
    int have_sqf = plan_sqf(req->window, req->error, 0, &sqf) == TDBF_OK;
    if (req->json) {
        print_line_json(req, &chosen, have_sqf ? &sqf : NULL);
        return CLI_EXIT_OK;
    }
    cfg.unit_bits = chosen.unit_bits == 1024 ? 512 : 1024;
    int have_other = tdbf_plan_apbf_line(&cfg, &other) == TDBF_OK;
    tdbf_plan apbf;
    int have_apbf = tdbf_plan_apbf(req->window, req->error, &apbf, NULL, 0, NULL) == TDBF_OK;
    printf("APBF-LINE (line-local APBF: one unit of memory per key) for a window of %llu\n"
           "insertions, target error %g\n\n", (unsigned long long)req->window, req->error);
    printf("  %-14s %3s %3s %2s %5s %3s %12s %10s %9s %10s\n", "plan", "k", "l", "b", "unit",
           "W", "g", "memory", "bits/item", "fp");
    print_line_row("built", &chosen);
    if (have_other)
        print_line_row(other.unit_bits == 1024 ? "128-byte unit" : "64-byte unit", &other);
    if (have_apbf)
        printf("  %-14s %3u %3u %39s %9.2f %10.4g\n", "apbf (least)", apbf.k, apbf.l, "",
               apbf.bits_per_item, apbf.fp);
    if (have_sqf) {
        char memory[32];
        printf("  %-14s %3u %3u %2s %5u %3s %12llu %10s %9.2f %10.4g\n", "sqf", sqf.shape.k,
               sqf.shape.l, "", sqf.bin_bits / 8, "", (unsigned long long)sqf.generation,
               cli_format_bytes(memory, sizeof memory, sqf.shape.memory_bytes),
               sqf.bits_per_item, sqf.shape.error_planned);
    }
    printf("\nunit: bytes a key's fields live in (one read per query); W: bits per field, "
           "of\nk + l fields a unit (each unit empties its oldest field on its own turn, a\n"
           "unit or so per insert: no pause; the library's concurrent mode plans k + l +\n"
           "1 fields, one a spare).\n"
           "b: bits a key sets per field.  fp: the model's, the same at every moment\n"
           "(units' loads shared by neighbouring fields included; with a spare, just\n"
           "before a shift).\n"
           "apbf-line is the fastest count design; sqf (--design sqf: fingerprints with\n"
           "age tags, one bin per key) takes the least memory.\n");
    plan_print_bound(req);
    return CLI_EXIT_OK;
}

/* ---- line-local rings over a time window ----------------------------- */

/* The ring tdbf_open starts a tlbf-line filter with (apbf-line's plan for
 * a count window of the capacity, with the spare field concurrent mode
 * plans too: rings shift all at once), and what the time window makes of
 * it. */
int run_tlbf_line_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_TLBF_LINE;
    cfg.window_ns = req->window_ns;
    cfg.capacity = req->capacity ? req->capacity : 1024;
    cfg.error = req->error;
    cfg.unit_bits = req->block_bits;
    char window[32], what[96], span[32], slack[32], memory[32], capacity[32];
    cli_format_duration_ns(window, sizeof window, req->window_ns);
    snprintf(what, sizeof what, "tlbf-line, window %s, error %g", window, req->error);
    tdbf_line_plan ring;   /* its first ring, as tdbf_open sizes it */
    int rc = tdbf_plan_tlbf_line(&cfg, &ring);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    tdbf_shape sqf;   /* the least-memory time design, beside it */
    int have_sqf = plan_sqf_time(req, 0, &sqf) == TDBF_OK;
    double sqf_bits = have_sqf ? 8.0 * (double)sqf.memory_bytes / (double)cfg.capacity : 0.0;
    uint64_t span_ns = req->window_ns / ring.l + (req->window_ns % ring.l != 0);
    uint64_t slack_ns = span_ns > UINT64_MAX / (ring.k + ring.l) ? UINT64_MAX
                                                                 : span_ns * (ring.k + ring.l);
    if (req->json) {
        cli_json j;
        cli_json_init(&j, stdout);
        json_time_plan_head(&j, req, "tlbf-line", ring.k, ring.l, cfg.capacity, span_ns);
        cli_json_u64(&j, "b", ring.b);
        cli_json_u64(&j, "unit_bits", ring.unit_bits);
        cli_json_u64(&j, "field_bits", ring.field_bits);
        cli_json_u64(&j, "units", ring.units);
        cli_json_u64(&j, "g", ring.generation);
        cli_json_u64(&j, "bytes", ring.bytes);
        cli_json_double(&j, "bits_per_item", ring.bits_per_item);
        cli_json_double(&j, "fp", ring.fp);
        cli_json_double(&j, "target_error", req->error);
        if (have_sqf) {
            cli_json_object_begin(&j, "least_memory");
            cli_json_string(&j, "design", "sqf");
            cli_json_u64(&j, "bytes", sqf.memory_bytes);
            cli_json_double(&j, "bits_per_item", sqf_bits);
            cli_json_double(&j, "fp", sqf.error_planned);
            cli_json_object_end(&j);
        } else {
            cli_json_string(&j, "least_memory", NULL);
        }
        cli_json_object_end(&j);
        fputc('\n', stdout);
        return CLI_EXIT_OK;
    }
    cli_format_duration_ns(span, sizeof span, span_ns);
    cli_format_duration_ns(slack, sizeof slack, slack_ns);
    cli_format_bytes(memory, sizeof memory, ring.bytes);
    cli_format_count(capacity, sizeof capacity, cfg.capacity);
    printf("TLBF-LINE (line-local APBF rings over a time window) for a window of %s,\n"
           "%s keys per window, target error %g\n\n", window, capacity, req->error);
    printf("  %-14s %3s %3s %2s %5s %3s %12s %10s %9s %10s\n", "ring", "k", "l", "b", "unit",
           "W", "g", "memory", "bits/item", "fp");
    print_line_row("at capacity", &ring);
    if (have_sqf)
        printf("  %-14s %3u %3u %2s %5s %3s %12s %10s %9.2f %10.4g\n", "sqf", sqf.k, sqf.l, "",
               "", "", "", cli_format_bytes(memory, sizeof memory, sqf.memory_bytes), sqf_bits,
               sqf.error_planned);
    printf("\n  generation        %s (window / l)\n"
           "  memory            %s at the planned rate, one ring (%.2f bits/item)\n"
           "  fn in window      0 (a key may answer for up to (k+l) generations: %s)\n\n"
           "Faster streams open larger rings (2x to 4x a step) and read the older\n"
           "ones until they age out; slower ones hand over to smaller rings: memory\n"
           "follows the rate, a query reads one unit per live ring.  A burst inside\n"
           "one generation first fills a new ring by shifting it on count (up to l\n"
           "times: the capacity's worth of keys at once takes the planned ring).\n"
           "All live rings share --error: this ring is planned under it, a burst's\n"
           "rings for what the live ones leave, so a query's FP stays within it.\n"
           "fp: the ring's model at its planned load, just before a shift.\n"
           "tlbf-line is the fastest time design; sqf (--design sqf: cores of\n"
           "fingerprints with age tags) takes the least memory.\n",
           span, memory, ring.bits_per_item, slack);
    plan_print_bound(req);
    return CLI_EXIT_OK;
}

/* ---- TLBF ---------------------------------------------------------------- */

/* The (k, l) tdbf_open plans for the rate (tdbf_plan_shape), and the
 * slices of that pair for the planned keys per window (tdbf_plan_eval). */
int run_tlbf_plan(const cli_command *self, const plan_request *req)
{
    tdbf_config cfg;
    plan_request_config(req, &cfg);
    char window[32], what[96], span[32], memory[32], capacity[32];
    cli_format_duration_ns(window, sizeof window, req->window_ns);
    snprintf(what, sizeof what, "tlbf, window %s, error %g", window, req->error);
    tdbf_shape shape;
    int rc = tdbf_plan_shape(&cfg, &shape);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    uint64_t keys = req->capacity ? req->capacity : 1024;
    tdbf_plan slices;
    rc = tdbf_plan_eval(shape.k, shape.l, keys, &slices);
    if (rc != TDBF_OK)
        return cli_lib_error(self->name, what, rc);
    uint64_t span_ns = req->window_ns / shape.l ? req->window_ns / shape.l : 1;
    if (req->json) {
        cli_json j;
        cli_json_init(&j, stdout);
        cli_json_object_begin(&j, NULL);
        cli_json_string(&j, "design", "tlbf");
        json_built(&j, shape.k, shape.l, 0, req->window_ns);
        plan_json_bound(&j, req);
        cli_json_u64(&j, "capacity", keys);
        cli_json_u64(&j, "generation_ns", span_ns);
        cli_json_u64(&j, "slice_bits", slices.m);
        cli_json_u64(&j, "bytes", (slices.bits + 7) / 8);
        cli_json_double(&j, "bits_per_item", slices.bits_per_item);
        cli_json_double(&j, "fp", shape.error_planned);
        cli_json_double(&j, "target_error", req->error);
        cli_json_object_end(&j);
        fputc('\n', stdout);
        return CLI_EXIT_OK;
    }
    cli_format_duration_ns(span, sizeof span, span_ns);
    cli_format_bytes(memory, sizeof memory, (slices.bits + 7) / 8);
    cli_format_count(capacity, sizeof capacity, keys);
    printf("TLBF (time-limited Bloom filter) for a window of %s, %s keys per window,\n"
           "target error %g: what tdbf_open builds for tlbf (tdbf dedup --design tlbf)\n\n"
           "  k, l              %u, %u (least memory)\n"
           "  generation        %s of time (window / l)\n"
           "  slices            %u of %s bits at the planned rate\n"
           "  memory            %s at the planned rate (%.2f bits/item)\n"
           "  fp                %.4g (worst case, just before a shift)\n\n"
           "Slices are sized as keys arrive, from the rate seen: memory follows the\n"
           "rate, and a burst adds slices (up to a cap) rather than forgetting keys.\n"
           "%s",
           window, capacity, req->error, shape.k, shape.l, span, shape.k + shape.l,
           cli_format_count(what, sizeof what, slices.m), memory, slices.bits_per_item,
           shape.error_planned,
           req->capacity ? "The capacity given is believed: a burst of up to that many keys at once\n"
                           "takes about the memory of a steady load.\n"
                         : "");
    plan_print_bound(req);
    return CLI_EXIT_OK;
}
