/* testing.c: the checks behind every lab's tests. */
#include "testing.h"

#include <stdlib.h>

const size_t test_sizes[] = {
    0, 1, 31, 32, 33, 1000, 1023, 1024, 1025, 1000003, (1u << 24) + 17,
};
const size_t test_size_count = sizeof test_sizes / sizeof test_sizes[0];

void need_gpu(void)
{
    if (getenv("WORKBOOK_NO_GPU"))
        cr_skip_test("no CUDA GPU");
}

void expect_stage_correct(const struct lab *lab, const char *id, size_t n, int block)
{
    const struct stage *s = stage_find(lab, id);
    cr_assert(s, "%s has no stage %s (its stages: %s)", lab->name, id, stage_list(lab));
    struct problem *p = problem_new(lab, n, seed_from_env(), block);
    lab->reference(p);
    char msg[2048];
    bool ok = problem_verify(p, s, msg, sizeof msg);
    /* after a failed kernel the context may be unusable: free only on success */
    if (ok)
        problem_free(p);
    cr_assert(ok, "%s", msg);
}
