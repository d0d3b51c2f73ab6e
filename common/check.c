/* check.c: host-side checking, failure reports, random inputs. No CUDA here,
 * so all of it is tested without a GPU (tests/common). */
#define _GNU_SOURCE
#include "workbook.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* ---- stages ------------------------------------------------------------ */

int stage_count(const struct lab *lab)
{
    int k = 0;
    while (lab->stages[k].id)
        k++;
    return k;
}

const struct stage *stage_find(const struct lab *lab, const char *id)
{
    for (const struct stage *s = lab->stages; s->id; s++)
        if (strcmp(s->id, id) == 0)
            return s;
    return NULL;
}

bool stage_selected(const struct stage *s, const char *filter)
{
    if (!filter || !*filter)
        return true;
    size_t k = strlen(filter);
    if (strncmp(s->id, filter, k) != 0)
        return false;
    /* "4" takes "4a" but "1" must not take "10" */
    return s->id[k] == '\0' || (s->id[k] >= 'a' && s->id[k] <= 'z');
}

const char *stage_list(const struct lab *lab)
{
    static char list[256];
    list[0] = '\0';
    for (const struct stage *s = lab->stages; s->id; s++) {
        if (s != lab->stages)
            strncat(list, ", ", sizeof list - strlen(list) - 1);
        strncat(list, s->id, sizeof list - strlen(list) - 1);
    }
    return list;
}

/* ---- values ------------------------------------------------------------ */

size_t elem_size(enum elem type)
{
    return type == U8 ? 1 : type == U16 ? 2 : 4;
}

void fill_poison(void *data, size_t bytes)
{
    uint32_t word = POISON_WORD;
    unsigned char *p = data;
    for (size_t i = 0; i < bytes; i++)
        p[i] = ((const unsigned char *)&word)[i % 4];
}

bool is_poison(const void *data, size_t bytes)
{
    uint32_t word = POISON_WORD;
    const unsigned char *p = data;
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != ((const unsigned char *)&word)[i % 4])
            return false;
    return true;
}

static double value_at(const struct buffer *b, const void *data, size_t i)
{
    switch (b->type) {
    case F32: return ((const float *)data)[i];
    case I32: return ((const int32_t *)data)[i];
    case U32: return ((const uint32_t *)data)[i];
    case U8: return ((const uint8_t *)data)[i];
    case U16: return ((const uint16_t *)data)[i];
    }
    return 0;
}

static bool element_ok(const struct buffer *b, size_t i)
{
    if (b->type == F32) {
        double ref = ((const float *)b->host)[i];
        double got = ((const float *)b->got)[i];
        /* NaN fails: the comparison below is false for it */
        return fabs(got - ref) <= b->atol + b->rtol * fabs(ref);
    }
    return memcmp((const char *)b->host + 4 * i, (const char *)b->got + 4 * i, 4) == 0;
}

bool compare_output(const struct buffer *b, struct mismatch *m)
{
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < b->count; i++) {
        if (element_ok(b, i))
            continue;
        if (m->count == 0) {
            m->first = i;
            m->expected = value_at(b, b->host, i);
            m->got = value_at(b, b->got, i);
        }
        m->last = i;
        m->count++;
        if (is_poison((const char *)b->got + 4 * i, 4))
            m->unwritten++;
    }
    return m->count == 0;
}

size_t first_difference(const void *a, const void *b, size_t bytes)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < bytes; i++)
        if (x[i] != y[i])
            return i;
    return (size_t)-1;
}

/* ---- failure reports --------------------------------------------------- */

static void format_value(char *out, size_t len, const struct buffer *b, double v, bool poison)
{
    if (poison)
        snprintf(out, len, "the poison value (never written)");
    else if (b->type == F32)
        snprintf(out, len, "%.9g", v);
    else
        snprintf(out, len, "%.0f", v);
}

/* The likely cause, from the shape of what is wrong. */
static const char *generic_hint(const struct problem *p, const struct buffer *b,
                                const struct mismatch *m)
{
    static char hint[320];
    if (m->unwritten == b->count)
        return "nothing was written: is the stage still a TODO, is the kernel never launched, "
               "or is its grid 0 blocks when n is smaller than a block (n / block rounds down)?";
    if (m->unwritten == m->count && m->last == b->count - 1 && m->count == b->count - m->first) {
        snprintf(hint, sizeof hint,
                 "every element from index %zu to the end was never written: the threads "
                 "stop short; does the grid (or the loop) cover all n = %zu elements?",
                 m->first, p->n);
        return hint;
    }
    if (m->unwritten == m->count)
        return "some elements were never written, with gaps: check how each thread's index "
               "is computed and how far each thread strides";
    if (m->unwritten == 0)
        return "every element was written but some values are wrong: check the formula and "
               "which input element each thread reads";
    return NULL;
}

const char *hang_advice(const struct lab *lab)
{
    return lab->hang ? lab->hang
                     : "a kernel that never returns usually has a loop whose index never "
                       "reaches its bound, or threads waiting on a barrier or flag that never "
                       "comes";
}

const char *problem_title(const struct problem *p, const struct stage *s)
{
    static char title[320];
    const char *variant = variant_name(p->lab, p->variant);
    snprintf(title, sizeof title, "%s stage %s (%s)%s%s, n = %zu, block %d, seed %llu",
             p->lab->name, s->id, s->idea, variant ? ", " : "", variant ? variant : "", p->n,
             p->block, (unsigned long long)p->seed);
    return title;
}

int variant_count(const struct lab *lab)
{
    int k = 0;
    while (lab->variants && lab->variants[k])
        k++;
    return k ? k : 1;
}

const char *variant_name(const struct lab *lab, int v)
{
    return lab->variants ? lab->variants[v] : NULL;
}

int variant_find(const struct lab *lab, const char *name)
{
    for (int v = 0; lab->variants && lab->variants[v]; v++)
        if (strcmp(lab->variants[v], name) == 0)
            return v;
    return -1;
}

void describe_mismatch(const struct problem *p, const struct stage *s, const struct buffer *b,
                       const struct mismatch *m, char *msg, size_t len)
{
    char expected[64], got[64];
    format_value(expected, sizeof expected, b, m->expected, false);
    format_value(got, sizeof got, b, m->got,
                 is_poison((const char *)b->got + 4 * m->first, 4));
    const char *hint = p->lab->hint ? p->lab->hint(p, s, b, m) : NULL;
    if (!hint)
        hint = generic_hint(p, b, m);
    int k = snprintf(msg, len,
                     "%s:\n"
                     "  %s[%zu]: expected %s, got %s\n"
                     "  %zu of %zu elements wrong (%zu never written), first at %zu, last at %zu\n",
                     problem_title(p, s), b->name, m->first, expected, got, m->count, b->count, m->unwritten,
                     m->first, m->last);
    if (b->type == F32 && k > 0 && (size_t)k < len)
        k += snprintf(msg + k, len - k, "  (floats pass within %g + %g*|expected|)\n", b->atol,
                      b->rtol);
    if (hint && k > 0 && (size_t)k < len)
        k += snprintf(msg + k, len - k, "  likely cause: %s\n", hint);
    if (k > 0 && (size_t)k < len)
        snprintf(msg + k, len - k, "  reproduce: make test LAB=%s STAGE=%s SEED=%llu",
                 p->lab->name, s->id, (unsigned long long)p->seed);
}

/* ---- random inputs ----------------------------------------------------- */

uint64_t rng_next(uint64_t *state) /* splitmix64: small, fast, well mixed */
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void fill_uniform_f32(float *x, size_t n, uint64_t seed, float lo, float hi)
{
    uint64_t state = seed;
    for (size_t i = 0; i < n; i++) {
        double u = (double)(rng_next(&state) >> 40) / (double)(1ull << 24); /* [0, 1) */
        x[i] = (float)(lo + (hi - lo) * u);
    }
}

uint64_t seed_from_env(void)
{
    const char *text = getenv("SEED");
    if (text && *text) {
        char *end;
        unsigned long long v = strtoull(text, &end, 10);
        if (*end)
            die("SEED=%s: a seed is a whole number, e.g. SEED=42", text);
        return v;
    }
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t v = (uint64_t)(t.tv_nsec ^ t.tv_sec) % 1000000;
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    setenv("SEED", buf, 1); /* children (Criterion's tests) use the same one */
    return v;
}

/* ---- sizes and times --------------------------------------------------- */

bool parse_size(const char *text, size_t *out)
{
    char *end;
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end == '^') {
        if (v != 2)
            return false;
        const char *exp = end + 1;
        unsigned long long k = strtoull(exp, &end, 10);
        if (end == exp || k > 40)
            return false;
        v = 1ull << k;
    }
    if (*end == '+' || *end == '-') {
        char sign = *end;
        const char *rest = end + 1;
        unsigned long long d = strtoull(rest, &end, 10);
        if (end == rest || (sign == '-' && d > v))
            return false;
        v = sign == '+' ? v + d : v - d;
    }
    if (*end)
        return false;
    *out = (size_t)v;
    return true;
}

double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double median(double *v, int n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double time_cpu_ms(void (*work)(void *ctx), void *ctx, int reps)
{
    double t[64];
    if (reps > 64)
        reps = 64;
    for (int r = 0; r < reps; r++) {
        double t0 = now_ms();
        work(ctx);
        t[r] = now_ms() - t0;
    }
    return median(t, reps);
}
