/*
 * alloc.c — allocation through replaceable hooks.
 *
 * Every byte a filter owns comes from the allocator it was opened with (the
 * Redis module plugs in RedisModule_Alloc so filters count against
 * maxmemory), and is added to f->state.memory_bytes so tdbf_get_stats reports
 * exactly what was allocated.  Aligned blocks are carved out of a larger
 * plain allocation, storing the offset just before the aligned pointer, so
 * a user allocator needs no aligned-allocation entry point.
 *
 * Big aligned blocks from the libc allocator are advised for transparent
 * huge pages: a filter is read at random, one line per key, and with 4 KiB
 * pages nearly every read of a filter beyond the TLB's reach (a few MB)
 * also walks the page tables.  A caller's own
 * allocator (the Redis module's) is left alone: Redis asks for THP off.
 */
#if defined(__linux__)
#define _DEFAULT_SOURCE
#include <sys/mman.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"
#include "designs/ops.h"

static void *libc_alloc(void *opaque, size_t size)
{
    (void)opaque;
    return malloc(size);
}

static void *libc_calloc(void *opaque, size_t count, size_t size)
{
    (void)opaque;
    return calloc(count, size);
}

static void libc_free(void *opaque, void *ptr)
{
    (void)opaque;
    free(ptr);
}

static const tdbf_allocator libc_allocator = {libc_alloc, libc_calloc, libc_free, NULL};
static tdbf_allocator default_allocator = {libc_alloc, libc_calloc, libc_free, NULL};

int tdbf_set_allocator(const tdbf_allocator *allocator)
{
    if (allocator == NULL) {
        default_allocator = libc_allocator;
        return TDBF_OK;
    }
    if (!allocator->alloc || !allocator->calloc || !allocator->free)
        return TDBF_EINVAL;
    default_allocator = *allocator;
    return TDBF_OK;
}

const tdbf_allocator *tdbf_default_allocator(void)
{
    return &default_allocator;
}

void *tdbf_mem_alloc(tdbf *f, size_t size)
{
    void *p = f->alloc.alloc(f->alloc.opaque, size);
    if (p)
        f->state.memory_bytes += size;
    return p;
}

void *tdbf_mem_calloc(tdbf *f, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    void *p = f->alloc.calloc(f->alloc.opaque, count, size);
    if (p)
        f->state.memory_bytes += count * size;
    return p;
}

void tdbf_mem_free(tdbf *f, void *ptr, size_t size)
{
    if (!ptr)
        return;
    f->alloc.free(f->alloc.opaque, ptr);
    f->state.memory_bytes -= size;
}

enum { ALIGNMENT = 64 };

/* Huge pages for the whole 2 MiB pages inside [p, p + size), from 8 MiB
 * up; advice only, so a kernel without THP (or madvise mode off) simply
 * ignores it. */
static void advise_huge_pages(const tdbf *f, void *p, size_t size)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (f->alloc.calloc != libc_calloc || size < 4 * huge)
        return;
    uintptr_t start = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t end = ((uintptr_t)p + size) & ~(huge - 1);
    (void)madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
    (void)f, (void)p, (void)size;
#endif
}

void *tdbf_mem_calloc_aligned(tdbf *f, size_t size)
{
    if (size > SIZE_MAX - TDBF_ALIGNED_OVERHEAD)
        return NULL;
    size_t total = size + TDBF_ALIGNED_OVERHEAD;
    unsigned char *raw = tdbf_mem_calloc(f, 1, total);
    if (!raw)
        return NULL;
    uintptr_t start = (uintptr_t)(raw + sizeof(size_t));
    uintptr_t aligned = (start + ALIGNMENT - 1) & ~(uintptr_t)(ALIGNMENT - 1);
    size_t offset = (size_t)(aligned - (uintptr_t)raw);
    memcpy((unsigned char *)aligned - sizeof(size_t), &offset, sizeof offset);
    advise_huge_pages(f, (void *)aligned, size);
    return (void *)aligned;
}

void tdbf_mem_free_aligned(tdbf *f, void *ptr, size_t size)
{
    if (!ptr)
        return;
    size_t offset;
    memcpy(&offset, (unsigned char *)ptr - sizeof(size_t), sizeof offset);
    tdbf_mem_free(f, (unsigned char *)ptr - offset, size + TDBF_ALIGNED_OVERHEAD);
}

bool tdbf_fits(double bytes, uint64_t max_memory)
{
    return bytes <= (double)max_memory && bytes < (double)SIZE_MAX / 2;
}
