/* driver.c: `make run` for any lab. Checks each stage once, then times it
 * and prints the run table: time, effective bandwidth, share of the copy
 * (the yardstick), and speedups over the previous stage and over the CPU.
 *
 *   run [n=2^24] [stage=ID] [variant=NAME] [seed=S] [block=256] [sweep=0|1] [once=0|1]
 *
 * An option left out is read from the environment (N, STAGE, VARIANT, SEED,
 * BLOCK, SWEEP, ONCE), which is how make hands them to the driver and the
 * tests alike; without a seed one is drawn from the clock. once=1 checks
 * each stage once and times nothing: what make sanitize and make profile run.
 * For grading (grading/grade.sh), dump=DIR adds to once=1 each stage's
 * results, written to DIR/<stage>-<variant>/ (with cases=all, for every
 * grading case, the k-th in DIR/k/<stage>-<variant>/), and judge=DIR judges those
 * files instead of running any kernel, printing a RESULT line a case.
 * technique=ID (or all), under the emulation only, counts the stage at the
 * lab's technique case and prints whether its kernel shows its idea, a line
 * a stage: TECHNIQUE, the stage, shown|missing|wrong, the sentence, and the
 * figure against its bound (the tests on a GPU read it). For grading,
 * technique=ID dump=DIR prints nothing of it: it leaves the counts, sealed,
 * and the counted run's results in DIR, and technique=ID judge=DIR, in the
 * grader's own process, says the verdict (see "the technique record").
 * time=ID (or all), on a GPU, checks the stage once at the run's size and
 * prints its median time: TIME, the stage, the milliseconds; for grading,
 * time=ID dump=DIR leaves that time sealed, with the timed run's results,
 * and time=ID judge=DIR checks both (see "the time record").
 * csv=FILE (make bench, tools/bench.sh) appends each row's figures to FILE,
 * and times the first variant only unless variant= names one or is "all".
 *
 *   run list=stages|variants|shape|cases
 *
 * answers what scripts ask of the lab (the grader, make bench, make list,
 * the Classroom workflow), tab-separated, an item a line, touching no GPU.
 *
 * A lab with variants (reduce: int and float) gets one table each; a lab
 * with a library version (CUB) gets its row, checked and timed alongside.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "workbook.h"

enum { WARMUP = 3, REPS = 20, STAGE_SECONDS = 60, UNDER_TOOL_TIMES = 10 };

/* ---- options ------------------------------------------------------------ */

struct run_options {
    size_t n;
    size_t cols;         /* a matrix lab's columns (n = rows * cols); 0 for the others */
    const char *stages;  /* STAGE's filter; NULL: every stage */
    const char *variant; /* NULL: every variant */
    uint64_t seed;
    int block;
    bool sweep;
    bool once; /* check each stage once, time nothing */
    const char *dump, *judge; /* grading: where results go, or whence they are judged */
    bool all_cases;           /* dump every grading case, the k-th into DUMP/k */
    const char *csv;          /* make bench: the file the rows are appended to */
    const char *technique;    /* stages whose technique is counted: an id, or "all" */
    const char *time;         /* stages timed for the grader: an id, or "all" */
};

enum { OPT_N, OPT_STAGE, OPT_VARIANT, OPT_SEED, OPT_BLOCK, OPT_SWEEP, OPT_ONCE, OPT_DUMP,
       OPT_JUDGE, OPT_CSV, OPT_TECHNIQUE, OPT_CASES, OPT_TIME, OPTIONS };
static const char *const option_names[OPTIONS] = {
    "n", "stage", "variant", "seed", "block", "sweep", "once", "dump", "judge", "csv", "technique", "cases",
    "time"};

static void usage(const char *bad)
{
    die("%s: expected n=SIZE stage=ID variant=NAME seed=S block=THREADS sweep=0|1 once=0|1, "
        "technique=ID|all, time=ID|all, e.g. n=2^28; or list=stages (variants, shape, cases) alone",
        bad);
}

static const char *env_text(const char *name)
{
    char upper[16] = "";
    for (size_t c = 0; name[c] && c + 1 < sizeof upper; c++)
        upper[c] = (char)toupper((unsigned char)name[c]);
    return getenv(upper);
}

/* Each option's text: name=value among the arguments, else the
 * environment's NAME; NULL when neither gives one (or gives it empty). */
static void option_texts(int argc, char *argv[], const char *text[OPTIONS])
{
    for (int k = 0; k < OPTIONS; k++)
        text[k] = env_text(option_names[k]);
    for (int i = 1; i < argc; i++) {
        size_t len = strcspn(argv[i], "=");
        int k = 0;
        while (k < OPTIONS && (strlen(option_names[k]) != len ||
                               strncmp(argv[i], option_names[k], len) != 0))
            k++;
        if (k == OPTIONS || argv[i][len] != '=')
            usage(argv[i]);
        text[k] = argv[i] + len + 1;
    }
    for (int k = 0; k < OPTIONS; k++)
        if (text[k] && !*text[k])
            text[k] = NULL;
}

static struct run_options parse_options(int argc, char *argv[])
{
    const char *text[OPTIONS];
    option_texts(argc, argv, text);
    /* Emulated kernels run thousands of times slower: a smaller default
     * size, a square for a matrix lab */
    int log2_n = gpu_emulated() ? 20 : 24;
    struct choices c = {.n = (size_t)1 << log2_n,
                        .cols = workbook_lab->matrix ? (size_t)1 << (log2_n / 2) : 0, .block = 256};
    choices_read(workbook_lab, text[OPT_N], text[OPT_BLOCK], text[OPT_SEED], &c);
    struct run_options o = {.n = c.n, .cols = c.cols, .seed = c.seed, .block = c.block,
                            .sweep = true, .stages = text[OPT_STAGE], .variant = text[OPT_VARIANT]};
    if (text[OPT_SWEEP])
        o.sweep = whole_number("SWEEP", text[OPT_SWEEP], 1, "expected 0 (no sweep) or 1");
    if (text[OPT_ONCE])
        o.once = whole_number("ONCE", text[OPT_ONCE], 1,
                              "expected 0 (the run table) or 1 (check each stage once, untimed)");
    o.dump = text[OPT_DUMP];
    o.judge = text[OPT_JUDGE];
    o.once |= o.dump || o.judge;
    o.csv = text[OPT_CSV];
    o.technique = text[OPT_TECHNIQUE];
    o.time = text[OPT_TIME];
    if (text[OPT_CASES] && (strcmp(text[OPT_CASES], "all") != 0 || !o.dump))
        die("cases=%s: only dump= takes cases=all (every grading case, one folder each)",
            text[OPT_CASES]);
    o.all_cases = text[OPT_CASES];
    o.sweep &= !o.csv;
    return o;
}

static void check_stages(const struct lab *lab, const char *filter)
{
    for (const struct stage *s = lab->stages; s->id; s++)
        if (stage_selected(s, filter))
            return;
    die("STAGE=%s: %s has stages %s", filter, lab->name, stage_list(lab));
}

static int variant_index(const struct lab *lab, const char *name)
{
    int found = variant_find(lab, name);
    if (found >= 0)
        return found;
    char names[256] = "";
    for (int v = 0; v < variant_count(lab) && lab->variants; v++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", v ? ", " : "",
                 lab->variants[v]);
    die("VARIANT=%s: %s has %s%s", name, lab->name, *names ? "the variants " : "no variants",
        names);
}

/* What only the lab and the GPU can judge; dies at the first thing wrong.
 * Returns the one variant asked for, or -1 for every variant. */
static int check_options(const struct lab *lab, const struct run_options *o)
{
    if (o->n == 0 && !o->once) /* checked once, an empty input is a case like any */
        die("N=0: there is nothing to time; choose N >= 1 (or once=1 to check it)");
    gpu_check_block(o->block);
    check_stages(lab, o->stages);
    int only = o->variant ? variant_index(lab, o->variant) : -1;
    char why[256];
    for (int v = 0; v < variant_count(lab); v++)
        if ((only < 0 || v == only) && !problem_fits(lab, v, o->n, o->cols, why, sizeof why))
            die("%s", why);
    return only;
}

/* ---- list=: what scripts ask of the lab ---------------------------------- */

static void list_stages(const struct lab *lab)
{
    for (const struct stage *s = lab->stages; s->id; s++)
        printf("%s\t%s\n", s->id, s->idea);
}
static void list_variants(const struct lab *lab)
{
    for (int v = 0; lab->variants && lab->variants[v]; v++)
        printf("%s\n", lab->variants[v]);
}
static void list_shape(const struct lab *lab) { puts(lab->matrix ? "matrix" : "flat"); }
static void list_cases(const struct lab *lab)
{
    for (const struct grade_case *c = lab_grade_cases(lab); c->size; c++)
        printf("%s\t%d\n", c->size, c->block);
}

/* An answer a line: the stages' ids and ideas; the variants' names (none
 * for a lab of one unnamed variant); whether sizes are numbers (flat) or
 * ROWSxCOLS (matrix); the sizes and blocks make grade judges at. */
static const struct {
    const char *question;
    void (*answer)(const struct lab *lab);
} lists[] = {
    {"stages", list_stages}, {"variants", list_variants}, {"shape", list_shape},
    {"cases", list_cases},
};

static void answer(const struct lab *lab, const char *question)
{
    char known[128] = "";
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        if (strcmp(question, lists[k].question) == 0) {
            lists[k].answer(lab);
            exit(0);
        }
        snprintf(known + strlen(known), sizeof known - strlen(known), "%slist=%s",
                 k ? ", " : "", lists[k].question);
    }
    die("list=%s: the driver answers %s", question, known);
}

/* ---- the time limit ----------------------------------------------------- */

/* A kernel that never finishes must not freeze the terminal: each stage gets
 * STAGE_SECONDS for its check and its timings, then the run stops saying
 * which. Under the emulation those are seconds of every core's CPU time
 * (as long on an idle machine), so that a machine busy with other work
 * does not stop a stage that is only slow; four times as long on the clock
 * still stops one that waits without computing. Under make profile or make
 * sanitize (WORKBOOK_TOOL names the tool and what it does) every kernel runs
 * several times or has each access watched, and a stage that is right may
 * need minutes: UNDER_TOOL_TIMES as long, and the tool named as a cause. */
static char running[160], slow[200];

static void on_alarm(int sig)
{
    (void)sig;
    const char *why = hang_advice(workbook_lab);
    const char *parts[] = {running, " did not finish: ", slow, why, "\n"};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        if (write(STDOUT_FILENO, parts[k], strlen(parts[k])) < 0)
            break;
    _exit(3);
}

static void watch(const char *what, const struct stage *s)
{
    snprintf(running, sizeof running, "\n%s stage %s (%s)", what, s->id, s->idea);
    const char *tool = getenv("WORKBOOK_TOOL");
    tool = tool && *tool ? tool : NULL;
    const char *slowed_by = gpu_emulated() ? "EMU=1" : tool; /* NULL: nothing slows it */
    *slow = '\0';
    if (slowed_by)
        snprintf(slow, sizeof slow, "under %s, a large N can take this long: try a smaller N. "
                                    "Otherwise, ", slowed_by);
    if (!gpu_emulated()) {
        alarm(tool ? UNDER_TOOL_TIMES * STAGE_SECONDS : STAGE_SECONDS);
        return;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    struct itimerval cpu = {{0, 0}, {STAGE_SECONDS * (cores > 0 ? cores : 1), 0}};
    setitimer(ITIMER_PROF, &cpu, NULL);
    alarm(4 * STAGE_SECONDS);
}

static void unwatch(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    alarm(0);
}

/* ---- what is timed ------------------------------------------------------ */

struct job {
    struct problem *p;
    const struct stage *s;
};

static void launch_once(void *ctx)
{
    struct job *j = ctx;
    j->s->launch(j->p->args, j->p->block);
}
static void upload_once(void *ctx)
{
    struct job *j = ctx;
    problem_upload(j->p, j->s);
}
static void download_once(void *ctx) { problem_download(((struct job *)ctx)->p); }
static void reference_once(void *ctx)
{
    struct problem *p = ctx;
    p->lab->reference(p);
}

/* What every row of a table is measured against. */
struct timing {
    int warmup, reps, cpu_reps;
    double cpu_ms, copy_ms, copy_gbps;
};

/* One run, or the median of five when one is quick enough to repeat. */
static double time_cpu_reference(struct problem *p, int *reps)
{
    *reps = 1;
    double ms = time_cpu_ms(reference_once, p, 1);
    if (ms < 500) {
        *reps = 5;
        ms = time_cpu_ms(reference_once, p, *reps);
    }
    return ms;
}

static struct timing time_baselines(struct problem *p)
{
    /* under the emulation a time is the CPU's: a stage's check is its one
     * timed run (problem_run's launch_ms), where a stage of many passes
     * takes seconds a run */
    bool emu = gpu_emulated();
    struct timing t = {.warmup = emu ? 0 : WARMUP, .reps = emu ? 1 : REPS};
    t.cpu_ms = time_cpu_reference(p, &t.cpu_reps);
    t.copy_ms = time_copy_ms((size_t)(p->bytes / 2), t.reps);
    t.copy_gbps = p->bytes / t.copy_ms / 1e6;
    return t;
}

/* ---- tables --------------------------------------------------------------- */

enum { CELL = 32 };

/* A table's layout, ended by a NULL title; a negative width aligns left,
 * and cuts text at the width. */
struct column {
    const char *title;
    int width;
    bool painted; /* the check: ok in green, WRONG in red */
};

static const struct column run_columns[] = {
    {"stage", -6, false},  {"idea", -42, false}, {"check", -5, true},
    {"time ms", 9, false}, {"GB/s", 7, false},   {"% copy", 6, false},
    {"vs prev", 7, false}, {"vs CPU", 7, false}, {"vs CPU+", 8, false},
    {NULL, 0, false}};

/* The same with a rate after the time, for a lab that names its items
 * (lab->items: "keys" gives Gkeys/s). */
enum { RATE_COLUMN = 4 };
static char rate_title[CELL];
static const struct column run_columns_rate[] = {
    {"stage", -6, false},  {"idea", -42, false}, {"check", -5, true},
    {"time ms", 9, false}, {rate_title, 8, false}, {"GB/s", 7, false},
    {"% copy", 6, false},  {"vs prev", 7, false}, {"vs CPU", 7, false},
    {"vs CPU+", 8, false}, {NULL, 0, false}};
/* Under the emulation: the times are CPU times, and no rates or speedups
 * are shown, but it counts what a stage stores and how its warps reach
 * memory (problem_count_accesses). */
static const struct column emu_columns[] = {
    {"stage", -6, false},    {"idea", -42, false}, {"check", -5, true},
    {"time ms", 9, false},   {"writes/elem", 11, false}, {"sect/req", 8, false},
    {"ideal", 5, false},     {"wavef/req", 9, false}, {"lanes %", 7, false},
    {NULL, 0, false}};
static const struct column *table_columns = run_columns;

/* The run table's columns for this lab, chosen once before it is printed. */
static void choose_columns(const struct lab *lab)
{
    table_columns = gpu_emulated() ? emu_columns : lab->items ? run_columns_rate : run_columns;
    if (lab->items)
        snprintf(rate_title, sizeof rate_title, "G%s/s", lab->items);
}

static const struct column sweep_columns[] = {
    {"block", 6, false},   {"warps", 6, false},      {"lanes used", 10, false},
    {"threads/SM", 13, false}, {"time ms", 9, false}, {"GB/s", 7, false},
    {"% copy", 6, false},  {NULL, 0, false}};

static void print_cells(const struct column *col, const char *const cell[], const char *colour)
{
    for (int c = 0; col[c].title; c++) {
        int w = col[c].width;
        bool painted = colour && col[c].painted;
        printf("%s%s%*.*s%s", c ? "  " : "", painted ? colour : "", w, w < 0 ? -w : -1, cell[c],
               painted ? PLAIN : "");
    }
    putchar('\n');
}

static void print_rule(const struct column *col)
{
    for (int c = 0; col[c].title; c++)
        printf("%s%.*s", c ? "  " : "", abs(col[c].width),
               "----------------------------------------------------------------");
    putchar('\n');
}

static void print_header(const struct column *col)
{
    const char *titles[16];
    for (int c = 0; col[c].title; c++)
        titles[c] = col[c].title;
    print_cells(col, titles, NULL);
    print_rule(col);
}

__attribute__((format(printf, 2, 3))) static const char *cell(char *text, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, CELL, fmt, ap);
    va_end(ap);
    return text;
}

/* 0.004x, not 0.0x: two significant digits below 0.1. */
static const char *times(char *text, double x)
{
    if (x >= 0.1)
        return cell(text, "%.1fx", x);
    return x > 0 ? cell(text, "%.2gx", x) : "-";
}

/* One row of the run table; a figure left 0 shows as "-". */
struct row {
    const char *stage, *idea, *check, *colour;
    double ms, rate, gbps, share, vs_prev, vs_cpu, vs_cpu_plus; /* rate: G items/s */
    double writes; /* emulation: stores per output element */
    const struct access_counts *counts; /* emulation: how its warps reach memory */
};

/* Per request, over the kinds from `first` to `last`: units (sectors or
 * wavefronts), the ideal, or the share of lanes; "-" when none was made. */
static const char *per_request(char *text, const struct access_counts *c, int first, int last,
                               char what)
{
    double requests = 0, sum = 0;
    for (int k = first; k <= last; k++) {
        requests += c->requests[k];
        sum += what == 'u' ? c->units[k] : what == 'i' ? c->ideal[k] : c->lanes[k];
    }
    if (requests == 0)
        return "-";
    return what == 'l' ? cell(text, "%.1f", 100 * sum / (32 * requests))
                       : cell(text, "%.2f", sum / requests);
}

static void print_row(const struct row *r)
{
    char text[11][CELL];
    const char *cells[11] = {r->stage,
                             r->idea,
                             r->check,
                             r->ms > 0 ? cell(text[0], "%.4f", r->ms) : "-",
                             r->gbps > 0 ? cell(text[1], "%.1f", r->gbps) : "-",
                             r->share > 0 ? cell(text[2], "%.1f%%", r->share) : "-",
                             times(text[3], r->vs_prev),
                             times(text[4], r->vs_cpu),
                             times(text[5], r->vs_cpu_plus)};
    if (table_columns == emu_columns) {
        static const struct access_counts none;
        const struct access_counts *c = r->counts ? r->counts : &none;
        cells[4] = r->writes > 0 ? cell(text[1], "%.2f", r->writes) : "-";
        cells[5] = per_request(text[2], c, GLOBAL_LOAD, GLOBAL_STORE, 'u');
        cells[6] = per_request(text[3], c, GLOBAL_LOAD, GLOBAL_STORE, 'i');
        cells[7] = per_request(text[4], c, SHARED_LOAD, SHARED_STORE, 'u');
        cells[8] = per_request(text[5], c, GLOBAL_LOAD, SHARED_STORE, 'l');
    }
    if (table_columns == run_columns_rate) {
        memmove(&cells[RATE_COLUMN + 1], &cells[RATE_COLUMN],
                (9 - RATE_COLUMN) * sizeof cells[0]);
        cells[RATE_COLUMN] = r->rate > 0 ? cell(text[6], "%.2f", r->rate) : "-";
    }
    print_cells(table_columns, cells, r->colour);
}

/* ---- the run table -------------------------------------------------------- */

/* What the rows of one table found, for the lines under it. */
enum { MAX_SWEEPS = 4 };
struct outcome {
    const struct stage *best, *sweeps[MAX_SWEEPS];
    int nsweeps;
    double best_ms, library_ms;
    char failures[16384];
};

static void note_failure(const struct problem *p, const struct stage *s, const struct finding *f,
                         struct outcome *o)
{
    struct report r;
    char body[2 * sizeof r];
    report_make(p, s, f, &r);
    report_body(&r, body, sizeof body);
    size_t used = strlen(o->failures); /* the table's title says the rest of the report's */
    snprintf(o->failures + used, sizeof o->failures - used, "stage %s:\n%s\n", s->id, body);
}

/* make bench: one line a row, appended to csv=, which starts with the
 * columns' names when it starts empty. */
static FILE *bench_csv;
static const char bench_columns[] =
    "lab,variant,n,rows,cols,stage,check,ms,gbps,copy_share,cpu_ms,vs_cpu\n";

static void bench_row(const struct problem *p, const char *stage, const char *check, double ms,
                      double gbps, double copy_share, double cpu_ms)
{
    if (!bench_csv)
        return;
    const char *variant = variant_name(p->lab, p->variant);
    size_t cols = p->cols ? p->cols : 1;
    fprintf(bench_csv, "%s,%s,%zu,%zu,%zu,%s,%s,", p->lab->name, variant ? variant : "-", p->n,
            p->n / cols, cols, stage, check);
    if (ms > 0)
        fprintf(bench_csv, "%.6f,%.2f,%.4f,%.6f,%.3f\n", ms, gbps, copy_share, cpu_ms,
                cpu_ms / ms);
    else
        fprintf(bench_csv, ",,,%.6f,\n", cpu_ms);
    fflush(bench_csv);
}

/* The counts of the last stage counted (emulation), for its lines. */
static struct access_counts last_counts;

/* Times a stage that passed its check and prints its row; returns its ms. */
static double time_stage_row(struct problem *p, const struct stage *s, const char *label,
                             const struct timing *t, double prev_ms)
{
    struct job j = {p, s};
    bool emu = gpu_emulated();
    /* emulated, the check's own launch is the time (time_baselines) */
    double ms = emu ? p->launch_ms : time_gpu_ms(launch_once, &j, t->warmup, t->reps);
    double copies = time_gpu_ms(upload_once, &j, 1, emu ? 1 : 5) +
                    time_gpu_ms(download_once, &j, 1, emu ? 1 : 5);
    double gbps = p->bytes / ms / 1e6;
    bench_row(p, label, "ok", ms, gbps, gbps / t->copy_gbps, t->cpu_ms);
    if (emu) { /* CPU times: no bandwidths or speedups to show, but counts */
        double writes = problem_output_writes(p);
        struct access_counts *counts = &last_counts;
        bool counted = s != p->lab->library && problem_count_accesses(p, s, counts);
        print_row(&(struct row){.stage = label, .idea = s->idea, .check = "ok", .colour = GREEN,
                                .ms = ms, .writes = writes, .counts = counted ? counts : NULL});
    } else
        print_row(&(struct row){.stage = label, .idea = s->idea, .check = "ok", .colour = GREEN,
                                .ms = ms, .rate = p->n / ms / 1e6, .gbps = gbps,
                                .share = 100 * gbps / t->copy_gbps,
                                .vs_prev = prev_ms / ms, .vs_cpu = t->cpu_ms / ms,
                                .vs_cpu_plus = t->cpu_ms / (ms + copies)});
    return ms;
}

/* One stage's row (or the library's): check it once, then time it. Returns
 * its time in ms, or 0 when it is wrong (o->failures gets the reason). */
static double stage_row(struct problem *p, const struct stage *s, const char *label,
                        const struct timing *t, double prev_ms, struct outcome *o)
{
    struct finding f;
    watch(p->lab->name, s);
    if (bench_csv) { /* make bench: where the sweep is */
        const char *variant = variant_name(p->lab, p->variant);
        fprintf(stderr, "\rbench: %s%s%s, %s = %s, stage %s\033[K", p->lab->name,
                variant ? " " : "", variant ? variant : "", p->cols ? "shape" : "n",
                size_text(p->n, p->cols), label);
    }
    if (problem_verify(p, s, &f))
        return time_stage_row(p, s, label, t, prev_ms);
    bench_row(p, label, "WRONG", 0, 0, 0, t->cpu_ms);
    print_row(&(struct row){.stage = label, .idea = s->idea, .check = "WRONG", .colour = RED});
    note_failure(p, s, &f, o);
    return 0;
}

/* What the table is of, and how its figures were taken. */
static void print_table_intro(const struct problem *p, const struct timing *t)
{
    const char *name = variant_name(p->lab, p->variant);
    printf("\n%s%s%s: %s\n", p->lab->name, name ? ", " : "", name ? name : "", p->lab->operation);
    printf("%s = %s, seed %llu, block %d, source %s\n", p->cols ? "rows x cols" : "n",
           size_text(p->n, p->cols), (unsigned long long)p->seed,
           p->block, LAB_SOURCE);
    printf("GPU: %s\n", gpu_description());
    const char *how = p->lab->reference_name;
    printf("CPU reference%s%s%s: %.3f ms (one core, median of %d)\n", how ? " (" : "",
           how ? how : "", how ? ")" : "", t->cpu_ms, t->cpu_reps);
    choose_columns(p->lab);
    if (gpu_emulated())
        printf("Times: one run of each, its check.\n");
    else
        printf("GPU times: median of %d runs after %d warm-up runs, CUDA events. GB/s: bytes "
               "that must move / time.\n",
               t->reps, t->warmup);
    if (gpu_emulated())
        printf("EMULATED on the CPU (EMU=1): the checks are real, but the times are CPU times,\n"
               "so no bandwidths or speedups are shown. N defaults to %s here.\n"
               "writes/elem: the bytes a stage stores into its outputs over their size, atomics\n"
               "counted: 1.00 writes each element once; a pass that goes back over the output\n"
               "adds 1; blocks that write one element twice are stopped as a race.\n"
               "Counted on one more launch, as a profiler counts on a GPU: sect/req, the 32-byte\n"
               "sectors of device memory a warp's load or store touches, and the ideal, the fewest\n"
               "that could hold the bytes it asks for; wavef/req, the wavefronts a warp's shared\n"
               "memory access takes (1.00: no bank conflict; 32: every lane in one bank); lanes %%,\n"
               "the lanes of a warp taking part. STAGE=n alone adds them line by line.\n\n",
               p->lab->matrix ? "2^10x2^10" : "2^20");
    else
        printf("vs CPU+: the CPU time over the GPU time including the copies of the stage's "
               "inputs in and outputs out (pinned memory).\n\n");
}

/* The column titles and the row every other is measured against. */
static void print_table_heading(const struct timing *t)
{
    bool emu = gpu_emulated();
    print_header(table_columns);
    print_row(&(struct row){.stage = "copy", .idea = "cudaMemcpy device to device (yardstick)",
                            .check = "-", .ms = t->copy_ms, .gbps = emu ? 0 : t->copy_gbps,
                            .share = emu ? 0 : 100});
}

/* The library's row, then each chosen stage's against the one before. */
static void run_stages(struct problem *p, const struct timing *t, const char *filter,
                       struct outcome *o)
{
    const struct lab *lab = p->lab;
    double prev_ms = 0;
    if (lab->library)
        o->library_ms = stage_row(p, lab->library, "lib", t, 0, o);
    for (const struct stage *s = lab->stages; s->id && gpu_healthy(); s++) {
        double ms = stage_selected(s, filter) ? stage_row(p, s, s->id, t, prev_ms, o) : 0;
        if (ms == 0)
            continue;
        if (!o->best || ms < o->best_ms) {
            o->best = s;
            o->best_ms = ms;
        }
        prev_ms = ms;
        if (lab->sweep_stage && stage_selected(s, lab->sweep_stage) && o->nsweeps < MAX_SWEEPS)
            o->sweeps[o->nsweeps++] = s;
    }
    unwatch();
}

static void print_table_end(const struct lab *lab, const struct outcome *o)
{
    print_rule(table_columns);
    if (!gpu_healthy())
        printf("(a stage left the GPU context unusable: the stages after it could not run in "
               "this process)\n");
    if (o->best && o->library_ms > 0 && !gpu_emulated())
        printf("best stage: %s at %.4f ms, %.2f times the library's time (%s)\n", o->best->id,
               o->best_ms, o->best_ms / o->library_ms, lab->library->idea);
    if (*o->failures)
        printf("\n%sWrong%s (make test LAB=%s STAGE=... says more):\n%s", RED, PLAIN, lab->name,
               o->failures);
}

/* Under the emulation, with one stage chosen and right: its loads and stores
 * by source line, from the launch its row counted, as a profiler's source
 * view shows them. */
static void print_line(const char *where, const struct access_counts *c, void *arg)
{
    static const char *const kind[ACCESS_KINDS] = {"global load", "global store", "shared load",
                                                   "shared store"};
    (void)arg;
    for (int k = 0; k < ACCESS_KINDS; k++) {
        char text[3][CELL];
        if (c->requests[k] > 0)
            printf("%-44s  %-12s  %10.0f  %7s  %5s  %7s\n", where, kind[k], c->requests[k],
                   per_request(text[0], c, k, k, 'u'), per_request(text[1], c, k, k, 'i'),
                   per_request(text[2], c, k, k, 'l'));
    }
}

static void print_line_counts(const struct lab *lab, const char *filter, const struct outcome *o)
{
    const struct stage *only = NULL;
    for (const struct stage *s = lab->stages; s->id; s++)
        if (filter && *filter && stage_selected(s, filter)) {
            if (only)
                return;
            only = s;
        }
    if (!only || o->best != only)
        return;
    printf("\nStage %s by source line, counted on one launch. per req: 32-byte sectors of device\n"
           "memory (global) or wavefronts (shared: the most words in one bank) a warp's request\n"
           "takes; ideal: the fewest that could serve the bytes it asks for.\n",
           only->id);
    printf("%-44s  %-12s  %10s  %7s  %5s  %7s\n", "line", "access", "requests", "per req", "ideal",
           "lanes %");
    problem_count_lines(print_line, NULL);
    print_line("all lines", &last_counts, NULL);
}

/* ---- the block-size sweep ------------------------------------------------- */

/* Resident threads per SM that a block shape allows (registers and shared
 * memory aside), and the share of lanes that do work in its warps. */
static void sweep_row(struct problem *p, const struct stage *s, int threads, double copy_gbps)
{
    int warps = (threads + 31) / 32;
    struct job j = {p, s};
    watch("the sweep of", s);
    double ms = time_gpu_ms(launch_once, &j, WARMUP, REPS), gbps = p->bytes / ms / 1e6;
    char text[7][CELL];
    const char *cells[] = {
        cell(text[0], "%d", threads),
        cell(text[1], "%d", warps),
        cell(text[2], "%.0f%%", 100.0 * threads / (32.0 * warps)),
        cell(text[3], "%d of %4d", gpu_resident_blocks(threads) * threads,
             gpu_max_threads_per_sm()),
        cell(text[4], "%.4f", ms),
        cell(text[5], "%.1f", gbps),
        cell(text[6], "%.1f%%", 100 * gbps / copy_gbps)};
    print_cells(sweep_columns, cells, NULL);
}

static void sweep(struct problem *p, const struct stage *s, double copy_gbps)
{
    static const int blocks[] = {32, 33, 64, 65, 96, 128, 192, 256, 257, 384, 512, 768, 1000, 1024};
    printf("\nBlock-size sweep of stage %s (%s), %s = %s:\n", s->id, s->idea,
           p->cols ? "rows x cols" : "n", size_text(p->n, p->cols));
    print_header(sweep_columns);
    int shown = 0; /* the threads of the row before */
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        if (blocks[k] > gpu_max_threads_per_block())
            continue;
        p->block = blocks[k];
        int threads = problem_threads(p, s);
        if (threads == shown)
            continue; /* the launcher rounds this BLOCK to the row before's */
        shown = threads;
        sweep_row(p, s, threads, copy_gbps);
    }
    unwatch();
    printf("block: the threads per block the launcher runs (it may round BLOCK to what its "
           "kernels need).\nthreads/SM: the most threads of this kernel an SM can hold at once, "
           "counting only the block limits\n(threads and blocks per SM), not registers or shared "
           "memory.\n");
}

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
static bool check_once(const struct lab *lab, int variant, const struct run_options *opt)
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
static bool dump_cases(const struct lab *lab, struct run_options *o)
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

/* ---- the technique record: counts that reach the grader sealed ---------- *
 *
 * In grading, the emulated driver that counts a stage runs the student's
 * code in its own process, so nothing it prints can be a verdict. Instead it
 * writes DIR/technique.txt: what it counted, as numbers, and a SipHash-2-4
 * tag over them under a key the grader wrote to ./technique.key for this run
 * alone. The driver reads and deletes that file before any constructor of
 * the student's file runs (.preinit_array, and driver.o is linked first);
 * the grader's own binary (technique=ID judge=DIR) checks the tag, judges
 * the counted run's outputs as it judges any case, and computes the verdict
 * and its sentence itself. A record that is missing counts as uncounted; one
 * without its right tag, or malformed, as forged: "review", never credit.
 * What the seal cannot stop is code that digs the key out of this process's
 * memory: that takes deliberate work, which a reviewer of the file sees. */
static const char RECORD[] = "technique.txt", RECORD_HEAD[] = "workbook technique record 1\n";
enum { COUNTS = sizeof(struct access_counts) / sizeof(double), RECORD_MAX = 16384 };
_Static_assert(sizeof(struct access_counts) == COUNTS * sizeof(double),
               "the record holds the counts as doubles");

static uint64_t le64(const unsigned char *b)
{
    uint64_t w = 0;
    for (int i = 7; i >= 0; i--)
        w = w << 8 | b[i];
    return w;
}
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
static void sip_round(uint64_t v[4])
{
    v[0] += v[1], v[1] = ROTL(v[1], 13) ^ v[0], v[0] = ROTL(v[0], 32);
    v[2] += v[3], v[3] = ROTL(v[3], 16) ^ v[2];
    v[0] += v[3], v[3] = ROTL(v[3], 21) ^ v[0];
    v[2] += v[1], v[1] = ROTL(v[1], 17) ^ v[2], v[2] = ROTL(v[2], 32);
}
/* SipHash-2-4 (Aumasson and Bernstein, 2012) of m under a 16-byte key */
static uint64_t siphash(const unsigned char key[16], const unsigned char *m, size_t len)
{
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
                     k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull};
    size_t whole = len - len % 8;
    uint64_t last = (uint64_t)len << 56;
    for (size_t i = 0; i < len % 8; i++)
        last |= (uint64_t)m[whole + i] << (8 * i);
    for (size_t i = 0; i <= whole; i += 8) {
        uint64_t w = i < whole ? le64(m + i) : last;
        v[3] ^= w;
        sip_round(v), sip_round(v);
        v[0] ^= w;
    }
    v[2] ^= 0xff;
    for (int r = 0; r < 4; r++)
        sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}
#undef ROTL

static bool hex_key(const char *hex, unsigned char key[16])
{
    for (int i = 0; i < 32; i++) {
        int c = hex[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return false;
        key[i / 2] = (unsigned char)(i % 2 ? key[i / 2] << 4 | d : d);
    }
    return hex[32] == '\0' || hex[32] == '\n';
}

static unsigned char seal_key[16];
static bool seal_given;
static void take_seal_key(void);
#if defined(__linux__)
/* Before any constructor: raw system calls, since no library (the race
 * detector's among them) is ready yet. */
__attribute__((section(".preinit_array"), used)) static void (*const seal_key_taker)(void) =
    take_seal_key;
/* Up to n bytes of the file at path, which is then removed: how many, or -1. */
static long take_file(const char *path, char *bytes, long n)
{
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long got = syscall(SYS_read, fd, bytes, n);
    syscall(SYS_close, fd);
    syscall(SYS_unlinkat, AT_FDCWD, path, 0);
    return got;
}
#else
/* Darwin has no .preinit_array: the first constructor, through the C
 * library (graders, who give keys, run on Linux). */
__attribute__((constructor(101))) static void seal_key_taker(void) { take_seal_key(); }
static long take_file(const char *path, char *bytes, long n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long got = read(fd, bytes, (size_t)n);
    close(fd);
    unlink(path);
    return got;
}
#endif
static void take_seal_key(void)
{
    char hex[33] = "";
    seal_given = take_file("technique.key", hex, 32) == 32 && hex_key(hex, seal_key);
    for (int i = 0; i < 32; i++)
        ((volatile char *)hex)[i] = 0;
}

/* Seals the record text[0..len) (room for RECORD_MAX) with the key, if one
 * was given, and writes it to DIR/NAME. */
static void write_sealed(char *text, int len, const char *dir, const char *name)
{
    if (seal_given && len > 0 && len < RECORD_MAX - 32)
        len += snprintf(text + len, RECORD_MAX - len, "seal %016llx\n",
                        (unsigned long long)siphash(seal_key, (unsigned char *)text, (size_t)len));
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "w");
    if (!out || len <= 0 || fwrite(text, 1, (size_t)len, out) != (size_t)len || fclose(out) != 0)
        die("%s: cannot write the record there", path);
}

/* Why text[0..len) (read into RECORD_MAX + 1 bytes) is not sealed under the
 * key, its last line the seal; NULL when it is, with *seal where that
 * line starts. */
static const char *seal_check(const unsigned char key[16], char *text, size_t len, char **seal)
{
    if (len >= RECORD_MAX || memchr(text, '\0', len))
        return "it is too long, or not text";
    text[len] = '\0';
    *seal = strstr(text, "\nseal ");
    if (!*seal)
        return "it has no seal";
    ++*seal;
    unsigned long long tag;
    char end;
    if (sscanf(*seal, "seal %16llx%c", &tag, &end) != 2 || end != '\n' ||
        *seal + strlen("seal ") + 17 != text + len)
        return "its seal line is malformed";
    if (tag != siphash(key, (unsigned char *)text, (size_t)(*seal - text)))
        return "its seal does not match what it holds";
    return NULL;
}

/* The text of DIR/NAME, a regular file, into text (RECORD_MAX + 1 bytes):
 * its length, or -1 when there is none. */
static long read_whole(const char *dir, const char *name, char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    FILE *in = lstat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
    if (!in)
        return -1;
    long len = (long)fread(text, 1, RECORD_MAX, in);
    fclose(in);
    return len;
}

/* The grader's key, from its environment's WORKBOOK_SEAL_KEY. */
static void grader_key(const char *what, const char *id, const char *dir, unsigned char key[16])
{
    const char *hex = getenv("WORKBOOK_SEAL_KEY");
    if (!hex || strlen(hex) != 32 || !hex_key(hex, key))
        die("%s=%s judge=%s: WORKBOOK_SEAL_KEY holds no key of 32 hex digits", what, id, dir);
}

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

static bool check_techniques(const struct lab *lab, const struct run_options *opt)
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
    snprintf(text, sizeof text, "%s", why ? why : "");
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

static bool time_stages(const struct lab *lab, const struct run_options *o)
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

/* ---- main ----------------------------------------------------------------- */

/* The run table of one variant. Returns false if a stage was wrong. */
static bool run_table(const struct lab *lab, int variant, const struct run_options *opt)
{
    struct problem *p = problem_new(lab, variant, opt->n, opt->cols, opt->seed, opt->block);
    struct timing t = time_baselines(p);
    bench_row(p, "copy", "-", t.copy_ms, t.copy_gbps, 1, t.cpu_ms);
    print_table_intro(p, &t);
    print_table_heading(&t);
    struct outcome o = {0};
    run_stages(p, &t, opt->stages, &o);
    print_table_end(lab, &o);
    if (gpu_emulated())
        print_line_counts(lab, opt->stages, &o);
    for (int k = 0; k < o.nsweeps && opt->sweep && gpu_healthy() && !gpu_emulated(); k++)
        sweep(p, o.sweeps[k], t.copy_gbps);
    if (gpu_healthy())
        problem_free(p);
    return !*o.failures;
}

int main(int argc, char *argv[])
{
    const struct lab *lab = workbook_lab;
    lab_check(lab);
    if (argc == 2 && strncmp(argv[1], "list=", 5) == 0)
        answer(lab, argv[1] + 5);
    struct run_options o = parse_options(argc, argv);
    setvbuf(stdout, NULL, _IOLBF, 0); /* rows already printed survive a time-out */
    signal(SIGALRM, on_alarm);
    signal(SIGPROF, on_alarm);

    char why[256];
    if (!gpu_present(why, sizeof why)) {
        printf("%s: no run table: no CUDA GPU here (%s). EMU=1 runs it on the CPU.\n", lab->name,
               why);
        return 1;
    }
    if (o.technique)
        return check_techniques(lab, &o) ? 0 : 1;
    if (o.time)
        return time_stages(lab, &o) ? 0 : 1;
    bool every = o.variant && strcmp(o.variant, "all") == 0;
    if (every)
        o.variant = NULL;
    int only = check_options(lab, &o);
    if (o.csv) {
        if (!o.variant && !every)
            only = 0; /* a sweep times one variant unless asked for more */
        if (!(bench_csv = fopen(o.csv, "a")))
            die("csv=%s: %s", o.csv, strerror(errno));
        if (fseek(bench_csv, 0, SEEK_END) == 0 && ftell(bench_csv) == 0)
            fputs(bench_columns, bench_csv);
    }
    if (o.all_cases)
        return dump_cases(lab, &o) ? 0 : 1;
    /* an emulated table's times are the CPU's, and its counts much the same
     * in every variant: the first's, unless VARIANT= says */
    if (gpu_emulated() && !o.once && !o.csv && !o.variant && !every && variant_count(lab) > 1) {
        only = 0;
        printf("EMU=1: the table of %s, the first of %d variants (VARIANT= picks another, "
               "VARIANT=all prints every one's).\n",
               variant_name(lab, 0), variant_count(lab));
    }
    bool ok = true;
    for (int v = 0; v < variant_count(lab) && gpu_healthy(); v++)
        if (only < 0 || v == only) {
            ok &= o.once ? check_once(lab, v, &o) : run_table(lab, v, &o);
            o.sweep = false; /* one sweep is enough */
        }
    return ok ? 0 : 1;
}
