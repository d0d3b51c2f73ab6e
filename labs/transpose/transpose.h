/* transpose.h: the data the transpose lab's kernels are given. The tests
 * build against this file: change the kernels, not it. */
#ifndef TRANSPOSE_H
#define TRANSPOSE_H

#include <stddef.h>

#include "workbook.h"

struct args {
    const float *in; /* rows x cols, row after row: in[r * cols + c] */
    float *out;      /* cols x rows: out[c * rows + r] = in[r * cols + c] */
    size_t rows, cols;
};

/* The grid's second side, gridDim.y, holds at most 65535 blocks, and the
 * rows go there: a block covers at least one row. */
enum { MAX_ROWS = 65535 };

/* The threads a block of stage `id` runs when asked for BLOCK: stage 1 and
 * stage 4 take BLOCK in whole warps, 32 to 1024, as 32 x (BLOCK / 32);
 * stages 2 and 3 a thread per element of a 32 x 32 tile; stages 5 and 6
 * their own 32 x 16. */
static inline int transpose_threads(const char *id, int block)
{
    int warps = block < 32 ? 1 : block > 1024 ? 32 : block / 32;
    return id[0] == '2' || id[0] == '3' ? 1024 : id[0] == '5' || id[0] == '6' ? 512 : 32 * warps;
}

/* Stage 6's block moves a strip of in STRIP6 columns wide, STEPS6 steps of
 * STEP6 rows down (the tests read its shape too). */
enum { STRIP6 = 64, STEP6 = 64, STEPS6 = 3 };

/* transpose.cu's stage table (tests/transpose) */
LAB_EXPORT const struct stage transpose_stages[];

#endif
