/* report.c: a failure report made as data, put into words at the end, and
 * encoded as text that travels (to the grader, between processes). Host only
 * (tests/common). */
#define _GNU_SOURCE
#include "workbook.h"
#include "diagnose.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the report: made as data, put into words at the end ----------------- */

/* Text cut to fit ends with the bytes of a UTF-8 character that did not
 * fit: drop them, so that it stays text wherever it is written. */
static void drop_cut_character(char *text)
{
    size_t end = strlen(text), start = end; /* the last character starts at start - 1 */
    while (start > 0 && end - start < 3 && ((unsigned char)text[start - 1] & 0xC0) == 0x80)
        start--;
    unsigned char lead = start > 0 ? (unsigned char)text[start - 1] : 0;
    size_t bytes = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (lead && end - (start - 1) < bytes)
        text[start - 1] = '\0';
}

/* Append to a report's field, cut to fit. */
static void field_add(char *field, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void field_add(char *field, size_t size, const char *fmt, ...)
{
    size_t used = strlen(field);
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(field + used, size - used, fmt, ap);
    va_end(ap);
    if (k >= 0 && used + (size_t)k >= size)
        drop_cut_character(field);
}

/* "[1025]", or "[3][7]" in a matrix (b->cols a row) */
static void element_text(char *text, size_t len, const struct buffer *b, size_t index)
{
    if (b->cols)
        snprintf(text, len, "[%zu][%zu]", index / b->cols, index % b->cols);
    else
        snprintf(text, len, "[%zu]", index);
}

/* What is wrong, into r->what; returns the likely cause, or NULL. */
static const char *what_is_wrong(const struct problem *p, const struct stage *s,
                                 const struct finding *f, struct report *r)
{
    const struct buffer *b = f->buffer;
    const struct mismatch *m = &f->mismatch;
    size_t len = sizeof r->what;
    switch (f->verdict) {
    case KERNEL_FAILED:
        if (p->emulated && p->cols) {
            size_t keep;
            const char *hint = matrix_stop_hint(p, f->error, &keep);
            if (hint) {
                field_add(r->what, len, "the kernel was stopped: %.*s", (int)keep, f->error);
                return hint;
            }
        }
        if (p->emulated)
            field_add(r->what, len, "the kernel was stopped: %s", f->error);
        else
            field_add(r->what, len, "the kernel failed: %s (%s)", f->error,
                      f->error_name ? f->error_name : "?");
        return launch_hint(p, f->error_name);
    case GUARD_WRITTEN:
        field_add(r->what, len, "%s[%lld] was written, but '%s' has elements 0 to %zu only",
                  b->name, f->index, b->name, b->count ? b->count - 1 : 0);
        if (b->cols && f->index >= 0)
            return matrix_bounds_hint(p, b, (unsigned long long)f->index, false);
        if (f->index < 0)
            return "a thread wrote before the array's first element: an index below zero (an "
                   "unsigned count that wrapped, or i - 1 at i = 0)";
        if (p->lab->diagnosis.past_end) {
            static char hint[600];
            snprintf(hint, sizeof hint, "a thread whose index is >= n wrote anyway (the bounds "
                     "test is missing or off by one), or %s", p->lab->diagnosis.past_end);
            return hint;
        }
        return "a thread whose index is >= n wrote anyway: the bounds test is missing or off by "
               "one";
    case INPUT_CHANGED:
        field_add(r->what, len, "the input '%s' changed, first at element %lld", b->name,
                  f->index);
        return "a kernel must leave its inputs as it found them: work on a copy (in shared "
               "memory, in registers, or in the output)";
    case OUTPUT_WRONG: {
        char expected[64], got[64], first[64], last[64];
        element_text(first, sizeof first, b, m->first);
        element_text(last, sizeof last, b, m->last);
        format_value(expected, sizeof expected, b, m->expected, false);
        format_value(got, sizeof got, b, m->got,
                     is_poison((const char *)b->got + elem_size(b->type) * m->first,
                               elem_size(b->type)));
        field_add(r->what, len,
                  "%s%s: expected %s, got %s\n"
                  "%zu of %zu elements wrong (%zu never written), first at %s, last at %s",
                  b->name, first, expected, got, m->count, b->compared, m->unwritten, first,
                  last);
        if (b->type == F32)
            field_add(r->what, len, "\n(floats pass within %g + %g*|expected|)", b->atol,
                      b->rtol);
        /* a kernel that read its input ran: it is no TODO, whatever it left */
        r->untouched = p->inputs_read != INPUTS_READ &&
                       (m->unwritten == b->compared ||
                        (p->lab->diagnosis.untouched && p->lab->diagnosis.untouched(p, s, b, m)));
        const char *hint = p->lab->diagnosis.hint ? p->lab->diagnosis.hint(p, s, b, m) : NULL;
        if (hint || (p->lab->diagnosis.moves_values && m->unwritten < b->compared))
            return hint;
        hint = read_poison_hint(p, b, m);
        return hint ? hint : shape_hint(p, b, m);
    }
    case RIGHT:
        break;
    }
    field_add(r->what, len, "nothing is wrong");
    return NULL;
}

/* The words of `why` with each number made '#', since one bug names other
 * indices at other sizes ("1 element" and "31 elements" alike). */
static void mask_numbers(const char *why, char *way, size_t len)
{
    size_t k = 0;
    bool counted = false; /* in the word after a number: a plural 's' is dropped */
    const char *c = why;
    for (; *c && k + 1 < len; c++) {
        bool digit = *c >= '0' && *c <= '9', letter = (*c | 32) >= 'a' && (*c | 32) <= 'z';
        if (digit && k > 0 && way[k - 1] == '#')
            continue;
        if (counted && *c == 's' && !((c[1] | 32) >= 'a' && (c[1] | 32) <= 'z'))
            continue;
        counted = (counted && letter) || (k > 0 && way[k - 1] == '#' && *c == ' ');
        way[k++] = digit ? '#' : *c;
    }
    way[k] = '\0';
    if (*c)
        drop_cut_character(way);
}

void report_make(const struct problem *p, const struct stage *s, const struct finding *f,
                 struct report *r)
{
    memset(r, 0, sizeof *r);
    r->variant = p->variant;
    field_add(r->title, sizeof r->title, "%s", problem_title(p, s));
    const char *cause = what_is_wrong(p, s, f, r);
    field_add(r->cause, sizeof r->cause, "%s", cause ? cause : "");
    field_add(r->reproduce, sizeof r->reproduce, "%s", reproduce_command(p, s));
    char why[sizeof r->what];
    mask_numbers(report_why(r, why, sizeof why), r->way, sizeof r->way);
}

const char *report_why(const struct report *r, char *line, size_t len)
{
    const char *why = *r->cause ? r->cause : r->what;
    snprintf(line, len, "%.*s", (int)strcspn(why, "\n"), why);
    return line;
}

/* Text written into out's len bytes, cut to fit; used counts the bytes it
 * needs, which may pass len. */
struct writer {
    char *out;
    size_t len, used;
};

static void write_text(struct writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void write_text(struct writer *w, const char *fmt, ...)
{
    size_t at = w->used < w->len ? w->used : w->len;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(at < w->len ? w->out + at : NULL, w->len - at, fmt, ap);
    va_end(ap);
    w->used += k > 0 ? (size_t)k : 0;
}

static void write_body(struct writer *w, const struct report *r)
{
    for (const char *line = r->what; *line;) {
        size_t k = strcspn(line, "\n");
        write_text(w, "  %.*s\n", (int)k, line);
        line += k + (line[k] == '\n');
    }
    if (*r->cause)
        write_text(w, "  likely cause: %s\n", r->cause);
    write_text(w, "  reproduce: %s", r->reproduce);
}

int report_body(const struct report *r, char *msg, size_t len)
{
    struct writer w = {msg, len, 0};
    write_body(&w, r);
    return (int)w.used;
}

int report_text(const struct report *r, char *msg, size_t len)
{
    struct writer w = {msg, len, 0};
    write_text(&w, "%s:\n", r->title);
    write_body(&w, r);
    return (int)w.used;
}

/* ---- the report as text that travels ------------------------------------- */

static const char report_version[] = "workbook report 1";

/* A report's text fields, in the order they travel (its numbers first). */
static const struct {
    const char *key;
    size_t offset, size;
} report_fields[] = {
    {"title", offsetof(struct report, title), sizeof ((struct report *)0)->title},
    {"what", offsetof(struct report, what), sizeof ((struct report *)0)->what},
    {"cause", offsetof(struct report, cause), sizeof ((struct report *)0)->cause},
    {"way", offsetof(struct report, way), sizeof ((struct report *)0)->way},
    {"reproduce", offsetof(struct report, reproduce), sizeof ((struct report *)0)->reproduce},
};
enum { REPORT_FIELDS = sizeof report_fields / sizeof report_fields[0] };

int report_encode(const struct report *r, char *out, size_t len)
{
    struct writer w = {out, len, 0};
    write_text(&w, "%s\nvariant: %d\nuntouched: %d\n", report_version, r->variant, r->untouched);
    for (int k = 0; k < REPORT_FIELDS; k++) {
        const char *value = (const char *)r + report_fields[k].offset;
        write_text(&w, "%s: ", report_fields[k].key);
        for (size_t i = 0; i < report_fields[k].size && value[i]; i++)
            if (value[i] == '\\' || value[i] == '\n')
                write_text(&w, "\\%c", value[i] == '\n' ? 'n' : '\\');
            else
                write_text(&w, "%c", value[i]);
        write_text(&w, "\n");
    }
    write_text(&w, "end");
    return (int)w.used;
}

/* The line "key: value" at *at, its value unescaped into value[size]; *at
 * moves past it. false for another key, an unknown escape, a value too
 * long, or a line without its end. */
static bool take_line(const char **at, const char *key, char *value, size_t size)
{
    size_t k = strlen(key), n = 0;
    if (strncmp(*at, key, k) != 0 || strncmp(*at + k, ": ", 2) != 0)
        return false;
    const char *c = *at + k + 2;
    for (; *c && *c != '\n'; c++) {
        char ch = *c;
        if (ch == '\\' && (c[1] == 'n' || c[1] == '\\'))
            ch = *++c == 'n' ? '\n' : '\\';
        else if (ch == '\\')
            return false;
        if (n + 1 >= size)
            return false;
        value[n++] = ch;
    }
    if (*c != '\n')
        return false;
    value[n] = '\0';
    *at = c + 1;
    return true;
}

/* The line "key: N" at *at, N a whole number up to `most`. */
static bool take_number(const char **at, const char *key, int most, int *number)
{
    char text[16], *end;
    if (!take_line(at, key, text, sizeof text) || !(*text >= '0' && *text <= '9'))
        return false;
    long v = strtol(text, &end, 10);
    if (*end || v > most)
        return false;
    *number = (int)v;
    return true;
}

bool report_decode(const char *text, struct report *r)
{
    memset(r, 0, sizeof *r);
    size_t k = strlen(report_version);
    if (!text || strncmp(text, report_version, k) != 0 || text[k] != '\n')
        return false;
    const char *at = text + k + 1;
    int untouched;
    if (!take_number(&at, "variant", 9999, &r->variant) ||
        !take_number(&at, "untouched", 1, &untouched))
        return false;
    r->untouched = untouched;
    for (int f = 0; f < REPORT_FIELDS; f++)
        if (!take_line(&at, report_fields[f].key, (char *)r + report_fields[f].offset,
                       report_fields[f].size))
            return false;
    return strcmp(at, "end") == 0;
}

/* ---- a test stopped at its time limit ------------------------------------ */

#define TIME_OUT_VERSION "workbook time-out 1: "

int time_out_encode(const struct time_out *t, char *out, size_t len)
{
    return snprintf(out, len,
                    TIME_OUT_VERSION "limit %g s, after %.1f s, CPU %.1f s, load %.2f on %d cores",
                    t->limit, t->clock, t->cpu, t->load, t->cores);
}

bool time_out_decode(const char *text, struct time_out *t)
{
    int end = 0;
    if (!text || strncmp(text, TIME_OUT_VERSION, strlen(TIME_OUT_VERSION)) != 0)
        return false;
    return sscanf(text + strlen(TIME_OUT_VERSION),
                  "limit %lf s, after %lf s, CPU %lf s, load %lf on %d cores%n", &t->limit,
                  &t->clock, &t->cpu, &t->load, &t->cores, &end) == 5 &&
           !text[strlen(TIME_OUT_VERSION) + (size_t)end];
}
