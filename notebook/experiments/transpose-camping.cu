/* transpose-camping.cu: is it where out's rows start (alignment) or how far
 * apart they are (a stride near a power of two, so that the rows a block
 * writes fall on the same memory channels) that slows transpose's odd
 * shapes? transpose-pitch.cu found that padding out's rows of 16383 floats to
 * 16384 brings 66 % of the copy to 94 %; transpose-lines.cu that writing
 * whole lines without padding does not.
 *
 * 1. Stage 5's kernel at 16383x16385 with out's rows at pitches from 16383
 *    to 24577 floats: aligned to 128 bytes or not, near a power of two or not.
 * 2. Stage 5 with its blocks taken in diagonal order (block b works on tile
 *    row b % gy and tile column (b / gy + b % gy) % gx), so that blocks
 *    running together work on different columns of in and so write rows of
 *    out far apart; at every shape of transpose-odd.cu, packed.
 * Median of 20 CUDA-event runs after 3; %copy: the device-to-device copy of
 * the matrix's bytes over the kernel's time, in the same run.
 *   nvcc -O3 -arch=sm_90 -std=c++17 transpose-camping.cu -o transpose-camping
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "common.cuh"
enum { T = 64, R = 16 };

template <bool DIAGONAL>
__global__ void __launch_bounds__(512) tiles(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols, size_t op)
{
    __shared__ float tile[T][T + 1];
    unsigned x = threadIdx.x, y = threadIdx.y, bx = blockIdx.x, by = blockIdx.y;
    if (DIAGONAL) {
        unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
        by = b % gridDim.y;
        bx = (b / gridDim.y + by) % gridDim.x;
    }
    size_t r0 = by * (size_t)T, c0 = bx * (size_t)T;
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

int main()
{
    size_t most = 24577ull * 16385;
    float *in, *out, *ref;
    CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4)); CK(cudaMalloc(&ref, most * 4));
    std::vector<float> h = upload_input(in, most);
    dim3 th(32, R);
    for (int rep = 0; rep < 2; rep++) {
        size_t rows = 16383, cols = 16385, n = rows * cols;
        dim3 grid((cols + T - 1) / T, (rows + T - 1) / T);
        float copy = med([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
        printf("16383x16385, out's pitch in floats (bytes, bytes mod 128, bytes mod 65536): ms, %%copy\n");
        for (size_t op : {16383, 16384, 16385, 16386, 16388, 16392, 16400, 16416, 16448, 16512, 16640, 16896, 17408, 18432, 17001, 17000, 20000, 24577}) {
            float t = med([&] { tiles<false><<<grid, th>>>(in, out, rows, cols, op); });
            printf("  pitch %5zu (%6zu B, %3zu, %5zu): %.4f ms %5.1f%%\n", op, op * 4, op * 4 % 128, op * 4 % 65536, t, 100 * copy / t);
            fflush(stdout);
        }
    }
    size_t shapes[][2] = {{1023, 1025}, {2047, 2049}, {4095, 4097}, {4096, 4096}, {8191, 8193}, {8192, 8192}, {15000, 17893}, {16383, 16385}, {16384, 16384}, {16385, 16383}};
    printf("%-12s %8s %8s %6s %8s %6s\n", "shape", "copy", "base", "%copy", "diag", "%copy");
    for (int rep = 0; rep < 2; rep++)
        for (auto &s : shapes) {
            size_t rows = s[0], cols = s[1], n = rows * cols;
            dim3 grid((cols + T - 1) / T, (rows + T - 1) / T);
            float copy = med([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
            float tb = med([&] { tiles<false><<<grid, th>>>(in, ref, rows, cols, rows); });
            CK(cudaMemset(out, 0xff, n * 4));
            float td = med([&] { tiles<true><<<grid, th>>>(in, out, rows, cols, rows); });
            std::vector<float> want(n), got(n);
            CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
            char name[32]; snprintf(name, sizeof name, "%zux%zu", rows, cols);
            printf("%-12s %8.4f %8.4f %5.1f%% %8.4f %5.1f%%%s\n", name, copy, tb, 100 * copy / tb, td, 100 * copy / td, got == want ? "" : " WRONG");
            fflush(stdout);
        }
    return 0;
}
