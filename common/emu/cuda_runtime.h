/* cuda_runtime.h, emulated: the part of CUDA the workbook uses, run on the
 * CPU (make ... EMU=1). A kernel launch runs every block of the grid; the
 * threads of a block are fibers on one CPU thread, each running until it
 * returns or reaches __syncthreads(), where it waits for the others; blocks
 * spread over the CPU's cores. emu.cpp holds the implementation.
 *
 * What this shows faithfully: indexing, bounds, which elements are written,
 * barriers (a barrier that some threads of a block never reach is reported,
 * not hung on). What it cannot show: speed, coalescing, occupancy, and the
 * GPU's memory model. Times measured here are CPU times. */
#ifndef EMU_CUDA_RUNTIME_H
#define EMU_CUDA_RUNTIME_H

#include <cstddef>
#include <cstdint>
#include <functional>

#define WORKBOOK_EMULATED 1

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)

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

void __syncthreads();

/* ---- vector types ------------------------------------------------------ */
struct alignas(8) float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(8) int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
inline float2 make_float2(float x, float y) { return {x, y}; }
inline float4 make_float4(float x, float y, float z, float w) { return {x, y, z, w}; }
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }

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
    size_t totalGlobalMem;
    int multiProcessorCount, major, minor;
    int maxThreadsPerBlock, maxThreadsPerMultiProcessor, maxBlocksPerMultiProcessor;
};
enum cudaDeviceAttr { cudaDevAttrMaxThreadsPerBlock = 1, cudaDevAttrMultiProcessorCount = 16 };
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaRuntimeGetVersion(int *version);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *kernel,
                                                          int block, size_t smem);
template <typename K>
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, K kernel, int block,
                                                          size_t smem)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, (const void *)kernel, block, smem);
}

/* ---- memory: device memory is host memory here ------------------------- */
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
cudaError_t cudaMallocHost(void **ptr, size_t bytes);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);

/* ---- events: launches finish before they return, so a host clock will do */
typedef struct emu_event *cudaEvent_t;
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop);
cudaError_t cudaEventDestroy(cudaEvent_t event);

/* ---- launches: the rewriter turns kernel<<<g, b>>>(args) into
 *      emu_launch(emu_config(g, b), "kernel", [=]() { kernel(args); }) ---- */
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
void emu_launch(emu_launch_config config, const char *kernel, const std::function<void()> &body);

#endif
