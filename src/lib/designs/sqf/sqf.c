/*
 * sqf.c — the sliding quotient filter as a design: its plan, the
 * operations the shell dispatches to, stats and the saved form.
 *
 * The filter is the core (sqf_core.c: bins, generations, the spare; its
 * essay has the layout and the proof) on memory this file allocates, at
 * the shape the planner chose (model.c).  A count window turns the core
 * every g = ceil(W / 7) adds; the key added last in a generation stays
 * for 7 g more adds, so the window guaranteed is 7 g >= W and a key is
 * answered for at most g adds beyond it (the slack: k = 1, l = 7 in the
 * APBF bound of slack.c).  A time window is a chain of such cores,
 * turned by the clock: sqf_time.c, whose essay it is; the table below
 * sends its calls there when the filter's state is a chain (the state's
 * first member says which: SQF_LAYOUT_COUNT or SQF_LAYOUT_TIME).
 */
#include <stddef.h>
#include <string.h>

#include "designs/ops.h"
#include "designs/sqf/internal.h"
#include "util/bits.h"
#include "util/mem.h"
#include "util/serial.h"

typedef struct sqf {
    uint32_t  layout;       /* SQF_LAYOUT_COUNT */
    sqf_core  core;
    uint64_t *mem;          /* the core's words: bins, then the spare */
    double    fp_planned;   /* the model's worst-case FP of the shape */
} sqf;

int tdbf_sqf_bin_words_of(const tdbf_config *cfg, unsigned *bin_words)
{
    unsigned bits;
    if (tdbf_config_field(cfg->unit_bits, cfg->block_bits, &bits) != TDBF_OK)
        return TDBF_EPARAM;
    if (bits != 0 && bits != 512 && bits != 1024)
        return TDBF_EPARAM;
    *bin_words = bits / 64;
    return TDBF_OK;
}

static uint64_t memory_of(const sqf_shape *s)
{
    return sizeof(tdbf) + sizeof(sqf) + TDBF_ALIGNED_OVERHEAD + tdbf_sqf_core_bytes(s);
}

/* A count window's shape, as plan and open size it: within cfg's cap. */
static int sqf_size(const tdbf_config *cfg, sqf_shape *shape, double *fp)
{
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    if (cfg->k != 0 || cfg->l != 0)
        return TDBF_EPARAM;
    unsigned bin_words;
    int rc = tdbf_sqf_bin_words_of(cfg, &bin_words);
    if (rc == TDBF_OK)
        rc = tdbf_sqf_plan(cfg->window_items, cfg->error, bin_words, shape, fp);
    if (rc == TDBF_OK && !tdbf_fits((double)memory_of(shape), cfg->max_memory))
        rc = TDBF_ETOOBIG;
    return rc;
}

static void shape_fields(const sqf_shape *s, double fp, tdbf_shape *out)
{
    out->k = 1;
    out->l = SQF_KEPT;
    out->window_items = SQF_KEPT * s->gen_items;
    out->error_planned = fp;
}

/* A time window's chain, or a count window's core? */
static int is_chain(const tdbf *f)
{
    return *(const uint32_t *)f->state.impl == SQF_LAYOUT_TIME;
}

static int sqf_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    if (cfg->window_ns != 0)
        return tdbf_sqf_time_plan(cfg, out);
    sqf_shape s;
    double fp;
    int rc = sqf_size(cfg, &s, &fp);
    if (rc != TDBF_OK)
        return rc;
    shape_fields(&s, fp, out);
    out->memory_bytes = memory_of(&s);
    return TDBF_OK;
}

/* Shared by open and load: the state on fresh memory, the shell's fields. */
static int sqf_start(tdbf *f, const sqf_shape *s, double fp, sqf **out)
{
    sqf *q = tdbf_mem_calloc(f, 1, sizeof *q);
    if (!q)
        return TDBF_ENOMEM;
    q->mem = tdbf_mem_calloc_aligned(f, tdbf_sqf_core_bytes(s));
    if (!q->mem) {
        tdbf_mem_free(f, q, sizeof *q);
        return TDBF_ENOMEM;
    }
    tdbf_sqf_core_init(&q->core, s, q->mem, 1);
    q->layout = SQF_LAYOUT_COUNT;
    q->fp_planned = fp;
    f->state.impl = q;
    f->state.error_planned = fp;
    f->state.prefetch_ahead = TDBF_PREFETCH_AHEAD_LINE;   /* one bin a key */
    *out = q;
    return TDBF_OK;
}

static int sqf_open(tdbf *f, const tdbf_config *cfg)
{
    sqf_shape s;
    double fp;
    int rc = sqf_size(cfg, &s, &fp);
    if (rc != TDBF_OK)
        return rc;
    sqf *q;
    return sqf_start(f, &s, fp, &q);
}

static void sqf_close(tdbf *f)
{
    if (is_chain(f)) {
        tdbf_sqf_time_close(f);
        return;
    }
    sqf *q = f->state.impl;
    tdbf_mem_free_aligned(f, q->mem, tdbf_sqf_core_bytes(&q->core.shape));
    tdbf_mem_free(f, q, sizeof *q);
}

static int sqf_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    sqf *q = f->state.impl;
    return tdbf_sqf_core_add(&q->core, &key->hash);
}

static int sqf_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    const sqf *q = f->state.impl;
    return tdbf_sqf_core_contains(&q->core, &key->hash);
}

/* The key's bin (both lines of a 128-byte bin), a few keys ahead of the
 * one a batch call handles; in a time window's chain, its bin in the
 * active core: where every add goes, and the core a query asks first. */
static void sqf_prefetch(const tdbf *f, const tdbf_key *key, int for_add)
{
    (void)for_add;
    const sqf_core *core = is_chain(f) ? tdbf_sqf_time_active(f)
                                       : &((const sqf *)f->state.impl)->core;
    tdbf_sqf_core_prefetch(core, &key->hash);
}

/* A batch (ops->add_many and contains_many, at every size): the keys'
 * bins asked for prefetch_ahead keys ahead, and a count window's keys
 * straight into its core, without the shell's loop's indirect calls a
 * key; a chain's through its own add and query (which cannot fail). */
static void prefetch_first(const tdbf *f, const tdbf_key *keys, size_t n, int for_add)
{
    for (size_t i = 0; i < n && i < f->state.prefetch_ahead; i++)
        sqf_prefetch(f, &keys[i], for_add);
}

static int sqf_add_many(tdbf *f, const tdbf_key *keys, size_t n, uint64_t now_ns,
                        uint8_t *present)
{
    size_t ahead = f->state.prefetch_ahead;
    prefetch_first(f, keys, n, 1);
    if (is_chain(f)) {
        for (size_t i = 0; i < n; i++) {
            if (i + ahead < n)
                sqf_prefetch(f, &keys[i + ahead], 1);
            present[i] = (uint8_t)f->state.add(f, &keys[i], now_ns);
        }
        return TDBF_OK;
    }
    sqf_core *c = &((sqf *)f->state.impl)->core;
    for (size_t i = 0; i < n; i++) {
        if (i + ahead < n)
            tdbf_sqf_core_prefetch(c, &keys[i + ahead].hash);
        present[i] = (uint8_t)tdbf_sqf_core_add(c, &keys[i].hash);
    }
    return TDBF_OK;
}

static void sqf_contains_many(const tdbf *f, const tdbf_key *keys, size_t n, uint64_t now_ns,
                              uint8_t *found)
{
    size_t ahead = f->state.prefetch_ahead;
    prefetch_first(f, keys, n, 0);
    if (is_chain(f)) {
        for (size_t i = 0; i < n; i++) {
            if (i + ahead < n)
                sqf_prefetch(f, &keys[i + ahead], 0);
            found[i] = (uint8_t)f->state.contains(f, &keys[i], now_ns);
        }
        return;
    }
    const sqf_core *c = &((const sqf *)f->state.impl)->core;
    for (size_t i = 0; i < n; i++) {
        if (i + ahead < n)
            tdbf_sqf_core_prefetch(c, &keys[i + ahead].hash);
        found[i] = (uint8_t)tdbf_sqf_core_contains(c, &keys[i].hash);
    }
}

/* The shell's jump (designs/ops.h): the filter reads neither the key's
 * bytes nor the time, and its adds cannot fail. */
static int sqf_add_hashed(tdbf *f, tdbf_hash128 h)
{
    sqf *q = f->state.impl;
    return tdbf_sqf_core_add(&q->core, &h);
}

static int sqf_contains_hashed(const tdbf *f, tdbf_hash128 h)
{
    const sqf *q = f->state.impl;
    return tdbf_sqf_core_contains(&q->core, &h);
}

static void sqf_shape_of(const tdbf *f, tdbf_shape *out)
{
    if (is_chain(f)) {
        tdbf_sqf_time_shape(f, out);
        return;
    }
    const sqf *q = f->state.impl;
    shape_fields(&q->core.shape, q->fp_planned, out);
}

/* A bin is a slice of the stats' table: bins of bin_words * 64 bits; a
 * generation is g adds, 8 of them answered (the current one and L). */
static void sqf_stats(const tdbf *f, tdbf_stats *st)
{
    if (is_chain(f)) {
        tdbf_sqf_time_stats(f, st);
        return;
    }
    const sqf *q = f->state.impl;
    const sqf_shape *s = &q->core.shape;
    st->slices = (unsigned)(s->bins > UINT32_MAX ? UINT32_MAX : s->bins);
    st->slice_bits = 64u * s->bin_words;
    st->generation_size = s->gen_items;
    st->generation_fill = q->core.gen_adds;
    st->generations = q->core.gen;
    st->error_estimated = q->fp_planned;
}

/* ---- serialization (codec.c) ----------------------------------------------
 * Payload: u32 layout (SQF_LAYOUT_COUNT: the bins of sqf_core.c's essay),
 * then the core's fields: u32 bin_words, quotients, slots, rem_bits,
 * spare_k; u64 window, gen_items, bins, spare_lines, gen, gen_adds,
 * adds, spills; then the core's words (bins, then the spare).  A time
 * window's chain (SQF_LAYOUT_TIME) records its cores with the same
 * fields: sqf_time.c. */

static uint64_t sqf_payload_size(const tdbf *f)
{
    if (is_chain(f))
        return tdbf_sqf_time_payload_size(f);
    const sqf *q = f->state.impl;
    return 4 + SQF_CORE_FIELDS_BYTES + tdbf_sqf_core_bytes(&q->core.shape);
}

void tdbf_sqf_save_core_fields(tdbf_out *out, const sqf_core *c)
{
    const sqf_shape *s = &c->shape;
    tdbf_out_u32(out, s->bin_words);
    tdbf_out_u32(out, s->quotients);
    tdbf_out_u32(out, s->slots);
    tdbf_out_u32(out, s->rem_bits);
    tdbf_out_u32(out, s->spare_k);
    tdbf_out_u64(out, s->window);
    tdbf_out_u64(out, s->gen_items);
    tdbf_out_u64(out, s->bins);
    tdbf_out_u64(out, s->spare_lines);
    tdbf_out_u64(out, c->gen);
    tdbf_out_u64(out, c->gen_adds);
    tdbf_out_u64(out, c->adds);
    tdbf_out_u64(out, c->spills);
}

static void sqf_save(const tdbf *f, tdbf_out *out)
{
    if (is_chain(f)) {
        tdbf_sqf_time_save(f, out);
        return;
    }
    const sqf *q = f->state.impl;
    tdbf_out_u32(out, SQF_LAYOUT_COUNT);
    tdbf_sqf_save_core_fields(out, &q->core);
    tdbf_sqf_save_core_words(out, &q->core);
}

int tdbf_sqf_read_core_fields(tdbf_in *in, sqf_saved_core *sc)
{
    uint32_t v[5];
    for (unsigned i = 0; i < 5; i++)
        tdbf_in_u32(in, &v[i]);
    sqf_shape *s = &sc->shape;
    memset(s, 0, sizeof *s);
    s->bin_words = v[0];
    s->quotients = v[1];
    s->slots = v[2];
    s->rem_bits = v[3];
    s->spare_k = v[4];
    tdbf_in_u64(in, &s->window);
    tdbf_in_u64(in, &s->gen_items);
    tdbf_in_u64(in, &s->bins);
    tdbf_in_u64(in, &s->spare_lines);
    tdbf_in_u64(in, &sc->gen);
    tdbf_in_u64(in, &sc->gen_adds);
    tdbf_in_u64(in, &sc->adds);
    return tdbf_in_u64(in, &sc->spills);
}

/* Every field as open would have made it: a shape that fits its bins,
 * g = ceil(W / 7), a count core's generation not yet full (a time
 * window's may overfill), counts that agree. */
int tdbf_sqf_check_core_fields(const sqf_saved_core *sc, int turns_on_count)
{
    const sqf_shape *s = &sc->shape;
    if (tdbf_sqf_shape_check(s) != 0 || s->window > (UINT64_C(1) << 62))
        return TDBF_ECORRUPT;
    if (s->gen_items != s->window / SQF_KEPT + (s->window % SQF_KEPT != 0))
        return TDBF_ECORRUPT;
    if (s->bins > (UINT64_C(1) << 40) || s->spare_lines > (UINT64_C(1) << 40))
        return TDBF_ECORRUPT;
    if (turns_on_count ? sc->gen_adds >= s->gen_items : sc->gen_adds > sc->adds)
        return TDBF_ECORRUPT;
    if (sc->spills > sc->adds)
        return TDBF_ECORRUPT;
    return TDBF_OK;
}

void tdbf_sqf_restore_core(sqf_core *c, const sqf_saved_core *sc)
{
    c->gen = sc->gen;
    c->gen_adds = sc->gen_adds;
    c->adds = sc->adds;
    c->spills = sc->spills;
}

static int load_count(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    sqf_saved_core sc;
    if (tdbf_sqf_read_core_fields(in, &sc) != TDBF_OK)
        return in->rc;
    int rc = tdbf_sqf_check_core_fields(&sc, 1);
    if (rc != TDBF_OK)
        return rc;
    const sqf_shape *s = &sc.shape;
    if (in->remaining != tdbf_sqf_core_bytes(s))
        return TDBF_ECORRUPT;
    if (!tdbf_fits((double)memory_of(s), max_memory))
        return TDBF_ETOOBIG;
    sqf_model m;
    tdbf_sqf_model(s, &m);
    sqf *q;
    rc = sqf_start(f, s, m.fp, &q);
    if (rc == TDBF_OK)
        rc = tdbf_in_words(in, q->mem, tdbf_sqf_core_bytes(s) / 8);
    if (rc == TDBF_OK && tdbf_sqf_core_check(&q->core) != 0)
        rc = TDBF_ECORRUPT;
    if (rc != TDBF_OK) {
        sqf_close(f);
        f->state.impl = NULL;
        return rc;
    }
    tdbf_sqf_restore_core(&q->core, &sc);
    f->state.add_hashed = sqf_add_hashed;
    f->state.contains_hashed = sqf_contains_hashed;
    return TDBF_OK;
}

static int sqf_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    uint32_t layout;
    if (tdbf_in_u32(in, &layout) != TDBF_OK)
        return in->rc;
    if (layout == SQF_LAYOUT_COUNT)
        return load_count(f, in, max_memory);
    if (layout == SQF_LAYOUT_TIME)
        return tdbf_sqf_time_load(f, in, max_memory);
    return TDBF_EVERSION;
}

static int sqf_open_count(tdbf *f, const tdbf_config *cfg)
{
    if (cfg->window_ns != 0)
        return tdbf_sqf_time_open(f, cfg);
    int rc = sqf_open(f, cfg);
    if (rc == TDBF_OK) {
        f->state.add_hashed = sqf_add_hashed;
        f->state.contains_hashed = sqf_contains_hashed;
    }
    return rc;
}

/* A count window's core is at its model's worst case at the end of every
 * generation; a chain sums its cores' (sqf_time.c). */
static double sqf_current_error(const tdbf *f, uint64_t now_ns)
{
    if (is_chain(f))
        return tdbf_sqf_time_current_error(f, now_ns);
    const sqf *q = f->state.impl;
    return q->fp_planned;
}

/* Nothing expires by time in a count window; a chain retires its cores. */
static int sqf_advance(tdbf *f, uint64_t now_ns)
{
    return is_chain(f) ? tdbf_sqf_time_advance(f, now_ns) : TDBF_OK;
}

const tdbf_ops tdbf_sqf_ops = {
    .plan = sqf_plan,
    .open = sqf_open_count,
    .close = sqf_close,
    .add = sqf_add,
    .contains = sqf_contains,
    .prefetch = sqf_prefetch,
    .contains_many = sqf_contains_many,
    .add_many = sqf_add_many,
    .batch_at_every_size = true,
    .advance = sqf_advance,
    .stats = sqf_stats,
    .shape = sqf_shape_of,
    .payload_size = sqf_payload_size,
    .save = sqf_save,
    .load = sqf_load,
    .current_error = sqf_current_error,
};
