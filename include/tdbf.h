/*
 * tdbf.h — time-decaying Bloom filters: "have I seen this key recently?"
 *
 * libtdbf answers membership questions over a sliding window — the last N
 * insertions (count window) or the last T nanoseconds (time window) — in a
 * few bits per key, with no false negatives inside the window and a bounded,
 * planned false-positive rate.
 *
 * This is the only public header of libtdbf.  Sections:
 *   1. Version
 *   2. Errors
 *   3. Types and configuration
 *   4. Memory: allocator hooks
 *   5. Lifecycle
 *   6. Operations (add, contains, advance)
 *   7. Batch operations
 *   8. Introspection (stats)
 *   9. Planner (APBF and APBBF sizing, paper 004 sections 5 and 6)
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
 *     independent.
 *
 * Minimal use:
 *
 *     tdbf_config cfg;
 *     tdbf_config_init(&cfg);              // APBF, error 0.01
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
 * 3. Types and configuration
 * ====================================================================== */

/* Opaque filter handle. */
typedef struct tdbf tdbf;

/* The designs.  Values are fixed (they appear in serialized files). */
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
    TDBF_EXACT = 10    /* exact sliding-window set (ground truth, big) */
} tdbf_design;

/* Number of design identifiers (for iteration: 0 .. TDBF_DESIGN_COUNT-1). */
#define TDBF_DESIGN_COUNT 11

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

struct tdbf_allocator;

/* Filter configuration.  Always start from tdbf_config_init(), then set the
 * fields you need: new fields get sane defaults that way. */
typedef struct tdbf_config {
    tdbf_design design;     /* default TDBF_APBF */
    double      error;      /* target false-positive rate, 0 < error < 1; default 0.01 */
    uint64_t    window_items; /* count window in insertions (0 = none) */
    uint64_t    window_ns;  /* time window in ns (0 = none) */
    uint64_t    seed;       /* hash seed; 0 = random (read back via stats) */
    unsigned    k;          /* APBF, APBBF: slices (segments) per insertion; 0 = planner's choice */
    unsigned    l;          /* APBF, APBBF: extra slices (window = l generations); 0 = planner */
    uint64_t    capacity;   /* expected items per window (time designs); 0 = unknown */
    uint64_t    max_memory; /* refuse plans above this many bytes; default
                               (and 0) = TDBF_DEFAULT_MAX_MEMORY, 4 GiB */
    const struct tdbf_allocator *allocator; /* NULL = the process default */
    unsigned    max_slices; /* TLBF: cap on slices (0 = 2(k+l)+32); when
                               reached the filter stops growing and FP rises,
                               never false negatives (stats.cap_hits) */
    unsigned    block_bits; /* APBBF: B, 512 (default, 0) or 64; BLOOM: 0 =
                               classic, 512 or 64 = blocked Bloom filter */
    unsigned    block_hashes; /* APBBF, blocked BLOOM: b bits per block, 0 = planner */
} tdbf_config;

/* Fill *cfg with defaults: design APBF, error 0.01, no window (one must be
 * set), random seed, planner-chosen k and l (and APBBF b; B = 512), 4 GiB
 * cap, default allocator.
 * cfg may be NULL (no-op). */
TDBF_API void tdbf_config_init(tdbf_config *cfg);

/* ======================================================================
 * 4. Memory: allocator hooks
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
 * 5. Lifecycle
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
 *                  above TDBF_MAX_BLOCK_HASHES
 *   TDBF_EINFEASIBLE the planner found no (k, l) meeting the error rate
 *   TDBF_ETOOBIG   the planned memory exceeds cfg.max_memory
 *   TDBF_ENOMEM    allocation failed
 * All memory is allocated here: add/contains never allocate for APBF,
 * APBBF and Bloom. */
TDBF_API int tdbf_open(tdbf **out, const tdbf_config *cfg);

/* Release a filter and all its memory.  NULL is accepted (no-op). */
TDBF_API void tdbf_close(tdbf *f);

/* ======================================================================
 * 6. Operations
 * ====================================================================== */

/* Test-and-insert: reports whether `key` was present in the window, then
 * inserts it (re-adding refreshes its age: a key stays present until a
 * full window has passed since its latest add).  This is the one call a
 * de-duplication loop needs.
 *   key, len  the key bytes (key may be NULL if len == 0)
 *   now_ns    caller's clock in ns (ignored by count-window designs)
 * Returns 1 if the key was already present (possibly a false positive),
 * 0 if it was new, or a negative error code (TDBF_EINVAL for a NULL
 * filter, or NULL key with len > 0).  Not thread-safe (mutates). */
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
 * 7. Batch operations
 * ====================================================================== */

/* Batch test-and-insert of n keys in order; equivalent to n tdbf_add calls
 * (a key repeated within the batch is reported present the second time),
 * but may overlap memory accesses.
 *   keys[i], lens[i]  the i-th key
 *   results           if not NULL, results[i] = 1 (was present) or 0 (new)
 * Returns TDBF_OK or a negative error code (no key is inserted when the
 * arguments are invalid). */
TDBF_API int tdbf_add_batch(tdbf *f, size_t n, const void *const *keys,
                            const size_t *lens, uint64_t now_ns,
                            uint8_t *results);

/* Batch query: results[i] = tdbf_contains(f, keys[i], lens[i], now_ns).
 * results must not be NULL.  Returns TDBF_OK or a negative error code. */
TDBF_API int tdbf_contains_batch(const tdbf *f, size_t n,
                                 const void *const *keys, const size_t *lens,
                                 uint64_t now_ns, uint8_t *results);

/* ======================================================================
 * 8. Introspection
 * ====================================================================== */

/* A snapshot of a filter's state.  Fields a design does not have are 0. */
typedef struct tdbf_stats {
    tdbf_design design;
    uint64_t memory_bytes;    /* bytes allocated by the filter, all included */
    uint64_t items;           /* tdbf_add calls since open */
    uint64_t window_items;    /* guaranteed count window (APBF: l*g >= requested) */
    uint64_t window_ns;       /* time window, ns */
    uint64_t seed;            /* the hash seed in use (never 0) */
    unsigned k;               /* slices set per insertion */
    unsigned l;               /* extra slices (APBF) */
    unsigned slices;          /* slices (or sub-filters) currently allocated */
    uint64_t slice_bits;      /* bits per slice (APBF) or segment (APBBF),
                                 total bits (Bloom) */
    uint64_t generation_size; /* insertions per generation (APBF g) */
    uint64_t generation_fill; /* insertions in the current generation */
    uint64_t generations;     /* shifts performed since open */
    uint64_t now_ns;          /* largest time seen */
    double   error_configured;/* cfg.error */
    double   error_planned;   /* analytic worst-case FP of the chosen parameters */
    double   error_estimated; /* FP predicted from the current fill of the bits */
    double   bits_per_item;   /* memory bits / guaranteed window */
    uint64_t keys;            /* EXACT: distinct keys held in the window;
                                 TLBF: insertions in live generations */
    uint64_t cap_hits;        /* times growth was refused by max_slices or
                                 max_memory (the filter degraded: FP up) */
} tdbf_stats;

/* Fill *out with the filter's statistics.  Cost: O(memory) for designs
 * whose estimated error needs a population count.  Read-only.
 * Returns TDBF_OK or TDBF_EINVAL. */
TDBF_API int tdbf_get_stats(const tdbf *f, tdbf_stats *out);

/* ======================================================================
 * 9. Planner (APBF: paper 004 sections 5.2-5.5; APBBF: section 6)
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

/* The paper's APBF false-positive recursion F(k, l, 0, 0) over explicit
 * fill ratios fills[0 .. k+l-1] (logical slice order, newest first).
 * Returns the probability, or -1.0 if an argument is invalid (k or l out
 * of range, fills NULL, a fill outside [0, 1] or NaN). */
TDBF_API double tdbf_apbf_fp(unsigned k, unsigned l, const double *fills);

/* Expected slice reads of Algorithm 1 for a query that returns false,
 * A(k,l,0,0,0,l) / (1 - F(k,l,0,0)), over the same fills.
 * Returns the expectation, or -1.0 if an argument is invalid. */
TDBF_API double tdbf_apbf_accesses_false(unsigned k, unsigned l,
                                         const double *fills);

/* ---- APBBF: blocked APBF (paper 004 section 6) ------------------------
 *
 * Each of the k+l segments is a blocked Bloom filter: a key picks one
 * block of B bits (64: a word; 512: a cache line) per segment and sets b
 * bits in it, one in each of b near-equal parts of the block.  A block
 * that has received X keys matches a never-inserted key with probability
 * prod_j (1 - (1 - 1/part_j)^X), which is (1 - (1 - b/B)^X)^b when b
 * divides B.  A segment's capacity is lambda = ln2 / -ln(1 - b/B) keys per
 * block (expected fill 1/2 at that mean load), so the generation size is
 * g = floor(blocks * lambda / k). */

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

/* The probability r that a never-inserted key matches an APBBF segment of
 * `blocks` blocks (block_bits 64 or 512, block_hashes b bits per key) into
 * which `keys` distinct keys have been inserted: E[m(X)] over the block
 * load X ~ Binomial(keys, 1/blocks).  These r feed tdbf_apbf_fp and
 * tdbf_apbf_accesses_false exactly as slice fills do for APBF (for a
 * filter with generation g just before a shift: keys = (i+1)g for segment
 * i < k, k*g for the others).  Returns r in [0, 1], or -1.0 if an
 * argument is invalid. */
TDBF_API double tdbf_apbbf_match(unsigned block_bits, unsigned block_hashes,
                                 uint64_t keys, uint64_t blocks);

#ifdef __cplusplus
}
#endif

#endif /* TDBF_H */
