/* transpose: out = the transpose of in, a matrix of floats, out of place.
 * in has rows x cols, stored row after row; out has cols x rows, and
 * out[c * rows + r] = in[r * cols + c]. Any shape: a side need not be a
 * multiple of a tile, or of anything.
 *
 * The course's first two-dimensional grid: a block is dim3(x, y) threads,
 * threadIdx.x the fast one (neighbouring x: neighbouring lanes of a warp),
 * and a grid is dim3(x, y) blocks. Here x runs along a row of in (its
 * columns), y down its rows. Each stage adds one idea; the table at the end
 * of this file names them (make test prints it with each stage's results).
 *
 * Test:  make test LAB=transpose            (STAGE=2 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=transpose N=16384x16384   (ROWSxCOLS; BLOCK= threads per block)
 */
#include "workbook.cuh"
#include "transpose.h"

/* TODO your own includes and helpers ----------------------------------------
 * A header you need, or a helper more than one of your stages shares. The
 * grader keeps what is inside these regions (and whole functions you add
 * between two of the file's), nothing else.
 */
/* END TODO */

enum { TILE = 32 };

static unsigned tiles(size_t side, unsigned tile) { return (unsigned)ceil_div(side, tile); }

/* ---- stage 1 ------------------------------------------------------------ */

__global__ void transpose_stage1_kernel(const float *__restrict__ in, float *__restrict__ out,
                                        size_t rows, size_t cols)
{
    /* TODO stage 1 ----------------------------------------------------------
     * Goal: one thread per element: the thread at column c and row r of in
     *       writes out[c * rows + r] = in[r * cols + c].
     * Keep: the grid covers whole blocks, so threads past the last column
     *       or row exist: they touch nothing. A matrix need not be square:
     *       in's rows are cols long, out's rows are rows long.
     * Hint: c = blockIdx.x * blockDim.x + threadIdx.x, and r the same in y.
     *       Neighbouring threads read neighbouring words of in (one 128-byte
     *       line a warp) and write words rows apart in out.
     */
    /* END TODO */
}

static void transpose_stage1(const struct args *a, int block)
{
    /* TODO stage 1 ----------------------------------------------------------
     * Goal: launch transpose_stage1_kernel on a 2-D grid of 2-D blocks of
     *       T = transpose_threads("1", block) threads (BLOCK in whole warps),
     *       with a thread for every element of in.
     * Keep: x runs along a row of in (its cols) and y down its rows, in the
     *       block and in the grid alike, so that a warp reads along a row.
     *       A grid of zero blocks is a launch error, and a side may be 0.
     * Hint: dim3 threads(32, T / 32), then dim3 grid(blocks along x, blocks
     *       along y): enough on each side to cover that side of in. A
     *       division rounds down; ceil_div (or tiles, above) rounds up.
     */
    /* END TODO */
}

/* ---- stage 2 ------------------------------------------------------------ */

__global__ void transpose_stage2_kernel(const float *__restrict__ in, float *__restrict__ out,
                                        size_t rows, size_t cols)
{
    /* TODO stage 2 ----------------------------------------------------------
     * Goal: a block of 32 x 32 threads moves the 32 x 32 tile of in whose
     *       first element is in[blockIdx.y * 32][blockIdx.x * 32]. Each
     *       thread reads one element of it into tile[threadIdx.y][threadIdx.x]
     *       (a row of in a warp), then, after a barrier, writes one element
     *       of out: the warp that wrote row y of the tile now writes row y of
     *       the tile's place in out, from column y of the tile.
     * Keep: the tile at the end of a row or column may be cut short: test
     *       the read against rows and cols, and the write against the same
     *       bounds seen from out (its rows are in's columns).
     * Hint: in out, the tile starts at row blockIdx.x * 32 and column
     *       blockIdx.y * 32; thread (x, y) writes out row blockIdx.x * 32 + y,
     *       column blockIdx.y * 32 + x, with tile[x][y].
     */
    /* END TODO */
}

/* A block per tile of in: blockIdx.x counts tiles along a row, blockIdx.y
 * down the columns. */
template <typename Kernel>
static void launch_tiles(const struct args *a, Kernel kernel, dim3 threads, unsigned tile)
{
    if (a->rows == 0 || a->cols == 0)
        return;
    dim3 grid(tiles(a->cols, tile), tiles(a->rows, tile));
    kernel<<<grid, threads>>>(a->in, a->out, a->rows, a->cols);
}

/* A thread per element of a 32 x 32 tile (BLOCK does not change it). */
static void transpose_stage2(const struct args *a, int block)
{
    (void)block;
    launch_tiles(a, transpose_stage2_kernel, dim3(TILE, TILE), TILE);
}

/* ---- stage 3 ------------------------------------------------------------ */

__global__ void transpose_stage3_kernel(const float *__restrict__ in, float *__restrict__ out,
                                        size_t rows, size_t cols)
{
    /* TODO stage 3 ----------------------------------------------------------
     * Goal: stage 2, with the tile one word wider than it is: 32 x 33.
     * Keep: everything else as in stage 2.
     * Hint: a warp writing out reads a column of the tile: tile[x][y] for
     *       x = 0..31, words 32 apart, all in one of shared memory's 32
     *       banks, so they are served one after another. With rows 33 words
     *       long, the words of a column fall in 32 different banks.
     */
    /* END TODO */
}

static void transpose_stage3(const struct args *a, int block)
{
    (void)block;
    launch_tiles(a, transpose_stage3_kernel, dim3(TILE, TILE), TILE);
}

/* ---- stage 4 ------------------------------------------------------------ */

__global__ void transpose_stage4_kernel(const float *__restrict__ in, float *__restrict__ out,
                                        size_t rows, size_t cols)
{
    /* TODO stage 4 ----------------------------------------------------------
     * Goal: stage 3 with fewer threads: a block of 32 x blockDim.y threads
     *       (blockDim.y from 1 to 32, any of them) still moves a 32 x 32
     *       padded tile, so each thread moves 32 / blockDim.y elements.
     * Keep: thread (x, y) reads the tile's rows y, y + blockDim.y, ... while
     *       below 32, and after the barrier writes out's rows the same way.
     *       The bounds tests as in stage 3, for every element.
     * Hint: for (unsigned j = y; j < TILE; j += blockDim.y). Fewer threads
     *       mean fewer to create and schedule; stage 5 shows how to get a
     *       thread's loads in flight together.
     */
    /* END TODO */
}

/* Blocks of 32 x (threads / 32), a 32 x 32 tile each. */
static void transpose_stage4(const struct args *a, int block)
{
    launch_tiles(a, transpose_stage4_kernel, dim3(32, transpose_threads("4", block) / 32), TILE);
}

/* ---- stage 5 ------------------------------------------------------------ */

/* Stage 5's tile: 64 x 64 floats, moved by 32 x 16 threads, 8 a thread. */
enum { TILE5 = 64, ROWS5 = 16 };

__global__ void __launch_bounds__(32 * ROWS5)
    transpose_stage5_kernel(const float *__restrict__ in, float *__restrict__ out, size_t rows,
                            size_t cols)
{
    /* TODO stage 5 ----------------------------------------------------------
     * Goal: a 64 x 64 tile (padded to 65) moved by 32 x 16 threads: thread
     *       (x, y) reads the tile's columns x and x + 32 in rows y, y + 16,
     *       y + 32 and y + 48, and writes out the same way after the
     *       barrier.
     * Keep: the bounds tests of stage 4. The loops' bounds are constants
     *       (TILE5, ROWS5, not blockDim), so the compiler unrolls them and
     *       all 8 loads of a thread are issued before the first returns.
     * Hint: #pragma unroll on both loops. A block has 4 times the tile of
     *       stage 4, so a quarter of the blocks, barriers and index sums.
     */
    /* END TODO */
}

static void transpose_stage5(const struct args *a, int block)
{
    (void)block;
    launch_tiles(a, transpose_stage5_kernel, dim3(32, ROWS5), TILE5);
}

/* ---- stage 6 ------------------------------------------------------------ */

/* Where out's rows start inside a 128-byte line (rows not a multiple of 32),
 * each of stage 5's tiles writes the lines at its edges in part, and the
 * block beside it the rest, later: the L2 pays for every sector written in
 * two parts. Stage 6 starts each row's writes on a line instead. Its block
 * walks a strip of in, STRIP6 columns wide (as many rows of out) and STEPS6
 * steps of STEP6 rows down, with 32 x ROWS6 threads, and keeps the last two
 * steps in a ring, in's row r in ring[r % RING6]: a window of out that
 * starts on a line needs up to LINE - 1 rows of the step before. out itself
 * starts on a line (cudaMalloc aligns to 256 bytes). */
enum { ROWS6 = 16, RING6 = 2 * STEP6, LINE = 32 }; /* STRIP6, STEP6, STEPS6: transpose.h */

/* A thread's share of one step: in's rows first .. first + STEP6 - 1, or
 * as many of them as are below `end`; 8 values a thread. A row index fits
 * in an int: in has at most MAX_ROWS rows. */
struct step6 {
    float v[STEP6 / ROWS6][STRIP6 / 32];
};

__device__ void load_step(const float *__restrict__ in, size_t cols, size_t c0, int first,
                          int end, step6 &s)
{
    unsigned x = threadIdx.x, y = threadIdx.y;
#pragma unroll
    for (unsigned j = 0; j < STEP6 / ROWS6; j++)
#pragma unroll
        for (unsigned i = 0; i < STRIP6 / 32; i++) {
            int r = first + (int)(y + j * ROWS6);
            size_t c = c0 + x + i * 32;
            if (r < end && c < cols)
                s.v[j][i] = in[(size_t)r * cols + c];
        }
}

__device__ void keep_step(float (*ring)[STRIP6 + 1], int first, const step6 &s)
{
    unsigned x = threadIdx.x, y = threadIdx.y;
#pragma unroll
    for (unsigned j = 0; j < STEP6 / ROWS6; j++)
#pragma unroll
        for (unsigned i = 0; i < STRIP6 / 32; i++)
            ring[(first + y + j * ROWS6) % RING6][x + i * 32] = s.v[j][i];
}

/* At most 64 registers a thread, so that two blocks fit on an SM: while one
 * waits at a barrier, the other keeps memory busy. (Three would ask for 1536
 * threads an SM, more than some GPUs have.) */
__global__ void __launch_bounds__(32 * ROWS6, 2)
    transpose_stage6_kernel(const float *__restrict__ in, float *__restrict__ out, size_t rows,
                            size_t cols)
{
    /* TODO stage 6 ----------------------------------------------------------
     * Goal: every store of a warp is one whole 128-byte line of out. The
     *       block moves in's columns from c0 = blockIdx.x * STRIP6 (rows c
     *       of out) and its rows from r0 = blockIdx.y * STEP6 * STEPS6 up
     *       to r1 (STEPS6 steps, or up to rows). Row c of out starts
     *       off = (c * rows) % LINE floats into a line, so its lines start
     *       at columns -off, LINE - off, ...: in each of its rows of out the
     *       block writes the columns from r0 - off up to r1 - off (from 0 in
     *       a strip's first block, up to rows in its last), 64 a window:
     *       window w is [r0 - off + 64 w, r0 - off + 64 w + 64).
     * Keep: the ring holds what a window reads: window w reads the end of
     *       step w - 1 and step w; window 0 the LINE rows above r0, which
     *       the block puts in the ring first, before step 0 (keep_step
     *       writes STEP6 rows: from r0 - LINE it runs into step 0's). A
     *       strip's first block has no rows above r0 = 0 and reads none
     *       (they would lie before in's first row; the bounds guard the ends).
     *       Load step w + 1 (load_step) before writing window w, so that
     *       its loads fly meanwhile, and keep it (keep_step) after a
     *       __syncthreads(): its slot held step w - 1. Another barrier
     *       before the next window reads it. Bounds: the reads against rows
     *       and cols, the writes against cols and the block's own columns.
     * Hint: thread (x, y) writes rows c0 + y, + 16, + 32 and + 48 of out,
     *       and in each a window's columns x and x + 32. The last block of
     *       a strip writes one window more than it has steps. Columns as
     *       ints, signed: r0 - off is below 0 in a strip's first block.
     */
    /* END TODO */
}

/* A block for each STRIP6 columns of in and each STEPS6 x STEP6 rows. */
static void transpose_stage6(const struct args *a, int block)
{
    (void)block;
    if (a->rows == 0 || a->cols == 0)
        return;
    dim3 grid(tiles(a->cols, STRIP6), tiles(a->rows, STEP6 * STEPS6));
    transpose_stage6_kernel<<<grid, dim3(32, ROWS6)>>>(a->in, a->out, a->rows, a->cols);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage transpose_stages[] = {
    {"1", "naive: a thread an element", transpose_stage1, "a thread an element"},
    {"2", "a 32x32 tile in shared memory", transpose_stage2,
     "a tile in shared memory, so that both reads and writes are coalesced"},
    {"3", "the tile padded to 33 columns", transpose_stage3, "the tile padded to 33 columns"},
    {"4", "32 x BLOCK/32 threads a tile", transpose_stage4,
     "fewer threads than a tile has elements: each moves several"},
    {"5", "64x64 tiles, unrolled loops", transpose_stage5, "64x64 tiles"},
    {"6", "whole lines of out: strips walked", transpose_stage6,
     "whole lines of out: each row's windows start on a line"},
    {NULL, NULL, NULL, NULL},
};
