/* LD_PRELOAD shim that shifts a process's wall clock by TDBF_CLOCK_SHIFT_S
 * seconds (may be negative). Used by test_replication.py to run a replica
 * whose clock is hours off. Debian's faketime cannot be used for this:
 * libfaketime deadlocks at start-up in redis-server's statically linked
 * jemalloc (wolfcw/libfaketime#130), so this shim calls the kernel
 * directly and never allocates. Only the realtime clocks are shifted;
 * monotonic clocks are left alone. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long shift_s(void) {
    static long long cached;
    static int done;
    if (!done) {
        const char *s = getenv("TDBF_CLOCK_SHIFT_S");
        cached = s ? atoll(s) : 0;
        done = 1;
    }
    return cached;
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    long r = syscall(SYS_clock_gettime, id, ts);
    if (r == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE))
        ts->tv_sec += shift_s();
    return (int)r;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    struct timespec ts;
    (void)tz;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return -1;
    tv->tv_sec = ts.tv_sec;
    tv->tv_usec = ts.tv_nsec / 1000;
    return 0;
}

time_t time(time_t *t) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return (time_t)-1;
    if (t)
        *t = ts.tv_sec;
    return ts.tv_sec;
}
