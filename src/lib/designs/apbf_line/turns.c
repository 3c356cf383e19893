/*
 * apbf_line_turns.c — how an apbf-line ring moves on (private): the
 * placement of the fields an insert marks, the rolling turns, the spare's
 * sweep and the end of a generation.  apbf_line.c's essay describes both
 * layouts; this file is what its adds (and line_simd.c's, which inline
 * the common case and call here for the rest) share.
 */
#include <string.h>

#include "util/wide.h"
#include "designs/apbf_line/internal.h"

/* The ring's placement for the current head: the fields an insert marks
 * (ages 0 .. k-1, contiguous modulo F), at head and at head_turned; and
 * the field a rolling turn empties. */
void tdbf_line_place_ring(line_filter *t)
{
    unsigned per_word = 64 / t->field_bits;
    t->head_turned = t->head == 0 ? t->fields - 1 : t->head - 1;
    memset(t->set_mask, 0, sizeof t->set_mask);
    for (unsigned turned = 0; turned < 2; turned++) {
        unsigned head = head_of(t, turned);
        for (unsigned a = 0; a < t->k; a++) {
            unsigned p = physical_at(t, head, a);
            t->set_mask[turned][p / per_word] |= field_ones(t) << (p % per_word * t->field_bits);
        }
    }
    t->turn_word = field_word(t, t->head_turned);
    t->turn_keep = ~(field_ones(t) << field_shift(t, t->head_turned));
}

/* Rolling: the turns due by this fill, turned = floor(fill units / g),
 * kept without a division (the remainder is fill units mod g). */
void tdbf_line_set_turns(line_filter *t)
{
    if (t->spare) {
        t->turned = 0;
        t->turn_rest = 0;
        return;
    }
    /* min(fill, g) * units / g <= units: the quotient fits in 64 bits. */
    tdbf_u128 done = tdbf_mul_wide(t->fill < t->g ? t->fill : t->g, t->units);
    t->turned = tdbf_div_wide(done, t->g, &t->turn_rest);
}

/* Unit `index`'s turn: its oldest field (age k + l - 1, physical
 * head_turned) is emptied and becomes its age 0. */
static void take_turn(line_filter *t, uint64_t index)
{
    t->bits[index * t->unit_words + t->turn_word] &= t->turn_keep;
}

void tdbf_line_take_turns(line_filter *t)
{
    while (t->turn_rest >= t->g && t->turned < t->units) {
        t->turn_rest -= t->g;
        take_turn(t, t->turned++);
    }
}

int tdbf_line_turn_then_answer(line_filter *t, int present)
{
    tdbf_line_take_turns(t);
    return present;
}

void tdbf_line_clear_spare(line_filter *t, uint64_t from, uint64_t to)
{
    unsigned p = physical(t, t->k + t->l);
    uint64_t keep = ~(field_ones(t) << field_shift(t, p));
    uint64_t *word = t->bits + from * t->unit_words + field_word(t, p);
    for (uint64_t i = from; i < to; i++, word += t->unit_words)
        *word &= keep;
}

void tdbf_line_shift(line_filter *t)
{
    /* Normally a no-op: the sweep has emptied every spare by now, or
     * every unit has taken its turn. */
    if (t->spare)
        tdbf_line_clear_spare(t, sweep_position(t), t->units);
    else
        while (t->turned < t->units)
            take_turn(t, t->turned++);
    t->head = t->head_turned;
    t->fill = 0;
    t->turned = 0;
    t->turn_rest = 0;
    t->shifts++;
    tdbf_line_place_ring(t);
}

int tdbf_line_shift_then_add(tdbf *f, tdbf_hash128 h)
{
    tdbf_line_shift(f->impl);
    return f->add_hashed(f, h);
}
