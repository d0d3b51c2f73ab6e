/* test_map.c: every map stage must match the CPU reference on every size
 * (matches_cpu) and must not depend on one block size (any_block_size). */
#include "testing.h"

extern const struct lab map_lab;

ParameterizedTestParameters(map_stage1, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, map_stage1, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "1", *n, 256);
}
Test(map_stage1, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&map_lab, "1");
}

ParameterizedTestParameters(map_stage2, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, map_stage2, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "2", *n, 256);
}
Test(map_stage2, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&map_lab, "2");
}

ParameterizedTestParameters(map_stage3, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, map_stage3, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "3", *n, 256);
}
Test(map_stage3, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&map_lab, "3");
}

ParameterizedTestParameters(map_stage4a, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, map_stage4a, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "4a", *n, 256);
}
Test(map_stage4a, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&map_lab, "4a");
}

ParameterizedTestParameters(map_stage4b, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, map_stage4b, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "4b", *n, 256);
}
Test(map_stage4b, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&map_lab, "4b");
}
