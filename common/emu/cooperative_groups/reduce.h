/* cooperative_groups/reduce.h, emulated: cg::reduce(tile, v, op), the
 * combination of every lane's v by op, returned to every lane of the tile.
 * A butterfly of log2(N) shfl_xor steps, so each step is a warp shuffle:
 *
 *     cg::reduce(tile4, v, cg::plus<int>())  with v = 1, 2, 3, 4  gives 10 in all four
 *
 * op must be associative and commutative, as on a GPU. */
#ifndef EMU_COOPERATIVE_GROUPS_REDUCE_H
#define EMU_COOPERATIVE_GROUPS_REDUCE_H

#include "../cooperative_groups.h"

namespace cooperative_groups {

template <unsigned N, typename Parent, typename T, typename Op>
EMU_INLINE T reduce(const thread_block_tile<N, Parent> &tile, T v, Op op)
{
    for (unsigned lanes = N / 2; lanes > 0; lanes /= 2)
        v = op(v, tile.shfl_xor(v, lanes));
    return v;
}

template <typename... A>
EMU_NOT_PROVIDED("cooperative_groups::reduce_update_async") void reduce_update_async(A &&...);
template <typename... A>
EMU_NOT_PROVIDED("cooperative_groups::reduce_store_async") void reduce_store_async(A &&...);

} // namespace cooperative_groups

#endif
