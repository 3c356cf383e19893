/*
 * section.c — the sections that may follow a filter record in a saved
 * file (docs/format.md, "Sections").
 *
 * A front keeps things of its own beside a filter: `tdbf dedup` keeps how
 * it cut lines into keys and times, so a resumed run cuts them the same
 * way.  Those go after the filter record, so every loader still finds the
 * filter where it always was, and each one is self-describing, so a
 * loader that does not know a section can step over it without
 * understanding it:
 *
 *     size  field
 *        8  tag: "TDBF" then four of A-Z 0-9 ("TDBFKEYS": tdbf dedup)
 *        4  version of the body's layout (the owner's business)
 *        4  n, bytes of the body (little-endian, as every integer)
 *        n  body
 *        8  FNV-1a 64 of the body (offset basis 0xcbf29ce484222325,
 *           prime 0x100000001b3)
 *
 * This is byte for byte the key section `tdbf dedup` wrote before
 * sections were general, so every state file it ever wrote is a filter
 * record and one well-formed section.
 *
 * Nothing after the filter is ignored silently: the bytes that follow it
 * must be whole sections up to the end of the input.  A tag of another
 * shape (stray bytes, a second filter, text appended by mistake), a
 * section cut short, or a body whose checksum differs is TDBF_ECORRUPT.
 * The tag's fixed "TDBF" and its restricted alphabet catch most damage
 * to the tag itself (the checksum covers the body only, as the first
 * sections were written); the length is covered indirectly: a wrong one
 * moves the checksum's place or runs past the end.
 *
 * The body of a section nobody asked for streams through a small buffer
 * (its checksum is still checked); a wanted one is held whole while the
 * caller's visitor reads it, at most SECTION_HELD_MAX bytes.
 */
#include <string.h>

#include "util/serial.h"
#include "util/hash.h"
#include "util/mem.h"

enum {
    SECTION_HEAD_BYTES = 16,
    SECTION_SUM_BYTES = 8,
    SKIP_CHUNK = 4096,
};

/* The largest body handed to a visitor: a section is metadata beside a
 * filter, and a forged length must not make a loader allocate gigabytes. */
#define SECTION_HELD_MAX (UINT64_C(64) << 20)

#define FNV_OFFSET UINT64_C(0xcbf29ce484222325)
#define FNV_PRIME  UINT64_C(0x100000001b3)

/* FNV-1a 64 continued over len more bytes (it wraps on purpose). */
TDBF_WRAPS static uint64_t fnv1a_more(uint64_t h, const unsigned char *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * FNV_PRIME;
    return h;
}

static void store_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t load_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* "TDBF" then four of A-Z 0-9. */
static bool tag_well_formed(const char *tag)
{
    if (memcmp(tag, "TDBF", 4) != 0)
        return false;
    for (int i = 4; i < TDBF_SECTION_TAG_BYTES; i++) {
        char c = tag[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            return false;
    }
    return true;
}

/* ---- writing ------------------------------------------------------------- */

int tdbf_save_section(tdbf_write_fn write, void *ctx, const tdbf_section *section)
{
    if (!write || !section || (!section->body && section->length != 0) ||
        !tag_well_formed(section->tag))
        return TDBF_EINVAL;
    unsigned char head[SECTION_HEAD_BYTES], sum[SECTION_SUM_BYTES];
    memcpy(head, section->tag, TDBF_SECTION_TAG_BYTES);
    store_le32(head + 8, section->version);
    store_le32(head + 12, section->length);
    tdbf_store_le64(sum, fnv1a_more(FNV_OFFSET, section->body, section->length));
    if (write(ctx, head, sizeof head) != 0 ||
        (section->length != 0 && write(ctx, section->body, section->length) != 0) ||
        write(ctx, sum, sizeof sum) != 0)
        return TDBF_EIO;
    return TDBF_OK;
}

/* ---- reading ------------------------------------------------------------- */

/* The next section's head, or TDBF_ECORRUPT for a malformed or cut one.
 * *end is set at a clean end of input (no byte where a section would
 * start). */
static int read_head(tdbf_read_fn read, void *ctx, tdbf_section *s, bool *end)
{
    unsigned char head[SECTION_HEAD_BYTES];
    *end = false;
    if (read(ctx, head, 1) != 0) {
        *end = true;
        return TDBF_OK;
    }
    if (read(ctx, head + 1, sizeof head - 1) != 0)
        return TDBF_ECORRUPT;
    memcpy(s->tag, head, TDBF_SECTION_TAG_BYTES);
    if (!tag_well_formed(s->tag))
        return TDBF_ECORRUPT;
    s->version = load_le32(head + 8);
    s->length = load_le32(head + 12);
    s->body = NULL;
    return TDBF_OK;
}

static int read_sum(tdbf_read_fn read, void *ctx, uint64_t expected)
{
    unsigned char sum[SECTION_SUM_BYTES];
    if (read(ctx, sum, sizeof sum) != 0)
        return TDBF_ECORRUPT;
    return tdbf_load_le64(sum) == expected ? TDBF_OK : TDBF_ECORRUPT;
}

/* A body nobody reads: checked, not kept. */
static int skip_body(tdbf_read_fn read, void *ctx, uint32_t length)
{
    unsigned char chunk[SKIP_CHUNK];
    uint64_t h = FNV_OFFSET;
    while (length > 0) {
        uint32_t n = length < sizeof chunk ? length : (uint32_t)sizeof chunk;
        if (read(ctx, chunk, n) != 0)
            return TDBF_ECORRUPT;
        h = fnv1a_more(h, chunk, n);
        length -= n;
    }
    return read_sum(read, ctx, h);
}

/* A wanted body: read whole, checked, then shown to the visitor. */
static int visit_body(tdbf_read_fn read, void *ctx, tdbf_section *s,
                      tdbf_section_fn visit, void *visit_ctx)
{
    if (s->length > SECTION_HELD_MAX)
        return TDBF_ETOOBIG;
    const tdbf_allocator *alloc = tdbf_default_allocator();
    unsigned char *body = alloc->alloc(alloc->opaque, s->length ? s->length : 1);
    if (!body)
        return TDBF_ENOMEM;
    int rc = s->length != 0 && read(ctx, body, s->length) != 0 ? TDBF_ECORRUPT : TDBF_OK;
    if (rc == TDBF_OK)
        rc = read_sum(read, ctx, fnv1a_more(FNV_OFFSET, body, s->length));
    if (rc == TDBF_OK) {
        s->body = body;
        rc = visit(visit_ctx, s);
        s->body = NULL;
    }
    alloc->free(alloc->opaque, body);
    return rc;
}

int tdbf_read_sections(tdbf_read_fn read, void *ctx, const char *tag,
                       tdbf_section_fn visit, void *visit_ctx)
{
    if (!read)
        return TDBF_EINVAL;
    for (;;) {
        tdbf_section s;
        bool end;
        int rc = read_head(read, ctx, &s, &end);
        if (rc != TDBF_OK || end)
            return rc;
        bool wanted = visit && (!tag || memcmp(s.tag, tag, TDBF_SECTION_TAG_BYTES) == 0);
        rc = wanted ? visit_body(read, ctx, &s, visit, visit_ctx)
                    : skip_body(read, ctx, s.length);
        if (rc != TDBF_OK)
            return rc;
    }
}
