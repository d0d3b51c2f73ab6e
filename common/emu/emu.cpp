/* emu.cpp: how a launch runs on the CPU, small enough to read.
 *
 * A launch hands blocks out to one worker per CPU core, in an order the seed
 * scrambles: CUDA promises no order, and code that waits for the block
 * before it (by blockIdx) must fail here as it may on a GPU. A worker
 * runs a block by giving each of its threads a fiber (a stack and a saved
 * context) and resuming them in turn. A fiber runs until it returns or must
 * wait: at __syncthreads() for every thread of the block, at a warp
 * collective for the lanes its mask names. When no fiber can go on, the
 * scheduler settles: it completes the warp collectives whose lanes have all
 * arrived, else releases the barrier if every thread is at it. If neither is
 * possible, the kernel would hang on a GPU; here it stops, with the threads
 * and the lines they wait at named. A thread that spins on a word of device
 * memory (history.cpp sees it read the word again and again, unchanged) lets
 * the others go on; when every worker's block only spins, and nothing has
 * changed for a second, the blocks wait for ever, as they would on a GPU
 * whose every place is held by a waiting block: the launch stops, naming
 * them and the blocks that have not started. */
#undef _FORTIFY_SOURCE /* its longjmp check refuses jumps between stacks */
#include "emu.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

thread_local uint3 threadIdx, blockIdx;
thread_local dim3 blockDim, gridDim;

namespace emu {

thread_local block_runner *runner;

std::string failure; /* what went wrong in the last failed launch, in words */
std::mutex failure_lock;
std::atomic<bool> aborted;

void fail_launch(const std::string &why)
{
    block_runner *r = runner;
    std::string text = r && r->raced.found ? race_report(*r) : why;
    std::lock_guard<std::mutex> hold(failure_lock);
    if (!aborted.exchange(true))
        failure = text;
}

static char *stack_bottom(const block_runner &r, unsigned s)
{
    return r.stacks + s * STACK_SLOT + STACK_GUARD;
}

/* Thread t runs next, on stack s. */
static void enter_thread(block_runner &r, unsigned t, unsigned s)
{
    r.current = t;
    threadIdx = r.fibers[t].index;
    r.stack_floor = stack_bottom(r, s) + STACK_BYTES / 16; /* room for calls the check does not see */
}

/* The current thread waits or is done: on to the next thread of the
 * scheduler's round (the next that may run, by index) straight from here,
 * if it has a stack to run on, rather than through the scheduler; back to
 * the scheduler at the round's end, or for a thread that needs a stack
 * made. */
[[noreturn]] static void switch_on(block_runner &r)
{
    unsigned t = r.current + 1;
    while (t < r.threads && r.fibers[t].now != READY)
        t++;
    if (t < r.threads && !aborted) {
        fiber &f = r.fibers[t];
        if (f.stack != NO_STACK) {
            enter_thread(r, t, f.stack);
            JUMP(f.context);
        }
        if (r.free_count && r.stacks_of[r.free_stacks[r.free_count - 1]].ready) {
            f.stack = r.free_stacks[--r.free_count];
            r.stacks_of[f.stack].ready = false;
            enter_thread(r, t, f.stack);
            JUMP(r.stacks_of[f.stack].idle);
        }
    }
    JUMP(r.scheduler);
}

/* Switch from the current thread to the next; back here when resumed. */
void wait(state why)
{
    block_runner &r = *runner;
    fiber &f = r.fibers[r.current];
    f.now = why;
    if (!SAVE(f.context))
        switch_on(r);
}

/* Leave the thread's code mid-way; its stack starts afresh when next used
 * (it is not `ready`: resume took it so). */
void abandon_thread()
{
    runner->fibers[runner->current].now = DONE;
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

std::string block_where(const block_runner &r, const calls &in, const void *pc)
{
    return "kernel " + kernel_name(in, pc, r.kernel) + ", block " + triple(r.block);
}

std::string block_where(const block_runner &r, unsigned t, const void *pc)
{
    return block_where(r, r.fibers[t].in, pc);
}

std::string where(unsigned t, const void *pc)
{
    return block_where(*runner, t, pc) + ", " + thread_name(t);
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

/* A stack's life: run the thread resume() gave it, then, while the next
 * thread has not started, that one too, with no switch; then wait, free,
 * for resume() to give it another. */
static void stack_main()
{
    for (;;) {
        block_runner &r = *runner; /* runner, body and indices are the current block's */
        unsigned s = r.fibers[r.current].stack;
        for (;;) {
            unsigned t = r.current, next = t + 1;
            r.fibers[t].in.depth = 0;
            r.run(r.body);
            r.fibers[t].now = DONE;
            if (next >= r.threads || r.fibers[next].now != READY ||
                r.fibers[next].stack != NO_STACK || aborted)
                break;
            r.fibers[next].stack = s;
            r.current = next;
            threadIdx = r.fibers[next].index;
        }
        stack &k = r.stacks_of[s];
        k.ready = true;
        r.free_stacks[r.free_count++] = s;
        if (!SAVE(k.idle))
            switch_on(r);
    }
}

/* Stacks lie STACK_SLOT apart, a multiple of every cache's way size, so
 * their tops would all fall in the same few cache sets, and the threads of
 * a block would evict each other's at every switch: each starts this many
 * bytes lower, an odd number of cache lines times its index, within 64 KB. */
static size_t stack_colour(unsigned s) { return s * 9 * 64 % (64 * 1024); }

/* Run thread t until it waits, returns or crashes (and the threads after it
 * in the round, switch_on), on its own stack if it has started, else on the
 * free stack freed last (the warmest in cache). */
static void resume(block_runner &r, unsigned t)
{
    fiber &f = r.fibers[t];
    bool started = f.stack != NO_STACK;
    if (!started)
        f.stack = r.free_stacks[--r.free_count]; /* a block has a stack a thread */
    char *bottom = stack_bottom(r, f.stack);
    enter_thread(r, t, f.stack);
    if (SAVE(r.scheduler)) {
        r.in_fiber = false;
        if (r.crashed.kind != NO_FAULT) { /* r.current's: t may have handed its stack on */
            fail_launch(crash_report(r, r.current));
            r.crashed = fault();
        }
        return; /* the thread waits, or is done */
    }
    r.in_fiber = true;
    if (started)
        JUMP(f.context);
    stack &k = r.stacks_of[f.stack];
    if (k.ready) {
        k.ready = false;
        JUMP(k.idle);
    }
    if (!map_stack(r, f.stack)) {
        r.in_fiber = false;
        fail_launch("emulation: cannot map a stack for a kernel thread");
        return;
    }
    run_on_stack(bottom, STACK_BYTES - stack_colour(f.stack), stack_main);
}

/* ---- warps ------------------------------------------------------------- */

enum warp_op { W_SYNC, W_SHUFFLE, W_BALLOT, W_ALL, W_ANY, W_MATCH };

static unsigned long long warp_collective(const char *what, const void *pc, warp_op op,
                                          unsigned mask, unsigned long long value, int kind = 0,
                                          int lane = 0, int width = 32)
{
    block_runner &r = *runner;
    fiber &f = r.fibers[r.current];
    f.call = {what, pc, mask, op, kind, lane, width, value, 0};
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

/* "kernel k, block (0, 0, 0), warp 1: " */
static std::string warp_where(const block_runner &r, unsigned w, unsigned lane)
{
    unsigned t = w * 32 + lane;
    return block_where(r, t, r.fibers[t].call.pc) + ", warp " + std::to_string(w) + ": ";
}

/* The first lane of warp w that waits in a collective; `lanes` if none. */
static unsigned first_waiting(const block_runner &r, unsigned w, unsigned lanes)
{
    const fiber *f = r.fibers + w * 32;
    unsigned first = 0;
    while (first < lanes && f[first].now != AT_WARP)
        first++;
    return first;
}

/* ---- the mask check */

static void report_own_bit(block_runner &r, unsigned w, unsigned l)
{
    const warp_call &mine = r.fibers[w * 32 + l].call;
    fail_launch(warp_where(r, w, l) + "lane " + std::to_string(l) + " calls " + mine.what +
                at_line(mine.pc) +
                " with a mask that leaves out its own bit; every caller must be in the mask");
}

/* Lane l, named in first's mask, makes another call or gives another mask. */
static void report_disagreement(block_runner &r, unsigned w, unsigned first, unsigned l)
{
    const warp_call &c = r.fibers[w * 32 + first].call, &mine = r.fibers[w * 32 + l].call;
    char masks[64];
    snprintf(masks, sizeof masks, "%#010x and %#010x", c.mask, mine.mask);
    fail_launch(warp_where(r, w, first) + "lanes " + std::to_string(first) + " and " +
                std::to_string(l) + " meet in " + c.what + at_line(c.pc) + " and " + mine.what +
                at_line(mine.pc) + " with masks " + masks +
                "; the lanes of a mask must all make the same call with the same mask");
}

/* Every waiting lane must be in its own mask, and the lanes of the first
 * one's mask that are here must make its call with its mask. Returns those
 * lanes (first among them), or 0: when a lane of the mask waits in another
 * call (reported if `report`), or once it has failed the launch. */
static unsigned check_masks(block_runner &r, unsigned w, unsigned lanes, unsigned first, bool report)
{
    const fiber *f = r.fibers + w * 32;
    const warp_call &c = f[first].call;
    unsigned present = 0;
    for (unsigned l = 0; l < lanes; l++) {
        const warp_call &mine = f[l].call;
        if (f[l].now != AT_WARP)
            continue;
        if (!(mine.mask >> l & 1)) {
            report_own_bit(r, w, l);
            return 0;
        }
        if (!(c.mask >> l & 1))
            continue;
        if (mine.mask != c.mask || mine.op != c.op) {
            if (report)
                report_disagreement(r, w, first, l);
            return 0;
        }
        present |= 1u << l;
    }
    return present;
}

/* ---- the missing lanes */

/* Lanes the mask names that wait somewhere else. A lane that has returned
 * is not missing: CUDA allows it. */
static unsigned missing_lanes(const block_runner &r, unsigned w, unsigned lanes, unsigned mask)
{
    const fiber *f = r.fibers + w * 32;
    unsigned missing = 0;
    for (unsigned l = 0; l < lanes; l++)
        if ((mask >> l & 1) && f[l].now != AT_WARP && f[l].now != DONE)
            missing |= 1u << l;
    return missing;
}

/* Missing lanes, and nothing else can move: they never arrive. */
static void report_missing(block_runner &r, unsigned w, unsigned lanes, unsigned first,
                           unsigned present, unsigned missing)
{
    const fiber *f = r.fibers + w * 32;
    const fiber &other = f[__builtin_ctz(missing)];
    std::string instead = other.now == AT_BARRIER
                              ? "wait at __syncthreads()" + at_line(other.barrier_pc)
                              : "wait in " + std::string(other.call.what) + at_line(other.call.pc);
    fail_launch(warp_where(r, w, first) + "lanes " +
                list(0, lanes, [&](unsigned l) { return present >> l & 1; }) + " wait in " +
                f[first].call.what + at_line(f[first].call.pc) + ", but lanes " +
                list(0, lanes, [&](unsigned l) { return missing >> l & 1; }) +
                ", which the mask names, " + instead +
                " instead. On a GPU this hangs or gives undefined results: every lane named in "
                "the mask must reach the same call");
}

/* ---- the results */

/* Lane l of a shuffle gets the value of the lane it reads. False once it
 * has failed the launch: that lane is not in the call. */
static bool shuffle_result(block_runner &r, unsigned w, unsigned lanes, unsigned present,
                           unsigned l)
{
    fiber *f = r.fibers + w * 32;
    warp_call &mine = f[l].call;
    int src = shuffle_source(mine, (int)l);
    if (src >= (int)lanes || !(present >> src & 1)) {
        fail_launch(warp_where(r, w, l) + "lane " + std::to_string(l) + " reads lane " +
                    std::to_string(src) + " through " + mine.what + at_line(mine.pc) +
                    ", but lane " + std::to_string(src) +
                    (src >= (int)lanes ? " does not exist (the block ends before it)"
                     : f[src].now == DONE ? " has returned"
                                          : " is not in the mask") +
                    ". On a GPU the value read is undefined");
        return false;
    }
    mine.result = f[src].call.value;
    return true;
}

/* The present lanes that vote yes: their predicate holds. */
static unsigned votes(const fiber *f, unsigned lanes, unsigned present)
{
    unsigned yes = 0;
    for (unsigned l = 0; l < lanes; l++)
        if ((present >> l & 1) && f[l].call.value)
            yes |= 1u << l;
    return yes;
}

/* __match_any_sync's: the present lanes whose value is this one. */
static unsigned matches(const fiber *f, unsigned lanes, unsigned present,
                        unsigned long long value)
{
    unsigned same = 0;
    for (unsigned l = 0; l < lanes; l++)
        if ((present >> l & 1) && f[l].call.value == value)
            same |= 1u << l;
    return same;
}

/* Each present lane's result. False once it has failed the launch. */
static bool deliver_results(block_runner &r, unsigned w, unsigned lanes, unsigned present)
{
    fiber *f = r.fibers + w * 32;
    unsigned yes = votes(f, lanes, present);
    for (unsigned l = 0; l < lanes; l++) {
        if (!(present >> l & 1))
            continue;
        warp_call &mine = f[l].call;
        switch (mine.op) {
        case W_SHUFFLE:
            if (!shuffle_result(r, w, lanes, present, l))
                return false;
            break;
        case W_BALLOT: mine.result = yes; break;
        case W_ALL: mine.result = yes == present; break;
        case W_ANY: mine.result = yes != 0; break;
        case W_MATCH: mine.result = matches(f, lanes, present, mine.value); break;
        }
    }
    return true;
}

/* The lanes go on; the race detector sees the warp one step further, and
 * the observers hear of it. Only a __syncwarp() orders the warp's accesses:
 * shuffles, votes and matches imply no memory barrier. A __syncwarp(mask)
 * orders only the lanes of its mask, but here it orders the whole warp:
 * knowing which pairs of lanes met in one would take a 32 x 32 table per
 * warp, and no lab syncs part of a warp. */
static void release_lanes(block_runner &r, unsigned w, unsigned lanes, unsigned present)
{
    for (unsigned l = 0; l < lanes; l++)
        if (present >> l & 1)
            r.fibers[w * 32 + l].now = READY;
    const warp_call &c = r.fibers[w * 32 + __builtin_ctz(present)].call;
    r.warp_step[w]++;
    if (c.op == W_SYNC)
        r.warp_synced[w] = r.warp_step[w];
    else
        r.last_collective[w] = {c.what, c.pc};
    tell_collective(r, w, present);
}

/* Complete a collective the waiting lanes of warp w are in, if every lane
 * its mask names has arrived (or returned, which CUDA allows). Lanes of a
 * mask may first finish another call: some lanes' call while the others
 * wait in the next one, a call of the whole warp. Returns false if none can
 * complete now; fails the launch if the first never can. */
static bool settle_warp(block_runner &r, unsigned w, bool stuck)
{
    unsigned lanes = std::min(32u, r.threads - w * 32);
    unsigned first = first_waiting(r, w, lanes);
    if (first == lanes)
        return false;
    for (unsigned l = first, tried = 0; l < lanes; l++) {
        if (r.fibers[w * 32 + l].now != AT_WARP || (tried >> l & 1))
            continue;
        unsigned present = check_masks(r, w, lanes, l, false);
        if (aborted)
            return false;
        tried |= present | 1u << l;
        if (!present || missing_lanes(r, w, lanes, r.fibers[w * 32 + l].call.mask))
            continue;
        if (!deliver_results(r, w, lanes, present))
            return false;
        release_lanes(r, w, lanes, present);
        return true;
    }
    if (stuck) {
        unsigned present = check_masks(r, w, lanes, first, true);
        if (present)
            report_missing(r, w, lanes, first, present,
                           missing_lanes(r, w, lanes, r.fibers[w * 32 + first].call.mask));
    }
    return false;
}

/* ---- blocks ------------------------------------------------------------ */

/* Workers running a block, and those of them whose block only spins; what
 * has happened in the launch (blocks finished, spins ended), to tell a
 * block that waits from one that waits for ever. */
static std::atomic<unsigned> running, stalled;
static std::atomic<unsigned long long> progress;

static void unstall(block_runner &r)
{
    if (r.stalled_since) {
        r.stalled_since = 0;
        stalled--;
    }
}

void note_progress(block_runner &r)
{
    unstall(r);
    progress++;
}

static bool may_move_on(block_runner &r); /* false once it has failed the launch */

/* Where thread t stopped: "" when it returned, else its barrier's line. */
static std::string stop_of(const block_runner &r, unsigned t)
{
    return r.fibers[t].now == DONE ? "" : source_line(r.fibers[t].barrier_pc);
}

/* Threads skipped a barrier that others wait at. A race between two threads
 * that stopped in different places, or a read of a word that no thread
 * wrote (a skipped write's), is what the skip let through: the skipped
 * barrier is the cause named. A race between two threads that wait at one
 * barrier is their own. */
static void fail_at_skipped_barrier(block_runner &r, const std::string &why)
{
    if (r.raced.found &&
        (r.raced.unwritten || stop_of(r, r.raced.thread) != stop_of(r, r.raced.other)))
        r.raced = race();
    fail_launch(why);
}

/* Some threads wait at a barrier that others returned without reaching. */
static void report_returned(block_runner &r)
{
    unsigned n = r.threads, waiting = 0;
    while (r.fibers[waiting].now != AT_BARRIER)
        waiting++;
    const void *pc = r.fibers[waiting].barrier_pc;
    fail_at_skipped_barrier(
        r, block_where(r, waiting, pc) + ": threads " +
               list(0, n, [&](unsigned t) { return r.fibers[t].now == AT_BARRIER; }) +
               " wait at __syncthreads()" + at_line(pc) + ", which threads " +
               list(0, n, [&](unsigned t) { return r.fibers[t].now == DONE; }) +
               " skipped: they returned without reaching it. A barrier inside code that not "
               "every thread of the block runs (an if on the index, such as if (i < n)) is a "
               "bug on a GPU (a hang, or wrong results): every thread must reach it, so put it "
               "outside the if, and let the bounds test guard only the loads and stores");
}

/* Every thread waits at a barrier, not all called from one place: the same
 * barrier? Calls on different lines are a barrier in divergent code, which
 * a GPU does not promise to meet. Returns false once it has failed the launch. */
static bool one_barrier(block_runner &r)
{
    unsigned n = r.threads, other = 0;
    const void *first = r.fibers[0].barrier_pc;
    for (unsigned t = 1; t < n && !other; t++) {
        const void *pc = r.fibers[t].barrier_pc;
        if (pc != first && source_line(pc) != source_line(first))
            other = t;
    }
    if (!other)
        return true;
    std::string a = source_line(first), b = source_line(r.fibers[other].barrier_pc);
    auto at = [&](const std::string &line) {
        return list(0, n, [&](unsigned t) { return source_line(r.fibers[t].barrier_pc) == line; });
    };
    fail_at_skipped_barrier(
        r, block_where(r, 0, first) + ": threads " + at(a) + " wait at the __syncthreads() of " +
               a + " while threads " + at(b) + " wait at the one of " + b +
               ". The threads of a block must all meet at the same __syncthreads(): one inside "
               "an if or a loop that threads take differently is a bug on a GPU (a hang, or "
               "wrong results)");
    return false;
}

static void run_block_fibers(block_runner &r, uint3 b);

/* A failed launch leaves threads midway through the kernel, and a stack
 * overflow may have hit a neighbour's stack: all stacks start afresh next
 * time. */
static void run_block(block_runner &r, uint3 b)
{
    running++;
    run_block_fibers(r, b);
    end_block_memory(r);
    tell_block_end(r);
    note_progress(r);
    running--;
    if (aborted)
        for (stack &k : r.stacks_of)
            k.ready = false;
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
        f.polling = spin();
        f.stack = NO_STACK;
        r.free_stacks[t] = n - 1 - t; /* stack 0 on top */
    }
    r.free_count = n;
    r.barrier_sum = 0;
    r.stalled_since = 0;
    start_block_memory(r);
    for (;;) {
        for (unsigned t = 0; t < n && !aborted; t++) {
            if (r.fibers[t].now == READY) {
                resume(r, t);
                t = r.current; /* the threads up to it have had their turn */
            }
        }
        if (aborted)
            return;
        bool moved = false;
        for (unsigned w = 0; w * 32 < n; w++)
            moved |= settle_warp(r, w, false);
        if (moved)
            continue;
        unsigned spinning = 0, at_warp = 0, at_barrier = 0, done = 0;
        bool one_place = true;
        for (unsigned t = 0; t < n; t++) {
            state s = r.fibers[t].now;
            (s == READY ? spinning : s == AT_WARP ? at_warp : s == AT_BARRIER ? at_barrier : done)++;
            one_place &= r.fibers[t].barrier_pc == r.fibers[0].barrier_pc;
        }
        if (spinning) { /* all that can run spins: wait for other blocks, or stop */
            if (!may_move_on(r))
                return;
            continue;
        }
        if (at_warp) {
            for (unsigned w = 0; w * 32 < n && !aborted; w++)
                settle_warp(r, w, true);
            return;
        }
        /* a barrier some threads skipped first: it may be why they raced */
        if (done && at_barrier)
            report_returned(r);
        else if (at_barrier && !one_place && !one_barrier(r))
            return;
        /* a race ends the block at its next barrier, or at its end */
        if (r.raced.found)
            fail_launch(race_report(r));
        if (at_barrier == 0 || aborted)
            return;
        for (unsigned t = 0; t < n; t++)
            r.fibers[t].now = READY;
        r.barrier_result = r.barrier_sum;
        r.barrier_sum = 0;
        next_phase(r);
        tell_barrier(r);
    }
}

/* ---- workers: one per core, for the life of the program --------------- */

struct launch_job {
    emu_launch_config config;
    const char *kernel;
    void (*run)(const void *);
    const void *body;
    unsigned long long blocks;
    std::atomic<unsigned long long> next;
};
static launch_job *current_job;
static unsigned long long order_seed = 1;
static std::mutex runners_lock;
static std::vector<block_runner *> runners; /* every worker's, to name stalled blocks */

/* The k-th block to start, by its place in the grid: a permutation of
 * 0..blocks-1 that the seed picks. Rounds of xor, multiply by an odd number
 * and xorshift are each one-to-one on the next power of two's range; a value
 * past the grid's end goes round again, so the whole is one-to-one too. */
static unsigned long long scrambled(unsigned long long k, unsigned long long blocks)
{
    if (blocks < 2)
        return k;
    unsigned bits = 64 - __builtin_clzll(blocks - 1);
    unsigned long long mask = bits == 64 ? ~0ull : (1ull << bits) - 1;
    unsigned long long odd = order_seed * 0x9E3779B97F4A7C15ull | 1, key = order_seed ^ 0xD1B54A32D192ED03ull;
    do
        for (int round = 0; round < 3; round++) {
            k = ((k ^ key) & mask) * odd & mask;
            k ^= k >> (bits / 2 + 1);
        }
    while (k >= blocks);
    return k;
}

static uint3 grid_place(unsigned long long id, const dim3 &g)
{
    return {(unsigned)(id % g.x), (unsigned)(id / g.x % g.y),
            (unsigned)(id / ((unsigned long long)g.x * g.y))};
}

std::string block_name(const dim3 &grid, unsigned long long id)
{
    return "block " + triple(grid_place(id, grid));
}

const double STALL_SECONDS = 1;

static double seconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* "Block (7, 0, 0): thread 0 reads status[7] (scan.cu:40) again and again,
 * which no block has written in this launch." */
static std::string spinning_threads(const block_runner &r)
{
    std::string text = "Block " + triple(r.block) + ": ";
    unsigned count = 0, first = 0;
    for (unsigned t = 0; t < r.threads; t++)
        if (r.fibers[t].now == READY && !count++)
            first = t;
    const spin &s = r.fibers[first].polling;
    text += (count > 1 ? std::to_string(count) + " threads, " + thread_name(first) + " among them,"
                       : thread_name(first)) +
            " read" + (count > 1 ? " " : "s ") + device_name(s.at) + at_line(s.pc) +
            " again and again" + last_writer(r, s.at);
    unsigned barrier = 0;
    for (unsigned t = 0; t < r.threads; t++)
        barrier += r.fibers[t].now == AT_BARRIER;
    if (barrier)
        text += ", while " + std::to_string(barrier) + " of its threads wait at __syncthreads()";
    return text + ".";
}

/* Every worker's block spins, and nothing has changed for a while. */
static void report_stall(block_runner &r)
{
    const launch_job &job = *current_job;
    std::string waiting;
    unsigned shown = 0, more = 0;
    {
        std::lock_guard<std::mutex> hold(runners_lock);
        for (const block_runner *other : runners)
            if (other->stalled_since && shown++ < 2)
                waiting += " " + spinning_threads(*other);
            else if (other->stalled_since)
                more++;
    }
    if (more)
        waiting += " " + std::to_string(more) + " more block" + (more > 1 ? "s wait" : " waits") +
                   " the same way.";
    unsigned long long taken = std::min(job.next.load(), job.blocks);
    std::vector<unsigned long long> later;
    for (unsigned long long k = taken; k < job.blocks; k++)
        later.push_back(scrambled(k, job.blocks));
    std::sort(later.begin(), later.end());
    std::string not_started;
    for (size_t k = 0; k < later.size() && k < 6; k++)
        not_started += (k ? ", " : "") + triple(grid_place(later[k], job.config.grid));
    if (later.size() > 6)
        not_started += " and " + std::to_string(later.size() - 6) + " more";
    std::string why =
        later.empty()
            ? " Every block of the launch has started, and none that still runs will change "
              "what they wait for: is it ever written, and by whom?"
            : " Blocks " + not_started + " have not started, and never will: the emulation holds " +
                  std::to_string(workers()) + " block" + (workers() > 1 ? "s" : "") +
                  " at once (one per CPU core) and starts them in a scrambled order (seed " +
                  std::to_string(order_seed) +
                  "; SEED= repeats it). CUDA promises no order either, nor that a block starts "
                  "while others wait: wait only for blocks that started before yours, with a "
                  "tile number from a ticket (atomicAdd on a counter), not from blockIdx.x";
    fail_launch("kernel " + kernel_name(r.fibers[0].in, r.fibers[0].polling.pc, r.kernel) +
                ": blocks wait for ever (nothing has changed for " +
                std::to_string((int)STALL_SECONDS) + " second)." + waiting + why);
}

/* The block's runnable threads all spin: go on if something may still
 * change what they wait for; stop the launch if nothing can. */
static bool may_move_on(block_runner &r)
{
    static thread_local unsigned long long seen;
    double now = seconds();
    if (!r.stalled_since || progress != seen) {
        if (!r.stalled_since)
            stalled++;
        r.stalled_since = now;
        seen = progress;
        return true;
    }
    if (now - r.stalled_since < STALL_SECONDS || stalled < running) {
        std::this_thread::yield();
        return true;
    }
    report_stall(r);
    return false;
}

static void run_blocks(launch_job &job)
{
    static thread_local block_runner *mine;
    if (!mine) {
        block_runner *fresh = new block_runner();
        if (!reserve_stacks(*fresh)) {
            delete fresh;
            fail_launch("emulation: cannot reserve memory for fiber stacks");
            return;
        }
        prepare_shared(*fresh);
        mine = fresh;
        std::lock_guard<std::mutex> hold(runners_lock);
        runners.push_back(fresh);
    }
    block_runner &r = *mine;
    r.config = job.config;
    r.kernel = job.kernel;
    r.run = job.run;
    r.body = job.body;
    r.threads = job.config.block.x * job.config.block.y * job.config.block.z;
    runner = &r;
    for (unsigned long long k; !aborted && (k = job.next++) < job.blocks;) {
        r.block_id = scrambled(k, job.blocks);
        run_block(r, grid_place(r.block_id, job.config.grid));
    }
    runner = nullptr;
}

unsigned long long launches;

/* One worker per CPU core this process may use (taskset and containers
 * narrow it), or EMU_WORKERS of them: make soak tries several, since how
 * many blocks run at once changes the orders a kernel meets. */
unsigned workers()
{
    static unsigned count = []() -> unsigned {
        if (const char *forced = getenv("EMU_WORKERS"))
            if (int n = atoi(forced); n >= 1 && n <= 256)
                return (unsigned)n;
        if (unsigned cores = usable_cores())
            return cores;
        return std::max(1u, std::thread::hardware_concurrency());
    }();
    return count;
}

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

void emu_launch_body(emu_launch_config c, const char *kernel, void (*run)(const void *),
                     const void *body)
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
    launch_job job{c, kernel, run, body, blocks, {0}};
    watch_faults();
    aborted = false;
    current_job = &job;
    start_launch(blocks);
    launches++;
    workers_pool.run(job);
    if (aborted)
        emu_last_error = cudaErrorLaunchFailure;
}

const char *emu_failure() { return failure.c_str(); }

void emu_block_order(unsigned long long seed) { order_seed = seed; }

/* ---- block-wide ------------------------------------------------------------ */

/* pc: where the kernel calls, for reports */
static int barrier(int predicate, const void *pc)
{
    block_runner &r = *runner;
    r.barrier_sum += predicate != 0;
    r.fibers[r.current].barrier_pc = pc;
    wait(AT_BARRIER);
    return r.barrier_result;
}
void __syncthreads() { barrier(0, PC); }
int __syncthreads_count(int predicate) { return barrier(predicate, PC); }
int __syncthreads_and(int predicate) { return barrier(predicate, PC) == (int)runner->threads; }
int __syncthreads_or(int predicate) { return barrier(predicate, PC) != 0; }

/* The CPU's own order is stronger than the GPU's; a full fence is the most a
 * kernel can ask for. The history tells the two apart: a block's fence
 * orders nothing that another block sees. */
void __threadfence()
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (runner)
        note_fence(*runner);
}
void __threadfence_block()
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (runner)
        note_block_fence(*runner, PC);
}

/* ---- warp-wide ------------------------------------------------------------- */

void __syncwarp(unsigned mask) { warp_collective("__syncwarp", PC, W_SYNC, mask, 0); }
unsigned __ballot_sync(unsigned mask, int p)
{
    return (unsigned)warp_collective("__ballot_sync", PC, W_BALLOT, mask, p != 0);
}
int __all_sync(unsigned mask, int p)
{
    return (int)warp_collective("__all_sync", PC, W_ALL, mask, p != 0);
}
int __any_sync(unsigned mask, int p)
{
    return (int)warp_collective("__any_sync", PC, W_ANY, mask, p != 0);
}
unsigned emu_match_any(unsigned mask, unsigned long long value)
{
    return (unsigned)warp_collective("__match_any_sync", PC, W_MATCH, mask, value);
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

void emu_misuse(const char *why)
{
    fail_launch(where(runner->current, PC) + at_line(PC) + ": " + why);
    abandon_thread();
}

unsigned long long emu_shuffle(emu_shuffle_kind kind, unsigned mask, unsigned long long bits, int lane,
                               int width)
{
    static const char *names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                  "__shfl_xor_sync"};
    if (width < 1 || width > 32 || (width & (width - 1))) {
        fail_launch(where(runner->current, PC) + ": " + names[kind] + at_line(PC) + " with width " +
                    std::to_string(width) + "; the width must be a power of 2 from 1 to 32");
        abandon_thread();
    }
    return warp_collective(names[kind], PC, W_SHUFFLE, mask, bits, kind, lane, width);
}
