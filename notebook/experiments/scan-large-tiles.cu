/* scan-large-tiles.cu: scan-large-arrays' stage 4 (single pass, decoupled
 * look-back) as committed at 2a0435a, and variants of its tile, against
 * cub::DeviceScan in the same run, at n = 2^20 .. 2^28, ints exclusive and
 * floats inclusive. Each time is the median of 20 CUDA-event runs after 3,
 * the status words' cudaMemsetAsync included, as make run times it.
 *
 *   A  the committed kernel: 256 threads, 24 values a thread, the tile
 *      crossing shared memory block-wide (a barrier in each of load and store)
 *   W  A with each warp moving its own part of the tile (__syncwarp only)
 *   S  W with a sleep before the look-back's first read and between reads
 *      (CUB's sm_90 tuning for 4-byte sums sleeps too)
 *   H  W with 16 values a thread (tiles of 4096); H8 the same held to
 *      32 registers, so that eight blocks fit on an SM
 *   Q  W with 128 threads a block (tiles of 3072, CUB's sm_90 shape)
 *   B  W with 512 threads a block
 *
 * With the argument 2, a second set, each against A: the first look-back
 * read delayed (by 600 or 1200 ns) with the tile crossing shared memory as
 * in A (A6, A12) and with 512 threads (B6); and without the ticket, the tile
 * taken from blockIdx.x as CUB takes it (AN, SN: A and S so changed).
 *
 * With the argument 3: A and A12 (stage 4 as committed at 0d80771) at n
 * around 2^24, where A's 2731 tiles are 3.45 times the 792 an H100 holds at
 * once (six blocks an SM): n of exactly 3 and 4 such waves, and 2^24.
 *
 *   nvcc -O3 -arch=sm_90 -std=c++17 scan-large-tiles.cu -o scan-large-tiles
 */
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "common.cuh"
typedef unsigned long long u64;
enum { FULL = 0xffffffffu, NOT_READY = 0, AGGREGATE = 1, PREFIX = 2 };

template <typename T> struct v4;
template <> struct v4<int> { typedef int4 t; };
template <> struct v4<float> { typedef float4 t; };
__device__ unsigned bits(int v) { return (unsigned)v; }
__device__ unsigned bits(float v) { return __float_as_uint(v); }
template <typename T> __device__ T unbits(unsigned b);
template <> __device__ int unbits<int>(unsigned b) { return (int)b; }
template <> __device__ float unbits<float>(unsigned b) { return __uint_as_float(b); }
template <typename T> __device__ u64 word(unsigned flag, T v) { return (u64)flag << 32 | bits(v); }

template <typename T> __device__ T wscan(T v)
{
    unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (unsigned o = 1; o < 32; o *= 2) { T b = __shfl_up_sync(FULL, v, o); if (lane >= o) v += b; }
    return v;
}
template <typename T> __device__ T wsum(T v)
{
#pragma unroll
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(FULL, v, o);
    return v;
}
template <typename T> __device__ T bscan(T v, T *total)
{
    __shared__ T wt[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    T inc = wscan(v);
    if (lane == 31) wt[warp] = inc;
    __syncthreads();
    if (warp == 0) { T t = lane < blockDim.x / 32 ? wt[lane] : T(0); wt[lane] = wscan(t); }
    __syncthreads();
    *total = wt[blockDim.x / 32 - 1];
    T before = warp > 0 ? wt[warp - 1] : T(0);
    T below = __shfl_up_sync(FULL, inc, 1);
    __syncthreads();
    return before + (lane > 0 ? below : T(0));
}

template <typename T, int IT, bool WARP>
__device__ void load(const T *in, size_t base, size_t n, T (&x)[IT], T *s)
{
    typedef typename v4<T>::t T4;
    unsigned tid = threadIdx.x, tile = blockDim.x * IT;
    if (base + tile <= n) {
        const T4 *in4 = reinterpret_cast<const T4 *>(in + base);
        T4 *s4 = reinterpret_cast<T4 *>(s);
        if (WARP) {
            unsigned part = (tid / 32) * 8 * IT, lane = tid % 32;
#pragma unroll
            for (int k = 0; k < IT / 4; k++) s4[part + 32 * k + lane] = in4[part + 32 * k + lane];
            __syncwarp();
        } else {
#pragma unroll
            for (int k = 0; k < IT / 4; k++) s4[k * blockDim.x + tid] = in4[k * blockDim.x + tid];
            __syncthreads();
        }
    } else {
        for (unsigned k = tid; k < tile; k += blockDim.x) s[k] = base + k < n ? in[base + k] : T(0);
        __syncthreads();
    }
    const T4 *mine = reinterpret_cast<const T4 *>(s + tid * IT);
#pragma unroll
    for (int q = 0; q < IT / 4; q++) { T4 v = mine[q]; x[4 * q] = v.x, x[4 * q + 1] = v.y, x[4 * q + 2] = v.z, x[4 * q + 3] = v.w; }
}
template <typename T, int IT, bool WARP>
__device__ void store(T *out, size_t base, size_t n, const T (&y)[IT], T *s)
{
    typedef typename v4<T>::t T4;
    unsigned tid = threadIdx.x, tile = blockDim.x * IT;
    T4 *mine = reinterpret_cast<T4 *>(s + tid * IT);
#pragma unroll
    for (int q = 0; q < IT / 4; q++) mine[q] = T4{y[4 * q], y[4 * q + 1], y[4 * q + 2], y[4 * q + 3]};
    if (base + tile <= n) {
        T4 *out4 = reinterpret_cast<T4 *>(out + base);
        const T4 *s4 = reinterpret_cast<const T4 *>(s);
        if (WARP) {
            __syncwarp();
            unsigned part = (tid / 32) * 8 * IT, lane = tid % 32;
#pragma unroll
            for (int k = 0; k < IT / 4; k++) out4[part + 32 * k + lane] = s4[part + 32 * k + lane];
        } else {
            __syncthreads();
#pragma unroll
            for (int k = 0; k < IT / 4; k++) out4[k * blockDim.x + tid] = s4[k * blockDim.x + tid];
        }
    } else {
        __syncthreads();
        for (unsigned k = tid; k < tile; k += blockDim.x) if (base + k < n) out[base + k] = s[k];
    }
}

template <typename T, int TH, int IT, int MINB, bool WARP, int SLEEP, bool TICKET = true>
__global__ void __launch_bounds__(TH, MINB) scan4(const T *in, T *out, size_t n, u64 *status, bool inclusive)
{
    extern __shared__ int4 words4[];
    T *s = reinterpret_cast<T *>(words4);
    __shared__ u64 my_tile;
    __shared__ T my_prefix;
    volatile u64 *words = status + 1;
    if (threadIdx.x == 0) my_tile = TICKET ? atomicAdd(&status[0], 1ULL) : blockIdx.x;
    __syncthreads();
    long long tile = (long long)my_tile;
    size_t base = (size_t)tile * TH * IT;
    T x[IT];
    load<T, IT, WARP>(in, base, n, x, s);
    T sum = T(0);
#pragma unroll
    for (int j = 0; j < IT; j++) sum += x[j];
    T total;
    T before = bscan(sum, &total);
    if (threadIdx.x < 32) {
        unsigned lane = threadIdx.x;
        if (lane == 0) words[tile] = word(tile == 0 ? PREFIX : AGGREGATE, total);
        T prefix = T(0);
        if (SLEEP && tile > 0) __nanosleep((unsigned)(SLEEP < 0 ? -SLEEP : SLEEP));
        for (long long look = tile - 1; look >= 0; look -= 32) {
            long long j = look - lane;
            u64 w;
            for (;;) {
                w = j >= 0 ? words[j] : word(PREFIX, T(0));
                if (!__any_sync(FULL, (unsigned)(w >> 32) == NOT_READY)) break;
                if (SLEEP > 0) __nanosleep((unsigned)(SLEEP > 0 ? SLEEP / 2 : 0));
            }
            unsigned prefixes = __ballot_sync(FULL, (unsigned)(w >> 32) == PREFIX);
            int nearest = prefixes ? __ffs(prefixes) - 1 : 31;
            prefix += wsum((int)lane <= nearest ? unbits<T>((unsigned)w) : T(0));
            if (prefixes) break;
        }
        if (lane == 0) { if (tile > 0) words[tile] = word(PREFIX, prefix + total); my_prefix = prefix; }
    }
    __syncthreads();
    T run = my_prefix + before;
#pragma unroll
    for (int j = 0; j < IT; j++) { T v = x[j]; if (inclusive) run += v; x[j] = run; if (!inclusive) run += v; }
    store<T, IT, WARP>(out, base, n, x, s);
}

template <typename T, int TH, int IT, int MINB, bool WARP, int SLEEP, bool TICKET = true>
void run4(const T *in, T *out, size_t n, u64 *status, bool inclusive)
{
    size_t tile = (size_t)TH * IT, tiles = (n + tile - 1) / tile, smem = tile * sizeof(T);
    CK(cudaMemsetAsync(status, 0, (1 + tiles) * sizeof(u64)));
    auto k = scan4<T, TH, IT, MINB, WARP, SLEEP, TICKET>;
    static bool set = false;
    if (!set) { CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)); set = true; }
    k<<<tiles, TH, smem>>>(in, out, n, status, inclusive);
}

struct variant { const char *name; void (*i)(const int *, int *, size_t, u64 *, bool); void (*f)(const float *, float *, size_t, u64 *, bool); };
#define V(nm, ...) {nm, run4<int, __VA_ARGS__>, run4<float, __VA_ARGS__>}
// SLEEP > 0: sleep SLEEP ns before the look-back's first read and SLEEP / 2 between reads;
// SLEEP < 0: -SLEEP ns before the first read only
static const variant set2[] = {
    V("A", 256, 24, 6, false, 0), V("A6", 256, 24, 6, false, -600), V("A12", 256, 24, 6, false, -1200),
    V("S", 256, 24, 6, true, 600), V("B6", 512, 24, 3, false, -600),
    V("AN", 256, 24, 6, false, 0, false), V("SN", 256, 24, 6, true, 600, false),
};
static const variant set3[] = {V("A", 256, 24, 6, false, 0), V("A12", 256, 24, 6, false, -1200)};
static const variant set1[] = {
    V("A", 256, 24, 6, false, 0), V("W", 256, 24, 6, true, 0), V("S", 256, 24, 6, true, 600),
    V("H", 256, 16, 6, true, 0), V("H8", 256, 16, 8, true, 0), V("Q", 128, 24, 12, true, 0), V("B", 512, 24, 3, true, 0),
};
static const variant *variants = set1;
static int NV = sizeof set1 / sizeof *set1;

template <typename T>
void row(const char *kind, bool inclusive, size_t n, T *in, T *out, T *ref, u64 *status, void *temp, size_t temp_bytes, float copy, int rep)
{
    auto lib = [&] { size_t b = temp_bytes; if (inclusive) cub::DeviceScan::InclusiveSum(temp, b, in, ref, n); else cub::DeviceScan::ExclusiveSum(temp, b, in, ref, n); };
    float tl = med(lib);
    std::vector<T> want(n), got(n);
    CK(cudaMemcpy(want.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
    printf("%-9zu %-16s %d %8.4f %8.4f", n, kind, rep, copy, tl);
    float t[16];
    for (int v = 0; v < NV; v++) {
        auto go = [&] { if constexpr (sizeof(T) == 4 && std::is_same<T, int>::value) variants[v].i((const int *)in, (int *)out, n, status, inclusive); else variants[v].f((const float *)in, (float *)out, n, status, inclusive); };
        CK(cudaMemset(out, 0xff, n * sizeof(T)));
        go(); CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(got.data(), out, n * sizeof(T), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t k = 0; k < n; k++) {
            double g = got[k], w = want[k];
            if (std::is_same<T, int>::value ? g != w : !(std::abs(g - w) <= 1e-3 * (1 + std::abs(w)))) bad++;
        }
        t[v] = med(go);
        printf(" %8.4f%s", t[v], bad ? "!" : "");
    }
    printf("  ");
    for (int v = 0; v < NV; v++) printf(" %5.3f", t[v] / tl);
    printf("\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc > 1 && argv[1][0] == '2') variants = set2, NV = sizeof set2 / sizeof *set2;
    if (argc > 1 && argv[1][0] == '3') variants = set3, NV = sizeof set3 / sizeof *set3;
    size_t most = 1ull << 28;
    int *in, *out, *ref; u64 *status; void *temp; size_t temp_bytes = 0;
    CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4)); CK(cudaMalloc(&ref, most * 4));
    CK(cudaMalloc(&status, (most / 1024 + 2) * 8));
    cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, in, ref, most);
    size_t b2 = 0; cub::DeviceScan::InclusiveSum(NULL, b2, (float *)in, (float *)ref, most);
    temp_bytes = std::max(temp_bytes, b2);
    CK(cudaMalloc(&temp, temp_bytes));
    std::vector<int> h(most);
    srand(1);
    for (size_t i = 0; i < most; i++) h[i] = rand() % 16 - 8;
    CK(cudaMemcpy(in, h.data(), most * 4, cudaMemcpyHostToDevice));
    printf("n         kind             r     copy      lib");
    for (int v = 0; v < NV; v++) printf(" %8s", variants[v].name);
    printf("   each over lib\n");
    std::vector<size_t> sizes;
    if (variants == set3)
        sizes = {3ull * 792 * 6144, 1ull << 24, 4ull * 792 * 6144};
    else
        for (int e = 20; e <= 28; e += variants == set1 ? 2 : 1) sizes.push_back(1ull << e);
    for (int rep = 0; rep < (variants == set3 ? 3 : 2); rep++)
        for (size_t n : sizes) {
            float copy = med([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
            row<int>("exclusive-int", false, n, in, out, ref, status, temp, temp_bytes, copy, rep);
            // the same bits read as floats: small integers' float values are exact enough
            std::vector<float> hf(n);
            for (size_t i = 0; i < n; i++) hf[i] = (float)h[i] * 0.25f;
            CK(cudaMemcpy(in, hf.data(), n * 4, cudaMemcpyHostToDevice));
            row<float>("inclusive-float", true, n, (float *)in, (float *)out, (float *)ref, status, temp, temp_bytes, copy, rep);
            CK(cudaMemcpy(in, h.data(), most * 4, cudaMemcpyHostToDevice));
        }
    return 0;
}
