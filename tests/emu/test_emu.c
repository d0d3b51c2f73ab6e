/* test_emu.c: the CPU emulation's own tests (EMU=1 builds only). One test per
 * behaviour the emulation promises: correct kernels give the GPU's answers,
 * planted bugs are stopped with a message naming what went wrong. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_kernels.h"
#include "marked.h"
#include "workbook.h"

#define TIMEOUT .timeout = 30.0

static uint64_t seed;

static void random_ints(int *x, size_t n, int mod)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++)
        x[i] = (int)(rng_next(&state) % (uint64_t)mod);
}

/* The failure message must exist and say each of the given things. */
static void expect_error_saying(const char *error, const char *const *phrases)
{
    cr_assert_not_null(error, "the planted bug went unreported");
    for (; *phrases; phrases++)
        cr_expect(strstr(error, *phrases), "the report lacks \"%s\":\n%s", *phrases, error);
}

/* ... and must not say this one. */
static void expect_error_not_saying(const char *error, const char *phrase)
{
    cr_assert_not_null(error, "the planted bug went unreported");
    cr_expect(!strstr(error, phrase), "the report says \"%s\":\n%s", phrase, error);
}

static void expect_success(const char *error)
{
    cr_assert_null(error, "the launch failed: %s", error);
}

/* "tests/emu/emu_kernels.cu:42", the line of that file marked "LINE: <what>" */
static const char *line_of(const char *what) { return marked("tests/emu/emu_kernels.cu", what); }

/* "(tests/emu/emu_kernels.cu:42)" */
static const char *at_line(const char *what)
{
    static char found[8][90];
    static int next;
    char *text = found[next++ % 8];
    snprintf(text, sizeof found[0], "(%s)", line_of(what));
    return text;
}

static void start(void)
{
    seed = seed_from_env();
    emu_seed_block_order(seed);
}

TestSuite(emu, .init = start);

/* ---- the rewriter and launches --------------------------------------------- */

Test(emu, launches_spread_over_lines_among_comments_and_strings, TIMEOUT)
{
    enum { N = 1000 };
    int out[N];
    const char *text;
    expect_success(emu_launch_syntax(out, N, &text));
    cr_expect_str_eq(text, "kernel<<<1, 2>>>(x); __shared__ int s[4];");
    for (int i = 0; i < N; i++)
        cr_assert_eq(out[i], 3 * i, "out[%d] = %d, expected %d", i, out[i], 3 * i);
}

Test(emu, gives_each_thread_its_3d_indices, TIMEOUT)
{
    struct shape grid = {2, 3, 2}, block = {4, 2, 3};
    enum { N = 2 * 3 * 2 * 4 * 2 * 3 };
    int out[N];
    expect_success(emu_indices(out, grid, block));
    int k = 0;
    for (unsigned bz = 0; bz < grid.z; bz++)
        for (unsigned by = 0; by < grid.y; by++)
            for (unsigned bx = 0; bx < grid.x; bx++)
                for (unsigned tz = 0; tz < block.z; tz++)
                    for (unsigned ty = 0; ty < block.y; ty++)
                        for (unsigned tx = 0; tx < block.x; tx++, k++) {
                            int want = (int)(tx + 10 * ty + 100 * tz + 1000 * bx + 10000 * by +
                                             100000 * bz);
                            cr_assert_eq(out[k], want, "out[%d] = %d, expected %d", k, out[k], want);
                        }
}

/* ---- shared memory ----------------------------------------------------------- */

/* The second launch's blocks find the words the first launch's wrote:
 * written, but by an earlier block, which counts for nothing. */
Test(emu, stops_a_read_of_shared_memory_no_thread_of_the_block_wrote, TIMEOUT)
{
    enum { BLOCKS = 8 };
    int out[BLOCKS * 64];
    expect_success(emu_read_own_word(out, BLOCKS, 1));
    for (int i = 0; i < BLOCKS * 64; i++)
        cr_assert_eq(out[i], i % 64 + 7, "out[%d] = %d, expected %d", i, out[i], i % 64 + 7);
    char what[300];
    snprintf(what, sizeof what, "thread 1 reads words[1] %s, which no thread of this block has "
             "written", at_line("read own word"));
    expect_error_saying(emu_read_own_word(out, BLOCKS, 0),
                        (const char *[]){"kernel read_own_word, block (", what,
                                         "whatever an earlier block left", NULL});
}

Test(emu, gives_a_launch_its_dynamic_shared_memory, TIMEOUT)
{
    enum { BLOCKS = 5, BLOCK = 96 };
    int in[BLOCKS * BLOCK], out[BLOCKS * BLOCK];
    random_ints(in, BLOCKS * BLOCK, 1000);
    expect_success(emu_dynamic_shared_reverse(out, in, BLOCKS, BLOCK));
    for (int i = 0; i < BLOCKS * BLOCK; i++) {
        int want = in[i / BLOCK * BLOCK + BLOCK - 1 - i % BLOCK];
        cr_assert_eq(out[i], want, "out[%d] = %d, expected %d", i, out[i], want);
    }
}

Test(emu, stops_an_access_past_the_dynamic_shared_memory, TIMEOUT)
{
    expect_error_saying(emu_dynamic_shared_too_small(),
                        (const char *[]){"kernel reverse_blocks", "thread 32", "slice[32]",
                                         "past the 128 bytes of dynamic shared memory", NULL});
}

/* ---- barriers ------------------------------------------------------------------ */

Test(emu, stops_a_barrier_that_not_every_thread_reaches, TIMEOUT)
{
    char waits[200];
    snprintf(waits, sizeof waits, "wait at __syncthreads() %s", at_line("barrier in branch"));
    expect_error_saying(emu_divergent_barrier(),
                        (const char *[]){"kernel barrier_in_branch, block (", /* either block may be first */
                                         "threads 0, 1, 2", waits, "threads 16, 17",
                                         "returned without reaching it", NULL});
}

Test(emu, names_the_barrier_that_threads_past_a_bounds_test_skipped, TIMEOUT)
{
    char waits[200];
    snprintf(waits, sizeof waits, "wait at __syncthreads() %s", at_line("barrier in a bounds test"));
    const char *error = emu_barrier_in_bounds_test();
    expect_error_saying(error, (const char *[]){"kernel barrier_in_bounds_test, block (0, 0, 0)",
                                                "threads 0, 1, 2", waits, "threads 32, 33",
                                                "skipped: they returned without reaching it", NULL});
    expect_error_not_saying(error, "race");
}

Test(emu, stops_threads_waiting_at_two_different_barriers, TIMEOUT)
{
    char first[200], second[200];
    snprintf(first, sizeof first, "threads 0, 1, 2, 3, 4, 5, 6, 7 and 56 more wait at the "
             "__syncthreads() of %s", line_of("first of two barriers"));
    snprintf(second, sizeof second, "threads 64, 65, 66, 67, 68, 69, 70, 71 and 56 more wait at "
             "the one of %s", line_of("second of two barriers"));
    expect_error_saying(emu_two_barriers(),
                        (const char *[]){"kernel two_barriers, block (0, 0, 0)", first, second,
                                         "must all meet at the same __syncthreads()", NULL});
}

Test(emu, counts_votes_at_block_barriers, TIMEOUT)
{
    enum { BLOCK = 100 };
    int out[BLOCK];
    expect_success(emu_barrier_counts(out, BLOCK));
    int count = (BLOCK + 2) / 3; /* threads 0, 3, 6, ... */
    for (int t = 0; t < BLOCK; t++)
        cr_assert_eq(out[t], count + 1000 + 10000, "thread %d: %d", t, out[t]);
}

/* ---- warps ----------------------------------------------------------------------- */

/* CUDA's rules for the lane a shuffle reads, written out once more here. */
static int shuffled(int self, int kind, int arg, int width)
{
    int start = self / width * width, src = self;
    if (kind == 0)
        src = start + arg % width;
    else if (kind == 1)
        src = self - arg >= start ? self - arg : self;
    else if (kind == 2)
        src = self + arg < start + width ? self + arg : self;
    else
        src = (self ^ arg) < start + width ? self ^ arg : self;
    return src;
}

Test(emu, shuffles_as_cuda_defines_them, TIMEOUT)
{
    enum { BLOCK = 64 };
    int out[6 * BLOCK];
    expect_success(emu_shuffles(out, BLOCK));
    for (int t = 0; t < BLOCK; t++) {
        int lane = t % 32, warp = t / 32;
        int want[6] = {
            shuffled(lane, 0, 31 - lane, 32) * 10 + warp,
            shuffled(lane, 1, 1, 32) * 10 + warp,
            shuffled(lane, 2, 2, 32) * 10 + warp,
            shuffled(lane, 3, 5, 32) * 10 + warp,
            shuffled(lane, 1, 1, 8) * 10 + warp,
            shuffled(lane, 2, 16, 32) * 10 + warp,
        };
        for (int k = 0; k < 6; k++)
            cr_assert_eq(out[6 * t + k], want[k], "thread %d, shuffle %d: %d, expected %d", t, k,
                         out[6 * t + k], want[k]);
    }
}

Test(emu, votes_across_a_warp, TIMEOUT)
{
    enum { BLOCK = 64 };
    int out[6 * BLOCK];
    expect_success(emu_votes(out, BLOCK));
    for (int t = 0; t < BLOCK; t++) {
        int lane = t % 32;
        /* floats match on their bits: 1.25f is not 1.0f */
        int want[6] = {(int)0xAAAAAAAAu, 1, 1, -1, (int)(0xFu << (lane / 4 * 4)),
                       (int)(0x5u << (lane / 4 * 4 + lane % 2))};
        for (int k = 0; k < 6; k++)
            cr_assert_eq(out[6 * t + k], want[k], "thread %d, vote %d: %#x, expected %#x", t, k,
                         (unsigned)out[6 * t + k], (unsigned)want[k]);
    }
}

Test(emu, lets_a_warp_collective_wait_for_lanes_finishing_a_call_of_their_own, TIMEOUT)
{
    enum { BLOCK = 64 };
    int out[BLOCK];
    expect_success(emu_some_lanes_then_the_warp(out, BLOCK));
    for (int t = 0; t < BLOCK; t++) {
        int from = 31 - t % 32, want = from >= 8 && from < 24 ? from ^ 1 : from;
        cr_assert_eq(out[t], want, "thread %d: %d, expected %d", t, out[t], want);
    }
}

Test(emu, stops_a_warp_collective_that_a_lane_of_its_mask_never_reaches, TIMEOUT)
{
    char shuffle[200], barrier[200];
    snprintf(shuffle, sizeof shuffle, "wait in __shfl_down_sync %s", at_line("half-warp shuffle"));
    snprintf(barrier, sizeof barrier, "wait at __syncthreads() %s instead",
             at_line("barrier after the shuffle"));
    expect_error_saying(emu_missing_lane(),
                        (const char *[]){"kernel half_warp_shuffle", "warp 0", shuffle,
                                         "lanes 16, 17", barrier, NULL});
}

/* ---- intrinsics and atomics ------------------------------------------------------- */

Test(emu, counts_and_reverses_bits, TIMEOUT)
{
    enum { N = 500 };
    int in[N], out[4 * N];
    random_ints(in, N, 1 << 30);
    in[0] = 0;
    in[1] = -1;
    in[2] = 1 << 20;
    expect_success(emu_bits(out, in, N));
    for (int i = 0; i < N; i++) {
        unsigned x = (unsigned)in[i], reversed = 0;
        int ones = 0, first = 0, leading = 0;
        for (int b = 0; b < 32; b++) {
            ones += x >> b & 1;
            reversed |= (x >> b & 1) << (31 - b);
            if (!first && (x >> b & 1))
                first = b + 1;
        }
        while (leading < 32 && !(x >> (31 - leading) & 1))
            leading++;
        int want[4] = {ones, (int)reversed, first, leading};
        for (int k = 0; k < 4; k++)
            cr_assert_eq(out[4 * i + k], want[k], "input %#x, intrinsic %d: %#x, expected %#x", x,
                         k, (unsigned)out[4 * i + k], (unsigned)want[k]);
    }
}

Test(emu, makes_atomics_exact_under_contention_between_blocks, TIMEOUT)
{
    enum { BLOCKS = 64, BLOCK = 256, T = BLOCKS * BLOCK };
    struct counters_out c;
    expect_success(emu_atomics(&c, BLOCKS, BLOCK));
    cr_expect_eq(c.add, T);
    cr_expect_eq(c.sub, -2 * T);
    cr_expect_eq(c.max, T - 1);
    cr_expect_eq(c.min, -(T - 1));
    cr_expect_eq(c.cas, 3 * T);
    cr_expect_eq(c.and_bits, (int)0x80000000u);
    cr_expect_eq(c.or_bits, 0x7FFFFFFF);
    cr_expect_eq(c.xor_bits, T % 2);
    cr_expect_eq(c.uadd, 1000000u + T);
    cr_expect_eq(c.inc, T % 10u);
    cr_expect_eq(c.ulladd, (unsigned long long)T << 33);
    cr_expect_eq(c.fadd, (float)T);
}

Test(emu, exchanges_a_float_bit_for_bit, TIMEOUT)
{
    int out[3];
    expect_success(emu_exchange_floats(out));
    cr_expect_eq((unsigned)out[0], 0x80000000u, "left %#x, expected -0.0", (unsigned)out[0]);
    cr_expect_eq((unsigned)out[1], POISON_WORD, "first returned %#x, expected the poison",
                 (unsigned)out[1]);
    cr_expect_eq((unsigned)out[2], 0x3FC00000u, "then returned %#x, expected 1.5",
                 (unsigned)out[2]);
}

Test(emu, lets_a_block_wait_for_a_flag_an_earlier_block_sets, TIMEOUT)
{
    enum { BLOCKS = 200 };
    int out[BLOCKS];
    expect_success(emu_chained_blocks(out, BLOCKS));
    for (int b = 0; b < BLOCKS; b++)
        cr_assert_eq(out[b], b + 1, "value[%d] = %d, expected %d", b, out[b], b + 1);
}

/* Each block's sum of its BLOCK values of in, in out[b]. */
static void expect_block_sums(const int *out, const int *in, int blocks, int block)
{
    for (int b = 0; b < blocks; b++) {
        int want = 0;
        for (int t = 0; t < block; t++)
            want += in[b * block + t];
        cr_assert_eq(out[b], want, "block %d: %d, expected %d", b, out[b], want);
    }
}

/* ---- the race detector --------------------------------------------------------------- */

Test(emu, passes_a_tree_sum_with_its_barriers, TIMEOUT)
{
    enum { BLOCKS = 4, BLOCK = 256 };
    int in[BLOCKS * BLOCK], out[BLOCKS];
    random_ints(in, BLOCKS * BLOCK, 100);
    expect_success(emu_tree_sum(out, in, BLOCKS, BLOCK, 0));
    expect_block_sums(out, in, BLOCKS, BLOCK);
}

Test(emu, catches_a_tree_sum_missing_a_barrier, TIMEOUT)
{
    enum { BLOCKS = 4, BLOCK = 256 };
    int in[BLOCKS * BLOCK], out[BLOCKS];
    random_ints(in, BLOCKS * BLOCK, 100);
    expect_error_saying(emu_tree_sum(out, in, BLOCKS, BLOCK, 1),
                        (const char *[]){"kernel tree_sum", "a race on shared memory",
                                         "thread 128 writes sums[128]", "which thread 0 read",
                                         "emu_kernels.cu:", "__syncthreads() between", NULL});
}

/* Without the barrier in the tree's loop, the first racing pair the
 * emulation meets is two neighbours of warp 0; the report must still name
 * the fix, a __syncthreads(), with a pair from two warps. */
static void expect_block_barrier_advice(const char *error)
{
    expect_error_saying(error, (const char *[]){"a race on shared memory", "emu_kernels.cu:",
                                                "__syncthreads() between the two accesses is missing",
                                                NULL});
    expect_error_not_saying(error, "__syncwarp()");
    expect_error_not_saying(error, "Both threads read");
}

Test(emu, advises_syncthreads_for_a_tree_sum_without_its_loop_barrier, TIMEOUT)
{
    enum { BLOCKS = 2 };
    static int in[BLOCKS * 1024], out[BLOCKS];
    random_ints(in, BLOCKS * 1024, 100);
    for (int block = 256; block <= 1024; block *= 4)
        expect_block_barrier_advice(emu_tree_sum(out, in, BLOCKS, block, 2));
}

/* Blocks of two dimensions: threads are named by (x, y, z), and the race
 * detector and the bounds checks work as for one. */
Test(emu, checks_a_two_dimensional_block, TIMEOUT)
{
    int in[32 * 32], out[32 * 32];
    random_ints(in, 32 * 32, 100);
    cr_assert_null(emu_tile_transpose(out, in, 0));
    for (int r = 0; r < 32; r++)
        for (int c = 0; c < 32; c++)
            cr_assert_eq(out[c * 32 + r], in[r * 32 + c], "out[%d][%d]", c, r);
    expect_error_saying(emu_tile_transpose(out, in, 1),
                        (const char *[]){"kernel tile_transpose", "a race on shared memory",
                                         "thread (", ", 0)", "emu_kernels.cu:", NULL});
    expect_error_saying(emu_tile_transpose(out, in, 2),
                        (const char *[]){"kernel tile_transpose", "thread (", ", 31, 0)",
                                         "just past its end", NULL});
}

/* Two threads writing one word from one line may have computed the same
 * place (a wrong rank), which no barrier mends: the report says both. */
Test(emu, names_colliding_places_beside_a_missing_barrier, TIMEOUT)
{
    enum { BLOCK = 64 };
    int out[BLOCK];
    cr_assert_null(emu_colliding_places(out, BLOCK, 0));
    for (int t = 0; t < BLOCK; t++)
        cr_assert_eq(out[t], t, "placed[%d] = %d", t, out[t]);
    const char *error = emu_colliding_places(out, BLOCK, 1);
    expect_error_saying(error, (const char *[]){"a race on shared memory", "emu_kernels.cu:",
                                                "the two threads computed the same index",
                                                "or a barrier between the two writes is missing",
                                                NULL});
}

Test(emu, passes_a_stepped_rotation_with_its_barriers, TIMEOUT)
{
    enum { BLOCKS = 3, BLOCK = 256 };
    int in[BLOCKS * BLOCK], out[BLOCKS * BLOCK];
    random_ints(in, BLOCKS * BLOCK, 100);
    expect_success(emu_stepped_rotation(out, in, BLOCKS, BLOCK, 0));
    for (int i = 0; i < BLOCKS * BLOCK; i++) {
        int from = i - i % BLOCK + (i + BLOCK - 1) % BLOCK; /* one place: t - 1, cyclically */
        cr_assert_eq(out[i], in[from], "out[%d] = %d, expected in[%d] = %d", i, out[i], from, in[from]);
    }
}

Test(emu, advises_syncthreads_for_a_stepped_rotation_without_barriers, TIMEOUT)
{
    enum { BLOCKS = 2 };
    static int in[BLOCKS * 1024], out[BLOCKS * 1024];
    random_ints(in, BLOCKS * 1024, 100);
    for (int block = 64; block <= 1024; block *= 4)
        expect_block_barrier_advice(emu_stepped_rotation(out, in, BLOCKS, block, 1));
}

Test(emu, ends_a_block_that_spins_on_what_a_race_left, TIMEOUT)
{
    expect_error_saying(emu_spin_after_race(),
                        (const char *[]){"kernel spin_on_race, block (0, 0, 0): a race on shared "
                                         "memory", "thread 1 reads flag", "which thread 0 wrote",
                                         NULL});
}

Test(emu, passes_a_warp_scan_with_syncwarp, TIMEOUT)
{
    int in[64], out[64];
    random_ints(in, 64, 100);
    expect_success(emu_warp_scan(out, in, 0));
    for (int t = 0, sum = 0; t < 64; t++) {
        sum = (t % 32 ? sum : 0) + in[t];
        cr_assert_eq(out[t], sum, "thread %d: %d, expected %d", t, out[t], sum);
    }
}

Test(emu, catches_the_volatile_warp_scan_without_syncwarp, TIMEOUT)
{
    int in[64], out[64];
    random_ints(in, 64, 100);
    expect_error_saying(emu_warp_scan(out, in, 1),
                        (const char *[]){"kernel warp_scan", "a race on shared memory",
                                         "thread 2 reads values[1]", "which thread 1 wrote",
                                         "one warp", "__syncwarp()", NULL});
}

/* Read from DWARF 5, GNU addr2line named the rewritten build/emu/...o.cpp
 * for a function that was not inlined (clang 16), the line right. */
Test(emu, places_a_race_in_an_out_of_line_helper_in_the_source_file, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 1 writes sums[1] %s, which thread 0 read %s",
             at_line("volatile helper's first step"), at_line("volatile helper's last step"));
    const char *error = emu_volatile_last_warp();
    expect_error_saying(error, (const char *[]){"kernel volatile_last_warp", what, NULL});
    expect_error_not_saying(error, ".o.cpp");
}

Test(emu, passes_atomics_on_shared_memory, TIMEOUT)
{
    enum { N = 5000 };
    int in[N], bins[16], want[16] = {0};
    random_ints(in, N, 1 << 20);
    for (int i = 0; i < N; i++)
        want[in[i] & 15]++;
    expect_success(emu_shared_histogram(bins, in, N, 0));
    for (int b = 0; b < 16; b++)
        cr_assert_eq(bins[b], want[b], "bin %d: %d, expected %d", b, bins[b], want[b]);
}

/* Every value falls in bin 7: the first atomic of a block is on local[7]. */
static void values_in_bin_7(int *in, int n)
{
    random_ints(in, n, 1 << 20);
    for (int i = 0; i < n; i++)
        in[i] = in[i] / 16 * 16 + 7;
}

Test(emu, stops_an_atomic_on_a_shared_counter_never_cleared, TIMEOUT)
{
    enum { N = 5000 };
    int in[N], bins[16];
    values_in_bin_7(in, N);
    char what[300];
    snprintf(what, sizeof what, "thread 0: an atomic on local[7] %s updates the value there, but "
             "no thread of this block has written local[7], nor any other element of local",
             at_line("atomic on a shared bin"));
    expect_error_saying(emu_shared_histogram(bins, in, N, 1),
                        (const char *[]){"kernel shared_histogram, block (", what,
                                         "counters to 0", NULL});
}

/* Two threads' plain ++ on one bin: an update lost, which no barrier
 * mends; the report must say atomicAdd, not a barrier. */
Test(emu, names_atomics_for_a_plain_increment_of_a_shared_or_device_bin, TIMEOUT)
{
    enum { N = 5000 };
    int in[N], bins[16];
    values_in_bin_7(in, N);
    const char *error = emu_shared_histogram(bins, in, N, 3);
    expect_error_saying(error, (const char *[]){"a race on shared memory", "local[7]",
                                                at_line("plain increment of a shared bin"),
                                                "Both threads read the word and then wrote it back",
                                                "atomicAdd", NULL});
    expect_error_not_saying(error, "a barrier between the two accesses is missing");
    error = emu_shared_histogram(bins, in, N, 4);
    expect_error_saying(error, (const char *[]){"a race on global memory between the threads of "
                                                "a block", "byte 28 of a 64-byte device allocation",
                                                at_line("plain increment of a device bin"),
                                                "Both threads read the word and then wrote it back",
                                                "atomicAdd", NULL});
    expect_error_not_saying(error, "put a __syncthreads()");
}

/* Thread 0's atomic comes before thread 7 clears the bin: the race, which
 * says what to add, is the report, not the read of an uncleared bin. */
Test(emu, reports_the_race_when_the_barrier_after_clearing_is_missing, TIMEOUT)
{
    enum { N = 5000 };
    int in[N], bins[16];
    values_in_bin_7(in, N);
    const char *error = emu_shared_histogram(bins, in, N, 2);
    expect_error_saying(error, (const char *[]){"a race on shared memory",
                                                "thread 7 writes local[7]",
                                                at_line("atomic on a shared bin"),
                                                "a barrier between the two accesses is missing",
                                                NULL});
    expect_error_not_saying(error, "no thread of this block has written");
}

/* A partial tile, 5 x 11: read in the order it was written, the reads
 * reach slots never written whose mirrors were; the report says the
 * indices are swapped. A read tested against one side only reaches
 * unwritten slots too, but in the right order: no word of swapping. */
Test(emu, names_a_tile_read_in_the_order_it_was_written, TIMEOUT)
{
    enum { ROWS = 5, COLS = 11 };
    int in[ROWS * COLS], out[16 * 16];
    random_ints(in, ROWS * COLS, 1000);
    expect_success(emu_transpose_tile(out, in, ROWS, COLS, 0));
    for (int r = 0; r < ROWS; r++)
        for (int c = 0; c < COLS; c++)
            cr_assert_eq(out[c * ROWS + r], in[r * COLS + c], "out[%d][%d] = %d", c, r,
                         out[c * ROWS + r]);
    const char *error = emu_transpose_tile(out, in, ROWS, COLS, 1);
    expect_error_saying(error, (const char *[]){"which no thread of this block has written",
                                                at_line("read the tile"), "Its mirror across the "
                                                "diagonal", "are the two indices swapped", NULL});
    error = emu_transpose_tile(out, in, ROWS, COLS, 2);
    expect_error_saying(error, (const char *[]){"which no thread of this block has written",
                                                at_line("read the tile"), "a bounds test missing "
                                                "or wrong?", NULL});
    expect_error_not_saying(error, "swapped");
}

Test(emu, passes_a_tile_whose_every_slot_is_written, TIMEOUT)
{
    enum { N = 40 };
    int in[N], out[64];
    random_ints(in, N, 1000);
    expect_success(emu_reverse_tile(out, in, N, 0));
    for (int t = 0; t < 64; t++) {
        int want = 63 - t < N ? in[63 - t] : 0;
        cr_assert_eq(out[t], want, "out[%d] = %d, expected %d", t, out[t], want);
    }
}

/* PMPP's Brent-Kung scan as printed reads, in a last partial section, slots
 * no thread wrote, and never stores what it computes from them: the report
 * says what happened, and calls no write missing. */
Test(emu, says_what_an_unguarded_read_of_an_unwritten_slot_means, TIMEOUT)
{
    enum { N = 200 };
    int in[N], out[N];
    random_ints(in, N, 100);
    expect_success(emu_brent_kung_scan(out, in, N, 1));
    for (int i = 0, sum = 0; i < N; i++) { /* each section of 128 scanned alone */
        sum = (i % 128 ? sum : 0) + in[i];
        cr_assert_eq(out[i], sum, "out[%d] = %d, expected %d", i, out[i], sum);
    }
    char what[300];
    snprintf(what, sizeof what, "%s, which no thread of this block has written (it wrote 72 of "
             "the 128 elements of section)", at_line("sweep up"));
    const char *error = emu_brent_kung_scan(out, in, N, 0);
    expect_error_saying(error, (const char *[]){"kernel brent_kung_scan, block (1, 0, 0)", what,
                                                "On a GPU the value read is undefined",
                                                "If the value never reaches an output, the "
                                                "answer can still be right",
                                                "guard the read by the same bound as the write",
                                                NULL});
    expect_error_not_saying(error, "a write is missing");
}

Test(emu, stops_a_read_past_what_a_partial_tile_loaded, TIMEOUT)
{
    int in[40], out[64];
    random_ints(in, 40, 1000);
    char what[300];
    snprintf(what, sizeof what, "thread 0 reads tile[63] %s, which no thread of this block has "
             "written (it wrote 40 of the 64 elements of tile)", at_line("read the tile reversed"));
    expect_error_saying(emu_reverse_tile(out, in, 40, 1),
                        (const char *[]){"kernel reverse_tile, block (0, 0, 0), ", what,
                                         "the read's index goes too far", NULL});
}

/* Neighbours' bytes share a word, never a byte: no race, in device
 * memory or in shared memory. */
Test(emu, passes_threads_that_each_update_their_own_byte, TIMEOUT)
{
    unsigned char bytes[64];
    for (int t = 0; t < 64; t++)
        bytes[t] = (unsigned char)(3 * t);
    expect_success(emu_own_bytes(bytes));
    for (int t = 0; t < 64; t++)
        cr_assert_eq(bytes[t], (unsigned char)(3 * t + 2), "bytes[%d] = %d", t, bytes[t]);
}

Test(emu, passes_bytes_written_one_at_a_time_and_read_as_a_word, TIMEOUT)
{
    int out[64];
    expect_success(emu_neighbour_bytes(out, 0));
    for (int t = 0; t < 64; t++) {
        int b = t / 4 * 4 + 1, word = b | (b + 1) << 8 | (b + 2) << 16 | (b + 3) << 24;
        int want = (t ^ 1) + 1 + word;
        cr_assert_eq(out[t], want, "out[%d] = %#x, expected %#x", t, out[t], want);
    }
}

Test(emu, stops_a_read_of_the_one_unwritten_byte_of_a_word, TIMEOUT)
{
    int out[64];
    char what[300];
    snprintf(what, sizeof what, "thread 62 reads flags[63] %s, which no thread of this block has "
             "written (it wrote 63 of the 64 elements of flags)",
             at_line("read the neighbour's byte"));
    expect_error_saying(emu_neighbour_bytes(out, 1),
                        (const char *[]){"kernel neighbour_bytes, block (0, 0, 0), ", what, NULL});
}

/* Whether unused lanes or padding are read cannot be told from the copy:
 * a wide read is stopped only when it reads nothing written. */
Test(emu, passes_vector_and_struct_copies_with_unwritten_lanes_or_padding, TIMEOUT)
{
    int out[64];
    expect_success(emu_wide_reads(out, 0));
    for (int t = 0; t < 64; t++)
        cr_assert_eq(out[t], 63 - t, "out[%d] = %d, expected %d", t, out[t], 63 - t);
}

Test(emu, stops_a_vector_read_of_which_no_byte_was_written, TIMEOUT)
{
    int out[64];
    char what[300];
    snprintf(what, sizeof what, "thread 0 reads quads[64] %s, which no thread of this block has "
             "written", at_line("copy an int4"));
    expect_error_saying(emu_wide_reads(out, 1),
                        (const char *[]){"kernel wide_reads, block (0, 0, 0), ", what, NULL});
}

/* ---- out of bounds ----------------------------------------------------------------------- */

Test(emu, stops_an_access_past_the_end_of_a_device_allocation, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "reads 4 bytes at byte 4000 of a 4000-byte device allocation %s, "
             "just past its end", at_line("copy without bounds test"));
    expect_error_saying(emu_out_of_bounds(1000),
                        (const char *[]){"kernel copy_unchecked, block (3, 0, 0), thread 232", what,
                                         "a missing or wrong bounds test (i < n), or an index "
                                         "computed too large?",
                                         NULL});
}

Test(emu, names_the_array_and_index_read_past_its_end, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 232 reads in[1000] %s, past the end of 'in' (1000 "
             "elements): a missing or wrong bounds test (i < n), or an index computed too large?",
             at_line("copy without bounds test"));
    expect_error_saying(emu_named_out_of_bounds(1000),
                        (const char *[]){"kernel copy_unchecked, block (3, 0, 0), ", what, NULL});
}

Test(emu, names_the_array_and_index_written_before_its_start, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 0 writes out[-1] %s, before the start of 'out' (1000 "
             "elements): an index that went below zero", at_line("store one to the left"));
    expect_error_saying(emu_before_start(1000),
                        (const char *[]){"kernel shift_left, block (0, 0, 0), ", what, NULL});
}

Test(emu, stops_a_store_far_past_every_array, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 0 writes out[1000000] %s, past the end of 'out' (1000 "
             "elements)", at_line("store far away"));
    expect_error_saying(emu_far_store(1000, 1000000),
                        (const char *[]){"kernel store_far, block (0, 0, 0), ", what, NULL});
}

Test(emu, stops_a_read_of_a_freed_array, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 0 reads in[0] %s, but 'in' was freed with cudaFree",
             at_line("copy without bounds test"));
    expect_error_saying(emu_use_after_free(1000),
                        (const char *[]){"kernel copy_unchecked, block (0, 0, 0), ", what, NULL});
}

/* ---- crashes --------------------------------------------------------------------------------- */

static void expect_crash(int what, const char *const *phrases)
{
    int then_ok = 0;
    expect_error_saying(emu_crash(what, &then_ok), phrases);
    cr_expect(then_ok, "the launch after the crash failed or went wrong");
}

Test(emu, reports_a_store_through_a_wild_pointer, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 0 writes address 0x");
    expect_crash(CRASH_WILD_POINTER,
                 (const char *[]){"kernel store_through, block (0, 0, 0), ", what,
                                  at_line("store through a wild pointer"),
                                  "where no memory is mapped", NULL});
}

/* which of the two, read from the fault itself (arm64: its instruction) */
Test(emu, reports_a_load_through_a_wild_pointer, TIMEOUT)
{
    expect_crash(CRASH_WILD_READ,
                 (const char *[]){"kernel load_through, block (0, 0, 0), ", "thread 0 reads address 0x",
                                  at_line("load through a wild pointer"), "where no memory is mapped", NULL});
}

Test(emu, reports_an_integer_division_by_zero, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 0 divides an integer by zero %s",
             at_line("divide by zero"));
    expect_crash(CRASH_DIVISION, (const char *[]){"kernel divide, block (0, 0, 0), ", what, NULL});
}

Test(emu, reports_a_local_array_too_large_for_the_stack, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 5 used more than its 256 KB stack %s",
             at_line("into a big local array"));
    expect_crash(CRASH_LOCAL_ARRAY, (const char *[]){"kernel big_local_array, block (0, 0, 0), ",
                                                     what, "a large local array", NULL});
}

Test(emu, reports_a_local_array_that_jumps_past_the_guard_zone, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 5 used more than its 256 KB stack %s",
             at_line("a function with a huge local array"));
    expect_crash(CRASH_HUGE_LOCAL_ARRAY,
                 (const char *[]){"kernel big_local_array, block (0, 0, 0), ", what, NULL});
}

Test(emu, reports_a_recursion_that_runs_into_the_guard_zone, TIMEOUT)
{
    expect_crash(CRASH_RECURSION,
                 (const char *[]){"kernel recurse, block (0, 0, 0), thread 5 used more than its "
                                  "256 KB stack (tests/emu/emu_kernels.cu:",
                                  "recursion too deep", NULL});
}

/* ---- names ----------------------------------------------------------------------------------- */

Test(emu, names_a_kernel_launched_through_a_pointer, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "kernel one_too_far<int>, block (0, 0, 0), thread 63 writes "
             "out[64] %s", at_line("one too far, through a pointer"));
    expect_error_saying(emu_kernel_pointer(0), (const char *[]){what, NULL});
}

Test(emu, names_a_kernel_launched_through_a_pointer_in_a_race_report, TIMEOUT)
{
    char what[300];
    snprintf(what, sizeof what, "thread 32 writes values[32] %s, which thread 31 read %s",
             at_line("each its own value"), at_line("a neighbour's, without a barrier"));
    expect_error_saying(emu_kernel_pointer(1),
                        (const char *[]){"kernel neighbours_sum<int>, block (0, 0, 0): a race",
                                         what, NULL});
}

/* ---- CUB ---------------------------------------------------------------------------------- */

Test(emu, answers_cub_device_calls_on_the_cpu, TIMEOUT)
{
    enum { N = 3000 };
    int in[N], scan[N], histogram[8], sum, want_histogram[8] = {0};
    random_ints(in, N, 10); /* 8 and 9 fall outside the histogram's range */
    expect_success(emu_cub_device(&sum, scan, histogram, in, N));
    int running = 0;
    for (int i = 0; i < N; i++) {
        cr_assert_eq(scan[i], running, "scan[%d] = %d, expected %d", i, scan[i], running);
        running += in[i];
        if (in[i] < 8)
            want_histogram[in[i]]++;
    }
    cr_expect_eq(sum, running);
    for (int b = 0; b < 8; b++)
        cr_expect_eq(histogram[b], want_histogram[b], "bin %d: %d, expected %d", b, histogram[b],
                     want_histogram[b]);
}

Test(emu, runs_cub_block_scan_inside_a_kernel, TIMEOUT)
{
    enum { BLOCKS = 3, N = BLOCKS * 128 };
    int in[N], out[2 * N];
    random_ints(in, N, 100);
    expect_success(emu_cub_block_scan(out, in, BLOCKS));
    for (int i = 0, sum = 0; i < N; i++) {
        if (i % 128 == 0)
            sum = 0;
        cr_assert_eq(out[2 * i], sum, "exclusive[%d] = %d, expected %d", i, out[2 * i], sum);
        sum += in[i];
        cr_assert_eq(out[2 * i + 1], sum, "inclusive[%d] = %d, expected %d", i, out[2 * i + 1], sum);
    }
}

/* ---- device memory between blocks ------------------------------------------------- */

Test(emu, passes_blocks_that_add_into_one_word_with_atomics, TIMEOUT)
{
    int total = -1;
    expect_success(emu_count_into_one(&total, 40, 0));
    cr_assert_eq(total, 40 * 64, "total = %d, expected %d", total, 40 * 64);
}

Test(emu, stops_blocks_that_add_into_one_word_without_an_atomic, TIMEOUT)
{
    /* which block's access comes second, a read after a write or a write
     * after a read, and so how the report puts it, is down to timing */
    char line[200];
    snprintf(line, sizeof line, "total[0] %s, which ", at_line("plain add of a block's total"));
    const char *error = emu_count_into_one(&(int){0}, 40, 1);
    expect_error_saying(error, (const char *[]){"kernel count_into_one, block (", "thread 0",
                                                "a race on global memory between blocks",
                                                line, "in this same launch", "atomicAdd", NULL});
    /* a read of one block's x += v after another's, or its write after the
     * other's read: the lost update named */
    if (strstr(error, "This thread reads") || strstr(error, " read (tests/emu/"))
        expect_error_saying(error, (const char *[]){"Both blocks read the word and then wrote it "
                                                    "back", "one update is lost", NULL});
}

Test(emu, passes_a_grid_stride_loop_that_steps_by_the_grid, TIMEOUT)
{
    enum { N = 5000 };
    int in[N], out[N];
    unsigned long long bytes = 0;
    random_ints(in, N, 1000);
    expect_success(emu_stride_copy(out, in, N, 7, 0, &bytes));
    cr_assert_arr_eq(out, in, sizeof in, "the copy differs");
    cr_assert_eq(bytes, sizeof out, "%llu bytes written to out, expected %zu: each element once",
                 bytes, sizeof out);
}

/* The harness tells a kernel that ran from a stage still a TODO by this. */
Test(emu, marks_the_arrays_a_kernel_touched, TIMEOUT)
{
    int touched[3];
    expect_success(emu_touched_arrays(touched));
    cr_expect(touched[0], "the copy's input is not marked as touched");
    cr_expect(!touched[1], "an array no kernel used is marked as touched");
    cr_expect(!touched[2], "asking did not clear the mark");
}

Test(emu, names_the_step_of_a_grid_stride_loop_that_writes_elements_twice, TIMEOUT)
{
    enum { N = 5000 };
    int in[N], out[N];
    unsigned long long bytes = 0;
    random_ints(in, N, 1000);
    char line[200];
    snprintf(line, sizeof line, "two blocks write out[");
    const char *error = emu_stride_copy(out, in, N, 7, 1, &bytes);
    expect_error_saying(error, (const char *[]){"kernel stride_copy, block (", line,
                                                at_line("grid-stride store"),
                                                "from the same line in this launch",
                                                "blockDim.x * gridDim.x", NULL});
}

/* The two stores are copies of one line that #pragma unroll made: still
 * "the same line", and the cause named is the index, not an atomic. */
Test(emu, names_two_blocks_writing_one_element_from_an_unrolled_loop, TIMEOUT)
{
    enum { N = 5000 };
    int in[N], out[N];
    unsigned long long bytes = 0;
    random_ints(in, N, 1000);
    const char *error = emu_stride_copy(out, in, N, 7, 2, &bytes);
    expect_error_saying(error, (const char *[]){"kernel stride_copy, block (", "two blocks write out[",
                                                at_line("unrolled tile store"),
                                                "from the same line in this launch",
                                                "the two blocks computed the same index", NULL});
}

Test(emu, passes_a_chain_whose_flags_follow_a_fence, TIMEOUT)
{
    enum { BLOCKS = 300 };
    int out[BLOCKS];
    expect_success(emu_chain_planted(out, BLOCKS, 0));
    for (int b = 0; b < BLOCKS; b++)
        cr_assert_eq(out[b], b + 1, "value[%d] = %d, expected %d", b, out[b], b + 1);
}

Test(emu, names_a_flag_stored_without_a_fence_after_its_value, TIMEOUT)
{
    enum { BLOCKS = 300 };
    int out[BLOCKS];
    char read[200], wrote[200], flag[200];
    snprintf(read, sizeof read, "reads value[");
    snprintf(wrote, sizeof wrote, "wrote %s and then announced with the store %s",
             at_line("store the value"), at_line("store the flag"));
    snprintf(flag, sizeof flag, "%s", at_line("read the value before"));
    expect_error_saying(emu_chain_planted(out, BLOCKS, 2),
                        (const char *[]){"kernel chain_planted, block (", read, flag, wrote,
                                         "no __threadfence() between the two stores", NULL});
}

/* A pair's reader copies the value its writer published: k + 1 for pair k. */
static void expect_pairs_copied(const int *out, int pairs)
{
    for (int k = 0; k < pairs; k++)
        cr_assert_eq(out[k], k + 1, "pair %d copied %d, expected %d", k, out[k], k + 1);
}

Test(emu, passes_values_published_after_a_fence_through_flags_or_atomics, TIMEOUT)
{
    enum { PAIRS = 150 };
    int out[PAIRS];
    for (int planted = 0; planted <= 5; planted += planted == 0 ? 4 : 1) {
        expect_success(emu_publish_pairs(out, PAIRS, planted));
        expect_pairs_copied(out, PAIRS);
    }
}

/* Whether the reader comes before the writer's store or after, the report
 * names the two stores in their wrong order. */
Test(emu, names_a_value_stored_after_its_flag, TIMEOUT)
{
    enum { PAIRS = 150 };
    int out[PAIRS];
    char value[200], flag[200];
    snprintf(value, sizeof value, "value[");
    snprintf(flag, sizeof flag, "store %s", at_line("store the flag before the value"));
    expect_error_saying(emu_publish_pairs(out, PAIRS, 1),
                        (const char *[]){"kernel publish_pairs, block (", value,
                                         at_line("store the value after its flag"), flag,
                                         at_line("read the pair's value"),
                                         "then __threadfence(), then the flag", NULL});
}

Test(emu, names_a_flag_published_without_a_fence_whatever_the_order_of_blocks, TIMEOUT)
{
    enum { PAIRS = 150 };
    int out[PAIRS];
    char wrote[200];
    snprintf(wrote, sizeof wrote, "wrote %s and then announced with the store %s",
             at_line("store the pair's value"), at_line("store the pair's flag"));
    expect_error_saying(emu_publish_pairs(out, PAIRS, 2),
                        (const char *[]){"kernel publish_pairs, block (", "reads value[",
                                         at_line("read the pair's value"), wrote,
                                         "no __threadfence() between the two stores", NULL});
}

Test(emu, names_a_threadfence_block_that_orders_a_flag_for_its_block_alone, TIMEOUT)
{
    enum { PAIRS = 150 };
    int out[PAIRS];
    char fence[200];
    snprintf(fence, sizeof fence, "only __threadfence_block() %s between the two stores",
             at_line("fence only the block"));
    expect_error_saying(emu_publish_pairs(out, PAIRS, 3),
                        (const char *[]){"kernel publish_pairs, block (", "reads value[",
                                         at_line("store the pair's flag"), fence,
                                         "another block can still see the flag before the value",
                                         "use __threadfence()", NULL});
}

/* Correct code that a check once reported when a worker lost its core at the
 * wrong moment: the last ticket taken by the block that checked its atomic
 * first; a word written after its reader's flag, seen at the poll's check
 * but not yet at its load; a value that a block learnt of through another
 * block's flag. */
Test(emu, passes_a_last_block_that_adds_what_every_block_stored_before_its_ticket, TIMEOUT)
{
    enum { BLOCKS = 300 };
    int sum = 0;
    expect_success(emu_last_block_sum(&sum, BLOCKS));
    cr_assert_eq(sum, BLOCKS * (BLOCKS + 1) / 2, "sum = %d, expected %d", sum,
                 BLOCKS * (BLOCKS + 1) / 2);
}

Test(emu, passes_a_word_written_after_its_reader_announced_the_read, TIMEOUT)
{
    enum { PAIRS = 150 };
    int out[PAIRS];
    expect_success(emu_hand_over(out, PAIRS));
    expect_pairs_copied(out, PAIRS);
}

Test(emu, passes_a_chain_whose_blocks_read_two_blocks_back, TIMEOUT)
{
    enum { BLOCKS = 40 };
    int out[BLOCKS];
    expect_success(emu_fibonacci_chain(out, BLOCKS));
    for (int k = 0, a = 1, b = 1; k < BLOCKS; k++, b = a + b, a = b - a)
        cr_assert_eq(out[k], a, "value[%d] = %d, expected %d", k, out[k], a);
}

Test(emu, starts_blocks_in_an_order_the_seed_scrambles, TIMEOUT)
{
    enum { BLOCKS = 500 };
    int first[BLOCKS], again[BLOCKS], other[BLOCKS];
    /* Tickets show the order blocks start in only as well as workers take
     * them in turn: with many workers (make soak's EMU_WORKERS=16) on a
     * busy machine, a paused one moves tickets by more than 2. Two, as on
     * a student's laptop; this process's first launch starts them. */
    setenv("EMU_WORKERS", "2", 1);
    expect_success(emu_start_order(first, BLOCKS, 7));
    expect_success(emu_start_order(again, BLOCKS, 7));
    expect_success(emu_start_order(other, BLOCKS, 8));
    int seen[BLOCKS] = {0}, at[3][BLOCKS], in_order = 0, same = 0, same_as_other = 0;
    for (int k = 0; k < BLOCKS; k++) {
        cr_assert(first[k] >= 0 && first[k] < BLOCKS && !seen[first[k]]++,
                  "ticket %d went to block %d: not each block once", k, first[k]);
        in_order += first[k] == k;
        at[0][first[k]] = at[1][again[k]] = at[2][other[k]] = k;
    }
    /* Workers take blocks at once, and one the system pauses takes its
     * ticket late, moving the blocks between by one: a block started at
     * about the same place (within 2) counts as alike. */
    for (int b = 0; b < BLOCKS; b++) {
        same += abs(at[0][b] - at[1][b]) <= 2;
        same_as_other += abs(at[0][b] - at[2][b]) <= 2;
    }
    cr_expect(in_order < BLOCKS / 10, "%d of %d blocks started in blockIdx order", in_order, BLOCKS);
    cr_expect(same > BLOCKS / 2, "seed 7 twice: only %d of %d tickets alike", same, BLOCKS);
    cr_expect(same_as_other < BLOCKS / 10, "seeds 7 and 8: %d of %d tickets alike", same_as_other,
              BLOCKS);
}

Test(emu, stops_blocks_that_wait_for_a_block_that_has_not_started, TIMEOUT)
{
    enum { BLOCKS = 300 };
    int out[BLOCKS];
    char spins[200];
    snprintf(spins, sizeof spins, "%s again and again", at_line("wait for the flag before"));
    expect_error_saying(emu_chain_planted(out, BLOCKS, 1),
                        (const char *[]){"kernel chain_planted: blocks wait for ever", "reads flag[",
                                         spins, "have not started", "scrambled order (seed",
                                         "not from blockIdx.x", NULL});
}

/* ---- device memory between the threads of a block ---------------------------------- */

Test(emu, passes_a_tree_sum_in_global_memory_with_its_barriers, TIMEOUT)
{
    enum { BLOCKS = 4, BLOCK = 256 };
    int in[BLOCKS * BLOCK], out[BLOCKS];
    random_ints(in, BLOCKS * BLOCK, 100);
    expect_success(emu_global_tree_sum(out, in, BLOCKS, BLOCK, 0));
    expect_block_sums(out, in, BLOCKS, BLOCK);
}

/* Threads run in order of their index until they wait: thread 0 reads the
 * whole tree before thread 1 writes its word, so the race shows as a store
 * over another thread's read. */
Test(emu, catches_a_tree_sum_in_global_memory_missing_a_barrier, TIMEOUT)
{
    enum { BLOCKS = 4, BLOCK = 256 };
    int in[BLOCKS * BLOCK], out[BLOCKS];
    random_ints(in, BLOCKS * BLOCK, 100);
    char read[200];
    snprintf(read, sizeof read, "which thread 0 of this block read %s",
             at_line("add the upper half in place"));
    expect_error_saying(emu_global_tree_sum(out, in, BLOCKS, BLOCK, 1),
                        (const char *[]){"kernel global_tree_sum, block (",
                                         "a race on global memory between the threads of a block",
                                         "thread 1: ", "writes part[", read,
                                         "put a __syncthreads() between the two accesses", NULL});
    expect_error_not_saying(emu_global_tree_sum(out, in, BLOCKS, BLOCK, 1), "Both threads read");
}

Test(emu, passes_neighbours_values_read_after_a_barrier_or_in_a_warp_after_syncwarp, TIMEOUT)
{
    enum { BLOCK = 64 };
    int in[BLOCK], out[BLOCK];
    random_ints(in, BLOCK, 100);
    for (int planted = 0; planted <= 3; planted += 3) {
        expect_success(emu_neighbour_values(out, in, BLOCK, planted));
        for (int t = 0; t < BLOCK; t++) {
            int before = planted == 3 ? (t & ~31) | ((t - 1) & 31) : (t + BLOCK - 1) % BLOCK;
            cr_assert_eq(out[t], in[t] + in[before], "out[%d] = %d", t, out[t]);
        }
    }
}

Test(emu, catches_a_neighbours_value_read_with_no_barrier_between, TIMEOUT)
{
    enum { BLOCK = 64 };
    int in[BLOCK], out[BLOCK];
    random_ints(in, BLOCK, 100);
    char wrote[200];
    snprintf(wrote, sizeof wrote, "reads scratch[0] %s, which thread 0 of this block wrote %s",
             at_line("add the neighbour's value"), at_line("store a value for the neighbour"));
    expect_error_saying(emu_neighbour_values(out, in, BLOCK, 1),
                        (const char *[]){"kernel neighbour_values, block (0, 0, 0), thread 1: ",
                                         "a race on global memory between the threads of a block",
                                         wrote, "The two are in one warp",
                                         "__syncthreads() between the two accesses", NULL});
    /* __syncwarp() orders a warp, not two: thread 0 reads thread 63's word */
    snprintf(wrote, sizeof wrote, "reads scratch[63] %s, which thread 63 of this block wrote %s",
             at_line("add the neighbour's value"), at_line("store a value for the neighbour"));
    const char *error = emu_neighbour_values(out, in, BLOCK, 2);
    expect_error_saying(error, (const char *[]){"thread 0: ", wrote,
                                                "since the last __syncthreads(): put a "
                                                "__syncthreads() between the two accesses",
                                                NULL});
    expect_error_not_saying(error, "__syncwarp()");
}

/* Shuffles, votes and matches exchange values but order no memory: only
 * __syncwarp() (or __syncthreads()) lets a lane read what another stored. */
Test(emu, passes_a_value_read_from_the_lane_beside_after_syncwarp, TIMEOUT)
{
    int in[64], out[64];
    random_ints(in, 64, 100);
    for (int global = 0; global <= 1; global++) {
        expect_success(emu_swap_after_collective(out, in, 0, global));
        for (int t = 0; t < 64; t++)
            cr_assert_eq(out[t], in[t] + in[t ^ 1], "out[%d] = %d", t, out[t]);
    }
}

Test(emu, catches_a_value_read_from_the_lane_beside_after_only_a_shuffle_or_vote, TIMEOUT)
{
    static const char *const between[] = {NULL, "__shfl_xor_sync", "__ballot_sync",
                                          "__all_sync", "__match_any_sync"};
    static const char *const marks[] = {NULL, "shuffle between", "ballot between",
                                        "vote between", "match between"};
    int in[64], out[64];
    random_ints(in, 64, 100);
    for (int global = 0; global <= 1; global++)
        for (int k = 1; k <= 4; k++) {
            char access[200], only[200];
            snprintf(access, sizeof access, "reads %s[1] %s, which thread 1%s wrote %s",
                     global ? "scratch" : "words", at_line("read the lane beside's"),
                     global ? " of this block" : "", at_line("store for the lane beside"));
            snprintf(only, sizeof only, "separated only by %s %s, which orders no memory",
                     between[k], at_line(marks[k]));
            const char *error = emu_swap_after_collective(out, in, k, global);
            expect_error_saying(error,
                                (const char *[]){global ? "a race on global memory"
                                                        : "a race on shared memory",
                                                 "thread 0", access, only,
                                                 "put a __syncwarp() between the two accesses",
                                                 NULL});
        }
}

/* ---- bounds of __shared__ arrays ------------------------------------------------------ */

Test(emu, passes_a_padded_shared_array_with_room_for_its_pads, TIMEOUT)
{
    enum { BLOCKS = 3 };
    int in[BLOCKS * 64], out[BLOCKS * 64];
    random_ints(in, BLOCKS * 64, 1000);
    expect_success(emu_padded_copy(out, in, BLOCKS, 0));
    cr_assert_arr_eq(out, in, sizeof in, "the copy differs");
}

Test(emu, stops_an_index_past_the_end_of_a_static_shared_array, TIMEOUT)
{
    enum { BLOCKS = 3 };
    int in[BLOCKS * 64], out[BLOCKS * 64];
    random_ints(in, BLOCKS * 64, 1000);
    char what[300];
    snprintf(what, sizeof what, "thread 63 writes cramped[64] %s, past the end of __shared__ "
             "cramped (64 elements)", at_line("store into the padded array"));
    expect_error_saying(emu_padded_copy(out, in, BLOCKS, 1),
                        (const char *[]){"kernel padded_copy, block (", what, "padding", NULL});
}

/* ---- threads that wait for each other ------------------------------------------------ */

Test(emu, lets_a_thread_wait_for_another_thread_of_its_block, TIMEOUT)
{
    int out = 0;
    expect_success(emu_wait_for_neighbour(&out, 0));
    cr_assert_eq(out, 1, "out[0] = %d, expected 1", out);
}

Test(emu, stops_a_thread_waiting_for_one_held_at_a_barrier, TIMEOUT)
{
    char spins[200];
    snprintf(spins, sizeof spins, "thread 0 reads flag[0] %s again and again",
             at_line("wait for the neighbour's flag"));
    expect_error_saying(emu_wait_for_neighbour(&(int){0}, 1),
                        (const char *[]){"kernel wait_for_neighbour: blocks wait for ever",
                                         "Block (0, 0, 0): ", spins,
                                         "63 of its threads wait at __syncthreads()",
                                         "Every block of the launch has started", NULL});
}

/* ---- what a profiler counts, counted without a GPU ------------------------ */

/* Lane i at shared word i * stride: gcd(stride, 32) lanes share a bank. */
Test(emu, counts_a_bank_conflict_of_1_2_8_and_32_ways, TIMEOUT)
{
    const int strides[] = {1, 2, 8, 32, 3};
    const int ways[] = {1, 2, 8, 32, 1};
    for (int k = 0; k < 5; k++) {
        struct access_counts c;
        expect_success(emu_count_shared_stride(&c, strides[k]));
        for (int kind = SHARED_LOAD; kind <= SHARED_STORE; kind++) {
            cr_expect_eq(c.requests[kind], 1, "stride %d: %g requests", strides[k], c.requests[kind]);
            cr_expect_eq(c.units[kind], ways[k], "stride %d: %g wavefronts, not %d",
                         strides[k], c.units[kind], ways[k]);
            cr_expect_eq(c.ideal[kind], 1, "stride %d: ideal %g", strides[k], c.ideal[kind]);
            cr_expect_eq(c.lanes[kind], 32, "stride %d: %g lanes", strides[k], c.lanes[kind]);
        }
        cr_expect_eq(c.units[GLOBAL_STORE], 4, "32 ints in a row: %g sectors", c.units[GLOBAL_STORE]);
    }
}

/* Lane i at int i * stride: 128 bytes asked for, 4 sectors at best. */
Test(emu, counts_the_sectors_of_a_strided_load, TIMEOUT)
{
    const int strides[] = {1, 2, 4, 8, 32};
    const int sectors[] = {4, 8, 16, 32, 32};
    for (int k = 0; k < 5; k++) {
        struct access_counts c;
        expect_success(emu_count_global_stride(&c, strides[k]));
        cr_expect_eq(c.requests[GLOBAL_LOAD], 1);
        cr_expect_eq(c.units[GLOBAL_LOAD], sectors[k], "stride %d: %g sectors, not %d",
                     strides[k], c.units[GLOBAL_LOAD], sectors[k]);
        cr_expect_eq(c.ideal[GLOBAL_LOAD], 4, "stride %d: ideal %g", strides[k], c.ideal[GLOBAL_LOAD]);
    }
}

/* Every even lane reads one word: a broadcast, one sector, half the lanes. */
Test(emu, counts_a_broadcast_as_one_word_and_the_lanes_taking_part, TIMEOUT)
{
    struct access_counts c;
    expect_success(emu_count_broadcast(&c));
    cr_expect_eq(c.requests[SHARED_LOAD], 1, "%g requests", c.requests[SHARED_LOAD]);
    cr_expect_eq(c.units[SHARED_LOAD], 1, "a broadcast: %g wavefronts", c.units[SHARED_LOAD]);
    cr_expect_eq(c.lanes[SHARED_LOAD], 16, "%g lanes", c.lanes[SHARED_LOAD]);
    cr_expect_eq(c.units[GLOBAL_LOAD], 1, "a broadcast: %g sectors", c.units[GLOBAL_LOAD]);
    cr_expect_eq(c.ideal[GLOBAL_LOAD], 1, "ideal %g", c.ideal[GLOBAL_LOAD]);
    cr_expect_eq(c.units[GLOBAL_STORE], 4, "16 ints, one in two: %g sectors", c.units[GLOBAL_STORE]);
    cr_expect_eq(c.ideal[GLOBAL_STORE], 2, "64 bytes: ideal %g", c.ideal[GLOBAL_STORE]);
    cr_expect_eq(c.requests[SHARED_STORE], 1, "the one store by lane 0: %g", c.requests[SHARED_STORE]);
    cr_expect_eq(c.lanes[SHARED_STORE], 1, "%g lanes", c.lanes[SHARED_STORE]);
}

/* A __device__ variable is device memory to the counts; the busiest thread's
 * shared accesses and the loads made after a shuffle are counted. */
Test(emu, counts_device_variables_the_busiest_thread_and_loads_after_waiting, TIMEOUT)
{
    struct access_counts c;
    expect_success(emu_count_device_variable(&c));
    cr_expect_eq(c.requests[GLOBAL_STORE], 2, "a warp's store to the __device__ array, and "
                 "out[0]: %g requests", c.requests[GLOBAL_STORE]);
    cr_expect_eq(c.requests[GLOBAL_LOAD], 3, "in[lane], the __device__ array, and in[32]: %g "
                 "requests", c.requests[GLOBAL_LOAD]);
    cr_expect_eq(c.busiest_thread_shared, 33, "lane 0: a store and 32 loads, not %g",
                 c.busiest_thread_shared);
    cr_expect_eq(c.loads_after_waiting, 33, "after the first __syncwarp: the __device__ "
                 "array's 32 loads and in[32], not %g", c.loads_after_waiting);
}

/* Counting stops at its end: a later launch adds nothing to the totals. */
Test(emu, counts_only_the_launches_it_is_asked_to, TIMEOUT)
{
    struct access_counts counted, after;
    expect_success(emu_count_then_not(&counted, &after));
    cr_expect_eq(counted.requests[GLOBAL_LOAD], 1, "%g requests", counted.requests[GLOBAL_LOAD]);
    for (int kind = GLOBAL_LOAD; kind <= SHARED_STORE; kind++)
        cr_expect_eq(after.requests[kind], counted.requests[kind], "kind %d: %g requests, then %g",
                     kind, counted.requests[kind], after.requests[kind]);
}

/* ---- what C++ leaves undefined, and copies past an array ------------------------------------- */

/* A GPU shifts every bit out, a CPU by the count modulo 32: the emulation
 * must not give either answer, and says which line asked. */
Test(emu, stops_a_shift_by_the_width_of_the_value, TIMEOUT)
{
    unsigned out[32];
    expect_success(emu_lanes_below(out, 0));
    for (unsigned lane = 0; lane < 32; lane++)
        cr_expect_eq(out[lane], (1u << lane) - 1, "lane %u: %#x", lane, out[lane]);
    expect_error_saying(emu_lanes_below(out, 1),
                        (const char *[]){"kernel lanes_below_kernel, block (0, 0, 0), thread 0 ",
                                         "shifts a 32-bit value by 32", "a GPU shifts every bit out",
                                         NULL});
}

/* A copy or set past a device array's end, or from a null one, is refused
 * as a GPU's runtime refuses it, not a crash of the whole program. */
Test(emu, refuses_copies_past_a_device_array, TIMEOUT)
{
    for (int what = 0; what < 3; what++) {
        cr_expect_null(emu_copy_past_the_end(what, 0), "copy %d of the whole array refused", what);
        const char *past = emu_copy_past_the_end(what, 4), *null = emu_copy_past_the_end(what, -1);
        cr_expect(past && strstr(past, "invalid argument"), "copy %d past the end: %s", what,
                  past ? past : "allowed");
        cr_expect(null && strstr(null, "invalid argument"), "copy %d with a null side: %s", what,
                  null ? null : "allowed");
    }
}
