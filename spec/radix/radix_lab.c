/* radix_lab.c: the radix lab as the tests and the driver see it: its
 * inputs, its CPU reference (itself a radix sort) and the bugs it knows.
 * Seven kinds of keys (uniform unsigned, 16 distinct, all equal, already
 * sorted, reverse sorted, signed ints, floats of both signs with -0.0 and
 * +0.0), each sorted alone and as pairs whose value is the key's index in
 * the input, which makes stability checkable exactly. */
#include "workbook.h"
#include "technique.h"
#include "radix.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { UNIFORM, FEW, EQUAL, SORTED, REVERSE, SIGNED, FLOATS, KINDS };

static const char *const radix_variants[] = {
    "u32", "u32-few", "u32-equal", "u32-sorted", "u32-reverse", "i32", "f32",
    "u32-pairs", "u32-few-pairs", "u32-equal-pairs", "u32-sorted-pairs", "u32-reverse-pairs",
    "i32-pairs", "f32-pairs", NULL,
};

static enum kind kind_of(const struct problem *p) { return (enum kind)(p->variant % KINDS); }
static bool pairs(const struct problem *p) { return p->variant >= KINDS; }
static enum elem type_of(const struct problem *p)
{
    return kind_of(p) == SIGNED ? I32 : kind_of(p) == FLOATS ? F32 : U32;
}

/* The CPU's twin of radix.cu's sortable (-0.0 sorts as +0.0, as in CUB),
 * kept apart on purpose: an edit to the student's copy must not change what
 * the tests expect. */
static uint32_t sortable(uint32_t bits, enum elem type)
{
    if (type == I32)
        return bits ^ 0x80000000u;
    if (type == F32) {
        if (bits == 0x80000000u)
            bits = 0;
        return bits ^ (bits >> 31 ? 0xffffffffu : 0x80000000u);
    }
    return bits;
}

static uint32_t random_word(uint64_t *state) { return (uint32_t)(rng_next(state) >> 32); }

/* A finite float of either sign, its exponent anywhere from subnormal to
 * the largest; one in 64 is -0.0 or +0.0. */
static uint32_t random_float(uint64_t *state)
{
    uint32_t r = random_word(state), sign = r & 0x80000000u;
    if (r % 64 == 0)
        return sign;
    uint32_t exponent = random_word(state) % 255; /* 255 would be inf or NaN */
    return sign | exponent << 23 | (random_word(state) & 0x7fffffu);
}

static void fill_keys(const struct problem *p, uint32_t *k)
{
    uint64_t state = p->seed;
    size_t n = p->n;
    uint32_t few[16], one = random_word(&state);
    for (int d = 0; d < 16; d++)
        few[d] = random_word(&state);
    for (size_t i = 0; i < n; i++) {
        uint32_t rising = (uint32_t)((uint64_t)i * 0xffffffffu / (n > 1 ? n - 1 : 1));
        switch (kind_of(p)) {
        case FEW: k[i] = few[random_word(&state) % 16]; break;
        case EQUAL: k[i] = one; break;
        case SORTED: k[i] = rising; break;
        case REVERSE: k[i] = ~rising; break;
        case FLOATS: k[i] = random_float(&state); break;
        default: k[i] = random_word(&state); break; /* UNIFORM, SIGNED */
        }
    }
}

static void radix_setup(struct problem *p)
{
    size_t n = p->n;
    if (n > UINT_MAX)
        die("N=%zu: radix places keys with 32-bit positions: choose N below 2^32", n);
    /* floats are compared as their bit patterns, so that -0.0 is not +0.0 */
    enum elem shown = type_of(p) == I32 ? I32 : U32;
    struct buffer *keys_in = problem_add_input(p, "keys_in", shown, n);
    struct buffer *keys_out = problem_add_output(p, "keys_out", shown, n, 0, 0);
    struct args *a = p->args;
    a->type = type_of(p);
    a->pairs = pairs(p);
    a->n = n;
    fill_keys(p, keys_in->host);
    a->keys_in = keys_in->dev;
    a->keys_out = keys_out->dev;
    a->keys_tmp = problem_add_scratch(p, "keys_tmp", U32, n)->dev;
    if (a->pairs) {
        struct buffer *values_in = problem_add_input(p, "values_in", U32, n);
        for (size_t i = 0; i < n; i++)
            ((uint32_t *)values_in->host)[i] = (uint32_t)i;
        a->values_in = values_in->dev;
        a->values_out = problem_add_output(p, "values_out", U32, n, 0, 0)->dev;
        a->values_tmp = problem_add_scratch(p, "values_tmp", U32, n)->dev;
    }
    /* a count a digit and tile: stage 2 has 16 digits, 3a and 3b 256, and no
     * tile is smaller than 32 threads of ITEMS keys */
    size_t tiles = n / (32 * ITEMS) + 1, counts = 256 * tiles > n ? 256 * tiles : n;
    a->flags = problem_add_scratch(p, "flags", U32, counts)->dev;
    a->positions = problem_add_scratch(p, "positions", U32, counts)->dev;
    a->bins = problem_add_scratch(p, "bins", U32, 8 * 256)->dev;
    a->status = problem_add_scratch(p, "status", U64, 1 + 256 * tiles)->dev;
    p->bytes = (a->pairs ? 16.0 : 8.0) * n; /* keys (and values) read once, written once */
}

/* An LSD radix sort on one core: four passes of a stable counting sort, a
 * byte each, keys and values moving together. */
static void radix_reference(struct problem *p)
{
    size_t n = p->n;
    const uint32_t *keys_in = problem_buffer(p, "keys_in")->host;
    uint32_t *keys = problem_buffer(p, "keys_out")->host;
    uint32_t *values = pairs(p) ? problem_buffer(p, "values_out")->host : NULL;
    uint32_t *spare_keys = malloc((n ? n : 1) * sizeof *spare_keys);
    uint32_t *spare_values = malloc((n ? n : 1) * sizeof *spare_values);
    if (!spare_keys || !spare_values)
        die("out of host memory");
    enum elem type = type_of(p);
    memcpy(keys, keys_in, n * sizeof *keys);
    for (size_t i = 0; values && i < n; i++)
        values[i] = (uint32_t)i;
    for (int shift = 0; shift < 32; shift += 8) {
        size_t start[256] = {0};
        for (size_t i = 0; i < n; i++)
            start[sortable(keys[i], type) >> shift & 255]++;
        for (size_t d = 0, sum = 0; d < 256; d++) {
            size_t c = start[d];
            start[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++) {
            size_t to = start[sortable(keys[i], type) >> shift & 255]++;
            spare_keys[to] = keys[i];
            if (values)
                spare_values[to] = values[i];
        }
        memcpy(keys, spare_keys, n * sizeof *keys);
        if (values)
            memcpy(values, spare_values, n * sizeof *values);
    }
    free(spare_keys), free(spare_values);
}

/* The threads a block of each stage runs for BLOCK: stage 1 BLOCK as
 * given, stage 2 whole warps, stages 3a to 5 whole warps up to
 * MAX_THREADS3; and the keys each thread takes. */
static int as_given(int block) { return block; }
struct facts {
    const char *id;
    int (*threads)(int block);
    unsigned keys;
};
static const struct facts radix_facts[] = {
    {"1", as_given, 1},             {"2", tile_threads, ITEMS},
    {"3a", stage3_threads, ITEMS3}, {"3b", stage3_threads, ITEMS3},
    {"4", stage3_threads, ITEMS3},  {"5", stage3_threads, ITEMS3},
    {"lib", stage3_threads, ITEMS3}, {NULL, NULL, 0},
};

static int radix_threads(const struct stage *s, int block) { return facts(s)->threads(block); }
/* the keys a block takes at once */
static size_t radix_tile(const struct stage *s, int block)
{
    return facts(s)->keys * (size_t)facts(s)->threads(block);
}

/* ---- the bugs this lab knows -------------------------------------------- */

static int by_value(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* Do got and want hold the same keys, as often? */
static bool same_keys(const uint32_t *got, const uint32_t *want, size_t n)
{
    uint32_t *g = malloc((n ? n : 1) * sizeof *g), *w = malloc((n ? n : 1) * sizeof *w);
    if (!g || !w)
        die("out of host memory");
    memcpy(g, got, n * sizeof *g), memcpy(w, want, n * sizeof *w);
    qsort(g, n, sizeof *g, by_value), qsort(w, n, sizeof *w, by_value);
    bool same = memcmp(g, w, n * sizeof *g) == 0;
    free(g), free(w);
    return same;
}

/* Are keys[0..n) in order on their lowest `bits` bits (as order reads them)? */
static bool sorted_on(const uint32_t *keys, size_t n, int bits,
                      uint32_t (*order)(uint32_t, enum elem), enum elem type)
{
    uint32_t mask = bits == 32 ? 0xffffffffu : (1u << bits) - 1;
    for (size_t i = 1; i < n; i++)
        if ((order(keys[i - 1], type) & mask) > (order(keys[i], type) & mask))
            return false;
    return true;
}

static uint32_t raw(uint32_t bits, enum elem type)
{
    (void)type;
    return bits;
}

/* The bits of sortable(key) that run from large to small in keys[0..n):
 * each pair of neighbours that differ is in order on its highest differing
 * bit or against it, so the mask M for which the keys ascend in
 * sortable(key) ^ M has that bit set or clear. false if two pairs ask for
 * one bit both ways; *all: no pair ascends (the keys descend). */
static bool reversed_bits(const uint32_t *keys, size_t n, enum elem type, uint32_t *reversed,
                          bool *all)
{
    uint32_t set = 0, clear = 0;
    for (size_t i = 1; i < n; i++) {
        uint32_t a = sortable(keys[i - 1], type), b = sortable(keys[i], type);
        if (a == b)
            continue;
        uint32_t top = 1u << (31 - __builtin_clz(a ^ b));
        *(a & top ? &set : &clear) |= top;
    }
    *reversed = set;
    *all = clear == 0;
    return !(set & clear);
}

/* Are keys[0..n) in order on their highest `bits` bits? */
static bool sorted_on_high(const uint32_t *keys, size_t n, int bits, enum elem type)
{
    for (size_t i = 1; i < n; i++)
        if (sortable(keys[i - 1], type) >> (32 - bits) > sortable(keys[i], type) >> (32 - bits))
            return false;
    return true;
}

/* Is every run of `tile` keys in order on its own? */
static bool tiles_sorted(const uint32_t *keys, size_t n, size_t tile, enum elem type)
{
    for (size_t i = 1; i < n; i++)
        if (i % tile && sortable(keys[i - 1], type) > sortable(keys[i], type))
            return false;
    return true;
}

/* What the keys show; the keys a block sorts at once are `tile` (0: stage
 * 1, no tiles). NULL when they show no one cause. */
static const char *keys_hint(const struct problem *p, const struct buffer *b,
                             const struct mismatch *m, size_t tile)
{
    static char hint[400];
    const uint32_t *got = b->got, *want = b->host;
    enum elem type = type_of(p);
    if (m->unwritten == p->n)
        return "every key in keys_out is the poison value: the last pass never wrote keys_out "
               "(pass_buffers says where each pass reads and writes; a sort of P passes runs "
               "all P), or it copied there what no thread had written (a slot of a tile in "
               "shared memory, a place in the array the pass before it wrote)";
    if (!same_keys(got, want, p->n))
        return "some keys are missing and others are there twice: two keys were given the "
               "same place in some pass; check each key's place (its digit's start, plus the "
               "keys of the same digit before it), at tile and block boundaries too. If the "
               "wrong keys change from run to run, a barrier is missing (EMU=1 names the "
               "racing lines)";
    if (type != U32 && sorted_on(got, p->n, 32, raw, type))
        return "the keys are sorted as unsigned numbers: negative ones come after the "
               "positive ones. The digits must come from sortable(key, type), which flips "
               "the bits that make unsigned order the type's order";
    int bits = 31;
    while (bits > 0 && !sorted_on(got, p->n, bits, sortable, type))
        bits--;
    if (bits >= 4) {
        snprintf(hint, sizeof hint,
                 "the keys are in order on their lowest %d bits but not on the bits above: "
                 "the passes on the high digits were left out or did not take effect (the "
                 "last pass must write keys_out)",
                 bits);
        return hint;
    }
    uint32_t reversed;
    bool all;
    if (reversed_bits(got, p->n, type, &reversed, &all) && reversed) {
        if (all)
            return "every key is there once, sorted from the largest down: each pass put the "
                   "keys of the larger digit first. A digit's keys start after those of every "
                   "smaller digit (in stage 1, the keys whose bit is 0 go first)";
        snprintf(hint, sizeof hint,
                 "every key is there once, in order but for bits %d to %d, whose values run "
                 "from large to small: the pass on those bits put the keys of the larger "
                 "digit first. A digit's keys start after those of every smaller digit",
                 __builtin_ctz(reversed), 31 - __builtin_clz(reversed));
        return hint;
    }
    if (tile && p->n > tile && tiles_sorted(got, p->n, tile, type)) {
        snprintf(hint, sizeof hint,
                 "every key is there once, and each tile of %zu keys is in order on its own, "
                 "but the tiles are not merged: no key left its tile's stretch of keys_out. A "
                 "key's place is its digit's start over all the tiles (the digit-major scan "
                 "of the counts), plus its rank among its tile's keys of that digit",
                 tile);
        return hint;
    }
    bits = 1;
    while (bits < 32 && sorted_on_high(got, p->n, bits + 1, type))
        bits++;
    if (sorted_on_high(got, p->n, bits, type)) {
        snprintf(hint, sizeof hint,
                 "every key is there once, in order on the highest %d bits only: the last pass "
                 "placed each key by its digit, but the order of the passes before it was "
                 "lost. Each pass must be stable (a key goes after every key of its digit "
                 "that came before it) and read what the pass before it wrote",
                 bits);
        return hint;
    }
    return NULL;
}

static const char *radix_hint(const struct problem *p, const struct stage *s,
                              const struct buffer *b, const struct mismatch *m)
{
    if (strcmp(b->name, "keys_out") == 0)
        /* stage 1 sorts no tiles: a key a thread, a bit a pass */
        return keys_hint(p, b, m, facts(s)->keys > 1 ? radix_tile(s, p->block) : 0);
    /* the keys were right (they are compared first), the values not */
    return "the keys are right but their values are not: equal keys left their input order "
           "(each pass must be stable: a key goes after every key of its digit that came "
           "before it), or the values did not move with their keys";
}


/* make grade's sizes: the workbook's, but 30011 keys in place of 100003
 * (stage 1's 32 one-bit passes took half of a submission's time), which at
 * every block size still spans two tiles or more. */
static const struct grade_case radix_grade_cases[] = {
    {"0", 256}, {"1", 256}, {"33", 256}, {"1025", 256}, {"30011", 256}, {"30011", 32}, {"30011", 1024},
    {NULL, 0},
};

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/08-radix.md. */
static const struct technique radix_techniques[] = {
    {"1", {{0}}},
    {"2", {{bytes_stored_per_output, AT_MOST, 9, "more than 8 passes over the keys"}}},
    {"3a", {{bytes_stored_per_output, AT_MOST, 5, "more than 4 passes over the keys"}}},
    /* sectors stored per sector of the output, over the four passes: runs
     * make about 8, keys written from registers about 32 */
    {"3b",
     {{store_sectors_per_output_sector, AT_MOST, 16, "keys written from registers, not as runs "
                                                     "of the sorted tile"},
      {bytes_stored_per_output, AT_MOST, 5, "more than 4 passes over the keys"}}},
    /* a tile publishes its 256 counts before it waits for any other tile */
    {"4",
     {{traffic, AT_MOST, 7, "the keys are read twice a pass: not one count for all four"},
      {flag_stores_per_block, AT_LEAST, 384, "a tile publishes only its prefixes: not its "
                                              "counts first"},
      {flag_stores_before_waiting_per_block, AT_LEAST, 128, "a tile publishes only after it "
                                                            "waits for the tiles before: not "
                                                            "its counts first"}}},
    {"5", {{launches, AT_MOST, 1, "more than one launch for keys that fit one tile"}}},
    {0},
};
/* Stage 5's idea shows only where the keys fit one tile (256 x ITEMS3). */
static const struct technique_case radix_technique_cases[] = {{"5", {"4099", 256}}, {0}};

const struct lab radix_lab = {
    .name = "radix",
    .operation = "the keys sorted ascending, stably (pairs: each key's value with it)",
    .stages = radix_stages,
    .variants = radix_variants,
    .threads = radix_threads,
    .tile = radix_tile,
    .args_size = sizeof(struct args),
    .setup = radix_setup,
    .reference = LAB_REFERENCE(radix_reference),
    .facts = radix_facts,
    .facts_size = sizeof radix_facts[0],
    .handout = "08-radix",
    .run.library = &radix_library,
    .run.sweep_stage = "5",
    .run.items = "keys",
    .run.reference_name = "LSD radix sort, 8-bit digits",
    /* stage 1's 96 kernels a sort, on the CPU: above 2^16 keys one variant */
    .tests.emulated_all_variants_up_to = 1 << 16,
    /* 14 variants of 2^24 keys took 20-24 s of a test's 30 on the H100,
     * nearly all of it the host's: at that size one variant */
    .tests.all_variants_up_to = 1000003,
    .diagnosis.hint = radix_hint,
    .diagnosis.moves_values = true,
    .diagnosis.past_end = "a key was given a place past the end: a key's place is its digit's start "
            "plus the keys of the same digit before it (never itself), the digit taken at this "
            "pass's shift. If the place changes from run to run, a barrier is missing (EMU=1 "
            "names the racing lines)",
    .grading.cases = radix_grade_cases,
    .technique.rows = radix_techniques,
    .technique.at = {"131075", 256},
    .technique.elsewhere = radix_technique_cases,
};

const struct lab *const workbook_lab = &radix_lab;
