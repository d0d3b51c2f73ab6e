/* host.cuh: the host half of a batch that gen.c wrote, included at its end:
 * each kernel of kernels[] run on the same inputs, its outputs' checksum
 * printed, "INDEX ok CHECKSUM", or "INDEX error WHY" (an emulation's report
 * is an error). With an argument INDEX, that kernel's words, a line each.
 * The batch defines IN, SCRATCH, OUT_MOST, row_init[] and kernels[]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long hash(unsigned long long h, const unsigned *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ w[i]) * 0x100000001b3ull; /* FNV-1a's prime */
    return h;
}

static unsigned h_in[IN], h_scratch[SCRATCH], h_out[OUT_MOST], h_init[SCRATCH];
static float h_fin[IN];
static unsigned *in, *out, *scratch, *xbuf;
static float *fin;

/* The device's buffers and inputs, again after a failed kernel: its error sticks. */
static int setup(void)
{
    cudaDeviceReset();
    return cudaMalloc(&in, sizeof h_in) || cudaMalloc(&fin, sizeof h_fin) || cudaMalloc(&out, sizeof h_out) ||
           cudaMalloc(&scratch, sizeof h_scratch) || cudaMalloc(&xbuf, OUT_MOST * sizeof(unsigned)) ||
           cudaMemcpy(in, h_in, sizeof h_in, cudaMemcpyHostToDevice) ||
           cudaMemcpy(fin, h_fin, sizeof h_fin, cudaMemcpyHostToDevice);
}

/* Kernel e once, from fresh outputs and scratch; 0, or why not. */
static const char *run(const struct kernel_entry *e, size_t words)
{
    cudaMemsetAsync(out, 0, sizeof h_out);
    cudaMemset(xbuf, 0, OUT_MOST * sizeof(unsigned));
    cudaMemcpy(scratch, h_init, sizeof h_init, cudaMemcpyHostToDevice);
    e->launch(in, fin, out, scratch, xbuf);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    if (err == cudaSuccess)
        err = cudaMemcpy(h_out, out, words * sizeof(unsigned), cudaMemcpyDeviceToHost);
    if (err == cudaSuccess)
        err = cudaMemcpy(h_scratch, scratch, sizeof h_scratch, cudaMemcpyDeviceToHost);
    if (err == cudaSuccess)
        return NULL;
    static char why[4096];
    snprintf(why, sizeof why, "%s", cudaGetErrorString(err));
    for (char *c = why; *c; c++) /* a report on one line */
        if (*c == '\n' || *c == '\t')
            *c = ' ';
    return why;
}

int main(int argc, char **argv)
{
    long only = argc > 1 ? atol(argv[1]) : -1;
    unsigned long long x = 12345;
    for (unsigned i = 0; i < IN; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        h_in[i] = (unsigned)(x >> 32);
        h_fin[i] = (float)(h_in[i] % 1024u) * 0.25f; /* quarters: sums of them are exact */
    }
    for (unsigned i = 0; i < SCRATCH; i++)
        h_init[i] = i / 16 < sizeof row_init / sizeof *row_init ? row_init[i / 16] : 0;
    if (setup()) {
        printf("setup error %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++) {
        const struct kernel_entry *e = &kernels[k];
        if (only >= 0 && e->index != (unsigned long)only)
            continue;
        size_t words = (size_t)e->threads * 4;
        if (const char *why = run(e, words)) {
            printf("%u error %s\n", e->index, why);
            if (setup()) {
                printf("setup error after kernel %u\n", e->index);
                return 1;
            }
        } else if (only >= 0) {
            for (size_t i = 0; i < words; i++)
                printf("out[%zu] %08x\n", i, h_out[i]);
            for (size_t i = 0; i < SCRATCH; i++)
                printf("scratch[%zu] %08x\n", i, h_scratch[i]);
        } else {
            printf("%u ok %016llx\n", e->index,
                   hash(hash(14695981039346656037ull, h_out, words), h_scratch, SCRATCH));
        }
    }
    return 0;
}
