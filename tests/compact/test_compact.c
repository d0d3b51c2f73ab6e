/* test_compact.c: every compact stage must keep exactly what the CPU keeps,
 * in the input's order (stage 3: in any order), with the count right, for
 * every variant (half, sparse, dense, none, all and runs of 32 kept) on
 * every size and with blocks of any size (testing.h lists them, with each
 * stage's tiles partly filled: 4096 values in stages 2-4b). Besides: a
 * warp's chunk of stages 3 to 4b (512) and one more. */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 512) X(name, id, 513)

STAGE_TESTS(compact, 1)
STAGE_TESTS(compact, 2)
STAGE_TESTS(compact, 3)
STAGE_TESTS(compact, 4a)
STAGE_TESTS(compact, 4b)
