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
 * Every launcher first clears hist (clear_histogram): counting adds to it.
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

/* ---- stage 1: global atomics, one thread per value ---------------------- */

__global__ void histogram_stage1_kernel(const unsigned *__restrict__ in, unsigned *hist, size_t n)
{
    /* TODO stage 1 ----------------------------------------------------------
     * Goal: the thread with global index i < n counts in[i]: hist[in[i]] += 1.
     * Keep: many threads may count the same bin at the same moment; a plain
     *       hist[b]++ (read, add, write) then loses counts. atomicAdd does
     *       the three as one, so no count is lost.
     * Hint: atomicAdd(&hist[b], 1u).
     */
}

static void histogram_stage1(const struct args *a, int block)
{
    clear_histogram(a);
    if (a->n > 0)
        histogram_stage1_kernel<<<(unsigned)ceil_div(a->n, block), block>>>(a->in, a->hist, a->n);
}

/* ---- stage 2: grid-stride loop ---------------------------------------- */

__global__ void histogram_stage2_kernel(const unsigned *__restrict__ in, unsigned *hist, size_t n)
{
    /* TODO stage 2 ----------------------------------------------------------
     * Goal: stage 1 with a grid-stride loop: each thread counts in[i],
     *       in[i + stride], ... with stride = the threads of the whole grid.
     * Keep: still one atomicAdd on global memory per value.
     * Hint: the same loop as map's stage 2.
     */
}

static void histogram_stage2(const struct args *a, int block)
{
    clear_histogram(a);
    unsigned grid = device_blocks((const void *)histogram_stage2_kernel, block, 0, a->n);
    if (grid > 0)
        histogram_stage2_kernel<<<grid, block>>>(a->in, a->hist, a->n);
}

/* ---- stage 3: a private histogram per block ----------------------------- */

__global__ void histogram_stage3_kernel(const unsigned *__restrict__ in, unsigned *hist, size_t n,
                                        unsigned bins)
{
    /* TODO stage 3 ----------------------------------------------------------
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
}

static void histogram_stage3(const struct args *a, int block)
{
    clear_histogram(a);
    size_t smem = a->bins * sizeof(unsigned);
    unsigned grid = device_blocks((const void *)histogram_stage3_kernel, block, smem, a->n);
    if (grid > 0)
        histogram_stage3_kernel<<<grid, block, smem>>>(a->in, a->hist, a->n, a->bins);
}

/* ---- stage 4: warp aggregation ------------------------------------------ */

__global__ void histogram_stage4_kernel(const unsigned *__restrict__ in, unsigned *hist, size_t n,
                                        unsigned bins)
{
    /* TODO stage 4 ----------------------------------------------------------
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
}

/* Stage 4 works warp by warp, so its blocks are whole warps. */
static void histogram_stage4(const struct args *a, int block)
{
    clear_histogram(a);
    block = block < 32 ? 32 : block / 32 * 32;
    size_t smem = a->bins * sizeof(unsigned);
    unsigned grid = device_blocks((const void *)histogram_stage4_kernel, block, smem, a->n);
    if (grid > 0)
        histogram_stage4_kernel<<<grid, block, smem>>>(a->in, a->hist, a->n, a->bins);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

extern "C" const struct stage histogram_stages[] = {
    {"1", "global atomics, one thread per value", histogram_stage1},
    {"2", "grid-stride loop, global atomics", histogram_stage2},
    {"3", "private histogram per block, shared memory", histogram_stage3},
    {"4", "warp aggregation of equal values", histogram_stage4},
    {NULL, NULL, NULL},
};
