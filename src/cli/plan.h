/*
 * plan.h — what the files of `tdbf plan` share: the request as parsed
 * (cmd_plan.c) and the planners of the designs other than the APBF
 * (plan_designs.c, plan_sqf.c).  Each run_*_plan returns a CLI_EXIT_* code.
 */
#ifndef TDBF_CLI_PLAN_H
#define TDBF_CLI_PLAN_H

#include <stdint.h>

#include <tdbf_model.h>

#include "cli.h"

typedef struct plan_request {
    uint64_t window;
    double   error;       /* target, or 0 when not given */
    unsigned k, l;        /* explicit pair, or 0 */
    uint64_t alts;
    int      json;
    tdbf_design design;   /* the design planned */
    double   survival;    /* FPDECAY, STABLE: 0 = 1 - error */
    uint64_t window_ns;   /* time window, or 0 */
    uint64_t capacity;    /* time window: keys per window, 0 = default */
    unsigned block_bits;  /* APBBF: 64 or 512 (0 = 512); line designs and sqf
                             (cfg.unit_bits) 512 or 1024, 0 = the planner's */
    const char *window_text; /* --window as given: a count or a duration */
    int      design_given; /* --design named; else the design dedup builds */
} plan_request;

/* The configuration tdbf_open gets for this request (max_memory
 * unlimited: a plan is shown whatever its size). */
void plan_request_config(const plan_request *req, tdbf_config *cfg);

/* The lines every plan ends with: whether it is what `tdbf dedup` builds
 * by default, its window and slack (tdbf_plan_shape), what --error
 * bounds, and for the time designs that do not grow past their capacity
 * hint, what a burst beyond it does. */
void plan_print_bound(const plan_request *req);

/* The same for --json: "dedup_default" (true when tdbf dedup builds this
 * design for this kind of window without --design) and "expiry"
 * {window_items, window_ns, slack_items, slack_ns; null slack: no bound}. */
void plan_json_bound(cli_json *j, const plan_request *req);

/* "built": the shape tdbf_open gives a filter of this request, as
 * tdbf_get_shape and `tdbf info` report it (k, l, window).  Every design's
 * JSON has it, so scripts (and the tests) can compare. */
void json_built(cli_json *j, unsigned k, unsigned l, uint64_t window_items,
                uint64_t window_ns);

/* The opening of a time design's --json object, up to its own fields:
 * design, built, the bound, window_ns, capacity, generation_ns, k, l.
 * The caller adds its fields and closes the object. */
void json_time_plan_head(cli_json *j, const plan_request *req, const char *design,
                         unsigned k, unsigned l, uint64_t capacity, uint64_t span_ns);

int run_decay_plan(const cli_command *self, const plan_request *req);      /* fpdecay, stable */
int run_design_plan(const cli_command *self, const plan_request *req);     /* clock, rotating */
int run_blocked_plan(const cli_command *self, const plan_request *req);    /* apbbf */
int run_line_plan(const cli_command *self, const plan_request *req);       /* apbf-line */
int run_tlbf_line_plan(const cli_command *self, const plan_request *req);  /* tlbf-line */
/* The sqf tdbf_open builds for a count window, as tdbf_plan_shape sizes
 * it (plan_sqf.c). */
typedef struct sqf_plan_view {
    tdbf_shape shape;      /* k = 1, l = 7, window_items = 7 g, bytes, FP */
    unsigned bin_bits;     /* 512 or 1024: the bin size of that plan */
    uint64_t generation;   /* g, adds per generation */
    double   bits_per_item;/* its bytes over the window asked for */
} sqf_plan_view;

/* unit_bits 512 or 1024 forces the bin size; 0: the planner's.  Returns
 * TDBF_OK or tdbf_plan_shape's error. */
int plan_sqf(uint64_t window, double error, unsigned unit_bits, sqf_plan_view *out);
/* Its JSON fields: unit_bits, g, window, bytes, bits_per_item, fp. */
void json_sqf_fields(cli_json *j, const sqf_plan_view *p);

int run_sqf_plan(const cli_command *self, const plan_request *req);        /* sqf */
/* The first core tdbf_open builds for a time window of req at its
 * capacity (1024 when not given); unit_bits 0: the planner's bins. */
int plan_sqf_time(const plan_request *req, unsigned unit_bits, tdbf_shape *out);
int run_tlbf_plan(const cli_command *self, const plan_request *req);       /* tlbf */

#endif /* TDBF_CLI_PLAN_H */
