/*
 * stream.c — the streams a filter's payload is written and read through
 * (codec.h), and the loaders' common end (tdbf_load_state).
 *
 * Every design's save and load speak through these, below the file
 * format (codec.c: header, checksum trailer, files), which calls the
 * designs: the designs never call up into it.  Integers are little-endian,
 * doubles their IEEE-754 bits; every byte goes through the running
 * checksum.
 */
#include <string.h>

#include "util/serial.h"
#include "util/mem.h"
#include "util/check.h"
#include "designs/ops.h"

static uint64_t f64_bits(double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    return bits;
}

/* ---- writer ---------------------------------------------------------- */

void tdbf_out_bytes(tdbf_out *out, const void *buf, size_t len)
{
    if (out->rc != TDBF_OK || len == 0)
        return;
    tdbf_checksum_update(&out->sum, buf, len);
    out->written += len;
    if (out->write(out->ctx, buf, len) != 0)
        out->rc = TDBF_EIO;
}

void tdbf_out_u32(tdbf_out *out, uint32_t v)
{
    unsigned char b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    tdbf_out_bytes(out, b, sizeof b);
}

void tdbf_out_u64(tdbf_out *out, uint64_t v)
{
    unsigned char b[8];
    tdbf_store_le64(b, v);
    tdbf_out_bytes(out, b, sizeof b);
}

void tdbf_out_f64(tdbf_out *out, double v)
{
    tdbf_out_u64(out, f64_bits(v));
}

enum { WORD_CHUNK = 512 };

void tdbf_out_words(tdbf_out *out, const uint64_t *words, uint64_t n)
{
    unsigned char buf[WORD_CHUNK * 8];
    while (n > 0 && out->rc == TDBF_OK) {
        size_t count = n < WORD_CHUNK ? (size_t)n : WORD_CHUNK;
        for (size_t i = 0; i < count; i++)
            tdbf_store_le64(buf + 8 * i, words[i]);
        tdbf_out_bytes(out, buf, 8 * count);
        words += count;
        n -= count;
    }
}

/* ---- reader ---------------------------------------------------------- */

int tdbf_in_bytes(tdbf_in *in, void *buf, size_t len)
{
    if (in->rc != TDBF_OK)
        return in->rc;
    if (len > in->remaining || in->read(in->ctx, buf, len) != 0) {
        in->rc = TDBF_ECORRUPT;
        return in->rc;
    }
    tdbf_checksum_update(&in->sum, buf, len);
    in->remaining -= len;
    return TDBF_OK;
}

int tdbf_in_u32(tdbf_in *in, uint32_t *v)
{
    unsigned char b[4];
    int rc = tdbf_in_bytes(in, b, sizeof b);
    *v = rc ? 0 : (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                  (uint32_t)b[3] << 24;
    return rc;
}

int tdbf_in_u64(tdbf_in *in, uint64_t *v)
{
    unsigned char b[8];
    int rc = tdbf_in_bytes(in, b, sizeof b);
    *v = rc ? 0 : tdbf_load_le64(b);
    return rc;
}

int tdbf_in_f64(tdbf_in *in, double *v)
{
    uint64_t bits;
    int rc = tdbf_in_u64(in, &bits);
    memcpy(v, &bits, sizeof *v);
    return rc;
}

int tdbf_in_words(tdbf_in *in, uint64_t *words, uint64_t n)
{
    unsigned char buf[WORD_CHUNK * 8];
    while (n > 0) {
        size_t count = n < WORD_CHUNK ? (size_t)n : WORD_CHUNK;
        int rc = tdbf_in_bytes(in, buf, 8 * count);
        if (rc != TDBF_OK)
            return rc;
        for (size_t i = 0; i < count; i++)
            words[i] = tdbf_load_le64(buf + 8 * i);
        words += count;
        n -= count;
    }
    return in->rc;
}

bool tdbf_tail_clear(const uint64_t *words, uint64_t bits)
{
    if (bits % 64 == 0)
        return true;
    return (words[bits / 64] >> (bits % 64)) == 0;
}

int tdbf_load_state(tdbf *f, tdbf_in *in, const void *fields, size_t size,
                    size_t member, uint64_t words, bool (*check)(const void *state))
{
    void *state;
    int rc = tdbf_load_part(f, in, fields, size, member, words, check, &state);
    if (rc == TDBF_OK)
        f->state.impl = state;
    return rc;
}

int tdbf_load_part(tdbf *f, tdbf_in *in, const void *fields, size_t size, size_t member,
                   uint64_t words, bool (*check)(const void *state), void **out)
{
    /* The design validated words against the payload and the memory cap
     * before this call, and the array pointer lies inside its struct. */
    TDBF_ASSERT(words <= in->remaining / sizeof(uint64_t) &&
                member + sizeof(uint64_t *) <= size);
    size_t bytes = (size_t)words * sizeof(uint64_t);
    unsigned char *state = tdbf_mem_calloc(f, 1, size);
    uint64_t *array = state ? tdbf_mem_calloc_aligned(f, bytes) : NULL;
    int rc = array ? tdbf_in_words(in, array, words) : TDBF_ENOMEM;
    if (rc == TDBF_OK) {
        memcpy(state, fields, size);
        memcpy(state + member, &array, sizeof array);
        if (check && !check(state))
            rc = TDBF_ECORRUPT;
    }
    if (rc != TDBF_OK) {
        tdbf_mem_free_aligned(f, array, bytes);
        tdbf_mem_free(f, state, size);
        return rc;
    }
    *out = state;
    return TDBF_OK;
}

