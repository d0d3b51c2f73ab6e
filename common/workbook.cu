/* workbook.cu: problems on the device: their buffers, each with a poisoned
 * guard zone on either side, outputs poisoned before every run, a stage's
 * launch, and inputs and outputs compared after it (verify.cu runs and
 * judges stages with these; gpu.cu is the GPU itself). */
#include "workbook.cuh"
#include "problem.h"

#ifndef WORKBOOK_EMU
#include <cuda_profiler_api.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ static void fill_word(uint32_t *d, size_t words, uint32_t value)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = value;
}

static void poison_device(void *d, size_t bytes)
{
    size_t words = bytes / 4; /* every size here is a multiple of 4 */
    if (words == 0)
        return;
#ifdef WORKBOOK_EMU
    /* the emulation's device memory is this process's: filled in place, not
     * by a launch of a fiber a word */
    for (size_t i = 0; i < words; i++)
        ((uint32_t *)d)[i] = POISON_WORD;
    return;
#endif
    unsigned grid = (unsigned)(ceil_div(words, 256) < 4096 ? ceil_div(words, 256) : 4096);
    fill_word<<<grid, 256>>>((uint32_t *)d, words, POISON_WORD);
    CUDA_CHECK(cudaGetLastError());
}

/* ---- problems ---------------------------------------------------------- */

struct problem *problem_new(const struct lab *lab, int variant, size_t n, size_t cols,
                            uint64_t seed, int block)
{
    struct problem *p = (struct problem *)calloc(1, sizeof *p);
    if (!p || !(p->args = (struct args *)calloc(1, lab->args_size)))
        die("out of host memory");
    p->lab = lab;
    p->variant = variant;
    p->n = n;
    p->cols = cols;
    p->seed = seed;
    p->block = block;
    p->emulated = gpu_emulated();
#ifdef WORKBOOK_EMU
    emu_block_order(seed); /* blocks start in an order the seed scrambles */
#endif
    lab->setup(p);
    if (n > 0 && !(p->bytes > 0))
        die("%s: its setup must say how many bytes a stage moves (p->bytes)", lab->name);
    return p;
}

void problem_free(struct problem *p)
{
    for (int i = 0; i < p->nbuf; i++) {
        CUDA_CHECK(cudaFree(p->buf[i].dev_base));
        CUDA_CHECK(cudaFreeHost(p->buf[i].host));
        CUDA_CHECK(cudaFreeHost(p->buf[i].got_base));
    }
    free(p->args);
    free(p);
}

static void *host_alloc(size_t bytes, const char *name)
{
    void *h = NULL;
    /* pinned, so copies run at full speed and their times are fair */
    if (cudaMallocHost(&h, bytes ? bytes : 4) != cudaSuccess)
        die("cannot allocate %.2f GiB of pinned host memory for '%s': choose a smaller N",
            bytes / 1073741824.0, name);
    return h;
}

static struct buffer *add(struct problem *p, const char *name, enum role role, enum elem type,
                          size_t count)
{
    if (p->nbuf == MAX_BUFFERS)
        die("%s: more than %d buffers", p->lab->name, MAX_BUFFERS);
    struct buffer *b = &p->buf[p->nbuf++];
    size_t bytes = padded_bytes(type, count);
    b->name = name;
    b->role = role;
    b->type = type;
    b->count = count;
    b->compared = count;
    b->host = role == SCRATCH ? NULL : host_alloc(bytes, name);
    if (role == OUTPUT) {
        b->got_base = host_alloc(whole_bytes(b), name);
        b->got = (char *)b->got_base + GUARD_BYTES;
    }
    cudaError_t err = cudaMalloc(&b->dev_base, whole_bytes(b));
    if (err == cudaErrorMemoryAllocation) {
        size_t free_b = 0, total = 0;
        cudaMemGetInfo(&free_b, &total);
        die("%s with n = %zu: buffer '%s' needs %.2f GiB more of GPU memory but only %.2f GiB "
            "of %.2f GiB is free: choose a smaller N",
            p->lab->name, p->n, name, bytes / 1073741824.0, free_b / 1073741824.0,
            total / 1073741824.0);
    }
    CUDA_CHECK(err);
    b->dev = (char *)b->dev_base + GUARD_BYTES;
#ifdef WORKBOOK_EMU
    /* the emulation then stops a kernel at its first access to a guard */
    emu_name_array(b->dev_base, name, GUARD_BYTES, count, elem_size(type));
#endif
    poison_device(b->dev_base, whole_bytes(b));
    return b;
}

struct buffer *problem_add_input(struct problem *p, const char *name, enum elem type, size_t count)
{
    return add(p, name, INPUT, type, count);
}

struct buffer *problem_add_output(struct problem *p, const char *name, enum elem type,
                                  size_t count, double rtol, double atol)
{
    struct buffer *b = add(p, name, OUTPUT, type, count);
    b->rtol = rtol;
    b->atol = atol;
    return b;
}

struct buffer *problem_add_scratch(struct problem *p, const char *name, enum elem type, size_t count)
{
    return add(p, name, SCRATCH, type, count);
}

struct buffer *problem_buffer(const struct problem *p, const char *name)
{
    for (int i = 0; i < p->nbuf; i++)
        if (strcmp(p->buf[i].name, name) == 0)
            return (struct buffer *)&p->buf[i];
    die("%s: no buffer named '%s'", p->lab->name, name);
}

static size_t bytes_of(const struct buffer *b) { return b->count * elem_size(b->type); }

void problem_upload(struct problem *p, const struct stage *s)
{
    for (int i = 0; i < p->nbuf; i++) {
        struct buffer *b = &p->buf[i];
        if (b->role == INPUT && (!s || !p->lab->run.reads || p->lab->run.reads(s, b)))
            CUDA_CHECK(cudaMemcpy(b->dev, b->host, bytes_of(b), cudaMemcpyHostToDevice));
    }
}

void problem_poison_outputs(struct problem *p)
{
    for (int i = 0; i < p->nbuf; i++)
        if (p->buf[i].role != INPUT)
            poison_device(p->buf[i].dev_base, whole_bytes(&p->buf[i]));
}

void problem_download(struct problem *p)
{
    for (int i = 0; i < p->nbuf; i++)
        if (p->buf[i].role == OUTPUT)
            CUDA_CHECK(cudaMemcpy(p->buf[i].got, p->buf[i].dev, bytes_of(&p->buf[i]),
                                  cudaMemcpyDeviceToHost));
}

bool launch_and_wait(struct problem *p, const struct stage *s, struct finding *f)
{
#ifndef WORKBOOK_EMU
    if (p->profiled)
        CUDA_CHECK(cudaProfilerStart());
#endif
    if (p->counts)
        access_counts_begin();
    double start = now_ms();
    s->launch(p->args, p->block);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    p->launch_ms = now_ms() - start;
    if (p->counts)
        access_counts_end(p->counts);
#ifndef WORKBOOK_EMU
    if (p->profiled && err == cudaSuccess)
        CUDA_CHECK(cudaProfilerStop());
#endif
    if (err == cudaSuccess)
        return true;
    f->verdict = KERNEL_FAILED;
    f->error_name = cudaGetErrorName(err);
    snprintf(f->error, sizeof f->error, "%s", cudaGetErrorString(err));
    return false;
}

/* A whole device allocation, guards included: into ->got_base for an
 * output, into fresh memory for an input. */
static unsigned char *download_all(const struct buffer *b)
{
    unsigned char *h = (unsigned char *)(b->got_base ? b->got_base : malloc(whole_bytes(b)));
    if (!h)
        die("out of host memory");
    CUDA_CHECK(cudaMemcpy(h, b->dev_base, whole_bytes(b), cudaMemcpyDeviceToHost));
    return h;
}

/* Both guards still poison? If not, the element written nearest the array
 * (negative before it). */
static bool guards_intact(const struct buffer *b, const unsigned char *all, long long *written)
{
    size_t end = GUARD_BYTES + padded_bytes(b->type, b->count), k = GUARD_BYTES;
    while (k >= 4 && is_poison(all + k - 4, 4))
        k -= 4;
    if (k >= 4) {
        long long before = (long long)(GUARD_BYTES - (k - 4));
        *written = -((before + (long long)elem_size(b->type) - 1) / (long long)elem_size(b->type));
        return false;
    }
    while (k < GUARD_BYTES && is_poison(all + end + k, 4))
        k += 4;
    if (k < GUARD_BYTES) {
        *written = (long long)((end - GUARD_BYTES + k) / elem_size(b->type));
        return false;
    }
    return true;
}

bool bytes_right(const struct problem *p, const struct stage *s, struct buffer *b,
                 const unsigned char *all, struct finding *f)
{
    bool ok = guards_intact(b, all, &f->index);
    if (!ok)
        f->verdict = GUARD_WRITTEN;
    if (ok && b->role == INPUT) {
        size_t at = first_difference(all + GUARD_BYTES, b->host, bytes_of(b));
        if (at != (size_t)-1) {
            f->verdict = INPUT_CHANGED;
            f->index = (long long)(at / elem_size(b->type));
            ok = false;
        }
    }
    if (ok && b->role == OUTPUT && p->lab->normalize)
        p->lab->normalize(p, s, b);
    if (ok && b->role == OUTPUT && !compare_output(b, &f->mismatch)) {
        f->verdict = OUTPUT_WRONG;
        ok = false;
    }
    f->buffer = b;
    return ok;
}

bool buffer_right(const struct problem *p, const struct stage *s, struct buffer *b,
                  struct finding *f)
{
    unsigned char *all = download_all(b);
    bool ok = bytes_right(p, s, b, all, f);
    if (all != b->got_base)
        free(all);
    return ok;
}

double output_bytes_written(const struct problem *p)
{
    double bytes = 0;
#ifdef WORKBOOK_EMU
    for (int i = 0; i < p->nbuf; i++)
        if (p->buf[i].role == OUTPUT)
            bytes += (double)emu_bytes_written(p->buf[i].dev_base);
#else
    (void)p;
#endif
    return bytes;
}

enum input_reads inputs_read(const struct problem *p)
{
#ifdef WORKBOOK_EMU
    bool read = false;
    for (int i = 0; i < p->nbuf; i++)
        if (p->buf[i].role == INPUT)
            read |= emu_touched(p->buf[i].dev_base);
    return read ? INPUTS_READ : INPUTS_UNREAD;
#else
    (void)p;
    return READS_UNKNOWN;
#endif
}

/* ---- will a problem fit? -------------------------------------------------- */

/* Memory this machine can still give, from the kernel's own estimate. The
 * emulation's device memory is this machine's: its runtime asks the system
 * (common/emu/platform.h), Linux's or a Mac's. */
static double host_available(void)
{
#ifdef WORKBOOK_EMU
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    return (double)free_bytes;
#else
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
#endif
}

/* Host and device bytes of one problem: setup sizes every buffer as an
 * affine function of n, so two small problems tell the line. */
static void footprint(const struct lab *lab, int variant, size_t n, double *host, double *device)
{
    const size_t probe[2] = {4096, 8192};
    double h[2] = {0, 0}, d[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        struct problem *p = problem_new(lab, variant, probe[k], lab->matrix ? 64 : 0, 1, 256);
        d[k] = p->bytes; /* the copy roofline's two buffers */
        for (int i = 0; i < p->nbuf; i++) {
            const struct buffer *b = &p->buf[i];
            d[k] += whole_bytes(b);
            /* an input's host copy, and its download when checked; an
             * output's reference and download */
            h[k] += b->role == SCRATCH ? 0 : padded_bytes(b->type, b->count) + whole_bytes(b);
        }
        problem_free(p);
    }
    double x = ((double)n - probe[0]) / (double)(probe[1] - probe[0]);
    *host = h[0] + (h[1] - h[0]) * x;
    *device = d[0] + (d[1] - d[0]) * x;
}

bool problem_fits(const struct lab *lab, int variant, size_t n, size_t cols, char *why,
                  size_t len)
{
    double host, device, gib = 1073741824.0;
    footprint(lab, variant, n, &host, &device);
#ifdef WORKBOOK_EMU
    device *= 1 + EMU_HISTORY_BYTES / 4.0; /* and each word's history, in this machine's memory */
#endif
    size_t device_free = 0, device_total = 0;
    CUDA_CHECK(cudaMemGetInfo(&device_free, &device_total));
    /* keep a tenth of memory for everything else */
    double host_room = 0.9 * host_available(), device_room = 0.9 * (double)device_free;
    const char *name = variant_name(lab, variant);
    if (gpu_emulated() && host + device > host_room) {
        snprintf(why, len,
                 "N=%s: %s%s%s needs about %.1f GiB of memory under EMU=1 (the GPU's memory is "
                 "this machine's), and %.1f GiB is free. Emulated kernels are slow anyway: "
                 "N=%s is plenty to check a stage",
                 size_text(n, cols), lab->name, name ? ", " : "", name ? name : "", (host + device) / gib,
                 host_room / 0.9 / gib, lab->matrix ? "2^10x2^10" : "2^20");
        return false;
    }
    if (!gpu_emulated() && (device > device_room || host > host_room)) {
        snprintf(why, len,
                 "N=%s: %s%s%s needs about %.1f GiB of GPU memory (%.1f GiB free) and %.1f GiB "
                 "of host memory (%.1f GiB free): choose a smaller N",
                 size_text(n, cols), lab->name, name ? ", " : "", name ? name : "", device / gib,
                 device_room / 0.9 / gib, host / gib, host_room / 0.9 / gib);
        return false;
    }
    return true;
}
