/* test_scan-Blelloch.c: every stage must match the CPU reference,
 * inclusive and exclusive, ints and floats, on every size and with blocks
 * of any size (testing.h lists them, with the segments of 512 values partly
 * filled: 256 threads with two values each, or 64 with eight in stage 4;
 * the launchers round a block down to a power of two). Besides: one
 * segment less a value, 511. */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 511)

STAGE_TESTS(scan_Blelloch, 1)
STAGE_TESTS(scan_Blelloch, 2)
STAGE_TESTS(scan_Blelloch, 3)
STAGE_TESTS(scan_Blelloch, 4)
