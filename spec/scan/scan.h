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
/* The scan bugs the numbers can show, each NULL unless the output is
 * exactly what that bug gives:
 *   any    the other kind of scan (inclusive for exclusive, or the reverse),
 *          perhaps but for the first value of every run (a segment, a
 *          thread's values), which is right
 *   steps  Hillis-Steele steps that never reached the results, segments of
 *          `segment` values
 *   root   Blelloch's root not cleared: off by the segment's total */
const char *scan_hint_any(const struct problem *p, const struct buffer *b);
const char *scan_hint_steps(const struct problem *p, const struct buffer *b,
                            const struct mismatch *m, size_t segment);
/* Is got - expected the same all along every aligned run of `run` values,
 * and 0 on each run that starts a group of `group` values? Then a sum that
 * should carry into each run (a warp's, a thread's, a tile's) is missing. */
bool scan_off_per_run(const struct problem *p, const struct buffer *b, size_t run, size_t group);
const char *scan_hint_root(const struct problem *p, const struct buffer *b, size_t segment);

#ifdef __cplusplus
}
#endif
#endif
