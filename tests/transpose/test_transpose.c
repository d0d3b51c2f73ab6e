/* test_transpose.c: every transpose stage must match the CPU exactly, on
 * every shape of the frame (testing.h: a single element, a row, a column,
 * sides that are not multiples of a tile, tall, wide, a prime by a prime,
 * one large) and with blocks of any size. Besides: a 64-element tile of
 * stage 5 and one more row and column. */
#include "testing.h"

#define LAB_SHAPES(X, XB, name, id) X(name, id, 64, 64) X(name, id, 65, 65)

MATRIX_TESTS(transpose, 1)
MATRIX_TESTS(transpose, 2)
MATRIX_TESTS(transpose, 3)
MATRIX_TESTS(transpose, 4)
MATRIX_TESTS(transpose, 5)
