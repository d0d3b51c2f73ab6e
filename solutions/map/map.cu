/* map: out[i] = a * in[i] + b for every i, one independent element at a time.
 *
 * Map does almost no arithmetic per byte, so every stage is limited by memory
 * bandwidth; the goal is to get as close as possible to a plain device-to-device
 * copy, which moves the same bytes and does nothing else.
 *
 * Each stage adds one idea; the table at the end of this file names them
 * (make test prints it with each stage's results).
 *
 * Test:  make test LAB=map          (STAGE=3 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=map N=2^28    (BLOCK= threads per block, default 256)
 */
#include "workbook.cuh"
#include "grid.cuh"
#include "map.h"

/* STUDENT your own includes and helpers -------------------------------------
 * A header you need, or a helper more than one of your stages shares. The
 * grader keeps what is inside these regions (and whole functions you add
 * between two of the file's), nothing else.
 */
/* END STUDENT */

/* The per-element operation, shared by every stage. */
__device__ __forceinline__ float map_op(float x, float a, float b)
{
    return a * x + b;
}

/* ---- stage 1 ------------------------------------------------------------ */

__global__ void map_stage1_kernel(float *__restrict__ out, const float *__restrict__ in,
                                  size_t n, float a, float b)
{
    /* STUDENT stage 1 -------------------------------------------------------
     * Goal: the thread with global index i computes out[i] = map_op(in[i], a, b).
     * Keep: the grid is whole blocks, so the last block may have threads with
     *       i >= n; they must not read or write anything.
     * Hint: global index = blockIdx.x * blockDim.x + threadIdx.x. Widen to
     *       size_t before multiplying: n reaches 2^28 and more.
     */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = map_op(in[i], a, b);
    /* END STUDENT */
}

static void map_stage1(const struct args *a, int block)
{
    /* STUDENT stage 1 -------------------------------------------------------
     * Goal: launch map_stage1_kernel with `block` threads per block and
     *       enough blocks that every element has a thread.
     * Keep: a grid of zero blocks is a launch error, and n may be 0.
     * Hint: ceil_div(n, block) from common/workbook.cuh rounds up.
     */
    if (a->n == 0)
        return;
    unsigned grid = (unsigned)ceil_div(a->n, block);
    map_stage1_kernel<<<grid, block>>>(a->out, a->in, a->n, a->a, a->b);
    /* END STUDENT */
}

/* ---- stage 2 ------------------------------------------------------------ */

__global__ void map_stage2_kernel(float *__restrict__ out, const float *__restrict__ in,
                                  size_t n, float a, float b)
{
    /* STUDENT stage 2 -------------------------------------------------------
     * Goal: the same map, but each thread loops over elements i, i + stride,
     *       i + 2*stride, ... so that any grid size covers any n.
     * Keep: neighbouring threads touch neighbouring elements in every round
     *       (that is what keeps the accesses coalesced).
     * Hint: stride = the number of threads in the whole grid.
     */
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = map_op(in[i], a, b);
    /* END STUDENT */
}

static void map_stage2(const struct args *a, int block)
{
    /* STUDENT stage 2 -------------------------------------------------------
     * Goal: launch map_stage2_kernel with device_grid(...) blocks (common/grid.cuh:
     *       as many as fill the GPU once, never more than the work needs).
     * Keep: nothing to launch when the grid is 0.
     * Hint: pass the kernel itself as the `kernel` argument: (const void *)map_stage2_kernel,
     *       and 0 bytes of dynamic shared memory.
     */
    unsigned grid = device_grid((const void *)map_stage2_kernel, block, a->n, 0);
    if (grid > 0)
        map_stage2_kernel<<<grid, block>>>(a->out, a->in, a->n, a->a, a->b);
    /* END STUDENT */
}

/* ---- stage 3 ------------------------------------------------------------ */

__global__ void map_stage3_kernel(float *__restrict__ out, const float *__restrict__ in,
                                  size_t n, float a, float b)
{
    /* STUDENT stage 3 -------------------------------------------------------
     * Goal: treat in and out as arrays of n / 4 float4 and map all four lanes
     *       of each with one 16-byte load and one 16-byte store; then map the
     *       last n % 4 elements one float at a time.
     * Keep: every element exactly once, the tail included (try n = 1, 1023, 1025).
     * Hint: reinterpret_cast<const float4 *>(in) is safe here because cudaMalloc
     *       returns addresses aligned to 256 bytes. The tail can use the same
     *       grid-stride loop, starting at 4 * (n / 4).
     */
    size_t start = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t vectors = n / 4;
    const float4 *in4 = reinterpret_cast<const float4 *>(in);
    float4 *out4 = reinterpret_cast<float4 *>(out);
    for (size_t i = start; i < vectors; i += stride) {
        float4 v = in4[i];
        v.x = map_op(v.x, a, b);
        v.y = map_op(v.y, a, b);
        v.z = map_op(v.z, a, b);
        v.w = map_op(v.w, a, b);
        out4[i] = v;
    }
    for (size_t i = 4 * vectors + start; i < n; i += stride)
        out[i] = map_op(in[i], a, b);
    /* END STUDENT */
}

static void map_stage3(const struct args *a, int block)
{
    /* STUDENT stage 3 -------------------------------------------------------
     * Goal: launch map_stage3_kernel with a device-filling grid.
     * Keep: there must be at least one thread when 0 < n < 4 (all tail).
     * Hint: the work is ceil_div(n, 4) items now, not n.
     */
    unsigned grid = device_grid((const void *)map_stage3_kernel, block, ceil_div(a->n, 4), 0);
    if (grid > 0)
        map_stage3_kernel<<<grid, block>>>(a->out, a->in, a->n, a->a, a->b);
    /* END STUDENT */
}

/* ---- stage 4 ------------------------------------------------------------ */

__global__ void map_stage4a_kernel(float *__restrict__ out, const struct particle *__restrict__ p,
                                   size_t n, float a, float b)
{
    /* STUDENT stage 4a ------------------------------------------------------
     * Goal: out[i] = map_op(p[i].x, a, b), with the grid-stride loop of stage 2.
     * Keep: read only the x field; y, z and w are not needed.
     * Hint: the code is one line away from stage 2; the difference is all in
     *       where consecutive threads' loads land in memory (16 bytes apart).
     */
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = map_op(p[i].x, a, b);
    /* END STUDENT */
}

static void map_stage4a(const struct args *a, int block)
{
    /* STUDENT stage 4a ------------------------------------------------------
     * Goal: launch map_stage4a_kernel over a->aos, as stage 2 does.
     * Keep: the same grid rule as stage 2, so only the data layout differs.
     * Hint: device_grid again.
     */
    unsigned grid = device_grid((const void *)map_stage4a_kernel, block, a->n, 0);
    if (grid > 0)
        map_stage4a_kernel<<<grid, block>>>(a->out, a->aos, a->n, a->a, a->b);
    /* END STUDENT */
}

__global__ void map_stage4b_kernel(float *__restrict__ out, struct particles p, size_t n,
                                   float a, float b)
{
    /* STUDENT stage 4b ------------------------------------------------------
     * Goal: out[i] = map_op(p.x[i], a, b), with the grid-stride loop of stage 2.
     * Keep: read only the x array.
     * Hint: consecutive threads now read consecutive floats of p.x.
     */
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = map_op(p.x[i], a, b);
    /* END STUDENT */
}

static void map_stage4b(const struct args *a, int block)
{
    /* STUDENT stage 4b ------------------------------------------------------
     * Goal: launch map_stage4b_kernel over a->soa, as stage 2 does.
     * Keep: the same grid rule as stage 4a.
     * Hint: device_grid again.
     */
    unsigned grid = device_grid((const void *)map_stage4b_kernel, block, a->n, 0);
    if (grid > 0)
        map_stage4b_kernel<<<grid, block>>>(a->out, a->soa, a->n, a->a, a->b);
    /* END STUDENT */
}

/* ---- stage 5 ------------------------------------------------------------ */

__global__ void map_stage5_kernel(float *__restrict__ out, const float *__restrict__ in,
                                  size_t n, float a, float b)
{
    /* STUDENT stage 5 -------------------------------------------------------
     * Goal: stage 3's float4 map with no loop: the thread with global index
     *       i maps float4 number i, if there is one. Then threads 0 to
     *       n % 4 - 1 each map one of the last n % 4 elements.
     * Keep: one 16-byte load and one 16-byte store per vector, as in stage 3.
     * Hint: stage 1's index and bounds test, counted in float4s. The tail's
     *       elements start at 4 * (n / 4).
     */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x, vectors = n / 4;
    if (i < vectors) {
        float4 v = reinterpret_cast<const float4 *>(in)[i];
        v.x = map_op(v.x, a, b);
        v.y = map_op(v.y, a, b);
        v.z = map_op(v.z, a, b);
        v.w = map_op(v.w, a, b);
        reinterpret_cast<float4 *>(out)[i] = v;
    }
    if (i < n - 4 * vectors)
        out[4 * vectors + i] = map_op(in[4 * vectors + i], a, b);
    /* END STUDENT */
}

static void map_stage5(const struct args *a, int block)
{
    /* STUDENT stage 5 -------------------------------------------------------
     * Goal: launch map_stage5_kernel with a grid sized from n, as in stage 1,
     *       but one thread per float4: ceil_div(n, 4) threads at least.
     * Keep: n may be 0 (no launch), and 0 < n < 4 still needs one block.
     * Hint: stage 3 gave each SM a fixed share of the array up front; here
     *       the GPU hands the next small block to whichever SM is free.
     */
    unsigned grid = (unsigned)ceil_div(ceil_div(a->n, 4), block);
    if (grid > 0)
        map_stage5_kernel<<<grid, block>>>(a->out, a->in, a->n, a->a, a->b);
    /* END STUDENT */
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage map_stages[] = {
    {"1", "one thread per element", map_stage1, "one thread per element"},
    {"2", "grid-stride loop, grid from the device", map_stage2,
     "a grid-stride loop over a grid sized from the device"},
    {"3", "16-byte float4 loads and stores", map_stage3, "16-byte float4 loads and stores"},
    {"4a", "array of structures: x of 16-byte records", map_stage4a,
     "stage 2's grid-stride loop over an array of structures"},
    {"4b", "structure of arrays: the x array alone", map_stage4b,
     "stage 2's grid-stride loop over the x array alone (structure of arrays)"},
    {"5", "float4s, grid from n: blocks balance SMs", map_stage5,
     "one float4 a thread, with a grid sized from n"},
    {NULL, NULL, NULL, NULL},
};
