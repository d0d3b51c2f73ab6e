/* transpose-odd.cu: transpose's stage 5 as it is, with its grid turned round
 * (blockIdx.x down the rows of in), and with each row of out written in
 * windows that start on a 32-byte sector; each against a device-to-device
 * copy, median of 20 CUDA-event runs after 3, on squares and odd shapes.
 * With an argument it launches each kernel once, for Nsight Compute.
 * notebook/transpose.md ("Transpose's odd shapes") has what it printed.
 *   nvcc -O3 -arch=sm_90 -std=c++17 transpose-odd.cu -o transpose-odd
 */
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include "common.cuh"
enum { T = 64, R = 16 };
__global__ void __launch_bounds__(512) base(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
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
                out[(c0 + y + j) * rows + r0 + x + i] = tile[x + i][y + j];
}
// the same, blockIdx.x down the rows of in: tiles that share output sectors run together
__global__ void __launch_bounds__(512) swapped(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[T][T + 1];
    unsigned x = threadIdx.x, y = threadIdx.y;
    size_t r0 = blockIdx.x * (size_t)T, c0 = blockIdx.y * (size_t)T;
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
                out[(c0 + y + j) * rows + r0 + x + i] = tile[x + i][y + j];
}
// output row c written in windows that start on a sector: shift s = (c*rows) % 8,
// window [r0 - s, r0 - s + 64); the tile holds in's rows r0 - 8 .. r0 + 63.
enum { A = T + 8 };
__global__ void __launch_bounds__(512) aligned(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[A][T + 1];
    unsigned x = threadIdx.x, y = threadIdx.y;
    long long r0 = blockIdx.y * (long long)T - 8;  // the tile's first row
    size_t c0 = blockIdx.x * (size_t)T;
#pragma unroll
    for (unsigned j = 0; j < A; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32) {
            long long r = r0 + y + j;
            if (y + j < A && r >= 0 && r < (long long)rows && c0 + x + i < cols)
                tile[y + j][x + i] = in[r * cols + c0 + x + i];
        }
    __syncthreads();
#pragma unroll
    for (unsigned j = 0; j < T; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32) {
            size_t c = c0 + y + j;
            unsigned s = (unsigned)((c * rows) & 7);
            long long r = r0 + 8 - s + x + i;
            if (c < cols && r >= 0 && r < (long long)rows)
                out[c * rows + r] = tile[8 - s + x + i][y + j];
        }
}
int main(int argc, char **argv)
{
    size_t shapes[][2] = {{1023, 1025}, {2047, 2049}, {4095, 4097}, {4096, 4096}, {8191, 8193}, {8192, 8192}, {15000, 17893}, {16383, 16385}, {16384, 16384}, {16385, 16383}};
    float *in, *out, *ref;
    size_t most = 16385ull * 16385;
    CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4)); CK(cudaMalloc(&ref, most * 4));
    std::vector<float> h = upload_input(in, most);
    if (argc == 1) {
    printf("%-12s %9s %9s %6s %9s %6s %9s %6s\n", "shape", "copy ms", "base ms", "%copy", "swap ms", "%copy", "align ms", "%copy");
    for (auto &s : shapes) {
        size_t rows = s[0], cols = s[1], n = rows * cols;
        float copy = med_upper([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
        dim3 th(32, R);
        float tb = med_upper([&] { base<<<dim3((cols + T - 1) / T, (rows + T - 1) / T), th>>>(in, ref, rows, cols); });
        float ts = med_upper([&] { swapped<<<dim3((rows + T - 1) / T, (cols + T - 1) / T), th>>>(in, out, rows, cols); });
        bool ok1 = true;
        { std::vector<float> g(n), w(n); cudaMemcpy(w.data(), ref, n * 4, cudaMemcpyDeviceToHost); cudaMemcpy(g.data(), out, n * 4, cudaMemcpyDeviceToHost); ok1 = g == w; }
        float ta = med_upper([&] { aligned<<<dim3((cols + T - 1) / T, (rows + 7 + T - 1) / T), th>>>(in, out, rows, cols); });
        bool ok2 = true;
        { std::vector<float> g(n), w(n); cudaMemcpy(w.data(), ref, n * 4, cudaMemcpyDeviceToHost); cudaMemcpy(g.data(), out, n * 4, cudaMemcpyDeviceToHost); ok2 = g == w; }
        // check base against the CPU on a few elements
        char name[32]; snprintf(name, sizeof name, "%zux%zu", rows, cols);
        printf("%-12s %9.4f %9.4f %5.1f%% %9.4f %5.1f%%%s %9.4f %5.1f%%%s\n", name, copy, tb, 100 * copy / tb, ts, 100 * copy / ts, ok1 ? "" : " WRONG", ta, 100 * copy / ta, ok2 ? "" : " WRONG");
    }
    }
    if (argc > 1) { // one launch each of base and aligned at 16383x16385 and 16384^2, for ncu
        base<<<dim3((16385 + T - 1) / T, (16383 + T - 1) / T), dim3(32, R)>>>(in, out, 16383, 16385);
        base<<<dim3(16384 / T, 16384 / T), dim3(32, R)>>>(in, out, 16384, 16384);
        aligned<<<dim3((16385 + T - 1) / T, (16383 + 7 + T - 1) / T), dim3(32, R)>>>(in, out, 16383, 16385);
        swapped<<<dim3((16383 + T - 1) / T, (16385 + T - 1) / T), dim3(32, R)>>>(in, out, 16383, 16385);
        CK(cudaDeviceSynchronize());
    }
    return 0;
}
