/* transpose-windows.cu: writing whole sectors or lines of out on packed odd
 * shapes, at less cost than transpose-lines.cu's 96x64 tiles. In each row of
 * out a block writes the ROWS floats from the boundary (of a 32-byte sector
 * when HALO is 8, of a 128-byte line when it is 32) at or before its nominal
 * start, so its tile holds HALO more rows of in above its own; taller tiles
 * (ROWS 128) read that halo again less often. HALO 0 is stage 5 itself
 * (ROWS 64) or stage 5 with tiles of 128 rows. Every tile is 64 columns of in
 * wide, with 32 x RR threads.
 * Median of 20 CUDA-event runs after 3; %copy: the device-to-device copy of
 * the matrix's bytes over the kernel's time, in the same run; each output is
 * checked against stage 5's.
 *   nvcc -O3 -arch=sm_90 -std=c++17 transpose-windows.cu -o transpose-windows
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "common.cuh"
enum { C = 64 };

template <int ROWS, int HALO, int RR>
__global__ void __launch_bounds__(32 * RR) windows(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[ROWS + HALO][C + 1]; // in's rows r0 - HALO .. r0 + ROWS - 1
    unsigned x = threadIdx.x, y = threadIdx.y;
    long long r0 = blockIdx.y * (long long)ROWS;
    size_t c0 = blockIdx.x * (size_t)C;
#pragma unroll
    for (unsigned j = 0; j < ROWS + HALO; j += RR)
#pragma unroll
        for (unsigned i = 0; i < C; i += 32) {
            long long r = r0 - HALO + y + j;
            if (r >= 0 && r < (long long)rows && c0 + x + i < cols)
                tile[y + j][x + i] = in[r * cols + c0 + x + i];
        }
    __syncthreads();
#pragma unroll
    for (unsigned j = 0; j < C; j += RR) {
        size_t c = c0 + y + j;
        unsigned s = HALO ? (unsigned)(((uintptr_t)(out + c * rows + r0) / sizeof(float)) % (HALO ? HALO : 1)) : 0;
#pragma unroll
        for (unsigned i = 0; i < ROWS; i += 32) {
            long long r = r0 - s + x + i;
            if (c < cols && r >= 0 && r < (long long)rows)
                out[c * rows + r] = tile[HALO - s + x + i][y + j];
        }
    }
}
template <int ROWS, int HALO, int RR> void launch(const float *in, float *out, size_t rows, size_t cols)
{
    dim3 grid((cols + C - 1) / C, (rows + (HALO ? HALO - 1 : 0) + ROWS - 1) / ROWS);
    windows<ROWS, HALO, RR><<<grid, dim3(32, RR)>>>(in, out, rows, cols);
}

struct variant { const char *name; void (*go)(const float *, float *, size_t, size_t); };
static const variant variants[] = {
    {"stage5", launch<64, 0, 16>},  {"r128", launch<128, 0, 16>}, {"s64", launch<64, 8, 8>},
    {"s128", launch<128, 8, 8>},    {"l64", launch<64, 32, 16>},  {"l128", launch<128, 32, 16>},
};
enum { NV = sizeof variants / sizeof *variants };
int main()
{
    size_t shapes[][2] = {{4095, 4097}, {4096, 4096}, {8191, 8193}, {8192, 8192}, {15000, 17893}, {16383, 16385}, {16384, 16384}, {16385, 16383}};
    size_t most = 16385ull * 16385;
    float *in, *out, *ref;
    CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4)); CK(cudaMalloc(&ref, most * 4));
    std::vector<float> h = upload_input(in, most);
    variant_table(in, out, ref, shapes, variants, NV, [&](int v, float *dst, size_t rows, size_t cols) { variants[v].go(in, dst, rows, cols); });
    return 0;
}
