/*
 * mem.h — memory of a filter (private; alloc.c).
 *
 * Everything a filter owns goes through the allocator it was opened with,
 * and is counted in f->state.memory_bytes.
 */
#ifndef TDBF_MEM_H
#define TDBF_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tdbf.h"

void *tdbf_mem_alloc(tdbf *f, size_t size);
void *tdbf_mem_calloc(tdbf *f, size_t count, size_t size);
void  tdbf_mem_free(tdbf *f, void *ptr, size_t size);
/* 64-byte aligned, zeroed (cache-line aligned bit arrays). */
void *tdbf_mem_calloc_aligned(tdbf *f, size_t size);
void  tdbf_mem_free_aligned(tdbf *f, void *ptr, size_t size);
/* The process default allocator (after tdbf_set_allocator). */
const tdbf_allocator *tdbf_default_allocator(void);

/* Bytes tdbf_mem_calloc_aligned adds to a request (64-byte alignment
 * slack and the stored offset). */
#define TDBF_ALIGNED_OVERHEAD (64u + sizeof(size_t))

/* Bytes needed, as a double so huge requests cannot overflow, within the
 * memory cap? */
bool tdbf_fits(double bytes, uint64_t max_memory);

#endif
