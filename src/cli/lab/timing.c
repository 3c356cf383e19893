/*
 * timing.c — the lab's timed loops (see timing.h).
 */
#include "timing.h"

int64_t lab_run_calls(tdbf *f, int op, const lab_calls *calls, size_t from, size_t n)
{
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
