/* cub/warp/warp_reduce.cuh, emulated: cub::WarpReduce<T, LOGICAL_WARP_THREADS>,
 * the combination of a (logical) warp's values, left in its lane 0, made of
 * shuffles as on a GPU: log2(LOGICAL_WARP_THREADS) of them, each a warp
 * shuffle to the counts.
 *
 *     typedef cub::WarpReduce<int> WarpReduce;
 *     __shared__ typename WarpReduce::TempStorage temp[4]; // one per warp
 *     int sum = WarpReduce(temp[threadIdx.x / 32]).Sum(v); // in lane 0
 *
 * Sum(v) and Reduce(v, op) take every lane's value; Sum(v, valid_items)
 * and Reduce(v, op, valid_items) the first valid_items lanes' only (every
 * lane still calls). With v = 1, 2, 3, ... in a warp, Sum(v) gives lane 0
 * 528 and Sum(v, 4) gives it 10. The other lanes' results are undefined;
 * op must be associative (its order is kept). */
#ifndef EMU_CUB_WARP_REDUCE_CUH
#define EMU_CUB_WARP_REDUCE_CUH

#include "../../collectives.h"
#include "../thread/thread_operators.cuh"

namespace cub {
namespace detail {

/* Lane 0 of the `width` lanes named by `lanes` gets op over the first
 * `valid` of them, in order: step k adds the partial sum 2^k lanes above,
 * read from a lane past the valid ones by none. */
template <typename T, typename Op>
EMU_INLINE T warp_reduce(T v, Op op, int valid, unsigned lanes, int width)
{
    int lane = (int)emu_collectives::lane() % width;
    for (int distance = 1; distance < width; distance *= 2) {
        bool inside = lane + distance < valid;
        T above = emu_collectives::shuffle(EMU_SHFL_IDX, lanes, v, inside ? lane + distance : lane, width);
        if (inside)
            v = op(v, above);
    }
    return v;
}

} // namespace detail

template <typename T, int LOGICAL_WARP_THREADS = 32> class WarpReduce {
    static_assert(LOGICAL_WARP_THREADS > 0 && LOGICAL_WARP_THREADS <= 32 &&
                      (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                  "the CPU emulation does not provide cub::WarpReduce of logical warps that are "
                  "not a power of two up to 32; on a GPU this compiles");

  public:
    struct TempStorage {}; /* shuffles need none */
    EMU_INLINE WarpReduce(TempStorage &) : lanes(emu_collectives::tile_mask(LOGICAL_WARP_THREADS)) {}

    EMU_INLINE T Sum(T v) { return Reduce(v, cub::Sum(), LOGICAL_WARP_THREADS); }
    EMU_INLINE T Sum(T v, int valid_items) { return Reduce(v, cub::Sum(), valid_items); }
    template <typename Op> EMU_INLINE T Reduce(T v, Op op)
    {
        return Reduce(v, op, LOGICAL_WARP_THREADS);
    }
    template <typename Op> EMU_INLINE T Reduce(T v, Op op, int valid_items)
    {
        return detail::warp_reduce(v, op, valid_items, lanes, LOGICAL_WARP_THREADS);
    }

  private:
    unsigned lanes;
};

} // namespace cub

#endif
