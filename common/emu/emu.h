/* emu.h: what the emulator's own files share (not for kernels). */
#ifndef EMU_EMU_H
#define EMU_EMU_H

#include "cuda_runtime.h"

#include <setjmp.h>
#include <ucontext.h>

#include <string>
#include <vector>

namespace emu {

const unsigned MAX_THREADS = 1024;
const unsigned WARPS = MAX_THREADS / 32;
/* Shared memory per block: the H100's opt-in maximum, for the dynamic part,
 * and as much again for the static __shared__ variables of every kernel. */
const size_t SHARED_DYNAMIC = 227 * 1024;
const size_t SHARED_STATIC = 227 * 1024;
/* Calls a fiber records, outermost first, to name its kernel in reports. */
const unsigned CALLERS = 8;

/* A place to go back to: the callee-saved registers, the stack pointer
 * and the next instruction. On x86-64 emu.cpp saves and restores them
 * itself, elsewhere glibc's _setjmp and _longjmp do. */
#if defined(__x86_64__)
typedef void *place[8];
#else
typedef jmp_buf place;
#endif

/* Where a thread stands: running or ready to, waiting for its block, waiting
 * for lanes of its warp, or returned. */
enum state { READY, AT_BARRIER, AT_WARP, DONE };

/* A warp collective a lane is waiting in, and then its result. */
struct warp_call {
    const char *what; /* "__shfl_down_sync", ... */
    const void *pc;   /* the call's return address, for reports */
    unsigned mask;
    int op;                /* which collective: emu.cpp's warp_op */
    int kind, lane, width; /* a shuffle's */
    unsigned long long value, result;
};

/* The instrumented calls a thread is in: the return addresses of the
 * first CALLERS of them, outermost first, and how many there are. */
struct calls {
    unsigned depth;
    const void *at[CALLERS];
};

/* A fiber is made once per worker and thread index, then runs that thread
 * of every block its worker runs: no setup per block. What every switch
 * touches comes first, on few cache lines. */
struct fiber {
    state now;
    bool started;
    uint3 index;
    const void *barrier_pc; /* the __syncthreads() it waits at */
    place context;          /* where it stopped; switches need no system call */
    calls in;               /* to name the kernel (memory.cpp records them) */
    warp_call call;
    ucontext_t start; /* used once, to enter the fiber's stack */
};

/* The race detector's record of one 4-byte word of shared memory: who last
 * wrote it and who read it, in which interval between barriers (the phase)
 * and between warp synchronisations (the warp step). */
struct word_record {
    unsigned long long write_phase, read_phase;
    unsigned write_step, read_step, other_step;
    unsigned short writer, reader, other_reader; /* thread index in the block */
    bool atomic;
    const void *write_pc, *read_pc;
};

/* One per worker: the block it is running, its fibers and its memory. */
struct block_runner {
    char *stacks;
    fiber fibers[MAX_THREADS];
    place scheduler;
    void (*run)(const void *body);
    const void *body;
    const char *kernel; /* the launch's text, when the name cannot be found */
    emu_launch_config config;
    uint3 block;
    unsigned threads, current;
    int barrier_sum, barrier_result; /* __syncthreads_count and friends */

    unsigned char *shared; /* SHARED_STATIC of static variables, then the dynamic part */
    std::vector<emu_shared_site *> touched; /* static variables poisoned in this block */
    word_record *records;                   /* one per word of shared */
    unsigned long long phase;               /* unique per block and barrier interval */
    unsigned warp_step[WARPS];              /* warp synchronisations so far, per warp */
    const char *seen_lo, *seen_hi; /* device memory a kernel may touch, last seen */
};
extern thread_local block_runner *runner; /* null outside kernels */

/* Stop the running launch with a message for the student; from a fiber,
 * abandon_thread() then never returns. */
void fail_launch(const std::string &why);
void wait(state why);             /* from a fiber: back to the scheduler */
[[noreturn]] void abandon_thread();
/* "kernel reduce_stage1_kernel<int>, block (3, 0, 0), thread 17", the
 * kernel named from the thread's calls and a code address in it */
std::string where(unsigned thread, const void *pc);
std::string block_where(const block_runner &r, unsigned thread, const void *pc);
std::string block_where(const block_runner &r, const calls &in, const void *pc);
std::string thread_name(unsigned thread);
unsigned workers();

/* symbols.cpp: reports' names and lines, from the program's debug info.
 * pc is a return address. */
std::string source_line(const void *pc); /* "labs/reduce/reduce.cu:42", or "" */
std::string at_line(const void *pc);     /* " (labs/reduce/reduce.cu:42)", or "" */
std::string kernel_name(const calls &in, const void *pc, const char *fallback);

/* memory.cpp */
void prepare_shared(block_runner &r);
void start_block_memory(block_runner &r);
void next_phase(block_runner &r);
void note_atomic(void *p, size_t size, const void *pc);
void *device_alloc(size_t bytes);
bool device_free(void *p);

} // namespace emu

#endif
