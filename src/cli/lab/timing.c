/*
 * timing.c — the lab's timed loops (see timing.h).
 */
#include "timing.h"

/* Calls with one key length and one time and no answers kept, as a
 * caller's own loop makes them: nothing but the call and the sum per key,
 * so that a DRAM-sized filter's time is the library's (every instruction
 * in the loop shortens how far ahead the next call's read can start;
 * out of line, so that the general loop's registers do not spill into it). */
static __attribute__((noinline)) int64_t plain_calls(tdbf *f, int op, const void *const *keys,
                                                    size_t len, uint64_t now, size_t n)
{
    int64_t yes = 0;
    for (const void *const *key = keys, *const *end = keys + n; key < end; key++) {
        int rc = op == LAB_ADD ? tdbf_add(f, *key, len, now) : tdbf_contains(f, *key, len, now);
        if (rc < 0)
            return rc;
        yes += rc;
    }
    return yes;
}

int64_t lab_run_calls(tdbf *f, int op, const lab_calls *calls, size_t from, size_t n)
{
    if (!calls->lens && !calls->times && !calls->answers)
        return plain_calls(f, op, calls->keys + from, calls->len, calls->now, n);
    uint64_t yes = 0;
    for (size_t i = from; i < from + n; i++) {
        size_t len = calls->lens != NULL ? calls->lens[i] : calls->len;
        uint64_t now = calls->times != NULL ? calls->times[i] : calls->now;
        int rc = op == LAB_ADD ? tdbf_add(f, calls->keys[i], len, now)
                               : tdbf_contains(f, calls->keys[i], len, now);
        if (rc < 0)
            return rc;
        if (calls->answers != NULL)
            calls->answers[i] = (uint8_t)rc;
        yes += (uint64_t)rc;
    }
    return (int64_t)yes;
}

int lab_time_calls(tdbf *f, int op, const lab_calls *calls, size_t n,
                   cli_chunk_times *times, uint64_t *yes)
{
    cli_chunk_times_reset(times);
    for (size_t done = 0; done < n; done += LAB_CHUNK) {
        size_t chunk = n - done < LAB_CHUNK ? n - done : LAB_CHUNK;
        uint64_t start = cli_now_ns();
        int64_t rc = lab_run_calls(f, op, calls, done, chunk);
        uint64_t took = cli_now_ns() - start;
        if (rc < 0)
            return (int)rc;
        *yes += (uint64_t)rc;
        if (cli_chunk_times_add(times, took, chunk) != 0)
            return TDBF_ENOMEM;
    }
    return TDBF_OK;
}
