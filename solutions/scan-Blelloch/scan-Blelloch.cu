/* scan-Blelloch: the work-efficient scan within one block, ints and floats,
 * exclusive and inclusive.
 *
 * Each block scans its own segment of values, two per thread in stages 1-3
 * (eight in stage 4); a segment shorter than that (the end of the array) is
 * padded with zeros, which change no sum. Blelloch's scan walks a balanced
 * tree twice: the up-sweep builds partial sums toward the root (a
 * reduction), the down-sweep pushes prefixes back toward the leaves. That
 * is about 2n adds in 2 log2(n) steps, where Hillis-Steele does n log2(n)
 * adds.
 *
 * Each stage adds one idea; the table at the end of this file names them
 * (make test prints it with each stage's results).
 *
 * `inclusive` says which scan to store: the exclusive one (out[i] stops
 * before in[i], out at a segment's start is 0), or the inclusive one.
 *
 * Test:  make test LAB=scan-Blelloch          (STAGE=2 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=scan-Blelloch N=2^24    (VARIANT=exclusive-float, BLOCK= threads per block)
 */
#include "scan.cuh"
#include "scan-Blelloch.h"

/* STUDENT your own includes and helpers -------------------------------------
 * A header you need, or a helper more than one of your stages shares. The
 * grader keeps what is inside these regions (and whole functions you add
 * between two of the file's), nothing else.
 */
/* END STUDENT */

enum { MAX_BLOCK = 1024 };

/* Stages 1-3: one block per segment, two values a thread (blelloch_threads:
 * a power of two). */
static void launch(const struct args *a, int block, scan_kernel<int> on_ints,
                   scan_kernel<float> on_floats)
{
    launch_segments(a, (unsigned)blelloch_threads(block), blelloch_segment(block), on_ints,
                    on_floats);
}

/* ---- stage 1 ------------------------------------------------------------ */

template <typename T>
__global__ void scan_blelloch_stage1_kernel(const T *__restrict__ in, T *__restrict__ out,
                                            size_t n, bool inclusive)
{
    /* STUDENT stage 1 -------------------------------------------------------
     * Goal: the exclusive scan of this block's m = 2 * blockDim.x values in
     *       __shared__ T tree[2 * MAX_BLOCK];  the segment starts at
     *       base = blockIdx.x * m (as size_t). Thread tid loads and stores
     *       the words tid and tid + blockDim.x (coalesced), 0 past n.
     * Keep: up-sweep: for stride = 1, 2, 4, ... < m, the first
     *       busy = m / (2*stride) threads each add tree[a] into tree[b],
     *       with {a = stride * (2*tid + 1) - 1 and b = a + stride. Then|a the last word of the pair's left half and b of its right:}
     *       {|derive both from stride and tid. Then}
     *       thread 0 clears the root tree[m - 1]. Down-sweep: for
     *       stride = m/2 ... 1, the same threads and words: tree[a] takes
     *       tree[b], and tree[b] gets the old tree[a] added. A
     *       __syncthreads() before every level.
     * Hint: halve busy as stride doubles, beside it in the for: dividing by
     *       stride at each level costs more than the level's add. The result
     *       is exclusive; for the inclusive scan add the thread's own input
     *       values back, kept in registers from the load.
     */
    __shared__ T tree[2 * MAX_BLOCK];
    unsigned tid = threadIdx.x, half = blockDim.x, m = 2 * blockDim.x;
    size_t base = blockIdx.x * (size_t)m;
    T x0 = base + tid < n ? in[base + tid] : T(0);
    T x1 = base + tid + half < n ? in[base + tid + half] : T(0);
    tree[tid] = x0;
    tree[tid + half] = x1;
    for (unsigned stride = 1, busy = m / 2; busy > 0; stride *= 2, busy /= 2) {
        __syncthreads();
        if (tid < busy) {
            unsigned a = stride * (2 * tid + 1) - 1, b = a + stride;
            tree[b] += tree[a];
        }
    }
    if (tid == 0)
        tree[m - 1] = T(0);
    for (unsigned stride = m / 2, busy = 1; stride > 0; stride /= 2, busy *= 2) {
        __syncthreads();
        if (tid < busy) {
            unsigned a = stride * (2 * tid + 1) - 1, b = a + stride;
            T left = tree[a];
            tree[a] = tree[b];
            tree[b] += left;
        }
    }
    __syncthreads();
    if (base + tid < n)
        out[base + tid] = tree[tid] + (inclusive ? x0 : T(0));
    if (base + tid + half < n)
        out[base + tid + half] = tree[tid + half] + (inclusive ? x1 : T(0));
    /* END STUDENT */
}

static void scan_blelloch_stage1(const struct args *a, int block)
{
    launch(a, block, scan_blelloch_stage1_kernel<int>, scan_blelloch_stage1_kernel<float>);
}

/* ---- stage 2 ------------------------------------------------------------ */

/* STUDENT stage 2 -----------------------------------------------------------
 * Goal: write  __device__ unsigned padded(unsigned k)  giving where word k
 *       of the tree lives: one extra word after every 32{, k + k / 32|: derive it from k}.
 * Keep: it must be one-to-one and stay below 2 * MAX_BLOCK + 2 * MAX_BLOCK / 32.
 * Hint: in stage 1 the words a warp touches at stride s are 2 * s apart, so
 *       at s = 16 all 32 land in one bank; the extra word shifts each run of
 *       32 by one bank.
 */
__device__ unsigned padded(unsigned k) { return k + k / 32; }
/* END STUDENT */

template <typename T>
__global__ void scan_blelloch_stage2_kernel(const T *__restrict__ in, T *__restrict__ out,
                                            size_t n, bool inclusive)
{
    /* STUDENT stage 2 -------------------------------------------------------
     * Goal: stage 1, with every tree index k (loads, sweeps, root, stores)
     *       read and written at padded(k) in
     *       __shared__ T tree[2 * MAX_BLOCK + 2 * MAX_BLOCK / 32];
     * Keep: the same levels, threads and barriers as stage 1.
     * Hint: change nothing but the indices; the table shows what it buys.
     */
    __shared__ T tree[2 * MAX_BLOCK + 2 * MAX_BLOCK / 32];
    unsigned tid = threadIdx.x, half = blockDim.x, m = 2 * blockDim.x;
    size_t base = blockIdx.x * (size_t)m;
    T x0 = base + tid < n ? in[base + tid] : T(0);
    T x1 = base + tid + half < n ? in[base + tid + half] : T(0);
    tree[padded(tid)] = x0;
    tree[padded(tid + half)] = x1;
    for (unsigned stride = 1, busy = m / 2; busy > 0; stride *= 2, busy /= 2) {
        __syncthreads();
        if (tid < busy) {
            unsigned a = stride * (2 * tid + 1) - 1, b = a + stride;
            tree[padded(b)] += tree[padded(a)];
        }
    }
    if (tid == 0)
        tree[padded(m - 1)] = T(0);
    for (unsigned stride = m / 2, busy = 1; stride > 0; stride /= 2, busy *= 2) {
        __syncthreads();
        if (tid < busy) {
            unsigned a = stride * (2 * tid + 1) - 1, b = a + stride;
            T left = tree[padded(a)];
            tree[padded(a)] = tree[padded(b)];
            tree[padded(b)] += left;
        }
    }
    __syncthreads();
    if (base + tid < n)
        out[base + tid] = tree[padded(tid)] + (inclusive ? x0 : T(0));
    if (base + tid + half < n)
        out[base + tid + half] = tree[padded(tid + half)] + (inclusive ? x1 : T(0));
    /* END STUDENT */
}

static void scan_blelloch_stage2(const struct args *a, int block)
{
    launch(a, block, scan_blelloch_stage2_kernel<int>, scan_blelloch_stage2_kernel<float>);
}

/* ---- stage 3 ------------------------------------------------------------ */

template <typename T>
__global__ void scan_blelloch_stage3_kernel(const T *__restrict__ in, T *__restrict__ out,
                                            size_t n, bool inclusive)
{
    /* STUDENT stage 3 -------------------------------------------------------
     * Goal: the inclusive scan, with no clearing of the root: stage 2's
     *       up-sweep (padded), then a down phase that, for stride = m/4,
     *       m/8, ... 1, adds each finished word {b = 2*stride*(tid+1) - 1|b (derive it from stride and tid)}
     *       into the word stride places after it, b + stride, when that is
     *       still inside the tree (< m).
     * Keep: after the up-sweep, the words 2^k - 1 already hold inclusive
     *       sums; each down level completes the words halfway between
     *       finished ones. A __syncthreads() before every level.
     * Hint: now the exclusive scan is the inclusive one shifted right by
     *       one word (0 at the segment's start): read tree[padded(k - 1)].
     */
    __shared__ T tree[2 * MAX_BLOCK + 2 * MAX_BLOCK / 32];
    unsigned tid = threadIdx.x, half = blockDim.x, m = 2 * blockDim.x;
    size_t base = blockIdx.x * (size_t)m;
    tree[padded(tid)] = base + tid < n ? in[base + tid] : T(0);
    tree[padded(tid + half)] = base + tid + half < n ? in[base + tid + half] : T(0);
    for (unsigned stride = 1, busy = m / 2; busy > 0; stride *= 2, busy /= 2) {
        __syncthreads();
        if (tid < busy) {
            unsigned a = stride * (2 * tid + 1) - 1, b = a + stride;
            tree[padded(b)] += tree[padded(a)];
        }
    }
    for (unsigned stride = m / 4; stride >= 1; stride /= 2) {
        __syncthreads();
        unsigned b = 2 * stride * (tid + 1) - 1;
        if (b + stride < m)
            tree[padded(b + stride)] += tree[padded(b)];
    }
    __syncthreads();
    unsigned k0 = tid, k1 = tid + half;
    if (base + k0 < n)
        out[base + k0] = inclusive ? tree[padded(k0)] : k0 > 0 ? tree[padded(k0 - 1)] : T(0);
    if (base + k1 < n)
        out[base + k1] = inclusive ? tree[padded(k1)] : tree[padded(k1 - 1)];
    /* END STUDENT */
}

static void scan_blelloch_stage3(const struct args *a, int block)
{
    launch(a, block, scan_blelloch_stage3_kernel<int>, scan_blelloch_stage3_kernel<float>);
}

/* ---- stage 4 ------------------------------------------------------------ */

/* Stage 4's tree has one leaf a thread: at most 2 * MAX_BLOCK / ITEMS. */
enum { MAX_LEAVES = 2 * MAX_BLOCK / ITEMS };

template <typename T>
__global__ void scan_blelloch_stage4_kernel(const T *__restrict__ in, T *__restrict__ out,
                                            size_t n, bool inclusive)
{
    /* STUDENT stage 4 -------------------------------------------------------
     * Goal: the same segments with a quarter of the threads: thread tid
     *       owns the ITEMS = 8 neighbouring values from
     *       first = base + ITEMS * tid, where m = ITEMS * blockDim.x and
     *       base = blockIdx.x * m. (1) Load them into T x[ITEMS] and scan
     *       them there, one after the other: x[ITEMS - 1] becomes the
     *       thread's total. (2) Stage 2's exclusive tree (up-sweep, root
     *       cleared, down-sweep) over the blockDim.x totals only, one leaf a
     *       thread, in  __shared__ T tree[MAX_LEAVES + MAX_LEAVES / 32];
     *       (3) Each thread adds its leaf, the sum of every thread before
     *       it, to its values and stores them.
     * Keep: when the whole segment lies below n, move the values as
     *       ITEMS / 4 vec4<T>::type (16 bytes each); otherwise one at a
     *       time, 0 past n. A __syncthreads() before every level of the tree.
     * Hint: the tree has blockDim.x leaves, not 2 * blockDim.x, so its first
     *       level has blockDim.x / 2 busy threads. The exclusive scan of
     *       x[k] is the inclusive one of x[k - 1].
     */
    static_assert(ITEMS % 4 == 0, "16-byte vectors");
    typedef typename vec4<T>::type T4;
    __shared__ T tree[MAX_LEAVES + MAX_LEAVES / 32];
    unsigned tid = threadIdx.x, leaves = blockDim.x;
    size_t base = blockIdx.x * (size_t)ITEMS * leaves, first = base + ITEMS * tid;
    bool whole = base + ITEMS * leaves <= n;
    T x[ITEMS];
    if (whole) {
        const T4 *in4 = reinterpret_cast<const T4 *>(in + first);
        for (int q = 0; q < ITEMS / 4; q++) {
            T4 v = in4[q];
            x[4 * q] = v.x, x[4 * q + 1] = v.y, x[4 * q + 2] = v.z, x[4 * q + 3] = v.w;
        }
    } else {
        for (int k = 0; k < ITEMS; k++)
            x[k] = first + k < n ? in[first + k] : T(0);
    }
    for (int k = 1; k < ITEMS; k++)
        x[k] += x[k - 1];
    tree[padded(tid)] = x[ITEMS - 1];
    for (unsigned stride = 1, busy = leaves / 2; busy > 0; stride *= 2, busy /= 2) {
        __syncthreads();
        if (tid < busy) {
            unsigned a = stride * (2 * tid + 1) - 1, b = a + stride;
            tree[padded(b)] += tree[padded(a)];
        }
    }
    if (tid == 0)
        tree[padded(leaves - 1)] = T(0);
    for (unsigned stride = leaves / 2, busy = 1; stride > 0; stride /= 2, busy *= 2) {
        __syncthreads();
        if (tid < busy) {
            unsigned a = stride * (2 * tid + 1) - 1, b = a + stride;
            T left = tree[padded(a)];
            tree[padded(a)] = tree[padded(b)];
            tree[padded(b)] += left;
        }
    }
    __syncthreads();
    T before = tree[padded(tid)], y[ITEMS];
    for (int k = 0; k < ITEMS; k++)
        y[k] = before + (inclusive ? x[k] : k > 0 ? x[k - 1] : T(0));
    if (whole) {
        T4 *out4 = reinterpret_cast<T4 *>(out + first);
        for (int q = 0; q < ITEMS / 4; q++)
            out4[q] = T4{y[4 * q], y[4 * q + 1], y[4 * q + 2], y[4 * q + 3]};
    } else {
        for (int k = 0; k < ITEMS; k++)
            if (first + k < n)
                out[first + k] = y[k];
    }
    /* END STUDENT */
}

static void scan_blelloch_stage4(const struct args *a, int block)
{
    launch_segments(a, (unsigned)(blelloch_segment(block) / ITEMS), blelloch_segment(block),
                    scan_blelloch_stage4_kernel<int>, scan_blelloch_stage4_kernel<float>);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage scan_blelloch_stages[] = {
    {"1", "up-sweep and down-sweep (exclusive)", scan_blelloch_stage1,
     "an up-sweep and a down-sweep (exclusive)"},
    {"2", "shared indices padded: no bank conflicts", scan_blelloch_stage2,
     "padded shared indices: no bank conflicts"},
    {"3", "Brent-Kung down phase (inclusive)", scan_blelloch_stage3,
     "the Brent-Kung down phase: one add a node, no swap, no cleared root"},
    {"4", "eight values a thread in registers", scan_blelloch_stage4,
     "eight values a thread, scanned in registers first"},
    {NULL, NULL, NULL, NULL},
};
