/* scan-HS_lab.c: the scan-HS lab as the tests and the driver see it.
 * The inputs, the CPU reference, the byte counts and the readings of a wrong
 * scan are shared by the three scan labs (spec/scan/scan.c); this file adds
 * the stages, how long a block's segment is, and which bugs each stage can
 * have. Four variants: exclusive and inclusive, of ints (exact) and floats. */
#include "workbook.h"
#include "technique.h"
#include "scan-HS.h"


static void scan_hs_setup(struct problem *p) { scan_setup(p, hs_segment(p->block), false); }
static void scan_hs_reference(struct problem *p) { scan_reference(p, hs_segment(p->block)); }

/* Stages 3 and 4 scan each warp with shuffles, then the warps' totals; the
 * others go step by step over the whole segment. A block scans one segment,
 * or stage 4's SEGMENTS4 side by side. */
struct facts {
    const char *id;
    bool warp_scans;
    unsigned segments; /* a block's */
};
static const struct facts scan_hs_facts[] = {
    {"1", false, 1}, {"2", false, 1}, {"3", true, 1}, {"4", true, SEGMENTS4}, {"lib", false, 1},
    {NULL, false, 1},
};

static const char *scan_hs_hint(const struct problem *p, const struct stage *s,
                                const struct buffer *b, const struct mismatch *m)
{
    size_t segment = hs_segment(p->block);
    const char *hint = scan_hint_any(p, b);
    if (!hint && facts(s)->warp_scans && scan_off_per_run(p, b, 32, segment))
        hint = "each warp's scan is right on its own, but from a segment's second warp on each "
               "warp is off by one amount: it did not add the totals of the warps before it in "
               "its own segment (or read them before a __syncthreads() made them ready)";
    if (!hint && !facts(s)->warp_scans)
        hint = scan_hint_steps(p, b, m, segment);
    return hint;
}

static int scan_hs_threads(const struct stage *s, int block)
{
    (void)s;
    return (int)hs_segment(block);
}

static size_t scan_hs_tile(const struct stage *s, int block)
{
    return facts(s)->segments * hs_segment(block);
}

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/04-scan-HS.md. */
static const struct technique scan_HS_techniques[] = {
    {"1", {{0}}},
    {"2",
     {{barriers_per_block, AT_LEAST, 14, "one barrier a step: the scan is not done in place"},
      {shared_footprint_per_element, AT_MOST, 6,
       "two shared words a value: two arrays, so the scan is not done in place"}}},
/* Per value, so that work done for nothing cannot buy them: a warp's scan
 * of 32 values takes five shuffles (0.16 a value) and leaves shared memory
 * only the warps' totals (0.07 requests a value; 0.18 with those totals
 * scanned by one thread), where five steps through shared memory take two
 * requests each (over 0.3 a value). */
#define WARP_SCANS                                                                          \
    {shuffles_per_element, AT_LEAST, 0.14,                                                  \
     "too few warp shuffles: a warp's scan of 32 values takes five (log2 32)"},              \
    {shared_requests_per_element, AT_MOST, 0.25,                                            \
     "the warps' steps go through shared memory: with shuffles, only the warps' totals do"}
    {"3",
     {WARP_SCANS,
      {barriers_per_block, AT_MOST, 4, "a barrier at every step: the warps do not scan alone"}}},
    {"4",
     {{elements_per_thread, AT_LEAST, 2,
       "one value a thread: each block scans one segment, so each thread has one load in flight"},
      WARP_SCANS,
      {barriers_per_block, AT_MOST, 4,
       "more than four barriers a block: the segments do not share stage 3's two, so "
       "they are scanned one after another"},
      {loads_after_waiting_per_element, AT_MOST, 0,
       "a thread loads a value after its first shuffle or barrier: its loads are not all "
       "made first, so they are not all in flight at once"}}},
#undef WARP_SCANS
    {0},
};

const struct lab scan_HS_lab = {
    .name = "scan-HS",
    .operation = "prefix sums of each block's segment of n values (one value a thread)",
    .stages = scan_hs_stages,
    .variants = scan_variants,
    .threads = scan_hs_threads,
    .tile = scan_hs_tile,
    .args_size = sizeof(struct args),
    .setup = scan_hs_setup,
    .reference = LAB_REFERENCE(scan_hs_reference),
    .facts = scan_hs_facts,
    .facts_size = sizeof scan_hs_facts[0],
    .handout = "04-scan-HS",
    .run.library = &scan_hs_library,
    .run.sweep_stage = "3",
    .diagnosis.hint = scan_hs_hint,
    .technique.rows = scan_HS_techniques,
    .technique.at = {"131075", 256},
};

const struct lab *const workbook_lab = &scan_HS_lab;
