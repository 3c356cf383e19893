/*
 * driver.c — the generic property/statistics driver for every tdbf design,
 * and the helpers the unit tests share.  See driver.h for the contract.
 */
#include "driver.h"
#include "util/wide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================
 * Deterministic randomness
 * ====================================================================== */

uint64_t drv_mix(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    x ^= x >> 31;
    return x;
}

uint64_t drv_rand(uint64_t *state)
{
    *state += UINT64_C(0x9e3779b97f4a7c15);
    return drv_mix(*state);
}

uint64_t drv_below(uint64_t *state, uint64_t bound)
{
    return tdbf_reduce(drv_rand(state), bound);
}

/* ======================================================================
 * Keys
 * ====================================================================== */

size_t drv_key(uint8_t *buf, uint8_t space, uint64_t seed, uint64_t index)
{
    /* index -> body is a bijection for a fixed seed (add a constant, then
     * the splitmix finalizer), so keys of one stream never repeat. */
    uint64_t body = drv_mix(index + drv_mix(seed ^ UINT64_C(0x5eed5eed5eed5eed)));
    uint64_t tail_state = body ^ ((uint64_t)space << 56) ^ UINT64_C(0x7a11);
    uint64_t tail = drv_rand(&tail_state);
    size_t extra = (size_t)(tail % 16); /* 0..15 more bytes: length 9..24 */
    size_t i;

    buf[0] = space;
    for (i = 0; i < 8; i++)
        buf[1 + i] = (uint8_t)(body >> (8 * i));
    for (i = 0; i < extra; i++) {
        if (i % 8 == 0)
            tail = drv_rand(&tail_state);
        buf[9 + i] = (uint8_t)(tail >> (8 * (i % 8)));
    }
    /* One key in seven gets NUL bytes inside its tail as well. */
    if (index % 7 == 3)
        for (i = 0; i < extra; i += 3)
            buf[9 + i] = 0;
    return 9 + extra;
}

/* ======================================================================
 * Statistics
 * ====================================================================== */

double drv_band(double p, double n, double extra_variance)
{
    return DRV_Z999 * sqrt(p * (1.0 - p) / n + extra_variance);
}

void drv_wilson95(uint64_t x, uint64_t n, double *low, double *high)
{
    if (n == 0) {
        *low = 0.0;
        *high = 1.0;
        return;
    }
    const double z = 1.959964, trials = (double)n, rate = (double)x / trials;
    double centre = rate + z * z / (2.0 * trials);
    double spread = z * sqrt(rate * (1.0 - rate) / trials + z * z / (4.0 * trials * trials));
    double scale = 1.0 + z * z / trials;
    *low = (centre - spread) / scale;
    *high = (centre + spread) / scale;
}

double drv_fill(uint64_t n, uint64_t m)
{
    return -expm1((double)n * log1p(-1.0 / (double)m));
}

double drv_fill_variance(uint64_t n, uint64_t m)
{
    /* X = empty bits: E[X] = m q1, E[X(X-1)] = m(m-1) q2, with
     * q1 = (1-1/m)^n and q2 = (1-2/m)^n; the ratio is 1 - X/m. */
    double dm = (double)m;
    double q1 = exp((double)n * log1p(-1.0 / dm));
    double q2 = m >= 2 ? exp((double)n * log1p(-2.0 / dm)) : 0.0;
    double var = dm * (dm - 1.0) * q2 + dm * q1 - dm * dm * q1 * q1;
    return var > 0.0 ? var / (dm * dm) : 0.0;
}

uint64_t drv_probe_hits(const tdbf *f, uint64_t seed, uint64_t first,
                        uint64_t n, uint64_t now_ns)
{
    uint8_t key[DRV_KEY_MAX];
    uint64_t hits = 0, i;

    for (i = first; i < first + n; i++) {
        size_t len = drv_key(key, DRV_SPACE_PROBE, seed, i);
        int r = tdbf_contains(f, key, len, now_ns);
        if (r < 0)
            fail_msg("tdbf_contains(probe %llu) returned %d (%s)",
                     (unsigned long long)i, r, tdbf_strerror(r));
        hits += (uint64_t)r;
    }
    return hits;
}

/* ======================================================================
 * The driver
 * ====================================================================== */

/* Records the first library error of a run. */
static void drv_note_error(drv_result *res, int rc, const char *call)
{
    if (res->error == 0) {
        res->error = rc;
        res->error_call = call;
    }
}

/* Does f still report key `index` (which must be present)?  Records a false
 * negative.  Returns 1 if the run may go on. */
static int drv_expect_present(const tdbf *f, const drv_opts *opts,
                              drv_result *res, uint64_t index, uint64_t now)
{
    uint8_t key[DRV_KEY_MAX];
    size_t len = drv_key(key, DRV_SPACE_INSERT, opts->key_seed, index);
    int r = tdbf_contains(f, key, len, now);

    res->checks++;
    if (r < 0) {
        drv_note_error(res, r, "tdbf_contains");
        return 0;
    }
    if (r == 0) {
        if (res->false_negatives == 0) {
            res->fn_at_insert = res->inserted;
            res->fn_key = index;
        }
        res->false_negatives++;
        return opts->allow_fn;
    }
    return 1;
}

int drv_run(const tdbf_config *cfg, const drv_opts *opts, drv_result *res)
{
    tdbf *f = NULL;
    tdbf_stats st;
    uint8_t *batch_keys = NULL;
    const void **batch_ptrs = NULL;
    size_t *batch_lens = NULL;
    uint8_t *batch_results = NULL;
    uint64_t *add_time = NULL;
    uint64_t step = opts->time_step_ns ? opts->time_step_ns : 1;
    uint64_t window, inserts, sweep, next_sweep, oldest = 0, now = 0;
    size_t batch = opts->batch > 1 ? opts->batch : 1;
    int rc, go_on = 1;

    memset(res, 0, sizeof *res);
    rc = tdbf_open(&f, cfg);
    if (rc != TDBF_OK) {
        drv_note_error(res, rc, "tdbf_open");
        return rc;
    }
    rc = tdbf_get_stats(f, &st);
    if (rc != TDBF_OK) {
        drv_note_error(res, rc, "tdbf_get_stats");
        goto done;
    }

    switch (opts->window_kind) {
    case DRV_TIME_WINDOW:
        window = (cfg->window_ns + step - 1) / step;
        break;
    case DRV_NO_EXPIRY:
    case DRV_COUNT_WINDOW:
    default:
        window = st.window_items;
        break;
    }
    if (window == 0) {
        drv_note_error(res, TDBF_EWINDOW, "driver: guaranteed window is 0");
        goto done;
    }
    res->window = window;
    inserts = opts->inserts;
    if (inserts == 0)
        inserts = opts->window_kind == DRV_NO_EXPIRY ? window : 4 * window;
    if (opts->window_kind == DRV_NO_EXPIRY && inserts > window)
        inserts = window; /* no-FN is only promised up to the capacity */
    sweep = opts->sweep_every ? opts->sweep_every : window;
    next_sweep = sweep;

    if (batch > 1) {
        batch_keys = malloc(batch * DRV_KEY_MAX);
        batch_ptrs = malloc(batch * sizeof *batch_ptrs);
        batch_lens = malloc(batch * sizeof *batch_lens);
        batch_results = malloc(batch);
        if (!batch_keys || !batch_ptrs || !batch_lens || !batch_results) {
            drv_note_error(res, TDBF_ENOMEM, "driver: malloc");
            goto done;
        }
    }
    if (opts->window_kind == DRV_TIME_WINDOW) {
        /* The time each key was added: batches share one timestamp. */
        add_time = malloc(inserts * sizeof *add_time);
        if (!add_time) {
            drv_note_error(res, TDBF_ENOMEM, "driver: malloc");
            goto done;
        }
    }

    while (res->inserted < inserts && go_on) {
        uint64_t first = res->inserted;
        size_t chunk = batch;
        size_t j;

        if (chunk > inserts - first)
            chunk = (size_t)(inserts - first);
        if (opts->window_kind == DRV_TIME_WINDOW)
            now = (first + 1) * step;

        if (batch == 1) {
            uint8_t key[DRV_KEY_MAX];
            size_t len = drv_key(key, DRV_SPACE_INSERT, opts->key_seed, first);
            int r = tdbf_add(f, key, len, now);
            if (r < 0) {
                drv_note_error(res, r, "tdbf_add");
                break;
            }
            res->add_present += (uint64_t)r;
        } else {
            for (j = 0; j < chunk; j++) {
                batch_ptrs[j] = batch_keys + j * DRV_KEY_MAX;
                batch_lens[j] = drv_key(batch_keys + j * DRV_KEY_MAX,
                                        DRV_SPACE_INSERT, opts->key_seed,
                                        first + j);
            }
            rc = tdbf_add_batch(f, chunk, (const void *const *)batch_ptrs,
                                batch_lens, now, batch_results);
            if (rc < 0) {
                drv_note_error(res, rc, "tdbf_add_batch");
                break;
            }
            for (j = 0; j < chunk; j++)
                res->add_present += batch_results[j];
        }
        if (add_time)
            for (j = 0; j < chunk; j++)
                add_time[first + j] = now;
        res->inserted += chunk;

        /* Move `oldest` to the oldest key the window still guarantees. */
        switch (opts->window_kind) {
        case DRV_COUNT_WINDOW:
            oldest = res->inserted > window ? res->inserted - window : 0;
            break;
        case DRV_TIME_WINDOW:
            /* present iff added at t > now - window_ns */
            while (now >= cfg->window_ns && oldest < res->inserted &&
                   add_time[oldest] <= now - cfg->window_ns)
                oldest++;
            break;
        default:
            oldest = 0;
            break;
        }
        if (oldest < res->inserted)
            go_on = drv_expect_present(f, opts, res, oldest, now);
        if (go_on && (res->inserted >= next_sweep || res->inserted == inserts)) {
            uint64_t k;
            for (k = oldest; k < res->inserted && go_on; k++)
                go_on = drv_expect_present(f, opts, res, k, now);
            while (next_sweep <= res->inserted)
                next_sweep += sweep;
        }
    }
    if (res->error)
        goto done;

    res->probes = opts->probes ? opts->probes : 100000;
    {
        uint8_t key[DRV_KEY_MAX];
        uint64_t i;
        for (i = 0; i < res->probes; i++) {
            size_t len = drv_key(key, DRV_SPACE_PROBE, opts->key_seed, i);
            int r = tdbf_contains(f, key, len, now);
            if (r < 0) {
                drv_note_error(res, r, "tdbf_contains(probe)");
                goto done;
            }
            res->false_positives += (uint64_t)r;
        }
        res->fp_rate = (double)res->false_positives / (double)res->probes;
    }
    rc = tdbf_get_stats(f, &res->stats);
    if (rc != TDBF_OK) {
        drv_note_error(res, rc, "tdbf_get_stats");
        goto done;
    }
    res->bits_per_item = res->stats.bits_per_item;

done:
    res->now_ns = now;
    tdbf_close(f);
    free(batch_keys);
    free(batch_ptrs);
    free(batch_lens);
    free(batch_results);
    free(add_time);
    return res->error;
}

void drv_check(const char *label, const drv_result *res, int allow_fn)
{
    print_message("  %s: %llu inserts, window %llu, %llu checks, %llu FN, "
                  "FP %llu/%llu = %.6f (add said present %llu), "
                  "%.2f bits/item\n",
                  label, (unsigned long long)res->inserted,
                  (unsigned long long)res->window,
                  (unsigned long long)res->checks,
                  (unsigned long long)res->false_negatives,
                  (unsigned long long)res->false_positives,
                  (unsigned long long)res->probes, res->fp_rate,
                  (unsigned long long)res->add_present, res->bits_per_item);
    if (res->error)
        fail_msg("%s: %s returned %d (%s)", label,
                 res->error_call ? res->error_call : "?", res->error,
                 tdbf_strerror(res->error));
    if (!allow_fn && res->false_negatives)
        fail_msg("%s: false negative: key #%llu missing after %llu inserts "
                 "(age %llu inserts, guaranteed window %llu)",
                 label, (unsigned long long)res->fn_key,
                 (unsigned long long)res->fn_at_insert,
                 (unsigned long long)(res->fn_at_insert - res->fn_key),
                 (unsigned long long)res->window);
}

void drv_run_count(const char *label, const tdbf_config *cfg,
                   uint64_t inserts, size_t batch, drv_result *res)
{
    drv_opts o;
    memset(&o, 0, sizeof o);
    o.window_kind = DRV_COUNT_WINDOW;
    o.inserts = inserts;
    o.probes = 50000;
    o.key_seed = cfg->seed;
    o.batch = batch;
    drv_run(cfg, &o, res);
    drv_check(label, res, 0);
}

tdbf *drv_open(const tdbf_config *cfg)
{
    tdbf *f = NULL;
    int rc = tdbf_open(&f, cfg);
    if (rc != TDBF_OK)
        fail_msg("tdbf_open(design %d, error %g, window_items %llu, "
                 "window_ns %llu, k %u, l %u) returned %d (%s)",
                 (int)cfg->design, cfg->error,
                 (unsigned long long)cfg->window_items,
                 (unsigned long long)cfg->window_ns, cfg->k, cfg->l, rc,
                 tdbf_strerror(rc));
    if (f == NULL)
        fail_msg("tdbf_open returned TDBF_OK but a NULL handle");
    return f;
}

void drv_expect_open(const tdbf_config *cfg, int want, const char *what)
{
    tdbf *f = (tdbf *)&f; /* must be reset to NULL on failure */
    int rc = tdbf_open(&f, cfg);
    if (rc != want)
        fail_msg("%s: tdbf_open returned %d (%s), expected %d (%s)", what, rc,
                 tdbf_strerror(rc), want, tdbf_strerror(want));
    if (rc != TDBF_OK && f != NULL)
        fail_msg("%s: failed open left a non-NULL handle", what);
    tdbf_close(f);
}

/* ---- one key by index ---------------------------------------------------- */

int drv_add_index(tdbf *f, uint64_t key_seed, uint64_t index)
{
    uint8_t key[DRV_KEY_MAX];
    size_t len = drv_key(key, DRV_SPACE_INSERT, key_seed, index);
    int r = tdbf_add(f, key, len, 0);
    if (r < 0)
        fail_msg("tdbf_add(key %llu) returned %d (%s)",
                 (unsigned long long)index, r, tdbf_strerror(r));
    return r;
}

int drv_contains_index(const tdbf *f, uint64_t key_seed, uint64_t index)
{
    uint8_t key[DRV_KEY_MAX];
    size_t len = drv_key(key, DRV_SPACE_INSERT, key_seed, index);
    int r = tdbf_contains(f, key, len, 0);
    if (r < 0)
        fail_msg("tdbf_contains(key %llu) returned %d (%s)",
                 (unsigned long long)index, r, tdbf_strerror(r));
    return r;
}
