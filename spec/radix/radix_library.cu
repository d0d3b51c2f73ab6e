/* radix_library.cu: cub::DeviceRadixSort, the run table's library row:
 * SortKeys, or SortPairs in the pairs variants, on the same arguments. CUB
 * orders ints and floats itself, as sortable does. */
#include <cub/cub.cuh>

#include "workbook.cuh"
#include "radix.h"

template <typename K> static void cub_sort(const struct args *a)
{
    const K *in = (const K *)a->keys_in;
    K *out = (K *)a->keys_out;
    size_t bytes = 0;
    if (a->pairs) {
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(NULL, bytes, in, out, a->values_in,
                                                   a->values_out, a->n));
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(library_temp(bytes), bytes, in, out,
                                                   a->values_in, a->values_out, a->n));
    } else {
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(NULL, bytes, in, out, a->n));
        CUDA_CHECK(cub::DeviceRadixSort::SortKeys(library_temp(bytes), bytes, in, out, a->n));
    }
}

static void radix_cub(const struct args *a, int block)
{
    (void)block; /* CUB picks its own */
    if (a->n == 0)
        return;
    if (a->type == I32)
        cub_sort<int>(a);
    else if (a->type == F32)
        cub_sort<float>(a);
    else
        cub_sort<unsigned>(a);
}

const struct stage radix_library = {"lib", "cub::DeviceRadixSort", radix_cub};
