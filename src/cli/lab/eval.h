/*
 * eval.h — the experiments of `tdbf eval` and what they share.
 *
 * Each experiment is one eval_experiment descriptor, defined in the
 * eval_*.c file of its paper and listed in cmd_eval.c's table.  Adding one:
 * write its run function and descriptor, declare the descriptor below, add
 * it to the table.  Only the papers' parameters and printed numbers are
 * constants in these files; every metric of ours is computed by the library.
 */
#ifndef TDBF_CLI_EVAL_H
#define TDBF_CLI_EVAL_H

#include "../common/cmdline.h"
#include "../common/diag.h"
#include "../common/measure.h"
#include "../common/output.h"
#include "report.h"
#include "workload.h"

#include <stdint.h>
#include <stdio.h>

#include <tdbf.h>

/* What the user asked for. */
typedef struct eval_request {
    const char *experiment;
    const char *csv_path;
    const char *markdown_path;  /* --markdown FILE, NULL if not asked */
    int         quick;      /* --quick: seconds, for CI */
    int         large;      /* --large: also the largest sizes (sqf-model) */
    uint64_t    seed;       /* --seed, default 1 */
} eval_request;

/* The window used to size the filters whose exact-fill fp is shown.  The
 * paper's model columns do not depend on it. */
#define EVAL_SIZING_WINDOW UINT64_C(1000000)

/* ---- CSV output ------------------------------------------------------- */

typedef struct eval_csv {
    FILE *out;         /* NULL: no CSV requested */
    int   close;       /* out is a file we opened */
} eval_csv;

/* Open `path` ("-" = stdout; NULL = no CSV).  Returns 0 or -1. */
int csv_open(eval_csv *csv, const char *path);
/* Write one line (a newline is appended); nothing if no CSV was asked. */
void csv_line(eval_csv *csv, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Close the CSV; returns 0, or -1 if anything failed to be written. */
int csv_close(eval_csv *csv);

/* ---- printed tables --------------------------------------------------- */

/* Add the n header cells. */
void table_header(cli_table *t, const char *const *headers, size_t n);

/* Print the experiment's table (lab_print_table) after writing it as
 * Markdown to req->markdown_path when asked; frees it.  Returns a
 * CLI_EXIT_* code. */
int eval_print_table(cli_table *t, const char *cmd, const eval_request *req);

/* One printed value of the paper beside ours, and the decimals it has. */
typedef struct paper_value {
    const char *name;
    double      ours, paper;
    int         decimals;
} paper_value;

/* Write into `list` the names of the values that, printed with the paper's
 * decimals, differ from the paper's ("eff+npws"), or "" if none does.
 * Returns 1 if any differs. */
int differences(const paper_value *values, size_t n, char *list, size_t size);

/* ---- streams of distinct keys (eval_util.c) ----------------------------
 * Key i of a stream is lab_key_u64(i) (workload.h); probes, never added,
 * have EVAL_PROBE_BIT set.  Time is simulated, in ns. */

#define EVAL_NS        UINT64_C(1000000000)
#define EVAL_PROBE_BIT (UINT64_C(1) << 63)

struct tdbf;

/* Add keys *next, *next + 1, ... (count of them, *next advances), evenly
 * spaced over [from_ns, from_ns + span_ns) (span 0: all at from_ns); if
 * times is not NULL, times[i] gets key i's time.  Returns TDBF_OK or the
 * first negative code of tdbf_add. */
int eval_add_keys(struct tdbf *f, uint64_t *next, uint64_t count,
                  uint64_t from_ns, uint64_t span_ns, uint64_t *times);
/* tdbf_contains of key `id` at now_ns: 1, 0 or a negative code. */
int eval_has_key(const struct tdbf *f, uint64_t id, uint64_t now_ns);
/* *fp = the share of `probes` fresh never-added keys (numbered from
 * *next_probe on, which advances) that answer yes at now_ns.  Returns
 * TDBF_OK or a negative code. */
int eval_probe_fp(const struct tdbf *f, uint64_t probes, uint64_t *next_probe,
                  uint64_t now_ns, double *fp);

/* Add (hits NULL) or ask (the yes answers counted into *hits) keys
 * lab_key16(stream, 0 .. n - 1), EVAL_BATCH at a time.  Two streams of
 * different parity never share a key: the first 8 bytes of a key are a
 * bijection of stream + 2 id, whose parity is the stream's.  Returns
 * TDBF_OK or the first negative code of the batch calls. */
#define EVAL_BATCH 64
int eval_keys16(struct tdbf *f, uint64_t stream, uint64_t n, uint64_t *hits);

/* A measured experiment's own failure, beside the library's negative
 * codes: the fill did not stop where the experiment measures (the end of
 * a generation). */
#define EVAL_NOT_AT_WORST 1

/* Where a design is at its worst: after `adds` keys from empty, with
 * generation_fill then `fill`. */
typedef struct eval_worst {
    uint64_t adds;
    uint64_t fill;
} eval_worst;
typedef eval_worst (*eval_worst_fn)(const tdbf_stats *st);

/* Open a filter of `cfg`, add keys of key_stream (eval_keys16) up to its
 * worst moment (worst_at of its fresh stats), then ask `probes` keys of
 * probe_stream, counting the yes answers into *hits; *st gets the stats
 * at the worst moment.  Returns TDBF_OK, EVAL_NOT_AT_WORST when the fill
 * did not stop there, or a negative code. */
int eval_probe_worst(const tdbf_config *cfg, eval_worst_fn worst_at, uint64_t key_stream,
                     uint64_t probe_stream, uint64_t probes, tdbf_stats *st, uint64_t *hits);

/* A point of a measured experiment failed with `rc` (a negative library
 * code, or EVAL_NOT_AT_WORST): erase the progress line, free the table,
 * report it for `design` at `window`.  Returns the exit code. */
int eval_point_failed(const char *cmd, int progress, cli_table *t, const char *design,
                      uint64_t window, int rc);

/* ---- the experiments -------------------------------------------------- */

typedef struct eval_experiment {
    const char *name;       /* "table2" */
    const char *summary;    /* one line for --list */
    /* Print the table, write the CSV rows; returns a CLI_EXIT_* code. */
    int (*run)(const char *cmd, const eval_request *req, eval_csv *csv);
} eval_experiment;

extern const eval_experiment eval_table2;       /* eval_apbf.c */
extern const eval_experiment eval_table3;
extern const eval_experiment eval_fig6;
extern const eval_experiment eval_table4;
extern const eval_experiment eval_tbf;          /* eval_tbf.c */
extern const eval_experiment eval_apbf_posterior; /* eval_apbf_post.c */
extern const eval_experiment eval_tlbf_slices;  /* eval_tlbf.c */
extern const eval_experiment eval_tlbf_bits;
extern const eval_experiment eval_tlbf_fp;
extern const eval_experiment eval_tlbf_faults;
extern const eval_experiment eval_compare;      /* eval_compare.c */
extern const eval_experiment eval_clock_rotating;   /* eval_decay.c */
extern const eval_experiment eval_fpdecay_survival;
extern const eval_experiment eval_stable;
extern const eval_experiment eval_line_model;     /* eval_line.c */
extern const eval_experiment eval_burst;          /* eval_burst.c */
extern const eval_experiment eval_sqf_model;      /* eval_sqf.c */

#endif /* TDBF_CLI_EVAL_H */
