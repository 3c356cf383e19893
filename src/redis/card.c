/*
 * card.c — TDBF.CARD's estimate of the distinct items in a filter's
 * window (layer 2, type.h).
 *
 * A Bloom filter cannot count what it holds, and the adds it answered
 * "new" undercount as soon as items recur: an item added every half
 * window answers "new" once, and is not counted once that first add has
 * aged out, though it is in the window.  So the value keeps, beside the
 * filter, a HyperLogLog sketch (Flajolet, Fusy, Gandouet and Meunier,
 * 2007) per age bucket, and a query merges the buckets still in the window.
 *
 *   window w (adds, or ms)            buckets of span = ceil(w / 4)
 *   |  b-4  |  b-3  |  b-2  |  b-1  |  b (newest, filling)  |
 *   each bucket: 512 one-byte registers, M[j] = max rank of the items
 *   whose hash falls in register j
 *
 * An item's 64-bit hash (XXH3, seeded with the filter's seed, so replicas
 * and restores hash alike) picks register j from its top 9 bits; its rank
 * is 1 + the leading zeros of the other 55.  Registers only grow, and the
 * register-wise maximum of several buckets is the sketch of the union of
 * their items: an item added in several buckets counts once.  A count
 * window's buckets follow its adds (span adds each), a time window's the
 * clock (span ms each; an add stamped with the primary's time, so the
 * same on replicas and AOF replays).  A query merges the 5 buckets that
 * overlap the window: the estimate covers the window plus at most one
 * span (w / 4), the items the filter itself may still report past its
 * window (its slack) being of the same order.
 *
 * Estimate: Ertl's improved raw estimator ("New cardinality estimation
 * algorithms for HyperLogLog sketches", 2017, eq. 12 and Algorithm 6),
 *     n = alpha_inf m^2 / (m sigma(C_0 / m) + sum_k C_k 2^-k + m tau(1 - C_{q+1} / m) 2^-q)
 * with C_k the registers holding k, q = 64 - 9: unbiased from 0 to
 * beyond 10^9 items without the empirical bias tables of HyperLogLog++.
 * Relative standard error 1.04 / sqrt(512) = 4.6 % (measured: 1000
 * distinct items under 20 seeds, 3.5 % rms, worst -5.7 % and +7.1 %; a
 * stream over 2^16 keys, 51 783 for 51 311 distinct in the window and
 * 55 793 in 1.25 windows).  Small sets count as by linear counting: one
 * item reads 1, 100 items within about 3 %.  Memory: 5 x 512 bytes a
 * filter (a 1000-item apbf-line filter is about 3 KB).
 */
#include <math.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "type.h"

#define CARD_INDEX_BITS  9
#define CARD_REGISTERS   (1u << CARD_INDEX_BITS)
#define CARD_RANK_MAX    (64 - CARD_INDEX_BITS + 1)   /* q + 1 */
#define CARD_BUCKETS     4                            /* spans per window */
#define CARD_RING        (CARD_BUCKETS + 1)

struct rtdbf_card {
    uint64_t span;      /* adds (count window) or ms (time window) per bucket */
    bool     timed;
    uint64_t seed;      /* the filter's hash seed */
    uint64_t adds;      /* count window: adds seen, which number the buckets */
    uint64_t newest;    /* number of the newest bucket written */
    uint64_t since;     /* first bucket whose every add the sketch saw
                           (UINT64_MAX: none yet: restored without a sketch) */
    uint8_t  reg[CARD_RING][CARD_REGISTERS];
};

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

rtdbf_card *rtdbf_card_new(const tdbf_shape *shape, bool complete)
{
    rtdbf_card *c = rtdbf_module_try_alloc(sizeof *c);
    if (!c)
        return NULL;
    memset(c, 0, sizeof *c);
    c->timed = shape->window_ns != 0;
    uint64_t window = c->timed ? ceil_div(shape->window_ns, 1000000u) : shape->window_items;
    c->span = window ? ceil_div(window, CARD_BUCKETS) : UINT64_MAX;  /* no window: one bucket */
    c->seed = shape->seed;
    c->since = complete ? 0 : UINT64_MAX;
    return c;
}

void rtdbf_card_free(rtdbf_card *c)
{
    if (c)
        RedisModule_Free(c);
}

/* The bucket an add at now_ms goes to (count windows: the next add's). */
static uint64_t bucket_at(const rtdbf_card *c, uint64_t now_ms)
{
    return (c->timed ? now_ms : c->adds) / c->span;
}

/* Make `bucket` the newest, clearing the ring slots of the buckets it
 * skips over (they aged out, or nothing was added in them). */
static void advance_to(rtdbf_card *c, uint64_t bucket)
{
    if (bucket <= c->newest)
        return;
    uint64_t first = bucket - c->newest > CARD_RING ? bucket - CARD_RING + 1 : c->newest + 1;
    for (uint64_t b = first; b <= bucket; b++)
        memset(c->reg[b % CARD_RING], 0, CARD_REGISTERS);
    c->newest = bucket;
}

void rtdbf_card_add(rtdbf_card *c, const void *item, size_t len, uint64_t now_ms)
{
    /* A clock that steps back writes to the newest bucket (the filter
     * clamps its time the same way). */
    uint64_t bucket = bucket_at(c, now_ms);
    if (c->since == UINT64_MAX)
        c->since = bucket + 1;      /* this bucket's earlier adds were not seen */
    advance_to(c, bucket);
    uint64_t hash = XXH3_64bits_withSeed(item, len, c->seed);
    unsigned index = (unsigned)(hash >> (64 - CARD_INDEX_BITS));
    uint64_t rest = hash << CARD_INDEX_BITS;
    unsigned rank = 1;
    while (rank < CARD_RANK_MAX && !(rest & (UINT64_C(1) << 63))) {
        rest <<= 1;
        rank++;
    }
    uint8_t *r = &c->reg[c->newest % CARD_RING][index];
    if (*r < rank)
        *r = (uint8_t)rank;
    c->adds++;
}

/* sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1) (Ertl, eq. 11). */
static double ertl_sigma(double x)
{
    if (x == 1.0)
        return INFINITY;
    double y = 1.0, z = x, previous;
    do {
        x *= x;
        previous = z;
        z += x * y;
        y += y;
    } while (z != previous);
    return z;
}

/* tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3 (Ertl, eq. 11). */
static double ertl_tau(double x)
{
    if (x == 0.0 || x == 1.0)
        return 0.0;
    double y = 1.0, z = 1.0 - x, previous;
    do {
        x = sqrt(x);
        previous = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
    } while (z != previous);
    return z / 3.0;
}

bool rtdbf_card_estimate(const rtdbf_card *c, uint64_t now_ms, uint64_t *out)
{
    /* The live buckets: the newest CARD_RING written, of which a time
     * window keeps those not yet older than the window. */
    uint64_t newest = c->newest, oldest = newest >= CARD_BUCKETS ? newest - CARD_BUCKETS : 0;
    if (c->timed) {
        uint64_t now_bucket = bucket_at(c, now_ms);
        if (now_bucket > newest && now_bucket - newest > CARD_BUCKETS) {
            *out = 0;                /* everything aged out */
            return true;
        }
        if (now_bucket >= CARD_BUCKETS && now_bucket - CARD_BUCKETS > oldest)
            oldest = now_bucket - CARD_BUCKETS;
    }
    if (c->since == UINT64_MAX || oldest < c->since)
        return false;                /* the sketch missed adds still in the window */
    uint32_t histogram[CARD_RANK_MAX + 1] = {0};
    for (unsigned j = 0; j < CARD_REGISTERS; j++) {
        uint8_t rank = 0;
        for (uint64_t b = oldest; b <= newest; b++)
            if (c->reg[b % CARD_RING][j] > rank)
                rank = c->reg[b % CARD_RING][j];
        histogram[rank]++;
    }
    double m = CARD_REGISTERS;
    double z = m * ertl_tau(1.0 - histogram[CARD_RANK_MAX] / m);
    for (int k = CARD_RANK_MAX - 1; k >= 1; k--)
        z = 0.5 * (z + histogram[k]);
    z += m * ertl_sigma(histogram[0] / m);
    double alpha = 0.5 / log(2.0);
    *out = (uint64_t)llround(alpha * m * m / z);
    return true;
}

/* ======================================================================
 * The saved form: 40 bytes of little-endian fields, then the registers
 *
 *   u64 span   u64 adds   u64 newest   u64 since   u8 timed, 7 bytes 0
 *   CARD_RING x CARD_REGISTERS registers, each <= CARD_RANK_MAX
 * ====================================================================== */

#define CARD_HEAD_BYTES 40

size_t rtdbf_card_saved_size(void)
{
    return CARD_HEAD_BYTES + (size_t)CARD_RING * CARD_REGISTERS;
}

void rtdbf_put_le64(unsigned char *p, uint64_t x)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(x >> (8 * i));
}

uint64_t rtdbf_get_le64(const unsigned char *p)
{
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--)
        x = (x << 8) | p[i];
    return x;
}

void rtdbf_card_save(const rtdbf_card *c, unsigned char *out)
{
    memset(out, 0, CARD_HEAD_BYTES);
    rtdbf_put_le64(out, c->span);
    rtdbf_put_le64(out + 8, c->adds);
    rtdbf_put_le64(out + 16, c->newest);
    rtdbf_put_le64(out + 24, c->since);
    out[32] = c->timed;
    memcpy(out + CARD_HEAD_BYTES, c->reg, sizeof c->reg);
}

bool rtdbf_card_load(rtdbf_card *c, const unsigned char *in, size_t len)
{
    if (len != rtdbf_card_saved_size() || rtdbf_get_le64(in) != c->span || in[32] != c->timed)
        return false;     /* made for another window */
    for (size_t i = CARD_HEAD_BYTES; i < len; i++)
        if (in[i] > CARD_RANK_MAX)
            return false;
    c->adds = rtdbf_get_le64(in + 8);
    c->newest = rtdbf_get_le64(in + 16);
    c->since = rtdbf_get_le64(in + 24);
    memcpy(c->reg, in + CARD_HEAD_BYTES, sizeof c->reg);
    return true;
}
