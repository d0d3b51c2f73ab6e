/* test_histogram.c: every histogram stage must count exactly what the CPU
 * counts, for uniform and skewed values into 256 and 4096 bins, on every
 * size and with blocks of any size (testing.h lists them, with each
 * stage's tiles partly filled). Besides: 4096 + 15, more values than bins
 * with a tail that no 16-byte load covers (stage 4). */
#include "testing.h"

#define LAB_SIZES(X, XB, name, id) X(name, id, 4111)

STAGE_TESTS(histogram, 1)
STAGE_TESTS(histogram, 2)
STAGE_TESTS(histogram, 3)
STAGE_TESTS(histogram, 4)
