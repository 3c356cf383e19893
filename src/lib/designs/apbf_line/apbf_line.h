/*
 * apbf_line.h — apbf-line's shapes, and what its planner gives the filter
 * (private; apbf_line.c and apbf_line_plan.c).
 *
 * A shape is (k, l, b, U): U = 512 or 1024 bits per unit, cut into
 * F = k + l (+ 1 spare) fields of W = U / F bits, W a power of two from
 * 16 to 64 (apbf_line.c's essay).
 */
#ifndef TDBF_APBF_LINE_H
#define TDBF_APBF_LINE_H

#include <stdbool.h>
#include <stdint.h>

#include "tdbf.h"
#include "designs/apbf_line/line.h"

enum {
    LINE_MAX_FIELDS = 64,                 /* 16-bit fields in 1024 bits */
    LINE_MIN_FIELD_BITS = 16
};

static inline bool unit_ok(unsigned unit_bits)
{
    return unit_bits == 512 || unit_bits == 1024;
}

/* F fields of W = U / F bits, W a power of two, 16 .. 64? */
static inline bool fields_ok(unsigned fields, unsigned unit_bits)
{
    if (fields > LINE_MAX_FIELDS || unit_bits % fields != 0)
        return false;
    unsigned width = unit_bits / fields;
    return width >= LINE_MIN_FIELD_BITS && width <= 64 && (width & (width - 1)) == 0;
}

/* The layout (k, l, U) implies: 1 if U / (k + l + 1) is a field width (a
 * spare), 0 if U / (k + l) is (rolling), -1 if neither.  Never both: F
 * and F + 1 are not both powers of two for F >= 3. */
static inline int layout_spare(unsigned k, unsigned l, unsigned unit_bits)
{
    return fields_ok(k + l + 1, unit_bits) ? 1 : fields_ok(k + l, unit_bits) ? 0 : -1;
}

static inline bool shape_ok(unsigned k, unsigned l, unsigned b, unsigned unit_bits)
{
    if (k < 1 || k > TDBF_MAX_K || l < 1 || l >= LINE_MAX_FIELDS || b < 1 || b > LINE_MAX_B ||
        !unit_ok(unit_bits))
        return false;                     /* (l first bounded: k + l + 1 cannot wrap) */
    return layout_spare(k, l, unit_bits) >= 0;
}

static inline unsigned fields_of(unsigned k, unsigned l, unsigned unit_bits)
{
    return k + l + (layout_spare(k, l, unit_bits) == 1);
}

/* The guaranteed window (apbf_line.c's essay). */
static inline uint64_t window_of(unsigned l, uint64_t g)
{
    return (uint64_t)l * g;
}

/* ---- the model and the planner (apbf_line_plan.c) ---- */

/* P(b uniform draws from `width` positions hit exactly d distinct ones),
 * into out[d], d = 1 .. b. */
void tdbf_line_distinct_positions(unsigned b, double width, double *out);
/* The model's FP of shape (k, l, b, U) with `units` units and generation
 * g, on its full sample of units. */
double tdbf_line_model_fp(unsigned k, unsigned l, unsigned b, unsigned unit_bits,
                          uint64_t units, uint64_t generation);

#endif
