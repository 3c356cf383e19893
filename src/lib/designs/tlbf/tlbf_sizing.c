/*
 * tlbf_sizing.c — how the TLBF sizes its slices and generations: Eqs 4-7
 * with the fixes tlbf.c's essay gives.  Apart from tlbf.c because it only
 * reads the slices: tlbf.c calls it at each shift, it calls nothing of
 * tlbf.c's.
 */
#include <math.h>

#include "designs/tlbf/internal.h"
#include "model/planning.h"

/* ---- sizing ------------------------------------------------------------ */

/* Largest fill r <= 1/2 for full slices such that F over L slices (the k
 * inserting ones at their exact ramp 1 - (1-r)^((i+1)/k)) meets the error. */
double tdbf_tlbf_target_fill(const tlbf *t, unsigned slices)
{
    if (slices <= t->k + t->l)
        return 0.5;
    unsigned l = slices - t->k;
    double fills[TDBF_MAX_K + TDBF_MAX_L];
    double lo = 0.01, hi = 0.5;
    for (int iter = 0; iter < 30; iter++) {
        double r = 0.5 * (lo + hi);
        for (unsigned i = 0; i < slices; i++)
            fills[i] = i < t->k ? -expm1((double)(i + 1) / t->k * log1p(-r)) : r;
        if (tdbf_apbf_fp(t->k, l, fills) <= t->error)
            lo = r;
        else
            hi = r;
    }
    return lo;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* Eqs 4-5: inserts before one of s_0..s_{k-1} reaches its capacity. */
uint64_t tdbf_tlbf_generation_length(const tlbf *t)
{
    uint64_t g = UINT64_MAX;
    unsigned inserting = t->count < t->k ? t->count : t->k;
    for (unsigned i = 0; i < inserting; i++) {
        uint64_t left = ceil_div(room(at(t, i)), t->k - i);
        if (left < g)
            g = left;
    }
    return g == 0 || g == UINT64_MAX ? 1 : g;
}

/* Eq 7: capacity for the new s_0.  The current s_0..s_{k-2} become
 * s_1..s_{k-1}; new position j has k - j generations of inserts left.
 * Walk from i = k down: the slice that would run out first (least room
 * per remaining generation, after what the walk already committed) caps
 * those generations; once none caps below g*, the rest run at g*. */
uint64_t tdbf_tlbf_new_capacity(const tlbf *t, uint64_t g_target)
{
    uint64_t committed = 0;
    unsigned i = t->k;
    while (i > 1) {
        uint64_t q_min = UINT64_MAX;
        unsigned j_min = 0;
        for (unsigned j = i - 1; j >= 1; j--) {
            if (j - 1 >= t->count)
                continue;  /* no slice will be there */
            uint64_t left = room(at(t, j - 1));
            left = left > committed ? left - committed : 0;
            uint64_t q = ceil_div(left, i - j);
            if (q < q_min) {
                q_min = q;
                j_min = j;
            }
        }
        if (j_min == 0 || g_target <= q_min)
            break;
        committed += q_min * (i - j_min);
        i = j_min;
    }
    return committed + (uint64_t)i * g_target;
}

/* Eq 6 with the burst fix: the rate-derived target may at most quadruple
 * the generation just completed.  (Growing the previous *target* instead
 * lets it run away while old, small slices keep the real generations
 * short: a 20 000-key burst then sized a slice for 14 million keys.)
 * Measured on that burst (k=11, l=45, target 0.01): growth 2x gave 66
 * extra slices and FP 0.018; 4x 40 slices, FP 0.0146, 38 bits/key; 8x 31
 * slices, FP 0.013 but 64 bits/key. */
enum { BURST_GROWTH = 4 };

/* The rate over at least one span T/l, as a generation target: the
 * inserts after slice j's stamp over the time since, for the newest slice
 * j >= k stamped a span or more ago; 0 if no slice is that old.  Slice j
 * last took an insert in the generation of slice j-k+1, so the inserts
 * after its stamp are the generations of slices 0 .. j-k.
 *
 * Why: eq 6 reads the rate off the last generation alone.  When keys come
 * in batches at one timestamp (a clock with 1 s resolution, say), a
 * generation is a fragment of a batch: dt = 0, or a few keys over a whole
 * tick, and the target fed on itself down to slices of 100 bits; at 100
 * keys/s in 1 s batches the filter hit its 230-slice cap within 20 s and
 * FP went to 1 (tdbf eval tlbf-faults, "batches").  A rate over a span or
 * more is immune to how the keys are grouped inside it. */
static uint64_t span_target(const tlbf *t, uint64_t now_ns)
{
    uint64_t inserts = 0, target = 0;
    for (unsigned j = t->k; j < t->count; j++) {
        const slice *s = at(t, j);
        if (stale(t, s, now_ns))
            break;
        inserts += at(t, j - t->k)->generation;
        uint64_t dt = now_ns - s->stamp;
        if (dt >= t->span_ns)
            target = (uint64_t)ceil((double)inserts * (double)t->span_ns / (double)dt) + 1;
    }
    return target;
}

/* Inserts made at the instant now_ns, as far as the slices tell (called
 * when the generation just completed started at now_ns, dt = 0): that
 * generation, and each older one that also lay wholly at now_ns.  The
 * generation of slice i started after the last insert into slice i+k
 * (which left the k newest when slice i+1's generation ended), so it lay
 * at now_ns if that slice is stamped now_ns. */
static uint64_t instant_inserts(const tlbf *t, uint64_t now_ns)
{
    uint64_t inserts = at(t, 0)->generation;
    for (unsigned i = 1; i + t->k < t->count && at(t, i + t->k)->stamp == now_ns; i++)
        inserts += at(t, i)->generation;
    return inserts;
}

/* The capacity hint believed: while the live slices hold fewer keys than
 * the l home generations the hint promised a window (cfg.capacity), a
 * generation is sized for at most 1/k of the rest of the promise (and at
 * least home_g): a slice is sized for the k generations it takes inserts
 * in (Eq 7), so a burst that ends at the promise does not leave its last
 * slices sized for generations that never come.  It still grows as its
 * rate asks while far from the promise, so a burst past it starts its
 * growth from large slices.  Past the promise the rate rules alone.
 * Measured at 0.001, 10^6 keys at one instant with the hint 10^6: 29.7
 * bits per key, FP 0.0002 (46.9 sized from the rate alone; a steady load
 * takes 29.6); 10^5 and 2·10^6 keys on a hint of 2·10^4: FP 0.0006 and
 * 0.0008. */
static double believe_hint(const tlbf *t, uint64_t now_ns, double want)
{
    if (t->home_g == 0 || want <= (double)t->home_g)
        return want;
    uint64_t held = held_in(t, live_slices(t, now_ns));
    uint64_t promised = (uint64_t)t->l * t->home_g;
    if (held >= promised)
        return want;
    double rest = (double)(promised - held) / t->k;
    return fmin(want, fmax(rest, (double)t->home_g));
}

uint64_t tdbf_tlbf_next_target(const tlbf *t, uint64_t now_ns)
{
    uint64_t g = at(t, 0)->generation;
    uint64_t dt = now_ns - t->last_shift_ns;
    double steady = (double)span_target(t, now_ns);
    double limit = BURST_GROWTH * fmax((double)(g ? g : 1), steady);
    /* dt = 0: the whole last generation came at this instant.  More than
     * a span's worth at one instant is a burst (grow); up to that, a batch
     * of a stream that the steady rate describes. */
    double want = dt != 0 ? ceil((double)g * (double)t->span_ns / (double)dt) + 1.0
                : (double)instant_inserts(t, now_ns) > steady ? limit : steady;
    want = fmax(want, steady);
    if (want > limit)
        want = limit;
    want = believe_hint(t, now_ns, want);
    return want < 1.0 ? 1 : (uint64_t)want;
}
