/*
 * memo.h — the last answers of a slow, pure function, kept per thread
 * (private).
 *
 * A planner's search takes milliseconds, and a server that creates a
 * filter per key asks it the same question every time.  Such a function
 * keeps a few records in thread-local storage (every thread its own: no
 * lock) and looks the question up here before it searches.
 *
 * A record starts with its question, and questions compare by their
 * bytes: a question is zeroed before its fields are set, padding
 * included.  When the table is full the oldest record is replaced.
 *
 *     static _Thread_local TDBF_MEMO(my_answer, 8) memo;
 *     my_question q;
 *     memset(&q, 0, sizeof q);
 *     ... q's fields ...
 *     my_answer *a = TDBF_MEMO_FIND(&memo, &q);
 *     if (!a) {
 *         a = TDBF_MEMO_TAKE(&memo, &q);     (the question copied in)
 *         ... a's answer ...
 *     }
 */
#ifndef TDBF_MEMO_H
#define TDBF_MEMO_H

#include <stddef.h>

typedef struct tdbf_memo_table {
    unsigned held;    /* records in use, from the first */
    unsigned next;    /* the record TAKE replaces next */
} tdbf_memo_table;

/* A table of n records of `type`. */
#define TDBF_MEMO(type, n)      \
    struct {                    \
        tdbf_memo_table table;  \
        type records[n];        \
    }

#define TDBF_MEMO_FIND(memo, question)                                                    \
    tdbf_memo_find(&(memo)->table, (memo)->records, sizeof (memo)->records[0], (question), \
                   sizeof *(question))
#define TDBF_MEMO_TAKE(memo, question)                                                    \
    tdbf_memo_take(&(memo)->table, (memo)->records, sizeof (memo)->records[0],            \
                   sizeof (memo)->records / sizeof (memo)->records[0], (question),         \
                   sizeof *(question))

/* The record whose first question_size bytes are the question's, or
 * NULL. */
void *tdbf_memo_find(const tdbf_memo_table *table, void *records, size_t record_size,
                     const void *question, size_t question_size);

/* The record to fill for a new question: a free one, else the oldest;
 * its question set, the rest of it zeroed. */
void *tdbf_memo_take(tdbf_memo_table *table, void *records, size_t record_size,
                     unsigned capacity, const void *question, size_t question_size);

#endif
