/* test_collectives.c: the collectives the emulation provides (cooperative
 * groups, CUB's warp and block ones) give what a plain loop gives, at odd
 * sizes and in partial warps; they are counted as the shuffles and
 * barriers they are made of; misuses stop the launch; and what the
 * emulation lacks is named at build time (EMU=1 builds only). */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emu_collectives.h"
#include "emu_kernels.h"
#include "marked.h"
#include "workbook.h"

#define TIMEOUT .timeout = 60.0

static uint64_t seed;

static void start(void)
{
    seed = seed_from_env();
    emu_seed_block_order(seed);
}

TestSuite(collectives, .init = start);

/* n values from -50 to 50 */
static int *random_values(size_t n)
{
    uint64_t state = seed;
    int *v = malloc(n * sizeof *v);
    cr_assert_not_null(v);
    for (size_t i = 0; i < n; i++)
        v[i] = (int)(rng_next(&state) % 101) - 50;
    return v;
}

static int *results(size_t fields, size_t threads)
{
    int *out = calloc(fields * threads, sizeof *out);
    cr_assert_not_null(out);
    return out;
}

static void expect_success(const char *error) { cr_assert_null(error, "the launch failed: %s", error); }

/* Thread t's result `field` (named `what`) must be `expected`. */
#define EXPECT(out, total, field, t, expected)                                                      \
    do {                                                                                           \
        int got_ = (out)[(size_t)(field) * (total) + (t)], want_ = (expected);                    \
        cr_expect_eq(got_, want_, "%s of thread %d: %d, expected %d", #field, (int)(t), got_,      \
                     want_);                                                                       \
    } while (0)

static int max2(int a, int b) { return a < b ? b : a; }
static int min2(int a, int b) { return b < a ? b : a; }

/* ---- cooperative groups ------------------------------------------------------------ */

Test(collectives, cg_thread_block_knows_its_threads_and_syncs_as_a_barrier, TIMEOUT)
{
    enum { BLOCKS = 3, X = 25, Y = 5, SIZE = X * Y, TOTAL = BLOCKS * SIZE };
    int *out = results(BLOCK_FIELDS, TOTAL);
    expect_success(emu_cg_block(out, BLOCKS, X, Y));
    for (int t = 0; t < TOTAL; t++) {
        int b = t / SIZE, rank = t % SIZE, first = rank / 8 * 8, size = min2(8, SIZE - first);
        EXPECT(out, TOTAL, BLOCK_RANK, t, rank);
        EXPECT(out, TOTAL, BLOCK_SIZE, t, SIZE);
        EXPECT(out, TOTAL, BLOCK_NUM_THREADS, t, SIZE);
        EXPECT(out, TOTAL, BLOCK_GROUP_X, t, b);
        EXPECT(out, TOTAL, BLOCK_THREAD_X, t, rank % X);
        EXPECT(out, TOTAL, BLOCK_THREAD_Y, t, rank / X);
        EXPECT(out, TOTAL, BLOCK_DIM_X, t, X);
        EXPECT(out, TOTAL, BLOCK_DIM_Y, t, Y);
        EXPECT(out, TOTAL, BLOCK_NEIGHBOUR, t, (rank + 1) % SIZE * 7 + b);
        EXPECT(out, TOTAL, BLOCK_GROUP_NEIGHBOUR, t, (rank + SIZE - 1) % SIZE * 11 + b);
        EXPECT(out, TOTAL, DYNAMIC_RANK, t, rank - first);
        EXPECT(out, TOTAL, DYNAMIC_SIZE, t, size);
        EXPECT(out, TOTAL, DYNAMIC_NEIGHBOUR, t, (first + (rank - first + 1) % size) * 13);
    }
    free(out);
}

/* A tile of `size` in blocks of `threads` against loops over its lanes. */
static void check_tiles(int size, int threads)
{
    enum { BLOCKS = 2 };
    int total = BLOCKS * threads, *in = random_values(total), *out = results(TILE_FIELDS, total);
    expect_success(emu_cg_tiles(out, in, BLOCKS, threads, size));
    for (int t = 0; t < total; t++) {
        int rank = t % threads, k = rank % size, base = t - k, sum = 0, most = -1000, least = 1000;
        int before = 0, most_before = 0, any = 0, all = 1, ballot = 0;
        for (int j = 0; j < size; j++) {
            int v = in[base + j];
            sum += v, most = max2(most, v), least = min2(least, v);
            any |= v % 5 == 0, all &= v > -40, ballot |= (v & 1) << j;
            if (j < k)
                before += v, most_before = j ? max2(most_before, v) : v;
        }
        EXPECT(out, total, TILE_RANK, t, k);
        EXPECT(out, total, TILE_SIZE, t, size);
        EXPECT(out, total, TILE_META_RANK, t, rank / size);
        EXPECT(out, total, TILE_META_SIZE, t, (threads + size - 1) / size);
        EXPECT(out, total, TILE_SHFL, t, in[base + (k + 3) % size]);
        EXPECT(out, total, TILE_SHFL_UP, t, in[k >= 1 ? t - 1 : t]);
        EXPECT(out, total, TILE_SHFL_DOWN, t, in[k + 2 < size ? t + 2 : t]);
        EXPECT(out, total, TILE_SHFL_XOR, t, in[base + (k ^ 1)]);
        EXPECT(out, total, TILE_SHFL_WIDE, t, 10 * in[k + 1 < size ? t + 1 : t]);
        EXPECT(out, total, TILE_ANY, t, any);
        EXPECT(out, total, TILE_ALL, t, all);
        EXPECT(out, total, TILE_BALLOT, t, ballot);
        EXPECT(out, total, TILE_SUM, t, sum);
        EXPECT(out, total, TILE_MAX, t, most);
        EXPECT(out, total, TILE_MIN, t, least);
        EXPECT(out, total, TILE_INCLUSIVE, t, before + in[t]);
        EXPECT(out, total, TILE_EXCLUSIVE, t, before);
        EXPECT(out, total, TILE_EXCLUSIVE_MAX, t, most_before);
        if (size == 32) {
            int first = t - rank % 4;
            EXPECT(out, total, SUB_RANK, t, rank % 4);
            EXPECT(out, total, SUB_META_RANK, t, rank % 32 / 4);
            EXPECT(out, total, SUB_META_SIZE, t, 8);
            EXPECT(out, total, SUB_SUM, t, in[first] + in[first + 1] + in[first + 2] + in[first + 3]);
        }
    }
    free(in);
    free(out);
}

/* 80 threads: the last warp has 16 lanes, which tiles of 16 or fewer fill */
Test(collectives, cg_tiles_shuffle_vote_reduce_and_scan_as_loops_do, TIMEOUT)
{
    check_tiles(32, 96);
    check_tiles(16, 80);
    check_tiles(8, 80);
    check_tiles(4, 80);
    check_tiles(2, 80);
}

/* ---- CUB's warp collectives ------------------------------------------------------------ */

Test(collectives, cub_warp_reduce_sums_in_lane_0_partial_warps_included, TIMEOUT)
{
    enum { BLOCKS = 3, THREADS = 80, TOTAL = BLOCKS * THREADS };
    int *in = random_values(TOTAL), *out = results(WARP_REDUCE_FIELDS, TOTAL);
    expect_success(emu_cub_warp_reduce(out, in, BLOCKS));
    for (int t = 0; t < TOTAL; t += 8) {
        int rank = t % THREADS, sum8 = 0, sum3 = 0;
        for (int j = 0; j < 8; j++)
            sum8 += in[t + j], sum3 += j < 3 ? in[t + j] : 0;
        EXPECT(out, TOTAL, WR8_SUM, t, sum8);
        EXPECT(out, TOTAL, WR8_SUM_3, t, sum3);
        if (rank % 32)
            continue;
        int lanes = min2(32, THREADS - rank), sum = 0, sum7 = 0, most = -1000, least5 = 1000;
        for (int j = 0; j < lanes; j++) {
            int v = in[t + j];
            sum += v, most = max2(most, v);
            sum7 += j < 7 ? v : 0;
            least5 = j < 5 ? min2(least5, v) : least5;
        }
        EXPECT(out, TOTAL, WR_SUM, t, sum);
        EXPECT(out, TOTAL, WR_SUM_7, t, sum7);
        EXPECT(out, TOTAL, WR_MAX, t, most);
        EXPECT(out, TOTAL, WR_MIN_5, t, least5);
        if (lanes == 32)
            EXPECT(out, TOTAL, WR_FULL_SUM, t, sum);
    }
    free(in);
    free(out);
}

Test(collectives, cub_warp_scan_scans_lanes_in_order, TIMEOUT)
{
    enum { BLOCKS = 2, THREADS = 64, TOTAL = BLOCKS * THREADS };
    int *in = random_values(TOTAL), *out = results(WARP_SCAN_FIELDS, TOTAL);
    expect_success(emu_cub_warp_scan(out, in, BLOCKS, 0));
    for (int t = 0; t < TOTAL; t++) {
        int lane = t % 32, base = t - lane, before = 0, total = 0, most = -1000, most_before = -1000;
        for (int j = 0; j < 32; j++) {
            int v = in[base + j];
            total += v;
            if (j < lane)
                before += v, most_before = max2(most_before, v);
            if (j <= lane)
                most = max2(most, v);
        }
        int largest = -1000;
        for (int j = 0; j < 32; j++)
            largest = max2(largest, in[base + j]);
        EXPECT(out, TOTAL, WS_INCLUSIVE, t, before + in[t]);
        EXPECT(out, TOTAL, WS_EXCLUSIVE, t, before);
        EXPECT(out, TOTAL, WS_AGGREGATE, t, total);
        EXPECT(out, TOTAL, WS_INCLUSIVE_MAX, t, most);
        EXPECT(out, TOTAL, WS_MAX_AGGREGATE, t, largest);
        EXPECT(out, TOTAL, WS_EXCLUSIVE_MAX_50, t, max2(50, most_before));
        EXPECT(out, TOTAL, WS_INCLUSIVE_1000, t, 1000 + before + in[t]);
        EXPECT(out, TOTAL, WS_SCAN_INCLUSIVE, t, before + in[t]);
        EXPECT(out, TOTAL, WS_BROADCAST, t, in[base + 3]);
        if (lane > 0) { /* lane 0's is undefined without an initial value */
            EXPECT(out, TOTAL, WS_EXCLUSIVE_MAX, t, most_before);
            EXPECT(out, TOTAL, WS_SCAN_EXCLUSIVE, t, before);
        }
    }
    free(in);
    free(out);
}

Test(collectives, cub_warp_scan_of_logical_warps_of_16, TIMEOUT)
{
    enum { BLOCKS = 2, THREADS = 80, TOTAL = BLOCKS * THREADS };
    int *in = random_values(TOTAL), *out = results(WARP_SCAN_FIELDS, TOTAL);
    expect_success(emu_cub_warp_scan(out, in, BLOCKS, 1));
    for (int t = 0; t < TOTAL; t++) {
        int lane = t % 16, before = 0, total = 0;
        for (int j = 0; j < 16; j++) {
            total += in[t - lane + j];
            before += j < lane ? in[t - lane + j] : 0;
        }
        EXPECT(out, TOTAL, WS16_INCLUSIVE, t, before + in[t]);
        EXPECT(out, TOTAL, WS16_EXCLUSIVE, t, before);
        EXPECT(out, TOTAL, WS16_AGGREGATE, t, total);
    }
    free(in);
    free(out);
}

/* ---- CUB's block collectives, in blocks of 16 x 5 threads -------------------------------- */

Test(collectives, cub_block_reduce_gives_thread_0_the_block_total, TIMEOUT)
{
    enum { BLOCKS = 3, THREADS = 80, TOTAL = BLOCKS * THREADS };
    int *in = random_values(TOTAL), *out = results(BLOCK_REDUCE_FIELDS, TOTAL);
    expect_success(emu_cub_block_reduce(out, in, BLOCKS));
    for (int t = 0; t < TOTAL; t += THREADS) {
        int sum = 0, sum37 = 0, most = -1000, least37 = 1000, items = 0;
        for (int j = 0; j < THREADS; j++) {
            int v = in[t + j];
            sum += v, most = max2(most, v), items += v + (v + 1) + 2 * v;
            if (j < 37)
                sum37 += v, least37 = min2(least37, v);
        }
        EXPECT(out, TOTAL, BR_SUM, t, sum);
        EXPECT(out, TOTAL, BR_SUM_37, t, sum37);
        EXPECT(out, TOTAL, BR_MAX, t, most);
        EXPECT(out, TOTAL, BR_ITEMS_SUM, t, items);
        EXPECT(out, TOTAL, BR_MIN_37, t, least37);
        EXPECT(out, TOTAL, BR_PRIVATE_SUM, t, sum);
    }
    free(in);
    free(out);
}

Test(collectives, cub_block_scan_scans_threads_and_items_in_order, TIMEOUT)
{
    enum { BLOCKS = 3, THREADS = 80, TOTAL = BLOCKS * THREADS };
    int *in = random_values(TOTAL), *out = results(BLOCK_SCAN_FIELDS, TOTAL);
    expect_success(emu_cub_block_scan_all(out, in, BLOCKS));
    for (int t = 0; t < TOTAL; t++) {
        int rank = t % THREADS, base = t - rank, before = 0, total = 0, most = -1000;
        int most_before = -1000, items_before = 0, items_total = 0, items_most = -1000;
        for (int j = 0; j < THREADS; j++) {
            int v = in[base + j], item[3] = {v, v + 1, 2 * v};
            total += v;
            items_total += item[0] + item[1] + item[2];
            if (j < rank)
                before += v, most_before = max2(most_before, v),
                    items_before += item[0] + item[1] + item[2];
            if (j <= rank) {
                most = max2(most, v);
                items_most = max2(items_most, max2(item[0], max2(item[1], item[2])));
            }
        }
        int v = in[t];
        EXPECT(out, TOTAL, BS_EXCLUSIVE, t, before);
        EXPECT(out, TOTAL, BS_INCLUSIVE, t, before + v);
        EXPECT(out, TOTAL, BS_AGGREGATE, t, total);
        EXPECT(out, TOTAL, BS_EXCLUSIVE_MAX, t, max2(-1000, most_before));
        EXPECT(out, TOTAL, BS_INCLUSIVE_MAX, t, most);
        if (rank > 0) /* thread 0's is undefined without an initial value */
            EXPECT(out, TOTAL, BS_EXCLUSIVE_MAX_BARE, t, most_before);
        EXPECT(out, TOTAL, BS_ITEMS_EXCLUSIVE_0, t, items_before);
        EXPECT(out, TOTAL, BS_ITEMS_EXCLUSIVE_1, t, items_before + v);
        EXPECT(out, TOTAL, BS_ITEMS_EXCLUSIVE_2, t, items_before + v + (v + 1));
        EXPECT(out, TOTAL, BS_ITEMS_AGGREGATE, t, items_total);
        EXPECT(out, TOTAL, BS_ITEMS_INCLUSIVE_MAX_2, t, items_most);
        EXPECT(out, TOTAL, BS_CALLBACK, t, total + before + 1000 * rank);
    }
    free(in);
    free(out);
}

/* ---- what the counts see ------------------------------------------------------------------ */

/* Two blocks of 128 threads (8 warps in all) run one collective. */
static void expect_counted(int which, double shuffles, double barriers)
{
    int *in = random_values(256), out[256];
    struct access_counts c;
    access_counts_begin();
    const char *error = emu_lone_collective(out, in, 2, which);
    access_counts_end(&c);
    expect_success(error);
    cr_expect_eq(c.shuffles, shuffles, "collective %d: %g shuffles counted, expected %g", which,
                 c.shuffles, shuffles);
    cr_expect_eq(c.barriers, barriers, "collective %d: %g barriers counted, expected %g", which,
                 c.barriers, barriers);
    free(in);
}

Test(collectives, are_counted_as_the_shuffles_and_barriers_they_are_made_of, TIMEOUT)
{
    expect_counted(LONE_BLOCK_SYNC, 0, 2);
    expect_counted(LONE_TILE_REDUCE, 8 * 5, 0);  /* log2(32) a warp */
    expect_counted(LONE_WARP_REDUCE, 8 * 5, 0);
    expect_counted(LONE_BLOCK_REDUCE, 8 * 5, 2); /* then one barrier a block */
    expect_counted(LONE_BLOCK_SCAN, 8 * 6, 2);   /* and one more shuffle for the exclusive scan */
}

/* ---- misuses --------------------------------------------------------------------------------- */

Test(collectives, a_block_collective_in_a_block_of_another_size_stops_the_launch, TIMEOUT)
{
    const char *error = emu_block_reduce_wrong_size();
    cr_assert_not_null(error, "the misuse went unreported");
    cr_expect(strstr(error, "cub::BlockReduce is for blocks of 64 threads, but this block has 128"),
              "%s", error);
    cr_expect(strstr(error, marked("tests/emu/emu_collectives.cu", "a BlockReduce for 64 threads")),
              "the report does not name the line:\n%s", error);
}

Test(collectives, storage_used_again_without_a_barrier_is_a_race, TIMEOUT)
{
    int *in = random_values(128), out[128];
    const char *error = emu_block_scan_storage_reused(out, in);
    cr_assert_not_null(error, "the race went unreported");
    cr_expect(strstr(error, "race"), "%s", error);
    cr_expect(strstr(error, marked("tests/emu/emu_collectives.cu", "the storage used again")),
              "the report does not name the line:\n%s", error);
    free(in);
}

/* ---- what the emulation lacks: named when the file is built --------------------------------- */

/* The lines "emulation: not provided: ..." of building the fixture with
 * `defines`, as the emulated build writes them. */
static char *not_provided(const char *defines)
{
    static const char fixture[] = "tests/emu/fixtures/not-provided.cu";
    const char *cxx = getenv("CXX") ? getenv("CXX") : "g++";
    char command[1000];
    snprintf(command, sizeof command,
             "%s -std=c++17 -fsyntax-only -Icommon/emu -Icommon/emu/not-provided %s -x c++ %s 2>&1 | "
             "awk -v source=%s -f common/emu/not-provided.awk | grep '^emulation: not provided: '",
             cxx, defines, fixture, fixture);
    FILE *p = popen(command, "r");
    cr_assert_not_null(p);
    static char lines[8192];
    size_t n = fread(lines, 1, sizeof lines - 1, p);
    lines[n] = 0;
    pclose(p);
    return lines;
}

/* `lines` hold "emulation: not provided: what (FILE:LINE)" with the line
 * marked "LINE: what" in the fixture, once. */
static void expect_named(const char *lines, const char *what)
{
    char line[400];
    snprintf(line, sizeof line, "emulation: not provided: %s (%s)\n", what,
             marked("tests/emu/fixtures/not-provided.cu", what));
    const char *at = strstr(lines, line);
    cr_expect(at, "no line \"%.*s\" among:\n%s", (int)strlen(line) - 1, line, lines);
    cr_expect(!at || !strstr(at + 1, line), "\"%s\" twice", line);
}

static int count_lines(const char *text)
{
    int n = 0;
    for (; *text; text++)
        n += *text == '\n';
    return n;
}

Test(collectives, what_is_not_emulated_is_named_with_its_line, TIMEOUT)
{
    static const char *const names[] = {
        "<mma.h>", "<cuda/barrier>", "cooperative_groups::this_grid",
        "cooperative_groups::grid_group", "cooperative_groups::this_cluster",
        "cooperative_groups::coalesced_threads",
        "cooperative_groups::tiled_partition of more than 32 threads",
        "cooperative_groups::thread_block_tile::match_all", "cub::BlockRadixSort",
        "cub::WarpReduce::HeadSegmentedSum", "cub::DeviceReduce::Max", "cuda::std::minus",
        "__reduce_add_sync", "__match_all_sync", "atomicAdd_block", "__ldcg",
    };
    const char *lines = not_provided("-DWITH_HEADERS");
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        expect_named(lines, names[k]);
    cr_expect_eq(count_lines(lines), (int)(sizeof names / sizeof *names), "lines:\n%s", lines);

    lines = not_provided("-DWITH_MISSING_HEADER");
    expect_named(lines, "<cub/workbook_absent.cuh>");
    cr_expect_eq(count_lines(lines), 1, "lines:\n%s", lines);
}
