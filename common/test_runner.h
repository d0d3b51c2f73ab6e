/* test_runner.h: what the test program's two files share (test_main.c: the
 * names, the time-outs, the run; test_report.c: the reports); only they
 * include it. */
#ifndef TEST_RUNNER_H
#define TEST_RUNNER_H
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/internal/ordered-set.h>
#include <criterion/options.h>

#include "testing.h"
#include "workbook.h"

extern bool for_people;  /* our report, not Criterion's log */
extern size_t planned;   /* tests, for the progress line */
extern bool all_skipped; /* every test was skipped (STAGE= chose none here) */

/* scan-HS stage 1 is the suite scan_HS_stage1: suites are C names */
const char *suite_of(const struct stage *s);
bool is_technique(const struct criterion_test *t); /* the stage's technique test? */
/* A test's size from its name (the technique test sizes as the largest). */
void size_of(const struct criterion_test *t, size_t *n, size_t *cols, int *block);
const char *test_size_text(const struct criterion_test *t); /* "100003 (block 32)" */
const char *sizes_are(void); /* what a list of sizes starts with: "n = ", or "" */
/* Whether a test was stopped at its time limit (testing.c); *t its record. */
bool stopped_at_limit(const struct criterion_test_stats *ts, struct time_out *t);
const struct criterion_test *hung_in(const struct stage *s); /* its first time-out */
int by_test_size(const void *a, const void *b); /* qsort: smallest first, then by block */

#endif
