/*
 * timing.h — the lab's timed loops: one call of tdbf_add or tdbf_contains
 * per key, the clock read once per chunk of LAB_CHUNK calls, each chunk's
 * ns per call kept (common/measure.h's cli_chunk_times) for a median that
 * a time slice lost to another process does not move.  `tdbf-lab bench`,
 * `tdbf eval compare` and `tdbf-lab demo` all time the library through it.
 */
#ifndef TDBF_CLI_LAB_TIMING_H
#define TDBF_CLI_LAB_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include <tdbf.h>

#include "../common/measure.h"

/* Calls between two reads of the clock. */
#define LAB_CHUNK 4096u

enum { LAB_ADD, LAB_CONTAINS };

/* The keys of a run of calls, and when each call happens. */
typedef struct lab_calls {
    const void *const *keys;   /* key i */
    const size_t      *lens;   /* its length; NULL: every key `len` bytes */
    size_t             len;
    const uint64_t    *times;  /* its time in ns; NULL: every call at `now` */
    uint64_t           now;
    uint8_t           *answers;/* answer i is stored here unless NULL */
} lab_calls;

/* Call `op` (LAB_ADD: tdbf_add, LAB_CONTAINS: tdbf_contains) for keys
 * from .. from + n - 1.  Returns the number of yes answers, or the first
 * negative code of the library. */
int64_t lab_run_calls(tdbf *f, int op, const lab_calls *calls, size_t from, size_t n);

/* The same for keys 0 .. n-1 in chunks of LAB_CHUNK, each chunk timed
 * into `times` (reset first); adds the yes answers to *yes.  Returns
 * TDBF_OK, the library's code, or TDBF_ENOMEM if a timing could not be
 * kept. */
int lab_time_calls(tdbf *f, int op, const lab_calls *calls, size_t n,
                   cli_chunk_times *times, uint64_t *yes);

#endif /* TDBF_CLI_LAB_TIMING_H */
