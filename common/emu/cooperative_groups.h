/* cooperative_groups.h, emulated (EMU=1): the groups a student of these labs
 * reaches for, with CUDA's names and signatures.
 *
 *     namespace cg = cooperative_groups;
 *     cg::thread_block block = cg::this_thread_block();
 *     cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
 *     float sum = cg::reduce(warp, v, cg::plus<float>()); // <cooperative_groups/reduce.h>
 *     block.sync();
 *
 * - thread_block: sync() is __syncthreads(); thread_rank(), size() and
 *   num_threads(), group_index() (blockIdx), thread_index() (threadIdx),
 *   dim_threads() and group_dim() (blockDim).
 * - tiled_partition<N>(parent), N = 1, 2, 4, ... 32, of the block or of a
 *   larger tile: a thread_block_tile<N> whose sync() is __syncwarp(its
 *   lanes) and whose shfl, shfl_up, shfl_down, shfl_xor, any, all, ballot
 *   and match_any are the warp intrinsics on its lanes; meta_group_rank()
 *   and meta_group_size() say which tile of how many.
 * - tiled_partition(parent, n): a thread_group of n threads (sync,
 *   thread_rank, size), as on a GPU, where such a group has no shuffles.
 * - cg::sync(g), cg::thread_rank(g), cg::group_size(g); the functors plus,
 *   less, greater, bit_and, bit_or, bit_xor.
 * What is not here (grids, clusters, coalesced_threads(), tiles of several
 * warps, asynchronous copies) stops the build with "the CPU emulation does
 * not provide X; on a GPU this compiles". */
#ifndef EMU_COOPERATIVE_GROUPS_H
#define EMU_COOPERATIVE_GROUPS_H

#include "collectives.h"

namespace cooperative_groups {

/* Any group: a block, or a tile of one warp's lanes. */
class thread_group {
  protected:
    enum kind { BLOCK, TILE };
    kind kind_;
    unsigned lanes_; /* a tile's lanes, a bit each */
    unsigned meta_rank_, meta_size_;
    EMU_INLINE explicit thread_group(kind k, unsigned lanes = 0, unsigned meta_rank = 0,
                                     unsigned meta_size = 1)
        : kind_(k), lanes_(lanes), meta_rank_(meta_rank), meta_size_(meta_size)
    {
    }
    friend thread_group tiled_partition(const thread_group &parent, unsigned size);

  public:
    EMU_INLINE unsigned long long size() const
    {
        return kind_ == BLOCK ? emu_collectives::block_threads() : __popc(lanes_);
    }
    EMU_INLINE unsigned long long num_threads() const { return size(); }
    EMU_INLINE unsigned long long thread_rank() const
    {
        if (kind_ == BLOCK)
            return emu_collectives::thread_rank();
        return __popc(lanes_ & ((1u << emu_collectives::lane()) - 1));
    }
    EMU_INLINE void sync() const
    {
        if (kind_ == BLOCK)
            __syncthreads();
        else
            __syncwarp(lanes_);
    }
};

class thread_block : public thread_group {
    EMU_INLINE thread_block() : thread_group(BLOCK) {}
    friend thread_block this_thread_block();

  public:
    EMU_INLINE static void sync() { __syncthreads(); }
    EMU_INLINE static unsigned size() { return emu_collectives::block_threads(); }
    EMU_INLINE static unsigned num_threads() { return size(); }
    EMU_INLINE static unsigned thread_rank() { return emu_collectives::thread_rank(); }
    EMU_INLINE static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    EMU_INLINE static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    EMU_INLINE static dim3 dim_threads() { return blockDim; }
    EMU_INLINE static dim3 group_dim() { return blockDim; }
};

EMU_INLINE thread_block this_thread_block() { return thread_block(); }

/* A tile of N threads of one warp. thread_block_tile<N> is what any parent's
 * tile converts to; thread_block_tile<N, Parent> is what tiled_partition
 * returns. */
template <unsigned N, typename Parent = void> class thread_block_tile;

template <unsigned N> class thread_block_tile<N, void> : public thread_group {
    static_assert(N > 0 && (N & (N - 1)) == 0, "a tile's size is a power of two");
    static_assert(N <= 32, "the CPU emulation does not provide cooperative_groups::tiled_partition "
                           "of more than 32 threads; on a GPU this compiles");

  protected:
    EMU_INLINE thread_block_tile(unsigned meta_rank, unsigned meta_size)
        : thread_group(TILE, emu_collectives::tile_mask(N), meta_rank, meta_size)
    {
    }

  public:
    EMU_INLINE static constexpr unsigned size() { return N; }
    EMU_INLINE static constexpr unsigned num_threads() { return N; }
    EMU_INLINE static unsigned thread_rank() { return emu_collectives::thread_rank() & (N - 1); }
    EMU_INLINE unsigned meta_group_rank() const { return meta_rank_; }
    EMU_INLINE unsigned meta_group_size() const { return meta_size_; }
    EMU_INLINE void sync() const { __syncwarp(lanes_); }

    template <typename T> EMU_INLINE T shfl(T v, int rank) const
    {
        return emu_collectives::shuffle(EMU_SHFL_IDX, lanes_, v, rank, N);
    }
    template <typename T> EMU_INLINE T shfl_up(T v, unsigned delta) const
    {
        return emu_collectives::shuffle(EMU_SHFL_UP, lanes_, v, (int)delta, N);
    }
    template <typename T> EMU_INLINE T shfl_down(T v, unsigned delta) const
    {
        return emu_collectives::shuffle(EMU_SHFL_DOWN, lanes_, v, (int)delta, N);
    }
    template <typename T> EMU_INLINE T shfl_xor(T v, unsigned lane_mask) const
    {
        return emu_collectives::shuffle(EMU_SHFL_XOR, lanes_, v, (int)lane_mask, N);
    }
    /* votes, with the tile's lanes as bits 0 to N - 1 */
    EMU_INLINE unsigned ballot(int predicate) const
    {
        return __ballot_sync(lanes_, predicate) >> (emu_collectives::lane() & ~(N - 1));
    }
    EMU_INLINE int any(int predicate) const { return __ballot_sync(lanes_, predicate) != 0; }
    EMU_INLINE int all(int predicate) const { return __ballot_sync(lanes_, predicate) == lanes_; }
    template <typename T> EMU_INLINE unsigned match_any(T v) const
    {
        static_assert(sizeof(T) <= 8, "match_any compares values of at most 8 bytes");
        unsigned long long bits = 0;
        memcpy(&bits, &v, sizeof v);
        return __match_any_sync(lanes_, bits) >> (emu_collectives::lane() & ~(N - 1));
    }
};

template <unsigned N, typename Parent>
class thread_block_tile : public thread_block_tile<N, void> {
  public:
    EMU_INLINE explicit thread_block_tile(const Parent &parent)
        : thread_block_tile<N, void>((unsigned)parent.thread_rank() / N,
                                     ((unsigned)parent.size() + N - 1) / N)
    {
    }
};

/* A tile of N threads of the block, or of a larger tile. */
template <unsigned N, typename Parent>
EMU_INLINE thread_block_tile<N, Parent> tiled_partition(const Parent &parent)
{
    static_assert(!std::is_same<Parent, thread_group>::value,
                  "tiled_partition<N> takes a thread_block or a thread_block_tile");
    return thread_block_tile<N, Parent>(parent);
}

/* A tile of `size` threads (a power of two up to 32), known only at run time. */
EMU_INLINE thread_group tiled_partition(const thread_group &parent, unsigned size)
{
    if (size == 0 || size > 32 || (size & (size - 1)))
        emu_misuse("tiled_partition(parent, size) takes a power of two from 1 to 32 as the size "
                   "(on a GPU the kernel traps)");
    unsigned rank = (unsigned)parent.thread_rank(), first = rank & ~(size - 1);
    unsigned count = (unsigned)parent.size() - first < size ? (unsigned)parent.size() - first : size;
    unsigned lanes = (count == 32 ? ~0u : (1u << count) - 1) << (emu_collectives::lane() & ~(size - 1));
    return thread_group(thread_group::TILE, lanes, rank / size,
                        ((unsigned)parent.size() + size - 1) / size);
}

template <typename Group> EMU_INLINE void sync(const Group &g) { g.sync(); }
template <typename Group> EMU_INLINE auto thread_rank(const Group &g) { return g.thread_rank(); }
template <typename Group> EMU_INLINE auto group_size(const Group &g) { return g.num_threads(); }

/* The operations of reduce and the scans (and of any code of the student's). */
template <typename T> struct plus {
    EMU_INLINE T operator()(T a, T b) const { return a + b; }
};
template <typename T> struct less { /* the smaller: a minimum */
    EMU_INLINE T operator()(T a, T b) const { return b < a ? b : a; }
};
template <typename T> struct greater { /* the larger: a maximum */
    EMU_INLINE T operator()(T a, T b) const { return a < b ? b : a; }
};
template <typename T> struct bit_and {
    EMU_INLINE T operator()(T a, T b) const { return a & b; }
};
template <typename T> struct bit_or {
    EMU_INLINE T operator()(T a, T b) const { return a | b; }
};
template <typename T> struct bit_xor {
    EMU_INLINE T operator()(T a, T b) const { return a ^ b; }
};

/* ---- not emulated: a use names itself ---------------------------------- */
class EMU_NOT_PROVIDED("cooperative_groups::grid_group") grid_group;
class EMU_NOT_PROVIDED("cooperative_groups::cluster_group") cluster_group;
class EMU_NOT_PROVIDED("cooperative_groups::coalesced_group") coalesced_group;
template <unsigned> struct EMU_NOT_PROVIDED("cooperative_groups::block_tile_memory") block_tile_memory;
EMU_NOT_PROVIDED("cooperative_groups::this_grid") void this_grid();
EMU_NOT_PROVIDED("cooperative_groups::this_cluster") void this_cluster();
EMU_NOT_PROVIDED("cooperative_groups::coalesced_threads") void coalesced_threads();
template <typename... A>
EMU_NOT_PROVIDED("cooperative_groups::labeled_partition") void labeled_partition(A &&...);
template <typename... A>
EMU_NOT_PROVIDED("cooperative_groups::binary_partition") void binary_partition(A &&...);
template <typename... A>
EMU_NOT_PROVIDED("cooperative_groups::invoke_one") void invoke_one(A &&...);
template <typename... A>
EMU_NOT_PROVIDED("cooperative_groups::memcpy_async") void memcpy_async(A &&...);
template <typename... A> EMU_NOT_PROVIDED("cooperative_groups::wait") void wait(A &&...);
template <unsigned, typename... A>
EMU_NOT_PROVIDED("cooperative_groups::wait_prior") void wait_prior(A &&...);

} // namespace cooperative_groups

#endif
