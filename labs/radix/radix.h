/* radix.h: the data the radix lab's kernels are given. The tests build
 * against this file: change the kernels, not it. */
#ifndef RADIX_H
#define RADIX_H

#include <stdbool.h>
#include <stddef.h>

#include "workbook.h"

struct args {
    enum elem type;            /* U32, I32 or F32: the keys sort as numbers of this type */
    bool pairs;                /* each key carries a value (values_in to values_out) */
    const unsigned *keys_in;   /* n keys, as their 32-bit patterns */
    const unsigned *values_in; /* n values, or NULL when !pairs */
    unsigned *keys_out;        /* the keys, sorted ascending, equal keys in input order */
    unsigned *values_out;      /* each key's value beside it, or NULL when !pairs */
    size_t n;                  /* below 2^32: places are 32-bit */
    /* scratch: */
    unsigned *keys_tmp;        /* n: the other side of the passes' ping-pong */
    unsigned *values_tmp;      /* n, or NULL when !pairs */
    unsigned *flags;           /* stage 1: a flag a key; stages 2 to 3b: a count a digit and
                                  tile */
    unsigned *positions;       /* the scan of flags */
    unsigned *bins;            /* stage 4: 4 x 256 counts, a digit's keys in each pass; then
                                  4 x 256 starts, their scans */
    unsigned long long *status; /* stage 4: a counter of tiles, then a status word a tile and
                                   digit (1 + 256 x the tiles of 32 threads) */
};

/* Stage 2 gives each thread ITEMS keys; a tile is the keys of one block:
 * tile_threads(BLOCK) threads, BLOCK rounded to whole warps between 32 and
 * 1024, times ITEMS. */
enum { ITEMS = 16 };
static inline int tile_threads(int block)
{
    return block < 32 ? 32 : block > 1024 ? 1024 : block / 32 * 32;
}

/* Stages 3a to 5 give each thread ITEMS3 keys, in blocks of at most
 * MAX_THREADS3 threads: from 3b on they sort a tile in shared memory, and
 * 1024 threads' tile of pairs (1024 * 24 * 8 bytes = 192 KiB, 225 KiB with
 * its counts) would fill an H100 SM alone, where 512 threads were already
 * slower than 256 (handouts/08-radix.md). */
enum { ITEMS3 = 24, MAX_THREADS3 = 512 };
static inline int stage3_threads(int block)
{
    int threads = tile_threads(block);
    return threads > MAX_THREADS3 ? MAX_THREADS3 : threads;
}

/* radix.cu's stage table, and the library row (tests/radix) */
LAB_EXPORT const struct stage radix_stages[];
LAB_EXPORT const struct stage radix_library;

#endif
