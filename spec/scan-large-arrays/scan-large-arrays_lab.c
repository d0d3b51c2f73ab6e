/* scan-large-arrays_lab.c: the scan-large-arrays lab as the tests and the driver see it.
 * The inputs, the CPU reference, the byte counts and the readings of a wrong
 * scan are shared by the three scan labs (spec/scan/scan.c); this file adds
 * the stages, how big a block's tile is, and which bugs each stage can
 * have. Four variants: exclusive and inclusive, of ints (exact) and floats. */
#include "workbook.h"
#include "technique.h"
#include "scan-large-arrays.h"

#include <stdio.h>

static void scan_large_setup(struct problem *p) { scan_setup(p, 0, true); }
static void scan_large_reference(struct problem *p) { scan_reference(p, 0); }

/* Where each stage's tiles get their carry from the tiles before them. */
struct facts {
    const char *id;
    const char *carry; /* NULL for the library */
};
static const struct facts scan_large_facts[] = {
    {"1", "the tiles' totals are stored, scanned, then added to every value of the tile after"},
    {"2", "the second pass starts each tile from carries[blockIdx.x]"},
    {"3", "a tile starts from the prefix it waited for"},
    {"4", "a tile starts from the prefix it looked back for"},
    {"lib", NULL},
    {NULL, NULL},
};

static const char *scan_large_hint(const struct problem *p, const struct stage *s,
                                   const struct buffer *b, const struct mismatch *m)
{
    static char hint[400];
    size_t tile = tile_size(p->block);
    const char *why = scan_hint_any(p, b);
    if (!why && facts(s)->carry && scan_off_per_run(p, b, tile, p->n)) {
        snprintf(hint, sizeof hint,
                 "each tile is right on its own, but every tile after the first is off by one "
                 "amount: the carry from the tiles before it was not added (%s)",
                 facts(s)->carry);
        why = hint;
    }
    if (!why && scan_off_per_run(p, b, ITEMS, tile))
        why = "each thread's values are right among themselves, but from a tile's second "
              "thread on each is off by one amount: the sum of the threads before it in the "
              "tile (block_scan_exclusive's result) is missing from its start";
    if (!why && m->first > 0 && m->first % tile == 0) {
        snprintf(hint, sizeof hint,
                 "everything before out[%zu] is right, and it opens tile %zu: the carry from "
                 "the tiles before it is missing or wrong (the scanned tile totals, or the "
                 "prefix a tile waits or looks back for)",
                 m->first, m->first / tile);
        why = hint;
    }
    return why;
}

static int scan_large_threads(const struct stage *s, int block)
{
    (void)s;
    return tile_threads(block);
}

static size_t scan_large_tile(const struct stage *s, int block)
{
    (void)s;
    return tile_size(block);
}

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/06-scan-large-arrays.md. */
static const struct technique scan_large_arrays_techniques[] = {
    {"1", {{0}}},
    {"2",
     {{bytes_stored_per_output, AT_MOST, 1.5, "the output is written twice: the tiles' sums "
                                              "are added after the scan"}}},
#define SINGLE_PASS                                                                         \
    {traffic, AT_MOST, 1.25, "the data is read more than once: not a single pass"}
    {"3", {SINGLE_PASS}},
    {"4",
     {SINGLE_PASS, {flag_stores_per_block, AT_LEAST, 1.5, "a tile publishes only its prefix: "
                                                          "not its total first"}}},
#undef SINGLE_PASS
    {0},
};

const struct lab scan_large_arrays_lab = {
    .name = "scan-large-arrays",
    .operation = "prefix sums of all n values",
    .stages = scan_large_stages,
    .variants = scan_variants,
    .threads = scan_large_threads,
    .tile = scan_large_tile,
    .args_size = sizeof(struct args),
    .setup = scan_large_setup,
    .reference = LAB_REFERENCE(scan_large_reference),
    .facts = scan_large_facts,
    .facts_size = sizeof scan_large_facts[0],
    .handout = "06-scan-large-arrays",
    .run.library = &scan_large_library,
    .run.sweep_stage = "4",
    .diagnosis.hint = scan_large_hint,
    .diagnosis.hang = "stages 3 and 4 wait for other tiles' status words. A wait that never ends "
            "usually means: the tile number came from blockIdx.x instead of the atomic "
            "counter; the word is read through a pointer that is not volatile (the compiler "
            "reads it once); a tile waits on its own word, or on one no tile ever writes "
            "(tile 0 must publish without waiting); or the flag tested is not the one "
            "published.",
    .technique.rows = scan_large_arrays_techniques,
    .technique.at = {"131075", 256},
};

const struct lab *const workbook_lab = &scan_large_arrays_lab;
