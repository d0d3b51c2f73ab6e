/* access_counts.h: what the emulation counts of a stage's memory accesses,
 * and the word that marks memory never written. Plain C, read on both
 * sides of the emulation's seam: the harness (workbook.h, on a GPU too)
 * and the emulation (common/emu/cuda_runtime.h), so both mean the same
 * record, field by field (common/emu/counts.cpp fills it).
 *
 * For each kind of access: the warp requests (an instruction run by the
 * lanes of one warp), the 32-byte sectors of device memory they touch or
 * the shared-memory wavefronts they take (the most distinct 4-byte words in
 * one of the 32 banks), the fewest that could serve the bytes they ask for,
 * the lanes taking part and the distinct bytes they ask for. Atomics and
 * volatile loads of device memory (a flag's polls: as many as the schedule
 * makes) are not among the accesses; atomics are counted apart, as are the
 * launches and what their blocks did: what a stage's idea shows (its
 * technique check). */
#ifndef ACCESS_COUNTS_H
#define ACCESS_COUNTS_H

enum access_kind { GLOBAL_LOAD, GLOBAL_STORE, SHARED_LOAD, SHARED_STORE, ACCESS_KINDS };
struct access_counts {
    double requests[ACCESS_KINDS], units[ACCESS_KINDS], ideal[ACCESS_KINDS], lanes[ACCESS_KINDS],
        bytes[ACCESS_KINDS];
    double launches;        /* kernel launches, and device-wide library calls */
    double blocks, threads; /* over all launches */
    double barriers;        /* __syncthreads() a block passed, summed over blocks */
    double shuffles, votes; /* warp collectives: __shfl*_sync; ballot, all, any, match */
    double global_atomics, shared_atomics; /* one per lane */
    double flag_stores;     /* volatile stores to device memory: how blocks publish */
    double library_bytes;   /* what the library calls read and wrote */
    /* the blocks that passed a barrier, made a global atomic, stored a flag;
     * the threads of the largest launch: per block and per thread are over
     * these, so that a helper kernel does not water down the main one */
    double barrier_blocks, atomic_blocks, publishing_blocks, main_threads;
    /* flag stores a thread made before it first polled (a volatile load of
     * device memory): what a tile publishes without waiting for another */
    double flag_stores_before_waiting;
    /* the bytes of the 4-byte shared words each block touched, however
     * often, summed over the blocks: what the blocks need of shared memory */
    double shared_footprint;
    /* the shared accesses (one per lane) of the busiest thread of any
     * block: a tree's depth, a serial sum's length; and the loads of device
     * memory a thread made after its first warp collective (shuffle, vote,
     * __syncwarp) or barrier */
    double busiest_thread_shared, loads_after_waiting;
};

/* Memory never written holds this in every 4-byte word: the harness fills
 * outputs and guard zones with it, the emulation each block's shared memory */
#define POISON_WORD 0xFFBADBADu /* a NaN as float, an odd value as int */

#endif
