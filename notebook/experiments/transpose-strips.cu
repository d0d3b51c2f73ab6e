/* transpose-strips.cu: every store of out a whole 128-byte line, on packed
 * odd shapes, without reading in twice. A block walks down a strip of in 64
 * columns wide (64 rows of out), a chunk of 64 rows of in at a time, and
 * keeps the last two chunks in shared memory (a ring of 128 rows). After
 * each chunk it writes, in each of its rows of out, the 64 columns that
 * start on the line boundary 32 or fewer columns before the chunk's end:
 * they lie in the two chunks it holds, so each warp stores one whole line.
 * The next chunk's loads are issued into registers before those writes.
 *
 * strip K: a block walks K chunks (64K rows of in); where its segment of a
 * row of out begins and ends, a line is written in two parts, by two
 * blocks. halo K: a block owns each row's columns from the line boundary
 * before its first row (and reads the 32 rows of in above it once more),
 * so no line is split except at the matrix's edges.
 * K is the chunks a block walks; b3, b4: __launch_bounds__ asks for 3 or 4
 * blocks an SM (fewer registers); r8: 32 x 8 threads, else 32 x 16.
 * stage5: solutions/transpose's stage 5 as at 731a1c2.
 * Median of 20 CUDA-event runs after 3; %copy: the device-to-device copy of
 * the matrix's bytes over the kernel's time, in the same run; each output is
 * compared with stage 5's (`!` marks a difference).
 *   nvcc -O3 -arch=sm_90 -std=c++17 transpose-strips.cu -o transpose-strips
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "common.cuh"

enum { TILE5 = 64, ROWS5 = 16 };
__global__ void __launch_bounds__(32 * ROWS5) stage5(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[TILE5][TILE5 + 1];
    unsigned x = threadIdx.x, y = threadIdx.y;
    size_t r0 = blockIdx.y * (size_t)TILE5, c0 = blockIdx.x * (size_t)TILE5;
#pragma unroll
    for (unsigned j = 0; j < TILE5; j += ROWS5)
#pragma unroll
        for (unsigned i = 0; i < TILE5; i += 32)
            if (r0 + y + j < rows && c0 + x + i < cols)
                tile[y + j][x + i] = in[(r0 + y + j) * cols + c0 + x + i];
    __syncthreads();
#pragma unroll
    for (unsigned j = 0; j < TILE5; j += ROWS5)
#pragma unroll
        for (unsigned i = 0; i < TILE5; i += 32)
            if (c0 + y + j < cols && r0 + x + i < rows)
                out[(c0 + y + j) * rows + r0 + x + i] = tile[x + i][y + j];
}
static void go_stage5(const float *in, float *out, size_t rows, size_t cols, int)
{
    dim3 grid((cols + 63) / 64, (rows + 63) / 64);
    stage5<<<grid, dim3(32, ROWS5)>>>(in, out, rows, cols);
}

enum { W = 64, RING = 128, LINE = 32 };

/* in's rows r go to ring row (r - first) % RING. */
template <int RR>
__device__ void load_chunk(const float *__restrict__ in, size_t rows, size_t cols, long long r, size_t c0, float (&v)[W * W / (32 * RR)])
{
    unsigned x = threadIdx.x, y = threadIdx.y;
    int k = 0;
#pragma unroll
    for (unsigned j = 0; j < W; j += RR)
#pragma unroll
        for (unsigned i = 0; i < W; i += 32, k++)
            if (r + y + j < (long long)rows && c0 + x + i < cols)
                v[k] = in[(r + y + j) * cols + c0 + x + i];
}
template <int RR>
__device__ void keep_chunk(float (*tile)[W + 1], long long r, long long first, const float (&v)[W * W / (32 * RR)])
{
    unsigned x = threadIdx.x, y = threadIdx.y;
    int k = 0;
#pragma unroll
    for (unsigned j = 0; j < W; j += RR)
#pragma unroll
        for (unsigned i = 0; i < W; i += 32, k++)
            tile[(r + y + j - first) & (RING - 1)][x + i] = v[k];
}

/* Write, in each of the block's rows of out, columns [lo + a, lo + a + 64)
 * clipped to [from, to), a being where that row's lines start; a bound
 * marked `shifted` moves with a too (a halo block owns each row from a
 * line boundary). */
template <int RR>
__device__ void write_window(const float (*tile)[W + 1], float *__restrict__ out, size_t rows, size_t cols, size_t c0, long long lo,
                             long long from, bool from_shifted, long long to, bool to_shifted, long long first)
{
    unsigned x = threadIdx.x, y = threadIdx.y;
#pragma unroll
    for (unsigned j = 0; j < W; j += RR) {
        size_t c = c0 + y + j;
        unsigned s = (unsigned)(((uintptr_t)(out + c * rows) / sizeof(float)) % LINE);
        long long a = (LINE - s) % LINE;
        long long f = from + (from_shifted ? a : 0), t = to + (to_shifted ? a : 0);
#pragma unroll
        for (unsigned i = 0; i < W; i += 32) {
            long long r = lo + a + x + i;
            if (c < cols && r >= f && r < t)
                out[c * rows + r] = tile[(r - first) & (RING - 1)][y + j];
        }
    }
}

template <int RR, bool HALO, int MINB, bool YFAST>
__global__ void __launch_bounds__(32 * RR, MINB) strips(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols, int chunks)
{
    __shared__ float tile[RING][W + 1];
    enum { PER = W * W / (32 * RR) };
    unsigned x = threadIdx.x, y = threadIdx.y;
    unsigned bx = YFAST ? blockIdx.y : blockIdx.x, by = YFAST ? blockIdx.x : blockIdx.y;
    size_t c0 = bx * (size_t)W;
    long long r0 = (long long)by * chunks * W;
    long long r1 = r0 + (long long)chunks * W < (long long)rows ? r0 + (long long)chunks * W : (long long)rows;
    int n = (int)((r1 - r0 + W - 1) / W);
    bool last = r1 == (long long)rows;
    float v[PER];
    if (HALO && r0 > 0) {
        // the 32 rows of in above the segment, into the ring's rows 96..127
#pragma unroll
        for (unsigned j = 0; j < LINE; j += RR)
#pragma unroll
            for (unsigned i = 0; i < W; i += 32)
                if (c0 + x + i < cols)
                    tile[RING - LINE + y + j][x + i] = in[(r0 - LINE + y + j) * cols + c0 + x + i];
    }
    load_chunk<RR>(in, rows, cols, r0, c0, v);
    keep_chunk<RR>(tile, r0, r0, v);
    __syncthreads();
    int phases = HALO && !last ? n : n + 1;
    for (int j = 0; j < phases; j++) {
        if (j + 1 < n)
            load_chunk<RR>(in, rows, cols, r0 + (long long)(j + 1) * W, c0, v);
        long long lo = r0 + (long long)j * W - LINE;
        if (HALO)
            write_window<RR>(tile, out, rows, cols, c0, lo, r0 > 0 ? r0 - LINE : 0, r0 > 0,
                             last ? (long long)rows : r1 - LINE, !last, r0);
        else
            write_window<RR>(tile, out, rows, cols, c0, lo, r0, false, r1, false, r0);
        if (j == phases - 1)
            break;
        __syncthreads();
        if (j + 1 < n)
            keep_chunk<RR>(tile, r0 + (long long)(j + 1) * W, r0, v);
        __syncthreads();
    }
}
template <int RR, bool HALO, int MINB = 1, bool YFAST = false> static void go_strips(const float *in, float *out, size_t rows, size_t cols, int k)
{
    size_t chunks = (rows + W - 1) / W;
    int kk = (int)std::min<size_t>(k, chunks);
    dim3 grid((cols + W - 1) / W, (unsigned)((chunks + kk - 1) / kk));
    if (YFAST) std::swap(grid.x, grid.y);
    strips<RR, HALO, MINB, YFAST><<<grid, dim3(32, RR)>>>(in, out, rows, cols, kk);
}

/* The second set: one barrier a chunk. A ring of 4 chunks of H rows; in
 * iteration j a block keeps chunk j (already loaded, into registers or by
 * cp.async straight into the ring), waits at one barrier, starts chunk j + 1
 * (registers) or j + AHEAD (cp.async), and writes phase j from chunks j - 1
 * and j. 32-bit sides; the ring's slot of a chunk is its number mod 4. */
#if defined(__CUDACC__) && !defined(WORKBOOK_EMU)
#include <cuda_pipeline.h>
#else
static void __pipeline_memcpy_async(void *d, const void *s, size_t b) { memcpy(d, s, b); }
static void __pipeline_commit() {}
static void __pipeline_wait_prior(int) {}
#endif
template <int H, int RR, int MINB, bool ASYNC, int AHEAD, int SLOTS = 4>
__global__ void __launch_bounds__(32 * RR, MINB) ring(const float *__restrict__ in, float *__restrict__ out, unsigned rows, unsigned cols, unsigned chunks)
{
    enum { RING_ROWS = SLOTS * H, LOADS = H / RR };
    extern __shared__ float ring_tile[];
    float (*tile)[W + 1] = reinterpret_cast<float (*)[W + 1]>(ring_tile);
    unsigned x = threadIdx.x, y = threadIdx.y;
    unsigned c0 = blockIdx.x * W, r0 = blockIdx.y * chunks * H;
    unsigned r1 = min(r0 + chunks * H, rows);
    unsigned n = (r1 - r0 + H - 1) / H;
    unsigned outw = (unsigned)((uintptr_t)out / sizeof(float));  // low bits: where out's lines fall
    float v[ASYNC ? 1 : 2 * LOADS];
    // chunk q's element (y + jj, x + i) of this thread
    auto issue = [&](unsigned q) {
        unsigned rq = r0 + q * H;
        float *slot = &tile[(q % SLOTS) * H][0];
#pragma unroll
        for (unsigned jj = 0; jj < H; jj += RR)
#pragma unroll
            for (unsigned i = 0; i < W; i += 32) {
                unsigned r = rq + y + jj, c = c0 + x + i;
                if (r < r1 && c < cols) {
                    if (ASYNC)
                        __pipeline_memcpy_async(slot + (y + jj) * (W + 1) + x + i, in + (size_t)r * cols + c, 4);
                    else
                        v[(jj / RR) * 2 + i / 32] = in[(size_t)r * cols + c];
                }
            }
        if (ASYNC)
            __pipeline_commit();
    };
    auto keep = [&](unsigned q) {
        float *slot = &tile[(q % SLOTS) * H][0];
#pragma unroll
        for (unsigned jj = 0; jj < H; jj += RR)
#pragma unroll
            for (unsigned i = 0; i < W; i += 32)
                slot[(y + jj) * (W + 1) + x + i] = v[(jj / RR) * 2 + i / 32];
    };
    if (ASYNC) {
        for (unsigned q = 0; q < AHEAD; q++)
            if (q < n) issue(q); else __pipeline_commit();
    } else
        issue(0);
    for (unsigned j = 0; j <= n; j++) {
        if (ASYNC)
            __pipeline_wait_prior(AHEAD - 1);
        else if (j < n)
            keep(j);
        __syncthreads();
        if (ASYNC) {
            if (j + AHEAD < n) issue(j + AHEAD); else __pipeline_commit();
        } else if (j + 1 < n)
            issue(j + 1);
        // phase j: in each row of out, [lo + a, lo + a + H) within [r0, r1)
        unsigned lo = r0 + j * H - LINE;  // may wrap below 0 for j = 0: the tests below use r >= r0
#pragma unroll
        for (unsigned jj = 0; jj < W; jj += RR) {
            unsigned c = c0 + y + jj;
            unsigned a = (LINE - ((outw + c * rows) % LINE)) % LINE;
#pragma unroll
            for (unsigned i = 0; i < H; i += 32) {
                unsigned r = lo + a + x + i;
                if (c < cols && (int)(r - r0) >= 0 && r < r1)
                    out[(size_t)c * rows + r] = tile[(r - r0) % RING_ROWS][y + jj];  // RING_ROWS: SLOTS chunks
            }
        }
    }
}
template <int H, int RR, int MINB, bool ASYNC, int AHEAD, int SLOTS = 4> static void go_ring(const float *in, float *out, size_t rows, size_t cols, int k)
{
    size_t chunks = (rows + H - 1) / H;
    unsigned kk = (unsigned)(chunks < (size_t)k ? chunks : (size_t)k);
    dim3 grid((unsigned)((cols + W - 1) / W), (unsigned)((chunks + kk - 1) / kk));
    size_t smem = SLOTS * H * (W + 1) * sizeof(float);
    static bool set = false;
    if (!set) { CK(cudaFuncSetAttribute(ring<H, RR, MINB, ASYNC, AHEAD, SLOTS>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem)); set = true; }
    ring<H, RR, MINB, ASYNC, AHEAD, SLOTS><<<grid, dim3(32, RR), smem>>>(in, out, (unsigned)rows, (unsigned)cols, kk);
}

struct variant { const char *name; void (*go)(const float *, float *, size_t, size_t, int); int k; };
static const variant set1[] = {
    {"stage5", go_stage5, 0},
    {"strip1", go_strips<16, false>, 1},   {"strip4", go_strips<16, false>, 4},
    {"strip8", go_strips<16, false>, 8},   {"strip16", go_strips<16, false>, 16},
    {"strip32", go_strips<16, false>, 32}, {"s8b3", go_strips<16, false, 3>, 8},
    {"s8b4", go_strips<16, false, 4>, 8},  {"s8r8", go_strips<8, false>, 8},
    {"halo8", go_strips<16, true>, 8},     {"halo16", go_strips<16, true>, 16},
    {"h16b3", go_strips<16, true, 3>, 16},
};
/* second set: rH.K (registers) and aH.K (cp.async, 2 chunks ahead), H rows
 * a chunk, K chunks a block, 32 x 16 threads; b: blocks an SM asked for */
static const variant set2[] = {
    {"stage5", go_stage5, 0},
    {"s8b3", go_strips<16, false, 3>, 8},
    {"r64.8b3", go_ring<64, 16, 3, false, 1>, 8},
    {"r32.16b4", go_ring<32, 16, 4, false, 1>, 16},
    {"r32.32b4", go_ring<32, 16, 4, false, 1>, 32},
    {"a32.16b4", go_ring<32, 16, 4, true, 2>, 16},
    {"a32.32b4", go_ring<32, 16, 4, true, 2>, 32},
    {"a64.8b3", go_ring<64, 16, 3, true, 2>, 8},
    {"a64.16b3", go_ring<64, 16, 3, true, 2>, 16},
    {"a32.16r8", go_ring<32, 8, 8, true, 2>, 16},
};
/* third set: chunks of 128 rows (each row of out gets 512 bytes a phase),
 * rings of 3 chunks (SLOTS 3: one ahead); r: 32 x 32 threads */
static const variant set3[] = {
    {"stage5", go_stage5, 0},
    {"s8b3", go_strips<16, false, 3>, 8},
    {"a64.16b3", go_ring<64, 16, 3, true, 2>, 16},
    {"a128.8", go_ring<128, 16, 2, true, 1, 3>, 8},
    {"a128.8r", go_ring<128, 32, 2, true, 1, 3>, 8},
    {"r128.8", go_ring<128, 16, 2, false, 1, 3>, 8},
    {"r128.8r", go_ring<128, 32, 2, false, 1, 3>, 8},
    {"r64.16b4", go_ring<64, 16, 4, false, 1, 3>, 16},
    {"r64.16", go_ring<64, 16, 3, false, 1, 3>, 16},
};
static const variant set4[] = {
    {"stage5", go_stage5, 0},
    {"s8b3", go_strips<16, false, 3>, 8},
    {"r64.16b4", go_ring<64, 16, 4, false, 1, 3>, 16},
};
/* fifth set: the two-barrier strips of 32 x 16 threads held to 3 blocks an
 * SM, walking 1 to 16 chunks (sK), with a halo (hK), and launched with the
 * segments' index fast (yK) */
static const variant set5[] = {
    {"stage5", go_stage5, 0},
    {"s1", go_strips<16, false, 3>, 1}, {"s2", go_strips<16, false, 3>, 2},
    {"s4", go_strips<16, false, 3>, 4}, {"s8", go_strips<16, false, 3>, 8},
    {"s16", go_strips<16, false, 3>, 16}, {"h4", go_strips<16, true, 3>, 4},
    {"h8", go_strips<16, true, 3>, 8},  {"y8", go_strips<16, false, 3, true>, 8},
    {"y32", go_strips<16, false, 3, true>, 32},
};
/* sixth set: halo strips around K = 4 (hK; b2, b4: 2 or 4 blocks an SM
 * asked for, else 3) */
static const variant set6[] = {
    {"stage5", go_stage5, 0},
    {"s4", go_strips<16, false, 3>, 4}, {"h2", go_strips<16, true, 3>, 2},
    {"h3", go_strips<16, true, 3>, 3},  {"h4", go_strips<16, true, 3>, 4},
    {"h6", go_strips<16, true, 3>, 6},  {"h4b4", go_strips<16, true, 4>, 4},
    {"h4b2", go_strips<16, true, 2>, 4},
};
static const variant *variants = set1;
static int NV = sizeof set1 / sizeof *set1;
/* `transpose-strips check`: every variant against the definition on small
 * shapes (each side 1 to 300 and a few longer), no timing. */
static int check_small(const float *in, float *out, const std::vector<float> &h)
{
    size_t sides[] = {1, 2, 31, 33, 63, 64, 65, 127, 129, 200, 257, 300, 1000};
    int bad = 0;
    for (size_t rows : sides)
        for (size_t cols : sides)
            for (int v = 0; v < NV; v++) {
                size_t n = rows * cols;
                CK(cudaMemset(out, 0xff, n * 4));
                variants[v].go(in, out, rows, cols, variants[v].k);
                CK(cudaGetLastError());
                std::vector<float> got(n);
                CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
                size_t wrong = 0;
                for (size_t r = 0; r < rows; r++)
                    for (size_t c = 0; c < cols; c++)
                        wrong += got[c * rows + r] != h[r * cols + c];
                if (wrong) printf("%s %zux%zu: %zu wrong\n", variants[v].name, rows, cols, wrong), bad++;
            }
    printf("check: %s\n", bad ? "FAILED" : "all right");
    return bad != 0;
}
int main(int argc, char **argv)
{
    if (argc > 2 && argv[2][0] == '2') variants = set2, NV = sizeof set2 / sizeof *set2;
    if (argc > 1 && argv[1][0] == '2') variants = set2, NV = sizeof set2 / sizeof *set2;
    if (argc > 2 && argv[2][0] == '3') variants = set3, NV = sizeof set3 / sizeof *set3;
    if (argc > 1 && argv[1][0] == '3') variants = set3, NV = sizeof set3 / sizeof *set3;
    if (argc > 2 && argv[2][0] == '4') variants = set4, NV = sizeof set4 / sizeof *set4;
    if (argc > 2 && argv[2][0] == '5') variants = set5, NV = sizeof set5 / sizeof *set5;
    if (argc > 1 && argv[1][0] == '5') variants = set5, NV = sizeof set5 / sizeof *set5;
    if (argc > 2 && argv[2][0] == '6') variants = set6, NV = sizeof set6 / sizeof *set6;
    if (argc > 1 && argv[1][0] == '6') variants = set6, NV = sizeof set6 / sizeof *set6;
    if (argc > 1 && argv[1][0] == 'p') {  // `prof SET`: each variant once at two shapes, for Nsight Compute
        size_t most = 16385ull * 16385;
        float *in, *out;
        CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4));
        CK(cudaMemset(in, 0, most * 4));
        size_t shapes[][2] = {{16384, 16384}, {16383, 16385}};
        for (auto &sh : shapes)
            for (int v = 0; v < NV; v++) variants[v].go(in, out, sh[0], sh[1], variants[v].k);
        CK(cudaDeviceSynchronize());
        return 0;
    }
    if (argc > 1 && argv[1][0] == 'c') {
        size_t most = 1000 * 1000;
        float *in, *out;
        CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4));
        std::vector<float> h = upload_input(in, most);
        return check_small(in, out, h);
    }
    size_t shapes[][2] = {{1023, 1025}, {2047, 2049}, {4095, 4097}, {4096, 4096}, {8191, 8193}, {8192, 8192},
                          {15000, 17893}, {16383, 16385}, {16384, 16384}, {16385, 16383}, {333, 77777}, {77777, 333}};
    size_t most = 16385ull * 16385;
    float *in, *out, *ref;
    CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4)); CK(cudaMalloc(&ref, most * 4));
    std::vector<float> h = upload_input(in, most);
    // stage 5 against the definition, once, on an odd shape
    {
        size_t rows = 333, cols = 1001;
        go_stage5(in, ref, rows, cols, 0);
        std::vector<float> got(rows * cols);
        CK(cudaMemcpy(got.data(), ref, rows * cols * 4, cudaMemcpyDeviceToHost));
        for (size_t r = 0; r < rows; r++)
            for (size_t c = 0; c < cols; c++)
                if (got[c * rows + r] != h[r * cols + c]) { printf("stage5 wrong at %zu,%zu\n", r, c); return 1; }
    }
    variant_table(in, out, ref, shapes, variants, NV, [&](int v, float *dst, size_t rows, size_t cols) { variants[v].go(in, dst, rows, cols, variants[v].k); });
    return 0;
}
