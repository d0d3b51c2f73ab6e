/* run_table.c: make run's table: each stage checked once, then timed
 * against the copy, the library and the CPU reference; under the emulation,
 * counts instead of rates; and the block-size sweep. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"

/* ---- what is timed ------------------------------------------------------ */

void launch_once(void *ctx)
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

/* One row of the run table; a figure left 0 shows as "-". */
struct row {
    const char *stage, *idea, *check, *colour;
    double ms, rate, gbps, share, vs_prev, vs_cpu, vs_cpu_plus; /* rate: G items/s */
    double writes; /* emulation: stores per output element */
    const struct access_counts *counts; /* emulation: how its warps reach memory */
};

/* A column: its title; its width, negative to align left and cut text at
 * the width; whether the check's colour paints it (ok in green, WRONG in
 * red); and its cell from a row, written into CELL bytes of text when it is
 * a figure (NULL in the sweep, whose rows make their own cells). A table is
 * a list of columns, ended by NULL, so that each is written once. */
struct column {
    const char *title;
    int width;
    bool painted;
    const char *(*cell)(char *text, const struct row *r);
};

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

static const struct access_counts *counts_of(const struct row *r)
{
    static const struct access_counts none;
    return r->counts ? r->counts : &none;
}

static const char *stage_cell(char *t, const struct row *r) { return (void)t, r->stage; }
static const char *idea_cell(char *t, const struct row *r) { return (void)t, r->idea; }
static const char *check_cell(char *t, const struct row *r) { return (void)t, r->check; }
static const char *ms_cell(char *t, const struct row *r)
{
    return r->ms > 0 ? cell(t, "%.4f", r->ms) : "-";
}
static const char *rate_cell(char *t, const struct row *r)
{
    return r->rate > 0 ? cell(t, "%.2f", r->rate) : "-";
}
static const char *gbps_cell(char *t, const struct row *r)
{
    return r->gbps > 0 ? cell(t, "%.1f", r->gbps) : "-";
}
static const char *share_cell(char *t, const struct row *r)
{
    return r->share > 0 ? cell(t, "%.1f%%", r->share) : "-";
}
static const char *vs_prev_cell(char *t, const struct row *r) { return times(t, r->vs_prev); }
static const char *vs_cpu_cell(char *t, const struct row *r) { return times(t, r->vs_cpu); }
static const char *vs_cpu_plus_cell(char *t, const struct row *r)
{
    return times(t, r->vs_cpu_plus);
}
static const char *writes_cell(char *t, const struct row *r)
{
    return r->writes > 0 ? cell(t, "%.2f", r->writes) : "-";
}
static const char *sectors_cell(char *t, const struct row *r)
{
    return per_request(t, counts_of(r), GLOBAL_LOAD, GLOBAL_STORE, 'u');
}
static const char *ideal_cell(char *t, const struct row *r)
{
    return per_request(t, counts_of(r), GLOBAL_LOAD, GLOBAL_STORE, 'i');
}
static const char *wavefronts_cell(char *t, const struct row *r)
{
    return per_request(t, counts_of(r), SHARED_LOAD, SHARED_STORE, 'u');
}
static const char *lanes_cell(char *t, const struct row *r)
{
    return per_request(t, counts_of(r), GLOBAL_LOAD, SHARED_STORE, 'l');
}

/* The rate's title names the lab's items (lab->run.items: "keys" gives Gkeys/s). */
static char rate_title[CELL];
static const struct column stage_col = {"stage", -6, false, stage_cell},
    idea_col = {"idea", -42, false, idea_cell}, check_col = {"check", -5, true, check_cell},
    ms_col = {"time ms", 9, false, ms_cell}, rate_col = {rate_title, 8, false, rate_cell},
    gbps_col = {"GB/s", 7, false, gbps_cell}, share_col = {"% copy", 6, false, share_cell},
    vs_prev_col = {"vs prev", 7, false, vs_prev_cell},
    vs_cpu_col = {"vs CPU", 7, false, vs_cpu_cell},
    vs_cpu_plus_col = {"vs CPU+", 8, false, vs_cpu_plus_cell},
    writes_col = {"writes/elem", 11, false, writes_cell},
    sectors_col = {"sect/req", 8, false, sectors_cell},
    ideal_col = {"ideal", 5, false, ideal_cell},
    wavefronts_col = {"wavef/req", 9, false, wavefronts_cell},
    lanes_col = {"lanes %", 7, false, lanes_cell};

static const struct column *const run_columns[] = {
    &stage_col, &idea_col, &check_col, &ms_col, &gbps_col, &share_col,
    &vs_prev_col, &vs_cpu_col, &vs_cpu_plus_col, NULL};
/* The same with a rate after the time, for a lab that names its items. */
static const struct column *const run_columns_rate[] = {
    &stage_col, &idea_col, &check_col, &ms_col, &rate_col, &gbps_col, &share_col,
    &vs_prev_col, &vs_cpu_col, &vs_cpu_plus_col, NULL};
/* Under the emulation: the times are CPU times, and no rates or speedups
 * are shown, but it counts what a stage stores and how its warps reach
 * memory (problem_count_accesses). */
static const struct column *const emu_columns[] = {
    &stage_col, &idea_col, &check_col, &ms_col, &writes_col, &sectors_col,
    &ideal_col, &wavefronts_col, &lanes_col, NULL};
static const struct column *const *table_columns = run_columns;

/* The run table's columns for this lab, chosen once before it is printed. */
static void choose_columns(const struct lab *lab)
{
    table_columns = gpu_emulated() ? emu_columns : lab->run.items ? run_columns_rate : run_columns;
    if (lab->run.items)
        snprintf(rate_title, sizeof rate_title, "G%s/s", lab->run.items);
}

static const struct column block_col = {"block", 6, false, NULL},
    warps_col = {"warps", 6, false, NULL}, lanes_used_col = {"lanes used", 10, false, NULL},
    per_sm_col = {"threads/SM", 13, false, NULL};
static const struct column *const sweep_columns[] = {
    &block_col, &warps_col, &lanes_used_col, &per_sm_col, &ms_col, &gbps_col, &share_col, NULL};

static void print_cells(const struct column *const col[], const char *const cell[],
                        const char *colour)
{
    for (int c = 0; col[c]; c++) {
        int w = col[c]->width;
        bool painted = colour && col[c]->painted;
        printf("%s%s%*.*s%s", c ? "  " : "", painted ? colour : "", w, w < 0 ? -w : -1, cell[c],
               painted ? PLAIN : "");
    }
    putchar('\n');
}

static void print_rule(const struct column *const col[])
{
    for (int c = 0; col[c]; c++)
        printf("%s%.*s", c ? "  " : "", abs(col[c]->width),
               "----------------------------------------------------------------");
    putchar('\n');
}

static void print_header(const struct column *const col[])
{
    const char *titles[16];
    for (int c = 0; col[c]; c++)
        titles[c] = col[c]->title;
    print_cells(col, titles, NULL);
    print_rule(col);
}

static void print_row(const struct row *r)
{
    char text[16][CELL];
    const char *cells[16];
    for (int c = 0; table_columns[c]; c++)
        cells[c] = table_columns[c]->cell(text[c], r);
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
        bool counted = s != p->lab->run.library && problem_count_accesses(p, s, counts);
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
    bench_progress(p, label);
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
    const char *how = p->lab->run.reference_name;
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
    if (lab->run.library)
        o->library_ms = stage_row(p, lab->run.library, "lib", t, 0, o);
    for (const struct stage *s = lab->stages; s->id && gpu_healthy(); s++) {
        double ms = stage_selected(s, filter) ? stage_row(p, s, s->id, t, prev_ms, o) : 0;
        if (ms == 0)
            continue;
        if (!o->best || ms < o->best_ms) {
            o->best = s;
            o->best_ms = ms;
        }
        prev_ms = ms;
        if (lab->run.sweep_stage && stage_selected(s, lab->run.sweep_stage) && o->nsweeps < MAX_SWEEPS)
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
               o->best_ms, o->best_ms / o->library_ms, lab->run.library->idea);
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

bool run_table(const struct lab *lab, int variant, const struct run_options *opt)
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
