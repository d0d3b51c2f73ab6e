/* scan.c: the inputs, CPU reference, byte counts and known bugs that the
 * three scan labs share. Each lab's tests/<lab>/<lab>_lab.c adds its stages
 * and how long a block's segment is. */
#include "scan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { IN, OUT, SUMS, STATUS }; /* the order scan_setup adds buffers in */

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
    problem_add_output(p, "out", type, n, 1e-5, 1e-4 * sqrt((double)m) + 1e-5);
    if (large) {
        problem_add_scratch(p, "sums", type, 2 * (n / 64 + 64));
        problem_add_scratch(p, "status", U32, 2 * (n / 64 + 64));
    }

    struct args *a = p->args;
    a->type = type;
    a->inclusive = inclusive(p);
    a->in = p->buf[IN].dev;
    a->out = p->buf[OUT].dev;
    a->n = n;
    a->sums = large ? p->buf[SUMS].dev : NULL;
    a->status = large ? p->buf[STATUS].dev : NULL;
}

/* The running sum, restarted at every segment: ints in 32-bit unsigned
 * arithmetic, which wraps as the GPU's adds do; floats in double. */
void scan_reference(struct problem *p, size_t segment)
{
    size_t n = p->n;
    bool incl = inclusive(p);
    if (ints(p)) {
        const int *x = p->buf[IN].host;
        int *y = p->buf[OUT].host;
        unsigned sum = 0;
        for (size_t i = 0; i < n; i++) {
            if (segment && i % segment == 0)
                sum = 0;
            y[i] = (int)(incl ? sum += (unsigned)x[i] : sum);
            if (!incl)
                sum += (unsigned)x[i];
        }
    } else {
        const float *x = p->buf[IN].host;
        float *y = p->buf[OUT].host;
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

double scan_bytes(const struct problem *p, const struct stage *s)
{
    (void)s; /* every value read once and every sum written once */
    return 8.0 * p->n;
}

bool scan_reads(const struct stage *s, const struct buffer *b)
{
    (void)s;
    return strcmp(b->name, "in") == 0;
}

/* segment: values per block in the single-block labs; tile: values per
 * block in scan-large-arrays (0 where it does not apply). */
const char *scan_hint(const struct problem *p, const struct stage *s, const struct buffer *b,
                      const struct mismatch *m, size_t segment, size_t tile)
{
    static char hint[400];
    (void)s;
    (void)b;
    if (!ints(p) || m->unwritten)
        return NULL;
    size_t i = m->first;
    long long x = ((const int *)p->buf[IN].host)[i];
    long long off = (long long)m->got - (long long)m->expected;
    long long poison = (int)POISON_WORD;
    if (!inclusive(p) && x != 0 && off == x)
        return "out[i] counts in[i] itself: that is the inclusive scan. The exclusive scan "
               "stops just before i (out[0] is 0): shift the results right by one";
    if (inclusive(p) && x != 0 && off == -x)
        return "out[i] leaves in[i] out: that is the exclusive scan. The inclusive scan "
               "counts in[i] too";
    if (off != 0 && off % poison == 0) {
        snprintf(hint, sizeof hint,
                 "out[%zu] is off by %lld times the poison value %lld: a value past the end "
                 "(i >= n) or a shared word no thread wrote was added in; add 0 instead",
                 i, off / poison, poison);
        return hint;
    }
    if (segment && i % segment > 0 && i % segment % 32 == 0) {
        snprintf(hint, sizeof hint,
                 "everything before out[%zu] is right, and it opens warp %zu of its block: "
                 "the totals of the warps before it were not added in, or read before a "
                 "__syncthreads() made them ready",
                 i, i % segment / 32);
        return hint;
    }
    if (tile && i > 0 && i % tile == 0) {
        snprintf(hint, sizeof hint,
                 "everything before out[%zu] is right, and it opens tile %zu: the carry from "
                 "the tiles before it is missing or wrong (the scanned block sums, or the "
                 "prefix a tile waits for)",
                 i, i / tile);
        return hint;
    }
    return "a missing __syncthreads() (or __syncwarp()) lets a thread read a partial sum "
           "before it is written: run it with EMU=1, whose race detector names the line";
}
