/*
 * codec.h — the serialization streams the designs write and read their
 * payloads through (private; stream.c, and codec.c for the file format).
 *
 * A writer or reader of the little-endian format, checksumming as it goes.
 * Errors are sticky: after the first, calls do nothing and rc keeps it.
 */
#ifndef TDBF_CODEC_H
#define TDBF_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdbf.h"
#include "util/hash.h"

typedef struct tdbf_out {
    tdbf_write_fn write;
    void         *ctx;
    tdbf_checksum sum;
    uint64_t      written;    /* bytes written so far (save's own check) */
    int           rc;
} tdbf_out;

typedef struct tdbf_in {
    tdbf_read_fn  read;
    void         *ctx;
    tdbf_checksum sum;
    uint64_t      remaining;  /* bytes the current section may still hold */
    int           rc;
} tdbf_in;

/* Little-endian 64-bit integers, whatever the host's byte order. */
static inline void tdbf_store_le64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t tdbf_load_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void tdbf_out_bytes(tdbf_out *out, const void *buf, size_t len);
void tdbf_out_u32(tdbf_out *out, uint32_t v);
void tdbf_out_u64(tdbf_out *out, uint64_t v);
void tdbf_out_f64(tdbf_out *out, double v);
void tdbf_out_words(tdbf_out *out, const uint64_t *words, uint64_t n);
/* Readers return TDBF_OK or the (sticky) error: TDBF_ECORRUPT for input
 * that ends early or overruns its declared section. */
int tdbf_in_bytes(tdbf_in *in, void *buf, size_t len);
int tdbf_in_u32(tdbf_in *in, uint32_t *v);
int tdbf_in_u64(tdbf_in *in, uint64_t *v);
int tdbf_in_f64(tdbf_in *in, double *v);
int tdbf_in_words(tdbf_in *in, uint64_t *words, uint64_t n);
/* The bits past `bits` in the last of the words must be zero. */
bool tdbf_tail_clear(const uint64_t *words, uint64_t bits);
/* The end of a loader whose state is one struct plus one array of words
 * (calloc'd struct, 64-byte-aligned array, as open allocates them): a new
 * `size`-byte copy of *fields whose `uint64_t *` member at offset `member`
 * points to a new array of `words` words read from `in`; then `check`, if
 * not NULL, vets the whole state (tail bits).  Sets f->state.impl on success;
 * on failure (TDBF_ENOMEM, the read's error, or TDBF_ECORRUPT from the
 * check) nothing is left allocated.  Call it once every field is checked
 * and the memory cap allows the allocation. */
int tdbf_load_state(tdbf *f, tdbf_in *in, const void *fields, size_t size,
                    size_t member, uint64_t words, bool (*check)(const void *state));
/* The same for one part of a design's state (a ring of several): the new
 * state in *out instead of f->state.impl. */
int tdbf_load_part(tdbf *f, tdbf_in *in, const void *fields, size_t size, size_t member,
                   uint64_t words, bool (*check)(const void *state), void **out);


#endif
