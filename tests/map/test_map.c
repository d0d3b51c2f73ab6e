/* test_map.c: every map stage must match the CPU reference on every size
 * and with blocks of any size (testing.h lists them). Besides the frame's
 * sizes: one block of 256 and one more element, and 1026, so that n % 4
 * takes every value around 1024 (the float4 stage's tail). */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 256) X(name, id, 257) X(name, id, 1026)

STAGE_TESTS(map, 1)
STAGE_TESTS(map, 2)
STAGE_TESTS(map, 3)
STAGE_TESTS(map, 4a)
STAGE_TESTS(map, 4b)
STAGE_TESTS(map, 5)
