/* histogram_lab.c: the histogram lab as the tests and the driver see it: its
 * inputs, its CPU reference, the bytes each stage must move, and the bugs it
 * knows. Four variants: uniform or skewed values, into 256 bins (bytes) or
 * 4096 (16-bit values). */
#include "workbook.h"
#include "technique.h"
#include "histogram.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* values uniform over the bins or skewed, into 256 or 4096 bins; names a
 * student can type: make run LAB=histogram VARIANT=skewed-256 */
static const char *const histogram_variants[] = {
    "uniform-256", "skewed-256", "uniform-4096", "skewed-4096", NULL,
};

static unsigned bins_of(const struct problem *p) { return p->variant < 2 ? 256 : 4096; }
static bool skewed(const struct problem *p) { return p->variant % 2 == 1; }

static void histogram_setup(struct problem *p)
{
    size_t n = p->n;
    unsigned bins = bins_of(p);
    bool bytes = bins == 256;
    struct buffer *in_buf = problem_add_input(p, "in", bytes ? U8 : U16, n);
    struct buffer *hist = problem_add_output(p, "hist", U32, bins, 0, 0);
    void *in = in_buf->host;
    /* skewed: 95 % of the values in one bin, the rest anywhere, which is
     * where contention on one counter shows */
    uint64_t state = p->seed;
    for (size_t i = 0; i < n; i++) {
        uint64_t r = rng_next(&state);
        unsigned v = skewed(p) && r % 100 < 95 ? 7 : (unsigned)(r >> 32) % bins;
        if (bytes)
            ((unsigned char *)in)[i] = (unsigned char)v;
        else
            ((unsigned short *)in)[i] = (unsigned short)v;
    }
    struct args *a = p->args;
    a->in = in_buf->dev;
    a->hist = hist->dev;
    a->n = n;
    a->bins = bins;
    /* every value read once (1 or 2 bytes), every count written once */
    p->bytes = (bytes ? 1.0 : 2.0) * n + 4.0 * bins;
}

static void histogram_reference(struct problem *p)
{
    unsigned *hist = problem_buffer(p, "hist")->host;
    const void *in = problem_buffer(p, "in")->host;
    memset(hist, 0, bins_of(p) * sizeof *hist);
    for (size_t i = 0; i < p->n; i++)
        hist[bins_of(p) == 256 ? ((const unsigned char *)in)[i]
                               : ((const unsigned short *)in)[i]]++;
}

/* Do all the extra counts sit in the bins of the poison's bytes (AD DB BA
 * FF), which is what counting the guard zone past the input gives? */
static bool extra_only_in_poison_bins(const struct problem *p, const struct buffer *b)
{
    const unsigned *got = b->got, *want = b->host;
    for (unsigned k = 0; k < bins_of(p); k++)
        if (got[k] > want[k] && k != 0xAD && k != 0xDB && k != 0xBA && k != 0xFF)
            return false;
    return true;
}

/* What each stage's idea brings to reading its counts. */
struct facts {
    const char *id;
    bool private_bins; /* counts into private histograms first: cleared, then merged */
    bool warp_bins;    /* a histogram per warp, the copies of a bin added up in the merge;
                          its blocks run whole warps; 16-byte loads, then the tail */
};
static const struct facts histogram_facts[] = {
    {"1", false, false}, {"2", false, false}, {"3", true, false}, {"4", true, true},
    {"lib", false, false}, {NULL, false, false},
};

/* The counts in the bins, together. */
static unsigned long long counted(const struct problem *p, const struct buffer *b)
{
    const unsigned *got = b->got;
    unsigned long long total = 0;
    for (unsigned k = 0; k < bins_of(p); k++)
        total += got[k];
    return total;
}

/* From bin `from` on, is every bin 0 (over: at least its count), and one
 * of them wrong? With the bins below it exact (from: the first wrong one),
 * a loop over the private bins stopped there. */
static bool wrong_from(const struct problem *p, const struct buffer *b, unsigned from, bool over)
{
    const unsigned *got = b->got, *want = b->host;
    bool wrong = false;
    for (unsigned k = from; k < bins_of(p); k++) {
        if (over ? got[k] < want[k] : got[k] != 0)
            return false;
        wrong |= got[k] != want[k];
    }
    return wrong;
}

/* Do the bins hold the counts of in[0..count) exactly, and do the values
 * left out fall in two bins or more? Values lost in one bin (skewed data,
 * or a single value) match the last ones by chance as often as not: a race
 * on a GPU loses such counts, and so does a stride that skips. */
static bool counts_first(const struct problem *p, const struct buffer *b, size_t count)
{
    unsigned *first = calloc(bins_of(p), sizeof *first);
    const void *in = problem_buffer(p, "in")->host;
    if (!first)
        return false;
    size_t bin = 0, other_bins = 0;
    for (size_t i = 0; i < p->n; i++) {
        size_t v = bins_of(p) == 256 ? ((const unsigned char *)in)[i]
                                     : ((const unsigned short *)in)[i];
        if (i < count)
            first[v]++;
        else if (i == count)
            bin = v;
        else
            other_bins += v != bin;
    }
    bool same = other_bins > 0 && memcmp(first, b->got, bins_of(p) * sizeof *first) == 0;
    free(first);
    return same;
}

/* The launcher clears the bins before the stage counts into them. */
static bool histogram_untouched(const struct problem *p, const struct stage *s,
                                const struct buffer *b, const struct mismatch *m)
{
    (void)s;
    return !m->unwritten && counted(p, b) == 0;
}

/* Every bin still 0, as the launcher left it: under the emulation, whether
 * the kernels read the input says if they ran; on a GPU either may be. */
static const char *untouched_hint(const struct problem *p, const struct stage *s)
{
    static const char merge[] =
        "each block must add its private counts to the global bins once all are made: after "
        "a __syncthreads(), atomicAdd(&hist[b], local[b]) for every bin b";
    static char hint[400];
    if (p->inputs_read == INPUTS_READ)
        snprintf(hint, sizeof hint,
                 "hist was never written: the kernels read the input, yet every bin still holds "
                 "the 0 its launcher set. %s%s",
                 facts(s)->private_bins ? "The counts stayed in shared memory: " : "",
                 facts(s)->private_bins ? merge : "Each value is counted in hist itself");
    else if (p->inputs_read == INPUTS_UNREAD)
        return "no value was counted, and the kernels never read the input: is the stage still "
               "a TODO, or is its kernel never launched (a grid of 0 blocks)?";
    else
        snprintf(hint, sizeof hint,
                 "hist was never written: every bin still holds the 0 its launcher set. Is the "
                 "stage still a TODO, or its kernel never launched (a grid of 0 blocks)?%s%s",
                 facts(s)->private_bins ? " If it counts into private histograms, " : "",
                 facts(s)->private_bins ? merge : "");
    return hint;
}

static const char *histogram_hint(const struct problem *p, const struct stage *s,
                                  const struct buffer *b, const struct mismatch *m)
{
    static char hint[400];
    if (m->unwritten)
        return NULL;
    unsigned long long total = counted(p, b);
    if (histogram_untouched(p, s, b, m))
        return untouched_hint(p, s);
    if (total < p->n) {
        unsigned long long lost = (unsigned long long)p->n - total;
        if (facts(s)->private_bins && wrong_from(p, b, (unsigned)m->first, false)) {
            snprintf(hint, sizeof hint,
                     "every bin from hist[%zu] on stayed 0, and every bin below it is exact: the "
                     "merge stopped at bin %zu. It must add every one of the %u bins of the "
                     "private histogram (b = threadIdx.x; b < bins; b += blockDim.x)",
                     m->first, m->first, bins_of(p));
            return hint;
        }
        if (counts_first(p, b, (size_t)total)) {
            snprintf(hint, sizeof hint,
                     "the last %llu values, from in[%llu] on, were not counted, and every value "
                     "before them was: the threads stop short of n%s",
                     lost, total,
                     /* the kernel's loads may be narrower than the stage's 16 bytes */
                     facts(s)->warp_bins ? " (a kernel that loads several values at once, 16 "
                                           "bytes in this stage, leaves those after its last "
                                           "whole load to a loop of its own)"
                                         : "");
            return hint;
        }
        const char *merge = !facts(s)->private_bins ? ""
                            : facts(s)->warp_bins   ? ", or the merge left out part of some bins "
                                                      "(each bin adds up its count in every copy)"
                                                    : ", or the merge left out part of some bins";
        if (p->emulated)
            snprintf(hint, sizeof hint,
                     "%llu of the %zu values were not counted, and the emulation saw no race in "
                     "this run, so none was lost to one: values were skipped (check the bounds, "
                     "where each thread's loop starts and how far it strides)%s",
                     lost, p->n, merge);
        else
            snprintf(hint, sizeof hint,
                     !facts(s)->private_bins
                         ? "%llu of the %zu values were not counted: a plain hist[b]++ (read, "
                           "add, write) loses counts when two threads hit one bin at once; use "
                           "atomicAdd. Or a value was skipped (bounds or stride)%s"
                         : "%llu of the %zu values were not counted: counts made before a "
                           "private histogram was cleared are wiped out (a __syncthreads() "
                           "missing between clearing and counting), and counts made after it "
                           "was merged are lost (one missing before the merge); or a plain ++ "
                           "instead of atomicAdd, or a value skipped (bounds or stride)%s",
                     lost, p->n, merge);
        return hint;
    }
    if (total > p->n && bins_of(p) == 256 && extra_only_in_poison_bins(p, b)) {
        snprintf(hint, sizeof hint,
                 "%llu more counts than values, all in bins 173, 186, 219 and 255: the bytes of "
                 "the poison word 0xFFBADBAD. Bytes past the end of the input were counted: a "
                 "missing i < n test",
                 total - (unsigned long long)p->n);
        return hint;
    }
    if (total > p->n && facts(s)->private_bins && wrong_from(p, b, (unsigned)m->first, true)) {
        snprintf(hint, sizeof hint,
                 "every bin from hist[%zu] on holds at least its count, some more, and every "
                 "bin below it is exact: the private histogram's bins from %zu on were not "
                 "cleared. Each of the %u bins must be set to 0 before counting "
                 "(b = threadIdx.x; b < bins; b += blockDim.x)",
                 m->first, m->first, bins_of(p));
        return hint;
    }
    if (total > p->n) {
        snprintf(hint, sizeof hint,
                 "%llu more counts than values: some were counted twice, so some values "
                 "belong to more than one thread (check where each thread's loop starts and "
                 "how far it strides)%s",
                 total - (unsigned long long)p->n,
                 facts(s)->private_bins ? ", or a private histogram was not cleared before counting, "
                                    "or was merged twice" : "");
        return hint;
    }
    return "the right number of counts, in the wrong bins: some values were counted twice and "
           "others never (check where each thread's loop starts and how far it strides), or a "
           "value was counted in another bin than hist[value]";
}

static int histogram_threads(const struct stage *s, int block)
{
    return facts(s)->warp_bins ? (block < 32 ? 32 : block / 32 * 32) : block;
}

/* A block's values in one step: stage 4's threads load 16 bytes at once,
 * 16 of the 256 bins' bytes (8 of the 4096 bins' 16-bit values). */
static size_t histogram_tile(const struct stage *s, int block)
{
    return (facts(s)->warp_bins ? 16 : 1) * (size_t)histogram_threads(s, block);
}

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/03-histogram.md. */
static const struct technique histogram_techniques[] = {
    {"1", {{0}}},
    {"2",
     {{elements_per_launched_thread, AT_LEAST, 4, "each thread counts one value: no grid-stride "
                                                  "loop"}}},
/* A private histogram counts every value in shared memory, and its block's
 * merge costs at most a global atomic a bin: over many values, few a value. */
#define PRIVATE                                                                             \
    {shared_atomics_per_element, AT_LEAST, 0.5, "the values are not counted with shared-memory " \
                                                "atomics"},                                  \
    {global_atomics_per_element, AT_MOST, 0.25, "more than one global atomic for every 4 "      \
                                                "values: the private histograms gather too "  \
                                                "few"},                                        \
    {global_atomics_per_block_and_output, AT_MOST, 1, "more than one global atomic a bin a "  \
                                                      "block"}
    {"3", {PRIVATE}},
    /* 16-byte loads make one request per 512 byte values, 8-byte ones per 256 */
    {"4",
     {PRIVATE, {load_requests_per_element, AT_MOST, 1.0 / 384, "the loads are not 16 bytes a "
                                                               "thread"}}},
#undef PRIVATE
    {0},
};

const struct lab histogram_lab = {
    .name = "histogram",
    .operation = "counts of n values in bins",
    .stages = histogram_stages,
    .variants = histogram_variants,
    .threads = histogram_threads,
    .tile = histogram_tile,
    .args_size = sizeof(struct args),
    .setup = histogram_setup,
    .reference = LAB_REFERENCE(histogram_reference),
    .facts = histogram_facts,
    .facts_size = sizeof histogram_facts[0],

    .handout = "03-histogram",
    .run.library = &histogram_library,
    .run.sweep_stage = "3",
    .diagnosis.hint = histogram_hint,
    .diagnosis.untouched = histogram_untouched,
    .technique.rows = histogram_techniques,
    .technique.at = {"131075", 256},
};

const struct lab *const workbook_lab = &histogram_lab;
