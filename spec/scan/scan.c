/* scan.c: the inputs, CPU reference, byte counts and known bugs that the
 * three scan labs share. Each lab's spec/<lab>/<lab>_lab.c adds its stages
 * and how long a block's segment is. */
#include "scan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const scan_variants[] = {
    "exclusive-int", "inclusive-int", "exclusive-float", "inclusive-float", NULL,
};

static bool ints(const struct problem *p) { return p->variant < 2; }
static bool inclusive(const struct problem *p) { return p->variant % 2 == 1; }

void scan_setup(struct problem *p, size_t segment, bool large)
{
    size_t n = p->n;
    enum elem type = ints(p) ? I32 : F32;
    struct buffer *in = problem_add_input(p, "in", type, n);
    if (ints(p)) { /* small, of both signs: the sums wander without overflowing */
        uint64_t state = p->seed;
        int *x = in->host;
        for (size_t i = 0; i < n; i++)
            x[i] = (int)(rng_next(&state) % 19) - 9;
    } else {
        fill_uniform_f32(in->host, n, p->seed, -1.0f, 1.0f);
    }
    /* floats: a sum of m values of both signs drifts like sqrt(m), and so
     * does its rounding error, whatever order the adds take */
    size_t m = segment && segment < n ? segment : n;
    struct buffer *out = problem_add_output(p, "out", type, n, 1e-5, 1e-4 * sqrt((double)m) + 1e-5);

    struct args *a = p->args;
    a->type = type;
    a->inclusive = inclusive(p);
    a->in = in->dev;
    a->out = out->dev;
    a->n = n;
    if (large) {
        a->sums = problem_add_scratch(p, "sums", type, 2 * (n / 64 + 64))->dev;
        a->status = problem_add_scratch(p, "status", U64, n / 64 + 64)->dev;
    }
    p->bytes = 8.0 * n; /* every value read once and every sum written once */
}

/* The running sum, restarted at every segment: ints in 32-bit unsigned
 * arithmetic, which wraps as the GPU's adds do; floats in double. */
void scan_reference(struct problem *p, size_t segment)
{
    size_t n = p->n;
    bool incl = inclusive(p);
    if (ints(p)) {
        const int *x = problem_buffer(p, "in")->host;
        int *y = problem_buffer(p, "out")->host;
        unsigned sum = 0;
        for (size_t i = 0; i < n; i++) {
            if (segment && i % segment == 0)
                sum = 0;
            y[i] = (int)(incl ? sum += (unsigned)x[i] : sum);
            if (!incl)
                sum += (unsigned)x[i];
        }
    } else {
        const float *x = problem_buffer(p, "in")->host;
        float *y = problem_buffer(p, "out")->host;
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            if (segment && i % segment == 0)
                sum = 0;
            y[i] = (float)(incl ? sum += x[i] : sum);
            if (!incl)
                sum += x[i];
        }
    }
}

/* ---- reading a wrong scan: what the numbers show ------------------------ */

static double input(const struct problem *p, size_t i)
{
    const void *in = problem_buffer(p, "in")->host;
    return ints(p) ? ((const int *)in)[i] : ((const float *)in)[i];
}

static double output(const struct buffer *b, const void *data, size_t i)
{
    return b->type == I32 ? ((const int *)data)[i] : ((const float *)data)[i];
}

/* Is v what out[i] holds? Ints exactly (in 32 bits), floats within the
 * output's tolerance. */
static bool holds(const struct buffer *b, size_t i, double v)
{
    double got = output(b, b->got, i);
    if (b->type == I32)
        return (int32_t)(int64_t)v == (int32_t)got;
    return fabs(got - v) <= b->atol + b->rtol * fabs(v);
}

static size_t gcd(size_t a, size_t b)
{
    while (b) {
        size_t r = a % b;
        a = b, b = r;
    }
    return a;
}

/* Is the output the scan of the other kind (inclusive for exclusive, or the
 * reverse) wherever the two differ, but perhaps for out[0] and the first
 * value of every run of *run values, which are right? *run is then that run
 * (n: out[0] alone), or 0 when no value is right. With one value of the
 * other kind this is also what other bugs give, so it takes two. */
static bool other_kind(const struct problem *p, const struct buffer *b, size_t *run)
{
    double sign = inclusive(p) ? -1 : 1; /* inclusive = exclusive + in[i] */
    size_t others = 0, rights = 0, apart = 0; /* apart: the gcd of the right ones' places */
    for (size_t i = 0; i < p->n; i++) {
        double want = output(b, b->host, i);
        bool right = holds(b, i, want), other = holds(b, i, want + sign * input(p, i));
        if (!right && !other)
            return false;
        if (right && !other)
            rights++, apart = gcd(apart, i);
        others += other && !right;
    }
    *run = rights == 0 ? 0 : apart ? apart : p->n;
    if (*run == 1)
        return false;
    for (size_t i = 0; *run && i < p->n; i += *run) /* the runs' first values are right */
        if (!holds(b, i, output(b, b->host, i)))
            return false;
    return others >= 2;
}

static bool off_per_run(const struct problem *p, const struct buffer *b, size_t run, size_t group)
{
    if (run == 0 || p->n <= run)
        return false;
    double off = 0;
    for (size_t i = 0; i < p->n; i++) {
        double expected = output(b, b->host, i);
        if (i % run == 0)
            off = i % group < run ? 0 : output(b, b->got, i) - expected;
        if (!holds(b, i, expected + off))
            return false;
    }
    return true;
}

/* Is each out[i] of a segment off by the segment's whole sum? */
static bool off_by_segment_total(const struct problem *p, const struct buffer *b, size_t segment)
{
    bool shown = false; /* a segment whose sum is 0 shows nothing */
    for (size_t start = 0; start < p->n; start += segment) {
        double total = 0;
        size_t end = start + segment < p->n ? start + segment : p->n;
        for (size_t i = start; i < end; i++)
            total += input(p, i);
        for (size_t i = start; i < end; i++)
            if (!holds(b, i, output(b, b->host, i) + total))
                return false;
        shown |= total != 0 && end - start > 1; /* one value: its sum is itself */
    }
    return shown;
}

/* Does each out[i] sum only the `width` values up to in[i] (up to the one
 * before, for the exclusive scan), within its segment? Most outputs fail
 * at once; prefix sums make each test of one element cheap. */
static bool windowed(const struct problem *p, const struct buffer *b, size_t segment, size_t width)
{
    size_t shift = !inclusive(p);
    double *prefix = malloc((p->n + 1) * sizeof *prefix);
    if (!prefix)
        return false;
    prefix[0] = 0;
    for (size_t i = 0; i < p->n; i++)
        prefix[i + 1] = prefix[i] + input(p, i);
    bool all = true;
    for (size_t i = 0; i < p->n && all; i++) {
        size_t start = i / segment * segment, end = i + 1 - shift; /* the window ends before end */
        size_t from = end >= start + width ? end - width : start;
        all = holds(b, i, end > from ? prefix[end] - prefix[from] : 0);
    }
    free(prefix);
    return all;
}

const char *scan_hint_any(const struct problem *p, const struct buffer *b)
{
    static char hint[400];
    size_t run;
    if (!other_kind(p, b, &run))
        return NULL;
    if (!run)
        return inclusive(p) ? "out[i] leaves in[i] out, all along: that is the exclusive scan. "
                              "The inclusive scan counts in[i] too"
                            : "out[i] counts in[i] itself, all along: that is the inclusive "
                              "scan. The exclusive scan stops just before in[i] (out[0] is 0): "
                              "shift the results right by one";
    char where[64];
    if (run >= p->n)
        snprintf(where, sizeof where, "out[0]");
    else
        snprintf(where, sizeof where, "the first of every %zu values", run);
    snprintf(hint, sizeof hint,
             inclusive(p) ? "out[i] leaves in[i] out everywhere but at %s, which %s right: that "
                            "is the exclusive scan there. The inclusive scan counts in[i] too"
                          : "out[i] counts in[i] itself everywhere but at %s, which %s right: "
                            "that is the inclusive scan there. The exclusive scan stops just "
                            "before in[i]: shift every result right by one, not only the "
                            "first",
             where, run >= p->n ? "is" : "are");
    return hint;
}

const char *scan_hint_steps(const struct problem *p, const struct buffer *b,
                            const struct mismatch *m, size_t segment)
{
    static char hint[400];
    for (size_t width = 1; width < segment; width *= 2)
        if (windowed(p, b, segment, width)) {
            snprintf(hint, sizeof hint,
                     "each out[i] sums only the %zu values up to in[i]: the steps with offsets "
                     "1 to %zu reached the results, and the step with offset %zu and later "
                     "ones did not%s",
                     width, width / 2, width,
                     width == segment / 2 ? " (after the last step, its sums are in the array "
                                            "it wrote: read that one)"
                                          : "");
            return hint;
        }
    size_t r = m->first % segment;
    if (r > 0 && (r & (r - 1)) == 0) {
        snprintf(hint, sizeof hint,
                 "everything before out[%zu] is right, and it is value %zu of its block's "
                 "segment: the first value that the step with offset %zu changes. That step "
                 "did not reach it: check the test that picks the adding threads (tid >= "
                 "offset) and the barrier before the step reads",
                 m->first, r, r);
        return hint;
    }
    return NULL;
}

bool scan_off_per_run(const struct problem *p, const struct buffer *b, size_t run, size_t group)
{
    return off_per_run(p, b, run, group);
}

const char *scan_hint_root(const struct problem *p, const struct buffer *b, size_t segment)
{
    if (!off_by_segment_total(p, b, segment))
        return NULL;
    return "every out[i] is too large by the sum of its whole segment: that is what the root "
           "holds after the up-sweep. Set it to 0 before the down-sweep";
}
