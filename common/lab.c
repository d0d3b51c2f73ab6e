/* lab.c: the lab model and its checks: stages, their facts and techniques,
 * the measures a technique is judged on, variants, and a problem's names.
 * Host only, tested without a GPU (tests/common). */
#define _GNU_SOURCE
#include "workbook.h"
#include "technique.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    return lab->grading.cases ? lab->grading.cases : workbook_grade_cases;
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
    if (lab->facts && lab->run.library)
        stage_facts(lab, lab->run.library);
    for (size_t k = 0; lab->facts && row_id(lab, k); k++)
        if (!stage_find(lab, row_id(lab, k)) &&
            !(lab->run.library && strcmp(lab->run.library->id, row_id(lab, k)) == 0))
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
    for (const struct technique *t = lab->technique.rows; t && t->id; t++)
        if (strcmp(t->id, s->id) == 0)
            return t;
    die("%s: spec/%s/%s_lab.c has no technique for stage %s: give it a row", lab->name,
        lab->name, lab->name, s->id);
    return NULL;
}

const struct grade_case *stage_technique_case(const struct lab *lab, const struct stage *s)
{
    for (const struct technique_case *c = lab->technique.elsewhere; c && c->id; c++)
        if (strcmp(c->id, s->id) == 0)
            return &c->at;
    return &lab->technique.at;
}

static bool technique_case_valid(const struct lab *lab, const struct grade_case *c)
{
    size_t n, cols;
    return c->size && (lab->matrix ? parse_shape(c->size, &n, &cols) : parse_size(c->size, &n)) &&
           c->block >= 1 && c->block <= 1024;
}

static void check_techniques(const struct lab *lab)
{
    if (!lab->technique.rows)
        die("%s: spec/%s/%s_lab.c has no techniques table", lab->name, lab->name, lab->name);
    for (const struct stage *s = lab->stages; s->id; s++) {
        stage_technique(lab, s);
        if (!s->teaches || !*s->teaches)
            die("%s: stage %s's row in the stage table lacks its idea in the handout's words "
                "(its fourth field, which the technique's verdict quotes)", lab->name, s->id);
    }
    for (const struct technique *t = lab->technique.rows; t->id; t++) {
        if (!stage_find(lab, t->id))
            die("%s: spec/%s/%s_lab.c has a technique for a stage %s, which the stage table "
                "lacks", lab->name, lab->name, lab->name, t->id);
        for (int k = 0; k < MAX_TRAITS && t->traits[k].of; k++)
            if (!t->traits[k].missing)
                die("%s: stage %s's technique says not what is missing when it fails",
                    lab->name, t->id);
    }
    for (const struct technique_case *c = lab->technique.elsewhere; c && c->id; c++)
        if (!stage_find(lab, c->id) || !technique_case_valid(lab, &c->at))
            die("%s: the technique case of stage %s names no stage, or no size with a block "
                "of 1 to 1024 threads", lab->name, c->id);
    if (!technique_case_valid(lab, &lab->technique.at) || !lab->handout)
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
             s->teaches, lab->handout, s->id);
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

/* ---- variants and a problem's names ------------------------------------ */

const char *hang_advice(const struct lab *lab)
{
    return lab->diagnosis.hang ? lab->diagnosis.hang
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
