/*
 * dedup_open.h — the filter of `tdbf dedup`: from the options, or from
 * --state (dedup_open.c).
 */
#ifndef TDBF_CLI_DEDUP_OPEN_H
#define TDBF_CLI_DEDUP_OPEN_H

#include <tdbf.h>

#include "dedup_parse.h"
#include "filter_sizing.h"      /* the default design, the expiry bound in words */

/* Open the filter the options ask for, or load --state when it exists and
 * check it against the options given again (a window, error or key
 * selection that differs is an error; what is not given is taken from
 * the state, into *a).  Reports and returns a CLI_EXIT_* code. */
int dedup_open_filter(dedup_args *a, tdbf **out);

/* Before any input is read: a --state that could not be saved at the end
 * would lose the whole run.  Reports and returns a CLI_EXIT_* code. */
int dedup_check_state_writable(const dedup_args *a);

#endif /* TDBF_CLI_DEDUP_OPEN_H */
