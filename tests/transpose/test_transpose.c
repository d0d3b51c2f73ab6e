/* test_transpose.c: every transpose stage must match the CPU exactly, on
 * every shape of the frame (testing.h: a single element, a row, a column,
 * sides that are not multiples of a tile, tall, wide, a prime by a prime,
 * one large, and shapes whose last tiles are partly filled each way, from
 * each stage's tile) and with blocks of any size. */
#include "testing.h"

#define LAB_SHAPES(X, XB, name, id)

MATRIX_TESTS(transpose, 1)
MATRIX_TESTS(transpose, 2)
MATRIX_TESTS(transpose, 3)
MATRIX_TESTS(transpose, 4)
MATRIX_TESTS(transpose, 5)
