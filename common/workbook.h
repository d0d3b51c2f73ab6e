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

#ifdef __cplusplus
extern "C" {
#endif

/* Each lab defines struct args in its own header: the device pointers and
 * sizes its kernels take. Common code only passes it along. */
struct args;

struct stage {
    const char *id;   /* "1", "2", "4a": what STAGE= selects */
    const char *idea; /* the one idea this stage adds */
    void (*launch)(const struct args *a, int block); /* block: threads per block */
};

enum elem { F32, I32, U32, U8, U16 }; /* U8, U16: inputs only (bytes, 16-bit values) */

enum role { INPUT, OUTPUT, SCRATCH }; /* SCRATCH: device only, poisoned, never compared */

struct buffer {
    const char *name;
    enum role role;
    enum elem type;
    size_t count;       /* elements */
    void *host;         /* INPUT: the data; OUTPUT: the CPU reference's answer */
    void *got;          /* OUTPUT: what the device wrote, after download */
    void *dev;          /* device copy, between two poisoned guard zones */
    void *dev_base, *got_base; /* where those allocations start: the guard before */
    double rtol, atol;  /* F32 outputs pass if |got - ref| <= atol + rtol*|ref| */
};

enum { MAX_BUFFERS = 8 };

struct problem {
    const struct lab *lab;
    int variant;       /* index into lab->variants */
    size_t n;
    uint64_t seed;
    int block;
    int nbuf;
    struct buffer buf[MAX_BUFFERS];
    struct args *args;
};

struct mismatch {
    size_t count;      /* elements that differ from the reference */
    size_t unwritten;  /* of those, how many still hold the poison */
    size_t first, last;
    double expected, got; /* at first */
};

struct lab {
    const char *name;       /* "map" */
    const char *operation;  /* one line for the table's title */
    const struct stage *stages;   /* the student's table, ends with {0} */
    /* Inputs or types every stage is checked and timed on ("int", "float"),
     * NULL-terminated; NULL for one unnamed variant. */
    const char *const *variants;
    /* The library's version of the operation (CUB), checked and timed in
     * the same run as the stages, or NULL. */
    const struct stage *library;
    const char *sweep_stage;      /* stage for the block-size sweep, or NULL */
    size_t args_size;             /* sizeof(struct args) */
    /* Declare buffers (problem_add_*), fill inputs from p->seed, point
     * p->args at the device buffers. */
    void (*setup)(struct problem *p);
    /* The CPU reference: fill every OUTPUT's host array. */
    void (*reference)(struct problem *p);
    /* Bytes a stage must move through device memory: inputs read once,
     * outputs written once. Effective bandwidth is this over kernel time. */
    double (*bytes)(const struct problem *p, const struct stage *s);
    /* Does stage s read buffer b? (to time only the copies it needs) */
    bool (*reads)(const struct stage *s, const struct buffer *b);
    /* What usually makes this lab's kernels wait forever, said when one
     * times out; NULL for the general advice. */
    const char *hang;
    /* A lab-specific explanation of a wrong output, or NULL. */
    const char *(*hint)(const struct problem *p, const struct stage *s,
                        const struct buffer *b, const struct mismatch *m);
};

/* ---- stages ------------------------------------------------------------ */
int stage_count(const struct lab *lab);
const struct stage *stage_find(const struct lab *lab, const char *id);
/* STAGE=4 selects 4a and 4b; STAGE=1 selects 1, never 10. */
bool stage_selected(const struct stage *s, const char *filter);
/* "1, 2, 3, 4a, 4b" */
const char *stage_list(const struct lab *lab);

/* ---- variants ---------------------------------------------------------- */
int variant_count(const struct lab *lab);   /* 1 when the lab has none */
const char *variant_name(const struct lab *lab, int v); /* NULL when unnamed */
int variant_find(const struct lab *lab, const char *name); /* -1 if none */

/* ---- problems (device side in workbook.cu) ----------------------------- */
struct problem *problem_new(const struct lab *lab, int variant, size_t n, uint64_t seed,
                            int block);
void problem_free(struct problem *p);
struct buffer *problem_add_input(struct problem *p, const char *name, enum elem type, size_t count);
struct buffer *problem_add_output(struct problem *p, const char *name, enum elem type, size_t count,
                                  double rtol, double atol);
/* Device memory a stage may use as it likes (partial results), poisoned
 * before every run so a read of what the stage never wrote shows. */
struct buffer *problem_add_scratch(struct problem *p, const char *name, enum elem type, size_t count);
void problem_upload(struct problem *p, const struct stage *s);   /* inputs the stage reads */
void problem_poison_outputs(struct problem *p);
void problem_download(struct problem *p);                        /* outputs into ->got */
/* Launch a stage and wait for it. On a CUDA error, write a message for the
 * student into msg and return false. */
bool problem_launch(struct problem *p, const struct stage *s, char *msg, size_t len);
/* Poison, launch, download, compare everything. true when all is right;
 * otherwise msg says what is wrong, where, and the likely cause. */
bool problem_verify(struct problem *p, const struct stage *s, char *msg, size_t len);

/* ---- checking (host only, check.c) ------------------------------------- */
#define POISON_WORD 0xFFBADBADu /* a NaN as float, an odd value as int */
size_t elem_size(enum elem type);
void fill_poison(void *data, size_t bytes);
bool is_poison(const void *data, size_t bytes);
/* Compare an output with its reference; false and *m filled when they differ. */
bool compare_output(const struct buffer *b, struct mismatch *m);
/* Index of the first byte where two copies differ, or (size_t)-1. */
size_t first_difference(const void *a, const void *b, size_t bytes);
/* Why a kernel of this lab may never finish: lab->hang, or the general advice.
 * The test time-out and the driver's alarm both say it. */
const char *hang_advice(const struct lab *lab);
/* "reduce stage 3 (sequential addressing), float, n = 1025, block 256, seed 5" */
const char *problem_title(const struct problem *p, const struct stage *s);
/* The whole failure report: stage, size, seed, where, expected and got, how
 * many, the most likely cause, how to reproduce. */
void describe_mismatch(const struct problem *p, const struct stage *s, const struct buffer *b,
                       const struct mismatch *m, char *msg, size_t len);

/* ---- random inputs from a seed ----------------------------------------- */
uint64_t rng_next(uint64_t *state);
void fill_uniform_f32(float *x, size_t n, uint64_t seed, float lo, float hi);
uint64_t seed_from_env(void); /* SEED, or one drawn from the clock and exported */

/* ---- sizes, GPUs, timing, errors --------------------------------------- */
/* Parse "1000", "2^28", "2^24+17"; false if it is none of these. */
bool parse_size(const char *text, size_t *out);
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
