/* scan-large-arrays: prefix sums of any number of values (2^28 and more),
 * ints and floats, exclusive and inclusive.
 *
 * One block cannot scan 2^28 values, so the array is cut into tiles of
 * blockDim.x * ITEMS values, one tile a block. A block scans its tile as in
 * the single-block labs; what this lab adds is the carry: every tile must
 * start from the sum of all the tiles before it. The stages differ in how
 * that carry reaches a tile, and so in how often the array crosses memory.
 *
 * Each stage adds one idea; the table at the end of this file names them
 * (make test prints it with each stage's results).
 *
 * Given, because the single-block labs taught them: warp_scan_inclusive,
 * block_scan_exclusive and warp_sum_all (common/collectives.cuh), and the tile
 * loads and stores.
 *
 * Test:  make test LAB=scan-large-arrays          (STAGE=3 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=scan-large-arrays N=2^28    (VARIANT=inclusive-int, BLOCK= threads per block)
 */
#include "collectives.cuh"
#include "scan-large-arrays.h"

/* TODO your own includes and helpers ----------------------------------------
 * A header you need, or a helper more than one of your stages shares. The
 * grader keeps what is inside these regions (and whole functions you add
 * between two of the file's), nothing else.
 */
/* END TODO */

/* ---- the tile's loads and stores ---------------------------------------- */

/* Shared memory for one tile (the launchers ask for it). */
template <typename T> __device__ T *tile_memory()
{
    extern __shared__ int4 tile_words[];
    return reinterpret_cast<T *>(tile_words);
}

/* x = this thread's ITEMS consecutive values of the tile at `base` (0 past
 * n). The tile crosses shared memory so that the global loads are
 * coalesced, 16 bytes a thread, whoever ends up owning each value. */
template <typename T>
__device__ void load_tile(const T *in, size_t base, size_t n, T (&x)[ITEMS])
{
    typedef typename vec4<T>::type T4;
    T *s = tile_memory<T>();
    unsigned tid = threadIdx.x, tile = blockDim.x * ITEMS;
    if (base + tile <= n) {
        const T4 *in4 = reinterpret_cast<const T4 *>(in + base);
        T4 *s4 = reinterpret_cast<T4 *>(s);
#pragma unroll
        for (int k = 0; k < ITEMS / 4; k++)
            s4[k * blockDim.x + tid] = in4[k * blockDim.x + tid];
    } else {
        /* A tile that reaches past n, one value at a time: all ITEMS loads
         * leave before the first returns (a loop that waited for each made
         * the last tile load two to three times as long as the others, and
         * the whole scan wait for it: notebook/scan-large-arrays.md). */
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            size_t i = base + k * blockDim.x + tid;
            x[k] = i < n ? in[i] : T(0);
        }
#pragma unroll
        for (int k = 0; k < ITEMS; k++)
            s[k * blockDim.x + tid] = x[k];
    }
    __syncthreads();
    const T4 *mine = reinterpret_cast<const T4 *>(s + tid * ITEMS);
#pragma unroll
    for (int q = 0; q < ITEMS / 4; q++) {
        T4 v = mine[q];
        x[4 * q] = v.x, x[4 * q + 1] = v.y, x[4 * q + 2] = v.z, x[4 * q + 3] = v.w;
    }
}

/* The reverse of load_tile: this thread's ITEMS results, stored coalesced
 * (only those below n). */
template <typename T>
__device__ void store_tile(T *out, size_t base, size_t n, const T (&y)[ITEMS])
{
    typedef typename vec4<T>::type T4;
    T *s = tile_memory<T>();
    unsigned tid = threadIdx.x, tile = blockDim.x * ITEMS;
    T4 *mine = reinterpret_cast<T4 *>(s + tid * ITEMS);
#pragma unroll
    for (int q = 0; q < ITEMS / 4; q++)
        mine[q] = T4{y[4 * q], y[4 * q + 1], y[4 * q + 2], y[4 * q + 3]};
    __syncthreads();
    if (base + tile <= n) {
        T4 *out4 = reinterpret_cast<T4 *>(out + base);
        const T4 *s4 = reinterpret_cast<const T4 *>(s);
#pragma unroll
        for (int k = 0; k < ITEMS / 4; k++)
            out4[k * blockDim.x + tid] = s4[k * blockDim.x + tid];
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            size_t i = base + k * blockDim.x + tid;
            if (i < n)
                out[i] = s[k * blockDim.x + tid];
        }
    }
}

/* Scan this thread's values in place, starting from `start`. */
template <typename T> __device__ void scan_items(T (&x)[ITEMS], T start, bool inclusive)
{
    T running = start;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        T v = x[j];
        if (inclusive)
            running += v;
        x[j] = running;
        if (!inclusive)
            running += v;
    }
}

template <typename T> __device__ T sum_items(const T (&x)[ITEMS])
{
    T sum = T(0);
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        sum += x[j];
    return sum;
}

/* ---- how the launchers cut the array into tiles -------------------------- */

struct tiling {
    unsigned threads; /* per block */
    size_t tile;      /* values per tile */
    unsigned tiles;   /* blocks */
    size_t smem;      /* bytes of shared memory per block */
};

template <typename T> static tiling tiles_of(size_t n, int block)
{
    tiling t;
    t.threads = (unsigned)tile_threads(block);
    t.tile = tile_size(block);
    t.tiles = (unsigned)ceil_div(n, t.tile);
    t.smem = t.tile * sizeof(T);
    return t;
}

/* Stages 1 and 2 scan level after level: the tiles' totals are the next
 * level's values. */
template <typename T>
using levels = void (*)(const T *in, T *out, size_t n, T *sums, bool inclusive, int block);

static void launch_levels(const struct args *a, int block, levels<int> on_ints,
                          levels<float> on_floats)
{
    if (a->n == 0)
        return;
    if (a->type == I32)
        on_ints((const int *)a->in, (int *)a->out, a->n, (int *)a->sums, a->inclusive, block);
    else
        on_floats((const float *)a->in, (float *)a->out, a->n, (float *)a->sums, a->inclusive,
                  block);
}

/* ---- stage 1 ------------------------------------------------------------ */

template <typename T>
__global__ void scan_large_stage1_scan_kernel(const T *in, T *out, T *totals, size_t n,
                                              bool inclusive)
{
    /* TODO stage 1 ----------------------------------------------------------
     * Goal: scan the tile at base = blockIdx.x * blockDim.x * ITEMS (as
     *       size_t), as if it were the whole array, and, when totals is not
     *       NULL, store the tile's sum in totals[blockIdx.x].
     * Keep: T x[ITEMS]; load_tile(in, base, n, x); each thread sums its
     *       values (sum_items), block_scan_exclusive gives what the threads
     *       before it hold and the tile's total, scan_items scans the
     *       thread's values from there, and store_tile writes them back.
     *       Every thread calls every one of these: they hold barriers.
     * Hint: in and out may be the same array (the totals are scanned in
     *       place): each block reads its whole tile before writing it.
     */
    /* END TODO */
}

template <typename T>
__global__ void scan_large_stage1_add_kernel(T *out, const T *carries, size_t n)
{
    /* TODO stage 1 ----------------------------------------------------------
     * Goal: add carries[blockIdx.x], the sum of every tile before this one,
     *       to each of the tile's blockDim.x * ITEMS values in out.
     * Keep: values at or past n are not the array's: leave them alone.
     * Hint: the threads of a block take the tile's values k = tid,
     *       tid + blockDim.x, ...: neighbours touch neighbours (coalesced).
     */
    /* END TODO */
}

/* Where the level below a level of `tiles` totals starts: on a 16-byte
 * boundary, as load_tile's wide loads need. */
template <typename T> static T *next_level(T *sums, unsigned tiles)
{
    return sums + ceil_div(tiles, 4) * 4;
}

/* Scan n values; the tiles' totals go to `sums`, and are scanned in place
 * there, with the levels further down kept after them. */
template <typename T>
static void stage1_scan(const T *in, T *out, size_t n, T *sums, bool inclusive, int block)
{
    tiling t = tiles_of<T>(n, block);
    bool more = t.tiles > 1;
    allow_smem(scan_large_stage1_scan_kernel<T>, t.smem);
    scan_large_stage1_scan_kernel<T><<<t.tiles, t.threads, t.smem>>>(in, out, more ? sums : NULL,
                                                                      n, inclusive);
    if (!more)
        return;
    stage1_scan<T>(sums, sums, t.tiles, next_level(sums, t.tiles), false, block);
    scan_large_stage1_add_kernel<T><<<t.tiles, t.threads>>>(out, sums, n);
}

static void scan_large_stage1(const struct args *a, int block)
{
    launch_levels(a, block, stage1_scan<int>, stage1_scan<float>);
}

/* ---- stage 2 ------------------------------------------------------------ */

template <typename T>
__global__ void scan_large_stage2_reduce_kernel(const T *in, T *totals, size_t n)
{
    /* TODO stage 2 ----------------------------------------------------------
     * Goal: totals[blockIdx.x] = the sum of this block's tile, and nothing
     *       else: no scan, no output.
     * Keep: the order of a sum does not matter, so skip shared memory: when
     *       the whole tile lies below n, read it as vec4<T>::type (16 bytes a
     *       load), thread tid taking the 16-byte words k * blockDim.x + tid,
     *       for k < ITEMS / 4; a tile that reaches past n is read one value
     *       at a time, 0 past n. Then block_scan_exclusive (its total) adds
     *       the threads' sums.
     * Hint: this pass reads n values and writes one per tile: it should run
     *       at the speed of reading memory.
     */
    /* END TODO */
}

template <typename T>
__global__ void scan_large_stage2_scan_kernel(const T *in, T *out, const T *carries, size_t n,
                                              bool inclusive)
{
    /* TODO stage 2 ----------------------------------------------------------
     * Goal: stage 1's tile scan, but starting from carries[blockIdx.x] (the
     *       sum of the tiles before; start from 0 when carries is NULL), so
     *       the output is final at once.
     * Keep: the same loads, block scan and stores as stage 1; in and out may
     *       be the same array.
     * Hint: only the start of scan_items changes.
     */
    /* END TODO */
}

template <typename T>
static void stage2_scan(const T *in, T *out, size_t n, T *sums, bool inclusive, int block)
{
    tiling t = tiles_of<T>(n, block);
    if (t.tiles > 1) {
        scan_large_stage2_reduce_kernel<T><<<t.tiles, t.threads>>>(in, sums, n);
        stage2_scan<T>(sums, sums, t.tiles, next_level(sums, t.tiles), false, block);
    }
    allow_smem(scan_large_stage2_scan_kernel<T>, t.smem);
    scan_large_stage2_scan_kernel<T><<<t.tiles, t.threads, t.smem>>>(
        in, out, t.tiles > 1 ? sums : NULL, n, inclusive);
}

static void scan_large_stage2(const struct args *a, int block)
{
    launch_levels(a, block, stage2_scan<int>, stage2_scan<float>);
}

/* ---- status words, for the single-pass stages ------------------------------ */

/* A tile publishes what it knows in one 64-bit word: a flag in the high half
 * and a value's bits in the low half. One store writes both, so a reader
 * never sees a flag without its value. */
enum { NOT_READY = 0, AGGREGATE = 1, PREFIX = 2 };

__device__ unsigned to_bits(int v) { return (unsigned)v; }
__device__ unsigned to_bits(float v) { return __float_as_uint(v); }
template <typename T> __device__ T from_bits(unsigned bits);
template <> __device__ int from_bits<int>(unsigned bits) { return (int)bits; }
template <> __device__ float from_bits<float>(unsigned bits) { return __uint_as_float(bits); }

template <typename T> __device__ unsigned long long status_word(unsigned flag, T value)
{
    return (unsigned long long)flag << 32 | to_bits(value);
}
__device__ unsigned flag_of(unsigned long long word) { return (unsigned)(word >> 32); }
template <typename T> __device__ T value_of(unsigned long long word)
{
    return from_bits<T>((unsigned)word);
}

/* The kernel of stages 3 and 4: one pass over all the tiles. */
template <typename T>
using single_pass_kernel = void (*)(const T *in, T *out, size_t n, unsigned long long *status,
                                    bool inclusive);

/* status[0] counts the tiles handed out; status[1 + t] is tile t's word.
 * Both start at 0 (NOT_READY) before every launch. */
template <typename T>
static void single_pass(const struct args *a, int block, single_pass_kernel<T> kernel)
{
    tiling t = tiles_of<T>(a->n, block);
    if (t.tiles == 0)
        return;
    CUDA_CHECK(cudaMemsetAsync(a->status, 0, (1 + (size_t)t.tiles) * sizeof *a->status));
    allow_smem(kernel, t.smem);
    kernel<<<t.tiles, t.threads, t.smem>>>((const T *)a->in, (T *)a->out, a->n, a->status,
                                           a->inclusive);
}

static void launch(const struct args *a, int block, single_pass_kernel<int> on_ints,
                   single_pass_kernel<float> on_floats)
{
    if (a->type == I32)
        single_pass<int>(a, block, on_ints);
    else
        single_pass<float>(a, block, on_floats);
}

/* ---- stage 3 ------------------------------------------------------------ */

template <typename T>
__global__ void scan_large_stage3_kernel(const T *in, T *out, size_t n,
                                         unsigned long long *status, bool inclusive)
{
    /* TODO stage 3 ----------------------------------------------------------
     * Goal: one kernel. Thread 0 takes the block's tile number from
     *       atomicAdd(&status[0], 1ULL), and shares it through a __shared__
     *       variable. The block loads and block-scans its tile; then thread
     *       0 waits until tile - 1 has published its inclusive prefix
     *       (status[tile] has flag PREFIX; tile 0 waits for nothing),
     *       publishes its own, status_word(PREFIX, prefix + total), in
     *       status[1 + tile], and shares the prefix so every thread can
     *       finish its values with scan_items.
     * Keep: read the word through a volatile pointer, or the compiler reads
     *       it once and spins forever. Take the tile from the counter, not
     *       from blockIdx.x: CUDA does not promise that blocks start in that
     *       order, and a block spinning on a tile that has not started may
     *       hold the very place on the GPU that tile needs.
     * Hint: the value and its flag are one 64-bit word, written by one
     *       store: status_word, flag_of and value_of<T> pack and unpack it.
     */
    /* END TODO */
}

static void scan_large_stage3(const struct args *a, int block)
{
    launch(a, block, scan_large_stage3_kernel<int>, scan_large_stage3_kernel<float>);
}

/* ---- stage 4 ------------------------------------------------------------ */

/* At most 40 registers a thread, where the compiler would take 44 to 46
 * (48 once allocated, a warp's share rounded up), so that
 * six blocks of 256 threads fit on an SM instead of five: while one tile
 * waits for its carry, more of the others keep memory busy (on an H100,
 * 0.94 ms became 0.91 at 2^28; notebook/scan-large-arrays.md). __maxnreg__ says so on
 * every GPU; __launch_bounds__(512, 3) said it by asking an SM for 1536
 * threads, which some GPUs do not have. */
template <typename T>
__global__ void __maxnreg__(40)
    scan_large_stage4_kernel(const T *in, T *out, size_t n, unsigned long long *status,
                             bool inclusive)
{
    /* TODO stage 4 ----------------------------------------------------------
     * Goal: stage 3, but no tile waits for a whole chain. As soon as it
     *       knows its total, a tile publishes status_word(AGGREGATE, total)
     *       (tile 0: its PREFIX at once). Then warp 0 looks back, 32 tiles
     *       at a time: lane L reads the word of tile - 1 - L (and counts a
     *       tile below 0 as PREFIX 0). While any lane sees NOT_READY, read
     *       again. Then add the values of the lanes up to the nearest tile
     *       that has a PREFIX (the lowest such lane, from __ballot_sync and
     *       __ffs), or of all 32 if none has, and move 32 tiles further
     *       back. Finally publish status_word(PREFIX, prefix + total).
     * Keep: volatile reads and writes of the status words; all 32 lanes
     *       of warp 0 stay in the loop together (their votes need them).
     *       Nap before the first look (tiles after 0: __nanosleep(1200)):
     *       the tiles just before have seldom published yet, and early
     *       reads only crowd the memory system those tiles are waiting on.
     * Hint: warp_sum_all adds one value per lane. The carry each tile needs is
     *       the sum of the totals between it and the nearest prefix.
     */
    /* END TODO */
}

static void scan_large_stage4(const struct args *a, int block)
{
    launch(a, block, scan_large_stage4_kernel<int>, scan_large_stage4_kernel<float>);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage scan_large_stages[] = {
    {"1", "scan-then-propagate (4 passes over n)", scan_large_stage1, "scan-then-propagate"},
    {"2", "reduce-then-scan (3 passes over n)", scan_large_stage2,
     "reduce-then-scan: each output written once"},
    {"3", "single pass, chained prefixes", scan_large_stage3,
     "a single pass, each tile waiting for its neighbour's prefix"},
    {"4", "single pass, decoupled look-back", scan_large_stage4,
     "a single pass with decoupled look-back"},
    {NULL, NULL, NULL, NULL},
};
