/* compact_lab.c: the compact lab as the tests and the driver see it: its
 * inputs, its CPU reference, how an unordered stage is compared, and the
 * bugs it knows. Nine variants: ints kept when even and floats kept above a
 * threshold, with about half, 1 % (sparse), 99 % (dense), none or all of
 * them kept, and ints kept in runs of 32, so that every warp's and tile's
 * edge is a change between kept and not. */
#include "workbook.h"
#include "technique.h"
#include "compact.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const compact_variants[] = {
    "int-half", "int-sparse", "int-dense", "int-none", "int-all", "int-runs",
    "float-half", "float-sparse", "float-dense", NULL,
};
enum { RUNS = 5, FIRST_FLOAT = 6 };
/* The share of values kept, variant by variant (RUNS: every other 32). */
static const double share_kept[] = {0.5, 0.01, 0.99, 0, 1, 0.5, 0.5, 0.01, 0.99};

static bool ints(const struct problem *p) { return p->variant < FIRST_FLOAT; }

/* What each stage's idea means for reading what it wrote. */
enum reach { VALUES, CHUNKS, TILES }; /* how far past n its last loads reach */
struct facts {
    const char *id;
    bool whole_warps;       /* tile_threads(BLOCK) threads; else BLOCK as given */
    bool flags_scanned;     /* a value's place is the exclusive scan of the flags */
    enum reach reach;       /* CHUNKS: 32 * ITEMS values a warp; TILES: tile_size */
    bool unordered;         /* appends in any order: compared as a multiset */
    unsigned lane_values;   /* consecutive values a lane holds in one round of its warp */
    const char *offsets;    /* where a tile's offset comes from, or NULL (no tiles) */
    const char *ordered_by; /* what puts each value after those before it, or NULL */
};
#define ANY_ORDER                                                                          \
    "a value's place must count every kept value before it in the input, across rounds, " \
    "threads and tiles, not only in its own warp"
static const struct facts compact_facts[] = {
    {"1", .flags_scanned = true, .lane_values = 1, .ordered_by = ANY_ORDER},
    {"2", .whole_warps = true, .reach = TILES, .lane_values = 1,
     .offsets = "the scan of the tile counts and the last tile's count", .ordered_by = ANY_ORDER},
    {"3", .whole_warps = true, .reach = CHUNKS, .unordered = true, .lane_values = 1},
#define LOOKED_BACK                                                                           \
    .offsets = "the look-back and the last tile's count",                                     \
    .ordered_by = "each warp's values start after the warps before it in the tile (the scan " \
                  "of the warp counts) and the tiles before it (the look-back)"
    {"4a", .whole_warps = true, .reach = TILES, .lane_values = 1, LOOKED_BACK},
    {"4b", .whole_warps = true, .reach = TILES, .lane_values = 4, LOOKED_BACK},
#undef LOOKED_BACK
    {"lib", .whole_warps = true, .lane_values = 1, .ordered_by = ANY_ORDER},
    {0},
};

/* Values are distinct (for n up to 2^24), so a value found in the output
 * names the one place of the input it came from: i times an odd number is
 * a bijection modulo a power of two. */
static uint32_t distinct(size_t i, uint64_t seed, unsigned bits)
{
    return (uint32_t)((i * 2654435761u + seed) & ((1u << bits) - 1));
}

static void fill_ints(const struct problem *p, int *x)
{
    uint64_t state = p->seed;
    for (size_t i = 0; i < p->n; i++) {
        bool keep = p->variant == RUNS ? i / 32 % 2 == 0
                                       : (double)(rng_next(&state) >> 11) / 9007199254740992.0 <
                                             share_kept[p->variant];
        x[i] = 2 * (int)distinct(i, p->seed, 29) - (1 << 29) + !keep; /* kept: even */
    }
}

static void fill_floats(const struct problem *p, float *x)
{
    for (size_t i = 0; i < p->n; i++)
        x[i] = (float)distinct(i, p->seed, 24) / (1 << 24); /* exact, in [0, 1) */
}

static bool kept(const struct problem *p, const void *in, size_t i)
{
    if (ints(p))
        return ((const int *)in)[i] % 2 == 0;
    return ((const float *)in)[i] > ((const struct args *)p->args)->threshold;
}

static void compact_setup(struct problem *p)
{
    size_t n = p->n;
    if (n > UINT_MAX)
        die("N=%zu: compact counts and places values in 32 bits: choose N below 2^32", n);
    enum elem type = ints(p) ? I32 : F32;
    struct buffer *in = problem_add_input(p, "in", type, n);
    /* the count first: when it is wrong, that is the report */
    struct buffer *count = problem_add_output(p, "count", U32, 1, 0, 0);
    struct buffer *out = problem_add_output(p, "out", type, n, 0, 0);
    struct args *a = p->args;
    a->type = type;
    a->threshold = (float)(1 - share_kept[p->variant]); /* floats are uniform in [0, 1) */
    if (ints(p))
        fill_ints(p, in->host);
    else
        fill_floats(p, in->host);
    a->in = in->dev;
    a->out = out->dev;
    a->count = count->dev;
    a->n = n;
    a->flags = problem_add_scratch(p, "flags", U32, n)->dev;
    a->positions = problem_add_scratch(p, "positions", U32, n)->dev;
    a->status = problem_add_scratch(p, "status", U64, n / (32 * ITEMS) + 2)->dev;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += kept(p, in->host, i);
    p->bytes = 4.0 * n + 4.0 * k + 4; /* every value read once, the kept written once */
}

/* The kept values in order; only out[0..count) is the answer. */
static void compact_reference(struct problem *p)
{
    const struct buffer *in = problem_buffer(p, "in");
    struct buffer *out = problem_buffer(p, "out");
    unsigned k = 0;
    for (size_t i = 0; i < p->n; i++)
        if (kept(p, in->host, i))
            memcpy((char *)out->host + 4 * (size_t)k++, (const char *)in->host + 4 * i, 4);
    *(unsigned *)problem_buffer(p, "count")->host = k;
    out->compared = k;
}

/* ---- comparing as a multiset: values as their 32-bit patterns ----------- */

/* A value's 32-bit pattern (the key) with where it was (at), in one word,
 * so that sorting 2^28 of them takes seconds, not minutes. */
typedef uint64_t placed;
static uint32_t key_of(placed v) { return (uint32_t)v; }
static size_t at_of(placed v) { return (size_t)(v >> 32); }

/* The first n words sorted by value (equal values keep their order): four
 * passes of a counting sort, a byte each, as the radix lab will teach;
 * NULL if memory is short. */
static placed *sorted(const void *words, size_t n)
{
    placed *a = malloc((n ? n : 1) * sizeof *a), *b = malloc((n ? n : 1) * sizeof *b);
    if (!a || !b) {
        free(a), free(b);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t key;
        memcpy(&key, (const char *)words + 4 * i, 4);
        a[i] = (placed)i << 32 | key;
    }
    for (int shift = 0; shift < 32; shift += 8) {
        size_t start[257] = {0};
        for (size_t i = 0; i < n; i++)
            start[(key_of(a[i]) >> shift & 255) + 1]++;
        for (int d = 0; d < 256; d++)
            start[d + 1] += start[d];
        for (size_t i = 0; i < n; i++)
            b[start[key_of(a[i]) >> shift & 255]++] = a[i];
        placed *t = a;
        a = b, b = t;
    }
    free(b);
    return a;
}

/* Pair out[0..count)'s values with the reference's, as multisets: found[i]
 * says whether the reference's i-th value has a partner; the values left
 * unpaired in out go to extra. Returns how many those are. */
static size_t pair_values(const struct buffer *b, bool *found, uint32_t *extra)
{
    size_t k = b->compared, r = 0, g = 0, spare = 0;
    placed *want = sorted(b->host, k), *got = sorted(b->got, k);
    if (!want || !got)
        die("out of host memory");
    while (r < k || g < k) {
        if (r < k && g < k && key_of(want[r]) == key_of(got[g]))
            found[at_of(want[r++])] = true, g++;
        else if (g < k && (r == k || key_of(got[g]) < key_of(want[r])))
            extra[spare++] = key_of(got[g++]);
        else
            r++;
    }
    free(want), free(got);
    return spare;
}

/* Stage 3 may append in any order: where out[0..count) holds the reference's
 * values in another order, put them in the reference's. What is missing
 * stays wrong, in the place of the value it lacks (each extra or unwritten
 * value takes one such place), so the report counts the missing values. */
static void compact_normalize(const struct problem *p, const struct stage *s, struct buffer *b)
{
    (void)p;
    if (!facts(s)->unordered || strcmp(b->name, "out") != 0)
        return;
    size_t k = b->compared;
    uint32_t *extra = malloc((k ? k : 1) * sizeof *extra), *dst = b->got;
    bool *found = calloc(k ? k : 1, sizeof *found);
    if (!extra || !found)
        die("out of host memory");
    size_t spare = pair_values(b, found, extra);
    const uint32_t *ref = b->host;
    for (size_t i = 0, e = 0; i < k; i++)
        dst[i] = found[i] ? ref[i] : e < spare ? extra[e++] : POISON_WORD;
    free(extra), free(found);
}

/* ---- the bugs this lab knows -------------------------------------------- */

/* Is the kept count of some tile exactly d? Then its index, else -1. */
static long long tile_with(const struct problem *p, long long d)
{
    const void *in = problem_buffer(p, "in")->host;
    size_t tile = tile_size(p->block);
    for (size_t t = 0; d > 0 && t * tile < p->n; t++) {
        long long k = 0;
        for (size_t i = t * tile; i < p->n && i < (t + 1) * tile; i++)
            k += kept(p, in, i);
        if (k == d)
            return (long long)t;
    }
    return -1;
}

/* The kept values of the last tile alone. */
static long long last_tile_kept(const struct problem *p)
{
    const void *in = problem_buffer(p, "in")->host;
    size_t tile = tile_size(p->block);
    long long k = 0;
    for (size_t i = p->n > 0 ? (p->n - 1) / tile * tile : 0; i < p->n; i++)
        k += kept(p, in, i);
    return k;
}

/* How many places past n the stage's last tile or warp chunk covers: what
 * its loads read as 0. */
static size_t places_past_n(const struct problem *p, const struct stage *s)
{
    size_t step = facts(s)->reach == CHUNKS ? 32 * ITEMS : tile_size(p->block);
    return (p->n + step - 1) / step * step - p->n;
}

static const char *count_hint(const struct problem *p, const struct stage *s,
                              const struct mismatch *m)
{
    static char hint[400];
    long long d = (long long)m->got - (long long)m->expected, t;
    const void *in = problem_buffer(p, "in")->host;
    if (d == -1 && kept(p, in, p->n - 1) && facts(s)->flags_scanned)
        return "the count is one short and the last value is kept: the exclusive scan at the "
               "last value counts the kept values before it, not the value itself";
    if (facts(s)->reach != VALUES && ints(p) && d > 0 && (size_t)d == places_past_n(p, s)) {
        snprintf(hint, sizeof hint,
                 "the count is %lld over, as many as the places past n in the last %s: values "
                 "past n were counted as kept (read as 0, they pass the test: 0 is even). A "
                 "value past n is never kept",
                 d, facts(s)->reach == CHUNKS ? "warp chunk" : "tile");
        return hint;
    }
    if (facts(s)->offsets && d < 0 && p->n > tile_size(p->block) &&
        (long long)m->got == last_tile_kept(p)) {
        snprintf(hint, sizeof hint,
                 "the count is the last tile's kept values alone (%.0f): the tiles before it "
                 "were never added: check %s",
                 m->got, facts(s)->offsets);
        return hint;
    }
    if (facts(s)->offsets && (t = tile_with(p, d < 0 ? -d : d)) >= 0) {
        snprintf(hint, sizeof hint,
                 "the count is %lld %s, exactly the kept values of one tile (tile %lld has that "
                 "many): a tile's total was %s: check %s",
                 d < 0 ? -d : d, d < 0 ? "short" : "over", t, d < 0 ? "lost" : "added twice",
                 facts(s)->offsets);
        return hint;
    }
    return NULL;
}

/* The lane that held input value i. */
static size_t lane_of(const struct stage *s, size_t i)
{
    size_t v = facts(s)->lane_values;
    return i % (32 * v) / v;
}

/* How many of the kept values missing from out[0..count) come from lane 0
 * or lane 31 of a warp, and how many are missing. */
static void missing_at_edges(const struct problem *p, const struct stage *s,
                             const struct buffer *b, size_t *edge, size_t *missing)
{
    size_t k = b->compared;
    const uint32_t *ref = b->host;
    uint32_t *extra = malloc((k ? k : 1) * sizeof *extra);
    bool *found = calloc(k ? k : 1, sizeof *found);
    placed *index = sorted(problem_buffer(p, "in")->host, p->n);
    if (!extra || !found || !index)
        die("out of host memory");
    pair_values(b, found, extra);
    *edge = *missing = 0;
    for (size_t i = 0; i < k; i++) {
        if (found[i])
            continue;
        size_t lo = 0, hi = p->n; /* where the missing value is in the input */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (key_of(index[mid]) < ref[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        bool there = lo < p->n && key_of(index[lo]) == ref[i];
        size_t lane = there ? lane_of(s, at_of(index[lo])) : 1;
        *edge += lane == 0 || lane == 31;
        (*missing)++;
    }
    free(extra), free(found), free(index);
}

/* Are the kept values all there, but out of the input's order? */
static bool only_order_wrong(const struct buffer *b)
{
    size_t k = b->compared;
    uint32_t *extra = malloc((k ? k : 1) * sizeof *extra);
    bool *found = calloc(k ? k : 1, sizeof *found);
    if (!extra || !found)
        die("out of host memory");
    bool same = pair_values(b, found, extra) == 0;
    free(extra), free(found);
    return same;
}

/* With the count right, what do the wrong places say? */
static const char *place_hint(const struct problem *p, const struct stage *s,
                              const struct buffer *b, const struct mismatch *m)
{
    const uint32_t *got = b->got, *want = b->host;
    size_t shifted = 0, edge, missing;
    for (size_t j = m->first; j <= m->last; j++)
        shifted += j > 0 && got[j] != want[j] && got[j] == want[j - 1];
    if (shifted * 2 > m->count)
        return "most wrong places hold the kept value meant for the place before: a value's "
               "rank must count the kept lanes below it, not itself: (1u << lane) - 1 selects "
               "them, and lane 0 has none";
    missing_at_edges(p, s, b, &edge, &missing);
    if (missing > 0 && edge == missing)
        return "the kept values missing from out all come from lane 0 or lane 31 of a warp: "
               "check the lanes-below mask at the warp's edges (lane 0: (1u << 0) - 1 = 0; a "
               "shift by 32 is undefined) and that the ballot names all 32 lanes";
    if (m->unwritten)
        return "the count is right, yet some of out[0..count) was never written: two kept "
               "values were given the same place (one overwrote the other) or one went past "
               "the count: check how each value's place adds up the kept values before it. If "
               "the wrong places change from run to run, a barrier is missing (EMU=1 names the "
               "racing lines)";
    return "the count is right, but kept values are in the wrong places, or two were given "
           "the same place: a value's place counts the kept values of the tiles, warps and "
           "lanes before it, and its thread's own before it, never itself. If the wrong places "
           "change from run to run, a barrier is missing (EMU=1 names the racing lines)";
}

/* The launcher sets the count to 0 before the stage adds to it. */
static bool compact_untouched(const struct problem *p, const struct stage *s,
                              const struct buffer *b, const struct mismatch *m)
{
    (void)p, (void)s;
    return strcmp(b->name, "count") == 0 && m->got == 0;
}

static const char *compact_hint(const struct problem *p, const struct stage *s,
                                const struct buffer *b, const struct mismatch *m)
{
    if (compact_untouched(p, s, b, m))
        return "the count came out 0, where the launcher starts it: either no thread wrote it "
               "(stages 1, 2, 4a and 4b: the last value's thread or the last tile's; stage 3: "
               "each warp's atomicAdd), or what was written added up none of the kept values. Is "
               "the stage still a TODO?";
    if (strcmp(b->name, "count") == 0)
        return count_hint(p, s, m);
    static char hint[400];
    if (facts(s)->ordered_by && only_order_wrong(b)) {
        snprintf(hint, sizeof hint, "every kept value is there, but not in the input's order: %s",
                 facts(s)->ordered_by);
        return hint;
    }
    return place_hint(p, s, b, m);
}

static int compact_threads(const struct stage *s, int block)
{
    return facts(s)->whole_warps ? tile_threads(block) : block;
}

/* Stages 2-4b give a thread ITEMS values (stage 3 a step of its grid-stride
 * loop); stage 1 one. */
static size_t compact_tile(const struct stage *s, int block)
{
    return facts(s)->whole_warps ? tile_size(block) : (size_t)block;
}

/* Global atomics over the warps' chunks of 32 x ITEMS values. */
static double global_atomics_per_chunk(const struct problem *p, const struct access_counts *c)
{
    size_t chunks = (p->n + 32 * ITEMS - 1) / (32 * ITEMS);
    return chunks ? c->global_atomics / (double)chunks : 0;
}

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/07-compact.md. */
static const struct technique compact_techniques[] = {
    {"1", {{0}}},
    {"2",
     {{traffic, AT_MOST, 3, "an array of a flag a value goes through memory: not counts a tile"}}},
#define SINGLE_PASS                                                                         \
    {traffic, AT_MOST, 1.4, "the values are read more than once: not a single pass"}
    {"3",
     {SINGLE_PASS,
      {global_atomics_per_chunk, AT_MOST, 1, "more than one global atomic a chunk"}}},
#define ONE_TICKET                                                                         \
    {global_atomics_per_block, AT_MOST, 1,                                                 \
     "more than one global atomic a block: a tile takes one ticket, and its place comes "  \
     "from the look-back, not from atomics on the count"}
/* Two words a tile, its total and then its prefix: a tile that publishes
 * only its prefix makes the next wait for the whole chain before it. */
#define PUBLISHED                                                                          \
    {flag_stores_per_block, AT_LEAST, 1.5,                                                 \
     "a tile publishes only its prefix, not its total first: the tiles after it wait for "  \
     "the whole chain before them instead of looking back past it"}
    {"4a", {SINGLE_PASS, ONE_TICKET, PUBLISHED}},
    {"4b",
     {{lanes_per_store_request, AT_LEAST, 24,
       "values written from registers, not staged: a store request writes only the lanes "
       "that kept a value, where the copy out of shared memory writes 32 side by side"},
      {load_bytes_per_lane, AT_LEAST, 12,
       "4-byte loads: a lane reads one value a load, not four neighbours (load_quads)"},
      SINGLE_PASS, ONE_TICKET, PUBLISHED}},
#undef PUBLISHED
#undef ONE_TICKET
#undef SINGLE_PASS
    {0},
};

const struct lab compact_lab = {
    .name = "compact",
    .operation = "the values kept (ints: even; floats: above a threshold), in order",
    .stages = compact_stages,
    .variants = compact_variants,
    .threads = compact_threads,
    .tile = compact_tile,
    .args_size = sizeof(struct args),
    .setup = compact_setup,
    .reference = LAB_REFERENCE(compact_reference),
    .normalize = compact_normalize,
    .facts = compact_facts,
    .facts_size = sizeof compact_facts[0],
    .handout = "07-compact",
    .run.library = &compact_library,
    .run.sweep_stage = "4b",
    .diagnosis.hint = compact_hint,
    .diagnosis.untouched = compact_untouched,
    .diagnosis.past_end = "a kept value was given a place past the end: lanes past n keep nothing "
            "but still take part in every ballot, and a place counts only the kept values "
            "before it. If the place changes from run to run, a barrier is missing (EMU=1 names "
            "the racing lines)",
    .diagnosis.hang = "only stages 4a and 4b wait (for other tiles' status words); the other stages "
            "wait only at barriers, so there look for a __syncthreads() that some threads of "
            "the block never reach (one inside a branch) or a loop that never ends. In 4a and "
            "4b, a wait "
            "that never ends usually means: the tile number came from blockIdx.x instead of "
            "the atomic counter; a tile never publishes its word (tile 0 must publish its "
            "PREFIX at once); or not all 32 lanes of warp 0 call look_back.",
    .technique.rows = compact_techniques,
    .technique.at = {"131075", 256},
};

const struct lab *const workbook_lab = &compact_lab;
