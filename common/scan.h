/* scan.h: what the three scan labs share (scan-HS, scan-Blelloch,
 * scan-large-arrays): the arguments their kernels take, and the checks,
 * inputs and CPU reference behind their tests (scan.c). */
#ifndef SCAN_H
#define SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "workbook.h"

#ifdef __cplusplus
extern "C" {
#endif

struct args {
    enum elem type;     /* I32 or F32 */
    bool inclusive;     /* out[i] counts in[i] (inclusive) or stops before it (exclusive) */
    const void *in;     /* n values */
    void *out;          /* n prefix sums */
    size_t n;
    /* scan-large-arrays only, scratch: */
    void *sums;                 /* tile totals, level after level: 2 * (n / 256 + 8) values */
    unsigned long long *status; /* one status word per tile, and a tile counter */
};

/* The four variants of every scan lab, in this order. */
extern const char *const scan_variants[];

/* The parts of struct lab that every scan lab shares. `segment` is how many
 * values each block scans on its own (0: the whole array is one scan). */
void scan_setup(struct problem *p, size_t segment, bool large);
void scan_reference(struct problem *p, size_t segment);
double scan_bytes(const struct problem *p, const struct stage *s);
bool scan_reads(const struct stage *s, const struct buffer *b);
const char *scan_hint(const struct problem *p, const struct stage *s, const struct buffer *b,
                      const struct mismatch *m, size_t segment, size_t tile);

#ifdef __cplusplus
}
#endif
#endif
