/* workbook.h: what every lab shares, in C (nvcc and cc both read it).
 *
 *   stage    one row of a lab's stage table: id, idea, launcher
 *   lab      how a lab sets up a problem, computes the CPU answer and counts bytes
 *   problem  one size and seed of a lab: its buffers, host and device
 *
 * The driver (make run) and the tests (make test) only talk to these, so
 * every lab is run, checked and timed the same way.
 */
#ifndef WORKBOOK_H
#define WORKBOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "access_counts.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Each lab defines struct args in its own header: the device pointers and
 * sizes its kernels take. Common code only passes it along. */
struct args;

/* A stage is named here and nowhere else but by its id: its idea in a few
 * words for the run table's column, and in its handout's words, which the
 * technique's verdict quotes ("this stage's idea is ..."). */
struct stage {
    const char *id;   /* "1", "2", "4a": what STAGE= selects */
    const char *idea; /* the one idea this stage adds, in at most 42 characters */
    void (*launch)(const struct args *a, int block); /* block: threads per block */
    const char *teaches; /* the idea as its handout says it: "a private histogram
                            per block in shared memory" (NULL in the library's row) */
};

/* One size make grade judges every stage at: what N= takes ("100003",
 * "1000x999"), and the threads per block. */
struct grade_case {
    const char *size;
    int block;
};

struct technique;      /* technique.h: what a stage's kernel must show */
struct technique_case;

/* U8, U16: inputs only (bytes, 16-bit values); U64: scratch only (status words) */
enum elem { F32, I32, U32, U8, U16, U64 };

enum role { INPUT, OUTPUT, SCRATCH }; /* SCRATCH: device only, poisoned, never compared */

struct buffer {
    const char *name;
    enum role role;
    enum elem type;
    size_t count;       /* elements */
    size_t compared;    /* OUTPUT: the first elements compared; count unless the
                           lab's reference says fewer (the rest is the stage's) */
    void *host;         /* INPUT: the data; OUTPUT: the CPU reference's answer */
    void *got;          /* OUTPUT: what the device wrote, after download */
    void *dev;          /* device copy, between two poisoned guard zones */
    void *dev_base, *got_base; /* where those allocations start: the guard before */
    double rtol, atol;  /* F32 outputs pass if |got - ref| <= atol + rtol*|ref| */
    size_t cols;        /* a matrix's elements a row, so that reports name [row][col];
                           0 for a flat array */
};

enum { MAX_BUFFERS = 10 };

/* Did a run's kernels read an input? Only the emulation sees it: unknown on
 * a GPU, and where a run is judged from its dump. */
enum input_reads { READS_UNKNOWN, INPUTS_UNREAD, INPUTS_READ };

struct problem {
    const struct lab *lab;
    int variant;       /* index into lab->variants */
    size_t n;          /* elements; a matrix lab's are rows of cols */
    size_t cols;       /* a matrix lab's columns (rows = n / cols); 0 for the others */
    uint64_t seed;
    int block;         /* BLOCK as asked; lab->threads says what the launchers make of it */
    bool emulated;     /* EMU=1: the kernels run on the CPU, under the emulation's checks */
    double output_writes; /* bytes the last problem_verify stored into outputs (emulation) */
    enum input_reads inputs_read; /* by the last problem_verify's kernels */
    double launch_ms;  /* the last problem_run's launch, wall ms (emulation: a run table's time) */
    struct access_counts *counts; /* when set, the stage's own launches are counted into it
                                     (emulation; problem_count_accesses) */
    bool profiled;     /* make profile: only the stage's own launch is between
                          cudaProfilerStart and Stop, so ncu sees its kernels alone */
    int nbuf;
    struct buffer buf[MAX_BUFFERS];
    struct args *args;
    /* Bytes every stage must move through device memory (setup says):
     * inputs read once, outputs written once. Effective bandwidth is this
     * over kernel time. */
    double bytes;
};

struct mismatch {
    size_t count;      /* elements that differ from the reference */
    size_t unwritten;  /* of those, how many still hold the poison */
    size_t first, last;
    double expected, got; /* at first */
};

/* What problem_verify found, for report.c to put into words. */
enum verdict { RIGHT, KERNEL_FAILED, GUARD_WRITTEN, INPUT_CHANGED, OUTPUT_WRONG };

struct finding {
    enum verdict verdict;
    const struct buffer *buffer; /* the array concerned (not for KERNEL_FAILED) */
    long long index;   /* GUARD_WRITTEN: an element written outside the array, nearest
                          to it (negative: before it); INPUT_CHANGED: the first changed */
    struct mismatch mismatch;     /* OUTPUT_WRONG */
    const char *error_name;       /* KERNEL_FAILED: "cudaErrorIllegalAddress" */
    char error[2048];             /* KERNEL_FAILED: CUDA's words, or the emulation's report */
};

#ifdef WORKBOOK_GRADED
#define LAB_REFERENCE(f) NULL
#else
#define LAB_REFERENCE(f) f
#endif

/* A lab as the harness sees it (spec/<lab>/<lab>_lab.c fills it in). The
 * first part every lab gives (variants, threads, tile, normalize and facts
 * may be left out); each named section after it is optional, field by
 * field, and says which part of the kit reads it. */
struct lab {
    const char *name;       /* "map" */
    bool matrix;            /* sizes are ROWSxCOLS (N=1000x999), n = rows * cols */
    const char *operation;  /* one line for the table's title */
    const struct stage *stages;   /* the student's table, ends with {0} */
    /* Inputs or types every stage is checked and timed on ("int", "float"),
     * NULL-terminated; NULL for one unnamed variant. */
    const char *const *variants;
    /* The threads per block stage s runs when asked for BLOCK (launchers
     * round it to what their kernels need); NULL: BLOCK itself. */
    int (*threads)(const struct stage *s, int block);
    /* The values one block of stage s covers when asked for BLOCK (its
     * tile: threads times the values each takes; in a grid-stride loop,
     * one step of the block), or for a matrix lab the side of its square
     * tile. The tests fill the last tile to different fractions with it
     * (testing.h). NULL: a value a thread. */
    size_t (*tile)(const struct stage *s, int block);
    size_t args_size;             /* sizeof(struct args) */
    /* Declare buffers (problem_add_*), fill inputs from p->seed, point
     * p->args at the device buffers, say p->bytes. */
    void (*setup)(struct problem *p);
    /* The CPU reference: fill every OUTPUT's host array. LAB_REFERENCE(f),
     * which a graded build (GRADED=1) leaves out: there the process runs the
     * student's code, and must hold no answer it could copy. */
    void (*reference)(struct problem *p);
    /* Put what stage s wrote in b into the reference's form where the stage
     * may write another (an unordered append, compared as a multiset); NULL
     * when every output is compared as written. */
    void (*normalize)(const struct problem *p, const struct stage *s, struct buffer *b);
    /* What the lab's hooks know of each stage, in a struct of the lab's own:
     * a row for each stage of the table and one for the library, each
     * starting with the stage's id, then a row whose id is NULL. The hooks
     * ask stage_facts for a stage's row; lab_check refuses a table that
     * misses a stage. NULL: the hooks treat every stage alike. */
    const void *facts;
    size_t facts_size; /* one row's bytes */
    const char *handout; /* its handout, named in the technique's verdict: "03-histogram" */

    struct { /* ---- the run table (make run, make bench) ---------------- */
        /* The library's version of the operation (CUB), checked and timed
         * in the same run as the stages, or NULL. */
        const struct stage *library;
        const char *sweep_stage; /* stages for the block-size sweep ("1,2"), or NULL */
        /* Does stage s read input b? (to time only the copies it needs);
         * NULL: every stage reads every input. */
        bool (*reads)(const struct stage *s, const struct buffer *b);
        /* What n counts, when a rate says more than bandwidth ("keys": the
         * run table shows Gkeys/s beside the time); NULL for no rate column. */
        const char *items;
        /* The CPU reference's method, named in the run table ("LSD radix
         * sort, 8-bit digits"); NULL to leave it unnamed. */
        const char *reference_name;
    } run;

    struct { /* ---- the tests (make test) ------------------------------- */
        /* Under the CPU emulation, sizes above this check one variant (the
         * seed picks it; VARIANT= still picks one), so that a lab whose
         * stages make many passes stays quick there; 0: the tests' own
         * bound (testing.h), which leaves the largest size one variant. */
        size_t emulated_all_variants_up_to;
        /* The same on a GPU, where what costs is the host's share: inputs,
         * references and comparisons of many variants at the largest size. */
        size_t all_variants_up_to;
    } tests;

    struct { /* ---- the diagnosis of a wrong run (report.c) ------------- */
        /* A lab-specific explanation of a wrong output, or NULL. */
        const char *(*hint)(const struct problem *p, const struct stage *s,
                            const struct buffer *b, const struct mismatch *m);
        /* What usually makes this lab's kernels wait forever, said when one
         * times out; NULL for the general advice. */
        const char *hang;
        /* What else writes past the end of an output here (a value given a
         * place past it), said after the bounds test when a write lands
         * there; NULL for the bounds test alone. */
        const char *past_end;
        /* The outputs are the input's values moved, never computed (a sort,
         * a transpose): where the hint finds no cause, none is read from
         * arithmetic the stage never does (poison words added in, a formula). */
        bool moves_values;
        /* Does a wrong output hold only what stage s's launcher put there
         * before its kernels ran (a sum or count it set to 0), so that the
         * stage looks still a TODO? NULL: only an output never written
         * looks so. */
        bool (*untouched)(const struct problem *p, const struct stage *s,
                          const struct buffer *b, const struct mismatch *m);
    } diagnosis;

    struct { /* ---- grading (make grade) -------------------------------- */
        /* The sizes make grade judges each stage at, ended by {NULL}; NULL
         * for the workbook's own (lab_grade_cases). */
        const struct grade_case *cases;
    } grading;

    struct { /* ---- the technique: does a stage's kernel show its idea? -- */
        /* A row for each stage (traits may be empty), then {NULL}: what
         * each stage's kernel must show besides right outputs (lab_check
         * insists). */
        const struct technique *rows;
        /* The size techniques are counted at: a few tiles of every stage,
         * so that per-block facts are seen on many blocks. */
        struct grade_case at;
        const struct technique_case *elsewhere; /* stages counted at other sizes, then {NULL} */
    } technique;
};

/* The lab this program was built with (spec/<lab>/<lab>_lab.c defines it). */
extern const struct lab *const workbook_lab;

/* A lab's header declares its stage table and library row with this, so
 * the C++ that defines them and the C that reads them agree:
 *     LAB_EXPORT const struct stage map_stages[];                         */
#ifdef __cplusplus
#define LAB_EXPORT extern "C"
#else
#define LAB_EXPORT extern
#endif

/* ---- stages ------------------------------------------------------------ */
int stage_count(const struct lab *lab);
const struct stage *stage_find(const struct lab *lab, const char *id);
/* Stage s's row of lab->facts (s may be the library); dies if there is none. */
const void *stage_facts(const struct lab *lab, const struct stage *s);
/* Dies, saying what to mend, unless the lab's tables agree: stage ids
 * unique, a facts row for each stage and the library and none for another
 * stage, and grading cases of the lab's shape. Run before anything else. */
void lab_check(const struct lab *lab);
/* The sizes make grade judges each stage at (lab->grading.cases, or the
 * workbook's own), ended by {NULL}. */
const struct grade_case *lab_grade_cases(const struct lab *lab);
#ifndef __cplusplus
/* In a lab's C file, which completes `struct facts` (the rows of its
 * lab->facts): stage s's row. */
struct facts;
static inline const struct facts *facts(const struct stage *s)
{
    return stage_facts(workbook_lab, s);
}
#endif
/* STAGE=4 selects 4a and 4b; STAGE=1 selects 1, never 10; STAGE=2,3 both. */
bool stage_selected(const struct stage *s, const char *filter);
/* "1, 2, 3, 4a, 4b" */
const char *stage_list(const struct lab *lab);

/* ---- variants ---------------------------------------------------------- */
int variant_count(const struct lab *lab);   /* 1 when the lab has none */
const char *variant_name(const struct lab *lab, int v); /* NULL when unnamed */
int variant_find(const struct lab *lab, const char *name); /* -1 if none */

/* ---- problems (device side in workbook.cu) ----------------------------- */
/* cols: a matrix lab's columns (n = rows * cols), 0 for the others */
struct problem *problem_new(const struct lab *lab, int variant, size_t n, size_t cols,
                            uint64_t seed, int block);
void problem_free(struct problem *p);
struct buffer *problem_add_input(struct problem *p, const char *name, enum elem type, size_t count);
struct buffer *problem_add_output(struct problem *p, const char *name, enum elem type, size_t count,
                                  double rtol, double atol);
/* Device memory a stage may use as it likes (partial results), poisoned
 * before every run so a read of what the stage never wrote shows. */
struct buffer *problem_add_scratch(struct problem *p, const char *name, enum elem type, size_t count);
/* The buffer setup named `name` (a lab's reference and hints find theirs so). */
struct buffer *problem_buffer(const struct problem *p, const char *name);
void problem_upload(struct problem *p, const struct stage *s);   /* inputs the stage reads */
void problem_poison_outputs(struct problem *p);
void problem_download(struct problem *p);                        /* outputs into ->got */
/* Does a problem of size n fit in this machine's memory (and its GPU's)?
 * If not, why, with an estimate, before anything large is allocated. */
bool problem_fits(const struct lab *lab, int variant, size_t n, size_t cols, char *why,
                  size_t len);
/* Poison, launch, download, compare everything: guards, inputs, outputs.
 * true when all is right; otherwise *f says what is wrong and where. */
bool problem_verify(struct problem *p, const struct stage *s, struct finding *f);
/* Its first half: poison, launch, with no verdict (what a dump runs, so the
 * process running student code needs no CPU reference). False when the
 * launch itself failed (*f says how). */
bool problem_run(struct problem *p, const struct stage *s, struct finding *f);
/* Grading (grading/grade.sh): problem_dump writes every buffer's whole device
 * allocation, guards included, to DIR/<name>.bin after a problem_run, in
 * the process that ran the student's kernels; problem_judge, in a process
 * that never runs them, rebuilds the problem from the same seed and judges
 * those files as problem_verify judges a launch. */
void problem_dump(const struct problem *p, const char *dir);
void problem_dump_failure(const struct finding *f, const char *dir);
bool problem_judge(struct problem *p, const struct stage *s, const char *dir, struct finding *f);
/* Under the emulation, how many times the last problem_verify stored each
 * byte of the outputs, on average (atomics count): 1.0 when each element is
 * written once. 0 on a GPU, which does not count. */
double problem_output_writes(const struct problem *p);
/* Under the emulation, what a profiler would count of a stage's memory
 * accesses on one more launch (access_counts.h; common/emu/counts.cpp):
 * problem_count_lines then gives them by source line, in line order. */
bool problem_count_accesses(struct problem *p, const struct stage *s, struct access_counts *c);
void problem_count_lines(void (*line)(const char *where, const struct access_counts *c, void *arg),
                         void *arg);
/* The same around any launches (the emulation's own tests). */
void access_counts_begin(void);
void access_counts_end(struct access_counts *c);

/* ---- checking (host only: lab.c, diagnose.c, report.c) ------------------ */
size_t elem_size(enum elem type);
void fill_poison(void *data, size_t bytes);
bool is_poison(const void *data, size_t bytes);
/* Compare an output with its reference; false and *m filled when they differ. */
bool compare_output(const struct buffer *b, struct mismatch *m);
/* Index of the first byte where two copies differ, or (size_t)-1. */
size_t first_difference(const void *a, const void *b, size_t bytes);
/* Why a kernel of this lab may never finish: lab->diagnosis.hang, or the general advice.
 * The test time-out and the driver's alarm both say it. */
const char *hang_advice(const struct lab *lab);
/* The threads per block stage s runs in this problem (lab->threads). */
int problem_threads(const struct problem *p, const struct stage *s);
/* "reduce stage 3 (sequential addressing), float, n = 1025, block 256, seed 5" */
const char *problem_title(const struct problem *p, const struct stage *s);
/* A failure report as data: what a wrong run found, made in the process
 * that ran it (a test's child) and grouped in another (the test runner),
 * which reads its fields and never its sentences. No pointers, so it
 * travels as report_encode's text. Every field is cut to fit, never
 * through a UTF-8 character. */
struct report {
    int variant;           /* index into lab->variants (0 when the lab has none) */
    bool untouched;        /* the wrong output was never written, or holds only what
                              the launcher put there (lab->diagnosis.untouched): still a TODO? */
    char title[400];       /* problem_title() */
    char what[2560];       /* what is wrong and where, one or more lines */
    char cause[512];       /* the likely cause, or "" when the data show none */
    char way[256];         /* the cause (else what's first line) with every number
                              masked: reports of equal ways are one bug */
    char reproduce[400];   /* reproduce_command() */
};
/* report_encode's text of any report fits in this many bytes. */
enum { REPORT_CODE_SIZE = 2 * sizeof(struct report) + 128 };
/* The report of what problem_verify (or problem_judge) found on stage s. */
void report_make(const struct problem *p, const struct stage *s, const struct finding *f,
                 struct report *r);
/* The report in words, the only place its sentences and layout are
 * written. The body: what is wrong (expected and got, how many), the
 * likely cause and the command that repeats the run, two spaces in, with
 * no newline at its end; the text: the title, ":", a newline, the body. */
int report_body(const struct report *r, char *msg, size_t len);
int report_text(const struct report *r, char *msg, size_t len);
/* Why, in one line: the cause, else the first line of what. Returns line. */
const char *report_why(const struct report *r, char *line, size_t len);
/* The report as versioned lines of text, for a Criterion message (and the
 * JUnit, JSON or TAP file it goes into), and back: a line naming the
 * version, a "key: value" line a field in the struct's order, '\' and
 * newline in values written \\ and \n, and "end". For example
 *     workbook report 1
 *     variant: 0
 *     untouched: 0
 *     title: map stage 1 (one thread per element), n = 1025, block 256, seed 1
 *     what: out[1024]: expected 0.5, got the poison value (never written)\n1 of 1025 ...
 *     cause: every element from index 1024 to the end was never written: ...
 *     way: every element from index # to the end was never written: ...
 *     reproduce: make test LAB=map STAGE=1 SEED=1 EMU=1
 *     end
 * report_encode returns the length the text needs, as snprintf does (any
 * report's fits in REPORT_CODE_SIZE); report_decode accepts nothing else:
 * another version, a line out of place, an unknown escape, a value too
 * long for its field, a cut. */
int report_encode(const struct report *r, char *out, size_t len);
bool report_decode(const char *text, struct report *r);
/* A test stopped at its time limit, as data: made in the test's process
 * (testing.c), put into words by the runner (test_report.c), carried as a
 * Criterion message of one versioned line, for example
 *     workbook time-out 1: limit 30 s, after 30.1 s, CPU 4.2 s, load 13.90 on 2 cores
 * time_out_decode accepts nothing else. */
struct time_out {
    double limit; /* the test's limit, seconds on the clock */
    double clock; /* seconds it had run when it was stopped */
    double cpu;   /* seconds of CPU time it had, all its threads together */
    double load;  /* the machine's load average over the last minute (-1: unknown) */
    int cores;    /* the machine's */
};
int time_out_encode(const struct time_out *t, char *out, size_t len);
bool time_out_decode(const char *text, struct time_out *t);
/* "make test LAB=reduce STAGE=3 SEED=5 VARIANT=float EMU=1": the settings
 * that repeat this problem's run (WORKBOOK_MAKE_ARGS adds the Makefile's
 * own, such as SUBMISSION=). */
const char *reproduce_command(const struct problem *p, const struct stage *s);
/* What a wrong output usually means when the numbers say it for any lab: a
 * poisoned word read, nothing written, the tail never reached. NULL when
 * the data show none of these. */
const char *read_poison_hint(const struct problem *p, const struct buffer *b,
                             const struct mismatch *m);

/* ---- colour: escape codes on a terminal, none in a pipe or with NO_COLOR */
bool colour_on(void);
const char *paint(const char *code); /* code, or "" when colour is off */
#define RED paint("\33[1;31m")
#define GREEN paint("\33[32m")
#define YELLOW paint("\33[1;33m")
#define BOLD paint("\33[1m")
#define PLAIN paint("\33[0m")

/* ---- random inputs from a seed ----------------------------------------- */
uint64_t rng_next(uint64_t *state);
void fill_uniform_f32(float *x, size_t n, uint64_t seed, float lo, float hi);
uint64_t seed_from_env(void); /* SEED, or one drawn from the clock and exported */

/* ---- sizes, GPUs, timing, errors --------------------------------------- */
/* Parse "1000", "2^28", "2^24+17"; false if it is none of these. */
bool parse_size(const char *text, size_t *out);
/* Parse a matrix's "ROWSxCOLS", each side as parse_size reads it
 * ("1000x999", "2^14x2^14"); false if it is not that. */
bool parse_shape(const char *text, size_t *rows, size_t *cols);
/* What the student chose, N, BLOCK and SEED (run's n=, block=, seed=, or
 * make's environment), as make run and make test both read it: each
 * mistake dies in one sentence, so that both refuse it alike. A NULL or
 * empty text keeps c's default, but the seed's: one is drawn, as
 * seed_from_env draws it. BLOCK's bound is the GPU's: gpu_check_block. */
struct choices {
    size_t n, cols; /* n elements, a matrix lab's in rows of cols (0 for the others) */
    int block;      /* threads a block */
    uint64_t seed;
};
void choices_read(const struct lab *lab, const char *n, const char *block, const char *seed,
                  struct choices *c);
/* NAME=text as a whole number up to max, or die: "NAME=text: expected". */
unsigned long long whole_number(const char *name, const char *text, unsigned long long max,
                                const char *expected);
/* "1000003", or "1000x999" for n elements in rows of cols (cols > 0) */
const char *size_text(size_t n, size_t cols);
/* Is there a usable CUDA GPU? If not, why in one line. Touches CUDA. */
bool gpu_present(char *why, size_t len);
/* The same question asked in a child process, so the caller never touches
 * CUDA: a CUDA context does not survive fork(), and Criterion forks. */
bool gpu_present_forked(char *why, size_t len);
/* "NVIDIA H100 80GB HBM3, 132 SMs, sm_90, CUDA 13.0" */
const char *gpu_description(void);
/* true under EMU=1: kernels run on the CPU, and times are CPU times */
bool gpu_emulated(void);
int gpu_sm_count(void);
int gpu_max_threads_per_block(void);
/* Die unless a block of `block` threads fits this GPU; the _forked one asks
 * in a child process, as gpu_present_forked does. */
void gpu_check_block(int block);
void gpu_check_block_forked(int block);
int gpu_max_threads_per_sm(void);
/* Blocks of `block` threads one SM can hold, by the block limits alone. */
int gpu_resident_blocks(int block);
/* false once a kernel fault has left the CUDA context unusable */
bool gpu_healthy(void);
/* Median milliseconds of `reps` timed calls after `warmup` untimed ones,
 * each call bracketed by CUDA events. */
double time_gpu_ms(void (*work)(void *ctx), void *ctx, int warmup, int reps);
double time_cpu_ms(void (*work)(void *ctx), void *ctx, int reps);
/* Device-to-device cudaMemcpy of `bytes`: median milliseconds. */
double time_copy_ms(size_t bytes, int reps);
double now_ms(void);
double median(double *v, int n);
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));

#ifdef __cplusplus
}
#endif
#endif
