/* cuda_runtime.h, emulated: the part of CUDA the workbook uses, run on the
 * CPU (make ... EMU=1). The rewriter (rewrite.c) has already turned launches
 * and __shared__ declarations into the calls declared here.
 *
 * How a launch runs: blocks go out, in an order the seed scrambles, to one
 * worker per CPU core. The threads of a block are fibers on their worker,
 * each running until it returns or must wait: at __syncthreads for the whole
 * block, at a warp collective (__shfl_sync, __ballot_sync, __syncwarp...) for
 * the lanes of its mask. emu.cpp holds the scheduler; access.cpp the funnel
 * every load and store goes through, to the memory checks: device.cpp's
 * (bounds), history.cpp's (races between blocks, flags, spinning threads)
 * and shared.cpp's (races on shared memory); counts.cpp what a profiler
 * counts, told of each access by observers.cpp; faults.cpp what stops a
 * kernel thread that crashes, symbols.cpp the names and lines in reports,
 * runtime.cpp the rest.
 *
 * Faithful: indexing, bounds, which elements are written, barriers, warp
 * collectives, atomics (blocks really run in parallel), races on shared
 * memory, and on device memory between blocks and between the threads of a
 * block, flags stored before their value, without a fence or with only
 * __threadfence_block(), blocks that wait for blocks that have not started. Counted as a profiler
 * counts them, but costing nothing here: coalescing and bank conflicts.
 * Not shown: speed, occupancy, and the rest of the GPU's weaker memory
 * model. Times measured here are CPU times. */
#ifndef EMU_CUDA_RUNTIME_H
#define EMU_CUDA_RUNTIME_H

#include "../access_counts.h" /* what counts.cpp counts, as the harness reads it */

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)
#define __maxnreg__(...)
#define __align__(n) __attribute__((aligned(n)))

/* ---- where a thread is ------------------------------------------------ */
struct uint3 {
    unsigned x, y, z;
};
struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
/* Set by the emulator before it resumes each thread's fiber. */
extern thread_local uint3 threadIdx, blockIdx;
extern thread_local dim3 blockDim, gridDim;
constexpr int warpSize = 32;

/* ---- block barriers ---------------------------------------------------- */
void __syncthreads();
int __syncthreads_count(int predicate);
int __syncthreads_and(int predicate);
int __syncthreads_or(int predicate);
void __threadfence();
void __threadfence_block();
/* Nothing is timed here: a thread that naps goes straight on. */
inline void __nanosleep(unsigned ns) { (void)ns; }

/* ---- warp collectives: the lanes named in mask meet, then all go on ----- */
void __syncwarp(unsigned mask = 0xffffffffu);
unsigned __ballot_sync(unsigned mask, int predicate);
int __all_sync(unsigned mask, int predicate);
int __any_sync(unsigned mask, int predicate);
unsigned __activemask();

enum emu_shuffle_kind { EMU_SHFL_IDX, EMU_SHFL_UP, EMU_SHFL_DOWN, EMU_SHFL_XOR };
/* Every shuffle moves 8 bytes: the value's bits, whatever its type. Always
 * inlined, so that emu_shuffle's return address is in the kernel's code:
 * reports give the kernel's line. */
#define EMU_INLINE inline __attribute__((always_inline))
unsigned long long emu_shuffle(emu_shuffle_kind kind, unsigned mask, unsigned long long bits, int lane,
                               int width);
template <typename T>
EMU_INLINE T emu_shuffle_as(emu_shuffle_kind kind, unsigned mask, T v, int lane, int width)
{
    static_assert(sizeof(T) <= 8, "a shuffle moves at most 8 bytes");
    unsigned long long bits = 0;
    memcpy(&bits, &v, sizeof v);
    bits = emu_shuffle(kind, mask, bits, lane, width);
    memcpy(&v, &bits, sizeof v);
    return v;
}
/* Lanes match on their values' bits, as CUDA compares them: a float's too
 * (3.25f and 3.75f differ, though both convert to 3). */
unsigned emu_match_any(unsigned mask, unsigned long long bits);
template <typename T> EMU_INLINE unsigned __match_any_sync(unsigned mask, T value)
{
    static_assert(sizeof(T) <= 8, "__match_any_sync compares values of at most 8 bytes");
    unsigned long long bits = 0;
    memcpy(&bits, &value, sizeof value);
    return emu_match_any(mask, bits);
}
template <typename T> EMU_INLINE T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
    return emu_shuffle_as(EMU_SHFL_IDX, mask, v, src, width);
}
template <typename T> EMU_INLINE T __shfl_up_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    return emu_shuffle_as(EMU_SHFL_UP, mask, v, (int)delta, width);
}
template <typename T> EMU_INLINE T __shfl_down_sync(unsigned mask, T v, unsigned delta, int width = 32)
{
    return emu_shuffle_as(EMU_SHFL_DOWN, mask, v, (int)delta, width);
}
template <typename T> EMU_INLINE T __shfl_xor_sync(unsigned mask, T v, int lane_mask, int width = 32)
{
    return emu_shuffle_as(EMU_SHFL_XOR, mask, v, lane_mask, width);
}

/* A library collective (cooperative_groups.h, cub's warp and block ones)
 * called against its rules: the launch fails, naming the calling line. */
[[noreturn]] void emu_misuse(const char *why);

/* ---- shared memory: the rewriter turns
 *     __shared__ float tile[32][33];   into  float (&tile)[32][33] = emu_shared_var<...>
 *     extern __shared__ int s[];       into  static thread_local int *const s = emu_dynamic_shared
 * Each block's shared memory starts out poisoned with the word 0xFFBADBAD
 * (POISON_WORD, access_counts.h: a NaN as float, an odd value as int),
 * so reading what no thread wrote shows. */
struct emu_shared_site {
    const char *name;
    size_t bytes, align, element;
    unsigned rank; /* 0 for a scalar, 2 for tile[32][33] */
    size_t row;    /* elements in the last dimension */
    long offset;   /* in the block's shared memory; -1 until first used */
};
void *emu_shared_at(emu_shared_site *site, const char *name);
void *emu_dynamic_shared(const char *name, size_t element);
template <typename A, typename Site> A &emu_shared_var(const char *name, Site)
{
    const unsigned rank = std::rank<A>::value;
    /* constants only, so no guarded initialisation; the name comes with the call */
    static emu_shared_site site = {nullptr, sizeof(A), alignof(A),
                                   sizeof(typename std::remove_all_extents<A>::type), rank,
                                   std::extent<A, rank ? rank - 1 : 0>::value, -1};
    return *(A *)emu_shared_at(&site, name);
}

/* ---- integer intrinsics ------------------------------------------------- */
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x)
{
    x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
    x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
    x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
    return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x)
{
    return (unsigned long long)__brev((unsigned)x) << 32 | __brev((unsigned)(x >> 32));
}
inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, 4); return u; }
inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, 4); return f; }
template <typename T> T __ldg(const T *p) { return *p; }

/* CUDA's min and max are overloaded functions for device code */
#define EMU_MIN_MAX(T)                                     \
    inline T min(T a, T b) { return b < a ? b : a; }       \
    inline T max(T a, T b) { return a < b ? b : a; }
EMU_MIN_MAX(int)
EMU_MIN_MAX(unsigned)
EMU_MIN_MAX(long)
EMU_MIN_MAX(unsigned long)
EMU_MIN_MAX(long long)
EMU_MIN_MAX(unsigned long long)
EMU_MIN_MAX(float)
EMU_MIN_MAX(double)
#undef EMU_MIN_MAX

/* ---- atomics: real ones, on memory every core of the CPU shares --------- */
int atomicAdd(int *p, int v);
unsigned atomicAdd(unsigned *p, unsigned v);
unsigned long long atomicAdd(unsigned long long *p, unsigned long long v);
float atomicAdd(float *p, float v);
double atomicAdd(double *p, double v);
int atomicSub(int *p, int v);
unsigned atomicSub(unsigned *p, unsigned v);
int atomicExch(int *p, int v);
unsigned atomicExch(unsigned *p, unsigned v);
unsigned long long atomicExch(unsigned long long *p, unsigned long long v);
float atomicExch(float *p, float v);
int atomicMin(int *p, int v);
unsigned atomicMin(unsigned *p, unsigned v);
long long atomicMin(long long *p, long long v);
unsigned long long atomicMin(unsigned long long *p, unsigned long long v);
int atomicMax(int *p, int v);
unsigned atomicMax(unsigned *p, unsigned v);
long long atomicMax(long long *p, long long v);
unsigned long long atomicMax(unsigned long long *p, unsigned long long v);
int atomicCAS(int *p, int expected, int v);
unsigned atomicCAS(unsigned *p, unsigned expected, unsigned v);
unsigned long long atomicCAS(unsigned long long *p, unsigned long long expected,
                             unsigned long long v);
int atomicAnd(int *p, int v);
unsigned atomicAnd(unsigned *p, unsigned v);
unsigned long long atomicAnd(unsigned long long *p, unsigned long long v);
int atomicOr(int *p, int v);
unsigned atomicOr(unsigned *p, unsigned v);
unsigned long long atomicOr(unsigned long long *p, unsigned long long v);
int atomicXor(int *p, int v);
unsigned atomicXor(unsigned *p, unsigned v);
unsigned long long atomicXor(unsigned long long *p, unsigned long long v);
unsigned atomicInc(unsigned *p, unsigned limit);

/* ---- vector types ------------------------------------------------------ */
/* A copy of one is a single access of all its bytes, as a GPU makes it: the
 * CPU's compiler would split a member-wise copy into its members, and the
 * emulation would count a float4's load as four (counts.cpp). */
/* A vector type's copy as one access of all its bytes, one load and one
 * store, as a GPU's. The compilers would not keep it whole (clang loads
 * only the fields a kernel reads, four loads for a float4), so the copy is
 * the emulation's own, which reports both accesses (access.cpp), inlined
 * so that each copy in a kernel has an address, and a line, of its own. */
extern "C" void emu_vector_copy(void *to, const void *from, unsigned long size);
template <typename T> __attribute__((always_inline)) inline void emu_copy_whole(T *to, const T *from)
{
    emu_vector_copy((void *)to, (const void *)from, sizeof(T));
}
#define EMU_VECTOR_COPY(T)                                                                        \
    T() = default;                                                                                \
    __attribute__((always_inline)) T(const T &o) { emu_copy_whole(this, &o); }                   \
    __attribute__((always_inline)) T &operator=(const T &o)                                       \
    {                                                                                             \
        emu_copy_whole(this, &o);                                                                 \
        return *this;                                                                             \
    }
#define EMU_VECTOR2(T, E, ALIGN)                                                                  \
    struct alignas(ALIGN) T {                                                                     \
        E x, y;                                                                                   \
        EMU_VECTOR_COPY(T)                                                                        \
        T(E x, E y) : x(x), y(y) {}                                                               \
    };
#define EMU_VECTOR4(T, E, ALIGN)                                                                  \
    struct alignas(ALIGN) T {                                                                     \
        E x, y, z, w;                                                                             \
        EMU_VECTOR_COPY(T)                                                                        \
        T(E x, E y, E z, E w) : x(x), y(y), z(z), w(w) {}                                         \
    };
EMU_VECTOR2(float2, float, 8)
EMU_VECTOR4(float4, float, 16)
EMU_VECTOR2(int2, int, 8)
EMU_VECTOR4(int4, int, 16)
EMU_VECTOR2(uint2, unsigned, 8)
EMU_VECTOR4(uint4, unsigned, 16)
EMU_VECTOR4(uchar4, unsigned char, 4)
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
inline uchar4 make_uchar4(unsigned char x, unsigned char y, unsigned char z, unsigned char w)
{
    return {x, y, z, w};
}
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return {x, y, z}; }

/* ---- errors ------------------------------------------------------------ */
enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInsufficientDriver = 35,
    cudaErrorNoDevice = 100,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchFailure = 719,
    cudaErrorMisalignedAddress = 716,
};
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char *cudaGetErrorString(cudaError_t err);
const char *cudaGetErrorName(cudaError_t err);

/* ---- the device -------------------------------------------------------- */
struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem, sharedMemPerBlock, sharedMemPerBlockOptin;
    int multiProcessorCount, major, minor, warpSize;
    int maxThreadsPerBlock, maxThreadsPerMultiProcessor, maxBlocksPerMultiProcessor;
};
enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaRuntimeGetVersion(int *version);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *kernel,
                                                          int block, size_t smem);
template <typename K>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, K kernel, int block,
                                                          size_t smem)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (const void *)kernel, block, smem);
}
cudaError_t cudaFuncSetAttribute(const void *kernel, cudaFuncAttribute attr, int value);
template <typename K> cudaError_t cudaFuncSetAttribute(K kernel, cudaFuncAttribute attr, int value)
{
    return cudaFuncSetAttribute((const void *)kernel, attr, value);
}

/* ---- memory: device allocations come from one reserved range, so an
 *      access just outside one is caught (device.cpp) -------------------- */
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4,
};
typedef struct emu_stream *cudaStream_t;
cudaError_t cudaMalloc(void **ptr, size_t bytes);
template <typename T> cudaError_t cudaMalloc(T **ptr, size_t bytes)
{
    return cudaMalloc((void **)ptr, bytes);
}
cudaError_t cudaFree(void *ptr);
/* The harness names its arrays, so that a report can say "out[1025]": the
 * allocation at `base` (from cudaMalloc) holds `count` elements of
 * `element` bytes from base + `offset`; the rest of it is a guard zone,
 * which a kernel must not touch. */
void emu_name_array(const void *base, const char *name, size_t offset, size_t count,
                    size_t element);
/* Bytes that kernels stored in the allocation at `base` (atomics count as
 * stores) since the last call: how many times a stage writes its outputs. */
unsigned long long emu_bytes_written(const void *base);
/* Did a kernel read or write the allocation at `base` since the last call? */
bool emu_touched(const void *base);
/* What a profiler counts about memory (access_counts.h), counted on the
 * CPU (counts.cpp) for the launches between emu_count_begin() and
 * emu_count_end(). */
void emu_count_begin();
void emu_count_end(access_counts *all);
/* From now on the device has `sms` SMs, whatever the cores (0: one per
 * core): a grid sized from the device is then the same on every machine. */
void emu_device_sms(unsigned sms);
/* A device-wide library call (the emulated cub::Device*) that reads and
 * writes `bytes`: a launch, to the counts, and its traffic. */
void emu_note_library(double bytes);
/* The last counts by source line ("labs/map/map.cu:42"), in line order. */
void emu_count_lines(void (*line)(const char *where, const access_counts *counts, void *arg),
                     void *arg);
/* Blocks start in an order this seed scrambles (the harness passes its own). */
void emu_block_order(unsigned long long seed);
/* Each 4-byte word of device memory has a history this large (history.cpp),
 * which the memory a problem needs under emulation counts. */
#define EMU_HISTORY_BYTES 48
cudaError_t cudaMallocHost(void **ptr, size_t bytes);
template <typename T> cudaError_t cudaMallocHost(T **ptr, size_t bytes)
{
    return cudaMallocHost((void **)ptr, bytes);
}
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t stream = 0);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);

/* ---- events: launches finish before they return, so a host clock will do */
typedef struct emu_event *cudaEvent_t;
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop);
cudaError_t cudaEventDestroy(cudaEvent_t event);

/* ---- launches: the rewriter turns kernel<<<g, b>>>(args) into
 *      emu_launch(emu_config(g, b), "kernel", [=]() { kernel(args); }) ----
 * Each thread runs emu_run_body, which calls the lambda, which calls the
 * kernel: reports find the kernel's name that way, inside the lambda. */
struct emu_launch_config {
    dim3 grid, block;
    size_t shared_bytes;
};
inline emu_launch_config emu_config(dim3 grid, dim3 block, size_t shared_bytes = 0,
                                    cudaStream_t stream = 0)
{
    (void)stream; /* one stream: every launch runs to the end before returning */
    return {grid, block, shared_bytes};
}
void emu_launch_body(emu_launch_config config, const char *kernel, void (*run)(const void *body),
                     const void *body);
template <typename Body> void emu_run_body(const void *body) { (*(const Body *)body)(); }
template <typename Body>
void emu_launch(emu_launch_config config, const char *kernel, const Body &body)
{
    emu_launch_body(config, kernel, emu_run_body<Body>, &body);
}

#endif
