/* verify.cu: a stage run and judged: problem_run and problem_verify, the
 * counts of its accesses and whether they show its technique (emulation),
 * and for grading its results dumped by one process and judged by another.
 * The buffers and the launch are workbook.cu's (problem.h). */
#include "workbook.cuh"
#include "problem.h"
#include "technique.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef WORKBOOK_EMU
void access_counts_begin(void) { emu_count_begin(); }
void access_counts_end(struct access_counts *c)
{
    emu_count_end(c);
}
void problem_count_lines(void (*line)(const char *where, const struct access_counts *c, void *arg),
                         void *arg)
{
    emu_count_lines(line, arg);
}
#else
void access_counts_begin(void) {}
void access_counts_end(struct access_counts *c) { memset(c, 0, sizeof *c); }
void problem_count_lines(void (*line)(const char *where, const struct access_counts *c, void *arg),
                         void *arg)
{
    (void)line, (void)arg;
}
#endif

bool problem_count_accesses(struct problem *p, const struct stage *s, struct access_counts *c)
{
    struct finding f;
    problem_upload(p, NULL);
    problem_poison_outputs(p);
    p->counts = c;
    bool launched = launch_and_wait(p, s, &f);
    p->counts = NULL;
    return launched;
}

const char *const technique_verdict_names[] = {"shown", "missing", "wrong", "uncounted"};

#ifdef WORKBOOK_EMU
/* Stage s once under the emulation at `size` (a lab's case), counted into c
 * if c is given. The problem if its outputs are right there (the caller
 * frees it); else NULL, and r says what went wrong: WRONG. */
static struct problem *emulated_case(const struct lab *lab, const struct stage *s, const char *size,
                                     int block, uint64_t seed, struct access_counts *c,
                                     struct technique_result *r)
{
    size_t n, cols = 0;
    if (!(lab->matrix ? parse_shape(size, &n, &cols) : parse_size(size, &n)))
        die("%s: its case %s is no size", lab->name, size);
    if (lab->matrix)
        n *= cols;
    struct problem *p = problem_new(lab, 0, n, cols, seed, block);
    if (lab->reference) /* a graded build has none: its outputs are judged elsewhere */
        lab->reference(p);
    struct finding f;
    p->counts = c;
    bool right = lab->reference ? problem_verify(p, s, &f) : problem_run(p, s, &f);
    p->counts = NULL;
    if (right)
        return p;
    struct report wrong;
    report_make(p, s, &f, &wrong);
    snprintf(r->sentence, sizeof r->sentence, "%s: %.*s", wrong.title,
             (int)strcspn(wrong.what, "\n"), wrong.what);
    r->verdict = WRONG;
    problem_free(p);
    return NULL;
}
#endif

/* The emulation's checks (races, barriers, bounds, the order of blocks) run
 * first at a small size whose last tiles are partly filled (4999 leaves
 * 135 of 256, 903 of 1024 or of 4096; 47x33, 15 and 1 of 32): on a GPU
 * this and the technique case are the only runs they see. */
static const char *const CHECKS_SIZE = "4999", *const CHECKS_SHAPE = "47x33";

void technique_judge(const struct problem *p, const struct stage *s, const struct access_counts *c,
                     struct technique_result *r)
{
    const struct grade_case *at = stage_technique_case(p->lab, s);
    double got = 0;
    const struct trait *t = technique_missing(p, s, c, &got);
    r->verdict = t ? MISSING : SHOWN;
    r->figures[0] = '\0';
    if (!t) {
        snprintf(r->sentence, sizeof r->sentence, "shown");
        return;
    }
    technique_sentence(p->lab, s, t, r->sentence, sizeof r->sentence);
    snprintf(r->figures, sizeof r->figures,
             "counted under the emulation (%d SMs) at %s = %s, block %d: %.3g, where the idea "
             "gives %s %g",
             TECHNIQUE_SMS, p->lab->matrix ? "rows x cols" : "n", at->size, at->block, got,
             t->bound == AT_LEAST ? "at least" : "at most", t->limit);
}

void stage_technique_check(const struct lab *lab, const struct stage *s, uint64_t seed,
                           const char *dump, struct technique_result *r)
{
    memset(r, 0, sizeof *r);
#ifndef WORKBOOK_EMU
    (void)lab, (void)s, (void)seed, (void)dump, (void)CHECKS_SIZE, (void)CHECKS_SHAPE;
    snprintf(r->sentence, sizeof r->sentence,
             "a GPU counts nothing: techniques are counted by the emulated build");
    r->verdict = UNCOUNTED;
#else
    const struct grade_case *at = stage_technique_case(lab, s);
    /* a device of as many SMs on every machine, so that a grid sized from
     * the device, and what is counted per thread, are the same everywhere */
    emu_device_sms(TECHNIQUE_SMS);
    struct problem *p = emulated_case(lab, s, lab->matrix ? CHECKS_SHAPE : CHECKS_SIZE, 256, seed,
                                      NULL, r);
    struct access_counts c = {};
    if (p) {
        problem_free(p);
        p = emulated_case(lab, s, at->size, at->block, seed, &c, r);
    }
    if (p && getenv("WORKBOOK_FIGURES")) /* for whoever writes a lab's traits */
        print_measures(stderr, p, &c);
    if (p) {
        r->counts = c;
        technique_judge(p, s, &c, r);
        if (dump)
            problem_dump(p, dump);
        problem_free(p);
    }
    emu_device_sms(0);
#endif
}

double problem_output_writes(const struct problem *p)
{
    double bytes = problem_output_bytes(p);
    return bytes > 0 ? p->output_writes / bytes : 0;
}

bool problem_run(struct problem *p, const struct stage *s, struct finding *f)
{
    memset(f, 0, sizeof *f);
    problem_upload(p, NULL);
    problem_poison_outputs(p);
    output_bytes_written(p);
    inputs_read(p);
    bool launched = launch_and_wait(p, s, f);
    p->output_writes = output_bytes_written(p);
    p->inputs_read = inputs_read(p);
    return launched;
}

bool problem_verify(struct problem *p, const struct stage *s, struct finding *f)
{
    if (!problem_run(p, s, f))
        return false;
    for (int i = 0; i < p->nbuf; i++)
        if (!buffer_right(p, s, &p->buf[i], f))
            return false;
    f->buffer = NULL;
    f->verdict = RIGHT;
    return true;
}

/* ---- grading: the verdict in a process that runs no student code -------- */

static void buffer_path(const struct buffer *b, const char *dir, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.bin", dir, b->name);
}

void problem_dump(const struct problem *p, const char *dir)
{
    for (int i = 0; i < p->nbuf; i++) {
        const struct buffer *b = &p->buf[i];
        char path[4096];
        buffer_path(b, dir, path, sizeof path);
        unsigned char *all = (unsigned char *)malloc(whole_bytes(b));
        if (!all)
            die("out of host memory");
        CUDA_CHECK(cudaMemcpy(all, b->dev_base, whole_bytes(b), cudaMemcpyDeviceToHost));
        FILE *out = fopen(path, "wb");
        if (!out || fwrite(all, 1, whole_bytes(b), out) != whole_bytes(b) || fclose(out) != 0)
            die("%s: cannot write the stage's result there", path);
        free(all);
    }
}

/* A launch that failed leaves no buffers but DIR/failed: the error's name,
 * then its words, a line each. Read back, it is the judge's finding. */
void problem_dump_failure(const struct finding *f, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/failed", dir);
    FILE *out = fopen(path, "w");
    if (!out || fprintf(out, "%s\n%.*s\n", f->error_name ? f->error_name : "-",
                        (int)strcspn(f->error, "\n"), f->error) < 0 || fclose(out) != 0)
        die("%s: cannot write the stage's failure there", path);
}

static bool read_failure(const char *dir, struct finding *f)
{
    static char name[64];
    char path[4096], said[1024] = ""; /* a whole report: the summary quotes it */
    snprintf(path, sizeof path, "%s/failed", dir);
    FILE *in = fopen(path, "r");
    if (!in)
        return false;
    if (!fgets(name, sizeof name, in) || !fgets(said, sizeof said, in))
        name[0] = said[0] = '\0';
    fclose(in);
    name[strcspn(name, "\n")] = said[strcspn(said, "\n")] = '\0';
    /* the process that ran the student's code wrote it: quoted as its own */
    snprintf(f->error, sizeof f->error, "the launch failed%s%s%s", *said ? " (its own process said: \"" : "",
             said, *said ? "\")" : "");
    /* a name the hints know, or none: a hint must come from a real error */
    f->error_name = strncmp(name, "cudaError", 9) == 0 && name[strspn(name,
                    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")] == '\0' ? name : NULL;
    f->verdict = KERNEL_FAILED;
    return true;
}

bool problem_judge(struct problem *p, const struct stage *s, const char *dir, struct finding *f)
{
    memset(f, 0, sizeof *f);
    if (read_failure(dir, f))
        return false;
    for (int i = 0; i < p->nbuf; i++) {
        struct buffer *b = &p->buf[i];
        char path[4096];
        buffer_path(b, dir, path, sizeof path);
        unsigned char *all = (unsigned char *)(b->got_base ? b->got_base : malloc(whole_bytes(b)));
        if (!all)
            die("out of host memory");
        FILE *in = fopen(path, "rb");
        size_t got = in ? fread(all, 1, whole_bytes(b), in) : 0;
        bool whole = in && got == whole_bytes(b) && fgetc(in) == EOF;
        if (in)
            fclose(in);
        bool ok = whole && bytes_right(p, s, b, all, f);
        if (all != b->got_base)
            free(all);
        if (!whole) {
            f->verdict = KERNEL_FAILED;
            f->error_name = "no result";
            snprintf(f->error, sizeof f->error,
                     "no result for '%s': the stage crashed, hung or was stopped before its "
                     "results were written",
                     b->name);
        }
        if (!ok)
            return false;
    }
    f->buffer = NULL;
    f->verdict = RIGHT;
    return true;
}
