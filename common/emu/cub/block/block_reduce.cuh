/* cub/block/block_reduce.cuh, emulated: cub::BlockReduce<T, BLOCK_DIM_X>, the
 * combination of a block's values, left in thread 0, as CUB's default
 * algorithm (warp reductions) makes it: each warp reduces with shuffles
 * (cub::WarpReduce), lane 0 of each stores its warp's total in TempStorage,
 * a __syncthreads(), and thread 0 combines the totals.
 *
 *     typedef cub::BlockReduce<float, 256> BlockReduce;
 *     __shared__ typename BlockReduce::TempStorage temp;
 *     float sum = BlockReduce(temp).Sum(v); // in thread 0
 *
 * Sum(v), Reduce(v, op): every thread's value; Sum(v, num_valid) and
 * Reduce(v, op, num_valid): threads 0..num_valid-1's; Sum(items) and
 * Reduce(items, op): ITEMS values a thread (T items[ITEMS]). Every thread
 * of the block calls; the block must have BLOCK_DIM_X * BLOCK_DIM_Y *
 * BLOCK_DIM_Z threads. TempStorage may be used again only after a
 * __syncthreads(), as with CUB: the race detector sees to it. */
#ifndef EMU_CUB_BLOCK_REDUCE_CUH
#define EMU_CUB_BLOCK_REDUCE_CUH

#include "../warp/warp_reduce.cuh"

namespace cub {

/* CUB's algorithms: the emulation runs warp reductions for every one. */
enum BlockReduceAlgorithm {
    BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY,
    BLOCK_REDUCE_RAKING,
    BLOCK_REDUCE_WARP_REDUCTIONS,
};

template <typename T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockReduce {
    enum { THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z, WARPS = (THREADS + 31) / 32 };

  public:
    struct TempStorage {
        T warp_totals[WARPS];
    };
    /* with storage of its own, in shared memory */
    EMU_INLINE BlockReduce() : s(emu_shared_var<TempStorage>("cub::BlockReduce's storage", [] {})) {}
    EMU_INLINE BlockReduce(TempStorage &storage) : s(storage) {}

    EMU_INLINE T Sum(T v) { return Reduce(v, cub::Sum(), THREADS); }
    EMU_INLINE T Sum(T v, int num_valid) { return Reduce(v, cub::Sum(), num_valid); }
    template <int ITEMS> EMU_INLINE T Sum(T (&items)[ITEMS]) { return Reduce(items, cub::Sum()); }
    template <typename Op> EMU_INLINE T Reduce(T v, Op op) { return Reduce(v, op, THREADS); }
    template <int ITEMS, typename Op> EMU_INLINE T Reduce(T (&items)[ITEMS], Op op)
    {
        T v = items[0];
        for (int i = 1; i < ITEMS; i++)
            v = op(v, items[i]);
        return Reduce(v, op, THREADS);
    }
    template <typename Op> EMU_INLINE T Reduce(T v, Op op, int num_valid)
    {
        emu_collectives::expect_block("cub::BlockReduce", THREADS);
        int rank = (int)emu_collectives::thread_rank(), warp = rank / 32;
        int in_warp = num_valid - warp * 32;
        in_warp = in_warp < 0 ? 0 : in_warp > 32 ? 32 : in_warp;
        if (in_warp > 0) /* the same for the whole warp */
            v = detail::warp_reduce(v, op, in_warp, ~0u, 32);
        if (rank % 32 == 0 && in_warp > 0)
            s.warp_totals[warp] = v;
        __syncthreads();
        if (rank == 0)
            for (int w = 1; w < WARPS && w * 32 < num_valid; w++)
                v = op(v, s.warp_totals[w]);
        return v;
    }

  private:
    TempStorage &s;
};

} // namespace cub

#endif
