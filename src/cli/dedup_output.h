/*
 * dedup_output.h — the output of `tdbf dedup` (dedup_output.c): a 1 MiB
 * buffer written to stdout with write(2), flushed when full and before
 * a read that would wait, and the exit status once a write has failed.
 */
#ifndef TDBF_CLI_DEDUP_OUTPUT_H
#define TDBF_CLI_DEDUP_OUTPUT_H

#include <stddef.h>

typedef struct dedup_output {
    char  *buf;
    size_t used;
    int    error;     /* errno of the write that failed (reported); 0 */
} dedup_output;

/* Allocate the buffer: 0, or -1 when out of memory (not reported). */
int dedup_output_init(dedup_output *out);

/* Free the buffer (what it holds is not written).  Accepts a zeroed
 * dedup_output. */
void dedup_output_free(dedup_output *out);

/* Append data, writing the buffer out first when it would overflow (a
 * line bigger than the buffer goes straight out).  0, or the exit status
 * of a failed write (dedup_output_status). */
int dedup_output_bytes(dedup_output *out, const char *data, size_t len);

/* Write out what the buffer holds.  0, or dedup_output_status. */
int dedup_output_flush(dedup_output *out);

/* Flush before a read of input_fd that would wait, so a line reaches the
 * reader as soon as its fate is known; a ready input keeps the buffer.
 * 0, or dedup_output_status. */
int dedup_output_flush_before_wait(dedup_output *out, int input_fd);

/* The exit status once the output has failed (out->error != 0): 141 for
 * a closed pipe, 128 + the stop signal for a write given up on a second
 * signal, CLI_EXIT_IO for anything else. */
int dedup_output_status(const dedup_output *out);

#endif /* TDBF_CLI_DEDUP_OUTPUT_H */
