/* histogram: count how many of n values fall in each of `bins` bins
 * (hist[b] = how many in[i] == b), for 256 bins and for 4096.
 *
 * Many threads add 1 to the same few counters, so the lesson is contention:
 * who waits for whom when two threads hit one counter at once. The tests use
 * uniform values (every bin equally likely) and skewed ones (95 % in one bin).
 *
 * Each stage adds one idea; the table at the end of this file names them
 * (make test prints it with each stage's results).
 *
 * The values are bytes (unsigned char) for 256 bins and 16-bit (unsigned
 * short) for 4096, so the kernels are templates on the sample type. Every
 * launcher first clears hist (clear_histogram): counting adds to it.
 *
 * Test:  make test LAB=histogram          (STAGE=3 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=histogram N=2^28    (VARIANT= picks an input, BLOCK= threads per block)
 */
#include "workbook.cuh"
#include "grid.cuh"
#include "histogram.h"

/* TODO your own includes and helpers ----------------------------------------
 * A header you need, or a helper more than one of your stages shares. The
 * grader keeps what is inside these regions (and whole functions you add
 * between two of the file's), nothing else.
 */
/* END TODO */

/* Counting adds to hist, so every stage starts from zero. */
static void clear_histogram(const struct args *a)
{
    CUDA_CHECK(cudaMemsetAsync(a->hist, 0, a->bins * sizeof(unsigned)));
}

/* A stage's launcher for one sample type (its kernels differ in arguments). */
template <typename Sample>
using typed_launch = void (*)(const Sample *in, const struct args *a, int block);

/* Clear hist, then run a stage on the sample type of this variant. */
static void launch(const struct args *a, int block, typed_launch<unsigned char> on_bytes,
                   typed_launch<unsigned short> on_shorts)
{
    clear_histogram(a);
    if (a->bins <= 256)
        on_bytes((const unsigned char *)a->in, a, block);
    else
        on_shorts((const unsigned short *)a->in, a, block);
}

/* ---- stage 1 ------------------------------------------------------------ */

template <typename Sample>
__global__ void histogram_stage1_kernel(const Sample *__restrict__ in, unsigned *hist, size_t n)
{
    /* TODO stage 1 ----------------------------------------------------------
     * Goal: the thread with global index i < n counts in[i]: hist[in[i]] += 1.
     * Keep: many threads may count the same bin at the same moment; a plain
     *       hist[b]++ (read, add, write) then loses counts. atomicAdd does
     *       the three as one, so no count is lost.
     * Hint: atomicAdd(&hist[b], 1u).
     */
    /* END TODO */
}

template <typename Sample> static void stage1(const Sample *in, const struct args *a, int block)
{
    if (a->n > 0)
        histogram_stage1_kernel<<<(unsigned)ceil_div(a->n, block), block>>>(in, a->hist, a->n);
}

static void histogram_stage1(const struct args *a, int block)
{
    launch(a, block, stage1<unsigned char>, stage1<unsigned short>);
}

/* ---- stage 2 ------------------------------------------------------------ */

template <typename Sample>
__global__ void histogram_stage2_kernel(const Sample *__restrict__ in, unsigned *hist, size_t n)
{
    /* TODO stage 2 ----------------------------------------------------------
     * Goal: stage 1 with a grid-stride loop: each thread counts in[i],
     *       in[i + stride], ... with stride = the threads of the whole grid.
     * Keep: still one atomicAdd on global memory per value.
     * Hint: the same loop as map's stage 2.
     */
    /* END TODO */
}

template <typename Sample> static void stage2(const Sample *in, const struct args *a, int block)
{
    unsigned grid = device_grid((const void *)histogram_stage2_kernel<Sample>, block, a->n, 0);
    if (grid > 0)
        histogram_stage2_kernel<<<grid, block>>>(in, a->hist, a->n);
}

static void histogram_stage2(const struct args *a, int block)
{
    launch(a, block, stage2<unsigned char>, stage2<unsigned short>);
}

/* ---- stage 3 ------------------------------------------------------------ */

template <typename Sample>
__global__ void histogram_stage3_kernel(const Sample *__restrict__ in, unsigned *hist, size_t n,
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
    /* END TODO */
}

template <typename Sample> static void stage3(const Sample *in, const struct args *a, int block)
{
    size_t smem = a->bins * sizeof(unsigned);
    unsigned grid = device_grid((const void *)histogram_stage3_kernel<Sample>, block, a->n, smem);
    if (grid > 0)
        histogram_stage3_kernel<<<grid, block, smem>>>(in, a->hist, a->n, a->bins);
}

static void histogram_stage3(const struct args *a, int block)
{
    launch(a, block, stage3<unsigned char>, stage3<unsigned short>);
}

/* ---- stage 4 ------------------------------------------------------------ */

template <typename Sample>
__global__ void histogram_stage4_kernel(const Sample *__restrict__ in, unsigned *hist, size_t n,
                                        unsigned bins, unsigned copies)
{
    /* TODO stage 4 ----------------------------------------------------------
     * Goal: stage 3 with two changes. (1) `copies` private histograms per
     *       block, back to back in local[]: warp w counts into copy
     *       w % copies, so warps do not contend with each other on a hot bin;
     *       the merge adds up the copies of each bin. (2) Coarsening: each
     *       thread loads 16 bytes at a time (a uint4: 16 byte samples or 8
     *       16-bit ones) and counts all of them, then the last n % (16 /
     *       sizeof(Sample)) samples one at a time.
     * Keep: a value's bits are (word >> shift) & mask within each of the four
     *       32-bit words of the uint4, with 8 * sizeof(Sample) bits a sample.
     * Hint: stage 3 issues one load instruction per count; one 16-byte load
     *       now brings 16 or 8 samples, so there are far fewer load
     *       instructions per count, each carrying more bytes.
     */
    /* END TODO */
}

/* Whole warps; as many copies as warps, while they fit in 48 KB. */
template <typename Sample> static void stage4(const Sample *in, const struct args *a, int block)
{
    block = block < 32 ? 32 : block / 32 * 32;
    unsigned fit = 48 * 1024 / (a->bins * sizeof(unsigned));
    unsigned copies = (unsigned)block / 32 < fit ? (unsigned)block / 32 : fit;
    size_t smem = copies * a->bins * sizeof(unsigned);
    size_t work = ceil_div(a->n, 16 / sizeof(Sample));
    unsigned grid = device_grid((const void *)histogram_stage4_kernel<Sample>, block, work, smem);
    if (grid > 0)
        histogram_stage4_kernel<<<grid, block, smem>>>(in, a->hist, a->n, a->bins, copies);
}

static void histogram_stage4(const struct args *a, int block)
{
    launch(a, block, stage4<unsigned char>, stage4<unsigned short>);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage histogram_stages[] = {
    {"1", "global atomics, one thread per value", histogram_stage1,
     "global atomics, one thread per value"},
    {"2", "grid-stride loop, global atomics", histogram_stage2,
     "a grid-stride loop: each thread counts many values"},
    {"3", "private histogram per block, shared memory", histogram_stage3,
     "a private histogram per block in shared memory"},
    {"4", "per-warp histograms, 16-byte loads", histogram_stage4,
     "private histograms in shared memory, fed by 16-byte loads"},
    {NULL, NULL, NULL, NULL},
};
