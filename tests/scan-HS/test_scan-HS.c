/* test_scan-HS.c: every stage must match the CPU reference,
 * inclusive and exclusive, ints and floats, on every size: one segment or
 * many (matches_cpu), whatever block size it is given (any_block_size: the
 * launchers round it up to whole warps). */
#include "testing.h"

extern const struct lab scan_hs_lab;

ParameterizedTestParameters(scan_HS_stage1, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, scan_HS_stage1, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&scan_hs_lab, "1", *n, 256);
}
Test(scan_HS_stage1, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&scan_hs_lab, "1");
}

ParameterizedTestParameters(scan_HS_stage2, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, scan_HS_stage2, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&scan_hs_lab, "2", *n, 256);
}
Test(scan_HS_stage2, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&scan_hs_lab, "2");
}

ParameterizedTestParameters(scan_HS_stage3, matches_cpu) { return sizes_to_test(); }
ParameterizedTest(size_t *n, scan_HS_stage3, matches_cpu, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_stage_correct(&scan_hs_lab, "3", *n, 256);
}
Test(scan_HS_stage3, any_block_size, .init = need_gpu, .timeout = GPU_TEST_TIMEOUT)
{
    expect_correct_with_any_block(&scan_hs_lab, "3");
}
