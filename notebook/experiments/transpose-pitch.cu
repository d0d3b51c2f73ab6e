/* transpose-pitch.cu: where transpose's odd shapes lose their time. Stage 5's
 * kernel (64x64 tiles, 32x16 threads, as in solutions/transpose/transpose.cu)
 * with a row pitch of its own for in and for out, so that one matrix's rows
 * can start on 128-byte lines while the other's do not; beside it cuBLAS's
 * transpose (cublasSgeam), the same tiles copied without transposing, and a
 * plain copy kernel read from an address 4 bytes off a line. Every time is
 * the median of 20 CUDA-event runs after 3, over the device-to-device copy
 * of the same bytes in the same run (%copy).
 *
 *   dense   both matrices packed: rows of cols and of rows floats (stage 5)
 *   inP     in's rows padded to a multiple of 32 floats, out packed
 *   outP    out's rows padded, in packed
 *   bothP   both padded (what cudaMallocPitch gives)
 *   geam    cublasSgeam transposing the packed matrices
 *   tcopy   the tiles of dense copied to the same places, not transposed
 *
 *   nvcc -O3 -arch=sm_90 -std=c++17 transpose-pitch.cu -lcublas -o transpose-pitch
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#ifndef NO_CUBLAS
#include <cublas_v2.h>
#endif
#include "common.cuh"
enum { T = 64, R = 16 };

// out[c * op + r] = in[r * ip + c] for r < rows, c < cols
__global__ void __launch_bounds__(512) pitched(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols, size_t ip, size_t op)
{
    __shared__ float tile[T][T + 1];
    unsigned x = threadIdx.x, y = threadIdx.y;
    size_t r0 = blockIdx.y * (size_t)T, c0 = blockIdx.x * (size_t)T;
#pragma unroll
    for (unsigned j = 0; j < T; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32)
            if (r0 + y + j < rows && c0 + x + i < cols)
                tile[y + j][x + i] = in[(r0 + y + j) * ip + c0 + x + i];
    __syncthreads();
#pragma unroll
    for (unsigned j = 0; j < T; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32)
            if (c0 + y + j < cols && r0 + x + i < rows)
                out[(c0 + y + j) * op + r0 + x + i] = tile[x + i][y + j];
}
// the same tiles, each element copied to its own place
__global__ void __launch_bounds__(512) tilecopy(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    unsigned x = threadIdx.x, y = threadIdx.y;
    size_t r0 = blockIdx.y * (size_t)T, c0 = blockIdx.x * (size_t)T;
    float v[T / R][T / 32];
#pragma unroll
    for (unsigned j = 0; j < T; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32)
            if (r0 + y + j < rows && c0 + x + i < cols)
                v[j / R][i / 32] = in[(r0 + y + j) * cols + c0 + x + i];
#pragma unroll
    for (unsigned j = 0; j < T; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32)
            if (r0 + y + j < rows && c0 + x + i < cols)
                out[(r0 + y + j) * cols + c0 + x + i] = v[j / R][i / 32];
}
__global__ void shifted_copy(const float *__restrict__ in, float *__restrict__ out, size_t n, unsigned shift)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i + shift];
}
static size_t up32(size_t v) { return (v + 31) / 32 * 32; }
int main()
{
    size_t shapes[][2] = {{4095, 4097}, {4096, 4096}, {8191, 8193}, {8192, 8192}, {15000, 17893}, {16383, 16385}, {16384, 16384}, {16385, 16383}};
    size_t most = up32(16385) * up32(16385) + 64;
    float *in, *out, *ref;
    CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4)); CK(cudaMalloc(&ref, most * 4));
    std::vector<float> h = upload_input(in, most);
#ifndef NO_CUBLAS
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) { printf("no cuBLAS\n"); return 1; }
#endif
    printf("%-12s %8s %8s %6s %8s %6s %8s %6s %8s %6s %8s %6s %8s %6s\n", "shape", "copy", "dense", "%copy", "inP", "%copy", "outP", "%copy", "bothP", "%copy", "geam", "%copy", "tcopy", "%copy");
    for (int rep = 0; rep < 2; rep++)
        for (auto &s : shapes) {
            size_t rows = s[0], cols = s[1], n = rows * cols;
            float copy = med([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
            dim3 th(32, R), grid((cols + T - 1) / T, (rows + T - 1) / T);
            auto go = [&](size_t ip, size_t op, float *dst) { pitched<<<grid, th>>>(in, dst, rows, cols, ip, op); };
            float t[6];
            t[0] = med([&] { go(cols, rows, ref); });
            std::vector<float> want(n), got(n);
            CK(cudaMemcpy(want.data(), ref, n * 4, cudaMemcpyDeviceToHost));
            size_t pitch[3][2] = {{up32(cols), rows}, {cols, up32(rows)}, {up32(cols), up32(rows)}};
            bool ok[6] = {true, true, true, true, true, true};
            for (int v = 0; v < 3; v++) {
                size_t ip = pitch[v][0], op = pitch[v][1];
                t[1 + v] = med([&] { go(ip, op, out); });
                // in's values sit at other places when padded: check against a transposition of those places
                std::vector<float> g(cols * op);
                CK(cudaMemcpy(g.data(), out, cols * op * 4, cudaMemcpyDeviceToHost));
                for (size_t c = 0; c < cols && ok[1 + v]; c += 97)
                    for (size_t r = 0; r < rows; r += 89)
                        if (g[c * op + r] != h[r * ip + c]) { ok[1 + v] = false; break; }
            }
#ifndef NO_CUBLAS
            const float one = 1, zero = 0;
            // row-major in (rows x cols) is column-major cols x rows; out = in^T is column-major rows x cols
            t[4] = med([&] { cublasSgeam(handle, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out, rows, out, rows); });
            CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
            ok[4] = got == want;
#else
            t[4] = 0;
#endif
            t[5] = med([&] { tilecopy<<<grid, th>>>(in, out, rows, cols); });
            CK(cudaMemcpy(got.data(), out, n * 4, cudaMemcpyDeviceToHost));
            ok[5] = std::equal(got.begin(), got.end(), h.begin());
            char name[32]; snprintf(name, sizeof name, "%zux%zu", rows, cols);
            printf("%-12s %8.4f", name, copy);
            for (int v = 0; v < 6; v++) printf(" %8.4f %5.1f%%%s", t[v], t[v] ? 100 * copy / t[v] : 0.0, ok[v] ? "" : "!");
            printf("\n");
            fflush(stdout);
        }
    // a stream of floats read 0, 4 or 64 bytes past a line's start
    size_t n = 16384ull * 16384;
    float copy = med([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
    for (unsigned shift : {0u, 1u, 16u}) {
        float t = med([&] { shifted_copy<<<(n + 255) / 256, 256>>>(in, out, n, shift); });
        printf("copy kernel reading %2u floats past a line: %.4f ms, %.1f%% of cudaMemcpy (%.4f)\n", shift, t, 100 * copy / t, copy);
    }
    return 0;
}
