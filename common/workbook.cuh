/* workbook.cuh: what a lab's .cu file includes. */
#ifndef WORKBOOK_CUH
#define WORKBOOK_CUH

#include <cuda_runtime.h>

#include "workbook.h"

#ifndef WORKBOOK_EMULATED
#define WORKBOOK_EMULATED 0 /* common/emu's cuda_runtime.h sets it to 1 */
/* Blocks of `block` threads, each with `smem` bytes of dynamic shared memory,
 * that fill the GPU once: SMs times the blocks one SM holds of `kernel`.
 * (The map lab has students write this; later labs use it from here.) */
unsigned gpu_fill_blocks(const void *kernel, int block, size_t smem);

/* Temporary storage for a library call (CUB), kept from call to call so
 * timed runs do not pay for cudaMalloc. */
void *library_temp(size_t bytes);

#endif

/* Every CUDA call goes through this: a failure stops the program with the
 * file, the line, the call and CUDA's own words for what went wrong. */
#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)

static inline void cuda_check(cudaError_t err, const char *call, const char *file, int line)
{
    if (err != cudaSuccess)
        die("%s:%d: %s failed: %s (%s)", file, line, call, cudaGetErrorString(err),
            cudaGetErrorName(err));
}

/* Blocks of size b needed to cover n items. */
static inline __host__ __device__ size_t ceil_div(size_t n, size_t b)
{
    return (n + b - 1) / b;
}

/* Blocks of `block` threads, each with `smem` bytes of dynamic shared memory,
 * that fill the GPU once: SMs times the blocks one SM holds of `kernel`.
 * (The map lab has students write this; later labs use it from here.) */
unsigned gpu_fill_blocks(const void *kernel, int block, size_t smem);

/* Temporary storage for a library call (CUB), kept from call to call so
 * timed runs do not pay for cudaMalloc. */
void *library_temp(size_t bytes);

#endif
