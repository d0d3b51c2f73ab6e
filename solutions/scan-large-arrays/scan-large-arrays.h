/* scan-large-arrays.h: the data the scan-large-arrays kernels are given
 * (struct args, in common/scan.h) and how big a tile is. The tests build
 * against this file: change the kernels, not it. */
#ifndef SCAN_LARGE_ARRAYS_H
#define SCAN_LARGE_ARRAYS_H

#include "scan.h"

/* Each thread scans ITEMS consecutive values, so a block's tile is
 * blockDim.x * ITEMS values. The launchers round BLOCK down to whole warps,
 * from 32 to 512 threads (a tile of 512 * 16 ints fills 32 KB of shared
 * memory). */
enum { ITEMS = 16 };
static inline int tile_threads(int block)
{
    return block < 32 ? 32 : block > 512 ? 512 : block / 32 * 32;
}
static inline size_t tile_size(int block) { return (size_t)tile_threads(block) * ITEMS; }

#endif
