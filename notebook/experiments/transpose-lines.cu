/* transpose-lines.cu: can a transpose of packed odd shapes write whole
 * 128-byte lines of out, as padding out's rows lets it (transpose-pitch.cu)?
 *
 *   base    stage 5 (64x64 tiles, 32x16 threads)
 *   lines   each block writes, in each of its 64 rows of out, the 64 floats
 *           from the line boundary at or before its nominal start: two whole
 *           lines. Its tile holds 32 more rows of in above its own (96x64),
 *           read again by the tile above; the first and last block rows clip.
 *   linesT  lines, its grid turned round (blockIdx.x down the rows of in), so
 *           that the 32 rows read again were read by the block just before
 *   outP    base with out's rows padded to 32 floats (the bound to reach)
 * Median of 20 CUDA-event runs after 3; %copy is the device-to-device copy's
 * time over the kernel's, in the same run. Each output is checked against
 * base's.
 *   nvcc -O3 -arch=sm_90 -std=c++17 transpose-lines.cu -o transpose-lines
 */
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "common.cuh"
enum { T = 64, R = 16, HALO = 32, TR = T + HALO };

__global__ void __launch_bounds__(512) base(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols, size_t op)
{
    __shared__ float tile[T][T + 1];
    unsigned x = threadIdx.x, y = threadIdx.y;
    size_t r0 = blockIdx.y * (size_t)T, c0 = blockIdx.x * (size_t)T;
#pragma unroll
    for (unsigned j = 0; j < T; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32)
            if (r0 + y + j < rows && c0 + x + i < cols)
                tile[y + j][x + i] = in[(r0 + y + j) * cols + c0 + x + i];
    __syncthreads();
#pragma unroll
    for (unsigned j = 0; j < T; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32)
            if (c0 + y + j < cols && r0 + x + i < rows)
                out[(c0 + y + j) * op + r0 + x + i] = tile[x + i][y + j];
}

template <bool TURNED>
__global__ void __launch_bounds__(512) lines(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[TR][T + 1]; // in's rows r0 - 32 .. r0 + 63
    unsigned x = threadIdx.x, y = threadIdx.y;
    long long r0 = (TURNED ? blockIdx.x : blockIdx.y) * (long long)T;
    size_t c0 = (TURNED ? blockIdx.y : blockIdx.x) * (size_t)T;
#pragma unroll
    for (unsigned j = 0; j < TR; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32) {
            long long r = r0 - HALO + y + j;
            if (r >= 0 && r < (long long)rows && c0 + x + i < cols)
                tile[y + j][x + i] = in[r * cols + c0 + x + i];
        }
    __syncthreads();
#pragma unroll
    for (unsigned j = 0; j < T; j += R) {
        size_t c = c0 + y + j;
        // floats between the line boundary at or before out[c][r0] and it
        unsigned s = (unsigned)(((uintptr_t)(out + c * rows + r0) / sizeof(float)) % 32);
#pragma unroll
        for (unsigned i = 0; i < T; i += 32) {
            long long r = r0 - s + x + i;
            if (c < cols && r >= 0 && r < (long long)rows)
                out[c * rows + r] = tile[HALO - s + x + i][y + j];
        }
    }
}

int main()
{
    size_t shapes[][2] = {{1023, 1025}, {2047, 2049}, {4095, 4097}, {4096, 4096}, {8191, 8193}, {8192, 8192}, {15000, 17893}, {16383, 16385}, {16384, 16384}, {16385, 16383}};
    size_t most = 16416ull * 16416;
    float *in, *out, *ref;
    CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4)); CK(cudaMalloc(&ref, most * 4));
    std::vector<float> h = upload_input(in, most);
    printf("%-12s %8s %8s %6s %8s %6s %8s %6s %8s %6s\n", "shape", "copy", "base", "%copy", "lines", "%copy", "linesT", "%copy", "outP", "%copy");
    for (int rep = 0; rep < 2; rep++)
        for (auto &s : shapes) {
            size_t rows = s[0], cols = s[1], n = rows * cols;
            float copy = med([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
            dim3 th(32, R), grid((cols + T - 1) / T, (rows + T - 1) / T);
            dim3 gl((cols + T - 1) / T, (rows + HALO - 1 + T - 1) / T), glt(gl.y, gl.x);
            float t[4];
            bool ok[4] = {true, true, true, true};
            std::vector<float> want(n), got(n);
            t[0] = med([&] { base<<<grid, th>>>(in, ref, rows, cols, rows); });
            CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemset(out, 0xff, n * 4));
            t[1] = med([&] { lines<false><<<gl, th>>>(in, out, rows, cols); });
            CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
            ok[1] = got == want;
            CK(cudaMemset(out, 0xff, n * 4));
            t[2] = med([&] { lines<true><<<glt, th>>>(in, out, rows, cols); });
            CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
            ok[2] = got == want;
            size_t op = (rows + 31) / 32 * 32;
            t[3] = med([&] { base<<<grid, th>>>(in, out, rows, cols, op); });
            char name[32]; snprintf(name, sizeof name, "%zux%zu", rows, cols);
            printf("%-12s %8.4f", name, copy);
            for (int v = 0; v < 4; v++) printf(" %8.4f %5.1f%%%s", t[v], 100 * copy / t[v], ok[v] ? "" : "!");
            printf("\n");
            fflush(stdout);
        }
    return 0;
}
