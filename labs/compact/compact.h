/* compact.h: the data the compact lab's kernels are given. The tests build
 * against this file: change the kernels, not it. */
#ifndef COMPACT_H
#define COMPACT_H

#include <stddef.h>

#include "workbook.h"

struct args {
    enum elem type;     /* I32: ints, kept when even; F32: floats, kept when > threshold */
    const void *in;     /* n values */
    void *out;          /* the kept values, in the input's order (stage 3: any order) */
    unsigned *count;    /* 1 value: how many were kept */
    size_t n;           /* below 2^32: positions and counts are 32-bit */
    float threshold;
    /* scratch, n values each: */
    unsigned *flags;    /* stage 1: a flag per value; stage 2: a count per tile */
    unsigned *positions; /* stage 1: where each value goes; stage 2: each tile's offset */
    unsigned long long *status; /* stages 4a, 4b: a tile counter, then a word per tile */
};

/* Stages 2 to 4b give each thread ITEMS values. A tile is the values of
 * one block: tile_threads(BLOCK) threads, BLOCK rounded to whole warps
 * between 32 and 1024, times ITEMS. */
enum { ITEMS = 16 };
static inline int tile_threads(int block)
{
    return block < 32 ? 32 : block > 1024 ? 1024 : block / 32 * 32;
}
static inline size_t tile_size(int block) { return (size_t)tile_threads(block) * ITEMS; }

/* compact.cu's stage table, and the library row (tests/compact) */
LAB_EXPORT const struct stage compact_stages[];
LAB_EXPORT const struct stage compact_library;

#endif
