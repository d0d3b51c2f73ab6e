/* host.c: what every program of the kit needs on the host: colour, random
 * inputs, sizes and times, the student's choices. */
#define _GNU_SOURCE
#include "workbook.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- colour ------------------------------------------------------------ */

bool colour_on(void)
{
    static int on = -1; /* decided once: stdout does not change */
    if (on < 0)
        on = isatty(STDOUT_FILENO) && !getenv("NO_COLOR");
    return on;
}

const char *paint(const char *code) { return colour_on() ? code : ""; }

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

/* A seed from its text; without one, one drawn from the clock. */
static uint64_t seed_of(const char *text)
{
    if (text && *text)
        return whole_number("SEED", text, ULLONG_MAX, "a seed is a whole number, e.g. SEED=42");
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    uint64_t v = (uint64_t)(t.tv_nsec ^ t.tv_sec) % 1000000;
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    setenv("SEED", buf, 1); /* children (Criterion's tests) use the same one */
    return v;
}

uint64_t seed_from_env(void) { return seed_of(getenv("SEED")); }

/* ---- sizes and times --------------------------------------------------- */

bool parse_size(const char *text, size_t *out)
{
    char *end;
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end == '^') {
        if (v != 2)
            return false;
        const char *exp = end + 1;
        unsigned long long k = strtoull(exp, &end, 10);
        if (end == exp || k > 62)
            return false;
        v = 1ull << k;
    }
    if (*end == '+' || *end == '-') {
        char sign = *end;
        const char *rest = end + 1;
        unsigned long long d = strtoull(rest, &end, 10);
        if (end == rest || (sign == '-' && d > v) || (sign == '+' && d > SIZE_MAX - v))
            return false;
        v = sign == '+' ? v + d : v - d;
    }
    if (*end || errno == ERANGE || v > SIZE_MAX)
        return false;
    *out = (size_t)v;
    return true;
}

bool parse_shape(const char *text, size_t *rows, size_t *cols)
{
    const char *x = text ? strchr(text, 'x') : NULL;
    if (!x || x == text)
        return false;
    char first[64];
    size_t len = (size_t)(x - text);
    if (len >= sizeof first)
        return false;
    memcpy(first, text, len);
    first[len] = '\0';
    return parse_size(first, rows) && parse_size(x + 1, cols);
}

/* ---- the student's choices --------------------------------------------- */

unsigned long long whole_number(const char *name, const char *text, unsigned long long max,
                                const char *expected)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (!isdigit((unsigned char)*text) || *end || errno || v > max)
        die("%s=%s: %s", name, text, expected);
    return v;
}

static void read_size(const struct lab *lab, const char *text, struct choices *c)
{
    if (lab->matrix) {
        size_t rows = 0, cols = 0;
        if (!parse_shape(text, &rows, &cols))
            die("N=%s: %s takes a matrix's rows and columns, ROWSxCOLS, such as N=1000x999 or "
                "N=2^14x2^14",
                text, lab->name);
        if (rows == 0 || cols == 0)
            die("N=%s: a matrix with no %s holds nothing to time; choose both sides >= 1", text,
                rows ? "columns" : "rows");
        if (rows > SIZE_MAX / cols)
            die("N=%s: rows times columns is more elements than this machine can count", text);
        c->n = rows * cols;
        c->cols = cols;
    } else if (!parse_size(text, &c->n)) {
        if (strchr(text, 'x'))
            die("N=%s: %s's size is one number, such as 1000000 or 2^24 (ROWSxCOLS is for "
                "matrices, in transpose)",
                text, lab->name);
        die("N=%s: expected a whole number below 2^63, such as 1000000, 2^28 or 2^24+17", text);
    }
}

void choices_read(const struct lab *lab, const char *n, const char *block, const char *seed,
                  struct choices *c)
{
    if (n && *n)
        read_size(lab, n, c);
    c->seed = seed_of(seed);
    if (block && *block)
        c->block = (int)whole_number("BLOCK", block, INT_MAX,
                                     "a block size is a whole number of threads, e.g. BLOCK=256");
}

const char *size_text(size_t n, size_t cols)
{
    static char text[4][48];
    static int k;
    k = (k + 1) % 4;
    if (cols)
        snprintf(text[k], sizeof text[k], "%zux%zu", n / cols, cols);
    else
        snprintf(text[k], sizeof text[k], "%zu", n);
    return text[k];
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
