/* test_radix.c: every radix stage must sort exactly as the CPU does, keys
 * and (pairs variants) values, for every variant on every size and with
 * blocks of any size (testing.h lists them). Besides the frame's sizes: a
 * tile of 256 threads, and one more key, for stage 2 (4096 keys) and stage
 * 3 (6144). */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id)                                                          \
    X(name, id, 4096) X(name, id, 4097) X(name, id, 6144) X(name, id, 6145)

STAGE_TESTS(radix, 1)
STAGE_TESTS(radix, 2)
STAGE_TESTS(radix, 3)
