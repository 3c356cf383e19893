/*
 * eval_tlbf.c — `tdbf eval tlbf-slices`: paper 001 Figures 1-2, slices and
 * slice-0 size of a TLBF over simulated time, under- and over-dimensioned.
 */
#define _POSIX_C_SOURCE 200809L

#include "eval.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include <tdbf.h>

/* ---- tlbf-slices: TLBF, paper 001 Figures 1-2 ------------------------ */

#define TLBF_WINDOW_S   60u
#define TLBF_RATE       100u       /* inserts per simulated second */
#define TLBF_NS         UINT64_C(1000000000)

static const uint64_t tlbf_capacities[] = {100, 100000};

#define TLBF_CAPACITIES (sizeof tlbf_capacities / sizeof tlbf_capacities[0])

/* One run: a steady stream of distinct keys, a sample per second. */
static int tlbf_run(uint64_t capacity, unsigned seconds, uint64_t seed,
                    eval_csv *csv, cli_table *t, tdbf_stats *last,
                    unsigned *max_slices)
{
    tdbf_config cfg;
    tdbf_config_init(&cfg);
    cfg.design = TDBF_TLBF;
    cfg.error = 0.01;
    cfg.window_ns = TLBF_WINDOW_S * TLBF_NS;
    cfg.capacity = capacity;
    cfg.seed = seed;
    tdbf *f;
    int rc = tdbf_open(&f, &cfg);
    if (rc != TDBF_OK)
        return rc;

    uint64_t key = 0;
    *max_slices = 0;
    for (unsigned s = 1; s <= seconds; s++) {
        for (unsigned i = 0; i < TLBF_RATE; i++, key++) {
            uint64_t now = (uint64_t)(s - 1) * TLBF_NS
                + (uint64_t)i * (TLBF_NS / TLBF_RATE);
            rc = tdbf_add(f, &key, sizeof key, now);
            if (rc < 0)
                goto out;
        }
        rc = tdbf_advance(f, (uint64_t)s * TLBF_NS);
        if (rc == TDBF_OK)
            rc = tdbf_get_stats(f, last);
        if (rc != TDBF_OK)
            goto out;
        /* items in the window (now - T, now]: the steady rate times the
         * seconds of the window that have passed */
        unsigned live = s < TLBF_WINDOW_S ? s : TLBF_WINDOW_S;
        double bpi = (double)last->memory_bytes * 8.0
            / (double)(live * TLBF_RATE);
        if (last->slices > *max_slices)
            *max_slices = last->slices;
        csv_line(csv, "%llu,%u,%u,%llu,%.10g,%.10g",
                 (unsigned long long)capacity, s, last->slices,
                 (unsigned long long)last->slice_bits, bpi,
                 last->error_estimated);
        if (s % 30 == 0 || s <= 3) {
            cli_table_cell(t, "%llu", (unsigned long long)capacity);
            cli_table_cell(t, "%u", s);
            cli_table_cell(t, "%u", last->slices);
            cli_table_cell(t, "%llu", (unsigned long long)last->slice_bits);
            cli_table_cell(t, "%.1f", bpi);
            cli_table_cell(t, "%.6f", last->error_estimated);
        }
    }
out:
    tdbf_close(f);
    return rc < 0 ? rc : TDBF_OK;
}

static int run_tlbf_slices(const char *cmd, const eval_request *req,
                           eval_csv *csv)
{
    unsigned seconds = req->quick ? 90u : 300u;
    cli_table t;
    cli_table_init(&t, 6, "rrrrrr");
    static const char *const headers[] = {
        "capacity", "t (s)", "slices", "slice0 bits", "bits/item", "fp_est"
    };
    table_header(&t, headers, sizeof headers / sizeof headers[0]);
    csv_line(csv, "capacity,t_s,slices,slice0_bits,bits_per_item,fp_estimated");

    tdbf_stats last[TLBF_CAPACITIES];
    unsigned peak[TLBF_CAPACITIES];
    for (size_t i = 0; i < TLBF_CAPACITIES; i++) {
        int rc = tlbf_run(tlbf_capacities[i], seconds, req->seed, csv, &t,
                          &last[i], &peak[i]);
        if (rc != TDBF_OK) {
            char what[48];
            snprintf(what, sizeof what, "capacity %llu",
                     (unsigned long long)tlbf_capacities[i]);
            cli_table_free(&t);
            return cli_lib_error(cmd, what, rc);
        }
    }

    printf("TLBF slices over time, paper 001 Figures 1-2: T = %u s, error "
           "0.01, %u distinct keys/s\n(simulated clock), %u s, under- "
           "(capacity %llu) and over-dimensioned (capacity %llu)%s.\n"
           "Table: seconds 1-3 and every 30 s; the CSV has every second.\n\n",
           TLBF_WINDOW_S, TLBF_RATE, seconds,
           (unsigned long long)tlbf_capacities[0],
           (unsigned long long)tlbf_capacities[1],
           req->quick ? " -- QUICK RUN (--quick)" : "");
    if (print_table(&t, cmd) != 0)
        return CLI_EXIT_RUNTIME;
    printf("\nslice0 bits = stats.slice_bits; bits/item = memory bits over "
           "the keys in the window;\nfp_est = stats.error_estimated.  At the "
           "end:");
    for (size_t i = 0; i < TLBF_CAPACITIES; i++)
        printf("%s capacity %llu: %u slices (peak %u), fp_est %.6f",
               i ? ";" : "", (unsigned long long)tlbf_capacities[i],
               last[i].slices, peak[i], last[i].error_estimated);
    printf(".\n");
    return CLI_EXIT_OK;
}

const eval_experiment eval_tlbf_slices = {
    "tlbf-slices", "TLBF: paper 001 Figures 1-2 (slices, slice-0 size over time)", run_tlbf_slices
};
