/* scan-Blelloch.h: the data the scan-Blelloch kernels are given (struct
 * args, in spec/scan/scan.h) and how long each block's segment is. The tests
 * build against this file: change the kernels, not it. */
#ifndef SCAN_BLELLOCH_H
#define SCAN_BLELLOCH_H

#include "scan.h"

/* The tree needs a power of two: the launchers round BLOCK down to one (at
 * least 32 threads, at most 1024), and each thread owns two values. */
static inline int blelloch_threads(int block)
{
    int t = 32;
    while (t * 2 <= block && t < 1024)
        t *= 2;
    return t;
}
static inline size_t blelloch_segment(int block) { return 2 * (size_t)blelloch_threads(block); }

/* Stage 4's threads each scan ITEMS neighbouring values of the same
 * segments in registers, so a segment takes segment / ITEMS threads. */
enum { ITEMS = 8 };

/* scan-Blelloch.cu's stage table, and the library row (spec/scan-Blelloch) */
LAB_EXPORT const struct stage scan_blelloch_stages[];
LAB_EXPORT const struct stage scan_blelloch_library;

#endif
