/* collectives.h, for the emulated libraries only (cooperative_groups.h and
 * cub's warp and block collectives): what they share. They are built from
 * the emulation's own primitives, __syncthreads(), __shfl_*_sync() and
 * __ballot_sync(), so the race detector and the counts see what a GPU runs:
 * a tile's shfl_down is a warp shuffle, a block's sync a barrier. Every
 * function is always inlined, so reports name the kernel's line that called
 * the library, not a line here. */
#ifndef EMU_COLLECTIVES_H
#define EMU_COLLECTIVES_H

#include "cuda_runtime.h"

#include <cstdio>

/* What the emulation does not provide, declared so that a use stops the
 * build naming it (GCC 12's attribute; older ones warn with the same text).
 * The build's output then holds a line "emulation: not provided: X
 * (FILE:LINE)" (not-provided.awk). */
#if __has_attribute(unavailable)
#define EMU_NOT_PROVIDED(what)                                                                    \
    __attribute__((unavailable("the CPU emulation does not provide " what "; on a GPU this compiles")))
#else
#define EMU_NOT_PROVIDED(what)                                                                    \
    __attribute__((deprecated("the CPU emulation does not provide " what "; on a GPU this compiles")))
#endif

namespace emu_collectives {

/* The thread's place in its block, x fastest: warps are formed in this order. */
EMU_INLINE unsigned thread_rank()
{
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}
EMU_INLINE unsigned block_threads() { return blockDim.x * blockDim.y * blockDim.z; }
EMU_INLINE unsigned lane() { return thread_rank() % warpSize; }
EMU_INLINE unsigned warp() { return thread_rank() / warpSize; }

/* The lanes of the tile of `size` threads (a power of two up to 32) that
 * holds this lane. */
EMU_INLINE unsigned tile_mask(unsigned size)
{
    return size >= 32 ? ~0u : ((1u << size) - 1) << (lane() & ~(size - 1));
}

/* A value of any size (its bytes, as the libraries move them): one shuffle
 * per 8 bytes. */
template <typename T>
EMU_INLINE T shuffle(emu_shuffle_kind kind, unsigned mask, T v, int lane, int width)
{
    if constexpr (sizeof(T) <= 8) {
        return emu_shuffle_as(kind, mask, v, lane, width);
    } else {
        unsigned char bytes[sizeof(T)];
        memcpy(bytes, (const void *)&v, sizeof v);
        for (size_t at = 0; at < sizeof(T); at += 8) {
            unsigned long long piece = 0;
            size_t n = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
            memcpy(&piece, bytes + at, n);
            piece = emu_shuffle(kind, mask, piece, lane, width);
            memcpy(bytes + at, &piece, n);
        }
        memcpy((void *)&v, bytes, sizeof v);
        return v;
    }
}

/* A collective written for a block of `expected` threads must run in one. */
EMU_INLINE void expect_block(const char *collective, unsigned expected)
{
    if (block_threads() != expected) {
        static thread_local char why[200];
        snprintf(why, sizeof why,
                 "%s is for blocks of %u threads, but this block has %u: its template's block "
                 "size must be the launch's",
                 collective, expected, block_threads());
        emu_misuse(why);
    }
}

} // namespace emu_collectives

#endif
