/* test_report.c: what the test program prints once every test has run:
 * what went wrong in each stage, its failures grouped by the way they fail,
 * then the summary, one line a stage (test_main.c runs the tests). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_runner.h"

/* ---- what went wrong, per stage: the failures, grouped ------------------- */

enum { MAX_FAILURES = 256 };

struct failure {
    const struct criterion_test *test;
    size_t n, cols;
    int block;
    int variant;          /* the report's, or -1: the test as a whole (a time-out, a crash) */
    bool unread;          /* its message is no report (a lab's own assertion): shown as is */
    struct time_out time_out; /* of a test stopped at its time limit */
    struct report report; /* as the test sent it; of a test lost as a whole, the way only */
};

/* A failed assertion's message: the report it carries, or, when it carries
 * none, the message as is, a way of its own. */
static void read_message(const char *message, struct failure *f)
{
    struct report *r = &f->report;
    if (report_decode(message, r) && r->variant < variant_count(workbook_lab)) {
        f->variant = r->variant;
        return;
    }
    memset(r, 0, sizeof *r);
    f->variant = 0;
    f->unread = true;
    snprintf(r->what, sizeof r->what, "%s", message);
    snprintf(r->way, sizeof r->way, "%.*s", (int)strcspn(message, "\n"), message);
}

/* The signals a crashed test dies of, by name: sigabbrev_np would need
 * glibc 2.32, which older lab machines (Ubuntu 20.04) and musl lack. */
static const char *signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {{SIGSEGV, "SEGV"}, {SIGBUS, "BUS"},   {SIGFPE, "FPE"},   {SIGILL, "ILL"},
                 {SIGABRT, "ABRT"}, {SIGKILL, "KILL"}, {SIGTERM, "TERM"}, {SIGALRM, "ALRM"},
                 {SIGTRAP, "TRAP"}, {SIGXCPU, "XCPU"}, {SIGPIPE, "PIPE"}, {SIGSYS, "SYS"}};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (names[k].sig == sig)
            return names[k].name;
    return "?";
}

static size_t collect(const struct criterion_suite_stats *ss, struct failure *f)
{
    size_t count = 0;
    for (struct criterion_test_stats *ts = ss->tests; ts && count < MAX_FAILURES; ts = ts->next) {
        if (is_technique(ts->test))
            continue; /* technique_failure's */
        struct failure base = {.test = ts->test, .variant = -1};
        size_of(ts->test, &base.n, &base.cols, &base.block);
        if (stopped_at_limit(ts, &base.time_out)) {
            f[count] = base;
            snprintf(f[count].report.way, sizeof f[count].report.way, "timed out");
            count++;
            continue;
        }
        if (ts->test_status != CR_STATUS_FAILED)
            continue;
        bool reported = false;
        for (struct criterion_assert_stats *a = ts->asserts; a && count < MAX_FAILURES; a = a->next)
            if (!a->passed && a->message && *a->message) {
                f[count] = base;
                read_message(a->message, &f[count]);
                count++;
                reported = true;
            }
        if (!reported) { /* a crash, or an exit without a verdict */
            f[count] = base;
            if (ts->signal)
                snprintf(f[count].report.way, sizeof f[count].report.way, "crashed with SIG%s",
                         signal_name(ts->signal));
            else
                snprintf(f[count].report.way, sizeof f[count].report.way, "exited with status %d",
                         ts->exit_code);
            count++;
        }
    }
    return count;
}

static int by_size(const void *a, const void *b)
{
    const struct failure *x = a, *y = b;
    if (x->variant != y->variant)
        return x->variant - y->variant;
    if (x->n != y->n)
        return x->n < y->n ? -1 : 1;
    if (x->cols != y->cols)
        return x->cols < y->cols ? -1 : 1;
    if ((x->block != 256) != (y->block != 256))
        return (x->block != 256) - (y->block != 256);
    return x->block - y->block;
}

/* "31, 32, 100003 (blocks 32, 96)": the sizes of f[from..count) that fail
 * `way`, but for f[except]; f is sorted by size, then block. Returns how
 * many. */
static size_t print_sizes(const struct failure *f, size_t from, size_t count, const char *way,
                          size_t except)
{
    size_t listed = 0;
#define LISTED(j) ((j) != except && strcmp(f[j].report.way, way) == 0)
    for (size_t k = from; k < count;) {
        size_t end = k, blocks = 0;
        while (end < count && f[end].n == f[k].n && f[end].cols == f[k].cols)
            blocks += LISTED(end), end++;
        if (blocks) {
            printf("%s%s", listed ? ", " : "", size_text(f[k].n, f[k].cols));
            bool only_256 = blocks == 1;
            for (size_t j = k; j < end; j++)
                only_256 &= !LISTED(j) || f[j].block == 256;
            for (size_t j = k, shown = 0; j < end && !only_256; j++)
                if (LISTED(j))
                    printf("%s%d", shown++ ? ", " : blocks > 1 ? " (blocks " : " (block ",
                           f[j].block);
            printf("%s", only_256 ? "" : ")");
            listed += blocks;
        }
        k = end;
    }
#undef LISTED
    return listed;
}

/* Whether the machine was busier than its cores when a test was stopped:
 * other tests, other users, which slow every test. */
static bool busy(const struct time_out *t) { return t->load > t->cores; }

/* After "stage 3 (...), n = 1048593": a test of stage s stopped at its
 * time limit, and why; `skipped` larger sizes were not run. */
static void print_time_out(const struct stage *s, const struct time_out *t, size_t skipped)
{
    const char *make_args = getenv("WORKBOOK_MAKE_ARGS");
    printf(": did not finish in %g s, and was stopped", t->limit);
    if (skipped)
        printf("; %zu larger size%s not run", skipped, skipped > 1 ? "s were" : " was");
    printf(".\n  likely cause: %s\n", hang_advice(workbook_lab));
    if (busy(t))
        printf("  or only a busy machine (load %.1f on %d cores when it was stopped: other tests, "
               "other users), which gave it %.1f s of CPU time in %.1f s. If the stage passes at "
               "smaller sizes, run it again when the machine is quieter, or with more time: make "
               "test LAB=%s STAGE=%s%s%s%s TESTFLAGS=--timeout=%g\n",
               t->load, t->cores, t->cpu, t->clock, workbook_lab->name, s->id,
               gpu_emulated() ? " EMU=1" : "", make_args && *make_args ? " " : "",
               make_args ? make_args : "", 4 * t->limit);
}

/* The tests that never gave a verdict, f[0..count): time-outs, crashes. */
static void print_lost(const struct stage *s, const struct failure *f, size_t count,
                       size_t skipped)
{
    for (size_t k = 0; k < count; k++) {
        bool first_of_way = true;
        for (size_t j = 0; j < k; j++)
            first_of_way &= strcmp(f[j].report.way, f[k].report.way) != 0;
        if (!first_of_way)
            continue;
        printf("%sstage %s (%s)%s, %s", RED, s->id, s->idea, PLAIN, sizes_are());
        size_t listed = print_sizes(f, k, count, f[k].report.way, count);
        if (strcmp(f[k].report.way, "timed out") == 0)
            print_time_out(s, &f[k].time_out, skipped);
        else
            printf(": the test %s before it could give a verdict: a fault outside the kernel%s "
                   "(in the launcher, or in setting up)\n",
                   f[k].report.way, listed > 1 ? "s" : "");
    }
}

/* One variant's failures, sorted by size: in full the smallest that fails
 * the commonest way (a tiny size can fail in a way that says less: with
 * n = 1 a missing tail is all there is), the other sizes that fail that way
 * in a line, and a line for each other way. */
static void print_variant(const struct failure *f, size_t count)
{
    size_t lead = 0, lead_count = 0;
    for (size_t k = 0; k < count; k++) {
        size_t same = 0;
        for (size_t j = 0; j < count; j++)
            same += strcmp(f[j].report.way, f[k].report.way) == 0;
        if (same > lead_count)
            lead = k, lead_count = same;
    }
    const struct report *r = &f[lead].report;
    static char body[2 * sizeof *r];
    if (f[lead].unread) {
        printf("%s\n", r->what);
    } else {
        report_body(r, body, sizeof body);
        printf("%s%s:%s\n%s\n", RED, r->title, PLAIN, body);
    }
    if (lead_count > 1) {
        printf("  and %zu more size%s fail%s the same way: %s", lead_count - 1,
               lead_count > 2 ? "s" : "", lead_count > 2 ? "" : "s", sizes_are());
        print_sizes(f, 0, count, f[lead].report.way, lead);
        printf("\n");
    }
    for (size_t k = 0; k < count; k++) {
        bool first_of_way = strcmp(f[k].report.way, f[lead].report.way) != 0;
        for (size_t j = 0; j < k && first_of_way; j++)
            first_of_way = strcmp(f[j].report.way, f[k].report.way) != 0;
        if (!first_of_way)
            continue;
        printf("  %s", sizes_are());
        size_t listed = print_sizes(f, 0, count, f[k].report.way, count);
        char why[sizeof f->report.what];
        printf(" fail%s another way: %s\n", listed > 1 ? "" : "s",
               report_why(&f[k].report, why, sizeof why));
    }
}

/* Do two variants fail the same way at the same sizes? */
static bool same_failures(const struct failure *a, size_t na, const struct failure *b, size_t nb)
{
    if (na != nb)
        return false;
    for (size_t k = 0; k < na; k++)
        if (a[k].test != b[k].test || strcmp(a[k].report.way, b[k].report.way) != 0)
            return false;
    return true;
}

static bool untouched(const struct failure *f, size_t count)
{
    for (size_t k = 0; k < count; k++)
        if (f[k].variant < 0 || !f[k].report.untouched)
            return false;
    return count > 0;
}

/* A matrix lab's stage that passed on every square it was tested on and
 * on no other shape: what an index or a bounds test that takes the rows
 * for the columns (or the reverse) does. Says so, naming the squares. */
static void print_right_only_on_squares(const struct criterion_suite_stats *ss)
{
    enum { MOST = 64 };
    const struct criterion_test *squares[MOST];
    size_t passed = 0, failed = 0;
    for (struct criterion_test_stats *ts = ss->tests; ts && workbook_lab->matrix; ts = ts->next) {
        size_t n, cols;
        int block;
        if (is_technique(ts->test) || ts->test_status == CR_STATUS_SKIPPED)
            continue;
        size_of(ts->test, &n, &cols, &block);
        bool square = cols && n / cols == cols,
             right = ts->test_status == CR_STATUS_PASSED;
        if (square != right || passed == MOST)
            return;
        if (right)
            squares[passed++] = ts->test;
        failed += !right;
    }
    if (!passed || !failed)
        return;
    qsort(squares, passed, sizeof *squares, by_test_size);
    printf("  right only on squares? it passed at ");
    for (size_t k = 0; k < passed; k++)
        printf("%s%s", k ? ", " : "", test_size_text(squares[k]));
    printf(", and at no other shape\n");
}

/* The reports of one stage; `first` if no stage before it failed, and
 * `skipped` tests it did not run after a time-out. */
static void print_stage_failures(const struct stage *s, const struct criterion_suite_stats *ss,
                                 struct failure *f, size_t count, bool first, size_t skipped)
{
    qsort(f, count, sizeof *f, by_size);
    printf("\n");
    if (!first && untouched(f, count)) {
        /* the emulation saw its kernels read no input; a GPU sees only the outputs */
        printf("%sstage %s (%s)%s: nothing was written, at any size: still a TODO%s?\n", RED,
               s->id, s->idea, PLAIN,
               gpu_emulated() ? "" : ", or are its results never stored (left in shared memory)");
        return;
    }
    size_t lost = 0; /* tests lost whole, f[0..lost): time-outs, crashes */
    while (lost < count && f[lost].variant < 0)
        lost++;
    size_t k = lost;
    const struct failure *shown[16];
    size_t shown_count[16], nshown = 0;
    while (k < count) {
        size_t end = k;
        while (end < count && f[end].variant == f[k].variant)
            end++;
        size_t twin = 0;
        while (twin < nshown && !same_failures(shown[twin], shown_count[twin], f + k, end - k))
            twin++;
        if (twin < nshown) {
            printf("  %s fails the same way, at the same sizes\n",
                   variant_name(workbook_lab, f[k].variant));
        } else {
            print_variant(f + k, end - k);
            if (nshown < 16) {
                shown[nshown] = f + k;
                shown_count[nshown++] = end - k;
            }
        }
        k = end;
    }
    print_right_only_on_squares(ss);
    /* those last: a large size can run out of time (under EMU=1 above all)
     * where a small one already shows what is wrong */
    print_lost(s, f, lost, skipped);
}

/* ---- the summary: one line per stage ------------------------------------ */

/* The tests of one stage: its sizes, and whether its technique showed. */
struct tally {
    size_t tests, passed, skipped;
    bool technique_failed;
    char technique[8192]; /* its message, past TECHNIQUE_PREFIX: the sentence, then
                             a line of figures if there are any */
};

static struct tally tally_of(const struct criterion_suite_stats *ss)
{
    struct tally t = {0};
    for (struct criterion_test_stats *ts = ss->tests; ts; ts = ts->next) {
        if (!is_technique(ts->test)) {
            t.tests++;
            t.passed += ts->test_status == CR_STATUS_PASSED;
            t.skipped += ts->test_status == CR_STATUS_SKIPPED;
            continue;
        }
        if (ts->test_status != CR_STATUS_FAILED)
            continue;
        struct time_out stopped;
        t.technique_failed = true;
        if (stopped_at_limit(ts, &stopped))
            snprintf(t.technique, sizeof t.technique,
                     "its count under the emulation did not finish in %g s%s", stopped.limit,
                     busy(&stopped) ? ", on a busy machine" : "");
        else
            *t.technique = '\0';
        for (struct criterion_assert_stats *a = ts->asserts; a; a = a->next)
            if (!a->passed && a->message && strncmp(a->message, TECHNIQUE_PREFIX,
                                                    strlen(TECHNIQUE_PREFIX)) == 0)
                snprintf(t.technique, sizeof t.technique, "%s",
                         a->message + strlen(TECHNIQUE_PREFIX));
        if (!*t.technique)
            snprintf(t.technique, sizeof t.technique, "its count under the emulation crashed");
    }
    return t;
}

/* Whether the technique's test failed since the stage's outputs were wrong
 * under the emulation: on a GPU, what its checks see that the GPU's run
 * hid (a race, a barrier, a read past the end, the order of blocks). */
static bool wrong_when_emulated(const struct tally *t)
{
    return strncmp(t->technique, EMULATION_PREFIX, strlen(EMULATION_PREFIX)) == 0;
}

/* Right outputs at every size, but not the stage's idea, or not under the
 * emulation: the report. */
static void print_technique_failure(const struct stage *s, const struct tally *t)
{
    size_t cut = strcspn(t->technique, "\n");
    if (wrong_when_emulated(t)) {
        const char *what = t->technique + strlen(EMULATION_PREFIX);
        printf("\n%sstage %s (%s)%s: right at every size%s, but not under the emulation, whose "
               "checks see what a GPU's run can hide (races, barriers, reads past the end, the "
               "order of blocks):\n  %.*s\n",
               RED, s->id, s->idea, PLAIN, gpu_emulated() ? "" : " on this GPU",
               (int)(cut - strlen(EMULATION_PREFIX)), what);
        return;
    }
    printf("\n%sstage %s (%s)%s: right at every size, but %.*s\n", RED, s->id, s->idea, PLAIN,
           (int)cut, t->technique);
    if (t->technique[cut])
        printf("  %s\n", t->technique + cut + 1);
}

static void summary_line(FILE *out, const struct stage *s, const struct criterion_suite_stats *ss,
                         bool *pointed)
{
    struct tally t = tally_of(ss);
    size_t tests = t.tests, passed = t.passed, skipped = t.skipped;
    const struct criterion_test *stuck = hung_in(s);
    bool right = passed == tests, ok = right && !t.technique_failed;
    if (right && !ok && wrong_when_emulated(&t))
        fprintf(out, "  stage %-3s %-42s %s%3zu of %3zu right, but not under the emulation (its report "
                "above)%s", s->id, s->idea, RED, passed, tests, PLAIN);
    else if (right && !ok) /* the sentence, without its figures */
        fprintf(out, "  stage %-3s %-42s %s%3zu of %3zu right, but %.*s%s", s->id, s->idea, RED,
                passed, tests, (int)strcspn(t.technique, "\n"), t.technique, PLAIN);
    else
        fprintf(out, "  stage %-3s %-42s %s%3zu of %3zu passed%s", s->id, s->idea,
                ok ? GREEN : RED, passed, tests, PLAIN);
    if (stuck && skipped)
        fprintf(out, " (did not finish at %s%s; %zu not run)", sizes_are(), test_size_text(stuck),
                skipped);
    else if (stuck)
        fprintf(out, " (did not finish at %s%s)", sizes_are(), test_size_text(stuck));
    if (!ok && !*pointed) {
        char extra[256];
        const char *make_args = getenv("WORKBOOK_MAKE_ARGS");
        snprintf(extra, sizeof extra, "%s%s%s", gpu_emulated() ? " EMU=1" : "",
                 make_args && *make_args ? " " : "", make_args ? make_args : "");
        fprintf(out, "   %s<- start here: make test LAB=%s STAGE=%s%s%s", YELLOW, workbook_lab->name,
                s->id, extra, PLAIN);
        *pointed = true;
    }
    fprintf(out, "\n");
}

/* A stage's statistics, if it was run (STAGE= may have left it out). */
static const struct criterion_suite_stats *stats_of(const struct criterion_global_stats *g,
                                                    const struct stage *s)
{
    for (struct criterion_suite_stats *ss = g->suites; ss; ss = ss->next)
        if (strcmp(ss->suite->name, suite_of(s)) == 0 && ss->nb_tests > ss->tests_skipped)
            return ss;
    return NULL;
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
    all_skipped = stats->nb_tests == stats->tests_skipped;
    if (!for_people || all_skipped)
        return;
    if (colour_on() && planned)
        printf("\r\33[K");
    static struct failure f[MAX_FAILURES];
    bool failed_before = false;
    for (const struct stage *s = workbook_lab->stages; s->id; s++) {
        const struct criterion_suite_stats *ss = stats_of(stats, s);
        if (!ss)
            continue;
        size_t count = collect(ss, f);
        struct tally t = tally_of(ss);
        if (count)
            print_stage_failures(s, ss, f, count, !failed_before, t.skipped);
        else if (t.technique_failed)
            print_technique_failure(s, &t);
        failed_before |= count > 0 || t.technique_failed;
    }

    const char *path = getenv("WORKBOOK_SUMMARY"), *passed_path = getenv("WORKBOOK_PASSED");
    FILE *out = path && *path ? fopen(path, "w") : stdout;
    FILE *passed = passed_path && *passed_path ? fopen(passed_path, "w") : NULL;
    if (!out)
        out = stdout;
    if (out == stdout)
        printf("\n");
    fprintf(out, "%s%s%s, %s, seed %llu:\n", BOLD, workbook_lab->name, PLAIN, LAB_SOURCE,
            (unsigned long long)seed_from_env());
    bool pointed = false;
    for (const struct stage *s = workbook_lab->stages; s->id; s++) {
        const struct criterion_suite_stats *ss = stats_of(stats, s);
        if (!ss)
            continue;
        summary_line(out, s, ss, &pointed);
        if (passed && ss->tests_passed == ss->nb_tests) /* the technique's test among them */
            fprintf(passed, "%s%s", ftell(passed) ? "," : "", s->id);
    }
    if (out != stdout)
        fclose(out);
    if (passed)
        fclose(passed);
    fflush(stdout);
}
