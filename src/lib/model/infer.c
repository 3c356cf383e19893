/*
 * infer.c — inferential queries: the posterior probability that a key is
 * inside the window, its expected insertion age, and minimum-penalty
 * answers, for the TBF and BTBF (tbf.c).  The APBF and APBBF answer the
 * same questions in infer_apbf.c with this file's prior (p_x, D(j)).
 *
 * Dautrich & Ravishankar, "Inferential Time-Decaying Bloom Filters"
 * (paper 002), sections 2 and 4.
 *
 * The question.  I_x is the number of insertions since key x was last
 * added (Definition 1).  A standard query answers "I_x < w?" with yes or
 * no; an inferential one returns P(I_x < w | R_x), where R_x is what x's
 * cells hold, by Bayes' rule (eq 2) summed over the ages (eq 10):
 *
 *     P(I_x < w | R_x) = 1 - sum_{i>=w} P(i) P(R_x|i) / sum_{i>=0} P(i) P(R_x|i)
 *
 * The prior.  Keys arrive independently, x with time-invariant probability
 * p_x, on a stream long enough that x has almost surely appeared (eq 4):
 * P(i) = p_x (1 - p_x)^i.  Write q = 1 - p_x; q^n is computed as
 * exp(n log1p(-p_x)) and 1 - q^n as -expm1(n log1p(-p_x)), so small p_x
 * keep their digits.  The likelihoods need D(j), the expected number of
 * distinct keys among j insertions (eq 15), through differences
 * D(a + n) - D(a) = sum_x q_x^a (1 - q_x^n) (the keys among n insertions
 * not seen in the a before them), computed as such:
 *
 *     UNIFORM    D(j) = |U| (1 - (1 - 1/|U|)^j)                     (eq 16)
 *     POWER_LAW  p_x = x^-s / H(|U|, s).  For s = 1 the sum over ranks
 *                above 8 is replaced by its continuum, whose closed form
 *                is [x (1 - e^(-c/x))] + c E1(c/x) between the limits,
 *                c = j/H (E1: the exponential integral); eq 17 is its
 *                expansion for small j/(|U| H), and measured against the
 *                direct sum it is off by +15% at j = 2 and -16% at
 *                j = 0.48 |U| H (|U| = 20000), while this form stays
 *                within 5e-4.  Other s: the 64 most frequent keys exactly,
 *                the rest by Simpson's rule over ln x (within 3e-6).
 *     SAMPLED    D measured at j_1 < j_2 < ...; between samples, straight
 *                lines on a log-log plot (eq 18); (1, 1) is an implicit
 *                first sample; past the last, the last slope continues.
 *
 * What the cells say (section 4).  lambda_x is the oldest age among x's
 * r_x distinct cells (eq 19; "infinite" if one is expired), C_x the c_x
 * cells that show it (eq 20); only those can still hold x's own stamp.
 * u(j) = (1 - 1/m)^(k D(j)) is the probability that a cell escaped j
 * insertions (eq 21's building block), b the insertions since T_+
 * advanced, L = ceil((w - b)/B), and a = (lambda_x - 1) B + b the
 * insertions since the block of stamp T_x ended.  P(R_x | i) is piecewise
 * constant in i, so the sums are geometric series (eq 5):
 *
 *   lambda_x > L or expired   P = 0                        (Theorem 2)
 *   lambda_x = 0              P(R|i) = 1 for i < b, then F(r_x, 0, b) =
 *                             (1 - u(b))^r_x (eq 22):
 *                             P = 1 - q^w / ((1 - q^b)/F(r_x,0,b) + q^b)   (eq 23)
 *   0 < lambda_x <= L         P(R|i) = 0 for i < a; for a <= i < a + B
 *                             (x's add stamped T_x) the chance that the c_x
 *                             cells escaped the a insertions since and the
 *                             others did not; for i >= a + B (x older) the
 *                             same times rho, the chance that the c_x cells
 *                             were stamped T_x by other keys (eq 24):
 *       lambda_x < L          P = 1 - q^(w-a) / ((1 - q^B)/rho + q^B)     (eq 26)
 *       lambda_x = L          P = (1 - q^(w-a)) / (1 - q^B (1 - rho))     (eq 27)
 *
 * rho, refined.  Eq 25 takes the two events of G as independent:
 * rho = F(c_x, 0, B) = (1 - u(B))^c_x.  But "touched in block T_x, then
 * untouched for a insertions" is one event whose probability per cell is
 * u(a) - u(a + B), so per cell rho = 1 - u(a + B)/u(a), i.e.
 *
 *     rho = (1 - (1 - 1/m)^(k (D(a + B) - D(a))))^c_x
 *
 * which is eq 25 when D is additive (a stream of distinct keys) and much
 * smaller when keys repeat: a cell that has stayed untouched for long is
 * likely one few keys share, so its stamp is more likely x's own.  On the
 * paper's uniform stream (|U| = w = 2^16, BTBF k = 2, 4-bit timers, 6
 * bits/item) eq 25 as printed gives a posterior error (eq 28) of 0.048,
 * the paper's own figure, but bins off by up to 0.20 (0.67 of the queries
 * with P in [0.45, 0.5) were inside); the refined rho gives 0.015, every
 * bin within 0.012 of its midpoint.
 *
 * The expected age (eq 8; the paper does not derive it).  Every case is a
 * geometric prior over i >= a with a likelihood of 1 on a first stretch
 * a <= i < a + len and rho after it (relative to that stretch):
 * lambda_x = 0: a = 0, len = b, rho = F(r_x, 0, b); 0 < lambda_x <= L:
 * len = B and rho as above.  With Q = q/p, sum_{i>=a} p q^i = q^a and
 * sum_{i>=a} i p q^i = q^a (a + Q); splitting at a + len,
 *
 *     E[I_x | R_x] = a + Q - (1 - rho) q^len len / (1 - (1 - rho) q^len)
 *
 * (rho = 1: a + Q, the memoryless tail; rho = 0: the mean of a truncated
 * geometric over the stretch).  When lambda_x > L or a cell is expired,
 * I_x >= a = (lambda_x - 1) B + b is all the cells prove (for an expired
 * cell lambda_x >= ceil(w/B) + 1, the age the scan expires at) and the
 * likelihood is taken as flat beyond: E = a + Q.
 *
 * Decisions (section 2.6).  Answering "present" costs $FP (1 - P) in
 * expectation, "absent" $FN P: tdbf_decide answers present iff
 * $FP (1 - P) < $FN P.
 *
 * Cost and caching.  The paper caches (1 - 1/m)^k and the O(k) values
 * F(c, 0, B) (section 4.4).  Here the filter caches k ln(1 - 1/m) at open
 * (tdbf_timer_view.log_untouched); rho depends on the caller's prior
 * (which comes with each call) and, refined, on the age, so a query
 * computes the one value it needs.  Measured per tdbf_posterior (k = 2,
 * loaded 2-core machine): 0.2-0.3 us uniform, 0.5-1.1 us Zipf s = 1,
 * ~12 us for other exponents (the quadrature), vs 0.02-0.03 us for
 * tdbf_contains.
 *
 * Measured (tests/unit/test_infer.c, query-then-insert as in section
 * 5.1.1, penalties uniform in [1, 10) per query): every one of the 20
 * posterior bins within 0.025 of its midpoint on the uniform and the
 * power-law streams; the total penalty of minimum-penalty answers is
 * 1/1.17 to 1/1.55 of the standard answers' (uniform) and 1/3.9 (power
 * law, w = 2^11) to 1/1.57 (w = 2^18).
 */
#include <math.h>
#include <string.h>

#include "designs/ops.h"
#include "model/inference.h"

#define EULER_GAMMA 0.57721566490153286061
/* Keys summed term by term before the power-law tail is integrated. */
#define EXACT_TERMS 64
#define ZIPF_EXACT_TERMS 8
/* Simpson panels over ln x for the power-law tail (even). */
#define TAIL_PANELS 64

/* q^n and 1 - q^n for q = 1 - p (n = 0 exactly: also for p = 1). */
static double stay(double p, double n)
{
    return n == 0.0 ? 1.0 : exp(n * log1p(-p));
}

static double leave(double p, double n)
{
    return n == 0.0 ? 0.0 : -expm1(n * log1p(-p));
}

/* ======================================================================
 * Priors: validation, p_x, D(j)
 * ====================================================================== */

static int finite_at_least(double x, double low)
{
    return isfinite(x) && x >= low;
}

static double exponent_of(const tdbf_prior *prior)
{
    return prior->exponent == 0.0 ? 1.0 : prior->exponent;
}

static int sampled_ok(const tdbf_prior *prior)
{
    const double *j = prior->sample_inserts, *d = prior->sample_distinct;
    if (!j || !d || prior->samples == 0)
        return 0;
    for (size_t i = 0; i < prior->samples; i++) {
        if (!finite_at_least(j[i], 1.0) || !isfinite(d[i]) || !(d[i] > 0.0) || d[i] > j[i])
            return 0;
        if (i > 0 && (!(j[i] > j[i - 1]) || d[i] < d[i - 1]))
            return 0;
    }
    return 1;
}

static int prior_ok(const tdbf_prior *prior)
{
    if (!prior)
        return 0;
    switch (prior->model) {
    case TDBF_PRIOR_UNIFORM:
        return finite_at_least(prior->universe, 1.0);
    case TDBF_PRIOR_POWER_LAW:
        return finite_at_least(prior->universe, 1.0) &&
               finite_at_least(exponent_of(prior), 0.0) && exponent_of(prior) > 0.0;
    case TDBF_PRIOR_SAMPLED:
        return sampled_ok(prior);
    default:
        return 0;
    }
}

/* p_x of the queried key: given, or the uniform model's 1/|U|. */
int tdbf_prior_key_probability(const tdbf_prior *prior, double *p)
{
    if (!prior_ok(prior))
        return TDBF_EINVAL;
    double given = prior->key_probability;
    if (given == 0.0 && prior->model == TDBF_PRIOR_UNIFORM)
        given = 1.0 / prior->universe;
    if (!(given > 0.0 && given <= 1.0))
        return TDBF_EINVAL;
    *p = given;
    return TDBF_OK;
}

/* sum_{x=a}^{n} x^-s by Euler-Maclaurin (a >= 64: the error is ~1e-15). */
static double power_sum_tail(double a, double n, double s)
{
    if (n < a)
        return 0.0;
    double span = log(n / a), integral;
    if (fabs(1.0 - s) < 1e-12)
        integral = pow(a, 1.0 - s) * span;
    else
        integral = pow(a, 1.0 - s) * expm1((1.0 - s) * span) / (1.0 - s);
    return integral + (pow(a, -s) + pow(n, -s)) / 2.0 +
           s / 12.0 * (pow(a, -s - 1.0) - pow(n, -s - 1.0));
}

/* H(n, s) = sum_{x=1}^{n} x^-s. */
static double harmonic(double n, double s)
{
    double head = 0.0, x;
    if (s == 1.0 && n >= EXACT_TERMS) /* ln n + gamma + 1/2n - 1/12n^2 + 1/120n^4 */
        return log(n) + EULER_GAMMA + 1.0 / (2.0 * n) - 1.0 / (12.0 * n * n) +
               1.0 / (120.0 * n * n * n * n);
    for (x = 1.0; x <= n && x <= EXACT_TERMS; x++)
        head += pow(x, -s);
    return head + power_sum_tail(x, n, s);
}

/* (1 - p)^from (1 - (1 - p)^len) for the key of rank x: it occurs among
 * `len` insertions after `from` others in which it did not. */
static double fresh_term(double x, double s, double h, double from, double len)
{
    double p = pow(x, -s) / h;
    return stay(p, from) * leave(p, len);
}

/* The exponential integral E1(z) = int_z^inf e^-t / t dt, z > 0: its
 * power series below 1, its continued fraction
 * e^-z / (z + 1 - 1^2 / (z + 3 - 2^2 / (z + 5 - ...))) above (evaluated
 * front to back by Lentz's method). */
static double exp_integral(double z)
{
    if (z < 1.0) {
        double sum = 0.0, term = 1.0;
        for (int n = 1; n < 60; n++) {
            term *= -z / n;                 /* (-z)^n / n! */
            sum -= term / n;
            if (fabs(term / n) < 1e-17 * fabs(sum))
                break;
        }
        return -EULER_GAMMA - log(z) + sum;
    }
    const double tiny = 1e-300;
    double b = z + 1.0, c = 1.0 / tiny, d = 1.0 / b, value = d;
    for (int i = 1; i < 200; i++) {
        double an = -(double)i * i;
        b += 2.0;
        d = 1.0 / (an * d + b);
        c = b + an / c;
        value *= c * d;
        if (fabs(c * d - 1.0) < 1e-16)
            break;
    }
    return value * exp(-z);
}

/* int_lo^hi 1 - e^(-rate/x) dx (Zipf keys of rank lo .. hi seen among j
 * insertions, rate = j/H, as a continuum): by parts and t = rate/x,
 * [x (1 - e^(-rate/x))]_lo^hi + rate (E1(rate/hi) - E1(rate/lo)).  Its
 * expansion for small rate/hi, with lo = 0, is eq 17. */
static double zipf_continuum(double rate, double lo, double hi)
{
    if (rate <= 0.0)
        return 0.0;
    return hi * -expm1(-rate / hi) - lo * -expm1(-rate / lo) +
           rate * (exp_integral(rate / hi) - exp_integral(rate / lo));
}

/* sum_{x=1}^{n} fresh_term(x): exactly over the most frequent keys, then
 * as the integral over x - 1/2 .. n + 1/2 (the midpoint rule for a sum
 * over integers): in closed form for s = 1 (after ZIPF_EXACT_TERMS keys,
 * where p_x < 1%, e^(-j p) stands for (1 - p)^j), by Simpson's rule in
 * u = ln x otherwise. */
static double fresh_power(const tdbf_prior *prior, double from, double len)
{
    double n = floor(prior->universe), s = exponent_of(prior);
    double h = harmonic(n, s), total = 0.0, x;
    double exact = s == 1.0 ? ZIPF_EXACT_TERMS : EXACT_TERMS;
    for (x = 1.0; x <= n && x <= exact; x++)
        total += fresh_term(x, s, h, from, len);
    if (x > n)
        return total;
    if (s == 1.0)
        return total + zipf_continuum((from + len) / h, x - 0.5, n + 0.5) -
               zipf_continuum(from / h, x - 0.5, n + 0.5);
    double lo = log(x - 0.5), hi = log(n + 0.5), step = (hi - lo) / TAIL_PANELS;
    double tail = 0.0;
    for (int i = 0; i <= TAIL_PANELS; i++) {
        double at = exp(lo + step * i);
        double weight = (i == 0 || i == TAIL_PANELS) ? 1.0 : (i % 2 ? 4.0 : 2.0);
        tail += weight * fresh_term(at, s, h, from, len) * at;
    }
    return total + tail * step / 3.0;
}

/* Sample i of the table with the implicit (1, 1) in front when the first
 * sample is above j = 1. */
static void sample_point(const tdbf_prior *prior, size_t i, double *j, double *d)
{
    size_t shift = prior->sample_inserts[0] > 1.0;
    if (i < shift) {
        *j = 1.0;
        *d = 1.0;
        return;
    }
    *j = prior->sample_inserts[i - shift];
    *d = prior->sample_distinct[i - shift];
}

/* Eq 18 between the samples around j; past the last, its slope goes on. */
static double distinct_sampled(const tdbf_prior *prior, double j)
{
    size_t points = prior->samples + (prior->sample_inserts[0] > 1.0), hi = 1;
    double j1, d1, j3, d3;
    if (points == 1) {
        sample_point(prior, 0, &j1, &d1);
        return d1 * j < j ? d1 * j : j;
    }
    for (;;) {
        sample_point(prior, hi, &j3, &d3);
        if (j3 >= j || hi == points - 1)
            break;
        hi++;
    }
    sample_point(prior, hi - 1, &j1, &d1);
    double d = exp(log(d1) + log(d3 / d1) * log(j / j1) / log(j3 / j1));
    return d > j ? j : d;
}

/* D(from + len) - D(from): the distinct keys among `len` insertions that
 * did not occur in the `from` before them, for a valid prior.  D(j) is
 * tdbf_prior_fresh(prior, 0, j). */
double tdbf_prior_fresh(const tdbf_prior *prior, double from, double len)
{
    if (len <= 0.0)
        return 0.0;
    if (from + len <= 1.0)
        return len; /* D(0) = 0, D(1) = 1 under every model */
    switch (prior->model) {
    case TDBF_PRIOR_UNIFORM: {
        double p = 1.0 / prior->universe; /* eq 16, as a difference */
        return prior->universe * stay(p, from) * leave(p, len);
    }
    case TDBF_PRIOR_POWER_LAW:
        return fresh_power(prior, from, len);
    case TDBF_PRIOR_SAMPLED:
    default: {
        double d = distinct_sampled(prior, from + len) -
                   (from <= 1.0 ? from : distinct_sampled(prior, from));
        return d > 0.0 ? d : 0.0;
    }
    }
}

void tdbf_prior_init(tdbf_prior *prior, tdbf_prior_model model, double universe)
{
    if (!prior)
        return;
    memset(prior, 0, sizeof *prior);
    prior->model = model;
    prior->universe = universe;
    prior->exponent = 1.0;
}

double tdbf_prior_distinct(const tdbf_prior *prior, double inserts)
{
    if (!prior_ok(prior) || !finite_at_least(inserts, 0.0))
        return -1.0;
    return tdbf_prior_fresh(prior, 0.0, inserts);
}

double tdbf_prior_rank_probability(const tdbf_prior *prior, double rank)
{
    if (!prior_ok(prior) || prior->model == TDBF_PRIOR_SAMPLED ||
        !finite_at_least(rank, 1.0) || rank > floor(prior->universe))
        return -1.0;
    if (prior->model == TDBF_PRIOR_UNIFORM)
        return 1.0 / prior->universe;
    double s = exponent_of(prior);
    return pow(rank, -s) / harmonic(floor(prior->universe), s);
}

/* ======================================================================
 * The (B)TBF posterior and expected age
 * ====================================================================== */

/* E[I_x | R_x] for a geometric prior from a, likelihood 1 on a..a+len-1
 * and rho after (see the essay). */
double tdbf_geometric_age(double p, double a, double len, double rho)
{
    double q_len = stay(p, len);
    double den = leave(p, len) + rho * q_len; /* 1 - (1 - rho) q^len */
    double q_over_p = (1.0 - p) / p;
    if (!(den > 0.0))
        return a + q_over_p;
    return a + q_over_p - (1.0 - rho) * q_len * len / den;
}

static double clamp01(double x)
{
    return x > 1.0 ? 1.0 : x < 0.0 ? 0.0 : x;
}

int tdbf_timer_infer(const tdbf_timer_view *view, const tdbf_prior *prior,
                     tdbf_inference *out)
{
    double p;
    int rc = tdbf_prior_key_probability(prior, &p);
    if (rc != TDBF_OK)
        return rc;
    const double w = (double)view->window, block = (double)view->block;
    const double b = (double)view->block_fill;

    if (view->expired || view->age > view->live_age) {
        /* Theorem 2: some cell proves I_x >= w. */
        out->p_in_window = 0.0;
        out->expected_age = (double)(view->age - 1) * block + b + (1.0 - p) / p;
        return TDBF_OK;
    }
    if (view->age == 0) {
        if (view->block_fill == 0) {
            /* Stamps of age 0 before any insert of this block: cannot
             * happen (the scan retires cells before T_+ laps them). */
            out->p_in_window = 1.0;
            out->expected_age = 0.0;
            return TDBF_OK;
        }
        /* Lemma 1: every cell touched by the b inserts of this block. */
        double touched = -expm1(view->log_untouched * tdbf_prior_fresh(prior, 0.0, b));
        double f0 = pow(touched, (double)view->distinct); /* F(r_x, 0, b), eq 21 */
        double p_out = stay(p, w) / (leave(p, b) / f0 + stay(p, b)); /* eq 23 */
        out->p_in_window = clamp01(1.0 - p_out);
        out->expected_age = tdbf_geometric_age(p, 0.0, b, f0);
        return TDBF_OK;
    }
    /* Lemma 2: x's stamp, if any is left, is the oldest, in C_x. */
    double a = (double)(view->age - 1) * block + b;
    double touched = -expm1(view->log_untouched * tdbf_prior_fresh(prior, a, block));
    double rho = pow(touched, (double)view->oldest); /* G/F, eq 25 refined */
    double p_in;
    if (view->age < view->live_age)
        p_in = 1.0 - stay(p, w - a) / (leave(p, block) / rho + stay(p, block)); /* eq 26 */
    else
        p_in = leave(p, w - a) / (1.0 - stay(p, block) * (1.0 - rho)); /* eq 27 */
    out->p_in_window = clamp01(p_in);
    out->expected_age = tdbf_geometric_age(p, a, block, rho);
    return TDBF_OK;
}

/* ======================================================================
 * Public entry points
 * ====================================================================== */

/* Validate, hash the key, clamp the clock and dispatch, as filter.c does
 * for the core calls. */
static int infer(const tdbf *f, const void *key, size_t len, uint64_t now_ns,
                 const tdbf_prior *prior, tdbf_inference *out)
{
    if (!f || (!key && len) || !prior)
        return TDBF_EINVAL;
    if (!f->ops->infer)
        return TDBF_ENOTSUP;
    tdbf_key k = {.bytes = key, .len = len, .hash = tdbf_hash_key(f->seed, key, len)};
    return f->ops->infer(f, &k, now_ns > f->now_ns ? now_ns : f->now_ns, prior, out);
}

int tdbf_posterior(const tdbf *f, const void *key, size_t len, uint64_t now_ns,
                   const tdbf_prior *prior, double *p_in_window)
{
    tdbf_inference result;
    if (!p_in_window)
        return TDBF_EINVAL;
    int rc = infer(f, key, len, now_ns, prior, &result);
    if (rc == TDBF_OK)
        *p_in_window = result.p_in_window;
    return rc;
}

int tdbf_expected_age(const tdbf *f, const void *key, size_t len,
                      uint64_t now_ns, const tdbf_prior *prior, double *age)
{
    tdbf_inference result;
    if (!age)
        return TDBF_EINVAL;
    int rc = infer(f, key, len, now_ns, prior, &result);
    if (rc == TDBF_OK)
        *age = result.expected_age;
    return rc;
}

int tdbf_decide(const tdbf *f, const void *key, size_t len, uint64_t now_ns,
                const tdbf_prior *prior, double cost_fp, double cost_fn)
{
    tdbf_inference result;
    if (!finite_at_least(cost_fp, 0.0) || !finite_at_least(cost_fn, 0.0))
        return TDBF_EINVAL;
    int rc = infer(f, key, len, now_ns, prior, &result);
    if (rc != TDBF_OK)
        return rc;
    double p = result.p_in_window;
    return cost_fp * (1.0 - p) < cost_fn * p; /* section 2.6 */
}
