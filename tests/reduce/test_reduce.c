/* test_reduce.c: every reduce stage must match the CPU reference, ints and
 * floats, on every size (matches_cpu), whatever block size it is given
 * (any_block_size: the launchers round it to a power of two). */
#include "testing.h"

extern const struct lab reduce_lab;

ParameterizedTestParameters(reduce_stage1, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, reduce_stage1, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&reduce_lab, "1", *n, 256);
}
Test(reduce_stage1, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&reduce_lab, "1");
}

ParameterizedTestParameters(reduce_stage2, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, reduce_stage2, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&reduce_lab, "2", *n, 256);
}
Test(reduce_stage2, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&reduce_lab, "2");
}

ParameterizedTestParameters(reduce_stage3, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, reduce_stage3, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&reduce_lab, "3", *n, 256);
}
Test(reduce_stage3, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&reduce_lab, "3");
}

ParameterizedTestParameters(reduce_stage4, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, reduce_stage4, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&reduce_lab, "4", *n, 256);
}
Test(reduce_stage4, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&reduce_lab, "4");
}

ParameterizedTestParameters(reduce_stage5, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, reduce_stage5, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&reduce_lab, "5", *n, 256);
}
Test(reduce_stage5, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&reduce_lab, "5");
}

ParameterizedTestParameters(reduce_stage6, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, reduce_stage6, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&reduce_lab, "6", *n, 256);
}
Test(reduce_stage6, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&reduce_lab, "6");
}

ParameterizedTestParameters(reduce_stage7, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, reduce_stage7, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&reduce_lab, "7", *n, 256);
}
Test(reduce_stage7, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&reduce_lab, "7");
}

ParameterizedTestParameters(reduce_stage8, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, reduce_stage8, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&reduce_lab, "8", *n, 256);
}
Test(reduce_stage8, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&reduce_lab, "8");
}
