/* scan-HS: Hillis-Steele prefix sums within one block, ints and floats,
 * inclusive and exclusive.
 *
 * Each block scans its own segment of blockDim.x values, one value per
 * thread (stage 4's blocks scan SEGMENTS4 segments side by side); the tests
 * check one segment (n up to a block) and many at once, which is also how
 * the run table measures throughput. Hillis and Steele's scan takes
 * log2(blockDim.x) steps; in step k every value adds the one 2^k places
 * before it. It does n log n adds where a loop does n, but
 * every step is fully parallel.
 *
 * Each stage adds one idea; the table at the end of this file names them
 * (make test prints it with each stage's results).
 *
 * The kernels are templates on the value type T, so one kernel scans ints
 * and floats. `inclusive` says which scan: out[i] = in[0] + ... + in[i], or
 * the exclusive one, which stops before in[i] (and starts from 0).
 *
 * Test:  make test LAB=scan-HS          (STAGE=2 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=scan-HS N=2^24    (VARIANT=inclusive-float, BLOCK= threads per block)
 */
#include "scan.cuh"
#include "scan-HS.h"

/* TODO your own includes and helpers ----------------------------------------
 * A header you need, or a helper more than one of your stages shares. The
 * grader keeps what is inside these regions (and whole functions you add
 * between two of the file's), nothing else.
 */
/* END TODO */

enum { MAX_BLOCK = 1024, FULL_WARP = 0xffffffffu };

/* One block per segment, one value a thread (hs_segment: whole warps). */
static void launch(const struct args *a, int block, scan_kernel<int> on_ints,
                   scan_kernel<float> on_floats)
{
    launch_segments(a, (unsigned)hs_segment(block), hs_segment(block), on_ints, on_floats);
}

/* ---- stage 1 ------------------------------------------------------------ */

template <typename T>
__global__ void scan_hs_stage1_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n,
                                      bool inclusive)
{
    /* TODO stage 1 ----------------------------------------------------------
     * Goal: the inclusive scan of this block's blockDim.x values, with
     *       i = blockIdx.x * blockDim.x + tid (as size_t), in two shared
     *       arrays  __shared__ T buf[2][MAX_BLOCK];  Then out[i] is the
     *       inclusive sum, or for the exclusive scan the sum one to the left
     *       (0 for tid == 0).
     * Keep: each thread loads in[i], or 0 when i >= n. In each step, for
     *       offset = 1, 2, 4, ... < blockDim.x, thread tid writes into the
     *       other array its value plus (when tid >= offset) the value offset
     *       places before it; then the arrays swap roles. A step reads what
     *       the step before wrote: a __syncthreads() between them.
     * Hint: an int `from` (0 or 1) that flips each step says which array
     *       holds the current sums. Only threads with i < n store.
     */
    /* END TODO */
}

static void scan_hs_stage1(const struct args *a, int block)
{
    launch(a, block, scan_hs_stage1_kernel<int>, scan_hs_stage1_kernel<float>);
}

/* ---- stage 2 ------------------------------------------------------------ */

template <typename T>
__global__ void scan_hs_stage2_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n,
                                      bool inclusive)
{
    /* TODO stage 2 ----------------------------------------------------------
     * Goal: stage 1's scan in one shared array,  __shared__ T sums[MAX_BLOCK];
     *       which halves the shared memory a block needs.
     * Keep: in each step, thread tid first reads the value offset places
     *       before it into a register (0 if tid < offset), and only then
     *       adds it to sums[tid]. Every read of a step must come before
     *       every write of that step: one __syncthreads() between the read
     *       and the add, and one after the add for the next step.
     * Hint: with only the second barrier, thread tid may add into sums[tid]
     *       before thread tid + offset has read it. EMU=1 names that race.
     */
    /* END TODO */
}

static void scan_hs_stage2(const struct args *a, int block)
{
    launch(a, block, scan_hs_stage2_kernel<int>, scan_hs_stage2_kernel<float>);
}

/* ---- stage 3 ------------------------------------------------------------ */

/* TODO stage 3 --------------------------------------------------------------
 * Goal: write  template <typename T> __device__ T warp_scan_inclusive(T v)
 *       returning, in lane L, the sum of v over lanes 0..L of the warp, with
 *       no shared memory: __shfl_up_sync(FULL_WARP, v, offset) gives the v
 *       of the lane `offset` below (lanes below offset get their own back).
 * Keep: all 32 lanes call every shuffle; only lanes >= offset add.
 * Hint: the same steps as stage 1 (offset 1, 2, 4, 8, 16), with no barrier
 *       between them: each shuffle waits for every lane its mask names, so
 *       it orders the steps itself.
 */
/* END TODO */

template <typename T>
__global__ void scan_hs_stage3_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n,
                                      bool inclusive)
{
    /* TODO stage 3 ----------------------------------------------------------
     * Goal: the block's scan in three steps: every warp scans its 32 values
     *       (warp_scan_inclusive); the last lane of each warp stores the
     *       warp's total in  __shared__ T warp_totals[32];  warp 0 scans
     *       those totals with warp_scan_inclusive too; then every thread adds
     *       the total of the warps before its own.
     * Keep: a __syncthreads() after the totals are stored and another after
     *       warp 0 has scanned them. Lanes of warp 0 past the last warp
     *       scan 0. Threads with i >= n take part with the value 0 (the
     *       shuffles need all 32 lanes) but store nothing.
     * Hint: the exclusive result of a lane is the inclusive one of the lane
     *       below: one more __shfl_up_sync by 1, and for lane 0 the total of
     *       the warps before (or 0).
     */
    /* END TODO */
}

static void scan_hs_stage3(const struct args *a, int block)
{
    launch(a, block, scan_hs_stage3_kernel<int>, scan_hs_stage3_kernel<float>);
}

/* ---- stage 4 ------------------------------------------------------------ */

template <typename T>
__global__ void scan_hs_stage4_kernel(const T *__restrict__ in, T *__restrict__ out, size_t n,
                                      bool inclusive)
{
    /* TODO stage 4 ----------------------------------------------------------
     * Goal: stage 3's scan, on SEGMENTS4 segments a block. This block's
     *       segment s (0 <= s < SEGMENTS4) starts at value
     *       (blockIdx.x * SEGMENTS4 + s) * blockDim.x (as size_t); thread
     *       tid keeps its value of each in  T v[SEGMENTS4];
     * Keep: all the loads first, before any shuffle or barrier, so that
     *       each thread has SEGMENTS4 loads waiting at once (stage 3's had
     *       one). Then stage 3's steps for every segment, with the totals in
     *       __shared__ T warp_totals[SEGMENTS4][32];  and only two
     *       barriers in all, shared by the segments.
     * Hint: warp w scans the totals of segments w, w + warps, ... (a block
     *       of one warp scans them all). Loops over s up to the constant
     *       SEGMENTS4 under #pragma unroll keep v in registers.
     */
    /* END TODO */
}

static void scan_hs_stage4(const struct args *a, int block)
{
    size_t segment = hs_segment(block);
    launch_segments(a, (unsigned)segment, SEGMENTS4 * segment, scan_hs_stage4_kernel<int>,
                    scan_hs_stage4_kernel<float>);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage scan_hs_stages[] = {
    {"1", "double-buffered shared memory", scan_hs_stage1, "double-buffered shared memory"},
    {"2", "in place: a register, two barriers a step", scan_hs_stage2,
     "in place: each step reads into a register, then writes, a barrier after each"},
    {"3", "warp shuffles, then a scan of warp totals", scan_hs_stage3,
     "warp shuffles, then a scan of the warps' totals"},
    {"4", "several segments a block, all loads first", scan_hs_stage4,
     "several segments a block, every load before the first barrier"},
    {NULL, NULL, NULL, NULL},
};
