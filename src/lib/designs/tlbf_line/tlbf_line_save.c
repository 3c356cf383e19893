/*
 * tlbf_line_save.c — tlbf-line's saved form (codec.c, docs/format.md): the
 * filter's fields, a record per live ring, then each ring as apbf-line's
 * payload; the loader checks every field, against each other and the
 * payload's length, before it allocates.
 */
#include <math.h>
#include <string.h>

#include "util/serial.h"
#include "util/mem.h"
#include "designs/tlbf_line/internal.h"

/* Counts and times loaded from a file are at most this, so adds can count
 * on without wrapping. */
#define COUNT_LIMIT (UINT64_C(1) << 60)

/* ---- serialization (codec.c, docs/format.md) ------------------------------
 * Payload: u32 k, u32 l, u32 b, u32 unit bits, u32 max rings, u32 rings
 * (live), u32 slots allocated, u32 0; u64 T, u64 g0, u64 units0, u64
 * generation counted, u64 its keys, u64 the previous one's, u64 watched
 * since (ns), u64 check_at, u64 generations, u64 cap hits, u64 max_memory;
 * then per ring, newest first: u64 generation G_r, u64 keys, u64 payload
 * bytes, u32 retired (0 for the first, 1 after), u32 burst word (born,
 * last and excess: burst_word), k + l u64 counts
 * (ages 0 .. k+l-1, generation G_r - a); then each ring's apbf-line
 * payload (tdbf_line_ring_save) in the same order.  The home ring's FP,
 * the span and the calibration follow from these.  All records come
 * before any ring, so the memory is checked before allocating. */

enum { FIELDS_BYTES = 120, RECORD_FIXED_BYTES = 32 };

/* A ring record's burst word: 0 when the generations of the ring's first
 * and latest keys are not recorded (files before they were; a ring older
 * than 2^17 generations), else BORN_KNOWN | (G_r - born) << 13 | (G_r -
 * last) << 6 | excess: G_r - last and excess at most l. */
#define BORN_KNOWN (UINT32_C(1) << 31)
enum { BORN_SHIFT = 13, BORN_LIMIT = 1 << 17, LAST_SHIFT = 6, FIELD_MASK = 63 };

static uint32_t burst_word(const ring_slot *s)
{
    if (s->born > s->generation || s->generation - s->born >= BORN_LIMIT ||
        s->last > s->generation || s->generation - s->last > FIELD_MASK)
        return 0;
    return BORN_KNOWN | (uint32_t)(s->generation - s->born) << BORN_SHIFT |
           (uint32_t)(s->generation - s->last) << LAST_SHIFT | s->excess;
}

/* The word back into born, last and excess, checked against the record's
 * G_r, the shape and the clock's generation G (the invariants of the
 * essay's "Bursts"). */
static bool read_burst_word(const tlbf_line *h, ring_slot *s, uint32_t word, uint64_t G)
{
    if (!(word & BORN_KNOWN)) {
        s->born = BORN_UNKNOWN;
        s->last = s->generation;
        s->excess = 0;
        return word == 0 && s->generation <= G;
    }
    uint64_t born = (word & ~BORN_KNOWN) >> BORN_SHIFT;
    uint64_t last = word >> LAST_SHIFT & FIELD_MASK;
    s->excess = word & FIELD_MASK;
    if (born > s->generation || last > s->generation || s->excess > h->l ||
        born < s->excess || last > h->l)
        return false;
    s->born = s->generation - born;
    s->last = s->generation - last;
    return s->born <= s->last && s->last <= G &&
           s->generation <= (s->born + h->l > G ? s->born + h->l : G);
}

/* Older rings first took keys no later than newer ones: a ring's first
 * generation after a burst, else its newest field's. */
static uint64_t order_of(const ring_slot *s)
{
    return s->excess > 0 ? s->born : s->generation;
}

static uint64_t record_bytes(const tlbf_line *t)
{
    return RECORD_FIXED_BYTES + 8 * (uint64_t)(t->k + t->l);
}

uint64_t tdbf_tlbf_line_payload_size(const tdbf *f)
{
    const tlbf_line *t = f->state.impl;
    uint64_t bytes = FIELDS_BYTES + t->count * record_bytes(t);
    for (unsigned i = 0; i < t->count; i++)
        bytes += tdbf_line_ring_payload_size(t->slots[i].ring);
    return bytes;
}

void tdbf_tlbf_line_save(const tdbf *f, tdbf_out *out)
{
    const tlbf_line *t = f->state.impl;
    const uint32_t header[8] = {t->k, t->l, t->b, t->unit_bits, t->max_rings, t->count,
                                t->slots_allocated, 0};
    const uint64_t fields[11] = {t->window_ns, t->home_g, t->home_units, t->gen_of,
                                 t->gen_keys, t->prev_keys, t->observed_from, t->check_at,
                                 t->generations, t->cap_hits, t->max_memory};
    for (unsigned i = 0; i < 8; i++)
        tdbf_out_u32(out, header[i]);
    for (unsigned i = 0; i < 11; i++)
        tdbf_out_u64(out, fields[i]);
    for (unsigned i = 0; i < t->count; i++) {
        const ring_slot *s = &t->slots[i];
        tdbf_out_u64(out, s->generation);
        tdbf_out_u64(out, s->keys);
        tdbf_out_u64(out, tdbf_line_ring_payload_size(s->ring));
        tdbf_out_u32(out, i > 0);
        tdbf_out_u32(out, burst_word(s));
        for (unsigned a = 0; a < t->k + t->l; a++)
            tdbf_out_u64(out, s->counts[(s->generation % COUNTS + COUNTS - a) % COUNTS]);
    }
    for (unsigned i = 0; i < t->count; i++)
        tdbf_line_ring_save(t->slots[i].ring, out);
}

/* The filter's own fields, checked against each other; the home ring's
 * FP from the model, which also refuses a shape apbf-line has not. */
static int load_fields(tdbf_in *in, tlbf_line *h, uint64_t now_ns)
{
    uint32_t header[8];
    uint64_t fields[11];
    for (unsigned i = 0; i < 8; i++)
        tdbf_in_u32(in, &header[i]);
    for (unsigned i = 0; i < 11; i++)
        tdbf_in_u64(in, &fields[i]);
    if (in->rc != TDBF_OK)
        return in->rc;
    h->k = header[0];
    h->l = header[1];
    h->b = header[2];
    h->unit_bits = header[3];
    h->max_rings = header[4];
    h->count = header[5];
    h->slots_allocated = header[6];
    h->window_ns = fields[0];
    h->home_g = fields[1];
    h->home_units = fields[2];
    h->gen_of = fields[3];
    h->gen_keys = fields[4];
    h->prev_keys = fields[5];
    h->observed_from = fields[6];
    h->check_at = fields[7];
    h->generations = fields[8];
    h->cap_hits = fields[9];
    h->max_memory = fields[10];
    if (h->k < 1 || h->l < 1 || h->k >= COUNTS || h->l >= COUNTS ||   /* (then k + l) */
        h->k + h->l >= COUNTS || header[7] != 0 ||
        h->max_rings < 1 || h->max_rings > RING_LIMIT || h->count > h->max_rings ||
        h->slots_allocated < 1 || h->slots_allocated > h->max_rings ||
        h->slots_allocated < h->count || h->window_ns == 0 || h->home_g < 1 ||
        h->home_g > (UINT64_C(1) << 50) || h->home_units < 1 ||
        h->home_units > (UINT64_C(1) << 40) || h->max_memory == 0 ||
        h->observed_from > now_ns || h->gen_of > now_ns / ceil_div(h->window_ns, h->l) ||
        h->gen_keys > COUNT_LIMIT || h->prev_keys > COUNT_LIMIT ||
        h->check_at > COUNT_LIMIT || h->generations > COUNT_LIMIT ||
        h->cap_hits > COUNT_LIMIT)
        return TDBF_ECORRUPT;
    h->fp_planned = tdbf_apbf_line_fp(h->k, h->l, h->b, h->unit_bits, h->home_units, h->home_g);
    if (h->fp_planned < 0.0)
        return TDBF_ECORRUPT;
    tdbf_tlbf_line_set_derived(h);
    return TDBF_OK;
}

/* The ring records into slots[0 .. count-1]: newest first, none older than
 * the window (drop_stale has run at every add and advance), none ahead of
 * now; *bytes gets the rings' payloads in all. */
static int load_records(tdbf_in *in, const tlbf_line *h, ring_slot *slots, uint64_t G,
                        uint64_t *bytes)
{
    *bytes = 0;
    for (unsigned i = 0; i < h->count; i++) {
        ring_slot *s = &slots[i];
        uint64_t payload;
        uint32_t retired, burst;
        tdbf_in_u64(in, &s->generation);
        tdbf_in_u64(in, &s->keys);
        tdbf_in_u64(in, &payload);
        tdbf_in_u32(in, &retired);
        tdbf_in_u32(in, &burst);
        for (unsigned a = 0; a < h->k + h->l; a++) {
            uint64_t c = 0;
            tdbf_in_u64(in, &c);
            s->counts[(s->generation % COUNTS + COUNTS - a) % COUNTS] = c;
            if (c > COUNT_LIMIT)
                return TDBF_ECORRUPT;
        }
        if (in->rc != TDBF_OK)
            return in->rc;
        if (!read_burst_word(h, s, burst, G) || ages_read(h, s, G) == 0 ||
            s->keys > COUNT_LIMIT || retired != (i > 0) || payload > in->remaining - *bytes ||
            (i > 0 && order_of(s) > order_of(&slots[i - 1])))
            return TDBF_ECORRUPT;
        s->units = payload;       /* until the ring is read */
        *bytes += payload;
    }
    return TDBF_OK;
}

/* When a loaded ring opened, for the pace it fills at (not saved): the
 * start of its first generation, or of the watched time if later. */
static uint64_t opened_before(const tlbf_line *h, const ring_slot *s, uint64_t now_ns)
{
    uint64_t first = s->born != BORN_UNKNOWN ? s->born : s->generation;
    uint64_t opened = first <= now_ns / h->span_ns ? first * h->span_ns : now_ns;
    return opened > h->observed_from ? opened : h->observed_from;
}

/* Each ring from its apbf-line payload, confined to its recorded length,
 * and checked against the filter: same shape, fill as counted.  *loaded
 * counts the rings held (to be freed on failure). */
static int load_rings(tdbf *f, tdbf_in *in, const tlbf_line *h, ring_slot *slots,
                      uint64_t max_memory, unsigned *loaded)
{
    uint64_t now_ns = atomic_load_explicit(&f->now_ns, memory_order_relaxed);
    for (*loaded = 0; *loaded < h->count;) {
        ring_slot *s = &slots[*loaded];
        uint64_t rest = in->remaining - s->units;
        in->remaining = s->units;
        int rc = tdbf_line_ring_load(f, in, max_memory, &s->ring);
        if (rc != TDBF_OK)
            return rc;
        (*loaded)++;
        in->remaining = rest;
        tdbf_line_plan p;
        tdbf_line_ring_plan(s->ring, &p);
        s->g = p.generation;
        s->units = p.units;
        tdbf_tlbf_line_set_ring_fp(h, s, p.fp);
        if (s != slots)
            tdbf_tlbf_line_retire(h, s);
        s->opened_ns = opened_before(h, s, now_ns);
        uint64_t fill = s->counts[s->generation % COUNTS];
        if (p.k != h->k || p.l != h->l || p.b != h->b || p.unit_bits != h->unit_bits ||
            p.fields != p.k + p.l + 1 ||     /* rings keep the spare (tdbf_line_plan_ring) */
            tdbf_line_ring_fill(s->ring) != (fill < p.generation ? fill : p.generation))
            return TDBF_ECORRUPT;
    }
    return TDBF_OK;
}

int tdbf_tlbf_line_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    tlbf_line h;
    memset(&h, 0, sizeof h);
    int rc = load_fields(in, &h, f->now_ns);
    if (rc != TDBF_OK)
        return rc;
    double fixed = (double)sizeof h + (double)h.slots_allocated * sizeof(ring_slot);
    if (!tdbf_fits(fixed + (double)f->state.memory_bytes, max_memory))
        return TDBF_ETOOBIG;
    tlbf_line *t = tdbf_mem_calloc(f, 1, sizeof *t);
    ring_slot *slots = tdbf_mem_calloc(f, h.slots_allocated, sizeof *slots);
    if (!t || !slots) {
        tdbf_mem_free(f, slots, h.slots_allocated * sizeof *slots);
        tdbf_mem_free(f, t, sizeof *t);
        return TDBF_ENOMEM;
    }
    *t = h;
    tdbf_tlbf_line_set_sum_limit(t, f->error);
    t->add_ns = f->now_ns;
    t->slots = slots;
    t->count = 0;              /* rings held so far, for free_rings */
    uint64_t bytes = 0;
    rc = load_records(in, &h, slots, f->now_ns / h.span_ns, &bytes);
    /* Every ring's struct and alignment beside its payload (which counts
     * its 56 header bytes: a little over). */
    tdbf_line_plan bare;
    memset(&bare, 0, sizeof bare);
    double rings = (double)bytes + (double)h.count * tdbf_line_ring_bytes_planned(&bare);
    if (rc == TDBF_OK && in->remaining != bytes)
        rc = TDBF_ECORRUPT;
    if (rc == TDBF_OK && !tdbf_fits(rings + (double)f->state.memory_bytes, max_memory))
        rc = TDBF_ETOOBIG;
    if (rc == TDBF_OK)
        rc = load_rings(f, in, &h, slots, max_memory, &t->count);
    if (rc != TDBF_OK) {
        tdbf_tlbf_line_free_rings(f, t);
        return rc;
    }
    f->state.impl = t;
    f->state.error_planned = t->fp_planned;
    return TDBF_OK;
}

