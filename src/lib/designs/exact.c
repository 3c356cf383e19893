/*
 * exact.c — the exact sliding-window set: ground truth for tests, eval and
 * the demo (differential testing in the spirit of SQLite's bitvec.c test).
 *
 * Every distinct key in the window is stored whole (its bytes, not a hash:
 * the answer must be exact), in an open-addressing hash table with linear
 * probing and backward-shift deletion.  A FIFO ring records every add as
 * (entry, sequence number, time); as adds age out of the window the ring is
 * popped, and an entry is freed when the popped add was its latest one.
 *
 *   count window W:  key present iff one of the last W adds was this key
 *                    (its latest add has sequence > adds - W)
 *   time window T:   key present iff its latest add was less than T ago
 *                    (now - last_ns < T)
 *
 * Memory is proportional to the distinct keys in the window, which is the
 * point of the probabilistic designs; stats report it so the demo can show
 * the ratio.
 */
#include <string.h>

#include "util/serial.h"
#include "util/mem.h"
#include "designs/ops.h"

typedef struct entry {
    uint64_t      hash;      /* key hash, low half: table slot */
    uint64_t      last_seq;  /* sequence number of the latest add (1-based) */
    uint64_t      last_ns;   /* time of the latest add */
    size_t        len;
    unsigned char bytes[];   /* the key */
} entry;

typedef struct fifo_item {
    entry   *key;
    uint64_t seq;
    uint64_t ns;
} fifo_item;

typedef struct exact {
    uint64_t   window_items;  /* W, or 0 */
    uint64_t   window_ns;     /* T, or 0 */
    uint64_t   adds;          /* sequence number of the latest add */
    entry    **slots;         /* hash table, capacity a power of two */
    size_t     capacity;
    size_t     count;         /* distinct keys stored */
    fifo_item *ring;          /* adds still inside the window, oldest first */
    size_t     ring_capacity; /* power of two */
    size_t     ring_head;
    size_t     ring_len;
} exact;

enum { INITIAL_SLOTS = 64, INITIAL_RING = 64 };

static size_t entry_size(size_t len)
{
    return sizeof(entry) + len;
}

/* ---- hash table ------------------------------------------------------ */

static size_t slot_of(const exact *x, uint64_t hash)
{
    return (size_t)hash & (x->capacity - 1);
}

static entry **find_slot(const exact *x, const tdbf_key *key)
{
    size_t i = slot_of(x, key->hash.lo);
    for (;;) {
        entry **slot = &x->slots[i];
        entry *e = *slot;
        if (!e || (e->hash == key->hash.lo && e->len == key->len &&
                   (key->len == 0 || memcmp(e->bytes, key->bytes, key->len) == 0)))
            return slot;
        i = (i + 1) & (x->capacity - 1);
    }
}

static int grow_table(tdbf *f, exact *x)
{
    size_t capacity = x->capacity * 2;
    entry **slots = tdbf_mem_calloc(f, capacity, sizeof *slots);
    if (!slots)
        return TDBF_ENOMEM;
    entry **old = x->slots;
    size_t old_capacity = x->capacity;
    x->slots = slots;
    x->capacity = capacity;
    for (size_t i = 0; i < old_capacity; i++) {
        if (!old[i])
            continue;
        size_t j = slot_of(x, old[i]->hash);
        while (slots[j])
            j = (j + 1) & (capacity - 1);
        slots[j] = old[i];
    }
    tdbf_mem_free(f, old, old_capacity * sizeof *old);
    return TDBF_OK;
}

/* Backward-shift deletion keeps every probe chain unbroken without
 * tombstones. */
static void remove_entry(tdbf *f, exact *x, entry *e)
{
    size_t hole = slot_of(x, e->hash);
    while (x->slots[hole] != e)
        hole = (hole + 1) & (x->capacity - 1);
    size_t i = hole;
    for (;;) {
        i = (i + 1) & (x->capacity - 1);
        entry *next = x->slots[i];
        if (!next)
            break;
        size_t home = slot_of(x, next->hash);
        /* Move `next` into the hole unless its home lies cyclically in
         * (hole, i]: then it is already reachable. */
        bool reachable = hole <= i ? (home > hole && home <= i)
                                   : (home > hole || home <= i);
        if (!reachable) {
            x->slots[hole] = next;
            hole = i;
        }
    }
    x->slots[hole] = NULL;
    x->count--;
    tdbf_mem_free(f, e, entry_size(e->len));
}

/* ---- FIFO of adds ---------------------------------------------------- */

static int ring_push(tdbf *f, exact *x, fifo_item item)
{
    if (x->ring_len == x->ring_capacity) {
        size_t capacity = x->ring_capacity * 2;
        fifo_item *ring = tdbf_mem_alloc(f, capacity * sizeof *ring);
        if (!ring)
            return TDBF_ENOMEM;
        for (size_t i = 0; i < x->ring_len; i++)
            ring[i] = x->ring[(x->ring_head + i) & (x->ring_capacity - 1)];
        tdbf_mem_free(f, x->ring, x->ring_capacity * sizeof *ring);
        x->ring = ring;
        x->ring_capacity = capacity;
        x->ring_head = 0;
    }
    x->ring[(x->ring_head + x->ring_len) & (x->ring_capacity - 1)] = item;
    x->ring_len++;
    return TDBF_OK;
}

static bool oldest_expired(const exact *x, uint64_t now_ns)
{
    const fifo_item *old = &x->ring[x->ring_head];
    if (x->window_items)
        return x->adds - old->seq >= x->window_items;
    return now_ns - old->ns >= x->window_ns;
}

/* Pop the adds that left the window; free keys whose latest add that was. */
static void expire(tdbf *f, exact *x, uint64_t now_ns)
{
    while (x->ring_len && oldest_expired(x, now_ns)) {
        fifo_item old = x->ring[x->ring_head];
        x->ring_head = (x->ring_head + 1) & (x->ring_capacity - 1);
        x->ring_len--;
        if (old.key && old.key->last_seq == old.seq)
            remove_entry(f, x, old.key);
    }
}

static bool in_window(const exact *x, const entry *e, uint64_t now_ns)
{
    if (x->window_items)
        return x->adds - e->last_seq < x->window_items;
    return now_ns - e->last_ns < x->window_ns;
}

/* ---- operations ------------------------------------------------------ */

static int exact_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    const exact *x = f->state.impl;
    const entry *e = *find_slot(x, key);
    return e && in_window(x, e, now_ns);
}

static int exact_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    exact *x = f->state.impl;
    /* Make room first so a failed allocation leaves the set unchanged. */
    if (2 * (x->count + 1) > x->capacity && grow_table(f, x) != TDBF_OK)
        return TDBF_ENOMEM;
    entry **slot = find_slot(x, key);
    entry *e = *slot;
    int present = e && in_window(x, e, now_ns);
    bool created = false;
    if (!e) {
        e = tdbf_mem_alloc(f, entry_size(key->len));
        if (!e)
            return TDBF_ENOMEM;
        e->hash = key->hash.lo;
        e->len = key->len;
        if (key->len)
            memcpy(e->bytes, key->bytes, key->len);
        created = true;
    }
    fifo_item item = {e, x->adds + 1, now_ns};
    if (ring_push(f, x, item) != TDBF_OK) {
        if (created)
            tdbf_mem_free(f, e, entry_size(key->len));
        return TDBF_ENOMEM;
    }
    if (created) {
        *slot = e;
        x->count++;
    }
    x->adds++;
    e->last_seq = x->adds;
    e->last_ns = now_ns;
    expire(f, x, now_ns);
    return present;
}

static int exact_advance(tdbf *f, uint64_t now_ns)
{
    exact *x = f->state.impl;
    if (x->window_ns)
        expire(f, x, now_ns);
    return TDBF_OK;
}

static int exact_check(const tdbf_config *cfg)
{
    if ((cfg->window_items == 0) == (cfg->window_ns == 0))
        return TDBF_EWINDOW;
    return cfg->k || cfg->l ? TDBF_EPARAM : TDBF_OK;
}

/* Nothing to size: the table and the ring start small and grow with the
 * keys held, so the memory is what open allocates. */
static int exact_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    int rc = exact_check(cfg);
    if (rc != TDBF_OK)
        return rc;
    out->window_items = cfg->window_items;
    out->window_ns = cfg->window_ns;
    out->memory_bytes = sizeof(tdbf) + sizeof(exact) + INITIAL_SLOTS * sizeof(entry *) +
                        INITIAL_RING * sizeof(fifo_item);
    return TDBF_OK;
}

static int exact_open(tdbf *f, const tdbf_config *cfg)
{
    int rc = exact_check(cfg);
    if (rc != TDBF_OK)
        return rc;
    exact *x = tdbf_mem_calloc(f, 1, sizeof *x);
    if (!x)
        return TDBF_ENOMEM;
    x->window_items = cfg->window_items;
    x->window_ns = cfg->window_ns;
    x->capacity = INITIAL_SLOTS;
    x->ring_capacity = INITIAL_RING;
    x->slots = tdbf_mem_calloc(f, x->capacity, sizeof *x->slots);
    x->ring = tdbf_mem_alloc(f, x->ring_capacity * sizeof *x->ring);
    if (!x->slots || !x->ring) {
        tdbf_mem_free(f, x->slots, x->capacity * sizeof *x->slots);
        tdbf_mem_free(f, x->ring, x->ring_capacity * sizeof *x->ring);
        tdbf_mem_free(f, x, sizeof *x);
        return TDBF_ENOMEM;
    }
    f->state.impl = x;
    return TDBF_OK;
}

static void exact_close(tdbf *f)
{
    exact *x = f->state.impl;
    for (size_t i = 0; i < x->capacity; i++)
        if (x->slots[i])
            tdbf_mem_free(f, x->slots[i], entry_size(x->slots[i]->len));
    tdbf_mem_free(f, x->slots, x->capacity * sizeof *x->slots);
    tdbf_mem_free(f, x->ring, x->ring_capacity * sizeof *x->ring);
    tdbf_mem_free(f, x, sizeof *x);
}

/* The O(1) part of the stats (tdbf_get_shape; tdbf_get_stats starts from it). */
static void exact_shape(const tdbf *f, tdbf_shape *out)
{
    const exact *x = f->state.impl;
    out->window_items = x->window_items;
    out->window_ns = x->window_ns;
}

static void exact_stats(const tdbf *f, tdbf_stats *st)
{
    const exact *x = f->state.impl;
    st->keys = x->count;
}

/* ---- serialization (codec.c) ---------------------------------------------
 * Payload: u64 W, u64 T, u64 adds, u64 keys n, u64 adds held r; then the r
 * adds, oldest first: u64 seq, u64 ns, u64 key length + 1, and for the
 * latest add of a key (seq = its last_seq) that many - 1 key bytes,
 * zero-padded to 8; an earlier add of a key that was added again has
 * length field 0 and no key (it can never remove anything when it expires,
 * so it needs none).  Every stored key has exactly one latest add in the
 * ring, so the n keys come back with it; hashes are recomputed from the
 * seed. */

enum { EXACT_FIELDS_BYTES = 40, ADD_RECORD_BYTES = 24 };

static uint64_t padded(uint64_t len)
{
    return (len + 7) / 8 * 8;
}

static const fifo_item *ring_at(const exact *x, size_t i)
{
    return &x->ring[(x->ring_head + i) & (x->ring_capacity - 1)];
}

static bool is_latest(const fifo_item *item)
{
    return item->key && item->key->last_seq == item->seq;
}

static uint64_t exact_payload_size(const tdbf *f)
{
    const exact *x = f->state.impl;
    uint64_t bytes = EXACT_FIELDS_BYTES + (uint64_t)x->ring_len * ADD_RECORD_BYTES;
    for (size_t i = 0; i < x->ring_len; i++)
        if (is_latest(ring_at(x, i)))
            bytes += padded(ring_at(x, i)->key->len);
    return bytes;
}

static void exact_save(const tdbf *f, tdbf_out *out)
{
    static const unsigned char zeros[8] = {0};
    const exact *x = f->state.impl;
    tdbf_out_u64(out, x->window_items);
    tdbf_out_u64(out, x->window_ns);
    tdbf_out_u64(out, x->adds);
    tdbf_out_u64(out, x->count);
    tdbf_out_u64(out, x->ring_len);
    for (size_t i = 0; i < x->ring_len; i++) {
        const fifo_item *item = ring_at(x, i);
        bool latest = is_latest(item);
        tdbf_out_u64(out, item->seq);
        tdbf_out_u64(out, item->ns);
        tdbf_out_u64(out, latest ? item->key->len + 1 : 0);
        if (latest) {
            tdbf_out_bytes(out, item->key->bytes, item->key->len);
            tdbf_out_bytes(out, zeros, padded(item->key->len) - item->key->len);
        }
    }
}

static size_t power_of_two_above(uint64_t n, size_t minimum)
{
    size_t size = minimum;
    while (size < n)
        size *= 2;
    return size;
}

/* One add record; a latest add brings its key into the table. */
static int load_add(tdbf *f, exact *x, tdbf_in *in, fifo_item *prev, uint64_t now_ns)
{
    fifo_item item = {NULL, 0, 0};
    uint64_t len_plus_one;
    tdbf_in_u64(in, &item.seq);
    tdbf_in_u64(in, &item.ns);
    if (tdbf_in_u64(in, &len_plus_one) != TDBF_OK)
        return in->rc;
    if (item.seq <= prev->seq || item.seq > x->adds || item.ns < prev->ns || item.ns > now_ns ||
        (x->window_items && x->adds - item.seq >= x->window_items) ||
        len_plus_one > in->remaining + 1 || x->ring_len == x->ring_capacity)
        return TDBF_ECORRUPT;
    if (len_plus_one) {
        uint64_t len = len_plus_one - 1;
        entry *e = tdbf_mem_alloc(f, entry_size((size_t)len));
        unsigned char pad[8];
        if (!e)
            return TDBF_ENOMEM;
        e->len = (size_t)len;
        e->last_seq = item.seq;
        e->last_ns = item.ns;
        if (tdbf_in_bytes(in, e->bytes, e->len) != TDBF_OK ||
            tdbf_in_bytes(in, pad, padded(len) - len) != TDBF_OK) {
            tdbf_mem_free(f, e, entry_size(e->len));
            return in->rc;
        }
        tdbf_key key = {e->bytes, e->len, tdbf_hash_key(f->seed, e->bytes, e->len)};
        e->hash = key.hash.lo;
        entry **slot = find_slot(x, &key);
        if (*slot || 2 * (x->count + 1) > x->capacity) {
            tdbf_mem_free(f, e, entry_size(e->len));
            return TDBF_ECORRUPT;   /* a key twice, or more keys than declared */
        }
        *slot = e;
        x->count++;
        item.key = e;
    }
    x->ring[x->ring_len++] = item;
    *prev = item;
    return TDBF_OK;
}

static int exact_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    exact h = {0};
    uint64_t keys, adds_held;
    tdbf_in_u64(in, &h.window_items);
    tdbf_in_u64(in, &h.window_ns);
    tdbf_in_u64(in, &h.adds);
    tdbf_in_u64(in, &keys);
    if (tdbf_in_u64(in, &adds_held) != TDBF_OK)
        return in->rc;
    /* Each add record takes 24 bytes, each key at least one of them. */
    if ((h.window_items == 0) == (h.window_ns == 0) || keys > adds_held ||
        adds_held > h.adds || adds_held > in->remaining / ADD_RECORD_BYTES)
        return TDBF_ECORRUPT;
    double bytes = (double)adds_held * sizeof(fifo_item) * 2 + (double)keys * 2 * sizeof(entry *) +
                   (double)in->remaining * 2;
    if (!tdbf_fits(bytes, max_memory))
        return TDBF_ETOOBIG;
    exact *x = tdbf_mem_calloc(f, 1, sizeof *x);
    if (!x)
        return TDBF_ENOMEM;
    *x = h;
    x->capacity = power_of_two_above(2 * keys, INITIAL_SLOTS);
    x->ring_capacity = power_of_two_above(adds_held, INITIAL_RING);
    x->slots = tdbf_mem_calloc(f, x->capacity, sizeof *x->slots);
    x->ring = tdbf_mem_alloc(f, x->ring_capacity * sizeof *x->ring);
    f->state.impl = x;
    int rc = x->slots && x->ring ? TDBF_OK : TDBF_ENOMEM;
    fifo_item prev = {NULL, 0, 0};
    for (uint64_t i = 0; rc == TDBF_OK && i < adds_held; i++)
        rc = load_add(f, x, in, &prev, f->now_ns);
    if (rc == TDBF_OK && x->count != keys)
        rc = TDBF_ECORRUPT;
    if (rc != TDBF_OK) {
        if (!x->slots || !x->ring) {
            tdbf_mem_free(f, x->slots, x->capacity * sizeof *x->slots);
            tdbf_mem_free(f, x->ring, x->ring_capacity * sizeof *x->ring);
            tdbf_mem_free(f, x, sizeof *x);
        } else {
            exact_close(f);
        }
        f->state.impl = NULL;
    }
    return rc;
}

const tdbf_ops tdbf_exact_ops = {
    .plan = exact_plan,
    .open = exact_open,
    .close = exact_close,
    .add = exact_add,
    .contains = exact_contains,
    .advance = exact_advance,
    .stats = exact_stats,
    .shape = exact_shape,
    .payload_size = exact_payload_size,
    .save = exact_save,
    .load = exact_load,
};
