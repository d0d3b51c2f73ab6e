/* testing.h: what every lab's Criterion tests share.
 *
 * A lab's test file is one line per stage:
 *
 *     #define LAB_SIZES(X, XB, name, id) X(name, id, 6143) XB(name, id, 589825, 32)
 *     STAGE_TESTS(scan_large_arrays, 1)
 *
 * which defines, in the suite scan_large_arrays_stage1, one test per size
 * (matches_cpu_n1025, matches_cpu_two_and_a_half_tiles,
 * matches_cpu_n589825_block32, ...): the frame's sizes, sizes from the
 * stage's own tile whose last tile is filled to different fractions, the
 * lab's own (LAB_SIZES, which may be empty; X at blocks of 256 threads, XB
 * at others), and n = 100003 with blocks that are neither 256 nor powers of
 * two. Each test checks every variant of the lab (VARIANT= picks one)
 * against the CPU reference. */
#ifndef TESTING_H
#define TESTING_H

#include <criterion/criterion.h>

#include "workbook.h"
#include "technique.h"

/* A test that has not finished after this many seconds on the clock
 * (WORKBOOK_TEST_SECONDS, which TESTFLAGS=--timeout=S sets, says others) is
 * stopped, and fails as "did not finish"; a technique's test gets
 * TECHNIQUE_TIMES as long. The test stops itself (before_gpu_test), through
 * Criterion's assertions: Criterion's own time-out is never armed, since in
 * Criterion 2.4 a test that ends as its timer fires aborts the whole runner
 * ("The test has already ended, invalid state 'timeout'"), and one stopped
 * before it has begun deadlocks it: either way no stage gets a verdict
 * (tests/load). */
#define GPU_TEST_TIMEOUT 30.0
#define TECHNIQUE_TIMES 4

/* The frame's sizes: zero, around a warp, around a block of 256, a large
 * prime, and the largest: 2^24 + 17. Under the CPU emulation, where a tree
 * of barriers over 2^24 threads would take minutes, the largest is 2^20 +
 * 17, and the large prime, so near it, would check nothing more; a lab's
 * test file that defines EMULATED_LARGE_SIZES before it includes this
 * header says its own (radix: none). Then odd blocks: a kernel that
 * assumes 256, or a power of two, fails those. */
#ifdef WORKBOOK_EMU
#ifndef EMULATED_LARGE_SIZES
#define EMULATED_LARGE_SIZES(X, name, id) X(name, id, 1048593)
#endif
#define LARGE_SIZES(X, name, id) EMULATED_LARGE_SIZES(X, name, id)
#else
#define LARGE_SIZES(X, name, id) X(name, id, 1000003) X(name, id, 16777233)
#endif
#define FRAME_SIZES(X, XB, name, id)                                                        \
    X(name, id, 0) X(name, id, 1) X(name, id, 31) X(name, id, 32) X(name, id, 33)           \
    X(name, id, 1000) X(name, id, 1023) X(name, id, 1024) X(name, id, 1025)                 \
    LARGE_SIZES(X, name, id)                                                                \
    XB(name, id, 100003, 32) XB(name, id, 100003, 96) XB(name, id, 100003, 1000)            \
    XB(name, id, 100003, 1024)

/* Above this n a test checks one variant of the lab, which the seed picks
 * (0: every variant at every size): lab->tests.all_variants_up_to on a GPU; under
 * the emulation lab->tests.emulated_all_variants_up_to, or by default 2^17, so
 * that the largest size checks one variant (the seed turns them over), and
 * n = 100003 and the small sizes every one. */
#define EMULATED_ALL_VARIANTS_UP_TO ((size_t)1 << 17)
size_t all_variants_up_to(const struct lab *lab);

/* One test: stage `id` of `name` at size n, with blocks of 256 threads or of
 * `block`. */
#define SIZE_TEST(name, id, n)                                                              \
    Test(name##_stage##id, matches_cpu_n##n, .init = before_gpu_test,                       \
         .fini = after_gpu_test)                                                            \
    {                                                                                       \
        expect_stage_correct(&name##_lab, #id, n, 0, 256);                                  \
    }
#define BLOCK_TEST(name, id, n, block)                                                      \
    Test(name##_stage##id, matches_cpu_n##n##_block##block, .init = before_gpu_test,        \
         .fini = after_gpu_test)                                                            \
    {                                                                                       \
        expect_stage_correct(&name##_lab, #id, n, 0, block);                                \
    }

/* And one test that the stage's kernel shows its idea (lab->technique.rows),
 * counted under the emulation at the lab's technique case; the runner
 * keeps it apart from the sizes. */
#define TECHNIQUE_TEST_NAME "shows_its_idea"
#define TECHNIQUE_TEST(name, id)                                                            \
    Test(name##_stage##id, shows_its_idea, .init = before_gpu_test,                         \
         .fini = after_gpu_test)                                                            \
    {                                                                                       \
        expect_stage_technique(&name##_lab, #id);                                           \
    }

/* Sizes from the stage's own tile (lab->tile: the values one block of it
 * covers, with blocks of 256 threads), whose last tile is filled to
 * different fractions after full tiles: half, all but one value, all, and
 * one value. A thread that returns early in a partial tile, before a
 * __syncthreads() or a shuffle that the others reach, leaves them waiting
 * at one of these, which a GPU may hang on and the emulation names. (Three
 * tiles, not one or two: no tile of 256 to 6144 values then gives a size
 * the frame has already.) Each fill is a name, then n = tiles * tile +
 * halves * tile / 2 + values. */
#define TILE_FILLS(X, name, id)                                                             \
    X(name, id, two_and_a_half_tiles, 2, 1, 0) X(name, id, three_tiles_less_one, 3, 0, -1)  \
    X(name, id, three_tiles, 3, 0, 0) X(name, id, three_tiles_and_one, 3, 0, 1)
#define TILE_TEST(name, id, fill, tiles, halves, values)                                    \
    Test(name##_stage##id, matches_cpu_##fill, .init = before_gpu_test,                     \
         .fini = after_gpu_test)                                                            \
    {                                                                                       \
        expect_tile_test_correct(&name##_lab, #id, "matches_cpu_" #fill);                   \
    }

#define STAGE_TESTS(name, id)                                                               \
    extern const struct lab name##_lab;                                                     \
    FRAME_SIZES(SIZE_TEST, BLOCK_TEST, name, id)                                            \
    TILE_FILLS(TILE_TEST, name, id)                                                         \
    LAB_SIZES(SIZE_TEST, BLOCK_TEST, name, id)                                              \
    TECHNIQUE_TEST(name, id)

/* A matrix lab's (lab.matrix) test file is one line per stage too,
 *
 *     #define LAB_SHAPES(X, XB, name, id)
 *     MATRIX_TESTS(transpose, 1)
 *
 * with one test per shape (matches_cpu_31x33, matches_cpu_1000x999_block96):
 * a single element, a row, a column, sides around a warp and not multiples
 * of one, tall and wide, a prime by a prime, and one above 2^24 elements
 * (under the emulation one above 2^20, itself a prime by a prime, in place
 * of both); then shapes from the stage's tile whose last
 * tiles are partly filled in each direction (TILE_FILLS, one a side); then
 * odd blocks. */
#ifdef WORKBOOK_EMU
#define LARGE_SHAPES(X, name, id) X(name, id, 1031, 1033)
#else
#define LARGE_SHAPES(X, name, id) X(name, id, 1009, 1013) X(name, id, 4099, 4111)
#endif
#define FRAME_SHAPES(X, XB, name, id)                                                       \
    X(name, id, 1, 1) X(name, id, 1, 1000) X(name, id, 1000, 1) X(name, id, 31, 33)         \
    X(name, id, 33, 17) X(name, id, 32, 32) X(name, id, 64, 96) X(name, id, 1000, 999)      \
    X(name, id, 4097, 31) X(name, id, 17, 4097) LARGE_SHAPES(X, name, id)                   \
    XB(name, id, 333, 257, 32) XB(name, id, 333, 257, 96) XB(name, id, 333, 257, 1000)      \
    XB(name, id, 333, 257, 1024)

#define SHAPE_TEST(name, id, rows, cols)                                                    \
    Test(name##_stage##id, matches_cpu_##rows##x##cols, .init = before_gpu_test,            \
         .fini = after_gpu_test)                                                            \
    {                                                                                       \
        expect_stage_correct(&name##_lab, #id, (size_t)rows * cols, cols, 256);             \
    }
#define SHAPE_BLOCK_TEST(name, id, rows, cols, block)                                       \
    Test(name##_stage##id, matches_cpu_##rows##x##cols##_block##block,                      \
         .init = before_gpu_test, .fini = after_gpu_test)                                   \
    {                                                                                       \
        expect_stage_correct(&name##_lab, #id, (size_t)rows * cols, cols, block);           \
    }

/* Rows by columns, in TILE_FILLS' names: each fill on each side once. */
#define TILE_SHAPES(X, name, id)                                                            \
    X(name, id, three_tiles_and_one, two_and_a_half_tiles)                                  \
    X(name, id, two_and_a_half_tiles, three_tiles_less_one)                                 \
    X(name, id, three_tiles_less_one, three_tiles_and_one) X(name, id, three_tiles, three_tiles)
#define TILE_SHAPE_TEST(name, id, rows, cols)                                               \
    Test(name##_stage##id, matches_cpu_##rows##_by_##cols, .init = before_gpu_test,         \
         .fini = after_gpu_test)                                                            \
    {                                                                                       \
        expect_tile_test_correct(&name##_lab, #id, "matches_cpu_" #rows "_by_" #cols);      \
    }

#define MATRIX_TESTS(name, id)                                                              \
    extern const struct lab name##_lab;                                                     \
    FRAME_SHAPES(SHAPE_TEST, SHAPE_BLOCK_TEST, name, id)                                    \
    TILE_SHAPES(TILE_SHAPE_TEST, name, id)                                                  \
    LAB_SHAPES(SHAPE_TEST, SHAPE_BLOCK_TEST, name, id)                                      \
    TECHNIQUE_TEST(name, id)

/* .init and .fini of every GPU test: skip it, quietly, when the runner
 * found no GPU; else its time limit runs from one to the other. */
void before_gpu_test(void);
void after_gpu_test(void);
/* A test's limit in seconds (GPU_TEST_TIMEOUT, or WORKBOOK_TEST_SECONDS),
 * TECHNIQUE_TIMES as long for a technique's. */
double test_seconds(bool technique);

/* Run one stage on fresh inputs of size n (a matrix lab's: n elements in
 * rows of cols), in every variant asked for, and fail with the report of
 * each wrong variant (stage, size, seed, first wrong index, expected and
 * got, how many, likely cause) as its message, in report_encode's text:
 * outputs, guard zones and inputs are all checked. */
void expect_stage_correct(const struct lab *lab, const char *stage, size_t n, size_t cols,
                          int block);

/* Whether a test of n elements is left out: WORKBOOK_LARGEST_N=N leaves out
 * every test of more (make check on a skeleton, make check-platforms). */
bool beyond_largest_n(size_t n);

/* Stage s's tile, the values one block covers when asked for BLOCK
 * (lab->tile; a matrix lab's: a side), and the size a tile test's name
 * ("matches_cpu_three_tiles", "matches_cpu_three_tiles_by_three_tiles")
 * stands for at blocks of 256 threads: n and a matrix's cols. False if the
 * name is no tile test's. */
size_t stage_tile(const struct lab *lab, const struct stage *s, int block);
bool tile_test_size(const struct lab *lab, const struct stage *s, const char *test, size_t *n,
                    size_t *cols);
/* expect_stage_correct at the size of tile test `test` of stage id. */
void expect_tile_test_correct(const struct lab *lab, const char *id, const char *test);

/* Fail, with the verdict's sentence after "technique: " (and its figures on
 * a line of their own), unless stage id's
 * kernel shows its idea (stage_technique_check). Under EMU=1 it is counted
 * here; on a GPU by the emulated driver that WORKBOOK_TECHNIQUE_RUN names
 * (make test builds it), run on the same file. */
#define TECHNIQUE_PREFIX "technique: "
/* after it, when the stage's outputs were wrong under the emulation */
#define EMULATION_PREFIX "under the emulation, "
void expect_stage_technique(const struct lab *lab, const char *id);

#endif
