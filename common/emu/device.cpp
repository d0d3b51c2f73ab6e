/* device.cpp: device memory: where allocations lie, the arrays the harness
 * names in them, and whether an access is in bounds. One that is not, or
 * that touches a freed array, stops the kernel at once, with a report that
 * names the array nearest it and the index, out[-1] or in[1025]. Each
 * allocation also counts the bytes kernels store in it, and has room for
 * its words' histories (history.cpp). */
#include "memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <mutex>

namespace emu {

/* Allocations sit far apart in one reserved range of addresses that are
 * never reused: an index error of any plausible size lands in a gap, where
 * no page is mapped, rather than in another array. */
const size_t PAGE = 64 * 1024;
const size_t MARGIN = (size_t)1 << 30; /* on each side, with twice the allocation's size */
char *arena;
size_t arena_bytes;
static size_t arena_used;

static std::vector<allocation *> allocations; /* in address order; kept when freed */
static std::mutex allocation_lock;

static size_t round_up(size_t bytes) { return (bytes + PAGE - 1) / PAGE * PAGE; }
static size_t history_bytes(size_t span) { return span / 4 * EMU_HISTORY_BYTES; }

/* Addresses only, as many as the system lets us have (64 TiB at most). */
static bool reserve_arena()
{
    for (size_t bytes = (size_t)1 << 46; bytes >= (size_t)1 << 32; bytes /= 2) {
        void *p = mmap(nullptr, bytes, PROT_NONE, LAZY_MAPPING, -1, 0);
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
    void *h = mmap(nullptr, history_bytes(span), PROT_READ | PROT_WRITE, LAZY_MAPPING, -1, 0);
    a->history = h == MAP_FAILED ? nullptr : (word_history *)h;
#ifdef MADV_HUGEPAGE
    /* ten bytes of history a byte of array, first touched word by word: in
     * 4 KB pages a page fault (and the other workers' TLBs flushed) every
     * 100 words, most of a large test's system time; in 2 MB pages, where
     * the system allows, one every 50000 */
    if (a->history)
        madvise(h, history_bytes(span), MADV_HUGEPAGE);
#endif
    allocations.push_back(a);
    return p;
}

allocation *allocation_at(const char *p)
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
    mmap(a->begin, span, PROT_NONE, LAZY_MAPPING | MAP_FIXED, -1, 0);
    if (a->history)
        munmap(a->history, history_bytes(span));
    a->history = nullptr;
    return true;
}

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

std::string target(const allocation &a, const char *p, size_t size)
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

/* The writes a block made to an array join the array's count. */
static void count_writes(allocation *a, unsigned long long &writes)
{
    if (a && writes)
        a->bytes_written.fetch_add(writes, std::memory_order_relaxed);
    writes = 0;
}

/* Array a, found by a search, becomes the one last seen, and the one it
 * replaces the first of the recent ones (the last of those, if they were
 * full, has its writes counted). */
static void see(block_runner &r, allocation *a, unsigned long long writes)
{
    if (r.seen) {
        count_writes(r.recent[block_runner::RECENT - 1].array,
                     r.recent[block_runner::RECENT - 1].writes);
        for (unsigned k = block_runner::RECENT - 1; k > 0; k--)
            r.recent[k] = r.recent[k - 1];
        r.recent[0] = {r.seen, r.seen_writes};
    }
    r.seen = a;
    r.seen_lo = a->lo;
    r.seen_hi = a->hi;
    r.seen_history = a->history;
    r.seen_writes = writes;
    a->touched.store(true, std::memory_order_relaxed); /* a block's first touch comes here */
}

/* Outside the fast path of access(): not the array last seen. Arrays are
 * neither freed nor named while a block runs, so a recent one is still
 * live and in bounds as it was: it changes places with the last seen. */
void check_device(block_runner &r, const char *p, size_t size, bool write, const void *pc)
{
    for (unsigned k = 0; k < block_runner::RECENT && r.recent[k].array; k++) {
        allocation *a = r.recent[k].array;
        if (p >= a->lo && p + size <= a->hi) { /* the two change places */
            unsigned long long writes = r.recent[k].writes;
            r.recent[k] = {r.seen, r.seen_writes};
            r.seen = a;
            r.seen_lo = a->lo;
            r.seen_hi = a->hi;
            r.seen_history = a->history;
            r.seen_writes = writes;
            return;
        }
    }
    allocation *a = allocation_at(p);
    if (a && a->live && p >= a->lo && p + size <= a->hi) {
        see(r, a, 0);
        return;
    }
    stop_kernel(where(r.current, pc) + " " + device_access(p, size, write ? "writes" : "reads", pc));
}

std::string device_name(const char *p)
{
    const allocation *a = allocation_at(p);
    return a ? target(*a, p, a->name.empty() ? 4 : a->element) : "device memory";
}

/* A new block: arrays may have been freed or named since the last, so none
 * is taken as seen. */
void start_block_device(block_runner &r)
{
    r.seen_lo = r.seen_hi = nullptr;
    r.seen = nullptr;
    r.seen_history = nullptr;
    r.seen_writes = 0;
    for (auto &recent : r.recent)
        recent = {nullptr, 0};
}

void end_block_memory(block_runner &r)
{
    count_writes(r.seen, r.seen_writes);
    for (auto &recent : r.recent)
        count_writes(recent.array, recent.writes);
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

unsigned long long emu_bytes_written(const void *base)
{
    std::lock_guard<std::mutex> hold(allocation_lock);
    allocation *a = allocation_at((const char *)base);
    return a && a->begin == base ? a->bytes_written.exchange(0) : 0;
}

bool emu_touched(const void *base)
{
    std::lock_guard<std::mutex> hold(allocation_lock);
    allocation *a = allocation_at((const char *)base);
    return a && a->begin == base && a->touched.exchange(false);
}
