/*
 * decay.h — test helpers for the designs that forget at random (FPDECAY,
 * STABLE): the probability that a key added t adds ago still answers yes,
 * measured at several ages t in one running filter and compared with a
 * formula inside a binomial band.
 *
 * The measurement.  Keys 0, 1, 2, ... of one stream are added in order;
 * after key i is added, key i - t has seen exactly t later adds, so
 * querying it for every age t (once i >= the largest age) gives one
 * Bernoulli trial per age and step.  Trials at one age concern different
 * keys, hence different cells: they are nearly independent, and the count
 * of yes answers is compared with steps * p(t) +- DRV_Z999 standard
 * deviations of a binomial.  Queries never modify a filter, so measuring
 * does not disturb what is measured.  When trials are correlated within
 * one filter, measure several filters and use decay_curves_check.
 */
#ifndef TDBF_TEST_DECAY_H
#define TDBF_TEST_DECAY_H

#include "driver.h"

#define DECAY_MAX_AGES 16

typedef struct decay_curve {
    size_t   ages;                   /* how many ages (<= DECAY_MAX_AGES) */
    uint64_t age[DECAY_MAX_AGES];    /* t: later adds since the key's add */
    uint64_t steps;                  /* trials per age */
    uint64_t key_seed;               /* the key stream (space INSERT) */
    uint64_t yes[DECAY_MAX_AGES];    /* out: answers yes per age */
    uint64_t adds;                   /* out: keys added */
} decay_curve;

/* A configuration of `design` (FPDECAY or STABLE) with a count window,
 * error, survival target (0 = 1 - error) and seed; the rest default. */
tdbf_config decay_config(tdbf_design design, uint64_t window, double error,
                         double survival, uint64_t seed);

/* tdbf_plan_decay(cfg), failing the test on an error code. */
tdbf_decay_plan decay_plan(const tdbf_config *cfg);

/* Runs the generic driver (count window, false negatives allowed) on a
 * fresh filter of cfg: `inserts` keys (0 = 4 windows), in batches of
 * `batch` if > 1, 10^5 probes.  Checks that the keys it found forgotten
 * are no more than the edge rate 1 - plan.survival allows (the driver
 * checks ages up to the window, where forgetting is at most that), and
 * that the stats agree with the plan. */
void decay_driver_check(const char *label, const tdbf_config *cfg,
                        uint64_t inserts, size_t batch);

/* Runs the measurement on f (which should be fresh or already warm: the
 * stream continues from index c->adds, so a curve can be run twice). */
void decay_curve_run(tdbf *f, decay_curve *c);

/* Prints one line per age (measured rate, expected, band) and fails the
 * test if any age falls outside its band.  p_yes[a] is the model's
 * probability of a yes at age c->age[a]. */
void decay_curve_check(const char *label, const decay_curve *c,
                       const double *p_yes);

/* The same over `runs` curves measured on independent filters (other
 * seeds) with the same ages and steps: the band is Student's t at 99.9%
 * over the spread of the runs' rates, which stays honest when the trials
 * of one filter are correlated (STABLE: neighbouring cells share
 * decrement runs).  Certain outcomes (p 0 or 1) must be exact.
 * 2 <= runs <= 16. */
void decay_curves_check(const char *label, const decay_curve *curves,
                        size_t runs, const double *p_yes);

/* Two-sided 99.9% quantile of Student's t with df (1..15) degrees of
 * freedom. */
double decay_t999(size_t df);

/* Half-width of the 99.9% band of a count of `trials` Bernoulli(p)
 * trials, plus 1 for the integer count; 0 when p is 0 or 1 (certain
 * outcomes must be exact). */
double decay_count_band(double p, double trials);

#endif /* TDBF_TEST_DECAY_H */
