/*
 * bits.c — bit-array helpers shared by every design.
 */
#include "util/bits.h"
#include "util/block.h"
#include "util/mem.h"
#include "model/planning.h"

uint64_t tdbf_popcount(const uint64_t *words, uint64_t nwords)
{
    uint64_t total = 0;
    for (uint64_t i = 0; i < nwords; i++)
        total += (uint64_t)__builtin_popcountll(words[i]);
    return total;
}

/* ---- blocked layouts (block.h) --------------------------------------- */

/* Bits of a derived hash spent on digits before a fresh one is drawn. */
enum { DIGIT_BUDGET = 48 };

static unsigned ceil_log2(uint64_t x)
{
    unsigned bits = 0;
    while (bits < 64 && (UINT64_C(1) << bits) < x)
        bits++;
    return bits;
}

/* The block index uses ceil(log2 blocks) bits of the first hash, each part
 * ceil(log2 size) bits, DIGIT_BUDGET bits per hash. */
void tdbf_block_layout_init(tdbf_block_layout *layout, unsigned block_bits,
                            unsigned block_hashes, uint64_t blocks)
{
    layout->blocks = blocks;
    layout->block_bits = block_bits;
    layout->block_words = block_bits / 64;
    layout->block_hashes = block_hashes;
    layout->fresh = 0;
    int budget = DIGIT_BUDGET - (int)ceil_log2(blocks);
    for (unsigned j = 0; j < block_hashes; j++) {
        unsigned start = tdbf_apbbf_part_start(block_bits, block_hashes, j);
        unsigned end = tdbf_apbbf_part_start(block_bits, block_hashes, j + 1);
        layout->part_start[j] = (uint16_t)start;
        layout->part_size[j] = (uint16_t)(end - start);
        int cost = (int)ceil_log2(end - start);
        if (cost > budget) {
            layout->fresh |= UINT32_C(1) << j;
            budget = DIGIT_BUDGET;
        }
        budget -= cost;
    }
}

/* ---- packed cell arrays (bits.h) ------------------------------------ */

/* 2^52 cells: beyond that a double no longer counts them exactly. */
#define MAX_CELLS (UINT64_C(1) << 52)

double tdbf_cells_bytes(uint64_t count, unsigned bits)
{
    if (count > MAX_CELLS || bits > 64)
        return (double)count * (double)bits / 8.0; /* far above any cap */
    return (double)tdbf_words_for_bits(count * bits) * 8.0;
}

int tdbf_cells_open(tdbf *f, tdbf_cells *cells, uint64_t count, unsigned bits)
{
    if (bits < 1 || bits > 64 || count == 0 || count > MAX_CELLS)
        return TDBF_EPARAM;
    cells->count = count;
    cells->bits = bits;
    cells->mask = UINT64_MAX >> (64 - bits);
    cells->words = tdbf_mem_calloc_aligned(f, (size_t)tdbf_cells_bytes(count, bits));
    return cells->words ? TDBF_OK : TDBF_ENOMEM;
}

void tdbf_cells_close(tdbf *f, tdbf_cells *cells)
{
    tdbf_mem_free_aligned(f, cells->words, (size_t)tdbf_cells_bytes(cells->count, cells->bits));
    cells->words = NULL;
}
