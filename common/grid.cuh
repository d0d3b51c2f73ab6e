/* grid.cuh: a grid that fills the GPU once, for the grid-stride loops of
 * map's stage 2 and every lab after it. Given, not a stage's TODO: a lab
 * after map launches with it, and a copy of the first labs alone (make
 * dist LABS=...) must answer none of their TODOs. */
#ifndef GRID_CUH
#define GRID_CUH

#include "workbook.cuh"

/* Blocks of `block` threads for `work` items, each block with `smem` bytes
 * of dynamic shared memory: enough to cover the items, but never more than
 * fill the GPU once with `kernel` (SMs times the blocks one SM holds), and
 * 0 for no work. */
static inline unsigned device_grid(const void *kernel, int block, size_t work, size_t smem)
{
    int device, sms, per_sm;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, smem));
    size_t full = (size_t)sms * per_sm, needed = ceil_div(work, block);
    return (unsigned)(needed < full ? needed : full);
}

#endif
