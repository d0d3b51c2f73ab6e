/* workbook.cuh: what a lab's .cu file includes. */
#ifndef WORKBOOK_CUH
#define WORKBOOK_CUH

#include <cuda_runtime.h>

#include "workbook.h"

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

/* A kernel may use more than 48 KB of shared memory, its own __shared__
 * variables (well under 1 KB) and `smem` dynamic bytes together, only if
 * asked first. */
template <typename K> void allow_smem(K kernel, size_t smem)
{
    if (smem + 1024 > 48 * 1024)
        CUDA_CHECK(cudaFuncSetAttribute((const void *)kernel,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
}

/* Four values in one 16-byte load: vec4<int>::type is int4, vec4<float>::type float4. */
template <typename T> struct vec4;
template <> struct vec4<int> {
    typedef int4 type;
};
template <> struct vec4<float> {
    typedef float4 type;
};

/* Temporary storage for a library call (CUB), kept from call to call so
 * timed runs do not pay for cudaMalloc. */
void *library_temp(size_t bytes);

#endif
