/* runtime.cpp: the CUDA runtime calls the workbook makes, and the atomics,
 * answered on the CPU. */
#include "memory.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace emu;

cudaError_t emu_last_error = cudaSuccess;
const char *emu_failure();

/* ---- errors ------------------------------------------------------------ */

cudaError_t cudaGetLastError()
{
    cudaError_t e = emu_last_error;
    if (e != cudaErrorLaunchFailure) /* like a kernel fault, that one sticks */
        emu_last_error = cudaSuccess;
    return e;
}
cudaError_t cudaPeekAtLastError() { return emu_last_error; }
cudaError_t cudaDeviceSynchronize()
{
    return emu_last_error == cudaErrorLaunchFailure ? emu_last_error : cudaSuccess;
}
cudaError_t cudaDeviceReset()
{
    emu_last_error = cudaSuccess;
    return cudaSuccess;
}

const char *cudaGetErrorString(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorLaunchFailure: return emu_failure();
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
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidValue; }

/* The SMs the device has: one per core, unless emu_device_sms said. */
static unsigned fixed_sms;
void emu_device_sms(unsigned sms) { fixed_sms = sms; }
static unsigned sms() { return fixed_sms ? fixed_sms : workers(); }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "CPU emulation (%u cores)", workers());
    p->totalGlobalMem = memory_total();
    p->sharedMemPerBlock = 48 * 1024;
    p->sharedMemPerBlockOptin = SHARED_DYNAMIC;
    p->multiProcessorCount = (int)sms();
    p->warpSize = 32;
    p->maxThreadsPerBlock = MAX_THREADS;
    p->maxThreadsPerMultiProcessor = 2048;
    p->maxBlocksPerMultiProcessor = 32;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int)
{
    switch (attr) {
    case cudaDevAttrMultiProcessorCount: *value = (int)sms(); break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = 48 * 1024; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = (int)SHARED_DYNAMIC; break;
    default: *value = (int)MAX_THREADS;
    }
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

/* Every launch may use up to the opt-in maximum here, so nothing to record. */
cudaError_t cudaFuncSetAttribute(const void *, cudaFuncAttribute, int value)
{
    return value >= 0 && (size_t)value <= SHARED_DYNAMIC ? cudaSuccess : cudaErrorInvalidValue;
}

/* ---- memory ------------------------------------------------------------ */

cudaError_t cudaMalloc(void **ptr, size_t bytes)
{
    *ptr = device_alloc(bytes);
    return *ptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFree(void *ptr)
{
    return !ptr || device_free(ptr) ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaMallocHost(void **ptr, size_t bytes)
{
    *ptr = aligned_alloc(256, (bytes + 255) / 256 * 256 + 256);
    return *ptr ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaFreeHost(void *ptr) { free(ptr); return cudaSuccess; }

/* A copy's or a set's device side must lie in one live cudaMalloc, as a
 * GPU's runtime checks, and no side may be null: else cudaErrorInvalidValue,
 * and nothing is touched, where a CPU would crash or write past the end. */
static bool copyable(const void *p, size_t bytes)
{
    if (!p)
        return false;
    if (!is_device(p))
        return true; /* host memory: only the caller knows its size */
    const allocation *a = allocation_at((const char *)p);
    return a && a->live && (size_t)((const char *)p - a->begin) + bytes <= a->bytes;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind)
{
    if (bytes == 0)
        return cudaSuccess;
    if (!copyable(dst, bytes) || !copyable(src, bytes))
        return emu_last_error = cudaErrorInvalidValue;
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
    if (bytes == 0)
        return cudaSuccess;
    if (!copyable(ptr, bytes))
        return emu_last_error = cudaErrorInvalidValue;
    memset(ptr, value, bytes);
    return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t)
{
    return cudaMemset(ptr, value, bytes);
}
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    *total_bytes = memory_total();
    *free_bytes = memory_available();
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

/* ---- atomics: each tells the race detector, then does the CPU's atomic,
 *      in the order of its word's history (atomic_order) ---- */

/* Replace *p by change(*p) atomically; returns the old value. */
template <typename T, typename F> static T update(T *p, F change, const void *pc)
{
    note_atomic(p, sizeof *p, pc);
    atomic_order in_order(p, sizeof *p, pc);
    T old, next;
    __atomic_load(p, &old, __ATOMIC_RELAXED);
    do
        next = change(old);
    while (!__atomic_compare_exchange(p, &old, &next, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    return old;
}

#define ATOMIC(T, name, expression) \
    T name(T *p, T v) { return update(p, [v](T old) -> T { return expression; }, PC); }
ATOMIC(int, atomicAdd, old + v)
ATOMIC(unsigned, atomicAdd, old + v)
ATOMIC(unsigned long long, atomicAdd, old + v)
ATOMIC(float, atomicAdd, old + v)
ATOMIC(double, atomicAdd, old + v)
ATOMIC(int, atomicSub, old - v)
ATOMIC(unsigned, atomicSub, old - v)
ATOMIC(int, atomicMin, std::min(old, v))
ATOMIC(unsigned, atomicMin, std::min(old, v))
ATOMIC(long long, atomicMin, std::min(old, v))
ATOMIC(unsigned long long, atomicMin, std::min(old, v))
ATOMIC(int, atomicMax, std::max(old, v))
ATOMIC(unsigned, atomicMax, std::max(old, v))
ATOMIC(long long, atomicMax, std::max(old, v))
ATOMIC(unsigned long long, atomicMax, std::max(old, v))
ATOMIC(int, atomicAnd, old & v)
ATOMIC(unsigned, atomicAnd, old & v)
ATOMIC(unsigned long long, atomicAnd, old & v)
ATOMIC(int, atomicOr, old | v)
ATOMIC(unsigned, atomicOr, old | v)
ATOMIC(unsigned long long, atomicOr, old | v)
ATOMIC(int, atomicXor, old ^ v)
ATOMIC(unsigned, atomicXor, old ^ v)
ATOMIC(unsigned long long, atomicXor, old ^ v)
ATOMIC(unsigned, atomicInc, old >= v ? 0 : old + 1)
#undef ATOMIC

/* A plain swap: the bits of v go in as they are, a NaN or -0.0 too. */
template <typename T> static T exchange(T *p, T v, const void *pc)
{
    note_atomic(p, sizeof *p, pc);
    atomic_order in_order(p, sizeof *p, pc);
    T old;
    __atomic_exchange(p, &v, &old, __ATOMIC_SEQ_CST);
    return old;
}
int atomicExch(int *p, int v) { return exchange(p, v, PC); }
unsigned atomicExch(unsigned *p, unsigned v) { return exchange(p, v, PC); }
unsigned long long atomicExch(unsigned long long *p, unsigned long long v)
{
    return exchange(p, v, PC);
}
float atomicExch(float *p, float v) { return exchange(p, v, PC); }

template <typename T> static T compare_and_swap(T *p, T expected, T v, const void *pc)
{
    return update(p, [=](T old) { return old == expected ? v : old; }, pc);
}
int atomicCAS(int *p, int e, int v) { return compare_and_swap(p, e, v, PC); }
unsigned atomicCAS(unsigned *p, unsigned e, unsigned v) { return compare_and_swap(p, e, v, PC); }
unsigned long long atomicCAS(unsigned long long *p, unsigned long long e, unsigned long long v)
{
    return compare_and_swap(p, e, v, PC);
}
