/* compact_library.cu: cub::DeviceSelect::If, the run table's library row,
 * run on the same arguments and with the same test as the student's stages. */
#include <cub/cub.cuh>

#include "workbook.cuh"
#include "compact.h"

struct even {
    __host__ __device__ bool operator()(int v) const { return v % 2 == 0; }
};
struct above {
    float threshold;
    __host__ __device__ bool operator()(float v) const { return v > threshold; }
};

template <typename T, typename Keep> static void cub_select(const struct args *a, Keep keep)
{
    size_t bytes = 0;
    const T *in = (const T *)a->in;
    CUDA_CHECK(cub::DeviceSelect::If(NULL, bytes, in, (T *)a->out, a->count, a->n, keep));
    CUDA_CHECK(cub::DeviceSelect::If(library_temp(bytes), bytes, in, (T *)a->out, a->count, a->n,
                                     keep));
}

static void compact_cub(const struct args *a, int block)
{
    (void)block; /* CUB picks its own */
    if (a->n == 0) {
        CUDA_CHECK(cudaMemsetAsync(a->count, 0, sizeof(unsigned)));
        return;
    }
    if (a->type == I32)
        cub_select<int>(a, even());
    else
        cub_select<float>(a, above{a->threshold});
}

const struct stage compact_library = {"lib", "cub::DeviceSelect::If", compact_cub};
