/* cub/cub.cuh, emulated: the CUB calls the workbook's library rows make,
 * computed by plain loops (EMU=1). Same signatures, same two-call protocol:
 * a first call with no temporary storage asks how many bytes to allocate.
 * Device memory is host memory here, so the device-wide algorithms run on
 * the calling thread; the block-wide ones run inside the kernel, with
 * barriers, so the race detector watches them like any other code. */
#ifndef EMU_CUB_CUH
#define EMU_CUB_CUH

#include "../cuda_runtime.h"

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

/* Block-wide: every thread of the block calls, as with CUB. Thread 0 does the
 * work between two barriers, the simplest correct way. */
template <typename T, int BLOCK> class BlockScan {
  public:
    struct TempStorage {
        T values[BLOCK];
    };
    __device__ BlockScan(TempStorage &storage) : s(storage) {}
    __device__ void ExclusiveSum(T in, T &out) { scan(in, out, false); }
    __device__ void InclusiveSum(T in, T &out) { scan(in, out, true); }
    /* ITEMS values a thread, in order: thread t holds items t*ITEMS.. */
    template <int ITEMS> __device__ void ExclusiveSum(T (&in)[ITEMS], T (&out)[ITEMS])
    {
        items(in, out, false);
    }
    template <int ITEMS> __device__ void InclusiveSum(T (&in)[ITEMS], T (&out)[ITEMS])
    {
        items(in, out, true);
    }

  private:
    TempStorage &s;
    __device__ void scan(T in, T &out, bool inclusive)
    {
        unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
        s.values[t] = in;
        __syncthreads();
        if (t == 0) {
            T sum = T();
            for (int i = 0; i < BLOCK; i++) {
                T x = s.values[i];
                sum += x;
                s.values[i] = inclusive ? sum : sum - x;
            }
        }
        __syncthreads();
        out = s.values[t];
        __syncthreads(); /* the storage may be reused at once */
    }
    template <int ITEMS> __device__ void items(T (&in)[ITEMS], T (&out)[ITEMS], bool inclusive)
    {
        T sum = T(), own[ITEMS];
        for (int k = 0; k < ITEMS; k++)
            sum += own[k] = in[k];
        T before;
        scan(sum, before, false);
        for (int k = 0; k < ITEMS; k++) {
            if (inclusive)
                before += own[k];
            out[k] = before;
            if (!inclusive)
                before += own[k];
        }
    }
};

template <typename T, int BLOCK> class BlockReduce {
  public:
    struct TempStorage {
        T values[BLOCK];
    };
    __device__ BlockReduce(TempStorage &storage) : s(storage) {}
    /* The sum, in thread 0 only (as CUB) */
    __device__ T Sum(T in)
    {
        unsigned t = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
        s.values[t] = in;
        __syncthreads();
        T sum = T();
        if (t == 0)
            for (int i = 0; i < BLOCK; i++)
                sum += s.values[i];
        __syncthreads();
        return t == 0 ? sum : in;
    }

  private:
    TempStorage &s;
};

} // namespace cub

#endif
