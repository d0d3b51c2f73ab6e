/* cub/cub.cuh, emulated (EMU=1): the parts of CUB the workbook's library
 * rows and its students use, with CUB's names and signatures.
 * - Warp and block collectives, run inside kernels and built of warp
 *   shuffles and barriers as CUB builds them, so the race detector and the
 *   counts see them as they are: cub::WarpReduce and cub::WarpScan
 *   (cub/warp/), cub::BlockReduce and cub::BlockScan (cub/block/), and the
 *   operators cub::Sum, Max, Min (cuda::std::plus<>, cuda::maximum<>,
 *   cuda::minimum<> for CUB 3).
 * - Device-wide algorithms, below, computed by plain loops on the calling
 *   thread (device memory is host memory here), with CUB's two-call
 *   protocol: a first call with no temporary storage asks how many bytes
 *   to allocate.
 * What is not here (cub::BlockRadixSort, cub::BlockLoad, ...) stops the
 * build with a line "emulation: not provided: cub::X (FILE:LINE)". */
#ifndef EMU_CUB_CUH
#define EMU_CUB_CUH

#include "../cuda_runtime.h"
#include "block/block_reduce.cuh"
#include "block/block_scan.cuh"

#include <algorithm>
#include <vector>

namespace cub {

namespace detail {
/* The first call of the pair: report a token size, since the loops need none. */
inline bool sizing(void *temp, size_t &bytes)
{
    if (temp)
        return false;
    bytes = 16;
    return true;
}
} // namespace detail

struct DeviceReduce {
    template <typename In, typename Out>
    static cudaError_t Sum(void *temp, size_t &bytes, In in, Out out, long long n,
                           cudaStream_t = 0)
    {
        if (detail::sizing(temp, bytes))
            return cudaSuccess;
        emu_note_library((double)n * sizeof *in);
        typename std::remove_reference<decltype(*out)>::type sum = 0;
        for (long long i = 0; i < n; i++)
            sum += in[i];
        *out = sum;
        return cudaSuccess;
    }
};

struct DeviceScan {
    template <typename In, typename Out>
    static cudaError_t ExclusiveSum(void *temp, size_t &bytes, In in, Out out, long long n,
                                    cudaStream_t = 0)
    {
        if (detail::sizing(temp, bytes))
            return cudaSuccess;
        emu_note_library((double)n * (sizeof *in + sizeof *out));
        typename std::remove_reference<decltype(*out)>::type sum = 0;
        for (long long i = 0; i < n; i++) {
            auto x = in[i]; /* in and out may be the same array */
            out[i] = sum;
            sum += x;
        }
        return cudaSuccess;
    }
    template <typename In, typename Out>
    static cudaError_t InclusiveSum(void *temp, size_t &bytes, In in, Out out, long long n,
                                    cudaStream_t = 0)
    {
        if (detail::sizing(temp, bytes))
            return cudaSuccess;
        emu_note_library((double)n * (sizeof *in + sizeof *out));
        typename std::remove_reference<decltype(*out)>::type sum = 0;
        for (long long i = 0; i < n; i++)
            out[i] = sum += in[i];
        return cudaSuccess;
    }
};

struct DeviceHistogram {
    /* num_levels - 1 equal bins over [lower, upper); samples outside are not counted */
    template <typename Sample, typename Counter, typename Level>
    static cudaError_t HistogramEven(void *temp, size_t &bytes, const Sample *samples,
                                     Counter *histogram, int num_levels, Level lower, Level upper,
                                     long long n, cudaStream_t = 0)
    {
        if (detail::sizing(temp, bytes))
            return cudaSuccess;
        int bins = num_levels - 1;
        emu_note_library((double)n * sizeof *samples + (double)bins * sizeof *histogram);
        std::fill(histogram, histogram + bins, Counter(0));
        for (long long i = 0; i < n; i++) {
            double x = (double)samples[i];
            if (x >= (double)lower && x < (double)upper)
                histogram[(int)((x - (double)lower) * bins / ((double)upper - (double)lower))]++;
        }
        return cudaSuccess;
    }
};

struct DeviceRadixSort {
    template <typename Key>
    static cudaError_t SortKeys(void *temp, size_t &bytes, const Key *in, Key *out, long long n,
                                int = 0, int = sizeof(Key) * 8, cudaStream_t = 0)
    {
        if (detail::sizing(temp, bytes))
            return cudaSuccess;
        emu_note_library(2.0 * n * sizeof *in);
        std::copy(in, in + n, out);
        std::stable_sort(out, out + n);
        return cudaSuccess;
    }
    template <typename Key, typename Value>
    static cudaError_t SortPairs(void *temp, size_t &bytes, const Key *keys_in, Key *keys_out,
                                 const Value *values_in, Value *values_out, long long n, int = 0,
                                 int = sizeof(Key) * 8, cudaStream_t = 0)
    {
        if (detail::sizing(temp, bytes))
            return cudaSuccess;
        emu_note_library(2.0 * n * (sizeof *keys_in + sizeof *values_in));
        std::vector<long long> order(n);
        for (long long i = 0; i < n; i++)
            order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](long long a, long long b) { return keys_in[a] < keys_in[b]; });
        std::vector<Key> keys(n);
        std::vector<Value> values(n);
        for (long long i = 0; i < n; i++) {
            keys[i] = keys_in[order[i]];
            values[i] = values_in[order[i]];
        }
        std::copy(keys.begin(), keys.end(), keys_out);
        std::copy(values.begin(), values.end(), values_out);
        return cudaSuccess;
    }
};

struct DeviceSelect {
    template <typename In, typename Flag, typename Out, typename Count>
    static cudaError_t Flagged(void *temp, size_t &bytes, In in, Flag flags, Out out,
                               Count *selected, long long n, cudaStream_t = 0)
    {
        if (detail::sizing(temp, bytes))
            return cudaSuccess;
        emu_note_library((double)n * (sizeof *in + sizeof *flags + sizeof *out));
        Count k = 0;
        for (long long i = 0; i < n; i++)
            if (flags[i])
                out[k++] = in[i];
        *selected = k;
        return cudaSuccess;
    }
    template <typename In, typename Out, typename Count, typename Keep>
    static cudaError_t If(void *temp, size_t &bytes, In in, Out out, Count *selected, long long n,
                          Keep keep, cudaStream_t = 0)
    {
        if (detail::sizing(temp, bytes))
            return cudaSuccess;
        emu_note_library((double)n * (sizeof *in + sizeof *out));
        Count k = 0;
        for (long long i = 0; i < n; i++)
            if (keep(in[i]))
                out[k++] = in[i];
        *selected = k;
        return cudaSuccess;
    }
};

} // namespace cub

#endif
