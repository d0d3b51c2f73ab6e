/* memory.cpp: the emulator's memory checks.
 *
 * Kernels are compiled with -fsanitize=thread, but without ThreadSanitizer's
 * library: the compiler then calls __tsan_read4(address) and friends before
 * each load and store, and this file answers those calls. Outside a kernel
 * they return at once. Inside one:
 *
 *  - device memory comes from one reserved range of addresses, allocations
 *    far apart, so an access that falls in that range but outside every
 *    live array is out of bounds. The harness names its arrays (in, out...)
 *    and the guard zones around them, which no kernel may touch; a report
 *    names the array nearest the access and the index, out[-1] or in[1025];
 *  - each 4-byte word of device memory has a history in the current launch:
 *    the block that last wrote it, how (plain, volatile, atomic) and where,
 *    and a block that read it. Blocks run in no order a kernel may count
 *    on, so one block reading or writing a word that another wrote (or
 *    read) races, unless both accesses signal (volatile or atomic: flags,
 *    tickets) or the reader learnt of the write through a flag the writer
 *    stored after a __threadfence(). A flag stored without that fence is
 *    reported when a block reads the value it announced;
 *  - a thread that reads one word through a volatile pointer (or an
 *    atomic) again and again, unchanged, spins: it lets the other threads of
 *    its block go on, and emu.cpp watches for blocks that can never move;
 *  - shared memory is one area per worker, and each 4-byte word has a record
 *    of who last wrote and read it since the last barrier. Two threads that
 *    touch the same word between barriers, at least one of them writing, race:
 *    on a GPU the result depends on timing. Within a warp, __syncwarp() and
 *    the warp collectives order accesses too. Static __shared__ variables
 *    lie apart, with words no variable owns between them, so an index past
 *    one's end is caught rather than landing in the next.
 *
 * An access out of bounds, or a race on device memory, stops the kernel at
 * once. A race on shared memory stops its block at the next barrier (or the
 * block's end): by then a racing pair that spans two warps, which shows the
 * fix is a __syncthreads(), may have turned up. Reports give the kernel,
 * block, threads and source lines involved. */
#include "emu.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>

namespace emu {

const unsigned POISON = 0xFFBADBADu; /* the harness's "never written" word */

static void poison(void *p, size_t bytes)
{
    unsigned char *b = (unsigned char *)p;
    for (size_t i = 0; i < bytes; i++)
        b[i] = (unsigned char)(POISON >> (8 * (i % 4)));
}

/* ---- device memory --------------------------------------------------------- */

/* Allocations sit far apart in one reserved range of addresses that are
 * never reused: an index error of any plausible size lands in a gap, where
 * no page is mapped, rather than in another array. */
const size_t PAGE = 64 * 1024;
const size_t MARGIN = (size_t)1 << 30; /* on each side, with twice the allocation's size */
static char *arena;
static size_t arena_bytes, arena_used;

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

struct allocation {
    char *begin;
    size_t bytes;
    const char *lo, *hi; /* what a kernel may touch: the named array, else all of it */
    bool live;
    std::string name; /* "" until the harness names it */
    size_t element, count;
    word_history *history = nullptr; /* one per 4-byte word of it, null if none could be mapped */
    std::atomic<unsigned long long> bytes_written{0}; /* by kernels, since emu_bytes_written asked */
};
static std::vector<allocation *> allocations; /* in address order; kept when freed */
static std::mutex allocation_lock;

static size_t round_up(size_t bytes) { return (bytes + PAGE - 1) / PAGE * PAGE; }
static size_t history_bytes(size_t span) { return span / 4 * sizeof(word_history); }

/* Addresses only, as many as the system lets us have (64 TiB at most). */
static bool reserve_arena()
{
    for (size_t bytes = (size_t)1 << 46; bytes >= (size_t)1 << 32; bytes /= 2) {
        void *p = mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            arena = (char *)p;
            arena_bytes = bytes;
            return true;
        }
    }
    return false;
}

void *device_alloc(size_t bytes)
{
    std::lock_guard<std::mutex> hold(allocation_lock);
    if (!arena && !reserve_arena())
        return nullptr;
    size_t span = round_up(bytes ? bytes : 1), margin = MARGIN + 2 * span;
    if (arena_used + margin + span + margin > arena_bytes)
        margin = PAGE; /* the range is nearly used up: closer, still apart */
    if (arena_used + margin + span + margin > arena_bytes)
        return nullptr;
    char *p = arena + arena_used + margin;
    if (mprotect(p, span, PROT_READ | PROT_WRITE) != 0)
        return nullptr;
    arena_used += margin + span + margin;
    allocation *a = new allocation{p, bytes, p, p + bytes, true, "", 1, bytes};
    void *h = mmap(nullptr, history_bytes(span), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    a->history = h == MAP_FAILED ? nullptr : (word_history *)h;
    allocations.push_back(a);
    return p;
}

/* The allocation at or below p, or null. */
static allocation *allocation_at(const char *p)
{
    auto next = std::upper_bound(allocations.begin(), allocations.end(), p,
                                 [](const char *q, const allocation *a) { return q < a->begin; });
    return next == allocations.begin() ? nullptr : *(next - 1);
}

bool device_free(void *p)
{
    std::lock_guard<std::mutex> hold(allocation_lock);
    allocation *a = allocation_at((char *)p);
    if (!a || a->begin != p || !a->live)
        return false;
    a->live = false; /* its addresses are never reused, so a late access is caught */
    size_t span = round_up(a->bytes ? a->bytes : 1);
    mmap(a->begin, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
    if (a->history)
        munmap(a->history, history_bytes(span));
    a->history = nullptr;
    return true;
}

bool is_device(const void *p) { return (size_t)((const char *)p - arena) < arena_bytes; }

/* The allocation whose array lies nearest to [p, p + size), freed or not. */
static const allocation *nearest(const char *p, size_t size)
{
    const allocation *best = nullptr;
    size_t best_gap = SIZE_MAX;
    for (const allocation *a : allocations) {
        size_t gap = p + size <= a->lo ? a->lo - (p + size) : p >= a->hi ? p - a->hi : 0;
        if (gap < best_gap) {
            best = a;
            best_gap = gap;
        }
    }
    return best;
}

/* "in[1025]", "16 bytes at in[1022]", or "4 bytes at byte 4000 of a
 * 4000-byte device allocation" when the harness gave no name */
static std::string target(const allocation &a, const char *p, size_t size)
{
    long long offset = p - a.lo, e = (long long)a.element;
    if (a.name.empty())
        return std::to_string(size) + " bytes at byte " + std::to_string(offset) + " of a " +
               std::to_string(a.bytes) + "-byte device allocation";
    long long index = offset >= 0 ? offset / e : -((-offset + e - 1) / e);
    return (size == a.element ? "" : std::to_string(size) + " bytes at ") + a.name + "[" +
           std::to_string(index) + "]";
}

std::string device_access(const char *p, size_t size, const char *verb, const void *pc)
{
    const allocation *a = nearest(p, size);
    std::string line = at_line(pc), text = std::string(verb) + " ";
    if (!a)
        return text + std::to_string(size) + " bytes" + line + " where no array ever was";
    text += target(*a, p, size) + line + ", ";
    std::string array = a->name.empty() ? "its" : "the";
    std::string of = a->name.empty()
                         ? ""
                         : " of '" + a->name + "' (" + std::to_string(a->count) +
                               (a->count == 1 ? " element)" : " elements)");
    if (!a->live)
        return text + "but " + (a->name.empty() ? "the allocation" : "'" + a->name + "'") +
               " was freed with cudaFree: free an array only after the last kernel that uses it";
    if (p + size > a->hi) {
        const char *how = p < a->hi ? "partly past " : p == a->hi && a->name.empty() ? "just past " : "past ";
        return text + how + array + " end" + of + ": a missing or wrong bounds test (i < n), or an index computed too large?";
    }
    return text + (p + size > a->lo ? "partly before " : "before ") + array + " start" + of +
           ": an index that went below zero (an unsigned that wrapped, or a missing test such "
           "as tid > 0)?";
}

/* Stop the running thread's launch with a report; never returns. */
[[noreturn]] static void stop_kernel(const std::string &why)
{
    fail_launch(why);
    abandon_thread();
}

/* The writes a block made to the array it last saw join the array's count. */
static void count_writes(block_runner &r)
{
    if (r.seen && r.seen_writes)
        r.seen->bytes_written.fetch_add(r.seen_writes, std::memory_order_relaxed);
    r.seen_writes = 0;
}

/* Outside the fast path of access(): not the array last seen. */
static void check_device(block_runner &r, const char *p, size_t size, bool write, const void *pc)
{
    allocation *a = allocation_at(p);
    if (a && a->live && p >= a->lo && p + size <= a->hi) {
        count_writes(r);
        r.seen = a;
        r.seen_lo = a->lo;
        r.seen_hi = a->hi;
        r.seen_history = a->history;
        return;
    }
    stop_kernel(where(r.current, pc) + " " + device_access(p, size, write ? "writes" : "reads", pc));
}

/* ---- device memory between blocks ----------------------------------------------- */

static unsigned launch_stamp; /* this launch's; older stamps in a history are past launches' */
static bool keeping_history;  /* off for a grid too large to name its blocks in 20 bits */

/* What each block of the launch last stored with a volatile or atomic store
 * (a flag, a ticket): its __threadfence() calls by then, and where. */
struct release {
    std::atomic<unsigned> fences;
    std::atomic<const void *> pc;
};
static release *releases;
static unsigned long long releases_room;

void start_launch(unsigned long long blocks)
{
    launch_stamp++;
    keeping_history = blocks <= BLOCK_BITS;
    if (!keeping_history)
        return;
    if (blocks > releases_room) {
        delete[] releases;
        releases_room = std::max(blocks, 2 * releases_room);
        releases = new release[releases_room];
    }
    for (unsigned long long b = 0; b < blocks; b++) {
        releases[b].fences.store(0, std::memory_order_relaxed);
        releases[b].pc.store(nullptr, std::memory_order_relaxed);
    }
}

void note_fence(block_runner &r) { r.fences++; }

/* "out[12]", the element of the array last seen at p */
static std::string element_name(const block_runner &r, const char *p)
{
    return target(*r.seen, p, r.seen->name.empty() ? 4 : r.seen->element);
}

static const char *const FIX =
    " Blocks run in no order a kernel can count on, at once or one after another, so the "
    "result depends on timing. Where blocks combine values into one word, make every update "
    "of it an atomic (atomicAdd, atomicMax...); otherwise give each word one writer, or use "
    "what one block wrote only in a later kernel launch";

/* A word that another block wrote plainly in this launch: this access
 * needs to have learnt of that store through a flag (or an atomic) that the
 * writer stored after a __threadfence(). Reports and stops if it has not. */
static void check_order(block_runner &r, const word_history &h, const char *p, bool write,
                        access_kind kind, const void *pc)
{
    unsigned long long writer = h.write & BLOCK_BITS;
    auto learnt = r.acquired.find(writer);
    if (learnt != r.acquired.end() && learnt->second.stores > h.write_stores) {
        if (learnt->second.fences > h.write_fences)
            return;
        if (!write)
            stop_kernel(where(r.current, pc) + " reads " + element_name(r, p) + at_line(pc) +
                               ", which " + block_name(r.config.grid, writer) + " wrote" + at_line(h.write_pc) +
                               " and then announced with the store" + at_line(learnt->second.pc) +
                               ", with no __threadfence() between the two stores. A GPU may let "
                               "other blocks see the flag before the value, so this block can "
                               "see the flag and still read the old value: put __threadfence() "
                               "between the value's store and the flag's");
    }
    if (r.synchronised && releases[writer].fences.load(std::memory_order_relaxed) > h.write_fences)
        return; /* fenced, then signalled: this block may have learnt of it through a chain */
    if (!write && kind != PLAIN)
        return; /* a flag read before the flag was stored as one: not a race to report */
    std::string it = where(r.current, pc) + ": ";
    const char *verb = !write ? " reads " : kind == ATOMIC ? " updates with an atomic " : " writes ";
    bool read_here = (h.read & STAMP_BITS) == (h.write & STAMP_BITS) &&
                     ((h.read & BLOCK_BITS) == r.block_id || (h.read & SEVERAL));
    if (write && kind == PLAIN && pc == h.write_pc && !read_here) { /* a store, not an update */
        /* the same thread of two blocks: the index leaves some of the block's place out */
        bool same_thread = (h.write >> THREAD_SHIFT & 1023) == r.current;
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

/* A word that other blocks read in this launch, now written. */
static void check_readers(block_runner &r, const word_history &h, const char *p, access_kind kind,
                          const void *pc)
{
    unsigned long long reader = h.read & BLOCK_BITS;
    bool others = reader != r.block_id || (h.read & SEVERAL);
    if (!others || ((h.read & SIGNALS) && kind != PLAIN) || r.synchronised)
        return;
    std::string who = reader != r.block_id ? block_name(r.config.grid, reader) : "another block";
    stop_kernel(where(r.current, pc) + ": a race on global memory between blocks. This thread " +
                       (kind == ATOMIC ? "updates with an atomic " : "writes ") +
                       element_name(r, p) + at_line(pc) + ", which " + who + " read" +
                       at_line(h.read_pc) + " in this same launch: whether it read the old value "
                       "or the new one depends on timing." + FIX);
}

/* This block learnt of what `writer` stored before its flag (or atomic). */
static void acquire(block_runner &r, const word_history &h)
{
    acquisition &a = r.acquired[h.write & BLOCK_BITS];
    if (h.write_stores > a.stores)
        a = {h.write_fences, h.write_stores, h.write_pc};
    r.synchronised = true;
}

static void note_word(block_runner &r, word_history &h, const char *p, bool write, access_kind kind,
                      const void *pc)
{
    unsigned long long now = (unsigned long long)launch_stamp << 32, me = r.block_id;
    if ((h.write & STAMP_BITS) == now && (h.write & BLOCK_BITS) != me) {
        bool flag = (h.write >> KIND_SHIFT & 3) != PLAIN;
        if (flag && kind != PLAIN) {
            if (!write || kind == ATOMIC)
                acquire(r, h);
        } else if (!(flag && !write)) {
            check_order(r, h, p, write, kind, pc);
        }
    }
    if (!write) {
        unsigned long long signal = kind != PLAIN ? SIGNALS : 0, next;
        if ((h.read & STAMP_BITS) != now) {
            next = now | signal | me;
            h.read_pc = pc;
        } else { /* the first reader stays named; a plain read clears SIGNALS */
            unsigned long long first = h.read & BLOCK_BITS;
            next = now | (h.read & signal) | (h.read & SEVERAL) | (first != me ? SEVERAL : 0) | first;
        }
        if (h.read != next) /* most reads change nothing: no store, no cache line dirtied */
            h.read = next;
        return;
    }
    if ((h.read & STAMP_BITS) == now)
        check_readers(r, h, p, kind, pc);
    h.write = now | (unsigned long long)kind << KIND_SHIFT |
              (unsigned long long)r.current << THREAD_SHIFT | me;
    h.write_pc = pc;
    h.write_fences = r.fences;
    h.write_stores = ++r.stores;
    if (kind != PLAIN) {
        releases[me].fences.store(r.fences, std::memory_order_relaxed);
        releases[me].pc.store(pc, std::memory_order_relaxed);
    }
}

std::string device_name(const char *p)
{
    const allocation *a = allocation_at(p);
    return a ? target(*a, p, a->name.empty() ? 4 : a->element) : "device memory";
}

std::string last_writer(const block_runner &r, const char *p)
{
    const allocation *a = allocation_at(p);
    if (!a || !a->history || !keeping_history)
        return "";
    const word_history &h = a->history[(size_t)(p - a->begin) / 4];
    if ((h.write & STAMP_BITS) != (unsigned long long)launch_stamp << 32)
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
static void note_device(block_runner &r, const char *p, size_t size, bool write, access_kind kind,
                        const void *pc)
{
    if (write)
        r.seen_writes += size;
    if (write && kind != ATOMIC)
        r.fibers[r.current].polling.polls = 0; /* it does more than wait */
    if (keeping_history && r.seen_history) {
        size_t first = (size_t)(p - r.seen->begin) / 4, last = (size_t)(p + size - 1 - r.seen->begin) / 4;
        for (size_t w = first; w <= last; w++)
            note_word(r, r.seen_history[w], p, write, kind, pc);
    }
    if (kind == VOLATILE ? !write : kind == ATOMIC) /* an atomicCAS that fails, again and again, spins */
        poll(r, p, size, pc);
}

/* ---- shared memory ----------------------------------------------------------- */

static std::mutex site_lock;
static std::vector<emu_shared_site *> sites; /* static variables, by offset */
/* Each variable is followed by as many words that no variable owns (256
 * bytes to 64 KB), so an index past its end lands where nothing lives. */
const size_t SITE_GAP_MIN = 256, SITE_GAP_MAX = 64 * 1024;
static size_t static_used = SITE_GAP_MIN;
static unsigned short site_of_word[SHARED_STATIC / 4]; /* 1 + its index in sites, or 0 */
static std::string dynamic_names; /* "sdata" or "sdata/temp": the extern arrays */
static size_t dynamic_element = 4;
const size_t SHARED = SHARED_STATIC + SHARED_DYNAMIC;

void prepare_shared(block_runner &r)
{
    r.shared = (unsigned char *)mmap(nullptr, SHARED, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    r.records = (word_record *)mmap(nullptr, SHARED / 4 * sizeof(word_record),
                                    PROT_READ | PROT_WRITE,
                                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r.shared == MAP_FAILED || r.records == MAP_FAILED) {
        fprintf(stderr, "emulation: cannot map shared memory\n");
        exit(1);
    }
    poison(r.shared, SHARED_STATIC);
    r.phase = 1;
}

/* A new block: its dynamic shared memory poisoned, its static variables
 * poisoned as the block first touches them, no accesses recorded. Arrays
 * may have been freed or named since the last: none is taken as seen. */
void start_block_memory(block_runner &r)
{
    poison(r.shared + SHARED_STATIC, r.config.shared_bytes);
    r.touched.clear();
    r.raced = race();
    r.seen_lo = r.seen_hi = nullptr;
    r.seen = nullptr;
    r.seen_history = nullptr;
    r.seen_writes = 0;
    r.fences = 0;
    r.stores = 0;
    r.synchronised = false;
    r.acquired.clear();
    r.stalled_since = 0;
    next_phase(r);
}

void next_phase(block_runner &r)
{
    r.phase++;
    std::fill(r.warp_step, r.warp_step + WARPS, 0u);
}

static block_runner &in_kernel(const char *what)
{
    if (!runner) {
        fprintf(stderr, "emulation: %s is used outside a kernel; declare __shared__ variables "
                        "inside a __global__ or __device__ function\n", what);
        exit(1);
    }
    return *runner;
}

} // namespace emu

using namespace emu;

void emu_name_array(const void *base, const char *name, size_t offset, size_t count,
                    size_t element)
{
    std::lock_guard<std::mutex> hold(allocation_lock);
    allocation *a = allocation_at((const char *)base);
    if (!a || a->begin != base || offset + count * element > a->bytes)
        return;
    a->name = name;
    a->element = element;
    a->count = count;
    a->lo = a->begin + offset;
    a->hi = a->lo + count * element;
}

void *emu_shared_at(emu_shared_site *site, const char *name)
{
    block_runner &r = in_kernel(name);
    if (__atomic_load_n(&site->offset, __ATOMIC_ACQUIRE) < 0) {
        std::lock_guard<std::mutex> hold(site_lock);
        if (site->offset < 0) {
            site->name = name;
            size_t at = (static_used + site->align - 1) / site->align * site->align;
            if (at + site->bytes > SHARED_STATIC) {
                fprintf(stderr, "emulation: __shared__ %s (%zu bytes) does not fit: the "
                                "kernels' static shared memory passes %zu KB\n",
                        site->name, site->bytes, SHARED_STATIC / 1024);
                exit(1);
            }
            static_used = at + site->bytes +
                          std::max(SITE_GAP_MIN, std::min(SITE_GAP_MAX, site->bytes));
            sites.push_back(site);
            std::fill(site_of_word + at / 4, site_of_word + (at + site->bytes + 3) / 4,
                      (unsigned short)sites.size());
            __atomic_store_n(&site->offset, (long)at, __ATOMIC_RELEASE);
        }
    }
    void *p = r.shared + site->offset;
    if (std::find(r.touched.begin(), r.touched.end(), site) == r.touched.end()) {
        poison(p, site->bytes);
        r.touched.push_back(site);
    }
    return p;
}

void *emu_dynamic_shared(const char *name, size_t element)
{
    block_runner &r = in_kernel(name);
    std::lock_guard<std::mutex> hold(site_lock);
    if (("/" + dynamic_names + "/").find("/" + std::string(name) + "/") == std::string::npos) {
        dynamic_names += (dynamic_names.empty() ? "" : "/") + std::string(name);
        dynamic_element = element;
    }
    return r.shared + SHARED_STATIC;
}

namespace emu {

/* "sdata[130]", "tile[3][7]", or a description of where the address is */
static std::string shared_name(const block_runner &r, const unsigned char *p)
{
    size_t at = (size_t)(p - r.shared);
    if (at >= SHARED_STATIC) {
        std::lock_guard<std::mutex> hold(site_lock);
        return (dynamic_names.empty() ? "extern __shared__" : dynamic_names) + "[" +
               std::to_string((at - SHARED_STATIC) / dynamic_element) + "]";
    }
    for (const emu_shared_site *s : r.touched)
        if (at >= (size_t)s->offset && at < s->offset + s->bytes) {
            size_t k = (at - s->offset) / s->element;
            if (s->rank == 0)
                return s->name;
            if (s->rank == 1)
                return std::string(s->name) + "[" + std::to_string(k) + "]";
            if (s->rank == 2)
                return std::string(s->name) + "[" + std::to_string(k / s->row) + "][" +
                       std::to_string(k % s->row) + "]";
            return std::string(s->name) + ", element " + std::to_string(k);
        }
    return "shared memory outside every __shared__ variable";
}

static bool ordered(const block_runner &r, unsigned a, unsigned a_step, unsigned b)
{
    return a / 32 == b / 32 && a_step != r.warp_step[b / 32];
}

/* A racing pair: noted, and the block goes on to its next barrier, where
 * one that spans two warps may turn up. */
static void note_race(block_runner &r, const unsigned char *p, unsigned other, bool other_wrote,
                      const void *other_pc, bool writes, const void *pc)
{
    bool across = r.current / 32 != other / 32;
    if (r.raced.found && (r.raced.across_warps || !across))
        return;
    unsigned long long since = r.raced.accesses_since;
    r.raced = {true, across, p, r.current, other, writes, other_wrote, pc, other_pc,
               r.fibers[r.current].in, since};
}

std::string race_report(const block_runner &r)
{
    const race &c = r.raced;
    /* Two writes from one line: the threads' indices may simply collide,
     * which no barrier mends, so say both. */
    const char *same_place =
        c.writes && c.other_wrote && c.pc == c.other_pc
            ? ". The same line wrote the word twice: either the two threads computed the same "
              "index (each must have a word of its own there), or a barrier between the two "
              "writes is missing"
            : nullptr;
    std::string report = block_where(r, c.in, c.pc) + ": a race on shared memory. " +
                         thread_name(c.thread) + (c.writes ? " writes " : " reads ") +
                         shared_name(r, c.at) + at_line(c.pc) + ", which " +
                         thread_name(c.other) + (c.other_wrote ? " wrote" : " read") +
                         at_line(c.other_pc);
    if (same_place)
        return report + same_place;
    return report +
           (c.across_warps
                ? " since the last __syncthreads(): a __syncthreads() between the two accesses "
                  "is missing"
                : " since the last __syncthreads() or __syncwarp(). The two are in one warp, but "
                  "a warp's threads do not run in lockstep: a barrier between the two accesses "
                  "is missing: __syncthreads(), or __syncwarp() where only this warp's threads "
                  "share these words (volatile is not enough)");
}

/* After a race the block runs on, but a thread that spins on what the race
 * left (a flag never set) must not hold it forever. */
const unsigned long long AFTER_RACE = 1ull << 24; /* accesses: well under a second */

static void after_race(block_runner &r)
{
    if (++r.raced.accesses_since > AFTER_RACE)
        stop_kernel(race_report(r));
}

const unsigned short NOBODY = 0xFFFF;

/* An access to static shared memory that no variable owns: past the end of
 * the variable below it, or before the start of the one above. */
[[noreturn]] static void outside_variables(block_runner &r, size_t at, bool write, const void *pc)
{
    const emu_shared_site *near = nullptr;
    size_t gap = SIZE_MAX;
    {
        std::lock_guard<std::mutex> hold(site_lock);
        for (const emu_shared_site *s : sites) {
            size_t lo = (size_t)s->offset, hi = lo + s->bytes;
            size_t d = at >= hi ? at - hi : lo > at ? lo - at : 0;
            if (d < gap) {
                gap = d;
                near = s;
            }
        }
    }
    std::string what = where(r.current, pc) + (write ? " writes " : " reads ");
    if (!near || SHARED_STATIC - at < gap)
        stop_kernel(what + "shared memory" + at_line(pc) + " before the start of the dynamic "
                                                              "shared memory (extern __shared__): an index that went below zero?");
    long long k = ((long long)at - near->offset) / (long long)near->element;
    if (at < (size_t)near->offset)
        k = -(((long long)near->offset - (long long)at + near->element - 1) / near->element);
    size_t elements = near->bytes / near->element;
    std::string index = near->rank == 2 ? "[" + std::to_string(k / (long long)near->row) + "][" +
                                              std::to_string(k % (long long)near->row) + "]"
                                        : "[" + std::to_string(k) + "]";
    if (at < (size_t)near->offset)
        stop_kernel(what + near->name + index + at_line(pc) + ", before the start of __shared__ " +
                           near->name + ": an index that went below zero?");
    stop_kernel(what + near->name + index + at_line(pc) + ", past the end of __shared__ " +
                       near->name + " (" + std::to_string(elements) +
                       (elements == 1 ? " element)" : " elements)") +
                       ": declare a shared array with room for every index the kernel uses (a "
                       "padded array needs room for its padding too), or test the index");
}

static void check_shared(block_runner &r, unsigned char *p, size_t size, bool write, bool atomic,
                         const void *pc)
{
    size_t at = (size_t)(p - r.shared);
    if (at >= SHARED_STATIC && at + size > SHARED_STATIC + r.config.shared_bytes) {
        stop_kernel(where(r.current, pc) + (write ? " writes " : " reads ") + shared_name(r, p) +
                    at_line(pc) + ", past the " + std::to_string(r.config.shared_bytes) +
                    " bytes of dynamic shared memory the launch asked for (the third "
                    "<<<grid, block, bytes>>> argument)");
    }
    if (at < SHARED_STATIC &&
        (!site_of_word[at / 4] || site_of_word[(at + size - 1) / 4] != site_of_word[at / 4]))
        outside_variables(r, at, write, pc);
    unsigned me = r.current, step = r.warp_step[me / 32];
    for (size_t w = at / 4; w <= (at + size - 1) / 4; w++) {
        word_record &rec = r.records[w];
        if (rec.write_phase == r.phase && rec.writer != me && !(atomic && rec.atomic) &&
            !ordered(r, rec.writer, rec.write_step, me))
            note_race(r, p, rec.writer, true, rec.write_pc, write, pc);
        if (rec.read_phase != r.phase) { /* no reads yet in this phase */
            rec.read_phase = r.phase;
            rec.reader = rec.other_reader = NOBODY;
            rec.read_pc = nullptr;
        }
        if (write) {
            if (rec.reader != me && rec.reader != NOBODY && !ordered(r, rec.reader, rec.read_step, me))
                note_race(r, p, rec.reader, false, rec.read_pc, true, pc);
            if (rec.other_reader != me && rec.other_reader != NOBODY &&
                !ordered(r, rec.other_reader, rec.other_step, me))
                note_race(r, p, rec.other_reader, false, rec.read_pc, true, pc);
            rec.write_phase = r.phase;
            rec.writer = (unsigned short)me;
            rec.write_step = step;
            rec.atomic = atomic;
            rec.write_pc = pc;
        } else {
            if (rec.reader != me) { /* remember one earlier reader too */
                rec.other_reader = rec.reader;
                rec.other_step = rec.read_step;
            }
            rec.reader = (unsigned short)me;
            rec.read_step = step;
            rec.read_pc = pc;
        }
    }
}

/* The checks' fast path: device memory in the array last seen costs two
 * comparisons more than any other access, and its history. */
static inline void access(void *addr, size_t size, bool write, access_kind kind, const void *pc)
{
    block_runner *r = runner;
    if (!r)
        return;
    const char *p = (const char *)addr;
    size_t in_shared = (size_t)(p - (const char *)r->shared);
    bool device = false;
    if (in_shared < SHARED) {
        check_shared(*r, (unsigned char *)addr, size, write, kind == ATOMIC, pc);
    } else if (p >= r->seen_lo && p + size <= r->seen_hi) {
        note_device(*r, p, size, write, kind, pc);
        device = true;
    } else if (is_device(p)) {
        check_device(*r, p, size, write, pc);
        note_device(*r, p, size, write, kind, pc);
        device = true;
    }
    if (__builtin_expect(counting, false) && kind != ATOMIC && (device || in_shared < SHARED))
        count_access(*r, device ? (unsigned long long)(size_t)p : in_shared, size,
                     device ? (write ? EMU_GLOBAL_STORE : EMU_GLOBAL_LOAD)
                            : (write ? EMU_SHARED_STORE : EMU_SHARED_LOAD),
                     pc);
    if (__builtin_expect(r->raced.found, false))
        after_race(*r);
}

void note_atomic(void *p, size_t size, const void *pc) { access(p, size, true, ATOMIC, pc); }

void end_block_memory(block_runner &r)
{
    count_writes(r);
    if (counting)
        count_block_end();
}

} // namespace emu

unsigned long long emu_bytes_written(const void *base)
{
    std::lock_guard<std::mutex> hold(allocation_lock);
    allocation *a = allocation_at((const char *)base);
    return a && a->begin == base ? a->bytes_written.exchange(0) : 0;
}

namespace emu {

/* Instrumented functions say when they are entered and left: the outermost
 * calls name the kernel in reports, and the stack's depth is checked, since
 * one large local array can jump past a guard zone. */
static void enter(void *caller, const void *pc)
{
    block_runner *r = runner;
    if (!r)
        return;
    calls &in = r->fibers[r->current].in;
    if (in.depth < CALLERS)
        in.at[in.depth] = caller;
    in.depth++;
    if ((char *)__builtin_frame_address(0) < r->stack_floor)
        stack_overflow(pc);
}

static void leave()
{
    if (block_runner *r = runner)
        r->fibers[r->current].in.depth--;
}

} // namespace emu

/* ---- the calls -fsanitize=thread puts before loads and stores ---------------- */

extern "C" {
void __tsan_init() {}
void __tsan_func_entry(void *caller) { enter(caller, PC); }
void __tsan_func_exit() { leave(); }
void __tsan_read1(void *p) { access(p, 1, false, PLAIN, PC); }
void __tsan_read2(void *p) { access(p, 2, false, PLAIN, PC); }
void __tsan_read4(void *p) { access(p, 4, false, PLAIN, PC); }
void __tsan_read8(void *p) { access(p, 8, false, PLAIN, PC); }
void __tsan_read16(void *p) { access(p, 16, false, PLAIN, PC); }
void __tsan_write1(void *p) { access(p, 1, true, PLAIN, PC); }
void __tsan_write2(void *p) { access(p, 2, true, PLAIN, PC); }
void __tsan_write4(void *p) { access(p, 4, true, PLAIN, PC); }
void __tsan_write8(void *p) { access(p, 8, true, PLAIN, PC); }
void __tsan_write16(void *p) { access(p, 16, true, PLAIN, PC); }
void __tsan_unaligned_read2(void *p) { access(p, 2, false, PLAIN, PC); }
void __tsan_unaligned_read4(void *p) { access(p, 4, false, PLAIN, PC); }
void __tsan_unaligned_read8(void *p) { access(p, 8, false, PLAIN, PC); }
void __tsan_unaligned_read16(void *p) { access(p, 16, false, PLAIN, PC); }
void __tsan_unaligned_write2(void *p) { access(p, 2, true, PLAIN, PC); }
void __tsan_unaligned_write4(void *p) { access(p, 4, true, PLAIN, PC); }
void __tsan_unaligned_write8(void *p) { access(p, 8, true, PLAIN, PC); }
void __tsan_unaligned_write16(void *p) { access(p, 16, true, PLAIN, PC); }
void __tsan_volatile_read1(void *p) { access(p, 1, false, VOLATILE, PC); }
void __tsan_volatile_read2(void *p) { access(p, 2, false, VOLATILE, PC); }
void __tsan_volatile_read4(void *p) { access(p, 4, false, VOLATILE, PC); }
void __tsan_volatile_read8(void *p) { access(p, 8, false, VOLATILE, PC); }
void __tsan_volatile_read16(void *p) { access(p, 16, false, VOLATILE, PC); }
void __tsan_volatile_write1(void *p) { access(p, 1, true, VOLATILE, PC); }
void __tsan_volatile_write2(void *p) { access(p, 2, true, VOLATILE, PC); }
void __tsan_volatile_write4(void *p) { access(p, 4, true, VOLATILE, PC); }
void __tsan_volatile_write8(void *p) { access(p, 8, true, VOLATILE, PC); }
void __tsan_volatile_write16(void *p) { access(p, 16, true, VOLATILE, PC); }
void __tsan_read_range(void *p, unsigned long size) { access(p, size, false, PLAIN, PC); }
void __tsan_write_range(void *p, unsigned long size) { access(p, size, true, PLAIN, PC); }
void __tsan_vptr_read(void **) {}
void __tsan_vptr_update(void **, void *) {}
}
