/*
 * sqf_time.c — the sliding quotient filter over a time window: cores
 * (sqf_core.c) turned by the clock, turned on count in a burst, and
 * chained as the rate changes.
 *
 * Generations.  span = ceil(T / 7) ns and generation G(t) = floor(t /
 * span) of the filter's clock (filter.c clamps it: never back).  Every
 * live core is turned to G (tdbf_sqf_core_turn: the spare's words of the
 * generations that expire are cleared) by the first add or advance of a
 * generation; a core answers a key while its age is at most L = 7 of
 * the core's generations.  A key added at t and queried at t' with t' -
 * t < T has G(t') - G(t) < (t' - t) / span + 1 < T / span + 1 <= 8: at
 * most 7 generations, and a core's generation never moves slower than
 * the clock's, so no false negative inside the window.  At a steady rate
 * a key answers until G(t) + 8, before t + 8 span: the expiry bound,
 * slack_ns = 8 span - T (slack.c); a core run ahead of the clock by a
 * burst (below) keeps its keys up to 7 generations longer.
 *
 * Cores.  A core planned by tdbf_sqf_plan for a count window of C keys
 * (g = ceil(C / 7) adds a generation) holds 8 of its generations, 8 g
 * keys at the end of one: the model's worst moment (model.c).  Its
 * "live adds" are its adds in the clock's generations G - 7 .. G.
 *
 *     links:  [0] active: takes the adds   [1] retired  [2] ...
 *             newest first; each freed once G - (generation of its
 *             latest add) > 7: every key in it has expired
 *
 * The first core is planned for the capacity hint (cfg.capacity, 1024
 * when 0).  New keys go into the newest core only; a query asks every
 * live core, newest first; an add answers "present" if any live core
 * holds the key (test-and-set) and records it in the newest core always
 * (so its age restarts there).  Queries do not turn the cores: they read
 * a core as turned to G (a copy of its struct with the generation moved
 * on), so the one thing a query may see that a turn would have cleared
 * is a spare word of an expired generation: a false positive, never a
 * negative (nothing is removed).  Batch calls ask for each key's bin in
 * the active core a few keys ahead: where every add goes, and the first
 * core a query reads.
 *
 * Bursts.  A core's generation that takes g adds while the clock's has
 * not ended turns the core on count, as a count window would, so that
 * its spills spread over the spare's words as the model has them (a
 * generation of 8 g in one word measured 7.5x the target at 0.001).  It
 * may while every key in the window stays inside its generations: the
 * core's generation at the first add of the oldest clock generation it
 * holds keys of (first[]) is at least the new one - 6, so a burst fills
 * at most 7 of them (7 g, 0.75x the model's FP measured; the 8th, in a
 * burst, measured 2x).  A key keeps its core generation, and its age in
 * them only grows as fast as the clock's once the clock catches up, so
 * the bound above holds: no false negative.
 *
 * When the active core changes.
 *   - Grow: its live adds reach 8.5 g (a steady rate over the plan; the
 *     half generation lets jitter at the plan stay in one core), or its
 *     full generation cannot turn and either took a quarter g more (its
 *     spills would crowd one spare word) or the core ran 2 or more
 *     generations ahead of the clock (a burst filled it).  A successor
 *     of 4 C opens.  A burst and the same keys paced over the window
 *     build the same chain (4^i C), so they cost the same memory.
 *   - Shrink: at the first add of a generation, when the core has seen a
 *     whole window (its first add 7 generations back) whose adds, in all
 *     cores, fit a core of C / 4 (and C / 4 >= the hint / 16), a
 *     successor of C / 4 opens; the old core is read until its keys
 *     expire.
 *   - Settle: at the first add of a generation, a successor planned for
 *     less than the first core's error (below), alone now that its
 *     predecessors' keys have expired, is replaced by a core of its size
 *     at the first core's error: the burst's price in bits a key is paid
 *     for one window, not for as long as the rate stays high.
 *   - Idle: an active core whose latest add is more than 7 generations
 *     old holds nothing live; the next add or advance puts a fresh core
 *     for the hint in its place (or clears it in place when it is one),
 *     so an idle filter is back at its planned memory, and a bin
 *     unwritten for 32 generations (whose tags would decode as young,
 *     sqf_core.c) never meets a query.
 *
 * False positives.  The first core (and one after a shrink or an idle
 * gap) is planned for HOME_SHARE = 0.8 of cfg.error; the i-th successor
 * of a growth for 0.2 / 2^i of it (depth i, at most 10), so the cores a
 * burst fills in turn sum to at most the target, each at its model's
 * worst case.  Measured (test_sqf_time.c, fixed seeds, at the worst
 * moment, 4000 / error never-added keys; the rate, its 95 % Wilson
 * interval's upper end over the target):
 *
 *     pattern, error                        FP / target (upper)
 *     steady 1000/s at the hint, 0.01          0.77 (0.80)
 *     steady 1000/s at the hint, 0.001         0.77 (0.80)
 *     10x rate jump, worst generation, 0.01    0.73 (0.78)
 *     10x rate jump, worst generation, 0.001   0.74 (0.79)
 *     20/s, then 1000x at once, 0.01           0.81 (0.84)
 *     20/s, then 1000x at once, 0.001          1.15 (1.19)
 *
 * The last row is the small cores' spread (a core of 1 200 keys has 50
 * bins and a spare of a line or two; seeds vary 0.81-1.15x): the test
 * holds a burst to 1.5x, the bound `tdbf dedup` stops at.
 * tdbf_current_error sums the live cores' model FPs, each scaled by its
 * live adds over 8 g (it read 0.00090 where 0.00115 was measured, and
 * 0.00833 for 0.00808).  A successor's lower error costs it about a bit a key
 * per halving, paid until its predecessors have expired ("Settle").
 *
 * Bounds.  cfg.max_rings caps the live cores (0: 48, at most 1024) and
 * cfg.max_memory the bytes.  A successor refused by either (or by a
 * failed allocation): the active core keeps filling (FP rises, never a
 * false negative: a core never refuses a key, sqf_core.c), stats.cap_hits
 * counts it, and it is asked for again g adds later.
 *
 * Memory.  At a steady rate at the hint, one core: 0.70x and 0.64x
 * tlbf-line's bytes at 0.01 and 0.001 (test_sqf_time.c, 1000/s in a
 * minute).  10^6 keys into a 60 s, 0.001 filter with no hint: 5.82
 * bytes a key at once and paced over the minute alike (the chain 1024
 * .. 4^5 1024, its successors planned for less; tlbf-line 10.8 and 4.2
 * by its own measure); in the second minute at that pace 7.22 (the
 * settled core beside the burst's last), from the third 2.77, 0.57x
 * tlbf-line's 4.86.
 */
#include <string.h>

#include "designs/sqf/internal.h"
#include "util/mem.h"
#include "util/serial.h"

enum {
    DEFAULT_CAPACITY = 1024,   /* as tlbf-line's */
    CORE_LIMIT = 1024,         /* most cores cfg.max_rings may allow */
    GROWTH = 4,                /* a successor's capacity over its predecessor's */
    SHRINK_BY = 4,
    MIN_FRACTION = 16,         /* no shrink below the hint / 16 */
    MAX_DEPTH = 10,            /* no core planned below error / 1024 */
    BURST_GENERATIONS = 7      /* a core's generations a burst fills */
};

/* The first core takes HOME_SHARE of cfg.error; the successors of a
 * burst share the rest, half each in turn ("False positives"). */
#define HOME_SHARE 0.8

/* Capacities and counts from a file are at most this, so adds count on
 * without wrapping. */
#define COUNT_LIMIT (UINT64_C(1) << 60)

typedef struct sqf_link {
    sqf_core  core;           /* core.gen >= at: ahead after turns on count */
    uint64_t *mem;
    uint64_t  capacity;       /* C: keys a window it was planned for */
    unsigned  depth;          /* 0: planned for HOME_SHARE cfg.error; i: the
                                 i-th successor of a growth (core_error) */
    double    fp;             /* the model's worst-case FP of its shape */
    uint64_t  born;           /* the generation of its first add */
    uint64_t  last;           /* the generation of its latest add */
    uint64_t  at;             /* the clock's generation it was settled to */
    uint64_t  live;           /* its adds in generations at - 7 .. at */
    uint64_t  grow_at;        /* live adds that ask for a successor */
    uint64_t  retry_at;       /* after a refused successor: core.adds before
                                 a burst asks again (not saved) */
    uint64_t  counts[SQF_TAGS]; /* adds of generation x at x % 8, x in at - 7 .. at */
    uint64_t  first[SQF_TAGS];  /* the core's generation when generation x's
                                   first key came (counts[x % 8] > 0) */
} sqf_link;

typedef struct sqf_time {
    uint32_t  layout;         /* SQF_LAYOUT_TIME (sqf.c reads it first) */
    unsigned  bin_words;      /* asked: 0 (planner), 8 or 16 */
    unsigned  max_cores;
    unsigned  count;          /* live cores in links[0 .. count-1] */
    uint64_t  window_ns;      /* T */
    uint64_t  span_ns;        /* ceil(T / 7): one generation */
    uint64_t  home_capacity;  /* the hint */
    uint64_t  max_memory;
    uint64_t  cap_hits;
    uint64_t  gen;            /* the generation the cores were turned to */
    uint64_t  turns;          /* generations moved on (stats.generations) */
    uint64_t  ruled_next;     /* G + 1 of the last add's rate rules (0: none; not saved) */
    double    fp_planned;     /* the first core's model FP */
    sqf_link **links;         /* max_cores slots, newest first */
} sqf_time;

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

static uint64_t span_of(uint64_t window_ns)
{
    return ceil_div(window_ns, SQF_KEPT);
}

/* 8.5 g: the live adds a core takes before it asks for a successor. */
static uint64_t grow_at_of(const sqf_shape *s)
{
    return SQF_TAGS * s->gen_items + s->gen_items / 2;
}

static uint64_t link_bytes(const sqf_shape *s)
{
    return sizeof(sqf_link) + TDBF_ALIGNED_OVERHEAD + tdbf_sqf_core_bytes(s);
}

static uint64_t fixed_bytes(unsigned max_cores)
{
    return sizeof(sqf_time) + (uint64_t)max_cores * sizeof(sqf_link *);
}

/* The error a core of this depth is planned for: HOME_SHARE of cfg.error
 * for the first, (1 - HOME_SHARE) / 2^depth of it for a successor, so
 * that a chain's sum to at most cfg.error. */
static double core_error(double error, unsigned depth)
{
    if (depth == 0)
        return error * HOME_SHARE;
    error *= 1.0 - HOME_SHARE;
    for (unsigned i = 0; i < depth; i++)
        error /= 2.0;
    return error;
}

/* The shape of a core for `capacity` keys a window at depth's error, and
 * its model FP. */
static int plan_core(uint64_t capacity, double error, unsigned depth, unsigned bin_words,
                     sqf_shape *s, double *fp)
{
    return tdbf_sqf_plan(capacity, core_error(error, depth), bin_words, s, fp);
}

/* ---- the cores ----------------------------------------------------------- */

static int link_live(const sqf_link *a, uint64_t G)
{
    return a->core.adds != 0 && G - a->last <= SQF_KEPT;
}

/* Adds of generation x if the link still counts it. */
static uint64_t count_of(const sqf_link *a, uint64_t x)
{
    if (x > a->at || a->at - x > SQF_KEPT)
        return 0;
    return a->counts[x % SQF_TAGS];
}

/* Its adds in generations G - 7 .. G (G >= at), without turning. */
static uint64_t live_adds_at(const sqf_link *a, uint64_t G)
{
    uint64_t n = 0;
    for (uint64_t age = 0; age <= SQF_KEPT && age <= G; age++)
        n += count_of(a, G - age);
    return n;
}

/* The clock at G: the counts of generations that left the window
 * dropped, and the core turned to G unless it is there or ahead. */
static void link_turn(sqf_link *a, uint64_t G)
{
    if (G <= a->at)
        return;
    uint64_t steps = G - a->at;
    for (uint64_t i = 1; i <= steps && i <= SQF_TAGS; i++)
        a->counts[(a->at + i) % SQF_TAGS] = 0;
    a->at = G;
    if (a->core.gen < G)
        tdbf_sqf_core_turn(&a->core, G - a->core.gen);
    a->live = live_adds_at(a, G);
}

/* The oldest generation (of the clock) it holds keys of, still in the
 * window at G = at, and the core's generation when its first came. */
static int oldest_live(const sqf_link *a, uint64_t *clock_gen, uint64_t *core_gen)
{
    for (uint64_t age = a->at < SQF_KEPT ? a->at : SQF_KEPT;; age--) {
        if (count_of(a, a->at - age) != 0) {
            *clock_gen = a->at - age;
            *core_gen = a->first[*clock_gen % SQF_TAGS];
            return 1;
        }
        if (age == 0)
            return 0;
    }
}

/* "Bursts": the core's generation is full (g adds).  It turns on count
 * while the window's keys then span at most BURST_GENERATIONS of its
 * generations.  1 when it cannot and the successor is due: the core ran
 * ahead of the clock by 2 or more (a burst filled it), or its generation
 * took half a g more (its spills would crowd one spare word); 0
 * otherwise (a steady core overfills a little, up to grow_at). */
static int turn_on_count(sqf_link *a)
{
    uint64_t clock_gen, core_gen, g = a->core.shape.gen_items;
    if (a->core.gen_adds < g)
        return 0;
    if (!oldest_live(a, &clock_gen, &core_gen) ||
        a->core.gen + 1 - core_gen < BURST_GENERATIONS) {
        tdbf_sqf_core_turn(&a->core, 1);
        return 0;
    }
    return a->core.gen_adds >= g + g / 4 ||
           a->core.gen - core_gen >= a->at - clock_gen + 2;
}

static void link_free(tdbf *f, sqf_link *a)
{
    tdbf_mem_free_aligned(f, a->mem, (size_t)tdbf_sqf_core_bytes(&a->core.shape));
    tdbf_mem_free(f, a, sizeof *a);
}

/* An empty core of shape s at generation G, on its memory. */
static void link_start(sqf_link *a, const sqf_shape *s, uint64_t G)
{
    tdbf_sqf_core_init(&a->core, s, a->mem, 0);
    a->core.gen = G;
    a->at = G;
    a->born = a->last = G;
    a->live = 0;
    a->grow_at = grow_at_of(s);
    memset(a->counts, 0, sizeof a->counts);
}

/* A new core for `capacity` keys a window at error / 2^depth, within
 * max_memory; TDBF_ETOOBIG, TDBF_EINFEASIBLE or TDBF_ENOMEM otherwise. */
static int link_open(tdbf *f, const sqf_time *t, uint64_t capacity, unsigned depth,
                     uint64_t G, sqf_link **out)
{
    sqf_shape s;
    double fp;
    int rc = plan_core(capacity, f->error, depth, t->bin_words, &s, &fp);
    if (rc != TDBF_OK)
        return rc;
    if (!tdbf_fits((double)f->state.memory_bytes + (double)link_bytes(&s), t->max_memory))
        return TDBF_ETOOBIG;
    sqf_link *a = tdbf_mem_calloc(f, 1, sizeof *a);
    if (!a)
        return TDBF_ENOMEM;
    a->mem = tdbf_mem_calloc_aligned(f, (size_t)tdbf_sqf_core_bytes(&s));
    if (!a->mem) {
        tdbf_mem_free(f, a, sizeof *a);
        return TDBF_ENOMEM;
    }
    link_start(a, &s, G);
    a->capacity = capacity;
    a->depth = depth;
    a->fp = fp;
    *out = a;
    return TDBF_OK;
}

/* A new active core in front of the others. */
static int push_core(tdbf *f, sqf_time *t, uint64_t capacity, unsigned depth, uint64_t G)
{
    if (t->count >= t->max_cores)
        return TDBF_ETOOBIG;
    sqf_link *a;
    int rc = link_open(f, t, capacity, depth, G, &a);
    if (rc != TDBF_OK)
        return rc;
    memmove(t->links + 1, t->links, t->count * sizeof *t->links);
    t->links[0] = a;
    t->count++;
    return TDBF_OK;
}

/* The active core holds nothing live: a fresh core for the hint takes
 * its place (memory back to the plan), or, when it is that core already
 * or the new one is refused, its memory is cleared in place. */
static void restart_idle(tdbf *f, sqf_time *t, uint64_t G)
{
    sqf_link *a = t->links[0], *fresh;
    if ((a->capacity != t->home_capacity || a->depth != 0) &&
        link_open(f, t, t->home_capacity, 0, G, &fresh) == TDBF_OK) {
        link_free(f, a);
        t->links[0] = fresh;
        return;
    }
    memset(a->mem, 0, (size_t)tdbf_sqf_core_bytes(&a->core.shape));
    link_start(a, &a->core.shape, G);
}

/* Turn every core to G and free the retired ones that hold nothing live;
 * an idle active core restarts. */
static void settle(tdbf *f, sqf_time *t, uint64_t G)
{
    if (G == t->gen)
        return;
    /* generations count from the first add (the clock starts anywhere) */
    int counting = t->turns != 0 || t->count > 1 || t->links[0]->core.adds != 0;
    unsigned kept = 1;
    for (unsigned i = 1; i < t->count; i++) {
        sqf_link *a = t->links[i];
        if (link_live(a, G)) {
            link_turn(a, G);
            t->links[kept++] = a;
        } else {
            link_free(f, a);
        }
    }
    t->count = kept;
    if (t->links[0]->core.adds != 0 && !link_live(t->links[0], G))
        restart_idle(f, t, G);
    else
        link_turn(t->links[0], G);
    uint64_t steps = G - t->gen;
    if (counting)
        t->turns = steps > COUNT_LIMIT - t->turns ? COUNT_LIMIT : t->turns + steps;
    t->gen = G;
}

/* All cores' adds of generations G - 7 .. G - 1: the last whole window. */
static uint64_t window_adds(const sqf_time *t, uint64_t G)
{
    uint64_t n = 0;
    for (unsigned i = 0; i < t->count; i++)
        for (uint64_t age = 1; age <= SQF_KEPT && age <= G; age++)
            n += count_of(t->links[i], G - age);
    return n;
}

/* The first add of generation G: a slow core replaced by a smaller one,
 * a burst's last core, alone now, by one of its size at the first
 * core's error ("When the active core changes").  Refused, the core
 * stays. */
static void apply_rate_rules(tdbf *f, sqf_time *t, uint64_t G)
{
    const sqf_link *a = t->links[0];
    if (a->core.adds == 0)
        return;
    uint64_t smaller = a->capacity / SHRINK_BY;
    if (G - a->born >= SQF_KEPT && smaller >= t->home_capacity / MIN_FRACTION &&
        smaller != 0 && window_adds(t, G) <= smaller)
        push_core(f, t, smaller, 0, G);
    else if (t->count == 1 && a->depth != 0)
        push_core(f, t, a->capacity, 0, G);
}

/* The active core's live adds reached grow_at: a successor GROWTH times
 * larger at half its error, or, refused, a cap hit and a retry g adds on. */
static void grow(tdbf *f, sqf_time *t, uint64_t G)
{
    sqf_link *a = t->links[0];
    uint64_t capacity = a->capacity <= COUNT_LIMIT / GROWTH ? a->capacity * GROWTH : COUNT_LIMIT;
    unsigned depth = a->depth < MAX_DEPTH ? a->depth + 1 : MAX_DEPTH;
    if (push_core(f, t, capacity, depth, G) != TDBF_OK) {
        t->cap_hits++;
        a->grow_at = a->live + a->core.shape.gen_items;
        a->retry_at = a->core.adds + a->core.shape.gen_items;
    }
}

/* ---- operations ------------------------------------------------------- */

/* Does core a hold the key at generation G?  Read as turned to G. */
static int link_has(const sqf_link *a, const tdbf_hash128 *h, uint64_t G)
{
    if (!link_live(a, G))
        return 0;
    if (a->core.gen >= G)
        return tdbf_sqf_core_contains(&a->core, h);
    sqf_core turned = a->core;
    turned.gen = G;
    return tdbf_sqf_core_contains(&turned, h);
}

static int time_add(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    sqf_time *t = f->state.impl;
    uint64_t G = now_ns / t->span_ns;
    settle(f, t, G);
    if (G == UINT64_MAX || t->ruled_next != G + 1) {
        apply_rate_rules(f, t, G);
        t->ruled_next = G < UINT64_MAX ? G + 1 : 0;
    }
    sqf_link *active = t->links[0];
    if ((turn_on_count(active) && active->core.adds >= active->retry_at) ||
        active->live >= active->grow_at)
        grow(f, t, G);
    sqf_link *a = t->links[0];
    if (a->core.adds == 0)
        a->born = G;
    if (a->counts[G % SQF_TAGS] == 0)
        a->first[G % SQF_TAGS] = a->core.gen;
    int present = tdbf_sqf_core_add(&a->core, &key->hash);
    a->counts[G % SQF_TAGS]++;
    a->live++;
    a->last = G;
    for (unsigned i = 1; i < t->count && !present; i++)
        present = link_has(t->links[i], &key->hash, G);
    return present;
}

static int time_contains(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    const sqf_time *t = f->state.impl;
    uint64_t G = now_ns / t->span_ns;
    for (unsigned i = 0; i < t->count; i++)
        if (link_has(t->links[i], &key->hash, G))
            return 1;
    return 0;
}

int tdbf_sqf_time_advance(tdbf *f, uint64_t now_ns)
{
    sqf_time *t = f->state.impl;
    settle(f, t, now_ns / t->span_ns);
    return TDBF_OK;
}

/* ---- plan, open, close, stats ------------------------------------------ */

static uint64_t planned_bytes(const sqf_shape *s, unsigned max_cores)
{
    return sizeof(tdbf) + fixed_bytes(max_cores) + link_bytes(s);
}

/* The first core open builds for cfg, and the cap on live cores;
 * TDBF_ETOOBIG when they pass cfg.max_memory. */
static int time_size(const tdbf_config *cfg, sqf_shape *s, double *fp, unsigned *max_cores)
{
    if (cfg->window_ns == 0 || cfg->window_items != 0)
        return TDBF_EWINDOW;
    if (cfg->k != 0 || cfg->l != 0)
        return TDBF_EPARAM;
    unsigned bin_words;
    if (tdbf_sqf_bin_words_of(cfg, &bin_words) != TDBF_OK ||
        tdbf_config_field(cfg->max_rings, cfg->max_slices, max_cores) != TDBF_OK ||
        *max_cores > CORE_LIMIT)
        return TDBF_EPARAM;
    if (*max_cores == 0)
        *max_cores = 2 * SQF_TAGS + 32;
    uint64_t capacity = cfg->capacity ? cfg->capacity : DEFAULT_CAPACITY;
    int rc = plan_core(capacity, cfg->error, 0, bin_words, s, fp);
    if (rc == TDBF_OK && !tdbf_fits((double)planned_bytes(s, *max_cores), cfg->max_memory))
        return TDBF_ETOOBIG;
    return rc;
}

/* At a steady rate within the hint one core is live: the one open makes. */
int tdbf_sqf_time_plan(const tdbf_config *cfg, tdbf_shape *out)
{
    sqf_shape s;
    double fp;
    unsigned max_cores;
    int rc = time_size(cfg, &s, &fp, &max_cores);
    if (rc != TDBF_OK)
        return rc;
    out->k = 1;
    out->l = SQF_KEPT;
    out->window_ns = cfg->window_ns;
    out->error_planned = fp;
    out->memory_bytes = planned_bytes(&s, max_cores);
    return TDBF_OK;
}

static void time_free(tdbf *f, sqf_time *t)
{
    for (unsigned i = 0; i < t->count; i++)
        link_free(f, t->links[i]);
    if (t->links)
        tdbf_mem_free(f, t->links, t->max_cores * sizeof *t->links);
    tdbf_mem_free(f, t, sizeof *t);
}

void tdbf_sqf_time_close(tdbf *f)
{
    time_free(f, f->state.impl);
}

/* The chain's struct and its slots, with no core yet; G the clock's. */
static sqf_time *time_new(tdbf *f, unsigned max_cores)
{
    sqf_time *t = tdbf_mem_calloc(f, 1, sizeof *t);
    if (!t)
        return NULL;
    t->layout = SQF_LAYOUT_TIME;
    t->max_cores = max_cores;
    t->links = tdbf_mem_calloc(f, max_cores, sizeof *t->links);
    if (!t->links) {
        tdbf_mem_free(f, t, sizeof *t);
        return NULL;
    }
    return t;
}

/* What open and load set in the shell once the chain stands: batch
 * calls ask for each key's bin in the active core a few keys ahead. */
static void time_install(tdbf *f, sqf_time *t)
{
    f->state.impl = t;
    f->state.prefetch_ahead = TDBF_PREFETCH_AHEAD_LINE;
    f->state.error_planned = t->fp_planned;
    f->state.add = time_add;
    f->state.contains = time_contains;
}

const sqf_core *tdbf_sqf_time_active(const tdbf *f)
{
    const sqf_time *t = f->state.impl;
    return &t->links[0]->core;
}

int tdbf_sqf_time_open(tdbf *f, const tdbf_config *cfg)
{
    sqf_shape s;
    double fp;
    unsigned max_cores;
    int rc = time_size(cfg, &s, &fp, &max_cores);
    if (rc != TDBF_OK)
        return rc;
    sqf_time *t = time_new(f, max_cores);
    if (!t)
        return TDBF_ENOMEM;
    (void)tdbf_sqf_bin_words_of(cfg, &t->bin_words);
    t->window_ns = cfg->window_ns;
    t->span_ns = span_of(cfg->window_ns);
    t->home_capacity = cfg->capacity ? cfg->capacity : DEFAULT_CAPACITY;
    t->max_memory = cfg->max_memory;
    t->fp_planned = fp;
    t->gen = atomic_load_explicit(&f->now_ns, memory_order_relaxed) / t->span_ns;
    rc = push_core(f, t, t->home_capacity, 0, t->gen);
    if (rc != TDBF_OK) {
        time_free(f, t);
        return rc;
    }
    time_install(f, t);
    return TDBF_OK;
}

/* Every live core's adds in generations G - 7 .. G. */
static uint64_t keys_at(const sqf_time *t, uint64_t G)
{
    uint64_t keys = 0;
    for (unsigned i = 0; i < t->count; i++)
        if (link_live(t->links[i], G))
            keys += live_adds_at(t->links[i], G);
    return keys;
}

void tdbf_sqf_time_shape(const tdbf *f, tdbf_shape *out)
{
    const sqf_time *t = f->state.impl;
    out->k = 1;
    out->l = SQF_KEPT;
    out->window_ns = t->window_ns;
    out->error_planned = t->fp_planned;
}

/* The FP of a query at G: the live cores' model FPs summed, each scaled
 * by its live adds over the 8 g of its worst moment (each entry's share
 * of the bins' matches; a burst's overfill counts in full). */
static double chain_error(const sqf_time *t, uint64_t G)
{
    double estimated = 0.0;
    for (unsigned i = 0; i < t->count; i++) {
        const sqf_link *a = t->links[i];
        if (link_live(a, G))
            estimated += a->fp * (double)live_adds_at(a, G) /
                         (double)(SQF_TAGS * a->core.shape.gen_items);
    }
    return estimated < 1.0 ? estimated : 1.0;
}

double tdbf_sqf_time_current_error(const tdbf *f, uint64_t now_ns)
{
    const sqf_time *t = f->state.impl;
    return chain_error(t, now_ns / t->span_ns);
}

/* Slices are bins, all cores' together; a generation is the active
 * core's g, its fill the adds in the core's generation (turned on count
 * in a burst: at most about g). */
void tdbf_sqf_time_stats(const tdbf *f, tdbf_stats *st)
{
    const sqf_time *t = f->state.impl;
    uint64_t G = atomic_load_explicit(&f->now_ns, memory_order_relaxed) / t->span_ns;
    uint64_t bins = 0;
    for (unsigned i = 0; i < t->count; i++)
        bins += t->links[i]->core.shape.bins;
    const sqf_link *active = t->links[0];
    st->slices = (unsigned)(bins > UINT32_MAX ? UINT32_MAX : bins);
    st->slice_bits = 64u * active->core.shape.bin_words;
    st->generation_size = active->core.shape.gen_items;
    st->generation_fill = link_live(active, G) ? active->core.gen_adds : 0;
    st->generations = t->turns;
    st->error_estimated = chain_error(t, G);
    st->keys = keys_at(t, G);
    st->cap_hits = t->cap_hits;
    if (st->keys)
        st->bits_per_item = 8.0 * (double)f->state.memory_bytes / (double)st->keys;
}

/* ---- serialization (codec.c) ----------------------------------------------
 * Payload (after sqf.c's u32 layout, SQF_LAYOUT_TIME): u32 bin words
 * asked (0, 8, 16), u32 max cores, u32 cores (live), u32 0; u64 T, u64
 * capacity hint, u64 max_memory, u64 cap hits, u64 generation turned to,
 * u64 turns; then per core, newest first: u64 capacity, u32 depth,
 * u32 0, u64 born, u64 last, u64 grow_at, for the generations of ages 0
 * .. 7 from the one turned to: u64 adds, u64 the core's generation at
 * the first of them (0 when none); and the core's fields as a count
 * window's (sqf.c);
 * then each core's words in the same order.  All records come before any
 * words, so the memory is checked before allocating. */

enum { TIME_FIELDS_BYTES = 4 * 4 + 6 * 8,
       RECORD_BYTES = 8 + 4 + 4 + 3 * 8 + SQF_TAGS * 16 + SQF_CORE_FIELDS_BYTES };

uint64_t tdbf_sqf_time_payload_size(const tdbf *f)
{
    const sqf_time *t = f->state.impl;
    uint64_t bytes = 4 + TIME_FIELDS_BYTES + (uint64_t)t->count * RECORD_BYTES;
    for (unsigned i = 0; i < t->count; i++)
        bytes += tdbf_sqf_core_bytes(&t->links[i]->core.shape);
    return bytes;
}

void tdbf_sqf_time_save(const tdbf *f, tdbf_out *out)
{
    const sqf_time *t = f->state.impl;
    const uint32_t header[5] = {SQF_LAYOUT_TIME, t->bin_words, t->max_cores, t->count, 0};
    const uint64_t fields[6] = {t->window_ns, t->home_capacity, t->max_memory,
                                t->cap_hits, t->gen, t->turns};
    for (unsigned i = 0; i < 5; i++)
        tdbf_out_u32(out, header[i]);
    for (unsigned i = 0; i < 6; i++)
        tdbf_out_u64(out, fields[i]);
    for (unsigned i = 0; i < t->count; i++) {
        const sqf_link *a = t->links[i];
        tdbf_out_u64(out, a->capacity);
        tdbf_out_u32(out, a->depth);
        tdbf_out_u32(out, 0);
        tdbf_out_u64(out, a->born);
        tdbf_out_u64(out, a->last);
        tdbf_out_u64(out, a->grow_at);
        for (uint64_t age = 0; age < SQF_TAGS; age++) {
            uint64_t n = age <= a->at ? count_of(a, a->at - age) : 0;
            tdbf_out_u64(out, n);
            tdbf_out_u64(out, n ? a->first[(a->at - age) % SQF_TAGS] : 0);
        }
        tdbf_sqf_save_core_fields(out, &a->core);
    }
    for (unsigned i = 0; i < t->count; i++)
        tdbf_sqf_save_core_words(out, &t->links[i]->core);
}

/* The chain's own fields, checked against each other and the clock. */
static int load_fields(tdbf_in *in, sqf_time *h, uint64_t now_ns)
{
    uint32_t header[4];
    uint64_t fields[6];
    for (unsigned i = 0; i < 4; i++)
        tdbf_in_u32(in, &header[i]);
    for (unsigned i = 0; i < 6; i++)
        tdbf_in_u64(in, &fields[i]);
    if (in->rc != TDBF_OK)
        return in->rc;
    h->layout = SQF_LAYOUT_TIME;
    h->bin_words = header[0];
    h->max_cores = header[1];
    h->count = header[2];
    h->window_ns = fields[0];
    h->home_capacity = fields[1];
    h->max_memory = fields[2];
    h->cap_hits = fields[3];
    h->gen = fields[4];
    h->turns = fields[5];
    if ((h->bin_words != 0 && h->bin_words != 8 && h->bin_words != 16) ||
        h->max_cores < 1 || h->max_cores > CORE_LIMIT || h->count < 1 ||
        h->count > h->max_cores || header[3] != 0 || h->window_ns == 0 ||
        h->home_capacity < 1 || h->home_capacity > COUNT_LIMIT || h->max_memory == 0 ||
        h->cap_hits > COUNT_LIMIT || h->turns > COUNT_LIMIT)
        return TDBF_ECORRUPT;
    h->span_ns = span_of(h->window_ns);
    if (h->gen > now_ns / h->span_ns)
        return TDBF_ECORRUPT;
    return TDBF_OK;
}

/* One core's record: its fields within range, its generation the
 * chain's, its latest add no later, its counts what a live core keeps. */
static int load_record(tdbf_in *in, const sqf_time *h, sqf_link *a, sqf_saved_core *sc)
{
    uint32_t depth, zero;
    tdbf_in_u64(in, &a->capacity);
    tdbf_in_u32(in, &depth);
    tdbf_in_u32(in, &zero);
    tdbf_in_u64(in, &a->born);
    tdbf_in_u64(in, &a->last);
    tdbf_in_u64(in, &a->grow_at);
    uint64_t counts[SQF_TAGS], firsts[SQF_TAGS];
    for (unsigned age = 0; age < SQF_TAGS; age++) {
        tdbf_in_u64(in, &counts[age]);
        tdbf_in_u64(in, &firsts[age]);
    }
    if (tdbf_sqf_read_core_fields(in, sc) != TDBF_OK)
        return in->rc;
    a->depth = depth;
    if (depth > MAX_DEPTH || zero != 0 || a->capacity < 1 || a->capacity > COUNT_LIMIT ||
        a->grow_at > COUNT_LIMIT || sc->gen < h->gen || a->last > h->gen ||
        a->born > a->last || sc->adds > COUNT_LIMIT)
        return TDBF_ECORRUPT;
    a->at = h->gen;
    for (uint64_t age = 0; age < SQF_TAGS; age++) {
        if (counts[age] > COUNT_LIMIT || firsts[age] > sc->gen ||
            (counts[age] == 0 && firsts[age] != 0) || (age > a->at && counts[age] != 0))
            return TDBF_ECORRUPT;
        if (age <= a->at) {
            a->counts[(a->at - age) % SQF_TAGS] = counts[age];
            a->first[(a->at - age) % SQF_TAGS] = firsts[age];
        }
    }
    return tdbf_sqf_check_core_fields(sc, 0);
}

/* The records into fresh links (t->count of them, freed with the chain
 * on failure); *bytes gets what their cores will take. */
static int load_records(tdbf *f, tdbf_in *in, sqf_time *t, unsigned count,
                        sqf_saved_core *saved, double *bytes)
{
    for (unsigned i = 0; i < count; i++) {
        sqf_link *a = tdbf_mem_calloc(f, 1, sizeof *a);
        if (!a)
            return TDBF_ENOMEM;
        t->links[t->count++] = a;
        int rc = load_record(in, t, a, &saved[i]);
        if (rc != TDBF_OK)
            return rc;
        *bytes += (double)(link_bytes(&saved[i].shape) - sizeof *a);
    }
    return TDBF_OK;
}

/* Each core's words into fresh memory, checked bin by bin. */
static int load_cores(tdbf *f, tdbf_in *in, sqf_time *t, const sqf_saved_core *saved)
{
    for (unsigned i = 0; i < t->count; i++) {
        sqf_link *a = t->links[i];
        const sqf_shape *s = &saved[i].shape;
        a->mem = tdbf_mem_calloc_aligned(f, (size_t)tdbf_sqf_core_bytes(s));
        if (!a->mem)
            return TDBF_ENOMEM;
        tdbf_sqf_core_init(&a->core, s, a->mem, 0);
        int rc = tdbf_in_words(in, a->mem, tdbf_sqf_core_bytes(s) / 8);
        if (rc != TDBF_OK)
            return rc;
        if (tdbf_sqf_core_check(&a->core) != 0)
            return TDBF_ECORRUPT;
        tdbf_sqf_restore_core(&a->core, &saved[i]);
        sqf_model m;
        tdbf_sqf_model(s, &m);
        a->fp = m.fp;
        a->live = live_adds_at(a, a->at);
    }
    return TDBF_OK;
}

/* Frees the links whose cores were not allocated yet, then the chain. */
static void load_failed(tdbf *f, sqf_time *t)
{
    unsigned held = 0;
    for (unsigned i = 0; i < t->count; i++) {
        if (t->links[i]->mem)
            t->links[held++] = t->links[i];
        else
            tdbf_mem_free(f, t->links[i], sizeof *t->links[i]);
    }
    t->count = held;
    time_free(f, t);
}

int tdbf_sqf_time_load(tdbf *f, tdbf_in *in, uint64_t max_memory)
{
    sqf_time h;
    memset(&h, 0, sizeof h);
    int rc = load_fields(in, &h, atomic_load_explicit(&f->now_ns, memory_order_relaxed));
    if (rc != TDBF_OK)
        return rc;
    double bytes = (double)f->state.memory_bytes + (double)fixed_bytes(h.max_cores) +
                   (double)h.count * sizeof(sqf_link);
    if (!tdbf_fits(bytes, max_memory))
        return TDBF_ETOOBIG;
    sqf_saved_core *saved = tdbf_mem_calloc(f, h.count, sizeof *saved);
    sqf_time *t = saved ? time_new(f, h.max_cores) : NULL;
    if (!t) {
        tdbf_mem_free(f, saved, h.count * sizeof *saved);
        return TDBF_ENOMEM;
    }
    sqf_link **links = t->links;
    *t = h;
    t->links = links;
    t->count = 0;              /* links held so far */
    uint64_t words = 0;
    rc = load_records(f, in, t, h.count, saved, &bytes);
    for (unsigned i = 0; rc == TDBF_OK && i < h.count; i++)
        words += tdbf_sqf_core_bytes(&saved[i].shape);
    if (rc == TDBF_OK && in->remaining != words)
        rc = TDBF_ECORRUPT;
    if (rc == TDBF_OK && !tdbf_fits(bytes, max_memory))
        rc = TDBF_ETOOBIG;
    if (rc == TDBF_OK)
        rc = load_cores(f, in, t, saved);
    sqf_shape home;
    if (rc == TDBF_OK &&
        plan_core(t->home_capacity, f->error, 0, t->bin_words, &home, &t->fp_planned) != TDBF_OK)
        rc = TDBF_ECORRUPT;
    tdbf_mem_free(f, saved, h.count * sizeof *saved);
    if (rc != TDBF_OK) {
        load_failed(f, t);
        return rc;
    }
    time_install(f, t);
    return TDBF_OK;
}
