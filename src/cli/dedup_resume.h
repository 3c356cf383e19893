/*
 * dedup_resume.h — what `tdbf dedup` says when a run stops before the end
 * of its input: what the --state file holds, and the command that goes
 * on from there (dedup_resume.c).
 *
 * A run stopped by a signal, a capacity stop, a bad line or a failed
 * write keeps the state of its last good save; a resumed run must read
 * the input again from the line after the one that save covers.  These
 * messages give that line and a command a shell can run as printed:
 *
 *   tdbf dedup: 400 lines of standard input were taken; to resume, feed
 *   it from line 401 on to:
 *     tdbf dedup --last 700 --state s.tdbf - 'last part.txt'
 *   tdbf dedup: 1,000 lines of in.txt were taken; to resume:
 *     tail -n +1001 in.txt | tdbf dedup --last 700 --state s.tdbf
 */
#ifndef TDBF_CLI_DEDUP_RESUME_H
#define TDBF_CLI_DEDUP_RESUME_H

#include <stddef.h>
#include <stdint.h>

#include "dedup_parse.h"

/* A point in the input: the lines taken before it. */
typedef struct dedup_position {
    size_t   source_index;   /* in args->files (0 for standard input) */
    uint64_t line_no;        /* lines of that source taken */
    uint64_t lines_in;       /* lines of all sources taken */
} dedup_position;

/* A stopped run, as the messages need it. */
typedef struct dedup_resume {
    const dedup_args *args;
    int             argc;      /* the command line (argv[0] "dedup") */
    char          **argv;
    uint64_t        lines_in;  /* lines the run took */
    dedup_position  saved;     /* what the last good save covers */
    int             saves;     /* good saves in this run */
} dedup_resume;

/* Print on stderr "tdbf dedup: WHY after N input lines", what the state
 * holds (or that without --state nothing was saved), and, unless
 * `finished` (all the input read and saved), how to resume. */
void dedup_print_resume(const dedup_resume *r, const char *why, int finished);

#endif /* TDBF_CLI_DEDUP_RESUME_H */
