/* check.c: host-side checking, failure reports, random inputs. No CUDA here,
 * so all of it is tested without a GPU (tests/common). */
#define _GNU_SOURCE
#include "workbook.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* The id a facts row starts with. */
static const char *row_id(const struct lab *lab, size_t k)
{
    return *(const char *const *)((const char *)lab->facts + k * lab->facts_size);
}

static bool has_row(const struct lab *lab, const char *id, size_t *k)
{
    for (*k = 0; lab->facts && row_id(lab, *k); ++*k)
        if (strcmp(row_id(lab, *k), id) == 0)
            return true;
    return false;
}

const void *stage_facts(const struct lab *lab, const struct stage *s)
{
    size_t k;
    if (!has_row(lab, s->id, &k))
        die("%s: spec/%s/%s_lab.c has no facts for stage %s: give it a row", lab->name,
            lab->name, lab->name, s->id);
    return (const char *)lab->facts + k * lab->facts_size;
}

/* The sizes of every lab but those that say others: awkward ones, and the
 * block sizes the tests use. */
static const struct grade_case workbook_grade_cases[] = {
    {"0", 256}, {"1", 256}, {"33", 256}, {"1025", 256}, {"100003", 256}, {"100003", 32}, {"100003", 1024},
    {NULL, 0},
};

const struct grade_case *lab_grade_cases(const struct lab *lab)
{
    return lab->grade_cases ? lab->grade_cases : workbook_grade_cases;
}

static void check_techniques(const struct lab *lab);

void lab_check(const struct lab *lab)
{
    for (const struct stage *s = lab->stages; s->id; s++) {
        if (stage_find(lab, s->id) != s)
            die("%s: two stages have the id %s", lab->name, s->id);
        if (lab->facts)
            stage_facts(lab, s);
    }
    if (lab->facts && lab->library)
        stage_facts(lab, lab->library);
    for (size_t k = 0; lab->facts && row_id(lab, k); k++)
        if (!stage_find(lab, row_id(lab, k)) &&
            !(lab->library && strcmp(lab->library->id, row_id(lab, k)) == 0))
            die("%s: spec/%s/%s_lab.c has facts for a stage %s, which the stage table lacks",
                lab->name, lab->name, lab->name, row_id(lab, k));
    bool empty = lab->matrix; /* a matrix has no empty shape */
    for (const struct grade_case *c = lab_grade_cases(lab); c->size; c++) {
        size_t n, cols;
        empty |= strcmp(c->size, "0") == 0;
        if (!(lab->matrix ? parse_shape(c->size, &n, &cols) : parse_size(c->size, &n)) ||
            c->block < 1 || c->block > 1024)
            die("%s: the grading case %s, block %d, is no %s with a block of 1 to 1024 threads",
                lab->name, c->size, c->block, lab->matrix ? "ROWSxCOLS shape" : "size");
    }
    /* make test's first size: a grade must miss a forgotten n == 0 as it does */
    if (!empty)
        die("%s: the grading cases lack n = 0, which the tests check", lab->name);
    check_techniques(lab);
}

/* ---- techniques ----------------------------------------------------------- */

const struct technique *stage_technique(const struct lab *lab, const struct stage *s)
{
    for (const struct technique *t = lab->techniques; t && t->id; t++)
        if (strcmp(t->id, s->id) == 0)
            return t;
    die("%s: spec/%s/%s_lab.c has no technique for stage %s: give it a row", lab->name,
        lab->name, lab->name, s->id);
    return NULL;
}

const struct grade_case *stage_technique_case(const struct lab *lab, const struct stage *s)
{
    for (const struct technique_case *c = lab->technique_cases; c && c->id; c++)
        if (strcmp(c->id, s->id) == 0)
            return &c->at;
    return &lab->technique_case;
}

static bool technique_case_valid(const struct lab *lab, const struct grade_case *c)
{
    size_t n, cols;
    return c->size && (lab->matrix ? parse_shape(c->size, &n, &cols) : parse_size(c->size, &n)) &&
           c->block >= 1 && c->block <= 1024;
}

static void check_techniques(const struct lab *lab)
{
    if (!lab->techniques)
        die("%s: spec/%s/%s_lab.c has no techniques table", lab->name, lab->name, lab->name);
    for (const struct stage *s = lab->stages; s->id; s++)
        stage_technique(lab, s);
    for (const struct technique *t = lab->techniques; t->id; t++) {
        if (!stage_find(lab, t->id))
            die("%s: spec/%s/%s_lab.c has a technique for a stage %s, which the stage table "
                "lacks", lab->name, lab->name, lab->name, t->id);
        for (int k = 0; k < MAX_TRAITS && t->traits[k].of; k++)
            if (!t->traits[k].missing || !t->idea)
                die("%s: stage %s's technique says not what is missing when it fails",
                    lab->name, t->id);
    }
    for (const struct technique_case *c = lab->technique_cases; c && c->id; c++)
        if (!stage_find(lab, c->id) || !technique_case_valid(lab, &c->at))
            die("%s: the technique case of stage %s names no stage, or no size with a block "
                "of 1 to 1024 threads", lab->name, c->id);
    if (!technique_case_valid(lab, &lab->technique_case) || !lab->handout)
        die("%s: its technique case (a size, a block of 1 to 1024 threads) or handout is missing",
            lab->name);
}

const struct trait *technique_missing(const struct problem *p, const struct stage *s,
                                      const struct access_counts *c, double *got)
{
    const struct technique *t = stage_technique(p->lab, s);
    for (int k = 0; k < MAX_TRAITS && t->traits[k].of; k++) {
        const struct trait *r = &t->traits[k];
        *got = r->of(p, c);
        if (r->bound == AT_LEAST ? !(*got >= r->limit) : !(*got <= r->limit))
            return r;
    }
    return NULL;
}

void technique_sentence(const struct lab *lab, const struct stage *s, const struct trait *t,
                        char *text, size_t len)
{
    snprintf(text, len, "%s: this stage's idea is %s (handouts/%s.md, stage %s)", t->missing,
             stage_technique(lab, s)->idea, lab->handout, s->id);
}

/* The measures: figures of one run's counts. */
static double ratio(double a, double b) { return b > 0 ? a / b : 0; }
static double outputs(const struct problem *p)
{
    double count = 0;
    for (int i = 0; i < p->nbuf; i++)
        count += p->buf[i].role == OUTPUT ? (double)p->buf[i].count : 0;
    return count;
}
double problem_output_bytes(const struct problem *p)
{
    double bytes = 0;
    for (int i = 0; i < p->nbuf; i++)
        if (p->buf[i].role == OUTPUT)
            bytes += (double)p->buf[i].count * elem_size(p->buf[i].type);
    return bytes;
}
#define MEASURE(name, figure)                                                               \
    double name(const struct problem *p, const struct access_counts *c)                     \
    {                                                                                       \
        (void)p;                                                                            \
        return figure;                                                                      \
    }
MEASURE(shared_atomics, c->shared_atomics)
MEASURE(global_atomics_per_block, ratio(c->global_atomics, c->atomic_blocks))
MEASURE(global_atomics_per_block_and_output,
        ratio(ratio(c->global_atomics, c->atomic_blocks), outputs(p)))
MEASURE(warp_shuffles, c->shuffles)
MEASURE(warp_votes, c->votes)
MEASURE(launches, c->launches)
MEASURE(barriers_per_block, ratio(c->barriers, c->barrier_blocks))
MEASURE(elements_per_thread, ratio((double)p->n, c->main_threads))
MEASURE(load_bytes_per_lane, ratio(c->bytes[GLOBAL_LOAD], c->lanes[GLOBAL_LOAD]))
MEASURE(store_bytes_per_lane, ratio(c->bytes[GLOBAL_STORE], c->lanes[GLOBAL_STORE]))
MEASURE(load_sectors_per_request, ratio(c->units[GLOBAL_LOAD], c->requests[GLOBAL_LOAD]))
MEASURE(store_sectors_per_request, ratio(c->units[GLOBAL_STORE], c->requests[GLOBAL_STORE]))
MEASURE(lanes_per_store_request, ratio(c->lanes[GLOBAL_STORE], c->requests[GLOBAL_STORE]))
MEASURE(shared_load_wavefronts_per_request, ratio(c->units[SHARED_LOAD], c->requests[SHARED_LOAD]))
MEASURE(shared_wavefronts_per_request, ratio(c->units[SHARED_LOAD] + c->units[SHARED_STORE],
                                             c->requests[SHARED_LOAD] + c->requests[SHARED_STORE]))
MEASURE(shared_lanes_share, ratio(c->lanes[SHARED_LOAD] + c->lanes[SHARED_STORE],
                                  32 * (c->requests[SHARED_LOAD] + c->requests[SHARED_STORE])))
MEASURE(traffic, ratio(32 * (c->units[GLOBAL_LOAD] + c->units[GLOBAL_STORE]) + c->library_bytes,
                       p->bytes))
MEASURE(shared_stores_per_element, ratio(c->requests[SHARED_STORE], (double)p->n))
MEASURE(flag_stores_per_block, ratio(c->flag_stores, c->publishing_blocks))
MEASURE(bytes_stored_per_output, ratio(c->bytes[GLOBAL_STORE] + c->library_bytes / 2,
                                       problem_output_bytes(p)))
/* per element: over n, which no extra work can raise, so dummy work never lowers them */
MEASURE(shared_requests_per_element,
        ratio(c->requests[SHARED_LOAD] + c->requests[SHARED_STORE], (double)p->n))
/* bank conflicts as Nsight counts them: wavefronts beyond the fewest that serve the bytes */
MEASURE(shared_bank_conflicts_per_element,
        ratio(c->units[SHARED_LOAD] + c->units[SHARED_STORE] - c->ideal[SHARED_LOAD] -
                  c->ideal[SHARED_STORE],
              (double)p->n))
MEASURE(shared_bytes_per_element, ratio(c->bytes[SHARED_LOAD] + c->bytes[SHARED_STORE], (double)p->n))
MEASURE(barriers_per_element, ratio(c->barriers, (double)p->n))
MEASURE(atomics_per_element, ratio(c->global_atomics + c->shared_atomics, (double)p->n))
MEASURE(shuffles_per_warp, ratio(32 * c->shuffles, c->main_threads))
/* Costs per unit of the work every stage must do, which work that does
 * nothing can only raise, and mechanisms counted per element, which one
 * idle use cannot supply. */
MEASURE(elements_per_launched_thread, ratio((double)p->n, c->threads))
MEASURE(elements_per_block, ratio((double)p->n, c->blocks))
MEASURE(load_requests_per_element, ratio(c->requests[GLOBAL_LOAD], (double)p->n))
MEASURE(store_requests_per_element, ratio(c->requests[GLOBAL_STORE], (double)p->n))
MEASURE(store_sectors_per_output_sector,
        ratio(32 * c->units[GLOBAL_STORE] + c->library_bytes / 2, problem_output_bytes(p)))
MEASURE(shared_atomics_per_element, ratio(c->shared_atomics, (double)p->n))
MEASURE(global_atomics_per_element, ratio(c->global_atomics, (double)p->n))
MEASURE(flag_stores_before_waiting_per_block,
        ratio(c->flag_stores_before_waiting, c->publishing_blocks))
MEASURE(shuffles_per_element, ratio(c->shuffles, (double)p->n))
/* the shared memory the blocks need: each word once, however often touched */
MEASURE(shared_footprint_per_element, ratio(c->shared_footprint, (double)p->n))
MEASURE(busiest_thread_shared_accesses, c->busiest_thread_shared)
MEASURE(loads_after_waiting_per_element, ratio(c->loads_after_waiting, (double)p->n))
#undef MEASURE

void print_measures(FILE *out, const struct problem *p, const struct access_counts *c)
{
    static const struct {
        const char *name;
        measure *of;
    } all[] = {
#define M(name) {#name, name},
        WORKBOOK_MEASURES(M)
#undef M
    };
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        fprintf(out, "  %-36s %.4g\n", all[k].name, all[k].of(p, c));
}

bool stage_selected(const struct stage *s, const char *filter)
{
    if (!filter || !*filter)
        return true;
    for (const char *f = filter; *f; f += strcspn(f, ",") + (f[strcspn(f, ",")] == ',')) {
        size_t k = strcspn(f, ",");
        /* "4" takes "4a" but "1" must not take "10" */
        if (k > 0 && strncmp(s->id, f, k) == 0 &&
            (s->id[k] == '\0' || (s->id[k] >= 'a' && s->id[k] <= 'z')))
            return true;
    }
    return false;
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

static void format_value(char *out, size_t len, const struct buffer *b, double v, bool poison)
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
static const char *shape_hint(const struct problem *p, const struct buffer *b,
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
static const char *launch_hint(const struct problem *p, const char *error)
{
    static const struct {
        const char *error, *hint;
    } hints[] = {
        {"cudaErrorInvalidConfiguration",
         "the launch shape is impossible: a grid needs at least 1 block (so launch nothing "
         "when n == 0) and a block at most 1024 threads"},
        {"cudaErrorInvalidValue",
         "a launch or a copy was given an impossible value: a grid of 0 blocks, a block of "
         "more than 1024 threads, or more shared memory than a block may have"},
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
static const char *matrix_bounds_hint(const struct problem *p, const struct buffer *b,
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
static const char *matrix_stop_hint(const struct problem *p, const char *error, size_t *keep)
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

const char *hang_advice(const struct lab *lab)
{
    return lab->hang ? lab->hang
                     : "a kernel that never returns usually has a loop whose index never "
                       "reaches its bound, or threads waiting on a barrier or flag that never "
                       "comes";
}

int problem_threads(const struct problem *p, const struct stage *s)
{
    return p->lab->threads ? p->lab->threads(s, p->block) : p->block;
}

const char *problem_title(const struct problem *p, const struct stage *s)
{
    static char title[400];
    const char *variant = variant_name(p->lab, p->variant);
    char block[64];
    if (problem_threads(p, s) == p->block)
        snprintf(block, sizeof block, "block %d", p->block);
    else
        snprintf(block, sizeof block, "block %d (run as %d threads)", p->block,
                 problem_threads(p, s));
    snprintf(title, sizeof title, "%s stage %s (%s)%s%s, %s%s, %s, seed %llu", p->lab->name,
             s->id, s->idea, variant ? ", " : "", variant ? variant : "", p->cols ? "" : "n = ",
             size_text(p->n, p->cols), block, (unsigned long long)p->seed);
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

const char *reproduce_command(const struct problem *p, const struct stage *s)
{
    static char command[400];
    const char *variant = variant_name(p->lab, p->variant), *extra = getenv("WORKBOOK_MAKE_ARGS");
    snprintf(command, sizeof command, "make test LAB=%s STAGE=%s SEED=%llu%s%s%s%s%s", p->lab->name,
             s->id, (unsigned long long)p->seed, variant ? " VARIANT=" : "", variant ? variant : "",
             p->emulated ? " EMU=1" : "", extra && *extra ? " " : "", extra ? extra : "");
    return command;
}

/* ---- the report: made as data, put into words at the end ----------------- */

/* Text cut to fit ends with the bytes of a UTF-8 character that did not
 * fit: drop them, so that it stays text wherever it is written. */
static void drop_cut_character(char *text)
{
    size_t end = strlen(text), start = end; /* the last character starts at start - 1 */
    while (start > 0 && end - start < 3 && ((unsigned char)text[start - 1] & 0xC0) == 0x80)
        start--;
    unsigned char lead = start > 0 ? (unsigned char)text[start - 1] : 0;
    size_t bytes = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (lead && end - (start - 1) < bytes)
        text[start - 1] = '\0';
}

/* Append to a report's field, cut to fit. */
static void field_add(char *field, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void field_add(char *field, size_t size, const char *fmt, ...)
{
    size_t used = strlen(field);
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(field + used, size - used, fmt, ap);
    va_end(ap);
    if (k >= 0 && used + (size_t)k >= size)
        drop_cut_character(field);
}

/* "[1025]", or "[3][7]" in a matrix (b->cols a row) */
static void element_text(char *text, size_t len, const struct buffer *b, size_t index)
{
    if (b->cols)
        snprintf(text, len, "[%zu][%zu]", index / b->cols, index % b->cols);
    else
        snprintf(text, len, "[%zu]", index);
}

/* What is wrong, into r->what; returns the likely cause, or NULL. */
static const char *what_is_wrong(const struct problem *p, const struct stage *s,
                                 const struct finding *f, struct report *r)
{
    const struct buffer *b = f->buffer;
    const struct mismatch *m = &f->mismatch;
    size_t len = sizeof r->what;
    switch (f->verdict) {
    case KERNEL_FAILED:
        if (p->emulated && p->cols) {
            size_t keep;
            const char *hint = matrix_stop_hint(p, f->error, &keep);
            if (hint) {
                field_add(r->what, len, "the kernel was stopped: %.*s", (int)keep, f->error);
                return hint;
            }
        }
        if (p->emulated)
            field_add(r->what, len, "the kernel was stopped: %s", f->error);
        else
            field_add(r->what, len, "the kernel failed: %s (%s)", f->error,
                      f->error_name ? f->error_name : "?");
        return launch_hint(p, f->error_name);
    case GUARD_WRITTEN:
        field_add(r->what, len, "%s[%lld] was written, but '%s' has elements 0 to %zu only",
                  b->name, f->index, b->name, b->count ? b->count - 1 : 0);
        if (b->cols && f->index >= 0)
            return matrix_bounds_hint(p, b, (unsigned long long)f->index, false);
        return f->index < 0 ? "a thread wrote before the array's first element: an index "
                              "below zero (an unsigned count that wrapped, or i - 1 at i = 0)"
                            : "a thread whose index is >= n wrote anyway: the bounds test is "
                              "missing or off by one";
    case INPUT_CHANGED:
        field_add(r->what, len, "the input '%s' changed, first at element %lld", b->name,
                  f->index);
        return "a kernel must leave its inputs as it found them: work on a copy (in shared "
               "memory, in registers, or in the output)";
    case OUTPUT_WRONG: {
        char expected[64], got[64], first[64], last[64];
        element_text(first, sizeof first, b, m->first);
        element_text(last, sizeof last, b, m->last);
        format_value(expected, sizeof expected, b, m->expected, false);
        format_value(got, sizeof got, b, m->got,
                     is_poison((const char *)b->got + elem_size(b->type) * m->first,
                               elem_size(b->type)));
        field_add(r->what, len,
                  "%s%s: expected %s, got %s\n"
                  "%zu of %zu elements wrong (%zu never written), first at %s, last at %s",
                  b->name, first, expected, got, m->count, b->compared, m->unwritten, first,
                  last);
        if (b->type == F32)
            field_add(r->what, len, "\n(floats pass within %g + %g*|expected|)", b->atol,
                      b->rtol);
        r->untouched = m->unwritten == b->compared ||
                       (p->lab->untouched && p->lab->untouched(p, s, b, m));
        const char *hint = p->lab->hint ? p->lab->hint(p, s, b, m) : NULL;
        if (hint || (p->lab->moves_values && m->unwritten < b->compared))
            return hint;
        hint = read_poison_hint(p, b, m);
        return hint ? hint : shape_hint(p, b, m);
    }
    case RIGHT:
        break;
    }
    field_add(r->what, len, "nothing is wrong");
    return NULL;
}

/* The words of `why` with each number made '#', since one bug names other
 * indices at other sizes ("1 element" and "31 elements" alike). */
static void mask_numbers(const char *why, char *way, size_t len)
{
    size_t k = 0;
    bool counted = false; /* in the word after a number: a plural 's' is dropped */
    const char *c = why;
    for (; *c && k + 1 < len; c++) {
        bool digit = *c >= '0' && *c <= '9', letter = (*c | 32) >= 'a' && (*c | 32) <= 'z';
        if (digit && k > 0 && way[k - 1] == '#')
            continue;
        if (counted && *c == 's' && !((c[1] | 32) >= 'a' && (c[1] | 32) <= 'z'))
            continue;
        counted = (counted && letter) || (k > 0 && way[k - 1] == '#' && *c == ' ');
        way[k++] = digit ? '#' : *c;
    }
    way[k] = '\0';
    if (*c)
        drop_cut_character(way);
}

void report_make(const struct problem *p, const struct stage *s, const struct finding *f,
                 struct report *r)
{
    memset(r, 0, sizeof *r);
    r->variant = p->variant;
    field_add(r->title, sizeof r->title, "%s", problem_title(p, s));
    const char *cause = what_is_wrong(p, s, f, r);
    field_add(r->cause, sizeof r->cause, "%s", cause ? cause : "");
    field_add(r->reproduce, sizeof r->reproduce, "%s", reproduce_command(p, s));
    char why[sizeof r->what];
    mask_numbers(report_why(r, why, sizeof why), r->way, sizeof r->way);
}

const char *report_why(const struct report *r, char *line, size_t len)
{
    const char *why = *r->cause ? r->cause : r->what;
    snprintf(line, len, "%.*s", (int)strcspn(why, "\n"), why);
    return line;
}

/* Text written into out's len bytes, cut to fit; used counts the bytes it
 * needs, which may pass len. */
struct writer {
    char *out;
    size_t len, used;
};

static void write_text(struct writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void write_text(struct writer *w, const char *fmt, ...)
{
    size_t at = w->used < w->len ? w->used : w->len;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(at < w->len ? w->out + at : NULL, w->len - at, fmt, ap);
    va_end(ap);
    w->used += k > 0 ? (size_t)k : 0;
}

static void write_body(struct writer *w, const struct report *r)
{
    for (const char *line = r->what; *line;) {
        size_t k = strcspn(line, "\n");
        write_text(w, "  %.*s\n", (int)k, line);
        line += k + (line[k] == '\n');
    }
    if (*r->cause)
        write_text(w, "  likely cause: %s\n", r->cause);
    write_text(w, "  reproduce: %s", r->reproduce);
}

int report_body(const struct report *r, char *msg, size_t len)
{
    struct writer w = {msg, len, 0};
    write_body(&w, r);
    return (int)w.used;
}

int report_text(const struct report *r, char *msg, size_t len)
{
    struct writer w = {msg, len, 0};
    write_text(&w, "%s:\n", r->title);
    write_body(&w, r);
    return (int)w.used;
}

/* ---- the report as text that travels ------------------------------------- */

static const char report_version[] = "workbook report 1";

/* A report's text fields, in the order they travel (its numbers first). */
static const struct {
    const char *key;
    size_t offset, size;
} report_fields[] = {
    {"title", offsetof(struct report, title), sizeof ((struct report *)0)->title},
    {"what", offsetof(struct report, what), sizeof ((struct report *)0)->what},
    {"cause", offsetof(struct report, cause), sizeof ((struct report *)0)->cause},
    {"way", offsetof(struct report, way), sizeof ((struct report *)0)->way},
    {"reproduce", offsetof(struct report, reproduce), sizeof ((struct report *)0)->reproduce},
};
enum { REPORT_FIELDS = sizeof report_fields / sizeof report_fields[0] };

int report_encode(const struct report *r, char *out, size_t len)
{
    struct writer w = {out, len, 0};
    write_text(&w, "%s\nvariant: %d\nuntouched: %d\n", report_version, r->variant, r->untouched);
    for (int k = 0; k < REPORT_FIELDS; k++) {
        const char *value = (const char *)r + report_fields[k].offset;
        write_text(&w, "%s: ", report_fields[k].key);
        for (size_t i = 0; i < report_fields[k].size && value[i]; i++)
            if (value[i] == '\\' || value[i] == '\n')
                write_text(&w, "\\%c", value[i] == '\n' ? 'n' : '\\');
            else
                write_text(&w, "%c", value[i]);
        write_text(&w, "\n");
    }
    write_text(&w, "end");
    return (int)w.used;
}

/* The line "key: value" at *at, its value unescaped into value[size]; *at
 * moves past it. false for another key, an unknown escape, a value too
 * long, or a line without its end. */
static bool take_line(const char **at, const char *key, char *value, size_t size)
{
    size_t k = strlen(key), n = 0;
    if (strncmp(*at, key, k) != 0 || strncmp(*at + k, ": ", 2) != 0)
        return false;
    const char *c = *at + k + 2;
    for (; *c && *c != '\n'; c++) {
        char ch = *c;
        if (ch == '\\' && (c[1] == 'n' || c[1] == '\\'))
            ch = *++c == 'n' ? '\n' : '\\';
        else if (ch == '\\')
            return false;
        if (n + 1 >= size)
            return false;
        value[n++] = ch;
    }
    if (*c != '\n')
        return false;
    value[n] = '\0';
    *at = c + 1;
    return true;
}

/* The line "key: N" at *at, N a whole number up to `most`. */
static bool take_number(const char **at, const char *key, int most, int *number)
{
    char text[16], *end;
    if (!take_line(at, key, text, sizeof text) || !(*text >= '0' && *text <= '9'))
        return false;
    long v = strtol(text, &end, 10);
    if (*end || v > most)
        return false;
    *number = (int)v;
    return true;
}

bool report_decode(const char *text, struct report *r)
{
    memset(r, 0, sizeof *r);
    size_t k = strlen(report_version);
    if (!text || strncmp(text, report_version, k) != 0 || text[k] != '\n')
        return false;
    const char *at = text + k + 1;
    int untouched;
    if (!take_number(&at, "variant", 9999, &r->variant) ||
        !take_number(&at, "untouched", 1, &untouched))
        return false;
    r->untouched = untouched;
    for (int f = 0; f < REPORT_FIELDS; f++)
        if (!take_line(&at, report_fields[f].key, (char *)r + report_fields[f].offset,
                       report_fields[f].size))
            return false;
    return strcmp(at, "end") == 0;
}

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
