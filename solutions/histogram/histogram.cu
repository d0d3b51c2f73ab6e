/* histogram: count how many of n values fall in each of `bins` bins
 * (hist[b] = how many in[i] == b), for 256 bins and for 4096.
 *
 * Many threads add 1 to the same few counters, so the lesson is contention:
 * who waits for whom when two threads hit one counter at once. The tests use
 * uniform values (every bin equally likely) and skewed ones (95 % in one bin).
 *
 *   stage 1  global atomics, one thread per value
 *   stage 2  grid-stride loop, still one global atomic per value
 *   stage 3  a private histogram per block in shared memory, merged with one
 *            global atomic per bin per block
 *   stage 4  warp aggregation: the lanes of a warp holding equal values add
 *            them with one shared atomic (__match_any_sync)
 *
 * The values are bytes (unsigned char) for 256 bins and 16-bit (unsigned
 * short) for 4096, so the kernels are templates on the sample type. Every
 * launcher first clears hist (clear_histogram): counting adds to it.
 *
 * Test:  make test LAB=histogram          (STAGE=3 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=histogram N=2^28    (VARIANT= picks an input, BLOCK= threads per block)
 */
#include "workbook.cuh"
#include "histogram.h"

/* Counting adds to hist, so every stage starts from zero. */
static void clear_histogram(const struct args *a)
{
    CUDA_CHECK(cudaMemsetAsync(a->hist, 0, a->bins * sizeof(unsigned)));
}

/* A device-filling grid, but no more blocks than `work` items need. */
static unsigned device_blocks(const void *kernel, int block, size_t smem, size_t work)
{
    size_t full = gpu_fill_blocks(kernel, block, smem), needed = ceil_div(work, block);
    return (unsigned)(needed < full ? needed : full);
}

/* Clear hist, then run a stage on the sample type of this variant. */
static void by_sample(const struct args *a, int block,
                      void (*on_bytes)(const unsigned char *, const struct args *, int),
                      void (*on_shorts)(const unsigned short *, const struct args *, int))
{
    clear_histogram(a);
    if (a->bins <= 256)
        on_bytes((const unsigned char *)a->in, a, block);
    else
        on_shorts((const unsigned short *)a->in, a, block);
}

/* ---- stage 1: global atomics, one thread per value ---------------------- */

template <typename Sample>
__global__ void histogram_stage1_kernel(const Sample *__restrict__ in, unsigned *hist, size_t n)
{
    /* STUDENT stage 1 -------------------------------------------------------
     * Goal: the thread with global index i < n counts in[i]: hist[in[i]] += 1.
     * Keep: many threads may count the same bin at the same moment; a plain
     *       hist[b]++ (read, add, write) then loses counts. atomicAdd does
     *       the three as one, so no count is lost.
     * Hint: atomicAdd(&hist[b], 1u).
     */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        atomicAdd(&hist[in[i]], 1u);
    /* END STUDENT */
}

template <typename Sample> static void stage1(const Sample *in, const struct args *a, int block)
{
    if (a->n > 0)
        histogram_stage1_kernel<<<(unsigned)ceil_div(a->n, block), block>>>(in, a->hist, a->n);
}

static void histogram_stage1(const struct args *a, int block)
{
    by_sample(a, block, stage1<unsigned char>, stage1<unsigned short>);
}

/* ---- stage 2: grid-stride loop ---------------------------------------- */

template <typename Sample>
__global__ void histogram_stage2_kernel(const Sample *__restrict__ in, unsigned *hist, size_t n)
{
    /* STUDENT stage 2 -------------------------------------------------------
     * Goal: stage 1 with a grid-stride loop: each thread counts in[i],
     *       in[i + stride], ... with stride = the threads of the whole grid.
     * Keep: still one atomicAdd on global memory per value.
     * Hint: the same loop as map's stage 2.
     */
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&hist[in[i]], 1u);
    /* END STUDENT */
}

template <typename Sample> static void stage2(const Sample *in, const struct args *a, int block)
{
    unsigned grid = device_blocks((const void *)histogram_stage2_kernel<Sample>, block, 0, a->n);
    if (grid > 0)
        histogram_stage2_kernel<<<grid, block>>>(in, a->hist, a->n);
}

static void histogram_stage2(const struct args *a, int block)
{
    by_sample(a, block, stage2<unsigned char>, stage2<unsigned short>);
}

/* ---- stage 3: a private histogram per block ----------------------------- */

template <typename Sample>
__global__ void histogram_stage3_kernel(const Sample *__restrict__ in, unsigned *hist, size_t n,
                                        unsigned bins)
{
    /* STUDENT stage 3 -------------------------------------------------------
     * Goal: the block counts its grid-stride share into local[] with atomics
     *       on shared memory, then adds local[b] to hist[b] for every bin:
     *       one global atomic per bin per block instead of one per value.
     * Keep: local[] starts as garbage: the block clears it (each thread a
     *       few bins: b = threadIdx.x, b += blockDim.x), and __syncthreads()
     *       separates clearing from counting, and counting from merging.
     * Hint: extern __shared__ unsigned local[];  gets the bins counters the
     *       launcher asks for. Skip the merge of empty bins: with skewed data
     *       most are.
     */
    extern __shared__ unsigned local[];
    for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
        if (local[b] > 0)
            atomicAdd(&hist[b], local[b]);
    /* END STUDENT */
}

template <typename Sample> static void stage3(const Sample *in, const struct args *a, int block)
{
    size_t smem = a->bins * sizeof(unsigned);
    unsigned grid = device_blocks((const void *)histogram_stage3_kernel<Sample>, block, smem, a->n);
    if (grid > 0)
        histogram_stage3_kernel<<<grid, block, smem>>>(in, a->hist, a->n, a->bins);
}

static void histogram_stage3(const struct args *a, int block)
{
    by_sample(a, block, stage3<unsigned char>, stage3<unsigned short>);
}

/* ---- stage 4: warp aggregation ------------------------------------------ */

template <typename Sample>
__global__ void histogram_stage4_kernel(const Sample *__restrict__ in, unsigned *hist, size_t n,
                                        unsigned bins)
{
    /* STUDENT stage 4 -------------------------------------------------------
     * Goal: stage 3, but before counting, the lanes of a warp that hold the
     *       same value find each other: __match_any_sync(mask, v) returns the
     *       lanes whose v equals mine. The lowest of them adds their number
     *       (__popc of that mask) with one shared atomic; the others add
     *       nothing. Skewed data then costs one atomic per warp, not 32.
     * Keep: every lane of the warp must take part in each __match_any_sync,
     *       so the loop runs the same number of rounds for all 32 lanes: loop
     *       while the warp's first lane has work (i - lane < n), and let the
     *       lanes past n hold a value that counts nowhere (bins).
     * Hint: the lowest lane of a mask m is __ffs(m) - 1; my lane is
     *       threadIdx.x % 32. local[] as in stage 3.
     */
    extern __shared__ unsigned local[];
    for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
        local[b] = 0;
    __syncthreads();
    unsigned lane = threadIdx.x % 32;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i - lane < n; i += stride) {
        unsigned v = i < n ? in[i] : bins;
        unsigned same = __match_any_sync(0xffffffffu, v);
        if (v < bins && lane == (unsigned)__ffs(same) - 1)
            atomicAdd(&local[v], (unsigned)__popc(same));
    }
    __syncthreads();
    for (unsigned b = threadIdx.x; b < bins; b += blockDim.x)
        if (local[b] > 0)
            atomicAdd(&hist[b], local[b]);
    /* END STUDENT */
}

/* Stage 4 works warp by warp, so its blocks are whole warps. */
template <typename Sample> static void stage4(const Sample *in, const struct args *a, int block)
{
    block = block < 32 ? 32 : block / 32 * 32;
    size_t smem = a->bins * sizeof(unsigned);
    unsigned grid = device_blocks((const void *)histogram_stage4_kernel<Sample>, block, smem, a->n);
    if (grid > 0)
        histogram_stage4_kernel<<<grid, block, smem>>>(in, a->hist, a->n, a->bins);
}

static void histogram_stage4(const struct args *a, int block)
{
    by_sample(a, block, stage4<unsigned char>, stage4<unsigned short>);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

extern "C" const struct stage histogram_stages[] = {
    {"1", "global atomics, one thread per value", histogram_stage1},
    {"2", "grid-stride loop, global atomics", histogram_stage2},
    {"3", "private histogram per block, shared memory", histogram_stage3},
    {"4", "warp aggregation of equal values", histogram_stage4},
    {NULL, NULL, NULL},
};
