/*
 * plan.h — what the files of `tdbf plan` share: the request as parsed
 * (cmd_plan.c) and the planners of the designs other than the APBF
 * (plan_designs.c).  Each returns a CLI_EXIT_* code.
 */
#ifndef TDBF_CLI_PLAN_H
#define TDBF_CLI_PLAN_H

#include <stdint.h>

#include <tdbf.h>

#include "cli.h"

typedef struct plan_request {
    uint64_t window;
    double   error;       /* target, or 0 when not given */
    unsigned k, l;        /* explicit pair, or 0 */
    uint64_t alts;
    int      json;
    tdbf_design design;   /* APBF, CLOCK, ROTATING, FPDECAY or STABLE */
    double   survival;    /* FPDECAY, STABLE: 0 = 1 - error */
    uint64_t window_ns;   /* CLOCK, ROTATING: time window, or 0 */
    uint64_t capacity;    /* CLOCK, ROTATING, time window: 0 = default */
    unsigned block_bits;  /* APBBF: 64 or 512 (0 = 512) */
    const char *window_text; /* --window as given: a count, or (tlbf-line) a duration */
} plan_request;

/* "built": the shape tdbf_open gives a filter of this request, as
 * tdbf_get_shape and `tdbf info` report it (k, l, window).  Every design's
 * JSON has it, so scripts (and the tests) can compare. */
void json_built(cli_json *j, unsigned k, unsigned l, uint64_t window_items,
                uint64_t window_ns);

int run_decay_plan(const cli_command *self, const plan_request *req);      /* fpdecay, stable */
int run_design_plan(const cli_command *self, const plan_request *req);     /* clock, rotating */
int run_blocked_plan(const cli_command *self, const plan_request *req);    /* apbbf */
int run_line_plan(const cli_command *self, const plan_request *req);       /* apbf-line */
int run_tlbf_line_plan(const cli_command *self, const plan_request *req);  /* tlbf-line */
int run_tlbf_plan(const cli_command *self, const plan_request *req);       /* tlbf */

#endif /* TDBF_CLI_PLAN_H */
