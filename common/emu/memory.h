/* memory.h: what the files of the memory checks share among themselves;
 * emu.h says what the rest of the emulator calls. access.cpp, the funnel,
 * hands each access to the others' checks. */
#ifndef EMU_MEMORY_H
#define EMU_MEMORY_H

#include "emu.h"

#include <atomic>

namespace emu {

/* Stop the running thread's launch with a report; never returns. */
[[noreturn]] inline void stop_kernel(const std::string &why)
{
    fail_launch(why);
    abandon_thread();
}

/* device.cpp: one cudaMalloc, live or freed. */
struct allocation {
    char *begin;
    size_t bytes;
    const char *lo, *hi; /* what a kernel may touch: the named array, else all of it */
    bool live;
    std::string name; /* "" until the harness names it */
    size_t element, count;
    word_history *history = nullptr; /* one per 4-byte word of it, null if none could be mapped */
    std::atomic<unsigned long long> bytes_written{0}; /* by kernels, since emu_bytes_written asked */
    std::atomic<bool> touched{false}; /* by a kernel, since emu_touched asked */
};
allocation *allocation_at(const char *p); /* the allocation at or below p, or null */
/* "in[1025]", "16 bytes at in[1022]", or "4 bytes at byte 4000 of a
 * 4000-byte device allocation" when the harness gave no name */
std::string target(const allocation &a, const char *p, size_t size);

/* The checks access() calls, for the running thread of r. */
void check_device(block_runner &r, const char *p, size_t size, bool write, const void *pc);
void note_device(block_runner &r, const char *p, size_t size, bool write, access_kind kind,
                 const void *pc);
void check_shared(block_runner &r, unsigned char *p, size_t size, bool write, bool atomic,
                  const void *pc);
void after_race(block_runner &r);
/* The race's cause when the two threads are lanes of one warp that only a
 * shuffle, vote or match came between: ". The two are in one warp,
 * separated only by __ballot_sync (x.cu:9), which orders no memory ..." */
std::string only_collective_between(const collective_site &c);
/* The race's cause when two threads each read a word, then wrote it back:
 * ". Both threads read the word ... atomic operation (atomicAdd) ..." */
extern const char *const TWO_UPDATES;

/* A new block, for each file's checks (start_block_memory calls them). */
void start_block_device(block_runner &r);
void start_block_history(block_runner &r);
void start_block_shared(block_runner &r);

} // namespace emu

#endif
