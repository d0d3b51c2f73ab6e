/* test_scan-large-arrays.c: every stage must match the CPU reference,
 * inclusive and exclusive, ints and floats, on every size and with blocks
 * of any size (testing.h lists them, with the tiles of 256 threads of ITEMS
 * values partly filled). Besides: one tile less a value (6143), and, with
 * blocks of 32 threads (tiles of 768 values), 768 * 768 + 1 values: more
 * tiles than one tile holds, so that the tiles' totals need a second level
 * of totals (stages 1 and 2) and the look-back reaches far (stage 4). A
 * stage that waits forever for another tile is stopped after
 * GPU_TEST_TIMEOUT seconds, and its larger sizes are not run. */
#include "testing.h"
#include "scan-large-arrays.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 6143) XB(name, id, 589825, 32)
_Static_assert(6143 == 256 * ITEMS - 1, "one tile less a value follows ITEMS");
_Static_assert(589825 > (32 * ITEMS) * (32 * ITEMS), "a second level of tile totals");

STAGE_TESTS(scan_large_arrays, 1)
STAGE_TESTS(scan_large_arrays, 2)
STAGE_TESTS(scan_large_arrays, 3)
STAGE_TESTS(scan_large_arrays, 4)
