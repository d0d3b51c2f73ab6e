/* scan-large-arrays_library.cu: cub::DeviceScan, the run table's library
 * row, run on the same arguments as the student's stages. */
#include <cub/cub.cuh>

#include "workbook.cuh"
#include "scan-large-arrays.h"

template <typename T> static void cub_scan(const struct args *a, int block)
{
    (void)block; /* CUB picks its own */
    const T *in = (const T *)a->in;
    T *out = (T *)a->out;
    size_t bytes = 0;
    if (a->inclusive) {
        CUDA_CHECK(cub::DeviceScan::InclusiveSum(NULL, bytes, in, out, a->n));
        CUDA_CHECK(cub::DeviceScan::InclusiveSum(library_temp(bytes), bytes, in, out, a->n));
    } else {
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, in, out, a->n));
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(library_temp(bytes), bytes, in, out, a->n));
    }
}

/* The instance for the values the tests ask for. */
static void scan_large_cub(const struct args *a, int block)
{
    (a->type == I32 ? cub_scan<int> : cub_scan<float>)(a, block);
}

const struct stage scan_large_library = {"lib", "cub::DeviceScan", scan_large_cub};
