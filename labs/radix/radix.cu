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
    /* TODO stage 1 ----------------------------------------------------------
     * Goal: flags[i] = 1 when bit `bit` of sortable(keys[i], type) is 0: the
     *       keys that go first in this pass.
     * Keep: the last block has threads past n: they touch nothing.
     * Hint: (x >> bit) & 1 is bit `bit` of x.
     */
}

__global__ void radix_stage1_split_kernel(struct pass s, const unsigned *__restrict__ flags,
                                          const unsigned *__restrict__ positions, size_t n)
{
    /* TODO stage 1 ----------------------------------------------------------
     * Goal: a stable split. positions is the exclusive scan of flags: a
     *       zero key (flags[i] == 1) goes to positions[i], the zeros before
     *       it. A one key goes after all the zeros, and after the ones
     *       before it: there are i - positions[i] of those. The key moves
     *       from s.keys_from[i] to s.keys_to[place], and so does its value
     *       when s.values_from is not NULL.
     * Keep: threads past n touch nothing.
     * Hint: all the zeros: positions[n - 1] + flags[n - 1].
     */
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
    /* TODO stage 2 ----------------------------------------------------------
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
}

__global__ void radix_stage2_scatter_kernel(struct pass s, const unsigned *__restrict__ starts,
                                            size_t n, int shift, enum elem type)
{
    /* TODO stage 2 ----------------------------------------------------------
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

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage radix_stages[] = {
    {"1", "a bit a pass: flag, library scan, split", radix_stage1},
    {"2", "4 bits a pass: tile counts, scan, scatter", radix_stage2},
    {NULL, NULL, NULL},
};
