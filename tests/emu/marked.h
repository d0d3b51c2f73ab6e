/* marked.h: where the emulation's own tests find a line they expect a
 * report to name: "tests/emu/emu_kernels.cu:42", the line of FILE marked
 * with the comment "LINE: <what>" (run from the workbook's folder). */
#ifndef MARKED_H
#define MARKED_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static inline const char *marked(const char *file, const char *what)
{
    static char found[8][200];
    static int next;
    char marker[200], text[1000];
    snprintf(marker, sizeof marker, "LINE: %s */", what);
    FILE *f = fopen(file, "r");
    cr_assert_not_null(f, "%s not found: run the tests from the workbook's folder", file);
    int number = 0, at = 0;
    while (!at && fgets(text, sizeof text, f)) {
        number++;
        if (strstr(text, marker))
            at = number;
    }
    fclose(f);
    cr_assert(at, "no line of %s is marked \"%s\"", file, marker);
    char *line = found[next++ % 8];
    snprintf(line, sizeof found[0], "%s:%d", file, at);
    return line;
}

#endif
