/* test_radix.c: every radix stage must sort exactly as the CPU does, keys
 * and (pairs variants) values, for every variant on every size and with
 * blocks of any size (testing.h lists them, with each stage's tiles partly
 * filled: 4096 keys in stage 2, 6144 in stage 3). */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id)

STAGE_TESTS(radix, 1)
STAGE_TESTS(radix, 2)
STAGE_TESTS(radix, 3)
