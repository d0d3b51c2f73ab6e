/* map_lab.c: the map lab as the tests and the driver see it: its inputs, its
 * CPU reference, the bytes each stage must move, and the bugs it knows. */
#include "workbook.h"
#include "technique.h"
#include "map.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const float A = 1.5f, B = -0.25f;

static void map_setup(struct problem *p)
{
    size_t n = p->n;
    struct buffer *in_buf = problem_add_input(p, "in", F32, n);
    struct buffer *aos_buf = problem_add_input(p, "aos", F32, 4 * n);
    struct buffer *soa_buf = problem_add_input(p, "soa", F32, 4 * n);
    /* the double-precision answer rounded to float, give or take a few ulps:
     * the GPU may fuse a*x+b into one rounding where the CPU rounds twice */
    struct buffer *out = problem_add_output(p, "out", F32, n, 1e-6, 1e-6);
    float *in = in_buf->host, *aos = aos_buf->host, *soa = soa_buf->host;

    fill_uniform_f32(in, n, p->seed, -1.0f, 1.0f);
    /* the particles' x is `in`, so every stage has the same answer; y, z and
     * w are other numbers, so reading the wrong field shows */
    memcpy(soa, in, n * sizeof *in);
    fill_uniform_f32(soa + n, 3 * n, p->seed + 1, -1.0f, 1.0f);
    for (size_t i = 0; i < n; i++)
        for (int f = 0; f < 4; f++)
            aos[4 * i + f] = soa[f * n + i];

    struct args *a = p->args;
    const float *d_soa = soa_buf->dev;
    a->out = out->dev;
    a->in = in_buf->dev;
    a->aos = aos_buf->dev;
    a->soa = (struct particles){d_soa, d_soa + n, d_soa + 2 * n, d_soa + 3 * n};
    a->n = n;
    a->a = A;
    a->b = B;
    p->bytes = 8.0 * n; /* every stage reads one float and writes one per element */
}

static void map_reference(struct problem *p)
{
    const float *in = problem_buffer(p, "in")->host;
    float *out = problem_buffer(p, "out")->host;
    for (size_t i = 0; i < p->n; i++)
        out[i] = (float)((double)A * in[i] + B);
}

/* What each stage reads, and how it moves its floats. */
struct facts {
    const char *id;
    const char *input; /* the input array it reads */
    bool float4s;      /* 16-byte float4s, then a scalar tail of n % 4 */
};
static const struct facts map_facts[] = {
    {"1", "in", false},   {"2", "in", false},  {"3", "in", true},
    {"4a", "aos", false}, {"4b", "soa", false}, {"5", "in", true},
    {NULL, NULL, false},
};

/* A block's values: a thread's one, or four in the float4 stages. */
static size_t map_tile(const struct stage *s, int block)
{
    return (facts(s)->float4s ? 4 : 1) * (size_t)block;
}

static bool map_reads(const struct stage *s, const struct buffer *b)
{
    return strcmp(b->name, facts(s)->input) == 0;
}

static bool near(float got, double want) { return fabs(got - want) <= 1e-6 + 1e-6 * fabs(want); }

/* The lanes (".y .z .w") wrong in every float4 of out and right in every
 * other, when some are each; else NULL. (A lane left unmapped still holds
 * a right value where 1.5 x - 0.25 rounds to x: one in 99 is let pass.) */
static const char *wrong_lanes(const struct problem *p, const struct buffer *b)
{
    static char names[16];
    const float *got = b->got, *want = b->host;
    size_t vectors = p->n / 4;
    int wrong = 0;
    for (int lane = 0; lane < 4 && vectors; lane++) {
        size_t count = 0;
        for (size_t v = 0; v < vectors; v++)
            count += !near(got[4 * v + lane], want[4 * v + lane]);
        if (count != 0 && count * 100 < vectors * 99)
            return NULL;
        wrong |= (count != 0) << lane;
    }
    if (wrong == 0 || wrong == 15)
        return NULL;
    names[0] = '\0';
    for (int lane = 0; lane < 4; lane++)
        if (wrong >> lane & 1)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s.%c",
                     *names ? " " : "", "xyzw"[lane]);
    return names;
}

static const char *map_hint(const struct problem *p, const struct stage *s,
                            const struct buffer *b, const struct mismatch *m)
{
    static char hint[256];
    const float *got = b->got, *x = problem_buffer(p, "in")->host,
                *soa = problem_buffer(p, "soa")->host;
    size_t i = m->first, n = p->n, vectors = n / 4;
    bool float4s = facts(s)->float4s;

    if (float4s && m->first >= 4 * vectors && n % 4) {
        snprintf(hint, sizeof hint,
                 n < 4 ? "nothing was written, and with n = %zu every element lies in the scalar "
                         "tail after the float4 part: is the tail missing, or is the stage still "
                         "a TODO?"
                       : "only the last n %% 4 = %zu elements are wrong: the scalar tail after "
                         "the float4 part is missing",
                 n % 4);
        return hint;
    }
    const char *lanes = float4s ? wrong_lanes(p, b) : NULL;
    if (lanes) {
        snprintf(hint, sizeof hint,
                 "lanes %s of every float4 are wrong, and the others right: a float4 has four "
                 "lanes (.x .y .z .w) and every one needs the operation",
                 lanes);
        return hint;
    }
    if (got[i] == x[i])
        return "out[i] equals in[i]: the element was copied but map_op was not applied";
    for (int f = 1; f < 4; f++)
        if (near(got[i], (double)A * soa[f * n + i] + B)) {
            snprintf(hint, sizeof hint, "out[%zu] is the map of field %c, not x: read .x", i,
                     "xyzw"[f]);
            return hint;
        }
    return NULL;
}

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/01-map.md. */
static const struct technique map_techniques[] = {
    {"1", {{0}}},
#define STRIDED                                                                             \
    {elements_per_launched_thread, AT_LEAST, 2, "each thread maps one element: no grid-stride " \
                                                "loop"}
/* float4s make one request of each kind per 128 elements; floats one per 32 */
#define VECTORS                                                                             \
    {load_requests_per_element, AT_MOST, 1.0 / 96, "the loads are not 16 bytes a thread"},   \
    {store_requests_per_element, AT_MOST, 1.0 / 96, "the stores are not 16 bytes a thread"}
    {"2", {STRIDED}},
    {"3", {VECTORS}},
    {"4a", {STRIDED}},
    {"4b",
     {STRIDED,
      {traffic, AT_MOST, 1.5, "it moves more than the x values it uses (the records, not the x "
                              "array)"}}},
    {"5",
     {VECTORS,
      {launches, AT_MOST, 1, "more than one kernel launched: one grid, sized from n, does the "
                             "work"},
      {elements_per_thread, AT_MOST, 8, "threads loop over many vectors: the grid is not sized "
                                        "from n"}}},
#undef STRIDED
#undef VECTORS
    {0},
};

const struct lab map_lab = {
    .name = "map",
    .operation = "out[i] = 1.5 * in[i] - 0.25 over floats",
    .stages = map_stages,
    .tile = map_tile,
    .args_size = sizeof(struct args),
    .setup = map_setup,
    .reference = LAB_REFERENCE(map_reference),
    .facts = map_facts,
    .facts_size = sizeof map_facts[0],
    .handout = "01-map",
    .run.sweep_stage = "1,2", /* the grid-stride loop beside the grid sized from n */
    .run.reads = map_reads,
    .diagnosis.hint = map_hint,
    .technique.rows = map_techniques,
    .technique.at = {"131075", 256},
};

const struct lab *const workbook_lab = &map_lab;
