/* histogram.h: the data the histogram lab's kernels are given. The tests
 * build against this file: change the kernels, not it. */
#ifndef HISTOGRAM_H
#define HISTOGRAM_H

#include <stddef.h>

struct args {
    const unsigned *in; /* n values, each in [0, bins) */
    unsigned *hist;     /* bins counts: hist[b] = how many values equal b */
    size_t n;
    unsigned bins;      /* 256, or 4096 where shared memory gets tight */
};

#endif
