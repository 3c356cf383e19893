/*
 * model.c — apbf-line's false-positive model and its planner
 * (apbf_line.c is the filter).
 *
 * False positives: the model.  Just before a shift, field age a of a unit
 * holds the keys its unit received in generations a-k+1 .. a (those that
 * marked it); per generation a unit receives X ~ Poisson(lambda = g /
 * units) keys.  The n b bit throws of a field's n keys must cover a
 * never-inserted key's d distinct positions (d <= b): by inclusion-
 * exclusion sum_i (-1)^i C(d, i) (1 - i/W)^(n b) (field_match; the usual
 * (1 - (1 - 1/W)^(n b))^b treats the bits as independent and erred by 30 %
 * at 10^-4).  Given the unit's loads the fields match independently (the
 * key's offsets differ per field), so its FP is the probability of a run
 * of k matches among ages 0 .. k+l-1, a small recursion over the run
 * length.  But the loads of neighbouring fields are NOT independent:
 * fields a and a+1 share k - 1 generations of the same keys, so a heavy
 * unit is heavy in all its fields at once, and averaging each field over
 * independent loads underestimates the FP (by 20-40 % at the usual
 * plans).  The model therefore draws the generation loads X_0 ..
 * X_{k+l-1} of a unit, builds each field's load as the sum of its
 * generations, and averages the run probability over 4096 such units, with
 * a fixed seed so that a plan is a pure function of its inputs
 * (tdbf_apbf_line_fp).  With a spare that is the worst case, just before a
 * shift.  Rolling, each simulated unit also draws the phase of its
 * current generation, uniform, and keeps each of X_0's keys with that
 * probability (Poisson thinning): the FP at any moment.  Measured against
 * it (tests/unit/test_apbf_line.c, FP probed at the end of a generation
 * and, rolling, at its quarters): within -6.2 .. +7.3 % from 0.1 to 10^-4
 * and windows of 10^4 to 10^7.  Rolling and the lost spare together: 20.5
 * and 30.2 bits per key at 0.01 and 0.001 (a 10^6 window), 1.04x and
 * 1.17x the least-memory APBF, against 22.0 and 32.7 with a spare.
 *
 * Planner (tdbf_plan_apbf_line).  Over W = 32, 64 (16 when k and l ask
 * for it; l = F - k, or F - 1 - k for a spare), k and b, the shape of
 * least memory by the model on 256 simulated units; then its largest load
 * lambda* on the full model, and units = ceil(g / lambda*) (see
 * "planning" below).  All of it aims at cfg.error / TDBF_LINE_PLAN_MARGIN
 * (ring.h: 1.10), so that the filters, not only the model, meet the
 * target: at a 10^6 window, just before a shift, the measured FP went
 * from 0.01016 and 0.001021 (95 % intervals above the target) to 0.00915
 * and 0.000916, for 2.0 % and 1.7 % more bits per key (20.66 -> 21.08 at
 * 0.01, 30.20 -> 30.71 at 0.001; 11.51 -> 11.86 at 0.1, 42.22 -> 42.76
 * at 10^-4).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "model/draw.h"
#include "util/memo.h"
#include "designs/apbf_line/internal.h"

enum {
    MODEL_SAMPLES = 4096,
    MODEL_MAX_LOAD = 2048                 /* keys per field the model tabulates */
};

/* ---- the model ----------------------------------------------------------- */

/* P(b uniform draws from `width` positions hit exactly d distinct ones),
 * d = 1 .. b (one draw at a time: a new position or a repeat). */
void tdbf_line_distinct_positions(unsigned b, double width, double *out)
{
    double p[LINE_MAX_B + 1] = {0.0, 1.0};
    for (unsigned draw = 1; draw < b; draw++) {
        double next[LINE_MAX_B + 1] = {0.0};
        for (unsigned d = 1; d <= draw; d++) {
            next[d] += p[d] * (double)d / width;
            next[d + 1] += p[d] * (width - (double)d) / width;
        }
        memcpy(p, next, sizeof p);
    }
    memcpy(out, p, sizeof p);
}

/* P(a never-inserted key matches a field of `width` bits holding n keys):
 * the n b throws must cover its d distinct positions (see the essay). */
static double field_match(unsigned b, double width, unsigned n, const double *distinct)
{
    double throws = (double)b * (double)n, total = 0.0;
    for (unsigned d = 1; d <= b; d++) {
        double covered = 0.0, choose = 1.0;
        for (unsigned i = 0; i <= d; i++) {
            double miss = i == 0 ? 1.0 : pow(1.0 - (double)i / width, throws);
            covered += (i % 2 ? -choose : choose) * miss;
            choose = choose * (double)(d - i) / (double)(i + 1);
        }
        total += distinct[d] * (covered > 0.0 ? covered : 0.0);
    }
    return total;
}

/* P(a run of k matches among ages 0 .. k+l-1) for independent matches
 * r[0 .. k+l-1]: the chance of no run yet, by current run length (ring.h). */
double tdbf_line_run_probability(unsigned k, unsigned l, const double *r)
{
    double no_run[TDBF_MAX_K], hit = 0.0;
    no_run[0] = 1.0;
    for (unsigned j = 1; j < k; j++)     /* (only k are read: not all TDBF_MAX_K) */
        no_run[j] = 0.0;
    for (unsigned a = 0; a < k + l; a++) {
        double carry = 0.0, miss = 0.0;
        for (unsigned j = 0; j < k; j++) {
            miss += no_run[j] * (1.0 - r[a]);
            double up = no_run[j] * r[a];
            no_run[j] = carry;
            carry = up;
        }
        hit += carry;        /* a run of k - 1 met one more match */
        no_run[0] = miss;
    }
    return hit;
}

/* What both estimates need: r(n) for n keys in a field, and the Poisson
 * CDF of a unit's load per generation.  `top`: loads beyond it have
 * probability below 10^-15.  False if the loads outgrow the table (every
 * field is then full: FP 1). */
typedef struct model_tables {
    double   match[MODEL_MAX_LOAD + 1];
    double   cdf[MODEL_MAX_LOAD + 1];
    double   pmf[MODEL_MAX_LOAD + 1];
    unsigned top;
} model_tables;

static bool model_tables_init(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                              double lambda, model_tables *m)
{
    double width = (double)(unit_bits / fields_of(k, l, unit_bits));
    double distinct[LINE_MAX_B + 1];
    tdbf_line_distinct_positions(b, width, distinct);
    double mass = exp(-lambda), sum = 0.0;
    unsigned n = 0;
    for (; n <= MODEL_MAX_LOAD / k; n++) {
        if (n > 0)
            mass *= lambda / (double)n;
        m->pmf[n] = mass;
        sum += mass;
        m->cdf[n] = sum;
        if (sum >= 1.0 - 1e-15 && n >= lambda)
            break;
    }
    if (n > MODEL_MAX_LOAD / k)
        return false;
    m->top = n;
    for (unsigned keys = 0; keys <= k * n; keys++)
        m->match[keys] = field_match(b, width, keys, distinct);
    return true;
}

/* A Poisson(lambda) load from the table. */
static unsigned model_load(const model_tables *m, uint64_t *state)
{
    return tdbf_draw_from_cdf(m->cdf, m->top, state);
}

/* Rolling: the unit's current generation is at a uniform phase of its
 * own; of its Poisson(lambda) keys each has come with that probability
 * (thinning: Poisson(phase lambda)). */
static unsigned model_phase_load(unsigned x, uint64_t *state)
{
    double phase = tdbf_draw_uniform(state);
    unsigned kept = 0;
    for (unsigned i = 0; i < x; i++)
        kept += tdbf_draw_uniform(state) < phase;
    return kept;
}

static double model_fp(unsigned k, unsigned l, bool rolling, const model_tables *m,
                       unsigned samples)
{
    uint64_t state = UINT64_C(0x5eed11e7f00d);
    double total = 0.0;
    for (unsigned s = 0; s < samples; s++) {
        unsigned load[TDBF_MAX_K + TDBF_MAX_L], field_load = 0;
        double r[TDBF_MAX_K + TDBF_MAX_L];
        for (unsigned a = 0; a < k + l; a++) {
            unsigned x = model_load(m, &state);
            if (a == 0 && rolling)
                x = model_phase_load(x, &state);
            load[a] = x;
            field_load += x;
            if (a >= k)
                field_load -= load[a - k];
            r[a] = m->match[field_load];
        }
        total += tdbf_line_run_probability(k, l, r);
    }
    return total / samples;
}

/* The model's FP at a mean load of `lambda` keys per unit and generation,
 * over `samples` simulated units. */
static double load_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits, double lambda,
                      unsigned samples)
{
    model_tables m;
    if (!model_tables_init(k, l, b, unit_bits, lambda, &m))
        return 1.0;          /* units so loaded that every field is full */
    return model_fp(k, l, layout_spare(k, l, unit_bits) == 0, &m, samples);
}

/* ---- the model's curve, kept ----------------------------------------------
 *
 * A shape's FP is a function of its load alone, and the callers ask for it
 * at loads near the same few again and again: every open sizes its shape
 * (fill_plan), every load of a saved filter recomputes its planned FP, a
 * tlbf-line burst ring finds its load (tdbf_line_load_for), and the Redis
 * module opens a filter per key.  The full model is about a millisecond
 * an evaluation, which a server pays with every client waiting.  So it is
 * evaluated only at the grid loads 2^(i / CURVE_STEPS), each kept per
 * thread once computed, and read between two grid points linearly in log
 * FP over log load, where the FP of a run of k matches is close to a power
 * of the load.  Against the model evaluated at the loads in between (ten
 * shapes, FP 10^-5 .. 0.2): 0.2 % apart on average, 1.9 % at most, which
 * is the model's own sampling noise (its FP is not smooth in the load at
 * that scale).  Still a pure function of its inputs: the cache only saves
 * recomputing the points. */

enum {
    CURVE_STEPS = 64,        /* grid points per doubling of the load */
    CURVE_SHAPES = 8,        /* shapes kept per thread */
    CURVE_POINTS = 96,       /* points kept per shape */
    CURVE_LOWEST = -20 * CURVE_STEPS,    /* 2^-20: below, no load meets an error */
    CURVE_HIGHEST = 11 * CURVE_STEPS     /* 2^11 = MODEL_MAX_LOAD */
};

typedef struct curve_point {
    int    index;
    double fp;
} curve_point;

typedef struct curve_shape {
    unsigned k, l, b, unit_bits;
} curve_shape;

typedef struct model_curve {
    curve_shape shape;
    unsigned    count, next;          /* points held; the next to replace */
    curve_point points[CURVE_POINTS];
} model_curve;

/* This thread's curve of shape (k, l, b, U), a fresh one (replacing the
 * oldest) if it has none (util/memo.h). */
static model_curve *curve_of(unsigned k, unsigned l, unsigned b, unsigned unit_bits)
{
    static _Thread_local TDBF_MEMO(model_curve, CURVE_SHAPES) memo;
    curve_shape shape = {k, l, b, unit_bits};
    model_curve *c = TDBF_MEMO_FIND(&memo, &shape);
    return c ? c : TDBF_MEMO_TAKE(&memo, &shape);
}

/* The full model's FP at grid load 2^(index / CURVE_STEPS). */
static double curve_point_fp(model_curve *c, int index)
{
    for (unsigned i = 0; i < c->count; i++)
        if (c->points[i].index == index)
            return c->points[i].fp;
    const curve_shape *shape = &c->shape;
    double fp = load_fp(shape->k, shape->l, shape->b, shape->unit_bits,
                        exp2((double)index / CURVE_STEPS), MODEL_SAMPLES);
    curve_point *slot = c->count < CURVE_POINTS ? &c->points[c->count++]
                                                : &c->points[c->next++ % CURVE_POINTS];
    slot->index = index;
    slot->fp = fp;
    return fp;
}

/* Between grid points index and index + 1, at fraction t of the way. */
static double curve_between(double fp0, double fp1, double t)
{
    if (t <= 0.0)
        return fp0;
    if (fp0 > 0.0 && fp1 > 0.0)
        return exp(log(fp0) + t * (log(fp1) - log(fp0)));
    return fp0 + t * (fp1 - fp0);
}

static double curve_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits, double lambda)
{
    double x = log2(lambda) * CURVE_STEPS;
    if (!(x > CURVE_LOWEST - 1.0 && x < CURVE_HIGHEST + 1.0))   /* (NaN too) */
        return load_fp(k, l, b, unit_bits, lambda, MODEL_SAMPLES);
    model_curve *c = curve_of(k, l, b, unit_bits);
    int index = (int)floor(x);
    double t = x - (double)index;
    double fp0 = curve_point_fp(c, index);
    return t > 0.0 ? curve_between(fp0, curve_point_fp(c, index + 1), t) : fp0;
}

static int curve_index(double x)
{
    return !(x >= CURVE_LOWEST) ? CURVE_LOWEST : x > CURVE_HIGHEST ? CURVE_HIGHEST : (int)x;
}

/* Where the curve reaches `error`, guessed from its slope at grid point
 * x: the FP of a run of k matches grows about as a power of the load, so
 * a straight line in log FP over log load lands within a point or two,
 * and the search below then evaluates a few points instead of a dozen. */
static int curve_guess(model_curve *c, double error, double x)
{
    int at = curve_index(x);
    if (at >= CURVE_HIGHEST)
        return at;
    double fp0 = curve_point_fp(c, at), fp1 = curve_point_fp(c, at + 1);
    if (!(fp0 > 0.0 && fp1 > fp0 && fp0 < 1.0))
        return at;
    double steps = (log(error) - log(fp0)) / (log(fp1) - log(fp0));
    return curve_index(floor((double)at + steps));
}

/* max_load on the curve: the grid point that meets `error` below one
 * that does not, bracketed from the guess at `start` by doubling steps
 * and bisected, then the load in between where the curve reaches `error`
 * (0 if none above 2^-20; the highest grid point if every one meets it). */
static double curve_max_load(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                             double error, double start)
{
    model_curve *c = curve_of(k, l, b, unit_bits);
    int lo = curve_guess(c, error, floor(log2(start) * CURVE_STEPS));
    int hi, step = 1;
    if (curve_point_fp(c, lo) > error) {
        do {
            hi = lo;
            if (lo == CURVE_LOWEST)
                return 0.0;
            lo = hi - step < CURVE_LOWEST ? CURVE_LOWEST : hi - step;
            step *= 2;
        } while (curve_point_fp(c, lo) > error);
    } else {
        for (hi = lo + 1; curve_point_fp(c, hi) <= error; step *= 2) {
            lo = hi;
            if (lo >= CURVE_HIGHEST)
                return exp2((double)lo / CURVE_STEPS);
            hi = lo + step > CURVE_HIGHEST ? CURVE_HIGHEST : lo + step;
        }
    }
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (curve_point_fp(c, mid) <= error)
            lo = mid;
        else
            hi = mid;
    }
    double fp0 = curve_point_fp(c, lo), fp1 = curve_point_fp(c, hi), t = 0.0;
    if (fp0 > 0.0 && fp1 > fp0)
        t = (log(error) - log(fp0)) / (log(fp1) - log(fp0));
    else if (fp1 > fp0)
        t = (error - fp0) / (fp1 - fp0);
    t = t < 0.0 ? 0.0 : t > 1.0 ? 1.0 : t;
    /* the answer must meet the error as curve_fp reads it back: rounding
     * of log2 and exp2 may land a hair above */
    for (int tries = 0; tries < 64 && t > 0.0; tries++) {
        double lambda = exp2(((double)lo + t) / CURVE_STEPS);
        if (curve_fp(k, l, b, unit_bits, lambda) <= error)
            return lambda;
        t -= 1e-9 + t * 1e-9;
    }
    return exp2((double)lo / CURVE_STEPS);
}

double tdbf_line_model_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                          uint64_t units, uint64_t generation)
{
    return curve_fp(k, l, b, unit_bits, (double)generation / (double)units);
}

double tdbf_apbf_line_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                         uint64_t units, uint64_t generation)
{
    if (!shape_ok(k, l, b, unit_bits) || units < 1 || generation < 1)
        return -1.0;
    return tdbf_line_model_fp(k, l, b, unit_bits, units, generation);
}

/* ---- planning ------------------------------------------------------------
 *
 * The FP of a shape (k, l, b, U) depends on the window only through the
 * load lambda = g / units, so a shape's cost is U / (lambda* l) bits per
 * window item, lambda* the largest load meeting the error.  The shapes:
 * W = 16, 32 or 64 (F = U / W fields, l = F - k, or F - 1 - k with a
 * spare), k = 1 .. 8, b = 1 .. 4; lambda* by bisection on log lambda with the model on 256
 * simulated units (the same draws at every point, so costs compare
 * smoothly); then the cheapest shape's lambda* on the full 4096-unit
 * model's curve, and units = ceil(g / lambda*) (size_shape).  The search
 * takes ~40 ms (most shapes are ruled out by one evaluation: cannot_win)
 * and is kept per thread (cached_shape), as are the curve's points; a
 * plan is then ~0.1 ms. */

enum { SEARCH_SAMPLES = 256, SEARCH_STEPS = 7 };

/* The search's largest load meeting `error` on SEARCH_SAMPLES simulated
 * units (0 if none above 2^-20), bracketed from `start` (a neighbouring
 * shape's answer) by doubling or halving, then SEARCH_STEPS bisections of
 * log load: the bracket's ratio ends at 2^(2^-SEARCH_STEPS).  The model's
 * FP rises with the load (every sampled unit's loads do, with the same
 * uniforms), so any load below the answer meets the error too.  (Sizing
 * on the full model solves on its curve instead: curve_max_load.) */
static double max_load(unsigned k, unsigned l, unsigned b, unsigned unit_bits, double error,
                       double start)
{
    const unsigned samples = SEARCH_SAMPLES;
    double lo = start, hi;
    if (load_fp(k, l, b, unit_bits, lo, samples) > error) {
        do {
            hi = lo;
            lo /= 2.0;
            if (lo < 0x1p-20)
                return 0.0;
        } while (load_fp(k, l, b, unit_bits, lo, samples) > error);
    } else {
        hi = 2.0 * lo;
        while (load_fp(k, l, b, unit_bits, hi, samples) <= error) {
            lo = hi;
            hi *= 2.0;
            if (hi > MODEL_MAX_LOAD)
                return lo;
        }
    }
    for (int step = 0; step < SEARCH_STEPS; step++) {
        double mid = sqrt(lo * hi);
        if (load_fp(k, l, b, unit_bits, mid, samples) <= error)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

double tdbf_line_load_for(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                          double error, double start)
{
    if (!shape_ok(k, l, b, unit_bits) || !(error > 0.0) || !(start > 0.0))
        return 0.0;
    return curve_max_load(k, l, b, unit_bits, error, start);
}

/* A plan's shape and size fields (fill_plan adds the model's FP). */
void tdbf_line_fill_shape(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                          uint64_t units, uint64_t g, tdbf_line_plan *out)
{
    out->k = k;
    out->l = l;
    out->b = b;
    out->unit_bits = unit_bits;
    out->fields = fields_of(k, l, unit_bits);
    out->field_bits = unit_bits / out->fields;
    out->units = units;
    out->generation = g;
    out->window = window_of(l, g);
    out->bytes = units * (unit_bits / 8);
    out->bits_per_item = 8.0 * (double)out->bytes / (double)out->window;
}

static void fill_plan(unsigned k, unsigned l, unsigned b, unsigned unit_bits, uint64_t units,
                      uint64_t g, tdbf_line_plan *out)
{
    tdbf_line_fill_shape(k, l, b, unit_bits, units, g, out);
    out->fp = tdbf_line_model_fp(k, l, b, unit_bits, units, g);
}

/* Size (k, l, b) for a window: units = ceil(g / lambda*), lambda* the
 * shape's largest load meeting the error on the full model's curve (its
 * FP is a function of g / units alone), where the curve reaches the error:
 * the fewest units.  A rounding of g / units above lambda* is caught by
 * evaluating the plan itself. */
static int size_shape(unsigned k, unsigned l, unsigned b, unsigned unit_bits, uint64_t window,
                      double error, uint64_t most, double lambda, tdbf_line_plan *out)
{
    uint64_t g = window / l + (window % l != 0);
    if (lambda <= 0.0)
        return TDBF_EINFEASIBLE;
    double need = ceil((double)g / lambda);
    if (need > (double)most)
        return TDBF_ETOOBIG;
    uint64_t units = need < 1.0 ? 1 : (uint64_t)need;
    fill_plan(k, l, b, unit_bits, units, g, out);
    while (out->fp > error) {
        if (units >= most)
            return TDBF_ETOOBIG;
        fill_plan(k, l, b, unit_bits, ++units, g, out);
    }
    return TDBF_OK;
}

/* The search (see above), for a shape request: k, l, b fixed or 0.  A
 * shape's cost depends on the error and the unit alone, not the window,
 * so the answer is kept: a few recent searches per thread (a planner
 * call is then the final sizing only, ~0.1 ms instead of ~40 ms). */
typedef struct shape_request {
    double   error;
    unsigned unit_bits, k, l, b;
    unsigned spare;          /* 1: shapes with a spare field only */
} shape_request;

typedef struct shape_answer {
    shape_request request;
    unsigned      k, l, b;
    double        lambda;    /* the shape's largest load on the full model */
    int           rc;
} shape_answer;

/* A shape whose FP already misses the error at the load where its cost
 * would equal the least found so far cannot beat it: its largest load is
 * below that one (the FP rises with the load), so its cost above.  One
 * evaluation of the model instead of a bisection's ten: most shapes of a
 * search are decided so (the first plan of an error rate takes a third of
 * the instructions it did). */
static bool cannot_win(unsigned k, unsigned l, unsigned b, const shape_request *q, double least)
{
    if (least == INFINITY)
        return false;
    double even = (double)q->unit_bits / (least * (double)l);
    return load_fp(k, l, b, q->unit_bits, even, SEARCH_SAMPLES) > q->error;
}

/* The search ranks shapes on SEARCH_SAMPLES simulated units, whose noise
 * is a few % of a shape's cost: at error 0.01 / 1.1 in 64-byte units it
 * ranked (3, 5, 3) first, 4.4 % dearer on the full model than (2, 6, 4).
 * So the shapes within SEARCH_TIE of the least cost are kept as
 * finalists and decided on the full model's curve (curve_max_load). */
#define SEARCH_TIE 1.06
enum { SEARCH_FINALISTS = 8 };

typedef struct finalist {
    unsigned k, l, b;
    double   cost;           /* bits per window item on the search's model */
    double   lambda;         /* the search's largest load */
} finalist;

/* Keep shape f among the finalists (replacing the dearest if full). */
static void keep_finalist(finalist *list, unsigned *count, finalist f)
{
    if (*count < SEARCH_FINALISTS) {
        list[(*count)++] = f;
        return;
    }
    unsigned dearest = 0;
    for (unsigned i = 1; i < *count; i++)
        if (list[i].cost > list[dearest].cost)
            dearest = i;
    if (f.cost < list[dearest].cost)
        list[dearest] = f;
}

/* The finalist of least cost on the full model. */
static void decide_finalists(const shape_request *q, const finalist *list, unsigned count,
                             double least, unsigned *k_out, unsigned *l_out, unsigned *b_out)
{
    double best = INFINITY;
    for (unsigned i = 0; i < count; i++) {
        const finalist *f = &list[i];
        if (f->cost > least * SEARCH_TIE)
            continue;
        double lambda = curve_max_load(f->k, f->l, f->b, q->unit_bits, q->error, f->lambda);
        double cost = lambda > 0.0 ? (double)q->unit_bits / (lambda * (double)f->l) : INFINITY;
        if (cost < best) {
            best = cost;
            *k_out = f->k;
            *l_out = f->l;
            *b_out = f->b;
        }
    }
}

static int search_shape(const shape_request *q, unsigned *k_out, unsigned *l_out, unsigned *b_out)
{
    finalist finalists[SEARCH_FINALISTS];
    unsigned count = 0;
    double least = INFINITY, start = 1.0;
    unsigned b_lo = q->b ? q->b : 1, b_hi = q->b ? q->b : LINE_MAX_B;
    /* Widest fields first: they hold the least-memory shape at most errors,
     * so `least` is small early and cannot_win rules out most of the rest
     * (the first plan of 0.01: 295 M -> 182 M instructions). */
    for (unsigned width = 64; width >= LINE_MIN_FIELD_BITS; width /= 2) {
        unsigned fields = q->unit_bits / width;
        if (fields > LINE_MAX_FIELDS || (q->k && fields_of(q->k, q->l, q->unit_bits) != fields))
            continue;
        /* 16-bit fields: 32 or 64 per unit, 2-4x the model's work per
         * shape, and never the least memory from 10^-1 to 10^-5 (their
         * loads per field are too small for b bits to pay); searched
         * only when asked for by k and l. */
        if (width == 16 && !q->k)
            continue;
        for (unsigned k = q->k ? q->k : 1; k <= (q->k ? q->k : 8); k++) {
            if (k + 1 + q->spare > fields)
                break;
            unsigned l = fields - q->spare - k;
            for (unsigned b = b_lo; b <= b_hi; b++) {
                if (cannot_win(k, l, b, q, least * SEARCH_TIE))
                    continue;
                double lambda = max_load(k, l, b, q->unit_bits, q->error, start);
                if (lambda <= 0.0)
                    continue;
                start = lambda;
                double cost = (double)q->unit_bits / (lambda * (double)l);
                if (cost <= least * SEARCH_TIE)
                    keep_finalist(finalists, &count, (finalist){k, l, b, cost, lambda});
                if (cost < least)
                    least = cost;
            }
        }
    }
    if (least == INFINITY)
        return TDBF_EINFEASIBLE;
    decide_finalists(q, finalists, count, least, k_out, l_out, b_out);
    return TDBF_OK;
}

/* The shape for a request (searched unless k, l and b are all given)
 * and its lambda*, from the cache when this thread asked before. */
static shape_answer cached_shape(const shape_request *q)
{
    static _Thread_local TDBF_MEMO(shape_answer, 8) memo;
    shape_answer *a = TDBF_MEMO_FIND(&memo, q);
    if (a)
        return *a;
    a = TDBF_MEMO_TAKE(&memo, q);
    a->k = q->k;
    a->l = q->l;
    a->b = q->b;
    a->rc = !q->k || !q->b ? search_shape(q, &a->k, &a->l, &a->b) : TDBF_OK;
    if (a->rc == TDBF_OK) {
        double rough = max_load(a->k, a->l, a->b, q->unit_bits, q->error, 1.0);
        a->lambda = curve_max_load(a->k, a->l, a->b, q->unit_bits, q->error,
                                   rough > 0.0 ? rough : 1.0);
    }
    return *a;
}

/* The checks of tdbf_plan_apbf_line that do not concern the window; fills
 * the shape request and the unit budget. */
static int line_request(const tdbf_config *cfg, unsigned spare, shape_request *q,
                        uint64_t *most)
{
    if (!(cfg->error > 0.0 && cfg->error < 1.0))
        return TDBF_EERROR;
    if ((cfg->k == 0) != (cfg->l == 0) || cfg->block_hashes > LINE_MAX_B ||
        !unit_ok(cfg->unit_bits) ||
        (cfg->k && (cfg->k > TDBF_MAX_K || cfg->l >= LINE_MAX_FIELDS ||
                    cfg->k + cfg->l + 1 > LINE_MAX_FIELDS)))
        return TDBF_EPARAM;
    uint64_t max_memory = cfg->max_memory ? cfg->max_memory : TDBF_DEFAULT_MAX_MEMORY;
    unsigned unit_bits = cfg->unit_bits;
    *most = max_memory / (unit_bits / 8);
    if (*most > (UINT64_C(1) << 40))
        *most = UINT64_C(1) << 40;
    if (*most < 1)
        return TDBF_ETOOBIG;
    if (cfg->k && (!shape_ok(cfg->k, cfg->l, cfg->block_hashes ? cfg->block_hashes : 1,
                             unit_bits) ||
                   (spare && layout_spare(cfg->k, cfg->l, unit_bits) != 1)))
        return TDBF_EPARAM;
    memset(q, 0, sizeof *q);     /* padding too: the cache compares bytes */
    q->error = tdbf_line_planned_error(cfg->error);     /* the margin (ring.h) */
    q->unit_bits = unit_bits;
    q->k = cfg->k;
    q->l = cfg->l;
    q->b = cfg->block_hashes;
    q->spare = spare;
    return TDBF_OK;
}

/* Size the shape for `window` (l g >= window) in units of cfg->unit_bits;
 * `spare`: a layout with a spare field (concurrent adds, rings shifted by
 * their owner). */
static int plan_unit(const tdbf_config *cfg, uint64_t window, unsigned spare,
                     tdbf_line_plan *out)
{
    shape_request q;
    uint64_t most;
    int rc = line_request(cfg, spare, &q, &most);
    if (rc != TDBF_OK)
        return rc;
    shape_answer a = cached_shape(&q);
    if (a.rc != TDBF_OK)
        return a.rc;
    if (window == 0) {          /* one generation of cfg->capacity keys */
        uint64_t g = cfg->capacity ? cfg->capacity : 1;
        window = g > UINT64_MAX / a.l ? UINT64_MAX : g * a.l;
    }
    return size_shape(a.k, a.l, a.b, q.unit_bits, window, q.error, most, a.lambda, out);
}

/* cfg->unit_bits 0: the unit is the planner's choice.  A 64-byte unit is
 * one cache line per operation, a 128-byte unit two; at a window whose
 * units miss the caches, an operation's cost is its misses and the
 * 128-byte unit's second line is not free (measured at 3 10^7 keys,
 * error 0.01, AVX-512, one process: insert 118 ns vs 150-165, query 75 vs
 * 121-135).  The 128-byte unit holds more fields, so it needs less memory
 * at small errors (0.001: 30.2 bits per key vs 33.5); at 0.01 the two are
 * within 1 %.  So the one-line unit, unless it needs more than
 * LINE_ONE_LINE_SLACK times the pair's memory. */
#define LINE_ONE_LINE_SLACK 1.05

static int plan_window(const tdbf_config *cfg, uint64_t window, unsigned spare,
                       tdbf_line_plan *out)
{
    unsigned unit_bits;
    int rc = tdbf_config_field(cfg->unit_bits, cfg->block_bits, &unit_bits);
    if (rc != TDBF_OK)
        return rc;
    tdbf_config one = *cfg, pair = *cfg;
    one.block_bits = pair.block_bits = 0;    /* the alias, read above */
    if (unit_bits) {
        one.unit_bits = unit_bits;
        return plan_unit(&one, window, spare, out);
    }
    one.unit_bits = 512;
    pair.unit_bits = 1024;
    tdbf_line_plan by_line, by_pair;
    int rc_line = plan_unit(&one, window, spare, &by_line);
    int rc_pair = plan_unit(&pair, window, spare, &by_pair);
    if (rc_line == TDBF_OK &&
        (rc_pair != TDBF_OK || (double)by_line.bytes <= LINE_ONE_LINE_SLACK * (double)by_pair.bytes)) {
        *out = by_line;
        return TDBF_OK;
    }
    *out = by_pair;
    return rc_pair;
}

int tdbf_plan_apbf_line(const tdbf_config *cfg, tdbf_line_plan *out)
{
    if (!cfg || !out)
        return TDBF_EINVAL;
    if (!(cfg->error > 0.0 && cfg->error < 1.0))
        return TDBF_EERROR;
    if (cfg->window_items == 0 || cfg->window_ns != 0)
        return TDBF_EWINDOW;
    return plan_window(cfg, cfg->window_items, cfg->concurrent ? 1 : 0, out);
}

int tdbf_line_plan_ring(const tdbf_config *cfg, uint64_t window, tdbf_line_plan *out)
{
    return plan_window(cfg, window ? window : 1, 1, out);
}
