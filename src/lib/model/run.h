/*
 * run.h — Algorithm 1 of paper 004 (section 5.4), for one key and for a
 * batch (private; APBF, APBBF, TLBF).
 *
 * A design hands the walk its own small functions as direct arguments
 * (a test of one logical slice, the line that test reads, and for adds
 * the set, the single add and the room before a shift).  Everything here
 * is always inlined and the designs pass their static functions, so the
 * walk is compiled once per design with direct calls: no table of
 * callbacks is read at run time.
 */
#ifndef TDBF_RUN_H
#define TDBF_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tdbf.h"
#include "util/bits.h"
#include "util/check.h"
#include "util/hash.h"

/* ---- the design's functions ---------------------------------------- */

/* Does logical slice `slice` (0 = newest) match the key? */
typedef int (*tdbf_slice_test)(const void *state, unsigned slice, const tdbf_hash128 *h);
/* The address the slice test reads (a word, or a block); for slices
 * 0 .. k-1 also the cell an add writes.  The batch walks prefetch it. */
typedef const void *(*tdbf_slice_line)(const void *state, unsigned slice,
                                       const tdbf_hash128 *h);
/* Write the key into s_0 .. s_{k-1} and count it; no shift is due. */
typedef void (*tdbf_slice_set)(void *state, const tdbf_hash128 *h);
/* The single add: query, shift if due, set; 1 = was present, 0 = new. */
typedef int (*tdbf_slice_add)(void *state, const tdbf_hash128 *h);
/* Adds that can still be made before one shifts (g - fill, 0 if the next
 * add shifts), and in *l the l of Algorithm 1 until then (the slices past
 * k a query reads). */
typedef uint64_t (*tdbf_slice_room)(const void *state, unsigned *l);

/* ---- one key -----------------------------------------------------------
 * Is there a run of k consecutive matching slices s_j .. s_{j+k-1} with
 * j <= start?  Start at s_start, count matches walking towards older
 * slices; on a miss jump k back keeping the count as the part already
 * matched beyond the jump; stop when the parts add up to k (yes) or the
 * index goes below 0 (no). */

/* Algorithm 1 as a resumable walk: the state between two slice tests. */
typedef struct tdbf_run_walk {
    int i;            /* the slice to test next */
    int before_jump;  /* matches counted beyond the last jump */
    int run;          /* matches since the last jump */
} tdbf_run_walk;

/* Feed the walk whether slice w->i matched.  Returns 1 (found), 0 (the
 * index went below 0: absent) or -1 (test slice w->i next). */
static TDBF_ALWAYS_INLINE int tdbf_run_step(tdbf_run_walk *w, unsigned k, int match)
{
    /* A walk that has not answered holds fewer than k matches, and tests
     * a slice that exists (a jump below 0 answered "absent"). */
    TDBF_ASSERT(w->i >= 0 && w->run >= 0 && w->before_jump >= 0 &&
                w->before_jump + w->run < (int)k);
    if (!match) {
        w->before_jump = w->run;
        w->run = 0;
        w->i -= (int)k;
        return w->i >= 0 ? -1 : 0;
    }
    if (w->before_jump + ++w->run == (int)k)
        return 1;
    w->i++;
    return -1;
}

static TDBF_ALWAYS_INLINE int tdbf_find_run(const void *state, unsigned k, unsigned start,
                                            const tdbf_hash128 *h, tdbf_slice_test has)
{
    tdbf_run_walk w = { .i = (int)start };
    int found;
    do
        found = tdbf_run_step(&w, k, has(state, (unsigned)w.i, h));
    while (found < 0);
    return found;
}

/* Algorithm 1's first reads for one key, asked for together.  Which
 * slice a walk reads next depends on what it read, but its first few
 * candidates do not: s_start, then s_{start+1} (a match) or s_{start-k} (a
 * miss), and so on down the tree of outcomes.  A single call that
 * prefetches the lines of the first TDBF_RUN_AHEAD distinct slices of that
 * tree (breadth first) before testing has those reads in flight at once
 * instead of one after another.  With k = 1 the tree is a chain through
 * s_start .. s_0, every slice a query can read: APBBF's k = 1, l = 4
 * plans are covered whole.  The slices depend on (k, start) alone, so a
 * filter lists them once at open (tdbf_run_ahead_slices).  8: a negative
 * APBBF-512 query at w = 10^7 reads ~4.3 blocks, APBF's ~5.6 slices
 * (about 3 of them among its first 8). */
enum { TDBF_RUN_AHEAD = 8 };

/* The first up to TDBF_RUN_AHEAD distinct slices of Algorithm 1's tree of
 * outcomes from s_start, breadth first, into slices[]; returns how many. */
static inline unsigned tdbf_run_ahead_slices(unsigned k, unsigned start,
                                             uint16_t slices[TDBF_RUN_AHEAD])
{
    tdbf_run_walk queue[2 * TDBF_RUN_AHEAD];
    unsigned head = 0, tail = 0, count = 0;
    queue[tail++] = (tdbf_run_walk){ .i = (int)start };
    while (head < tail && count < TDBF_RUN_AHEAD) {
        tdbf_run_walk w = queue[head++];
        bool seen = false;
        for (unsigned j = 0; j < count; j++)
            seen |= slices[j] == (unsigned)w.i;
        if (!seen)
            slices[count++] = (uint16_t)w.i;
        for (int match = 1; match >= 0; match--) {
            tdbf_run_walk next = w;
            if (tdbf_run_step(&next, k, match) < 0 && tail < 2 * TDBF_RUN_AHEAD)
                queue[tail++] = next;
        }
    }
    TDBF_ASSERT(count >= 1 && count <= TDBF_RUN_AHEAD);
    return count;
}

/* Prefetch the lines of slices[0 .. count-1] of the key (always inline:
 * a helper that only prefetches is deleted by GCC, see tdbf_prefetch). */
static TDBF_ALWAYS_INLINE void tdbf_run_ahead(const void *state, const uint16_t *slices,
                                              unsigned count, const tdbf_hash128 *h,
                                              tdbf_slice_line line)
{
    for (unsigned j = 0; j < count; j++)
        tdbf_prefetch(line(state, slices[j], h), 0);
}

/* ---- a batch of queries -------------------------------------------------
 * Algorithm 1 for n keys at once, exactly tdbf_find_run per key.  Which
 * slices a query reads depends on what it has read, so no fixed set of
 * prefetches covers its path (a present key walks up its run; APBF's
 * slices match half the time).  Instead TDBF_WALK_LANES walks advance in
 * turn, one slice test each (32 lanes: 16 gave 150 ns per APBF query at
 * w = 2e7, 32 gave 104): a lane prefetches the line of its next
 * slice and yields, and by the time its turn comes back the line has
 * arrived.  So ~TDBF_WALK_LANES misses are in flight, on exactly the
 * lines the queries read.  `line` returns the address `has` will read. */
enum { TDBF_WALK_LANES = 32 };

static TDBF_ALWAYS_INLINE void tdbf_find_run_batch(
    const void *state, unsigned k, unsigned start, const tdbf_key *keys,
    size_t n, tdbf_slice_test has, tdbf_slice_line line, uint8_t *found)
{
    tdbf_run_walk walk[TDBF_WALK_LANES];
    size_t key[TDBF_WALK_LANES], lanes = 0, next = 0;
    for (; lanes < TDBF_WALK_LANES && next < n; lanes++, next++) {
        walk[lanes] = (tdbf_run_walk){ .i = (int)start };
        key[lanes] = next;
        tdbf_prefetch(line(state, start, &keys[next].hash), 0);
    }
    while (lanes > 0) {
        for (size_t j = 0; j < lanes;) {
            const tdbf_hash128 *h = &keys[key[j]].hash;
            int r = tdbf_run_step(&walk[j], k, has(state, (unsigned)walk[j].i, h));
            if (r < 0) {
                tdbf_prefetch(line(state, (unsigned)walk[j].i, h), 0);
                j++;
                continue;
            }
            found[key[j]] = (uint8_t)r;
            if (next < n) { /* the lane takes the next key */
                walk[j] = (tdbf_run_walk){ .i = (int)start };
                key[j] = next;
                tdbf_prefetch(line(state, start, &keys[next].hash), 0);
                next++;
                j++;
            } else { /* no keys left: the last lane moves here */
                lanes--;
                walk[j] = walk[lanes];
                key[j] = key[lanes];
            }
        }
    }
}

/* ---- a batch of adds ----------------------------------------------------
 * Test-and-insert of n keys at once (APBF, APBBF, TLBF), exactly n single
 * adds in order.  Per stretch of keys that ends before a shift is due:
 *   1. the queries are walked interleaved (tdbf_find_run_batch) on the
 *      state before the stretch;
 *   2. the keys are then set one by one, in order, with the k cells each
 *      writes prefetched a few keys ahead.
 * Within a stretch bits are only set, in s_0 .. s_{k-1}, so a walked
 * "present" stays right, and a walked "absent" can be wrong only if an
 * earlier key of the stretch wrote one of this key's own cells there: the
 * cells written are remembered in a small bitmap (by address), and a key
 * whose cell is in it is queried again, from cache.  A due shift is done
 * by the single add, between stretches. */
enum { TDBF_SET_AHEAD = 8, TDBF_WRITTEN_BITS = 1u << 16 };

/* A written cell's bit in the stretch's bitmap: Fibonacci hashing of its
 * word address (the product wraps on purpose). */
TDBF_WRAPS static inline uint64_t tdbf_written_slot(const void *cell)
{
    return ((uint64_t)(uintptr_t)cell >> 3) * UINT64_C(0x9e3779b97f4a7c15) >> 48;
}

static TDBF_ALWAYS_INLINE int tdbf_written_any(const uint64_t *written,
                                               const void *const *cell, unsigned k)
{
    for (unsigned c = 0; c < k; c++) {
        uint64_t slot = tdbf_written_slot(cell[c]);
        if (written[slot >> 6] >> (slot & 63) & 1)
            return 1;
    }
    return 0;
}

static TDBF_ALWAYS_INLINE void tdbf_written_mark(uint64_t *written,
                                                 const void *const *cell, unsigned k)
{
    for (unsigned c = 0; c < k; c++) {
        uint64_t slot = tdbf_written_slot(cell[c]);
        written[slot >> 6] |= UINT64_C(1) << (slot & 63);
    }
}

/* The k cells an add of the key writes, in s_0 .. s_{k-1}, asked for. */
static TDBF_ALWAYS_INLINE void tdbf_cells_ahead(const void *state, tdbf_slice_line line,
                                                const tdbf_hash128 *h, unsigned k,
                                                const void **cell)
{
    for (unsigned c = 0; c < k; c++) {
        cell[c] = line(state, c, h);
        tdbf_prefetch(cell[c], 1);
    }
}

/* Keys [0, m) of a stretch: no shift falls inside it. */
static TDBF_ALWAYS_INLINE void tdbf_add_stretch(void *state, unsigned k, unsigned l,
                                                const tdbf_key *keys, size_t m,
                                                tdbf_slice_test has, tdbf_slice_line line,
                                                tdbf_slice_set set, uint64_t *written,
                                                uint8_t *present)
{
    const void *cell[TDBF_SET_AHEAD][TDBF_MAX_K];
    tdbf_find_run_batch(state, k, l, keys, m, has, line, present);
    memset(written, 0, TDBF_WRITTEN_BITS / 8);
    for (size_t i = 0; i < m && i < TDBF_SET_AHEAD; i++)
        tdbf_cells_ahead(state, line, &keys[i].hash, k, cell[i]);
    for (size_t i = 0; i < m; i++) {
        const void **mine = cell[i % TDBF_SET_AHEAD];
        if (!present[i] && tdbf_written_any(written, mine, k))
            present[i] = (uint8_t)tdbf_find_run(state, k, l, &keys[i].hash, has);
        set(state, &keys[i].hash);
        tdbf_written_mark(written, mine, k);
        if (i + TDBF_SET_AHEAD < m)
            tdbf_cells_ahead(state, line, &keys[i + TDBF_SET_AHEAD].hash, k, mine);
    }
}

static TDBF_ALWAYS_INLINE void tdbf_add_run_batch(void *state, unsigned k,
                                                  const tdbf_key *keys, size_t n,
                                                  tdbf_slice_test has, tdbf_slice_line line,
                                                  tdbf_slice_set set, tdbf_slice_add add,
                                                  tdbf_slice_room room, uint8_t *present)
{
    uint64_t written[TDBF_WRITTEN_BITS / 64];
    for (size_t done = 0; done < n;) {
        unsigned l = 0;
        uint64_t left = room(state, &l);
        if (left == 0) { /* this add shifts: the single add does it */
            present[done] = (uint8_t)add(state, &keys[done].hash);
            done++;
            continue;
        }
        size_t m = n - done < left ? n - done : (size_t)left;
        TDBF_ASSERT(m >= 1 && m <= left);   /* no shift inside the stretch */
        tdbf_add_stretch(state, k, l, keys + done, m, has, line, set, written,
                         present + done);
        done += m;
    }
}

#endif
