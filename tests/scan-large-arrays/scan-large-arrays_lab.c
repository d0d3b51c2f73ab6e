/* scan-large-arrays_lab.c: the scan-large-arrays lab as the tests and the driver see it.
 * The inputs, the CPU reference, the byte counts and the known bugs are
 * shared by the three scan labs (common/scan.c); this file adds the stages
 * and how big a block's tile is. Four variants: exclusive and inclusive, of
 * ints (exact) and floats. */
#include "workbook.h"
#include "scan-large-arrays.h"

extern const struct stage scan_large_stages[];
extern const struct stage scan_large_library;

static void scan_large_setup(struct problem *p) { scan_setup(p, 0, true); }
static void scan_large_reference(struct problem *p) { scan_reference(p, 0); }

static const char *scan_large_hint(const struct problem *p, const struct stage *s,
                                   const struct buffer *b, const struct mismatch *m)
{
    return scan_hint(p, s, b, m, 0, tile_size(p->block));
}

static int scan_large_threads(const struct stage *s, int block)
{
    (void)s;
    return tile_threads(block);
}

const struct lab scan_large_arrays_lab = {
    .name = "scan-large-arrays",
    .operation = "prefix sums of all n values",
    .stages = scan_large_stages,
    .variants = scan_variants,
    .library = &scan_large_library,
    .threads = scan_large_threads,
    .sweep_stage = "4",
    .args_size = sizeof(struct args),
    .setup = scan_large_setup,
    .reference = scan_large_reference,
    .bytes = scan_bytes,
    .reads = scan_reads,
    .hint = scan_large_hint,
    .hang = "stages 3 and 4 wait for other tiles' status words. A wait that never ends "
            "usually means: the tile number came from blockIdx.x instead of the atomic "
            "counter; the word is read through a pointer that is not volatile (the compiler "
            "reads it once); a tile waits on its own word, or on one no tile ever writes "
            "(tile 0 must publish without waiting); or the flag tested is not the one "
            "published.",
};

const struct lab *const workbook_lab = &scan_large_arrays_lab;
