/*
 * sizing.h — how much memory a configuration asks for, without building
 * the filter (for messages such as "needs 5.2 GiB, more than the cap").
 */
#ifndef TDBF_CLI_SIZING_H
#define TDBF_CLI_SIZING_H

#include <stddef.h>
#include <stdint.h>

#include <tdbf.h>

/* The bytes tdbf_open(cfg) would allocate (at the planned rate, for the
 * time designs that grow), whatever cfg->max_memory says: from the
 * design's own sizing (tdbf_plan_shape), never by allocating them.
 * Returns 0 and sets *bytes, or -1 for a configuration the design
 * refuses. */
int cli_planned_bytes(const tdbf_config *cfg, uint64_t *bytes);

/* A --max-memory value that allows `bytes`: the next whole G (or M below
 * 1 GiB), "6G".  Returns buf. */
char *cli_size_suggestion(char *buf, size_t size, uint64_t bytes);

#endif /* TDBF_CLI_SIZING_H */
