/* emu.cpp: CUDA on the CPU, small enough to read.
 *
 * A launch hands blocks out, in order, to one worker per CPU core. A worker
 * runs a block by giving each of its threads a fiber (a stack and a saved
 * context) and resuming them in turn: each fiber runs until it returns or
 * reaches __syncthreads(). When no fiber can go on, either all are waiting
 * at the barrier (release them all) or some have returned while others wait:
 * a barrier not every thread reaches, which on a GPU hangs or corrupts, and
 * here stops the launch with the threads named. */
#include "cuda_runtime.h"

#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

thread_local uint3 threadIdx, blockIdx;
thread_local dim3 blockDim, gridDim;

namespace {

const size_t STACK_BYTES = 256 * 1024;
const unsigned MAX_THREADS = 1024;

cudaError_t last_error = cudaSuccess;
std::string failure; /* what went wrong in the last failed launch, in words */
std::mutex failure_lock;
std::atomic<bool> aborted;

enum state { READY, WAITING, DONE };

struct fiber {
    ucontext_t context;
    uint3 index;
    state now;
};

/* One per worker: the fibers of the block it is running. */
struct block_runner {
    char *stacks = nullptr;
    fiber fibers[MAX_THREADS];
    ucontext_t scheduler;
    const std::function<void()> *body;
    unsigned current;
};
thread_local block_runner *runner;

void fiber_main()
{
    (*runner->body)();
    runner->fibers[runner->current].now = DONE; /* then back to the scheduler */
}

void fail_launch(const std::string &why)
{
    std::lock_guard<std::mutex> hold(failure_lock);
    if (!aborted.exchange(true))
        failure = why;
}

std::string thread_list(const block_runner &r, unsigned n, state which)
{
    std::string list;
    unsigned shown = 0, count = 0;
    for (unsigned t = 0; t < n; t++)
        if (r.fibers[t].now == which && count++ < 8)
            list += (shown++ ? ", " : "") + std::to_string(t);
    if (count > 8)
        list += " and " + std::to_string(count - 8) + " more";
    return list;
}

void run_block(block_runner &r, const emu_launch_config &c, const char *kernel, uint3 b)
{
    unsigned n = c.block.x * c.block.y * c.block.z;
    blockIdx = b;
    blockDim = c.block;
    gridDim = c.grid;
    for (unsigned t = 0; t < n; t++) {
        fiber &f = r.fibers[t];
        f.index = {t % c.block.x, t / c.block.x % c.block.y, t / (c.block.x * c.block.y)};
        f.now = READY;
        getcontext(&f.context);
        f.context.uc_stack.ss_sp = r.stacks + (size_t)t * STACK_BYTES;
        f.context.uc_stack.ss_size = STACK_BYTES;
        f.context.uc_link = &r.scheduler;
        makecontext(&f.context, fiber_main, 0);
    }
    for (;;) {
        for (unsigned t = 0; t < n; t++) {
            if (r.fibers[t].now != READY)
                continue;
            r.current = t;
            threadIdx = r.fibers[t].index;
            swapcontext(&r.scheduler, &r.fibers[t].context);
        }
        unsigned waiting = 0, done = 0;
        for (unsigned t = 0; t < n; t++)
            (r.fibers[t].now == WAITING ? waiting : done)++;
        if (waiting == 0)
            return;
        if (done > 0) {
            fail_launch(std::string("kernel ") + kernel + ", block (" + std::to_string(b.x) + ", " +
                        std::to_string(b.y) + ", " + std::to_string(b.z) +
                        "): threads " + thread_list(r, n, WAITING) +
                        " wait at __syncthreads() but threads " + thread_list(r, n, DONE) +
                        " returned without reaching it: a barrier inside code that not "
                        "every thread of the block runs");
            return;
        }
        for (unsigned t = 0; t < n; t++)
            r.fibers[t].now = READY;
    }
}

bool valid(const emu_launch_config &c)
{
    unsigned long long threads = (unsigned long long)c.block.x * c.block.y * c.block.z;
    return c.grid.x && c.grid.y && c.grid.z && threads && threads <= MAX_THREADS &&
           c.block.z <= 64;
}

unsigned workers() { return std::max(1u, std::thread::hardware_concurrency()); }

} // namespace

void __syncthreads()
{
    block_runner &r = *runner;
    r.fibers[r.current].now = WAITING;
    swapcontext(&r.fibers[r.current].context, &r.scheduler);
}

void emu_launch(emu_launch_config c, const char *kernel, const std::function<void()> &body)
{
    if (!valid(c)) {
        last_error = cudaErrorInvalidConfiguration;
        return;
    }
    unsigned long long blocks = (unsigned long long)c.grid.x * c.grid.y * c.grid.z;
    std::atomic<unsigned long long> next(0);
    aborted = false;
    auto work = [&]() {
        static thread_local block_runner mine;
        if (!mine.stacks) { /* reserved, not committed: pages appear as stacks grow */
            void *p = mmap(nullptr, STACK_BYTES * MAX_THREADS, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
            if (p == MAP_FAILED) {
                fail_launch("cannot reserve fiber stacks");
                return;
            }
            mine.stacks = (char *)p;
        }
        runner = &mine;
        mine.body = &body;
        /* blocks in increasing order, so a block may wait on an earlier one */
        for (unsigned long long k; !aborted && (k = next++) < blocks;) {
            uint3 b = {(unsigned)(k % c.grid.x), (unsigned)(k / c.grid.x % c.grid.y),
                       (unsigned)(k / ((unsigned long long)c.grid.x * c.grid.y))};
            run_block(mine, c, kernel, b);
        }
    };
    unsigned count = (unsigned)std::min<unsigned long long>(workers(), blocks);
    std::vector<std::thread> pool;
    for (unsigned w = 1; w < count; w++)
        pool.emplace_back(work);
    work();
    for (auto &t : pool)
        t.join();
    if (aborted)
        last_error = cudaErrorLaunchFailure;
}

/* ---- errors ------------------------------------------------------------ */

cudaError_t cudaGetLastError()
{
    cudaError_t e = last_error;
    if (e != cudaErrorLaunchFailure) /* like a kernel fault, that one sticks */
        last_error = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError() { return last_error; }
cudaError_t cudaDeviceSynchronize() { return last_error == cudaErrorLaunchFailure ? last_error : cudaSuccess; }

const char *cudaGetErrorString(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorLaunchFailure: return failure.c_str();
    default: return "unknown error";
    }
}

const char *cudaGetErrorName(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    default: return "cudaErrorUnknown";
    }
}

/* ---- the device: the CPU, dressed as a GPU of one SM per core --------- */

cudaError_t cudaGetDeviceCount(int *count) { *count = 1; return cudaSuccess; }
cudaError_t cudaGetDevice(int *device) { *device = 0; return cudaSuccess; }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "CPU emulation (%u cores)", workers());
    p->totalGlobalMem = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    p->multiProcessorCount = (int)workers();
    p->maxThreadsPerBlock = MAX_THREADS;
    p->maxThreadsPerMultiProcessor = 2048;
    p->maxBlocksPerMultiProcessor = 32;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int)
{
    *value = attr == cudaDevAttrMultiProcessorCount ? (int)workers() : (int)MAX_THREADS;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v) { *v = 0; return cudaSuccess; }
cudaError_t cudaDriverGetVersion(int *v) { *v = 0; return cudaSuccess; }

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *, int block,
                                                          size_t)
{
    if (block < 1 || block > (int)MAX_THREADS)
        return cudaErrorInvalidValue;
    int warps = (block + 31) / 32;
    *blocks = std::min(32, 2048 / (32 * warps));
    return cudaSuccess;
}

/* ---- memory ------------------------------------------------------------ */

cudaError_t cudaMalloc(void **ptr, size_t bytes)
{
    *ptr = aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
    return *ptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *ptr) { free(ptr); return cudaSuccess; }
cudaError_t cudaMallocHost(void **ptr, size_t bytes) { return cudaMalloc(ptr, bytes); }
cudaError_t cudaFreeHost(void *ptr) { free(ptr); return cudaSuccess; }

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind)
{
    memmove(dst, src, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t)
{
    return cudaMemcpy(dst, src, bytes, kind);
}
cudaError_t cudaMemset(void *ptr, int value, size_t bytes)
{
    memset(ptr, value, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *total_bytes = (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    *free_bytes = (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    return cudaSuccess;
}

/* ---- events ------------------------------------------------------------- */

struct emu_event {
    std::chrono::steady_clock::time_point at;
};
cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = new emu_event(); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t)
{
    e->at = std::chrono::steady_clock::now();
    return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop)
{
    *ms = std::chrono::duration<float, std::milli>(stop->at - start->at).count();
    return cudaSuccess;
}
cudaError_t cudaEventDestroy(cudaEvent_t e) { delete e; return cudaSuccess; }
