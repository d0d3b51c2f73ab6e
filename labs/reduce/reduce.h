/* reduce.h: the data the reduce lab's kernels are given. The tests build
 * against this file: change the kernels, not it. */
#ifndef REDUCE_H
#define REDUCE_H

#include <stddef.h>

#include "workbook.h"

struct args {
    enum elem type;  /* I32 or F32: which sum the tests ask for */
    const void *in;  /* n values */
    void *out;       /* 1 value: their sum */
    void *partial;   /* scratch for partial sums: 2 * (n / 32 + 1) values */
    size_t n;
};

/* Stages 1-7 walk a tree that halves evenly down to one warp, so the
 * launchers round BLOCK down to a power of two of at least 64 threads (two
 * warps) and at most 1024. */
static inline int tree_block(int block)
{
    int b = 64;
    while (b * 2 <= block && b * 2 <= 1024)
        b *= 2;
    return b;
}

/* reduce.cu's stage table, and the library row (tests/reduce) */
LAB_EXPORT const struct stage reduce_stages[];
LAB_EXPORT const struct stage reduce_library;

#endif
