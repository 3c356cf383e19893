/*
 * tlbf_save.c — the TLBF's saved form (codec.c, docs/format.md): its fields,
 * a record per slice, then the slices' words; the loader checks every
 * field, against each other and the payload's length, before it
 * allocates.  What the fields mean is tlbf.c's essay.
 */
#include <math.h>
#include <string.h>

#include "util/bits.h"
#include "util/serial.h"
#include "util/mem.h"
#include "designs/tlbf/internal.h"
#include "model/planning.h"

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u32 k, u32 l, u32 max_slices, u32 L, u32 next_hash, u32 ring
 * size (so memory after load is byte for byte the same),
 * u64 T, u64 countdown, u64 g*, u64 last shift, u64 shifts, u64 cap hits,
 * u64 max_memory, f64 0 (see below); then L slice records, newest first
 * (u64 m, u64 capacity, u64 count, u64 generation, u64 stamp, u32 hash,
 * u32 0); then the L slices' words in the same order; then u64 home_g,
 * the capacity hint's generation (0: none; absent from files saved before
 * it was kept, which load with none).  All records come before any words
 * so the whole size is checked before allocating.
 *
 * The f64 once held the planned FP.  That number comes out of the F
 * recursion in doubles, whose last digit depends on how the machine
 * evaluates them (x87's 80-bit registers on i686 round it differently
 * from SSE2), so storing it made the bytes of a file depend on the
 * platform that wrote it.  It is now written as 0 and recomputed on load
 * from what fixed it at open: k, l and the capacity's generation (home_g;
 * the default capacity without a hint).  Files from before home_g keep
 * their stored value, the only record of their plan. */

enum { TLBF_FIELDS_BYTES = 88, TLBF_SLICE_BYTES = 48, TLBF_HINT_BYTES = 8 };
#define TLBF_MAX_HOME_G (UINT64_C(1) << 52)

/* The FP open planned for (k, l) and home_g: plan_size gives the same
 * slice bits m for a window of l * home_g as for the capacity that gave
 * home_g (the least m whose generation reaches it), so the same exact-fill
 * F; without a hint, open planned for the default capacity.  -1 if the
 * parameters cannot be planned (a damaged file). */
static double planned_fp(unsigned k, unsigned l, uint64_t home_g)
{
    tdbf_plan plan;
    uint64_t window = home_g ? (uint64_t)l * home_g : TLBF_DEFAULT_CAPACITY;
    return tdbf_plan_eval(k, l, window, &plan) == TDBF_OK ? plan.fp : -1.0;
}

uint64_t tdbf_tlbf_payload_size(const tdbf *f)
{
    const tlbf *t = f->state.impl;
    uint64_t bytes = TLBF_FIELDS_BYTES + (uint64_t)t->count * TLBF_SLICE_BYTES;
    for (unsigned i = 0; i < t->count; i++)
        bytes += tdbf_tlbf_slice_bytes(at(t, i)->m);
    return bytes + TLBF_HINT_BYTES;
}

void tdbf_tlbf_save(const tdbf *f, tdbf_out *out)
{
    const tlbf *t = f->state.impl;
    tdbf_out_u32(out, t->k);
    tdbf_out_u32(out, t->l);
    tdbf_out_u32(out, t->max_slices);
    tdbf_out_u32(out, t->count);
    tdbf_out_u32(out, t->next_hash);
    tdbf_out_u32(out, t->ring_size);
    tdbf_out_u64(out, t->window_ns);
    tdbf_out_u64(out, t->countdown);
    tdbf_out_u64(out, t->gen_target);
    tdbf_out_u64(out, t->last_shift_ns);
    tdbf_out_u64(out, t->shifts);
    tdbf_out_u64(out, t->cap_hits);
    tdbf_out_u64(out, t->max_memory);
    tdbf_out_f64(out, 0.0);       /* the planned FP: recomputed on load */
    for (unsigned i = 0; i < t->count; i++) {
        const slice *s = at(t, i);
        tdbf_out_u64(out, s->m);
        tdbf_out_u64(out, s->capacity);
        tdbf_out_u64(out, s->count);
        tdbf_out_u64(out, s->generation);
        tdbf_out_u64(out, s->stamp);
        tdbf_out_u32(out, s->hash);
        tdbf_out_u32(out, 0);
    }
    for (unsigned i = 0; i < t->count; i++)
        tdbf_out_words(out, at(t, i)->bits, tdbf_words_for_bits(at(t, i)->m));
    tdbf_out_u64(out, t->home_g);
}

/* Fields of the filter, checked against each other. */
static int load_fields(tdbf_in *in, tlbf *h, uint64_t now_ns)
{
    tdbf_in_u32(in, &h->k);
    tdbf_in_u32(in, &h->l);
    tdbf_in_u32(in, &h->max_slices);
    tdbf_in_u32(in, &h->count);
    tdbf_in_u32(in, &h->next_hash);
    tdbf_in_u32(in, &h->ring_size);
    tdbf_in_u64(in, &h->window_ns);
    tdbf_in_u64(in, &h->countdown);
    tdbf_in_u64(in, &h->gen_target);
    tdbf_in_u64(in, &h->last_shift_ns);
    tdbf_in_u64(in, &h->shifts);
    tdbf_in_u64(in, &h->cap_hits);
    tdbf_in_u64(in, &h->max_memory);
    if (tdbf_in_f64(in, &h->fp_planned) != TDBF_OK)
        return in->rc;
    if (h->k < 1 || h->k > TDBF_MAX_K || h->l < 1 || h->l > TDBF_MAX_L ||
        h->max_slices <= h->k + h->l || h->max_slices > h->k + TDBF_MAX_L ||
        h->count > h->max_slices || (h->count != 0 && h->count < h->k) ||
        h->next_hash >= h->k || h->ring_size < h->count || h->ring_size < 1 ||
        h->ring_size > h->max_slices || h->window_ns == 0 ||
        h->last_shift_ns > now_ns || h->gen_target == 0 ||
        !(h->fp_planned >= 0.0 && h->fp_planned <= 1.0))
        return TDBF_ECORRUPT;
    h->span_ns = h->window_ns / h->l ? h->window_ns / h->l : 1;
    return TDBF_OK;
}

/* Slice records: sizes bounded, stamps not after now and not increasing
 * with age (queries rely on stale slices being a suffix). */
static int load_slice_records(tdbf_in *in, const tlbf *h, slice *records,
                              uint64_t now_ns, uint64_t *words)
{
    *words = 0;
    for (unsigned i = 0; i < h->count; i++) {
        slice *s = &records[i];
        uint32_t hash, reserved;
        tdbf_in_u64(in, &s->m);
        tdbf_in_u64(in, &s->capacity);
        tdbf_in_u64(in, &s->count);
        tdbf_in_u64(in, &s->generation);
        tdbf_in_u64(in, &s->stamp);
        tdbf_in_u32(in, &hash);
        if (tdbf_in_u32(in, &reserved) != TDBF_OK)
            return in->rc;
        s->hash = hash;
        if (s->m < 1 || s->m > (UINT64_C(1) << 40) || hash >= h->k || reserved != 0 ||
            s->stamp > now_ns || (i > 0 && s->stamp > records[i - 1].stamp))
            return TDBF_ECORRUPT;
        *words += tdbf_words_for_bits(s->m);
    }
    return TDBF_OK;
}

static void free_slices(tdbf *f, slice *records, unsigned count)
{
    for (unsigned i = 0; i < count; i++)
        tdbf_mem_free(f, records[i].bits, tdbf_tlbf_slice_bytes(records[i].m));
}

int tdbf_tlbf_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    tlbf h = {0};
    int rc = load_fields(in, &h, f->now_ns);
    if (rc != TDBF_OK)
        return rc;
    h.error = f->error;
    tlbf *t = tdbf_mem_calloc(f, 1, sizeof *t);
    slice *ring = tdbf_mem_calloc(f, h.ring_size, sizeof *ring);
    uint64_t words = 0;
    rc = t && ring ? load_slice_records(in, &h, ring, f->now_ns, &words) : TDBF_ENOMEM;
    /* The hint's home_g ends the payload; files from before it end with
     * the words (and load with no hint). */
    bool hinted = rc == TDBF_OK && in->remaining == words * 8 + TLBF_HINT_BYTES;
    if (rc == TDBF_OK && in->remaining != words * 8 && !hinted)
        rc = TDBF_ECORRUPT;
    if (rc == TDBF_OK &&
        !tdbf_fits((double)words * 8.0 + (double)f->state.memory_bytes, max_memory))
        rc = TDBF_ETOOBIG;
    unsigned loaded = 0;
    for (; rc == TDBF_OK && loaded < h.count; loaded++) {
        slice *s = &ring[loaded];
        s->bits = tdbf_mem_calloc(f, 1, tdbf_tlbf_slice_bytes(s->m));
        rc = s->bits ? tdbf_in_words(in, s->bits, tdbf_words_for_bits(s->m)) : TDBF_ENOMEM;
        if (rc == TDBF_OK && !tdbf_tail_clear(s->bits, s->m))
            rc = TDBF_ECORRUPT;
    }
    if (rc == TDBF_OK && hinted && tdbf_in_u64(in, &h.home_g) != TDBF_OK)
        rc = in->rc;
    if (rc == TDBF_OK && h.home_g > TLBF_MAX_HOME_G)
        rc = TDBF_ECORRUPT;
    if (rc == TDBF_OK && hinted) {
        h.fp_planned = planned_fp(h.k, h.l, h.home_g);
        if (h.fp_planned < 0.0)
            rc = TDBF_ECORRUPT;
    }
    if (rc != TDBF_OK) {
        if (ring)
            free_slices(f, ring, loaded);
        tdbf_mem_free(f, ring, h.ring_size * sizeof *ring);
        tdbf_mem_free(f, t, sizeof *t);
        return rc;
    }
    *t = h;
    t->ring = ring;
    t->head = 0;
    for (unsigned i = t->k; i < t->count; i++)
        ring[i].fill = tdbf_tlbf_expected_fill(&ring[i]);
    tdbf_tlbf_keep_fp(t, f->now_ns);
    f->state.impl = t;
    return TDBF_OK;
}

