/* testing.c: the checks behind every lab's tests. */
#include "testing.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#elif defined(__APPLE__)
#include <errno.h>
#include <stdint.h>
#include <sys/event.h>
#endif

/* The calling process ends when its parent does. */
#if defined(__linux__)
static void die_with_parent(void) { prctl(PR_SET_PDEATHSIG, SIGKILL); }
#elif defined(__APPLE__)
/* Darwin has no PR_SET_PDEATHSIG: a thread waits for the parent's exit. */
static void *exit_with(void *parent)
{
    struct kevent change, event;
    int queue = kqueue();
    EV_SET(&change, (pid_t)(intptr_t)parent, EVFILT_PROC, EV_ADD, NOTE_EXIT, 0, NULL);
    if (queue >= 0 && kevent(queue, &change, 1, &event, 1, NULL) == 1 &&
        (!(event.flags & EV_ERROR) || event.data == ESRCH)) /* gone already */
        _exit(1);
    return NULL;
}
static void die_with_parent(void)
{
    pthread_t watcher;
    if (pthread_create(&watcher, NULL, exit_with, (void *)(intptr_t)getppid()) == 0)
        pthread_detach(watcher);
}
#endif

/* ---- a test's time limit (testing.h) -------------------------------------- */

double test_seconds(bool technique)
{
    const char *given = getenv("WORKBOOK_TEST_SECONDS");
    double seconds = given && *given ? strtod(given, NULL) : 0;
    return (seconds > 0 ? seconds : GPU_TEST_TIMEOUT) * (technique ? TECHNIQUE_TIMES : 1);
}

static double seconds_of(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static pthread_mutex_t limit_lock = PTHREAD_MUTEX_INITIALIZER;
static bool test_over; /* after_gpu_test: nothing left to stop */
static double limit, started;

/* Sleeps out the test's limit; then, unless the test is over, fails it
 * with a time_out record and ends its process: to the runner, a failed
 * assertion and an exit, as from any test that fails. */
static void *stop_at_limit(void *unused)
{
    (void)unused;
    for (double left; (left = started + limit - seconds_of(CLOCK_MONOTONIC)) > 0;) {
        double nap = left < 1 ? left : 1; /* nanosleep: no clock_nanosleep on a Mac */
        nanosleep(&(struct timespec){(time_t)nap, (long)((nap - (time_t)nap) * 1e9)}, NULL);
    }
    pthread_mutex_lock(&limit_lock);
    if (!test_over) {
        struct time_out t = {.limit = limit, .clock = seconds_of(CLOCK_MONOTONIC) - started,
                             .cpu = seconds_of(CLOCK_PROCESS_CPUTIME_ID), .load = -1,
                             .cores = (int)sysconf(_SC_NPROCESSORS_ONLN)};
        char text[256];
        getloadavg(&t.load, 1);
        time_out_encode(&t, text, sizeof text);
        cr_expect(false, "%s", text);
        _exit(1); /* the lock held: the test cannot end beside it */
    }
    pthread_mutex_unlock(&limit_lock);
    return NULL;
}

void before_gpu_test(void)
{
    /* A test dies with the runner that started it (Ctrl-C, a closed
     * terminal): it may be a kernel that never returns. */
    const char *runner = getenv("WORKBOOK_RUNNER");
    die_with_parent();
    if (runner && getppid() != (pid_t)atol(runner))
        _exit(1); /* the runner died before the line above */
    if (getenv("WORKBOOK_NO_GPU"))
        cr_skip_test("no CUDA GPU");
    pthread_t watcher;
    limit = test_seconds(strcmp(criterion_current_test->name, TECHNIQUE_TEST_NAME) == 0);
    started = seconds_of(CLOCK_MONOTONIC);
    cr_assert(pthread_create(&watcher, NULL, stop_at_limit, NULL) == 0,
              "the test's time limit could not be started (a thread)");
    pthread_detach(watcher);
}

void after_gpu_test(void)
{
    pthread_mutex_lock(&limit_lock);
    test_over = true;
    pthread_mutex_unlock(&limit_lock);
}

size_t all_variants_up_to(const struct lab *lab)
{
    if (variant_count(lab) == 1)
        return 0;
    if (!gpu_emulated())
        return lab->tests.all_variants_up_to;
    return lab->tests.emulated_all_variants_up_to ? lab->tests.emulated_all_variants_up_to
                                            : EMULATED_ALL_VARIANTS_UP_TO;
}

/* make check proves that a skeleton fails: its small sizes are proof
 * enough, and its large ones cost minutes of emulation */
bool beyond_largest_n(size_t n)
{
    const char *largest = getenv("WORKBOOK_LARGEST_N");
    return largest && *largest && n > strtoull(largest, NULL, 10);
}

void expect_stage_correct(const struct lab *lab, const char *id, size_t n, size_t cols, int block)
{
    const struct stage *s = stage_find(lab, id);
    cr_assert(s, "%s has no stage %s (its stages: %s)", lab->name, id, stage_list(lab));
    if (beyond_largest_n(n))
        cr_skip_test("more elements than WORKBOOK_LARGEST_N=%s", getenv("WORKBOOK_LARGEST_N"));
    const char *only = getenv("VARIANT");
    uint64_t seed = seed_from_env();
    int one = -1; /* the one variant a large test checks */
    size_t all_up_to = all_variants_up_to(lab);
    if (all_up_to && n > all_up_to)
        one = (int)(seed % (uint64_t)variant_count(lab));
    for (int v = 0; v < variant_count(lab); v++) {
        if (only && *only ? variant_find(lab, only) != v : one >= 0 && v != one)
            continue;
        struct problem *p = problem_new(lab, v, n, cols, seed, block);
        lab->reference(p);
        struct finding f;
        if (problem_verify(p, s, &f)) {
            problem_free(p);
            continue;
        }
        /* the report travels to the runner as data, which groups it */
        struct report r;
        char msg[REPORT_CODE_SIZE];
        report_make(p, s, &f, &r);
        report_encode(&r, msg, sizeof msg);
        cr_expect(false, "%s", msg);
        /* after a kernel fault a GPU's context is gone (and the emulation's
         * too, as on a GPU): no other variant can run */
        if (f.verdict == KERNEL_FAILED)
            return;
    }
}

/* ---- sizes from a stage's tile ----------------------------------------- */

struct tile_fill {
    const char *name;
    size_t tiles, halves;
    long values;
};
#define TILE_FILL_ROW(name, id, fill, tiles, halves, values) {#fill, tiles, halves, values},
static const struct tile_fill tile_fills[] = {TILE_FILLS(TILE_FILL_ROW, , ){NULL, 0, 0, 0}};

size_t stage_tile(const struct lab *lab, const struct stage *s, int block)
{
    return lab->tile ? lab->tile(s, block) : lab->threads ? (size_t)lab->threads(s, block) : (size_t)block;
}

/* The size the fill named by `len` characters of `name` gives a tile. */
static bool fill_size(const char *name, size_t len, size_t tile, size_t *n)
{
    for (const struct tile_fill *f = tile_fills; f->name; f++)
        if (strlen(f->name) == len && strncmp(f->name, name, len) == 0) {
            *n = f->tiles * tile + f->halves * (tile / 2) + (size_t)f->values;
            return true;
        }
    return false;
}

bool tile_test_size(const struct lab *lab, const struct stage *s, const char *test, size_t *n,
                    size_t *cols)
{
    const char *prefix = "matches_cpu_", *fill = test + strlen(prefix), *by;
    size_t tile = stage_tile(lab, s, 256), rows;
    if (strncmp(test, prefix, strlen(prefix)) != 0)
        return false;
    *cols = 0;
    if (!lab->matrix)
        return fill_size(fill, strlen(fill), tile, n);
    if (!(by = strstr(fill, "_by_")) || !fill_size(fill, (size_t)(by - fill), tile, &rows) ||
        !fill_size(by + 4, strlen(by + 4), tile, cols))
        return false;
    *n = rows * *cols;
    return true;
}

void expect_tile_test_correct(const struct lab *lab, const char *id, const char *test)
{
    const struct stage *s = stage_find(lab, id);
    size_t n, cols;
    cr_assert(s, "%s has no stage %s (its stages: %s)", lab->name, id, stage_list(lab));
    cr_assert(tile_test_size(lab, s, test, &n, &cols), "%s: no tile test has this name", test);
    expect_stage_correct(lab, id, n, cols, 256);
}

#ifndef WORKBOOK_EMU
/* On a GPU: the verdict of the emulated driver (run technique=ID), which
 * prints "TECHNIQUE<tab>id<tab>verdict<tab>sentence<tab>figures". */
static void technique_elsewhere(const struct stage *s, uint64_t seed, struct technique_result *r)
{
    const char *run = getenv("WORKBOOK_TECHNIQUE_RUN");
    memset(r, 0, sizeof *r);
    r->verdict = UNCOUNTED;
    if (!run || !*run || access(run, X_OK) != 0) {
        snprintf(r->sentence, sizeof r->sentence,
                 "its technique was not counted: the emulated build of this lab (%s) is missing; "
                 "make test builds it",
                 run && *run ? run : "WORKBOOK_TECHNIQUE_RUN is not set");
        return;
    }
    char command[1024], line[8192] = "";
    snprintf(command, sizeof command, "'%s' technique=%s seed=%llu 2>&1", run, s->id,
             (unsigned long long)seed);
    FILE *out = popen(command, "r");
    bool read = false;
    while (out && fgets(line, sizeof line, out))
        if (strncmp(line, "TECHNIQUE\t", 10) == 0 && (read = true))
            break;
    if (out)
        pclose(out);
    char id[64], verdict[32];
    int at = 0;
    if (read && sscanf(line, "TECHNIQUE\t%63[^\t]\t%31[^\t]\t%n", id, verdict, &at) == 2 && at) {
        line[strcspn(line, "\n")] = '\0';
        size_t end = strcspn(line + at, "\t");
        snprintf(r->sentence, sizeof r->sentence, "%.*s", (int)end, line + at);
        snprintf(r->figures, sizeof r->figures, "%s", line[at + end] ? line + at + end + 1 : "");
        for (int v = SHOWN; v <= UNCOUNTED; v++)
            if (strcmp(verdict, technique_verdict_names[v]) == 0) {
                r->verdict = (enum technique_verdict)v;
                return;
            }
    }
    snprintf(r->sentence, sizeof r->sentence,
             "its technique was not counted: the emulated driver %s gave no verdict%s%.300s", run,
             *line ? ": " : "", line);
}
#endif

void expect_stage_technique(const struct lab *lab, const char *id)
{
    const struct stage *s = stage_find(lab, id);
    cr_assert(s, "%s has no stage %s (its stages: %s)", lab->name, id, stage_list(lab));
    struct technique_result r;
#ifdef WORKBOOK_EMU
    /* a stage that declares no traits (a lab's first) shows its idea by
     * being right, which its sizes have checked under this same emulation:
     * no count to make (radix stage 1's took a fifth of its tests' time) */
    if (!stage_technique(lab, s)->traits[0].of)
        return;
    stage_technique_check(lab, s, seed_from_env(), NULL, &r);
#else
    technique_elsewhere(s, seed_from_env(), &r);
#endif
    /* wrong outputs are the size tests' to report; on a GPU, the emulation
     * may still see what the GPU's run did not (a race). The figures, if
     * any, on a line of their own. */
    cr_expect(r.verdict == SHOWN, TECHNIQUE_PREFIX "%s%s%s%s",
              r.verdict == WRONG ? EMULATION_PREFIX : "", r.sentence,
              *r.figures ? "\n" : "", r.figures);
}
