/* judge.c: the runs grading asks for: once= (each stage checked once, as
 * make sanitize and make profile run it, or its results left for the grader
 * with dump=, or judged with judge=), technique= (the counts of a stage's
 * kernel, and their record) and time= (a stage's time on a GPU, and its
 * record). The records are sealed (seal.c). */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"

/* ---- once=1: under compute-sanitizer or Nsight Compute --------------------- */

/* judge=: the line grading/grade.sh reads, tab-separated: RESULT, the stage,
 * the variant (- for none), the size, the block, ok or wrong, and the
 * reason in one line (- when ok): what is wrong and where, the first line
 * of the report's what, since a grade cites what was found, not a guess. */
static void print_result(const struct problem *p, const struct stage *s, const struct report *r)
{
    const char *variant = variant_name(p->lab, p->variant);
    char reason[sizeof r->what] = "-";
    if (r)
        snprintf(reason, sizeof reason, "%.*s", (int)strcspn(r->what, "\n"), r->what);
    for (char *c = reason; *c; c++)
        *c = *c == '\t' ? ' ' : *c;
    printf("RESULT\t%s\t%s\t%s\t%d\t%s\t%s\n", s->id, variant ? variant : "-",
           size_text(p->n, p->cols), p->block, r ? "wrong" : "ok", reason);
}

/* Each chosen stage checked once, with its launch alone inside the profiler's
 * range; no library, copy or CPU row, so a tool watching this process sees
 * the stage's kernels and the harness's poisoning, nothing else. */
bool check_once(const struct lab *lab, int variant, const struct run_options *opt)
{
    struct problem *p = problem_new(lab, variant, opt->n, opt->cols, opt->seed, opt->block);
    p->profiled = true;
    if (!opt->dump) /* a dump is judged elsewhere: no answer in the student's process */
        lab->reference(p);
    bool ok = true;
    for (const struct stage *s = lab->stages; s->id && gpu_healthy(); s++) {
        if (!stage_selected(s, opt->stages))
            continue;
        struct finding f;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s-%d", opt->judge ? opt->judge : opt->dump, s->id, variant);
        watch(lab->name, s);
        bool right;
        if (opt->judge) {
            right = problem_judge(p, s, dir, &f);
        } else {
            right = opt->dump ? problem_run(p, s, &f) : problem_verify(p, s, &f);
            if (opt->dump && mkdir(dir, 0777) != 0 && errno != EEXIST)
                die("%s: cannot make the folder for the stage's results", dir);
            if (opt->dump && !right)
                problem_dump_failure(&f, dir);
            else if (opt->dump && gpu_healthy())
                problem_dump(p, dir);
        }
        struct report r;
        if (!right)
            report_make(p, s, &f, &r);
        if (opt->judge)
            print_result(p, s, right ? NULL : &r);
        if (right) {
            printf("%s: %s\n", problem_title(p, s), opt->dump ? "ran" : "ok");
            continue;
        }
        char msg[2 * sizeof r];
        report_text(&r, msg, sizeof msg);
        printf("%s\n", msg);
        ok = false;
    }
    unwatch();
    if (gpu_healthy())
        problem_free(p);
    return ok;
}

/* dump=DIR cases=all: every grading case in one process, the k-th (from 1)
 * into DIR/k, so that grading a stage on a GPU makes one context, not one a
 * case. */
bool dump_cases(const struct lab *lab, struct run_options *o)
{
    const char *top = o->dump;
    char dir[4096];
    bool ok = true;
    int k = 0;
    for (const struct grade_case *c = lab_grade_cases(lab); c->size && gpu_healthy(); c++) {
        o->cols = 0;
        if (!(lab->matrix ? parse_shape(c->size, &o->n, &o->cols) : parse_size(c->size, &o->n)))
            die("%s: the grading case %s is no size", lab->name, c->size);
        if (lab->matrix)
            o->n *= o->cols;
        o->block = c->block;
        snprintf(dir, sizeof dir, "%s/%d", top, ++k);
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            die("%s: cannot make the folder for the case's results", dir);
        o->dump = dir;
        int only = check_options(lab, o);
        for (int v = 0; v < variant_count(lab) && gpu_healthy(); v++)
            if (only < 0 || v == only)
                ok &= check_once(lab, v, o);
    }
    o->dump = top;
    return ok;
}

/* ---- technique=: does each stage's kernel show its idea? ------------------ */

/* The technique record (seal.c says why it is sealed). */
static const char RECORD[] = "technique.txt", RECORD_HEAD[] = "workbook technique record 1\n";
enum { COUNTS = sizeof(struct access_counts) / sizeof(double) };
_Static_assert(sizeof(struct access_counts) == COUNTS * sizeof(double),
               "the record holds the counts as doubles");

static void write_record(const struct lab *lab, const struct stage *s, uint64_t seed,
                         const struct technique_result *r, const char *dir)
{
    const struct grade_case *at = stage_technique_case(lab, s);
    char text[RECORD_MAX];
    int len = snprintf(text, sizeof text, "%slab %s\nstage %s\ncase %s %d\nseed %llu\nverdict %s\ncounts",
                       RECORD_HEAD, lab->name, s->id, at->size, at->block,
                       (unsigned long long)seed, technique_verdict_names[r->verdict]);
    const double *count = (const double *)&r->counts;
    for (int k = 0; k < COUNTS && len > 0 && len < RECORD_MAX - 64; k++)
        len += snprintf(text + len, sizeof text - len, " %a", count[k]);
    len += snprintf(text + len, sizeof text - len, "\n");
    write_sealed(text, len, dir, RECORD);
}

/* Why record text is no record, checked line by line; NULL when it is one,
 * with its verdict and counts. */
static const char *read_record(const struct lab *lab, const struct stage *s, uint64_t seed,
                               const unsigned char key[16], char *text, size_t len,
                               char verdict[16], struct access_counts *c)
{
    char *seal;
    const char *unsealed = seal_check(key, text, len, &seal);
    if (unsealed)
        return unsealed;
    const struct grade_case *at = stage_technique_case(lab, s);
    char head[256];
    snprintf(head, sizeof head, "%slab %s\nstage %s\ncase %s %d\nseed %llu\nverdict ", RECORD_HEAD,
             lab->name, s->id, at->size, at->block, (unsigned long long)seed);
    if (strncmp(text, head, strlen(head)) != 0)
        return "it is of another lab, stage, case or seed";
    char *at_verdict = text + strlen(head);
    size_t k = strcspn(at_verdict, "\n");
    snprintf(verdict, 16, "%.*s", (int)k, at_verdict);
    if (strcmp(verdict, "shown") != 0 && strcmp(verdict, "missing") != 0 &&
        strcmp(verdict, "wrong") != 0)
        return "its verdict is none of shown, missing, wrong";
    char *p = at_verdict + k + 1;
    if (strncmp(p, "counts", 6) != 0)
        return "it has no counts";
    p += 6;
    double *count = (double *)c;
    for (int i = 0; i < COUNTS; i++) {
        char *after;
        count[i] = strtod(p, &after);
        if (after == p || !isfinite(count[i]) || count[i] < 0)
            return "a count is no number of zero or more";
        p = after;
    }
    return *p == '\n' && p + 1 == seal ? NULL : "its counts are too many or too few";
}

/* The grader's verdict on DIR's record, as a TECHNIQUE line: shown, missing,
 * wrong (its counted run's outputs, or the emulation's checks), uncounted
 * (no record: it crashed or was stopped), review (forged). The key: the
 * grader's environment's WORKBOOK_SEAL_KEY, 32 hex digits. */
static bool judge_technique(const struct lab *lab, const struct stage *s, uint64_t seed,
                            const char *dir)
{
    unsigned char key[16];
    grader_key("technique", s->id, dir, key);
    char *text = malloc(RECORD_MAX + 1), verdict[16] = "";
    if (!text)
        die("out of memory");
    struct access_counts c;
    long len = read_whole(dir, RECORD, text);
    bool in = len >= 0;
    const char *forged = in ? read_record(lab, s, seed, key, text, (size_t)len, verdict, &c) : NULL;
    free(text);
    struct technique_result r = {0};
    const char *name = "uncounted";
    if (!in)
        snprintf(r.sentence, sizeof r.sentence, "its count under the emulation left no record: "
                 "it crashed or was stopped first");
    else if (forged) {
        name = "review";
        snprintf(r.sentence, sizeof r.sentence, "its technique record is not the counter's (%s): "
                 "flagged for review, no credit", forged);
    } else if (strcmp(verdict, "wrong") == 0) {
        name = "wrong";
        snprintf(r.sentence, sizeof r.sentence, "its counted run failed the emulation's checks "
                 "(its own output, run.log, holds the emulation's report)");
    } else {
        const struct grade_case *at = stage_technique_case(lab, s);
        size_t n, cols = 0;
        if (!(lab->matrix ? parse_shape(at->size, &n, &cols) : parse_size(at->size, &n)))
            die("%s: its technique case %s is no size", lab->name, at->size);
        struct problem *p = problem_new(lab, 0, lab->matrix ? n * cols : n, cols, seed, at->block);
        lab->reference(p);
        struct finding f;
        if (!problem_judge(p, s, dir, &f)) {
            struct report wrong;
            report_make(p, s, &f, &wrong);
            name = "wrong";
            snprintf(r.sentence, sizeof r.sentence, "the outputs of its counted run were wrong: %.*s",
                     (int)strcspn(wrong.what, "\n"), wrong.what);
        } else {
            technique_judge(p, s, &c, &r);
            name = technique_verdict_names[r.verdict];
        }
        problem_free(p);
    }
    for (char *t = r.sentence; *t; t++)
        *t = *t == '\t' || *t == '\n' ? ' ' : *t;
    printf("TECHNIQUE\t%s\t%s\t%s\t%s\n", s->id, name, r.sentence, r.figures);
    return strcmp(name, "shown") == 0;
}

bool check_techniques(const struct lab *lab, const struct run_options *opt)
{
    bool all = strcmp(opt->technique, "all") == 0, shown = true;
    if (!all && !stage_find(lab, opt->technique))
        die("technique=%s: %s has stages %s (or all)", opt->technique, lab->name, stage_list(lab));
    if ((opt->dump || opt->judge) && all)
        die("technique=all: a record (dump=, judge=) is of one stage: technique=ID");
    if (opt->judge)
        return judge_technique(lab, stage_find(lab, opt->technique), opt->seed, opt->judge);
    if (opt->dump && mkdir(opt->dump, 0777) != 0 && errno != EEXIST)
        die("%s: cannot make the folder for the technique record", opt->dump);
    for (const struct stage *s = lab->stages; s->id && gpu_healthy(); s++) {
        if (!all && strcmp(s->id, opt->technique) != 0)
            continue;
        struct technique_result r;
        watch(lab->name, s);
        stage_technique_check(lab, s, opt->seed, opt->dump, &r);
        for (char *c = r.sentence; *c; c++)
            *c = *c == '\t' || *c == '\n' ? ' ' : *c;
        if (opt->dump)
            write_record(lab, s, opt->seed, &r, opt->dump);
        else
            printf("TECHNIQUE\t%s\t%s\t%s\t%s\n", s->id, technique_verdict_names[r.verdict],
                   r.sentence, r.figures);
        shown &= r.verdict == SHOWN;
    }
    unwatch();
    return shown;
}

/* ---- the time record: a stage's time on the GPU, sealed ------------------ *
 *
 * Counts cannot tell every idea from its imitation: a decoupled look-back
 * and a chain of waits plus one status word that no tile reads make the
 * same counts under the emulation, but not the same time. So tier 2 of a
 * grading (grading/grade.sh) times each stage that scored on the GPU:
 * time=ID dump=DIR checks the stage once, times it (the median of REPS
 * runs after WARMUP, CUDA events), runs it once more for its results, and
 * leaves the time in DIR/time.txt, sealed as the technique record is. The
 * grader's own binary (time=ID judge=DIR) checks the seal and the results
 * and prints the time; the reference solution's binary (time=all) checks
 * and times its own stages, for the grader to compare. The same sizes,
 * block and seed on both sides: the grader gives them. */
static const char TIME_RECORD[] = "time.txt", TIME_HEAD[] = "workbook time record 1\n";

static int time_head(char *text, size_t size, const struct lab *lab, const struct stage *s,
                     const struct run_options *o)
{
    return snprintf(text, size, "%slab %s\nstage %s\nsize %zu %zu\nblock %d\nseed %llu\nms ",
                    TIME_HEAD, lab->name, s->id, o->n, o->cols, o->block,
                    (unsigned long long)o->seed);
}

/* TIME, the stage, timed|untimed|review|wrong, the milliseconds (or -), why. */
static void print_time(const struct stage *s, const char *status, double ms, const char *why)
{
    char text[512];
    snprintf(text, sizeof text, "%.*s", (int)sizeof text - 1, why ? why : ""); /* cut to fit */
    for (char *t = text; *t; t++)
        *t = *t == '\t' || *t == '\n' ? ' ' : *t;
    if (ms >= 0)
        printf("TIME\t%s\t%s\t%.6f\t%s\n", s->id, status, ms, text);
    else
        printf("TIME\t%s\t%s\t-\t%s\n", s->id, status, text);
}

static bool judge_time(const struct lab *lab, const struct stage *s, const struct run_options *o)
{
    unsigned char key[16];
    grader_key("time", s->id, o->judge, key);
    char *text = malloc(RECORD_MAX + 1), head[512], *seal, why[400];
    if (!text)
        die("out of memory");
    long len = read_whole(o->judge, TIME_RECORD, text);
    const char *forged = len < 0 ? NULL : seal_check(key, text, (size_t)len, &seal);
    double ms = -1;
    if (len >= 0 && !forged) {
        size_t k = (size_t)time_head(head, sizeof head, lab, s, o);
        char *end = NULL;
        if (strncmp(text, head, k) != 0)
            forged = "it is of another lab, stage, size, block or seed";
        else if (ms = strtod(text + k, &end), end == text + k || *end != '\n' || end + 1 != seal ||
                 !isfinite(ms) || ms < 0)
            forged = "its time is no number of zero or more";
    }
    free(text);
    if (len < 0) {
        print_time(s, "untimed", -1, "its timed run left no record: it crashed or was stopped first");
        return false;
    }
    if (forged) {
        snprintf(why, sizeof why, "its time record is not the timer's (%s): flagged for review",
                 forged);
        print_time(s, "review", -1, why);
        return false;
    }
    struct problem *p = problem_new(lab, 0, o->n, o->cols, o->seed, o->block);
    lab->reference(p);
    struct finding f;
    bool right = problem_judge(p, s, o->judge, &f);
    if (!right) {
        struct report wrong;
        report_make(p, s, &f, &wrong);
        snprintf(why, sizeof why, "the outputs of its timed run were wrong: %.*s",
                 (int)strcspn(wrong.what, "\n"), wrong.what);
    }
    problem_free(p);
    print_time(s, right ? "timed" : "wrong", right ? ms : -1, right ? NULL : why);
    return right;
}

bool time_stages(const struct lab *lab, const struct run_options *o)
{
    bool all = strcmp(o->time, "all") == 0, ok = true;
    if (!all && !stage_find(lab, o->time))
        die("time=%s: %s has stages %s (or all)", o->time, lab->name, stage_list(lab));
    if ((o->dump || o->judge) && all)
        die("time=all: a record (dump=, judge=) is of one stage: time=ID");
    if (o->judge)
        return judge_time(lab, stage_find(lab, o->time), o);
    if (gpu_emulated())
        die("time=%s: emulated times mean nothing; time=, like the run table, is for a GPU", o->time);
    if (o->dump && mkdir(o->dump, 0777) != 0 && errno != EEXIST)
        die("%s: cannot make the folder for the time record", o->dump);
    struct problem *p = problem_new(lab, 0, o->n, o->cols, o->seed, o->block);
    if (!o->dump) /* a dump is judged elsewhere: no answer in the student's process */
        lab->reference(p);
    for (const struct stage *s = lab->stages; s->id && gpu_healthy(); s++) {
        if (!all && strcmp(s->id, o->time) != 0)
            continue;
        struct finding f;
        struct job j = {p, s};
        watch(lab->name, s);
        bool right = o->dump ? problem_run(p, s, &f) : problem_verify(p, s, &f);
        double ms = right && gpu_healthy() ? time_gpu_ms(launch_once, &j, WARMUP, REPS) : -1;
        if (o->dump) {
            /* the results of a run of their own, as every case's are */
            if (right && gpu_healthy())
                right = problem_run(p, s, &f);
            if (!right)
                problem_dump_failure(&f, o->dump);
            else if (gpu_healthy())
                problem_dump(p, o->dump);
            char text[RECORD_MAX];
            int len = time_head(text, sizeof text, lab, s, o);
            len += snprintf(text + len, sizeof text - (size_t)len, "%a\n", ms < 0 ? 0 : ms);
            write_sealed(text, len, o->dump, TIME_RECORD);
        } else if (right) {
            print_time(s, "timed", ms, NULL);
        } else {
            struct report r;
            report_make(p, s, &f, &r);
            print_time(s, "wrong", -1, r.what);
            ok = false;
        }
    }
    unwatch();
    if (gpu_healthy())
        problem_free(p);
    return ok;
}
