/*
 * tlbf_line_model.c — how big tlbf-line makes a ring, and a ring's FP
 * from its counts (the model: tlbf_line.c's essay).  Apart from
 * tlbf_line.c because it is arithmetic on the counts alone: tlbf_line.c
 * calls it, it calls nothing of tlbf_line.c's.
 */
#include <math.h>

#include "designs/tlbf_line/internal.h"

/* ---- sizing ---------------------------------------------------------- */

/* Units for g keys per generation at the home ring's load per unit (so
 * its model FP); at a lower load when fp asks for less than the home
 * ring's (a burst's later rings, tlbf_line.c's essay). */
static double units_for(const tlbf_line *t, uint64_t g, double fp)
{
    double home = (double)t->home_g / (double)t->home_units;
    double load = fp < t->fp_planned
                ? tdbf_line_load_for(t->k, t->l, t->b, t->unit_bits, fp, home) : home;
    if (load >= home)
        return ceil((double)g * (double)t->home_units / (double)t->home_g);
    return load > 0.0 ? ceil((double)g / load) : INFINITY;
}

/* The plan of a ring for g keys per generation whose FP at that load is
 * at most fp (at least the home ring's). */
int tdbf_tlbf_line_plan_ring(const tlbf_line *t, uint64_t g, double fp, tdbf_line_plan *out)
{
    if (g > (UINT64_C(1) << 50))
        return TDBF_ETOOBIG;
    double units = units_for(t, g, fp);
    if (!(units <= (double)(UINT64_C(1) << 40)))
        return TDBF_ETOOBIG;
    uint64_t whole = units < 1.0 ? 1 : (uint64_t)units;
    tdbf_line_fill_shape(t->k, t->l, t->b, t->unit_bits, whole, g, out);
    /* the model at the size chosen: what the ring keeps, and recomputes
     * from its size when loaded */
    out->fp = tdbf_apbf_line_fp(t->k, t->l, t->b, t->unit_bits, whole, g);
    return TDBF_OK;
}

/* Keys per generation for a ring that must take n (tlbf_line.c's essay). */
uint64_t tdbf_tlbf_line_sized_for(const tlbf_line *t, double n)
{
    double home = (double)t->home_g, g = 2.0 * n;
    if (n <= home + home / HOME_TOLERANCE && g > home)
        g = home;
    if (g < (double)t->min_g)
        g = (double)t->min_g;
    return g >= 0x1p62 ? UINT64_C(1) << 62 : (uint64_t)ceil(g);
}

/* ---- the FP from counts (tlbf_line.c's essay) ---------------------- */

/* E[(1 - q^X)^b], X ~ Poisson(load): a field of `load` keys per unit on
 * average covers a never-added key's b positions (bits independent). */
static double field_match(const tlbf_line *t, double load)
{
    double total = 0.0, choose = 1.0, q_i = 1.0;
    for (unsigned i = 0; i <= t->b; i++) {
        total += (i % 2 ? -choose : choose) * exp(-load * (1.0 - q_i));
        choose = choose * (double)(t->b - i) / (double)(i + 1);
        q_i *= t->miss_per_key;
    }
    return total > 0.0 ? total : 0.0;
}

/* Independent-field run probability over the first `ages` loads. */
static double loads_fp(const tlbf_line *t, const double *load, unsigned ages)
{
    double r[COUNTS];
    for (unsigned a = 0; a < ages; a++)
        r[a] = field_match(t, load[a]);
    return tdbf_line_run_probability(t->k, ages - t->k, r);
}

/* Mean keys per unit of the ring's fields, ages 0 .. ages-1: age a holds
 * generations G_r - a .. min(G_r, G_r - a + k - 1). */
static void slot_loads(const tlbf_line *t, const ring_slot *s, unsigned ages, double *load)
{
    unsigned newest = (unsigned)(s->generation % COUNTS);
    for (unsigned a = 0; a < ages; a++) {
        uint64_t keys = 0;
        for (unsigned j = 0; j <= a && j < t->k; j++)
            keys = saturating_add(keys, s->counts[(newest + COUNTS - a + j) % COUNTS]);
        load[a] = (double)keys / (double)s->units;
    }
}

/* A ring's FP at G from its counts, calibrated (and, retired, scaled to
 * what its bits hold); `all` ages instead of the ones still read gives
 * its FP as if it were current. */
double tdbf_tlbf_line_slot_fp(const tlbf_line *t, const ring_slot *s, uint64_t G, bool all)
{
    unsigned ages = all ? t->k + t->l : ages_read(t, s, G);
    if (ages == 0)
        return 0.0;
    double load[COUNTS];
    slot_loads(t, s, ages, load);
    return s->realized * s->calibration * loads_fp(t, load, ages);
}

/* q = (1 - 1/W)^b, W the bits of a field: what one key leaves unset of a
 * never-added key's positions in a field. */
void tdbf_tlbf_line_derive(tlbf_line *t)
{
    unsigned field_bits = t->unit_bits / (t->k + t->l + 1);
    t->miss_per_key = pow(1.0 - 1.0 / (double)field_bits, (double)t->b);
}

/* The ring's model FP over the independent estimate, both at its own
 * planned load just before a shift (age a holds min(a + 1, k)
 * generations of g keys): exact for a full ring, proportional below.
 * Per ring, because the ratio moves with the load (a burst's rings,
 * planned under the home ring's FP, measured 1.4-2x over the home ring's
 * ratio). */
double tdbf_tlbf_line_calibration(const tlbf_line *t, const ring_slot *s)
{
    double load[COUNTS], lambda = (double)s->g / (double)s->units;
    for (unsigned a = 0; a < t->k + t->l; a++)
        load[a] = lambda * (double)(a + 1 < t->k ? a + 1 : t->k);
    double independent = loads_fp(t, load, t->k + t->l);
    return independent > 0.0 ? s->fp / independent : 1.0;
}
