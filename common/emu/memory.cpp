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
 *  - shared memory is one area per worker, and each 4-byte word has a record
 *    of who last wrote and read it since the last barrier. Two threads that
 *    touch the same word between barriers, at least one of them writing, race:
 *    on a GPU the result depends on timing. Within a warp, __syncwarp() and
 *    the warp collectives order accesses too.
 *
 * An access out of bounds stops the kernel at once. A race stops its block
 * at the next barrier (or the block's end): by then a racing pair that spans
 * two warps, which shows the fix is a __syncthreads(), may have turned up.
 * Reports give the kernel, block, threads and source lines involved. */
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

struct allocation {
    char *begin;
    size_t bytes;
    const char *lo, *hi; /* what a kernel may touch: the named array, else all of it */
    bool live;
    std::string name; /* "" until the harness names it */
    size_t element, count;
};
static std::vector<allocation *> allocations; /* in address order; kept when freed */
static std::mutex allocation_lock;

static size_t round_up(size_t bytes) { return (bytes + PAGE - 1) / PAGE * PAGE; }

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
    allocations.push_back(new allocation{p, bytes, p, p + bytes, true, "", 1, bytes});
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
    mmap(a->begin, round_up(a->bytes ? a->bytes : 1), PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
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

/* Outside the fast path of access(): not the array last seen. */
static void check_device(block_runner &r, const char *p, size_t size, bool write, const void *pc)
{
    const allocation *a = allocation_at(p);
    if (a && a->live && p >= a->lo && p + size <= a->hi) {
        r.seen_lo = a->lo;
        r.seen_hi = a->hi;
        return;
    }
    fail_launch(where(r.current, pc) + " " + device_access(p, size, write ? "writes" : "reads", pc));
    abandon_thread();
}

/* ---- shared memory ----------------------------------------------------------- */

static std::mutex site_lock;
static std::vector<emu_shared_site *> sites; /* static variables, by offset */
static size_t static_used;
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
            static_used = at + site->bytes;
            sites.push_back(site);
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
    if (++r.raced.accesses_since > AFTER_RACE) {
        fail_launch(race_report(r));
        abandon_thread();
    }
}

const unsigned short NOBODY = 0xFFFF;

static void check_shared(block_runner &r, unsigned char *p, size_t size, bool write, bool atomic,
                         const void *pc)
{
    size_t at = (size_t)(p - r.shared);
    if (at >= SHARED_STATIC && at + size > SHARED_STATIC + r.config.shared_bytes) {
        fail_launch(where(r.current, pc) + (write ? " writes " : " reads ") + shared_name(r, p) +
                    at_line(pc) + ", past the " + std::to_string(r.config.shared_bytes) +
                    " bytes of dynamic shared memory the launch asked for (the third "
                    "<<<grid, block, bytes>>> argument)");
        abandon_thread();
    }
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
 * comparisons more than any other access. */
static inline void access(void *addr, size_t size, bool write, const void *pc)
{
    block_runner *r = runner;
    if (!r)
        return;
    const char *p = (const char *)addr;
    if ((size_t)(p - (const char *)r->shared) < SHARED)
        check_shared(*r, (unsigned char *)addr, size, write, false, pc);
    else if ((p < r->seen_lo || p + size > r->seen_hi) && is_device(p))
        check_device(*r, p, size, write, pc);
    if (__builtin_expect(r->raced.found, false))
        after_race(*r);
}

void note_atomic(void *p, size_t size, const void *pc)
{
    block_runner *r = runner;
    if (r && (size_t)((unsigned char *)p - r->shared) < SHARED)
        check_shared(*r, (unsigned char *)p, size, true, true, pc);
    else if (r && is_device(p))
        check_device(*r, (const char *)p, size, true, pc);
}

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
void __tsan_read1(void *p) { access(p, 1, false, PC); }
void __tsan_read2(void *p) { access(p, 2, false, PC); }
void __tsan_read4(void *p) { access(p, 4, false, PC); }
void __tsan_read8(void *p) { access(p, 8, false, PC); }
void __tsan_read16(void *p) { access(p, 16, false, PC); }
void __tsan_write1(void *p) { access(p, 1, true, PC); }
void __tsan_write2(void *p) { access(p, 2, true, PC); }
void __tsan_write4(void *p) { access(p, 4, true, PC); }
void __tsan_write8(void *p) { access(p, 8, true, PC); }
void __tsan_write16(void *p) { access(p, 16, true, PC); }
void __tsan_unaligned_read2(void *p) { access(p, 2, false, PC); }
void __tsan_unaligned_read4(void *p) { access(p, 4, false, PC); }
void __tsan_unaligned_read8(void *p) { access(p, 8, false, PC); }
void __tsan_unaligned_read16(void *p) { access(p, 16, false, PC); }
void __tsan_unaligned_write2(void *p) { access(p, 2, true, PC); }
void __tsan_unaligned_write4(void *p) { access(p, 4, true, PC); }
void __tsan_unaligned_write8(void *p) { access(p, 8, true, PC); }
void __tsan_unaligned_write16(void *p) { access(p, 16, true, PC); }
void __tsan_volatile_read1(void *p) { access(p, 1, false, PC); }
void __tsan_volatile_read2(void *p) { access(p, 2, false, PC); }
void __tsan_volatile_read4(void *p) { access(p, 4, false, PC); }
void __tsan_volatile_read8(void *p) { access(p, 8, false, PC); }
void __tsan_volatile_read16(void *p) { access(p, 16, false, PC); }
void __tsan_volatile_write1(void *p) { access(p, 1, true, PC); }
void __tsan_volatile_write2(void *p) { access(p, 2, true, PC); }
void __tsan_volatile_write4(void *p) { access(p, 4, true, PC); }
void __tsan_volatile_write8(void *p) { access(p, 8, true, PC); }
void __tsan_volatile_write16(void *p) { access(p, 16, true, PC); }
void __tsan_read_range(void *p, unsigned long size) { access(p, size, false, PC); }
void __tsan_write_range(void *p, unsigned long size) { access(p, size, true, PC); }
void __tsan_vptr_read(void **) {}
void __tsan_vptr_update(void **, void *) {}
}
