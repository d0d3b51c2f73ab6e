/* map.h: the data the map lab's kernels are given. The tests build against
 * this file: change the kernels, not it. */
#ifndef MAP_H
#define MAP_H

#include <stddef.h>

#include "workbook.h"

/* A particle as one 16-byte record (array of structures, AoS)... */
struct particle {
    float x, y, z, w;
};

/* ...and the same particles as one array per field (structure of arrays, SoA). */
struct particles {
    const float *x, *y, *z, *w;
};

struct args {
    float *out;                   /* n results */
    const float *in;              /* stages 1-3: n inputs */
    const struct particle *aos;   /* stage 4a: n particles, AoS */
    struct particles soa;         /* stage 4b: n particles, SoA */
    size_t n;
    float a, b;                   /* out[i] = a * x + b */
};

/* map.cu's stage table, which the tests and the driver read */
LAB_EXPORT const struct stage map_stages[];

#endif
