/* emu_collectives.cu: kernels that call the collectives a student of these
 * labs reaches for, cooperative groups' and CUB's warp and block ones, for
 * test_collectives.c to compare with plain loops (make check EMU=1). Plain
 * CUDA: nvcc -arch=sm_90 -c compiles it as it is. */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cub/cub.cuh>
#include <cuda/functional>

#include "workbook.cuh"
#include "emu_collectives.h"
#include "emu_kernels.h"

namespace cg = cooperative_groups;

/* The launch's error, or NULL; the n ints of d_out copied back into h
 * (when the launch succeeded), and both arrays freed. */
static const char *collect(int *h, int *d_out, int *d_in, size_t n)
{
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
    if (e == cudaSuccess && h)
        CUDA_CHECK(cudaMemcpy(h, d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaFree(d_out));
    if (d_in)
        CUDA_CHECK(cudaFree(d_in));
    return e == cudaSuccess ? NULL : cudaGetErrorString(e);
}

/* Where a thread's results go: field f at at[f * total]. */
struct results {
    int *at;
    size_t total;
    __device__ void put(int field, int value) const { at[field * total] = value; }
};

__device__ results results_of(int *out, unsigned threads, unsigned rank)
{
    return {out + blockIdx.x * (size_t)threads + rank, (size_t)gridDim.x * threads};
}

struct smaller {
    __device__ int operator()(int a, int b) const { return b < a ? b : a; }
};

/* ---- cooperative groups: the block, and tiles made at run time -------------------- */

__global__ void cg_block_kernel(int *out)
{
    __shared__ int stored[1024];
    __shared__ int in_tiles[1024];
    cg::thread_block block = cg::this_thread_block();
    unsigned rank = cg::thread_rank(block), size = block.size();
    results r = results_of(out, size, rank);
    r.put(BLOCK_RANK, (int)rank);
    r.put(BLOCK_SIZE, (int)size);
    r.put(BLOCK_NUM_THREADS, (int)cg::group_size(block));
    r.put(BLOCK_GROUP_X, (int)block.group_index().x);
    r.put(BLOCK_THREAD_X, (int)block.thread_index().x);
    r.put(BLOCK_THREAD_Y, (int)block.thread_index().y);
    r.put(BLOCK_DIM_X, (int)block.dim_threads().x);
    r.put(BLOCK_DIM_Y, (int)block.dim_threads().y);

    stored[rank] = (int)(rank * 7 + blockIdx.x);
    block.sync();
    r.put(BLOCK_NEIGHBOUR, stored[(rank + 1) % size]);
    block.sync(); /* every read done before the next stores */
    cg::thread_group group = block;
    stored[rank] = (int)(rank * 11 + blockIdx.x);
    cg::sync(group);
    r.put(BLOCK_GROUP_NEIGHBOUR, stored[(rank + size - 1) % size]);

    cg::thread_group tile = cg::tiled_partition(block, 8);
    unsigned in_tile = (unsigned)tile.thread_rank(), first = rank - in_tile;
    r.put(DYNAMIC_RANK, (int)in_tile);
    r.put(DYNAMIC_SIZE, (int)tile.size());
    in_tiles[rank] = (int)(rank * 13);
    tile.sync();
    r.put(DYNAMIC_NEIGHBOUR, in_tiles[first + (in_tile + 1) % tile.size()]);
}

const char *emu_cg_block(int *out, int blocks, int x, int y)
{
    size_t n = (size_t)BLOCK_FIELDS * blocks * x * y;
    int *d_out = device_ints(NULL, n);
    cg_block_kernel<<<blocks, dim3(x, y)>>>(d_out);
    return collect(out, d_out, NULL, n);
}

/* ---- cooperative groups: tiles of a warp ---------------------------------------------- */

template <unsigned N> __global__ void cg_tiles_kernel(int *out, const int *in)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    unsigned rank = block.thread_rank();
    results r = results_of(out, block.size(), rank);
    int v = in[blockIdx.x * block.size() + rank];
    r.put(TILE_RANK, (int)tile.thread_rank());
    r.put(TILE_SIZE, (int)tile.size());
    r.put(TILE_META_RANK, (int)tile.meta_group_rank());
    r.put(TILE_META_SIZE, (int)tile.meta_group_size());
    r.put(TILE_SHFL, tile.shfl(v, (int)((tile.thread_rank() + 3) % N)));
    r.put(TILE_SHFL_UP, tile.shfl_up(v, 1));
    r.put(TILE_SHFL_DOWN, tile.shfl_down(v, 2));
    r.put(TILE_SHFL_XOR, tile.shfl_xor(v, 1));
    int4 wide = tile.shfl_down(make_int4(v, 2 * v, 3 * v, 4 * v), 1);
    r.put(TILE_SHFL_WIDE, wide.x + wide.y + wide.z + wide.w);
    r.put(TILE_ANY, tile.any(v % 5 == 0));
    r.put(TILE_ALL, tile.all(v > -40));
    r.put(TILE_BALLOT, (int)tile.ballot(v & 1));
    r.put(TILE_SUM, cg::reduce(tile, v, cg::plus<int>()));
    r.put(TILE_MAX, cg::reduce(tile, v, cg::greater<int>()));
    r.put(TILE_MIN, cg::reduce(tile, v, cg::less<int>()));
    r.put(TILE_INCLUSIVE, cg::inclusive_scan(tile, v));
    r.put(TILE_EXCLUSIVE, cg::exclusive_scan(tile, v, cg::plus<int>()));
    r.put(TILE_EXCLUSIVE_MAX, cg::exclusive_scan(tile, v, cg::greater<int>()));
    if constexpr (N == 32) {
        cg::thread_block_tile<4> sub = cg::tiled_partition<4>(tile);
        r.put(SUB_RANK, (int)sub.thread_rank());
        r.put(SUB_META_RANK, (int)sub.meta_group_rank());
        r.put(SUB_META_SIZE, (int)sub.meta_group_size());
        r.put(SUB_SUM, cg::reduce(sub, v, cg::plus<int>()));
    }
}

const char *emu_cg_tiles(int *out, const int *in, int blocks, int threads, int size)
{
    size_t n = (size_t)blocks * threads;
    int *d_in = device_ints(in, n), *d_out = device_ints(NULL, TILE_FIELDS * n);
    switch (size) {
    case 32: cg_tiles_kernel<32><<<blocks, threads>>>(d_out, d_in); break;
    case 16: cg_tiles_kernel<16><<<blocks, threads>>>(d_out, d_in); break;
    case 8: cg_tiles_kernel<8><<<blocks, threads>>>(d_out, d_in); break;
    case 4: cg_tiles_kernel<4><<<blocks, threads>>>(d_out, d_in); break;
    default: cg_tiles_kernel<2><<<blocks, threads>>>(d_out, d_in); break;
    }
    return collect(out, d_out, d_in, TILE_FIELDS * n);
}

/* ---- CUB: warps ---------------------------------------------------------------------- */

__global__ void warp_reduce_kernel(int *out, const int *in)
{
    typedef cub::WarpReduce<int> WarpReduce;
    typedef cub::WarpReduce<int, 8> WarpReduce8;
    __shared__ typename WarpReduce::TempStorage temp[32];
    __shared__ typename WarpReduce8::TempStorage temp8[128];
    unsigned rank = threadIdx.x, warp = rank / 32, lanes = min(32u, blockDim.x - warp * 32);
    results r = results_of(out, blockDim.x, rank);
    int v = in[blockIdx.x * blockDim.x + rank];
    r.put(WR_SUM, WarpReduce(temp[warp]).Sum(v, (int)lanes));
    r.put(WR_SUM_7, WarpReduce(temp[warp]).Sum(v, 7));
    r.put(WR_MAX, WarpReduce(temp[warp]).Reduce(v, cuda::maximum<>(), (int)lanes));
    r.put(WR_MIN_5, WarpReduce(temp[warp]).Reduce(v, smaller(), 5));
    if (lanes == 32)
        r.put(WR_FULL_SUM, WarpReduce(temp[warp]).Sum(v));
    r.put(WR8_SUM, WarpReduce8(temp8[rank / 8]).Sum(v));
    r.put(WR8_SUM_3, WarpReduce8(temp8[rank / 8]).Sum(v, 3));
}

const char *emu_cub_warp_reduce(int *out, const int *in, int blocks)
{
    size_t n = (size_t)blocks * 80;
    int *d_in = device_ints(in, n), *d_out = device_ints(NULL, WARP_REDUCE_FIELDS * n);
    warp_reduce_kernel<<<blocks, 80>>>(d_out, d_in);
    return collect(out, d_out, d_in, WARP_REDUCE_FIELDS * n);
}

__global__ void warp_scan_kernel(int *out, const int *in)
{
    typedef cub::WarpScan<int> WarpScan;
    __shared__ typename WarpScan::TempStorage temp[32];
    unsigned rank = threadIdx.x;
    results r = results_of(out, blockDim.x, rank);
    int v = in[blockIdx.x * blockDim.x + rank], x, y, aggregate;
    WarpScan scan(temp[rank / 32]);
    scan.InclusiveSum(v, x);
    r.put(WS_INCLUSIVE, x);
    scan.ExclusiveSum(v, x, aggregate);
    r.put(WS_EXCLUSIVE, x);
    r.put(WS_AGGREGATE, aggregate);
    scan.InclusiveScan(v, x, cuda::maximum<>(), aggregate);
    r.put(WS_INCLUSIVE_MAX, x);
    r.put(WS_MAX_AGGREGATE, aggregate);
    scan.ExclusiveScan(v, x, 50, cuda::maximum<>());
    r.put(WS_EXCLUSIVE_MAX_50, x);
    scan.ExclusiveScan(v, x, cuda::maximum<>());
    r.put(WS_EXCLUSIVE_MAX, x);
    scan.InclusiveScan(v, x, 1000, cuda::std::plus<>());
    r.put(WS_INCLUSIVE_1000, x);
    scan.Scan(v, x, y, cuda::std::plus<>());
    r.put(WS_SCAN_INCLUSIVE, x);
    r.put(WS_SCAN_EXCLUSIVE, y);
    r.put(WS_BROADCAST, scan.Broadcast(v, 3));
}

__global__ void warp_scan16_kernel(int *out, const int *in)
{
    typedef cub::WarpScan<int, 16> WarpScan16;
    __shared__ typename WarpScan16::TempStorage temp[64];
    unsigned rank = threadIdx.x;
    results r = results_of(out, blockDim.x, rank);
    int v = in[blockIdx.x * blockDim.x + rank], x, aggregate;
    WarpScan16(temp[rank / 16]).InclusiveSum(v, x);
    r.put(WS16_INCLUSIVE, x);
    WarpScan16(temp[rank / 16]).ExclusiveSum(v, x, aggregate);
    r.put(WS16_EXCLUSIVE, x);
    r.put(WS16_AGGREGATE, aggregate);
}

const char *emu_cub_warp_scan(int *out, const int *in, int blocks, int logical_16)
{
    int threads = logical_16 ? 80 : 64;
    size_t n = (size_t)blocks * threads;
    int *d_in = device_ints(in, n), *d_out = device_ints(NULL, WARP_SCAN_FIELDS * n);
    if (logical_16)
        warp_scan16_kernel<<<blocks, threads>>>(d_out, d_in);
    else
        warp_scan_kernel<<<blocks, threads>>>(d_out, d_in);
    return collect(out, d_out, d_in, WARP_SCAN_FIELDS * n);
}

/* ---- CUB: blocks of 16 x 5 threads ---------------------------------------------------- */

__global__ void block_reduce_kernel(int *out, const int *in)
{
    typedef cub::BlockReduce<int, 16, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 5> BlockReduce;
    __shared__ typename BlockReduce::TempStorage temp;
    unsigned rank = threadIdx.y * 16 + threadIdx.x;
    results r = results_of(out, 80, rank);
    int v = in[blockIdx.x * 80 + rank], items[3] = {v, v + 1, 2 * v};
    int sum = BlockReduce(temp).Sum(v);
    __syncthreads(); /* CUB's rule before the storage serves again */
    int sum_37 = BlockReduce(temp).Sum(v, 37);
    __syncthreads();
    int largest = BlockReduce(temp).Reduce(v, cuda::maximum<>());
    __syncthreads();
    int items_sum = BlockReduce(temp).Sum(items);
    __syncthreads();
    int smallest_37 = BlockReduce(temp).Reduce(v, smaller(), 37);
    int private_sum = BlockReduce().Sum(v);
    if (rank == 0) {
        r.put(BR_SUM, sum);
        r.put(BR_SUM_37, sum_37);
        r.put(BR_MAX, largest);
        r.put(BR_ITEMS_SUM, items_sum);
        r.put(BR_MIN_37, smallest_37);
        r.put(BR_PRIVATE_SUM, private_sum);
    }
}

const char *emu_cub_block_reduce(int *out, const int *in, int blocks)
{
    size_t n = (size_t)blocks * 80;
    int *d_in = device_ints(in, n), *d_out = device_ints(NULL, BLOCK_REDUCE_FIELDS * n);
    block_reduce_kernel<<<blocks, dim3(16, 5)>>>(d_out, d_in);
    return collect(out, d_out, d_in, BLOCK_REDUCE_FIELDS * n);
}

/* What comes before each pass of the block: the total of the passes before. */
struct running_total {
    int total;
    __device__ int operator()(int block_aggregate)
    {
        int before = total;
        total += block_aggregate;
        return before;
    }
};

__global__ void block_scan_kernel(int *out, const int *in)
{
    typedef cub::BlockScan<int, 16, cub::BLOCK_SCAN_RAKING, 5> BlockScan;
    __shared__ typename BlockScan::TempStorage temp;
    unsigned rank = threadIdx.y * 16 + threadIdx.x;
    results r = results_of(out, 80, rank);
    int v = in[blockIdx.x * 80 + rank], x, aggregate;
    BlockScan(temp).ExclusiveSum(v, x);
    r.put(BS_EXCLUSIVE, x);
    __syncthreads(); /* CUB's rule before the storage serves again */
    BlockScan(temp).InclusiveSum(v, x, aggregate);
    r.put(BS_INCLUSIVE, x);
    r.put(BS_AGGREGATE, aggregate);
    __syncthreads();
    BlockScan(temp).ExclusiveScan(v, x, -1000, cuda::maximum<>());
    r.put(BS_EXCLUSIVE_MAX, x);
    __syncthreads();
    BlockScan(temp).InclusiveScan(v, x, cuda::maximum<>());
    r.put(BS_INCLUSIVE_MAX, x);
    __syncthreads();
    BlockScan(temp).ExclusiveScan(v, x, cuda::maximum<>());
    r.put(BS_EXCLUSIVE_MAX_BARE, x);
    __syncthreads();

    int items[3] = {v, v + 1, 2 * v}, scanned[3];
    BlockScan(temp).ExclusiveSum(items, scanned);
    r.put(BS_ITEMS_EXCLUSIVE_0, scanned[0]);
    r.put(BS_ITEMS_EXCLUSIVE_1, scanned[1]);
    r.put(BS_ITEMS_EXCLUSIVE_2, scanned[2]);
    __syncthreads();
    BlockScan(temp).InclusiveSum(items, scanned, aggregate);
    r.put(BS_ITEMS_AGGREGATE, aggregate);
    __syncthreads();
    BlockScan(temp).InclusiveScan(items, items, cuda::maximum<>());
    r.put(BS_ITEMS_INCLUSIVE_MAX_2, items[2]);

    running_total before = {0};
    for (int pass = 0; pass < 2; pass++) {
        __syncthreads();
        BlockScan(temp).ExclusiveSum(v + pass * 1000, x, before);
    }
    r.put(BS_CALLBACK, x);
}

const char *emu_cub_block_scan_all(int *out, const int *in, int blocks)
{
    size_t n = (size_t)blocks * 80;
    int *d_in = device_ints(in, n), *d_out = device_ints(NULL, BLOCK_SCAN_FIELDS * n);
    block_scan_kernel<<<blocks, dim3(16, 5)>>>(d_out, d_in);
    return collect(out, d_out, d_in, BLOCK_SCAN_FIELDS * n);
}

/* ---- what the emulation counts, and misuses ------------------------------------------ */

__global__ void lone_collective_kernel(int *out, const int *in, int which)
{
    unsigned rank = threadIdx.x;
    int v = in[blockIdx.x * 128 + rank];
    if (which == LONE_BLOCK_SYNC) {
        cg::this_thread_block().sync();
    } else if (which == LONE_TILE_REDUCE) {
        v = cg::reduce(cg::tiled_partition<32>(cg::this_thread_block()), v, cg::plus<int>());
    } else if (which == LONE_WARP_REDUCE) {
        __shared__ typename cub::WarpReduce<int>::TempStorage temp[4];
        v = cub::WarpReduce<int>(temp[rank / 32]).Sum(v);
    } else if (which == LONE_BLOCK_REDUCE) {
        __shared__ typename cub::BlockReduce<int, 128>::TempStorage temp;
        v = cub::BlockReduce<int, 128>(temp).Sum(v);
    } else {
        __shared__ typename cub::BlockScan<int, 128>::TempStorage temp;
        cub::BlockScan<int, 128>(temp).ExclusiveSum(v, v);
    }
    out[blockIdx.x * 128 + rank] = v;
}

const char *emu_lone_collective(int *out, const int *in, int blocks, int which)
{
    size_t n = (size_t)blocks * 128;
    int *d_in = device_ints(in, n), *d_out = device_ints(NULL, n);
    lone_collective_kernel<<<blocks, 128>>>(d_out, d_in, which);
    return collect(out, d_out, d_in, n);
}

__global__ void block_reduce_wrong_size_kernel(int *out)
{
    __shared__ typename cub::BlockReduce<int, 64>::TempStorage temp;
    int sum = cub::BlockReduce<int, 64>(temp).Sum(1); /* LINE: a BlockReduce for 64 threads */
    if (threadIdx.x == 0)
        *out = sum;
}

const char *emu_block_reduce_wrong_size(void)
{
    int *d_out = device_ints(NULL, 1);
    block_reduce_wrong_size_kernel<<<1, 128>>>(d_out);
    return collect(NULL, d_out, NULL, 1);
}

__global__ void block_scan_reused_kernel(int *out, const int *in)
{
    typedef cub::BlockScan<int, 128> BlockScan;
    __shared__ typename BlockScan::TempStorage temp;
    int v = in[threadIdx.x], before, through;
    BlockScan(temp).ExclusiveSum(v, before);
    BlockScan(temp).InclusiveSum(v, through); /* LINE: the storage used again */
    out[threadIdx.x] = before + through;
}

const char *emu_block_scan_storage_reused(int *out, const int *in)
{
    int *d_in = device_ints(in, 128), *d_out = device_ints(NULL, 128);
    block_scan_reused_kernel<<<1, 128>>>(d_out, d_in);
    return collect(out, d_out, d_in, 128);
}
