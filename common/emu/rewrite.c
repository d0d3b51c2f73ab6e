/* rewrite.c: turn CUDA's launch syntax into a plain C++ call, so a .cu file
 * compiles with the host compiler against the emulation (EMU=1).
 *
 *     kernel<<<grid, block>>>(a, b);
 *  becomes
 *     emu_launch(emu_config(grid, block), "kernel", [=]() { kernel(a, b); });
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

static int is_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == ':';
}

/* Where the callee before "<<<" at i starts: a name, maybe with template
 * arguments (kernel<256, float>) and a namespace (ns::kernel). */
static size_t callee_start(size_t i)
{
    while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t'))
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

int main(int argc, char *argv[])
{
    if (argc != 2) {
        fprintf(stderr, "usage: rewrite FILE.cu > FILE.cpp\n");
        return 2;
    }
    const char *file = argv[1];
    FILE *f = fopen(file, "rb");
    if (!f) {
        perror(file);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    text = calloc(len + 3, 1);
    if (!text || fread(text, 1, len, f) != len) {
        fprintf(stderr, "%s: cannot read\n", file);
        return 1;
    }
    fclose(f);

    printf("#line 1 \"%s\"\n", file);
    size_t done = 0; /* text[0, done) is written */
    for (size_t i = 0; i < len;) {
        size_t j = skip_literal(i);
        if (j != i) {
            i = j;
            continue;
        }
        if (strncmp(text + i, "<<<", 3) != 0) {
            i++;
            continue;
        }
        size_t callee = callee_start(i);
        char *close = strstr(text + i + 3, ">>>");
        if (callee == i || !close)
            fail(file, i, "a <<< that is not a kernel launch (name<<<grid, block>>>(args))");
        size_t config_end = (size_t)(close - text);
        size_t open = config_end + 3;
        while (open < len && (text[open] == ' ' || text[open] == '\t' || text[open] == '\n'))
            open++;
        if (text[open] != '(')
            fail(file, i, "a kernel launch needs its arguments: name<<<grid, block>>>(args)");
        size_t end = match_paren(file, open);

        put_span(done, callee);
        fputs("emu_launch(emu_config(", stdout);
        put_flat(i + 3, config_end);
        fputs("), \"", stdout);
        put_flat(callee, i);
        fputs("\", [=]() { ", stdout);
        put_flat(callee, i);
        put_flat(open, end + 1);
        fputs("; })", stdout);
        for (size_t k = callee; k <= end; k++) /* keep the lines where they were */
            if (text[k] == '\n')
                putchar('\n');
        done = i = end + 1;
    }
    put_span(done, len);
    return 0;
}
