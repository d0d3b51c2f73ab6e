/* testing.h: what every lab's Criterion tests share. */
#ifndef TESTING_H
#define TESTING_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "workbook.h"

/* Kernels that never finish are stopped after this many seconds. */
#define GPU_TEST_TIMEOUT 30.0

/* The largest size tested: 2^24 + 17, or 2^20 + 17 under the CPU emulation,
 * where a tree of barriers over 2^24 threads would take minutes. */
#ifdef WORKBOOK_EMU
#define LARGEST_TEST_SIZE (((size_t)1 << 20) + 17)
#define LARGEST_TEST_SIZE_TEXT "2^20+17"
#else
#define LARGEST_TEST_SIZE (((size_t)1 << 24) + 17)
#define LARGEST_TEST_SIZE_TEXT "2^24+17"
#endif

/* Sizes the frame prescribes: around a warp, around a block, a large prime,
 * and 2^24 plus an odd number (LARGEST_TEST_SIZE). Zero comes first: a lab that cannot take it
 * starts its parameter list at test_sizes + 1. */
extern const size_t test_sizes[];
extern const size_t test_size_count;

/* The parameters of a size sweep: every size in test_sizes. */
struct criterion_test_params sizes_to_test(void);

/* .init of every GPU test: skip it, quietly, when the runner found no GPU. */
void need_gpu(void);

/* Run one stage on fresh inputs of size n and fail with the full report
 * (stage, size, seed, first wrong index, expected and got, how many) if
 * anything is wrong: outputs, guard zones or inputs. */
void expect_stage_correct(const struct lab *lab, const char *stage, size_t n, int block);

/* The same at n = 100003 with blocks of 32, 96, 1000 and 1024 threads: a
 * kernel that assumes 256, or a power of two, fails here. */
void expect_correct_with_any_block(const struct lab *lab, const char *stage);

#endif
