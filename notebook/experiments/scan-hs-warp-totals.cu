/* scan-hs-warp-totals.cu: scan-HS's stage 3 as it is ("two": warp 0 scans the
 * warps' totals between two barriers), with one barrier ("one": every warp
 * scans them), with a loop over the warps before ("sum"), with CUB's unrolled
 * sum over a compile-time count of warps ("unr"), the same with exclusive
 * as inclusive less the value ("unr2"), against cub::BlockScan<int, 256>;
 * ints, blocks of 256, median of 20 CUDA-event runs after 3.
 * notebook/scan-HS.md ("scan-HS's stage 3 against cub::BlockScan") has what it printed.
 * With the argument 2 (a second set, issue 35): "two" and "unr" with their
 * loads and stores marked streaming (__ldcs, __stcs: the data is not read
 * again, so L2 may evict it first; "twoS", "unrS"), and "unr" with no bounds
 * tests in blocks that lie wholly below n ("unrF").
 * With the argument 3 (a third set): stage 3 with the exclusive result's
 * shuffle moved before the first barrier ("twoE"), with warp 0 scanning the
 * warps' totals in only as many steps as there are warps ("twoN": 3 for 8
 * warps, not 5), both ("twoEN"), and both with streaming loads and stores
 * ("twoENS"); every ratio beside CUB's in the same run, three repeats.
 * With the argument 4 (a fourth set): CUB's own block scans side by side,
 * the library row's default (BLOCK_SCAN_RAKING, "lib": warp 0 rakes the
 * block's values serially, then scans), BLOCK_SCAN_WARP_SCANS ("libW": the
 * idea of stage 3, in CUB's hands) and BLOCK_SCAN_RAKING_MEMOIZE ("libM");
 * stage 3 as it is ("two"), stage 3 with the block's size known when it
 * compiles ("twoC"), and the second set's closest ("unrS"); three repeats.
 * With the argument 5 (a fifth set): stage 3's scan over 2 or 4 segments a
 * block, every thread loading its value of each before scanning any
 * ("seg2", "seg4"); persistent blocks that load the next segment's value
 * before scanning the current one ("pipe"); and cub::BlockScan given the
 * same loads first ("lib2", "lib4"); three repeats.
 *   nvcc -O3 -arch=sm_90 -std=c++17 scan-hs-warp-totals.cu -o scan-hs-warp-totals
 */
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#include "common.cuh"
#define FULL 0xffffffffu
template <typename T> __device__ T wscan(T v)
{
    unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (unsigned o = 1; o < 32; o *= 2) { T b = __shfl_up_sync(FULL, v, o); if (lane >= o) v += b; }
    return v;
}
template <typename T> __global__ void two(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    T v = wscan(i < n ? in[i] : T(0));
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) { T t = lane < blockDim.x / 32 ? warp_totals[lane] : T(0); warp_totals[lane] = wscan(t); }
    __syncthreads();
    T before = warp > 0 ? warp_totals[warp - 1] : T(0);
    T below = __shfl_up_sync(FULL, v, 1);
    if (i < n) out[i] = before + (inclusive ? v : lane > 0 ? below : T(0));
}
template <typename T> __global__ void one(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    T v = wscan(i < n ? in[i] : T(0));
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    T t = wscan(lane < blockDim.x / 32 ? warp_totals[lane] : T(0));
    T before = __shfl_sync(FULL, t, (warp + 31) % 32);
    if (warp == 0) before = T(0);
    T below = __shfl_up_sync(FULL, v, 1);
    if (i < n) out[i] = before + (inclusive ? v : lane > 0 ? below : T(0));
}
// the same, each thread adding the totals of the warps before its own (CUB's way)
template <typename T> __global__ void sum(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    T v = wscan(i < n ? in[i] : T(0));
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    T before = T(0);
    for (unsigned w = 0; w < warp; w++) before += warp_totals[w];
    T below = __shfl_up_sync(FULL, v, 1);
    if (i < n) out[i] = before + (inclusive ? v : lane > 0 ? below : T(0));
}
// CUB's way: every thread reads the warps' totals (unrolled, a compile-time count) and keeps its prefix
template <typename T, int WARPS> __global__ void unr(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[WARPS];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    T x = i < n ? in[i] : T(0);
    T v = wscan(x);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    T before = T(0), running = T(0);
#pragma unroll
    for (int w = 0; w < WARPS; w++) { if (w == (int)warp) before = running; running += warp_totals[w]; }
    T below = __shfl_up_sync(FULL, v, 1);
    if (i < n) out[i] = before + (inclusive ? v : lane > 0 ? below : T(0));
}
// the same, exclusive as inclusive less the value (no second shuffle)
template <typename T, int WARPS> __global__ void unr2(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[WARPS];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    T x = i < n ? in[i] : T(0);
    T v = wscan(x);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    T before = T(0), running = T(0);
#pragma unroll
    for (int w = 0; w < WARPS; w++) { if (w == (int)warp) before = running; running += warp_totals[w]; }
    if (i < n) out[i] = before + (inclusive ? v : v - x);
}
// the second set: streaming loads and stores, and whole blocks without bounds tests
template <typename T> __global__ void twoS(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    T v = wscan(i < n ? __ldcs(in + i) : T(0));
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) { T t = lane < blockDim.x / 32 ? warp_totals[lane] : T(0); warp_totals[lane] = wscan(t); }
    __syncthreads();
    T before = warp > 0 ? warp_totals[warp - 1] : T(0);
    T below = __shfl_up_sync(FULL, v, 1);
    if (i < n) __stcs(out + i, before + (inclusive ? v : lane > 0 ? below : T(0)));
}
template <typename T, int WARPS, bool STREAM, bool WHOLE> __global__ void unrX(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[WARPS];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    bool whole = WHOLE && (blockIdx.x + 1) * (size_t)blockDim.x <= n;
    T x = whole || i < n ? (STREAM ? __ldcs(in + i) : in[i]) : T(0);
    T v = wscan(x);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    T before = T(0), running = T(0);
#pragma unroll
    for (int w = 0; w < WARPS; w++) { if (w == (int)warp) before = running; running += warp_totals[w]; }
    T below = __shfl_up_sync(FULL, v, 1);
    T y = before + (inclusive ? v : lane > 0 ? below : T(0));
    if (whole || i < n) { if (STREAM) __stcs(out + i, y); else out[i] = y; }
}
// the third set: the exclusive shuffle before the barrier (E), warp 0's
// scan of the totals in log2(warps) steps (N), streaming (S)
template <typename T, bool EARLY, bool NARROW, bool STREAM> __global__ void twoX(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32, warps = blockDim.x / 32;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    T v = wscan(i < n ? (STREAM ? __ldcs(in + i) : in[i]) : T(0));
    T below = T(0);
    if (EARLY) below = __shfl_up_sync(FULL, v, 1);
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) {
        T t = lane < warps ? warp_totals[lane] : T(0);
        if (NARROW) {
            for (unsigned o = 1; o < warps; o *= 2) { T b = __shfl_up_sync(FULL, t, o); if (lane >= o) t += b; }
        } else
            t = wscan(t);
        warp_totals[lane] = t;
    }
    __syncthreads();
    T before = warp > 0 ? warp_totals[warp - 1] : T(0);
    if (!EARLY) below = __shfl_up_sync(FULL, v, 1);
    T y = before + (inclusive ? v : lane > 0 ? below : T(0));
    if (i < n) { if (STREAM) __stcs(out + i, y); else out[i] = y; }
}
template <typename T, int TH> __global__ void lib(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    typedef cub::BlockScan<T, TH> scan;
    __shared__ typename scan::TempStorage temp;
    size_t i = blockIdx.x * (size_t)TH + threadIdx.x;
    T x = i < n ? in[i] : T(0);
    if (inclusive) scan(temp).InclusiveSum(x, x); else scan(temp).ExclusiveSum(x, x);
    if (i < n) out[i] = x;
}
// the fourth set: CUB's other block scans, and stage 3 with a compile-time block
template <typename T, int TH, cub::BlockScanAlgorithm ALG> __global__ void libA(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    typedef cub::BlockScan<T, TH, ALG> scan;
    __shared__ typename scan::TempStorage temp;
    size_t i = blockIdx.x * (size_t)TH + threadIdx.x;
    T x = i < n ? in[i] : T(0);
    if (inclusive) scan(temp).InclusiveSum(x, x); else scan(temp).ExclusiveSum(x, x);
    if (i < n) out[i] = x;
}
template <typename T, int TH> __global__ void twoC(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    size_t i = blockIdx.x * (size_t)TH + tid;
    T v = wscan(i < n ? in[i] : T(0));
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();
    if (warp == 0) { T t = lane < TH / 32 ? warp_totals[lane] : T(0); warp_totals[lane] = wscan(t); }
    __syncthreads();
    T before = warp > 0 ? warp_totals[warp - 1] : T(0);
    T below = __shfl_up_sync(FULL, v, 1);
    if (i < n) out[i] = before + (inclusive ? v : lane > 0 ? below : T(0));
}
// the fifth set: S segments a block, each thread loading one value of each
// before it scans any (S loads in flight, one pair of barriers for S scans);
// "pipe": persistent blocks, each loading its next segment's value before it
// scans the current one; libS: cub::BlockScan given the same S loads first
template <typename T, int S> __global__ void segs(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[S][32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    size_t first = blockIdx.x * (size_t)blockDim.x * S + tid;
    T v[S];
#pragma unroll
    for (int s = 0; s < S; s++) { size_t i = first + s * (size_t)blockDim.x; v[s] = i < n ? in[i] : T(0); }
#pragma unroll
    for (int s = 0; s < S; s++) { v[s] = wscan(v[s]); if (lane == 31) warp_totals[s][warp] = v[s]; }
    __syncthreads();
    if (warp < S) { T t = lane < blockDim.x / 32 ? warp_totals[warp][lane] : T(0); warp_totals[warp][lane] = wscan(t); }
    __syncthreads();
#pragma unroll
    for (int s = 0; s < S; s++) {
        size_t i = first + s * (size_t)blockDim.x;
        T before = warp > 0 ? warp_totals[s][warp - 1] : T(0);
        T below = __shfl_up_sync(FULL, v[s], 1);
        if (i < n) out[i] = before + (inclusive ? v[s] : lane > 0 ? below : T(0));
    }
}
template <typename T> __global__ void pipe(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    __shared__ T warp_totals[2][32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32, b = 0;
    size_t segments = (n + blockDim.x - 1) / blockDim.x, seg = blockIdx.x;
    size_t i = seg * blockDim.x + tid;
    T x = seg < segments && i < n ? in[i] : T(0);
    for (; seg < segments; seg += gridDim.x, b ^= 1) {
        size_t j = (seg + gridDim.x) * blockDim.x + tid;
        T next = seg + gridDim.x < segments && j < n ? in[j] : T(0);
        T v = wscan(x);
        if (lane == 31) warp_totals[b][warp] = v;
        __syncthreads();
        if (warp == 0) { T t = lane < blockDim.x / 32 ? warp_totals[b][lane] : T(0); warp_totals[b][lane] = wscan(t); }
        __syncthreads();
        T before = warp > 0 ? warp_totals[b][warp - 1] : T(0);
        T below = __shfl_up_sync(FULL, v, 1);
        if (i < n) out[i] = before + (inclusive ? v : lane > 0 ? below : T(0));
        i = j; x = next;
    }
}
template <typename T, int TH, int S> __global__ void libS(const T *__restrict__ in, T *__restrict__ out, size_t n, bool inclusive)
{
    typedef cub::BlockScan<T, TH> scan;
    __shared__ typename scan::TempStorage temp[S];
    size_t first = blockIdx.x * (size_t)TH * S + threadIdx.x;
    T x[S];
#pragma unroll
    for (int s = 0; s < S; s++) { size_t i = first + s * (size_t)TH; x[s] = i < n ? in[i] : T(0); }
#pragma unroll
    for (int s = 0; s < S; s++) {
        if (inclusive) scan(temp[s]).InclusiveSum(x[s], x[s]); else scan(temp[s]).ExclusiveSum(x[s], x[s]);
        size_t i = first + s * (size_t)TH;
        if (i < n) out[i] = x[s];
    }
}
// Sets 2 to 4: the copy, CUB's scan into ref, then five kernels, each checked
// against ref; every ratio over CUB's time in the same run.
typedef void (*launcher)(int *in, int *out, size_t n, unsigned grid, int inclusive);
static unsigned resident_grid; // the fifth set's persistent blocks: 8 of 256 threads an SM
static int timed_set(int *in, int *out, int *ref, int repeats, const char *names[5], const launcher run[5])
{
    printf("%-6s %-4s %9s %9s", "n", "incl", "copy", "lib");
    for (int k = 0; k < 5; k++) printf(" %9s", names[k]);
    printf(" ");
    for (int k = 0; k < 5; k++) printf(" %s", names[k]);
    printf(" over lib (repeat %d)\n", repeats);
    for (int rep = 0; rep < repeats; rep++)
    for (int e : {22, 24, 26, 28}) for (int inc : {0, 1}) {
        size_t n = 1ull << e; unsigned g = (unsigned)((n + 255) / 256);
        float c = med_upper([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
        float l = med_upper([&] { lib<int, 256><<<g, 256>>>(in, ref, n, inc); });
        std::vector<int> a(n), b(n); cudaMemcpy(a.data(), ref, n * 4, cudaMemcpyDeviceToHost);
        bool ok = true;
        float t[5];
        for (int k = 0; k < 5; k++) {
            t[k] = med_upper([&] { run[k](in, out, n, g, inc); });
            cudaMemcpy(b.data(), out, n * 4, cudaMemcpyDeviceToHost); ok = ok && a == b;
        }
        printf("2^%-4d %-4d %9.4f %9.4f", e, inc, c, l);
        for (int k = 0; k < 5; k++) printf(" %9.4f", t[k]);
        printf(" ");
        for (int k = 0; k < 5; k++) printf(" %.3f", t[k] / l);
        printf("%s\n", ok ? "" : " WRONG");
        fflush(stdout);
    }
    return 0;
}
#define LAUNCH(...) [](int *in, int *out, size_t n, unsigned g, int inc) { __VA_ARGS__<<<g, 256>>>(in, out, n, inc); }
static int second_set(int *in, int *out, int *ref)
{
    const char *names[5] = {"two", "unr", "twoS", "unrS", "unrF"};
    const launcher run[5] = {LAUNCH(two<int>), LAUNCH(unr<int, 8>), LAUNCH(twoS<int>),
                             LAUNCH(unrX<int, 8, true, false>), LAUNCH(unrX<int, 8, false, true>)};
    return timed_set(in, out, ref, 2, names, run);
}
static int third_set(int *in, int *out, int *ref)
{
    const char *names[5] = {"two", "twoE", "twoN", "twoEN", "twoENS"};
    const launcher run[5] = {LAUNCH(twoX<int, false, false, false>), LAUNCH(twoX<int, true, false, false>),
                             LAUNCH(twoX<int, false, true, false>), LAUNCH(twoX<int, true, true, false>),
                             LAUNCH(twoX<int, true, true, true>)};
    return timed_set(in, out, ref, 3, names, run);
}
static int fourth_set(int *in, int *out, int *ref)
{
    const char *names[5] = {"libW", "libM", "two", "twoC", "unrS"};
    const launcher run[5] = {LAUNCH(libA<int, 256, cub::BLOCK_SCAN_WARP_SCANS>),
                             LAUNCH(libA<int, 256, cub::BLOCK_SCAN_RAKING_MEMOIZE>), LAUNCH(two<int>),
                             LAUNCH(twoC<int, 256>), LAUNCH(unrX<int, 8, true, false>)};
    return timed_set(in, out, ref, 3, names, run);
}
#define LAUNCH_SEGS(S, ...) [](int *in, int *out, size_t n, unsigned g, int inc) { __VA_ARGS__<<<(g + S - 1) / S, 256>>>(in, out, n, inc); }
static int fifth_set(int *in, int *out, int *ref)
{
    int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0); resident_grid = 8u * sms;
    const char *names[5] = {"seg2", "seg4", "pipe", "lib2", "lib4"};
    const launcher run[5] = {LAUNCH_SEGS(2, segs<int, 2>), LAUNCH_SEGS(4, segs<int, 4>),
                             [](int *in, int *out, size_t n, unsigned g, int inc) { pipe<int><<<g < resident_grid ? g : resident_grid, 256>>>(in, out, n, inc); },
                             LAUNCH_SEGS(2, libS<int, 256, 2>), LAUNCH_SEGS(4, libS<int, 256, 4>)};
    return timed_set(in, out, ref, 3, names, run);
}
int main(int argc, char **argv)
{
    size_t most = 1ull << 28;
    int *in, *out, *ref; cudaMalloc(&in, most * 4); cudaMalloc(&out, most * 4); cudaMalloc(&ref, most * 4);
    std::vector<int> h(most); for (size_t i = 0; i < most; i++) h[i] = (int)(i * 2654435761u % 1000);
    cudaMemcpy(in, h.data(), most * 4, cudaMemcpyHostToDevice);
    if (argc > 1 && argv[1][0] == '2') return second_set(in, out, ref);
    if (argc > 1 && argv[1][0] == '3') return third_set(in, out, ref);
    if (argc > 1 && argv[1][0] == '4') return fourth_set(in, out, ref);
    if (argc > 1 && argv[1][0] == '5') return fifth_set(in, out, ref);
    printf("%-6s %-4s %9s %9s %9s %9s %9s %9s %9s  two one sum unr unr2 over lib (repeat 2)\n", "n", "incl", "copy", "lib", "two", "one", "sum", "unr", "unr2");
    for (int rep = 0; rep < 2; rep++)
    for (int e : {22, 24, 26, 28}) for (int inc : {0, 1}) {
        size_t n = 1ull << e; unsigned g = (unsigned)((n + 255) / 256);
        float c = med_upper([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
        float l = med_upper([&] { lib<int, 256><<<g, 256>>>(in, ref, n, inc); });
        float t2 = med_upper([&] { two<int><<<g, 256>>>(in, out, n, inc); });
        float t1 = med_upper([&] { one<int><<<g, 256>>>(in, out, n, inc); });
        std::vector<int> a(n), b(n); cudaMemcpy(a.data(), ref, n * 4, cudaMemcpyDeviceToHost); cudaMemcpy(b.data(), out, n * 4, cudaMemcpyDeviceToHost);
        bool ok = a == b;
        float ts = med_upper([&] { sum<int><<<g, 256>>>(in, out, n, inc); });
        cudaMemcpy(b.data(), out, n * 4, cudaMemcpyDeviceToHost); ok = ok && a == b;
        float tu = med_upper([&] { unr<int, 8><<<g, 256>>>(in, out, n, inc); });
        cudaMemcpy(b.data(), out, n * 4, cudaMemcpyDeviceToHost); ok = ok && a == b;
        float tu2 = med_upper([&] { unr2<int, 8><<<g, 256>>>(in, out, n, inc); });
        cudaMemcpy(b.data(), out, n * 4, cudaMemcpyDeviceToHost); ok = ok && a == b;
        printf("2^%-4d %-4d %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f %9.4f  %.3f %.3f %.3f %.3f %.3f%s\n", e, inc, c, l, t2, t1, ts, tu, tu2, t2 / l, t1 / l, ts / l, tu / l, tu2 / l, ok ? "" : " WRONG");
    }
    return 0;
}
