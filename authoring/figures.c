/* figures.c: every figure a handout or a model answer quotes beside a
 * citation of a file must be in that file, or follow from it by a rule
 * this checker knows. `make check-figures` runs it on every handout
 * (handouts/NN-LAB.md), its appendix (handouts/appendix/NN-LAB.md) and
 * model answer (solutions/LAB/ANSWERS.md), from
 * the repository's root:
 *
 *     build/figures [-v] [--perturb] [FILE.md...]
 *
 * One line a figure not found: FILE:LINE, the figure, the files searched
 * and the nearest value they hold (file:line, and a CSV row's stage,
 * variant, n and column); then a line of counts. It fails if any figure
 * was not found. -v: every figure checked, with the rule that passed it.
 * --perturb: how many of the figures that pass would be caught at 1.37
 * and at 0.71 times their value (-v: each one that would not). On the
 * tree of 2026-11-29, once the handouts were mended: 83 % in all; times
 * 89 %, bandwidths 96 %, counts 100 %, bare decimals 85 %, percents 69 %,
 * ratios 50 % (38 % of those from a bench CSV, where many pairs of rows
 * at one size give many ratios to land on).
 *
 * A citation is a path under results/ or notebook/ that exists
 * (`../results/...` in a link too; not one with a <placeholder>, nor one
 * inside inline code that holds more than the path, as in `git show
 * 6bda113:results/H100.md`). A folder stands for its files; a plot X.svg
 * for its CSV (X.csv, else X less its last -suffix, .csv); a bare file
 * name for the file of that name in a folder the document cited before.
 * A name in quotes just after a citation of a Markdown file ("results/
 * H100.md, "Issue 19"", or "(`make -s run LAB=reduce ...`") narrows it to
 * the sections whose headings hold that name, where any does.
 *
 * What a citation covers: its block (lines between blank lines; a list
 * item at the same or a lower indent starts a new block; a table is one
 * block; its caption, a block "Table: ..." just before or after it, covers
 * it too). One in a plot's caption (a block with ![...](...)) also covers
 * the rest of its section, to the next heading. In a model answer
 * (ANSWERS.md), a citation in the opening (before answer 1) covers the
 * answers its sentence names before it ("Answer 10 comes from ...", "A1
 * and A2", an appendix's, from ...,
 * "questions 1 and 7, from ..."; a name in parentheses ends with them),
 * and every answer if it names none ("every figure below comes from").
 * Code blocks, inline code and $math$ are not read. Of a bench CSV, only
 * the rows of the variants the block names, else its caption, else all.
 *
 * A figure is a number with a unit: ns, µs, us, ms, s; GB/s, TB/s; %; x, ×
 * or "times"; million, billion; or a decimal with no unit (of any kind),
 * or an integer with thousands separators (97 807, 1,442: a count, unless
 * a power of two or a count of bytes, threads, blocks, tiles...). A number
 * takes the unit of the figure it is joined to by "to", "-", "and", "or",
 * "," ("79 to 84 %"), of the one before "against" ("399 ms against
 * 1040"), or of its table column's heading ("stage 8, µs"). Not figures:
 * sizes (2^28, 16384x16384) and ratios of two sizes the sentence names
 * ("1024 times the elements"), bare integers, a number after stage,
 * question, line, run, CUDA..., versions, dates, hashes, products ("5 x
 * 0.5435"), the result of arithmetic shown ("= 2.72 ms", "≈ 3.43": its
 * operands are checked instead), and bounds: after at most, at least,
 * under, below, over, above, within, up to, less or more than, or before
 * "or more", "or less". There is no escape list: a number that is not a
 * measurement is written as one of these.
 *
 * A figure passes if one of these holds. Its precision is its last digit:
 * 2.34 ms is met by 2.3401, not 2.36; after about, nearly, roughly...,
 * "170" is met by 165 to 175.
 *  1. A number in a cited file rounds to it. One written with a unit
 *     (0.7172 ms, 100.6%, 1.6x) must be of the figure's kind, converted;
 *     one without may be a thousand times larger or smaller (0.1494 for
 *     149.4 µs), or for a percent a hundred times smaller (0.923).
 *  2. A bench CSV (lab,variant,n,...,ms,gbps,copy_share,cpu_ms,vs_cpu)
 *     gives it: a row's ms or cpu_ms, either per element (ms*1e6/n ns),
 *     gbps, copy_share*100 %, vs_cpu, or the ratio of two rows' ms at the
 *     same variant and n; where the sentence names sizes, their difference
 *     too. After "by" or before "behind", "faster"..., a percent is also
 *     how far a share or such a ratio is from 100 %. Where the figure's
 *     sentence names sizes, only rows of those n count: the size after it
 *     ("7.1 µs at 2^18", "from 2^12 to 2^18"), else the last its clause
 *     names before it ("from 2^22" reaches the largest), else all the
 *     sentence names; in a table, the size in its column's heading, else
 *     in its row.
 *  3. It is the ratio of two figures of one kind quoted in its sentence or
 *     the one before (in a table, its row): "1.6 times" from "149.4 µs and
 *     93.6 µs"; or, for a percent, a hundred times it (not of two percents).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum kind { TIME, BW, PCT, RATIO, BARE, COUNT, NKINDS };
static const char *kind_name[NKINDS] = {"time", "bandwidth", "percent", "ratio",
                                        "bare decimal", "count"};

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) { perror("figures"); exit(2); }
    return p;
}
#define PUSH(arr, n, cap, item) do { if ((n) == (cap)) { (cap) = (cap) ? 2 * (cap) : 16; \
        (arr) = xrealloc((arr), (cap) * sizeof *(arr)); } (arr)[(n)++] = (item); } while (0)

/* A file's lines, each without its newline. */
static char **read_lines(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    char **lines = NULL, *buf = NULL;
    size_t len = 0;
    int n = 0, cap = 0;
    if (!f) return NULL;
    while (getline(&buf, &len, f) >= 0) {
        buf[strcspn(buf, "\r\n")] = 0;
        PUSH(lines, n, cap, strdup(buf));
    }
    free(buf);
    fclose(f);
    *count = n;
    return lines ? lines : calloc(1, sizeof *lines);
}

/* ---- numbers ----------------------------------------------------------- */

/* A number at s: digits, thousands groups separated by one space or comma
 * (only after a first group of 1 to 3 digits), decimals. Returns its
 * length, 0 if s holds none. */
static int read_number(const char *s, double *v, int *decimals, int *grouped)
{
    const char *p = s;
    char digits[64];
    int nd = 0, lead = 0;
    if (!isdigit((unsigned char)*p)) return 0;
    while (isdigit((unsigned char)*p) && nd < 40) digits[nd++] = *p++, lead++;
    *grouped = 0;
    while (lead <= 3 && (p[0] == ' ' || p[0] == ',') && isdigit((unsigned char)p[1]) &&
           isdigit((unsigned char)p[2]) && isdigit((unsigned char)p[3]) &&
           !isdigit((unsigned char)p[4]) && nd < 40)
        memcpy(digits + nd, p + 1, 3), nd += 3, p += 4, *grouped = 1;
    *decimals = 0;
    if (p[0] == '.' && isdigit((unsigned char)p[1])) {
        digits[nd++] = *p++;
        while (isdigit((unsigned char)*p) && nd < 60) digits[nd++] = *p++, (*decimals)++;
    }
    digits[nd] = 0;
    *v = strtod(digits, NULL);
    return (int)(p - s);
}

/* ---- cited files ------------------------------------------------------- */

enum vkind { V_TEXT, V_TIME, V_BW, V_PCT, V_RATIO };
struct value {
    double v;      /* V_TIME in seconds, V_BW in GB/s, V_PCT in %, else as written */
    int vkind, line;
    double n;      /* a CSV row's n, else 0 */
    int variant;   /* a CSV row's variant, an index into its file's, else -1 */
    int diff;      /* a difference of two rows: only for a figure whose sizes are named */
    const char *what; /* a CSV value's column or rule; the row is line */
};
struct heading { int line, level; char *text; };
struct cfile {
    char *path;
    int csv, nlines;
    struct value *val;
    int nval, capval;
    struct heading *head;
    int nhead, caphead;
    char **row;    /* a CSV's rows as "stage S, VARIANT, n = N", by line */
    char *variant[64];
    int nvariant;
};
static struct cfile **files;
static int nfiles, capfiles;

static int read_unit(const char *s, int *kind, double *scale, char *name);
static int cur_variant = -1, cur_diff;  /* of the values add_value adds */
static void add_value(struct cfile *f, double v, int vkind, int line, double n, const char *what)
{
    struct value x = {v, vkind, line, n, cur_variant, cur_diff, what};
    PUSH(f->val, f->nval, f->capval, x);
}

/* A heading's text for matching: lower case, without `, * and _. */
static char *fold(const char *s)
{
    char *t = malloc(strlen(s) + 1), *q = t;
    for (; *s; s++)
        if (*s != '`' && *s != '*') *q++ = (char)tolower((unsigned char)*s);
    *q = 0;
    return t;
}

/* Every number of a text file, as written; a grouped one also as its parts. */
static void load_text(struct cfile *f, char **lines)
{
    for (int i = 0; i < f->nlines; i++) {
        const char *s = lines[i];
        int level = 0;
        while (s[level] == '#') level++;
        if (level && s[level] == ' ') {
            struct heading h = {i + 1, level, fold(s + level + 1)};
            PUSH(f->head, f->nhead, f->caphead, h);
        }
        for (const char *p = s; *p; ) {
            double v;
            int dec, grouped, len;
            if (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '_') && p[-1] != 'x') {
                while (isalnum((unsigned char)*p)) p++;    /* V13, sm_90, 85c71c8; not 16384x16384 */
                if (!*p) break;
                p++;
                continue;
            }
            len = read_number(p, &v, &dec, &grouped);
            if (!len) { p++; continue; }
            /* a unit written after it says what it is: 0.7172 ms, 100.6%, 1.6x */
            int kind;
            double scale;
            char unit[8];
            static const int vkind_of[NKINDS] = {V_TIME, V_BW, V_PCT, V_RATIO, V_TEXT, V_TEXT};
            if (read_unit(p + len, &kind, &scale, unit)) add_value(f, v * scale, vkind_of[kind], i + 1, 0, NULL);
            else add_value(f, v, V_TEXT, i + 1, 0, NULL);
            if (grouped) {                          /* 97,807 also as 97 and 807 */
                for (const char *q = p; q < p + len; ) {
                    char part[8];
                    int k = 0;
                    while (q < p + len && isdigit((unsigned char)*q) && k < 7) part[k++] = *q++;
                    part[k] = 0;
                    add_value(f, strtod(part, NULL), V_TEXT, i + 1, 0, NULL);
                    while (q < p + len && !isdigit((unsigned char)*q)) q++;
                }
            }
            p += len;
        }
    }
}

/* The column of name in a CSV header, or -1. */
static int column(char **cols, int ncols, const char *name)
{
    for (int i = 0; i < ncols; i++)
        if (!strcmp(cols[i], name)) return i;
    return -1;
}

static int split_csv(char *s, char **cols, int max)
{
    int n = 0;
    while (n < max) {
        cols[n++] = s;
        s = strchr(s, ',');
        if (!s) break;
        *s++ = 0;
    }
    return n;
}

/* A bench CSV's values and what its reader is taught to derive from them;
 * 0 if lines is not one (no n, stage and ms columns). */
static int load_bench_csv(struct cfile *f, char **lines)
{
    char *cols[32], *head = NULL;
    int ncols = 0, first = 0;
    while (first < f->nlines && lines[first][0] == '#') first++;
    if (first == f->nlines) return 0;
    head = strdup(lines[first]);
    ncols = split_csv(head, cols, 32);
    int c_var = column(cols, ncols, "variant"), c_n = column(cols, ncols, "n"),
        c_stage = column(cols, ncols, "stage"), c_ms = column(cols, ncols, "ms"),
        c_gbps = column(cols, ncols, "gbps"), c_share = column(cols, ncols, "copy_share"),
        c_cpu = column(cols, ncols, "cpu_ms"), c_vs = column(cols, ncols, "vs_cpu");
    if (c_n < 0 || c_stage < 0 || c_ms < 0) { free(head); return 0; }
    f->csv = 1;
    f->row = calloc((size_t)f->nlines + 1, sizeof *f->row);
    int group = -1;               /* first value of this (variant, n)'s rows' ms */
    char group_key[128] = "";
    for (int i = first + 1; i < f->nlines; i++) {
        char *copy = strdup(lines[i]), *c[32], *end;
        int nc = split_csv(copy, c, 32), line = i + 1;
        double n, ms;
        if (nc != ncols) { free(copy); continue; }
        n = strtod(c[c_n], NULL);
        ms = strtod(c[c_ms], &end);
        if (asprintf(&f->row[line], "stage %s, %s, n = %s", c[c_stage],
                     c_var >= 0 ? c[c_var] : "-", c[c_n]) < 0) exit(2);
        cur_variant = -1;
        for (int k = 0; c_var >= 0 && k < f->nvariant && cur_variant < 0; k++)
            if (!strcmp(f->variant[k], c[c_var])) cur_variant = k;
        if (c_var >= 0 && cur_variant < 0 && f->nvariant < 64)
            f->variant[cur_variant = f->nvariant++] = strdup(c[c_var]);
        char key[128];
        snprintf(key, sizeof key, "%s,%s", c_var >= 0 ? c[c_var] : "", c[c_n]);
        if (strcmp(key, group_key)) strcpy(group_key, key), group = -1;
        if (end != c[c_ms] && ms > 0) {
            add_value(f, ms * 1e-3, V_TIME, line, n, "ms");
            add_value(f, ms * 1e-3 / n, V_TIME, line, n, "ms per element");
            /* this row's time and each earlier row's of its group: ratios both ways, and the difference */
            if (group < 0) group = f->nval - 2;
            for (int j = group, last = f->nval; j < last; j++) {
                struct value o = f->val[j];
                if (o.line == line || strcmp(o.what, "ms")) continue;
                add_value(f, ms * 1e-3 / o.v, V_RATIO, line, n, "ms over another row's");
                add_value(f, o.v / (ms * 1e-3), V_RATIO, o.line, n, "ms over another row's");
                cur_diff = 1;
                add_value(f, fabs(ms * 1e-3 - o.v), V_TIME, line, n, "ms less another row's");
                cur_diff = 0;
            }
        }
        if (c_cpu >= 0 && (ms = strtod(c[c_cpu], &end), end != c[c_cpu])) {
            add_value(f, ms * 1e-3, V_TIME, line, n, "cpu_ms");
            add_value(f, ms * 1e-3 / n, V_TIME, line, n, "cpu_ms per element");
        }
        if (c_gbps >= 0 && (ms = strtod(c[c_gbps], &end), end != c[c_gbps]))
            add_value(f, ms, V_BW, line, n, "gbps");
        if (c_share >= 0 && (ms = strtod(c[c_share], &end), end != c[c_share]))
            add_value(f, 100 * ms, V_PCT, line, n, "copy_share");
        if (c_vs >= 0 && (ms = strtod(c[c_vs], &end), end != c[c_vs]))
            add_value(f, ms, V_RATIO, line, n, "vs_cpu");
        free(copy);
    }
    free(head);
    return 1;
}

static struct cfile *load(const char *path)
{
    for (int i = 0; i < nfiles; i++)
        if (!strcmp(files[i]->path, path)) return files[i];
    struct cfile *f = calloc(1, sizeof *f);
    char **lines = read_lines(path, &f->nlines);
    f->path = strdup(path);
    if (lines) {
        size_t len = strlen(path);
        if (!(len > 4 && !strcmp(path + len - 4, ".csv") && load_bench_csv(f, lines)))
            load_text(f, lines);
        for (int i = 0; i < f->nlines; i++) free(lines[i]);
        free(lines);
    }
    PUSH(files, nfiles, capfiles, f);
    return f;
}

/* ---- citations --------------------------------------------------------- */

struct cite { struct cfile *f; int from, to; unsigned long long variants; };  /* lines from..to of f; 0: all */
struct cites { struct cite *c; int n, cap; };

static void add_cite(struct cites *cs, struct cfile *f, int from, int to)
{
    for (int i = 0; i < cs->n; i++)
        if (cs->c[i].f == f && cs->c[i].from == from && cs->c[i].to == to) return;
    struct cite c = {f, from, to, 0};
    PUSH(cs->c, cs->n, cs->cap, c);
}

static void add_cites(struct cites *to, const struct cites *from)
{
    for (int i = 0; i < from->n; i++) add_cite(to, from->c[i].f, from->c[i].from, from->c[i].to);
}

static int is_dir(const char *p) { struct stat st; return !stat(p, &st) && S_ISDIR(st.st_mode); }
static int is_file(const char *p) { struct stat st; return !stat(p, &st) && S_ISREG(st.st_mode); }

/* The file a plot was drawn from: X.csv, else X less its last -suffix. */
static char *plot_source(const char *svg)
{
    char *p = strdup(svg), *dash;
    p[strlen(p) - 4] = 0;
    for (;;) {
        char *csv;
        if (asprintf(&csv, "%s.csv", p) < 0) exit(2);
        if (is_file(csv)) { free(p); return csv; }
        free(csv);
        dash = strrchr(p, '-');
        if (!dash || strchr(dash, '/')) { free(p); return NULL; }
        *dash = 0;
    }
}

/* Cite path (a file or a folder's files), narrowed to the sections of a
 * Markdown file whose headings hold section, where any does. */
static void cite_path(struct cites *cs, const char *path, const char *section)
{
    if (is_dir(path)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            char *p;
            if (asprintf(&p, "%s/%s", path, e->d_name) < 0) exit(2);
            if (e->d_name[0] != '.' && is_file(p)) cite_path(cs, p, NULL);
            free(p);
        }
        if (d) closedir(d);
        return;
    }
    size_t len = strlen(path);
    if (len > 4 && !strcmp(path + len - 4, ".svg")) {
        char *csv = plot_source(path);
        if (csv) cite_path(cs, csv, NULL);
        free(csv);
        return;
    }
    struct cfile *f = load(path);
    int found = 0;
    if (section && *section) {
        char *want = fold(section);
        for (int i = 0; i < f->nhead; i++) {
            if (!strstr(f->head[i].text, want)) continue;
            int end = f->nlines;
            for (int j = i + 1; j < f->nhead; j++)
                if (f->head[j].level <= f->head[i].level) { end = f->head[j].line - 1; break; }
            add_cite(cs, f, f->head[i].line, end), found = 1;
        }
        free(want);
    }
    if (!found) add_cite(cs, f, 1, f->nlines);
}

/* ---- a document -------------------------------------------------------- */

struct figure {
    size_t pos, end;   /* in the block's text */
    double fu;         /* the value in its own unit */
    double scale;      /* its unit in seconds (TIME) or GB/s (BW), else 1 */
    int kind, decimals, has_unit, skip, label, approx, by;
    size_t chain_end;  /* the end of the last figure it is joined to: "5.5 to 5.9 µs" */
    int chain_i, chain_n;  /* its place in that chain, and the chain's length */
    double tol;        /* how far a value may be and still round to it */
    char unit[8];
    double nlo, nhi;   /* the sizes its sentence names; 0, 0: any */
    int sentence;
};

struct block {
    int first, last;  /* line indices, inclusive */
    char *raw, *text; /* the lines joined; text with code, math and link targets blanked */
    size_t *offset;   /* where each line starts in raw */
    struct cites own;
    int caption, table;
};

static int is_list_item(const char *s, int *indent)
{
    int i = 0;
    while (s[i] == ' ') i++;
    *indent = i;
    if ((s[i] == '-' || s[i] == '*' || s[i] == '+') && s[i + 1] == ' ') return 1;
    while (isdigit((unsigned char)s[i])) i++;
    return i > *indent && (s[i] == '.' || s[i] == ')') && s[i + 1] == ' ';
}

static int is_table_line(const char *s)
{
    while (*s == ' ') s++;
    return *s == '|';
}

static int blank(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return !*s;
}

/* Where line l of the document falls in block b's text. */
static int line_of(const struct block *b, size_t pos)
{
    int l = b->first;
    while (l < b->last && b->offset[l - b->first + 1] <= pos) l++;
    return l;
}

/* Blank out inline code, $math$, link targets and HTML comments. */
static void blank_markup(char *t)
{
    for (char *p = t; *p; p++) {
        char *e = NULL;
        if (*p == '`') e = strchr(p + 1, '`');
        else if (*p == '$') e = strchr(p + 1, '$');
        else if (p[0] == ']' && p[1] == '(') e = strchr(p + 2, ')');
        else if (!strncmp(p, "<!--", 4) && (e = strstr(p, "-->"))) e += 2;
        if (!e) continue;
        for (char *q = (*p == ']' ? p + 1 : p); q <= e; q++)
            if (*q != '\n') *q = ' ';
        p = e;
    }
}

static int pathch(int c) { return isalnum(c) || c == '_' || c == '.' || c == '/' || c == '-' || c == '+' || c == '<' || c == '>'; }

/* The citations in block b's raw text. dirs: the folders cited so far in
 * the document, for bare names. at: the positions where each begins. */
struct list { void **p; int n, cap; };   /* a list of pointers or of positions */

static void find_cites(const char *raw, const char *text, struct cites *cs, struct list *dirs,
                       struct list *at, struct list *ends)
{
    for (const char *p = raw; *p; p++) {
        int bare = 0;
        if (strncmp(p, "results/", 8) && strncmp(p, "notebook/", 9)) {
            /* a bare name of a file in a folder cited earlier */
            if (!(p == raw || !pathch((unsigned char)p[-1])) || !isalnum((unsigned char)*p)) continue;
            size_t n = 0;
            while (pathch((unsigned char)p[n]) && p[n] != '/') n++;
            while (n && p[n - 1] == '.') n--;
            if (n < 5 || !strchr(p, '.') || memchr(p, '.', n) == NULL) continue;
            bare = 1;
        } else if (p > raw) {
            char c = p[-1];
            if (c == '/' && !(p - raw >= 3 && p[-2] == '.' && p[-3] == '.')) continue;
            if (isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == ':') continue;
        }
        size_t n = 0;
        while (pathch((unsigned char)p[n])) n++;
        while (n && (p[n - 1] == '.' || p[n - 1] == ',')) n--;
        char *path = strndup(p, n);
        size_t start = (size_t)(p - raw);
        p += n - 1;
        if (strchr(path, '<')) { free(path); continue; }
        /* inside inline code, only a span that holds nothing but the path counts */
        if (text[start] == ' ' && raw[start] != ' ') {
            const char *open = raw + start - 1;
            if (!(start > 0 && *open == '`' && raw[start + n] == '`')) { free(path); continue; }
        }
        char *found = NULL;
        if (bare) {
            for (int i = 0; i < dirs->n && !found; i++) {
                char *q;
                if (asprintf(&q, "%s/%s", (char *)dirs->p[i], path) < 0) exit(2);
                if (is_file(q)) found = q; else free(q);
            }
            free(path);
            if (!found) continue;
            path = found;
        }
        size_t len = strlen(path);
        while (len > 1 && path[len - 1] == '/') path[--len] = 0;
        if (!is_file(path) && !is_dir(path)) { free(path); continue; }
        if (is_dir(path)) PUSH(dirs->p, dirs->n, dirs->cap, strdup(path));
        /* a section named just after it: "Issue 19", or (`make -s run LAB=reduce ...` */
        char section[160] = "";
        const char *q = raw + start + n, *open = NULL, *close = NULL;
        if (!strncmp(q, "'s", 2)) q += 2;
        while (*q == ',' || *q == ' ' || *q == '\n') q++;
        if (!strncmp(q, "section ", 8)) q += 8;
        if (*q == '"') open = q + 1, close = strchr(open, '"');
        else if (q[0] == '(' && q[1] == '`') open = q + 2, close = strchr(open, '`');
        for (size_t k = 0; open && close && open < close && k < sizeof section - 1; open++)
            if (!(isspace((unsigned char)*open) && k && section[k - 1] == ' '))
                section[k++] = isspace((unsigned char)*open) ? ' ' : *open, section[k] = 0;
        cite_path(cs, path, section);
        PUSH(at->p, at->n, at->cap, (void *)start);
        PUSH(ends->p, ends->n, ends->cap, (void *)(size_t)cs->n);
        free(path);
    }
}

static int after_word(const char *t, size_t pos, const char *const *words);

/* Does the text just before pos bound the figure, not measure it? */
static int is_bound(const char *text, size_t pos)
{
    static const char *const words[] = {"at most ", "at least ", "under ", "below ", "over ", "above ",
        "within ", "less than ", "more than ", "fewer than ", "up to ", "beyond ", "exceeds ",
        "no more than ", "to within ", NULL};
    return after_word(text, pos, words);
}

/* The unit at s (after at most one space); sets kind and scale, returns
 * its length, 0 if none. */
static int read_unit(const char *s, int *kind, double *scale, char *name)
{
    static const struct { const char *u; int kind; double scale; } units[] = {
        {"ns", TIME, 1e-9}, {"\xc2\xb5s", TIME, 1e-6}, {"\xce\xbcs", TIME, 1e-6}, {"us", TIME, 1e-6},
        {"ms", TIME, 1e-3}, {"s", TIME, 1}, {"GB/s", BW, 1}, {"TB/s", BW, 1000}, {"%", PCT, 1},
        {"x", RATIO, 1}, {"\xc3\x97", RATIO, 1}, {"times", RATIO, 1}, {"million", COUNT, 1e6},
        {"billion", COUNT, 1e9}, {NULL, 0, 0}};
    int sp = (*s == ' ');
    s += sp;
    for (int i = 0; units[i].u; i++) {
        size_t k = strlen(units[i].u);
        if (strncmp(s, units[i].u, k)) continue;
        const char *after = s + k;
        if (isalnum((unsigned char)*after) || *after == '_') continue;
        if (units[i].kind == RATIO && units[i].u[0] != 't') {
            /* 5 x 0.5435 and 132 × 2048 are products; 16384x16384 a shape */
            const char *q = after;
            while (*q == ' ') q++;
            if (isdigit((unsigned char)*q) || *q == '$' || *q == '(') continue;
            if (sp && units[i].u[0] == 'x') continue;   /* "4 x" is a product or a name */
        }
        *kind = units[i].kind, *scale = units[i].scale;
        strcpy(name, units[i].u);
        return (int)(sp + k);
    }
    return 0;
}

/* Connectors that give a number the unit of the figure after it. */
static int joins(const char *a, const char *b)
{
    static const char *ok[] = {" to ", "-", "\xe2\x80\x93", " and ", ", ", " or ", ", and ", " against ",
        " and to ", NULL};
    size_t k = (size_t)(b - a);
    for (int i = 0; ok[i]; i++)
        if (strlen(ok[i]) == k && !strncmp(a, ok[i], k)) return 1;
    return 0;
}

/* Sentence boundaries: '.', ';', '!' or '?' before a space or a line's end
 * (not e.g., i.e., vs.); in a table, each line. */
static int sentence_of(const char *text, size_t pos, int table, size_t *start, size_t *end)
{
    int count = 0;
    size_t s = 0;
    for (size_t i = 0; text[i]; i++) {
        int stop = table ? text[i] == '\n'
                         : (strchr(".;!?", text[i]) && (text[i + 1] == ' ' || text[i + 1] == '\n' ||
                            !text[i + 1]) && !(i >= 3 && (!strncmp(text + i - 3, "e.g", 3) ||
                            !strncmp(text + i - 3, "i.e", 3) || !strncmp(text + i - 2, "vs", 2))));
        if (stop) {
            if (pos >= s && pos <= i) { *start = s, *end = i; return count; }
            s = i + 1, count++;
        }
    }
    *start = s, *end = strlen(text);
    return count;
}

/* The sizes named in raw[start, end): 2^k, 2^{k}, RxC, each with the word
 * before it ("from", "to", "up to"...). */
struct size { size_t pos, end; double n; int from, to, upto; };

static int sizes_in(const char *raw, size_t start, size_t end, struct size *out, int max)
{
    int k = 0;
    for (size_t i = start; i < end && k < max; i++) {
        struct size s = {i, i, 0, 0, 0, 0};
        if (i > 0 && (isalnum((unsigned char)raw[i - 1]) || raw[i - 1] == '.')) continue;
        if (raw[i] == '2' && raw[i + 1] == '^') {
            size_t j = i + 2 + (raw[i + 2] == '{');
            if (!isdigit((unsigned char)raw[j])) continue;
            s.n = ldexp(1, atoi(raw + j));
            while (isdigit((unsigned char)raw[j]) || raw[j] == '}') j++;
            s.end = j;
        } else if (isdigit((unsigned char)raw[i])) {
            char *x, *y;
            double r = strtod(raw + i, &x);
            if (*x != 'x' || !isdigit((unsigned char)x[1]) || r < 16) continue;
            s.n = r * strtod(x + 1, &y), s.end = (size_t)(y - raw);
        } else continue;
        /* the word before, past "$", "n = " */
        size_t w = i;
        while (w > start && strchr("$ =n", raw[w - 1]) && !(raw[w - 1] == 'n' && isalpha((unsigned char)raw[w - 2])))
            w--;
        s.from = w >= 4 && !strncasecmp(raw + w - 4, "from", 4);
        s.upto = (w >= 5 && !strncasecmp(raw + w - 5, "up to", 5)) || (w >= 5 && !strncasecmp(raw + w - 5, "below", 5)) ||
                 (w >= 5 && !strncasecmp(raw + w - 5, "until", 5));
        s.to = !s.upto && w >= 2 && !strncmp(raw + w - 2, "to", 2) && (w == 2 || raw[w - 3] == ' ');
        out[k++] = s;
        i = s.end - 1;
    }
    return k;
}

/* The sizes a list of mentions names together: from A to B, from A (and
 * up), up to A, or each one named. */
static void sizes_range(const struct size *s, int k, double *lo, double *hi)
{
    *lo = *hi = 0;
    for (int i = 0; i < k; i++) {
        double a = s[i].n, b = s[i].n;
        if (s[i].from) b = (i + 1 < k && s[i + 1].to) ? s[i + 1].n : INFINITY;
        if (s[i].upto) a = 1;
        if (*lo == 0 || a < *lo) *lo = a;
        if (b > *hi) *hi = b;
    }
}

/* The sizes a figure's rows must have: those just after it ("7.1 µs at
 * 2^18", "5.5 to 5.9 µs from 2^12 to 2^18"), else the last its clause
 * names before it (from A to B, from A, up to A, or A), else all its
 * sentence names; none if it names none. */
static void figure_sizes(const char *raw, const char *text, const struct figure *g, size_t s0, size_t s1,
                         double *lo, double *hi)
{
    struct size s[32];
    const char *p = raw + g->chain_end;
    while (*p == ' ') p++;
    if (!strncmp(p, "at ", 3) || !strncmp(p, "from ", 5)) {
        size_t at = (size_t)(p - raw) + (*p == 'a' ? 3 : 0);
        int k = sizes_in(raw, at, s1, s, 32);
        /* respectively: "75.8, 75.7 and 76.8 % at 2^24, 2^26 and 2^28" */
        if (g->chain_n > 1 && k >= g->chain_n && s[0].pos <= at + 10 && !s[0].from) {
            int list = 1;
            for (int i = 1; i < g->chain_n; i++) {
                char gap[16];   /* what joins two sizes, less their $...$ */
                size_t m = 0;
                for (size_t q = s[i - 1].end; q < s[i].pos && m < sizeof gap - 1; q++)
                    if (raw[q] != '$') gap[m++] = raw[q];
                gap[m] = 0;
                list &= !s[i].from && !s[i].to && joins(gap, gap + m);
            }
            if (list) { sizes_range(s + g->chain_i, 1, lo, hi); return; }
        }
        if (k > 2) k = 2;
        if (k && s[0].pos <= at + 10) {
            if (k == 2 && !(s[0].from && s[1].to)) k = 1;
            sizes_range(s, k, lo, hi);
            return;
        }
    }
    size_t c = g->pos;
    while (c > s0 && !strchr(",;()", text[c - 1])) c--;
    int k = sizes_in(raw, c, g->pos, s, 32);
    if (k) {
        int i = k - 1;
        if (s[i].to && i > 0 && s[i - 1].from) i--;
        sizes_range(s + i, k - i, lo, hi);
        return;
    }
    k = sizes_in(raw, s0, s1, s, 32);
    sizes_range(s, k, lo, hi);
}

/* Is g ("1024 times the elements") the ratio of two sizes its sentence names? */
static int size_ratio(const char *raw, const struct figure *g, size_t s0, size_t s1)
{
    struct size s[32];
    int k = sizes_in(raw, s0, s1, s, 32);
    if (g->kind != RATIO || g->decimals) return 0;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++)
            if (s[i].n == g->fu * s[j].n) return 1;
    return 0;
}

/* Does one of words end just before pos (at a word's start)? */
static int after_word(const char *t, size_t pos, const char *const *words)
{
    for (int i = 0; words[i]; i++) {
        size_t k = strlen(words[i]);
        if (pos >= k && !strncasecmp(t + pos - k, words[i], k) &&
            (pos == k || !isalpha((unsigned char)t[pos - k - 1]))) return 1;
    }
    return 0;
}

/* Does s start with one of words, ending there? */
static int after_word_at(const char *s, const char *const *words)
{
    for (int i = 0; words[i]; i++) {
        size_t k = strlen(words[i]);
        if (!strncmp(s, words[i], k) && !isalpha((unsigned char)s[k])) return 1;
    }
    return 0;
}

/* The figures in block b. */
static int find_figures(const struct block *b, struct figure **out)
{
    static const char *const labels[] = {"stage ", "stages ", "answer ", "answers ", "question ",
        "questions ", "line ", "lines ", "row ", "rows ", "level ", "levels ", "pass ", "passes ",
        "run ", "issue ", "version ", "CUDA ", "driver ", "nvcc ", "capability ", NULL};
    static const char *const by[] = {"by ", NULL};
    static const char *const ahead[] = {" behind", " ahead", " faster", " slower", " more", " less",
        " longer", " shorter", " quicker", NULL};
    static const char *const sizes[] = {" bytes", " floats", " ints", " words", " B ", " KiB", " MiB",
        " GiB", " threads", " blocks", " tiles", " keys", " values", " elements", " warps", NULL};
    static const char *const about[] = {"about ", "nearly ", "roughly ", "around ", "almost ",
        "some ", "~", NULL};
    static struct figure *fig;
    static int cap;
    int n = 0;
    const char *t = b->text;
    for (size_t i = 0; t[i]; i++) {
        struct figure g = {0};
        double v;
        int grouped, len;
        if (!isdigit((unsigned char)t[i])) continue;
        if (i > 0 && (isalnum((unsigned char)t[i - 1]) || strchr("_^./+#\\", t[i - 1]) ||
                      (t[i - 1] == '-' && i > 1 && isalnum((unsigned char)t[i - 2])))) {
            while (isalnum((unsigned char)t[i + 1]) || t[i + 1] == '.') i++;
            continue;
        }
        len = read_number(t + i, &v, &g.decimals, &grouped);
        if (grouped && after_word(t, i, labels)) {   /* "stage 2 140.2 µs": a label, then a figure */
            i += strspn(t + i, "0123456789") - 1;
            continue;
        }
        const char *after = t + i + len;
        /* not a number we read: 13.0.88, 03:39, 1/2, 2026-11-24, 4b, 85c71c8 */
        if ((after[0] == '.' && isdigit((unsigned char)after[1])) ||
            (strchr(":/^", after[0]) && after[0] && isdigit((unsigned char)after[1])) ||
            (after[0] == '-' && isdigit((unsigned char)after[1]) && isdigit((unsigned char)after[2]) &&
             strchr(after + 1, '-') && strchr(after + 1, '-') - after <= 3)) {
            i += (size_t)len;   /* on the first character after it, one of .:/^- */
            while (t[i + 1] && (isalnum((unsigned char)t[i + 1]) || strchr(".:/^-", t[i + 1]))) i++;
            continue;
        }
        g.pos = i, g.end = i + (size_t)len, g.fu = v, g.scale = 1;
        g.tol = 0.5 * pow(10, -g.decimals);
        int ulen = read_unit(after, &g.kind, &g.scale, g.unit);
        if (ulen) g.has_unit = 1, g.end += (size_t)ulen;
        else if (isalpha((unsigned char)*after) || *after == '_') {
            while (isalnum((unsigned char)t[i + 1])) i++;
            continue;
        } else g.kind = g.decimals ? BARE : grouped ? COUNT : -1;
        g.chain_end = g.end;
        g.label = !g.has_unit && after_word(t, i, labels);    /* stage 4, line 12: names */
        if (g.label) g.kind = -1;
        g.skip = is_bound(t, i);
        g.approx = after_word(t, i, about);
        g.by = after_word(t, i, by);
        /* a count of 2^k is a size: 268,435,456 */
        if (g.kind == COUNT && g.scale == 1 && v >= 1024 && frexp(v, &(int){0}) == 0.5) g.kind = -1;
        /* so is a count of what a launch or an array is made of: 43,691 tiles, 60 000 bytes */
        if (g.kind == COUNT && g.scale == 1 && after_word_at(after, sizes)) g.kind = -1;
        /* the result of arithmetic shown: = 2.72, ≈ 3.43 */
        size_t k = i;
        while (k > 0 && (t[k - 1] == ' ' || t[k - 1] == '*' || t[k - 1] == '_')) k--;   /* = **7.0** */
        if (k > 0 && (t[k - 1] == '=' || (k >= 3 && !strncmp(t + k - 3, "\xe2\x89\x88", 3)))) {
            g.skip = 1;   /* yet an operand of what follows: 16 029 - 8192 = 7837 requests */
            if (g.kind < 0 && !g.label) g.kind = COUNT;
        }
        PUSH(fig, n, cap, g);
        i = g.end - 1;
    }
    /* a number joined to a figure takes its unit: 79 to 84 %, 0.3897 against 0.3960 ms */
    for (int j = n - 2; j >= 0; j--)
        if (!fig[j].has_unit && !fig[j].label && fig[j + 1].has_unit &&
            joins(t + fig[j].end, t + fig[j + 1].pos)) {
            fig[j].has_unit = 1, fig[j].kind = fig[j + 1].kind, fig[j].scale = fig[j + 1].scale;
            strcpy(fig[j].unit, fig[j + 1].unit);
            fig[j].chain_end = fig[j + 1].chain_end;
        }
    for (int j = 1; j < n; j++) {
        /* "about 170 and 1000": both rounded, to their last digit that is not 0 */
        if (fig[j - 1].approx && joins(t + fig[j - 1].end, t + fig[j].pos)) fig[j].approx = 1;
        if (fig[j - 1].by && joins(t + fig[j - 1].end, t + fig[j].pos)) fig[j].by = 1;
        /* X ms against [stage 4's] Y: Y is in ms */
        if (fig[j].has_unit || fig[j].label) continue;
        const char *a = NULL;
        for (size_t back = 1; back < 24 && back <= fig[j].pos; back++)
            if (!strncmp(t + fig[j].pos - back, " against ", 9)) { a = t + fig[j].pos - back; break; }
        if (!a) continue;
        for (int m = j - 1; m >= 0; m--)
            if (t + fig[m].end == a && fig[m].has_unit) {
                fig[j].has_unit = 1, fig[j].kind = fig[m].kind, fig[j].scale = fig[m].scale;
                strcpy(fig[j].unit, fig[m].unit);
                break;
            }
    }
    for (int j = 0; j < n; j++) {
        if (fig[j].approx && !fig[j].decimals)
            for (double z = fig[j].fu; z >= 10 && fmod(z, 10) == 0; z /= 10) fig[j].tol *= 10;
        /* 50 µs or more: a bound */
        const char *e = t + fig[j].chain_end;
        if (!strncmp(e, " or more", 8) || !strncmp(e, " or less", 8) || !strncmp(e, " or fewer", 9))
            fig[j].skip = 1;
        /* 15 % behind, 16 % faster: how far a ratio is from 1 */
        if (after_word_at(e, ahead)) fig[j].by = 1;
        for (int m = 0; m < n; m++)
            if (fig[m].chain_end == fig[j].chain_end) fig[j].chain_i += m < j, fig[j].chain_n++;
    }
    *out = fig;
    return n;
}

/* ---- checking a figure ------------------------------------------------- */

struct nearest { double err, conv; const struct value *v; const struct cfile *f; };
static int matched_csv;   /* whether the value check() found last came from a bench CSV */

static double tolerance(const struct figure *g)
{
    return g->tol * (1 + 1e-9) + 1e-12;
}

/* Does conv round to the figure? Keeps the nearest seen in m. */
static int meets(const struct figure *g, double conv, const struct value *v, const struct cfile *f,
                 struct nearest *m)
{
    double err = fabs(conv - g->fu);
    if (m && conv > 0 && err / fmax(fabs(g->fu), 1e-300) < m->err)
        m->err = err / fmax(fabs(g->fu), 1e-300), m->conv = conv, m->v = v, m->f = f;
    return err <= tolerance(g);
}

/* Rules 1 and 2: a value of a cited file, read in the figure's unit. */
static int from_value(const struct figure *g, const struct value *v, const struct cite *cite,
                      struct nearest *m)
{
    const struct cfile *f = cite->f;
    double x = v->v, c[3];
    int n = 0;
    if (v->diff && g->nlo == 0) return 0;
    if (cite->variants && v->variant >= 0 && !(cite->variants >> v->variant & 1)) return 0;
    /* a matrix's odd shape is one element short of its square: 1023x1025 at 2^20 */
    if (g->nlo > 0 && v->n > 0 && (v->n < g->nlo * (1 - 1e-9) - 1 || v->n > g->nhi * (1 + 1e-9))) return 0;
    switch (g->kind) {
    case TIME: case BW:
        if (v->vkind == (g->kind == TIME ? V_TIME : V_BW)) c[n++] = x / g->scale;
        else if (v->vkind == V_TEXT) c[n++] = x, c[n++] = x * 1000, c[n++] = x / 1000;
        break;
    case PCT:            /* "by 16 %": also how far a share or a ratio is from 100 % */
        if (v->vkind == V_PCT) c[n++] = x, c[n++] = g->by ? fabs(x - 100) : x;
        else if (v->vkind == V_RATIO && g->by) c[n++] = 100 * fabs(x - 1);
        else if (v->vkind == V_TEXT) c[n++] = x, c[n++] = 100 * x;
        break;
    case RATIO:
        if (v->vkind == V_RATIO || v->vkind == V_TEXT) c[n++] = x;
        break;
    case COUNT:
        if (v->vkind == V_TEXT) c[n++] = x / g->scale;
        break;
    case BARE:
        if (v->vkind == V_TIME) c[n++] = x * 1e3, c[n++] = x * 1e6;
        else c[n++] = x;
        break;
    }
    for (int i = 0; i < n; i++)
        if (meets(g, c[i], v, f, m)) return 1;
    return 0;
}

/* Rule 3: the ratio of two figures of one kind quoted in its sentence or
 * the one before. */
static int from_quoted(const struct figure *g, const struct figure *fig, int nfig)
{
    if (g->kind != RATIO && g->kind != BARE && g->kind != PCT) return 0;
    for (int i = 0; i < nfig; i++) {
        const struct figure *a = &fig[i];
        if (a == g || a->kind != fig[i].kind || a->kind < 0 || a->fu <= 0 ||
            a->sentence > g->sentence || a->sentence < g->sentence - 1) continue;
        for (int j = 0; j < nfig; j++) {
            const struct figure *b = &fig[j];
            if (j == i || b == g || b->kind != a->kind || b->fu <= 0 ||
                b->sentence > g->sentence || b->sentence < g->sentence - 1) continue;
            double r = a->fu * a->scale / (b->fu * b->scale);
            if (g->kind == PCT && a->kind == PCT) continue;   /* a percent of a percent: too many */
            if (meets(g, g->kind == PCT ? 100 * r : r, NULL, NULL, NULL)) return 1;
        }
    }
    return 0;
}

/* Which rule passes g (1, 2 or 3), or 0. */
static int check(const struct figure *g, const struct cites *cs, const struct figure *fig, int nfig,
                 struct nearest *m)
{
    for (int i = 0; i < cs->n; i++) {
        const struct cite *c = &cs->c[i];
        for (int j = 0; j < c->f->nval; j++) {
            const struct value *v = &c->f->val[j];
            if (v->line >= c->from && v->line <= c->to && from_value(g, v, c, m) && (matched_csv = c->f->csv, 1))
                return !v->what || !strcmp(v->what, "ms") || !strcmp(v->what, "gbps") ? 1 : 2;
        }
    }
    return from_quoted(g, fig, nfig) ? 3 : 0;
}

/* ---- a document -------------------------------------------------------- */

static int checked, passed, failed, skipped, docs;
/* --perturb's counts, by kind and by where the figure was found: a bench CSV, another file, rule 3 */
static int tried[NKINDS][3], caught[NKINDS][3], passing[NKINDS][3];
static int verbose, perturb;

static void print_figure(FILE *out, const struct block *b, const struct figure *g)
{
    fprintf(out, "%.*s", (int)(g->end - g->pos), b->raw + g->pos);
    if (g->has_unit && !strstr(b->raw + g->pos, g->unit)) fprintf(out, " %s", g->unit);
    else if (g->has_unit && (size_t)(strstr(b->raw + g->pos, g->unit) - b->raw) >= g->end)
        fprintf(out, " (%s)", g->unit);
}

static void report(const char *doc, const struct block *b, const struct figure *g, const struct cites *cs,
                   const struct nearest *m)
{
    printf("%s:%d: ", doc, line_of(b, g->pos) + 1);
    print_figure(stdout, b, g);
    printf(" is not in ");
    for (int i = 0; i < cs->n; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++) dup |= cs->c[j].f == cs->c[i].f;
        if (dup) continue;
        printf("%s%s", i ? ", " : "", cs->c[i].f->path);
        if (cs->c[i].from > 1 || cs->c[i].to < cs->c[i].f->nlines)
            printf(":%d-%d", cs->c[i].from, cs->c[i].to);
    }
    if (m->v) {
        int sig = 0;
        for (const char *p = b->raw + g->pos; p < b->raw + g->end; p++)
            if (isdigit((unsigned char)*p) && (sig || *p != '0')) sig++;
        printf(" (nearest: %.*g%s%s, %s:%d", sig + 1 > 3 ? sig + 1 : 3, m->conv, g->has_unit ? " " : "",
               g->has_unit ? g->unit : "", m->f->path, m->v->line);
        if (m->f->csv && m->f->row[m->v->line]) printf(", %s, %s", m->f->row[m->v->line], m->v->what);
        printf(")");
    }
    printf("\n");
}

struct event { size_t pos; int kind; int a, b; };  /* kind 0: mention of answers a..b; 1: cites a..b */

static int by_pos(const void *x, const void *y)
{
    const struct event *p = x, *q = y;
    return p->pos < q->pos ? -1 : p->pos > q->pos;
}

#define MAXANS 64
/* An appendix's answer AN (`## A1.`, "answers 2 and A1") is answer
 * APPENDIX_ANSWER + N, apart from the handout's 1 to 31. */
#define APPENDIX_ANSWER 32

/* The appendix answer named at r[i] ("A1", not "A100" nor "CA1"), or 0. */
static int appendix_answer(const char *r, size_t i)
{
    if (r[i] != 'A' || !isdigit((unsigned char)r[i + 1]) || (i > 0 && isalnum((unsigned char)r[i - 1])))
        return 0;
    size_t d = strspn(r + i + 1, "0123456789");
    if (d > 2 || isalnum((unsigned char)r[i + 1 + d])) return 0;
    int n = atoi(r + i + 1);
    return n > 0 && APPENDIX_ANSWER + n < MAXANS ? APPENDIX_ANSWER + n : 0;
}

/* In a model answer's opening, a sentence that names answer or question N
 * and then cites a file makes it cover answer N. A mention in parentheses
 * ends with them; one after a citation starts a new list. */
static void answer_cites(const struct block *b, const struct list *at, const struct list *ends,
                         struct cites *ans)
{
    struct event *ev = NULL;
    int nev = 0, cap = 0;
    const char *r = b->raw;
    for (size_t i = 0; r[i]; i++) {
        size_t k = 0;
        int appendix = appendix_answer(r, i);
        if (appendix) {
            struct event x = {i, 0, appendix, appendix};
            PUSH(ev, nev, cap, x);
            continue;
        }
        if (i > 0 && isalpha((unsigned char)r[i - 1])) continue;
        if (!strncasecmp(r + i, "answer", 6)) k = 6;
        else if (!strncasecmp(r + i, "question", 8)) k = 8;
        else continue;
        if (r[i + k] == 's') k++;
        if (r[i + k] != ' ' || !isdigit((unsigned char)r[i + k + 1])) continue;
        const char *p = r + i + k + 1;
        for (;;) {
            char *e;
            long lo = strtol(p, &e, 10), hi = lo;
            if (!strncmp(e, " to ", 4) && isdigit((unsigned char)e[4])) hi = strtol(e + 4, &e, 10);
            struct event x = {i, 0, (int)lo, (int)hi};
            PUSH(ev, nev, cap, x);
            if (!strncmp(e, ", and ", 6) && isdigit((unsigned char)e[6])) p = e + 6;
            else if (!strncmp(e, ", ", 2) && isdigit((unsigned char)e[2])) p = e + 2;
            else if (!strncmp(e, " and ", 5) && isdigit((unsigned char)e[5])) p = e + 5;
            else break;
        }
    }
    const struct cites *own = &b->own;
    for (int i = 0; i < at->n; i++) {
        struct event x = {(size_t)at->p[i], 1, i ? (int)(size_t)ends->p[i - 1] : 0, (int)(size_t)ends->p[i]};
        PUSH(ev, nev, cap, x);
    }
    if (nev) qsort(ev, (size_t)nev, sizeof *ev, by_pos);
    int list[MAXANS], depth_of[MAXANS], nlist = 0, last_cite = 0, sentence = -1;
    size_t pos = 0;
    int depth = 0;
    for (int e = 0; e < nev; e++) {
        size_t s0, s1;
        for (; pos < ev[e].pos; pos++) {             /* parentheses closed since */
            if (r[pos] == '(') depth++;
            if (r[pos] == ')' && depth > 0) {
                depth--;
                int k = 0;
                for (int j = 0; j < nlist; j++)
                    if (depth_of[j] <= depth) list[k] = list[j], depth_of[k++] = depth_of[j];
                nlist = k;
            }
        }
        int s = sentence_of(b->text, ev[e].pos, 0, &s0, &s1);
        if (s != sentence) nlist = 0, sentence = s, last_cite = 0;
        if (ev[e].kind == 0) {
            if (last_cite) nlist = 0, last_cite = 0;
            for (int n = ev[e].a; n <= ev[e].b && nlist < MAXANS; n++)
                list[nlist] = n, depth_of[nlist++] = depth;
        } else {
            last_cite = 1;
            if (!nlist)                      /* no answer named: it covers them all */
                for (int c = ev[e].a; c < ev[e].b; c++)
                    add_cite(&ans[0], own->c[c].f, own->c[c].from, own->c[c].to);
            for (int j = 0; j < nlist; j++)
                if (list[j] > 0 && list[j] < MAXANS)
                    for (int c = ev[e].a; c < ev[e].b; c++)
                        add_cite(&ans[list[j]], own->c[c].f, own->c[c].from, own->c[c].to);
        }
    }
    free(ev);
}

/* The answer each line belongs to: a `## N.` (or `## AN.`) heading's
 * section, or an `N.` list item at the left margin; 0 for none. */
static int *answers_of(char **line, int nline, const char *in_code)
{
    int *ans = calloc((size_t)nline + 1, sizeof *ans), cur = 0, level = 0;
    for (int i = 0; i < nline; i++) {
        const char *s = line[i];
        int h = 0;
        if (!in_code[i]) {
            while (s[h] == '#') h++;
            if (h && s[h] == ' ') {
                const char *p = s + h + 1;
                if (!strncmp(p, "**", 2)) p += 2;
                if (isdigit((unsigned char)*p) && strchr(p, '.') && p[strspn(p, "0123456789")] == '.')
                    cur = atoi(p), level = h;
                else if (appendix_answer(p, 0) && p[1 + strspn(p + 1, "0123456789")] == '.')
                    cur = appendix_answer(p, 0), level = h;
                else if (h <= level || !level) cur = 0, level = 0;
            } else if (isdigit((unsigned char)s[0]) && s[strspn(s, "0123456789")] == '.' &&
                       s[strspn(s, "0123456789") + 1] == ' ' && !level)
                cur = atoi(s);
        }
        ans[i] = cur < MAXANS ? cur : 0;
    }
    return ans;
}

/* Where cell col of the table line starting at s begins and ends. */
static int cell(const char *raw, size_t s, int col, size_t *c0, size_t *c1)
{
    size_t e = s + strcspn(raw + s, "\n");
    int c = 0;
    *c0 = s;
    for (size_t p = s; p <= e; p++)
        if (p == e || raw[p] == '|') {
            if (c == col) { *c1 = p; return 1; }
            c++, *c0 = p + 1;
        }
    return 0;
}

/* A unit named as a word in a column's heading, raw[c0, c1), given to g. */
static void unit_named(const char *raw, size_t c0, size_t c1, struct figure *g)
{
    for (size_t q = c0; q < c1; q++) {
        int kind;
        double scale;
        char unit[8];
        if ((q == c0 || raw[q - 1] == ' ' || raw[q - 1] == '(') &&
            read_unit(raw + q, &kind, &scale, unit) && kind != RATIO && strcmp(unit, "s")) {
            g->kind = kind, g->scale = scale, g->has_unit = 1;
            strcpy(g->unit, unit);
            return;
        }
    }
}

/* The variants of f that text names, as a mask; 0 for none. */
static unsigned long long variants_named(const struct cfile *f, const char *text)
{
    unsigned long long mask = 0;
    for (int k = 0; k < f->nvariant; k++) {
        size_t len = strlen(f->variant[k]);
        for (const char *p = text; (p = strstr(p, f->variant[k])); p++)
            if ((p == text || !(isalnum((unsigned char)p[-1]) || p[-1] == '-')) &&
                !(isalnum((unsigned char)p[len]) || p[len] == '-')) { mask |= 1ULL << k; break; }
    }
    return mask;
}

static void check_doc(const char *path)
{
    int nline;
    char **line = read_lines(path, &nline);
    if (!line) { fprintf(stderr, "figures: cannot read %s\n", path); failed++; return; }
    docs++;
    char *in_code = calloc((size_t)nline + 1, 1);
    for (int i = 0, fence = 0; i < nline; i++) {
        const char *s = line[i] + strspn(line[i], " ");
        if (!strncmp(s, "```", 3)) fence = !fence, in_code[i] = 1;
        else in_code[i] = (char)fence;
    }
    /* the blocks */
    struct block *blk = NULL;
    int nblk = 0, capblk = 0;
    for (int i = 0; i < nline; ) {
        if (in_code[i] || blank(line[i])) { i++; continue; }
        struct block b = {0};
        int indent, item = is_list_item(line[i], &indent), head = line[i][0] == '#';
        b.first = i, b.table = is_table_line(line[i]);
        int j = i + 1;
        while (!head && j < nline && !in_code[j] && !blank(line[j]) && line[j][0] != '#' &&
               is_table_line(line[j]) == b.table) {
            int ind;
            if (is_list_item(line[j], &ind) && (ind <= indent || !item)) break;
            j++;
        }
        b.last = j - 1;
        size_t len = 0;
        b.offset = malloc(sizeof *b.offset * (size_t)(j - i + 1));
        for (int k = i; k < j; k++) b.offset[k - i] = len, len += strlen(line[k]) + 1;
        b.raw = malloc(len + 1), b.raw[0] = 0;
        for (int k = i; k < j; k++) strcat(strcat(b.raw, line[k]), k + 1 < j ? "\n" : "");
        /* a paragraph's line breaks are spaces ("0.85 ns at" / "2^28"); a table's end its rows */
        if (!b.table)
            for (char *c = b.raw; (c = strchr(c, '\n')); ) *c = ' ';
        b.text = strdup(b.raw);
        blank_markup(b.text);
        PUSH(blk, nblk, capblk, b);
        i = j;
    }
    /* what each block cites, and in a model answer's opening what each answer does */
    const char *base = strrchr(path, '/');
    int answers = !strcmp(base ? base + 1 : path, "ANSWERS.md");
    int *ans = answers_of(line, nline, in_code), first_answer = nline;
    for (int i = 0; i < nline; i++) if (ans[i]) { first_answer = i; break; }
    struct cites ans_cites[MAXANS] = {{0}};
    struct list dirs = {0};
    for (int i = 0; i < nblk; i++) {
        struct list at = {0}, ends = {0};
        struct block *b = &blk[i];
        find_cites(b->raw, b->text, &b->own, &dirs, &at, &ends);
        if (answers && b->first < first_answer)
            answer_cites(b, &at, &ends, ans_cites);
        free(at.p), free(ends.p);
        b->caption = strstr(b->raw, "![") && b->own.n;
    }
    /* the figures of each block, against what covers it */
    struct cites caption = {0};
    const char *caption_text = "";
    for (int i = 0; i < nblk; i++) {
        struct block *b = &blk[i];
        if (line[b->first][0] == '#') caption.n = 0, caption_text = "";
        if (b->caption) add_cites(&caption, &b->own), caption_text = b->raw;
        struct cites scope = {0};
        add_cites(&scope, &b->own);
        add_cites(&scope, &caption);
        /* a table's pandoc caption ("Table: ..."), just before or after it */
        for (int d = -1; b->table && d <= 1; d += 2)
            if (i + d >= 0 && i + d < nblk && !strncmp(line[blk[i + d].first], "Table:", 6))
                add_cites(&scope, &blk[i + d].own);
        if (answers && b->first >= first_answer) {
            add_cites(&scope, &ans_cites[ans[b->first]]);
            add_cites(&scope, &ans_cites[0]);
        }
        if (!scope.n) continue;
        /* a CSV's rows of the variants the block names, else its caption, else all */
        for (int k = 0; k < scope.n; k++)
            if (scope.c[k].f->nvariant > 1 &&
                !(scope.c[k].variants = variants_named(scope.c[k].f, b->raw)))
                scope.c[k].variants = variants_named(scope.c[k].f, caption_text);
        struct figure *fig;
        int nfig = find_figures(b, &fig);
        size_t s0, s1;
        for (int k = 0; k < nfig; k++) {
            struct figure *g = &fig[k];
            g->sentence = sentence_of(b->text, g->pos, b->table, &s0, &s1);
            if (b->table) {
                /* the size in the cell's column heading, else in its row; a unit in the heading */
                struct size s[32];
                size_t c0, c1;
                int col = 0;
                for (size_t p = s0; p < g->pos; p++) col += b->raw[p] == '|';
                if (cell(b->raw, 0, col, &c0, &c1)) {
                    sizes_range(s, sizes_in(b->raw, c0, c1, s, 32), &g->nlo, &g->nhi);
                    if (!g->has_unit && g->kind >= 0) unit_named(b->raw, c0, c1, g);
                }
                if (g->nlo == 0) sizes_range(s, sizes_in(b->raw, s0, s1, s, 32), &g->nlo, &g->nhi);
            } else figure_sizes(b->raw, b->text, g, s0, s1, &g->nlo, &g->nhi);
            if (size_ratio(b->raw, g, s0, s1)) g->kind = -1;
        }
        for (int k = 0; k < nfig; k++) {
            struct figure *g = &fig[k];
            if (g->kind < 0) continue;
            if (g->skip) { skipped++; continue; }
            struct nearest m = {INFINITY, 0, NULL, NULL};
            int rule = check(g, &scope, fig, nfig, &m);
            checked++;
            if (rule) {
                passed++;
                if (verbose) {
                    printf("%s:%d: ", path, line_of(b, g->pos) + 1);
                    print_figure(stdout, b, g);
                    printf(": rule %d (%s)\n", rule, kind_name[g->kind]);
                }
                if (perturb) {
                    int src = rule == 3 ? 2 : matched_csv ? 0 : 1;
                    passing[g->kind][src]++;
                    struct figure orig = *g;
                    for (int f = 0; f < 2; f++) {
                        double p = pow(10, orig.decimals);
                        fig[k].fu = round(orig.fu * (f ? 0.71 : 1.37) * p) / p;
                        if (fig[k].fu == orig.fu) continue;
                        tried[orig.kind][src]++;
                        int rule2 = check(&fig[k], &scope, fig, nfig, NULL);
                        caught[orig.kind][src] += !rule2;
                        if (rule2 && verbose) {
                            printf("%s:%d: %g instead of ", path, line_of(b, g->pos) + 1, fig[k].fu);
                            print_figure(stdout, b, &orig);
                            printf(" passes too (rule %d, %s)\n", rule2, scope.c[0].f->path);
                        }
                    }
                    fig[k] = orig;
                }
            } else {
                failed++;
                if (!perturb) report(path, b, g, &scope, &m);
            }
        }
        free(scope.c);
    }
    for (int i = 0; i < nblk; i++) free(blk[i].raw), free(blk[i].text), free(blk[i].offset), free(blk[i].own.c);
    for (int i = 0; i < nline; i++) free(line[i]);
    for (int i = 0; i < dirs.n; i++) free(dirs.p[i]);
    for (int i = 0; i < MAXANS; i++) free(ans_cites[i].c);
    free(blk), free(line), free(in_code), free(ans), free(dirs.p), free(caption.c);
}

int main(int argc, char **argv)
{
    int nargs = 0;
    char **args = malloc(sizeof *args * (size_t)(argc + 1));
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v")) verbose = 1;
        else if (!strcmp(argv[i], "--perturb")) perturb = 1;
        else if (argv[i][0] == '-') {
            fprintf(stderr, "usage: figures [-v] [--perturb] [FILE.md...]\n");
            return 2;
        } else args[nargs++] = argv[i];
    }
    glob_t gl = {0};
    if (!nargs) {
        glob("handouts/*.md", 0, NULL, &gl);
        glob("handouts/appendix/*.md", GLOB_APPEND, NULL, &gl);
        glob("solutions/*/ANSWERS.md", GLOB_APPEND, NULL, &gl);
        for (size_t i = 0; i < gl.gl_pathc; i++) check_doc(gl.gl_pathv[i]);
    }
    for (int i = 0; i < nargs; i++) check_doc(args[i]);
    if (perturb) {
        static const char *src[3] = {"a bench CSV", "another file", "quoted figures"};
        int all[2] = {0, 0};
        printf("figures that pass, and how many of them are caught at 1.37 and at 0.71 times their value:\n");
        for (int k = 0; k < NKINDS; k++) {
            int p = 0, t = 0, c = 0;
            for (int s = 0; s < 3; s++) p += passing[k][s], t += tried[k][s], c += caught[k][s];
            if (!t) continue;
            printf("%-12s %4d pass, %4d of %4d caught (%3.0f %%):", kind_name[k], p, c, t, 100.0 * c / t);
            const char *sep = " ";
            for (int s = 0; s < 3; s++)
                if (tried[k][s])
                    printf("%sfrom %s %.0f %% of %d", sep, src[s], 100.0 * caught[k][s] / tried[k][s], tried[k][s]),
                    sep = ", ";
            printf("\n");
            all[0] += c, all[1] += t;
        }
        if (all[1]) printf("%-12s %4d of %4d caught (%.0f %%)\n", "all", all[0], all[1], 100.0 * all[0] / all[1]);
        return 0;
    }
    printf("figures: %d checked in %d files: %d passed, %d failed (%d bounds and results of "
           "arithmetic shown, not checked)\n", checked, docs, passed, failed, skipped);
    return failed ? 1 : 0;
}
