/* test_scan-large-arrays.c: every stage must match the CPU reference,
 * inclusive and exclusive, ints and floats, on every size up to 2^24 + 17
 * (matches_cpu), whatever block size it is given (any_block_size). A stage
 * that waits forever for another block's prefix is stopped after
 * GPU_TEST_TIMEOUT seconds, with a message saying what usually causes it. */
#include "testing.h"

extern const struct lab scan_large_lab;

ParameterizedTestParameters(scan_large_arrays_stage1, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, scan_large_arrays_stage1, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&scan_large_lab, "1", *n, 256);
}
Test(scan_large_arrays_stage1, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&scan_large_lab, "1");
}

ParameterizedTestParameters(scan_large_arrays_stage2, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, scan_large_arrays_stage2, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&scan_large_lab, "2", *n, 256);
}
Test(scan_large_arrays_stage2, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&scan_large_lab, "2");
}

ParameterizedTestParameters(scan_large_arrays_stage3, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, scan_large_arrays_stage3, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&scan_large_lab, "3", *n, 256);
}
Test(scan_large_arrays_stage3, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&scan_large_lab, "3");
}

ParameterizedTestParameters(scan_large_arrays_stage4, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, scan_large_arrays_stage4, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&scan_large_lab, "4", *n, 256);
}
Test(scan_large_arrays_stage4, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&scan_large_lab, "4");
}
