/* collectives.cuh: the warp and block scans the single-block labs built
 * (scan-HS's stage 3, reduce's stage 8), given to the labs after them. */
#ifndef COLLECTIVES_CUH
#define COLLECTIVES_CUH

#include "workbook.cuh"

enum { FULL_WARP = 0xffffffffu };

/* In lane L: the sum of v over lanes 0..L (scan-HS stage 3). */
template <typename T> __device__ T warp_scan_inclusive(T v)
{
    unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (unsigned offset = 1; offset < 32; offset *= 2) {
        T below = __shfl_up_sync(FULL_WARP, v, offset);
        if (lane >= offset)
            v += below;
    }
    return v;
}

/* In every lane: the sum of v over the warp (reduce's warp_sum leaves it in
 * lane 0 alone; this butterfly gives it to all). */
template <typename T> __device__ T warp_sum_all(T v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    return v;
}

/* The sum of v over the threads before this one in the block, and in *total
 * the block's sum, for every thread. Every thread of the block must call it:
 * it holds three barriers. */
template <typename T> __device__ T block_scan_exclusive(T v, T *total)
{
    __shared__ T warp_totals[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    T inclusive = warp_scan_inclusive(v);
    if (lane == 31)
        warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        T t = lane < blockDim.x / 32 ? warp_totals[lane] : T(0);
        warp_totals[lane] = warp_scan_inclusive(t);
    }
    __syncthreads();
    *total = warp_totals[blockDim.x / 32 - 1];
    T before = warp > 0 ? warp_totals[warp - 1] : T(0);
    T below = __shfl_up_sync(FULL_WARP, inclusive, 1);
    __syncthreads(); /* warp_totals is free again for the next call */
    return before + (lane > 0 ? below : T(0));
}

#endif
