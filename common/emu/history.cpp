/* history.cpp: device memory between the blocks of a launch.
 *
 * Each 4-byte word of device memory has a history in the current launch:
 * the block that last wrote it, how (plain, volatile, atomic) and where, and
 * a block that read it. Blocks run in no order a kernel may count on, so one
 * block reading or writing a word that another wrote (or read) races,
 * unless both accesses signal (volatile or atomic: flags, tickets) or the
 * reader learnt of the write through a flag the writer stored after a
 * __threadfence(). A flag stored without that fence (or with only a
 * __threadfence_block(), which orders nothing other blocks see) is reported
 * when a block reads the value it announced. Either stops the kernel at once.
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
 * the block that read it first. One 64-bit store each, so workers that
 * update a word at once cannot mix two blocks' fields. */
struct word_history {
    unsigned long long write, read;
    const void *write_pc, *read_pc;
    /* the writer block's __threadfence() calls before the store, and its
     * stores to device memory with this one */
    unsigned write_fences, write_stores;
};
static_assert(sizeof(word_history) == EMU_HISTORY_BYTES, "cuda_runtime.h tells the harness its size");
const unsigned long long BLOCK_BITS = (1ull << 20) - 1, STAMP_BITS = ~0ull << 32;
const unsigned THREAD_SHIFT = 20, KIND_SHIFT = 30;
const unsigned long long SIGNALS = 1ull << 31, SEVERAL = 1ull << 30;

static unsigned launch_stamp; /* this launch's; older stamps in a history are past launches' */
static bool keeping_history;  /* off for a grid too large to name its blocks in 20 bits */

static unsigned long long now() { return (unsigned long long)launch_stamp << 32; }
static unsigned kind_of(unsigned long long write) { return write >> KIND_SHIFT & 3; }
static unsigned thread_of(unsigned long long write) { return write >> THREAD_SHIFT & 1023; }

/* What each block of the launch last stored with a volatile or atomic store
 * (a flag, a ticket): its __threadfence() calls by then, the stores before
 * its latest __threadfence_block() then, and where. Each count only grows. */
struct release {
    std::atomic<unsigned> fences, block_fenced;
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
        for (std::atomic<unsigned> *n : {&l.fences, &l.block_fenced})
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
    r.synchronised = false;
    r.acquired.clear();
    r.block_fenced = 0;
    r.block_fence_pc = nullptr;
    for (unsigned t = 0; t < r.threads; t++)
        r.fibers[t].signal_word = nullptr;
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

/* A thread read a signal (volatile or atomic) that `write` records: its
 * block learns what the store announced, if another block made it. */
static void learn(block_runner &r, unsigned long long write, unsigned fences, unsigned stores,
                  const void *pc)
{
    if ((write & STAMP_BITS) != now() || kind_of(write) == PLAIN ||
        (write & BLOCK_BITS) == r.block_id)
        return;
    acquisition &a = r.acquired[write & BLOCK_BITS];
    if (stores > a.stores)
        a = {fences, stores, pc};
    r.synchronised = true;
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
    learn(r, write, fences, stores, pc);
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
    if (!write && learnt != r.acquired.end() && learnt->second.stores > h.write_stores)
        report_unfenced(r, h, p, pc, learnt->second);
    if (!write && kind != PLAIN)
        return; /* a flag read before the flag was stored as one: not a race to report */
    std::string it = where(r.current, pc) + ": ";
    const char *verb = !write ? " reads " : kind == ATOMIC ? " updates with an atomic " : " writes ";
    bool read_here = (h.read & STAMP_BITS) == (h.write & STAMP_BITS) &&
                     ((h.read & BLOCK_BITS) == r.block_id || (h.read & SEVERAL));
    if (write && kind == PLAIN && pc == h.write_pc && !read_here) { /* a store, not an update */
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
    stop_kernel(it + "a race on global memory between blocks. This thread" + verb +
                       element_name(r, p) + at_line(pc) + ", which " + block_name(r.config.grid, writer) +
                       " wrote" + at_line(h.write_pc) + " in this same launch." + FIX);
}

/* A word that other blocks read in this launch, now written: this block
 * must have learnt from another. */
static void check_readers(block_runner &r, const word_history &h, const char *p, access_kind kind,
                          const void *pc)
{
    unsigned long long reader = h.read & BLOCK_BITS;
    bool others = reader != r.block_id || (h.read & SEVERAL);
    if (!others || ((h.read & SIGNALS) && kind != PLAIN) || r.synchronised)
        return;
    learn_from_reads(r);
    if (r.synchronised)
        return;
    std::string who = reader != r.block_id ? block_name(r.config.grid, reader) : "another block";
    stop_kernel(where(r.current, pc) + ": a race on global memory between blocks. This thread " +
                       (kind == ATOMIC ? "updates with an atomic " : "writes ") +
                       element_name(r, p) + at_line(pc) + ", which " + who + " read" +
                       at_line(h.read_pc) + " in this same launch: whether it read the old value "
                       "or the new one depends on timing." + FIX);
}

/* ---- each access ---- */

/* This block's store, of any kind, into h. */
static void write_history(block_runner &r, word_history &h, access_kind kind, const void *pc)
{
    h.write = now() | (unsigned long long)kind << KIND_SHIFT |
              (unsigned long long)r.current << THREAD_SHIFT | r.block_id;
    h.write_pc = pc;
    h.write_fences = r.fences;
    h.write_stores = ++r.stores;
}

/* A volatile or atomic store into h: other blocks may learn from it. */
static void write_release(block_runner &r, word_history &h, access_kind kind, const void *pc)
{
    write_history(r, h, kind, pc);
    release &l = latest_release[r.block_id];
    l.fences.store(r.fences, std::memory_order_relaxed);
    l.block_fenced.store(r.block_fenced, std::memory_order_relaxed);
    l.pc.store(pc, std::memory_order_relaxed);
    l.block_fence_pc.store(r.block_fence_pc, std::memory_order_relaxed);
}

static void note_word(block_runner &r, word_history &h, const char *p, bool write, access_kind kind,
                      const void *pc)
{
    unsigned long long me = r.block_id;
    if ((h.write & STAMP_BITS) == now() && (h.write & BLOCK_BITS) != me) {
        bool flag = kind_of(h.write) != PLAIN;
        if (!flag || (write && kind == PLAIN))
            check_order(r, h, p, write, kind, pc);
    }
    if (!write) {
        unsigned long long signal = kind != PLAIN ? SIGNALS : 0, next;
        if ((h.read & STAMP_BITS) != now()) {
            next = now() | signal | me;
            h.read_pc = pc;
        } else { /* the first reader stays named; a plain read clears SIGNALS */
            unsigned long long first = h.read & BLOCK_BITS;
            next = now() | (h.read & signal) | (h.read & SEVERAL) | (first != me ? SEVERAL : 0) | first;
        }
        if (h.read != next) /* most reads change nothing: no store, no cache line dirtied */
            h.read = next;
        return;
    }
    if ((h.read & STAMP_BITS) == now())
        check_readers(r, h, p, kind, pc);
    if (kind == PLAIN) {
        write_history(r, h, kind, pc);
    } else if (kind == VOLATILE) {
        std::atomic<bool> &l = lock_of(h);
        take(l);
        write_release(r, h, kind, pc);
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
    if (keeping_history && r.seen_history) {
        size_t first = (size_t)(p - r.seen->begin) / 4, last = (size_t)(p + size - 1 - r.seen->begin) / 4;
        for (size_t w = first; w <= last; w++)
            note_word(r, r.seen_history[w], p, write, kind, pc);
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
        learn(*r, h[w].write, h[w].write_fences, h[w].write_stores, h[w].write_pc);
        write_release(*r, h[w], ATOMIC, pc);
    }
}

atomic_order::~atomic_order()
{
    if (lock)
        give(*(std::atomic<bool> *)lock);
}

} // namespace emu
