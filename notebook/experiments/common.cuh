/* common.cuh: what the experiments of this folder share, as llm.c's
 * dev/cuda/common.h serves its kernels: one error check and one timer, so
 * that every table here is timed the same way, then the transpose tables'
 * input and rows. An experiment includes it as "common.cuh", which nvcc
 * finds beside the source: its build line needs no -I.
 */
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

// every CUDA call, checked: where it failed and CUDA's own words, then stop
#define CK(x) do { cudaError_t e = (x); if (e) { printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

/* f's times in ms between two CUDA events, sorted: 3 untimed runs first, so
 * that a first launch's setup and cold caches are not timed, then 20. */
template <typename F> std::vector<float> event_times(F f)
{
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    for (int k = 0; k < 3; k++) f();
    std::vector<float> t;
    for (int k = 0; k < 20; k++) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); }
    std::sort(t.begin(), t.end());
    return t;
}
// the median of those 20, once no launch among them has failed
template <typename F> float med(F f)
{
    std::vector<float> t = event_times(f);
    CK(cudaGetLastError()); return (t[9] + t[10]) / 2;
}
/* the 11th of the 20: the median as transpose-odd.cu and
 * scan-hs-warp-totals.cu took it for their recorded runs */
template <typename F> float med_upper(F f)
{
    std::vector<float> t = event_times(f);
    CK(cudaGetLastError()); return t[10];
}

/* The transpose experiments' input, uploaded to d_in: element i is
 * i % 1000003, exact as a float and unlike its neighbours, so that an element
 * out of place shows in a comparison. */
inline std::vector<float> upload_input(float *d_in, size_t n)
{
    std::vector<float> h(n);
    for (size_t i = 0; i < n; i++) h[i] = (float)(i % 1000003);
    CK(cudaMemcpy(d_in, h.data(), n * 4, cudaMemcpyHostToDevice));
    return h;
}

/* One row of the transpose tables that set variants side by side: the shape,
 * the device-to-device copy of its bytes, then each variant's median and the
 * copy's time over it (%copy). Variant 0 writes ref; every other writes out
 * and is compared with it ('!' marks a difference). go(v, dst) launches v. */
template <typename Go>
void variant_row(const float *in, float *out, float *ref, size_t rows, size_t cols, int nv, Go go)
{
    size_t n = rows * cols;
    float copy = med([&] { cudaMemcpyAsync(out, in, n * 4, cudaMemcpyDeviceToDevice); });
    std::vector<float> want(n), got(n);
    char name[32]; snprintf(name, sizeof name, "%zux%zu", rows, cols);
    printf("%-12s %8.4f", name, copy);
    for (int v = 0; v < nv; v++) {
        float *dst = v == 0 ? ref : out;
        CK(cudaMemset(dst, 0xff, n * 4));
        float t = med([&] { go(v, dst); });
        CK(cudaMemcpy(v == 0 ? want.data() : got.data(), dst, n * 4, cudaMemcpyDeviceToHost));
        printf(" %8.4f %5.1f%%%s", t, 100 * copy / t, v == 0 || got == want ? "" : "!");
    }
    printf("\n");
    fflush(stdout);
}

/* The whole table of transpose-strips and -windows: a header line, then a
 * row a shape, the rows printed twice in a row. variants[v].name heads
 * column v; go(v, dst, rows, cols) launches variant v. */
template <size_t S, typename V, typename Go>
void variant_table(const float *in, float *out, float *ref, const size_t (&shapes)[S][2], const V *variants, int nv, Go go)
{
    printf("%-12s %8s", "shape", "copy");
    for (int v = 0; v < nv; v++) printf(" %8s %6s", variants[v].name, "%copy");
    printf("\n");
    for (int rep = 0; rep < 2; rep++)
        for (auto &s : shapes) {
            size_t rows = s[0], cols = s[1];
            variant_row(in, out, ref, rows, cols, nv, [&](int v, float *dst) { go(v, dst, rows, cols); });
        }
}
