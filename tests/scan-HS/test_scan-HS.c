/* test_scan-HS.c: every stage must match the CPU reference, inclusive and
 * exclusive, ints and floats, on every size and with blocks of any size
 * (testing.h lists them, with the segments of 256 values partly filled;
 * the launchers round a block up to whole warps). Besides: one segment
 * less a value, 255. */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 255)

STAGE_TESTS(scan_HS, 1)
STAGE_TESTS(scan_HS, 2)
STAGE_TESTS(scan_HS, 3)
STAGE_TESTS(scan_HS, 4)
