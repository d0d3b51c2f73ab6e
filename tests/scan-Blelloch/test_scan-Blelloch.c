/* test_scan-Blelloch.c: every stage must match the CPU reference,
 * inclusive and exclusive, ints and floats, on every size and with blocks
 * of any size (testing.h lists them; the launchers round a block down to a
 * power of two). Besides the frame's sizes, around one segment of 512
 * values (256 threads with two values each, or 64 with eight in stage 4):
 * 511, 512 and 513. */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 511) X(name, id, 512) X(name, id, 513)

STAGE_TESTS(scan_Blelloch, 1)
STAGE_TESTS(scan_Blelloch, 2)
STAGE_TESTS(scan_Blelloch, 3)
STAGE_TESTS(scan_Blelloch, 4)
