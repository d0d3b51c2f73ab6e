/* access.cpp: the one funnel every load and store of a kernel goes through.
 *
 * Kernels are compiled with -fsanitize=thread, but without ThreadSanitizer's
 * library: the compiler then calls __tsan_read4(address) and friends before
 * each load and store, and this file answers those calls (runtime.cpp's
 * atomics come here too). Outside a kernel they return at once. Inside one,
 * access() hands each to the checks of the memory it touches: shared memory
 * to the race detector (shared.cpp), device memory to the bounds check
 * (device.cpp) and its history between blocks (history.cpp); then tells
 * the observers (observers.cpp), if any. One inline function for every
 * access keeps the common case fast and the checks in one order. */
#include "memory.h"

#include <cstring>

namespace emu {

/* The program's writable static data, where a kernel's __device__
 * variables lie (the emulation compiles them as ordinary globals): their
 * accesses are counted as device memory's, though no bounds or races are
 * checked there. */
static const char *static_lo, *static_hi;
[[maybe_unused]] static const bool found_static_data = program_static_data(&static_lo, &static_hi);

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
    } else if (p >= static_lo && p + size <= static_hi) {
        device = true;
    }
    if (__builtin_expect(observers != 0, false) && (device || in_shared < SHARED))
        tell_access(*r, {device ? (unsigned long long)(size_t)p : in_shared, size, write, !device,
                         kind, pc});
    if (__builtin_expect(r->raced.found, false))
        after_race(*r);
}

void note_atomic(void *p, size_t size, const void *pc) { access(p, size, true, ATOMIC, pc); }

/* A new block: every check starts afresh. */
void start_block_memory(block_runner &r)
{
    start_block_device(r);
    start_block_history(r);
    start_block_shared(r);
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
        stack_overflow(pc, caller);
}

static void leave()
{
    if (block_runner *r = runner)
        r->fibers[r->current].in.depth--;
}

} // namespace emu

using namespace emu;

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
/* The address a copy's store is counted at: its load's, less one, still
 * within the call (symbols.cpp looks one byte before a return address), so
 * that the two are two instructions to the counts, at one line. */
#define STORE_PC ((const char *)PC - 1)

/* cuda_runtime.h's copy of a vector type (a float4): one access each way,
 * at the kernel's line */
void emu_vector_copy(void *to, const void *from, unsigned long size)
{
    access((void *)from, size, false, PLAIN, PC);
    access(to, size, true, PLAIN, STORE_PC);
    memcpy(to, from, size);
}
/* clang hands a kernel's memcpy, memmove and memset to these (gcc calls the
 * C library's, unseen): the bytes they read and write are accesses too */
void *__tsan_memcpy(void *to, const void *from, unsigned long size)
{
    access((void *)from, size, false, PLAIN, PC);
    access(to, size, true, PLAIN, STORE_PC);
    return memcpy(to, from, size);
}
void *__tsan_memmove(void *to, const void *from, unsigned long size)
{
    access((void *)from, size, false, PLAIN, PC);
    access(to, size, true, PLAIN, STORE_PC);
    return memmove(to, from, size);
}
void *__tsan_memset(void *to, int c, unsigned long size)
{
    access(to, size, true, PLAIN, PC);
    return memset(to, c, size);
}
void __tsan_read_range(void *p, unsigned long size) { access(p, size, false, PLAIN, PC); }
void __tsan_write_range(void *p, unsigned long size) { access(p, size, true, PLAIN, PC); }
void __tsan_vptr_read(void **) {}
void __tsan_vptr_update(void **, void *) {}
}
