/* reduce_lab.c: the reduce lab as the tests and the driver see it: its
 * inputs, its CPU reference, the bytes each stage must move, and the bugs it
 * knows. Two variants: ints, summed exactly, and floats, against a sum in
 * double precision. */
#include "workbook.h"
#include "reduce.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

extern const struct stage reduce_stages[];
extern const struct stage reduce_library;

enum { INT_VARIANT, FLOAT_VARIANT };
enum { IN, OUT, PARTIAL }; /* the order reduce_setup adds buffers in */

static void reduce_setup(struct problem *p)
{
    size_t n = p->n;
    bool ints = p->variant == INT_VARIANT;
    enum elem type = ints ? I32 : F32;
    struct buffer *in = problem_add_input(p, "in", type, n);
    /* ints: small, of both signs, so that the sum is exact and nothing
     * overflows; floats: the sum's rounding error grows with the sum of
     * the magnitudes, so the tolerance does too */
    double magnitude = 0;
    if (ints) {
        uint64_t state = p->seed;
        int *x = in->host;
        for (size_t i = 0; i < n; i++)
            x[i] = (int)(rng_next(&state) % 19) - 9;
    } else {
        float *x = in->host;
        fill_uniform_f32(x, n, p->seed, -1.0f, 1.0f);
        for (size_t i = 0; i < n; i++)
            magnitude += fabs(x[i]);
    }
    problem_add_output(p, "sum", type, 1, 0, 1e-6 * magnitude + 1e-6);
    problem_add_scratch(p, "partial", type, 2 * (n / 32 + 1));

    struct args *a = p->args;
    a->type = type;
    a->in = p->buf[IN].dev;
    a->out = p->buf[OUT].dev;
    a->partial = p->buf[PARTIAL].dev;
    a->n = n;
}

/* The simplest loop, in a wider type: exact for ints (then wrapped to 32
 * bits, as the GPU's adds wrap), and near-exact for floats. */
static void reduce_reference(struct problem *p)
{
    size_t n = p->n;
    if (p->variant == INT_VARIANT) {
        const int *x = p->buf[IN].host;
        long long sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += x[i];
        *(int *)p->buf[OUT].host = (int)(unsigned)sum;
    } else {
        const float *x = p->buf[IN].host;
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += x[i];
        *(float *)p->buf[OUT].host = (float)sum;
    }
}

static double reduce_bytes(const struct problem *p, const struct stage *s)
{
    (void)s; /* read every value once; the one result is too small to count */
    return 4.0 * p->n;
}

static bool reduce_reads(const struct stage *s, const struct buffer *b)
{
    (void)s;
    return strcmp(b->name, "in") == 0;
}

static const char *reduce_hint(const struct problem *p, const struct stage *s,
                               const struct buffer *b, const struct mismatch *m)
{
    (void)p;
    (void)b;
    (void)m;
    if (strcmp(s->id, "4") >= 0 && strcmp(s->id, "7") < 0)
        return "stages 4-6 sum 2 * blockDim.x values per block: check the second load "
               "(in[i + blockDim.x]) and its bounds test";
    return NULL;
}

static int reduce_threads(const struct stage *s, int block)
{
    (void)s;
    return tree_block(block);
}

static const char *const reduce_variants[] = {"int", "float", NULL};

const struct lab reduce_lab = {
    .name = "reduce",
    .operation = "the sum of n values",
    .stages = reduce_stages,
    .variants = reduce_variants,
    .library = &reduce_library,
    .sweep_stage = "8",
    .threads = reduce_threads,
    .args_size = sizeof(struct args),
    .setup = reduce_setup,
    .reference = reduce_reference,
    .bytes = reduce_bytes,
    .reads = reduce_reads,
    .hint = reduce_hint,
};

const struct lab *const workbook_lab = &reduce_lab;
