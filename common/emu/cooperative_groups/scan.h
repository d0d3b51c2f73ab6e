/* cooperative_groups/scan.h, emulated: the scans of a tile, lane by lane in
 * thread_rank() order. inclusive_scan(tile, v, op) gives lane k the
 * combination of lanes 0..k; exclusive_scan that of lanes 0..k-1, and lane
 * 0 a value-initialised T (0 for numbers). op defaults to plus. Hillis and
 * Steele's steps: log2(N) shfl_up, one more for the exclusive scan.
 *
 *     v = 3, 1, 4, 1:  inclusive_scan gives 3, 4, 8, 9;  exclusive_scan 0, 3, 4, 8 */
#ifndef EMU_COOPERATIVE_GROUPS_SCAN_H
#define EMU_COOPERATIVE_GROUPS_SCAN_H

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <unsigned N, typename Parent, typename T, typename Op>
EMU_INLINE T inclusive_scan(const thread_block_tile<N, Parent> &tile, T v, Op op)
{
    unsigned rank = tile.thread_rank();
    for (unsigned distance = 1; distance < N; distance *= 2) {
        T below = tile.shfl_up(v, distance);
        if (rank >= distance)
            v = op(below, v);
    }
    return v;
}

template <unsigned N, typename Parent, typename T, typename Op>
EMU_INLINE T exclusive_scan(const thread_block_tile<N, Parent> &tile, T v, Op op)
{
    T before = tile.shfl_up(inclusive_scan(tile, v, op), 1);
    return tile.thread_rank() == 0 ? T() : before;
}

template <unsigned N, typename Parent, typename T>
EMU_INLINE T inclusive_scan(const thread_block_tile<N, Parent> &tile, T v)
{
    return inclusive_scan(tile, v, plus<T>());
}

template <unsigned N, typename Parent, typename T>
EMU_INLINE T exclusive_scan(const thread_block_tile<N, Parent> &tile, T v)
{
    return exclusive_scan(tile, v, plus<T>());
}

template <typename... A>
EMU_NOT_PROVIDED("cooperative_groups::inclusive_scan_update") void inclusive_scan_update(A &&...);
template <typename... A>
EMU_NOT_PROVIDED("cooperative_groups::exclusive_scan_update") void exclusive_scan_update(A &&...);

} // namespace cooperative_groups

#endif
