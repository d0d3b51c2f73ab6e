/* transpose_lab.c: the transpose lab as the tests and the driver see it:
 * its input, its CPU reference, and the bugs it knows. The input's values
 * are distinct (for up to 2^25 elements), so a value found in the output
 * names the one place of the input it came from. */
#include "workbook.h"
#include "technique.h"
#include "transpose.h"

#include <stdio.h>
#include <string.h>

/* Element i's value: a float in [1, 16) whose bits encode i (mod 2^25). */
static float value_of(size_t i)
{
    uint32_t bits = (127u + (uint32_t)(i >> 23 & 3)) << 23 | (uint32_t)(i & 0x7fffff);
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Which input element a value came from (mod 2^25), or -1 for a value no
 * element has (the poison, a zero). */
static long long index_of(float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint32_t e = bits >> 23;
    if (e < 127 || e > 130)
        return -1;
    return (long long)((e - 127) << 23 | (bits & 0x7fffff));
}

static void transpose_setup(struct problem *p)
{
    size_t rows = p->n / p->cols, cols = p->cols;
    if (rows > MAX_ROWS)
        die("N=%zux%zu: a grid has at most %d blocks down (gridDim.y), and the rows go there: "
            "choose up to %d rows",
            rows, cols, MAX_ROWS, MAX_ROWS);
    struct buffer *in = problem_add_input(p, "in", F32, p->n);
    struct buffer *out = problem_add_output(p, "out", F32, p->n, 0, 0);
    in->cols = cols;
    out->cols = rows; /* out is cols x rows */
    float *x = in->host;
    size_t offset = (size_t)(p->seed % (1u << 25));
    for (size_t i = 0; i < p->n; i++)
        x[i] = value_of(i + offset);
    struct args *a = p->args;
    a->in = in->dev;
    a->out = out->dev;
    a->rows = rows;
    a->cols = cols;
    p->bytes = 8.0 * p->n; /* each element read once, written once */
}

static void transpose_reference(struct problem *p)
{
    size_t rows = p->n / p->cols, cols = p->cols;
    const float *in = problem_buffer(p, "in")->host;
    float *out = problem_buffer(p, "out")->host;
    for (size_t r = 0; r < rows; r++)
        for (size_t c = 0; c < cols; c++)
            out[c * rows + r] = in[r * cols + c];
}

/* ---- the bugs this lab knows -------------------------------------------- */

/* The square tile each stage moves through shared memory (0: none), and
 * whether it writes out's rows in windows from a line (stage 6). */
struct facts {
    const char *id;
    size_t tile;
    bool windows;
};
static const struct facts transpose_facts[] = {
    {"1", 0, false}, {"2", 32, false}, {"3", 32, false}, {"4", 32, false},
    {"5", 64, false}, {"6", 0, true},  {NULL, 0, false},
};

/* Stage 6: is out never written exactly where a strip's last block has
 * one window more to write than it has steps? In row c of out that is from
 * column end - off on, end being where that block's last step ends and off
 * where the row starts in its line (c * rows % 32, as the kernel has it). */
static bool last_window_missing(const struct problem *p, const struct buffer *b,
                                const struct mismatch *m)
{
    size_t rows = p->n / p->cols, segment = STEP6 * STEPS6;
    size_t r0 = (rows - 1) / segment * segment;
    size_t end = r0 + (rows - r0 + STEP6 - 1) / STEP6 * STEP6;
    if (m->unwritten != m->count)
        return false;
    const float *got = b->got, *want = b->host;
    for (size_t i = 0; i < p->n; i++) {
        size_t c = i / rows, r = i % rows, off = c * rows % 32; /* out[c][r] */
        bool right = memcmp(&got[i], &want[i], sizeof *got) == 0;
        if (right == (r + off >= end))
            return false;
    }
    return true;
}

/* Is out right exactly where in[r][c] has r < reach_rows and c <
 * reach_cols, and never written anywhere else, with somewhere on each
 * side? */
static bool written_only_within(const struct problem *p, const struct buffer *b,
                                const struct mismatch *m, size_t reach_rows, size_t reach_cols)
{
    size_t rows = p->n / p->cols, cols = p->cols;
    if (m->unwritten != m->count || m->unwritten == b->compared || !reach_rows || !reach_cols ||
        (reach_rows >= rows && reach_cols >= cols))
        return false;
    const float *got = b->got, *want = b->host;
    for (size_t i = 0; i < p->n; i++) {
        size_t c = i / rows, r = i % rows; /* out[c][r] = in[r][c] */
        bool right = memcmp(&got[i], &want[i], sizeof *got) == 0;
        if (right != (r < reach_rows && c < reach_cols))
            return false;
    }
    return true;
}

/* ---- the diagnosis: a ladder of rungs ------------------------------------ */

/* What a wrong out shows, worked out once for every rung. */
struct seen {
    const struct problem *p;
    const struct stage *s;
    const struct buffer *b;
    const struct mismatch *m;
    size_t rows, cols;      /* in's sides: out is cols x rows */
    size_t k;               /* the first wrong place of out */
    size_t want_r, want_c;  /* in[want_r][want_c] belongs there */
    long long from;         /* the element of in that got[k] came from; -1: none */
    size_t tile;            /* the stage's tile side; 0: no tile */
};

/* Where a rung whose sentence holds numbers writes it: a hint outlives the
 * call that found it. */
static char hint[512];

/* out written with in's row length (cols) instead of its own (rows) */
static bool out_indexed_with_cols(const struct seen *e)
{
    return e->rows != e->cols && e->from >= 0 &&
           (size_t)e->from == (e->k % e->cols) * e->cols + e->k / e->cols;
}

/* in read with out's row length (rows) instead of its own (cols) */
static bool in_indexed_with_rows(const struct seen *e)
{
    return e->rows != e->cols && e->from >= 0 &&
           (size_t)e->from == e->want_r * e->rows + e->want_c;
}

/* Does got[k] come from the tile of in that holds in[want_r][want_c]? */
static bool from_its_tile(const struct seen *e)
{
    size_t t = e->tile;
    if (!t || e->from < 0 || (size_t)e->from >= e->p->n)
        return false;
    size_t src_r = (size_t)e->from / e->cols, src_c = (size_t)e->from % e->cols;
    return src_r / t == e->want_r / t && src_c / t == e->want_c / t;
}

/* ... and from the mirror of its place in that tile? */
static bool mirrored_in_its_tile(const struct seen *e)
{
    size_t t = e->tile;
    return from_its_tile(e) && (size_t)e->from / e->cols % t == e->want_c % t &&
           (size_t)e->from % e->cols % t == e->want_r % t;
}

/* Blocks of `block` elements that cover `side`: ceil_div. */
static size_t blocks_for(size_t side, size_t block) { return (side + block - 1) / block; }

/* out written exactly for in's first reach_rows rows and reach_cols
 * columns, whole blocks of block_rows x block_cols elements of in (or the
 * whole side), and nowhere else: a grid of too few blocks, whatever made it
 * so (a side counted in blocks of another size, a block too few). The
 * rectangle is read from the data: where an element is right. */
static bool short_grid(const struct seen *e, size_t block_rows, size_t block_cols)
{
    size_t rows = e->rows, cols = e->cols, reach_rows = 0, reach_cols = 0;
    const float *got = e->b->got, *want = e->b->host;
    for (size_t i = 0; i < e->p->n; i++) {
        size_t c = i / rows, r = i % rows; /* out[c][r] = in[r][c] */
        if (memcmp(&got[i], &want[i], sizeof *got) == 0) {
            reach_rows = r + 1 > reach_rows ? r + 1 : reach_rows;
            reach_cols = c + 1 > reach_cols ? c + 1 : reach_cols;
        }
    }
    if ((reach_rows % block_rows && reach_rows != rows) ||
        (reach_cols % block_cols && reach_cols != cols) ||
        !written_only_within(e->p, e->b, e->m, reach_rows, reach_cols))
        return false;
    snprintf(hint, sizeof hint,
             "out was written for in[r][c] with r < %zu and c < %zu (in is %zux%zu), and nowhere "
             "else: as far as a grid of %zu x %zu blocks reaches, each %zu columns by %zu rows of "
             "in. It needs %zu x %zu: along x, ceil_div(cols, %zu) blocks, and down y, "
             "ceil_div(rows, %zu)",
             reach_rows, reach_cols, rows, cols, blocks_for(reach_cols, block_cols),
             blocks_for(reach_rows, block_rows), block_cols, block_rows, blocks_for(cols, block_cols),
             blocks_for(rows, block_rows), block_cols, block_rows);
    return true;
}

/* out written exactly for in's first rows and columns, and nowhere else,
 * draws the rectangle that something fell short of. A grid of swapped sides
 * (the launch counts blocks along the other side, or the kernel takes the
 * row from blockIdx.x), or a block of swapped sides, reaches a rectangle
 * other than in; a grid whose division rounds down is a block short on each
 * side that is no whole number of blocks; a bounds test that compares a
 * column with rows (or a row with cols) reaches the square of the shorter
 * side. Where several reach the same rectangle, all are named; where none
 * does, a grid short of blocks may. */
static bool written_within_a_reach(const struct seen *e)
{
    size_t rows = e->rows, cols = e->cols, tile = e->tile;
    size_t w = tile ? tile : 32,
           h = tile ? tile : (size_t)transpose_threads(e->s->id, e->p->block) / 32;
    size_t side = rows < cols ? rows : cols;
    enum { GRID, BLOCK, ROUNDED, MIXED, CAUSES };
    static const char *const who[CAUSES] = {
        "a grid of swapped sides", "a block of swapped sides", "a grid rounded down",
        "a bounds test of a column against rows (or of a row against cols)"};
    static const char *const fix[CAUSES] = {
        [GRID] = "x must run along a row of in (its columns) and y down its rows: in the block "
                 "(32 threads along x), in the launch (gridDim.x from cols) and in the kernel "
                 "(c from blockIdx.x, r from blockIdx.y) alike",
        [ROUNDED] = "A division rounds down, a block short on each side that is no whole "
                    "number of blocks: round up, with ceil_div",
        [MIXED] = "in[r][c] needs r < rows and c < cols, and its place in out the same two: a "
                  "test against the other side is right only on squares",
    };
    const struct {
        size_t rows, cols;
        int who;
    } reach[] = {
        {(cols + h - 1) / h * h, (rows + w - 1) / w * w, GRID},  /* the launch's */
        {(cols + w - 1) / w * h, (rows + h - 1) / h * w, GRID},  /* the kernel's */
        {(rows + h - 1) / h * w, (cols + w - 1) / w * h, BLOCK}, /* h x w, counted as w x h */
        {rows / h * h, cols / w * w, ROUNDED},
        {side, side, MIXED},
    };
    enum { REACHES = sizeof reach / sizeof reach[0] };
    bool fits[CAUSES] = {false};
    int found = -1;
    for (int g = 0; g < REACHES; g++)
        if (written_only_within(e->p, e->b, e->m, reach[g].rows, reach[g].cols)) {
            fits[reach[g].who] = true;
            found = found < 0 ? g : found;
        }
    if (found < 0)
        return short_grid(e, h, w);
    int first = reach[found].who;
    size_t len = (size_t)snprintf(
        hint, sizeof hint,
        "out was written for in[r][c] with r < %zu and c < %zu (in is %zux%zu), and nowhere "
        "else: as far as %s reaches",
        reach[found].rows < rows ? reach[found].rows : rows,
        reach[found].cols < cols ? reach[found].cols : cols, rows, cols, who[first]);
    for (int c = first + 1; c < CAUSES && len < sizeof hint; c++)
        if (fits[c])
            len += (size_t)snprintf(hint + len, sizeof hint - len, ", or %s", who[c]);
    if (len < sizeof hint)
        snprintf(hint + len, sizeof hint - len, ". %s", fix[first == BLOCK ? GRID : first]);
    return true;
}

static bool last_window_unwritten(const struct seen *e)
{
    return facts(e->s)->windows && last_window_missing(e->p, e->b, e->m);
}

/* Only the last tiles along one edge of in wrong, cut short by it (with at
 * least one whole tile, right, to compare them with): a bounds test that
 * leaves out that side. Stage 6 has no tiles to cut. */
static bool one_edge_wrong(const struct seen *e)
{
    if (facts(e->s)->windows)
        return false;
    size_t rows = e->rows, w = e->tile ? e->tile : 32;
    size_t full_rows = rows / w * w, full_cols = e->cols / w * w;
    size_t wrong_bottom = 0, wrong_right = 0, wrong_inside = 0;
    const float *got = e->b->got, *want = e->b->host;
    for (size_t i = 0; i < e->p->n; i++) {
        size_t c = i / rows, r = i % rows; /* out[c][r] = in[r][c] */
        if (memcmp(&got[i], &want[i], sizeof *got) == 0)
            continue;
        wrong_bottom += r >= full_rows && c < full_cols;
        wrong_right += c >= full_cols && r < full_rows;
        wrong_inside += r < full_rows && c < full_cols;
    }
    if (wrong_inside || !full_rows || !full_cols || !wrong_bottom == !wrong_right)
        return false;
    snprintf(hint, sizeof hint,
             "only the last %zu-wide tiles along in's %s edge (its %s from %zu on), cut "
             "short by it, are wrong: a bounds test that leaves out that side. The read "
             "needs r < rows and c < cols; the write, seen from out, the same two with "
             "rows and columns swapped",
             w, wrong_bottom ? "bottom" : "right", wrong_bottom ? "rows" : "columns",
             wrong_bottom ? full_rows : full_cols);
    return true;
}

/* A value that no element of in holds, yet not the poison (never written):
 * in a stage whose values all pass through shared memory, it came from a
 * word of the tile that no element of in was loaded into. */
static bool from_no_element(const struct seen *e)
{
    const float *got = e->b->got;
    return (e->tile || facts(e->s)->windows) && e->from < 0 &&
           !is_poison(&got[e->k], sizeof *got);
}

/* A rung: what the data show, and the cause and fix it says then (NULL:
 * the test wrote a sentence with numbers into hint). The first rung that
 * fits speaks: an index's wrong row length, the tile, the rectangle
 * reached, the windows and the edges each tell a surer cause than a value
 * from no element of in, which several of them leave too. */
static const struct rung {
    bool (*shows)(const struct seen *);
    const char *says;
} transpose_ladder[] = {
    {out_indexed_with_cols,
     "the element of in at [r][c] was written to out[c * cols + r]: out has rows rows long "
     "(it is cols x rows), so its element [c][r] is out[c * rows + r]. The two agree only on "
     "a square"},
    {in_indexed_with_rows,
     "out[c][r] holds in[r * rows + c]: in has rows cols long, so its element [r][c] is "
     "in[r * cols + c]. The two agree only on a square"},
    {mirrored_in_its_tile,
     "a value from the right tile, from the mirror of its place in it: the tile was read in "
     "the order it was written. A thread that wrote tile[y][x] must read tile[x][y]"},
    {from_its_tile, /* below the mirror's rung: any other place in the tile */
     "a value from the right tile but the wrong place in it: a thread read the tile before "
     "the thread that writes that element had: a __syncthreads() between writing the tile "
     "and reading it is missing"},
    {written_within_a_reach, NULL},
    {last_window_unwritten,
     "in each row of out, the columns past the last whole window of a strip's last block "
     "were never written: that block writes one window more than it has steps, since its "
     "windows start off columns early"},
    {one_edge_wrong, NULL},
    {from_no_element,
     "out holds a value that no element of in has: it came from a word of the tile in shared "
     "memory that no element of in was loaded into. Either the tile was read before a "
     "__syncthreads() made it ready, or the reads reach a part of it that the loads leave "
     "out"},
};

static const char *transpose_hint(const struct problem *p, const struct stage *s,
                                  const struct buffer *b, const struct mismatch *m)
{
    size_t rows = p->n / p->cols, seed_offset = (size_t)(p->seed % (1u << 25));
    const float *got = b->got;
    long long from = index_of(got[m->first]);
    if (from >= 0)
        from = (from - (long long)seed_offset + (1ll << 25)) % (1ll << 25);
    const struct seen e = {
        .p = p, .s = s, .b = b, .m = m, .rows = rows, .cols = p->cols, .k = m->first,
        .want_r = m->first % rows, .want_c = m->first / rows, .from = from,
        .tile = facts(s)->tile,
    };
    for (size_t i = 0; i < sizeof transpose_ladder / sizeof transpose_ladder[0]; i++)
        if (transpose_ladder[i].shows(&e))
            return transpose_ladder[i].says ? transpose_ladder[i].says : hint;
    return NULL;
}

/* Stages 1 and 4 take BLOCK in whole warps; 2, 3, 5 and 6 their own. */
static int transpose_block(const struct stage *s, int block)
{
    return transpose_threads(s->id, block);
}

/* The side of a stage's tile; stage 1's blocks are 32 threads wide. */
static size_t transpose_tile(const struct stage *s, int block)
{
    (void)block;
    return facts(s)->tile ? facts(s)->tile : 32;
}

/* make grade's shapes: one element, odd sides around a warp, a wide one,
 * and a large odd one, at the blocks the tests use. */
static const struct grade_case transpose_grade_cases[] = {
    {"1x1", 256}, {"31x33", 256}, {"1000x999", 256}, {"33x1025", 256}, {"1000x999", 1024},
    {NULL, 0},
};

/* What each stage's kernel must show besides right outputs (workbook.h,
 * struct technique), in the words of handouts/09-transpose.md. */
static const struct technique transpose_techniques[] = {
    {"1", {{0}}},
/* Costs per element, which reads or writes that do nothing only raise: a
 * coalesced store fills whole sectors (stage 1's fill an eighth of each),
 * and a padded tile serves a warp's column in one wavefront (stage 2's in 32,
 * 31 of them conflicts). */
#define TILED                                                                               \
    {store_sectors_per_output_sector, AT_MOST, 1.5, "the stores are not coalesced: no tile in " \
                                                    "shared memory"},                        \
    {traffic, AT_MOST, 1.5, "the loads are not coalesced: no tile in shared memory"}
#define PADDED                                                                              \
    {shared_bank_conflicts_per_element, AT_MOST, 0.5 / 32, "reading the tile's columns "       \
                                                           "conflicts in banks: the tile is "  \
                                                           "not padded"}
    {"2", {TILED}},
    {"3", {TILED, PADDED}},
    {"4",
     {TILED, PADDED,
      {elements_per_launched_thread, AT_LEAST, 2, "each thread moves one element"}}},
    {"5",
     {TILED, PADDED,
      {elements_per_launched_thread, AT_LEAST, 6, "each thread moves four elements or fewer: "
                                                  "the tiles are not 64x64"},
      {elements_per_block, AT_LEAST, 2500, "each block moves fewer than 2500 elements: the "
                                           "tiles are not 64x64"}}},
    {"6",
     {{store_sectors_per_output_sector, AT_MOST, 1.12, "the stores of out's rows cut sectors "
                                                       "in two: each row's windows do not "
                                                       "start on a line"},
      PADDED}},
#undef TILED
#undef PADDED
    {0},
};

/* Stage 6 is counted where out's rows start inside a line (511 floats a
 * row), as every odd shape's do; 256x288's rows are whole lines. */
static const struct technique_case transpose_technique_cases[] = {{"6", {"511x289", 256}},
                                                                   {0}};

const struct lab transpose_lab = {
    .name = "transpose",
    .matrix = true,
    .operation = "out[c][r] = in[r][c], floats, any shape",
    .stages = transpose_stages,
    .threads = transpose_block,
    .tile = transpose_tile,
    .args_size = sizeof(struct args),
    .setup = transpose_setup,
    .reference = LAB_REFERENCE(transpose_reference),
    .facts = transpose_facts,
    .facts_size = sizeof transpose_facts[0],
    .handout = "09-transpose",
    .run.sweep_stage = "4",
    .diagnosis.hint = transpose_hint,
    .diagnosis.moves_values = true,
    .grading.cases = transpose_grade_cases,
    .technique.rows = transpose_techniques,
    .technique.at = {"256x288", 256},
    .technique.elsewhere = transpose_technique_cases,
};

const struct lab *const workbook_lab = &transpose_lab;
