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
#include "lookback.cuh"
#include "radix.h"

/* STUDENT your own includes and helpers -------------------------------------
 * A header you need, or a helper more than one of your stages shares. The
 * grader keeps what is inside these regions (and whole functions you add
 * between two of the file's), nothing else.
 */
/* END STUDENT */

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

/* The bits of the type's largest key (its sortable form is all ones): stages
 * 3a to 5 fill a tile's places past n with it, so that they sort last. */
__host__ __device__ unsigned largest_key(enum elem type)
{
    return type == U32 ? 0xffffffffu : 0x7fffffffu;
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

__host__ __device__ struct pass pass_buffers(const struct args *a, int p, int passes)
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


/* ---- stage 3a ----------------------------------------------------------- */

/* Stages 3a and 3b sort on 8-bit digits: 4 passes. Each warp has its own
 * chunk of the tile, 32 * ITEMS3 keys, read in rounds: in round k, lane l
 * holds key chunk + 32 * k + l, so the warps' chunks in order, and the
 * rounds in order inside each, are the input order. */
enum { DIGITS3 = 256, DIGIT_BITS3 = 8 };

/* The first key of this warp's chunk, in tile number `tile`. */
__device__ size_t warp_chunk(size_t tile)
{
    return (tile * blockDim.x + threadIdx.x / 32 * 32) * ITEMS3;
}

/* How many of the chunk's 32 * ITEMS3 places hold keys: those below n. */
__device__ unsigned chunk_keys(size_t chunk, size_t n)
{
    return chunk < n ? (unsigned)min(n - chunk, (size_t)32 * ITEMS3) : 0;
}

/* (No __restrict__ on keys: stage 5 reads what the same kernel wrote.) */
__device__ void count_warp_digits(const unsigned *keys, unsigned (&key)[ITEMS3], unsigned *row,
                                  size_t chunk, size_t n, int shift, enum elem type)
{
    /* STUDENT stage 3a ------------------------------------------------------
     * Goal: read this warp's chunk (from key `chunk`) into key[] (round k in
     *       key[k]) and count its keys of each digit (digit_of(key, type,
     *       shift, DIGITS3)) into row[0..255], the warp's own row of
     *       counters.
     * Keep: a place past n reads largest_key(type) and is counted like a
     *       key: its digit is 255 in every pass, and as the last in input
     *       order it ranks after every key of the tile. So counting and
     *       ranking never ask "is this key below n?"; only writing does.
     *       The lanes clear the row first, and no lane counts before every
     *       lane has cleared (__syncwarp).
     * Hint: issue all ITEMS3 loads before the first atomicAdd, so that
     *       they are in flight together. Only the 32 lanes of one warp ever
     *       share a counter, so they seldom wait for each other.
     */
    unsigned lane = threadIdx.x % 32;
    unsigned here = chunk_keys(chunk, n);
    for (unsigned d = lane; d < DIGITS3; d += 32)
        row[d] = 0;
#pragma unroll
    for (int k = 0; k < ITEMS3; k++)
        key[k] = 32 * k + lane < here ? keys[chunk + 32 * k + lane] : largest_key(type);
    __syncwarp();
#pragma unroll
    for (int k = 0; k < ITEMS3; k++)
        atomicAdd(&row[digit_of(key[k], type, shift, DIGITS3)], 1u);
    /* END STUDENT */
}

__global__ void __launch_bounds__(MAX_THREADS3)
    radix_stage3a_count_kernel(const unsigned *__restrict__ keys, unsigned *__restrict__ counts,
                               size_t n, int shift, enum elem type)
{
    /* STUDENT stage 3a ------------------------------------------------------
     * Goal: as stage 2's count, for 256 digits: counts[d * gridDim.x +
     *       blockIdx.x] = the tile's keys of digit d.
     * Keep: each warp counts its chunk (warp_chunk(blockIdx.x)) into its
     *       own row of warp_rows (count_warp_digits); the rows are summed
     *       once all are done. The last tile's padding (its places past n)
     *       is counted as digit 255: the table's last entry, which no other
     *       entry's scan adds in, so it may stay.
     * Hint: warp_rows holds blockDim.x / 32 rows of DIGITS3 counters.
     */
    extern __shared__ unsigned warp_rows[];
    unsigned warps = blockDim.x / 32, key[ITEMS3];
    count_warp_digits(keys, key, warp_rows + threadIdx.x / 32 * DIGITS3, warp_chunk(blockIdx.x),
                      n, shift, type);
    __syncthreads();
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x) {
        unsigned sum = 0;
        for (unsigned w = 0; w < warps; w++)
            sum += warp_rows[w * DIGITS3 + d];
        counts[d * gridDim.x + blockIdx.x] = sum;
    }
    /* END STUDENT */
}

/* Called by every thread of the block once warp_rows holds each warp's
 * counts. */
__device__ void tile_places(unsigned *warp_rows, unsigned *first)
{
    /* STUDENT stage 3a ------------------------------------------------------
     * Goal: in the tile sorted by digit (digit 0's keys, then digit 1's,
     *       ..., each digit's keys in input order), warp w's first key of
     *       digit d sits at P(w, d) = the tile's keys of all digits below d,
     *       plus the keys of digit d in warps 0..w-1. Turn each count
     *       warp_rows[w * DIGITS3 + d] into that place P(w, d), and set
     *       first[d] = P(0, d), where the digit's keys start in the tile.
     * Keep: the table is digit-major again, as in stage 2, only now inside
     *       a tile{: one exclusive scan in the order (digit, warp)|: derive the steps that turn counts into places}. A barrier
     *       between steps that read what other threads wrote.
     * Hint: a thread per digit walks its column of warps (the digit's
     *       total, and each warp's start within the digit); warp 0 scans
     *       the 256 totals, 8 a lane (warp_scan_inclusive); a thread per
     *       digit adds the digit's start to its column. first can hold the
     *       totals, then the starts, on the way.
     */
    unsigned lane = threadIdx.x % 32, warps = blockDim.x / 32;
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x) {
        unsigned sum = 0;
        for (unsigned w = 0; w < warps; w++) {
            unsigned c = warp_rows[w * DIGITS3 + d];
            warp_rows[w * DIGITS3 + d] = sum;
            sum += c;
        }
        first[d] = sum;
    }
    __syncthreads();
    if (threadIdx.x < 32) {
        enum { PER_LANE = DIGITS3 / 32 };
        unsigned total[PER_LANE], sum = 0;
#pragma unroll
        for (int j = 0; j < PER_LANE; j++)
            sum += total[j] = first[lane * PER_LANE + j];
        unsigned start = warp_scan_inclusive(sum) - sum;
#pragma unroll
        for (int j = 0; j < PER_LANE; j++) {
            first[lane * PER_LANE + j] = start;
            start += total[j];
        }
    }
    __syncthreads();
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x)
        for (unsigned w = 0; w < warps; w++)
            warp_rows[w * DIGITS3 + d] += first[d];
    /* END STUDENT */
}

/* Given: the lanes of the warp whose digit is d too (d's peers), by eight
 * ballots, one a bit of the digit: a lane keeps the lanes whose bit agrees
 * with its own, the ballot or its complement. The #else is that in C, and
 * what the emulator runs. On the GPU it is written in PTX: from the C,
 * nvcc makes about seven instructions a bit; from the PTX, three (one
 * instruction turns all the digit's bits into predicates first). That cut
 * stage 4's instructions by a fifth (handouts/08-radix.md). */
__device__ __forceinline__ unsigned digit_peers(unsigned d)
{
    unsigned peers = FULL_WARP;
#pragma unroll
    for (int b = 0; b < DIGIT_BITS3; b++) {
        unsigned agree;
#ifdef __CUDA_ARCH__
        asm("{\n .reg .pred one;\n and.b32 %0, %1, %2;\n setp.ne.u32 one, %0, 0;\n"
            " vote.sync.ballot.b32 %0, one, 0xffffffff;\n @!one not.b32 %0, %0;\n}"
            : "=r"(agree)
            : "r"(d), "r"(1u << b));
#else
        agree = __ballot_sync(FULL_WARP, d >> b & 1);
        agree = d >> b & 1 ? agree : ~agree;
#endif
        peers &= agree;
    }
    return peers;
}

/* Called by every lane of the warp, for one round's key, once tile_places
 * has turned the warps' rows into places (row is this warp's). Returns the
 * key's place in the tile sorted by digit; the next call's keys come after
 * this call's. */
__device__ unsigned rank_key(unsigned d, unsigned *row)
{
    unsigned place = 0; /* among the tile's keys sorted by digit */
    /* STUDENT stage 3a ------------------------------------------------------
     * Goal: find the lanes of the warp with the same digit d (its peers:
     *       digit_peers(d)); one of them, the leader, takes the group's
     *       places: first = atomicAdd(&row[d], number of peers). The key's
     *       place is first plus its peers in lower lanes.
     * Keep: the next round's leader may add to the same counter, and must
     *       add after this one: a __syncwarp() after the add orders the two
     *       (a shuffle orders no memory, though the hardware happens to run
     *       it so: the handout says why). The leader's first reaches its
     *       peers by __shfl_sync. Every lane of the warp calls, padding too:
     *       the ballots ask all 32.
     * Hint: the leader: the highest peer, 31 - __clz(peers). The lanes
     *       below yours are (1u << lane) - 1.
     */
    unsigned lane = threadIdx.x % 32, below = (1u << lane) - 1;
    unsigned peers = digit_peers(d);
    unsigned leader = 31 - __clz(peers), first = 0;
    if (lane == leader)
        first = atomicAdd(&row[d], __popc(peers));
    __syncwarp();
    place = __shfl_sync(FULL_WARP, first, leader) + __popc(peers & below);
    /* END STUDENT */
    return place;
}

/* Stages 3a to 5 keep in shared memory each warp's row of counters, the
 * digits' first places and where they go, and (not 3a) the sorted tile
 * (keys, then values). */
struct tile_memory {
    unsigned *warp_rows, *first, *to_out, *sorted;
};

__device__ struct tile_memory carve_tile_memory(unsigned *memory)
{
    struct tile_memory m;
    m.warp_rows = memory;
    m.first = m.warp_rows + blockDim.x / 32 * DIGITS3;
    m.to_out = m.first + DIGITS3;
    m.sorted = m.to_out + DIGITS3;
    return m;
}

static size_t tile_memory_bytes(const struct args *a, unsigned threads)
{
    return ((threads / 32 + 2) * DIGITS3 + (a->pairs ? 2 : 1) * threads * ITEMS3) *
           sizeof(unsigned);
}

__global__ void __launch_bounds__(MAX_THREADS3)
    radix_stage3a_scatter_kernel(struct pass s, const unsigned *__restrict__ starts, size_t n,
                                 int shift, enum elem type)
{
    /* STUDENT stage 3a ------------------------------------------------------
     * Goal: move each key (and value) of the tile to its place in keys_to:
     *       the digit's start for this tile (starts[d * gridDim.x +
     *       blockIdx.x]), plus the key's rank among the tile's keys of
     *       digit d. count_warp_digits and tile_places turn the warps'
     *       counts into places in the tile as if it were sorted; so set
     *       to_out[d] = the digit's start less first[d], and then, round
     *       by round, a key goes to to_out[d] + rank_key(d, its row),
     *       straight from its register.
     * Keep: a barrier between steps where a thread reads what another
     *       wrote. Every lane ranks its key, padding too; only the keys
     *       below n are written.
     * Hint: carve_tile_memory(memory) names the parts of shared memory
     *       (this stage has no sorted tile). Key k of lane l is key chunk +
     *       32 * k + l; chunk_keys tells how many of the chunk are keys.
     */
    extern __shared__ unsigned memory[];
    struct tile_memory m = carve_tile_memory(memory);
    unsigned *row = m.warp_rows + threadIdx.x / 32 * DIGITS3, key[ITEMS3];
    size_t chunk = warp_chunk(blockIdx.x);
    unsigned lane = threadIdx.x % 32, here = chunk_keys(chunk, n);
    count_warp_digits(s.keys_from, key, row, chunk, n, shift, type);
    __syncthreads();
    tile_places(m.warp_rows, m.first);
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x)
        m.to_out[d] = starts[d * gridDim.x + blockIdx.x] - m.first[d];
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS3; k++) {
        unsigned d = digit_of(key[k], type, shift, DIGITS3);
        unsigned to = m.to_out[d] + rank_key(d, row);
        if (32 * k + lane < here) {
            s.keys_to[to] = key[k];
            if (s.values_from)
                s.values_to[to] = s.values_from[chunk + 32 * k + lane];
        }
    }
    /* END STUDENT */
}

/* 4 passes of 8 bits: count each tile's digits, scan the table, then place
 * each tile's keys with `scatter`, given `smem` bytes of shared memory. */
static void radix_8_bit_passes(const struct args *a, int block,
                               void (*scatter)(struct pass, const unsigned *, size_t, int,
                                               enum elem),
                               size_t smem)
{
    if (a->n == 0)
        return;
    unsigned threads = (unsigned)stage3_threads(block), warps = threads / 32;
    unsigned tiles = (unsigned)ceil_div(a->n, (size_t)threads * ITEMS3);
    size_t count_smem = warps * DIGITS3 * sizeof(unsigned);
    allow_smem(radix_stage3a_count_kernel, count_smem);
    allow_smem(scatter, smem);
    for (int pass = 0; pass < 4; pass++) {
        struct pass s = pass_buffers(a, pass, 4);
        radix_stage3a_count_kernel<<<tiles, threads, count_smem>>>(s.keys_from, a->flags, a->n,
                                                                   8 * pass, a->type);
        exclusive_scan(a->flags, a->positions, (size_t)DIGITS3 * tiles);
        scatter<<<tiles, threads, smem>>>(s, a->positions, a->n, 8 * pass, a->type);
    }
}

/* Each key written from its register to its place: no tile in shared
 * memory, only the counters. */
static void radix_stage3a(const struct args *a, int block)
{
    unsigned warps = (unsigned)stage3_threads(block) / 32;
    radix_8_bit_passes(a, block, radix_stage3a_scatter_kernel,
                       (warps + 2) * DIGITS3 * sizeof(unsigned));
}

/* ---- stage 3b ----------------------------------------------------------- */

/* Stage 3b counts as 3a does, then sorts each tile by the digit in shared
 * memory and writes it out in runs, a digit's keys side by side. */

/* Called by every thread once tile_places has turned the warps' rows into
 * places; key[] and chunk are count_warp_digits'. */
__device__ void sort_tile(const unsigned (&key)[ITEMS3], unsigned *row, unsigned *sorted,
                          const unsigned *values_from, size_t chunk, size_t n, int shift,
                          enum elem type)
{
    /* STUDENT stage 3b ------------------------------------------------------
     * Goal: put every key of the warp's chunk at its place in the tile
     *       sorted by digit: round by round, rank_key gives the place, and
     *       the key goes to sorted[place]. Then, when values_from is not
     *       NULL, each key's value (values_from[i], i its index) goes to
     *       sorted[tile + its place], tile being blockDim.x * ITEMS3.
     * Keep: remember each key's place (place[k]), and load the values after
     *       the rounds, all ITEMS3 before the first is stored, so that they
     *       are in flight together; places past n take any value.
     * Hint: load the values as count_warp_digits loads the keys: value k
     *       of lane l is chunk + 32 * k + l, if below chunk_keys(chunk, n).
     */
    unsigned lane = threadIdx.x % 32, tile = blockDim.x * ITEMS3, place[ITEMS3];
#pragma unroll
    for (int k = 0; k < ITEMS3; k++) {
        place[k] = rank_key(digit_of(key[k], type, shift, DIGITS3), row);
        sorted[place[k]] = key[k];
    }
    if (values_from) {
        unsigned here = chunk_keys(chunk, n), value[ITEMS3];
#pragma unroll
        for (int k = 0; k < ITEMS3; k++)
            value[k] = 32 * k + lane < here ? values_from[chunk + 32 * k + lane] : 0;
#pragma unroll
        for (int k = 0; k < ITEMS3; k++)
            sorted[tile + place[k]] = value[k];
    }
    /* END STUDENT */
}

/* Called by every thread once the tile is sorted and to_out is set. */
__device__ void write_runs(struct pass s, const unsigned *sorted, const unsigned *to_out,
                           unsigned count, int shift, enum elem type)
{
    /* STUDENT stage 3b ------------------------------------------------------
     * Goal: the key at place j of the sorted tile goes to
     *       s.keys_to[to_out[d] + j], d its digit (and its value, at
     *       sorted[tile + j], to s.values_to[the same place] when
     *       s.values_from is not NULL). Thread t writes j = t,
     *       t + blockDim.x, ...: neighbours in a warp write neighbouring
     *       words, except where the digit changes.
     * Keep: a tile past n holds count keys, not tile.
     * Hint: ITEMS3 rounds of blockDim.x places.
     */
    unsigned tile = blockDim.x * ITEMS3;
#pragma unroll
    for (int k = 0; k < ITEMS3; k++) {
        unsigned j = k * blockDim.x + threadIdx.x;
        if (j < count) {
            unsigned key = sorted[j];
            unsigned to = to_out[digit_of(key, type, shift, DIGITS3)] + j;
            s.keys_to[to] = key;
            if (s.values_from)
                s.values_to[to] = sorted[tile + j];
        }
    }
    /* END STUDENT */
}

__global__ void __launch_bounds__(MAX_THREADS3)
    radix_stage3b_scatter_kernel(struct pass s, const unsigned *__restrict__ starts, size_t n,
                                 int shift, enum elem type)
{
    /* STUDENT stage 3b ------------------------------------------------------
     * Goal: sort the tile by the digit in shared memory, then write it out
     *       in order: count_warp_digits, tile_places, to_out[d] = the
     *       digit's start in keys_to (starts[d * gridDim.x + blockIdx.x])
     *       less first[d], sort_tile, write_runs.
     * Keep: a barrier between steps where a thread reads what another
     *       wrote.
     * Hint: carve_tile_memory(memory) names the parts of shared memory.
     *       This tile holds min(tile, n - its first key) keys.
     */
    extern __shared__ unsigned memory[];
    struct tile_memory m = carve_tile_memory(memory);
    unsigned tile = blockDim.x * ITEMS3, key[ITEMS3];
    size_t base = blockIdx.x * (size_t)tile, chunk = warp_chunk(blockIdx.x);
    count_warp_digits(s.keys_from, key, m.warp_rows + threadIdx.x / 32 * DIGITS3, chunk, n,
                      shift, type);
    __syncthreads();
    tile_places(m.warp_rows, m.first);
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x)
        m.to_out[d] = starts[d * gridDim.x + blockIdx.x] - m.first[d];
    __syncthreads();
    sort_tile(key, m.warp_rows + threadIdx.x / 32 * DIGITS3, m.sorted, s.values_from, chunk, n,
              shift, type);
    __syncthreads();
    write_runs(s, m.sorted, m.to_out, (unsigned)min((size_t)tile, n - base), shift, type);
    /* END STUDENT */
}

/* The tile sorted in shared memory, then written out in runs. */
static void radix_stage3b(const struct args *a, int block)
{
    radix_8_bit_passes(a, block, radix_stage3b_scatter_kernel,
                       tile_memory_bytes(a, (unsigned)stage3_threads(block)));
}

/* ---- stage 4 ------------------------------------------------------------ */

/* Stage 4 reads the keys once to count the digits of all four passes, then
 * sorts each pass in one kernel: a tile learns where its digits' keys go
 * by looking back at the tiles before it, a digit a thread. */
enum { COUNT_ITEMS4 = 8 };

__global__ void radix_stage4_count_kernel(const unsigned *__restrict__ keys,
                                          unsigned *__restrict__ bins, size_t n, enum elem type)
{
    /* STUDENT stage 4 -------------------------------------------------------
     * Goal: bins[p * DIGITS3 + d] += the keys whose digit in pass p
     *       (digit_of(key, type, 8 * p, DIGITS3)) is d, for the four passes
     *       at once. The grid is a few blocks an SM, fewer than the keys
     *       need: blocks step through the keys COUNT_ITEMS4 rounds of
     *       blockDim.x at a time, gridDim.x blocks apart, so that each
     *       block adds its shared counts to bins once, at the end.
     * Keep: keys past n are not counted. Clear the shared counts before
     *       anyone adds to them; a barrier before they are added to bins.
     * Hint: __shared__ unsigned counts[4 * DIGITS3]. Load a step's
     *       COUNT_ITEMS4 keys before counting any, so that the loads are in
     *       flight together.
     */
    __shared__ unsigned counts[4 * DIGITS3];
    for (unsigned j = threadIdx.x; j < 4 * DIGITS3; j += blockDim.x)
        counts[j] = 0;
    __syncthreads();
    size_t step = (size_t)blockDim.x * COUNT_ITEMS4;
    for (size_t first = blockIdx.x * step; first < n; first += gridDim.x * step) {
        unsigned key[COUNT_ITEMS4];
#pragma unroll
        for (int k = 0; k < COUNT_ITEMS4; k++) {
            size_t i = first + (size_t)k * blockDim.x + threadIdx.x;
            key[k] = i < n ? keys[i] : 0;
        }
#pragma unroll
        for (int k = 0; k < COUNT_ITEMS4; k++)
            if (first + (size_t)k * blockDim.x + threadIdx.x < n)
#pragma unroll
                for (int p = 0; p < 4; p++)
                    atomicAdd(&counts[p * DIGITS3 + digit_of(key[k], type, 8 * p, DIGITS3)], 1u);
    }
    __syncthreads();
    for (unsigned j = threadIdx.x; j < 4 * DIGITS3; j += blockDim.x)
        atomicAdd(&bins[j], counts[j]);
    /* END STUDENT */
}

/* Called by a thread of tile `tile` for digit d, once the tile has
 * published the digit's count (words[tile * DIGITS3 + d] is AGGREGATE, or
 * PREFIX in tile 0). Returns the keys of digit d in the tiles before. */
__device__ unsigned digit_look_back(volatile unsigned long long *words, size_t tile, unsigned d)
{
    unsigned before = 0; /* the keys of digit d in the tiles before this one */
    /* STUDENT stage 4 -------------------------------------------------------
     * Goal: before = the sum of the counts of digit d's words
     *       (words[t * DIGITS3 + d]) from tile - 1 back to the first PREFIX
     *       (its count is all of that tile's keys of d and those before it:
     *       add it and stop). While a word is NOT_READY, read it again.
     *       Then publish PREFIX with before plus this tile's own count.
     * Keep: compact's and scan-large-arrays' look-back, for one digit in
     *       one thread: no votes, every thread walks its own digit. Tile 0
     *       looks at nothing and publishes nothing more.
     * Hint: word >> 32 is the flag, (unsigned)word the count;
     *       status_word(PREFIX, count) makes a word.
     */
    unsigned long long mine = words[tile * DIGITS3 + d];
    for (size_t t = tile; t-- > 0;) {
        unsigned long long word;
        do
            word = words[t * DIGITS3 + d];
        while (word >> 32 == NOT_READY);
        before += (unsigned)word;
        if (word >> 32 == PREFIX)
            break;
    }
    if (tile > 0)
        words[tile * DIGITS3 + d] = status_word(PREFIX, before + (unsigned)mine);
    /* END STUDENT */
    return before;
}

/* The key type is a template parameter, so that sortable() is settled when
 * the kernel is compiled and the rounds have no branch on it; the launch
 * bounds keep the kernel to 64 registers, four blocks of 256 an SM. */
template <enum elem type>
__global__ void __launch_bounds__(MAX_THREADS3, 2)
    radix_stage4_pass_kernel(struct pass s, const unsigned *__restrict__ bin_starts,
                             unsigned long long *status, size_t n, int shift)
{
    /* STUDENT stage 4 -------------------------------------------------------
     * Goal: one pass, stage 3b's scatter without the count kernel before it.
     *       Thread 0 takes the tile's number from atomicAdd(&status[0],
     *       1ULL); count_warp_digits and tile_places as in stage 3a; then
     *       publish each digit's count of the tile (the next digit's first
     *       place less this one's; the last digit's: the tile's keys less
     *       its first place) in words[tile * DIGITS3 + d], words being
     *       status + 1: PREFIX in tile 0, AGGREGATE in the others. Then
     *       sort_tile; then a thread a digit looks back
     *       (digit_look_back), and to_out[d] = bin_starts[d] + the keys of
     *       d in the tiles before - first[d]; then write_runs.
     * Keep: the tile's number from the counter, not blockIdx.x, as in
     *       scan-large-arrays: a tile waits only for tiles that started
     *       before it. Volatile stores of the words. Barriers as in stage 3b.
     * Hint: sorting between publishing and looking back gives the tiles
     *       before time to publish their PREFIX, so the walk back is short.
     */
    extern __shared__ unsigned memory[];
    __shared__ unsigned long long my_tile;
    struct tile_memory m = carve_tile_memory(memory);
    volatile unsigned long long *words = status + 1;
    if (threadIdx.x == 0)
        my_tile = atomicAdd(&status[0], 1ULL);
    __syncthreads();
    size_t tile = my_tile, base = tile * blockDim.x * ITEMS3, chunk = warp_chunk(tile);
    unsigned count = (unsigned)min((size_t)blockDim.x * ITEMS3, n - base), key[ITEMS3];
    unsigned *row = m.warp_rows + threadIdx.x / 32 * DIGITS3;
    count_warp_digits(s.keys_from, key, row, chunk, n, shift, type);
    __syncthreads();
    tile_places(m.warp_rows, m.first);
    __syncthreads();
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x) {
        unsigned next = d + 1 < DIGITS3 ? m.first[d + 1] : count;
        words[tile * DIGITS3 + d] = status_word(tile == 0 ? PREFIX : AGGREGATE, next - m.first[d]);
    }
    sort_tile(key, row, m.sorted, s.values_from, chunk, n, shift, type);
    for (unsigned d = threadIdx.x; d < DIGITS3; d += blockDim.x)
        m.to_out[d] = bin_starts[d] + digit_look_back(words, tile, d) - m.first[d];
    __syncthreads();
    write_runs(s, m.sorted, m.to_out, count, shift, type);
    /* END STUDENT */
}

/* One count of every digit of every pass, a scan of each pass's counts,
 * then four passes of one kernel each. */
static void radix_stage4(const struct args *a, int block)
{
    if (a->n == 0)
        return;
    unsigned threads = (unsigned)stage3_threads(block);
    size_t tiles = ceil_div(a->n, (size_t)threads * ITEMS3), smem = tile_memory_bytes(a, threads);
    unsigned *counts = a->bins, *starts = a->bins + 4 * DIGITS3;
    size_t steps = ceil_div(a->n, (size_t)threads * COUNT_ITEMS4);
    size_t resident = (size_t)gpu_sm_count() * (2048 / threads); /* blocks the GPU holds at once */
    unsigned count_grid = (unsigned)(steps < resident ? steps : resident);
    CUDA_CHECK(cudaMemsetAsync(counts, 0, 4 * DIGITS3 * sizeof *counts));
    radix_stage4_count_kernel<<<count_grid, threads>>>(a->keys_in, counts, a->n, a->type);
    for (int pass = 0; pass < 4; pass++)
        exclusive_scan(counts + pass * DIGITS3, starts + pass * DIGITS3, DIGITS3);
    void (*kernel)(struct pass, const unsigned *, unsigned long long *, size_t, int) = /* by type */
        a->type == U32 ? radix_stage4_pass_kernel<U32>
        : a->type == I32 ? radix_stage4_pass_kernel<I32> : radix_stage4_pass_kernel<F32>;
    allow_smem(kernel, smem);
    for (int pass = 0; pass < 4; pass++) {
        struct pass s = pass_buffers(a, pass, 4);
        CUDA_CHECK(cudaMemsetAsync(a->status, 0, (1 + tiles * DIGITS3) * sizeof *a->status));
        kernel<<<(unsigned)tiles, threads, smem>>>(s, starts + pass * DIGITS3, a->status, a->n,
                                                   8 * pass);
    }
}

/* ---- stage 5 ------------------------------------------------------------ */

/* Keys that fit one tile: all four passes in one block. */
__global__ void __launch_bounds__(MAX_THREADS3) radix_stage5_one_block_kernel(struct args a)
{
    /* STUDENT stage 5 -------------------------------------------------------
     * Goal: the whole sort in one block, for n up to blockDim.x * ITEMS3
     *       keys: for each of the 4 passes, its buffers (pass_buffers(&a,
     *       pass, 4)), count_warp_digits of the one tile, tile_places,
     *       sort_tile, and then thread t writes sorted[j] to keys_to[j]
     *       (and values) for j = t, t + blockDim.x, ... below n: with one
     *       tile, the tile's order is the pass's order.
     * Keep: a barrier where a thread reads what another wrote, in shared
     *       memory or in keys_to: the next pass reads what this one wrote,
     *       and reuses the counters.
     * Hint: the keys are in L2 after the first pass; what stage 4 paid was
     *       its 18 operations (kernels and clears), each waiting for the
     *       one before.
     */
    extern __shared__ unsigned memory[];
    struct tile_memory m = carve_tile_memory(memory);
    unsigned tile = blockDim.x * ITEMS3, key[ITEMS3];
    unsigned *row = m.warp_rows + threadIdx.x / 32 * DIGITS3;
    size_t chunk = warp_chunk(0);
    for (int p = 0; p < 4; p++) {
        struct pass s = pass_buffers(&a, p, 4);
        count_warp_digits(s.keys_from, key, row, chunk, a.n, 8 * p, a.type);
        __syncthreads();
        tile_places(m.warp_rows, m.first);
        __syncthreads();
        sort_tile(key, row, m.sorted, s.values_from, chunk, a.n, 8 * p, a.type);
        __syncthreads();
        for (unsigned j = threadIdx.x; j < a.n; j += blockDim.x) {
            s.keys_to[j] = m.sorted[j];
            if (s.values_from)
                s.values_to[j] = m.sorted[tile + j];
        }
        __syncthreads();
    }
    /* END STUDENT */
}

/* One block when the keys fit one tile; stage 4 when they do not. */
static void radix_stage5(const struct args *a, int block)
{
    unsigned threads = (unsigned)stage3_threads(block);
    if (a->n == 0 || a->n > (size_t)threads * ITEMS3) {
        radix_stage4(a, block);
        return;
    }
    size_t smem = tile_memory_bytes(a, threads);
    allow_smem(radix_stage5_one_block_kernel, smem);
    radix_stage5_one_block_kernel<<<1, threads, smem>>>(*a);
}

/* ---- the stage table: the tests, the driver and the run table read it --- */

const struct stage radix_stages[] = {
    {"1", "a bit a pass: flag, library scan, split", radix_stage1,
     "a bit a pass: flag, library scan, split"},
    {"2", "4 bits a pass: tile counts, scan, scatter", radix_stage2,
     "4-bit digits: 8 passes over the keys"},
    {"3a", "8 bits a pass: ballot ranks", radix_stage3a, "8-bit digits: 4 passes over the keys"},
    {"3b", "sorted in shared memory, written in runs", radix_stage3b,
     "8-bit digits, each tile sorted in shared memory and written out in runs"},
    {"4", "one count, a pass a kernel: look-back", radix_stage4,
     "one count of every pass's digits, and a tile's places by look-back"},
    {"5", "keys that fit one tile: one block", radix_stage5,
     "keys that fit one tile sorted by one block"},
    {NULL, NULL, NULL, NULL},
};
