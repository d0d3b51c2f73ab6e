/* emu_kernels.h: the entry points of emu_kernels.cu, for test_emu.c. Each
 * returns NULL when its launch succeeded, else CUDA's error string. */
#ifndef EMU_KERNELS_H
#define EMU_KERNELS_H

#ifdef __cplusplus
extern "C" {
#endif

/* n ints on the device: a copy of h, or zeros (NULL). */
int *device_ints(const int *h, size_t n);

struct shape {
    unsigned x, y, z;
};

struct counters_out {
    int add, sub, max, min, cas, and_bits, or_bits, xor_bits;
    unsigned uadd, inc;
    unsigned long long ulladd;
    float fadd;
};

const char *emu_launch_syntax(int *out, int n, const char **text);
const char *emu_indices(int *out, struct shape grid, struct shape block);
/* filled: every thread writes the word it reads, else only thread 0 */
const char *emu_read_own_word(int *out, int blocks, int filled);
const char *emu_dynamic_shared_reverse(int *out, const int *in, int blocks, int block);
const char *emu_dynamic_shared_too_small(void);
const char *emu_divergent_barrier(void);
const char *emu_two_barriers(void);
const char *emu_barrier_in_bounds_test(void);
const char *emu_barrier_counts(int *out, int block);
const char *emu_shuffles(int *out, int block);
const char *emu_votes(int *out, int block);
const char *emu_some_lanes_then_the_warp(int *out, int block);
const char *emu_missing_lane(void);
const char *emu_bits(int *out, const int *in, int n);
const char *emu_atomics(struct counters_out *out, int blocks, int block);
const char *emu_exchange_floats(int *out);
const char *emu_chained_blocks(int *out, int blocks);
const char *emu_tree_sum(int *out, const int *in, int blocks, int block, int planted);
const char *emu_tile_transpose(int *out, const int *in, int planted);
const char *emu_colliding_places(int *out, int block, int planted);
const char *emu_stepped_rotation(int *out, const int *in, int blocks, int block, int planted);
const char *emu_spin_after_race(void);
const char *emu_volatile_last_warp(void);
const char *emu_warp_scan(int *out, const int *in, int planted);
const char *emu_shared_histogram(int *bins, const int *in, int n, int planted);
const char *emu_transpose_tile(int *out, const int *in, int rows, int cols, int planted);
const char *emu_own_bytes(unsigned char *bytes);
const char *emu_reverse_tile(int *out, const int *in, int n, int planted);
/* guarded: the slots past n are loaded as 0, else left unwritten */
const char *emu_brent_kung_scan(int *out, const int *in, int n, int guarded);
const char *emu_neighbour_bytes(int *out, int planted);
const char *emu_wide_reads(int *out, int planted);
const char *emu_out_of_bounds(int n);
const char *emu_named_out_of_bounds(int n);
const char *emu_before_start(int n);
const char *emu_far_store(int n, int far);
const char *emu_use_after_free(int n);
enum crash_kind {
    CRASH_WILD_POINTER,
    CRASH_WILD_READ,
    CRASH_DIVISION,
    CRASH_LOCAL_ARRAY,
    CRASH_HUGE_LOCAL_ARRAY,
    CRASH_RECURSION
};
/* then_ok: whether a correct launch after it (and cudaDeviceReset) works */
const char *emu_crash(int what, int *then_ok);
/* race: a race on shared memory, else a store past the end of an array */
const char *emu_kernel_pointer(int race);
/* What the emulation counts of memory accesses (common/emu/counts.cpp), for
 * one warp: lane i reads and writes shared word i * stride, then stores it
 * to device memory; lane i reads device int i * stride; every even lane
 * reads shared word 0 and device int 0. */
struct access_counts;
const char *emu_count_shared_stride(struct access_counts *c, int stride);
const char *emu_count_global_stride(struct access_counts *c, int stride);
const char *emu_count_broadcast(struct access_counts *c);
/* a warp's values stored to a __device__ array and read back; then lane 0
 * alone loads a value and reads 32 shared words, after a shuffle */
const char *emu_count_device_variable(struct access_counts *c);
/* one launch counted, then one after the count ended: `after` is the
 * totals asked for again */
const char *emu_count_then_not(struct access_counts *counted, struct access_counts *after);
const char *emu_cub_device(int *sum, int *scan, int *histogram, const int *in, int n);
const char *emu_cub_block_scan(int *out, const int *in, int blocks);
/* blocks start in an order this seed scrambles */
void emu_seed_block_order(unsigned long long seed);
/* planted: 0 for the correct kernel, else which mistake */
const char *emu_count_into_one(int *total, int blocks, int planted);
const char *emu_stride_copy(int *out, const int *in, int n, int blocks, int planted,
                            unsigned long long *bytes_written);
/* whether a copy touched its input, an array it never uses, and its input
 * again after the first question cleared the mark */
const char *emu_touched_arrays(int touched[3]);
const char *emu_chain_planted(int *out, int blocks, int planted);
const char *emu_start_order(int *out, int blocks, unsigned long long seed);
const char *emu_padded_copy(int *out, const int *in, int blocks, int planted);
const char *emu_wait_for_neighbour(int *out, int planted);
/* out[k]: what the reader of pair k copied */
const char *emu_publish_pairs(int *out, int pairs, int planted);
const char *emu_last_block_sum(int *sum, int blocks);
/* out[k]: what the first of pair k read before the second wrote */
const char *emu_hand_over(int *out, int pairs);
const char *emu_fibonacci_chain(int *out, int blocks);
/* out[b]: block b's sum, left in its part's first element */
const char *emu_global_tree_sum(int *out, const int *in, int blocks, int block, int planted);
const char *emu_neighbour_values(int *out, const int *in, int block, int planted);
/* out[t]: lane t's value plus the value of lane t ^ 1, in one block of 64;
 * between: 0 a __syncwarp(), planted 1 a shuffle, 2 a ballot, 3 a vote, 4 a
 * match; global: through device memory, else shared */
const char *emu_swap_after_collective(int *out, const int *in, int between, int global);

const char *emu_lanes_below(unsigned *out, int by_width);
const char *emu_copy_past_the_end(int what, int past);

#ifdef __cplusplus
}
#endif

#endif
