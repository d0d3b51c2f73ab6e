/* gpu.cu: the GPU as the harness asks of it: is there one, what it is,
 * whether it is still usable, and timing with CUDA events. Problems are
 * workbook.cu's and verify.cu's. */
#include "workbook.cuh"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- the GPU ----------------------------------------------------------- */

bool gpu_present(char *why, size_t len)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice) {
        snprintf(why, len, "no NVIDIA GPU with a working driver; CUDA says: %s",
                 cudaGetErrorString(err));
        return false;
    }
    if (err != cudaSuccess) {
        snprintf(why, len, "%s", cudaGetErrorString(err));
        return false;
    }
    if (count == 0) {
        snprintf(why, len, "the CUDA driver sees no GPU");
        return false;
    }
    snprintf(why, len, "%s", gpu_description());
    return true;
}

bool gpu_present_forked(char *why, size_t len)
{
    int fd[2];
    if (pipe(fd) != 0)
        die("pipe: cannot ask whether a GPU is present");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char text[256];
        bool ok = gpu_present(text, sizeof text);
        ssize_t w = write(fd[1], text, strlen(text) + 1);
        _exit(ok && w > 0 ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], why, len - 1);
    why[got > 0 ? got : 0] = '\0';
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got <= 0)
        snprintf(why, len, "the GPU probe crashed");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void gpu_check_block_forked(int block)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char why[256];
        if (gpu_present(why, sizeof why)) /* without a GPU no test runs to use it */
            gpu_check_block(block);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        die("BLOCK=%d: cannot ask the GPU whether it fits", block);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        exit(2); /* the child has said why */
}

static cudaDeviceProp *props(void)
{
    static cudaDeviceProp p;
    static bool known;
    if (!known) {
        int dev;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
        known = true;
    }
    return &p;
}

const char *gpu_description(void)
{
    static char text[200];
    if (gpu_emulated()) {
        snprintf(text, sizeof text, "%.100s: EMULATED, times are CPU times", props()->name);
        return text;
    }
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    snprintf(text, sizeof text, "%.100s, %d SMs, sm_%d%d, %.0f GiB, CUDA runtime %d.%d, driver %d.%d",
             props()->name, props()->multiProcessorCount, props()->major, props()->minor,
             props()->totalGlobalMem / 1073741824.0, runtime / 1000, runtime % 1000 / 10,
             driver / 1000, driver % 1000 / 10);
    return text;
}

#ifdef WORKBOOK_EMU
bool gpu_emulated(void) { return true; }
#else
bool gpu_emulated(void) { return false; }
#endif
int gpu_sm_count(void) { return props()->multiProcessorCount; }
int gpu_max_threads_per_block(void) { return props()->maxThreadsPerBlock; }

void gpu_check_block(int block)
{
    if (block < 1 || block > gpu_max_threads_per_block())
        die("BLOCK=%d: a block holds 1 to %d threads on this GPU", block,
            gpu_max_threads_per_block());
}
int gpu_max_threads_per_sm(void) { return props()->maxThreadsPerMultiProcessor; }

int gpu_resident_blocks(int block)
{
    int warps = (block + 31) / 32;  /* a block occupies whole warps */
    int by_threads = props()->maxThreadsPerMultiProcessor / (32 * warps);
    int by_blocks = props()->maxBlocksPerMultiProcessor;
    return by_threads < by_blocks ? by_threads : by_blocks;
}

void *library_temp(size_t bytes)
{
    static void *temp;
    static size_t have;
    if (bytes > have) {
        CUDA_CHECK(cudaFree(temp));
        CUDA_CHECK(cudaMalloc(&temp, bytes));
        have = bytes;
    }
    return temp;
}

bool gpu_healthy(void) { return cudaDeviceSynchronize() == cudaSuccess; }

/* ---- timing ------------------------------------------------------------ */

double time_gpu_ms(void (*work)(void *ctx), void *ctx, int warmup, int reps)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = 0; r < warmup; r++)
        work(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    double *t = (double *)malloc(reps * sizeof *t);
    for (int r = 0; r < reps; r++) {
        float ms;
        CUDA_CHECK(cudaEventRecord(start));
        work(ctx);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        t[r] = ms;
    }
    CUDA_CHECK(cudaGetLastError());
    double m = median(t, reps);
    free(t);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return m;
}

struct copy_job {
    void *dst;
    const void *src;
    size_t bytes;
};

static void copy_once(void *ctx)
{
    struct copy_job *c = (struct copy_job *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice));
}

double time_copy_ms(size_t bytes, int reps)
{
    struct copy_job c;
    c.bytes = bytes;
    CUDA_CHECK(cudaMalloc(&c.dst, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.src, bytes));
    CUDA_CHECK(cudaMemset(c.dst, 1, bytes));
    CUDA_CHECK(cudaMemset((void *)c.src, 2, bytes));
    double ms = time_gpu_ms(copy_once, &c, 3, reps);
    CUDA_CHECK(cudaFree(c.dst));
    CUDA_CHECK(cudaFree((void *)c.src));
    return ms;
}
