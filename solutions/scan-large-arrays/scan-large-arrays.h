/* scan-large-arrays.h: the data the scan-large-arrays kernels are given
 * (struct args, in spec/scan/scan.h) and how big a tile is. The tests build
 * against this file: change the kernels, not it. */
#ifndef SCAN_LARGE_ARRAYS_H
#define SCAN_LARGE_ARRAYS_H

#include "scan.h"

/* Each thread scans ITEMS consecutive values, so a block's tile is
 * blockDim.x * ITEMS values. The launchers round BLOCK down to whole warps,
 * from 32 to 512 threads (a tile of 512 * 24 ints fills 48 KB of shared
 * memory). Big tiles keep many bytes on their way from memory while other
 * tiles wait for their carry: on an H100, 24 values a thread beat 16 by 8 %
 * in stage 4 (the instructors' notebook/scan-large-arrays.md). */
enum { ITEMS = 24, MAX_TILE_THREADS = 512 };
static inline int tile_threads(int block)
{
    return block < 32 ? 32 : block > MAX_TILE_THREADS ? MAX_TILE_THREADS : block / 32 * 32;
}
static inline size_t tile_size(int block) { return (size_t)tile_threads(block) * ITEMS; }

/* scan-large-arrays.cu's stage table, and the library row (spec/scan-large-arrays) */
LAB_EXPORT const struct stage scan_large_stages[];
LAB_EXPORT const struct stage scan_large_library;

#endif
