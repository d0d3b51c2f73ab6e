/* test_histogram.c: every histogram stage must count exactly what the CPU
 * counts, for uniform and skewed values into 256 and 4096 bins, on every size
 * (matches_cpu), whatever block size it is given (any_block_size). */
#include "testing.h"

extern const struct lab histogram_lab;

ParameterizedTestParameters(histogram_stage1, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, histogram_stage1, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&histogram_lab, "1", *n, 256);
}
Test(histogram_stage1, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&histogram_lab, "1");
}

ParameterizedTestParameters(histogram_stage2, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, histogram_stage2, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&histogram_lab, "2", *n, 256);
}
Test(histogram_stage2, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&histogram_lab, "2");
}

ParameterizedTestParameters(histogram_stage3, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, histogram_stage3, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&histogram_lab, "3", *n, 256);
}
Test(histogram_stage3, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&histogram_lab, "3");
}

ParameterizedTestParameters(histogram_stage4, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, histogram_stage4, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&histogram_lab, "4", *n, 256);
}
Test(histogram_stage4, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&histogram_lab, "4");
}
