/* reduce_library.cu: cub::DeviceReduce::Sum, the run table's library row,
 * run on the same arguments as the student's stages. */
#include <cub/cub.cuh>

#include "workbook.cuh"
#include "reduce.h"

/* CUB asks for temporary storage; keep one allocation for all calls, so
 * the timed runs do not include cudaMalloc. */
static void *temp_storage(size_t bytes)
{
    static void *temp;
    static size_t have;
    if (bytes > have) {
        CUDA_CHECK(cudaFree(temp));
        CUDA_CHECK(cudaMalloc(&temp, bytes));
        have = bytes;
    }
    return temp;
}

template <typename T> static void cub_sum(const struct args *a)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(NULL, bytes, (const T *)a->in, (T *)a->out, a->n));
    CUDA_CHECK(cub::DeviceReduce::Sum(temp_storage(bytes), bytes, (const T *)a->in, (T *)a->out,
                                      a->n));
}

static void reduce_cub(const struct args *a, int block)
{
    (void)block; /* CUB picks its own */
    if (a->type == I32)
        cub_sum<int>(a);
    else
        cub_sum<float>(a);
}

extern "C" const struct stage reduce_library = {"lib", "cub::DeviceReduce::Sum", reduce_cub};
