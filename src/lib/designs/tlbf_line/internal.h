/*
 * internal.h — the one header of designs/tlbf_line/ (private): the
 * tlbf-line filter's struct, its limits, the small inline helpers, and
 * what its three files call of each other: tlbf_line.c (the essay, the
 * operations, open and stats), rings.c (the rings over time and their
 * model) and tlbf_line_save.c (the saved form).  What they mean is tlbf_line.c's
 * essay.
 */
#ifndef TDBF_TLBF_LINE_INTERNAL_H
#define TDBF_TLBF_LINE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "designs/ops.h"
#include "designs/apbf_line/ring.h"

enum {
    TLBF_LINE_DEFAULT_CAPACITY = 1024,
    RING_LIMIT = 1024,         /* most rings cfg.max_rings may allow */
    FIRST_SLOTS = 2,
    COUNTS = 64,               /* generations whose keys a ring counts */
    GROWTH_MAX = 4,            /* per successor */
    SHRINK_BELOW = 4,          /* a generation under g / 4 keys */
    HOME_TOLERANCE = 16,       /* 1/16 over g0 still "home"; overfill allowed */
    MIN_FRACTION = 16,         /* smallest g: g0 / 16 */
    SHIFT_THROUGH_UNITS = 4096, /* a gap costing fewer unit passes is shifted */
    BURST_SHARE = 3,           /* a burst's ring takes 1/3 of the FP left */
    FP_FLOOR = 1024,           /* no ring planned under the home ring's FP / 1024 */
    FEW_UNITS = 256            /* a smaller home ring is planned under its share */
};

/* The home ring is planned for HOME_SHARE of cfg.error and the live
 * rings' model FPs sum to at most SUM_SHARE of it: between the two, room
 * for a burst's rings; above, the model's spread (tlbf_line.c, "False
 * positives"). */
#define HOME_SHARE 0.92
#define SUM_SHARE 0.95
/* A ring of U units has a FP within about UNIT_SPREAD / sqrt(U) of the
 * model's (one standard deviation, measured); under FEW_UNITS units the
 * home ring is planned for less by three of them. */
#define UNIT_SPREAD 1.7

typedef struct ring_slot {
    tdbf_line_ring *ring;
    uint64_t generation;      /* G_r: its newest field's; a retired ring's last;
                                 ahead of the clock's after a burst's shifts */
    uint64_t born;            /* the generation of its first key (or
                                 BORN_UNKNOWN, from an older file) */
    uint64_t last;            /* the generation of its latest key */
    unsigned excess;          /* shifts taken on count in generation born */
    uint64_t opened_ns;       /* when it opened (not saved: a loaded ring's
                                 first generation's start) */
    uint64_t g;               /* keys per generation it was planned for */
    double fp;                /* its model FP at g (from its size, not saved) */
    double calibration;       /* fp over the count estimate at g (not saved) */
    double realized;          /* retired: its FP from its bits over the count
                                 estimate, both over all ages; active: 1 */
    uint64_t units;
    uint64_t keys;            /* adds it took (0: never used) */
    uint64_t counts[COUNTS];  /* adds per generation G, at G % COUNTS */
} ring_slot;

typedef struct tlbf_line {
    unsigned  k, l, b, unit_bits;
    unsigned  max_rings;
    unsigned  count;          /* live rings */
    unsigned  slots_allocated;
    uint64_t  window_ns;      /* T */
    uint64_t  span_ns;        /* ceil(T / l): one generation */
    uint64_t  home_g, home_units; /* the ring planned for the capacity hint */
    uint64_t  min_g;
    /* The rate: keys added in generation gen_of (all rings), in the one
     * before it, and the time from which the filter has watched. */
    uint64_t  gen_of, gen_keys, prev_keys, observed_from;
    uint64_t  check_at;       /* the active generation's fill that asks for growth */
    uint64_t  generations;    /* generations the active ring moved on */
    uint64_t  cap_hits;
    uint64_t  max_memory;
    double    fp_planned;     /* the home ring's model FP */
    double    fp_sum_limit;   /* SUM_SHARE cfg.error: what the rings' FPs may sum to */
    double    miss_per_key;   /* q = (1 - 1/W)^b */
    /* tdbf_current_error's sum, kept by add (not saved): valid while
     * fp_kept, at generation fp_G, for fp_adds more adds. */
    bool      fp_kept;
    uint64_t  fp_G, fp_adds;
    double    fp_current;
    /* G + 1 of the last add's settle (0: none yet; not saved): at the same
     * G another settle has nothing to do. */
    uint64_t  settled_next;
    uint64_t  add_ns;         /* the time of the add in progress (not saved) */
    ring_slot *slots;         /* newest first; [0] takes the adds */
} tlbf_line;

static inline uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static inline uint64_t saturating_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* A ring's first generation when a file did not record it. */
#define BORN_UNKNOWN UINT64_MAX

/* The oldest of a ring's field generations that may hold a key a query at
 * G must find (the keys of generation G - l and later): a field generation
 * is never older than its keys, and none is older than the ring (born);
 * after a burst's shifts on count, generations born .. born + excess - 1
 * hold keys of generation born alone (tlbf_line.c, "Bursts"). */
static inline uint64_t first_live(const tlbf_line *t, const ring_slot *s, uint64_t G)
{
    uint64_t oldest = G > t->l ? G - t->l : 0;
    if (s->born > G)                     /* BORN_UNKNOWN */
        return oldest;
    if (oldest <= s->born)
        return s->born;
    return oldest > s->born + s->excess ? oldest : s->born + s->excess;
}

/* The ages of a ring still read at generation G: from the newest field
 * down to the oldest run of k that may hold a live key (first_live), at
 * most k + l (the ring's fields keep every live key's run: tlbf_line.c);
 * 0 once its latest key has left the window. */
static inline unsigned ages_read(const tlbf_line *t, const ring_slot *s, uint64_t G)
{
    uint64_t first = first_live(t, s, G);
    if (G - s->last > t->l || s->generation < first)
        return 0;
    uint64_t ages = s->generation - first + t->k;
    return ages < t->k + t->l ? (unsigned)ages : t->k + t->l;   /* (a loaded file's) */
}

/* ---- the rings over time (rings.c) ---- */

/* A slot's ring: its model FP, with the calibration to the bits; its
 * retirement (no more adds, its generations age out); its closing; and
 * the rings no query at G reads any more, closed. */
void tdbf_tlbf_line_set_ring_fp(const tlbf_line *t, ring_slot *s, double fp);
void tdbf_tlbf_line_retire(const tlbf_line *t, ring_slot *s);
void tdbf_tlbf_line_close_slot(tdbf *f, ring_slot *s);
void tdbf_tlbf_line_drop_stale(tdbf *f, tlbf_line *t, uint64_t G);
/* Count an add in the active ring's generation G. */
void tdbf_tlbf_line_count_generation(tlbf_line *t, uint64_t G);
/* No key added since open (or load): the first add may start anywhere. */
bool tdbf_tlbf_line_untouched(const tlbf_line *t);
/* Bring the rings to generation G at now_ns: shifts, a gap, a restart. */
int  tdbf_tlbf_line_settle(tdbf *f, tlbf_line *t, uint64_t G, uint64_t now_ns);
/* The model FP of a query at G over the live rings. */
double tdbf_tlbf_line_rings_fp(const tlbf_line *t, uint64_t G);
/* After an add: a successor ring if the burst asks for one; the FP kept
 * within its limit. */
void tdbf_tlbf_line_consider_growth(tdbf *f, tlbf_line *t, uint64_t G, uint64_t now_ns);
void tdbf_tlbf_line_keep_fp(tlbf_line *t, uint64_t G);
/* What open and load share: the derived fields, the FP sum's limit, and
 * freeing every ring with the filter. */
void tdbf_tlbf_line_set_derived(tlbf_line *t);
void tdbf_tlbf_line_set_sum_limit(tlbf_line *t, double error);
void tdbf_tlbf_line_free_rings(tdbf *f, tlbf_line *t);

/* The model: a ring's plan for g keys per generation at FP <= fp, the
 * ring sized for n keys, a slot's FP from its counts, the model's
 * constants, and a ring's measured-over-modelled ratio. */
int tdbf_tlbf_line_plan_ring(const tlbf_line *t, uint64_t g, double fp, tdbf_line_plan *out);
uint64_t tdbf_tlbf_line_sized_for(const tlbf_line *t, double n);
double tdbf_tlbf_line_slot_fp(const tlbf_line *t, const ring_slot *s, uint64_t G, bool all);
void tdbf_tlbf_line_derive(tlbf_line *t);
double tdbf_tlbf_line_calibration(const tlbf_line *t, const ring_slot *s);

/* ---- the saved form (tlbf_line_save.c): tdbf_ops' payload_size, save and load ---- */

uint64_t tdbf_tlbf_line_payload_size(const tdbf *f);
void tdbf_tlbf_line_save(const tdbf *f, tdbf_out *out);
int  tdbf_tlbf_line_load(tdbf *f, tdbf_in *in, uint64_t max_memory);

#endif
