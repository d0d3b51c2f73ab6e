/* test_radix.c: every radix stage must sort exactly as the CPU does, keys
 * and (pairs variants) values, for every variant on every size and with
 * blocks of any size (testing.h lists them, with each stage's tiles partly
 * filled: 4096 keys in stage 2, 6144 in stages 3a to 5). Under the
 * emulation no size past 100003: 2^20 keys, 32 one-bit passes in stage 1,
 * took most of a stage's time there and check nothing that 100003 keys, in
 * as many tiles at blocks of 32, do not. */
#define EMULATED_LARGE_SIZES(X, name, id)
#include "testing.h"

#define LAB_SIZES(X, XB, name, id)

STAGE_TESTS(radix, 1)
STAGE_TESTS(radix, 2)
STAGE_TESTS(radix, 3a)
STAGE_TESTS(radix, 3b)
STAGE_TESTS(radix, 4)
STAGE_TESTS(radix, 5)
