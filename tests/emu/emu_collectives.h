/* emu_collectives.h: the entry points of emu_collectives.cu, for
 * test_collectives.c. Each launches its kernel on `blocks` blocks and
 * returns NULL when the launch succeeded, else CUDA's error string. A
 * kernel's thread t (over the whole launch, blocks in order, t = rank in
 * the block + block * threads) leaves its result f at out[f * total + t],
 * total being the launch's threads; in holds one value a thread. */
#ifndef EMU_COLLECTIVES_TESTS_H
#define EMU_COLLECTIVES_TESTS_H

#ifdef __cplusplus
extern "C" {
#endif

/* cg::this_thread_block(), in blocks of x * y threads; neighbour: what the
 * next thread (by rank, cyclically) stored before block.sync(), through a
 * thread_group the block was given to (tile_neighbour likewise, before
 * the dynamic tile's sync, in tiled_partition(block, 8)) */
enum block_field {
    BLOCK_RANK, BLOCK_SIZE, BLOCK_NUM_THREADS, BLOCK_GROUP_X, BLOCK_THREAD_X, BLOCK_THREAD_Y,
    BLOCK_DIM_X, BLOCK_DIM_Y, BLOCK_NEIGHBOUR, BLOCK_GROUP_NEIGHBOUR,
    DYNAMIC_RANK, DYNAMIC_SIZE, DYNAMIC_NEIGHBOUR, BLOCK_FIELDS
};
const char *emu_cg_block(int *out, int blocks, int x, int y);

/* cg::tiled_partition<size>(block) in blocks of `threads`: a tile's rank,
 * size and place, its shuffles (shfl from rank + 3, up by 1, down by 2, xor
 * 1, and a 16-byte int4 of v, 2v, 3v, 4v down by 1, summed), votes (any and
 * all of v % 5 == 0, ballot of v odd), cg::reduce by plus, greater and
 * less, cg::inclusive_scan and exclusive_scan by plus, exclusive_scan by
 * greater; and in a tile of 4 of the tile of 32 (size 32 only): its rank,
 * place and sum. */
enum tile_field {
    TILE_RANK, TILE_SIZE, TILE_META_RANK, TILE_META_SIZE, TILE_SHFL, TILE_SHFL_UP, TILE_SHFL_DOWN,
    TILE_SHFL_XOR, TILE_SHFL_WIDE, TILE_ANY, TILE_ALL, TILE_BALLOT, TILE_SUM, TILE_MAX, TILE_MIN,
    TILE_INCLUSIVE, TILE_EXCLUSIVE, TILE_EXCLUSIVE_MAX, SUB_RANK, SUB_META_RANK, SUB_META_SIZE,
    SUB_SUM, TILE_FIELDS
};
const char *emu_cg_tiles(int *out, const int *in, int blocks, int threads, int size);

/* cub::WarpReduce in blocks of 80 threads (the last warp has 16 lanes):
 * Sum(v, lanes in the warp), Sum(v, 7), Reduce(v, cuda::maximum<>(), lanes
 * in the warp), Reduce(v, a functor's minimum, 5), Sum(v) in the two full
 * warps, and in logical warps of 8, Sum(v) and Sum(v, 3). Lane 0 of each
 * (logical) warp holds a result; the other lanes' are undefined. */
enum warp_reduce_field {
    WR_SUM, WR_SUM_7, WR_MAX, WR_MIN_5, WR_FULL_SUM, WR8_SUM, WR8_SUM_3, WARP_REDUCE_FIELDS
};
const char *emu_cub_warp_reduce(int *out, const int *in, int blocks);

/* cub::WarpScan in blocks of 64 threads, and of logical warps of 16 in
 * blocks of 80: InclusiveSum, ExclusiveSum with the warp's aggregate,
 * InclusiveScan by maximum with its aggregate, ExclusiveScan by maximum
 * from 50, and without an initial value (lane 0's is undefined),
 * InclusiveScan by plus from 1000, Scan's two results by plus, and
 * Broadcast of lane 3's value. */
enum warp_scan_field {
    WS_INCLUSIVE, WS_EXCLUSIVE, WS_AGGREGATE, WS_INCLUSIVE_MAX, WS_MAX_AGGREGATE, WS_EXCLUSIVE_MAX_50,
    WS_EXCLUSIVE_MAX, WS_INCLUSIVE_1000, WS_SCAN_INCLUSIVE, WS_SCAN_EXCLUSIVE, WS_BROADCAST,
    WS16_INCLUSIVE, WS16_EXCLUSIVE, WS16_AGGREGATE, WARP_SCAN_FIELDS
};
const char *emu_cub_warp_scan(int *out, const int *in, int blocks, int logical_16);

/* cub::BlockReduce in blocks of 80 threads (x 16, y 5), in thread 0: Sum(v),
 * Sum(v, 37), Reduce(v, cuda::maximum<>()), Sum of three items a thread
 * (v, v + 1, 2v), Reduce(v, minimum, 37), and Sum(v) with storage of its
 * own. */
enum block_reduce_field {
    BR_SUM, BR_SUM_37, BR_MAX, BR_ITEMS_SUM, BR_MIN_37, BR_PRIVATE_SUM, BLOCK_REDUCE_FIELDS
};
const char *emu_cub_block_reduce(int *out, const int *in, int blocks);

/* cub::BlockScan in blocks of 80 threads (x 16, y 5): ExclusiveSum,
 * InclusiveSum with the block's aggregate, ExclusiveScan by maximum from
 * -1000, InclusiveScan by maximum, ExclusiveScan by maximum without an
 * initial value (thread 0's undefined); over three items a thread (v, v +
 * 1, 2v, all in thread order), ExclusiveSum of each and InclusiveSum's
 * aggregate, InclusiveScan by maximum of the last; and ExclusiveSum with a
 * prefix callback that carries a running total over two passes of the
 * block (the second adds 1000 to each value, whose scan is stored). */
enum block_scan_field {
    BS_EXCLUSIVE, BS_INCLUSIVE, BS_AGGREGATE, BS_EXCLUSIVE_MAX, BS_INCLUSIVE_MAX, BS_EXCLUSIVE_MAX_BARE,
    BS_ITEMS_EXCLUSIVE_0, BS_ITEMS_EXCLUSIVE_1, BS_ITEMS_EXCLUSIVE_2, BS_ITEMS_AGGREGATE,
    BS_ITEMS_INCLUSIVE_MAX_2, BS_CALLBACK, BLOCK_SCAN_FIELDS
};
const char *emu_cub_block_scan_all(int *out, const int *in, int blocks);

/* One collective alone, in blocks of 128, for what the emulation counts of
 * it (the caller counts around the call). */
enum lone_collective {
    LONE_BLOCK_SYNC, LONE_TILE_REDUCE, LONE_WARP_REDUCE, LONE_BLOCK_REDUCE, LONE_BLOCK_SCAN
};
const char *emu_lone_collective(int *out, const int *in, int blocks, int which);

/* Planted misuses: cub::BlockReduce<int, 64> in a block of 128 threads;
 * a BlockScan's storage used again with no barrier between. */
const char *emu_block_reduce_wrong_size(void);
const char *emu_block_scan_storage_reused(int *out, const int *in);

#ifdef __cplusplus
}
#endif

#endif
