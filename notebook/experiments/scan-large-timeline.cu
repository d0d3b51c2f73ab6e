/* scan-large-timeline.cu: where scan-large-arrays' stage 4 spends its time at
 * n = 2^22 and 2^24, the sizes where it trails cub::DeviceScan (issue 35).
 *
 * Part 1 (the timeline): stage 4 as committed at 6b54386 (256 threads, 24
 * values a thread, a ticket, a 1200 ns nap before the first look, 40
 * registers), with each tile stamping the global timer and its SM's clock at
 * five points: entry, ticket known, tile loaded and block-scanned, carry
 * known, tile stored. It prints each phase's median and 90th percentile,
 * how many look-back windows and re-reads the tiles needed, and how many
 * tiles were in flight over the kernel's span, in 16 slices; the stamps of
 * every tile go to $OUT/timeline-<n>.csv.
 *
 * Part 2 (variants against the library, same run, as scan-large-tiles.cu):
 * the first set (no second argument):
 *   A12  stage 4 as committed
 *   P12  A12 in persistent blocks (as many as fit at once), each taking its
 *        next ticket while it works on the current tile, so the ticket's
 *        round trip is hidden after the first
 *   W4   A12 with each look-back lane reading 4 words: 128 tiles a window
 *   AN   A12 with the tile from blockIdx.x (no ticket): what the ticket costs
 * The second set (second argument 2), after part 1 showed the tile that
 * reaches past n loading one value at a time, each load waiting for the
 * last, three times as long as the others:
 *   F12  A12 with that tile's ITEMS loads issued together (unrolled)
 *   FN   AN so changed
 * and part 1's timeline of F12 at 2^22 and 2^24.
 *
 *   nvcc -O3 -arch=sm_90 -std=c++17 scan-large-timeline.cu -o scan-large-timeline
 *   ./scan-large-timeline OUTDIR [2]
 */
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include "common.cuh"
typedef unsigned long long u64;
enum { FULL = 0xffffffffu, NOT_READY = 0, AGGREGATE = 1, PREFIX = 2, TH = 256, IT = 24, NAP = 1200 };

__device__ u64 now() { u64 t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__device__ unsigned smid() { unsigned s; asm volatile("mov.u32 %0, %%smid;" : "=r"(s)); return s; }

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

template <typename T, bool FIX> __device__ void load(const T *in, size_t base, size_t n, T (&x)[IT], T *s)
{
    typedef typename v4<T>::t T4;
    unsigned tid = threadIdx.x, tile = blockDim.x * IT;
    if (base + tile <= n) {
        const T4 *in4 = reinterpret_cast<const T4 *>(in + base);
        T4 *s4 = reinterpret_cast<T4 *>(s);
#pragma unroll
        for (int k = 0; k < IT / 4; k++) s4[k * blockDim.x + tid] = in4[k * blockDim.x + tid];
    } else if (FIX) { /* every load in flight at once */
#pragma unroll
        for (int k = 0; k < IT; k++) { size_t i = base + k * blockDim.x + tid; x[k] = i < n ? in[i] : T(0); }
#pragma unroll
        for (int k = 0; k < IT; k++) s[k * blockDim.x + tid] = x[k];
    } else {
        for (unsigned k = tid; k < tile; k += blockDim.x) s[k] = base + k < n ? in[base + k] : T(0);
    }
    __syncthreads();
    const T4 *mine = reinterpret_cast<const T4 *>(s + tid * IT);
#pragma unroll
    for (int q = 0; q < IT / 4; q++) { T4 v = mine[q]; x[4 * q] = v.x, x[4 * q + 1] = v.y, x[4 * q + 2] = v.z, x[4 * q + 3] = v.w; }
}
template <typename T> __device__ void store(T *out, size_t base, size_t n, const T (&y)[IT], T *s)
{
    typedef typename v4<T>::t T4;
    unsigned tid = threadIdx.x, tile = blockDim.x * IT;
    T4 *mine = reinterpret_cast<T4 *>(s + tid * IT);
#pragma unroll
    for (int q = 0; q < IT / 4; q++) mine[q] = T4{y[4 * q], y[4 * q + 1], y[4 * q + 2], y[4 * q + 3]};
    __syncthreads();
    if (base + tile <= n) {
        T4 *out4 = reinterpret_cast<T4 *>(out + base);
        const T4 *s4 = reinterpret_cast<const T4 *>(s);
#pragma unroll
        for (int k = 0; k < IT / 4; k++) out4[k * blockDim.x + tid] = s4[k * blockDim.x + tid];
    } else {
        for (unsigned k = tid; k < tile; k += blockDim.x) if (base + k < n) out[base + k] = s[k];
    }
}

/* Warp 0's look-back: the sum of the totals of every tile before `tile`.
 * Each lane reads LOOK words a window (lane L: tiles tile-1-L, tile-1-L-32,
 * ...), so a window covers 32 * LOOK tiles. */
template <typename T, int LOOK>
__device__ T look_back(volatile u64 *words, long long tile, unsigned *windows, unsigned *rereads)
{
    unsigned lane = threadIdx.x;
    T prefix = T(0);
    for (long long look = tile - 1; look >= 0; look -= 32 * LOOK) {
        ++*windows;
        u64 w[LOOK];
        bool missing;
        do {
            missing = false;
#pragma unroll
            for (int q = 0; q < LOOK; q++) {
                long long j = look - lane - 32 * q;
                w[q] = j >= 0 ? words[j] : word(PREFIX, T(0));
                missing |= (unsigned)(w[q] >> 32) == NOT_READY;
            }
            if (__any_sync(FULL, missing)) { ++*rereads; continue; }
            break;
        } while (true);
        bool done = false;
#pragma unroll
        for (int q = 0; q < LOOK; q++) {
            unsigned prefixes = __ballot_sync(FULL, (unsigned)(w[q] >> 32) == PREFIX);
            int nearest = prefixes ? __ffs(prefixes) - 1 : 31;
            prefix += wsum((int)lane <= nearest ? unbits<T>((unsigned)w[q]) : T(0));
            if (prefixes) { done = true; break; }
        }
        if (done) break;
    }
    return prefix;
}

struct stamp { u64 g0, g4; unsigned sm, c1, c2, c3, c4, windows, rereads, pad; };

/* One tile: load, block scan, publish, look back, finish, store. */
template <typename T, int LOOK, bool FIX>
__device__ void one_tile(const T *in, T *out, size_t n, volatile u64 *words, long long tile, bool inclusive,
                         T *s, T *my_prefix, stamp *st, long long c0)
{
    size_t base = (size_t)tile * TH * IT;
    T x[IT];
    load<T, FIX>(in, base, n, x, s);
    T sum = T(0);
#pragma unroll
    for (int j = 0; j < IT; j++) sum += x[j];
    T total;
    T before = bscan(sum, &total);
    long long c2 = clock64();
    unsigned windows = 0, rereads = 0;
    if (threadIdx.x < 32) {
        if (threadIdx.x == 0) words[tile] = word(tile == 0 ? PREFIX : AGGREGATE, total);
        if (tile > 0) __nanosleep(NAP);
        T prefix = look_back<T, LOOK>(words, tile, &windows, &rereads);
        if (threadIdx.x == 0) { if (tile > 0) words[tile] = word(PREFIX, prefix + total); *my_prefix = prefix; }
    }
    __syncthreads();
    long long c3 = clock64();
    T run = *my_prefix + before;
#pragma unroll
    for (int j = 0; j < IT; j++) { T v = x[j]; if (inclusive) run += v; x[j] = run; if (!inclusive) run += v; }
    store<T>(out, base, n, x, s);
    if (st && threadIdx.x == 0) {
        stamp &m = st[tile];
        m.c2 = (unsigned)(c2 - c0), m.c3 = (unsigned)(c3 - c0), m.c4 = (unsigned)(clock64() - c0);
        m.windows = windows, m.rereads = rereads, m.g4 = now();
    }
}

/* MODE 0: a ticket per block (A12, W4); 1: no ticket (AN); STAMP: fill st;
 * FIX: the last tile's loads all in flight at once. */
template <typename T, int LOOK, int MODE, bool STAMP, bool FIX = false>
__global__ void __maxnreg__(40) scan4(const T *in, T *out, size_t n, u64 *status, bool inclusive, stamp *st)
{
    extern __shared__ int4 words4[];
    T *s = reinterpret_cast<T *>(words4);
    __shared__ u64 my_tile;
    __shared__ T my_prefix;
    long long c0 = clock64();
    u64 g0 = STAMP ? now() : 0;
    if (threadIdx.x == 0) my_tile = MODE == 0 ? atomicAdd(&status[0], 1ULL) : blockIdx.x;
    __syncthreads();
    long long tile = (long long)my_tile;
    if (STAMP && threadIdx.x == 0) { st[tile].g0 = g0; st[tile].sm = smid(); st[tile].c1 = (unsigned)(clock64() - c0); }
    one_tile<T, LOOK, FIX>(in, out, n, status + 1, tile, inclusive, s, &my_prefix, STAMP ? st : nullptr, c0);
}

/* Persistent: gridDim.x blocks take tickets until the tiles run out; the
 * next ticket is asked for as the current tile starts. */
template <typename T>
__global__ void __maxnreg__(40) scan4p(const T *in, T *out, size_t n, u64 *status, bool inclusive, stamp *)
{
    extern __shared__ int4 words4[];
    T *s = reinterpret_cast<T *>(words4);
    __shared__ u64 my_tile;
    __shared__ T my_prefix;
    size_t tiles = (n + TH * IT - 1) / (TH * IT);
    if (threadIdx.x == 0) my_tile = atomicAdd(&status[0], 1ULL);
    __syncthreads();
    u64 tile = my_tile;
    while (tile < tiles) {
        u64 next = 0;
        if (threadIdx.x == 0) next = atomicAdd(&status[0], 1ULL);
        one_tile<T, 1, false>(in, out, n, status + 1, (long long)tile, inclusive, s, &my_prefix, nullptr, 0);
        if (threadIdx.x == 0) my_tile = next;
        __syncthreads(); /* my_tile, and s free for the next load */
        tile = my_tile;
    }
}

static int blocks_per_sm, sms;

template <typename T, int LOOK, int MODE, bool STAMP, bool FIX = false>
void run4(const T *in, T *out, size_t n, u64 *status, bool inclusive, stamp *st)
{
    size_t tile = (size_t)TH * IT, tiles = (n + tile - 1) / tile, smem = tile * sizeof(T);
    CK(cudaMemsetAsync(status, 0, (1 + tiles) * sizeof(u64)));
    auto k = scan4<T, LOOK, MODE, STAMP, FIX>;
    static bool set = false;
    if (!set) { CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)); set = true; }
    k<<<tiles, TH, smem>>>(in, out, n, status, inclusive, st);
}
template <typename T>
void run4p(const T *in, T *out, size_t n, u64 *status, bool inclusive, stamp *st)
{
    size_t tile = (size_t)TH * IT, tiles = (n + tile - 1) / tile, smem = tile * sizeof(T);
    CK(cudaMemsetAsync(status, 0, (1 + tiles) * sizeof(u64)));
    static bool set = false;
    if (!set) {
        CK(cudaFuncSetAttribute(scan4p<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, scan4p<T>, TH, smem));
        set = true;
    }
    size_t grid = std::min(tiles, (size_t)blocks_per_sm * sms);
    scan4p<T><<<grid, TH, smem>>>(in, out, n, status, inclusive, st);
}

struct variant { const char *name; void (*i)(const int *, int *, size_t, u64 *, bool, stamp *); void (*f)(const float *, float *, size_t, u64 *, bool, stamp *); };
static const variant set1[] = {
    {"A12", run4<int, 1, 0, false>, run4<float, 1, 0, false>},
    {"P12", run4p<int>, run4p<float>},
    {"W4", run4<int, 4, 0, false>, run4<float, 4, 0, false>},
    {"AN", run4<int, 1, 1, false>, run4<float, 1, 1, false>},
};
static const variant set2[] = {
    {"A12", run4<int, 1, 0, false>, run4<float, 1, 0, false>},
    {"F12", run4<int, 1, 0, false, true>, run4<float, 1, 0, false, true>},
    {"AN", run4<int, 1, 1, false>, run4<float, 1, 1, false>},
    {"FN", run4<int, 1, 1, false, true>, run4<float, 1, 1, false, true>},
};
enum { NV = 4 };
static const variant *variants = set1;

static double pct(std::vector<double> v, double p) { std::sort(v.begin(), v.end()); return v[(size_t)(p * (v.size() - 1))]; }

template <bool FIX>
void timeline(size_t n, const int *in, int *out, u64 *status, stamp *st_d, const char *dir)
{
    size_t tiles = (n + TH * IT - 1) / (TH * IT);
    float plain = med([&] { run4<int, 1, 0, false, FIX>(in, out, n, status, false, nullptr); });
    float stamped = med([&] { run4<int, 1, 0, true, FIX>(in, out, n, status, false, st_d); });
    std::vector<stamp> st(tiles);
    CK(cudaMemcpy(st.data(), st_d, tiles * sizeof(stamp), cudaMemcpyDeviceToHost));
    u64 g_first = ~0ull, g_last = 0;
    double cyc = 0, ns = 0;
    for (auto &m : st) { g_first = std::min(g_first, m.g0); g_last = std::max(g_last, m.g4); cyc += m.c4; ns += (double)(m.g4 - m.g0); }
    double ns_per_cycle = ns / cyc;
    std::vector<double> ticket, loadscan, look, finish, windows, rereads;
    for (auto &m : st) {
        ticket.push_back(m.c1 * ns_per_cycle), loadscan.push_back((m.c2 - m.c1) * ns_per_cycle);
        look.push_back((m.c3 - m.c2) * ns_per_cycle), finish.push_back((m.c4 - m.c3) * ns_per_cycle);
        windows.push_back(m.windows), rereads.push_back(m.rereads);
    }
    double span = (double)(g_last - g_first);
    printf("\n%sn = %zu: %zu tiles, stage 4 %.4f ms (stamped %.4f), stamps span %.1f us, %.3f ns a cycle\n", FIX ? "F12, " : "", n, tiles, plain, stamped, span / 1e3, ns_per_cycle);
    printf("  phase (ns)        median      p90      max\n");
    auto line = [&](const char *name, std::vector<double> &v) { printf("  %-16s %8.0f %8.0f %8.0f\n", name, pct(v, .5), pct(v, .9), pct(v, 1)); };
    line("ticket", ticket); line("load + scan", loadscan); line("look-back", look); line("finish + store", finish);
    line("windows", windows); line("re-reads", rereads);
    /* the last tiles to start: when they started, and how long they took */
    u64 last_start = 0;
    for (auto &m : st) last_start = std::max(last_start, m.g0);
    printf("  last tile starts at %.1f us of %.1f\n", (last_start - g_first) / 1e3, span / 1e3);
    printf("  slice (us)  in flight  started  ended  mean look-back of those started (ns)\n");
    const int S = 16;
    for (int k = 0; k < S; k++) {
        double a = g_first + span * k / S, b = g_first + span * (k + 1) / S;
        double busy = 0, lk = 0; int started = 0, ended = 0;
        for (size_t t = 0; t < tiles; t++) {
            const stamp &m = st[t];
            double s0 = std::max(a, (double)m.g0), s1 = std::min(b, (double)m.g4);
            if (s1 > s0) busy += s1 - s0;
            if (m.g0 >= a && m.g0 < b) started++, lk += (m.c3 - m.c2) * ns_per_cycle;
            if (m.g4 >= a && m.g4 < b) ended++;
        }
        printf("  %5.1f-%5.1f %9.0f %8d %6d %8.0f\n", (a - g_first) / 1e3, (b - g_first) / 1e3, busy / (b - a), started, ended, started ? lk / started : 0.0);
    }
    std::string path = std::string(dir) + (FIX ? "/timeline-F12-" : "/timeline-") + std::to_string(n) + ".csv";
    FILE *f = fopen(path.c_str(), "w");
    if (f) {
        fprintf(f, "tile,sm,start_ns,end_ns,ticket_ns,loadscan_ns,look_ns,finish_ns,windows,rereads\n");
        for (size_t t = 0; t < tiles; t++) {
            const stamp &m = st[t];
            fprintf(f, "%zu,%u,%llu,%llu,%.0f,%.0f,%.0f,%.0f,%u,%u\n", t, m.sm, m.g0 - g_first, m.g4 - g_first, m.c1 * ns_per_cycle,
                    (m.c2 - m.c1) * ns_per_cycle, (m.c3 - m.c2) * ns_per_cycle, (m.c4 - m.c3) * ns_per_cycle, m.windows, m.rereads);
        }
        fclose(f);
    }
}

template <typename T>
void row(const char *kind, bool inclusive, size_t n, T *in, T *out, T *ref, u64 *status, void *temp, size_t temp_bytes, float copy, int rep)
{
    auto lib = [&] { size_t b = temp_bytes; if (inclusive) cub::DeviceScan::InclusiveSum(temp, b, in, ref, n); else cub::DeviceScan::ExclusiveSum(temp, b, in, ref, n); };
    float tl = med(lib);
    std::vector<T> want(n), got(n);
    CK(cudaMemcpy(want.data(), ref, n * sizeof(T), cudaMemcpyDeviceToHost));
    printf("%-9zu %-16s %d %8.4f %8.4f", n, kind, rep, copy, tl);
    float t[NV];
    for (int v = 0; v < NV; v++) {
        auto go = [&] { if constexpr (std::is_same<T, int>::value) variants[v].i(in, out, n, status, inclusive, nullptr); else variants[v].f(in, out, n, status, inclusive, nullptr); };
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
    const char *dir = argc > 1 ? argv[1] : ".";
    if (argc > 2 && argv[2][0] == '2') variants = set2;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t most = 1ull << 25;
    int *in, *out, *ref; u64 *status; void *temp; size_t temp_bytes = 0; stamp *st;
    CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4)); CK(cudaMalloc(&ref, most * 4));
    CK(cudaMalloc(&status, (most / 1024 + 2) * 8));
    CK(cudaMalloc(&st, (most / (TH * IT) + 1) * sizeof(stamp)));
    cub::DeviceScan::ExclusiveSum(NULL, temp_bytes, in, ref, most);
    size_t b2 = 0; cub::DeviceScan::InclusiveSum(NULL, b2, (float *)in, (float *)ref, most);
    temp_bytes = std::max(temp_bytes, b2);
    CK(cudaMalloc(&temp, temp_bytes));
    std::vector<int> h(most);
    srand(1);
    for (size_t i = 0; i < most; i++) h[i] = rand() % 16 - 8;
    CK(cudaMemcpy(in, h.data(), most * 4, cudaMemcpyHostToDevice));

    int b = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, scan4<int, 1, 0, false>, TH, TH * IT * 4));
    printf("stage 4: %d blocks an SM, %d SMs, %d tiles at once\n", b, sms, b * sms);
    size_t wave = (size_t)b * sms * TH * IT;
    if (variants == set1)
        for (size_t n : std::vector<size_t>{1ull << 22, 3 * wave, 1ull << 24, 4 * wave})
            timeline<false>(n, in, out, status, st, dir);
    else
        for (size_t n : std::vector<size_t>{1ull << 22, 1ull << 24})
            timeline<true>(n, in, out, status, st, dir);

    printf("\nn         kind             r     copy      lib");
    for (int v = 0; v < NV; v++) printf(" %8s", variants[v].name);
    printf("   each over lib\n");
    for (int rep = 0; rep < 2; rep++)
        for (size_t n : std::vector<size_t>{1ull << 20, 1ull << 21, 1ull << 22, 1ull << 23, 3 * wave, 1ull << 24, 4 * wave, 1ull << 25}) {
            float copy = med([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
            row<int>("exclusive-int", false, n, in, out, ref, status, temp, temp_bytes, copy, rep);
            std::vector<float> hf(n);
            for (size_t i = 0; i < n; i++) hf[i] = (float)h[i] * 0.25f;
            CK(cudaMemcpy(in, hf.data(), n * 4, cudaMemcpyHostToDevice));
            row<float>("inclusive-float", true, n, (float *)in, (float *)out, (float *)ref, status, temp, temp_bytes, copy, rep);
            CK(cudaMemcpy(in, h.data(), n * 4, cudaMemcpyHostToDevice));
        }
    return 0;
}
