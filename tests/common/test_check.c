/* test_check.c: the harness's own checks, which need no GPU. If these are
 * wrong, every lab's verdicts are wrong, so they are tested first. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "workbook.h"

/* ---- sizes and stages -------------------------------------------------- */

Test(parse_size, reads_plain_powers_and_offsets)
{
    size_t n = 0;
    cr_expect(parse_size("1000", &n) && n == 1000);
    cr_expect(parse_size("2^28", &n) && n == (size_t)1 << 28);
    cr_expect(parse_size("2^24+17", &n) && n == ((size_t)1 << 24) + 17);
    cr_expect(parse_size("2^10-1", &n) && n == 1023);
    cr_expect(parse_size("0", &n) && n == 0);
}

Test(parse_size, rejects_what_is_not_a_size)
{
    size_t n;
    const char *bad[] = {"", "abc", "-5", "2^", "3^4", "2^28+", "10k", "2^3-9", "1.5",
                         /* too large to hold: they must not wrap around */
                         "99999999999999999999", "2^64", "2^63+9223372036854775808"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        cr_expect(!parse_size(bad[k], &n), "accepted \"%s\"", bad[k]);
}

static const struct stage stages[] = {
    {"1", "one", NULL}, {"4a", "four a", NULL}, {"4b", "four b", NULL}, {"10", "ten", NULL},
    {NULL, NULL, NULL},
};
static const struct lab fake = {.name = "fake", .stages = stages};

Test(stages, a_number_selects_its_lettered_variants_only)
{
    cr_expect(stage_selected(&stages[1], "4") && stage_selected(&stages[2], "4"));
    cr_expect(stage_selected(&stages[1], "4a") && !stage_selected(&stages[2], "4a"));
    cr_expect(stage_selected(&stages[0], "1") && !stage_selected(&stages[3], "1"));
    cr_expect(stage_selected(&stages[3], NULL) && stage_selected(&stages[3], ""));
}

Test(stages, a_list_selects_each_of_its_stages)
{
    cr_expect(stage_selected(&stages[0], "1,4") && stage_selected(&stages[2], "1,4"));
    cr_expect(!stage_selected(&stages[3], "1,4") && stage_selected(&stages[3], "4a,10"));
}

Test(stages, are_counted_found_and_listed)
{
    cr_expect_eq(stage_count(&fake), 4);
    cr_expect_eq(stage_find(&fake, "4b"), &stages[2]);
    cr_expect_null(stage_find(&fake, "5"));
    cr_expect_str_eq(stage_list(&fake), "1, 4a, 4b, 10");
}

/* ---- a lab's tables: its stage table, its facts, its grading cases ------- */

struct facts {
    const char *id;
    int value;
};
static const struct stage library = {"lib", "the library", NULL};
static const struct facts rows[] = {
    {"1", 1}, {"4a", 4}, {"4b", 5}, {"10", 10}, {"lib", 0}, {NULL, 0},
};
static const struct facts rows_without_10[] = {{"1", 1}, {"4a", 4}, {"4b", 5}, {"lib", 0}, {NULL, 0}};
static const struct facts rows_and_a_5[] = {
    {"1", 1}, {"4a", 4}, {"4b", 5}, {"5", 5}, {"10", 10}, {"lib", 0}, {NULL, 0},
};
#define TABLES(facts_rows) \
    .name = "fake", .stages = stages, .library = &library, .facts = facts_rows, \
    .facts_size = sizeof facts_rows[0]

Test(lab_tables, give_each_stage_and_the_library_its_row)
{
    const struct lab lab = {TABLES(rows)};
    lab_check(&lab);
    cr_expect_eq(stage_facts(&lab, &stages[2]), &rows[2]);
    cr_expect_eq(stage_facts(&lab, &stages[3]), &rows[3]);
    cr_expect_eq(stage_facts(&lab, &library), &rows[4]);
    cr_expect_str_eq(lab_grade_cases(&lab)[0].size, "1");
}

Test(lab_tables, refuse_a_stage_without_facts,
     .exit_code = 2, .init = cr_redirect_stderr)
{
    const struct lab lab = {TABLES(rows_without_10)};
    lab_check(&lab);
}

Test(lab_tables, refuse_facts_for_a_stage_the_table_lacks,
     .exit_code = 2, .init = cr_redirect_stderr)
{
    const struct lab lab = {TABLES(rows_and_a_5)};
    lab_check(&lab);
}

Test(lab_tables, refuse_two_stages_of_one_id,
     .exit_code = 2, .init = cr_redirect_stderr)
{
    static const struct stage twice[] = {{"1", "one", NULL}, {"1", "one again", NULL}, {NULL}};
    const struct lab lab = {.name = "fake", .stages = twice};
    lab_check(&lab);
}

Test(lab_tables, refuse_a_grading_case_of_another_shape,
     .exit_code = 2, .init = cr_redirect_stderr)
{
    static const struct grade_case cases[] = {{"31x33", 256}, {"100003", 256}, {NULL, 0}};
    const struct lab lab = {.name = "fake", .matrix = true, .stages = stages, .grade_cases = cases};
    lab_check(&lab);
}

/* ---- comparing outputs ------------------------------------------------- */

enum { N = 1000 };
static float ref[N], got[N];
static struct buffer out = {.name = "out", .role = OUTPUT, .type = F32, .count = N, .compared = N,
                            .host = ref, .got = got, .rtol = 1e-6, .atol = 1e-6};

static void make_equal(void)
{
    fill_uniform_f32(ref, N, 7, -1, 1);
    memcpy(got, ref, sizeof ref);
}

Test(compare, passes_equal_outputs, .init = make_equal)
{
    struct mismatch m;
    cr_expect(compare_output(&out, &m));
    cr_expect_eq(m.count, 0);
}

Test(compare, finds_the_first_wrong_element_and_counts_all, .init = make_equal)
{
    struct mismatch m;
    got[17] += 0.5f;
    got[400] = -got[400] + 1;
    cr_assert(!compare_output(&out, &m));
    cr_expect_eq(m.count, 2);
    cr_expect_eq(m.first, 17);
    cr_expect_eq(m.last, 400);
    cr_expect_float_eq(m.expected, ref[17], 0);
    cr_expect_float_eq(m.got, got[17], 0);
}

Test(compare, tells_unwritten_elements_by_their_poison, .init = make_equal)
{
    struct mismatch m;
    fill_poison(got + 990, 10 * sizeof(float));
    cr_assert(!compare_output(&out, &m));
    cr_expect_eq(m.count, 10);
    cr_expect_eq(m.unwritten, 10);
    cr_expect(isnan(got[995]), "the poison must be a NaN as a float");
}

Test(compare, stops_where_the_reference_says, .init = make_equal)
{
    struct mismatch m;
    struct buffer first_half = out;
    first_half.compared = N / 2;
    fill_poison(got + N / 2, N / 2 * sizeof(float));
    cr_expect(compare_output(&first_half, &m), "elements past `compared` are not the answer's");
    got[N / 2 - 1] += 1;
    cr_assert(!compare_output(&first_half, &m));
    cr_expect_eq(m.first, N / 2 - 1);
}

Test(compare, allows_rounding_but_not_more, .init = make_equal)
{
    struct mismatch m;
    got[5] = ref[5] * (1 + 2e-7f);
    cr_expect(compare_output(&out, &m), "a few ulps must pass");
    got[5] = ref[5] + 1e-3f;
    cr_expect(!compare_output(&out, &m), "an error of 1e-3 must fail");
}

Test(compare, compares_integers_exactly)
{
    int32_t r[3] = {1, 2, 3}, g[3] = {1, 2, 4};
    struct buffer b = {.name = "sum", .role = OUTPUT, .type = I32, .count = 3, .compared = 3,
                       .host = r, .got = g};
    struct mismatch m;
    cr_assert(!compare_output(&b, &m));
    cr_expect_eq(m.first, 2);
    g[2] = 3;
    cr_expect(compare_output(&b, &m));
}

/* ---- failure reports --------------------------------------------------- */

static struct problem problem = {.lab = &fake, .n = N, .seed = 1234, .block = 256};

static const char *report(void)
{
    static char msg[3072];
    struct finding f = {.verdict = OUTPUT_WRONG, .buffer = &out};
    cr_assert(!compare_output(&out, &f.mismatch));
    describe_finding(&problem, &stages[1], &f, msg, sizeof msg);
    return msg;
}

Test(report, names_stage_size_seed_index_values_count_and_rerun, .init = make_equal)
{
    got[123] = 42;
    const char *msg = report();
    cr_expect(strstr(msg, "fake stage 4a"), "%s", msg);
    cr_expect(strstr(msg, "n = 1000"), "%s", msg);
    cr_expect(strstr(msg, "seed 1234"), "%s", msg);
    cr_expect(strstr(msg, "out[123]"), "%s", msg);
    cr_expect(strstr(msg, "got 42"), "%s", msg);
    cr_expect(strstr(msg, "1 of 1000 elements wrong"), "%s", msg);
    cr_expect(strstr(msg, "make test LAB=fake STAGE=4a SEED=1234"), "%s", msg);
}

Test(report, says_when_nothing_was_written, .init = make_equal)
{
    fill_poison(got, sizeof got);
    const char *msg = report();
    cr_expect(strstr(msg, "nothing was written"), "%s", msg);
}

Test(report, says_when_the_threads_stop_short, .init = make_equal)
{
    fill_poison(got + 768, (N - 768) * sizeof(float));
    const char *msg = report();
    cr_expect(strstr(msg, "from index 768 to the end was never written"), "%s", msg);
}

Test(report, says_when_values_are_wrong_but_written, .init = make_equal)
{
    for (int i = 0; i < N; i += 2)
        got[i] = -got[i] + 3;
    const char *msg = report();
    cr_expect(strstr(msg, "every element was written but some values are wrong"), "%s", msg);
}

/* ---- inputs ------------------------------------------------------------- */

Test(inputs, come_from_the_seed_alone)
{
    static float a[N], b[N], c[N];
    fill_uniform_f32(a, N, 99, -1, 1);
    fill_uniform_f32(b, N, 99, -1, 1);
    fill_uniform_f32(c, N, 100, -1, 1);
    cr_expect(memcmp(a, b, sizeof a) == 0, "same seed, same inputs");
    cr_expect(memcmp(a, c, sizeof a) != 0, "another seed, other inputs");
    for (int i = 0; i < N; i++)
        cr_assert(a[i] >= -1 && a[i] < 1, "a[%d] = %g is outside [-1, 1)", i, a[i]);
}

Test(inputs, poison_is_recognised_and_nothing_else_is)
{
    uint32_t w[4];
    fill_poison(w, sizeof w);
    cr_expect(is_poison(w, sizeof w));
    w[2] ^= 1;
    cr_expect(!is_poison(w, sizeof w));
}

/* ---- the likely cause: right, and the same at every size -------------- */

static int32_t int_ref[1], int_got[1];
static struct buffer sum = {.name = "sum", .role = OUTPUT, .type = I32, .count = 1, .compared = 1,
                            .host = int_ref, .got = int_got};

static const char *report_on(struct problem *p, struct buffer *b)
{
    static char msg[3072];
    struct finding f = {.verdict = OUTPUT_WRONG, .buffer = b};
    cr_assert(!compare_output(b, &f.mismatch));
    describe_finding(p, &stages[0], &f, msg, sizeof msg);
    return msg;
}

Test(cause, counts_the_poisoned_words_in_a_sum_even_when_it_wraps)
{
    /* 255 and 5000 poison words: the second passes 2^32 and wraps, as the
     * GPU's adds do; both must read as poison, never as a race */
    int counts[] = {255, 5000, -3};
    for (int k = 0; k < 3; k++) {
        int_ref[0] = -77;
        int_got[0] = (int32_t)(uint32_t)(-77 + (int64_t)counts[k] * (int32_t)POISON_WORD);
        char want[64];
        snprintf(want, sizeof want, "off by %d times the poison", counts[k]);
        const char *msg = report_on(&problem, &sum);
        cr_expect(strstr(msg, want), "%s", msg);
    }
}

Test(cause, reads_a_nan_as_a_poisoned_word, .init = make_equal)
{
    got[7] = ref[7] + __builtin_nanf("");
    const char *msg = report();
    cr_expect(strstr(msg, "out[7] is NaN: a poisoned word"), "%s", msg);
}

Test(cause, names_what_the_emulation_saw_never_itself, .init = make_equal)
{
    got[3] = ref[3] + 1;
    struct problem emulated = problem;
    emulated.emulated = true;
    const char *msg = report_on(&emulated, &out);
    cr_expect(strstr(msg, "the emulation saw no race"), "%s", msg);
    cr_expect(!strstr(msg, "EMU=1 names"), "under EMU=1 it must not send the student to EMU=1: %s", msg);
    cr_expect(strstr(msg, "reproduce: make test LAB=fake STAGE=1 SEED=1234 EMU=1"), "%s", msg);
    msg = report_on(&problem, &out);
    cr_expect(strstr(msg, "EMU=1 names the racing lines"), "%s", msg);
}

Test(cause, says_which_side_of_an_array_was_written)
{
    char msg[3072];
    struct finding f = {.verdict = GUARD_WRITTEN, .buffer = &out, .index = -1};
    describe_finding(&problem, &stages[0], &f, msg, sizeof msg);
    cr_expect(strstr(msg, "out[-1] was written") && strstr(msg, "below zero"), "%s", msg);
    f.index = N;
    describe_finding(&problem, &stages[0], &f, msg, sizeof msg);
    cr_expect(strstr(msg, "out[1000] was written") && strstr(msg, "bounds test"), "%s", msg);
}

Test(cause, explains_an_impossible_launch_but_not_the_emulation_twice)
{
    char msg[3072];
    struct problem emulated = problem;
    emulated.emulated = true;
    struct finding f = {.verdict = KERNEL_FAILED, .error_name = "cudaErrorInvalidConfiguration"};
    describe_finding(&emulated, &stages[0], &f, msg, sizeof msg);
    cr_expect(strstr(msg, "launch nothing when n == 0"), "%s", msg);
    f.error_name = "cudaErrorLaunchFailure";
    snprintf(f.error, sizeof f.error, "kernel k, block (0, 0, 0): a race on shared memory");
    describe_finding(&emulated, &stages[0], &f, msg, sizeof msg);
    cr_expect(strstr(msg, "the kernel was stopped: kernel k") && !strstr(msg, "likely cause"), "%s",
              msg);
}
