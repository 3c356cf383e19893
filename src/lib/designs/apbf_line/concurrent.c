/*
 * concurrent.c — apbf-line's adds and queries when many threads
 * share one filter (cfg.concurrent).  Apart from apbf_line.c because they
 * are a mode of their own: apbf_line.c picks them (choose_mode) and keeps
 * the sequential path; both read the filter through internal.h.
 */
#include <stdint.h>

#include "designs/apbf_line/internal.h"

/* ---- many threads at once (cfg.concurrent) ---------------------------------
 *
 * One counter orders the adds: an add takes ticket v (atomic fetch-add;
 * v counts from the base's fill), and its generation, r = v / g after the
 * base, follows from it as the sequential filter's would (the shift is
 * the ticket that crosses a multiple of g), so nobody has to take the
 * shift: the ring's head for generation r is a function of r.  The add
 * reads its unit with atomic loads (into a copy the probe tests), sets its
 * bits in the fields of generation r with atomic ORs, and sweeps its share
 * of generation r's spare (fill * ceil(units / g) onward, as the
 * sequential sweep) with compare-and-swap.
 *
 * The one hazard is a late sweep: a thread stalled in generation r could
 * clear its share of the spare after generation r + 1 has begun writing
 * new keys into that very field.  So the sweep reads the tickets between
 * loading a word and swapping it: once a ticket of generation r + 1 has
 * been drawn it leaves the rest of its share alone (old bits stay: false
 * positives, never a false negative), and a swap fails if a new key's
 * bits arrived after the load.  (A new key's ticket is drawn before its
 * OR, so a sweep that sees the OR's bits sees the ticket.)
 *
 * A query reads the tickets once and tests the ring of the generation
 * they name.  Adds that finish during the query may move the ring on; the
 * query's answer is then the one it would have had at some point during
 * the call, and a key whose add had returned before the query began is in
 * its window at every such point as long as fewer than l g adds were
 * counted after its own (the guarantee of the sequential filter).
 *
 * The GNU __atomic builtins act on the plain words of the unit array, so
 * the sequential mode keeps its plain accesses (no atomics, no fences). */

/* The key's bits into the fields of ages 0 .. k-1 of the ring at head. */
static void mark_atomic(const line_filter *t, uint64_t *unit, const uint64_t *mask,
                        unsigned head)
{
    unsigned per_word = 64 / t->field_bits;
    for (unsigned a = 0; a < t->k; a++) {
        unsigned p = (head + a) % t->fields;
        unsigned w = p / per_word;
        uint64_t bits = mask[w] & field_ones(t) << (p % per_word * t->field_bits);
        __atomic_fetch_or(&unit[w], bits, __ATOMIC_RELEASE);
    }
}

/* Empty the spare of generation r in the share of the add with this fill,
 * unless generation r + 1 has begun (see above). */
static void sweep_atomic(line_filter *t, uint64_t r, uint64_t fill)
{
    uint64_t from = fill * t->sweep_per_add;      /* fill < g: no overflow */
    if (from >= t->units)
        return;
    uint64_t to = t->units - from < t->sweep_per_add ? t->units : from + t->sweep_per_add;
    unsigned p = (head_after(t, r) + t->fields - 1) % t->fields;
    uint64_t spare = field_ones(t) << field_shift(t, p), next = (r + 1) * t->g;
    uint64_t *word = t->bits + from * t->unit_words + field_word(t, p);
    for (uint64_t i = from; i < to; i++, word += t->unit_words) {
        uint64_t old = __atomic_load_n(word, __ATOMIC_ACQUIRE);
        while (old & spare) {
            if (__atomic_load_n(tickets_of(t), __ATOMIC_SEQ_CST) > next)
                return;
            if (__atomic_compare_exchange_n(word, &old, old & ~spare, true, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                break;
        }
    }
}

int tdbf_line_add_concurrent(tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    line_filter *t = f->state.impl;
    uint64_t *unit = unit_of(t, &key->hash);
    uint64_t v = __atomic_fetch_add(tickets_of(t), 1, __ATOMIC_SEQ_CST);
    uint64_t r = v / t->g;
    unsigned head = head_after(t, r);
    uint64_t copy[LINE_MAX_WORDS], mask[LINE_MAX_WORDS];
    copy_unit(t, unit, copy);
    int present = run_in(t, head, t->probe(copy, &key->hash, mask));
    mark_atomic(t, unit, mask, head);
    sweep_atomic(t, r, v - r * t->g);
    return present;
}

int tdbf_line_contains_concurrent(const tdbf *f, const tdbf_key *key, uint64_t now_ns)
{
    (void)now_ns;
    const line_filter *t = f->state.impl;
    const uint64_t *unit = unit_of(t, &key->hash);
    uint64_t v = __atomic_load_n(tickets_of(t), __ATOMIC_ACQUIRE);
    uint64_t copy[LINE_MAX_WORDS], mask[LINE_MAX_WORDS];
    copy_unit(t, unit, copy);
    return run_in(t, head_after(t, query_generation(t, v)), t->probe(copy, &key->hash, mask));
}
