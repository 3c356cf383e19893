/*
 * memo.c — the last answers of a slow, pure function, per thread (memo.h).
 */
#include "util/memo.h"

#include <string.h>

void *tdbf_memo_find(const tdbf_memo_table *table, void *records, size_t record_size,
                     const void *question, size_t question_size)
{
    unsigned char *record = records;
    for (unsigned i = 0; i < table->held; i++, record += record_size)
        if (memcmp(record, question, question_size) == 0)
            return record;
    return NULL;
}

void *tdbf_memo_take(tdbf_memo_table *table, void *records, size_t record_size,
                     unsigned capacity, const void *question, size_t question_size)
{
    unsigned slot = table->held < capacity ? table->held++ : table->next++ % capacity;
    unsigned char *record = (unsigned char *)records + (size_t)slot * record_size;
    memset(record, 0, record_size);
    memcpy(record, question, question_size);
    return record;
}
