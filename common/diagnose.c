/* diagnose.c: values as the checks see them, and the likely cause of a wrong
 * run, found from the shape of what is wrong. Host only (tests/common);
 * report.c puts what it finds into words. */
#define _GNU_SOURCE
#include "workbook.h"
#include "diagnose.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- values ------------------------------------------------------------ */

size_t elem_size(enum elem type)
{
    return type == U8 ? 1 : type == U16 ? 2 : type == U64 ? 8 : 4;
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
    case U64: return (double)((const uint64_t *)data)[i];
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
    for (size_t i = 0; i < b->compared; i++) {
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

/* ---- failure reports: every sentence a student reads about a wrong run ---- */

void format_value(char *out, size_t len, const struct buffer *b, double v, bool poison)
{
    if (poison)
        snprintf(out, len, "the poison value (never written)");
    else if (b->type == F32)
        snprintf(out, len, "%.9g", v);
    else
        snprintf(out, len, "%.0f", v);
}

/* Where a poisoned word can have come from, in this run: the emulation
 * stops reads past an array's end before they happen. */
static const char *poison_sources(const struct problem *p)
{
    return p->emulated ? "shared memory that no thread wrote (the emulation would have stopped "
                         "a read past an array's end)"
                       : "elements past the end of an array (a missing i < n test) or shared "
                         "memory that no thread wrote";
}

/* How many poison words, added to the right value, give the wrong one? For
 * 32-bit ints the adds wrap, so the count is found modulo 2^32: the poison
 * is odd, so it has an inverse there. 0 when no small count fits. */
static long long poison_multiple(const struct buffer *b, const struct mismatch *m)
{
    if (b->type != I32 && b->type != U32)
        return 0;
    uint32_t off = (uint32_t)(int64_t)m->got - (uint32_t)(int64_t)m->expected, inverse = 1;
    for (int k = 0; k < 5; k++) /* Newton's iteration: each step doubles the bits that are right */
        inverse *= 2 - POISON_WORD * inverse;
    int32_t times = (int32_t)(off * inverse);
    /* a random wrong value passes this by chance once in 2^15 */
    return times != 0 && times > -(1 << 16) && times < (1 << 16) ? times : 0;
}

/* Poison words and some other wrong values besides: the count k (up to
 * 4096) for which got - expected - k * poison, in 32 bits, is smallest, if
 * that rest is small; 0 otherwise. No k * poison comes within 688,988 of 0
 * modulo 2^32, so a small error is never read as poison. */
static long long poison_with_rest(const struct buffer *b, const struct mismatch *m, long long *rest)
{
    if (b->type != I32 && b->type != U32)
        return 0;
    uint32_t off = (uint32_t)(int64_t)m->got - (uint32_t)(int64_t)m->expected;
    long long best = 0;
    for (long long k = -4096; k <= 4096; k++) {
        int32_t r = (int32_t)(off - (uint32_t)k * POISON_WORD);
        if (k != 0 && (best == 0 || llabs(r) < llabs(*rest))) {
            best = k;
            *rest = r;
        }
    }
    return llabs(*rest) < 65536 ? best : 0;
}

const char *read_poison_hint(const struct problem *p, const struct buffer *b,
                             const struct mismatch *m)
{
    static char hint[400];
    if (m->unwritten == b->compared && p->inputs_read == INPUTS_READ) {
        snprintf(hint, sizeof hint,
                 "nothing was written to '%s', though the kernels read the input: a result "
                 "left in a register or in shared memory must still be stored into '%s'",
                 b->name, b->name);
        return hint;
    }
    if (m->unwritten == b->compared)
        return "nothing was written: is the stage still a TODO, is the kernel never launched, "
               "or is its grid 0 blocks when n is smaller than a block (n / block rounds down)?";
    if (m->unwritten)
        return NULL;
    if (b->type == F32 && isnan(m->got)) {
        snprintf(hint, sizeof hint,
                 "%s[%zu] is NaN: a poisoned word (a NaN as a float) was read and added in. It "
                 "came from %s; where a value is missing, use 0",
                 b->name, m->first, poison_sources(p));
        return hint;
    }
    long long times = poison_multiple(b, m);
    if (times) {
        snprintf(hint, sizeof hint,
                 "%s[%zu] is off by %lld times the poison word 0x%08X: that many poisoned words "
                 "were read and added in. They came from %s; where a value is missing, use 0",
                 b->name, m->first, times, POISON_WORD, poison_sources(p));
        return hint;
    }
    long long rest;
    if ((times = poison_with_rest(b, m, &rest))) {
        snprintf(hint, sizeof hint,
                 "%s[%zu] is off by %lld times the poison word 0x%08X, give or take %lld: about "
                 "that many poisoned words were read and added in, with other wrong values. They "
                 "came from %s (or from partial sums never written); where a value is missing, "
                 "use 0",
                 b->name, m->first, times, POISON_WORD, rest, poison_sources(p));
        return hint;
    }
    return NULL;
}

/* Are the elements up to the last wrong one, all never written, written in
 * runs of *run from element 0, one run in every *every (2 or more), and
 * never between? That is what a grid-stride loop that steps *every times
 * too far leaves: a round of the grid writes a run, the next rounds none. */
static bool written_in_runs(const struct buffer *b, const struct mismatch *m, size_t *run,
                            size_t *every)
{
    const char *got = b->got;
    size_t size = elem_size(b->type), next = m->first;
    if (m->unwritten != m->count || m->first == 0)
        return false;
    while (next <= m->last && is_poison(got + size * next, size))
        next++;
    if (next > m->last || next % m->first)
        return false;
    *run = m->first, *every = next / m->first;
    for (size_t i = 0; i <= m->last; i++)
        if (is_poison(got + size * i, size) != (i / *run % *every != 0))
            return false;
    return true;
}

/* How a grid-stride loop steps, for the hints on loops that step too far. */
static const char GRID_STRIDE[] =
    "A grid-stride loop steps by the threads of the whole grid, gridDim.x * blockDim.x, "
    "counted in the items it loops over (float4s, in a loop over float4s)";

/* The likely cause from the shape of what is wrong, for any lab. */
const char *shape_hint(const struct problem *p, const struct buffer *b,
                       const struct mismatch *m)
{
    static char hint[400];
    if (b->cols) /* a matrix's shapes are its lab's to read */
        return NULL;
    if (m->unwritten == m->count && m->last == b->compared - 1 &&
        m->count == b->compared - m->first) {
        snprintf(hint, sizeof hint,
                 "every element from index %zu to the end was never written: the threads "
                 "stop short; does the grid (or the loop) cover all n = %zu elements?",
                 m->first, p->n);
        return hint;
    }
    size_t run, every;
    if (written_in_runs(b, m, &run, &every)) {
        snprintf(hint, sizeof hint,
                 "the elements were written in runs of %zu, one run in every %zu, and never "
                 "between: each thread's loop steps %zu times too far. %s",
                 run, every, every, GRID_STRIDE);
        return hint;
    }
    if (m->unwritten == m->count && m->count == m->last - m->first + 1) {
        snprintf(hint, sizeof hint,
                 "the elements from index %zu to %zu were never written, but those before and "
                 "after them were (the ones after by other code, such as a scalar tail): the "
                 "threads' loop stops short. Does it cover every item? %s",
                 m->first, m->last, GRID_STRIDE);
        return hint;
    }
    if (m->unwritten == m->count)
        return "some elements were never written, with gaps: check how each thread's index "
               "is computed and how far each thread strides";
    if (m->unwritten)
        return NULL;
    if (p->emulated)
        return "every element was written but some values are wrong, and the emulation saw no "
               "race on shared memory in this run: check the formula, and which elements each "
               "thread reads";
    return "every element was written but some values are wrong: check the formula and which "
           "elements each thread reads. If the wrong values move from run to run, a barrier is "
           "missing: EMU=1 names the racing lines";
}

/* What a failed launch usually means, by CUDA's name for the error. The
 * emulation's reports of a stopped kernel already say it. */
const char *launch_hint(const struct problem *p, const char *error)
{
    static const struct {
        const char *error, *hint;
    } hints[] = {
        {"cudaErrorInvalidConfiguration",
         "the launch shape is impossible: a grid needs at least 1 block (so launch nothing "
         "when n == 0) and a block at most 1024 threads"},
        {"cudaErrorInvalidValue",
         "a launch or a copy was given an impossible value: a grid of 0 blocks (so launch "
         "nothing when n == 0), a block of more than 1024 threads, or more shared memory "
         "than a block may have"},
        {"cudaErrorIllegalAddress",
         "a thread read or wrote outside its arrays: check the bounds test and the index "
         "arithmetic. EMU=1 (or compute-sanitizer) names the line"},
        {"cudaErrorMisalignedAddress",
         "a vector access (float4, int4) at an address that is not a multiple of its size: "
         "vectorize only from an aligned start"},
        {"cudaErrorLaunchOutOfResources",
         "the block asks for more registers or shared memory than an SM has: use smaller "
         "blocks"},
    };
    if (!error || (p->emulated && strcmp(error, "cudaErrorLaunchFailure") == 0))
        return NULL;
    if (p->cols && strcmp(error, "cudaErrorInvalidConfiguration") == 0)
        return "the launch shape is impossible: a grid needs at least 1 block each way (so "
               "launch nothing when rows or cols is 0, and round the blocks of each side up: "
               "cols / 32 is 0 blocks when cols < 32) and a block at most 1024 threads";
    for (size_t k = 0; k < sizeof hints / sizeof hints[0]; k++)
        if (strcmp(error, hints[k].error) == 0)
            return hints[k].hint;
    return NULL;
}

/* A matrix's element read or written past its end (index >= its count),
 * or written twice: the bounds advice in its rows and columns, not i < n,
 * and on a shape that is not square, the mistakes only squares forgive. */
const char *matrix_bounds_hint(const struct problem *p, const struct buffer *b,
                               unsigned long long index, bool twice)
{
    static char hint[512];
    size_t cols = b->cols, rows = b->count / cols;
    bool square = p->n == p->cols * p->cols;
    int len = snprintf(hint, sizeof hint,
                       "%s[%llu] %s %s[%llu][%llu]%s: '%s' is %zux%zu, so its element [i][j] is "
                       "%s[i * %zu + j] and needs two bounds tests, i < %zu and j < %zu. ",
                       b->name, index, twice ? "is" : "would be", b->name, index / cols,
                       index % cols, twice ? "" : ", past its last row", b->name, rows, cols,
                       b->name, cols, rows, cols);
    if (len < 0 || (size_t)len >= sizeof hint)
        return hint;
    if (square)
        snprintf(hint + len, sizeof hint - len, "%s",
                 twice ? "A write past the end of a row lands in the next row, on an element "
                         "another thread writes: is a test left out, or an index wrong?"
                       : "Is a test left out, or an index computed too large?");
    else
        snprintf(hint + len, sizeof hint - len,
                 "%sAn index that takes a row's length from the other side, or a bounds test "
                 "that compares a column with the rows (or a row with the columns), is right on "
                 "a square, and %s is not one",
                 twice ? "A write past the end of a row lands in the next row, on an element "
                         "another thread writes. "
                       : "",
                 size_text(p->n, p->cols));
    return hint;
}

/* The matrix whose name follows `after` in the emulation's report of a
 * stopped kernel, "... writes out[561] (file:line), past the end of
 * 'out' ...", and the index that follows the name; NULL if none. */
static const struct buffer *stopped_at(const struct problem *p, const char *error,
                                       const char *after, unsigned long long *index)
{
    const char *at = strstr(error, after);
    if (!at)
        return NULL;
    at += strlen(after);
    for (int k = 0; k < p->nbuf; k++) {
        const struct buffer *b = &p->buf[k];
        size_t len = strlen(b->name);
        if (b->cols && b->count && strncmp(at, b->name, len) == 0 && at[len] == '[' &&
            isdigit((unsigned char)at[len + 1])) {
            *index = strtoull(at + len + 1, NULL, 10);
            return b;
        }
    }
    return NULL;
}

/* A matrix lab's kernel that the emulation stopped at a write or a read
 * past a matrix's end, or at an element written twice: the hint, and in
 * *keep how much of the emulation's report to show (its own advice, worded
 * for arrays, i < n, left out). NULL for any other stop. */
const char *matrix_stop_hint(const struct problem *p, const char *error, size_t *keep)
{
    unsigned long long index;
    const struct buffer *b;
    *keep = strlen(error);
    const char *past = strstr(error, ", past the end of '");
    if (past && ((b = stopped_at(p, error, " writes ", &index)) ||
                 (b = stopped_at(p, error, " reads ", &index)))) {
        const char *advice = strstr(past, "): ");
        if (advice)
            *keep = (size_t)(advice + 1 - error);
        return matrix_bounds_hint(p, b, index, false);
    }
    if ((b = stopped_at(p, error, ": two blocks write ", &index)) ||
        (strstr(error, "The same line wrote the word twice") &&
         (b = stopped_at(p, error, "This thread writes ", &index))))
        return matrix_bounds_hint(p, b, index, true);
    return NULL;
}
