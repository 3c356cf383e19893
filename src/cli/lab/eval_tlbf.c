/*
 * eval_tlbf.c — `tdbf eval` experiments of paper 001 (TLBF), each on a
 * simulated clock (distinct keys, evenly spaced unless a burst puts many
 * at one timestamp), T = 60 s:
 *   tlbf-slices  Figures 1-2: slices and slice-0 size over time, under-
 *                and over-dimensioned initial capacity;
 *   tlbf-bits    Figure 3 and Table 2: bits per element over time and at
 *                steady state for errors 0.1 .. 0.00001, with measured FP;
 *   tlbf-fp      Figures 4-5: FP over time on fresh keys;
 *   tlbf-faults  the reference implementation's failure cases (bursts at
 *                one timestamp, rate x10 up and down, idle gaps): slices,
 *                memory and FP stay bounded, no false negatives against
 *                the exact record of the keys of the last T.
 */
#define _POSIX_C_SOURCE 200809L

#include "eval.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tdbf.h>

#define TLBF_WINDOW_S   60u

/* One filter of an experiment: k = l = 0 lets the planner choose. */
typedef struct tlbf_shape {
    double   error;
    uint64_t capacity;
    unsigned k, l;
} tlbf_shape;

static int tlbf_open_shape(const tlbf_shape *sh, uint64_t seed, tdbf **f)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_TLBF;
    cfg.error = sh->error;
    cfg.window_ns = TLBF_WINDOW_S * EVAL_NS;
    cfg.capacity = sh->capacity;
    cfg.k = sh->k;
    cfg.l = sh->l;
    cfg.seed = seed;
    return tdbf_open(f, &cfg);
}

/* Advance to the end of simulated second s and read the stats. */
static int tlbf_second_end(tdbf *f, unsigned s, tdbf_stats *st)
{
    int rc = tdbf_advance(f, (uint64_t)s * EVAL_NS);
    return rc != TDBF_OK ? rc : tdbf_get_stats(f, st);
}

/* Keys a steady stream of `rate` per second has in the window after s s. */
static uint64_t tlbf_steady_keys(unsigned s, uint64_t rate)
{
    return (uint64_t)(s < TLBF_WINDOW_S ? s : TLBF_WINDOW_S) * rate;
}

static double tlbf_bits_per_key(const tdbf_stats *st, uint64_t keys)
{
    return keys ? (double)st->memory_bytes * 8.0 / (double)keys : 0.0;
}

static int tlbf_fail(const char *cmd, cli_table *t, int progress,
                     const char *what, int rc)
{
    lab_progress_end(progress);
    cli_table_free(t);
    return cli_lib_error(cmd, what, rc);
}

/* ---- tlbf-slices: paper 001 Figures 1-2 ------------------------------ */

#define SLICES_RATE 100u

/* The planner's (k, l) and a small pair of paper 004 Table 2 (error 0.01),
 * each under- (capacity 100, 60x too small) and over-dimensioned (100000,
 * 17x too large) for 100 keys/s. */
static const tlbf_shape slices_shapes[] = {
    {0.01, 100, 0, 0},
    {0.01, 100000, 0, 0},
    {0.01, 100, 7, 5},
    {0.01, 100000, 7, 5},
};

#define SLICES_SHAPES (sizeof slices_shapes / sizeof slices_shapes[0])

typedef struct slices_result {
    tdbf_stats last;
    unsigned   peak;        /* most slices */
    unsigned   settled_s;   /* first second from which slices stay k+l */
} slices_result;

static int slices_run(const tlbf_shape *sh, unsigned seconds, uint64_t seed,
                      eval_csv *csv, cli_table *t, slices_result *r)
{
    tdbf *f;
    int rc = tlbf_open_shape(sh, seed, &f);
    if (rc != TDBF_OK)
        return rc;
    uint64_t next = 0;
    memset(r, 0, sizeof *r);
    for (unsigned s = 1; s <= seconds && rc == TDBF_OK; s++) {
        rc = eval_add_keys(f, &next, SLICES_RATE, (uint64_t)(s - 1) * EVAL_NS,
                           EVAL_NS, NULL);
        tdbf_stats *st = &r->last;
        if (rc == TDBF_OK)
            rc = tlbf_second_end(f, s, st);
        if (rc != TDBF_OK)
            break;
        double bpk = tlbf_bits_per_key(st, tlbf_steady_keys(s, SLICES_RATE));
        if (st->slices > r->peak)
            r->peak = st->slices;
        if (st->slices != st->k + st->l)
            r->settled_s = 0;
        else if (r->settled_s == 0)
            r->settled_s = s;
        csv_line(csv, "%u,%u,%llu,%u,%u,%llu,%.10g,%.10g", st->k, st->l,
                 (unsigned long long)sh->capacity, s, st->slices,
                 (unsigned long long)st->slice_bits, bpk, st->error_estimated);
        if (s % 30 == 0 || s <= 3) {
            cli_table_cell(t, "%u,%u", st->k, st->l);
            cli_table_cell(t, "%llu", (unsigned long long)sh->capacity);
            cli_table_cell(t, "%u", s);
            cli_table_cell(t, "%u", st->slices);
            cli_table_cell(t, "%llu", (unsigned long long)st->slice_bits);
            cli_table_cell(t, "%.1f", bpk);
            cli_table_cell(t, "%.6f", st->error_estimated);
        }
    }
    tdbf_close(f);
    return rc;
}

static int run_tlbf_slices(const char *cmd, const eval_request *req,
                           eval_csv *csv)
{
    unsigned seconds = req->quick ? 90u : 300u;
    cli_table t;
    cli_table_init(&t, 7, "lrrrrrr");
    static const char *const headers[] = {
        "k,l", "capacity", "t (s)", "slices", "slice0 bits", "bits/item", "fp_est"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "k,l,capacity,t_s,slices,slice0_bits,bits_per_item,fp_estimated");

    slices_result r[SLICES_SHAPES];
    for (size_t i = 0; i < SLICES_SHAPES; i++) {
        int rc = slices_run(&slices_shapes[i], seconds, req->seed, csv, &t, &r[i]);
        if (rc != TDBF_OK) {
            char what[48];
            snprintf(what, sizeof what, "capacity %llu",
                     (unsigned long long)slices_shapes[i].capacity);
            return tlbf_fail(cmd, &t, 0, what, rc);
        }
    }

    printf("TLBF slices over time, paper 001 Figures 1-2: T = %u s, error "
           "0.01, %u distinct keys/s\n(simulated clock), %u s, under- "
           "(capacity 100) and over-dimensioned (capacity 100000),\nthe "
           "planner's (k, l) and (7, 5)%s.\n"
           "Table: seconds 1-3 and every 30 s; the CSV has every second.\n\n",
           TLBF_WINDOW_S, SLICES_RATE, seconds,
           req->quick ? " -- QUICK RUN (--quick)" : "");
    if (lab_print_table(&t, cmd, 1) != 0)
        return CLI_EXIT_DATA;
    printf("\nslice0 bits = stats.slice_bits; bits/item = memory bits over "
           "the keys in the window;\nfp_est = stats.error_estimated.  At the "
           "end:\n");
    for (size_t i = 0; i < SLICES_SHAPES; i++)
        printf("  (k,l) = (%u,%u), capacity %llu: %u slices (peak %u, k+l = %u "
               "from %u s on), fp_est %.6f\n", r[i].last.k, r[i].last.l,
               (unsigned long long)slices_shapes[i].capacity, r[i].last.slices,
               r[i].peak, r[i].last.k + r[i].last.l, r[i].settled_s,
               r[i].last.error_estimated);
    return CLI_EXIT_OK;
}

const eval_experiment eval_tlbf_slices = {
    "tlbf-slices", "TLBF: paper 001 Figures 1-2 (slices, slice-0 size over time)", run_tlbf_slices
};

/* ---- tlbf-bits: paper 001 Figure 3 and Table 2 ------------------------ */

/* Paper 001 Table 2: bits per element, min and max, per error rate. */
typedef struct bits_row {
    double error;
    double paper_min, paper_max;
} bits_row;

static const bits_row bits_rows[] = {
    {1e-1, 10, 13},
    {1e-2, 19, 24},
    {1e-3, 26, 35},
    {1e-4, 32, 45},
    {1e-5, 41, 56},
};

#define BITS_ROWS (sizeof bits_rows / sizeof bits_rows[0])

typedef struct bits_sizes {
    unsigned rate;        /* keys per simulated second */
    unsigned seconds;
    double   probes;      /* fresh keys per second = probes / error */
} bits_sizes;

/* Steady state: the last window of the run. */
typedef struct bits_result {
    unsigned k, l;
    double   bpk_min, bpk_max, bpk_sum;
    unsigned samples;
    uint64_t yes, probes;
} bits_result;

static int bits_run(const tlbf_shape *sh, const bits_sizes *z, uint64_t seed,
                    eval_csv *csv, bits_result *r)
{
    tdbf *f;
    int rc = tlbf_open_shape(sh, seed, &f);
    if (rc != TDBF_OK)
        return rc;
    uint64_t next = 0, next_probe = 0;
    uint64_t probes = (uint64_t)ceil(z->probes / sh->error);
    memset(r, 0, sizeof *r);
    for (unsigned s = 1; s <= z->seconds && rc == TDBF_OK; s++) {
        rc = eval_add_keys(f, &next, z->rate, (uint64_t)(s - 1) * EVAL_NS,
                           EVAL_NS, NULL);
        tdbf_stats st;
        if (rc == TDBF_OK)
            rc = tlbf_second_end(f, s, &st);
        if (rc != TDBF_OK)
            break;
        int steady = s > z->seconds - TLBF_WINDOW_S;
        double fp = 0.0;
        if (steady)
            rc = eval_probe_fp(f, probes, &next_probe, (uint64_t)s * EVAL_NS, &fp);
        double bpk = tlbf_bits_per_key(&st, tlbf_steady_keys(s, z->rate));
        csv_line(csv, "%g,%llu,%u,%u,%u,%u,%.10g,%.10g,%.10g,%llu", sh->error,
                 (unsigned long long)sh->capacity, st.k, st.l, s, st.slices, bpk,
                 st.error_estimated, fp, (unsigned long long)(steady ? probes : 0));
        if (!steady)
            continue;
        r->k = st.k;
        r->l = st.l;
        if (r->samples == 0 || bpk < r->bpk_min)
            r->bpk_min = bpk;
        if (bpk > r->bpk_max)
            r->bpk_max = bpk;
        r->bpk_sum += bpk;
        r->samples++;
        r->yes += (uint64_t)llround(fp * (double)probes);
        r->probes += probes;
    }
    tdbf_close(f);
    return rc;
}

static void bits_table_row(cli_table *t, const bits_row *row, uint64_t capacity,
                           const bits_result *r)
{
    double fp = r->probes ? (double)r->yes / (double)r->probes : 0.0;
    cli_table_cell(t, "%g", row->error);
    cli_table_cell(t, "%llu", (unsigned long long)capacity);
    cli_table_cell(t, "%u,%u", r->k, r->l);
    cli_table_cell(t, "%.1f", r->bpk_min);
    cli_table_cell(t, "%.1f", r->bpk_sum / r->samples);
    cli_table_cell(t, "%.1f", r->bpk_max);
    cli_table_cell(t, "%g-%g", row->paper_min, row->paper_max);
    cli_table_cell(t, "%.3g", fp);
    cli_table_cell(t, "%.2f", fp / row->error);
}

static int run_tlbf_bits(const char *cmd, const eval_request *req, eval_csv *csv)
{
    bits_sizes z = req->quick ? (bits_sizes){1000, 150, 0.2}
                              : (bits_sizes){10000, 240, 5.0};
    /* 60x under and 17x over the keys of a window, as tlbf-slices */
    const uint64_t capacities[] = {z.rate, 1000u * (uint64_t)z.rate};
    cli_table t;
    cli_table_init(&t, 9, "rrlrrrrrr");
    static const char *const headers[] = {
        "error", "capacity", "k,l", "bits min", "bits mean", "bits max",
        "paper:bits", "fp measured", "fp/error"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "error,capacity,k,l,t_s,slices,bits_per_key,fp_estimated,"
             "fp_measured,probes");

    int progress = isatty(STDERR_FILENO);
    size_t step = 0;
    for (size_t i = 0; i < BITS_ROWS; i++)
        for (size_t c = 0; c < 2; c++) {
            tlbf_shape sh = {bits_rows[i].error, capacities[c], 0, 0};
            bits_result r;
            lab_progress(progress, "eval", ++step, 2 * BITS_ROWS, "error %g, capacity %llu",
                          sh.error, (unsigned long long)sh.capacity);
            int rc = bits_run(&sh, &z, req->seed, csv, &r);
            if (rc != TDBF_OK) {
                char what[48];
                snprintf(what, sizeof what, "error %g", sh.error);
                return tlbf_fail(cmd, &t, progress, what, rc);
            }
            bits_table_row(&t, &bits_rows[i], sh.capacity, &r);
        }
    lab_progress_end(progress);

    printf("TLBF bits per element, paper 001 Figure 3 and Table 2: T = %u s, "
           "%u distinct keys/s\n(simulated clock, %llu keys per window), %u s, "
           "initial capacity %llu (under) and %llu\n(over), the planner's (k, l)"
           "%s.  Steady state = the last %u s: bits per element\n(all memory over "
           "the keys of the last T) min/mean/max, and FP on %g/error fresh keys "
           "a second.\n\n", TLBF_WINDOW_S, z.rate,
           (unsigned long long)TLBF_WINDOW_S * z.rate, z.seconds,
           (unsigned long long)capacities[0], (unsigned long long)capacities[1],
           req->quick ? " -- QUICK RUN (--quick)" : "", TLBF_WINDOW_S, z.probes);
    if (lab_print_table(&t, cmd, 1) != 0)
        return CLI_EXIT_DATA;
    printf("\npaper:bits = the min-max range printed in paper 001 Table 2.  "
           "The CSV has every second\n(fp_measured, probes: 0 before the "
           "steady window).\n");
    return CLI_EXIT_OK;
}

const eval_experiment eval_tlbf_bits = {
    "tlbf-bits", "TLBF: paper 001 Figure 3 and Table 2 (bits per element)", run_tlbf_bits
};

/* ---- tlbf-fp: paper 001 Figures 4-5 ---------------------------------- */

#define FP_RATE 100u

static const double fp_errors[] = {1e-1, 1e-2, 1e-3};
static const uint64_t fp_capacities[] = {100, 100000};   /* under, over */

#define FP_ERRORS     (sizeof fp_errors / sizeof fp_errors[0])
#define FP_CAPACITIES (sizeof fp_capacities / sizeof fp_capacities[0])

typedef struct fp_result {
    unsigned k, l;
    double   sum, max;       /* measured, after 2T */
    double   estimated_sum;
    unsigned samples;
} fp_result;

static int fp_run(const tlbf_shape *sh, unsigned seconds, double probe_scale,
                  uint64_t seed, eval_csv *csv, cli_table *t, fp_result *r)
{
    tdbf *f;
    int rc = tlbf_open_shape(sh, seed, &f);
    if (rc != TDBF_OK)
        return rc;
    uint64_t next = 0, next_probe = 0;
    uint64_t probes = (uint64_t)ceil(probe_scale / sh->error);
    memset(r, 0, sizeof *r);
    for (unsigned s = 1; s <= seconds && rc == TDBF_OK; s++) {
        rc = eval_add_keys(f, &next, FP_RATE, (uint64_t)(s - 1) * EVAL_NS,
                           EVAL_NS, NULL);
        tdbf_stats st;
        double fp = 0.0;
        if (rc == TDBF_OK)
            rc = tlbf_second_end(f, s, &st);
        if (rc == TDBF_OK)
            rc = eval_probe_fp(f, probes, &next_probe, (uint64_t)s * EVAL_NS, &fp);
        if (rc != TDBF_OK)
            break;
        csv_line(csv, "%g,%llu,%u,%u,%u,%u,%.10g,%.10g,%llu", sh->error,
                 (unsigned long long)sh->capacity, st.k, st.l, s, st.slices, fp,
                 st.error_estimated, (unsigned long long)probes);
        r->k = st.k;
        r->l = st.l;
        if (s > 2 * TLBF_WINDOW_S) {
            r->sum += fp;
            r->estimated_sum += st.error_estimated;
            r->samples++;
            if (fp > r->max)
                r->max = fp;
        }
        if (s % 30 == 0) {
            cli_table_cell(t, "%g", sh->error);
            cli_table_cell(t, "%llu", (unsigned long long)sh->capacity);
            cli_table_cell(t, "%u,%u", st.k, st.l);
            cli_table_cell(t, "%u", s);
            cli_table_cell(t, "%u", st.slices);
            cli_table_cell(t, "%.5f", fp);
            cli_table_cell(t, "%.5f", st.error_estimated);
        }
    }
    tdbf_close(f);
    return rc;
}

static int run_tlbf_fp(const char *cmd, const eval_request *req, eval_csv *csv)
{
    unsigned seconds = req->quick ? 150u : 300u;
    double probe_scale = req->quick ? 5.0 : 100.0;
    cli_table t;
    cli_table_init(&t, 7, "rrlrrrr");
    static const char *const headers[] = {
        "error", "capacity", "k,l", "t (s)", "slices", "fp measured", "fp_est"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "error,capacity,k,l,t_s,slices,fp_measured,fp_estimated,probes");

    fp_result r[FP_ERRORS][FP_CAPACITIES];
    int progress = isatty(STDERR_FILENO);
    size_t step = 0;
    for (size_t i = 0; i < FP_ERRORS; i++)
        for (size_t c = 0; c < FP_CAPACITIES; c++) {
            tlbf_shape sh = {fp_errors[i], fp_capacities[c], 0, 0};
            lab_progress(progress, "eval", ++step, FP_ERRORS * FP_CAPACITIES,
                          "error %g, capacity %llu", sh.error,
                          (unsigned long long)sh.capacity);
            int rc = fp_run(&sh, seconds, probe_scale, req->seed, csv, &t, &r[i][c]);
            if (rc != TDBF_OK) {
                char what[48];
                snprintf(what, sizeof what, "error %g", sh.error);
                return tlbf_fail(cmd, &t, progress, what, rc);
            }
        }
    lab_progress_end(progress);

    printf("TLBF false positives over time, paper 001 Figures 4 (under-) and 5 "
           "(over-dimensioned):\nT = %u s, %u distinct keys/s (simulated clock), "
           "%u s, the planner's (k, l); each second\n%g/error fresh never-added "
           "keys are queried%s.  Table: every 30 s; the CSV has every second.\n\n",
           TLBF_WINDOW_S, FP_RATE, seconds, probe_scale,
           req->quick ? " -- QUICK RUN (--quick)" : "");
    if (lab_print_table(&t, cmd, 1) != 0)
        return CLI_EXIT_DATA;
    printf("\nAfter 2T (steady state), measured FP mean / max sample / mean "
           "fp_est, against the target:\n");
    for (size_t i = 0; i < FP_ERRORS; i++)
        for (size_t c = 0; c < FP_CAPACITIES; c++) {
            const fp_result *x = &r[i][c];
            printf("  error %g, capacity %llu, (k,l) = (%u,%u): %.5f / %.5f / "
                   "%.5f (mean/error %.2f)\n", fp_errors[i],
                   (unsigned long long)fp_capacities[c], x->k, x->l,
                   x->sum / x->samples, x->max, x->estimated_sum / x->samples,
                   x->sum / x->samples / fp_errors[i]);
        }
    return CLI_EXIT_OK;
}

const eval_experiment eval_tlbf_fp = {
    "tlbf-fp", "TLBF: paper 001 Figures 4-5 (measured FP over time)", run_tlbf_fp
};

/* ---- tlbf-faults: the reference module's failure cases --------------- */

#define FAULT_RATE    100u
#define FAULT_SECONDS 360u
#define FAULT_ERROR   0.01

/* From the previous phase's end to `until_s`: `rate` keys a second, evenly
 * spaced, or all of each second at its start (`batched`); `burst` keys at
 * one timestamp when the phase begins. */
typedef struct fault_phase {
    unsigned until_s;
    unsigned rate;
    int      batched;
    unsigned burst;
} fault_phase;

typedef struct fault_scenario {
    const char *name;
    const char *what;
    fault_phase phases[3];
} fault_scenario;

static const fault_scenario fault_scenarios[] = {
    {"steady", "100 keys/s throughout (reference point)",
     {{FAULT_SECONDS, FAULT_RATE, 0, 0}}},
    {"burst", "20000 keys at one timestamp at t = 120 s",
     {{120, FAULT_RATE, 0, 0}, {FAULT_SECONDS, FAULT_RATE, 0, 20000}}},
    {"batches", "1000 keys at t = 0, then each second's 100 at one timestamp",
     {{FAULT_SECONDS, FAULT_RATE, 1, 1000}}},
    {"rate_x10", "100/s, 1000/s from 120 s, 100/s from 240 s",
     {{120, FAULT_RATE, 0, 0}, {240, 10 * FAULT_RATE, 0, 0},
      {FAULT_SECONDS, FAULT_RATE, 0, 0}}},
    {"idle", "100/s, nothing from 120 s to 300 s (3T), 100/s again",
     {{120, FAULT_RATE, 0, 0}, {300, 0, 0, 0}, {FAULT_SECONDS, FAULT_RATE, 0, 0}}},
};

#define FAULT_SCENARIOS (sizeof fault_scenarios / sizeof fault_scenarios[0])

/* The exact record: every key's time (keys are numbered in time order), and
 * the first key younger than T, 2T and 3T. */
typedef struct fault_record {
    uint64_t *times;
    uint64_t  next;                    /* keys added */
    uint64_t  in_t, in_2t, in_3t;      /* first key with age < T, 2T, 3T */
} fault_record;

typedef struct fault_sample {
    unsigned s;
    uint64_t added, window_keys;
    tdbf_stats st;
    double   fp;
    uint64_t misses, checked;          /* window keys answering no / asked */
    uint64_t old_yes, old_checked;     /* keys aged [2T, 3T) answering yes */
} fault_sample;

typedef struct fault_summary {
    unsigned max_slices, cap;
    uint64_t max_memory, steady_memory;
    double   end_bpk, max_fp, fp_sum;
    unsigned fp_samples;
    uint64_t misses, checked, old_yes, old_checked;
} fault_summary;

static uint64_t fault_total_keys(const fault_scenario *sc)
{
    uint64_t total = 0, from = 0;
    for (size_t p = 0; p < 3 && sc->phases[p].until_s; p++) {
        const fault_phase *ph = &sc->phases[p];
        total += ph->burst + (uint64_t)ph->rate * (ph->until_s - from);
        from = ph->until_s;
    }
    return total;
}

static const fault_phase *fault_phase_at(const fault_scenario *sc, unsigned s,
                                         int *first_second)
{
    unsigned from = 0;
    for (size_t p = 0; p < 3 && sc->phases[p].until_s; p++) {
        if (s <= sc->phases[p].until_s) {
            *first_second = s == from + 1;
            return &sc->phases[p];
        }
        from = sc->phases[p].until_s;
    }
    return NULL;
}

/* Add second s's keys of the scenario (the burst first, at its start). */
static int fault_add_second(tdbf *f, const fault_scenario *sc, unsigned s,
                            fault_record *rec, uint64_t *added)
{
    int first = 0;
    const fault_phase *ph = fault_phase_at(sc, s, &first);
    uint64_t start = (uint64_t)(s - 1) * EVAL_NS, before = rec->next;
    int rc = TDBF_OK;
    if (first && ph->burst)
        rc = eval_add_keys(f, &rec->next, ph->burst, start, 0, rec->times);
    if (rc == TDBF_OK)
        rc = eval_add_keys(f, &rec->next, ph->rate, start,
                           ph->batched ? 0 : EVAL_NS, rec->times);
    *added = rec->next - before;
    return rc;
}

static void fault_move_edges(fault_record *rec, uint64_t now)
{
    const uint64_t window = TLBF_WINDOW_S * EVAL_NS;
    while (rec->in_t < rec->next && now - rec->times[rec->in_t] >= window)
        rec->in_t++;
    while (rec->in_2t < rec->next && now - rec->times[rec->in_2t] >= 2 * window)
        rec->in_2t++;
    while (rec->in_3t < rec->next && now - rec->times[rec->in_3t] >= 3 * window)
        rec->in_3t++;
}

/* Ask for keys first .. last-1 at now; count the answers equal to `answer`. */
static int fault_ask(const tdbf *f, uint64_t first, uint64_t last, uint64_t now,
                     int answer, uint64_t *count)
{
    for (uint64_t id = first; id < last; id++) {
        int rc = eval_has_key(f, id, now);
        if (rc < 0)
            return rc;
        *count += rc == answer;
    }
    return TDBF_OK;
}

/* Every second: fresh keys for the FP; every `check_every` seconds: all
 * keys of the last T (false negatives) and all aged 2T-3T (expired). */
static int fault_measure(const tdbf *f, fault_record *rec, uint64_t probes,
                         unsigned check_every, uint64_t *next_probe,
                         fault_sample *x)
{
    uint64_t now = (uint64_t)x->s * EVAL_NS;
    fault_move_edges(rec, now);
    x->window_keys = rec->next - rec->in_t;
    x->misses = x->old_yes = x->checked = x->old_checked = 0;
    int rc = TDBF_OK;
    if (x->s % check_every == 0) {
        x->checked = x->window_keys;
        x->old_checked = rec->in_2t - rec->in_3t;
        rc = fault_ask(f, rec->in_t, rec->next, now, 0, &x->misses);
        if (rc == TDBF_OK)
            rc = fault_ask(f, rec->in_3t, rec->in_2t, now, 1, &x->old_yes);
    }
    if (rc == TDBF_OK)
        rc = eval_probe_fp(f, probes, next_probe, now, &x->fp);
    return rc;
}

static void fault_account(const fault_sample *x, double bpk, fault_summary *sum)
{
    if (x->st.slices > sum->max_slices)
        sum->max_slices = x->st.slices;
    if (x->st.memory_bytes > sum->max_memory)
        sum->max_memory = x->st.memory_bytes;
    sum->end_bpk = bpk;
    if (x->fp > sum->max_fp)
        sum->max_fp = x->fp;
    if (x->s > TLBF_WINDOW_S) {
        sum->fp_sum += x->fp;
        sum->fp_samples++;
    }
    sum->steady_memory = x->st.memory_bytes;
    sum->misses += x->misses;
    sum->checked += x->checked;
    sum->old_yes += x->old_yes;
    sum->old_checked += x->old_checked;
}

/* How much each second is measured. */
typedef struct fault_sizes {
    uint64_t probes;          /* fresh keys a second */
    unsigned check_every;     /* seconds between exact-record checks */
} fault_sizes;

static int fault_run(const fault_scenario *sc, const fault_sizes *z,
                     uint64_t seed, eval_csv *csv, fault_summary *sum)
{
    tlbf_shape sh = {FAULT_ERROR, (uint64_t)TLBF_WINDOW_S * FAULT_RATE, 0, 0};
    fault_record rec = {0};
    rec.times = malloc(fault_total_keys(sc) * sizeof *rec.times);
    if (!rec.times)
        return TDBF_ENOMEM;
    tdbf *f;
    int rc = tlbf_open_shape(&sh, seed, &f);
    if (rc != TDBF_OK) {
        free(rec.times);
        return rc;
    }
    uint64_t next_probe = 0;
    memset(sum, 0, sizeof *sum);
    for (unsigned s = 1; s <= FAULT_SECONDS && rc == TDBF_OK; s++) {
        fault_sample x = {.s = s};
        rc = fault_add_second(f, sc, s, &rec, &x.added);
        if (rc == TDBF_OK)
            rc = tlbf_second_end(f, s, &x.st);
        if (rc == TDBF_OK)
            rc = fault_measure(f, &rec, z->probes, z->check_every, &next_probe, &x);
        if (rc != TDBF_OK)
            break;
        /* the slice cap tdbf_open chose: 2(k+l) + 32 */
        sum->cap = 2 * (x.st.k + x.st.l) + 32;
        double bpk = tlbf_bits_per_key(&x.st, x.window_keys);
        fault_account(&x, bpk, sum);
        csv_line(csv, "%s,%u,%llu,%llu,%u,%llu,%.10g,%.10g,%.10g,%llu,%llu,%llu,%llu",
                 sc->name, s, (unsigned long long)x.added,
                 (unsigned long long)x.window_keys, x.st.slices,
                 (unsigned long long)x.st.memory_bytes, bpk, x.fp,
                 x.st.error_estimated, (unsigned long long)x.misses,
                 (unsigned long long)x.checked, (unsigned long long)x.old_yes,
                 (unsigned long long)x.old_checked);
    }
    tdbf_close(f);
    free(rec.times);
    return rc;
}

static void fault_table_row(cli_table *t, const fault_scenario *sc,
                            const fault_summary *x)
{
    cli_table_cell(t, "%s", sc->name);
    cli_table_cell(t, "%u / %u", x->max_slices, x->cap);
    cli_table_cell(t, "%.0f", (double)x->max_memory / 1024.0);
    cli_table_cell(t, "%.0f", (double)x->steady_memory / 1024.0);
    cli_table_cell(t, "%.1f", x->end_bpk);
    cli_table_cell(t, "%.4f", x->fp_sum / x->fp_samples);
    cli_table_cell(t, "%.4f", x->max_fp);
    cli_table_cell(t, "%llu / %llu", (unsigned long long)x->misses,
                   (unsigned long long)x->checked);
    cli_table_cell(t, "%llu / %llu", (unsigned long long)x->old_yes,
                   (unsigned long long)x->old_checked);
}

static int run_tlbf_faults(const char *cmd, const eval_request *req,
                           eval_csv *csv)
{
    fault_sizes z = req->quick ? (fault_sizes){(uint64_t)(2.0 / FAULT_ERROR), 10}
                               : (fault_sizes){(uint64_t)(50.0 / FAULT_ERROR), 1};
    cli_table t;
    cli_table_init(&t, 9, "lrrrrrrrr");
    static const char *const headers[] = {
        "scenario", "max slices/cap", "max KiB", "end KiB", "end bits/key",
        "fp mean", "fp max", "FN / window keys", "yes / keys aged 2T-3T"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "scenario,t_s,added,window_keys,slices,memory_bytes,"
             "bits_per_key,fp_measured,fp_estimated,false_negatives,"
             "window_checked,expired_yes,expired_checked");

    int progress = isatty(STDERR_FILENO);
    uint64_t misses = 0;
    for (size_t i = 0; i < FAULT_SCENARIOS; i++) {
        fault_summary sum;
        lab_progress(progress, "eval", i + 1, FAULT_SCENARIOS, "%s", fault_scenarios[i].name);
        int rc = fault_run(&fault_scenarios[i], &z, req->seed, csv, &sum);
        if (rc != TDBF_OK)
            return tlbf_fail(cmd, &t, progress, fault_scenarios[i].name, rc);
        fault_table_row(&t, &fault_scenarios[i], &sum);
        misses += sum.misses;
    }
    lab_progress_end(progress);

    printf("TLBF under the reference implementation's failure cases (design.md, "
           "paper 001's module):\nT = %u s, error %g, capacity %u (right for "
           "100 keys/s), %u simulated s; every %u s all keys\nof the last T "
           "(the exact record) are asked (a no is a false negative) and all "
           "keys aged\n2T-3T (gone: a yes is a false positive); every second "
           "%llu fresh keys%s.\n\n", TLBF_WINDOW_S, FAULT_ERROR,
           TLBF_WINDOW_S * FAULT_RATE, FAULT_SECONDS, z.check_every,
           (unsigned long long)z.probes,
           req->quick ? " -- QUICK RUN (--quick)" : "");
    for (size_t i = 0; i < FAULT_SCENARIOS; i++)
        printf("  %-9s %s\n", fault_scenarios[i].name, fault_scenarios[i].what);
    printf("\n");
    if (lab_print_table(&t, cmd, 1) != 0)
        return CLI_EXIT_DATA;
    printf("\nfp mean: after the first T.  cap = the slice "
           "cap tdbf_open chose, 2(k+l)+32.\nFalse negatives in all "
           "scenarios: %llu.\n", (unsigned long long)misses);
    return misses == 0 ? CLI_EXIT_OK
                       : cli_error(cmd, "%llu false negatives", (unsigned long long)misses);
}

const eval_experiment eval_tlbf_faults = {
    "tlbf-faults", "TLBF: bursts, rate x10 jumps, idle gaps: bounded, no false negatives",
    run_tlbf_faults
};
