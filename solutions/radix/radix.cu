/* radix: sort n 32-bit keys ascending and stably (equal keys keep their
 * input order); in the pairs variants each key's value moves with it.
 *
 * A least-significant-digit radix sort looks at the keys a digit at a time,
 * from the lowest digit up, and each pass is a stable split of the keys by
 * that digit. Stability is what makes the passes add up: after the pass on
 * digit d, keys are in order of their digits 0..d. Each stage adds one idea;
 * the table at the end of this file names them (make test prints it with
 * each stage's results).
 *
 * Given: sortable (the key's bits in an order unsigned comparison follows),
 * a library scan of counts (exclusive_scan), and the passes' buffers
 * (pass_buffers).
 *
 * Test:  make test LAB=radix          (STAGE=1 for one stage, SEED= to repeat a run)
 * Time:  make run LAB=radix N=2^28    (VARIANT=f32-pairs, BLOCK= threads per block)
 */
#include <cub/cub.cuh>

#include "collectives.cuh"
#include "radix.h"

/* A key's 32 bits, changed so that comparing them as unsigned numbers
 * orders the keys as numbers of their type. Ints: the sign bit flipped, so
 * negatives come first. Floats: a negative one has every bit flipped (the
 * larger its magnitude, the smaller the number), a positive one only its
 * sign bit. -0.0 is first made +0.0: the two are equal numbers, so a stable
 * sort keeps them in input order (as CUB does). */
__device__ unsigned sortable(unsigned bits, enum elem type)
{
    if (type == I32)
        return bits ^ 0x80000000u;
    if (type == F32) {
        if (bits == 0x80000000u)
            bits = 0;
        return bits ^ (bits >> 31 ? 0xffffffffu : 0x80000000u);
    }
    return bits;
}

/* out[i] = in[0] + ... + in[i - 1] for n counts, by the library (the scan
 * labs showed how it is done). */
static void exclusive_scan(const unsigned *in, unsigned *out, size_t n)
{
    size_t bytes = 0;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, in, out, n));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(library_temp(bytes), bytes, in, out, n));
}

/* Where pass p of `passes` reads and writes: pass 0 reads the input, each
 * later pass what the one before wrote, and the last writes the output; the
 * passes in between take turns with the scratch copy. Values are NULL when
 * the keys travel alone. */
struct pass {
    const unsigned *keys_from, *values_from;
    unsigned *keys_to, *values_to;
};

static struct pass pass_buffers(const struct args *a, int p, int passes)
{
    bool to_out = (passes - 1 - p) % 2 == 0;
    struct pass s;
    s.keys_to = to_out ? a->keys_out : a->keys_tmp;
    s.values_to = to_out ? a->values_out : a->values_tmp;
    s.keys_from = p == 0 ? a->keys_in : to_out ? a->keys_tmp : a->keys_out;
    s.values_from = p == 0 ? a->values_in : to_out ? a->values_tmp : a->values_out;
    return s;
}

/* ---- stage 1 ------------------------------------------------------------ */

__global__ void radix_stage1_flag_kernel(const unsigned *__restrict__ keys,
                                         unsigned *__restrict__ flags, size_t n, int bit,
                                         enum elem type)
{
    /* STUDENT stage 1 -------------------------------------------------------
     * Goal: flags[i] = 1 when bit `bit` of sortable(keys[i], type) is 0: the
     *       keys that go first in this pass.
     * Keep: the last block has threads past n: they touch nothing.
     * Hint: (x >> bit) & 1 is bit `bit` of x.
     */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        flags[i] = (sortable(keys[i], type) >> bit & 1) == 0;
    /* END STUDENT */
}

__global__ void radix_stage1_split_kernel(struct pass s, const unsigned *__restrict__ flags,
                                          const unsigned *__restrict__ positions, size_t n)
{
    /* STUDENT stage 1 -------------------------------------------------------
     * Goal: a stable split. positions is the exclusive scan of flags: a
     *       zero key (flags[i] == 1) goes to positions[i], the zeros before
     *       it. A one key goes after all the zeros, and after the ones
     *       before it: there are i - positions[i] of those. The key moves
     *       from s.keys_from[i] to s.keys_to[place], and so does its value
     *       when s.values_from is not NULL.
     * Keep: threads past n touch nothing.
     * Hint: all the zeros: positions[n - 1] + flags[n - 1].
     */
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned zeros = positions[n - 1] + flags[n - 1];
    size_t place = flags[i] ? positions[i] : zeros + i - positions[i];
    s.keys_to[place] = s.keys_from[i];
    if (s.values_from)
        s.values_to[place] = s.values_from[i];
    /* END STUDENT */
}

/* 32 passes, a bit each: flag the zeros, scan the flags, split. */
static void radix_stage1(const struct args *a, int block)
{
    if (a->n == 0)
        return;
    unsigned grid = (unsigned)ceil_div(a->n, block);
    for (int bit = 0; bit < 32; bit++) {
        struct pass s = pass_buffers(a, bit, 32);
        radix_stage1_flag_kernel<<<grid, block>>>(s.keys_from, a->flags, a->n, bit, a->type);
        exclusive_scan(a->flags, a->positions, a->n);
        radix_stage1_split_kernel<<<grid, block>>>(s, a->flags, a->positions, a->n);
    }
}

/* ---- stage 2 ------------------------------------------------------------ */

/* Stage 2 sorts on 4-bit digits: 8 passes, each reading a tile's keys in
 * rounds (in round k, thread t has key base + k * blockDim.x + t). */
enum { DIGITS2 = 16 };

__device__ unsigned digit_of(unsigned key, enum elem type, int shift, unsigned digits)
{
    return sortable(key, type) >> shift & (digits - 1);
}

__global__ void radix_stage2_count_kernel(const unsigned *__restrict__ keys,
                                          unsigned *__restrict__ counts, size_t n, int shift,
                                          enum elem type)
{
    /* STUDENT stage 2 -------------------------------------------------------
     * Goal: counts[d * gridDim.x + blockIdx.x] = how many keys of this
     *       block's tile have digit d (digit_of(key, type, shift, DIGITS2)),
     *       for the 16 digits: the table digit-major, so that its scan puts
     *       every tile's 0s before any tile's 1s. The tile starts at
     *       blockIdx.x * blockDim.x * ITEMS; a thread counts ITEMS keys, one
     *       a round.
     * Keep: keys past n are not counted. Clear the shared counts before
     *       anyone adds to them, and let everyone finish before they are
     *       written out.
     * Hint: atomicAdd on a __shared__ unsigned[16].
     */
    __shared__ unsigned tile_counts[DIGITS2];
    size_t base = blockIdx.x * (size_t)blockDim.x * ITEMS;
    if (threadIdx.x < DIGITS2)
        tile_counts[threadIdx.x] = 0;
    __syncthreads();
    for (int k = 0; k < ITEMS; k++) {
        size_t i = base + (size_t)k * blockDim.x + threadIdx.x;
        if (i < n)
            atomicAdd(&tile_counts[digit_of(keys[i], type, shift, DIGITS2)], 1u);
    }
    __syncthreads();
    if (threadIdx.x < DIGITS2)
        counts[threadIdx.x * gridDim.x + blockIdx.x] = tile_counts[threadIdx.x];
    /* END STUDENT */
}

__global__ void radix_stage2_scatter_kernel(struct pass s, const unsigned *__restrict__ starts,
                                            size_t n, int shift, enum elem type)
{
    /* STUDENT stage 2 -------------------------------------------------------
     * Goal: move the tile's keys (and values) to their places, stably. A key
     *       with digit d goes to starts[d * gridDim.x + blockIdx.x] (the
     *       scanned table), plus the tile's keys of digit d before it. Round
     *       by round: __match_any_sync(FULL_WARP, d) names the lanes of the
     *       warp with the same digit, and those below you are your rank in
     *       the warp; the lowest of them puts their count in
     *       warp_counts[warp][d]. Then 16 threads, one a digit, turn their
     *       column into each warp's start (the digit's keys of earlier
     *       rounds and earlier warps) and move the digit's running count on.
     * Keep: lanes past n take part in __match_any_sync with a digit no key
     *       has (DIGITS2) and move nothing. A barrier wherever a thread reads
     *       what another wrote to shared memory, and before warp_counts is
     *       cleared for the next round.
     * Hint: __shared__ unsigned warp_counts[32][DIGITS2], and a running
     *       count a digit. The lowest lane of a group is the one with no
     *       peers below it: (peers & lanes_below) == 0.
     */
    __shared__ unsigned warp_counts[32][DIGITS2];
    __shared__ unsigned seen[DIGITS2]; /* the digit's keys in the rounds before */
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    unsigned below = (1u << lane) - 1;
    size_t base = blockIdx.x * (size_t)blockDim.x * ITEMS;
    if (threadIdx.x < DIGITS2)
        seen[threadIdx.x] = 0;
    for (int k = 0; k < ITEMS; k++) {
        for (unsigned j = threadIdx.x; j < warps * DIGITS2; j += blockDim.x)
            warp_counts[j / DIGITS2][j % DIGITS2] = 0;
        __syncthreads();
        size_t i = base + (size_t)k * blockDim.x + threadIdx.x;
        unsigned key = i < n ? s.keys_from[i] : 0;
        unsigned d = i < n ? digit_of(key, type, shift, DIGITS2) : (unsigned)DIGITS2;
        unsigned peers = __match_any_sync(FULL_WARP, d);
        if (d < DIGITS2 && (peers & below) == 0)
            warp_counts[warp][d] = __popc(peers);
        __syncthreads();
        if (threadIdx.x < DIGITS2) {
            unsigned sum = seen[threadIdx.x];
            for (unsigned w = 0; w < warps; w++) {
                unsigned c = warp_counts[w][threadIdx.x];
                warp_counts[w][threadIdx.x] = sum;
                sum += c;
            }
            seen[threadIdx.x] = sum;
        }
        __syncthreads();
        if (d < DIGITS2) {
            size_t place = starts[d * gridDim.x + blockIdx.x] + warp_counts[warp][d] +
                           __popc(peers & below);
            s.keys_to[place] = key;
            if (s.values_from)
                s.values_to[place] = s.values_from[i];
        }
        __syncthreads();
    }
    /* END STUDENT */
}

/* 8 passes of 4 bits: count each tile's digits, scan the table, scatter. */
static void radix_stage2(const struct args *a, int block)
{
    if (a->n == 0)
        return;
    unsigned threads = (unsigned)tile_threads(block);
    unsigned tiles = (unsigned)ceil_div(a->n, (size_t)threads * ITEMS);
    for (int pass = 0; pass < 8; pass++) {
        struct pass s = pass_buffers(a, pass, 8);
        radix_stage2_count_kernel<<<tiles, threads>>>(s.keys_from, a->flags, a->n, 4 * pass,
                                                      a->type);
        exclusive_scan(a->flags, a->positions, (size_t)DIGITS2 * tiles);
        radix_stage2_scatter_kernel<<<tiles, threads>>>(s, a->positions, a->n, 4 * pass, a->type);
    }
}


/* ---- stage 3 ------------------------------------------------------------ */

enum { DIGITS3 = 256, DIGIT_BITS3 = 8 };

template <int IT> __device__ size_t warp_chunk(void)
{
    return (blockIdx.x * (size_t)blockDim.x + threadIdx.x / 32 * 32) * IT;
}

template <int IT, bool REGS>
__device__ void count_chunk(const unsigned *__restrict__ keys, unsigned key[IT], unsigned dig[IT],
                            unsigned *row, size_t n, int shift, enum elem type)
{
    unsigned lane = threadIdx.x % 32;
    size_t chunk = warp_chunk<IT>();
    for (unsigned d = lane; d < DIGITS3; d += 32)
        row[d] = 0;
#pragma unroll
    for (int k = 0; k < IT; k++) {
        size_t i = chunk + 32 * k + lane;
        key[k] = i < n ? keys[i] : 0;
    }
    __syncwarp();
#pragma unroll
    for (int k = 0; k < IT; k++) {
        unsigned d = digit_of(key[k], type, shift, DIGITS3);
        if (REGS)
            dig[k] = d;
        if (chunk + 32 * k + lane < n)
            atomicAdd(&row[d], 1u);
    }
}

template <int IT>
__global__ void radix_stage3_count_kernel(const unsigned *__restrict__ keys,
                                          unsigned *__restrict__ counts, size_t n, int shift,
                                          enum elem type)
{
    extern __shared__ unsigned warp_rows[];
    unsigned warps = blockDim.x / 32, key[IT];
    count_chunk<IT, false>(keys, key, key, warp_rows + threadIdx.x / 32 * DIGITS3, n, shift, type);
    __syncthreads();
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x) {
        unsigned sum = 0;
        for (unsigned w = 0; w < warps; w++)
            sum += warp_rows[w * DIGITS3 + d];
        counts[d * gridDim.x + blockIdx.x] = sum;
    }
}

__device__ unsigned same_digit_lanes(unsigned digit, unsigned lanes)
{
#pragma unroll
    for (int b = 0; b < DIGIT_BITS3; b++) {
        unsigned ones = __ballot_sync(FULL_WARP, digit >> b & 1);
        lanes &= digit >> b & 1 ? ones : ~ones;
    }
    return lanes;
}

template <int IT, bool REGS>
__global__ void radix_stage3_scatter_kernel(struct pass s, const unsigned *__restrict__ starts,
                                            size_t n, int shift, enum elem type)
{
    extern __shared__ unsigned tile_memory[];
    unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
    unsigned tile = blockDim.x * IT;
    unsigned *warp_rows = tile_memory;
    unsigned *to_out = warp_rows + warps * DIGITS3;
    unsigned *sorted = to_out + DIGITS3;
    unsigned *row = warp_rows + warp * DIGITS3;
    size_t base = blockIdx.x * (size_t)tile, chunk = warp_chunk<IT>();
    unsigned count = (unsigned)min((size_t)tile, n - base);
    unsigned key[IT], dig[REGS ? IT : 1];
    count_chunk<IT, REGS>(s.keys_from, key, REGS ? dig : key, row, n, shift, type);
    __syncthreads();
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x) {
        unsigned sum = 0;
        for (unsigned w = 0; w < warps; w++) {
            unsigned c = warp_rows[w * DIGITS3 + d];
            warp_rows[w * DIGITS3 + d] = sum;
            sum += c;
        }
        to_out[d] = sum;
    }
    __syncthreads();
    if (warp == 0) {
        enum { PER_LANE = DIGITS3 / 32 };
        unsigned total[PER_LANE], sum = 0;
#pragma unroll
        for (int j = 0; j < PER_LANE; j++)
            sum += total[j] = to_out[lane * PER_LANE + j];
        unsigned start = warp_scan_inclusive(sum) - sum;
#pragma unroll
        for (int j = 0; j < PER_LANE; j++) {
            to_out[lane * PER_LANE + j] = start;
            start += total[j];
        }
    }
    __syncthreads();
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x) {
        unsigned start = to_out[d];
        for (unsigned w = 0; w < warps; w++)
            warp_rows[w * DIGITS3 + d] += start;
        to_out[d] = starts[d * gridDim.x + blockIdx.x] - start;
    }
    __syncthreads();
    unsigned below = (1u << lane) - 1;
#pragma unroll
    for (int k = 0; k < IT; k++) {
        size_t i = chunk + 32 * k + lane;
        unsigned d = REGS ? dig[REGS ? k : 0] : digit_of(key[k], type, shift, DIGITS3);
        unsigned peers = same_digit_lanes(d, __ballot_sync(FULL_WARP, i < n));
        unsigned leader = __ffs(peers) - 1, first = 0;
        if (lane == leader)
            first = atomicAdd(&row[d], __popc(peers));
        unsigned place = __shfl_sync(FULL_WARP, first, leader % 32) + __popc(peers & below);
        if (i < n) {
            sorted[place] = key[k];
            if (s.values_from)
                sorted[tile + place] = s.values_from[i];
        }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < IT; k++) {
        unsigned j = k * blockDim.x + threadIdx.x;
        if (j < count) {
            unsigned key = sorted[j];
            unsigned out = to_out[digit_of(key, type, shift, DIGITS3)] + j;
            s.keys_to[out] = key;
            if (s.values_from)
                s.values_to[out] = sorted[tile + j];
        }
    }
}

template <int IT, bool REGS> static void radix_stage3_with(const struct args *a, int block)
{
    if (a->n == 0)
        return;
    unsigned threads = (unsigned)tile_threads(block), warps = threads / 32;
    unsigned tiles = (unsigned)ceil_div(a->n, (size_t)threads * IT);
    size_t count_smem = warps * DIGITS3 * sizeof(unsigned);
    size_t scatter_smem =
        ((warps + 1) * DIGITS3 + (a->pairs ? 2 : 1) * threads * IT) * sizeof(unsigned);
    allow_smem(radix_stage3_count_kernel<IT>, count_smem);
    allow_smem(radix_stage3_scatter_kernel<IT, REGS>, scatter_smem);
    for (int pass = 0; pass < 4; pass++) {
        struct pass s = pass_buffers(a, pass, 4);
        radix_stage3_count_kernel<IT><<<tiles, threads, count_smem>>>(s.keys_from, a->flags, a->n,
                                                                      8 * pass, a->type);
        exclusive_scan(a->flags, a->positions, (size_t)DIGITS3 * tiles);
        radix_stage3_scatter_kernel<IT, REGS>
            <<<tiles, threads, scatter_smem>>>(s, a->positions, a->n, 8 * pass, a->type);
    }
}
static void radix_stage3(const struct args *a, int block) { radix_stage3_with<16, false>(a, block); }
static void radix_stage3c(const struct args *a, int block) { radix_stage3_with<16, true>(a, block); }
static void radix_stage3d(const struct args *a, int block) { radix_stage3_with<24, false>(a, block); }
static void radix_stage3e(const struct args *a, int block) { radix_stage3_with<20, false>(a, block); }
static void radix_stage3f(const struct args *a, int block) { radix_stage3_with<12, false>(a, block); }

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage radix_stages[] = {
    {"1", "a bit a pass: flag, library scan, split", radix_stage1},
    {"2", "4 bits a pass: tile counts, scan, scatter", radix_stage2},
    {"3", "8 bits a pass: local sort, ballot ranks", radix_stage3},
    {"3c", "trial: digits kept in registers", radix_stage3c},
    {"3d", "trial: 24 keys a thread", radix_stage3d},
    {"3e", "trial: 20 keys a thread", radix_stage3e},
    {"3f", "trial: 12 keys a thread", radix_stage3f},
    {NULL, NULL, NULL},
};
