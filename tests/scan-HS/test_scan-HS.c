/* test_scan-HS.c: every stage must match the CPU reference, inclusive and
 * exclusive, ints and floats, on every size and with blocks of any size
 * (testing.h lists them; the launchers round a block up to whole warps).
 * Besides the frame's sizes, around one segment of 256 values: 255, 256
 * and 257. */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 255) X(name, id, 256) X(name, id, 257)

STAGE_TESTS(scan_HS, 1)
STAGE_TESTS(scan_HS, 2)
STAGE_TESTS(scan_HS, 3)
