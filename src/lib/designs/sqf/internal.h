/*
 * internal.h — the sliding quotient filter's bins, generations and spare
 * (private to designs/sqf/; sqf_core.c has the essay).
 *
 * The core works on memory its caller provides (tdbf_sqf_core_bytes), so it
 * neither allocates nor knows the shell: the design file wraps it.
 */
#ifndef TDBF_SQF_INTERNAL_H
#define TDBF_SQF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "designs/ops.h"
#include "util/bits.h"   /* tdbf_prefetch */
#include "util/hash.h"
#include "util/wide.h"   /* tdbf_reduce */

/* Generations and tags: a = 3 tag bits, L = 2^a - 1 generations kept
 * besides the current one; the bin stores the last write's generation
 * modulo 2^5. */
#define SQF_TAG_BITS   3u
#define SQF_TAGS       (1u << SQF_TAG_BITS)
#define SQF_KEPT       (SQF_TAGS - 1u)   /* L */
#define SQF_GEN_BITS   5u
#define SQF_GENS       (1u << SQF_GEN_BITS)
/* The bin's state: last write (5 bits), last spill (5), safe (7). */
#define SQF_SAFE_BITS  7u
#define SQF_STATE_BITS (2u * SQF_GEN_BITS + SQF_SAFE_BITS)
#define SQF_MAX_QUOTIENTS ((1u << SQF_SAFE_BITS) - 1u)
#define SQF_MAX_SLOTS  128u
#define SQF_HEADER_BITS 192u   /* Q + C: three words */
#define SQF_MAX_REM_BITS 32u
#define SQF_MAX_SPARE_K 16u
#define SQF_MAX_WINDOW (UINT64_C(1) << 56)   /* bins and lines stay far from 2^64 */

typedef struct sqf_shape {
    uint64_t window;       /* W: the last W adds are answered */
    uint64_t gen_items;    /* g = ceil(W / L) adds a generation */
    uint64_t bins;
    uint64_t spare_lines;  /* lines of 8 words, one per tag value */
    unsigned bin_words;    /* 64-bit words a bin: 8 (64 B) or 16 (128 B) */
    unsigned quotients;    /* Q */
    unsigned slots;        /* C */
    unsigned rem_bits;     /* r */
    unsigned spare_k;      /* bits a spilled entry sets in its sub-block */
} sqf_shape;

/* An add and a query on the key's bin (bin_ops.h), given its fingerprint. */
struct sqf_core;
struct sqf_print;
typedef struct sqf_bin_ops {
    int (*add)(struct sqf_core *c, const struct sqf_print *p);
    int (*contains)(const struct sqf_core *c, const struct sqf_print *p);
} sqf_bin_ops;

/* A spilled entry's bits on their way to a spare word (sqf_core.c). */
typedef struct sqf_spare_write {
    uint64_t word;   /* index into the spare */
    uint64_t mask;
} sqf_spare_write;

enum { SQF_PENDING = 8 };   /* spare writes a core holds back */

typedef struct sqf_core {
    sqf_shape shape;
    uint64_t  gen;         /* the current generation */
    uint64_t  gen_adds;    /* adds in it so far */
    uint64_t  turn_every;  /* g: a count window turns after g adds; 0: the
                              caller turns (tdbf_sqf_core_turn) */
    uint64_t  adds;        /* adds so far */
    uint64_t  spills;      /* entries moved to the spare */
    uint64_t *bins;        /* bins * bin_words words */
    uint64_t *spare;       /* spare_lines * SQF_TAGS words */
    sqf_bin_ops ops;       /* the bins' code for this shape and CPU
                              (bin_ops.h), chosen by tdbf_sqf_core_init */
    /* Spare writes not yet made, asked for ahead (sqf_core.c, "the
     * spare's writes"): the spare's words are these OR'd in. */
    sqf_spare_write pending[SQF_PENDING];
    unsigned  pending_count;
    unsigned  pending_next;   /* the slot the next spill takes */
} sqf_core;

/* 0 when the shape fits its bin (state + header + slots <= bin bits) and
 * every field is in range; -1 otherwise. */
int tdbf_sqf_shape_check(const sqf_shape *s);
/* Bytes of the words a core of this shape needs (bins, then spare). */
uint64_t tdbf_sqf_core_bytes(const sqf_shape *s);
/* Start an empty core on `mem` (tdbf_sqf_core_bytes of zeroed, 64-byte aligned
 * memory), in generation 0; it turns every shape.gen_items adds when
 * turn_on_count is nonzero (a count window), else only when told. */
void tdbf_sqf_core_init(sqf_core *c, const sqf_shape *s, uint64_t *mem, int turn_on_count);
/* Move on `steps` generations (a time window's clock): the spare's words
 * of the generations that expire are cleared. */
void tdbf_sqf_core_turn(sqf_core *c, uint64_t steps);
/* Make the spare writes held back, so the core's words are all of its
 * state (a test reading them; tdbf_sqf_core_turn does it itself). */
void tdbf_sqf_core_settle(sqf_core *c);
/* The core's words (bins, then the spare) as the saved form has them:
 * with the held-back spare writes made, the core unchanged. */
void tdbf_sqf_save_core_words(tdbf_out *out, const sqf_core *c);
/* Test-and-insert: 1 = was present, 0 = new.  Always records the key in
 * the current generation. */
int tdbf_sqf_core_add(sqf_core *c, const tdbf_hash128 *h);
int tdbf_sqf_core_contains(const sqf_core *c, const tdbf_hash128 *h);
/* The key's bin: multiply-shift of the hash's low half. */
static inline uint64_t tdbf_sqf_bin_index(const sqf_shape *s, const tdbf_hash128 *h)
{
    return tdbf_reduce(h->lo, s->bins);
}
/* Ask for the key's bin (both cache lines of a 128-byte bin) ahead of an
 * add or a query, so batch calls can run a few keys ahead.  Inlined into
 * the caller: GCC deletes calls to a function that only prefetches (see
 * tdbf_prefetch in util/bits.h). */
static TDBF_ALWAYS_INLINE void tdbf_sqf_core_prefetch(const sqf_core *c, const tdbf_hash128 *h)
{
    const uint64_t *bin = c->bins + tdbf_sqf_bin_index(&c->shape, h) * c->shape.bin_words;
    tdbf_prefetch(bin, 0);
    if (c->shape.bin_words > 8)
        tdbf_prefetch(bin + 8, 0);
}
/* 0 when every bin is as the operations write it (a loaded file's), -1
 * otherwise. */
int tdbf_sqf_core_check(const sqf_core *c);

/* ---- the model and the planner (model.c) ---- */

/* The planner sizes a filter for a modelled worst-case FP of error /
 * TDBF_SQF_PLAN_MARGIN, so that the filters, not only the model, meet
 * the error at the worst moment (the end of a generation).  The least
 * tried that does with the 95 % interval of 4000 false positives at every
 * point of tdbf eval sqf-model (windows 10^4 .. 10^7, errors 0.1 ..
 * 10^-5, both bin sizes): at 1.08 the highest interval top is 0.987 of
 * the error; at 1.07 a small filter (window 10^5, 10^-5, measured 1.10x
 * its model) reached 1.005 of it.  Each 1 % of margin is ~0.2 % of bits. */
#define TDBF_SQF_PLAN_MARGIN 1.08

typedef struct sqf_model {
    double fp;           /* at the end of a generation: bins + spare */
    double fp_bins;      /* matches among the bin's entries */
    double fp_spare;     /* matches in the spare */
    double spare_reads;  /* P(a query reads the spare) */
    double spill_rate;   /* spills an add */
} sqf_model;

/* The model of a shape at a steady stream of distinct keys. */
void tdbf_sqf_model(const sqf_shape *s, sqf_model *out);
/* The shape of least memory whose modelled worst-case FP is at most
 * error / TDBF_SQF_PLAN_MARGIN, for a count window of `window` adds;
 * bin_words 8 or 16 fixes the bin size, 0 lets the planner choose.  *fp
 * gets the shape's model FP.  TDBF_OK, TDBF_EINFEASIBLE when no shape
 * meets the error, or TDBF_ETOOBIG for a window past SQF_MAX_WINDOW. */
int tdbf_sqf_plan(uint64_t window, double error, unsigned bin_words, sqf_shape *out,
                  double *fp);

/* ---- the design: a count window's one core, a time window's chain ----
 * (sqf.c: ops, the count window, the shared saved-core record;
 * sqf_time.c: the time window and its essay) */

/* The payload's first u32, and the first member of each design state so
 * that sqf.c tells them apart: 1 = a count window's core (layout kept
 * bit for bit), 2 = a time window's chain of cores. */
enum { SQF_LAYOUT_COUNT = 1, SQF_LAYOUT_TIME = 2 };

/* A core as the saved form records it: shape and counters (5 u32, 8 u64),
 * then, elsewhere, its words. */
typedef struct sqf_saved_core {
    sqf_shape shape;
    uint64_t  gen, gen_adds, adds, spills;
} sqf_saved_core;

enum { SQF_CORE_FIELDS_BYTES = 5 * 4 + 8 * 8 };

void tdbf_sqf_save_core_fields(tdbf_out *out, const sqf_core *c);
/* Reads the fields into *sc; TDBF_OK or the stream's error. */
int  tdbf_sqf_read_core_fields(tdbf_in *in, sqf_saved_core *sc);
/* Every field as the planner and the operations leave them (a count
 * core's generation is never full: turns_on_count); TDBF_ECORRUPT
 * otherwise. */
int  tdbf_sqf_check_core_fields(const sqf_saved_core *sc, int turns_on_count);
/* The saved counters into a core whose words are loaded. */
void tdbf_sqf_restore_core(sqf_core *c, const sqf_saved_core *sc);
/* The bin size cfg asks for in 64-bit words: 0 (the planner's choice), 8
 * or 16; TDBF_EPARAM for another unit_bits. */
int  tdbf_sqf_bin_words_of(const tdbf_config *cfg, unsigned *bin_words);

/* The time window (sqf_time.c): tdbf_ops entries of the chain, which
 * sqf.c's table dispatches to when f->state.impl is a chain. */
int      tdbf_sqf_time_plan(const tdbf_config *cfg, tdbf_shape *out);
int      tdbf_sqf_time_open(tdbf *f, const tdbf_config *cfg);
void     tdbf_sqf_time_close(tdbf *f);
int      tdbf_sqf_time_advance(tdbf *f, uint64_t now_ns);
void     tdbf_sqf_time_stats(const tdbf *f, tdbf_stats *st);
double   tdbf_sqf_time_current_error(const tdbf *f, uint64_t now_ns);
void     tdbf_sqf_time_shape(const tdbf *f, tdbf_shape *out);
uint64_t tdbf_sqf_time_payload_size(const tdbf *f);
void     tdbf_sqf_time_save(const tdbf *f, tdbf_out *out);
/* After the layout word (read by sqf.c). */
int      tdbf_sqf_time_load(tdbf *f, tdbf_in *in, uint64_t max_memory);
/* The core that takes the adds (the batch calls prefetch in it). */
const sqf_core *tdbf_sqf_time_active(const tdbf *f);

#endif
