/* emu.h: what the emulator's own files share (not for kernels). */
#ifndef EMU_EMU_H
#define EMU_EMU_H

#include "cuda_runtime.h"
#include "platform.h"

#include <string>
#include <unordered_map>
#include <vector>

/* In a function a kernel calls: where it was called from, for reports. A
 * return address, one past the call instruction. */
#define PC __builtin_return_address(0)

namespace emu {

const unsigned MAX_THREADS = 1024;
const unsigned WARPS = MAX_THREADS / 32;
/* Shared memory per block: the H100's opt-in maximum, for the dynamic part,
 * and room for the static __shared__ variables of every kernel, each with
 * words no variable owns around it (shared.cpp). */
const size_t SHARED_DYNAMIC = 227 * 1024;
const size_t SHARED_STATIC = 2048 * 1024;
const size_t SHARED = SHARED_STATIC + SHARED_DYNAMIC;
const size_t STACK_BYTES = 256 * 1024; /* each kernel thread's */
/* Below each stack, never mapped: addresses only, so large enough that a
 * big local array in a function the compiler did not instrument (no check
 * at its entry) lands in it rather than in the next fiber's stack. */
const size_t STACK_GUARD = 1024 * 1024;
const size_t STACK_SLOT = STACK_GUARD + STACK_BYTES;
/* Calls a fiber records, outermost first, to name its kernel in reports. */
const unsigned CALLERS = 8;

/* Where a thread stands: running or ready to, waiting for its block, waiting
 * for lanes of its warp, or returned. A thread that spins on a word of device
 * memory that does not change yields, READY, to let others on. */
enum state { READY, AT_BARRIER, AT_WARP, DONE };

/* How a kernel touches memory: a plain load or store, through a volatile
 * pointer, or with an atomic. Volatile and atomic accesses are how blocks
 * signal each other (flags, tickets), so they never race with each other. */
enum access_kind { PLAIN, VOLATILE, ATOMIC };

/* A thread reading one word of device memory again and again, unchanged. */
struct spin {
    const char *at;
    unsigned long long value;
    unsigned polls;
    const void *pc;
};

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

/* A kernel thread of the block a worker runs. It runs on one of the
 * worker's stacks (below) from its start to its return, or to its block's
 * end. What every switch touches comes first, on few cache lines. */
const unsigned NO_STACK = ~0u;
struct fiber {
    state now;
    unsigned stack; /* the stack its code runs on, once started; else NO_STACK */
    uint3 index;
    const void *barrier_pc; /* the __syncthreads() it waits at */
    place context;          /* where it stopped; switches need no system call */
    calls in;               /* to name the kernel (access.cpp records them) */
    warp_call call;
    spin polling;
    /* the history (history.cpp) of the word its last volatile read of
     * device memory read, until the thread's next access: what the load
     * returned is known only after it */
    void *signal_word;
    /* its block's stores, and its worker's clock, up to which it learnt of
     * its block's accesses through a flag another thread stored */
    unsigned learnt_stores;
    unsigned long long learnt_clock;
};

/* One of a worker's stacks, made once and used by block after block. A
 * thread that returns hands its stack straight to the next thread that
 * has not started, with no switch, so a kernel whose threads never wait
 * runs a whole block on one stack; a stack is free again when its thread
 * returns with none left to start. */
struct stack {
    bool mapped; /* usable (faults.cpp) */
    bool ready;  /* free, and `idle` is where its loop waits for a thread */
    place idle;
};

/* A warp's latest shuffle, vote or match: a race between two of its lanes
 * that only such calls came between names it, since it orders no memory. */
struct collective_site {
    const char *what; /* "__ballot_sync", ... */
    const void *pc;
};

/* The race the detector saw first in this block, or the first that spans
 * two warps: that one shows the fix (__syncthreads(), not __syncwarp()).
 * Until a race turns up, the block's first read of shared memory that no
 * thread of it wrote (unwritten): a race is the likelier cause of that. */
struct race {
    bool found, across_warps, unwritten;
    const unsigned char *at;
    unsigned thread, other;
    bool writes, other_wrote;
    const void *pc, *other_pc;
    calls in; /* the first thread's, when it raced */
    unsigned long long accesses_since; /* a block spinning on a raced word ends */
    size_t written, elements; /* unwritten: of the array's elements, how many the block had set */
    bool update; /* both threads read the word, then wrote it: s[k]++ from two threads */
    collective_site between; /* in one warp, what alone came between (what null if nothing) */
};

/* The race detector's record of one 4-byte word of shared memory: who last
 * wrote it and who read it, in which interval between barriers (the phase)
 * and at which of its warp's collectives (the warp step). */
struct word_record {
    unsigned long long write_phase, read_phase;
    unsigned write_step, read_step, other_step;
    unsigned short writer, reader, other_reader; /* thread index in the block */
    bool atomic;
    unsigned char written; /* the bytes the block of write_phase wrote, a bit each */
    /* the bytes the writer wrote, the reader and the other reader read:
     * threads that touch their own bytes of one word do not race */
    unsigned char write_bytes, read_bytes, other_read_bytes;
    const void *write_pc, *read_pc, *other_read_pc;
};

/* What a block learnt from another through a flag or an atomic, the last
 * the other stored: how many __threadfence() calls and stores to device
 * memory the other block had made by then, and where it stored it. */
struct acquisition {
    unsigned fences, stores;
    const void *pc;
};

struct word_history; /* history.cpp's record of a word of device memory */
struct allocation;   /* device.cpp's of a cudaMalloc */

/* One per worker: the block it is running, its fibers and its memory. Each
 * group of fields names its owner, the file that keeps it. */
struct block_runner {
    /* -- the block and its fibers: emu.cpp's scheduler (faults.cpp records a
     *    crash; history.cpp keeps what each fiber learnt from other blocks) -- */
    char *stacks;      /* one slot per fiber: a guard zone, then the stack */
    char *stack_floor; /* the running fiber's lowest usable address */
    bool in_fiber;     /* a kernel thread runs, so a crash is its */
    fault crashed;     /* its crash, caught by faults.cpp (kind NO_FAULT if none) */
    fiber fibers[MAX_THREADS];
    stack stacks_of[MAX_THREADS];
    unsigned free_stacks[MAX_THREADS], free_count; /* the last freed is used first */
    place scheduler;
    void (*run)(const void *body);
    const void *body;
    const char *kernel; /* the launch's text, when the name cannot be found */
    emu_launch_config config;
    uint3 block;
    unsigned long long block_id; /* its place in the grid, x fastest */
    unsigned threads, current;
    int barrier_sum, barrier_result; /* __syncthreads_count and friends */

    /* -- shared memory and its race detector: shared.cpp -- */
    unsigned char *shared; /* SHARED_STATIC of static variables, then the dynamic part */
    std::vector<emu_shared_site *> touched; /* static variables poisoned in this block */
    word_record *records;                   /* one per word of shared */
    unsigned long long phase;               /* unique per block and barrier interval */
    unsigned long long first_phase;         /* its first: a word written before, another block's */
    /* per warp: its collectives completed in the phase (the warp step),
     * the step its latest __syncwarp() completed, and its latest shuffle,
     * vote or match. Only __syncwarp() orders memory: the others imply no
     * memory barrier (the CUDA Programming Guide) */
    unsigned warp_step[WARPS], warp_synced[WARPS];
    collective_site last_collective[WARPS];
    race raced;
    /* -- the device arrays last seen, a cache: device.cpp (history.cpp adds
     *    their writes to the count) -- */
    const char *seen_lo, *seen_hi; /* device memory a kernel may touch, last seen */
    /* the array last seen: its allocation, the history of its words, and
     * the writes to it not yet added to its count */
    allocation *seen;
    word_history *seen_history;
    unsigned long long seen_writes;
    /* the arrays seen before it in this block, the latest first, with their
     * writes not yet counted: a kernel that goes back and forth between a
     * few arrays finds them here, not by a search of every allocation */
    enum { RECENT = 4 };
    struct {
        allocation *array;
        unsigned long long writes;
    } recent[RECENT];
    /* -- how this block orders its accesses to device memory with other
     *    blocks and among its threads: history.cpp -- */
    unsigned fences;      /* __threadfence() calls by its threads */
    unsigned stores;      /* stores to device memory by its threads */
    unsigned releases;    /* of them, volatile and atomic ones: flags, tickets */
    bool synchronised;    /* it has read a flag or made an atomic that another block wrote */
    std::unordered_map<unsigned long long, acquisition> acquired; /* by block */
    const char *last_release; /* where its latest volatile or atomic store went */
    /* its latest __threadfence_block(): the stores made before it, and where */
    unsigned block_fenced;
    const void *block_fence_pc;
    /* and among its threads: when its barrier interval (phase) began, as
     * the number of its next store and its worker's clock (which counts
     * accesses to device memory), when each warp's latest __syncwarp()
     * completed, and its latest collective of any kind (for reports);
     * history.cpp notes them at the first access after each */
    unsigned worker; /* 1 to 1023, or 0 when there are more workers */
    unsigned long long clock;
    unsigned long long access_phase;
    unsigned phase_first_store;
    unsigned long long phase_first_clock;
    unsigned warp_synced_seen[WARPS], warp_first_store[WARPS];
    unsigned long long warp_first_clock[WARPS];
    unsigned warp_step_seen[WARPS], collective_first_store[WARPS];
    unsigned long long collective_first_clock[WARPS];
    /* -- the stall timer: emu.cpp -- */
    double stalled_since; /* when all its runnable threads began to spin, or 0 */
};
extern thread_local block_runner *runner; /* null outside kernels */

/* Stop the running launch with a message for the student; from a fiber,
 * abandon_thread() then never returns. A race seen in the block is
 * reported instead: what followed may be its effect. */
void fail_launch(const std::string &why);
void wait(state why);             /* from a fiber: back to the scheduler */
void note_progress(block_runner &r); /* a spinning thread saw its word change */
[[noreturn]] void abandon_thread();
/* "kernel reduce_stage1_kernel<int>, block (3, 0, 0), thread 17", the
 * kernel named from the thread's calls and a code address in it */
std::string where(unsigned thread, const void *pc);
std::string block_where(const block_runner &r, unsigned thread, const void *pc);
std::string block_where(const block_runner &r, const calls &in, const void *pc);
std::string thread_name(unsigned thread);
/* what a thread that divides an integer by zero is told (faults.cpp): WHO,
 * as where() says it, and AT, as at_line() */
std::string divides_by_zero(const std::string &who, const std::string &at);
std::string block_name(const dim3 &grid, unsigned long long id); /* "block (3, 0, 0)" */
unsigned workers();
extern unsigned long long launches; /* kernels launched so far (counts.cpp reads it) */

/* symbols.cpp: reports' names and lines, from the program's debug info.
 * pc is a return address. */
std::string source_line(const void *pc); /* "labs/reduce/reduce.cu:42", or "" */
std::string at_line(const void *pc);     /* " (labs/reduce/reduce.cu:42)", or "" */
/* whether two instructions come from one source line (an unrolled loop's
 * copies of a store do) */
bool same_line(const void *a, const void *b);
std::string kernel_name(const calls &in, const void *pc, const char *fallback);

/* The memory checks: access.cpp, the funnel every load and store goes
 * through; device.cpp, device memory and its bounds; history.cpp, device
 * memory between blocks; shared.cpp, shared memory and its race detector.
 * memory.h holds what they share among themselves; the rest call these. */
void start_block_memory(block_runner &r); /* access.cpp */
void note_atomic(void *p, size_t size, const void *pc);

/* device.cpp */
void *device_alloc(size_t bytes);
bool device_free(void *p);
extern char *arena; /* the range of addresses device memory comes from */
extern size_t arena_bytes;
inline bool is_device(const void *p) { return (size_t)((const char *)p - arena) < arena_bytes; }
/* "reads in[1025] (reduce.cu:95), past the end of 'in' (1025 elements): ..." */
std::string device_access(const char *p, size_t size, const char *verb, const void *pc);
std::string device_name(const char *p); /* "status[8]" */
void end_block_memory(block_runner &r); /* the block's stores join its arrays' counts */

/* history.cpp */
/* A launch of `blocks` blocks starts: the history of device memory is kept
 * per launch. */
void start_launch(unsigned long long blocks);
void note_fence(block_runner &r);
void note_block_fence(block_runner &r, const void *pc); /* __threadfence_block() */
/* Held by runtime.cpp over an atomic's change to device memory: the word's
 * history changes with the value, in one step that no other block's atomic
 * on the word comes between (the checks ran before, in note_atomic). */
class atomic_order {
    void *lock;

  public:
    atomic_order(const void *p, size_t size, const void *pc);
    ~atomic_order();
    atomic_order(const atomic_order &) = delete;
    atomic_order &operator=(const atomic_order &) = delete;
};
/* ", last written by block (6, 0, 0) (scan.cu:40)", or that no block has
 * written it in this launch, or "" when its history is not kept */
std::string last_writer(const block_runner &r, const char *p);

/* shared.cpp */
void prepare_shared(block_runner &r); /* a worker's, once */
void next_phase(block_runner &r);     /* past a barrier: no access before it races with one after */
std::string race_report(const block_runner &r);

/* observers.cpp: what watches kernels beside the memory checks (counts.cpp,
 * and checks to come) registers an observer, between launches. Any of its
 * calls may be null. They run on the worker that runs the block (on_access
 * in the fiber of the thread that made it, the others between fibers), so
 * what one keeps of a block can be thread_local. */
struct access_event {
    unsigned long long at; /* a device address, or an offset in shared memory */
    size_t size;
    bool write, shared; /* a store; to shared memory, else to device memory */
    access_kind kind;
    const void *pc;
};
struct observer {
    /* a load or store that passed the checks, by thread r.current */
    void (*on_access)(const block_runner &r, const access_event &a);
    /* `lanes` (a bit each) of warp `warp` leave a collective: r.fibers[].call */
    void (*on_collective)(const block_runner &r, unsigned warp, unsigned lanes);
    void (*on_barrier)(const block_runner &r);   /* the block's threads leave a barrier */
    void (*on_block_end)(const block_runner &r); /* its threads returned, or the launch failed */
};
void observe(const observer &o); /* a second time changes nothing */
void unobserve(const observer &o);
extern unsigned observers; /* how many: while none, the funnel pays one test of it */
void tell_access(const block_runner &r, const access_event &a); /* only when observers */
void tell_collective(const block_runner &r, unsigned warp, unsigned lanes);
void tell_barrier(const block_runner &r);
void tell_block_end(const block_runner &r);

/* faults.cpp */
bool reserve_stacks(block_runner &r);
bool map_stack(block_runner &r, unsigned stack); /* before the stack's first use */
void watch_faults();
/* pc: where the function that ran out began; caller: the call to it, whose
 * line a report names where pc has none (clang 16's prologues) */
[[noreturn]] void stack_overflow(const void *pc, const void *caller);
std::string crash_report(const block_runner &r, unsigned thread);

} // namespace emu

#endif
