/*
 * stream.h — a timed stream of inserts for time-window property tests.
 *
 * A stream feeds distinct keys (driver.h's drv_key, space
 * DRV_SPACE_INSERT) into one filter on a clock the test moves, remembers
 * when each key was added, and after every insert checks that the oldest
 * key still inside the window (now - added < window_ns) is reported
 * present: that key is the one most at risk.  stream_phase() runs n
 * inserts at a given step and jitter, then checks every key of the
 * window.  False negatives are counted (the first is printed), never
 * fatal, so a test can report them all with both values.
 */
#ifndef TDBF_TEST_STREAM_H
#define TDBF_TEST_STREAM_H

#include "driver.h"

typedef struct stream {
    tdbf     *f;
    uint64_t  window_ns;
    uint64_t  seed;       /* key stream */
    uint64_t  now;
    uint64_t  next;       /* index of the next key */
    uint64_t *times;      /* insert time of key i */
    uint64_t  capacity;
    uint64_t  oldest;     /* first key still inside the window */
    uint64_t  checks;
    uint64_t  false_negatives;
    uint64_t  rng;
} stream;

/* Start a stream on f at time `start`, for at most `capacity` keys. */
void stream_init(stream *s, tdbf *f, uint64_t window_ns, uint64_t start,
                 uint64_t capacity, uint64_t seed);
void stream_free(stream *s);
/* The end of a test's stream: fails on any false negative counted, then
 * frees the stream and closes its filter. */
void stream_end(stream *s);
/* tdbf_contains of key `index` at time `now` (1, 0 or an error code). */
int stream_has(const stream *s, uint64_t index, uint64_t now);
/* Add the next key at s->now, then check the oldest key in the window. */
void stream_insert(stream *s);
/* Check every key inside the window at s->now. */
void stream_sweep(stream *s);
/* n inserts, the clock advancing step_ns (+ jitter in [0, jitter_ns))
 * before each, then a sweep of the window. */
void stream_phase(stream *s, uint64_t n, uint64_t step_ns, uint64_t jitter_ns);

/* The adversarial schedule every time-window design must survive, for a
 * filter planned for `per_window` keys per window T (T / per_window >=
 * 100 ns): steady, 10x up and down, bursts of 2 windows' keys at one
 * timestamp, an idle gap of 3T, jitter with ties, 100x up, slow and
 * jittered.  The long phases are divided by `scale` (DRV_PICK(1, 10)).
 * stream_schedule_keys() is the number of inserts it makes. */
void stream_schedule(stream *s, uint64_t window_ns, uint64_t per_window, uint64_t scale);
uint64_t stream_schedule_keys(uint64_t per_window, uint64_t scale);

/* 64-bit ns time: opens a filter with open_filter(window_ns) for each of
 * four starts (across 2^32 ms, 2^32 ns and 2^63 ns, and ending near
 * 2^64), adds five windows of 6000 keys each, requires no false negative,
 * and that the last key is present at expiry(added, window_ns) - 1 and
 * absent at expiry(added, window_ns) (NULL: added + window_ns). */
void stream_wrap_test(tdbf *(*open_filter)(uint64_t window_ns), uint64_t window_ns,
                      uint64_t (*expiry)(uint64_t added_ns, uint64_t window_ns));

/* ---- checks the design tests share ------------------------------------ */

/* tdbf_get_stats, failing the test on an error. */
tdbf_stats stats_of(const tdbf *f);

/* 100 000 queries on s->f (inserted keys of the stream and never-inserted
 * ones) at the times when[0 .. n_when-1] in turn must leave its stats
 * byte for byte unchanged.  Returns how many answered present. */
uint64_t stream_check_read_only(const stream *s, const uint64_t *when, size_t n_when);

/* `hits` of `n` keys past a design's expiry bound were reported present:
 * prints the rate and fails unless it is within the 99.9% band above the
 * FP rate `fp` (the filter's stats.error_estimated). */
void check_expired_rate(const char *label, uint64_t hits, uint64_t n, double fp);

/* How many keys of the stream whose age at s->now is in [from, to] answer
 * present then; *n gets how many keys are that old. */
uint64_t stream_aged_hits(const stream *s, uint64_t from, uint64_t to, uint64_t *n);

/* A time-window design (cfg opens otherwise, no window set): no window, a
 * count window, or both give TDBF_EWINDOW, k without l TDBF_EPARAM. */
void check_time_window_errors(tdbf_config cfg);

/* Time clamped on f, a time filter of window T: "late" added at 100 s,
 * "early" stamped 1 s counts as added at 100 s (present at 100 s + T - 1),
 * and advance(0) leaves the clock at 100 s. */
void check_clock_clamped(tdbf *f, uint64_t window_ns);

/* A stream of n keys (stream key_seed) into f, a time filter of window
 * T, at T / 2000 a key from 1000 s, whose clock jumps back by up to a
 * window every 50 adds: each key lives from the clamped time it was
 * added, and every 997 adds every key of the window is queried at a
 * time up to a window back.  Fails on any false negative. */
void check_clock_steps_back(tdbf *f, uint64_t window_ns, uint64_t n, uint64_t key_seed);

/* Add keys at step_ns until the last one that lands before the next
 * generation of `span` starts: the worst moment, the generation holding
 * its full share.  Each add checks the oldest key of the window (a sweep
 * of the whole window is left to the caller). */
void stream_fill_generation(stream *s, uint64_t span, uint64_t step_ns);

/* An idle filter gave back its memory: no slices left, under a quarter of
 * the busy filter's bytes. */
void check_idle_released(const tdbf_stats *busy, const tdbf_stats *idle);

/* Errors every design reports the same way; cfg must otherwise open.
 * error 1.0 and 0.0 give TDBF_EERROR, max_memory 1 KiB TDBF_ETOOBIG, and
 * *size (a field of *cfg: window_items or capacity) set to 2^62
 * TDBF_ETOOBIG.  *cfg is restored. */
void check_size_errors(tdbf_config *cfg, uint64_t *size);

/* ---- tdbf_current_error ------------------------------------------------ */

/* tdbf_current_error(f, now) against stats.error_estimated (from the
 * bits, at the filter's latest time: pass that time as now) and the FP
 * measured over `probes` never-inserted keys (stream `seed`).  Prints all
 * three and fails unless the estimate is in [0, 1], within `relative` of
 * error_estimated, and within `relative` plus the 99.9% band of the
 * measured rate (so it never under-reports by more than that).  Returns
 * the estimate; *measured (if not NULL) gets the measured rate. */
double check_current_error(const char *label, const tdbf *f, uint64_t now, uint64_t probes,
                           uint64_t seed, double relative, double *measured);

/* tdbf_current_error that must succeed. */
double current_error_of(const tdbf *f, uint64_t now);

/* After an overload has expired at `gone`: half a window of adds at the
 * planned rate (capacity per window_ns) from there must bring the
 * estimate above 0 but below `steady`, the estimate at the planned rate:
 * the expired adds no longer count. */
void check_estimate_restarts(stream *s, uint64_t gone, uint64_t capacity, uint64_t window_ns,
                             double steady);

/* Reload f (its saved form's checksum must be `checksum`, pinning the
 * format) and compare the copy's tdbf_current_error with f's at
 * now + i * window_ns / steps, i = 0 .. steps: within `relative` of it. */
void check_estimate_survives_reload(const tdbf *f, uint64_t checksum, uint64_t now,
                                    uint64_t window_ns, unsigned steps, double relative);

/* ---- saving and loading -------------------------------------------------- */

/* A growable buffer for tdbf_save (free data when done). */
typedef struct byte_sink {
    unsigned char *data;
    size_t len, cap;
    long fail_after;   /* >= 0: the write that fails (for TDBF_EIO); -1 never */
} byte_sink;

/* tdbf_write_fn appending to a byte_sink. */
int byte_sink_write(void *ctx, const void *buf, size_t len);

/* A tdbf_read_fn source over bytes in memory: reads fail past the end. */
typedef struct byte_source {
    const unsigned char *at;
    size_t left;
} byte_source;

int byte_source_read(void *ctx, void *buf, size_t len);

/* f's saved bytes (the length checked against tdbf_saved_size). */
byte_sink save_bytes(const tdbf *f);

/* a and b save the same bytes. */
void expect_same_saved_bytes(const tdbf *a, const tdbf *b);

/* s->f saved and loaded mid-stream: the copy's stats are the same, and
 * it answers as s->f does 40 000 queries (inserted and never-inserted
 * keys of stream key_seed, at now, now + T/3, now + T and now + 2T) and
 * 3 per_window adds (stream key_seed + 1, at T / per_window a key), and
 * then saves the same bytes.  Returns the queries answered present. */
uint64_t check_reload_mid_stream(const stream *s, uint64_t per_window, uint64_t key_seed);

/* Rewrite the trailing XXH3-64 after a deliberate edit, so that a loader's
 * field checks, not the checksum, must refuse it. */
void reseal_checksum(byte_sink *s);

/* f through tdbf_save and tdbf_load_buffer: the copy's saved bytes must
 * be f's, byte for byte.  *checksum (if not NULL) gets the saved form's
 * trailing XXH3-64, a fingerprint of every byte (docs/format.md). */
tdbf *reload(const tdbf *f, uint64_t *checksum);

#endif /* TDBF_TEST_STREAM_H */
