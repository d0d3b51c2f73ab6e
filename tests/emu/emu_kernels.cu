/* emu_kernels.cu: kernels that exercise the CPU emulation (make check EMU=1),
 * each with a small C entry point for test_emu.c. Some are correct and must
 * give the right answer; some carry a planted bug the emulation must name.
 * Each entry point returns NULL when the launch succeeded, else the error. */
#include <cub/cub.cuh>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workbook.cuh"
#include "emu_kernels.h"

static const char *finish(void)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    return e == cudaSuccess ? NULL : cudaGetErrorString(e);
}

/* Device scratch for the tests: n ints in (a copy of h, or zeros), copied
 * back out by finish_ints. */
int *device_ints(const int *h, size_t n)
{
    int *d;
    CUDA_CHECK(cudaMalloc(&d, n * sizeof(int)));
    if (h)
        CUDA_CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
    else
        CUDA_CHECK(cudaMemset(d, 0, n * sizeof(int)));
    return d;
}

static const char *finish_ints(int *h, int *d, size_t n)
{
    const char *error = finish();
    CUDA_CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d));
    return error;
}

/* A counter on the device, 0, for blocks that take numbers in the order
 * they start (atomicAdd). */
static unsigned *zeroed_ticket()
{
    unsigned *ticket;
    CUDA_CHECK(cudaMalloc(&ticket, sizeof *ticket));
    CUDA_CHECK(cudaMemset(ticket, 0, sizeof *ticket));
    return ticket;
}

/* n ints named as the harness names its arrays: between two guard zones of
 * one allocation. Freed with free_named. */
enum { GUARD = 16384 };

static int *named(const char *name, size_t n)
{
    char *base;
    CUDA_CHECK(cudaMalloc(&base, GUARD + n * sizeof(int) + GUARD));
    CUDA_CHECK(cudaMemset(base, 0, GUARD + n * sizeof(int) + GUARD));
    emu_name_array(base, name, GUARD, n, sizeof(int));
    return (int *)(base + GUARD);
}

static void free_named(int *d) { CUDA_CHECK(cudaFree((char *)d - GUARD)); }

/* The error string outlives the next launch's. */
static const char *kept(const char *error)
{
    static char text[4096];
    if (!error)
        return NULL;
    snprintf(text, sizeof text, "%s", error);
    return text;
}

/* ---- the rewriter: a launch of a template, spread over lines, among
 *      comments and strings that look like CUDA syntax ---------------------- */

template <typename T, int SCALE> __global__ void scale_index(T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = (T)(i * SCALE);
}

const char *emu_launch_syntax(int *out, int n, const char **text)
{
    int *d = device_ints(NULL, n);
    *text = "kernel<<<1, 2>>>(x); __shared__ int s[4];"; /* must stay as it is */
    /* a comment with a launch in it: kernel<<<grid, block>>>(args) */
    scale_index<int, 3>
        <<<(unsigned)ceil_div(n, 128), // grid, then block
           128 /* threads, <<< >>> */>>>(d,
                                         n);
    return finish_ints(out, d, n);
}

/* ---- indices: every thread of a 3-D grid of 3-D blocks writes who it is -- */

__global__ void who_am_i(int *out)
{
    unsigned block = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
    unsigned thread = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    out[block * blockDim.x * blockDim.y * blockDim.z + thread] =
        threadIdx.x + 10 * threadIdx.y + 100 * threadIdx.z + 1000 * blockIdx.x +
        10000 * blockIdx.y + 100000 * blockIdx.z;
}

const char *emu_indices(int *out, struct shape grid, struct shape block)
{
    size_t n = (size_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
    int *d = device_ints(NULL, n);
    who_am_i<<<dim3(grid.x, grid.y, grid.z), dim3(block.x, block.y, block.z)>>>(d);
    return finish_ints(out, d, n);
}

/* ---- shared memory ------------------------------------------------------- */

/* Every thread reads its own word. Filled, every thread wrote it; else
 * thread 0 alone wrote one, and the rest hold what an earlier block (the
 * filled launch's) left. */
__global__ void read_own_word(int *out, bool filled)
{
    __shared__ int words[64];
    if (filled || threadIdx.x == 0)
        words[threadIdx.x] = (int)threadIdx.x + 7;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = words[threadIdx.x]; /* LINE: read own word */
}

const char *emu_read_own_word(int *out, int blocks, int filled)
{
    int *d = device_ints(NULL, blocks * 64);
    read_own_word<<<blocks, 64>>>(d, filled != 0);
    return kept(finish_ints(out, d, blocks * 64));
}

/* Reverse each block's slice through dynamic shared memory. */
__global__ void reverse_blocks(int *out, const int *in)
{
    extern __shared__ int slice[];
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    slice[threadIdx.x] = in[i];
    __syncthreads();
    out[i] = slice[blockDim.x - 1 - threadIdx.x];
}

const char *emu_dynamic_shared_reverse(int *out, const int *in, int blocks, int block)
{
    int *d_in = device_ints(in, (size_t)blocks * block), *d = device_ints(NULL, (size_t)blocks * block);
    reverse_blocks<<<blocks, block, block * sizeof(int)>>>(d, d_in);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, (size_t)blocks * block);
}

/* A planted bug: dynamic shared memory for 32 ints, 64 threads writing. */
const char *emu_dynamic_shared_too_small(void)
{
    int *d_in = device_ints(NULL, 64), *d = device_ints(NULL, 64);
    reverse_blocks<<<1, 64, 32 * sizeof(int)>>>(d, d_in);
    return finish();
}

/* ---- barriers -------------------------------------------------------------- */

/* A planted bug: a barrier only the first 16 threads reach. */
__global__ void barrier_in_branch(int *out)
{
    if (threadIdx.x < 16) {
        out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
        __syncthreads(); /* LINE: barrier in branch */
    }
}

const char *emu_divergent_barrier(void)
{
    int *d = device_ints(NULL, 2 * 64);
    barrier_in_branch<<<2, 64>>>(d);
    return finish();
}

/* A planted bug: a barrier inside a bounds test. The threads past n skip it
 * and read what a waiting thread wrote, a race that the skipped barrier
 * caused: the report must name the barrier. */
__global__ void barrier_in_bounds_test(int *out, int n)
{
    __shared__ int s[64];
    unsigned t = threadIdx.x;
    if ((int)t < n) {
        s[t] = (int)t;
        __syncthreads(); /* LINE: barrier in a bounds test */
    }
    out[t] = t > 0 ? s[t - 1] : 0;
}

const char *emu_barrier_in_bounds_test(void)
{
    int *d = device_ints(NULL, 64);
    barrier_in_bounds_test<<<1, 64>>>(d, 32);
    return finish();
}

/* A planted bug: warps 0 and 1 wait at one barrier, the others at another. */
__global__ void two_barriers(int *out)
{
    unsigned t = threadIdx.x;
    if (t < 64) {
        out[t] = 1;
        __syncthreads(); /* LINE: first of two barriers */
    } else {
        __syncthreads(); /* LINE: second of two barriers */
    }
    out[t] += 2;
}

const char *emu_two_barriers(void)
{
    int *d = device_ints(NULL, 128);
    two_barriers<<<1, 128>>>(d);
    return finish();
}

__global__ void counting_barriers(int *out)
{
    unsigned t = threadIdx.x;
    int count = __syncthreads_count(t % 3 == 0);
    int all = __syncthreads_and(t < blockDim.x);
    int any = __syncthreads_or(t == 5);
    int none = __syncthreads_or(0);
    out[t] = count + 1000 * all + 10000 * any + 100000 * none;
}

const char *emu_barrier_counts(int *out, int block)
{
    int *d = device_ints(NULL, block);
    counting_barriers<<<1, block>>>(d);
    return finish_ints(out, d, block);
}

/* ---- warps ----------------------------------------------------------------- */

__global__ void shuffles(int *out)
{
    unsigned t = threadIdx.x, lane = t % 32;
    int v = (int)(lane * 10 + t / 32);
    int *o = out + 6 * t;
    o[0] = __shfl_sync(0xffffffffu, v, 31 - lane);
    o[1] = __shfl_up_sync(0xffffffffu, v, 1);
    o[2] = __shfl_down_sync(0xffffffffu, v, 2);
    o[3] = __shfl_xor_sync(0xffffffffu, v, 5);
    o[4] = __shfl_up_sync(0xffffffffu, v, 1, 8);
    o[5] = (int)__shfl_down_sync(0xffffffffu, (float)v + 0.5f, 16);
}

const char *emu_shuffles(int *out, int block)
{
    int *d = device_ints(NULL, 6 * block);
    shuffles<<<1, block>>>(d);
    return finish_ints(out, d, 6 * block);
}

__global__ void votes(int *out)
{
    unsigned lane = threadIdx.x % 32;
    int *o = out + 6 * threadIdx.x;
    o[0] = (int)__ballot_sync(0xffffffffu, lane % 2);
    o[1] = __all_sync(0xffffffffu, lane < 32);
    o[2] = __any_sync(0xffffffffu, lane == 7);
    o[3] = (int)__activemask();
    o[4] = (int)__match_any_sync(0xffffffffu, lane / 4);
    o[5] = (int)__match_any_sync(0xffffffffu, (float)(lane / 4) + 0.25f * (float)(lane % 2));
}

const char *emu_votes(int *out, int block)
{
    int *d = device_ints(NULL, 6 * block);
    votes<<<1, block>>>(d);
    return finish_ints(out, d, 6 * block);
}

/* Lanes 8 to 23 shuffle among themselves while the others go on to a
 * shuffle of the whole warp, which waits for them: valid CUDA (found by
 * authoring/differential). */
__global__ void some_lanes_then_the_warp(int *out)
{
    unsigned lane = threadIdx.x % 32;
    int v = (int)lane;
    if (lane >= 8 && lane < 24)
        v = __shfl_xor_sync(0x00ffff00u, v, 1);
    out[threadIdx.x] = __shfl_sync(0xffffffffu, v, 31 - (int)lane);
}

const char *emu_some_lanes_then_the_warp(int *out, int block)
{
    int *d = device_ints(NULL, block);
    some_lanes_then_the_warp<<<1, block>>>(d);
    return finish_ints(out, d, block);
}

/* A planted bug: half the warp shuffles with a full mask while the other
 * half waits at the block barrier. */
__global__ void half_warp_shuffle(int *out)
{
    int v = (int)threadIdx.x;
    if (threadIdx.x % 32 < 16)
        v = __shfl_down_sync(0xffffffffu, v, 1); /* LINE: half-warp shuffle */
    __syncthreads();                             /* LINE: barrier after the shuffle */
    out[threadIdx.x] = v;
}

const char *emu_missing_lane(void)
{
    int *d = device_ints(NULL, 64);
    half_warp_shuffle<<<1, 64>>>(d);
    return finish();
}

/* ---- intrinsics and atomics ---------------------------------------------------- */

__global__ void bit_tricks(int *out, const int *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = (unsigned)in[i];
        out[4 * i + 0] = __popc(x);
        out[4 * i + 1] = (int)__brev(x);
        out[4 * i + 2] = __ffs((int)x);
        out[4 * i + 3] = __clz((int)x);
    }
}

const char *emu_bits(int *out, const int *in, int n)
{
    int *d_in = device_ints(in, n), *d = device_ints(NULL, 4 * n);
    bit_tricks<<<(unsigned)ceil_div(n, 64), 64>>>(d, d_in, n);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, 4 * n);
}

struct counters {
    int add, sub, max, min, cas, exch_seen, and_bits, or_bits, xor_bits;
    unsigned uadd, inc;
    unsigned long long ulladd;
    float fadd;
};

/* Every thread of every block hits the same few words: blocks run on
 * several cores at once, so the atomics really contend. */
__global__ void contend(struct counters *c)
{
    int t = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    atomicAdd(&c->add, 1);
    atomicSub(&c->sub, 2);
    atomicMax(&c->max, t);
    atomicMin(&c->min, -t);
    int old = c->cas, seen;
    while ((seen = atomicCAS(&c->cas, old, old + 3)) != old)
        old = seen;
    if (atomicExch(&c->exch_seen, 1) == 0)
        atomicAdd(&c->uadd, 1000000u);
    atomicAnd(&c->and_bits, ~(1 << (t % 31)));
    atomicOr(&c->or_bits, 1 << (t % 31));
    atomicXor(&c->xor_bits, 1);
    atomicAdd(&c->uadd, 1u);
    atomicInc(&c->inc, 9u);
    atomicAdd(&c->ulladd, 1ull << 33);
    atomicAdd(&c->fadd, 1.0f);
}

const char *emu_atomics(struct counters_out *out, int blocks, int block)
{
    struct counters h = {0, 0, -1, 1, 0, 0, -1, 0, 0, 0, 0, 0, 0.0f}, *d;
    CUDA_CHECK(cudaMalloc(&d, sizeof h));
    CUDA_CHECK(cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice));
    contend<<<blocks, block>>>(d);
    const char *error = finish();
    CUDA_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d));
    *out = (struct counters_out){h.add, h.sub, h.max, h.min, h.cas, h.and_bits, h.or_bits,
                                 h.xor_bits, h.uadd, h.inc, h.ulladd, h.fadd};
    return error;
}

/* atomicExch stores the float it is given, bit for bit, whatever it replaces:
 * 1.5 over the poison (a NaN), then -0.0 over 1.5. */
__global__ void exchange_floats(int *words)
{
    float *f = (float *)words;
    words[1] = __float_as_int(atomicExch(&f[0], 1.5f));
    words[2] = __float_as_int(atomicExch(&f[0], -0.0f));
}

const char *emu_exchange_floats(int *out)
{
    int start[3] = {(int)POISON_WORD, 0, 0}, *d = device_ints(start, 3);
    exchange_floats<<<1, 1>>>(d);
    return finish_ints(out, d, 3);
}

/* Blocks take a ticket, then wait for the previous ticket's flag: a chain
 * through global memory, as the single-pass scan builds it. */
__global__ void chain(int *value, volatile int *flag, unsigned *ticket)
{
    __shared__ unsigned order;
    if (threadIdx.x == 0) {
        order = atomicAdd(ticket, 1u);
        int before = 0;
        if (order > 0) {
            while (flag[order - 1] == 0)
                ;
            before = value[order - 1];
        }
        value[order] = before + 1;
        __threadfence();
        flag[order] = 1;
    }
    __syncthreads();
}

const char *emu_chained_blocks(int *out, int blocks)
{
    int *value = device_ints(NULL, blocks), *flag = device_ints(NULL, blocks);
    unsigned *ticket = zeroed_ticket();
    chain<<<blocks, 64>>>(value, flag, ticket);
    CUDA_CHECK(cudaFree(flag));
    CUDA_CHECK(cudaFree(ticket));
    return finish_ints(out, value, blocks);
}

/* ---- races on shared memory --------------------------------------------------- */

/* A tree sum in shared memory. Planted bugs: 1 leaves out the barrier
 * between the loads and the tree, 2 the one in the tree's loop. */
__global__ void tree_sum(int *out, const int *in, int planted)
{
    extern __shared__ int sums[];
    unsigned t = threadIdx.x;
    sums[t] = in[blockIdx.x * blockDim.x + t];
    if (planted != 1)
        __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half)
            sums[t] += sums[t + half];
        if (planted != 2)
            __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = sums[0];
}

const char *emu_tree_sum(int *out, const int *in, int blocks, int block, int planted)
{
    int *d_in = device_ints(in, (size_t)blocks * block), *d = device_ints(NULL, blocks);
    tree_sum<<<blocks, block, block * sizeof(int)>>>(d, d_in, planted);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, blocks);
}

/* A 32x32 tile transpose of one square matrix, on 32 x 32 threads: a
 * two-dimensional block. Planted bugs: 1 leaves out the barrier between
 * the tile's writes and reads, 2 reads one row past the matrix's end. */
__global__ void tile_transpose(int *out, const int *in, int planted)
{
    __shared__ int tile[32][33];
    unsigned x = threadIdx.x, y = threadIdx.y;
    tile[y][x] = in[(y + (planted == 2 && y == 31)) * 32 + x];
    if (planted != 1)
        __syncthreads();
    out[y * 32 + x] = tile[x][y];
}

const char *emu_tile_transpose(int *out, const int *in, int planted)
{
    int *d_in = device_ints(in, 32 * 32), *d = device_ints(NULL, 32 * 32);
    tile_transpose<<<1, dim3(32, 32)>>>(d, d_in, planted);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, 32 * 32);
}

/* Each thread puts its value at a place in shared memory; the planted bug
 * gives two threads each place (t / 2), as a wrong rank would. */
__global__ void place_values(int *out, bool planted)
{
    extern __shared__ int placed[];
    unsigned t = threadIdx.x;
    placed[planted ? t / 2 : t] = (int)t;
    __syncthreads();
    out[t] = placed[t];
}

const char *emu_colliding_places(int *out, int block, int planted)
{
    int *d = device_ints(NULL, block);
    place_values<<<1, block, block * sizeof(int)>>>(d, planted);
    return finish_ints(out, d, block);
}

/* Each block's values rotated by steps of 1, 2, 4, ... places in shared
 * memory, one place in all: thread t takes the value step places after its
 * own. A step reads what other threads wrote the step before, so it needs
 * a barrier between its reads and its writes and one after them; the
 * planted bug leaves out both. (Not a lab's scan: that is the labs' to
 * write, and this file ships with every lab.) */
__global__ void stepped_rotation(int *out, const int *in, bool planted)
{
    extern __shared__ int slots[];
    unsigned t = threadIdx.x;
    size_t i = blockIdx.x * (size_t)blockDim.x + t;
    slots[t] = in[i];
    __syncthreads();
    for (unsigned step = 1; step < blockDim.x; step *= 2) {
        int v = slots[(t + step) % blockDim.x];
        if (!planted)
            __syncthreads();
        slots[t] = v;
        if (!planted)
            __syncthreads();
    }
    out[i] = slots[t];
}

const char *emu_stepped_rotation(int *out, const int *in, int blocks, int block, int planted)
{
    size_t n = (size_t)blocks * block;
    int *d_in = device_ints(in, n), *d = device_ints(NULL, n);
    stepped_rotation<<<blocks, block, block * sizeof(int)>>>(d, d_in, planted != 0);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, n);
}

/* A planted bug: thread 1 waits for a flag that thread 0 sets in the same
 * interval between barriers. It races, and if thread 0 came first, thread 1
 * spins for a value no thread ever writes. */
__global__ void spin_on_race(int *out)
{
    __shared__ int flag;
    if (threadIdx.x == 0)
        flag = 1;
    volatile int *seen = &flag;
    if (threadIdx.x == 1)
        while (*seen != 2)
            ;
    out[threadIdx.x] = flag;
}

const char *emu_spin_after_race(void)
{
    int *d = device_ints(NULL, 64);
    spin_on_race<<<1, 64>>>(d);
    return finish();
}

/* An inclusive scan of each warp's 32 values in shared memory. The planted
 * form is the old warp-synchronous idiom: volatile, no __syncwarp, relying
 * on lockstep that GPUs since Volta do not promise. */
__global__ void warp_scan(int *out, const int *in, bool planted)
{
    __shared__ int values[64];
    unsigned t = threadIdx.x, lane = t % 32;
    volatile int *v = values;
    v[t] = in[t];
    __syncwarp();
    for (unsigned d = 1; d < 32; d *= 2) {
        if (planted) {
            if (lane >= d)
                v[t] += v[t - d];
        } else {
            int add = lane >= d ? v[t - d] : 0;
            __syncwarp();
            v[t] += add;
            __syncwarp();
        }
    }
    out[t] = v[t];
}

const char *emu_warp_scan(int *out, const int *in, int planted)
{
    int *d_in = device_ints(in, 64), *d = device_ints(NULL, 64);
    warp_scan<<<1, 64>>>(d, d_in, planted != 0);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, 64);
}

/* A planted bug: Harris's last-warp helper, volatile and no __syncwarp(),
 * in a function of its own that is not inlined, as a helper called from
 * several kernels often is not: its race must still be placed in this file,
 * not in the rewritten copy the compiler read. */
__attribute__((noinline)) __device__ void volatile_warp_sum(volatile int *s, unsigned t)
{
    s[t] += s[t + 32]; /* LINE: volatile helper's first step */
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1]; /* LINE: volatile helper's last step */
}

__global__ void volatile_last_warp(int *out)
{
    __shared__ int sums[64];
    unsigned t = threadIdx.x;
    sums[t] = (int)t;
    sums[t + 32] = (int)t;
    __syncthreads();
    volatile_warp_sum(sums, t);
    if (t == 0)
        *out = sums[0];
}

const char *emu_volatile_last_warp(void)
{
    int *d = device_ints(NULL, 1);
    volatile_last_warp<<<1, 32>>>(d);
    return finish();
}

/* Shared-memory histogram: atomics on shared words do not race. Planted
 * bugs: 1 never clears the bins, 2 leaves out the barrier after clearing,
 * 3 counts with a plain ++ on the shared bins, 4 with one on the device's
 * (in one block: the race between its threads comes first). */
__global__ void shared_histogram(int *bins, const int *in, int n, int planted)
{
    __shared__ int local[16];
    if (threadIdx.x < 16 && planted != 1)
        local[threadIdx.x] = 0;
    if (planted != 2)
        __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        if (planted == 3)
            local[in[i] & 15]++; /* LINE: plain increment of a shared bin */
        else if (planted == 4)
            bins[in[i] & 15]++; /* LINE: plain increment of a device bin */
        else
            atomicAdd(&local[in[i] & 15], 1); /* LINE: atomic on a shared bin */
    __syncthreads();
    if (threadIdx.x < 16)
        atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}

const char *emu_shared_histogram(int *bins, const int *in, int n, int planted)
{
    int *d_in = device_ints(in, n), *d = device_ints(NULL, 16);
    shared_histogram<<<planted == 4 ? 1 : 4, 128>>>(d, d_in, n, planted);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(bins, d, 16);
}

/* ---- reads of shared memory that no thread of the block wrote ---------------- */

/* The block reverses its n values through a 64-slot tile. Correct: the
 * slots past n get zeros. Planted: only n slots are loaded, as in a last
 * partial tile, and thread 0 reads slot 63. */
__global__ void reverse_tile(int *out, const int *in, int n, bool planted)
{
    __shared__ int tile[64];
    unsigned t = threadIdx.x;
    if (!planted || t < (unsigned)n)
        tile[t] = t < (unsigned)n ? in[t] : 0;
    __syncthreads();
    out[t] = tile[63 - t]; /* LINE: read the tile reversed */
}

const char *emu_reverse_tile(int *out, const int *in, int n, int planted)
{
    int *d_in = device_ints(in, n), *d = device_ints(NULL, 64);
    reverse_tile<<<1, 64>>>(d, d_in, n, planted != 0);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, 64);
}

/* A Brent-Kung scan of 2 * blockDim.x values a block, in place in one
 * shared section: a sweep up the tree of partial sums, then one down it.
 * Unguarded, as a textbook prints it: only the values below n are loaded,
 * yet the sweeps add at every index, so in a last, partial section they
 * read slots no thread wrote; what they compute there is never stored, and
 * the answer is right on a GPU. Guarded: the slots past n are loaded as 0. */
__global__ void brent_kung_scan(int *out, const int *in, int n, bool guarded)
{
    __shared__ int section[128];
    unsigned t = threadIdx.x, width = 2 * blockDim.x;
    size_t first = (size_t)blockIdx.x * width;
    for (unsigned k = t; k < width; k += blockDim.x)
        if (first + k < (size_t)n)
            section[k] = in[first + k];
        else if (guarded)
            section[k] = 0;
    for (unsigned gap = 1; gap < width; gap *= 2) {
        __syncthreads();
        unsigned k = (t + 1) * 2 * gap - 1;
        if (k < width)
            section[k] += section[k - gap]; /* LINE: sweep up */
    }
    for (unsigned gap = width / 4; gap > 0; gap /= 2) {
        __syncthreads();
        unsigned k = (t + 1) * 2 * gap - 1;
        if (k + gap < width)
            section[k + gap] += section[k];
    }
    __syncthreads();
    for (unsigned k = t; k < width; k += blockDim.x)
        if (first + k < (size_t)n)
            out[first + k] = section[k];
}

const char *emu_brent_kung_scan(int *out, const int *in, int n, int guarded)
{
    int *d_in = device_ints(in, n), *d = device_ints(NULL, n);
    brent_kung_scan<<<(n + 127) / 128, 64>>>(d, d_in, n, guarded != 0);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, n);
}

/* One 16x16 block transposes a rows x cols matrix (each side at most 16)
 * through a tile: it writes tile[y][x], reads tile[x][y]. Planted: 1 reads
 * tile[y][x], the order it wrote, 2 tests the read against one side only. */
__global__ void transpose_tile(int *out, const int *in, int rows, int cols, int planted)
{
    __shared__ int tile[16][17];
    unsigned x = threadIdx.x, y = threadIdx.y;
    if (y < (unsigned)rows && x < (unsigned)cols)
        tile[y][x] = in[y * cols + x];
    __syncthreads();
    /* out is cols x rows: its row y is in's column y */
    if (y < (unsigned)cols && (planted == 2 || x < (unsigned)rows))
        out[y * rows + x] = planted == 1 ? tile[y][x] : tile[x][y]; /* LINE: read the tile */
}

const char *emu_transpose_tile(int *out, const int *in, int rows, int cols, int planted)
{
    int *d_in = device_ints(in, rows * cols), *d = device_ints(NULL, 16 * 16);
    transpose_tile<<<1, dim3(16, 16)>>>(d, d_in, rows, cols, planted);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, rows * cols);
}

/* Threads 0-15 write the bytes of one word each, one byte at a time, then
 * every thread reads the byte beside its own. Correct: each also reads the
 * whole word its byte is in. Planted: thread 15 leaves out byte 63 (and no word is read), so
 * thread 62 reads a byte no thread wrote, in a word whose other three
 * bytes were written. */
__global__ void neighbour_bytes(int *out, bool planted)
{
    __shared__ unsigned char flags[64];
    unsigned t = threadIdx.x;
    if (t < 16)
        for (unsigned b = 4 * t; b < 4 * t + 4; b++)
            if (!planted || b < 63)
                flags[b] = (unsigned char)(b + 1);
    __syncthreads();
    int word = 0;
    if (!planted)
        memcpy(&word, flags + t / 4 * 4, sizeof word);
    out[t] = flags[t ^ 1] + word; /* LINE: read the neighbour's byte */
}

const char *emu_neighbour_bytes(int *out, int planted)
{
    int *d = device_ints(NULL, 64);
    neighbour_bytes<<<1, 64>>>(d, planted != 0);
    return finish_ints(out, d, 64);
}

/* Each thread adds 1 to its own byte, in place: in device memory, then in
 * shared memory (loaded from it, stored back after a barrier). Neighbours
 * share words but never a byte, so no race: the checks must watch bytes. */
__global__ void own_bytes(unsigned char *bytes)
{
    __shared__ unsigned char local[64];
    unsigned t = threadIdx.x;
    unsigned char mine = bytes[t];
    bytes[t] = (unsigned char)(mine + 1);
    local[t] = bytes[t];
    local[t] = (unsigned char)(local[t] + 1);
    __syncthreads();
    bytes[t] = local[t];
}

const char *emu_own_bytes(unsigned char *bytes)
{
    int *d = device_ints((const int *)bytes, 16);
    own_bytes<<<1, 64>>>((unsigned char *)d);
    return finish_ints((int *)bytes, d, 16);
}

/* 16-byte reads of shared memory, each copied whole to device memory: an
 * int4 of which only .x was written, and a struct with padding (a double,
 * then an int). Correct: some bytes of each were written, the rest may be
 * unused lanes or padding, so both stay silent. Planted: thread 0 copies
 * an int4 that no thread wrote a byte of. */
struct padded {
    double weight;
    int index;
};

__global__ void wide_reads(int4 *quad_copies, padded *pair_copies, bool planted)
{
    __shared__ int4 quads[65];
    __shared__ padded pairs[64];
    unsigned t = threadIdx.x;
    quads[t].x = (int)t;
    pairs[t].weight = t;
    pairs[t].index = (int)t;
    __syncthreads();
    quad_copies[t] = quads[planted && t == 0 ? 64 : 63 - t]; /* LINE: copy an int4 */
    pair_copies[t] = pairs[63 - t];
}

const char *emu_wide_reads(int *out, int planted)
{
    int4 *quads, h_quads[64];
    padded *pairs, h_pairs[64];
    CUDA_CHECK(cudaMalloc(&quads, sizeof h_quads));
    CUDA_CHECK(cudaMalloc(&pairs, sizeof h_pairs));
    wide_reads<<<1, 64>>>(quads, pairs, planted != 0);
    const char *error = kept(finish());
    CUDA_CHECK(cudaMemcpy(h_quads, quads, sizeof h_quads, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(h_pairs, pairs, sizeof h_pairs, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(quads));
    CUDA_CHECK(cudaFree(pairs));
    for (int t = 0; t < 64; t++)
        out[t] = h_pairs[t].index == 63 - t && h_pairs[t].weight == 63 - t ? h_quads[t].x : -1;
    return error;
}

/* ---- out of bounds: planted bugs ------------------------------------------- */

/* the bounds check left out */
__global__ void copy_unchecked(int *out, const int *in)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = in[i]; /* LINE: copy without bounds test */
}

const char *emu_out_of_bounds(int n)
{
    int *d_in = device_ints(NULL, n), *d = device_ints(NULL, n);
    copy_unchecked<<<(unsigned)ceil_div(n, 256), 256>>>(d, d_in);
    return finish();
}

const char *emu_named_out_of_bounds(int n)
{
    int *in = named("in", n), *out = named("out", n);
    copy_unchecked<<<(unsigned)ceil_div(n, 256), 256>>>(out, in);
    const char *error = finish();
    free_named(in);
    free_named(out);
    return error;
}

/* a right bounds test, but an index one below what it should be */
__global__ void shift_left(int *out, const int *in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i - 1] = in[i]; /* LINE: store one to the left */
}

const char *emu_before_start(int n)
{
    int *in = named("in", n), *out = named("out", n);
    shift_left<<<(unsigned)ceil_div(n, 256), 256>>>(out, in, n);
    const char *error = finish();
    free_named(in);
    free_named(out);
    return error;
}

/* an index far too large: with arrays packed close, out[far] would land in
 * the next array (here: one allocated just after out, large enough) */
__global__ void store_far(int *out, int far)
{
    out[threadIdx.x + far] = 7; /* LINE: store far away */
}

const char *emu_far_store(int n, int far)
{
    int *out = named("out", n), *next = named("next", (size_t)far * 2);
    store_far<<<1, 32>>>(out, far);
    const char *error = finish();
    free_named(out);
    free_named(next);
    return error;
}

const char *emu_use_after_free(int n)
{
    int *in = named("in", n), *out = named("out", n);
    free_named(in);
    copy_unchecked<<<1, 32>>>(out, in);
    const char *error = finish();
    free_named(out);
    return error;
}

/* ---- crashes inside a kernel: reported, and the next launch works -------- */

__global__ void store_through(int *p)
{
    p[threadIdx.x] = 1; /* LINE: store through a wild pointer */
}

__global__ void load_through(const int *p, int *out)
{
    out[threadIdx.x] = p[threadIdx.x]; /* LINE: load through a wild pointer */
}

/* the divisors come from memory, zeros: a compiler that saw a constant 0
 * would trap (SIGILL) instead of dividing */
__global__ void divide(int *out, const int *by)
{
    out[threadIdx.x] = 1000 / by[threadIdx.x]; /* LINE: divide by zero */
}

/* 400 KB of locals, used only here: the compiler instruments nothing, so
 * nothing is checked at its entry; the guard zone below the stack stops it,
 * at the stack probe of its opening (-fstack-clash-protection). */
__attribute__((noinline)) __device__ int with_big_array(unsigned t)
{ /* LINE: into a big local array */
    volatile int big[100000];
    big[t * 1000] = (int)t;
    return big[t * 1000];
}

/* 4 MB of locals: from thread 5, past the guard zone and into a stack below
 * it. Only the check at its entry (it is instrumented) can stop it. */
__attribute__((noinline)) __device__ void with_huge_array(int *out, unsigned t)
{ /* LINE: a function with a huge local array */
    volatile int huge[1000000];
    huge[t * 1000] = (int)t;
    out[t] = huge[t * 1000];
}

__global__ void big_local_array(int *out, bool huge)
{
    if (threadIdx.x != 5)
        out[threadIdx.x] = 0;
    else if (huge)
        with_huge_array(out, threadIdx.x);
    else
        out[threadIdx.x] = with_big_array(threadIdx.x);
}

/* Not instrumented, so no check at its entry: only a guard zone stops it. */
__attribute__((no_sanitize_thread)) __device__ int deep(int n)
{
    volatile char pad[1024];
    pad[n % 1024] = (char)n;
    if (n == 0)
        return 0;
    return deep(n - 1) + pad[n * 7 % 1024];
}

/* Thread 5 goes about 200 KB past its stack: into thread 4's, but for the
 * guard zone between them. */
__global__ void recurse(int *out, int depth)
{
    out[threadIdx.x] = deep(threadIdx.x == 5 ? depth : 0);
}

/* After a launch failed, cudaDeviceReset, then a correct launch: 1 if it
 * gives the right answer. */
static int next_launch_works(void)
{
    cudaDeviceReset();
    enum { N = 100 };
    int *d = device_ints(NULL, N), h[N];
    scale_index<int, 2><<<1, 128>>>(d, N);
    if (finish_ints(h, d, N))
        return 0;
    for (int i = 0; i < N; i++)
        if (h[i] != 2 * i)
            return 0;
    return 1;
}

const char *emu_crash(int what, int *then_ok)
{
    int *in = device_ints(NULL, 64), *out = device_ints(NULL, 64);
    long page = sysconf(_SC_PAGESIZE);
    void *gone = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(gone, page); /* an address no memory is at */
    if (what == CRASH_WILD_POINTER)
        store_through<<<1, 32>>>((int *)gone);
    else if (what == CRASH_WILD_READ)
        load_through<<<1, 32>>>((const int *)gone, out);
    else if (what == CRASH_DIVISION)
        divide<<<1, 32>>>(out, in);
    else if (what == CRASH_LOCAL_ARRAY || what == CRASH_HUGE_LOCAL_ARRAY)
        big_local_array<<<1, 32>>>(out, what == CRASH_HUGE_LOCAL_ARRAY);
    else
        recurse<<<1, 32>>>(out, 400);
    const char *error = kept(finish());
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    *then_ok = next_launch_works();
    return error;
}

/* ---- the kernel's name, launched through a pointer ------------------------ */

template <typename T> __global__ void one_too_far(T *out)
{
    out[threadIdx.x + 1] = T(1); /* LINE: one too far, through a pointer */
}

/* A race found at the block's end, when the thread that raced has returned. */
template <typename T> __global__ void neighbours_sum(T *out)
{
    __shared__ T values[64];
    values[threadIdx.x] = T(threadIdx.x);               /* LINE: each its own value */
    out[threadIdx.x] = values[(threadIdx.x + 1) % 64]; /* LINE: a neighbour's, without a barrier */
}

const char *emu_kernel_pointer(int race)
{
    int *out = named("out", 64);
    void (*k)(int *) = race ? neighbours_sum<int> : one_too_far<int>;
    k<<<1, 64>>>(out);
    const char *error = finish();
    free_named(out);
    return error;
}

/* ---- CUB, emulated: the calls a lab's library row makes ------------------- */

const char *emu_cub_device(int *sum, int *scan, int *histogram, const int *in, int n)
{
    int *d_in = device_ints(in, n), *d_scan = device_ints(NULL, n), *d_sum = device_ints(NULL, 1),
        *d_histogram = device_ints(NULL, 8);
    size_t bytes = 0, most = 0;
    CUDA_CHECK(cub::DeviceReduce::Sum(NULL, bytes, d_in, d_sum, n));
    most = bytes;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, bytes, d_in, d_scan, n));
    most = bytes > most ? bytes : most;
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(NULL, bytes, d_in, d_histogram, 9, 0, 8, n));
    most = bytes > most ? bytes : most;
    void *temp;
    CUDA_CHECK(cudaMalloc(&temp, most));
    CUDA_CHECK(cub::DeviceReduce::Sum(temp, most, d_in, d_sum, n));
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, most, d_in, d_scan, n));
    CUDA_CHECK(cub::DeviceHistogram::HistogramEven(temp, most, d_in, d_histogram, 9, 0, 8, n));
    CUDA_CHECK(cudaFree(temp));
    CUDA_CHECK(cudaFree(d_in));
    finish_ints(scan, d_scan, n);
    finish_ints(histogram, d_histogram, 8);
    return finish_ints(sum, d_sum, 1);
}

__global__ void block_scans(int *out, const int *in)
{
    typedef cub::BlockScan<int, 128> scan;
    __shared__ typename scan::TempStorage storage;
    int x = in[blockIdx.x * 128 + threadIdx.x], exclusive, inclusive;
    scan(storage).ExclusiveSum(x, exclusive);
    __syncthreads(); /* CUB's rule before the storage serves again */
    scan(storage).InclusiveSum(x, inclusive);
    out[2 * (blockIdx.x * 128 + threadIdx.x)] = exclusive;
    out[2 * (blockIdx.x * 128 + threadIdx.x) + 1] = inclusive;
}

const char *emu_cub_block_scan(int *out, const int *in, int blocks)
{
    int *d_in = device_ints(in, blocks * 128), *d = device_ints(NULL, 2 * blocks * 128);
    block_scans<<<blocks, 128>>>(d, d_in);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, 2 * blocks * 128);
}

/* ---- device memory between blocks ---------------------------------------------- */

void emu_seed_block_order(unsigned long long seed) { emu_block_order(seed); }

/* Every block adds its threads' count into one word. Planted: 1 adds with a
 * plain read and store, which races between blocks. */
__global__ void count_into_one(int *total, int planted)
{
    __shared__ int block_total;
    if (threadIdx.x == 0)
        block_total = 0;
    __syncthreads();
    atomicAdd(&block_total, 1);
    __syncthreads();
    if (threadIdx.x == 0) {
        if (planted == 1)
            *total += block_total; /* LINE: plain add of a block's total */
        else
            atomicAdd(total, block_total);
    }
}

const char *emu_count_into_one(int *total, int blocks, int planted)
{
    int *d = named("total", 1);
    count_into_one<<<blocks, 64>>>(d, planted);
    const char *error = kept(finish());
    CUDA_CHECK(cudaMemcpy(total, d, sizeof *total, cudaMemcpyDeviceToHost));
    free_named(d);
    return error;
}

/* A grid-stride copy. Planted: 1 steps by one block, not the whole grid,
 * so blocks copy each other's elements again; 2 copies a tile of four
 * rounds a block instead, from an unrolled loop, its tiles spaced three
 * rounds and one element apart: a block's last round rewrites the next
 * block's first, from another copy of the unrolled store. */
__global__ void stride_copy(int *out, const int *in, int n, int planted)
{
    if (planted == 2) {
        int tile = blockDim.x * 3 + 1; /* should be blockDim.x * 4 */
#pragma unroll
        for (int k = 0; k < 4; k++) {
            int i = blockIdx.x * tile + k * blockDim.x + threadIdx.x;
            if (i < n)
                out[i] = in[i]; /* LINE: unrolled tile store */
        }
        return;
    }
    int step = planted == 1 ? blockDim.x : blockDim.x * gridDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        out[i] = in[i]; /* LINE: grid-stride store */
}

const char *emu_stride_copy(int *out, const int *in, int n, int blocks, int planted,
                            unsigned long long *bytes_written)
{
    int *d_in = device_ints(in, n), *d = named("out", n);
    emu_bytes_written((char *)d - GUARD);
    stride_copy<<<blocks, 64>>>(d, d_in, n, planted);
    const char *error = kept(finish());
    *bytes_written = emu_bytes_written((char *)d - GUARD);
    CUDA_CHECK(cudaMemcpy(out, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_in));
    free_named(d);
    return error;
}

const char *emu_touched_arrays(int touched[3])
{
    enum { N = 1000 };
    int *d_in = device_ints(NULL, N), *d_out = device_ints(NULL, N), *d_unused = device_ints(NULL, N);
    emu_touched(d_in), emu_touched(d_unused);
    stride_copy<<<3, 64>>>(d_out, d_in, N, 0);
    const char *error = kept(finish());
    touched[0] = emu_touched(d_in);
    touched[1] = emu_touched(d_unused);
    touched[2] = emu_touched(d_in);
    CUDA_CHECK(cudaFree(d_in));
    CUDA_CHECK(cudaFree(d_out));
    CUDA_CHECK(cudaFree(d_unused));
    return error;
}

/* Blocks in a chain: each waits for the flag of the block before it, then
 * adds one to its value. Planted: 1 takes the place in the chain from
 * blockIdx.x, not a ticket; 2 stores the flag with no __threadfence()
 * after the value. */
__global__ void chain_planted(int *value, volatile int *flag, unsigned *ticket, int planted)
{
    if (threadIdx.x != 0)
        return;
    unsigned order = planted == 1 ? blockIdx.x : atomicAdd(ticket, 1u);
    int before = 0;
    if (order > 0) {
        while (flag[order - 1] == 0) /* LINE: wait for the flag before */
            ;
        before = value[order - 1]; /* LINE: read the value before */
    }
    value[order] = before + 1; /* LINE: store the value */
    if (planted != 2)
        __threadfence();
    flag[order] = 1; /* LINE: store the flag */
}

const char *emu_chain_planted(int *out, int blocks, int planted)
{
    int *value = named("value", blocks), *flag = named("flag", blocks);
    unsigned *ticket = zeroed_ticket();
    chain_planted<<<blocks, 32>>>(value, flag, ticket, planted);
    const char *error = kept(finish());
    CUDA_CHECK(cudaMemcpy(out, value, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    free_named(flag);
    free_named(value);
    CUDA_CHECK(cudaFree(ticket));
    return error;
}

/* Each block takes a ticket: out[ticket] is the block that took it, so the
 * order in which blocks started. */
__global__ void start_order(int *out, unsigned *ticket)
{
    if (threadIdx.x == 0)
        out[atomicAdd(ticket, 1u)] = blockIdx.x;
}

const char *emu_start_order(int *out, int blocks, unsigned long long seed)
{
    int *d = device_ints(NULL, blocks);
    unsigned *ticket = zeroed_ticket();
    emu_block_order(seed);
    start_order<<<blocks, 32>>>(d, ticket);
    CUDA_CHECK(cudaFree(ticket));
    return finish_ints(out, d, blocks);
}

/* Blocks take tickets in pairs: the first of a pair publishes a value, the
 * second waits for its flag, then copies the value. Planted: 1 stores the
 * flag before the value, 2 no __threadfence() between them, 3 only a
 * __threadfence_block(). Correct too: 4 publishes through atomics; 5 stores,
 * after its flag, a value that no other block reads. */
__global__ void publish_pairs(int *value, int *flag, int *out, unsigned *ticket, int planted)
{
    if (threadIdx.x != 0)
        return;
    unsigned t = atomicAdd(ticket, 1u), pair = t / 2;
    volatile int *seen = flag;
    if (t % 2 == 1) {
        while (planted == 4 ? atomicOr(&flag[pair], 0) == 0 : seen[pair] == 0)
            ;
        out[pair] = value[pair]; /* LINE: read the pair's value */
        return;
    }
    int v = (int)pair + 1;
    if (planted == 1) {
        seen[pair] = 1;  /* LINE: store the flag before the value */
        value[pair] = v; /* LINE: store the value after its flag */
        return;
    }
    value[pair] = v; /* LINE: store the pair's value */
    if (planted == 3)
        __threadfence_block(); /* LINE: fence only the block */
    else if (planted != 2)
        __threadfence();
    if (planted == 4)
        atomicExch(&flag[pair], 1);
    else
        seen[pair] = 1; /* LINE: store the pair's flag */
    if (planted == 5)
        out[gridDim.x / 2 + pair] = v;
}

const char *emu_publish_pairs(int *out, int pairs, int planted)
{
    int *value = named("value", pairs), *flag = named("flag", pairs), *d = device_ints(NULL, 2 * pairs);
    unsigned *ticket = zeroed_ticket();
    publish_pairs<<<2 * pairs, 32>>>(value, flag, d, ticket, planted);
    const char *error = kept(finish());
    finish_ints(out, d, pairs);
    free_named(flag);
    free_named(value);
    CUDA_CHECK(cudaFree(ticket));
    return error;
}

/* Each block stores its value, then takes a ticket after a __threadfence();
 * the block with the last ticket adds up every block's value, its threads
 * each a share. */
__global__ void last_block_sum(int *sum, int *partial, unsigned *count)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = (int)blockIdx.x + 1;
        __threadfence();
        last = atomicInc(count, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last)
        return;
    int share = 0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
        share += partial[b];
    atomicAdd(sum, share);
}

const char *emu_last_block_sum(int *sum, int blocks)
{
    int *d_sum = device_ints(NULL, 1), *partial = device_ints(NULL, blocks);
    unsigned *count;
    CUDA_CHECK(cudaMalloc(&count, sizeof *count));
    CUDA_CHECK(cudaMemset(count, 0, sizeof *count));
    last_block_sum<<<blocks, 64>>>(d_sum, partial, count);
    CUDA_CHECK(cudaFree(partial));
    CUDA_CHECK(cudaFree(count));
    return finish_ints(sum, d_sum, 1);
}

/* Blocks take tickets in pairs: the first of a pair reads a slot, then says
 * so with a flag after a __threadfence(); the second waits for the flag,
 * then writes the slot anew. */
__global__ void hand_over(int *slot, volatile int *flag, int *out, unsigned *ticket)
{
    if (threadIdx.x != 0)
        return;
    unsigned t = atomicAdd(ticket, 1u), pair = t / 2;
    if (t % 2 == 0) {
        out[pair] = slot[pair];
        __threadfence();
        flag[pair] = 1;
        return;
    }
    while (flag[pair] == 0)
        ;
    slot[pair] = -1;
}

const char *emu_hand_over(int *out, int pairs)
{
    for (int k = 0; k < pairs; k++)
        out[k] = k + 1;
    int *slot = device_ints(out, pairs), *flag = device_ints(NULL, pairs), *d = device_ints(NULL, pairs);
    unsigned *ticket = zeroed_ticket();
    hand_over<<<2 * pairs, 32>>>(slot, flag, d, ticket);
    CUDA_CHECK(cudaFree(slot));
    CUDA_CHECK(cudaFree(flag));
    CUDA_CHECK(cudaFree(ticket));
    return finish_ints(out, d, pairs);
}

/* Fibonacci numbers in a chain of blocks: the block with ticket k waits for
 * the flag of k - 1, then adds the values of k - 1 and k - 2. It learnt of
 * the value of k - 2 from block k - 1, which waited for its flag. */
__global__ void fibonacci_chain(int *value, volatile int *flag, unsigned *ticket)
{
    if (threadIdx.x != 0)
        return;
    unsigned k = atomicAdd(ticket, 1u);
    int v = 1;
    if (k > 0) {
        while (flag[k - 1] == 0)
            ;
        v = value[k - 1] + (k > 1 ? value[k - 2] : 0);
    }
    value[k] = v;
    __threadfence();
    flag[k] = 1;
}

const char *emu_fibonacci_chain(int *out, int blocks)
{
    int *value = device_ints(NULL, blocks), *flag = device_ints(NULL, blocks);
    unsigned *ticket = zeroed_ticket();
    fibonacci_chain<<<blocks, 32>>>(value, flag, ticket);
    CUDA_CHECK(cudaFree(flag));
    CUDA_CHECK(cudaFree(ticket));
    return finish_ints(out, value, blocks);
}

/* ---- device memory between the threads of a block ------------------------------ */

/* Each block adds up its part of data in place, halving it at each step.
 * Planted: 1 leaves out the barrier between the steps. */
__global__ void global_tree_sum(int *data, int planted)
{
    int *part = data + (size_t)blockIdx.x * blockDim.x;
    unsigned t = threadIdx.x;
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half)
            part[t] += part[t + half]; /* LINE: add the upper half in place */
        if (planted != 1)
            __syncthreads();
    }
}

const char *emu_global_tree_sum(int *out, const int *in, int blocks, int block, int planted)
{
    int *d = named("part", (size_t)blocks * block);
    CUDA_CHECK(cudaMemcpy(d, in, (size_t)blocks * block * sizeof(int), cudaMemcpyHostToDevice));
    global_tree_sum<<<blocks, block>>>(d, planted);
    const char *error = kept(finish());
    for (int b = 0; b < blocks; b++)
        CUDA_CHECK(cudaMemcpy(&out[b], d + (size_t)b * block, sizeof(int), cudaMemcpyDeviceToHost));
    free_named(d);
    return error;
}

/* Each thread stores its value in scratch, then adds the value of the
 * thread before it: in the block (0, 1, 2) or in its warp (3). Between the
 * two: 0 a __syncthreads(); planted, 1 nothing and 2 a __syncwarp(); 3 a
 * __syncwarp(), which is enough in one warp. */
__global__ void neighbour_values(int *out, int *scratch, const int *in, int planted)
{
    unsigned t = threadIdx.x, n = blockDim.x;
    scratch[t] = in[t]; /* LINE: store a value for the neighbour */
    if (planted == 0)
        __syncthreads();
    else if (planted != 1)
        __syncwarp();
    unsigned before = planted == 3 ? (t & ~31u) | ((t - 1) & 31u) : (t + n - 1) % n;
    out[t] = scratch[t] + scratch[before]; /* LINE: add the neighbour's value */
}

const char *emu_neighbour_values(int *out, const int *in, int block, int planted)
{
    int *d_in = device_ints(in, block), *scratch = named("scratch", block), *d = device_ints(NULL, block);
    neighbour_values<<<1, block>>>(d, scratch, d_in, planted);
    const char *error = kept(finish());
    finish_ints(out, d, block);
    free_named(scratch);
    CUDA_CHECK(cudaFree(d_in));
    return error;
}

/* Each lane stores its value, then adds the value of the lane beside it
 * (lane ^ 1), in shared memory or (global) in device memory. Between the
 * two: 0 a __syncwarp(); planted, a collective that exchanges values but
 * orders no memory: 1 a shuffle, 2 a ballot, 3 a vote, 4 a match. */
__global__ void swap_after_collective(int *out, int *scratch, const int *in, int between,
                                      bool global)
{
    __shared__ int words[64];
    unsigned t = threadIdx.x;
    int *s = global ? scratch : words, v = in[t];
    s[t] = v; /* LINE: store for the lane beside */
    if (between == 0)
        __syncwarp();
    else if (between == 1)
        __shfl_xor_sync(~0u, v, 1); /* LINE: shuffle between */
    else if (between == 2)
        __ballot_sync(~0u, v & 1); /* LINE: ballot between */
    else if (between == 3)
        __all_sync(~0u, v >= 0); /* LINE: vote between */
    else
        __match_any_sync(~0u, v); /* LINE: match between */
    out[t] = v + s[t ^ 1]; /* LINE: read the lane beside's */
}

const char *emu_swap_after_collective(int *out, const int *in, int between, int global)
{
    int *d_in = device_ints(in, 64), *scratch = named("scratch", 64), *d = device_ints(NULL, 64);
    swap_after_collective<<<1, 64>>>(d, scratch, d_in, between, global != 0);
    const char *error = kept(finish());
    finish_ints(out, d, 64);
    free_named(scratch);
    CUDA_CHECK(cudaFree(d_in));
    return error;
}

/* ---- bounds of __shared__ arrays -------------------------------------------------- */

/* A block's 64 values through a padded array: one pad word after every
 * 32, so 66 words. Planted: 1 declares it without room for the pads. */
__global__ void padded_copy(int *out, const int *in, int planted)
{
    __shared__ int roomy[64 + 64 / 32];
    __shared__ int cramped[64];
    int *padded = planted == 1 ? cramped : roomy;
    unsigned t = threadIdx.x, at = t + t / 32;
    padded[at] = in[blockIdx.x * 64 + t]; /* LINE: store into the padded array */
    __syncthreads();
    out[blockIdx.x * 64 + t] = padded[at];
}

const char *emu_padded_copy(int *out, const int *in, int blocks, int planted)
{
    int *d_in = device_ints(in, blocks * 64), *d = device_ints(NULL, blocks * 64);
    padded_copy<<<blocks, 64>>>(d, d_in, planted);
    CUDA_CHECK(cudaFree(d_in));
    return finish_ints(out, d, blocks * 64);
}

/* ---- threads that wait for each other ------------------------------------------- */

/* Thread 0 waits for a flag that thread 1 raises after its value, then
 * copies the value. Planted: 1 raises it only after a __syncthreads() that
 * thread 0, waiting, never reaches. */
__global__ void wait_for_neighbour(int *out, volatile int *flag, int planted)
{
    if (threadIdx.x == 0) {
        while (*flag == 0) /* LINE: wait for the neighbour's flag */
            ;
        out[0] = out[1];
        return;
    }
    if (planted == 1)
        __syncthreads();
    if (threadIdx.x == 1) {
        out[1] = 1;
        __threadfence_block();
        *flag = 1;
    }
}

const char *emu_wait_for_neighbour(int *out, int planted)
{
    int *d = device_ints(NULL, 2), *flag = named("flag", 1);
    wait_for_neighbour<<<1, 64>>>(d, flag, planted);
    const char *error = kept(finish());
    free_named(flag);
    finish_ints(out, d, 1);
    return error;
}

/* ---- what a profiler counts --------------------------------------------- */

__global__ void shared_stride_kernel(int *out, int stride)
{
    __shared__ int words[32 * 32];
    words[threadIdx.x * stride] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = words[threadIdx.x * stride];
}

const char *emu_count_shared_stride(struct access_counts *c, int stride)
{
    int *out = device_ints(NULL, 32);
    access_counts_begin();
    shared_stride_kernel<<<1, 32>>>(out, stride);
    const char *error = finish();
    access_counts_end(c);
    CUDA_CHECK(cudaFree(out));
    return error;
}

__global__ void global_stride_kernel(int *out, const int *in, int stride)
{
    out[threadIdx.x] = in[threadIdx.x * stride];
}

const char *emu_count_global_stride(struct access_counts *c, int stride)
{
    int *in = device_ints(NULL, 32 * stride), *out = device_ints(NULL, 32);
    access_counts_begin();
    global_stride_kernel<<<1, 32>>>(out, in, stride);
    const char *error = finish();
    access_counts_end(c);
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    return error;
}

const char *emu_count_then_not(struct access_counts *counted, struct access_counts *after)
{
    int *in = device_ints(NULL, 32), *out = device_ints(NULL, 32);
    access_counts_begin();
    global_stride_kernel<<<1, 32>>>(out, in, 1);
    const char *error = finish();
    access_counts_end(counted);
    global_stride_kernel<<<1, 32>>>(out, in, 1);
    const char *later = finish();
    access_counts_end(after);
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    return error ? error : later;
}

__global__ void broadcast_kernel(int *out, const int *in)
{
    __shared__ int word;
    if (threadIdx.x == 0)
        word = 7;
    __syncthreads();
    if (threadIdx.x % 2 == 0)
        out[threadIdx.x] = word + in[0];
}

const char *emu_count_broadcast(struct access_counts *c)
{
    int *in = device_ints(NULL, 1), *out = device_ints(NULL, 32);
    access_counts_begin();
    broadcast_kernel<<<1, 32>>>(out, in);
    const char *error = finish();
    access_counts_end(c);
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    return error;
}

/* A warp's values through a __device__ array (the emulation compiles it as
 * an ordinary global): one request a warp each way, as for cudaMalloc's.
 * Then lane 0 alone sums 32 shared words, after a shuffle, and loads one
 * more value: the busiest thread, and a load after waiting. */
__device__ int device_values[64];

__global__ void device_variable_kernel(int *out, const int *in)
{
    __shared__ int words[32];
    unsigned t = threadIdx.x;
    device_values[t] = in[t];
    __syncwarp();
    int v = __shfl_sync(0xffffffffu, device_values[31 - t], 0);
    words[t] = v;
    __syncwarp();
    if (t == 0) {
        int sum = in[32];
        for (int k = 0; k < 32; k++) /* volatile: 32 loads, which clang 16 would fold into one */
            sum += ((volatile int *)words)[k];
        out[0] = sum;
    }
}

const char *emu_count_device_variable(struct access_counts *c)
{
    int *in = device_ints(NULL, 64), *out = device_ints(NULL, 1);
    access_counts_begin();
    device_variable_kernel<<<1, 32>>>(out, in);
    const char *error = finish();
    access_counts_end(c);
    CUDA_CHECK(cudaFree(in));
    CUDA_CHECK(cudaFree(out));
    return error;
}

/* ---- what C++ leaves undefined, and copies past an array ------------------------------------- */

__global__ void lanes_below_kernel(unsigned *out, int by_width)
{
    unsigned lane = threadIdx.x % 32;
    /* the mask of the lanes below: a shift by 32 at lane 0 when planted */
    out[threadIdx.x] = by_width ? 0xffffffffu >> (32 - lane) : (1u << lane) - 1;
}

const char *emu_lanes_below(unsigned *out, int by_width)
{
    unsigned *d_out;
    CUDA_CHECK(cudaMalloc(&d_out, 32 * sizeof *d_out));
    lanes_below_kernel<<<1, 32>>>(d_out, by_width);
    const char *error = finish();
    if (!error)
        CUDA_CHECK(cudaMemcpy(out, d_out, 32 * sizeof *out, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_out));
    return error;
}

/* The error of a copy to, from or a set of the device array `bytes` long,
 * `past` bytes past its end (a null device side if past < 0). */
const char *emu_copy_past_the_end(int what, int past)
{
    size_t bytes = 400;
    char host[512] = {0}, *d;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    char *device = past < 0 ? NULL : d;
    size_t size = bytes + (past < 0 ? 0 : (size_t)past);
    cudaError_t e = what == 0   ? cudaMemcpy(device, host, size, cudaMemcpyHostToDevice)
                    : what == 1 ? cudaMemcpy(host, device, size, cudaMemcpyDeviceToHost)
                                : cudaMemset(device, 0, size);
    (void)cudaGetLastError();
    CUDA_CHECK(cudaFree(d));
    return e == cudaSuccess ? NULL : cudaGetErrorString(e);
}
