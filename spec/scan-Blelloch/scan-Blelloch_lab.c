/* scan-Blelloch_lab.c: the scan-Blelloch lab as the tests and the driver see it.
 * The inputs, the CPU reference, the byte counts and the readings of a wrong
 * scan are shared by the three scan labs (spec/scan/scan.c); this file adds
 * the stages, how long a block's segment is, and which bugs each stage can
 * have. Four variants: exclusive and inclusive, of ints (exact) and floats. */
#include "workbook.h"
#include "technique.h"
#include "scan-Blelloch.h"

#include <stdio.h>

static void scan_blelloch_setup(struct problem *p) { scan_setup(p, blelloch_segment(p->block), false); }
static void scan_blelloch_reference(struct problem *p) { scan_reference(p, blelloch_segment(p->block)); }

/* How each stage holds and scans its segment. */
struct facts {
    const char *id;
    unsigned values;   /* a thread's values: the segment is values x threads */
    bool in_registers; /* each thread scans its values in registers first */
    bool clears_root;  /* an exclusive down-sweep from a cleared root */
    bool padded;       /* every index of the tree padded against bank conflicts */
};
static const struct facts scan_blelloch_facts[] = {
    {"1", 2, false, true, false},
    {"2", 2, false, true, true},
    {"3", 2, false, false, false},
    {"4", ITEMS, true, true, false},
    {"lib", 2, false, true, false},
    {NULL, 0, false, false, false},
};

static const char *scan_blelloch_hint(const struct problem *p, const struct stage *s,
                                      const struct buffer *b, const struct mismatch *m)
{
    static char hint[400];
    size_t segment = blelloch_segment(p->block), r = m->first % segment;
    const char *why = scan_hint_any(p, b);
    if (!why && facts(s)->clears_root)
        why = scan_hint_root(p, b, segment);
    if (!why && facts(s)->in_registers && scan_off_per_run(p, b, facts(s)->values, segment))
        why = "each thread's values are scanned right among themselves, but from a segment's "
              "second thread on, each thread's run is off by one amount: the thread's leaf "
              "of the tree, the sum of the threads before it, was not added (or was read "
              "before the last __syncthreads())";
    if (!why && facts(s)->padded && r == 32) {
        snprintf(hint, sizeof hint,
                 "everything before out[%zu] is right, and it is value 32 of its segment: the "
                 "first index that padding moves (k + k / 32 differs from k from 32 on). Is "
                 "every index of the tree padded, in the loads, both sweeps, the root and the "
                 "stores alike?",
                 m->first);
        why = hint;
    }
    return why;
}

static int scan_blelloch_threads(const struct stage *s, int block)
{
    return (int)(blelloch_segment(block) / facts(s)->values);
}

static size_t scan_blelloch_tile(const struct stage *s, int block)
{
    (void)s;
    return blelloch_segment(block);
}

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/05-scan-Blelloch.md. */
static const struct technique scan_Blelloch_techniques[] = {
    {"1", {{0}}},
/* Conflicts per value, not wavefronts per request: accesses that conflict
 * in no bank would water a ratio down. Stage 1's tree takes about 1 extra
 * wavefront a value, stage 2's none, stage 3's about 0.07 (its down phase
 * about 0.04, the exclusive form's shifted read the rest). */
#define PADDED                                                                              \
    {shared_bank_conflicts_per_element, AT_MOST, 0.25,                                      \
     "shared memory accesses conflict in banks: the indices are not padded"}
    {"2", {PADDED}},
    {"3",
     {PADDED, {shared_stores_per_element, AT_MOST, 0.13, "the down phase swaps and adds: "
                                                         "Blelloch's, not Brent-Kung's"}}},
    /* a tree over the threads' totals takes 0.09 shared requests a value; one over every
     * value, eight a thread, 0.34 */
    {"4",
     {{elements_per_thread, AT_LEAST, 6, "each thread holds one or two values"},
      {shared_requests_per_element, AT_MOST, 0.18,
       "every value goes through the shared tree: a thread's values are not scanned in "
       "registers first"}}},
#undef PADDED
    {0},
};

const struct lab scan_Blelloch_lab = {
    .name = "scan-Blelloch",
    .operation = "prefix sums of each block's segment of n values (two values a thread, eight in stage 4)",
    .stages = scan_blelloch_stages,
    .variants = scan_variants,
    .threads = scan_blelloch_threads,
    .tile = scan_blelloch_tile,
    .args_size = sizeof(struct args),
    .setup = scan_blelloch_setup,
    .reference = LAB_REFERENCE(scan_blelloch_reference),
    .facts = scan_blelloch_facts,
    .facts_size = sizeof scan_blelloch_facts[0],
    .handout = "05-scan-Blelloch",
    .run.library = &scan_blelloch_library,
    .run.sweep_stage = "4",
    .diagnosis.hint = scan_blelloch_hint,
    .technique.rows = scan_Blelloch_techniques,
    .technique.at = {"131075", 256},
};

const struct lab *const workbook_lab = &scan_Blelloch_lab;
