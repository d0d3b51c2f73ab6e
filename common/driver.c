/* driver.c: `make run` for any lab: its options, list=, the time limit and
 * main (run_table.c: the table and sweep; judge.c: once=, technique=, time=;
 * seal.c: the grader's records' seal). Checks each stage once, then times it
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
 *   run list=stages|ideas|variants|shape|cases
 *
 * answers what scripts ask of the lab (the grader, make bench, make list,
 * the Classroom workflow), tab-separated, an item a line, touching no GPU.
 *
 * A lab with variants (reduce: int and float) gets one table each; a lab
 * with a library version (CUB) gets its row, checked and timed alongside.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "driver.h"

/* ---- options ------------------------------------------------------------ */

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
int check_options(const struct lab *lab, const struct run_options *o)
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
/* The idea in both wordings, for the check that pages quote them right. */
static void list_ideas(const struct lab *lab)
{
    for (const struct stage *s = lab->stages; s->id; s++)
        printf("%s\t%s\t%s\n", s->id, s->idea, s->teaches);
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
    {"stages", list_stages}, {"ideas", list_ideas}, {"variants", list_variants},
    {"shape", list_shape}, {"cases", list_cases},
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

void watch(const char *what, const struct stage *s)
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

void unwatch(void)
{
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    alarm(0);
}

/* ---- main ----------------------------------------------------------------- */

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
        bench_open(o.csv);
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
