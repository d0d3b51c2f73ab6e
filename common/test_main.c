/* test_main.c: the entry point of every lab's test program: its names
 * (suites are stages, tests are sizes), a stage that hangs, and the run;
 * test_report.c says what went wrong once every test has run.
 *
 * Criterion runs each test (one stage at one size) in a process of its own;
 * this process, the runner, never touches CUDA itself, since a CUDA context
 * does not survive fork(). The runner keeps Criterion's own log quiet and
 * writes what a student needs instead: one report per stage and variant
 * (the smallest size that fails the commonest way in full, the other sizes
 * in a line), the tests that gave no verdict (time-outs, crashes) after
 * them, then one line per stage. Criterion's formats stay there for tools: --verbose,
 * --tap, --xml and --json behave as Criterion documents them.
 *
 *   WORKBOOK_SUMMARY=FILE  the per-stage lines go to FILE (make test prints
 *                          it last, after the run tables)
 *   WORKBOOK_PASSED=FILE   the stages whose every test passed, for the table
 *   WORKBOOK_TEST_SECONDS  each test's time limit (testing.h); Criterion's
 *                          --timeout=S (TESTFLAGS) sets it
 *   STAGE, VARIANT, SEED   as the Makefile documents them
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <criterion/internal/ordered-set.h>
#include <criterion/options.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_runner.h"


static struct criterion_test_set *all_tests;
bool for_people;              /* our report, not Criterion's log */
size_t planned;               /* tests, for the progress line */
static size_t done;
bool all_skipped = true;


/* ---- names: suites are stages, tests are sizes --------------------------- */

/* scan-HS stage 1 is the suite scan_HS_stage1: suites are C names */
const char *suite_of(const struct stage *s)
{
    static char suite[96];
    snprintf(suite, sizeof suite, "%s_stage", workbook_lab->name);
    for (char *c = suite; *c; c++)
        if (*c == '-')
            *c = '_';
    strncat(suite, s->id, sizeof suite - strlen(suite) - 1);
    return suite;
}

/* matches_cpu_n1025 or matches_cpu_n100003_block32; a matrix lab's
 * matches_cpu_31x33 or matches_cpu_1000x999_block128 (*cols: 33, 999);
 * or a tile test's, matches_cpu_three_tiles, sized from its stage's tile */
bool is_technique(const struct criterion_test *t)
{
    return strcmp(t->name, TECHNIQUE_TEST_NAME) == 0;
}

static int stage_index(const char *name);

/* (The technique test sizes as the largest: it runs last.) */
void size_of(const struct criterion_test *t, size_t *n, size_t *cols, int *block)
{
    unsigned long long size = 0, rows = 0, columns = 0;
    int stage = stage_index(t->category);
    *block = 256;
    if (is_technique(t)) {
        *n = (size_t)-1, *cols = 0;
        return;
    }
    if (stage >= 0 && tile_test_size(workbook_lab, &workbook_lab->stages[stage], t->name, n, cols))
        return;
    if (sscanf(t->name, "matches_cpu_%llux%llu_block%d", &rows, &columns, block) >= 2) {
        *n = (size_t)(rows * columns), *cols = (size_t)columns;
        return;
    }
    sscanf(t->name, "matches_cpu_n%llu_block%d", &size, block);
    *n = (size_t)size, *cols = 0;
}

/* "1025", "100003 (block 32)", "1000x999 (block 128)" */
const char *test_size_text(const struct criterion_test *t)
{
    static char text[2][64];
    static int k;
    size_t n, cols;
    int block;
    size_of(t, &n, &cols, &block);
    k ^= 1;
    if (block == 256)
        snprintf(text[k], sizeof text[k], "%s", size_text(n, cols));
    else
        snprintf(text[k], sizeof text[k], "%s (block %d)", size_text(n, cols), block);
    return text[k];
}

/* What a list of sizes starts with: "n = 31, 1025", or for a matrix lab
 * "31x33, 1000x999" */
const char *sizes_are(void) { return workbook_lab->matrix ? "" : "n = "; }

/* ---- a stage that hangs: its other sizes are not run -------------------- */

enum { MAX_STAGES = 32 };
static const struct criterion_test *hung[MAX_STAGES]; /* the first test of a stage to time out */

static int stage_index(const char *name)
{
    char suite[96]; /* name may be suite_of's own buffer */
    snprintf(suite, sizeof suite, "%s", name);
    int k = 0;
    for (const struct stage *s = workbook_lab->stages; s->id && k < MAX_STAGES; s++, k++)
        if (strcmp(suite_of(s), suite) == 0)
            return k;
    return -1;
}

/* Whether a test was stopped at its time limit (testing.c); *t its record. */
bool stopped_at_limit(const struct criterion_test_stats *ts, struct time_out *t)
{
    if (ts->test_status != CR_STATUS_FAILED)
        return false;
    for (struct criterion_assert_stats *a = ts->asserts; a; a = a->next)
        if (!a->passed && a->message && time_out_decode(a->message, t))
            return true;
    return false;
}

/* The first test of stage s to time out, or NULL. */
const struct criterion_test *hung_in(const struct stage *s)
{
    int k = stage_index(suite_of(s));
    return k >= 0 ? hung[k] : NULL;
}

/* Criterion skips a disabled test without starting it; this runs in the
 * runner, before the suite's remaining tests are started. */
static void skip_rest_of_suite(const char *suite)
{
    FOREACH_SET(struct criterion_suite_set *ss, all_tests->suites) {
        if (strcmp(ss->suite.name, suite) != 0 || !ss->tests)
            continue;
        FOREACH_SET(struct criterion_test *t, ss->tests) t->data->disabled = true;
    }
}

/* Ctrl-C: the progress line gives way to the shell's, and the runner dies
 * as the signal asks (its tests die with it). */
static void on_interrupt(int sig)
{
    if (colour_on() && write(STDOUT_FILENO, "\r\33[K", 4) < 0)
        _exit(130);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void progress(void)
{
    if (for_people && colour_on() && planned) {
        printf("\r  testing %s: %zu of %zu tests done", workbook_lab->name, done, planned);
        fflush(stdout);
    }
}

/* qsort's order of two tests: smallest first, then by block */
int by_test_size(const void *a, const void *b)
{
    const struct criterion_test *x = *(const struct criterion_test *const *)a,
                                *y = *(const struct criterion_test *const *)b;
    size_t nx, ny, cx, cy;
    int bx, by;
    size_of(x, &nx, &cx, &bx);
    size_of(y, &ny, &cy, &by);
    return nx != ny ? (nx < ny ? -1 : 1) : cx != cy ? (cx < cy ? -1 : 1) : bx - by;
}

/* The same, of two nodes of a Criterion set (its test follows a node) */
static int by_node_size(const void *a, const void *b)
{
    const struct criterion_test *x = (const void *)(*(struct criterion_ordered_set_node *const *)a + 1),
                                *y = (const void *)(*(struct criterion_ordered_set_node *const *)b + 1);
    return by_test_size(&x, &y);
}

/* Criterion runs a suite's tests in the order of their names: n1000003
 * before n31. Smallest first instead, so that a stage that hangs or crashes
 * is met, and reported, at the smallest size that shows it. */
static void order_by_size(struct criterion_ordered_set *tests)
{
    enum { MOST = 256 };
    struct criterion_ordered_set_node *node[MOST];
    size_t count = 0;
    for (struct criterion_ordered_set_node *n = tests->first; n && count < MOST; n = n->next)
        node[count++] = n;
    if (count == MOST)
        return;
    qsort(node, count, sizeof *node, by_node_size);
    for (size_t k = 0; k < count; k++)
        node[k]->next = k + 1 < count ? node[k + 1] : NULL;
    tests->first = count ? node[0] : NULL;
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
    FOREACH_SET(struct criterion_suite_set *ss, set->suites) {
        if (!ss->tests)
            continue;
        order_by_size(ss->tests);
        FOREACH_SET(struct criterion_test *t, ss->tests) {
            /* left out before it starts: a process a test costs much under qemu */
            size_t n, cols;
            int block;
            size_of(t, &n, &cols, &block);
            if (!is_technique(t) && beyond_largest_n(n))
                t->data->disabled = true;
            planned += !t->data->disabled;
        }
    }
    progress();
}

ReportHook(POST_TEST)(struct criterion_test_stats *stats)
{
    done++;
    progress();
    int k = stage_index(stats->test->category);
    struct time_out t;
    if (stopped_at_limit(stats, &t) && k >= 0 && !hung[k] && !is_technique(stats->test)) {
        hung[k] = stats->test;
        skip_rest_of_suite(stats->test->category);
    }
}

/* ---- before the run -------------------------------------------------------- */

/* STAGE=4 runs the suites map_stage4a and map_stage4b; STAGE=1 never runs
 * 10; STAGE=2,3 runs both. */
static void select_stages(const char *filter)
{
    static char pattern[512];
    bool known = false;
    for (const struct stage *s = workbook_lab->stages; s->id; s++)
        known |= stage_selected(s, filter);
    if (!known)
        die("STAGE=%s: %s has stages %s", filter, workbook_lab->name, stage_list(workbook_lab));
    snprintf(pattern, sizeof pattern, "@(");
    for (const struct stage *s = workbook_lab->stages; s->id; s++)
        if (stage_selected(s, filter))
            snprintf(pattern + strlen(pattern), sizeof pattern - strlen(pattern), "%s%s",
                     pattern[2] ? "|" : "", suite_of(s));
    strncat(pattern, ")/*", sizeof pattern - strlen(pattern) - 1);
    criterion_options.pattern = pattern;
}

/* Every stage of the table has its tests, or the proof that the tests fail
 * on the skeleton would silently leave it out. */
static void expect_tests_for_every_stage(void)
{
    for (const struct stage *s = workbook_lab->stages; s->id; s++) {
        bool found = false;
        FOREACH_SET(struct criterion_suite_set *ss, all_tests->suites)
            found |= strcmp(ss->suite.name, suite_of(s)) == 0 && ss->tests && ss->tests->size;
        if (!found)
            die("%s stage %s has no tests: add the line STAGE_TESTS(%.*s, %s) to the lab's test "
                "file",
                workbook_lab->name, s->id, (int)(strlen(suite_of(s)) - strlen(s->id) - 6),
                suite_of(s), s->id);
    }
}

/* The largest size a test of this program checks. (FOREACH_SET names a
 * variable n of its own.) */
static void largest_test(size_t *largest, size_t *largest_cols)
{
    FOREACH_SET(struct criterion_suite_set *ss, all_tests->suites) {
        if (!ss->tests)
            continue;
        FOREACH_SET(struct criterion_test *t, ss->tests) {
            size_t size, cols;
            int block;
            size_of(t, &size, &cols, &block);
            if (!is_technique(t) && size > *largest)
                *largest = size, *largest_cols = cols;
        }
    }
}

static void header(void)
{
    char why[256];
    unsigned long long seed = seed_from_env();
    printf("%s%s%s: testing %s with seed %llu (SEED=%llu repeats it)\n", BOLD, workbook_lab->name,
           PLAIN, LAB_SOURCE, seed, seed);
    if (!gpu_present_forked(why, sizeof why)) {
        printf("No CUDA GPU here (%s): nothing can be tested. EMU=1 runs the tests on the CPU.\n",
               why);
        setenv("WORKBOOK_NO_GPU", why, 1);
    } else if (gpu_emulated()) {
        size_t n = 0, cols = 0;
        largest_test(&n, &cols);
        printf("  on the CPU emulation (EMU=1), %s up to %s%s (%s on a GPU)",
               workbook_lab->matrix ? "shapes" : "sizes", sizes_are(), size_text(n, cols),
               workbook_lab->matrix ? "4099x4111" : "16777233");
        if (all_variants_up_to(workbook_lab))
            printf("; above n = %zu, each size checks one variant, which the seed picks",
                   all_variants_up_to(workbook_lab));
        printf("\n");
    } else {
        printf("  on %s\n", why);
        if (all_variants_up_to(workbook_lab))
            printf("  above n = %zu, each size checks one variant, which the seed picks (make run "
                   "checks them all)\n",
                   all_variants_up_to(workbook_lab));
    }
    fflush(stdout);
}

int main(int argc, char *argv[])
{
    const char *stage = getenv("STAGE"), *variant = getenv("VARIANT"), *block = getenv("BLOCK");
    lab_check(workbook_lab);
    /* SEED is the tests', N and BLOCK the run table's that follows them on a
     * GPU: a mistake in any is refused now, before any test, as make run
     * refuses it */
    struct choices chosen = {.block = 256};
    choices_read(workbook_lab, getenv("N"), block, getenv("SEED"), &chosen);
    if (block && *block)
        gpu_check_block_forked(chosen.block);
    (void)colour_on(); /* decided here, before a signal handler may ask */
    pid_t group = getpgrp();
    all_tests = criterion_initialize();
    /* Criterion moves the runner into a process group of its own, out of
     * the terminal's reach: back into ours, so that Ctrl-C stops it, and
     * with it every test it started (they die with their parent). */
    setpgid(0, group);
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    setenv("WORKBOOK_RUNNER", pid, 1);
    for (int sig = SIGHUP; sig <= SIGINT; sig++) /* SIGHUP, SIGINT, unless ignored */
        if (signal(sig, SIG_IGN) != SIG_IGN)
            signal(sig, on_interrupt);
    int result = 0; /* --help, --list: Criterion answered */
    if (criterion_handle_args(argc, argv, true) > 0) {
        static struct criterion_logger silent;
        /* never Criterion's time-out (testing.h): its seconds are the tests' own limit */
        if (criterion_options.timeout > 0) {
            char seconds[32];
            snprintf(seconds, sizeof seconds, "%g", criterion_options.timeout);
            setenv("WORKBOOK_TEST_SECONDS", seconds, 1);
            criterion_options.timeout = 0;
        }
        for_people = criterion_options.logging_threshold == CRITERION_IMPORTANT;
        if (for_people)
            criterion_options.logger = &silent;
        expect_tests_for_every_stage();
        if (stage && *stage)
            select_stages(stage);
        if (variant && *variant && variant_find(workbook_lab, variant) < 0)
            die("VARIANT=%s: %s has %s", variant, workbook_lab->name,
                workbook_lab->variants ? "other variants (make help lists them)" : "no variants");
        if (for_people)
            header();
        else if (!gpu_present_forked((char[256]){0}, 256))
            setenv("WORKBOOK_NO_GPU", "1", 1);
        result = !criterion_run_all_tests(all_tests);
        if (all_skipped) {
            printf("%s: no test ran%s\n", workbook_lab->name,
                   getenv("WORKBOOK_NO_GPU") ? " (no GPU, and not EMU=1)" : "");
            result = 1;
        }
    }
    criterion_finalize(all_tests);
    return result;
}
