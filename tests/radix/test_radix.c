/* test_radix.c: every radix stage must sort exactly as the CPU does, keys
 * and (pairs variants) values, for every variant on every size and with
 * blocks of any size (testing.h lists them). Besides the frame's sizes: one
 * tile of 256 threads (4096 keys) and one more key. */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 4096) X(name, id, 4097)

STAGE_TESTS(radix, 1)
STAGE_TESTS(radix, 2)
STAGE_TESTS(radix, 3)
STAGE_TESTS(radix, 3c)
STAGE_TESTS(radix, 3d)
STAGE_TESTS(radix, 3e)
STAGE_TESTS(radix, 3f)
