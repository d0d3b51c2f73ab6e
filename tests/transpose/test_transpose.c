/* test_transpose.c: every transpose stage must match the CPU exactly, on
 * every shape of the frame (testing.h: a single element, a row, a column,
 * sides that are not multiples of a tile, tall, wide, a prime by a prime,
 * one large, and shapes whose last tiles are partly filled each way, from
 * each stage's tile, and two more for stage 6's last windows) and with
 * blocks of any size. */
#include "testing.h"

/* Stage 6 writes each row of out in windows from a line boundary, so the
 * last block of a strip writes one window past its steps when its last step
 * is more than half full: 250 and 700 rows (58 and 124 rows in that block)
 * reach it for most rows of out, which the frame's shapes do not. */
#define LAB_SHAPES(X, XB, name, id) X(name, id, 250, 130) X(name, id, 700, 45)

MATRIX_TESTS(transpose, 1)
MATRIX_TESTS(transpose, 2)
MATRIX_TESTS(transpose, 3)
MATRIX_TESTS(transpose, 4)
MATRIX_TESTS(transpose, 5)
MATRIX_TESTS(transpose, 6)
