/* scan-HS_lab.c: the scan-HS lab as the tests and the driver see it.
 * The inputs, the CPU reference, the byte counts and the readings of a wrong
 * scan are shared by the three scan labs (tests/scan/scan.c); this file adds
 * the stages, how long a block's segment is, and which bugs each stage can
 * have. Four variants: exclusive and inclusive, of ints (exact) and floats. */
#include "workbook.h"
#include "scan-HS.h"


static void scan_hs_setup(struct problem *p) { scan_setup(p, hs_segment(p->block), false); }
static void scan_hs_reference(struct problem *p) { scan_reference(p, hs_segment(p->block)); }

/* Stage 3 scans each warp with shuffles, then the warps' totals; the others
 * go step by step over the whole segment. */
struct facts {
    const char *id;
    bool warp_scans;
};
static const struct facts scan_hs_facts[] = {
    {"1", false}, {"2", false}, {"3", true}, {"lib", false}, {NULL, false},
};

static const char *scan_hs_hint(const struct problem *p, const struct stage *s,
                                const struct buffer *b, const struct mismatch *m)
{
    size_t segment = hs_segment(p->block);
    const char *hint = scan_hint_any(p, b);
    if (!hint && facts(s)->warp_scans && scan_off_per_run(p, b, 32, segment))
        hint = "each warp's scan is right on its own, but from a block's second warp on each "
               "warp is off by one amount: the totals of the warps before it were not added in "
               "(or were read before a __syncthreads() made them ready)";
    if (!hint && !facts(s)->warp_scans)
        hint = scan_hint_steps(p, b, m, segment);
    return hint;
}

static int scan_hs_threads(const struct stage *s, int block)
{
    (void)s;
    return (int)hs_segment(block);
}

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/04-scan-HS.md. */
static const struct technique scan_HS_techniques[] = {
    {"1", "double-buffered shared memory", {{0}}},
    {"2", "in place: each step reads into a register, then writes, a barrier after each",
     {{barriers_per_block, AT_LEAST, 14, "one barrier a step: the scan is not done in place"}}},
    {"3", "warp shuffles, then a scan of the warps' totals",
     {{warp_shuffles, AT_LEAST, 1, "no warp shuffles"},
      {barriers_per_block, AT_MOST, 4, "a barrier at every step: the warps do not scan alone"}}},
    {NULL},
};

const struct lab scan_HS_lab = {
    .name = "scan-HS",
    .operation = "prefix sums of each block's segment of n values (one value a thread)",
    .stages = scan_hs_stages,
    .variants = scan_variants,
    .library = &scan_hs_library,
    .threads = scan_hs_threads,
    .sweep_stage = "3",
    .args_size = sizeof(struct args),
    .setup = scan_hs_setup,
    .reference = LAB_REFERENCE(scan_hs_reference),
    .hint = scan_hs_hint,
    .facts = scan_hs_facts,
    .facts_size = sizeof scan_hs_facts[0],
    .techniques = scan_HS_techniques,
    .technique_case = {"131075", 256},
    .handout = "04-scan-HS",
};

const struct lab *const workbook_lab = &scan_HS_lab;
