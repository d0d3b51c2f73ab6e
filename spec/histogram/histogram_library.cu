/* histogram_library.cu: cub::DeviceHistogram::HistogramEven, the run table's
 * library row, run on the same arguments as the student's stages. */
#include <cub/cub.cuh>

#include "workbook.cuh"
#include "histogram.h"

/* Levels are ints, so that 256 (one past the largest byte) can be said. */
template <typename Sample> static void cub_histogram(const Sample *in, const struct args *a, int levels)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(NULL, bytes, in, a->hist, levels, 0,
                                                   (int)a->bins, a->n));
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(library_temp(bytes), bytes, in, a->hist,
                                                   levels, 0, (int)a->bins, a->n));
}

static void histogram_cub(const struct args *a, int block)
{
    (void)block; /* CUB picks its own */
    if (a->n == 0) {
        CUDA_CHECK(cudaMemsetAsync(a->hist, 0, a->bins * sizeof(unsigned)));
        return;
    }
    int levels = (int)a->bins + 1; /* bins equal bins over [0, bins) */
    if (a->bins <= 256)
        cub_histogram((const unsigned char *)a->in, a, levels);
    else
        cub_histogram((const unsigned short *)a->in, a, levels);
}

const struct stage histogram_library = {"lib", "cub::DeviceHistogram::HistogramEven",
                                                   histogram_cub};
