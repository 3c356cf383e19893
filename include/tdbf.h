/*
 * tdbf.h — time-decaying Bloom filters: "have I seen this key recently?"
 *
 * libtdbf answers membership questions over a sliding window — the last N
 * insertions (count window) or the last T nanoseconds (time window) — in a
 * few bits per key, with no false negatives inside the window and a bounded,
 * planned false-positive rate.
 *
 * This header is the library's stable core: what a program needs to build,
 * use, inspect and save a filter.  tdbf_open plans every filter itself;
 * the planners, the papers' analytic models and the inferential queries
 * are in <tdbf_model.h> (it includes this header), for programs that want
 * to see or compare a plan before building one.  Sections:
 *   1. Version
 *   2. Errors
 *   3. Designs and configuration
 *   4. The option language (text to configuration, as every front reads it)
 *   5. Memory: allocator hooks
 *   6. Lifecycle (open, close, copy, clear)
 *   7. Operations (add, contains, advance) and concurrency
 *   8. Batch operations
 *   9. Introspection (stats, shape, expiry bound, current error estimate)
 *  10. Serialization (save, load, files)
 *  11. Sections: records saved after a filter
 *  12. Vector instructions
 *
 * Conventions that hold for every function:
 *   - Errors are negative TDBF_E* codes; TDBF_OK is 0.  The library never
 *     prints, aborts or exits.  tdbf_strerror() names every code.
 *   - Keys are arbitrary byte strings: they may contain NUL and may be empty
 *     (key may be NULL when len is 0).
 *   - Time is supplied by the caller as uint64_t nanoseconds on any monotone
 *     scale.  The library never reads a clock.  A `now` smaller than the
 *     largest seen so far is treated as that largest value (time is clamped,
 *     never rewound).  Count-window designs ignore `now`.
 *   - Thread-safety: a tdbf handle is not internally locked.  Any number of
 *     threads may call the const functions (contains, stats) concurrently,
 *     as long as no thread is calling a mutating function (add, advance,
 *     close) on the same handle at that time.  Distinct handles are
 *     independent.  TDBF_FPDECAY, and TDBF_APBF_LINE opened with
 *     cfg.concurrent, are the exceptions: their adds and queries may all
 *     run at once, from any number of threads (section 7).
 *
 * Minimal use:
 *
 *     tdbf_config cfg;
 *     tdbf_config_init(&cfg);              // APBF_LINE, error 0.01
 *     cfg.window_items = 1000000;          // remember the last 10^6 keys
 *     tdbf *f;
 *     if (tdbf_open(&f, &cfg) != TDBF_OK) ...
 *     if (tdbf_add(f, key, len, 0) == 0)   // 0: new within the window
 *         emit(key);
 *     tdbf_close(f);
 */
#ifndef TDBF_H
#define TDBF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && __GNUC__ >= 4
#define TDBF_API __attribute__((visibility("default")))
#else
#define TDBF_API
#endif

/* ======================================================================
 * 1. Version
 * ====================================================================== */

#define TDBF_VERSION_MAJOR 0
#define TDBF_VERSION_MINOR 1
#define TDBF_VERSION_PATCH 0
/* MAJOR*10000 + MINOR*100 + PATCH, for compile-time comparisons. */
#define TDBF_VERSION_NUMBER \
    (TDBF_VERSION_MAJOR * 10000 + TDBF_VERSION_MINOR * 100 + TDBF_VERSION_PATCH)
#define TDBF_VERSION_STRING "0.1.0"

/* The version of the library actually linked (may differ from the header
 * the program was compiled against).  Returns TDBF_VERSION_NUMBER of the
 * library build. */
TDBF_API unsigned tdbf_version_number(void);
/* The same as a static string "MAJOR.MINOR.PATCH"; never NULL. */
TDBF_API const char *tdbf_version_string(void);

/* ======================================================================
 * 2. Errors
 * ====================================================================== */

/* Return codes.  Values are fixed forever: they may be stored or sent. */
enum {
    TDBF_OK       = 0,   /* success */
    TDBF_EINVAL   = -1,  /* invalid argument (NULL handle/output, bad length) */
    TDBF_ENOMEM   = -2,  /* allocation failed; the filter is unchanged */
    TDBF_EDESIGN  = -3,  /* unknown design, or not available in this build */
    TDBF_EERROR   = -4,  /* error rate not in the open interval (0, 1) */
    TDBF_EWINDOW  = -5,  /* window missing, zero, or of the wrong kind */
    TDBF_EPARAM   = -6,  /* explicit parameter (k, l, ...) out of range */
    TDBF_ETOOBIG  = -7,  /* the plan needs more memory than the cap allows */
    TDBF_ENOTSUP  = -8,  /* operation not supported by this design */
    TDBF_ECORRUPT = -9,  /* serialized data is malformed or fails its check */
    TDBF_EVERSION = -10, /* serialized data has an unknown format version */
    TDBF_EIO      = -11, /* read/write failed */
    TDBF_EINFEASIBLE = -12 /* no parameters meet the request (planner) */
};

/* A short English description of a return code ("invalid argument").
 * Never NULL; unknown codes give "unknown error".  The string is static. */
TDBF_API const char *tdbf_strerror(int code);

/* ======================================================================
 * 3. Designs and configuration
 * ====================================================================== */

/* Opaque filter handle. */
typedef struct tdbf tdbf;

/* The designs.  Values are fixed (they appear in serialized files).  All
 * but FPDECAY and STABLE have no false negatives inside the window; those
 * two forget at random, by design, and say how often (tdbf_model.h,
 * section 6). */
typedef enum {
    TDBF_APBF = 0,     /* Age-Partitioned Bloom filter, count window (paper 004 §5) */
    TDBF_APBBF = 1,    /* blocked APBF (paper 004 §6) */
    TDBF_TLBF = 2,     /* time-limited Bloom filter, time window (paper 001) */
    TDBF_TBF = 3,      /* timing Bloom filter (paper 002) */
    TDBF_BTBF = 4,     /* block timing Bloom filter (paper 002) */
    TDBF_CLOCK = 5,    /* continuous clock-cell filter (paper 000) */
    TDBF_ROTATING = 6, /* ring of Bloom filters (paper 000) */
    TDBF_FPDECAY = 7,  /* fingerprint decay array (paper 003) */
    TDBF_STABLE = 8,   /* Stable Bloom filter (Deng & Rafiei 2006) */
    TDBF_BLOOM = 9,    /* classic Bloom filter: no window; capacity = window_items */
    TDBF_EXACT = 10,   /* exact sliding-window set (ground truth, big) */
    TDBF_APBF_LINE = 11, /* line-local APBF: one 128- or 64-byte unit per key, count window */
    TDBF_TLBF_LINE = 12, /* line-local APBF rings over a time window */
    TDBF_SQF = 13        /* sliding quotient filter: fingerprints with age
                            tags, one 64- or 128-byte bin per key; the
                            least memory of the count designs */
} tdbf_design;

/* Number of design identifiers (for iteration: 0 .. TDBF_DESIGN_COUNT-1). */
#define TDBF_DESIGN_COUNT 14

/* Lower-case name of a design ("apbf"), or NULL if out of range. */
TDBF_API const char *tdbf_design_name(tdbf_design design);
/* Parse a design name (case-insensitive).  Returns TDBF_OK and sets *out,
 * or TDBF_EDESIGN. */
TDBF_API int tdbf_design_parse(const char *name, tdbf_design *out);
/* 1 if this build implements `design`, else 0. */
TDBF_API int tdbf_design_available(tdbf_design design);

/* Largest k and l accepted by APBF (and the planner's search range). */
#define TDBF_MAX_K 64
#define TDBF_MAX_L 512
/* APBBF block sizes B (bits): one 64-bit word or one 64-byte cache line. */
#define TDBF_BLOCK_WORD 64
#define TDBF_BLOCK_LINE 512
/* Largest b (bits set per key inside its block) accepted by APBBF. */
#define TDBF_MAX_BLOCK_HASHES 16
/* Default memory cap for a single filter: 4 GiB. */
#define TDBF_DEFAULT_MAX_MEMORY (UINT64_C(4) << 30)
/* Default of cfg.plan_tolerance (APBF, APBBF): up to 5 % more memory than
 * the least, for fewer slice reads. */
#define TDBF_DEFAULT_PLAN_TOLERANCE 0.05

struct tdbf_allocator;

/* Vector instruction paths (section 12). */
typedef enum tdbf_simd {
    TDBF_SIMD_AUTO = 0,      /* the widest path the CPU supports (default) */
    TDBF_SIMD_PORTABLE = 1,  /* plain C */
    TDBF_SIMD_AVX2 = 2,      /* x86-64 AVX2 */
    TDBF_SIMD_AVX512 = 3     /* x86-64 AVX-512 F, DQ, BW and VL */
} tdbf_simd;

/* Filter configuration.  Always start from tdbf_config_init(), then set the
 * fields you need: new fields get sane defaults that way.  A field that
 * names designs is read by those only (and must be 0 for the others where
 * it says so). */
typedef struct tdbf_config {
    tdbf_design design;     /* default TDBF_APBF_LINE */
    double      error;      /* target false-positive rate, 0 < error < 1; default 0.01 */
    uint64_t    window_items; /* count window in insertions (0 = none) */
    uint64_t    window_ns;  /* time window in ns (0 = none) */
    uint64_t    seed;       /* hash seed; 0 = random (read back via stats) */
    unsigned    k;          /* what a key sets, per design; 0 = the
                               planner's choice:
                                 APBF, TLBF: slices set per key (with l)
                                 APBBF: segments set per key (with l)
                                 APBF_LINE, TLBF_LINE: fields of a unit
                                   set per key (with l)
                                 BLOOM classic, CLOCK, ROTATING: hash
                                   indices (bits or cells) per key
                                 TBF, BTBF: timer cells per key
                               must be 0 for blocked BLOOM, FPDECAY,
                               STABLE (they take cfg.positions), SQF (one
                               fingerprint a key, 7 generations) and EXACT */
    unsigned    l;          /* APBF, APBBF, APBF_LINE, TLBF, TLBF_LINE: extra
                               slices or fields, the window spans l
                               generations; set with k, 0 = planner.  Must
                               be 0 for the other designs */
    uint64_t    capacity;   /* expected items per window (time designs); 0 = unknown
                               (TLBF, TLBF_LINE, SQF: 1024).  They believe
                               a given one: a burst of up to it takes about
                               a steady load's memory (TLBF_LINE: its one
                               planned ring, shifted on count; SQF: its
                               first core, turned on count) */
    uint64_t    max_memory; /* refuse plans above this many bytes; default
                               (and 0) = TDBF_DEFAULT_MAX_MEMORY, 4 GiB */
    const struct tdbf_allocator *allocator; /* NULL = the process default */
    unsigned    max_slices; /* TLBF: cap on slices (0 = 2(k+l)+32);
                               ROTATING, time window: cap on sub-filters
                               (0 = 2(N+1)+32, at least N+1); when
                               reached the filter stops growing and FP rises,
                               never false negatives (stats.cap_hits).
                               TLBF_LINE: deprecated, use max_rings */
    unsigned    block_bits; /* APBBF: B, 512 (default, 0) or 64; BLOOM: 0 =
                               classic, 512 or 64 = blocked Bloom filter.
                               APBF_LINE, TLBF_LINE: deprecated, use
                               unit_bits */
    unsigned    block_hashes; /* APBBF, blocked BLOOM: b bits per block, 0 = planner */
    unsigned    cell_bits;  /* CLOCK: bits per cell, 2, 4 or 8; 0 = 4 */
    unsigned    resolution; /* CLOCK: d, clock ticks per window, 1 ..
                               2^cell_bits - 3; 0 = 2 (1 for 2-bit cells) */
    unsigned    filters;    /* ROTATING: N, sub-filters per window (the ring
                               holds N+1), 1 .. 256; 0 = 4 */
    uint64_t    timer_cells; /* TBF, BTBF: m, timer cells; 0 = planner.
                               Fixed m: the planner minimizes the FP
                               (error is not a target) */
    unsigned    timer_bits; /* TBF, BTBF: bits per timer cell, 2 .. 62;
                               0 = planner */
    unsigned    timer_block; /* BTBF: B, insertions per timestamp, 1 ..
                               window_items; 0 = planner (B <= w/8);
                               TBF: 0 or 1 */
    unsigned    positions;  /* FPDECAY: n, cells per key; STABLE: K, cells
                               per key; 1 .. TDBF_MAX_K, 0 = planner */
    unsigned    fingerprint_bits; /* FPDECAY: b = 8, 16 or 32; 0 = planner */
    unsigned    cell_max_bits; /* STABLE: d bits per cell (Max = 2^d - 1),
                               1 .. 8; 0 = 4 */
    uint64_t    decrements; /* STABLE: P, cells decremented per add;
                               0 = planner (stable-point FP = error) */
    double      survival;   /* FPDECAY, STABLE (they forget at random):
                               least probability that a key added
                               window_items adds ago still answers yes;
                               sizes the cells.  0 = 1 - error */
    double      plan_tolerance; /* APBF, APBBF, TLBF: accept up to this
                               fraction more memory than the least for fewer
                               slice reads (tdbf_plan_apbf_fast,
                               tdbf_plan_apbbf_fast); 0 = default (APBF and
                               APBBF 0.05, TLBF least memory: its bursts
                               need the larger l), negative = least memory */
    int         concurrent; /* APBF_LINE: nonzero = tdbf_add and
                               tdbf_contains (single and batch) may run from
                               many threads at once on this filter, no lock
                               needed (atomic updates of the touched line;
                               slower single-threaded).  0 (default): one
                               writer at a time.  FPDECAY is always
                               concurrent; other designs: TDBF_ENOTSUP */
    unsigned    unit_bits;  /* APBF_LINE, TLBF_LINE: bits of the unit a key's
                               fields live in; SQF: bits of the bin its
                               fingerprint lives in; 512 (one 64-byte cache
                               line) or 1024 (two); 0 = the planner's choice
                               (SQF: the least memory).
                               (block_bits, its deprecated alias, is read
                               when this is 0; both set and different:
                               TDBF_EPARAM) */
    unsigned    max_rings;  /* TLBF_LINE: cap on live rings, SQF (time
                               window): on live cores, 1 .. 1024
                               (0 = 2(k+l)+32; SQF 48); when reached the filter
                               stops growing and FP rises, never false
                               negatives (stats.cap_hits).  (max_slices,
                               its deprecated alias, is read when this is
                               0; both set and different: TDBF_EPARAM) */
} tdbf_config;

/* Fill *cfg with defaults: design APBF_LINE, error 0.01, max_memory
 * TDBF_DEFAULT_MAX_MEMORY (4 GiB), and 0 in every other field, which each
 * field's comment above reads as its default: no window (one must be
 * set), a random seed, the process default allocator, the planner's
 * shape (k, l, the unit or block size, b), plan_tolerance
 * TDBF_DEFAULT_PLAN_TOLERANCE, not concurrent.  cfg may be NULL (no-op). */
TDBF_API void tdbf_config_init(tdbf_config *cfg);

/* ======================================================================
 * 4. The option language
 *
 * Every front (the tdbf tool, the Python package, the Redis module) reads
 * option text through these functions, so "1M", "10m" or "1%" mean the
 * same everywhere (docs/options.md lists how each front spells each
 * option).  Syntax:
 *
 *   count     an integer from 0 (options that count things need 1 or
 *             more): digits, '_' between digits ("1_000_000"), then an
 *             optional exponent ("1e6") or one suffix: k K M G T (powers
 *             of 1000) or Ki Mi Gi Ti (powers of 1024); or "0x" and hex
 *             digits.  Case matters: "1M" is 10^6, "1m" a minute.
 *   duration  one or more <number><unit> terms ("10m", "1h30m", "1.5s",
 *             "250ms"); units ns us ms s m h d; a unit is required.  At
 *             least 1 ns, at most 2^64 - 1 ns (about 584 years).
 *   error     a probability strictly between 0 and 1: "0.01", "1e-2" or
 *             "1%"; the nearest double to a short decimal.  A C99 hex
 *             float ("%a", Python's float.hex()) reads back exactly, so
 *             a double passed on as text stays that double.  Numbers are
 *             read without the locale (the point is always '.').
 *   size      bytes: a number with an optional suffix K M G T (powers of
 *             1024; also KiB MiB GiB TiB) or kB MB GB TB (powers of
 *             1000): "512M", "1.5GiB".
 *   window    a count (a count window of that many insertions) or a
 *             duration (a time window).
 *
 * Each parser returns TDBF_OK and stores the value, or TDBF_EINVAL and
 * writes a one-line reason to why (why_size bytes, NUL-terminated; why
 * may be NULL).  A reason quotes the text but never names the option:
 * the caller prefixes its own spelling ("--window: ", "WINDOW: ").
 * ====================================================================== */

TDBF_API int tdbf_parse_count(const char *text, uint64_t *out, char *why, size_t why_size);
TDBF_API int tdbf_parse_duration(const char *text, uint64_t *ns, char *why, size_t why_size);
TDBF_API int tdbf_parse_error(const char *text, double *out, char *why, size_t why_size);
TDBF_API int tdbf_parse_size(const char *text, uint64_t *bytes, char *why, size_t why_size);
/* Exactly one of *items and *ns becomes nonzero. */
TDBF_API int tdbf_parse_window(const char *text, uint64_t *items, uint64_t *ns,
                               char *why, size_t why_size);

/* The options tdbf_config_set knows, and the tdbf_config field each sets. */
typedef enum tdbf_option {
    TDBF_OPT_WINDOW = 0,     /* window: window_items or window_ns */
    TDBF_OPT_ERROR = 1,      /* error: error */
    TDBF_OPT_CAPACITY = 2,   /* count >= 1: capacity (time windows only) */
    TDBF_OPT_SEED = 3,       /* count >= 1: seed (0 is refused: leave the
                                seed out for a random one) */
    TDBF_OPT_DESIGN = 4,     /* a design name, any case, '_' or '-':
                                design (one this build has) */
    TDBF_OPT_MAX_MEMORY = 5  /* size: max_memory */
} tdbf_option;

/* Number of tdbf_option values (0 .. TDBF_OPTION_COUNT-1). */
#define TDBF_OPTION_COUNT 6

/* Canonical name of an option ("window", "max-memory"), or NULL. */
TDBF_API const char *tdbf_option_name(tdbf_option opt);

/* Set one option of cfg from its text.  *given (0 before the first call)
 * records the options set so far: an option given twice is TDBF_EINVAL,
 * as is text the option's syntax refuses; cfg is unchanged then.  Ranges
 * are the library's own: what tdbf_config_set accepts, tdbf_open does not
 * refuse for being malformed (it may still refuse a plan: too big, a
 * design without that kind of window). */
TDBF_API int tdbf_config_set(tdbf_config *cfg, unsigned *given, tdbf_option opt,
                             const char *text, char *why, size_t why_size);

/* After the last tdbf_config_set: the rules between options.  A window is
 * required; a capacity needs a time window (a count window is sized by
 * itself); a design not given follows the window: APBF_LINE for a count,
 * TLBF_LINE for a time window (the one change made to cfg).  Returns
 * TDBF_OK or TDBF_EINVAL with why. */
TDBF_API int tdbf_config_check(tdbf_config *cfg, unsigned given, char *why, size_t why_size);

/* ======================================================================
 * 5. Memory: allocator hooks
 * ====================================================================== */

/* Allocation functions.  All three must be set.  `opaque` is passed back
 * unchanged.  alloc/calloc return NULL on failure; free accepts NULL. */
typedef struct tdbf_allocator {
    void *(*alloc)(void *opaque, size_t size);
    void *(*calloc)(void *opaque, size_t count, size_t size);
    void  (*free)(void *opaque, void *ptr);
    void  *opaque;
} tdbf_allocator;

/* Replace the process-wide default allocator used by filters opened with
 * cfg.allocator == NULL.  NULL restores malloc/calloc/free.  The structure
 * is copied.  Each filter remembers the allocator it was opened with, so
 * changing the default never affects open filters.  Not thread-safe: call
 * it before opening filters (the Redis module calls it in OnLoad).
 * Returns TDBF_OK, or TDBF_EINVAL if a function pointer is missing. */
TDBF_API int tdbf_set_allocator(const tdbf_allocator *allocator);

/* ======================================================================
 * 6. Lifecycle
 * ====================================================================== */

/* Create a filter from *cfg.  On success returns TDBF_OK and stores a new
 * handle in *out (owned by the caller; release with tdbf_close).  On
 * failure *out is set to NULL and the return code says what was wrong:
 *   TDBF_EINVAL    out or cfg is NULL
 *   TDBF_EDESIGN   unknown or unimplemented design
 *   TDBF_EERROR    error rate outside (0, 1)
 *   TDBF_EWINDOW   no window, or a window of the wrong kind for the design
 *   TDBF_EPARAM    k or l out of range (1..TDBF_MAX_K, 1..TDBF_MAX_L; both
 *                  or neither must be set), or a half-specified pair;
 *                  APBBF: block_bits not 0, 64 or 512, or block_hashes
 *                  above TDBF_MAX_BLOCK_HASHES;
 *                  CLOCK: cell_bits not 0, 2, 4 or 8, resolution above
 *                  2^cell_bits - 3, or l set;
 *                  ROTATING: filters above 256, max_slices not 0 and
 *                  outside N+1 .. 4096, or l set;
 *                  TBF, BTBF: l set, timer_bits not 0 or 2..62 or too
 *                  narrow for the window, TBF timer_block above 1, BTBF
 *                  timer_block above window_items;
 *                  FPDECAY, STABLE: k or l set, or a field of theirs out
 *                  of range (see tdbf_plan_decay in tdbf_model.h)
 *   TDBF_EINFEASIBLE the planner found no (k, l) meeting the error rate
 *   TDBF_ETOOBIG   the planned memory exceeds cfg.max_memory
 *   TDBF_ENOTSUP   cfg.concurrent set for a design without a concurrent
 *                  mode (all but APBF_LINE and FPDECAY)
 *   TDBF_ENOMEM    allocation failed
 * All memory is allocated here: add/contains never allocate for APBF,
 * APBBF, TBF, BTBF and Bloom.
 * Planning: each design's planner keeps its last eight answers per thread
 * (a first search takes milliseconds), so a thread that opens many
 * filters of one configuration -- a server creating a filter per key --
 * plans once, and later opens cost little more than their allocation.
 * The answers are those a fresh search gives, bit for bit. */
TDBF_API int tdbf_open(tdbf **out, const tdbf_config *cfg);

/* Release a filter and all its memory.  NULL is accepted (no-op). */
TDBF_API void tdbf_close(tdbf *f);

/* A deep copy of f: same design, parameters, seed, clock, adds and
 * contents, so it answers every query as f does; afterwards the two are
 * independent.  The copy uses f's allocator and, for APBF_LINE, f's
 * concurrent mode; it takes the vector path tdbf_open would now.  It is
 * made through the saved form (tdbf_save into a buffer, tdbf_load from
 * it): O(memory) time, and for a moment about twice f's memory besides
 * the copy.  Returns TDBF_OK and sets *out (close it with tdbf_close), or
 * TDBF_EINVAL (out or f NULL) or TDBF_ENOMEM; on failure *out is NULL.
 * Read-only on f (as safe as tdbf_contains for concurrent readers; not
 * during adds). */
TDBF_API int tdbf_copy(tdbf **out, const tdbf *f);

/* Empty f: afterwards it holds no key and counts no adds, as if just
 * opened with the same configuration -- same design, parameters and hash
 * seed; time-window designs drop the slices or rings they grew.  The
 * clock is kept (time is never rewound).  Made by opening a new filter
 * from the configuration f was opened with and moving it in, so it needs
 * that filter's memory for a moment; on failure f is unchanged.  Returns
 * TDBF_OK, TDBF_EINVAL (f NULL), TDBF_ENOMEM, or TDBF_ENOTSUP for a
 * filter made by tdbf_load, or a tdbf_copy of one (its opening
 * configuration is not known: open a new one instead; a copy of an opened
 * filter keeps it).  Not thread-safe (mutates). */
TDBF_API int tdbf_clear(tdbf *f);

/* ======================================================================
 * 7. Operations
 *
 * Concurrency.  Two designs take adds and queries from many threads at
 * once on one handle, without locks; every other handle needs one
 * writer at a time (see the conventions above).
 *   FPDECAY (always).  Its cells are C11 atomics, written and read with
 *     relaxed ordering, and its shell counters are atomic, so tdbf_add,
 *     tdbf_add_batch, tdbf_contains, tdbf_contains_batch, tdbf_advance
 *     and tdbf_get_stats may all run at once (tdbf_close and tdbf_save
 *     still need the handle to themselves).  An add is a query followed
 *     by n independent stores, not one atomic step: two threads adding
 *     the same new key at the same moment may both hear "new", and a
 *     query racing the add of its own key may answer as if it came
 *     first.
 *   APBF_LINE opened with cfg.concurrent.  Adds take a ticket from one
 *     atomic counter (their generation follows from it), set their bits
 *     with atomic ORs and read the unit with atomic loads; the sweep
 *     empties a spare field with compare-and-swap and backs off once the
 *     next generation has begun, so a late sweep never erases a newer
 *     key (it can leave old bits: FP, never a false negative).  A key
 *     whose add returned is found by every query until window_items
 *     further adds have been counted.  tdbf_get_stats, tdbf_save and
 *     tdbf_close need the adds to have stopped.
 * ====================================================================== */

/* Test-and-insert: reports whether `key` was present in the window, then
 * inserts it (re-adding refreshes its age: a key stays present until a
 * full window has passed since its latest add).  This is the one call a
 * de-duplication loop needs.
 *   key, len  the key bytes (key may be NULL if len == 0)
 *   now_ns    caller's clock in ns (ignored by count-window designs)
 * Returns 1 if the key was already present (possibly a false positive),
 * 0 if it was new, or a negative error code: TDBF_EINVAL for a NULL
 * filter, or NULL key with len > 0; for the designs that allocate as they
 * go (EXACT, TLBF, TLBF_LINE), TDBF_ENOMEM or TDBF_ETOOBIG (past
 * cfg.max_memory), the key not inserted.  Not thread-safe (mutates),
 * except for TDBF_FPDECAY and APBF_LINE opened with cfg.concurrent
 * (above). */
TDBF_API int tdbf_add(tdbf *f, const void *key, size_t len, uint64_t now_ns);

/* Query: is `key` present in the window as of now_ns?  Never modifies the
 * filter (expiry happens in add/advance), so concurrent queries are safe.
 * Returns 1 (present, or a false positive), 0 (absent), or a negative
 * error code. */
TDBF_API int tdbf_contains(const tdbf *f, const void *key, size_t len,
                           uint64_t now_ns);

/* Move the filter's clock to now_ns and retire what has expired, without
 * inserting.  Count-window designs have nothing to do and return TDBF_OK.
 * Returns TDBF_OK or a negative error code. */
TDBF_API int tdbf_advance(tdbf *f, uint64_t now_ns);

/* ======================================================================
 * 8. Batch operations
 * ====================================================================== */

/* Batch test-and-insert of n keys in order; equivalent to n tdbf_add calls
 * (a key repeated within the batch is reported present the second time),
 * but overlaps memory accesses: keys are hashed 256 at a time; most
 * designs prefetch a few keys ahead, and APBF, APBBF and TLBF filters of 4 MiB
 * or more walk the keys' queries interleaved, 32 at once, each
 * prefetching the slice it reads next (a gain on filters larger than the
 * caches; `tdbf bench` measures it).
 *   keys[i], lens[i]  the i-th key
 *   results           if not NULL, results[i] = 1 (was present) or 0 (new)
 * Returns TDBF_OK or a negative error code: no key is inserted when the
 * arguments are invalid; when an add fails (tdbf_add's errors) the keys
 * before it are inserted, their results set, and it and the keys after
 * it are not. */
TDBF_API int tdbf_add_batch(tdbf *f, size_t n, const void *const *keys,
                            const size_t *lens, uint64_t now_ns,
                            uint8_t *results);

/* Batch query: results[i] = tdbf_contains(f, keys[i], lens[i], now_ns).
 * results must not be NULL.  Returns TDBF_OK or a negative error code. */
TDBF_API int tdbf_contains_batch(const tdbf *f, size_t n,
                                 const void *const *keys, const size_t *lens,
                                 uint64_t now_ns, uint8_t *results);

/* ======================================================================
 * 9. Introspection
 * ====================================================================== */

/* A snapshot of a filter's state.  Fields a design does not have are 0.
 * The fields shared by every design (design, memory_bytes, items, seed,
 * now_ns, error_configured, error_planned, error_estimated, simd) mean
 * the same everywhere.  The structural ones are each design's own words
 * for "its parts", as follows (a "slice" is what one age step owns):
 *
 *   design     slices             slice_bits          generation_size, _fill,
 *                                                     generations
 *   APBF       k + l slices       bits per slice      g adds per shift, adds
 *                                                     since, shifts
 *   APBBF      k + l segments     bits per segment    as APBF
 *   APBF_LINE  fields per unit    bits per field      as APBF (a shift is a
 *              (k + l, +1 spare)                      turn of every unit)
 *   TLBF       live slices        bits of the newest  planned g, adds into the
 *                                                     newest, shifts
 *   TLBF_LINE  rings x fields     bits per field      the home ring's g, adds
 *                                                     in its generation, shifts
 *   SQF        bins (all cores)   bits per bin        g, adds in the current
 *                                                     generation, turns
 *   ROTATING   sub-filters        bits per filter     g per filter, adds into
 *                                                     the newest, rotations
 *   TBF, BTBF  1                  cells x cell bits   B adds per timestamp,
 *                                                     adds since, advances
 *   CLOCK      1                  cells x cell bits   -, -, ticks since the
 *                                                     first add
 *   BLOOM      1                  bits                -
 *   FPDECAY    1                  cells x fp bits     -
 *   STABLE     1                  cells x cell bits   -
 *   EXACT      -                  -                   -
 *
 * window_items is the guaranteed count window (APBF family: l g, at least
 * the request; ROTATING: N g; BLOOM: the capacity it was sized for;
 * FPDECAY, STABLE: the window they were sized for, kept with probability
 * cfg.survival); 0 for a time window.  bits_per_item is 8 memory_bytes
 * over window_items, or, for the time designs, over the keys per window:
 * the planned capacity (CLOCK, ROTATING) or the keys held now (TLBF,
 * TLBF_LINE; 0 while empty). */
typedef struct tdbf_stats {
    tdbf_design design;
    uint64_t memory_bytes;    /* bytes allocated by the filter, all included */
    uint64_t items;           /* tdbf_add calls since open */
    uint64_t window_items;    /* guaranteed count window (see above) */
    uint64_t window_ns;       /* time window, ns */
    uint64_t seed;            /* the hash seed in use (never 0) */
    unsigned k;               /* per key: slices, segments or fields set
                                 (APBF family, TLBF family), indices
                                 (BLOOM, CLOCK, ROTATING), timer cells
                                 (TBF, BTBF), cells (FPDECAY n, STABLE K) */
    unsigned l;               /* extra slices or fields: the window spans
                                 l generations (APBF family, TLBF family) */
    unsigned slices;          /* see the table above */
    uint64_t slice_bits;      /* see the table above */
    uint64_t generation_size; /* see the table above */
    uint64_t generation_fill; /* see the table above */
    uint64_t generations;     /* see the table above */
    uint64_t now_ns;          /* largest time seen */
    double   error_configured;/* cfg.error */
    double   error_planned;   /* analytic worst-case FP of the chosen parameters */
    double   error_estimated; /* FP predicted from the current fill of the bits */
    double   bits_per_item;   /* see above */
    uint64_t keys;            /* EXACT: distinct keys held in the window;
                                 TLBF: insertions in live generations;
                                 TLBF_LINE: insertions in the last l + 1
                                 generations (the ones queries read);
                                 SQF, time window: insertions in the
                                 last 8 generations;
                                 ROTATING: insertions in live sub-filters */
    uint64_t cap_hits;        /* TLBF, TLBF_LINE, ROTATING, SQF: times growth was
                                 refused by max_slices or max_memory (the
                                 filter degraded: FP up) */
    uint64_t cells;           /* TBF, BTBF: timer cells m */
    unsigned cell_bits;       /* TBF, BTBF: bits per timer cell */
    uint64_t padding;         /* TBF, BTBF: P = T_Omega - (ceil(w/B) + 1) */
    uint64_t scan_per_insert; /* TBF, BTBF: cells checked for expiry per add */
    tdbf_simd simd;           /* the vector path the filter's operations take
                                 (section 12; TDBF_SIMD_PORTABLE for designs
                                 without one) */
} tdbf_stats;

/* Fill *out with the filter's statistics.  Cost: O(memory) for designs
 * whose estimated error needs a population count.  Read-only.
 * Returns TDBF_OK or TDBF_EINVAL. */
TDBF_API int tdbf_get_stats(const tdbf *f, tdbf_stats *out);

/* What a filter is, as opposed to what it holds: the fields of tdbf_stats
 * that never need a scan (each equals the tdbf_stats field of the same
 * name), and its expiry bound (slack_items, slack_ns: see tdbf_slack). */
typedef struct tdbf_shape {
    tdbf_design design;
    uint64_t window_items;    /* guaranteed count window (0: time window) */
    uint64_t window_ns;       /* time window, ns (0: count window) */
    unsigned k;               /* slices (cells, bits) set per insertion */
    unsigned l;               /* extra slices (APBF family, TLBF family) */
    uint64_t memory_bytes;    /* bytes allocated now (time designs grow and
                                 shrink with the rate) */
    double   error_configured;/* cfg.error */
    double   error_planned;   /* analytic worst-case FP of the parameters */
    uint64_t seed;            /* the hash seed in use (never 0) */
    int      concurrent;      /* 1 if adds may run from many threads at once
                                 (FPDECAY; APBF_LINE opened concurrent) */
    uint64_t slack_items;     /* count window: the expiry bound's slack in
                                 adds (tdbf_slack); 0 for a time window */
    uint64_t slack_ns;        /* time window: the slack in ns; 0 for a
                                 count window */
} tdbf_shape;

/* Fill *out with f's shape in O(1): no scan of the bits, no allocation.
 * Read-only; as safe for concurrent readers as tdbf_contains (and, for
 * the concurrent designs, during adds).  Returns TDBF_OK or TDBF_EINVAL
 * (f or out NULL). */
TDBF_API int tdbf_get_shape(const tdbf *f, tdbf_shape *out);

/* The expiry bound of f: how far past its window a key may still be
 * reported.  A key whose latest add is
 *   younger than the window            is always reported (no false
 *                                      negative);
 *   older than the window + the slack  is reported only as a false
 *                                      positive, at the planned rate;
 *   in between                         may still be reported, less
 *                                      often as it ages.
 * The error rate a filter is planned for (cfg.error) bounds the reports
 * of keys never added, or last added longer ago than window + slack.
 * Count windows set *slack_items (adds past stats.window_items) and
 * *slack_ns = 0; time windows set *slack_ns (ns past window_ns) and
 * *slack_items = 0.  Per design (g adds or a span of time per generation,
 * as tdbf_stats reports them):
 *   APBF, APBBF, APBF_LINE  k g adds, g = window_items / l (paper 004
 *             section 5.2: a key's k slices leave one per generation)
 *   TLBF      (k + 1) ceil(T / l) ns (its newest slice takes adds for k
 *             more generations; at a steady or growing rate)
 *   TLBF_LINE (k + l) ceil(T / l) - T ns (fields emptied at age k + l)
 *   SQF       count window: g adds (k = 1, l = 7); time window: 8 ceil(T /
 *             7) - T ns (a key answers while 7 generations old; at a
 *             steady rate: a core a burst ran ahead keeps keys longer)
 *   CLOCK     (d + 1) ceil(T / d) - T ns, d = cfg.resolution: up to T / d
 *   ROTATING  count window: g = window_items / N adds; time window:
 *             ceil(T / N) ns, + 1 when N does not divide T (N =
 *             cfg.filters; longer while its growth cap is hit)
 *   TBF, BTBF B - 1 adds, B adds per timestamp (TBF: 0)
 *   EXACT     0: the window is exact
 *   BLOOM     UINT64_MAX: no window, a key is reported forever
 *   FPDECAY, STABLE  UINT64_MAX: no hard bound; they forget at random, a
 *             key's chance of answering falls with its age
 *             (tdbf_fpdecay_survival, tdbf_stable_forget)
 * The same figures are in tdbf_get_shape and, before a filter is built,
 * tdbf_plan_shape (tdbf_model.h).  Either pointer may be NULL.  Returns TDBF_OK, or
 * TDBF_EINVAL (f NULL).  O(1), read-only: as safe for concurrent readers
 * as tdbf_contains. */
TDBF_API int tdbf_slack(const tdbf *f, uint64_t *slack_items, uint64_t *slack_ns);

/* Estimated false-positive rate of a query at now_ns, from the insert
 * counts the filter keeps: O(1) or O(slices), never a scan of its bits
 * (tdbf_get_stats' error_estimated reads the bits).  Cheap enough to call
 * before every add, so a caller can refuse to overload a filter: a
 * time-window filter sized for C keys per window (CLOCK, ROTATING, TLBF)
 * takes any burst without a false negative, but its FP rate climbs, up
 * to 1, and this is where that shows.
 *   now_ns  the query's time in ns, clamped as everywhere (a time behind
 *           the filter's latest counts as that latest time)
 *   error   out: the estimate, in [0, 1]
 * Every add counts, re-adds of a present key too (an upper bound).  Per
 * design:
 *   CLOCK     n = the adds of the ticks live at now_ns (its tick and the d
 *             before it): (1 - (1 - 1/m)^(k n))^k, 0 once none is live.
 *             After tdbf_load, the adds per tick are inferred once from
 *             the cells' ages (the saved form has no counts).  O(d).
 *   ROTATING  1 - prod (1 - e_i) over the filters a query at now_ns reads,
 *             e_i the Bloom FP of filter i's adds.  O(filters).
 *   TLBF      F of paper 004 over the live slices at the fills their adds
 *             predict, kept by tdbf_add and recomputed after 1 % more adds
 *             than the live slices hold (it lags by at most those); O(1)
 *             unless now_ns leaves two fewer slices live than it counted,
 *             then O(slices k).
 *   BLOOM     the FP after the adds since open (the Poisson-block model
 *             when blocked): the plan at window_items adds, climbing past
 *             it; kept by tdbf_add for a stretch of adds ahead, so never
 *             low.  O(1).
 *   EXACT     0.
 *   APBF, APBBF, TBF, BTBF, FPDECAY, STABLE: stats.error_planned.  They
 *             hold a bounded number of inserts (a count window, or a
 *             decay per insert), so their fill cannot run past it.  O(1).
 * Returns TDBF_OK and sets *error, or TDBF_EINVAL (f or error NULL).
 * Read-only: as safe for concurrent readers as tdbf_contains. */
TDBF_API int tdbf_current_error(const tdbf *f, uint64_t now_ns, double *error);

/* ======================================================================
 * 10. Serialization
 *
 * One byte format for every design, documented in docs/format.md:
 * magic, format version, design, generic state (seed, adds, clock, error),
 * the design's parameters and payload, and an XXH3-64 checksum of all of
 * it; little-endian, identical on every platform.  Loading validates every
 * field before allocating or using it: malformed input is an error code,
 * never a crash or a huge allocation.
 * ====================================================================== */

/* Sink for tdbf_save: write exactly len bytes, return 0 on success,
 * nonzero on failure (the save then returns TDBF_EIO). */
typedef int (*tdbf_write_fn)(void *ctx, const void *buf, size_t len);
/* Source for tdbf_load: read exactly len bytes into buf, return 0 on
 * success, nonzero if fewer are available (the load then returns
 * TDBF_ECORRUPT: truncated) or on a read error. */
typedef int (*tdbf_read_fn)(void *ctx, void *buf, size_t len);

/* Limits for loading untrusted input. */
typedef struct tdbf_load_options {
    uint64_t max_memory;  /* refuse filters needing more bytes; 0 = 4 GiB */
    const struct tdbf_allocator *allocator; /* NULL = the process default */
    int      concurrent;  /* as tdbf_config.concurrent (APBF_LINE; FPDECAY
                             always is); other designs: TDBF_ENOTSUP */
} tdbf_load_options;

/* Exact number of bytes tdbf_save writes for f (0 if f is NULL). */
TDBF_API uint64_t tdbf_saved_size(const tdbf *f);

/* Stream f to `write` in pieces (never a second copy of the filter).
 * Every design saves.  Returns TDBF_OK, TDBF_EINVAL or TDBF_EIO (the
 * sink failed).  Read-only on f. */
TDBF_API int tdbf_save(const tdbf *f, tdbf_write_fn write, void *ctx);

/* Load a filter from `read`.  On success *out is a new filter (close with
 * tdbf_close) whose answers, stats and later behaviour equal the saved
 * one's.  On failure *out is NULL and nothing leaks:
 *   TDBF_ECORRUPT  bad magic, truncated, inconsistent field, bad checksum
 *   TDBF_EVERSION  a format version this library does not read
 *   TDBF_EDESIGN   a design this build does not have
 *   TDBF_ENOTSUP   opts->concurrent for a design or layout without a
 *                  concurrent mode
 *   TDBF_ETOOBIG   it would need more than opts->max_memory
 *   TDBF_ENOMEM, TDBF_EINVAL (out or read NULL)
 * opts may be NULL (defaults). */
TDBF_API int tdbf_load(tdbf **out, tdbf_read_fn read, void *ctx,
                       const tdbf_load_options *opts);

/* tdbf_load from a memory buffer.  The filter record may be followed by
 * sections (below): they are checked and skipped.  Any other bytes after
 * the filter, a section cut short or one with a bad checksum:
 * TDBF_ECORRUPT. */
TDBF_API int tdbf_load_buffer(tdbf **out, const void *buf, size_t len,
                              const tdbf_load_options *opts);

/* Save to `path` atomically: write a temporary file beside it, fsync,
 * rename over path, fsync the directory.  A crash leaves either the old
 * file or the new one, never a torn one.  Returns TDBF_OK, TDBF_EINVAL
 * or TDBF_EIO (errno describes the failure). */
TDBF_API int tdbf_save_file(const tdbf *f, const char *path);

/* Load from a file; TDBF_EIO if it cannot be opened or read (errno then
 * says why), else as tdbf_load_buffer: sections after the filter are
 * checked and skipped, any other trailing bytes are TDBF_ECORRUPT. */
TDBF_API int tdbf_load_file(tdbf **out, const char *path,
                            const tdbf_load_options *opts);

/* ======================================================================
 * 11. Sections
 *
 * A saved filter may be followed by sections: self-describing records a
 * front keeps beside its filter (`tdbf dedup --state` keeps how it cut
 * lines into keys, tag "TDBFKEYS").  Each is (docs/format.md, Sections):
 *     8  tag: "TDBF" then four of A-Z 0-9
 *     4  version of the body's layout (chosen by the section's owner)
 *     4  n, body bytes
 *     n  body
 *     8  FNV-1a 64 of the body
 * tdbf_load_buffer and tdbf_load_file skip every section after checking
 * it; tdbf_load stops at the filter's checksum, so a caller that reads a
 * stream reads what follows with tdbf_read_sections.
 * ====================================================================== */

#define TDBF_SECTION_TAG_BYTES 8

/* One section.  The tag is not NUL-terminated. */
typedef struct tdbf_section {
    char        tag[TDBF_SECTION_TAG_BYTES];
    uint32_t    version;   /* the body's layout version */
    uint32_t    length;    /* bytes of body */
    const void *body;      /* valid during the visitor's call only */
} tdbf_section;

/* Called for each section tdbf_read_sections is asked to show: return
 * TDBF_OK to go on, anything else to stop the walk with that value. */
typedef int (*tdbf_section_fn)(void *ctx, const tdbf_section *section);

/* Append one section to a sink (after tdbf_save).  Returns TDBF_OK,
 * TDBF_EINVAL (write or section NULL, body NULL with a length, a tag not
 * "TDBF" and four of A-Z 0-9) or TDBF_EIO (the sink failed). */
TDBF_API int tdbf_save_section(tdbf_write_fn write, void *ctx,
                               const tdbf_section *section);

/* Read sections from `read` until it ends (a read of the first byte of a
 * next section fails; a source that can fail otherwise should tell its
 * error from its end afterwards, as tdbf_load_file does with ferror).
 * Each section's checksum is verified.  Sections whose tag equals the
 * TDBF_SECTION_TAG_BYTES bytes at `tag` (every section if tag is NULL)
 * are read whole and shown to visit(visit_ctx, section); the others are
 * skipped (visit NULL: all are).  Returns TDBF_OK at the end of input,
 * TDBF_ECORRUPT (a tag of another shape, a cut section, a bad checksum),
 * TDBF_ETOOBIG (a section to show of more than 64 MiB), TDBF_ENOMEM,
 * TDBF_EINVAL (read NULL), or what visit returned to stop. */
TDBF_API int tdbf_read_sections(tdbf_read_fn read, void *ctx, const char *tag,
                                tdbf_section_fn visit, void *visit_ctx);

/* ======================================================================
 * 12. Vector instructions
 *
 * The default build is plain C11.  Where a design has a vector path
 * (APBF_LINE: AVX2 and AVX-512 on x86-64; SQF: POPCNT and BMI2 on x86-64,
 * taken on any path but TDBF_SIMD_PORTABLE), it is compiled in beside the
 * portable one and chosen at run time from what the CPU reports; both give
 * the same answers and the same bits (the unit tests compare them on every
 * shape).  A filter takes its path when it is opened or loaded.
 * ====================================================================== */

/* (tdbf_simd is declared in section 3.) */

/* Choose the path for filters opened or loaded from now on, process-wide
 * (TDBF_SIMD_AUTO: back to the default).  Returns TDBF_OK, TDBF_EINVAL
 * (not a tdbf_simd) or TDBF_ENOTSUP (this CPU or build lacks it).  Filters
 * already open keep theirs.  Thread-safe. */
TDBF_API int tdbf_set_simd(tdbf_simd path);

/* The path tdbf_open would give a filter now (never TDBF_SIMD_AUTO). */
TDBF_API tdbf_simd tdbf_simd_in_use(void);

/* 1 if this CPU and build can run `path` (TDBF_SIMD_PORTABLE: always), else 0. */
TDBF_API int tdbf_simd_available(tdbf_simd path);

/* "auto", "portable", "avx2", "avx512"; "unknown" otherwise. */
TDBF_API const char *tdbf_simd_name(tdbf_simd path);

#ifdef __cplusplus
}
#endif

#endif /* TDBF_H */
