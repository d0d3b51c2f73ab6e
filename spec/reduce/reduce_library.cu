/* reduce_library.cu: cub::DeviceReduce::Sum, the run table's library row,
 * run on the same arguments as the student's stages. */
#include <cub/cub.cuh>

#include "workbook.cuh"
#include "reduce.h"

template <typename T> static void cub_sum(const struct args *a, int block)
{
    (void)block; /* CUB picks its own */
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(NULL, bytes, (const T *)a->in, (T *)a->out, a->n));
    CUDA_CHECK(cub::DeviceReduce::Sum(library_temp(bytes), bytes, (const T *)a->in, (T *)a->out,
                                      a->n));
}

/* The instance for the values the tests ask for. */
static void reduce_cub(const struct args *a, int block)
{
    (a->type == I32 ? cub_sum<int> : cub_sum<float>)(a, block);
}

const struct stage reduce_library = {"lib", "cub::DeviceReduce::Sum", reduce_cub};
