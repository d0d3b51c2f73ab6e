/* test_map.c: every map stage must match the CPU reference on every size,
 * and must not depend on a particular block size. */
#include "testing.h"

extern const struct lab map_lab;

ParameterizedTestParameters(map_stage1, matches_cpu)
{
    return cr_make_param_array(size_t, (size_t *)test_sizes, test_size_count);
}
ParameterizedTest(size_t *n, map_stage1, matches_cpu, .init = need_gpu,
                  .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "1", *n, 256);
}

ParameterizedTestParameters(map_stage2, matches_cpu)
{
    return cr_make_param_array(size_t, (size_t *)test_sizes, test_size_count);
}
ParameterizedTest(size_t *n, map_stage2, matches_cpu, .init = need_gpu,
                  .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "2", *n, 256);
}

ParameterizedTestParameters(map_stage3, matches_cpu)
{
    return cr_make_param_array(size_t, (size_t *)test_sizes, test_size_count);
}
ParameterizedTest(size_t *n, map_stage3, matches_cpu, .init = need_gpu,
                  .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "3", *n, 256);
}

ParameterizedTestParameters(map_stage4a, matches_cpu)
{
    return cr_make_param_array(size_t, (size_t *)test_sizes, test_size_count);
}
ParameterizedTest(size_t *n, map_stage4a, matches_cpu, .init = need_gpu,
                  .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "4a", *n, 256);
}

ParameterizedTestParameters(map_stage4b, matches_cpu)
{
    return cr_make_param_array(size_t, (size_t *)test_sizes, test_size_count);
}
ParameterizedTest(size_t *n, map_stage4b, matches_cpu, .init = need_gpu,
                  .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&map_lab, "4b", *n, 256);
}

/* Block sizes that are not 256, nor powers of two: a kernel that assumes
 * one fails here. */
static const int odd_blocks[] = {32, 96, 1000, 1024};

Test(map_stage1, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    for (int k = 0; k < 4; k++)
        expect_stage_correct(&map_lab, "1", 100003, odd_blocks[k]);
}
Test(map_stage2, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    for (int k = 0; k < 4; k++)
        expect_stage_correct(&map_lab, "2", 100003, odd_blocks[k]);
}
Test(map_stage3, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    for (int k = 0; k < 4; k++)
        expect_stage_correct(&map_lab, "3", 100003, odd_blocks[k]);
}
Test(map_stage4a, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    for (int k = 0; k < 4; k++)
        expect_stage_correct(&map_lab, "4a", 100003, odd_blocks[k]);
}
Test(map_stage4b, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    for (int k = 0; k < 4; k++)
        expect_stage_correct(&map_lab, "4b", 100003, odd_blocks[k]);
}
