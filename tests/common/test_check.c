/* test_check.c: the harness's own checks, which need no GPU. If these are
 * wrong, every lab's verdicts are wrong, so they are tested first. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <criterion/redirect.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "workbook.h"
#include "technique.h"

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

/* ---- the student's choices: N, BLOCK, SEED ----------------------------- */

static const struct lab flat = {.name = "flat"}, square = {.name = "square", .matrix = true};

Test(choices, read_sizes_shapes_blocks_and_seeds)
{
    struct choices c = {.n = 7, .block = 256};
    choices_read(&flat, "2^24+17", "128", "42", &c);
    cr_expect(c.n == ((size_t)1 << 24) + 17 && c.cols == 0 && c.block == 128 && c.seed == 42);
    choices_read(&square, "1000x999", NULL, "18446744073709551615", &c);
    cr_expect(c.n == 999000 && c.cols == 999 && c.block == 128 && c.seed == UINT64_MAX);
}

Test(choices, keep_the_defaults_of_what_is_not_chosen)
{
    struct choices c = {.n = 7, .block = 256};
    choices_read(&flat, "", NULL, "5", &c);
    cr_expect(c.n == 7 && c.block == 256 && c.seed == 5);
}

/* Each mistake ends the program with its sentence (the same one in make run
 * and make test: tests/grade/inputs-test.sh compares them). */
struct mistake { /* texts, not pointers: a test runs in a process of its own */
    char n[24], block[24], seed[24];
};
ParameterizedTestParameters(choices, refuse_each_mistake)
{
    static struct mistake bad[] = {
        {"abc", "", "1"}, {"2^64", "", "1"}, {"2^", "", "1"}, {"1000x999", "", "1"},
        {"", "", "-1"},   {"", "", "18446744073709551616"},  {"", "", "4x"},
        {"", "abc", "1"}, {"", "-256", "1"}, {"", "2147483648", "1"},
    };
    return cr_make_param_array(struct mistake, bad, sizeof bad / sizeof bad[0]);
}
ParameterizedTest(struct mistake *m, choices, refuse_each_mistake, .exit_code = 2,
                  .init = cr_redirect_stderr)
{
    struct choices c = {.block = 256};
    choices_read(&flat, m->n, m->block, m->seed, &c);
}

static const struct stage stages[] = {
    {"1", "one", NULL, "the first idea"}, {"4a", "four a", NULL, "the fourth idea"},
    {"4b", "four b", NULL, "the fourth idea, another way"}, {"10", "ten", NULL, "the tenth idea"},
    {NULL, NULL, NULL, NULL},
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
static const struct stage library = {"lib", "the library", NULL, NULL};
static const struct facts rows[] = {
    {"1", 1}, {"4a", 4}, {"4b", 5}, {"10", 10}, {"lib", 0}, {NULL, 0},
};
static const struct facts rows_without_10[] = {{"1", 1}, {"4a", 4}, {"4b", 5}, {"lib", 0}, {NULL, 0}};
static const struct facts rows_and_a_5[] = {
    {"1", 1}, {"4a", 4}, {"4b", 5}, {"5", 5}, {"10", 10}, {"lib", 0}, {NULL, 0},
};
static const struct technique techniques[] = {
    {"1", {{0}}},
    {"4a", {{shared_atomics, AT_LEAST, 1, "no shared-memory atomics"},
            {launches, AT_MOST, 1, "more than one launch"}}},
    {"4b", {{0}}},
    {"10", {{0}}},
    {0},
};
#define TABLES(facts_rows) \
    .name = "fake", .stages = stages, .run.library = &library, .facts = facts_rows, \
    .facts_size = sizeof facts_rows[0], .technique.rows = techniques, \
    .technique.at = {"1000", 256}, .handout = "00-fake"

Test(lab_tables, give_each_stage_and_the_library_its_row)
{
    const struct lab lab = {TABLES(rows)};
    lab_check(&lab);
    cr_expect_eq(stage_facts(&lab, &stages[2]), &rows[2]);
    cr_expect_eq(stage_facts(&lab, &stages[3]), &rows[3]);
    cr_expect_eq(stage_facts(&lab, &library), &rows[4]);
    cr_expect_str_eq(lab_grade_cases(&lab)[0].size, "0");
}

/* The tests check n = 0; a grade that did not would pass a forgotten guard. */
Test(lab_tables, refuse_grading_cases_without_an_empty_input,
     .exit_code = 2, .init = cr_redirect_stderr)
{
    static const struct grade_case some[] = {{"1", 256}, {"1025", 256}, {NULL, 0}};
    const struct lab lab = {TABLES(rows), .grading.cases = some};
    lab_check(&lab);
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
    static const struct stage twice[] = {{"1", "one", NULL, "the first idea"},
                                         {"1", "one again", NULL, "the first idea again"}, {0}};
    const struct lab lab = {.name = "fake", .stages = twice, .technique.rows = techniques};
    lab_check(&lab);
}

Test(lab_tables, refuse_a_stage_without_a_technique, .exit_code = 2, .init = cr_redirect_stderr)
{
    static const struct technique three[] = {{"1", {{0}}}, {"4a", {{0}}}, {"4b", {{0}}}, {0}};
    struct lab lab = {TABLES(rows)};
    lab.technique.rows = three;
    lab_check(&lab);
}

Test(lab_tables, refuse_a_trait_that_says_not_what_is_missing, .exit_code = 2,
     .init = cr_redirect_stderr)
{
    static const struct technique mute[] = {{"1", {{launches, AT_MOST, 1, NULL}}},
                                            {"4a", {{0}}}, {"4b", {{0}}}, {"10", {{0}}}, {0}};
    struct lab lab = {TABLES(rows)};
    lab.technique.rows = mute;
    lab_check(&lab);
}

/* The technique's verdict quotes the stage's row: a row without the
 * handout's words would leave it saying "(null)". */
Test(lab_tables, refuse_a_stage_without_its_idea_in_the_handouts_words, .exit_code = 2,
     .init = cr_redirect_stderr)
{
    static const struct stage unworded[] = {{"1", "one", NULL, "the first idea"},
                                            {"4a", "four a", NULL, "the fourth idea"},
                                            {"4b", "four b", NULL, NULL},
                                            {"10", "ten", NULL, "the tenth idea"}, {0}};
    struct lab lab = {TABLES(rows)};
    lab.stages = unworded;
    lab_check(&lab);
}

/* ---- techniques: the first trait a run's counts fail --------------------- */

Test(techniques, pass_only_when_every_trait_holds)
{
    const struct lab lab = {TABLES(rows)};
    struct problem p = {.lab = &lab, .n = 1000};
    struct access_counts c = {.shared_atomics = 5, .launches = 1};
    double got = -1;
    cr_expect_null(technique_missing(&p, &stages[1], &c, &got));
    c.shared_atomics = 0;
    const struct trait *t = technique_missing(&p, &stages[1], &c, &got);
    cr_assert_not_null(t);
    cr_expect_str_eq(t->missing, "no shared-memory atomics");
    cr_expect_eq(got, 0);
    c.shared_atomics = 5, c.launches = 3;
    t = technique_missing(&p, &stages[1], &c, &got);
    cr_assert_not_null(t);
    cr_expect_str_eq(t->missing, "more than one launch");
    cr_expect_eq(got, 3);
    cr_expect_null(technique_missing(&p, &stages[0], &c, &got), "a stage without traits fails");
}

Test(techniques, name_the_idea_and_the_handout)
{
    const struct lab lab = {TABLES(rows)};
    char text[256];
    technique_sentence(&lab, &stages[1], &techniques[1].traits[0], text, sizeof text);
    cr_expect_str_eq(text, "no shared-memory atomics: this stage's idea is the fourth idea "
                           "(handouts/00-fake.md, stage 4a)");
}

Test(lab_tables, refuse_a_grading_case_of_another_shape,
     .exit_code = 2, .init = cr_redirect_stderr)
{
    static const struct grade_case cases[] = {{"31x33", 256}, {"100003", 256}, {NULL, 0}};
    const struct lab lab = {.name = "fake", .matrix = true, .stages = stages, .grading.cases = cases};
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

/* The report of a finding, in the words a student reads. */
static const char *words(const struct problem *p, const struct stage *s, const struct finding *f)
{
    static char msg[2 * sizeof(struct report)];
    struct report r;
    report_make(p, s, f, &r);
    report_text(&r, msg, sizeof msg);
    return msg;
}

static const char *report(void)
{
    struct finding f = {.verdict = OUTPUT_WRONG, .buffer = &out};
    cr_assert(!compare_output(&out, &f.mismatch));
    return words(&problem, &stages[1], &f);
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

Test(report, says_when_a_loop_stops_short_of_a_tail_written_apart, .init = make_equal)
{
    /* a float4 loop that stopped after 512 elements, its scalar tail (the
     * last 3) written */
    fill_poison(got + 512, (N - 512 - 3) * sizeof(float));
    const char *msg = report();
    cr_expect(strstr(msg, "from index 512 to 996 were never written") &&
                  strstr(msg, "the threads' loop stops short"),
              "%s", msg);
    cr_expect(!strstr(msg, "to the end"), "%s", msg);
}

Test(report, says_when_a_loop_steps_too_far, .init = make_equal)
{
    /* a grid of 64 threads whose loop steps by 3 x 64: runs of 64 written,
     * two runs skipped, up to the end */
    for (int i = 0; i < N; i++)
        if (i / 64 % 3)
            fill_poison(got + i, sizeof *got);
    const char *msg = report();
    cr_expect(strstr(msg, "runs of 64, one run in every 3") && strstr(msg, "steps 3 times too far"),
              "%s", msg);
    fill_poison(got + 10, sizeof *got); /* and a gap of another kind: no runs */
    msg = report();
    cr_expect(!strstr(msg, "too far") && strstr(msg, "with gaps"), "%s", msg);
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
    struct finding f = {.verdict = OUTPUT_WRONG, .buffer = b};
    cr_assert(!compare_output(b, &f.mismatch));
    return words(p, &stages[0], &f);
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

Test(cause, reads_no_arithmetic_where_the_lab_only_moves_values, .init = make_equal)
{
    static const struct lab sorting = {.name = "fake", .stages = stages, .diagnosis.moves_values = true};
    struct problem moved = problem;
    moved.lab = &sorting;
    int_ref[0] = -77;
    int_got[0] = (int32_t)(uint32_t)(-77 + 255 * (int64_t)(int32_t)POISON_WORD);
    const char *msg = report_on(&moved, &sum);
    cr_expect(!strstr(msg, "likely cause"), "a moved value is no sum of poison: %s", msg);
    for (int i = 0; i < N; i += 2)
        got[i] = -got[i] + 3;
    msg = report_on(&moved, &out);
    cr_expect(!strstr(msg, "likely cause"), "a moved value comes from no formula: %s", msg);
    fill_poison(got, sizeof got);
    msg = report_on(&moved, &out);
    cr_expect(strstr(msg, "nothing was written"), "%s", msg);
}

Test(cause, says_which_side_of_an_array_was_written)
{
    struct finding f = {.verdict = GUARD_WRITTEN, .buffer = &out, .index = -1};
    const char *msg = words(&problem, &stages[0], &f);
    cr_expect(strstr(msg, "out[-1] was written") && strstr(msg, "below zero"), "%s", msg);
    f.index = N;
    msg = words(&problem, &stages[0], &f);
    cr_expect(strstr(msg, "out[1000] was written") && strstr(msg, "bounds test"), "%s", msg);
}

Test(cause, explains_an_impossible_launch_but_not_the_emulation_twice)
{
    struct problem emulated = problem;
    emulated.emulated = true;
    struct finding f = {.verdict = KERNEL_FAILED, .error_name = "cudaErrorInvalidConfiguration"};
    const char *msg = words(&emulated, &stages[0], &f);
    cr_expect(strstr(msg, "launch nothing when n == 0"), "%s", msg);
    f.error_name = "cudaErrorLaunchFailure";
    snprintf(f.error, sizeof f.error, "kernel k, block (0, 0, 0): a race on shared memory");
    msg = words(&emulated, &stages[0], &f);
    cr_expect(strstr(msg, "the kernel was stopped: kernel k") && !strstr(msg, "likely cause"), "%s",
              msg);
}

/* ---- the report as data: made in a test, grouped in the runner ----------- */

/* The report of a wrong `out`, as made from what compare_output found. */
static void make_report(struct report *r)
{
    struct finding f = {.verdict = OUTPUT_WRONG, .buffer = &out};
    cr_assert(!compare_output(&out, &f.mismatch));
    report_make(&problem, &stages[1], &f, r);
}

static void expect_same(const struct report *a, const struct report *b)
{
    cr_expect_eq(a->variant, b->variant);
    cr_expect_eq(a->untouched, b->untouched);
    cr_expect_str_eq(a->title, b->title);
    cr_expect_str_eq(a->what, b->what);
    cr_expect_str_eq(a->cause, b->cause);
    cr_expect_str_eq(a->way, b->way);
    cr_expect_str_eq(a->reproduce, b->reproduce);
}

/* encode, then decode: the same report */
static void expect_round_trip(const struct report *r)
{
    static char text[REPORT_CODE_SIZE];
    struct report back;
    int len = report_encode(r, text, sizeof text);
    cr_assert(len > 0 && (size_t)len < sizeof text, "%d bytes", len);
    cr_assert(report_decode(text, &back), "%s", text);
    expect_same(r, &back);
}

Test(report_text, is_the_title_then_what_cause_and_rerun_two_spaces_in)
{
    struct report r = {.title = "t", .what = "a\nb", .cause = "c", .reproduce = "make x"};
    char msg[256], why[64];
    report_text(&r, msg, sizeof msg);
    cr_expect_str_eq(msg, "t:\n  a\n  b\n  likely cause: c\n  reproduce: make x");
    report_body(&r, msg, sizeof msg);
    cr_expect_str_eq(msg, "  a\n  b\n  likely cause: c\n  reproduce: make x");
    cr_expect_str_eq(report_why(&r, why, sizeof why), "c");
    r.cause[0] = '\0';
    report_text(&r, msg, sizeof msg);
    cr_expect_str_eq(msg, "t:\n  a\n  b\n  reproduce: make x");
    cr_expect_str_eq(report_why(&r, why, sizeof why), "a", "no cause: what's first line");
}

Test(report_code, carries_a_report_from_a_finding_whole, .init = make_equal)
{
    struct report r;
    got[123] = 42;
    make_report(&r);
    cr_expect(*r.cause && *r.way, "the made report has a cause and a way");
    expect_round_trip(&r);
    fill_poison(got, sizeof got);
    make_report(&r);
    cr_expect(r.untouched);
    expect_round_trip(&r);
}

Test(report_code, carries_hostile_text_whole)
{
    struct report r = {
        .variant = 3,
        .title = "a: b\nc \\ d\\n e\\",
        .what = "likely cause: not one\n\nreproduce: make nothing\nend\nworkbook report 1\n\t\\\\",
        .cause = "",
        .way = "variant: 7\r\nuntouched: 1",
        .reproduce = "caf\xc3\xa9 \xe2\x88\x91 \xf0\x9f\x99\x82: UTF-8 \\",
    };
    expect_round_trip(&r);
}

Test(report_code, carries_every_field_at_its_longest)
{
    /* backslashes and newlines: each byte doubles when written */
    static struct report r;
    char *field[] = {r.title, r.what, r.cause, r.way, r.reproduce};
    size_t size[] = {sizeof r.title, sizeof r.what, sizeof r.cause, sizeof r.way,
                     sizeof r.reproduce};
    for (int k = 0; k < 5; k++) {
        for (size_t i = 0; i + 1 < size[k]; i++)
            field[k][i] = i % 2 ? '\\' : '\n';
        field[k][size[k] - 1] = '\0';
    }
    r.variant = 9999;
    expect_round_trip(&r);
}

Test(report_code, refuses_what_is_not_a_report_and_any_cut, .init = make_equal)
{
    struct report r, back;
    static char text[REPORT_CODE_SIZE], bad[REPORT_CODE_SIZE + 64];
    got[5] = 7;
    make_report(&r);
    int len = report_encode(&r, text, sizeof text);
    const char *garbage[] = {"", "end", "fake stage 1 (one), n = 1000:\n  likely cause: x",
                             "workbook report 1", "workbook report 10\n", "\n"};
    for (size_t k = 0; k < sizeof garbage / sizeof garbage[0]; k++)
        cr_expect(!report_decode(garbage[k], &back), "accepted \"%s\"", garbage[k]);
    cr_expect(!report_decode(NULL, &back));
    /* another version, an unknown escape, a line out of place, a number
     * that is none, a field too long, something after the end */
    const char *edits[][2] = {{"report 1\n", "report 2\n"}, {"\nwhat: ", "\nwhat: \\t"},
                              {"\ncause: ", "\nway: "},      {"variant: 0", "variant: -1"},
                              {"variant: 0", "variant: x"},  {"untouched: 0", "untouched: 2"},
                              {"\nend", "\nend\n"}};
    for (size_t k = 0; k < sizeof edits / sizeof edits[0]; k++) {
        const char *at = strstr(text, edits[k][0]);
        cr_assert(at, "%s", edits[k][0]);
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(at - text), text, edits[k][1],
                 at + strlen(edits[k][0]));
        cr_expect(!report_decode(bad, &back), "accepted:\n%s", bad);
    }
    const char *title = strstr(text, "\ntitle: ") + strlen("\ntitle: ");
    snprintf(bad, sizeof bad, "%.*s%0*d%s", (int)(title - text), text, (int)sizeof r.title, 0,
             title + strcspn(title, "\n"));
    cr_expect(!report_decode(bad, &back), "a title of %zu characters", sizeof r.title);
    for (int cut = 0; cut < len; cut++) {
        snprintf(bad, sizeof bad, "%.*s", cut, text);
        cr_expect(!report_decode(bad, &back), "accepted the first %d bytes", cut);
    }
    cr_expect_eq(report_encode(&r, bad, 100), len, "a short buffer: the length it needs");
    cr_expect(!report_decode(bad, &back), "nor what fits in a short buffer");
}

/* A test stopped at its time limit (testing.c) travels to the runner as
 * one versioned line, and back; nothing else, and no cut, is read as one. */
Test(time_out_code, round_trips_and_refuses_anything_else)
{
    struct time_out t = {.limit = 30, .clock = 30.04, .cpu = 4.25, .load = 13.9, .cores = 2}, back;
    char text[256], bad[sizeof text + 1];
    int len = time_out_encode(&t, text, sizeof text);
    cr_assert(len > 0 && (size_t)len < sizeof text);
    cr_expect_str_eq(text, "workbook time-out 1: limit 30 s, after 30.0 s, CPU 4.2 s, load 13.90 "
                           "on 2 cores");
    cr_assert(time_out_decode(text, &back), "%s", text);
    cr_expect(back.limit == 30 && back.clock == 30.0 && back.cpu == 4.2 && back.load == 13.9 &&
              back.cores == 2);
    t.limit = 0.1; /* TESTFLAGS=--timeout=0.1 */
    time_out_encode(&t, text, sizeof text);
    cr_expect(time_out_decode(text, &back) && back.limit == 0.1, "%s", text);
    for (int cut = 0; cut < len; cut++) {
        snprintf(bad, sizeof bad, "%.*s", cut, text);
        cr_expect(!time_out_decode(bad, &back), "accepted the first %d bytes", cut);
    }
    const char *others[] = {
        "", "workbook report 1", "did not finish",
        "workbook time-out 2: limit 30 s, after 30.0 s, CPU 4.2 s, load 1.00 on 2 cores"};
    for (size_t k = 0; k < sizeof others / sizeof others[0]; k++)
        cr_expect(!time_out_decode(others[k], &back), "accepted \"%s\"", others[k]);
    snprintf(bad, sizeof bad, "%s\n", text);
    cr_expect(!time_out_decode(bad, &back), "something after it");
    cr_expect(!time_out_decode(NULL, &back));
}

static bool is_utf8(const char *text)
{
    for (const unsigned char *c = (const unsigned char *)text; *c;) {
        int more = *c < 0x80 ? 0 : *c >= 0xF0 ? 3 : *c >= 0xE0 ? 2 : *c >= 0xC0 ? 1 : -1;
        if (more < 0)
            return false;
        for (c++; more > 0; more--, c++)
            if ((*c & 0xC0) != 0x80)
                return false;
    }
    return true;
}

Test(report, cuts_a_long_field_between_characters)
{
    /* a kernel's error too long for what, in 3-byte characters: one of
     * three shifts cuts through a character, unless the cut steps back */
    static char name[1200];
    for (int shift = 0; shift < 3; shift++) {
        struct finding f = {.verdict = KERNEL_FAILED, .error_name = name};
        memset(f.error, 'e', (size_t)shift);
        for (size_t i = shift; i + 3 < sizeof f.error; i += 3)
            memcpy(f.error + i, "\xe2\x82\xac", 3); /* the euro sign */
        memcpy(name, f.error, sizeof name - 1);
        struct report r;
        report_make(&problem, &stages[0], &f, &r);
        cr_expect(strlen(r.what) > sizeof r.what - 4, "the field is full");
        cr_expect(is_utf8(r.what), "shift %d: cut through a character", shift);
        cr_expect(is_utf8(r.way), "shift %d: the way cut through a character", shift);
        expect_round_trip(&r);
    }
}

/* A report as the runner gets it: made, encoded, decoded. */
static void travelled(struct report *r)
{
    static char text[REPORT_CODE_SIZE];
    make_report(r);
    report_encode(r, text, sizeof text);
    cr_assert(report_decode(text, r), "%s", text);
}

Test(report_way, is_one_for_sizes_that_differ_only_in_numbers, .init = make_equal)
{
    struct report a, b;
    fill_poison(got + 768, (N - 768) * sizeof(float));
    travelled(&a);
    make_equal();
    fill_poison(got + 1, (N - 1) * sizeof(float));
    travelled(&b);
    cr_expect_str_neq(a.cause, b.cause);
    cr_expect_str_eq(a.way, b.way, "one bug: the threads stop short");
    cr_expect(!a.untouched && !b.untouched);
}

Test(report_way, is_two_for_two_causes, .init = make_equal)
{
    struct report a, b;
    fill_poison(got + 768, (N - 768) * sizeof(float));
    travelled(&a);
    make_equal();
    got[768] += 1;
    travelled(&b);
    cr_expect_str_neq(a.way, b.way, "stopping short is not computing wrong");
}

Test(report_way, masks_numbers_and_the_plural_after_them)
{
    /* a wrong sum of 255 and of 5000 poisoned words: one bug */
    struct report r[2];
    int counts[] = {255, 5000};
    for (int k = 0; k < 2; k++) {
        int_ref[0] = 9;
        int_got[0] = (int32_t)(uint32_t)(9 + (int64_t)counts[k] * (int32_t)POISON_WORD);
        struct finding f = {.verdict = OUTPUT_WRONG, .buffer = &sum};
        cr_assert(!compare_output(&sum, &f.mismatch));
        report_make(&problem, &stages[0], &f, &r[k]);
    }
    cr_expect_str_neq(r[0].cause, r[1].cause);
    cr_expect_str_eq(r[0].way, r[1].way);
    cr_expect(strstr(r[0].way, "off by # time the poison word"), "%s", r[0].way);
}

/* A lab whose launcher sets the sum to 0 before its kernels add to it. */
static bool zero_is_untouched(const struct problem *p, const struct stage *s,
                              const struct buffer *b, const struct mismatch *m)
{
    (void)p, (void)s, (void)b;
    return m->got == 0;
}

Test(report, is_untouched_when_nothing_was_written_or_the_lab_says_so)
{
    struct lab zeroing = fake;
    zeroing.diagnosis.untouched = zero_is_untouched;
    struct problem plain = problem, zeroed = problem;
    zeroed.lab = &zeroing;
    int32_t sums[] = {(int32_t)POISON_WORD, 0, 7};
    bool plain_untouched[] = {true, false, false}, zeroed_untouched[] = {true, true, false};
    for (int k = 0; k < 3; k++) {
        int_ref[0] = 5;
        int_got[0] = sums[k];
        struct finding f = {.verdict = OUTPUT_WRONG, .buffer = &sum};
        cr_assert(!compare_output(&sum, &f.mismatch));
        struct report r;
        report_make(&plain, &stages[0], &f, &r);
        cr_expect_eq(r.untouched, plain_untouched[k], "sum %d", sums[k]);
        report_make(&zeroed, &stages[0], &f, &r);
        cr_expect_eq(r.untouched, zeroed_untouched[k], "sum %d, launcher's 0", sums[k]);
    }
}

Test(report, is_not_untouched_when_the_emulation_saw_the_input_read)
{
    struct lab zeroing = fake;
    zeroing.diagnosis.untouched = zero_is_untouched;
    struct problem ran = problem;
    ran.lab = &zeroing;
    ran.inputs_read = INPUTS_READ;
    int32_t sums[] = {(int32_t)POISON_WORD, 0};
    for (int k = 0; k < 2; k++) {
        int_ref[0] = 5;
        int_got[0] = sums[k];
        struct finding f = {.verdict = OUTPUT_WRONG, .buffer = &sum};
        cr_assert(!compare_output(&sum, &f.mismatch));
        struct report r;
        report_make(&ran, &stages[0], &f, &r);
        cr_expect(!r.untouched, "sum %d: a kernel that read its input is no TODO", sums[k]);
    }
    int_got[0] = (int32_t)POISON_WORD;
    struct finding f = {.verdict = OUTPUT_WRONG, .buffer = &sum};
    cr_assert(!compare_output(&sum, &f.mismatch));
    struct report r;
    report_make(&ran, &stages[0], &f, &r);
    cr_expect(strstr(r.cause, "though the kernels read the input"), "%s", r.cause);
}
