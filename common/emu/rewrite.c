/* rewrite.c: turn what is CUDA syntax rather than C++ into plain C++, so a
 * .cu file compiles with the host compiler against the emulation (EMU=1).
 *
 *     kernel<<<grid, block>>>(a, b);
 *  becomes
 *     emu_launch(emu_config(grid, block), "kernel", [=]() { kernel(a, b); });
 *
 *     __shared__ float tile[32][33];
 *  becomes a reference to the block's shared memory (a lambda marks the site)
 *     float (&tile)[32][33] = emu_shared_var<float[32][33]>("tile", []{});
 *
 *     extern __shared__ int s[];
 *  becomes a pointer to the launch's dynamic shared memory
 *     static thread_local int *const s = (int *)emu_dynamic_shared("s", sizeof(int));
 *
 *     #pragma unroll
 *  becomes #pragma GCC unroll 64, so that the host compiler unrolls the loop
 *  as nvcc does: each copy of a load or store is its own instruction, whose
 *  warp requests the emulation counts (counts.cpp) as a GPU would.
 *
 * Comments, strings and character literals are copied untouched; a launch may
 * spread over lines and name a template (scan<256><<<...>>>). The output keeps
 * every line where it was, and a #line directive points diagnostics at the
 * original file.
 *
 *   rewrite FILE.cu > FILE.cpp
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *text;
static size_t len;

static void fail(const char *file, size_t at, const char *why)
{
    int line = 1;
    for (size_t i = 0; i < at && i < len; i++)
        line += text[i] == '\n';
    fprintf(stderr, "%s:%d: %s\n", file, line, why);
    exit(1);
}

/* If a comment, string or character literal starts at i, the index just
 * past it; otherwise i itself. */
static size_t skip_literal(size_t i)
{
    if (text[i] == '/' && text[i + 1] == '/') {
        while (i < len && text[i] != '\n')
            i++;
        return i;
    }
    if (text[i] == '/' && text[i + 1] == '*') {
        char *end = strstr(text + i + 2, "*/");
        return end ? (size_t)(end - text) + 2 : len;
    }
    if (text[i] == '"' || text[i] == '\'') {
        char quote = text[i++];
        while (i < len && text[i] != quote)
            i += text[i] == '\\' ? 2 : 1;
        return i + 1;
    }
    return i;
}

/* From the '(' at i, the index of its matching ')'. */
static size_t match_paren(const char *file, size_t i)
{
    int depth = 0;
    while (i < len) {
        size_t j = skip_literal(i);
        if (j != i) {
            i = j;
            continue;
        }
        if (text[i] == '(')
            depth++;
        else if (text[i] == ')' && --depth == 0)
            return i;
        i++;
    }
    fail(file, i, "unbalanced parentheses in a kernel launch");
    return 0;
}

static int is_ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static int is_name_char(char c) { return is_ident_char(c) || c == ':'; }

/* Where the callee before "<<<" at i starts: a name, maybe with template
 * arguments (kernel<256, float>) and a namespace (ns::kernel). */
static size_t callee_start(size_t i)
{
    while (i > 0 && strchr(" \t\n", text[i - 1]))
        i--;
    if (i > 0 && text[i - 1] == '>') {
        int depth = 0;
        while (i > 0) {
            char c = text[--i];
            if (c == '>')
                depth++;
            else if (c == '<' && --depth == 0)
                break;
        }
    }
    while (i > 0 && is_name_char(text[i - 1]))
        i--;
    return i;
}

static void put_span(size_t from, size_t to)
{
    fwrite(text + from, 1, to - from, stdout);
}

/* Part of a launch, on one line: comments become a space, since a // comment
 * would otherwise swallow the rest of the line. */
static void put_flat(size_t from, size_t to)
{
    for (size_t k = from; k < to;) {
        size_t j = skip_literal(k);
        if (j != k && text[k] == '/') {
            putchar(' ');
            k = j;
        } else if (j != k) {
            put_span(k, j);
            k = j;
        } else {
            putchar(text[k] == '\n' ? ' ' : text[k]);
            k++;
        }
    }
}

static void put_newlines(size_t from, size_t to)
{
    for (size_t k = from; k < to; k++)
        if (text[k] == '\n')
            putchar('\n');
}

/* The word at i, if it is exactly `word` (not part of a longer name). */
static int word_at(size_t i, const char *word)
{
    size_t n = strlen(word);
    return strncmp(text + i, word, n) == 0 && (i == 0 || !is_ident_char(text[i - 1])) &&
           !is_ident_char(text[i + n]);
}

/* Copy text[from, to) with runs of white space made one space, and without
 * __align__(n), which the emulation does not need. */
static void put_type(size_t from, size_t to)
{
    while (from < to && strchr(" \t\n", text[from]))
        from++;
    while (to > from && strchr(" \t\n", text[to - 1]))
        to--;
    int written = 0;
    for (size_t k = from; k < to; k++) {
        if (word_at(k, "__align__")) {
            while (k < to && text[k] != ')')
                k++;
            continue;
        }
        if (!strchr(" \t\n", text[k])) {
            putchar(text[k]);
            written = 1;
        } else if (written && !strchr(" \t\n", text[k + 1])) {
            putchar(' ');
        }
    }
}

/* A declaration at `at` ("__shared__ float s[2][8];", maybe after "extern"
 * at `start`), written out as the emulation's shared memory. Returns the
 * index just past its ';'. */
static size_t rewrite_shared(const char *file, size_t start, size_t at, int is_extern)
{
    size_t from = at + strlen("__shared__"), end = from;
    while (end < len && text[end] != ';') {
        size_t j = skip_literal(end);
        end = j != end ? j : end + 1;
    }
    if (end >= len)
        fail(file, at, "a __shared__ declaration without its ';'");
    size_t dims = from; /* the first '[', or the end */
    while (dims < end && text[dims] != '[')
        dims++;
    int depth = 0; /* in template arguments, brackets or parentheses: cub::BlockScan<int, 128> */
    for (size_t k = from; k < end; k++) {
        depth += (text[k] == '<' || text[k] == '(' || text[k] == '[') -
                 (text[k] == '>' || text[k] == ')' || text[k] == ']');
        if (depth == 0 && (text[k] == ',' || text[k] == '='))
            fail(file, at, "declare one __shared__ variable at a time, without an initializer "
                           "(CUDA does not run initializers for shared memory)");
    }
    size_t name_end = dims;
    while (name_end > from && strchr(" \t\n", text[name_end - 1]))
        name_end--;
    size_t name = name_end;
    while (name > from && is_ident_char(text[name - 1]))
        name--;
    if (name == name_end)
        fail(file, at, "a __shared__ declaration without a name");

    if (is_extern) {
        fputs("static thread_local ", stdout);
        put_type(from, name);
        fputs(" *const ", stdout);
        put_span(name, name_end);
        fputs(" = (", stdout);
        put_type(from, name);
        fputs(" *)emu_dynamic_shared(\"", stdout);
        put_span(name, name_end);
        fputs("\", sizeof(", stdout);
        put_type(from, name);
        fputs("));", stdout);
    } else {
        put_type(from, name);
        fputs(dims < end ? " (&" : " &", stdout);
        put_span(name, name_end);
        fputs(dims < end ? ")" : "", stdout);
        put_flat(dims, end);
        fputs(" = emu_shared_var<", stdout);
        put_type(from, name);
        put_flat(dims, end);
        fputs(">(\"", stdout);
        put_span(name, name_end);
        fputs("\", []{});", stdout);
    }
    put_newlines(start, end);
    return end + 1;
}

/* A launch ("kernel<<<grid, block>>>(a, b)", the callee at `callee` and
 * "<<<" at `at`), written out as emu_launch on one line, then the newlines
 * it spanned. Returns the index just past its ')'. */
static size_t rewrite_launch(const char *file, size_t callee, size_t at)
{
    size_t config_end = at + 3;
    while (config_end < len && strncmp(text + config_end, ">>>", 3) != 0) {
        size_t j = skip_literal(config_end);
        config_end = j != config_end ? j : config_end + 1;
    }
    if (callee == at || config_end >= len)
        fail(file, at, "a <<< that is not a kernel launch (name<<<grid, block>>>(args))");
    size_t open = config_end + 3;
    while (open < len && (text[open] == ' ' || text[open] == '\t' || text[open] == '\n'))
        open++;
    if (text[open] != '(')
        fail(file, at, "a kernel launch needs its arguments: name<<<grid, block>>>(args)");
    size_t end = match_paren(file, open);

    fputs("emu_launch(emu_config(", stdout);
    put_flat(at + 3, config_end);
    fputs("), \"", stdout);
    put_flat(callee, at);
    fputs("\", [=]() { ", stdout);
    put_flat(callee, at);
    put_flat(open, end + 1);
    fputs("; })", stdout);
    put_newlines(callee, end + 1);
    return end + 1;
}

/* Where the declaration whose "__shared__" is at `at` starts: at an
 * "extern" before it, else at `at`. */
static size_t shared_start(size_t done, size_t at)
{
    size_t start = at;
    while (start > done && strchr(" \t\n", text[start - 1]))
        start--;
    return start >= 6 && word_at(start - 6, "extern") ? start - 6 : at;
}

/* The file into text, with zero bytes past its end so that looking a few
 * characters ahead needs no bounds check. */
static void read_source(const char *file)
{
    FILE *f = fopen(file, "rb");
    if (!f) {
        perror(file);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    text = calloc(len + 3, 1);
    if (!text || fread(text, 1, len, f) != len) {
        fprintf(stderr, "%s: cannot read\n", file);
        exit(1);
    }
    fclose(f);
}

/* Whether the word at i follows "#pragma" on its line. */
static int after_pragma(size_t i)
{
    size_t k = i;
    while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t'))
        k--;
    if (k < 6 || strncmp(text + k - 6, "pragma", 6) != 0)
        return 0;
    k -= 6;
    while (k > 0 && (text[k - 1] == ' ' || text[k - 1] == '\t'))
        k--;
    return k > 0 && text[k - 1] == '#';
}

int main(int argc, char *argv[])
{
    if (argc != 2) {
        fprintf(stderr, "usage: rewrite FILE.cu > FILE.cpp\n");
        return 2;
    }
    const char *file = argv[1];
    read_source(file);
    printf("#line 1 \"%s\"\n", file);
    size_t done = 0; /* text[0, done) is written */
    for (size_t i = 0; i < len;) {
        size_t j = skip_literal(i);
        if (j != i) {
            i = j;
        } else if (word_at(i, "__shared__")) {
            size_t start = shared_start(done, i);
            put_span(done, start);
            done = i = rewrite_shared(file, start, i, start != i);
        } else if (word_at(i, "unroll") && after_pragma(i)) {
            put_span(done, i);
            size_t k = i + 6;
            while (text[k] == ' ' || text[k] == '\t')
                k++;
            printf("GCC unroll%s", text[k] >= '0' && text[k] <= '9' ? "" : " 64");
            done = i = i + 6;
        } else if (strncmp(text + i, "<<<", 3) == 0) {
            size_t callee = callee_start(i);
            put_span(done, callee);
            done = i = rewrite_launch(file, callee, i);
        } else {
            i++;
        }
    }
    put_span(done, len);
    return 0;
}
