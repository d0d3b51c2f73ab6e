/* emu.cpp: how a launch runs on the CPU, small enough to read.
 *
 * A launch hands blocks out, in order, to one worker per CPU core. A worker
 * runs a block by giving each of its threads a fiber (a stack and a saved
 * context) and resuming them in turn. A fiber runs until it returns or must
 * wait: at __syncthreads() for every thread of the block, at a warp
 * collective for the lanes its mask names. When no fiber can go on, the
 * scheduler settles: it completes the warp collectives whose lanes have all
 * arrived, else releases the barrier if every thread is at it. If neither is
 * possible, the kernel would hang on a GPU; here it stops, with the threads
 * named. */
#undef _FORTIFY_SOURCE /* its longjmp check refuses jumps between stacks */
#include "emu.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

thread_local uint3 threadIdx, blockIdx;
thread_local dim3 blockDim, gridDim;

namespace emu {

thread_local block_runner *runner;

const size_t STACK_BYTES = 256 * 1024;

std::string failure; /* what went wrong in the last failed launch, in words */
std::mutex failure_lock;
std::atomic<bool> aborted;

void fail_launch(const std::string &why)
{
    std::lock_guard<std::mutex> hold(failure_lock);
    if (!aborted.exchange(true))
        failure = why;
}

/* ---- switches between fibers: SAVE() returns 0, then 1 when JUMP() comes
 * back to the place it saved. glibc's _setjmp and _longjmp do the same and
 * more: its _longjmp walks the thread's cleanup handlers at every jump,
 * which costs a third of a small kernel's time. */
#if defined(__x86_64__)
extern "C" int emu_save(place p) __attribute__((returns_twice));
extern "C" [[noreturn]] void emu_jump(place p);
asm(R"(
    .text
    .globl emu_save
    .hidden emu_save
    .type emu_save, @function
emu_save:
    movq %rbx, 0(%rdi)
    movq %rbp, 8(%rdi)
    movq %r12, 16(%rdi)
    movq %r13, 24(%rdi)
    movq %r14, 32(%rdi)
    movq %r15, 40(%rdi)
    leaq 8(%rsp), %rdx
    movq %rdx, 48(%rdi)
    movq (%rsp), %rdx
    movq %rdx, 56(%rdi)
    xorl %eax, %eax
    ret
    .size emu_save, .-emu_save
    .globl emu_jump
    .hidden emu_jump
    .type emu_jump, @function
emu_jump:
    movq 0(%rdi), %rbx
    movq 8(%rdi), %rbp
    movq 16(%rdi), %r12
    movq 24(%rdi), %r13
    movq 32(%rdi), %r14
    movq 40(%rdi), %r15
    movq 48(%rdi), %rsp
    movl $1, %eax
    jmpq *56(%rdi)
    .size emu_jump, .-emu_jump
)");
#define SAVE(p) emu_save(p)
#define JUMP(p) emu_jump(p)
#else
#define SAVE(p) _setjmp(p)
#define JUMP(p) _longjmp(p, 1)
#endif

/* Switch from the current fiber to the scheduler; back here when resumed. */
void wait(state why)
{
    fiber &f = runner->fibers[runner->current];
    f.now = why;
    if (!SAVE(f.context))
        JUMP(runner->scheduler);
}

/* Leave the thread's code mid-way; the fiber starts afresh next block. */
void abandon_thread()
{
    fiber &f = runner->fibers[runner->current];
    f.now = DONE;
    f.started = false;
    JUMP(runner->scheduler);
}

static std::string triple(uint3 v)
{
    return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ")";
}

std::string thread_name(unsigned t)
{
    const block_runner &r = *runner;
    if (r.config.block.y == 1 && r.config.block.z == 1)
        return "thread " + std::to_string(t);
    return "thread " + triple(r.fibers[t].index);
}

std::string where(unsigned t)
{
    return std::string("kernel ") + runner->kernel + ", block " + triple(runner->block) + ", " +
           thread_name(t);
}

static std::string block_where(const block_runner &r)
{
    return std::string("kernel ") + r.kernel + ", block " + triple(r.block);
}

/* "3, 4, 5 and 12 more" for the threads (or lanes) where pick(t) holds */
template <typename Pick> static std::string list(unsigned from, unsigned to, Pick pick)
{
    std::string text;
    unsigned count = 0;
    for (unsigned t = from; t < to; t++)
        if (pick(t) && count++ < 8)
            text += (count > 1 ? ", " : "") + std::to_string(t - from);
    if (count > 8)
        text += " and " + std::to_string(count - 8) + " more";
    return text;
}

static void fiber_main()
{
    for (;;) {
        (*runner->body)(); /* runner, body and indices are the current block's */
        wait(DONE);
    }
}

static void resume(block_runner &r, unsigned t)
{
    fiber &f = r.fibers[t];
    r.current = t;
    threadIdx = f.index;
    if (SAVE(r.scheduler))
        return; /* the fiber waits, or is done */
    if (f.started)
        JUMP(f.context);
    f.started = true;
    getcontext(&f.start);
    f.start.uc_stack.ss_sp = r.stacks + (size_t)t * STACK_BYTES;
    f.start.uc_stack.ss_size = STACK_BYTES;
    f.start.uc_link = nullptr;
    makecontext(&f.start, fiber_main, 0);
    setcontext(&f.start);
}

/* ---- warps ------------------------------------------------------------- */

enum warp_op { W_SYNC, W_SHUFFLE, W_BALLOT, W_ALL, W_ANY, W_MATCH };

static unsigned long long warp_collective(const char *what, warp_op op, unsigned mask,
                                          unsigned long long value, int kind = 0, int lane = 0,
                                          int width = 32)
{
    block_runner &r = *runner;
    fiber &f = r.fibers[r.current];
    f.call = {what, mask, op, kind, lane, width, value, 0};
    wait(AT_WARP);
    return f.call.result;
}

/* The lane a shuffle reads, by CUDA's rules: within sections of `width`
 * lanes; up, down and xor that leave the section read the caller's own value. */
static int shuffle_source(const warp_call &c, int self)
{
    int width = c.width, start = self / width * width;
    switch (c.kind) {
    case EMU_SHFL_IDX: return start + ((c.lane % width) + width) % width;
    case EMU_SHFL_UP: return self - c.lane >= start ? self - c.lane : self;
    case EMU_SHFL_DOWN: return self + c.lane < start + width ? self + c.lane : self;
    default: return (self ^ c.lane) < start + width ? self ^ c.lane : self;
    }
}

/* Complete the collective the waiting lanes of warp w are in, if every lane
 * their mask names has arrived (or returned, which CUDA allows). Returns
 * false if it cannot complete now; fails the launch if it never can. */
static bool settle_warp(block_runner &r, unsigned w, bool stuck)
{
    unsigned base = w * 32, lanes = std::min(32u, r.threads - base);
    fiber *f = r.fibers + base;
    int first = -1;
    for (unsigned l = 0; l < lanes; l++)
        if (f[l].now == AT_WARP) {
            first = (int)l;
            break;
        }
    if (first < 0)
        return false;
    const warp_call &c = f[first].call;
    std::string here = block_where(r) + ", warp " + std::to_string(w) + ": ";
    unsigned present = 0; /* the mask's lanes that are here */
    for (unsigned l = 0; l < lanes; l++) {
        if (f[l].now != AT_WARP)
            continue;
        if (!(f[l].call.mask >> l & 1)) {
            fail_launch(here + "lane " + std::to_string(l) + " calls " + f[l].call.what +
                        " with a mask that leaves out its own bit; every caller must be in the mask");
            return false;
        }
        if (c.mask >> l & 1) {
            if (f[l].call.mask != c.mask || f[l].call.op != c.op) {
                char masks[64];
                snprintf(masks, sizeof masks, "%#010x and %#010x", c.mask, f[l].call.mask);
                fail_launch(here + "lanes " + std::to_string(first) + " and " + std::to_string(l) +
                            " meet in " + c.what + " and " + f[l].call.what + " with masks " +
                            masks +
                            "; the lanes of a mask must all make the same call with the same mask");
                return false;
            }
            present |= 1u << l;
        }
    }
    unsigned missing = 0; /* named, alive, but elsewhere */
    for (unsigned l = 0; l < lanes; l++)
        if ((c.mask >> l & 1) && f[l].now != AT_WARP && f[l].now != DONE)
            missing |= 1u << l;
    if (missing) {
        if (stuck) {
            bool at_barrier = false;
            for (unsigned l = 0; l < lanes; l++)
                at_barrier |= (missing >> l & 1) && f[l].now == AT_BARRIER;
            fail_launch(here + "lanes " + list(0, lanes, [&](unsigned l) { return present >> l & 1; }) +
                        " wait in " + c.what + ", but lanes " +
                        list(0, lanes, [&](unsigned l) { return missing >> l & 1; }) +
                        ", which the mask names, " +
                        (at_barrier ? "wait at __syncthreads() instead"
                                    : "wait in another warp operation") +
                        ". On a GPU this hangs or gives undefined results: every lane named in "
                        "the mask must reach the same call");
        }
        return false;
    }
    /* Everyone is here: compute each lane's result. */
    unsigned votes = 0;
    for (unsigned l = 0; l < lanes; l++)
        if ((present >> l & 1) && f[l].call.value)
            votes |= 1u << l;
    for (unsigned l = 0; l < lanes; l++) {
        if (!(present >> l & 1))
            continue;
        warp_call &mine = f[l].call;
        switch (mine.op) {
        case W_SHUFFLE: {
            int src = shuffle_source(mine, (int)l);
            if (src >= (int)lanes || !(present >> src & 1)) {
                fail_launch(here + "lane " + std::to_string(l) + " reads lane " + std::to_string(src) +
                            " through " + mine.what + ", but lane " + std::to_string(src) +
                            (src >= (int)lanes ? " does not exist (the block ends before it)"
                             : f[src].now == DONE ? " has returned"
                                                  : " is not in the mask") +
                            ". On a GPU the value read is undefined");
                return false;
            }
            mine.result = f[src].call.value;
            break;
        }
        case W_BALLOT: mine.result = votes; break;
        case W_ALL: mine.result = votes == present; break;
        case W_ANY: mine.result = votes != 0; break;
        case W_MATCH:
            mine.result = 0;
            for (unsigned k = 0; k < lanes; k++)
                if ((present >> k & 1) && f[k].call.value == mine.value)
                    mine.result |= 1u << k;
            break;
        }
    }
    for (unsigned l = 0; l < lanes; l++)
        if (present >> l & 1)
            f[l].now = READY;
    r.warp_step[w]++;
    return true;
}

/* ---- blocks ------------------------------------------------------------ */

static void run_block_fibers(block_runner &r, uint3 b);

/* A block's fibers that did not get to the end (the launch failed) are
 * midway through the kernel: they start afresh next time. */
static void run_block(block_runner &r, uint3 b)
{
    run_block_fibers(r, b);
    for (unsigned t = 0; t < r.threads; t++)
        if (r.fibers[t].now != DONE)
            r.fibers[t].started = false;
}

static void run_block_fibers(block_runner &r, uint3 b)
{
    const emu_launch_config &c = r.config;
    unsigned n = r.threads;
    r.block = blockIdx = b;
    blockDim = c.block;
    gridDim = c.grid;
    for (unsigned t = 0; t < n; t++) {
        fiber &f = r.fibers[t];
        f.index = {t % c.block.x, t / c.block.x % c.block.y, t / (c.block.x * c.block.y)};
        f.now = READY;
    }
    r.barrier_sum = 0;
    start_block_memory(r);
    for (;;) {
        for (unsigned t = 0; t < n && !aborted; t++) {
            if (r.fibers[t].now == READY)
                resume(r, t);
        }
        if (aborted)
            return;
        bool moved = false;
        for (unsigned w = 0; w * 32 < n; w++)
            moved |= settle_warp(r, w, false);
        if (moved)
            continue;
        unsigned at_warp = 0, at_barrier = 0, done = 0;
        for (unsigned t = 0; t < n; t++) {
            state s = r.fibers[t].now;
            (s == AT_WARP ? at_warp : s == AT_BARRIER ? at_barrier : done)++;
        }
        if (at_warp) {
            for (unsigned w = 0; w * 32 < n && !aborted; w++)
                settle_warp(r, w, true);
            return;
        }
        if (at_barrier == 0)
            return;
        if (done) {
            fail_launch(block_where(r) + ": threads " +
                        list(0, n, [&](unsigned t) { return r.fibers[t].now == AT_BARRIER; }) +
                        " wait at __syncthreads() but threads " +
                        list(0, n, [&](unsigned t) { return r.fibers[t].now == DONE; }) +
                        " returned without reaching it: a barrier inside code that not every "
                        "thread of the block runs (on a GPU: a hang, or wrong results)");
            return;
        }
        for (unsigned t = 0; t < n; t++)
            r.fibers[t].now = READY;
        r.barrier_result = r.barrier_sum;
        r.barrier_sum = 0;
        next_phase(r);
    }
}

/* ---- workers: one per core, for the life of the program --------------- */

struct launch_job {
    emu_launch_config config;
    const char *kernel;
    const std::function<void()> *body;
    unsigned long long blocks;
    std::atomic<unsigned long long> next;
};

static void run_blocks(launch_job &job)
{
    static thread_local block_runner *mine;
    if (!mine) {
        mine = new block_runner();
        /* reserved, not committed: pages appear as stacks grow */
        void *p = mmap(nullptr, STACK_BYTES * MAX_THREADS, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p == MAP_FAILED) {
            fail_launch("emulation: cannot reserve memory for fiber stacks");
            return;
        }
        mine->stacks = (char *)p;
        prepare_shared(*mine);
    }
    block_runner &r = *mine;
    r.config = job.config;
    r.kernel = job.kernel;
    r.body = job.body;
    r.threads = job.config.block.x * job.config.block.y * job.config.block.z;
    runner = &r;
    const dim3 &g = job.config.grid;
    /* blocks in increasing order, so a block may wait on an earlier one */
    for (unsigned long long k; !aborted && (k = job.next++) < job.blocks;)
        run_block(r, {(unsigned)(k % g.x), (unsigned)(k / g.x % g.y),
                      (unsigned)(k / ((unsigned long long)g.x * g.y))});
    runner = nullptr;
}

unsigned workers() { return std::max(1u, std::thread::hardware_concurrency()); }

class pool {
    std::mutex lock;
    std::condition_variable wake, finished;
    launch_job *job = nullptr;
    unsigned long long generation = 0;
    unsigned busy = 0;
    pid_t owner = 0; /* threads do not survive fork(): a forked test starts its own */

    void serve()
    {
        unsigned long long seen = 0;
        for (;;) {
            std::unique_lock<std::mutex> hold(lock);
            wake.wait(hold, [&] { return generation != seen; });
            seen = generation;
            launch_job *j = job;
            hold.unlock();
            run_blocks(*j);
            hold.lock();
            if (--busy == 0)
                finished.notify_one();
        }
    }

  public:
    /* The calling thread works too, then waits for the others. */
    void run(launch_job &j)
    {
        if (owner != getpid()) {
            owner = getpid();
            new (&lock) std::mutex();
            new (&wake) std::condition_variable();
            new (&finished) std::condition_variable();
            for (unsigned w = 1; w < workers(); w++)
                std::thread([this] { serve(); }).detach();
        }
        {
            std::lock_guard<std::mutex> hold(lock);
            job = &j;
            busy = workers() - 1;
            generation++;
        }
        wake.notify_all();
        run_blocks(j);
        std::unique_lock<std::mutex> hold(lock);
        finished.wait(hold, [&] { return busy == 0; });
    }
};

} // namespace emu

using namespace emu;

extern cudaError_t emu_last_error;

void emu_launch(emu_launch_config c, const char *kernel, const std::function<void()> &body)
{
    unsigned long long threads = (unsigned long long)c.block.x * c.block.y * c.block.z;
    unsigned long long blocks = (unsigned long long)c.grid.x * c.grid.y * c.grid.z;
    if (!blocks || !threads || threads > MAX_THREADS || c.block.z > 64 || c.grid.y > 65535 ||
        c.grid.z > 65535) {
        emu_last_error = cudaErrorInvalidConfiguration;
        return;
    }
    if (c.shared_bytes > SHARED_DYNAMIC) {
        emu_last_error = cudaErrorInvalidValue;
        return;
    }
    static pool &workers_pool = *new pool(); /* never destroyed: its threads wait on it */
    launch_job job{c, kernel, &body, blocks, {0}};
    aborted = false;
    workers_pool.run(job);
    if (aborted)
        emu_last_error = cudaErrorLaunchFailure;
}

const char *emu_failure() { return failure.c_str(); }

/* ---- block-wide ------------------------------------------------------------ */

void __syncthreads() { __syncthreads_count(0); }

int __syncthreads_count(int predicate)
{
    block_runner &r = *runner;
    r.barrier_sum += predicate != 0;
    wait(AT_BARRIER);
    return r.barrier_result;
}
int __syncthreads_and(int predicate) { return __syncthreads_count(predicate) == (int)runner->threads; }
int __syncthreads_or(int predicate) { return __syncthreads_count(predicate) != 0; }

/* The CPU's own order is stronger than the GPU's; a full fence is the most a
 * kernel can ask for. */
void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }

/* ---- warp-wide ------------------------------------------------------------- */

void __syncwarp(unsigned mask) { warp_collective("__syncwarp", W_SYNC, mask, 0); }
unsigned __ballot_sync(unsigned mask, int p)
{
    return (unsigned)warp_collective("__ballot_sync", W_BALLOT, mask, p != 0);
}
int __all_sync(unsigned mask, int p) { return (int)warp_collective("__all_sync", W_ALL, mask, p != 0); }
int __any_sync(unsigned mask, int p) { return (int)warp_collective("__any_sync", W_ANY, mask, p != 0); }
unsigned __match_any_sync(unsigned mask, unsigned long long value)
{
    return (unsigned)warp_collective("__match_any_sync", W_MATCH, mask, value);
}

/* The lanes of this warp that have not returned. */
unsigned __activemask()
{
    block_runner &r = *runner;
    unsigned base = r.current / 32 * 32, alive = 0;
    for (unsigned l = 0; l < 32 && base + l < r.threads; l++)
        if (r.fibers[base + l].now != DONE)
            alive |= 1u << l;
    return alive;
}

unsigned long long emu_shuffle(emu_shuffle_kind kind, unsigned mask, unsigned long long bits, int lane,
                               int width)
{
    static const char *names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                  "__shfl_xor_sync"};
    if (width < 1 || width > 32 || (width & (width - 1))) {
        fail_launch(where(runner->current) + ": " + names[kind] + " with width " +
                    std::to_string(width) + "; the width must be a power of 2 from 1 to 32");
        abandon_thread();
    }
    return warp_collective(names[kind], W_SHUFFLE, mask, bits, kind, lane, width);
}
