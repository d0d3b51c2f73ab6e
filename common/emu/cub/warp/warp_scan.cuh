/* cub/warp/warp_scan.cuh, emulated: cub::WarpScan<T, LOGICAL_WARP_THREADS>,
 * the prefix scans of a (logical) warp's values in lane order, made of
 * Hillis and Steele's steps: log2(LOGICAL_WARP_THREADS) shfl_up, one more
 * for an exclusive scan, one to hand out the warp's total.
 *
 *     typedef cub::WarpScan<int> WarpScan;
 *     __shared__ typename WarpScan::TempStorage temp[4]; // one per warp
 *     WarpScan(temp[threadIdx.x / 32]).ExclusiveSum(v, before);
 *
 * With v = 3, 1, 4, 1 in a warp of 4: InclusiveSum gives 3, 4, 8, 9 and
 * ExclusiveSum 0, 3, 4, 8 (the warp's aggregate, 9, to every lane). An
 * initial value comes first in the scan (lane 0's exclusive result) and is
 * left out of the aggregate; without one, lane 0's exclusive result is
 * undefined. Every lane of the logical warp calls. */
#ifndef EMU_CUB_WARP_SCAN_CUH
#define EMU_CUB_WARP_SCAN_CUH

#include "../../collectives.h"
#include "../thread/thread_operators.cuh"

namespace cub {
namespace detail {

/* Each of the `width` lanes named by `lanes` gets op over its lanes 0..self. */
template <typename T, typename Op>
EMU_INLINE T warp_inclusive_scan(T v, Op op, unsigned lanes, int width)
{
    int lane = (int)emu_collectives::lane() % width;
    for (int distance = 1; distance < width; distance *= 2) {
        T below = emu_collectives::shuffle(EMU_SHFL_UP, lanes, v, distance, width);
        if (lane >= distance)
            v = op(below, v);
    }
    return v;
}

} // namespace detail

template <typename T, int LOGICAL_WARP_THREADS = 32> class WarpScan {
    static_assert(LOGICAL_WARP_THREADS > 0 && LOGICAL_WARP_THREADS <= 32 &&
                      (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                  "the CPU emulation does not provide cub::WarpScan of logical warps that are "
                  "not a power of two up to 32; on a GPU this compiles");
    enum { N = LOGICAL_WARP_THREADS };

  public:
    struct TempStorage {}; /* shuffles need none */
    EMU_INLINE WarpScan(TempStorage &)
        : lanes(emu_collectives::tile_mask(N)), lane(emu_collectives::lane() % N)
    {
    }

    EMU_INLINE void InclusiveSum(T v, T &out) { InclusiveScan(v, out, cub::Sum()); }
    EMU_INLINE void InclusiveSum(T v, T &out, T &aggregate) { InclusiveScan(v, out, cub::Sum(), aggregate); }
    EMU_INLINE void ExclusiveSum(T v, T &out) { ExclusiveScan(v, out, T(), cub::Sum()); }
    EMU_INLINE void ExclusiveSum(T v, T &out, T &aggregate)
    {
        ExclusiveScan(v, out, T(), cub::Sum(), aggregate);
    }

    template <typename Op> EMU_INLINE void InclusiveScan(T v, T &out, Op op)
    {
        out = detail::warp_inclusive_scan(v, op, lanes, N);
    }
    template <typename Op> EMU_INLINE void InclusiveScan(T v, T &out, Op op, T &aggregate)
    {
        InclusiveScan(v, out, op);
        aggregate = Broadcast(out, N - 1);
    }
    template <typename Op> EMU_INLINE void InclusiveScan(T v, T &out, T initial, Op op)
    {
        InclusiveScan(v, out, op);
        out = op(initial, out);
    }
    template <typename Op> EMU_INLINE void InclusiveScan(T v, T &out, T initial, Op op, T &aggregate)
    {
        InclusiveScan(v, out, op, aggregate);
        out = op(initial, out);
    }

    template <typename Op> EMU_INLINE void ExclusiveScan(T v, T &out, Op op)
    {
        T inclusive;
        Scan(v, inclusive, out, op);
    }
    template <typename Op> EMU_INLINE void ExclusiveScan(T v, T &out, T initial, Op op)
    {
        T inclusive;
        Scan(v, inclusive, out, initial, op);
    }
    template <typename Op> EMU_INLINE void ExclusiveScan(T v, T &out, Op op, T &aggregate)
    {
        T inclusive;
        Scan(v, inclusive, out, op);
        aggregate = Broadcast(inclusive, N - 1);
    }
    template <typename Op> EMU_INLINE void ExclusiveScan(T v, T &out, T initial, Op op, T &aggregate)
    {
        T inclusive;
        Scan(v, inclusive, out, op);
        aggregate = Broadcast(inclusive, N - 1);
        out = lane == 0 ? initial : op(initial, out);
    }

    /* both scans at once */
    template <typename Op> EMU_INLINE void Scan(T v, T &inclusive, T &exclusive, Op op)
    {
        InclusiveScan(v, inclusive, op);
        exclusive = emu_collectives::shuffle(EMU_SHFL_UP, lanes, inclusive, 1, N);
    }
    template <typename Op> EMU_INLINE void Scan(T v, T &inclusive, T &exclusive, T initial, Op op)
    {
        Scan(v, inclusive, exclusive, op);
        exclusive = lane == 0 ? initial : op(initial, exclusive);
        inclusive = op(initial, inclusive);
    }

    /* lane src_lane's value, to every lane */
    EMU_INLINE T Broadcast(T v, unsigned src_lane)
    {
        return emu_collectives::shuffle(EMU_SHFL_IDX, lanes, v, (int)src_lane, N);
    }

  private:
    unsigned lanes, lane;
};

} // namespace cub

#endif
