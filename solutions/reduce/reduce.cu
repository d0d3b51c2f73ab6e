/* reduce: the sum of n values, ints (exact) and floats.
 *
 * Every stage turns n values into one. A block sums its share in shared
 * memory as a tree; the block sums are then summed the same way, pass after
 * pass, until one is left (reduce_in_passes does the passes for you). The
 * stages differ in how the tree is walked and how much work a thread does.
 *
 * Each stage adds one idea; the table at the end of this file names them
 * (make test prints it with each stage's results).
 *
 * The kernels are templates on the value type T, so one kernel sums ints and
 * floats. Every stage needs a power-of-two block of at least 64 threads;
 * the launchers round BLOCK down to one (tree_block, in reduce.h).
 *
 * Test:  make test LAB=reduce        (STAGE=3 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=reduce N=2^28  (VARIANT=int or float, BLOCK= threads per block)
 */
#include "workbook.cuh"
#include "grid.cuh"
#include "reduce.h"

/* STUDENT your own includes and helpers -------------------------------------
 * A header you need, or a helper more than one of your stages shares. The
 * grader keeps what is inside these regions (and whole functions you add
 * between two of the file's), nothing else.
 */
/* END STUDENT */

enum { MAX_BLOCK = 1024, FULL_WARP = 0xffffffffu };

/* Every stage's kernel: sums values of `in` into out[blockIdx.x] (stage 8:
 * into *out), for n values. */
template <typename T> using kernel = void (*)(const T *in, T *out, size_t n);

/* per_thread for grid-stride kernels: a device-filling grid, then one block
 * for what it leaves. */
enum { FILL_THE_GPU = 0 };

/* Sum a->n values by passes: each pass leaves one value per block of
 * `block * per_thread` values, until one block is enough; that last pass
 * writes a->out. The partial sums alternate between two halves of a->partial. */
template <typename T>
static void reduce_in_passes(const struct args *a, int block, int per_thread, kernel<T> k)
{
    if (a->n == 0) {
        CUDA_CHECK(cudaMemset(a->out, 0, sizeof(T)));
        return;
    }
    T *halves[2] = {(T *)a->partial, (T *)a->partial + a->n / 32 + 1};
    const T *in = (const T *)a->in;
    size_t n = a->n;
    for (int half = 0;; half ^= 1) {
        unsigned grid;
        if (per_thread != FILL_THE_GPU)
            grid = (unsigned)ceil_div(n, (size_t)block * per_thread);
        else
            grid = in == a->in ? device_grid((const void *)k, block, n, 0) : 1;
        T *out = grid == 1 ? (T *)a->out : halves[half];
        k<<<grid, block>>>(in, out, n);
        if (grid == 1)
            return;
        in = out;
        n = grid;
    }
}

/* Run a stage's passes on the type the tests ask for, in blocks of
 * tree_block(block) threads. */
static void launch(const struct args *a, int block, int per_thread, kernel<int> on_ints,
                   kernel<float> on_floats)
{
    if (a->type == I32)
        reduce_in_passes<int>(a, tree_block(block), per_thread, on_ints);
    else
        reduce_in_passes<float>(a, tree_block(block), per_thread, on_floats);
}

/* ---- stage 1 ------------------------------------------------------------ */

template <typename T>
__global__ void reduce_stage1_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n)
{
    /* STUDENT stage 1 -------------------------------------------------------
     * Goal: out[blockIdx.x] = the sum of this block's values in[i], with
     *       i = blockIdx.x * blockDim.x + tid (as size_t), tid = threadIdx.x,
     *       in a shared array  __shared__ T sums[MAX_BLOCK];  (stages 2-5 too).
     * Keep: each thread first copies its value into sums[tid], or 0 when
     *       i >= n (0 changes no sum). Then, for s = 1, 2, 4, ...: the threads
     *       with tid % (2*s) == 0 add sums[tid + s] into sums[tid]. Every step
     *       reads what the step before wrote, so a __syncthreads() must
     *       separate them, outside the if.
     * Hint: after the last step, sums[0] holds the block's sum; let thread 0
     *       store it.
     */
    __shared__ T sums[MAX_BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    sums[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            sums[tid] += sums[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sums[0];
    /* END STUDENT */
}

static void reduce_stage1(const struct args *a, int block)
{
    launch(a, block, 1, reduce_stage1_kernel<int>, reduce_stage1_kernel<float>);
}

/* ---- stage 2 ------------------------------------------------------------ */

template <typename T>
__global__ void reduce_stage2_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n)
{
    /* STUDENT stage 2 -------------------------------------------------------
     * Goal: the same tree as stage 1, but the adding threads are the first
     *       ones of the block, not every (2*s)-th: thread tid works on the
     *       word k = 2 * s * tid, adding sums[k + s] into sums[k].
     * Keep: only k < blockDim.x is a word of the tree; barriers as in stage 1.
     * Hint: whole warps now stay busy or idle together (no divergence), but
     *       the words a warp touches are 2*s apart: count the bank conflicts.
     */
    __shared__ T sums[MAX_BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    sums[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        unsigned k = 2 * s * tid;
        if (k < blockDim.x)
            sums[k] += sums[k + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sums[0];
    /* END STUDENT */
}

static void reduce_stage2(const struct args *a, int block)
{
    launch(a, block, 1, reduce_stage2_kernel<int>, reduce_stage2_kernel<float>);
}

/* ---- stage 3 ------------------------------------------------------------ */

template <typename T>
__global__ void reduce_stage3_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n)
{
    /* STUDENT stage 3 -------------------------------------------------------
     * Goal: the same sum, walking the tree the other way: s starts at
     *       blockDim.x / 2 and halves; thread tid < s adds sums[tid + s].
     * Keep: a __syncthreads() between steps, reached by every thread.
     * Hint: the active threads are 0..s-1 and they read s consecutive words:
     *       no divergence until s < 32, and no bank conflicts at all.
     */
    __shared__ T sums[MAX_BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + tid;
    sums[tid] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s)
            sums[tid] += sums[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sums[0];
    /* END STUDENT */
}

static void reduce_stage3(const struct args *a, int block)
{
    launch(a, block, 1, reduce_stage3_kernel<int>, reduce_stage3_kernel<float>);
}

/* ---- stage 4 ------------------------------------------------------------ */

template <typename T>
__global__ void reduce_stage4_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n)
{
    /* STUDENT stage 4 -------------------------------------------------------
     * Goal: each block now sums 2 * blockDim.x values (the launcher starts
     *       half as many blocks): thread tid adds two of them while loading,
     *       then the tree of stage 3 runs as before.
     * Keep: the block's values are in[first .. first + 2*blockDim.x), with
     *       first = blockIdx.x * 2 * blockDim.x; either may be past n.
     * Hint: take in[first + tid] and in[first + tid + blockDim.x]: both
     *       loads of a warp stay contiguous.
     */
    __shared__ T sums[MAX_BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = blockIdx.x * 2 * (size_t)blockDim.x + tid;
    T v = i < n ? in[i] : T(0);
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sums[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s)
            sums[tid] += sums[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sums[0];
    /* END STUDENT */
}

static void reduce_stage4(const struct args *a, int block)
{
    launch(a, block, 2, reduce_stage4_kernel<int>, reduce_stage4_kernel<float>);
}

/* ---- stage 5 ------------------------------------------------------------ */

/* STUDENT stage 5 -----------------------------------------------------------
 * Goal: write  template <typename T> __device__ void last_warp_sum(T *sums, unsigned tid)
 *       for threads 0..31 of a block whose 64 words sums[0..63] remain to be
 *       added: afterwards sums[0] holds their total. Stages 6 and 7 use it too.
 * Keep: the 32 threads are one warp, and no __syncthreads() is needed within
 *       it, but a warp's threads are not guaranteed to run in lockstep: a
 *       __syncwarp() must separate reading a word from a neighbour's writing
 *       it, and writing from the next read.
 * Hint: keep the running sum in a register, so that each step is a read,
 *       a wait for the whole warp, a write and a wait. The old trick of a
 *       volatile pointer and no __syncwarp() is a race (handout).
 */
template <typename T> __device__ void last_warp_sum(T *sums, unsigned tid)
{
    T v = sums[tid];
#pragma unroll
    for (unsigned s = 32; s > 0; s /= 2) {
        v += sums[tid + s];
        __syncwarp();
        sums[tid] = v;
        __syncwarp();
    }
}
/* END STUDENT */

template <typename T>
__global__ void reduce_stage5_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n)
{
    /* STUDENT stage 5 -------------------------------------------------------
     * Goal: stage 4, but the tree's loop stops while 64 words remain
     *       (s > 32), and threads 0..31 finish with last_warp_sum.
     * Keep: the loop's __syncthreads() after every step, the last one included:
     *       the warp reads what other warps wrote.
     * Hint: the last six steps no longer pay for a block-wide barrier each.
     */
    __shared__ T sums[MAX_BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = blockIdx.x * 2 * (size_t)blockDim.x + tid;
    T v = i < n ? in[i] : T(0);
    if (i + blockDim.x < n)
        v += in[i + blockDim.x];
    sums[tid] = v;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
        if (tid < s)
            sums[tid] += sums[tid + s];
        __syncthreads();
    }
    if (tid < 32)
        last_warp_sum(sums, tid);
    if (tid == 0)
        out[blockIdx.x] = sums[0];
    /* END STUDENT */
}

static void reduce_stage5(const struct args *a, int block)
{
    launch(a, block, 2, reduce_stage5_kernel<int>, reduce_stage5_kernel<float>);
}

/* ---- stage 6 ------------------------------------------------------------ */

/* STUDENT stage 6 -----------------------------------------------------------
 * Goal: write  template <unsigned BLOCK, typename T> __device__ void
 *       block_sum(T *sums, unsigned tid)  that adds sums[0..BLOCK) into
 *       sums[0], for a block of BLOCK threads, with no loop: one step per
 *       power of two from 512 down to 64, each inside  if (BLOCK >= 2*s),
 *       then last_warp_sum. Stage 7 uses it too.
 * Keep: BLOCK is known when the kernel is compiled, so every if on it
 *       disappears; the ifs on tid and the barriers stay.
 * Hint: it is the loop of stage 5 written out by hand, one step per s;
 *       a block of 256 threads then compiles to two block-wide steps
 *       (s = 128 and 64) and last_warp_sum.
 */
template <unsigned BLOCK, typename T> __device__ void block_sum(T *sums, unsigned tid)
{
    if (BLOCK >= 1024) {
        if (tid < 512)
            sums[tid] += sums[tid + 512];
        __syncthreads();
    }
    if (BLOCK >= 512) {
        if (tid < 256)
            sums[tid] += sums[tid + 256];
        __syncthreads();
    }
    if (BLOCK >= 256) {
        if (tid < 128)
            sums[tid] += sums[tid + 128];
        __syncthreads();
    }
    if (BLOCK >= 128) {
        if (tid < 64)
            sums[tid] += sums[tid + 64];
        __syncthreads();
    }
    if (tid < 32)
        last_warp_sum(sums, tid);
}
/* END STUDENT */

template <unsigned BLOCK, typename T>
__global__ void reduce_stage6_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n)
{
    /* STUDENT stage 6 -------------------------------------------------------
     * Goal: stage 5 with BLOCK for blockDim.x: the load of stage 4, then
     *       block_sum<BLOCK>.
     * Keep: thread 0 stores sums[0] after block_sum has returned.
     * Hint: the shared array can now be exactly BLOCK long.
     */
    __shared__ T sums[BLOCK];
    unsigned tid = threadIdx.x;
    size_t i = blockIdx.x * 2 * (size_t)BLOCK + tid;
    T v = i < n ? in[i] : T(0);
    if (i + BLOCK < n)
        v += in[i + BLOCK];
    sums[tid] = v;
    __syncthreads();
    block_sum<BLOCK>(sums, tid);
    if (tid == 0)
        out[blockIdx.x] = sums[0];
    /* END STUDENT */
}

/* A template needs its BLOCK at compile time: the instance for this block. */
template <typename T> static kernel<T> stage6_kernel(int block)
{
    switch (tree_block(block)) {
    case 64: return reduce_stage6_kernel<64, T>;
    case 128: return reduce_stage6_kernel<128, T>;
    case 256: return reduce_stage6_kernel<256, T>;
    case 512: return reduce_stage6_kernel<512, T>;
    default: return reduce_stage6_kernel<1024, T>;
    }
}

static void reduce_stage6(const struct args *a, int block)
{
    launch(a, block, 2, stage6_kernel<int>(block), stage6_kernel<float>(block));
}

/* ---- stage 7 ------------------------------------------------------------ */

template <unsigned BLOCK, typename T>
__global__ void reduce_stage7_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n)
{
    /* STUDENT stage 7 -------------------------------------------------------
     * Goal: each thread first sums many values alone, in a register, with a
     *       grid-stride loop (i, i + stride, ...); then the block adds its
     *       threads' sums with block_sum<BLOCK>. The launcher starts only
     *       as many blocks as fill the GPU once.
     * Keep: stride = gridDim.x * BLOCK, so neighbouring threads read
     *       neighbouring values in every round.
     * Hint: the tree's cost (barriers, idle threads) is now paid once per
     *       thousands of values instead of once per 2 * BLOCK.
     */
    __shared__ T sums[BLOCK];
    unsigned tid = threadIdx.x;
    T v = T(0);
    for (size_t i = blockIdx.x * (size_t)BLOCK + tid; i < n; i += (size_t)gridDim.x * BLOCK)
        v += in[i];
    sums[tid] = v;
    __syncthreads();
    block_sum<BLOCK>(sums, tid);
    if (tid == 0)
        out[blockIdx.x] = sums[0];
    /* END STUDENT */
}

template <typename T> static kernel<T> stage7_kernel(int block)
{
    switch (tree_block(block)) {
    case 64: return reduce_stage7_kernel<64, T>;
    case 128: return reduce_stage7_kernel<128, T>;
    case 256: return reduce_stage7_kernel<256, T>;
    case 512: return reduce_stage7_kernel<512, T>;
    default: return reduce_stage7_kernel<1024, T>;
    }
}

/* A device-filling grid, then one block over its results. */
static void reduce_stage7(const struct args *a, int block)
{
    launch(a, block, FILL_THE_GPU, stage7_kernel<int>(block), stage7_kernel<float>(block));
}

/* ---- stage 8 ------------------------------------------------------------ */

/* STUDENT stage 8 -----------------------------------------------------------
 * Goal: write  template <typename T> __device__ T warp_sum(T v)  returning,
 *       in lane 0, the sum of v over the 32 lanes of the warp, with no
 *       shared memory: __shfl_down_sync(FULL_WARP, v, offset) gives v of the
 *       lane `offset` above, for offset = 16, 8, 4, 2, 1.
 * Keep: all 32 lanes call every shuffle (the mask says so).
 * Hint: five shuffles and five adds; the other lanes end with partial sums.
 */
template <typename T> __device__ T warp_sum(T v)
{
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(FULL_WARP, v, offset);
    return v;
}
/* END STUDENT */

template <typename T>
__global__ void reduce_stage8_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n)
{
    /* STUDENT stage 8 -------------------------------------------------------
     * Goal: one kernel, one pass. Each thread sums a grid-stride share of in
     *       (16-byte loads: four values at a time, then the n % 4 left over),
     *       each warp adds its threads' sums with warp_sum, warp 0 adds the
     *       warps' sums the same way, and thread 0 adds the block's total to
     *       *out with atomicAdd. The launcher sets *out to 0 first.
     * Keep: __shared__ T warp_sums[32], one per warp; a __syncthreads()
     *       between the warps writing it and warp 0 reading it; lanes past
     *       the last warp read 0.
     * Hint: const int4 / float4 pointers: reinterpret_cast, as in map's
     *       stage 3. One atomic per block is a few hundred in all.
     */
    __shared__ T warp_sums[32];
    unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    typedef typename vec4<T>::type T4;
    size_t start = blockIdx.x * (size_t)blockDim.x + tid, stride = (size_t)gridDim.x * blockDim.x;
    const T4 *in4 = reinterpret_cast<const T4 *>(in);
    T v = T(0);
    for (size_t i = start; i < n / 4; i += stride) {
        T4 q = in4[i];
        v += (q.x + q.y) + (q.z + q.w);
    }
    for (size_t i = n / 4 * 4 + start; i < n; i += stride)
        v += in[i];
    v = warp_sum(v);
    if (lane == 0)
        warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? warp_sums[lane] : T(0);
        v = warp_sum(v);
        if (lane == 0)
            atomicAdd(out, v);
    }
    /* END STUDENT */
}

/* One pass: *out starts at 0, and every block of a device-filling grid adds
 * its sum to it. */
template <typename T> static void atomic_pass(const struct args *a, int block, kernel<T> k)
{
    CUDA_CHECK(cudaMemsetAsync(a->out, 0, sizeof(T)));
    unsigned grid = device_grid((const void *)k, block, ceil_div(a->n, 4), 0);
    if (grid > 0)
        k<<<grid, block>>>((const T *)a->in, (T *)a->out, a->n);
}

static void launch_atomic(const struct args *a, int block, kernel<int> on_ints,
                          kernel<float> on_floats)
{
    if (a->type == I32)
        atomic_pass<int>(a, tree_block(block), on_ints);
    else
        atomic_pass<float>(a, tree_block(block), on_floats);
}

static void reduce_stage8(const struct args *a, int block)
{
    launch_atomic(a, block, reduce_stage8_kernel<int>, reduce_stage8_kernel<float>);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage reduce_stages[] = {
    {"1", "interleaved addressing, divergent branch", reduce_stage1, "interleaved addressing"},
    {"2", "interleaved addressing, strided index", reduce_stage2,
     "a strided index, so that whole warps idle instead of half their lanes"},
    {"3", "sequential addressing", reduce_stage3, "sequential addressing, free of bank conflicts"},
    {"4", "first add during the load", reduce_stage4, "the first add during the load"},
    {"5", "last warp unrolled, with __syncwarp", reduce_stage5,
     "the last warp unrolled, with no barriers"},
    {"6", "complete unrolling, block size a template", reduce_stage6,
     "complete unrolling, the block size a template parameter"},
    {"7", "cascading: grid-stride sums per thread", reduce_stage7,
     "cascading: each thread sums many values before the tree"},
    {"8", "warp shuffles, one atomicAdd per block", reduce_stage8,
     "warp shuffles, and one atomicAdd a block"},
    {NULL, NULL, NULL, NULL},
};
