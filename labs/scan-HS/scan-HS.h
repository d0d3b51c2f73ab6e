/* scan-HS.h: the data the scan-HS kernels are given (struct args, in
 * spec/scan/scan.h) and how long each block's segment is. The tests build
 * against this file: change the kernels, not it. */
#ifndef SCAN_HS_H
#define SCAN_HS_H

#include "scan.h"

/* One thread per value: each block scans blockDim.x values on its own. The
 * launchers round BLOCK up to whole warps, so stage 3's shuffles always have
 * 32 lanes. */
static inline size_t hs_segment(int block) { return (size_t)(block + 31) / 32 * 32; }

/* Stage 4's blocks scan SEGMENTS4 neighbouring segments each, every thread
 * one value of each: SEGMENTS4 loads a thread in flight, where stage 3 had
 * one (handouts/04-scan-HS.md says why that was its limit). */
enum { SEGMENTS4 = 4 };

/* scan-HS.cu's stage table, and the library row (spec/scan-HS) */
LAB_EXPORT const struct stage scan_hs_stages[];
LAB_EXPORT const struct stage scan_hs_library;

#endif
