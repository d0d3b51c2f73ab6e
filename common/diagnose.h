/* diagnose.h: what diagnose.c finds of a wrong run, for report.c to put
 * into words; no other file needs it. */
#ifndef DIAGNOSE_H
#define DIAGNOSE_H
#include "workbook.h"

/* A value as a report shows it ("the poison value (never written)"). */
void format_value(char *out, size_t len, const struct buffer *b, double v, bool poison);
/* The likely cause, or NULL: from the shape of what is wrong (any lab), a
 * failed launch's CUDA error name, a matrix's element past its end or
 * written twice, a matrix kernel the emulation stopped (*keep: how much of
 * its report to show). */
const char *shape_hint(const struct problem *p, const struct buffer *b, const struct mismatch *m);
const char *launch_hint(const struct problem *p, const char *error);
const char *matrix_bounds_hint(const struct problem *p, const struct buffer *b,
                               unsigned long long index, bool twice);
const char *matrix_stop_hint(const struct problem *p, const char *error, size_t *keep);

#endif
