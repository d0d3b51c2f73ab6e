/* testing.c: the checks behind every lab's tests. */
#include "testing.h"

#include <stdlib.h>

const size_t test_sizes[] = {
    0, 1, 31, 32, 33, 1000, 1023, 1024, 1025, 1000003, LARGEST_TEST_SIZE,
};
const size_t test_size_count = sizeof test_sizes / sizeof test_sizes[0];

struct criterion_test_params sizes_to_test(void)
{
    return cr_make_param_array(size_t, (size_t *)test_sizes, test_size_count);
}

void need_gpu(void)
{
    if (getenv("WORKBOOK_NO_GPU"))
        cr_skip_test("no CUDA GPU");
}

void expect_stage_correct(const struct lab *lab, const char *id, size_t n, int block)
{
    const struct stage *s = stage_find(lab, id);
    cr_assert(s, "%s has no stage %s (its stages: %s)", lab->name, id, stage_list(lab));
    for (int v = 0; v < variant_count(lab); v++) {
        struct problem *p = problem_new(lab, v, n, seed_from_env(), block);
        lab->reference(p);
        char msg[2048];
        bool ok = problem_verify(p, s, msg, sizeof msg);
        /* after a failed kernel the context may be unusable: free only on success */
        if (ok)
            problem_free(p);
        cr_assert(ok, "%s", msg);
    }
}

void expect_correct_with_any_block(const struct lab *lab, const char *stage)
{
    static const int blocks[] = {32, 96, 1000, 1024};
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++)
        expect_stage_correct(lab, stage, 100003, blocks[k]);
}
