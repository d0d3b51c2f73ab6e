/* compact: keep the values of in[0..n) that pass a test, in their input
 * order, in out[0..count), and write count. Ints are kept when even, floats
 * when above a threshold.
 *
 * Every kept value must learn where it goes: the number of kept values
 * before it. That number is a scan of the keep flags, so compaction is a
 * scan followed by a scatter; the stages differ in how much of the scan
 * they do, where, and whether they keep the order at all.
 *
 * Each stage adds one idea; the table at the end of this file names them
 * (make test prints it with each stage's results).
 *
 * Given, because earlier labs taught them: warp_scan_inclusive, warp_sum_all
 * and block_scan_exclusive (common/collectives.cuh), a library scan of
 * flags (exclusive_scan), the look-back of scan-large-arrays' stage 4
 * (look_back), here for counts, the 16-byte loads of reduce's stage 8
 * (load_quads), and a tile's worth of shared memory (staging).
 *
 * Test:  make test LAB=compact          (STAGE=3 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=compact N=2^28    (VARIANT=int-sparse, BLOCK= threads per block)
 */
#include <cub/cub.cuh>

#include "collectives.cuh"
#include "grid.cuh"
#include "compact.h"
#include "lookback.cuh"

/* STUDENT your own includes and helpers -------------------------------------
 * A header you need, or a helper more than one of your stages shares. The
 * grader keeps what is inside these regions (and whole functions you add
 * between two of the file's), nothing else.
 */
/* END STUDENT */

/* The test: ints are kept when even, floats when above the threshold. */
__device__ bool kept(int v, float threshold)
{
    (void)threshold;
    return v % 2 == 0;
}
__device__ bool kept(float v, float threshold) { return v > threshold; }

/* out[i] = in[0] + ... + in[i - 1] for n counts, by the library (the scan
 * labs showed how it is done). */
static void exclusive_scan(const unsigned *in, unsigned *out, size_t n)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, in, out, n));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(library_temp(bytes), bytes, in, out, n));
}

/* A stage for one value type; every stage starts from count = 0. */
typedef void (*typed_launch)(const struct args *a, int block);

static void launch(const struct args *a, int block, typed_launch on_ints, typed_launch on_floats)
{
    CUDA_CHECK(cudaMemsetAsync(a->count, 0, sizeof(unsigned)));
    if (a->n > 0)
        (a->type == I32 ? on_ints : on_floats)(a, block);
}

/* ---- stage 1 ------------------------------------------------------------ */

template <typename T>
__global__ void compact_stage1_flag_kernel(const T *__restrict__ in, unsigned *__restrict__ flags,
                                           size_t n, float threshold)
{
    /* STUDENT stage 1 -------------------------------------------------------
     * Goal: flags[i] = 1 when in[i] is kept (kept(in[i], threshold)), else 0,
     *       for the thread's global index i.
     * Keep: the last block has threads past n: they touch nothing.
     * Hint: a bool converts to 1 or 0.
     */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        flags[i] = kept(in[i], threshold);
    /* END STUDENT */
}

template <typename T>
__global__ void compact_stage1_scatter_kernel(const T *__restrict__ in,
                                              const unsigned *__restrict__ flags,
                                              const unsigned *__restrict__ positions,
                                              T *__restrict__ out, unsigned *count, size_t n)
{
    /* STUDENT stage 1 -------------------------------------------------------
     * Goal: a kept in[i] goes to out[positions[i]], where positions is the
     *       exclusive scan of flags: the number of kept values before i.
     *       The thread of the last value also writes *count.
     * Keep: only kept values are written; out past the count is not yours.
     * Hint: the count is the kept values before the last one, plus one if
     *       the last one is kept.
     */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (flags[i])
        out[positions[i]] = in[i];
    if (i == n - 1)
        *count = positions[i] + flags[i];
    /* END STUDENT */
}

/* Flag, scan the flags, scatter: three passes over n. */
template <typename T> static void stage1(const struct args *a, int block)
{
    unsigned grid = (unsigned)ceil_div(a->n, block);
    compact_stage1_flag_kernel<T><<<grid, block>>>((const T *)a->in, a->flags, a->n, a->threshold);
    exclusive_scan(a->flags, a->positions, a->n);
    compact_stage1_scatter_kernel<T><<<grid, block>>>((const T *)a->in, a->flags, a->positions,
                                                      (T *)a->out, a->count, a->n);
}

static void compact_stage1(const struct args *a, int block)
{
    launch(a, block, stage1<int>, stage1<float>);
}

/* ---- stage 2 ------------------------------------------------------------ */

/* The count reads a tile round by round (in round k, thread t has value
 * base + k * blockDim.x + t): a count needs no order, only coalesced loads. */

template <typename T>
__global__ void compact_stage2_count_kernel(const T *__restrict__ in,
                                            unsigned *__restrict__ tile_counts, size_t n,
                                            float threshold)
{
    /* STUDENT stage 2 -------------------------------------------------------
     * Goal: tile_counts[blockIdx.x] = how many values of this block's tile
     *       are kept. The tile starts at base = blockIdx.x * blockDim.x * ITEMS
     *       (as size_t); each thread counts its ITEMS values, one per round.
     * Keep: values past n are not kept. Every thread calls
     *       block_scan_exclusive (it holds barriers).
     * Hint: block_scan_exclusive(mine, &total) hands every thread the
     *       block's total.
     */
    size_t base = blockIdx.x * (size_t)blockDim.x * ITEMS;
    unsigned mine = 0;
    for (int k = 0; k < ITEMS; k++) {
        size_t i = base + (size_t)k * blockDim.x + threadIdx.x;
        mine += i < n && kept(in[i], threshold);
    }
    unsigned total;
    block_scan_exclusive(mine, &total);
    if (threadIdx.x == 0)
        tile_counts[blockIdx.x] = total;
    /* END STUDENT */
}

template <typename T>
__global__ void compact_stage2_scatter_kernel(const T *__restrict__ in, T *__restrict__ out,
                                              unsigned *count,
                                              const unsigned *__restrict__ tile_starts,
                                              size_t n, float threshold)
{
    /* STUDENT stage 2 -------------------------------------------------------
     * Goal: write the tile's kept values to out, in order, from
     *       tile_starts[blockIdx.x] (the scanned tile counts). Here warp w
     *       takes the tile's w-th chunk of 32 * ITEMS values, in rounds (in
     *       round k, lane L has chunk + 32 * k + L). Each round,
     *       warp_scan_inclusive of the keep flags ranks a kept value within
     *       the round; the rounds before moved the warp's count on. Then one
     *       block_scan_exclusive of the warps' counts says where each warp
     *       starts. The last block writes *count.
     * Keep: every lane runs every round's warp scan, and every thread the
     *       block scan, kept or not, past n or not.
     * Hint: give block_scan_exclusive the warp's count in lane 0 and 0 in
     *       the other lanes; lane 0's answer is then the warp's start.
     */
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    size_t chunk = (blockIdx.x * (size_t)blockDim.x + (size_t)warp * 32) * ITEMS;
    T x[ITEMS];
    unsigned rank[ITEMS], warp_kept = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        size_t i = chunk + 32 * k + lane;
        x[k] = i < n ? in[i] : T(0);
        unsigned keep = i < n && kept(x[k], threshold);
        unsigned inclusive = warp_scan_inclusive(keep);
        rank[k] = keep ? warp_kept + inclusive - 1 : ~0u;
        warp_kept += __shfl_sync(FULL_WARP, inclusive, 31);
    }
    unsigned total, start = block_scan_exclusive(lane == 0 ? warp_kept : 0u, &total);
    start = tile_starts[blockIdx.x] + __shfl_sync(FULL_WARP, start, 0);
#pragma unroll
    for (int k = 0; k < ITEMS; k++)
        if (rank[k] != ~0u)
            out[start + rank[k]] = x[k];
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0)
        *count = tile_starts[blockIdx.x] + total;
    /* END STUDENT */
}

/* Count each tile, scan the tile counts, scatter: the input is read twice,
 * the flags never leave the chip. */
template <typename T> static void stage2(const struct args *a, int block)
{
    unsigned threads = (unsigned)tile_threads(block);
    unsigned tiles = (unsigned)ceil_div(a->n, tile_size(block));
    compact_stage2_count_kernel<T><<<tiles, threads>>>((const T *)a->in, a->flags, a->n,
                                                       a->threshold);
    exclusive_scan(a->flags, a->positions, tiles);
    compact_stage2_scatter_kernel<T><<<tiles, threads>>>((const T *)a->in, (T *)a->out, a->count,
                                                         a->positions, a->n, a->threshold);
}

static void compact_stage2(const struct args *a, int block)
{
    launch(a, block, stage2<int>, stage2<float>);
}

/* ---- stage 3 ------------------------------------------------------------ */

/* Stages 3, 4a and 4b give each warp a chunk of 32 * ITEMS consecutive
 * values. Stages 3 and 4a read it in rounds of 32: in round k, lane L has
 * value chunk + 32 * k + L, so every round's loads are coalesced. (Stage 4b
 * reads four neighbours a lane, with load_quads.) */

template <typename T>
__global__ void compact_stage3_kernel(const T *__restrict__ in, T *__restrict__ out,
                                      unsigned *count, size_t n, float threshold)
{
    /* STUDENT stage 3 -------------------------------------------------------
     * Goal: each warp takes chunks of 32 * ITEMS values, grid-stride. For
     *       each round, mask = __ballot_sync(FULL_WARP, keep) says which
     *       lanes keep their value; a kept value's place in the warp's
     *       part is the kept lanes below it, {__popc(mask & ((1u << lane) - 1))|counted from mask (derive how)},
     *       plus the rounds before. Lane 0 reserves the chunk's room with one
     *       atomicAdd(count, kept in the chunk) and shares where it starts
     *       (__shfl_sync).
     * Keep: all 32 lanes run every round and every ballot and shuffle,
     *       past n or not (a value past n is not kept). The launcher set
     *       *count to 0. A chunk that keeps nothing reserves nothing: no
     *       atomicAdd of 0 (a sparse input then makes few atomics).
     * Hint: keep each round's value and mask in arrays of ITEMS: the
     *       values are written after the room is known.
     */
    unsigned lane = threadIdx.x % 32;
    size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
    size_t warps = (size_t)gridDim.x * blockDim.x / 32;
    for (size_t chunk = warp * 32 * ITEMS; chunk < n; chunk += warps * 32 * ITEMS) {
        T x[ITEMS];
        unsigned masks[ITEMS], chunk_kept = 0;
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            size_t i = chunk + 32 * k + lane;
            x[k] = i < n ? in[i] : T(0);
            masks[k] = __ballot_sync(FULL_WARP, i < n && kept(x[k], threshold));
            chunk_kept += __popc(masks[k]);
        }
        unsigned at = 0;
        if (lane == 0 && chunk_kept > 0)
            at = atomicAdd(count, chunk_kept);
        at = __shfl_sync(FULL_WARP, at, 0);
        unsigned below = (1u << lane) - 1;
#pragma unroll
        for (int k = 0; k < ITEMS; k++) {
            if (masks[k] >> lane & 1)
                out[at + __popc(masks[k] & below)] = x[k];
            at += __popc(masks[k]);
        }
    }
    /* END STUDENT */
}

/* A device-filling grid of whole warps. */
template <typename T> static void stage3(const struct args *a, int block)
{
    unsigned threads = (unsigned)tile_threads(block);
    unsigned grid = device_grid((const void *)compact_stage3_kernel<T>, threads,
                                ceil_div(a->n, ITEMS), 0);
    compact_stage3_kernel<T><<<grid, threads>>>((const T *)a->in, (T *)a->out, a->count, a->n,
                                                a->threshold);
}

static void compact_stage3(const struct args *a, int block)
{
    launch(a, block, stage3<int>, stage3<float>);
}

/* ---- stage 4a ----------------------------------------------------------- */

/* Called by the 32 lanes of a tile's warp 0 with the tile's total: publishes
 * it, adds up the totals of the tiles before this one, looking back 32
 * tiles at a time, and publishes the tile's inclusive prefix. Returns the
 * kept values before the tile, in every lane. status[1 + t] is tile t's word.
 *
 * It naps before its first look. A tile that looks at once mostly finds
 * the tiles before it still looking back themselves, so it walks back
 * window after window, and the loads of all the tiles waiting so compete
 * with the data for the memory system; after a nap about as long as a
 * write takes to reach L2, the prefixes are there. CUB's tuning for the
 * H100 naps 1150 ns first and 76 ns between looks; the instructors'
 * notebook (notebook/compact.md) shows what the nap is worth here. */
__device__ unsigned look_back(unsigned long long *status, unsigned tile, unsigned total)
{
    volatile unsigned long long *words = status + 1;
    unsigned lane = threadIdx.x % 32, before = 0;
    if (lane == 0)
        words[tile] = status_word(tile == 0 ? PREFIX : AGGREGATE, total);
    if (tile > 0)
        __nanosleep(1150);
    for (long long look = (long long)tile - 1; look >= 0; look -= 32) {
        long long j = look - lane;
        unsigned long long word = j >= 0 ? words[j] : status_word(PREFIX, 0);
        while (__any_sync(FULL_WARP, word >> 32 == NOT_READY)) {
            __nanosleep(76);
            word = j >= 0 ? words[j] : status_word(PREFIX, 0);
        }
        unsigned prefixes = __ballot_sync(FULL_WARP, word >> 32 == PREFIX);
        int nearest = prefixes ? __ffs(prefixes) - 1 : 31;
        before += warp_sum_all((int)lane <= nearest ? (unsigned)word : 0u);
        if (prefixes)
            break;
    }
    if (lane == 0 && tile > 0)
        words[tile] = status_word(PREFIX, before + total);
    return before;
}

template <typename T>
__global__ void compact_stage4a_kernel(const T *__restrict__ in, T *__restrict__ out,
                                       unsigned *count, size_t n, float threshold,
                                       unsigned long long *status, unsigned tiles)
{
    /* STUDENT stage 4a ------------------------------------------------------
     * Goal: one pass, in order. Thread 0 takes the block's tile number from
     *       atomicAdd(&status[0], 1ULL) and shares it. Warp w reads its chunk
     *       (tile * blockDim.x * ITEMS + w * 32 * ITEMS) in rounds of 32, as
     *       stage 3 does, ballots each round, and puts its kept count in
     *       shared memory. Then each warp scans the warps' counts
     *       (warp_scan_inclusive): where its values start in the tile, and
     *       the tile's total. Warp 0 gets the tile's start in out from
     *       look_back(status, tile, total) and shares it; the last tile
     *       writes *count. Each lane writes its kept values to out itself.
     * Keep: the tile number from the counter, not blockIdx.x (blocks need
     *       not start in order, and a tile must never wait for one that has
     *       not started). A value past n is not kept. All 32 lanes of warp 0
     *       call look_back. A barrier wherever a thread reads what another
     *       wrote to shared memory.
     * Hint: within its chunk, a warp ranks its values exactly as stage 3
     *       did; only where the chunk starts in out has changed.
     */
    __shared__ unsigned tile;
    __shared__ unsigned tile_start;
    __shared__ unsigned warp_counts[32];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    if (threadIdx.x == 0)
        tile = (unsigned)atomicAdd(&status[0], 1ULL);
    __syncthreads();
    size_t chunk = ((size_t)tile * blockDim.x + (size_t)warp * 32) * ITEMS;
    T x[ITEMS];
    unsigned masks[ITEMS], warp_kept = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        size_t i = chunk + 32 * k + lane;
        x[k] = i < n ? in[i] : T(0);
        masks[k] = __ballot_sync(FULL_WARP, i < n && kept(x[k], threshold));
        warp_kept += __popc(masks[k]);
    }
    if (lane == 0)
        warp_counts[warp] = warp_kept;
    __syncthreads();
    unsigned mine = lane < warps ? warp_counts[lane] : 0;
    unsigned inclusive = warp_scan_inclusive(mine);
    unsigned total = __shfl_sync(FULL_WARP, inclusive, 31);
    if (warp == 0) {
        unsigned start = look_back(status, tile, total);
        if (lane == 0) {
            tile_start = start;
            if (tile == tiles - 1)
                *count = start + total;
        }
    }
    __syncthreads();
    unsigned at = tile_start + __shfl_sync(FULL_WARP, inclusive - mine, warp);
    unsigned below = (1u << lane) - 1;
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
        if (masks[k] >> lane & 1)
            out[at + __popc(masks[k] & below)] = x[k];
        at += __popc(masks[k]);
    }
    /* END STUDENT */
}

/* status[0] counts the tiles handed out; the tiles' words start NOT_READY. */
static void reset_status(const struct args *a, unsigned tiles)
{
    CUDA_CHECK(cudaMemsetAsync(a->status, 0, (1 + (size_t)tiles) * sizeof *a->status));
}

template <typename T> static void stage4a(const struct args *a, int block)
{
    unsigned threads = (unsigned)tile_threads(block);
    unsigned tiles = (unsigned)ceil_div(a->n, tile_size(block));
    reset_status(a, tiles);
    compact_stage4a_kernel<T><<<tiles, threads>>>((const T *)a->in, (T *)a->out, a->count, a->n,
                                                  a->threshold, a->status, tiles);
}

static void compact_stage4a(const struct args *a, int block)
{
    launch(a, block, stage4a<int>, stage4a<float>);
}

/* ---- stage 4b ----------------------------------------------------------- */

/* A warp's chunk of 32 * ITEMS values from `chunk`, read 16 bytes a lane:
 * in round k (ITEMS / 4 rounds of 128 values), lane L gets the four values
 * chunk + 128 * k + 4 * L + 0..3, in x[4 * k + 0..3]. Values past n read
 * as 0. A quarter of the load instructions of stage 3 for the same bytes. */
template <typename T>
__device__ void load_quads(const T *__restrict__ in, size_t chunk, size_t n, T (&x)[ITEMS])
{
    unsigned lane = threadIdx.x % 32;
#pragma unroll
    for (int k = 0; k < ITEMS / 4; k++) {
        size_t i = chunk + 128 * k + 4 * lane;
        if (i + 4 <= n) {
            typename vec4<T>::type v = *reinterpret_cast<const typename vec4<T>::type *>(in + i);
            x[4 * k] = v.x, x[4 * k + 1] = v.y, x[4 * k + 2] = v.z, x[4 * k + 3] = v.w;
        } else {
            for (int j = 0; j < 4; j++)
                x[4 * k + j] = i + j < n ? in[i + j] : T(0);
        }
    }
}

/* Shared memory for a tile's kept values (the launcher sizes it). */
template <typename T> __device__ T *staging()
{
    extern __shared__ int4 staging_words[];
    return reinterpret_cast<T *>(staging_words);
}

template <typename T>
__global__ void compact_stage4b_kernel(const T *__restrict__ in, T *__restrict__ out,
                                       unsigned *count, size_t n, float threshold,
                                       unsigned long long *status, unsigned tiles)
{
    /* STUDENT stage 4b ------------------------------------------------------
     * Goal: stage 4a's pass, with two changes. Warp w loads its chunk with
     *       load_quads (16 bytes a lane: ITEMS / 4 rounds of 4 neighbours)
     *       and ballots each of the 4 values of each round. And no lane
     *       writes to out: each warp puts its kept values in staging<T>() at
     *       their places in the tile; the block then copies the tile's total
     *       values to out from the tile's start, consecutive threads,
     *       consecutive values.
     * Keep: all that stage 4a keeps. A value past n is not kept (load_quads
     *       reads it as 0, which is even).
     * Hint: value j of lane L in a round comes after the kept values of the
     *       lanes below L in all 4 ballots of the round, and after L's own
     *       kept values before j.
     */
    __shared__ unsigned tile;
    __shared__ unsigned tile_start;
    __shared__ unsigned warp_counts[32];
    T *staged = staging<T>();
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    if (threadIdx.x == 0)
        tile = (unsigned)atomicAdd(&status[0], 1ULL);
    __syncthreads();
    size_t chunk = ((size_t)tile * blockDim.x + (size_t)warp * 32) * ITEMS;
    T x[ITEMS];
    load_quads(in, chunk, n, x);
    unsigned masks[ITEMS], warp_kept = 0;
#pragma unroll
    for (int q = 0; q < ITEMS; q++) {
        size_t i = chunk + 128 * (q / 4) + 4 * lane + q % 4;
        masks[q] = __ballot_sync(FULL_WARP, i < n && kept(x[q], threshold));
        warp_kept += __popc(masks[q]);
    }
    if (lane == 0)
        warp_counts[warp] = warp_kept;
    __syncthreads();
    unsigned mine = lane < warps ? warp_counts[lane] : 0;
    unsigned inclusive = warp_scan_inclusive(mine);
    unsigned total = __shfl_sync(FULL_WARP, inclusive, 31);
    if (warp == 0) {
        unsigned start = look_back(status, tile, total);
        if (lane == 0) {
            tile_start = start;
            if (tile == tiles - 1)
                *count = start + total;
        }
    }
    unsigned at = __shfl_sync(FULL_WARP, inclusive - mine, warp), below = (1u << lane) - 1;
#pragma unroll
    for (int k = 0; k < ITEMS; k += 4) {
        unsigned place = at;
        for (int j = 0; j < 4; j++)
            place += __popc(masks[k + j] & below);
        for (int j = 0; j < 4; j++) {
            if (masks[k + j] >> lane & 1)
                staged[place++] = x[k + j];
            at += __popc(masks[k + j]);
        }
    }
    __syncthreads();
    for (unsigned i = threadIdx.x; i < total; i += blockDim.x)
        out[tile_start + i] = staged[i];
    /* END STUDENT */
}

/* Stage 4a's launch, with a tile's worth of shared memory for the staging. */
template <typename T> static void stage4b(const struct args *a, int block)
{
    unsigned threads = (unsigned)tile_threads(block);
    unsigned tiles = (unsigned)ceil_div(a->n, tile_size(block));
    size_t smem = tile_size(block) * sizeof(T);
    allow_smem(compact_stage4b_kernel<T>, smem);
    reset_status(a, tiles);
    compact_stage4b_kernel<T><<<tiles, threads, smem>>>((const T *)a->in, (T *)a->out, a->count,
                                                        a->n, a->threshold, a->status, tiles);
}

static void compact_stage4b(const struct args *a, int block)
{
    launch(a, block, stage4b<int>, stage4b<float>);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage compact_stages[] = {
    {"1", "flag, library scan, scatter (3 kernels)", compact_stage1, "flag, library scan, scatter"},
    {"2", "per tile: count, scan the counts, scatter", compact_stage2,
     "per tile: count, scan the counts, scatter"},
    {"3", "ballots, one atomic a chunk (unordered)", compact_stage3, "ballots, one atomic a chunk"},
    {"4a", "ordered single pass: ticket, look-back", compact_stage4a,
     "an ordered single pass: a ticket and look-back, values written from registers"},
    {"4b", "16-byte loads, staged writes", compact_stage4b, "16-byte loads and staged writes"},
    {NULL, NULL, NULL, NULL},
};
