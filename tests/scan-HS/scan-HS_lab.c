/* scan-HS_lab.c: the scan-HS lab as the tests and the driver see it.
 * The inputs, the CPU reference, the byte counts and the known bugs are
 * shared by the three scan labs (common/scan.c); this file adds the stages
 * and how long a block's segment is. Four variants: exclusive and inclusive, of
 * ints (exact) and floats. */
#include "workbook.h"
#include "scan-HS.h"

extern const struct stage scan_hs_stages[];
extern const struct stage scan_hs_library;

static void scan_hs_setup(struct problem *p) { scan_setup(p, hs_segment(p->block), false); }
static void scan_hs_reference(struct problem *p) { scan_reference(p, hs_segment(p->block)); }

static const char *scan_hs_hint(const struct problem *p, const struct stage *s,
                                const struct buffer *b, const struct mismatch *m)
{
    return scan_hint(p, s, b, m, hs_segment(p->block), 0);
}

static int scan_hs_threads(const struct stage *s, int block)
{
    (void)s;
    return (int)hs_segment(block);
}

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
    .reference = scan_hs_reference,
    .bytes = scan_bytes,
    .reads = scan_reads,
    .hint = scan_hs_hint,
};

const struct lab *const workbook_lab = &scan_HS_lab;
