/* scan.cuh: what the kernels of the single-block scan labs share (scan-HS,
 * scan-Blelloch): their one kernel shape, and its launch. */
#ifndef SCAN_CUH
#define SCAN_CUH

#include "workbook.cuh"
#include "scan.h"

/* Every stage's kernel: each block scans its own segment of in into out. */
template <typename T> using scan_kernel = void (*)(const T *in, T *out, size_t n, bool inclusive);

/* One block of `threads` threads per segment of `segment` values, with the
 * kernel for the values the tests ask for. */
static inline void launch_segments(const struct args *a, unsigned threads, size_t segment,
                            scan_kernel<int> on_ints, scan_kernel<float> on_floats)
{
    unsigned grid = (unsigned)ceil_div(a->n, segment);
    if (grid == 0)
        return;
    if (a->type == I32)
        on_ints<<<grid, threads>>>((const int *)a->in, (int *)a->out, a->n, a->inclusive);
    else
        on_floats<<<grid, threads>>>((const float *)a->in, (float *)a->out, a->n, a->inclusive);
}

#endif
