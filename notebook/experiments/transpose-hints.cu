/* transpose-hints.cu: does a cache hint on stage 5's stores or loads change
 * what the odd shapes lose (transpose-camping.cu: writes into rows of out
 * that start inside a sector)? Stage 5's kernel (64x64 tiles, 32x16
 * threads) with its stores plain, streaming (__stcs: evict first), cached
 * in L2 only (__stcg) or written through (__stwt), and with streaming loads
 * (__ldcs). Median of 20 CUDA-event runs after 3; %copy: the device-to-device
 * copy of the matrix's bytes over the kernel's time, in the same run.
 *   nvcc -O3 -arch=sm_90 -std=c++17 transpose-hints.cu -o transpose-hints
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "common.cuh"
enum { T = 64, R = 16, PLAIN = 0, CS = 1, CG = 2, WT = 3 };

template <int STORE, bool LOAD_CS>
__global__ void __launch_bounds__(512) tiles(const float *__restrict__ in, float *__restrict__ out, size_t rows, size_t cols)
{
    __shared__ float tile[T][T + 1];
    unsigned x = threadIdx.x, y = threadIdx.y;
    size_t r0 = blockIdx.y * (size_t)T, c0 = blockIdx.x * (size_t)T;
#pragma unroll
    for (unsigned j = 0; j < T; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32)
            if (r0 + y + j < rows && c0 + x + i < cols) {
                const float *p = in + (r0 + y + j) * cols + c0 + x + i;
                tile[y + j][x + i] = LOAD_CS ? __ldcs(p) : *p;
            }
    __syncthreads();
#pragma unroll
    for (unsigned j = 0; j < T; j += R)
#pragma unroll
        for (unsigned i = 0; i < T; i += 32)
            if (c0 + y + j < cols && r0 + x + i < rows) {
                float *p = out + (c0 + y + j) * rows + r0 + x + i, v = tile[x + i][y + j];
                if (STORE == CS) __stcs(p, v);
                else if (STORE == CG) __stcg(p, v);
                else if (STORE == WT) __stwt(p, v);
                else *p = v;
            }
}
typedef void (*kernel)(const float *, float *, size_t, size_t);
int main()
{
    size_t shapes[][2] = {{4095, 4097}, {4096, 4096}, {8191, 8193}, {8192, 8192}, {15000, 17893}, {16383, 16385}, {16384, 16384}};
    kernel ks[] = {tiles<PLAIN, false>, tiles<CS, false>, tiles<CG, false>, tiles<WT, false>, tiles<PLAIN, true>};
    const char *names[] = {"stage5", "st.cs", "st.cg", "st.wt", "ld.cs"};
    size_t most = 16385ull * 16385;
    float *in, *out, *ref;
    CK(cudaMalloc(&in, most * 4)); CK(cudaMalloc(&out, most * 4)); CK(cudaMalloc(&ref, most * 4));
    std::vector<float> h = upload_input(in, most);
    printf("%-12s %8s", "shape", "copy");
    for (auto nm : names) printf(" %8s %6s", nm, "%copy");
    printf("\n");
    for (int rep = 0; rep < 2; rep++)
        for (auto &s : shapes) {
            size_t rows = s[0], cols = s[1];
            dim3 grid((cols + T - 1) / T, (rows + T - 1) / T), th(32, R);
            variant_row(in, out, ref, rows, cols, 5, [&](int v, float *dst) { ks[v]<<<grid, th>>>(in, dst, rows, cols); });
        }
    return 0;
}
