/* test_map.c: every map stage must match the CPU reference on every size
 * and with blocks of any size (testing.h lists them, with each stage's
 * tiles partly filled). Besides: 1026, so that n % 4 takes every value
 * around 1024 (the float4 stages' tail). */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 1026)

STAGE_TESTS(map, 1)
STAGE_TESTS(map, 2)
STAGE_TESTS(map, 3)
STAGE_TESTS(map, 4a)
STAGE_TESTS(map, 4b)
STAGE_TESTS(map, 5)
