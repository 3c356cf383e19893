/*
 * tdbf_model.h — libtdbf's planners, analytic models and inferential
 * queries.
 *
 * tdbf_open sizes every filter itself, so most programs need only
 * <tdbf.h>.  This header is for those that want more than a filter: see
 * or compare the plan tdbf_open would choose before building it (a
 * capacity planner, `tdbf plan`), evaluate the papers' formulas for
 * explicit parameters, or ask how likely a key is to lie inside the
 * window rather than yes or no.  It includes <tdbf.h>, and that header's
 * conventions hold here: negative TDBF_E* codes, no printing, never a
 * clock read.  The planners and models are pure functions of their
 * arguments (thread-safe; some keep per-thread memos of earlier answers,
 * which they return bit for bit); the inferential queries read a filter
 * as tdbf_contains does.  Sections:
 *   1. Planning any design without allocating
 *   2. APBF (paper 004 sections 5.2-5.5)
 *   3. APBBF: blocked APBF (paper 004 section 6)
 *   4. APBF_LINE and TLBF_LINE: line-local APBF
 *   5. CLOCK and ROTATING
 *   6. Designs that forget at random: FPDECAY and STABLE
 *   7. Inference (posteriors, expected age, min-penalty answers)
 */
#ifndef TDBF_MODEL_H
#define TDBF_MODEL_H

#include "tdbf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * 1. Planning any design without allocating
 * ====================================================================== */

/* The shape tdbf_open(cfg) would build, planned without allocating: the
 * one planning entry point every design answers (each design's open runs
 * the same sizing, then allocates).  *out is what tdbf_get_shape reports
 * right after that open, but for
 *   seed          cfg.seed (0: open draws one at random);
 *   memory_bytes  exact for the designs that allocate everything at open
 *                 (APBF, APBBF, APBF_LINE, BLOOM, CLOCK, TBF, BTBF,
 *                 FPDECAY, STABLE, and ROTATING's N+1 filters); for those
 *                 that grow with the rate, the bytes at the planned rate
 *                 cfg.capacity: TLBF (k + l slices, none at open),
 *                 TLBF_LINE (its home ring), and EXACT at open (it grows
 *                 with the keys it holds, and has nothing to plan).
 * The design-specific parameters (APBF's slice size, CLOCK's cells, FPDECAY's
 * fingerprint bits...) are in the detailed plans: tdbf_plan_apbf,
 * tdbf_plan_apbbf, tdbf_plan_apbf_line, tdbf_plan_decay and
 * tdbf_plan_clock_rotating.
 * Returns TDBF_OK, or what tdbf_open would: TDBF_EINVAL (cfg or out NULL),
 * TDBF_EDESIGN, TDBF_EERROR, TDBF_EWINDOW, TDBF_EPARAM, TDBF_EINFEASIBLE,
 * TDBF_ENOTSUP (cfg.concurrent for a design without a concurrent mode) or
 * TDBF_ETOOBIG (over cfg.max_memory); never TDBF_ENOMEM.  Thread-safe;
 * the APBF family's searches take up to ~0.1 s on a first call (apbf-line
 * and tlbf-line ~40 ms per error rate and thread, then ~0.1 ms). */
TDBF_API int tdbf_plan_shape(const tdbf_config *cfg, tdbf_shape *out);

/* ======================================================================
 * 2. APBF (paper 004 sections 5.2-5.5)
 * ====================================================================== */

/* One APBF parameter set and its analytic metrics. */
typedef struct tdbf_plan {
    unsigned k;               /* slices per insertion */
    unsigned l;               /* extra slices; window = l generations */
    uint64_t m;               /* bits per slice */
    uint64_t g;               /* generation size floor(m ln2 / k) */
    uint64_t window;          /* guaranteed window l*g (>= requested) */
    uint64_t slack;           /* k*g: how far past the window a key may linger */
    uint64_t bits;            /* total bits (k+l)*m */
    double   bits_per_item;   /* bits / requested window */
    double   fp;              /* F(k,l,0,0) with the exact expected fills of
                                 this m and g: what the filter really does */
    double   fp_paper;        /* F(k,l,0,0) with the paper's linear fills
                                 [1/2k .. k/2k, 1/2 ...] (Table 2) */
    double   eff;             /* space efficiency vs a Bloom filter of equal
                                 FP (paper §5.5, from fp_paper) */
    double   npws;            /* peak normalized probability-weighted slack */
    double   accesses_false;  /* expected slice reads for a negative query,
                                 A(k,l,0,0,0,l)/(1-F) (paper fills) */
} tdbf_plan;

/* Evaluate an explicit (k, l) for a window of `window` insertions: sizes
 * m and g so that l*g >= window with every slice at most half full, and
 * fills *out.  Returns TDBF_OK, TDBF_EPARAM (k or l out of range),
 * TDBF_EWINDOW (window 0), TDBF_ETOOBIG (more than 2^52 bits: no real
 * filter is that big) or TDBF_EINVAL (out NULL). */
TDBF_API int tdbf_plan_eval(unsigned k, unsigned l, uint64_t window,
                            tdbf_plan *out);

/* Choose APBF parameters for `window` insertions and target FP `error`:
 * *best is the (k, l, m) whose exact-fill FP meets `error` with the least
 * total memory.  If alts is not NULL, up to max_alts alternatives are
 * written: the feasible k nearest to the best one's, alternating below and
 * above it (the best itself is not repeated), each with its cheapest l,
 * sorted by increasing k (smaller k: fewer reads, more slack; larger k:
 * lower NPWS); *n_alts gets their number.
 * Returns TDBF_OK, TDBF_EERROR, TDBF_EWINDOW, TDBF_EINVAL,
 * TDBF_ETOOBIG (the window is too large to size) or TDBF_EINFEASIBLE (no
 * k <= TDBF_MAX_K meets the error). */
TDBF_API int tdbf_plan_apbf(uint64_t window, double error, tdbf_plan *best,
                            tdbf_plan *alts, size_t max_alts, size_t *n_alts);

/* tdbf_plan_apbf trading a little memory for speed: among plans whose
 * total bits are within (1 + tolerance) of the least, *best is the one
 * whose negative queries read the fewest slices (ties: fewer bits).  This
 * is what tdbf_open uses (cfg.plan_tolerance).  tolerance 0 gives
 * tdbf_plan_apbf's choice.  Returns as tdbf_plan_apbf, or TDBF_EPARAM for
 * a tolerance outside [0, 1]. */
TDBF_API int tdbf_plan_apbf_fast(uint64_t window, double error,
                                 double tolerance, tdbf_plan *best);

/* ======================================================================
 * 3. APBBF: blocked APBF (paper 004 section 6)
 *
 * Each of the k+l segments is a blocked Bloom filter: a key picks one
 * block of B bits (64: a word; 512: a cache line) per segment and sets b
 * bits in it, one in each of b near-equal parts of the block.  A block
 * that has received X keys matches a never-inserted key with probability
 * prod_j (1 - (1 - 1/part_j)^X), which is (1 - (1 - b/B)^X)^b when b
 * divides B.  A segment's capacity is lambda = ln2 / -ln(1 - b/B) keys per
 * block (expected fill 1/2 at that mean load), so the generation size is
 * g = floor(blocks * lambda / k).
 * ====================================================================== */

/* One APBBF parameter set and its analytic metrics.  The fields marked
 * (model) use the paper's loads: segment i < k holds (i+1)/k of its
 * capacity and the others all of it, per-block load Poisson; they do not
 * depend on the window and reproduce Table 3 of the paper. */
typedef struct tdbf_plan_blocked {
    unsigned k;               /* segments per insertion */
    unsigned l;               /* extra segments; window = l generations */
    unsigned block_bits;      /* B: 64 or 512 */
    unsigned block_hashes;    /* b: bits set per key inside its block */
    uint64_t blocks;          /* blocks per segment */
    uint64_t g;               /* generation size floor(blocks lambda / k) */
    uint64_t window;          /* guaranteed window l*g (>= requested) */
    uint64_t slack;           /* k*g: how far past the window a key may linger */
    uint64_t bits;            /* total bits (k+l) * blocks * B */
    double   bits_per_item;   /* bits / requested window */
    double   fp;              /* F(k,l,0,0) with this filter's exact expected
                                 loads ((i+1)g keys over `blocks` blocks,
                                 binomial): what the filter really does */
    double   fp_paper;        /* (model) F(k,l,0,0): Table 3 "APBBF" */
    double   fp_apbf;         /* an APBF (k*b, l*b) in the same memory, paper
                                 fills: Table 3 "APBF" (-1.0 when k*b or l*b
                                 exceeds TDBF_MAX_K or TDBF_MAX_L) */
    double   capacity;        /* lambda / (B ln2 / b): window relative to
                                 that APBF, Table 3 "cap." */
    double   accesses_window; /* (model) expected block reads of a query for
                                 a key inside the window (Table 3 "win.") */
    double   accesses_fp;     /* (model) ... for a false positive ("fp") */
    double   accesses_false;  /* (model) ... for a negative query ("false") */
    double   npws;            /* (model) peak normalized probability-weighted
                                 slack: sum_{i<k} r^i / l, r = the match
                                 probability of a full segment */
} tdbf_plan_blocked;

/* Evaluate explicit APBBF parameters for a window of `window` insertions:
 * sizes the segments (blocks, g) so that l*g >= window with every segment
 * at most at capacity, and fills *out.
 *   k, l          1..TDBF_MAX_K, 1..TDBF_MAX_L
 *   block_bits    B: 64 or 512 (0 means 512)
 *   block_hashes  b: 1..TDBF_MAX_BLOCK_HASHES
 * Returns TDBF_OK, TDBF_EPARAM (a parameter out of range), TDBF_EWINDOW
 * (window 0), TDBF_ETOOBIG (more than 2^52 bits) or TDBF_EINVAL (out NULL).
 * Thread-safe; scratch memory comes from the default allocator (the
 * access fields are -1.0 if it fails).  Cost is dominated by
 * accesses_window, O(k^2 l^2 / 2): well under a millisecond for Table 3's
 * shapes, most of a second at k = 64, l = 512. */
TDBF_API int tdbf_plan_apbbf_eval(unsigned k, unsigned l, unsigned block_bits,
                                  unsigned block_hashes, uint64_t window,
                                  tdbf_plan_blocked *out);

/* Choose APBBF parameters for `window` insertions, target FP `error` and
 * block size block_bits (64 or 512; 0 means 512): *best is the (k, l, b)
 * whose exact-load FP (fp) meets `error` with the least total memory,
 * searching b in 1..16 (B = 512) or 1..8 (B = 64), k in 1..TDBF_MAX_K and
 * l in 1..TDBF_MAX_L; ties go to the smaller b, then the smaller k.
 * The least-memory plan trades accesses for bits: for B = 64, w = 10^5,
 * error 0.001 it is k = 8, b = 2 (25.6 bits/item, 8 words per insert)
 * where k = 4, b = 4 takes 26.3 and k = 3, b = 5 27.8; set
 * cfg.block_hashes (or k and l) on the filter to favour speed.
 * Returns TDBF_OK, TDBF_EERROR, TDBF_EWINDOW, TDBF_EPARAM (block_bits),
 * TDBF_EINVAL (best NULL), TDBF_ETOOBIG (no shape fits 2^52 bits) or
 * TDBF_EINFEASIBLE.  Thread-safe; takes 1 to 100 ms. */
TDBF_API int tdbf_plan_apbbf(uint64_t window, double error,
                             unsigned block_bits, tdbf_plan_blocked *best);

/* tdbf_plan_apbbf trading a little memory for speed: among plans whose
 * total bits are within (1 + tolerance) of the least, *best is the one
 * whose negative queries read the fewest blocks (accesses_false; ties:
 * fewer bits).  This is what tdbf_open uses (cfg.plan_tolerance).  For
 * w = 10^6 and error 0.01 the least memory with B = 64 is k = 6, l = 57,
 * b = 2, whose negative queries read 13.9 words; within 5 % it is k = 5,
 * l = 13, b = 2: 4.4 % more bits, 4.2 words.  tolerance 0 gives
 * tdbf_plan_apbbf's choice.  Returns as tdbf_plan_apbbf, or TDBF_EPARAM
 * for a tolerance outside [0, 1]. */
TDBF_API int tdbf_plan_apbbf_fast(uint64_t window, double error,
                                  unsigned block_bits, double tolerance,
                                  tdbf_plan_blocked *best);

/* ======================================================================
 * 4. APBF_LINE and TLBF_LINE: line-local APBF
 *
 * One unit per key — a 64-byte cache line, or 128 bytes (two adjacent
 * lines) — cut into F word-aligned fields of W = U / F bits (16, 32 or
 * 64), one per age slice; a key sets b bits in each of the k newest fields
 * of its unit, and a query reads that one unit.  Two layouts, which (k, l,
 * U) tell apart (F and F + 1 are never both powers of two):
 *   - rolling, F = k + l (the default): every unit takes its own turn once
 *     per generation as a sweep passes it (a few units per insert), its
 *     oldest field emptied to become its newest, so units' generations
 *     are staggered and the FP is the same at every moment;
 *   - spare, F = k + l + 1 (cfg.concurrent, and tlbf-line's rings): the
 *     whole filter shifts at once, the spare field emptied a few units per
 *     insert beforehand; the FP peaks just before a shift.
 * The FP is that of a run of k matching fields, averaged over the loads a
 * unit's generations bring (Poisson), which neighbouring fields share
 * (src/lib/designs/apbf_line/apbf_line_model.c): rolling, over the
 * phases of the units' current generation too; spare, at the worst case
 * just before a shift.
 *
 * With cfg.concurrent the filter takes adds and queries from many
 * threads at once (tdbf.h, section 7).
 *
 * TLBF_LINE, line-local APBF rings over a time window, has the layout of
 * APBF_LINE (one unit of memory per key, a field per age slice) with
 * TLBF's time semantics: cfg.window_ns = T is required (a
 * count window is TDBF_EWINDOW), a generation is ceil(T / l) ns of the
 * filter's clock, and a key added at t is found by every query at t' with
 * t' - t < T, under any rate pattern (it may answer for up to (k + l)
 * generations).  The rate is not known in advance: the filter keeps a
 * chain of rings of the same shape (k, l, b, unit), the first planned by
 * tdbf_plan_apbf_line for cfg.capacity keys per window (default 1024) in
 * the layout with a spare field (as with cfg.concurrent: rings shift all
 * at once).
 * New keys go into the newest ring; when a generation brings more than a
 * ring was planned for, a larger successor (2x to 4x) takes them and the
 * old ring is only read until it has aged out; a generation with under a
 * quarter of the plan (or an idle gap) hands over to a smaller one.  So
 * memory follows the rate and no ring ever sheds a key early.  An
 * operation reads one unit per live ring (one at a steady rate).
 *
 * Costs and bounds: at a steady rate one ring, planned for 0.92
 * cfg.error (less when it has few units).  A query's FP is about the sum
 * over the live rings, and the rings are planned so that the sum stays
 * within cfg.error at the worst moment of any arrival pattern (a ring
 * opened in a burst takes a third of what the live rings leave).  A
 * burst's rings cost more bits per key than a steady ring (a lower FP
 * each, the last up to 4x oversized when it ends) until they age out a
 * window later.  The FP against its target and the bits per key at a
 * steady rate, through rate jumps and in bursts are measured by `tdbf
 * eval burst` (docs/results/burst.md; docs/results.md, "False positives in
 * bursts").
 * cfg.max_rings caps the live rings and cfg.max_memory the bytes: beyond
 * them the newest ring keeps filling (FP up, stats.cap_hits counts it),
 * never a false negative.  tdbf_advance frees aged rings; the shifts a
 * ring owes are made by the next add (queries read it as if made).
 * tdbf_current_error is computed from per-generation counts (the model
 * scaled at the planned load), stats.error_estimated from the bits.
 * ====================================================================== */

typedef struct tdbf_line_plan {
    unsigned k;               /* fields an insert marks */
    unsigned l;               /* further fields a query reads (window = l g) */
    unsigned b;               /* bits per field per key (cfg.block_hashes) */
    unsigned unit_bits;       /* U: 512 or 1024 (cfg.unit_bits) */
    unsigned fields;          /* F = k + l (rolling) or k + l + 1 (spare) */
    unsigned field_bits;      /* W = U / F: 16, 32 or 64 */
    uint64_t units;           /* units of U bits */
    uint64_t generation;      /* g: inserts per generation, ceil(window / l) */
    uint64_t window;          /* guaranteed window l g >= cfg.window_items */
    uint64_t bytes;           /* units * U / 8 */
    double   bits_per_item;   /* 8 * bytes / window */
    double   fp;              /* modelled FP at its worst (rolling: at any time;
                                 spare: just before a shift) */
} tdbf_line_plan;

/* The modelled worst-case false-positive rate of an APBF_LINE filter of
 * `units` units of `unit_bits` bits, (k, l, b) and `generation` inserts
 * per generation: the mean over 4096 simulated units (fixed seed: a pure
 * function) of the probability of a run of k matching fields, in the
 * layout (k, l, unit_bits) implies (rolling: units at uniform phases of
 * their generation; spare: every unit just before a shift).  Returns it,
 * or -1.0 for invalid arguments (k 1..TDBF_MAX_K, l >= 1, b 1..4,
 * unit_bits 512 or 1024, unit_bits / (k + l) or unit_bits / (k + l + 1)
 * exactly 16, 32 or 64, units and generation >= 1).
 * The model is evaluated at the loads 2^(i/64) and read between them in
 * log FP over log load (within 2 % of the model, its own sampling noise);
 * the points are kept per thread, so a call costs about a millisecond for
 * each point it needs the first time, microseconds after. */
TDBF_API double tdbf_apbf_line_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                                  uint64_t units, uint64_t generation);

/* Size an APBF_LINE filter exactly as tdbf_open(cfg) would, without
 * allocating: units of cfg.unit_bits bits (512: one cache line, or 1024:
 * an adjacent pair; 0: 512 unless that plan needs more than 1.05 times the
 * memory of 1024's, as at errors of 0.001 and below, since at windows
 * beyond the caches an operation costs the lines it reads) cut into
 * fields of W = 16, 32 or 64 bits (F = U / W, so l = F - k rolling, or
 * F - 1 - k with the spare cfg.concurrent needs), k (cfg.k, or 1..8) and
 * b (cfg.block_hashes, or 1..4): the shape of least memory by the model,
 * then the fewest units whose modelled FP meets cfg.error / 1.10 (a
 * margin over the model's measured error, so that the filter's measured
 * FP stays at or below cfg.error; plan.fp is below it).  cfg.k and
 * cfg.l, if given, must make U / (k + l) or U / (k + l + 1) such a W (the
 * latter with cfg.concurrent).  Returns TDBF_OK, TDBF_EINVAL,
 * TDBF_EERROR, TDBF_EWINDOW (no count window), TDBF_EPARAM (k without l
 * or l without k, block_hashes above 4, unit_bits not 0, 512 or 1024, a
 * field width not 16, 32 or 64, a rolling (k, l) with cfg.concurrent),
 * TDBF_EINFEASIBLE (no shape meets the error) or TDBF_ETOOBIG (nothing
 * within cfg.max_memory).  About 0.1-0.3 s. */
TDBF_API int tdbf_plan_apbf_line(const tdbf_config *cfg, tdbf_line_plan *out);

/* The first ring tdbf_open(cfg) starts a TLBF_LINE filter with, without
 * allocating: apbf-line's plan (cfg.unit_bits, cfg.k, cfg.l,
 * cfg.block_hashes as tdbf_plan_apbf_line takes them, with the spare
 * field) for a count window of cfg.capacity keys (0: 1024) and 0.92 of
 * cfg.error, less when the ring has under 256 units; out->fp is its
 * model FP, what tdbf_get_stats reports as error_planned.  cfg.design is
 * not read.  Returns TDBF_OK, TDBF_EINVAL (NULL), TDBF_EERROR,
 * TDBF_EWINDOW (no time window, or a count window too), TDBF_EPARAM
 * (cfg.max_rings above 1024, or as tdbf_plan_apbf_line),
 * TDBF_EINFEASIBLE or TDBF_ETOOBIG.  About 0.1-0.3 s the first time. */
TDBF_API int tdbf_plan_tlbf_line(const tdbf_config *cfg, tdbf_line_plan *out);

/* ======================================================================
 * 5. CLOCK and ROTATING
 * ====================================================================== */

/* The parameters tdbf_open chooses for a CLOCK or ROTATING configuration,
 * and the memory and analytic false-positive rate the filter will report
 * in tdbf_stats right after open. */
typedef struct tdbf_clock_rotating_plan {
    tdbf_design design;       /* TDBF_CLOCK or TDBF_ROTATING */
    unsigned k;               /* indices (cells or bits) set per key */
    unsigned filters;         /* ROTATING: N+1 sub-filters allocated; CLOCK: 1 */
    unsigned cell_bits;       /* CLOCK: c bits per cell; ROTATING: 1 */
    unsigned resolution;      /* CLOCK: d ticks per window; ROTATING: N */
    uint64_t cells;           /* CLOCK: m cells; ROTATING: m bits per filter */
    uint64_t capacity;        /* keys per window the sizing assumed:
                                 cfg.capacity (default 1024) for a time
                                 window; ROTATING, count window: N*g >=
                                 window_items, as stats.window_items */
    uint64_t bits;            /* cell / filter bits in all: m*c or (N+1)*m */
    uint64_t memory_bytes;    /* stats.memory_bytes after tdbf_open, bytes
                                 (handle and bookkeeping included) */
    double   bits_per_item;   /* 8 * memory_bytes / capacity */
    double   fp;              /* stats.error_planned: worst-case FP at the
                                 planned rate (CLOCK: n = C(d+1)L/T keys
                                 live; ROTATING: 1 - (1 - e_i)^(N+1)) */
} tdbf_clock_rotating_plan;

/* Size a CLOCK or ROTATING filter exactly as tdbf_open(cfg) would (the
 * same function does it), without allocating.  Neither design has false
 * negatives inside the window.  For FPDECAY and STABLE use
 * tdbf_plan_decay.  Returns TDBF_OK, TDBF_EINVAL (NULL argument),
 * TDBF_EDESIGN (another design), TDBF_EERROR, TDBF_EWINDOW, TDBF_EPARAM
 * (as tdbf_open), or TDBF_ETOOBIG (over cfg.max_memory, 0 = 4 GiB, or
 * more than 2^52 cells).  Thread-safe; at most a few milliseconds. */
TDBF_API int tdbf_plan_clock_rotating(const tdbf_config *cfg, tdbf_clock_rotating_plan *out);

/* ======================================================================
 * 6. Designs that forget at random: FPDECAY and STABLE
 *
 * The fingerprint decay array (paper 003) and the Stable Bloom filter
 * (Deng & Rafiei, SIGMOD 2006) have no hard window: every add overwrites
 * (FPDECAY) or decrements (STABLE) a few random cells, so a key fades out
 * gradually instead of expiring at a fixed age.  Their count window is
 * probabilistic: a key added t adds ago answers yes with a probability
 * that falls with t -- close to 1 for small t, still at least
 * cfg.survival (default 1 - error) at t = window_items, then down to the
 * false-positive rate.  They are the two designs with false negatives
 * inside the window, by design; the functions below give the rates
 * exactly, and stats.window_items is the window they were sized for, not
 * a guarantee.  Younger keys fare much better than the edge: FPDECAY with
 * b = 16, n = 8 sized for w = 10^6 at survival 0.99 forgets 1% of the
 * keys added w adds ago but 0.017% of those added w/2 ago.
 * FPDECAY takes adds and queries from many threads at once (tdbf.h,
 * section 7).
 * ====================================================================== */

/* The parameters tdbf_open chooses for an FPDECAY or STABLE configuration,
 * and their analytic rates. */
typedef struct tdbf_decay_plan {
    tdbf_design design;       /* TDBF_FPDECAY or TDBF_STABLE */
    uint64_t cells;           /* s (FPDECAY) or m (STABLE): k segments of
                                 cells / k, one cell per key in each */
    unsigned k;               /* cells per key: n (FPDECAY) or K (STABLE) */
    unsigned cell_bits;       /* b, fingerprint bits (FPDECAY), or d, bits
                                 per counter, Max = 2^d - 1 (STABLE) */
    uint64_t decrements;      /* STABLE: P cells decremented per add; 0 */
    uint64_t window;          /* the window sized for (cfg.window_items) */
    uint64_t bytes;           /* the cell array */
    double   bits_per_item;   /* 8 * bytes / window */
    double   fp;              /* false-positive rate at steady state (full
                                 array; STABLE: the stable point) */
    double   survival;        /* P(yes) for a key added `window` adds ago */
    double   survival_target; /* cfg.survival, or 1 - error */
} tdbf_decay_plan;

/* Size an FPDECAY or STABLE filter exactly as tdbf_open(cfg) would,
 * without allocating.
 *   FPDECAY  over b in {8, 16, 32} and n in 1..TDBF_MAX_K (or the fixed
 *            cfg.fingerprint_bits, cfg.positions): the least memory s*b
 *            whose full-array FP 1 - (1 - 1/(2^b - 1))^n meets cfg.error
 *            and whose phi(window) meets the survival target;
 *   STABLE   d = cfg.cell_max_bits (0 = 4), over K in 1..TDBF_MAX_K (or
 *            cfg.positions): the least memory m*d at which P decrements
 *            (cfg.decrements, or else the least P whose stable-point FP
 *            meets cfg.error, Deng & Rafiei's formula) forget at most
 *            1 - target of the keys added window adds ago.
 * Ties go to fewer cells per key.  Returns TDBF_OK, TDBF_EINVAL (NULL
 * argument), TDBF_EDESIGN (another design), TDBF_EERROR, TDBF_EWINDOW (no
 * count window, or a time window), TDBF_EPARAM (a field above out of
 * range; cfg.k and cfg.l must be 0), TDBF_EINFEASIBLE (fixed parameters
 * that cannot meet the error) or TDBF_ETOOBIG (over cfg.max_memory, or
 * more than 2^52 bits).  Thread-safe; at most a few milliseconds. */
TDBF_API int tdbf_plan_decay(const tdbf_config *cfg, tdbf_decay_plan *out);

/* FPDECAY (paper 003): the probability phi(t) that a key added t adds ago
 * (t other keys since) still answers yes, in a filter of `cells` cells in
 * n segments of cells/n (rounded down), n cells per key, b-bit
 * fingerprints (0 marks an empty cell, so a foreign fingerprint matches
 * with probability 1/(2^b - 1)):
 *     q = (1 - n/cells)^t,   phi(t) = 1 - ((1 - q)(1 - 1/(2^b - 1)))^n.
 * Returns phi in [0, 1], or -1.0 if an argument is invalid (n outside
 * 1..TDBF_MAX_K, b not 8, 16 or 32, cells < n). */
TDBF_API double tdbf_fpdecay_survival(uint64_t cells, unsigned n, unsigned b,
                                      uint64_t t);

/* STABLE: the expected fraction of zero cells after `adds` adds of
 * distinct keys into an empty filter of `cells` cells (K segments),
 * K cells per key, d-bit cells and P decrements per add; adds = UINT64_MAX
 * gives the stable point, Deng & Rafiei's
 *     zeros = (1 / (1 + 1/(P (1/K - 1/cells))))^Max,   Max = 2^d - 1.
 * A never-inserted key is a false positive with probability
 * (1 - zeros)^K.  Returns the fraction, or -1.0 if an argument is invalid
 * (K outside 1..TDBF_MAX_K, d outside 1..8, cells < 2K, P outside
 * 1..cells). */
TDBF_API double tdbf_stable_zeros(uint64_t cells, unsigned k, unsigned d,
                                  uint64_t decrements, uint64_t adds);

/* STABLE: the probability that a key added t adds ago (t other keys
 * since) answers no -- a false negative.  A cell set to Max is zero after
 * t adds iff, looking back from now, Max decrements come before any
 * re-set: with r = K/cells, p = P/cells, a = p (1 - r),
 *     z(t) = (a / (a + r))^Max * P[Binomial(t, a + r) >= Max],
 *     FN(t) = 1 - (1 - z(t))^K.
 * Returns FN in [0, 1], or -1.0 for invalid arguments (as above). */
TDBF_API double tdbf_stable_forget(uint64_t cells, unsigned k, unsigned d,
                                   uint64_t decrements, uint64_t t);

/* ======================================================================
 * 7. Inference (TBF, BTBF: paper 002 sections 2 and 4; APBF, APBBF:
 *    docs/apbf_posterior.md)
 *
 * A standard query says yes or no.  An inferential query says how likely
 * the key is to lie inside the window, P(I_x < w | R_x), where I_x is the
 * number of insertions since the key's latest add and R_x what its k
 * timer cells hold, by Bayes' rule over a prior: how often the key occurs
 * (p_x, eq 4) and how many distinct keys j insertions bring (D(j), eqs
 * 16-18).  Given a penalty for each kind of error, tdbf_decide answers
 * with the smaller expected penalty (section 2.6).  The posterior follows
 * the paper's model (keys drawn independently with time-invariant
 * probabilities, a long-running stream); it is as good as the prior is a
 * description of the stream.  The APBF and the APBBF answer the same
 * questions from which of their k+l slices hold the key's bits (R_x: the
 * pattern; the window w = l g, tdbf_stats.window_items; a derivation
 * beyond the papers, docs/apbf_posterior.md).  Designs without inference
 * return TDBF_ENOTSUP.  Thread-safety as for tdbf_contains (read-only).
 * ====================================================================== */

/* How the number of distinct keys among j insertions grows (§2.5). */
typedef enum {
    TDBF_PRIOR_UNIFORM = 0,   /* |U| equally likely keys:
                                 D(j) = |U| (1 - (1 - 1/|U|)^j)   (eq 16) */
    TDBF_PRIOR_POWER_LAW = 1, /* the key of rank x has p_x = x^-s / H(|U|,s):
                                 s = 1: eq 17's exact continuum form (fast);
                                 other s: a numeric sum (~10 us a query) */
    TDBF_PRIOR_SAMPLED = 2    /* D(j) measured at a few j, interpolated
                                 linearly on a log-log scale      (eq 18) */
} tdbf_prior_model;

/* A prior: the stream's model and the queried key's own probability.
 * Start from tdbf_prior_init().  Owned by the caller; the library reads it
 * (and the sample arrays) only during a call. */
typedef struct tdbf_prior {
    tdbf_prior_model model;
    double        universe;        /* |U|: keys that occur, >= 1 (UNIFORM,
                                      POWER_LAW) */
    double        exponent;        /* POWER_LAW: s > 0 (0 means 1); default 1 */
    const double *sample_inserts;  /* SAMPLED: j_1 < j_2 < ..., each >= 1 */
    const double *sample_distinct; /* SAMPLED: D(j_i), 0 < D(j_i) <= j_i,
                                      nondecreasing */
    size_t        samples;         /* SAMPLED: length of both arrays, >= 1 */
    double        key_probability; /* p_x: probability that the next
                                      insertion is this key, in (0, 1];
                                      0 = the model's own (UNIFORM: 1/|U|;
                                      the other models need it) */
} tdbf_prior;

/* Fill *prior for `model` over `universe` keys: exponent 1, no samples,
 * key_probability 0.  prior may be NULL (no-op). */
TDBF_API void tdbf_prior_init(tdbf_prior *prior, tdbf_prior_model model,
                              double universe);

/* D(j): expected distinct keys among `inserts` insertions under the
 * prior's model (eqs 16-18).  Returns D in [0, inserts], or -1.0 if the
 * prior is invalid or inserts is negative or not finite. */
TDBF_API double tdbf_prior_distinct(const tdbf_prior *prior, double inserts);

/* p_x of the key of rank `rank` (1 = most frequent) under the prior's
 * model: 1/|U| (UNIFORM), rank^-s / H(|U|,s) (POWER_LAW).  Returns -1.0
 * for SAMPLED (the caller knows p_x), an invalid prior, or a rank outside
 * 1..|U|. */
TDBF_API double tdbf_prior_rank_probability(const tdbf_prior *prior,
                                            double rank);

/* Posterior probability that `key` was added within the window, as of
 * now_ns (count windows ignore it): *p_in_window = P(I_x < w | R_x).
 * 0 exactly when the standard query says no (no false negatives); near 1
 * for a key added just now.  Returns TDBF_OK, TDBF_EINVAL (NULL argument,
 * NULL key with len > 0, invalid prior: see tdbf_prior) or TDBF_ENOTSUP
 * (the design has no inference: only TBF, BTBF, APBF, APBBF and APBF_LINE
 * do).  For
 * the APBF and APBBF: P(I_x < l g | the slices that match), near 1 for a
 * key added just now (less so with one slice per insert, k = 1, when a
 * chance match of s_0 is not rare: 0.98 in docs/apbf_posterior.md's
 * example); a query reads all k+l slices. */
TDBF_API int tdbf_posterior(const tdbf *f, const void *key, size_t len,
                            uint64_t now_ns, const tdbf_prior *prior,
                            double *p_in_window);

/* Expected insertion age E[I_x | R_x] (eq 8): the expected number of
 * insertions since the key's latest add, given its cells and the prior
 * (for a key never added, the prior's own expectation beyond what the
 * cells rule out).  *age in insertions, >= 0.  Returns as tdbf_posterior. */
TDBF_API int tdbf_expected_age(const tdbf *f, const void *key, size_t len,
                               uint64_t now_ns, const tdbf_prior *prior,
                               double *age);

/* Minimum-penalty answer (§2.6): with P = P(I_x < w | R_x), answering
 * "present" costs cost_fp (1 - P) in expectation and "absent" costs
 * cost_fn P; returns 1 (present) iff cost_fp (1 - P) < cost_fn P, else 0,
 * or a negative code as tdbf_posterior (and TDBF_EINVAL for a cost that is
 * negative or not finite).  Penalties are in any unit, per query. */
TDBF_API int tdbf_decide(const tdbf *f, const void *key, size_t len,
                         uint64_t now_ns, const tdbf_prior *prior,
                         double cost_fp, double cost_fn);

#ifdef __cplusplus
}
#endif

#endif /* TDBF_MODEL_H */
