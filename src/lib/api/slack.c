/*
 * slack.c — the expiry bound of every design: how long past its window a
 * key may still be reported.
 *
 * A sliding-window filter promises two things about a key's age a (adds,
 * or ns, since its latest add): a < window, the key is reported (no false
 * negative); a >= window + slack, it is reported only as a false
 * positive, at the planned rate.  Between the two it may still be
 * reported, with a probability that falls as it ages: that is the slack
 * (paper 004 section 5.2 for the APBF; the essays of the design files for
 * the others).  A user comparing a filter with an exact window sees those
 * keys as "wrongly" dropped; the bound tells them where to look.
 *
 *   design        slack beyond the window         why (design file)
 *   APBF, APBBF,  k g adds, g = window / l        a key's k slices (fields)
 *   APBF_LINE                                     leave one per generation
 *   TLBF          (k + 1) spans, span = T / l     its newest slice takes
 *                                                 adds k more generations
 *   TLBF_LINE     (k + l) spans - T               fields emptied at age k + l
 *   SQF, time     8 spans - T, span = ceil(T / 7) a key answers while at most
 *                                                 7 generations old
 *   CLOCK         (d + 1) L - T, L = ceil(T / d)  a key lives until d ticks
 *                                                 after its own have passed
 *   ROTATING      g = window / N adds; or         the filter a key is in
 *                 ceil(T / N) + 1 ns              lasts one more share
 *   TBF, BTBF     B - 1 adds (TBF: 0)             timestamps step per B adds
 *   EXACT         0                               it is the window
 *   BLOOM         no bound (UINT64_MAX)           it never forgets
 *   FPDECAY,      no bound (UINT64_MAX)           they forget at random: a
 *   STABLE                                        key's chance falls with age
 *
 * The TLBF's bound holds at a steady or growing rate; ROTATING's time
 * bound stretches when its growth cap is hit (its newest filter then
 * takes adds for longer than a span).
 */
#include "designs/ops.h"

static uint64_t mul_saturated(uint64_t a, uint64_t b)
{
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

/* The generation span of a time window cut into `parts` steps. */
static uint64_t span_of(uint64_t window_ns, uint64_t parts)
{
    return parts ? ceil_div(window_ns, parts) : window_ns;
}

/* Count window: adds past window_items; time window: ns past window_ns. */
static void set_slack(tdbf_shape *shape, uint64_t slack)
{
    if (shape->window_ns != 0)
        shape->slack_ns = slack;
    else
        shape->slack_items = slack;
}

void tdbf_shape_set_slack(tdbf_shape *shape, uint64_t step)
{
    uint64_t w = shape->window_items, t = shape->window_ns;
    unsigned k = shape->k, l = shape->l;
    shape->slack_items = 0;
    shape->slack_ns = 0;
    switch (shape->design) {
    case TDBF_APBF:
    case TDBF_APBBF:
    case TDBF_APBF_LINE:
        /* window = l g exactly (tdbf_stats.window_items) */
        set_slack(shape, l ? mul_saturated(k, w / l) : 0);
        break;
    case TDBF_SQF:
        if (t != 0) {
            uint64_t life = mul_saturated((uint64_t)l + 1, span_of(t, l));
            set_slack(shape, life == UINT64_MAX ? UINT64_MAX : life - t);
        } else {
            set_slack(shape, l ? mul_saturated(k, w / l) : 0);   /* as APBF's, k = 1 */
        }
        break;
    case TDBF_TLBF:
        set_slack(shape, mul_saturated((uint64_t)k + 1, span_of(t, l)));
        break;
    case TDBF_TLBF_LINE: {
        uint64_t life = mul_saturated((uint64_t)k + l, span_of(t, l));
        set_slack(shape, life == UINT64_MAX ? UINT64_MAX : life - t);
        break;
    }
    case TDBF_CLOCK: {
        uint64_t life = mul_saturated(step + 1, span_of(t, step));
        set_slack(shape, life == UINT64_MAX ? UINT64_MAX : life - t);
        break;
    }
    case TDBF_ROTATING:
        if (t != 0)
            set_slack(shape, span_of(t, step) + (step != 0 && t % step != 0));
        else
            set_slack(shape, step ? w / step : w);
        break;
    case TDBF_TBF:
    case TDBF_BTBF:
        set_slack(shape, step > 1 ? step - 1 : 0);
        break;
    case TDBF_BLOOM:
    case TDBF_FPDECAY:
    case TDBF_STABLE:
        set_slack(shape, UINT64_MAX);
        break;
    case TDBF_EXACT:
    default:
        break;
    }
}
