/* scan_library.cuh: the library rows of the single-block scan labs:
 * cub::BlockScan on the same segments as the student's stages, one block
 * each, ITEMS neighbouring values per thread (1 for scan-HS, 4 for
 * scan-Blelloch, as its last stage), read 16 bytes at a time where ITEMS
 * allows and the segment is whole. */
#ifndef SCAN_LIBRARY_CUH
#define SCAN_LIBRARY_CUH

#include <cub/cub.cuh>

#include "workbook.cuh"
#include "scan.h"

/* THREADS is a power of two, the smallest that covers the segment; threads
 * past the segment scan zeros and store nothing. */
template <typename T, int THREADS, int ITEMS>
__global__ void block_scan_library_kernel(const T *__restrict__ in, T *__restrict__ out,
                                          size_t n, size_t segment, bool inclusive)
{
    typedef cub::BlockScan<T, THREADS> scan;
    __shared__ typename scan::TempStorage temp;
    size_t first = blockIdx.x * segment + (size_t)threadIdx.x * ITEMS;
    bool mine = (size_t)threadIdx.x * ITEMS < segment;
    typedef typename vec4<T>::type T4;
    bool wide = ITEMS % 4 == 0 && (size_t)THREADS * ITEMS == segment &&
                blockIdx.x * segment + segment <= n;
    T x[ITEMS];
    if (wide) {
#pragma unroll
        for (int k = 0; k < ITEMS; k += 4) {
            T4 q = *reinterpret_cast<const T4 *>(in + first + k);
            x[k] = q.x, x[k + 1] = q.y, x[k + 2] = q.z, x[k + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            x[k] = mine && first + k < n ? in[first + k] : T(0);
    }
    if (inclusive)
        scan(temp).InclusiveSum(x, x);
    else
        scan(temp).ExclusiveSum(x, x);
    if (wide) {
#pragma unroll
        for (int k = 0; k < ITEMS; k += 4)
            *reinterpret_cast<T4 *>(out + first + k) = T4{x[k], x[k + 1], x[k + 2], x[k + 3]};
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            if (mine && first + k < n)
                out[first + k] = x[k];
    }
}

template <typename T, int ITEMS> static void block_scan_library(const struct args *a, size_t segment)
{
    unsigned grid = (unsigned)ceil_div(a->n, segment);
    size_t threads = ceil_div(segment, ITEMS);
    const T *in = (const T *)a->in;
    T *out = (T *)a->out;
    if (grid == 0)
        return;
    if (threads <= 32)
        block_scan_library_kernel<T, 32, ITEMS><<<grid, 32>>>(in, out, a->n, segment, a->inclusive);
    else if (threads <= 64)
        block_scan_library_kernel<T, 64, ITEMS><<<grid, 64>>>(in, out, a->n, segment, a->inclusive);
    else if (threads <= 128)
        block_scan_library_kernel<T, 128, ITEMS><<<grid, 128>>>(in, out, a->n, segment, a->inclusive);
    else if (threads <= 256)
        block_scan_library_kernel<T, 256, ITEMS><<<grid, 256>>>(in, out, a->n, segment, a->inclusive);
    else if (threads <= 512)
        block_scan_library_kernel<T, 512, ITEMS><<<grid, 512>>>(in, out, a->n, segment, a->inclusive);
    else
        block_scan_library_kernel<T, 1024, ITEMS><<<grid, 1024>>>(in, out, a->n, segment, a->inclusive);
}

/* The instance for the values the tests ask for. */
template <int ITEMS> static void block_scan_library_typed(const struct args *a, size_t segment)
{
    (a->type == I32 ? block_scan_library<int, ITEMS> : block_scan_library<float, ITEMS>)(a, segment);
}

#endif
