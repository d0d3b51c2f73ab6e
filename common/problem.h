/* problem.h: what workbook.cu shares with verify.cu about a problem's
 * buffers and launches; no other file includes it. */
#ifndef PROBLEM_H
#define PROBLEM_H
#include "workbook.h"

/* Every device array sits between two poisoned guard zones: a store up to
 * 4096 words past either end shows as a changed guard. */
enum { GUARD_BYTES = 16384 };
/* An array's bytes rounded up to whole words, so guards start on a word. */
static inline size_t padded_bytes(enum elem type, size_t count)
{
    return (count * elem_size(type) + 3) / 4 * 4;
}
/* A whole allocation: the guard before, the array, the guard after. */
static inline size_t whole_bytes(const struct buffer *b)
{
    return GUARD_BYTES + padded_bytes(b->type, b->count) + GUARD_BYTES;
}

/* Launch a stage and wait for it; false, with CUDA's words in *f, if it failed. */
bool launch_and_wait(struct problem *p, const struct stage *s, struct finding *f);
/* One buffer's whole allocation as it stood after a launch (`all`): its
 * guards, then an input's bytes or an output's values. */
bool bytes_right(const struct problem *p, const struct stage *s, struct buffer *b,
                 const unsigned char *all, struct finding *f);
/* Every buffer after a launch, fetched from the device. */
bool buffer_right(const struct problem *p, const struct stage *s, struct buffer *b,
                  struct finding *f);
/* Bytes kernels stored into the outputs since the last call (emulation only). */
double output_bytes_written(const struct problem *p);
/* Did kernels read an input since the last call? INPUTS_READ or
 * INPUTS_UNREAD under the emulation; READS_UNKNOWN on a GPU. */
enum input_reads inputs_read(const struct problem *p);

#endif
