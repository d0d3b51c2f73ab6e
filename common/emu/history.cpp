/* history.cpp: device memory between the blocks of a launch, and between
 * the threads of a block.
 *
 * Each 4-byte word of device memory has a history in the current launch:
 * the block and thread that last wrote it, how (plain, volatile, atomic)
 * and where, and a block that read it. Blocks run in no order a kernel may
 * count on, so one block reading or writing a word that another wrote (or
 * read) races, unless both accesses signal (volatile or atomic: flags,
 * tickets) or the reader learnt of the write through a flag the writer
 * stored after a __threadfence(). A flag stored without that fence (or
 * with only a __threadfence_block(), which orders nothing other blocks
 * see) is reported when a block reads the value it announced; a value
 * stored after its flag, whichever block comes first: at the read if the
 * value is there, else at its store, if the reader has announced nothing
 * since its read (which no chain of flags could then carry). Within a
 * block, a thread that reads or writes a word another thread wrote or read
 * races unless a __syncthreads() (or, in one warp, a __syncwarp(); a
 * shuffle, vote or match orders no memory) or a flag lies between. Each
 * race stops the kernel at once.
 *
 * What a read returned is known only after its load, and the compiler's
 * call that tells this file of an access comes before it: a flag read
 * teaches its block what the flag announced at the thread's next access,
 * or before any report. Volatile and atomic stores change a word's history
 * under a lock, an atomic together with its value, so a reader never sees
 * one store's writer with another's counts, nor atomics out of their order.
 *
 * A thread that reads one word through a volatile pointer (or an atomic)
 * again and again, unchanged, spins: it lets the other threads of its block
 * go on, and emu.cpp watches for blocks that can never move. */
#include "memory.h"

#include <algorithm>
#include <atomic>
#include <thread>

namespace emu {

/* The history of one 4-byte word of device memory. `write` packs the
 * launch's stamp (high 32 bits), the kind of store (2 bits), the thread
 * (10 bits) and the block (20 bits); `read` the stamp, whether every read
 * was a signal's (volatile or atomic), whether several blocks read it, and
 * of the read kept (read_pc, read_when) the volatile and atomic stores its
 * block had made by then (10 bits, 1023 for as many or more) and the block.
 * One 64-bit store each, so workers that update a word at once cannot mix
 * two blocks' fields. */
struct word_history {
    unsigned long long write, read;
    const void *write_pc, *read_pc;
    /* the writer block's __threadfence() calls before the store, the bytes
     * of the word it stored (a bit each: threads that store their own
     * bytes of one word do not race), and its stores to device memory
     * with this one */
    unsigned write_fences : 28, write_bytes : 4;
    unsigned write_stores;
    /* the read kept, for the threads of its block: its worker's clock,
     * the bytes read, whether it was a signal's, the worker and the thread */
    unsigned long long read_when;
};
static_assert(sizeof(word_history) == EMU_HISTORY_BYTES, "cuda_runtime.h tells the harness its size");
const unsigned long long BLOCK_BITS = (1ull << 20) - 1, STAMP_BITS = ~0ull << 32;
const unsigned THREAD_SHIFT = 20, KIND_SHIFT = 30, RELEASES_SHIFT = 20;
const unsigned long long SIGNALS = 1ull << 31, SEVERAL = 1ull << 30;
const unsigned RELEASES_KNOWN = 1023; /* past this many, the count read is not kept */

static unsigned launch_stamp; /* this launch's; older stamps in a history are past launches' */
static bool keeping_history;  /* off for a grid too large to name its blocks in 20 bits */

static unsigned long long now() { return (unsigned long long)launch_stamp << 32; }
static unsigned kind_of(unsigned long long write) { return write >> KIND_SHIFT & 3; }
static unsigned thread_of(unsigned long long write) { return write >> THREAD_SHIFT & 1023; }

/* read_when: the clock (39 bits, enough for hours), the bytes read (4
 * bits), a signal's read, the worker (10 bits) and the thread (10 bits) */
const unsigned WHEN_SHIFT = 25, READ_BYTES_SHIFT = 21, WORKER_SHIFT = 10;
const unsigned long long WHEN_SIGNAL = 1ull << 20;
const unsigned WORKERS_KNOWN = 1023;
static unsigned long long when_of(unsigned long long read) { return read >> WHEN_SHIFT; }
static unsigned worker_of(unsigned long long read) { return read >> WORKER_SHIFT & 1023; }
static unsigned reader_of(unsigned long long read) { return read & 1023; }
static unsigned read_bytes(unsigned long long read) { return read >> READ_BYTES_SHIFT & 0xF; }
static std::atomic<unsigned> workers_named;

/* What each block of the launch last stored with a volatile or atomic store
 * (a flag, a ticket): how many such stores it has made, its __threadfence()
 * calls by then, the stores before its latest __threadfence_block() then,
 * and where. Each count only grows. */
struct release {
    std::atomic<unsigned> count, fences, block_fenced;
    std::atomic<const void *> pc, block_fence_pc;
};
static release *latest_release;
static unsigned long long releases_room;

void start_launch(unsigned long long blocks)
{
    launch_stamp++;
    keeping_history = blocks <= BLOCK_BITS;
    if (!keeping_history)
        return;
    if (blocks > releases_room) {
        delete[] latest_release;
        releases_room = std::max(blocks, 2 * releases_room);
        latest_release = new release[releases_room];
    }
    for (unsigned long long b = 0; b < blocks; b++) {
        release &l = latest_release[b];
        for (std::atomic<unsigned> *n : {&l.count, &l.fences, &l.block_fenced})
            n->store(0, std::memory_order_relaxed);
        l.pc.store(nullptr, std::memory_order_relaxed);
        l.block_fence_pc.store(nullptr, std::memory_order_relaxed);
    }
}

void note_fence(block_runner &r) { r.fences++; }

void note_block_fence(block_runner &r, const void *pc)
{
    r.block_fenced = r.stores;
    r.block_fence_pc = pc;
}

/* A new block has stored nothing and learnt nothing from other blocks. */
void start_block_history(block_runner &r)
{
    r.fences = 0;
    r.stores = 0;
    r.releases = 0;
    r.synchronised = false;
    r.acquired.clear();
    r.last_release = nullptr;
    r.block_fenced = 0;
    r.block_fence_pc = nullptr;
    r.access_phase = 0;
    for (unsigned t = 0; t < r.threads; t++) {
        r.fibers[t].signal_word = nullptr;
        r.fibers[t].learnt_stores = 0;
        r.fibers[t].learnt_clock = 0;
    }
    if (!r.worker) { /* its clock's values differ from every other worker's */
        unsigned named = ++workers_named;
        r.worker = named <= WORKERS_KNOWN ? named : 0;
    }
}

/* ---- the locks of volatile and atomic stores ---- */

/* A word's history takes one of these, by its address, while a volatile or
 * atomic store changes it or a flag's read learns from it. A holder never
 * waits for anything else, and holds it for a few dozen instructions. */
const unsigned SIGNAL_LOCKS = 4096;
static std::atomic<bool> signal_locks[SIGNAL_LOCKS];

static std::atomic<bool> &lock_of(const word_history &h)
{
    return signal_locks[(size_t)&h / sizeof h % SIGNAL_LOCKS];
}

static void take(std::atomic<bool> &l)
{
    for (unsigned tries = 0; l.exchange(true, std::memory_order_acquire); tries++)
        if (tries > 100) /* its holder's worker lost its core */
            std::this_thread::yield();
}

static void give(std::atomic<bool> &l) { l.store(false, std::memory_order_release); }

/* ---- what a block learns ---- */

/* "out[12]", the element of the array last seen at p */
static std::string element_name(const block_runner &r, const char *p)
{
    return target(*r.seen, p, r.seen->name.empty() ? 4 : r.seen->element);
}

/* Thread t read a signal (volatile or atomic) that `write` records: it
 * learns what the store announced, from another block or its own. */
static void learn(block_runner &r, unsigned t, unsigned long long write, unsigned fences,
                  unsigned stores, const void *pc)
{
    if ((write & STAMP_BITS) != now() || kind_of(write) == PLAIN)
        return;
    if ((write & BLOCK_BITS) != r.block_id) {
        acquisition &a = r.acquired[write & BLOCK_BITS];
        if (stores > a.stores)
            a = {fences, stores, pc};
        r.synchronised = true;
    } else if (thread_of(write) != t) {
        r.fibers[t].learnt_stores = r.stores;
        r.fibers[t].learnt_clock = r.clock;
    }
}

/* Thread t's last volatile read has loaded by now: the word's history says
 * who stored what it read (or stored since, which teaches no less). */
static void learn_from_read(block_runner &r, unsigned t)
{
    fiber &f = r.fibers[t];
    const word_history &h = *(const word_history *)f.signal_word;
    f.signal_word = nullptr;
    std::atomic<bool> &l = lock_of(h);
    take(l);
    unsigned long long write = h.write;
    unsigned fences = h.write_fences, stores = h.write_stores;
    const void *pc = h.write_pc;
    give(l);
    learn(r, t, write, fences, stores, pc);
}

/* Before a report: every thread of the block learns from its last flag. */
static void learn_from_reads(block_runner &r)
{
    for (unsigned t = 0; t < r.threads; t++)
        if (r.fibers[t].signal_word)
            learn_from_read(r, t);
}

/* ---- between blocks ---- */

static const char *const FIX =
    " Blocks run in no order a kernel can count on, at once or one after another, so the "
    "result depends on timing. Where blocks combine values into one word, make every update "
    "of it an atomic (atomicAdd, atomicMax...); otherwise give each word one writer, or use "
    "what one block wrote only in a later kernel launch";

/* x[k]++ or x[k] += v, run by two blocks: what a report adds */
static const char *const BLOCKS_UPDATE =
    " Both blocks read the word and then wrote it back, as x[k]++ or x[k] += v does: two "
    "threads updated one word at once, and one update is lost.";

static const char *const PUBLISH =
    " A GPU may let other blocks see the flag before the value, so a block can see the flag "
    "and still read the old value: store the value, then __threadfence(), then the flag";

/* Whether this block may have learnt of the store h records, from another
 * block: through a flag the writer stored after a __threadfence() following
 * it, read here or by a block this one learnt from. */
static bool learnt_of(const block_runner &r, const word_history &h, bool write)
{
    unsigned long long writer = h.write & BLOCK_BITS;
    auto learnt = r.acquired.find(writer);
    if (learnt != r.acquired.end() && learnt->second.stores > h.write_stores) {
        if (learnt->second.fences > h.write_fences)
            return true;
        if (!write)
            return false; /* announced unfenced: reported as such */
    }
    return r.synchronised &&
           latest_release[writer].fences.load(std::memory_order_relaxed) > h.write_fences;
}

/* This block learnt of the value h records through the flag `a`, stored
 * after it with no __threadfence() between; perhaps a __threadfence_block(). */
[[noreturn]] static void report_unfenced(const block_runner &r, const word_history &h,
                                         const char *p, const void *pc, const acquisition &a)
{
    unsigned long long writer = h.write & BLOCK_BITS;
    const release &l = latest_release[writer];
    unsigned block_fenced = l.block_fenced.load(std::memory_order_relaxed);
    std::string it = where(r.current, pc) + " reads " + element_name(r, p) + at_line(pc) +
                     ", which " + block_name(r.config.grid, writer) + " wrote" +
                     at_line(h.write_pc) + " and then announced with the store" + at_line(a.pc);
    if (block_fenced >= h.write_stores && block_fenced < a.stores)
        stop_kernel(it + ", with only __threadfence_block()" +
                    at_line(l.block_fence_pc.load(std::memory_order_relaxed)) +
                    " between the two stores. __threadfence_block() orders a thread's stores "
                    "only as the threads of its own block see them; another block can still "
                    "see the flag before the value: use __threadfence(), which orders them "
                    "for the whole device");
    stop_kernel(it + ", with no __threadfence() between the two stores." + PUBLISH);
}

/* A word that another block wrote plainly in this launch (or a flag, now
 * written plainly): this access needs to have learnt of that store through
 * a flag (or an atomic) that the writer stored after a __threadfence().
 * Reports and stops if it has not. */
static void check_order(block_runner &r, const word_history &h, const char *p, bool write,
                        access_kind kind, const void *pc)
{
    if (learnt_of(r, h, write))
        return;
    learn_from_reads(r);
    if (learnt_of(r, h, write))
        return;
    unsigned long long writer = h.write & BLOCK_BITS;
    auto learnt = r.acquired.find(writer);
    bool told = learnt != r.acquired.end();
    if (!write && told && learnt->second.stores > h.write_stores)
        report_unfenced(r, h, p, pc, learnt->second);
    if (!write && kind != PLAIN)
        return; /* a flag read before the flag was stored as one: not a race to report */
    if (!write && told) /* the value came after the flag, or the reader did not wait */
        stop_kernel(where(r.current, pc) + " reads " + element_name(r, p) + at_line(pc) +
                    ", which " + block_name(r.config.grid, writer) + " wrote" + at_line(h.write_pc) +
                    " after the store" + at_line(learnt->second.pc) + ", the last of its "
                    "stores that this block learnt of: nothing told this block that the value "
                    "was there. A block that publishes a value must store it, then "
                    "__threadfence(), then the flag; a block that reads it must first see the "
                    "flag");
    std::string it = where(r.current, pc) + ": ";
    const char *verb = !write ? " reads " : kind == ATOMIC ? " updates with an atomic " : " writes ";
    bool read_here = (h.read & STAMP_BITS) == (h.write & STAMP_BITS) &&
                     ((h.read & BLOCK_BITS) == r.block_id || (h.read & SEVERAL));
    /* the same line, not the same instruction: an unrolled loop's rounds store from copies of it */
    if (write && kind == PLAIN && same_line(pc, h.write_pc) && !read_here) { /* a store, not an update */
        /* the same thread of two blocks: the index leaves some of the block's place out */
        bool same_thread = thread_of(h.write) == r.current;
        stop_kernel(it + "two blocks write " + element_name(r, p) + at_line(pc) + ": " +
                           block_name(r.config.grid, writer) + " wrote it from the same line in this launch" +
                           (same_thread ? ", from the same thread" : "") +
                           ". Each element should have one writer: " +
                           (same_thread ? "is it a grid-stride loop that steps by less than the "
                                          "whole grid (blockDim.x * gridDim.x), or an index that "
                                          "leaves out blockIdx.x?"
                                        : "the two blocks computed the same index, so the index "
                                          "(or the place, the offset a block writes at) is "
                                          "computed wrong in one of them"));
    }
    /* x[k]++ by two blocks: this thread reads the word on the line the
     * other block wrote it from (and so read it on), or writes it from
     * there after its block read it */
    bool reread = !write && kind == PLAIN && same_line(pc, h.write_pc);
    bool rewrite = write && kind == PLAIN && same_line(pc, h.write_pc) && read_here;
    stop_kernel(it + "a race on global memory between blocks. This thread" + verb +
                       element_name(r, p) + at_line(pc) + ", which " + block_name(r.config.grid, writer) +
                       " wrote" + at_line(h.write_pc) + " in this same launch" +
                       (reread ? ", after reading it there too." : ".") +
                       (reread || rewrite ? BLOCKS_UPDATE : "") + FIX);
}

/* Whether the block whose read of h's word is kept can have made that read
 * known to others: it has stored a flag (or made an atomic) since. */
static bool reader_released_since(const word_history &h)
{
    unsigned at_read = h.read >> RELEASES_SHIFT & RELEASES_KNOWN;
    const release &l = latest_release[h.read & BLOCK_BITS];
    return at_read == RELEASES_KNOWN || l.count.load(std::memory_order_relaxed) > at_read;
}

/* This block's latest flag, if the block that read its word read it too. */
static bool flag_read_by(const block_runner &r, unsigned long long reader)
{
    const allocation *a = r.last_release ? allocation_at(r.last_release) : nullptr;
    if (!a || !a->history)
        return false;
    unsigned long long read = a->history[(size_t)(r.last_release - a->begin) / 4].read;
    return (read & STAMP_BITS) == now() && ((read & BLOCK_BITS) == reader || (read & SEVERAL));
}

/* A word that other blocks read in this launch, now written. A plain store
 * after a read that its block has made known to no one since (no flag, no
 * atomic) races whatever this block learnt; otherwise this block must have
 * learnt from another. */
static void check_readers(block_runner &r, const word_history &h, const char *p, access_kind kind,
                          const void *pc)
{
    unsigned long long reader = h.read & BLOCK_BITS;
    bool others = reader != r.block_id || (h.read & SEVERAL);
    /* An atomic races with no read: the read saw the word whole, before it
     * or after, as a compare-and-swap loop's first plain read of its word
     * expects (a plain read after an atomic passes too: note_word). */
    if (!others || kind == ATOMIC || ((h.read & SIGNALS) && kind != PLAIN))
        return;
    bool unordered = kind == PLAIN && reader != r.block_id && !reader_released_since(h);
    if (!unordered) {
        if (r.synchronised)
            return;
        learn_from_reads(r);
        if (r.synchronised)
            return;
    }
    std::string who = reader != r.block_id ? block_name(r.config.grid, reader) : "another block";
    std::string it = where(r.current, pc) + ": ";
    if (unordered && r.releases && flag_read_by(r, reader))
        stop_kernel(it + "this thread writes " + element_name(r, p) + at_line(pc) +
                    " after its block announced its values with the store" +
                    at_line(latest_release[r.block_id].pc.load(std::memory_order_relaxed)) +
                    ", and " + who + ", which reads that flag, read " + element_name(r, p) +
                    at_line(h.read_pc) + " before this store: a block that sees the flag can "
                    "read the value before it is there. Store the value, then __threadfence(), "
                    "then the flag");
    /* a write from the line the other block read the word from: x[k]++ */
    bool update = kind == PLAIN && same_line(pc, h.read_pc);
    stop_kernel(it + "a race on global memory between blocks. This thread " +
                       (kind == ATOMIC ? "updates with an atomic " : "writes ") +
                       element_name(r, p) + at_line(pc) + ", which " + who + " read" +
                       at_line(h.read_pc) + " in this same launch" +
                       (update ? std::string(".") + BLOCKS_UPDATE
                               : ": whether it read the old value or the new one depends on timing.") +
                       FIX);
}

/* ---- among the threads of a block ---- */

/* At each access: when the phase, the thread's warp's latest __syncwarp()
 * and its latest collective began, noted at the first access after each
 * (shared.cpp counts phases, emu.cpp warp steps). */
static void note_step(block_runner &r)
{
    unsigned w = r.current / 32;
    if (r.access_phase != r.phase) {
        r.access_phase = r.phase;
        r.phase_first_store = r.stores + 1;
        r.phase_first_clock = r.clock;
        std::fill(r.warp_synced_seen, r.warp_synced_seen + WARPS, ~0u);
        std::fill(r.warp_step_seen, r.warp_step_seen + WARPS, ~0u);
    }
    if (r.warp_synced_seen[w] != r.warp_synced[w]) {
        r.warp_synced_seen[w] = r.warp_synced[w];
        r.warp_first_store[w] = r.stores + 1;
        r.warp_first_clock[w] = r.clock;
    }
    if (r.warp_step_seen[w] != r.warp_step[w]) {
        r.warp_step_seen[w] = r.warp_step[w];
        r.collective_first_store[w] = r.stores + 1;
        r.collective_first_clock[w] = r.clock;
    }
}

/* Whether thread `writer`'s store, the block's `stores`-th, comes before
 * thread t's access now: a barrier between, a __syncwarp() in one warp, or
 * a flag that t read. */
static bool store_ordered(const block_runner &r, unsigned writer, unsigned stores, unsigned t)
{
    return stores < r.phase_first_store ||
           (writer / 32 == t / 32 && stores < r.warp_first_store[t / 32]) ||
           stores <= r.fibers[t].learnt_stores;
}

/* Whether the read `when` records, if its block's, comes before thread t's
 * access now, as store_ordered says. */
static bool read_ordered(const block_runner &r, unsigned long long when, unsigned t)
{
    unsigned long long clock = when_of(when);
    return !r.worker || worker_of(when) != r.worker || clock < r.phase_first_clock ||
           (reader_of(when) / 32 == t / 32 && clock < r.warp_first_clock[t / 32]) ||
           clock <= r.fibers[t].learnt_clock;
}

/* "since the last __syncthreads(): put ..." for two threads' accesses;
 * collective_after: thread a's came before b's warp's latest collective */
static std::string block_fix(const block_runner &r, unsigned a, unsigned b, bool collective_after)
{
    if (a / 32 == b / 32 && collective_after)
        return " since the last __syncthreads() or __syncwarp()" +
               only_collective_between(r.last_collective[b / 32]);
    if (a / 32 == b / 32)
        return " since the last __syncthreads() or __syncwarp(). The two are in one warp, but a "
               "warp's threads do not run in lockstep: put a __syncthreads() between the two "
               "accesses (or __syncwarp() where only this warp's threads share these words), or "
               "give each word one writer";
    return " since the last __syncthreads(): put a __syncthreads() between the two accesses, or "
           "give each word one writer";
}

/* "kernel k, block (0, 0, 0), thread 5: a race ... This thread writes out[3] (line)" */
static std::string block_race(const block_runner &r, const char *p, bool write, const void *pc)
{
    return where(r.current, pc) + ": a race on global memory between the threads of a block. "
           "This thread " + (write ? "writes " : "reads ") + element_name(r, p) + at_line(pc);
}

/* A word another thread of this block wrote in this launch. */
static void check_block_write(block_runner &r, const word_history &h, const char *p, bool write,
                              access_kind kind, const void *pc)
{
    if (kind_of(h.write) != PLAIN && !(write && kind == PLAIN))
        return; /* what a flag or an atomic stored: read, or updated, as blocks may */
    unsigned other = thread_of(h.write);
    if (store_ordered(r, other, h.write_stores, r.current))
        return;
    learn_from_reads(r);
    if (store_ordered(r, other, h.write_stores, r.current))
        return;
    std::string report = block_race(r, p, write, pc) + ", which " + thread_name(other) +
                         " of this block wrote" + at_line(h.write_pc);
    /* the writer had read the word from the instruction now reading it: x[k]++ */
    if (!write && pc == h.read_pc && reader_of(h.read_when) == other)
        stop_kernel(report + " since the last __syncthreads()" + TWO_UPDATES);
    if (write && same_line(pc, h.write_pc))
        stop_kernel(report + " since the last __syncthreads(). The same line wrote the word "
                             "twice: either the two threads computed the same index (each "
                             "must have a word of its own there), or a __syncthreads() between "
                             "the two writes is missing");
    stop_kernel(report + block_fix(r, other, r.current,
                                   h.write_stores < r.collective_first_store[r.current / 32]));
}

/* A word that another thread of this block may have read, now written. */
static void check_block_read(block_runner &r, const word_history &h, const char *p,
                             access_kind kind, const void *pc)
{
    unsigned other = reader_of(h.read_when);
    if (kind != PLAIN || other == r.current || read_ordered(r, h.read_when, r.current))
        return; /* a flag or an atomic may change what others read, as blocks may */
    learn_from_reads(r);
    if (read_ordered(r, h.read_when, r.current))
        return;
    stop_kernel(block_race(r, p, true, pc) + ", which " + thread_name(other) +
                " of this block read" + at_line(h.read_pc) +
                block_fix(r, other, r.current,
                          when_of(h.read_when) < r.collective_first_clock[r.current / 32]));
}

/* ---- each access ---- */

/* This block's store, of any kind, into h. */
static void write_history(block_runner &r, word_history &h, access_kind kind, unsigned bytes,
                          const void *pc)
{
    unsigned long long write = now() | (unsigned long long)kind << KIND_SHIFT |
                               (unsigned long long)r.current << THREAD_SHIFT | r.block_id;
    bool same_writer = ((h.write ^ write) & ~(3ull << KIND_SHIFT)) == 0;
    h.write = write;
    h.write_pc = pc;
    h.write_fences = r.fences;
    h.write_bytes = same_writer ? h.write_bytes | bytes : bytes; /* a thread's bytes, one by one */
    h.write_stores = ++r.stores;
}

/* A volatile or atomic store into h, at p: other blocks may learn from it. */
static void write_release(block_runner &r, word_history &h, access_kind kind, unsigned bytes,
                          const char *p, const void *pc)
{
    write_history(r, h, kind, bytes, pc);
    release &l = latest_release[r.block_id];
    l.fences.store(r.fences, std::memory_order_relaxed);
    l.block_fenced.store(r.block_fenced, std::memory_order_relaxed);
    l.pc.store(pc, std::memory_order_relaxed);
    l.block_fence_pc.store(r.block_fence_pc, std::memory_order_relaxed);
    l.count.store(++r.releases, std::memory_order_relaxed);
    r.last_release = p;
}

/* A read of h by this thread: kept, unless the read kept is one the next
 * store's checks learn more from (another thread's, since this thread's
 * warp step began, or this thread's own in that step, as plain). */
static void note_read(block_runner &r, word_history &h, access_kind kind, unsigned bytes,
                      const void *pc)
{
    unsigned long long me = r.block_id, signal = kind != PLAIN ? SIGNALS : 0;
    unsigned long long read = h.read, kept = h.read_when, mine = h.read & BLOCK_BITS;
    bool fresh = (read & STAMP_BITS) != now();
    bool keep = !fresh && mine == me && r.worker && worker_of(kept) == r.worker &&
                when_of(kept) >= r.phase_first_clock &&
                !(reader_of(kept) / 32 == r.current / 32 &&
                  when_of(kept) < r.warp_first_clock[r.current / 32]) &&
                (signal || !(kept & WHEN_SIGNAL)) && (bytes & ~read_bytes(kept)) == 0;
    unsigned long long next;
    if (keep) {
        next = read & (~SIGNALS | signal);
    } else {
        unsigned long long released = std::min(r.releases, RELEASES_KNOWN);
        next = now() | (fresh ? signal : read & signal) |
               (fresh ? 0 : (read & SEVERAL) | (mine != me ? SEVERAL : 0)) |
               released << RELEASES_SHIFT | me;
        h.read_when = r.clock << WHEN_SHIFT | (unsigned long long)bytes << READ_BYTES_SHIFT |
                      (signal ? WHEN_SIGNAL : 0) | (unsigned long long)r.worker << WORKER_SHIFT |
                      r.current;
        h.read_pc = pc;
    }
    if (h.read != next) /* most reads change nothing: no store, no cache line dirtied */
        h.read = next;
}

/* An access to `bytes` (a bit each) of the word whose history is h. Two
 * accesses to different bytes of one word never race. */
static void note_word(block_runner &r, word_history &h, const char *p, bool write, access_kind kind,
                      unsigned bytes, const void *pc)
{
    unsigned long long me = r.block_id;
    if ((h.write & STAMP_BITS) == now() && (h.write_bytes & bytes)) {
        bool flag = kind_of(h.write) != PLAIN;
        if ((h.write & BLOCK_BITS) != me) {
            if (!flag || (write && kind == PLAIN))
                check_order(r, h, p, write, kind, pc);
        } else if (thread_of(h.write) != r.current) {
            check_block_write(r, h, p, write, kind, pc);
        }
    }
    if (!write) {
        note_read(r, h, kind, bytes, pc);
        return;
    }
    /* the bytes of the read kept: of the last block's to read, unless several did */
    bool read_here = (read_bytes(h.read_when) & bytes) || (h.read & SEVERAL);
    if ((h.read & STAMP_BITS) == now() && read_here) {
        if ((h.read & BLOCK_BITS) == me)
            check_block_read(r, h, p, kind, pc);
        check_readers(r, h, p, kind, pc);
    }
    if (kind == PLAIN) {
        write_history(r, h, kind, bytes, pc);
    } else if (kind == VOLATILE) {
        std::atomic<bool> &l = lock_of(h);
        take(l);
        write_release(r, h, kind, bytes, p, pc);
        give(l);
    } /* an atomic's, with its change: atomic_order */
}

std::string last_writer(const block_runner &r, const char *p)
{
    const allocation *a = allocation_at(p);
    if (!a || !a->history || !keeping_history)
        return "";
    const word_history &h = a->history[(size_t)(p - a->begin) / 4];
    if ((h.write & STAMP_BITS) != now())
        return ", which no block has written in this launch";
    return ", last written by " + block_name(r.config.grid, h.write & BLOCK_BITS) + at_line(h.write_pc);
}

/* A thread that has read the same word, unchanged, this often spins. */
const unsigned SPIN_POLLS = 1000;

/* A volatile or atomic read: is the thread spinning? If it is, it yields,
 * so the other threads of its block go on (one of them may set the flag). */
static void poll(block_runner &r, const char *p, size_t size, const void *pc)
{
    spin &s = r.fibers[r.current].polling;
    unsigned long long value = 0;
    memcpy(&value, p, std::min(size, sizeof value));
    if (p != s.at || value != s.value) {
        if (s.polls >= SPIN_POLLS)
            note_progress(r);
        s = {p, value, 0, pc};
        return;
    }
    if (++s.polls >= SPIN_POLLS)
        wait(READY);
}

/* Any access to device memory, in bounds: its words' histories. */
void note_device(block_runner &r, const char *p, size_t size, bool write, access_kind kind,
                 const void *pc)
{
    if (write)
        r.seen_writes += size;
    fiber &f = r.fibers[r.current];
    if (write && kind != ATOMIC)
        f.polling.polls = 0; /* it does more than wait */
    if (f.signal_word)
        learn_from_read(r, r.current);
    r.clock++;
    note_step(r);
    if (keeping_history && r.seen_history) {
        size_t at = (size_t)(p - r.seen->begin), first = at / 4, last = (at + size - 1) / 4;
        for (size_t w = first; w <= last; w++) {
            /* the bytes of word w the access covers, a bit each */
            size_t lo = at > 4 * w ? at - 4 * w : 0, hi = std::min(at + size - 4 * w, (size_t)4);
            note_word(r, r.seen_history[w], p, write, kind, (0xFu >> (4 - hi)) & (0xFu << lo), pc);
        }
        if (!write && kind == VOLATILE)
            f.signal_word = &r.seen_history[first];
    }
    if (kind == VOLATILE ? !write : kind == ATOMIC) /* an atomicCAS that fails, again and again, spins */
        poll(r, p, size, pc);
}

/* note_atomic has checked the atomic: now it learns from the word's last
 * store, and takes its place, while the lock keeps other atomics out until
 * the change is made. */
atomic_order::atomic_order(const void *at, size_t size, const void *pc) : lock(nullptr)
{
    block_runner *r = runner;
    const char *p = (const char *)at;
    if (!r || !keeping_history || !is_device(p))
        return;
    const allocation *a = r->seen; /* unless its spin let other threads see other arrays */
    if (!a || p < a->begin || p >= a->begin + a->bytes)
        a = allocation_at(p);
    if (!a || !a->history)
        return;
    word_history *h = a->history + (size_t)(p - a->begin) / 4;
    std::atomic<bool> &l = lock_of(*h);
    take(l);
    lock = &l;
    for (size_t w = 0; w < (size + 3) / 4; w++) {
        learn(*r, r->current, h[w].write, h[w].write_fences, h[w].write_stores, h[w].write_pc);
        write_release(*r, h[w], ATOMIC, 0xF, p, pc);
    }
}

atomic_order::~atomic_order()
{
    if (lock)
        give(*(std::atomic<bool> *)lock);
}

} // namespace emu
