/*
 * driver.h — the one test driver every tdbf design goes through, plus the
 * small helpers all unit tests share (deterministic keys, PRNG, binomial
 * bands, decimal assertion macros).
 *
 * The driver takes a tdbf_config and a drv_opts, opens the filter, inserts a
 * stream of distinct keys and checks, after every insert, that the oldest key
 * of the guaranteed window is still reported present (that key is the one
 * most at risk), with a sweep of the whole window every `sweep_every`
 * inserts.  At the end it probes never-inserted keys (a disjoint key space)
 * for the false-positive rate and reads bits/item from tdbf_get_stats.  It
 * knows three kinds of window:
 *
 *   DRV_COUNT_WINDOW  the last stats.window_items adds (APBF, EXACT, ...)
 *   DRV_TIME_WINDOW   adds with time > now - cfg.window_ns; the driver's
 *                     clock advances by time_step_ns per insert
 *   DRV_NO_EXPIRY     nothing expires (classic Bloom): every key inserted
 *                     so far, up to the capacity stats.window_items
 *
 * Keys: drv_key(buf, space, seed, index) builds a 9..24-byte key whose first
 * byte is `space` and whose next 8 bytes are a bijection of `index`, so keys
 * of one (space, seed) are pairwise distinct and spaces are disjoint.  Space
 * DRV_SPACE_INSERT (0) starts with a NUL byte; some keys carry further NULs.
 */
#ifndef TDBF_TEST_DRIVER_H
#define TDBF_TEST_DRIVER_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <tdbf_model.h>

/* ---- scale: the sanitizer build runs the same tests on smaller sizes ----
 * (and so does the quick stage under emulation, `make test-cross`, built
 * with TDBF_TEST_SMALL: qemu runs them 5 to 30 times slower). */
#if (defined(TDBF_TEST_SANITIZER) && TDBF_TEST_SANITIZER) || \
    (defined(TDBF_TEST_SMALL) && TDBF_TEST_SMALL)
#define DRV_SANITIZER 1
#else
#define DRV_SANITIZER 0
#endif
/* DRV_PICK(normal, sanitizer): the size to use in this build. */
#define DRV_PICK(normal, san) (DRV_SANITIZER ? (san) : (normal))

/* ---- decimal assertions (cmocka's assert_int_equal prints hex) ---------- */

/* A library call must return `want`; prints both codes with their names. */
#define CHECK_RC(expr, want)                                                  \
    do {                                                                      \
        int check_rc_got_ = (expr);                                           \
        int check_rc_want_ = (want);                                          \
        if (check_rc_got_ != check_rc_want_)                                  \
            fail_msg("%s returned %d (%s), expected %d (%s)", #expr,          \
                     check_rc_got_, tdbf_strerror(check_rc_got_),             \
                     check_rc_want_, tdbf_strerror(check_rc_want_));          \
    } while (0)

#define CHECK_U64_EQ(a, b)                                                    \
    do {                                                                      \
        unsigned long long check_a_ = (unsigned long long)(a);                \
        unsigned long long check_b_ = (unsigned long long)(b);                \
        if (check_a_ != check_b_)                                             \
            fail_msg("%s = %llu, expected %s = %llu", #a, check_a_, #b,       \
                     check_b_);                                               \
    } while (0)

#define CHECK_U64_GE(a, b)                                                    \
    do {                                                                      \
        unsigned long long check_a_ = (unsigned long long)(a);                \
        unsigned long long check_b_ = (unsigned long long)(b);                \
        if (!(check_a_ >= check_b_))                                          \
            fail_msg("%s = %llu, expected >= %s = %llu", #a, check_a_, #b,    \
                     check_b_);                                               \
    } while (0)

/* |a - b| <= tol */
#define CHECK_NEAR(a, b, tol)                                                 \
    do {                                                                      \
        double check_a_ = (double)(a);                                        \
        double check_b_ = (double)(b);                                        \
        double check_t_ = (double)(tol);                                      \
        if (!(check_a_ - check_b_ <= check_t_ &&                              \
              check_b_ - check_a_ <= check_t_))                               \
            fail_msg("%s = %.12g, expected %s = %.12g (tolerance %.3g)", #a,  \
                     check_a_, #b, check_b_, check_t_);                       \
    } while (0)

/* ---- deterministic randomness ------------------------------------------ */

/* splitmix64 step: advances *state and returns the next 64-bit value. */
uint64_t drv_rand(uint64_t *state);
/* The splitmix64 finalizer: a bijection of 64-bit values. */
uint64_t drv_mix(uint64_t x);
/* Uniform in [0, bound) (bound > 0), by multiply-shift. */
uint64_t drv_below(uint64_t *state, uint64_t bound);

/* ---- keys -------------------------------------------------------------- */

#define DRV_KEY_MAX 24
#define DRV_SPACE_INSERT 0 /* keys the driver inserts */
#define DRV_SPACE_PROBE  1 /* keys never inserted (false-positive probes) */

/* Writes key number `index` of key space `space` (stream `seed`) into buf
 * (at least DRV_KEY_MAX bytes) and returns its length (9..24). */
size_t drv_key(uint8_t *buf, uint8_t space, uint64_t seed, uint64_t index);

/* Add / query key number `index` of space DRV_SPACE_INSERT, stream
 * `key_seed`, at time 0; a negative library code fails the test. */
int drv_add_index(tdbf *f, uint64_t key_seed, uint64_t index);
int drv_contains_index(const tdbf *f, uint64_t key_seed, uint64_t index);

/* ---- statistics -------------------------------------------------------- */

/* z for a two-sided 99.9% band. */
#define DRV_Z999 3.29

/* Half-width of the 99.9% normal-approximation band of a proportion p
 * measured over n trials, plus an extra variance term (0 if none). */
double drv_band(double p, double n, double extra_variance);

/* The Wilson score interval at 95 % of a rate of x in n trials (n = 0:
 * 0 .. 1), for promises checked at the upper end. */
void drv_wilson95(uint64_t x, uint64_t n, double *low, double *high);

/* Expected fill ratio of an m-bit array after n uniformly random bit sets:
 * 1 - (1 - 1/m)^n, and the variance of that ratio. */
double drv_fill(uint64_t n, uint64_t m);
double drv_fill_variance(uint64_t n, uint64_t m);

/* How many never-inserted keys (space DRV_SPACE_PROBE, stream `seed`,
 * indices first .. first+n-1) f reports present at now_ns. */
uint64_t drv_probe_hits(const tdbf *f, uint64_t seed, uint64_t first,
                        uint64_t n, uint64_t now_ns);

/* ---- the generic driver ------------------------------------------------ */

enum {
    DRV_COUNT_WINDOW = 0,
    DRV_TIME_WINDOW = 1,
    DRV_NO_EXPIRY = 2
};

typedef struct drv_opts {
    int      window_kind;  /* DRV_COUNT_WINDOW / DRV_TIME_WINDOW / DRV_NO_EXPIRY */
    uint64_t inserts;      /* distinct keys to insert; 0 = 4 windows
                              (DRV_NO_EXPIRY: the capacity) */
    uint64_t probes;       /* never-inserted keys queried at the end; 0 = 10^5 */
    uint64_t sweep_every;  /* sweep the whole window every this many inserts;
                              0 = once per window */
    uint64_t key_seed;     /* selects the key stream */
    uint64_t time_step_ns; /* clock advance per insert (DRV_TIME_WINDOW) */
    size_t   batch;        /* > 1: insert with tdbf_add_batch in groups */
    int      allow_fn;     /* 1: the design forgets at random: count false
                              negatives instead of stopping at the first */
} drv_opts;

typedef struct drv_result {
    uint64_t   inserted;        /* keys inserted */
    uint64_t   window;          /* keys in the guaranteed window (time: per step) */
    uint64_t   checks;          /* contains() calls that had to answer 1 */
    uint64_t   false_negatives; /* of those, answered 0 */
    uint64_t   fn_at_insert;    /* inserts done when the first one was seen */
    uint64_t   fn_key;          /* index of the key it missed */
    uint64_t   add_present;     /* adds of fresh keys that answered 1 */
    uint64_t   probes;          /* never-inserted keys queried */
    uint64_t   false_positives; /* of those, answered 1 */
    double     fp_rate;         /* false_positives / probes */
    double     bits_per_item;   /* stats.bits_per_item after the run */
    uint64_t   now_ns;          /* the driver's clock at the end */
    int        error;           /* first negative library code, 0 if none */
    const char *error_call;     /* the call that returned it */
    tdbf_stats stats;           /* stats after the run */
} drv_result;

/* Runs the driver.  Returns TDBF_OK or the first error code (also stored in
 * res->error).  Never fails the test itself: see drv_check(). */
int drv_run(const tdbf_config *cfg, const drv_opts *opts, drv_result *res);

/* Fails the current test unless res has no error and (if !allow_fn) no false
 * negative; prints a one-line summary with print_message either way. */
void drv_check(const char *label, const drv_result *res, int allow_fn);

/* The common count-window run: `inserts` distinct keys of stream
 * cfg->seed (in tdbf_add_batch groups of `batch` if > 1), 50000 probes,
 * then drv_check (fails the test on an error or a false negative). */
void drv_run_count(const char *label, const tdbf_config *cfg,
                   uint64_t inserts, size_t batch, drv_result *res);

/* Opens a filter or fails the test with the code. */
tdbf *drv_open(const tdbf_config *cfg);

/* tdbf_open must return `want` (and, failing, leave the handle NULL);
 * `what` names the case in the failure message.  Closes what it opened. */
void drv_expect_open(const tdbf_config *cfg, int want, const char *what);

#endif /* TDBF_TEST_DRIVER_H */
