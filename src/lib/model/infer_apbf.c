/*
 * infer_apbf.c — inferential queries for the APBF and the APBBF: the
 * posterior probability that a key is inside the window, its expected
 * age, given which of its k+l slices match.
 *
 * Not in the papers: the question and the prior are those of Dautrich &
 * Ravishankar (paper 002, sections 2 and 4; infer.c), the structure that
 * of Shtul, Baquero & Almeida (paper 004, sections 5 and 6; apbf.c).  The
 * derivation, its assumptions and its measurements are in
 * docs/apbf_posterior.md; this is the short form.
 *
 * The evidence.  M_j = 1 iff logical slice s_j (j = 0 newest .. K-1,
 * K = k + l) has all the key's bits set: its one bit (APBF) or its b bits
 * in its block (APBBF).  Generation u (u = 0 the current one) received
 * n_u insertions: n_0 = the current fill, n_u = g for 1 <= u <= shifts,
 * 0 beyond (the filter did not exist).  Slice s_j received generations
 * max(0, j-k+1) .. j, N_j insertions in all, and an insertion in
 * generation u set slices s_u .. s_{u+k-1}.
 *
 * The prior (eq 4, as infer.c): I_x = i with probability p q^i, q = 1 -
 * p_x.  Ages a_u <= i < a_u + n_u, a_u = n_0 + .. + n_{u-1}, are band u:
 * the key's latest insertion was in generation u.  Ages >= a_K are the
 * tail: no generation still in a slice holds it.
 *
 * The likelihood of band u (H_u), with chance_j the probability that
 * other keys set the key's bits in s_j:
 *   - slices j < u hold only newer generations, so they match by chance:
 *     a factor chance_j if M_j = 1, 1 - chance_j if not;
 *   - slices u .. u+k-1 (those that exist) hold x: M_j must be 1;
 *   - slices j >= u + k hold only older generations, each of which holds
 *     x with probability pi_v = 1 - q^(n_v), independently (given the
 *     latest insertion, the earlier draws are still i.i.d.); a slice is
 *     covered when one of its k generations does, else matches by chance.
 *     This part is a chain over j whose state d = j - (the largest v <= j
 *     whose generation holds x) decides coverage (d < k); its backward
 *     recursion gives P(M_{u+1} .. M_{K-1} | generation u holds x) for
 *     every u in one O(K k) pass.
 * The tail's likelihood is the product of the chances alone.
 *
 * The chances.  A slice's other keys are D(N_j) - (1 - q^N_j) distinct
 * keys (D from the prior, eqs 15-18, as infer.c's u(j)); the key's bit is
 * set by one of them with probability 1 - (1 - 1/m)^D (APBF, m bits a
 * slice) or matches a block loaded Poisson(D / blocks) (APBBF,
 * plan_blocked.c).  The model's expected fill, not the slice's popcount:
 * a query reads K bits, not K m / 64 words.
 *
 * The answer.  Within a band the likelihood is constant, so the sums over
 * ages are geometric series: band u weighs q^(a_u) (1 - q^(n_u)) L_u, of
 * which the part below w = l g is q^(a_u) - q^min(a_u + n_u, w); the tail
 * q^(a_K) L_tail.  P(I_x < w | M) is the inside weight over the total;
 * E[I_x | M] the weights times each band's mean (tdbf_geometric_age with
 * rho = 0; the tail's a_K + q/p).  The window is w = l g, the filter's
 * guaranteed window (tdbf_stats.window_items); ages in l g .. l g + k g
 * are the slack, where slices s_{l+1} .. s_{K-1} still hold part of a
 * key, and the posterior weighs them as any other band.  Logarithms and a
 * per-step rescaling keep the products of up to K factors in range.
 *
 * Properties.  If the standard query says no, no band u <= l has all of
 * s_u .. s_{u+k-1} matching, and ages below w lie in those bands: the
 * posterior is 0 exactly (no false negatives, as the TBF's Theorem 2).
 * Cost: O(K k) arithmetic plus a D(N) per distinct N_j (at most k + 1).
 */
#include <math.h>

#include "model/run.h"
#include "model/inference.h"
#include "model/planning.h"

#define MAX_SLICES (TDBF_MAX_K + TDBF_MAX_L)
/* A chance of exactly 0 or 1 (bits the model cannot explain, as in a
 * crafted file, or a saturated APBBF segment) is kept inside [CHANCE_LOW,
 * CHANCE_HIGH], so that some band keeps weight. */
#define CHANCE_LOW  1e-300
#define CHANCE_HIGH (1.0 - 0x1p-53)

/* What the bands of ages need, in logs where products grow long. */
typedef struct bands {
    unsigned slices;                  /* K = k + l */
    double   p, log_q;                /* p_x, log(1 - p_x) */
    double   inserts[MAX_SLICES];     /* n_u */
    double   start[MAX_SLICES + 1];   /* a_u; start[K] = the tail's a_K */
    double   has[MAX_SLICES];         /* pi_u: generation u holds x */
    double   chance[MAX_SLICES];      /* P(M_j | s_j holds no x) */
    double   log_newer[MAX_SLICES + 1]; /* sum_{j<u} log chance[j] */
    double   log_older[MAX_SLICES];   /* log P(M_{u+1..K-1} | gen u holds x) */
    bool     match[MAX_SLICES];       /* M_j */
} bands;

/* q^n and 1 - q^n from log q (n = 0 exactly: also for p = 1). */
static double stay_log(double log_q, double n)
{
    return n == 0.0 ? 0.0 : n * log_q;
}

static double leave_of(double log_q, double n)
{
    return n == 0.0 ? 0.0 : -expm1(n * log_q);
}

static double inserts_of(const tdbf_slice_view *v, unsigned u)
{
    if (u == 0)
        return (double)v->generation_fill;
    return u <= v->shifts ? (double)v->generation : 0.0;
}

/* P(the key's bits in a slice of `inserts` insertions are set by other
 * keys). */
static double chance_match(const tdbf_slice_view *v, const tdbf_prior *prior,
                           const bands *b, double inserts)
{
    double others = tdbf_prior_fresh(prior, 0.0, inserts) - leave_of(b->log_q, inserts);
    double cells = (double)v->slice_cells, c;
    if (others < 0.0)
        others = 0.0;
    if (v->block_hashes == 0)
        c = -expm1(others * log1p(-1.0 / cells));
    else
        c = tdbf_apbbf_match_poisson(v->block_bits, v->block_hashes, others / cells);
    return c < CHANCE_LOW ? CHANCE_LOW : c > CHANCE_HIGH ? CHANCE_HIGH : c;
}

/* n_u, a_u, pi_u per generation; N_j and the chance of each slice (one D
 * per distinct N_j); the prefix sums of the newer slices' log chances. */
static void fill_bands(const tdbf_slice_view *v, const tdbf_prior *prior, bands *b)
{
    double start = 0.0, slice_inserts = 0.0, last_inserts = -1.0;
    double chance = 0.0, log_match = 0.0, log_miss = 0.0;
    for (unsigned u = 0; u < b->slices; u++) {
        b->inserts[u] = inserts_of(v, u);
        b->start[u] = start;
        start += b->inserts[u];
        /* n_u is the fill, g or 0: one 1 - q^g for the full ones */
        b->has[u] = u > 1 && b->inserts[u] == b->inserts[u - 1]
                        ? b->has[u - 1] : leave_of(b->log_q, b->inserts[u]);
    }
    b->start[b->slices] = start;
    b->log_newer[0] = 0.0;
    for (unsigned j = 0; j < b->slices; j++) {
        slice_inserts += b->inserts[j] - (j >= v->k ? b->inserts[j - v->k] : 0.0);
        if (slice_inserts != last_inserts) {
            chance = chance_match(v, prior, b, slice_inserts);
            log_match = log(chance);
            log_miss = log1p(-chance);
            last_inserts = slice_inserts;
        }
        b->chance[j] = b->match[j] ? chance : 1.0 - chance;
        b->log_newer[j + 1] = b->log_newer[j] + (b->match[j] ? log_match : log_miss);
    }
}

/* The backward recursion over the older slices.  beta[d] = P(M_{j+1} ..
 * M_{K-1} | state d at slice j), d = j - (the largest v <= j whose
 * generation holds x): slice j is covered while d < k.  From d = k-1 and
 * from d >= k the next state is "not covered" alike, so their betas are
 * equal and beta[k-1] stands for both.  Into slice j: generation j holds
 * x (d = 0, covered) with probability pi_j, else d grows: from d < k-1 to
 * d + 1 (still covered), from k-1 to "not covered".  Rescaled each step (the
 * true beta is beta * scale * e^log_scale); log_older[u] = log beta[0]
 * at slice u. */
static void older_evidence(const tdbf_slice_view *v, bands *b)
{
    unsigned k = v->k;
    double beta[TDBF_MAX_K], scale = 1.0, log_scale = 0.0;
    for (unsigned d = 0; d < k; d++)
        beta[d] = 1.0;
    b->log_older[b->slices - 1] = 0.0;
    for (unsigned j = b->slices - 1; j > 0; j--) {
        double covered = b->match[j] ? 1.0 : 0.0, stay = 1.0 - b->has[j];
        double restart = b->has[j] * covered * beta[0];
        double last = restart + stay * b->chance[j] * beta[k - 1], top = last;
        for (unsigned d = 0; d + 1 < k; d++) { /* beta[d + 1] still the old one */
            beta[d] = restart + stay * covered * beta[d + 1];
            top = beta[d] > top ? beta[d] : top;
        }
        beta[k - 1] = last;
        if (top == 0.0) { /* p_x = 1 and a slice without x: nothing fits */
            for (unsigned u = 0; u < j; u++)
                b->log_older[u] = -INFINITY;
            return;
        }
        for (unsigned d = 0; d < k; d++)
            beta[d] /= top;   /* not * (1 / top): top may be subnormal */
        scale *= top;
        if (scale < 1e-200) {
            log_scale += log(scale);
            scale = 1.0;
        }
        b->log_older[j - 1] = log(beta[0] * scale) + log_scale;
    }
}

/* Weight of band u (log; -INFINITY when impossible or empty). */
static double band_log_weight(const bands *b, unsigned u)
{
    if (b->inserts[u] == 0.0 || !b->match[u])
        return -INFINITY;
    return stay_log(b->log_q, b->start[u]) + log(b->has[u]) + b->log_newer[u] +
           b->log_older[u];
}

/* p_x = 1 (a universe of one key): every insertion is this key, so its
 * age is 0 with certainty — if the filter holds it.  The other keys' bits
 * in the slices contradict such a prior, and weighing the bands would
 * leave none possible (a posterior of 0 for a key the filter reports), so
 * take the limit p_x -> 1: the youngest band with k matching slices, which
 * Algorithm 1 finds exactly when the standard query says yes. */
static int certain_key(const tdbf_slice_view *v, const bands *b, tdbf_inference *out)
{
    for (unsigned u = 0; u <= v->l; u++) {
        unsigned run = 0;
        while (run < v->k && b->match[u + run])
            run++;
        if (run == v->k) {
            out->p_in_window = 1.0;
            out->expected_age = b->start[u];
            return TDBF_OK;
        }
    }
    out->p_in_window = 0.0;
    out->expected_age = b->start[b->slices];
    return TDBF_OK;
}

int tdbf_slice_infer(const tdbf_slice_view *view, const void *state,
                     tdbf_slice_test has, const tdbf_hash128 *h,
                     const tdbf_prior *prior, tdbf_inference *out)
{
    bands b;
    int rc = tdbf_prior_key_probability(prior, &b.p);
    if (rc != TDBF_OK)
        return rc;
    b.slices = view->k + view->l;
    b.log_q = log1p(-b.p);
    for (unsigned j = 0; j < b.slices; j++)
        b.match[j] = has(state, j, h);
    fill_bands(view, prior, &b);
    if (b.p == 1.0)
        return certain_key(view, &b, out);
    older_evidence(view, &b);

    double log_w[MAX_SLICES + 1], top;
    unsigned K = b.slices;
    for (unsigned u = 0; u < K; u++)
        log_w[u] = band_log_weight(&b, u);
    log_w[K] = stay_log(b.log_q, b.start[K]) + b.log_newer[K]; /* the tail */
    top = log_w[K];
    for (unsigned u = 0; u < K; u++)
        top = log_w[u] > top ? log_w[u] : top;
    if (top == -INFINITY) {
        /* No age fits the evidence (a crafted filter): nothing to weigh. */
        out->p_in_window = 0.0;
        out->expected_age = b.start[K];
        return TDBF_OK;
    }

    /* A band's mean age is a_u + (its mean from a_u), which depends on
     * n_u only: one value for the full generations. */
    double window = (double)view->l * (double)view->generation;
    double total = 0.0, inside = 0.0, age = 0.0, offset_n = -1.0, offset = 0.0;
    for (unsigned u = 0; u <= K; u++) {
        double weight = exp(log_w[u] - top), a = b.start[u];
        if (weight == 0.0)
            continue;
        double n = u < K ? b.inserts[u] : 0.0;
        total += weight;
        if (u < K && a < window)
            inside += a + n <= window ? weight
                                      : weight * leave_of(b.log_q, window - a) / b.has[u];
        if (u == K) /* the tail: geometric from a_K on */
            offset = tdbf_geometric_age(b.p, 0.0, 0.0, 1.0);
        else if (n != offset_n)
            offset = tdbf_geometric_age(b.p, 0.0, n, 0.0);
        offset_n = u < K ? n : -1.0;
        age += weight * (a + offset);
    }
    double p_in = inside / total;
    out->p_in_window = p_in > 1.0 ? 1.0 : p_in;
    out->expected_age = age / total;
    return TDBF_OK;
}
