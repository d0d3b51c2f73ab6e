/* histogram.h: the data the histogram lab's kernels are given. The tests
 * build against this file: change the kernels, not it. */
#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#include <stddef.h>

#include "workbook.h"

struct args {
    const void *in;  /* n values in [0, bins): bytes for 256 bins, 16-bit for 4096 */
    unsigned *hist;  /* bins counts: hist[b] = how many values equal b */
    size_t n;
    unsigned bins;   /* 256, or 4096 where shared memory gets tight */
};

/* histogram.cu's stage table, and the library row (tests/histogram) */
LAB_EXPORT const struct stage histogram_stages[];
LAB_EXPORT const struct stage histogram_library;

#endif
