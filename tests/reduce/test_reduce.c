/* test_reduce.c: every reduce stage must match the CPU reference, ints and
 * floats, on every size and with blocks of any size (testing.h lists them,
 * with each stage's tiles partly filled: 256 values, 512 in stages 4-6,
 * which sum two values a thread, 1024 in stage 8). Besides: 1026 (stage
 * 8's 16-byte loads leave n % 4 = 2), and just past 256^2 and 512^2, where
 * a third pass over the block sums begins. */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 1026) X(name, id, 65537) X(name, id, 262145)

STAGE_TESTS(reduce, 1)
STAGE_TESTS(reduce, 2)
STAGE_TESTS(reduce, 3)
STAGE_TESTS(reduce, 4)
STAGE_TESTS(reduce, 5)
STAGE_TESTS(reduce, 6)
STAGE_TESTS(reduce, 7)
STAGE_TESTS(reduce, 8)
