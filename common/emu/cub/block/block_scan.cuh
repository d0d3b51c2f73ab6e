/* cub/block/block_scan.cuh, emulated: cub::BlockScan<T, BLOCK_DIM_X>, the
 * prefix scans of a block's values in thread order, as CUB's warp-scans
 * algorithm makes them: each warp scans with shuffles (cub::WarpScan), its
 * last lane stores the warp's total in TempStorage, a __syncthreads(), and
 * each thread adds the totals of the warps before its own.
 *
 *     typedef cub::BlockScan<int, 128> BlockScan;
 *     __shared__ typename BlockScan::TempStorage temp;
 *     BlockScan(temp).ExclusiveSum(v, before);
 *
 * With v = 3, 1, 4, 1 in threads 0..3: InclusiveSum gives 3, 4, 8, 9,
 * ExclusiveSum 0, 3, 4, 8, and the block's aggregate, 9, to every thread.
 * ExclusiveScan and InclusiveScan take an associative op; an initial value
 * comes first in the scan (thread 0's exclusive result) and is left out of
 * the aggregate; without one, thread 0's exclusive result is undefined. A
 * prefix callback op is called by the first warp with the block's
 * aggregate, and what lane 0 returns comes first (one more barrier). Each
 * has a form for ITEMS values a thread (T items[ITEMS], thread t holding
 * items t * ITEMS..): the scan runs over them all in that order. Every
 * thread of the block calls; the block must have BLOCK_DIM_X *
 * BLOCK_DIM_Y * BLOCK_DIM_Z threads. TempStorage may be used again only
 * after a __syncthreads(), as with CUB: the race detector sees to it. */
#ifndef EMU_CUB_BLOCK_SCAN_CUH
#define EMU_CUB_BLOCK_SCAN_CUH

#include "../warp/warp_scan.cuh"

namespace cub {

/* CUB's algorithms: the emulation runs warp scans for every one. */
enum BlockScanAlgorithm {
    BLOCK_SCAN_RAKING,
    BLOCK_SCAN_RAKING_MEMOIZE,
    BLOCK_SCAN_WARP_SCANS,
};

template <typename T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockScan {
    enum { THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z, WARPS = (THREADS + 31) / 32 };

  public:
    struct TempStorage {
        T warp_totals[WARPS];
        T prefix; /* the callback's */
    };
    /* with storage of its own, in shared memory */
    EMU_INLINE BlockScan() : s(emu_shared_var<TempStorage>("cub::BlockScan's storage", [] {})) {}
    EMU_INLINE BlockScan(TempStorage &storage) : s(storage) {}

    /* ---- one value a thread */
    EMU_INLINE void ExclusiveSum(T v, T &out) { ExclusiveScan(v, out, T(), cub::Sum()); }
    EMU_INLINE void ExclusiveSum(T v, T &out, T &aggregate)
    {
        ExclusiveScan(v, out, T(), cub::Sum(), aggregate);
    }
    template <typename Callback> EMU_INLINE void ExclusiveSum(T v, T &out, Callback &prefix)
    {
        ExclusiveScan(v, out, cub::Sum(), prefix);
    }
    template <typename Op> EMU_INLINE void ExclusiveScan(T v, T &out, T initial, Op op)
    {
        T inclusive, aggregate;
        scan(v, inclusive, out, aggregate, op, initial_value{initial});
    }
    template <typename Op> EMU_INLINE void ExclusiveScan(T v, T &out, T initial, Op op, T &aggregate)
    {
        T inclusive;
        scan(v, inclusive, out, aggregate, op, initial_value{initial});
    }
    template <typename Op, typename Callback>
    EMU_INLINE void ExclusiveScan(T v, T &out, Op op, Callback &prefix)
    {
        T inclusive, aggregate;
        scan(v, inclusive, out, aggregate, op, prefix);
    }
    template <typename Op> EMU_INLINE void ExclusiveScan(T v, T &out, Op op)
    {
        T inclusive, aggregate;
        scan(v, inclusive, out, aggregate, op, no_prefix());
    }
    template <typename Op> EMU_INLINE void ExclusiveScan(T v, T &out, Op op, T &aggregate)
    {
        T inclusive;
        scan(v, inclusive, out, aggregate, op, no_prefix());
    }
    EMU_INLINE void InclusiveSum(T v, T &out) { InclusiveScan(v, out, cub::Sum()); }
    EMU_INLINE void InclusiveSum(T v, T &out, T &aggregate) { InclusiveScan(v, out, cub::Sum(), aggregate); }
    template <typename Callback> EMU_INLINE void InclusiveSum(T v, T &out, Callback &prefix)
    {
        InclusiveScan(v, out, cub::Sum(), prefix);
    }
    template <typename Op> EMU_INLINE void InclusiveScan(T v, T &out, Op op)
    {
        T exclusive, aggregate;
        scan(v, out, exclusive, aggregate, op, no_prefix());
    }
    template <typename Op> EMU_INLINE void InclusiveScan(T v, T &out, Op op, T &aggregate)
    {
        T exclusive;
        scan(v, out, exclusive, aggregate, op, no_prefix());
    }
    template <typename Op, typename Callback>
    EMU_INLINE void InclusiveScan(T v, T &out, Op op, Callback &prefix)
    {
        T exclusive, aggregate;
        scan(v, out, exclusive, aggregate, op, prefix);
    }

    /* ---- ITEMS values a thread */
    template <int ITEMS> EMU_INLINE void ExclusiveSum(T (&in)[ITEMS], T (&out)[ITEMS])
    {
        ExclusiveScan(in, out, T(), cub::Sum());
    }
    template <int ITEMS> EMU_INLINE void ExclusiveSum(T (&in)[ITEMS], T (&out)[ITEMS], T &aggregate)
    {
        ExclusiveScan(in, out, T(), cub::Sum(), aggregate);
    }
    template <int ITEMS, typename Callback>
    EMU_INLINE void ExclusiveSum(T (&in)[ITEMS], T (&out)[ITEMS], Callback &prefix)
    {
        ExclusiveScan(in, out, cub::Sum(), prefix);
    }
    template <int ITEMS, typename Op>
    EMU_INLINE void ExclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], T initial, Op op)
    {
        T aggregate;
        items(in, out, false, aggregate, op, initial_value{initial});
    }
    template <int ITEMS, typename Op>
    EMU_INLINE void ExclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], T initial, Op op, T &aggregate)
    {
        items(in, out, false, aggregate, op, initial_value{initial});
    }
    template <int ITEMS, typename Op, typename Callback>
    EMU_INLINE void ExclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], Op op, Callback &prefix)
    {
        T aggregate;
        items(in, out, false, aggregate, op, prefix);
    }
    template <int ITEMS, typename Op> EMU_INLINE void ExclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], Op op)
    {
        T aggregate;
        items(in, out, false, aggregate, op, no_prefix());
    }
    template <int ITEMS, typename Op>
    EMU_INLINE void ExclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], Op op, T &aggregate)
    {
        items(in, out, false, aggregate, op, no_prefix());
    }
    template <int ITEMS> EMU_INLINE void InclusiveSum(T (&in)[ITEMS], T (&out)[ITEMS])
    {
        InclusiveScan(in, out, cub::Sum());
    }
    template <int ITEMS> EMU_INLINE void InclusiveSum(T (&in)[ITEMS], T (&out)[ITEMS], T &aggregate)
    {
        InclusiveScan(in, out, cub::Sum(), aggregate);
    }
    template <int ITEMS, typename Callback>
    EMU_INLINE void InclusiveSum(T (&in)[ITEMS], T (&out)[ITEMS], Callback &prefix)
    {
        InclusiveScan(in, out, cub::Sum(), prefix);
    }
    template <int ITEMS, typename Op> EMU_INLINE void InclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], Op op)
    {
        T aggregate;
        items(in, out, true, aggregate, op, no_prefix());
    }
    template <int ITEMS, typename Op>
    EMU_INLINE void InclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], T initial, Op op)
    {
        T aggregate;
        items(in, out, true, aggregate, op, initial_value{initial});
    }
    template <int ITEMS, typename Op>
    EMU_INLINE void InclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], Op op, T &aggregate)
    {
        items(in, out, true, aggregate, op, no_prefix());
    }
    template <int ITEMS, typename Op>
    EMU_INLINE void InclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], T initial, Op op, T &aggregate)
    {
        items(in, out, true, aggregate, op, initial_value{initial});
    }
    template <int ITEMS, typename Op, typename Callback>
    EMU_INLINE void InclusiveScan(T (&in)[ITEMS], T (&out)[ITEMS], Op op, Callback &prefix)
    {
        T aggregate;
        items(in, out, true, aggregate, op, prefix);
    }

  private:
    TempStorage &s;

    /* What comes before the block's first value: nothing, a value, or what
     * a callback makes of the block's aggregate. Each says whether there is
     * one, and which. */
    struct no_prefix {};
    struct initial_value {
        T value;
    };
    EMU_INLINE bool prefix_of(no_prefix, T, T &) { return false; }
    EMU_INLINE bool prefix_of(initial_value initial, T, T &prefix)
    {
        prefix = initial.value;
        return true;
    }
    template <typename Callback> EMU_INLINE bool prefix_of(Callback &callback, T aggregate, T &prefix)
    {
        if (emu_collectives::warp() == 0) {
            T mine = callback(aggregate);
            if (emu_collectives::lane() == 0)
                s.prefix = mine;
        }
        __syncthreads();
        prefix = s.prefix;
        return true;
    }

    /* The block's scans of v by op, and its aggregate. Returns whether
     * `exclusive` is defined: not in thread 0 without a prefix. */
    template <typename Op, typename Prefix>
    EMU_INLINE bool scan(T v, T &inclusive, T &exclusive, T &aggregate, Op op, Prefix &&prefix)
    {
        emu_collectives::expect_block("cub::BlockScan", THREADS);
        int rank = (int)emu_collectives::thread_rank(), warp = rank / 32, lane = rank % 32;
        inclusive = detail::warp_inclusive_scan(v, op, ~0u, 32);
        exclusive = emu_collectives::shuffle(EMU_SHFL_UP, ~0u, inclusive, 1, 32);
        if (lane == 31 || rank == THREADS - 1)
            s.warp_totals[warp] = inclusive;
        __syncthreads();
        aggregate = s.warp_totals[0];
        for (int w = 1; w < WARPS; w++) {
            if (w == warp) { /* the warps before this one */
                exclusive = lane == 0 ? aggregate : op(aggregate, exclusive);
                inclusive = op(aggregate, inclusive);
            }
            aggregate = op(aggregate, s.warp_totals[w]);
        }
        T first;
        if (!prefix_of(prefix, aggregate, first))
            return rank != 0;
        exclusive = rank == 0 ? first : op(first, exclusive);
        inclusive = op(first, inclusive);
        return true;
    }

    template <int ITEMS, typename Op, typename Prefix>
    EMU_INLINE void items(T (&in)[ITEMS], T (&out)[ITEMS], bool inclusive, T &aggregate, Op op,
                          Prefix &&prefix)
    {
        T own[ITEMS]; /* in and out may be one array */
        for (int i = 0; i < ITEMS; i++)
            own[i] = in[i];
        T total = own[0];
        for (int i = 1; i < ITEMS; i++)
            total = op(total, own[i]);
        T through, before;
        bool started = scan(total, through, before, aggregate, op, prefix);
        for (int i = 0; i < ITEMS; i++) {
            if (!inclusive && started)
                out[i] = before;
            before = started ? op(before, own[i]) : own[i];
            started = true;
            if (inclusive)
                out[i] = before;
        }
    }
};

} // namespace cub

#endif
