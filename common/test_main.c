/* test_main.c: the entry point of every lab's test program. It prints the
 * seed and whether a GPU is present, then hands over to Criterion, which
 * runs each test in a process of its own. This process never touches CUDA
 * itself: a CUDA context does not survive fork(). */
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/options.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "workbook.h"

extern const struct lab *const workbook_lab;

ReportHook(POST_TEST)(struct criterion_test_stats *stats)
{
    if (stats->timed_out)
        printf("  %s::%s did not finish in %.0f s: %s\n", stats->test->category,
               stats->test->name, stats->test->data->timeout, hang_advice(workbook_lab));
}

/* One line per stage after the run, and where to start. */
ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    const struct lab *lab = workbook_lab;
    bool pointed = false;
    for (const struct stage *s = lab->stages; s->id; s++) {
        char suite[64];
        snprintf(suite, sizeof suite, "%s_stage%s", lab->name, s->id);
        for (char *c = suite; *c; c++)
            if (*c == '-')
                *c = '_';
        for (struct criterion_suite_stats *ss = stats->suites; ss; ss = ss->next) {
            size_t ran = ss->tests_passed + ss->tests_failed + ss->tests_crashed;
            if (strcmp(ss->suite->name, suite) != 0 || ran == 0)
                continue;
            bool ok = ss->tests_passed == ran;
            printf("  stage %-3s %-42s %3zu of %3zu passed%s", s->id, s->idea, ss->tests_passed,
                   ran, ok ? "\n" : "");
            if (!ok && !pointed)
                printf("   <- start here: make test LAB=%s STAGE=%s", lab->name, s->id);
            if (!ok)
                printf("\n");
            pointed |= !ok;
        }
    }
    fflush(stdout);
}

/* STAGE=4 runs the suites map_stage4a and map_stage4b; STAGE=1 never runs 10. */
static void select_stage(const struct lab *lab, const char *stage)
{
    static char pattern[128];
    bool known = false;
    for (const struct stage *s = lab->stages; s->id; s++)
        known |= stage_selected(s, stage);
    if (!known)
        die("STAGE=%s: %s has stages %s", stage, lab->name, stage_list(lab));
    snprintf(pattern, sizeof pattern, "%s_stage%s?([a-z])/*", lab->name, stage);
    for (char *c = pattern; *c; c++)
        if (*c == '-')
            *c = '_'; /* suites are C names: scan-HS tests are scan_HS_stage1... */
    criterion_options.pattern = pattern;
}

int main(int argc, char *argv[])
{
    char why[256];
    const char *stage = getenv("STAGE");
    unsigned long long seed = seed_from_env();
    printf("%s: testing %s with seed %llu (SEED=%llu repeats these inputs)\n", workbook_lab->name,
           LAB_SOURCE, seed, seed);
    if (gpu_present_forked(why, sizeof why)) {
        printf("GPU: %s\n", why);
        if (gpu_emulated())
            printf("Emulated: the largest size tested is %s, not 2^24+17 as on a GPU.\n",
                   LARGEST_TEST_SIZE_TEXT);
    } else {
        printf("No CUDA GPU here (%s): the GPU tests below are skipped.\n", why);
        setenv("WORKBOOK_NO_GPU", why, 1);
    }
    fflush(stdout);

    struct criterion_test_set *tests = criterion_initialize();
    int result = 0;
    if (criterion_handle_args(argc, argv, true)) {
        if (stage && *stage)
            select_stage(workbook_lab, stage);
        result = !criterion_run_all_tests(tests);
    }
    criterion_finalize(tests);
    return result;
}
