/* reduce_lab.c: the reduce lab as the tests and the driver see it: its
 * inputs, its CPU reference, the bytes each stage must move, and the bugs it
 * knows. Two variants: ints, summed exactly, and floats, against a sum in
 * double precision. */
#include "workbook.h"
#include "technique.h"
#include "reduce.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { INT_VARIANT, FLOAT_VARIANT };

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
    struct buffer *sum = problem_add_output(p, "sum", type, 1, 0, 1e-6 * magnitude + 1e-6);
    struct buffer *partial = problem_add_scratch(p, "partial", type, 2 * (n / 32 + 1));

    struct args *a = p->args;
    a->type = type;
    a->in = in->dev;
    a->out = sum->dev;
    a->partial = partial->dev;
    a->n = n;
    p->bytes = 4.0 * n; /* every value read once; the one result is too small to count */
}

/* in[i] of either variant, as a double. */
static double value(const struct problem *p, const void *in, size_t i)
{
    return p->variant == INT_VARIANT ? ((const int *)in)[i] : ((const float *)in)[i];
}

/* The simplest loop, in a wider type: exact for ints (then wrapped to 32
 * bits, as the GPU's adds wrap), and near-exact for floats. */
static void reduce_reference(struct problem *p)
{
    size_t n = p->n;
    if (p->variant == INT_VARIANT) {
        const int *x = problem_buffer(p, "in")->host;
        long long sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += x[i];
        *(int *)problem_buffer(p, "sum")->host = (int)(unsigned)sum;
    } else {
        const float *x = problem_buffer(p, "in")->host;
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += x[i];
        *(float *)problem_buffer(p, "sum")->host = (float)sum;
    }
}

/* ---- the bugs this lab knows: the sum is redone as each would do it ------ */

/* Which of a block's values a tree with one of the usual bugs adds in. In
 * stages 4-6 a thread holds two values, `threads` apart. */
enum tree_bug { FIRST_HALF_OF_THREADS, EVEN_THREADS, FIRST_VALUES, OVERLAPPING_BLOCKS };

static bool kept(enum tree_bug bug, size_t position, size_t threads)
{
    size_t thread = position % threads;
    return bug == FIRST_HALF_OF_THREADS ? thread < threads / 2
         : bug == EVEN_THREADS          ? thread % 2 == 0
         : bug == FIRST_VALUES          ? position < threads
                                        : true;
}

/* The sum the stage's passes give when every block adds only what `bug`
 * keeps of its `span` values: pass after pass, as reduce_in_passes runs
 * them, until one block is left (first_pass_only: the passes after the
 * first add all they are given). With OVERLAPPING_BLOCKS, block b starts at
 * b * threads instead of b * span. NAN if memory is short. */
static double sum_with_bug(const struct problem *p, enum tree_bug bug, size_t span, size_t threads,
                           bool first_pass_only)
{
    size_t n = p->n;
    const void *in = problem_buffer(p, "in")->host;
    double *level = malloc((n ? n : 1) * sizeof *level);
    if (!level)
        return NAN;
    for (size_t i = 0; i < n; i++)
        level[i] = value(p, in, i);
    size_t blocks;
    bool first = true;
    do {
        blocks = (n + span - 1) / span;
        size_t stride = bug == OVERLAPPING_BLOCKS ? threads : span;
        for (size_t b = 0; b < blocks; b++) {
            double sum = 0;
            for (size_t k = 0; k < span && b * stride + k < n; k++)
                sum += (first_pass_only && !first) || kept(bug, k, threads) ? level[b * stride + k]
                                                                            : 0;
            level[b] = sum; /* b * stride >= b: nothing unread is overwritten */
        }
        n = blocks;
        first = false;
    } while (blocks > 1);
    double sum = p->n ? level[0] : 0;
    free(level);
    return sum;
}

/* Is `got` what a candidate computation gives, and not the right answer? */
static bool explains(const struct problem *p, const struct buffer *b, const struct mismatch *m,
                     double candidate)
{
    if (p->variant == INT_VARIANT)
        return (int32_t)(int64_t)candidate == (int32_t)m->got && m->got != m->expected;
    return fabs(candidate - m->got) <= b->atol && fabs(candidate - m->expected) > b->atol;
}

/* How each stage sums: which of the usual bugs its sum can show. */
struct facts {
    const char *id;
    unsigned leaves; /* a block tree's leaves a thread fills (stages 4-6 add two values while
                        loading, stage 7 a grid-stride sum); 0: no tree whose bugs the sum
                        shows */
    bool shuffles;   /* warp shuffles, 16-byte loads, an atomicAdd a block into a zeroed sum */
    /* Stage 7: thread i % blockDim.x holds in[i] in its grid-stride sum, and then one block
     * adds the grid's sums. The grid is the GPU's to choose, so a tree's bug is redone on
     * the two grids whose sums are known: a block a tile (where the GPU holds that many at
     * once, as at small n), as in stages 1-6, and a grid no larger than the threads the bug
     * keeps first, whose second pass loses nothing (blockDim.x / 2 for the first half). */
    bool grid_stride;
};
static const struct facts reduce_facts[] = {
    {"1", 1, false, false}, {"2", 1, false, false}, {"3", 1, false, false},
    {"4", 2, false, false}, {"5", 2, false, false}, {"6", 2, false, false},
    {"7", 1, false, true},  {"8", 0, true, false},  {"lib", 0, false, false},
    {NULL, 0, false, false},
};

/* Stage 8's launcher sets the sum to 0 before its blocks add into it. */
static bool reduce_untouched(const struct problem *p, const struct stage *s,
                             const struct buffer *b, const struct mismatch *m)
{
    (void)p, (void)b;
    return facts(s)->shuffles && m->got == 0 && m->expected != 0;
}

/* Under the emulation, which stops a race on shared memory or between
 * blocks at once: what a wrong sum with no race and no poison in it says,
 * and what else to check. */
static const char *no_race(const char *also)
{
    static char hint[256];
    snprintf(hint, sizeof hint,
             "the sum is wrong, and the emulation saw no race in this run, so no add was lost "
             "to one: check which values each thread adds (where its loops start, how far "
             "they step, their bounds) and %s",
             also);
    return hint;
}

/* A tree's rungs, in order: the first bug that gives the wrong sum names
 * the cause and the fix. A new bug is a tree_bug (kept says what it keeps)
 * and a row. */
static const struct tree_rung {
    enum tree_bug bug;
    bool two_values; /* only where a thread adds two values while loading (stages 4-6) */
    const char *says;
} tree_rungs[] = {
    {FIRST_HALF_OF_THREADS, false,
     "each block's sum holds the values of its first blockDim.x / 2 threads only: the tree's "
     "step with s = blockDim.x / 2 never ran. Check where the loop over s starts and where it "
     "stops"},
    {EVEN_THREADS, false,
     "each block's sum holds the values of its even threads only: the tree's step with s = 1 "
     "never ran. Check where the loop over s starts and where it stops"},
    {FIRST_VALUES, true,
     "each thread added only its first value, in[i]: in stages 4-6 it adds in[i + blockDim.x] "
     "as well while loading (when that is below n)"},
    {OVERLAPPING_BLOCKS, true,
     "the blocks' values overlap, so some are added twice: a block covers 2 * blockDim.x "
     "values, so it starts at blockIdx.x * 2 * blockDim.x"},
};

static const char *reduce_hint(const struct problem *p, const struct stage *s,
                               const struct buffer *b, const struct mismatch *m)
{
    static char hint[400];
    size_t threads = (size_t)tree_block(p->block), span = facts(s)->leaves * threads;
    if (facts(s)->shuffles) {
        if (reduce_untouched(p, s, b, m))
            return "the sum is still the 0 that stage 8's launcher starts it from: no block "
                   "added its part (atomicAdd(out, ...)). Is the stage still a TODO?";
        const void *in = problem_buffer(p, "in")->host;
        double head = 0;
        for (size_t i = 0; i < p->n / 4 * 4; i++)
            head += value(p, in, i);
        if (p->n % 4 && explains(p, b, m, head)) {
            snprintf(hint, sizeof hint,
                     "the sum leaves out the last n %% 4 = %zu values: the 16-byte loads stop at "
                     "n / 4 * 4, and the values after them need a loop of their own",
                     p->n % 4);
            return hint;
        }
        if (m->unwritten || read_poison_hint(p, b, m))
            return NULL;
        if (p->emulated)
            return no_race("warp_sum");
        return "the sum is wrong. If it changes from run to run (repeat the reproduce line), "
               "threads race: warp totals read before a __syncthreads() made them ready, or "
               "blocks adding into the sum without atomicAdd (EMU=1 names a race on shared "
               "memory); if not, check warp_sum and which values each thread reads";
    }
    for (size_t k = 0; span && k < sizeof tree_rungs / sizeof tree_rungs[0]; k++)
        if ((!tree_rungs[k].two_values || facts(s)->leaves == 2) &&
            (explains(p, b, m, sum_with_bug(p, tree_rungs[k].bug, span, threads, false)) ||
             (facts(s)->grid_stride &&
              explains(p, b, m, sum_with_bug(p, tree_rungs[k].bug, span, threads, true)))))
            return tree_rungs[k].says;
    /* stages 1-6: report.c's general hints; stage 7: where its loop starts and steps */
    if (span && !facts(s)->grid_stride)
        return NULL;
    return p->emulated && !m->unwritten && !read_poison_hint(p, b, m) ? no_race("the tree") : NULL;
}

static int reduce_threads(const struct stage *s, int block)
{
    (void)s;
    return tree_block(block);
}

/* A block's values: stages 4-6 add two a thread as they load, stage 8
 * loads four at once; the others take one a thread (stage 7 a step). */
static size_t reduce_tile(const struct stage *s, int block)
{
    unsigned values = facts(s)->leaves ? facts(s)->leaves : facts(s)->shuffles ? 4 : 1;
    return values * (size_t)tree_block(block);
}

static const char *const reduce_variants[] = {"int", "float", NULL};

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/02-reduce.md. Extra work only
 * adds requests, bank conflicts, barriers, shuffles and atomics, so each
 * cost is bounded per value summed (over n, which no kernel moves); where a
 * mechanism must be there (stage 8's shuffles), its least count goes with a
 * bound on the cost it replaces. Each bound sits between the stage's figure
 * and that of the idea it replaces, at the technique case (n = 131075,
 * blocks of 256, 2 SMs), which WORKBOOK_FIGURES=1
 * build/emu/solutions/reduce/run technique=all prints. */
static const struct technique reduce_techniques[] = {
    {"1", {{0}}},
/* stage 1's tree takes 0.59 shared-memory requests a value, 2 and 3 take 0.18
 * (0.57 and 0.33 in blocks of 64, 0.60 and 0.14 of 1024); with two values a
 * thread, about half of each */
#define ACTIVE_WARPS(limit)                                                                 \
    {shared_requests_per_element, AT_MOST, limit, "the working threads are scattered over "   \
                                                  "the warps: their index is not strided"}
/* stage 2's tree: 0.41 bank conflicts a value (0.21 with two values a thread, 0.014 after
 * stage 7's grid-stride sums); sequential addressing: none */
#define NO_CONFLICTS(limit)                                                                 \
    {shared_bank_conflicts_per_element, AT_MOST, limit, "shared memory accesses conflict in " \
                                                        "banks: the addressing is not sequential"}
#define FIRST_ADD                                                                           \
    {elements_per_thread, AT_LEAST, 1.9, "each thread loads one value: no add during the load"}
/* a barrier at every level: 9 a block of 512 values (0.018 a value), 3 with the last warp
 * unrolled (0.006); after stage 7's grid-stride sums, 0.0012 and 0.0004 */
#define WARP_UNROLLED(limit)                                                                \
    {barriers_per_element, AT_MOST, limit, "a __syncthreads() at every level of the tree, "    \
                                           "the last warp's too"}
#define NO_ATOMICS                                                                          \
    {atomics_per_element, AT_MOST, 0, "atomics add the block's values: they are not summed "  \
                                      "as a tree in shared memory"}
/* a tree's depth: three shared accesses a level and two more, 26 in a block of 256 (21 with
 * the last warp unrolled); a thread that sums the block's values alone, 16 bytes at a
 * time, makes 67 */
#define A_TREE                                                                              \
    {busiest_thread_shared_accesses, AT_MOST, 32,                                           \
     "one thread makes over 32 shared-memory accesses: the block's values are summed one "  \
     "after another, not as a tree"}
    {"2", {ACTIVE_WARPS(0.4), A_TREE, NO_ATOMICS}},
    {"3", {NO_CONFLICTS(0.1), ACTIVE_WARPS(0.4), A_TREE, NO_ATOMICS}},
    {"4", {FIRST_ADD, NO_CONFLICTS(0.1), ACTIVE_WARPS(0.2), A_TREE, NO_ATOMICS}},
    {"5",
     {FIRST_ADD, NO_CONFLICTS(0.1), ACTIVE_WARPS(0.2), WARP_UNROLLED(0.012), A_TREE, NO_ATOMICS}},
    {"6",
     {FIRST_ADD, NO_CONFLICTS(0.1), ACTIVE_WARPS(0.2), WARP_UNROLLED(0.012), A_TREE, NO_ATOMICS}},
    {"7",
     {{elements_per_thread, AT_LEAST, 8, "each thread sums one or two values: no grid-stride "
                                         "sums"},
      NO_CONFLICTS(0.005), WARP_UNROLLED(0.0007), A_TREE, NO_ATOMICS}},
    /* five shuffles sum a warp (5.6 a warp with warp 0's second sum); a warp's sum in shared
     * memory moves every thread's value through it: 0.0078 bytes a value with shuffles, at
     * least 0.25 without; one atomic a block is 0.0001 a value, one a thread 0.03; stores to
     * device memory: none, where a warp's values moved through a global array take a request
     * a warp (0.001 a value at 32 values a thread) */
    {"8",
     {{shuffles_per_warp, AT_LEAST, 5, "no warp sums by shuffles (five a warp)"},
      {shared_bytes_per_element, AT_MOST, 0.05, "every thread's value passes through shared "
                                                "memory: the warps do not sum by shuffles"},
      {atomics_per_element, AT_MOST, 0.004, "atomics add the threads' values: the warps do not "
                                            "sum by shuffles"},
      {store_requests_per_element, AT_MOST, 0.0005, "the threads' values pass through device "
                                                    "memory: the warps do not sum by shuffles"},
      {global_atomics_per_block, AT_MOST, 1, "more than one global atomic a block"},
      {elements_per_thread, AT_LEAST, 8, "each thread sums one or two values: no grid-stride "
                                         "sums"}}},
#undef ACTIVE_WARPS
#undef NO_CONFLICTS
#undef FIRST_ADD
#undef WARP_UNROLLED
#undef NO_ATOMICS
#undef A_TREE
    {0},
};

const struct lab reduce_lab = {
    .name = "reduce",
    .operation = "the sum of n values",
    .stages = reduce_stages,
    .variants = reduce_variants,
    .threads = reduce_threads,
    .tile = reduce_tile,
    .args_size = sizeof(struct args),
    .setup = reduce_setup,
    .reference = LAB_REFERENCE(reduce_reference),
    .facts = reduce_facts,
    .facts_size = sizeof reduce_facts[0],
    .handout = "02-reduce",
    .run.library = &reduce_library,
    .run.sweep_stage = "8",
    .diagnosis.hint = reduce_hint,
    .diagnosis.untouched = reduce_untouched,
    .technique.rows = reduce_techniques,
    .technique.at = {"131075", 256},
};

const struct lab *const workbook_lab = &reduce_lab;
