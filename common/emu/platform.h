/* platform.h: what the emulator asks of the operating system that Linux and
 * Darwin (macOS) answer differently, in one place: platform-linux.cpp and
 * platform-darwin.cpp answer it, each compiling to nothing on the other
 * system. What both do alike (POSIX mmap, mprotect, sigaction, threads)
 * stays where it is used. */
#ifndef EMU_PLATFORM_H
#define EMU_PLATFORM_H

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#include <cstddef>
#include <string>
#include <vector>

namespace emu {

/* ---- the fiber switch ----------------------------------------------------
 * A place to go back to: the callee-saved registers, the stack pointer and
 * the next instruction. SAVE(p) returns 0, then 1 when JUMP(p) comes back to
 * the place it saved. glibc's _longjmp walks the thread's cleanup handlers
 * at every jump, a third of a small kernel's time: on x86-64 Linux
 * platform-linux.cpp saves and restores the registers itself. Darwin's
 * _setjmp and _longjmp touch nothing else already. */
#if defined(__linux__) && defined(__x86_64__)
typedef void *place[8];
extern "C" int emu_save(place p) __attribute__((returns_twice));
extern "C" [[noreturn]] void emu_jump(place p);
#define SAVE(p) emu_save(p)
#define JUMP(p) emu_jump(p)
#else
typedef jmp_buf place;
#define SAVE(p) _setjmp(p)
#define JUMP(p) _longjmp(p, 1)
#endif

/* Run start(), which never returns, on the stack [bottom, bottom + bytes). */
[[noreturn]] void run_on_stack(char *bottom, size_t bytes, void (*start)());

/* ---- memory ---------------------------------------------------------------- */

/* mmap's flags for the emulator's large mappings: private, anonymous, each
 * page made on its first touch, no swap set aside for them. Darwin accepts
 * and ignores MAP_NORESERVE; an old SDK may lack it. */
#if defined(MAP_NORESERVE)
const int LAZY_MAPPING = MAP_PRIVATE | MAP_ANON | MAP_NORESERVE;
#else
const int LAZY_MAPPING = MAP_PRIVATE | MAP_ANON;
#endif

/* How many separate mappings a process may have: each stack's guard zone
 * splits one (Linux's vm.max_map_count; Darwin has no such limit). */
long memory_map_limit();
size_t memory_total();     /* this machine's memory, in bytes */
size_t memory_available(); /* what it can still give without swapping, the system's estimate */
unsigned usable_cores();   /* the cores this process may run on (taskset narrows it), 0 if unknown */

/* The program's own writable static data, where the emulation puts a
 * kernel's __device__ variables (ordinary globals here): false if unknown. */
bool program_static_data(const char **lo, const char **hi);

/* ---- faults ------------------------------------------------------------- */

/* A kernel thread's fault, in the same terms on every system. */
enum fault_kind {
    NO_FAULT,
    BAD_ACCESS,       /* memory it may not touch, or that is not there */
    WILD_POINTER,     /* an address no memory can have: x86-64 says not which */
    BUS_ERROR,        /* mapped, but not usable so (Linux's SIGBUS) */
    DIVISION_BY_ZERO, /* an integer one (only x86-64 traps) */
    ARITHMETIC,       /* another arithmetic trap: INT_MIN / -1 */
    BAD_INSTRUCTION,  /* a trap the compiler put where it proved undefined behaviour */
    STACK_OVERFLOW,   /* seen by the check at an instrumented function's entry */
};
struct fault {
    fault_kind kind;
    const void *address; /* what it touched, or null when unknown */
    const void *pc;      /* one past the faulting instruction, like every pc in reports */
    const char *sp;      /* the stack pointer then, or null when unknown */
    int access;          /* 0 unknown, 1 read, 2 write */
};
/* In a handler of SIGSEGV, SIGBUS, SIGFPE and SIGILL: what happened, from
 * the handler's arguments. False when another process sent the signal. */
bool read_fault(int sig, const siginfo_t *info, const void *context, fault &f);
/* Leave the handler for then(), which never returns, on the stack below
 * stack_top. Linux calls it at once. Darwin's kernel marks the signal stack
 * in use until the handler returns, so there the interrupted context is made
 * to call it, and the handler must return at once. */
void leave_handler_for(int sig, void *context, void (*then)(), char *stack_top);

/* ---- symbols --------------------------------------------------------------- */

/* One level of the chain of inlined calls at a code address. */
struct code_place {
    std::string function; /* "" when unknown */
    std::string file;     /* as the debug information has it, "" when unknown */
    unsigned line;        /* 0 when unknown */
};
/* The chain at the instruction at address `at`, innermost first, from the
 * program's debug information (binutils' addr2line on Linux, atos on
 * Darwin). Empty when unknown; false only when the tool itself is missing,
 * with `why` saying so in a line. */
bool inlined_at(const void *at, std::vector<code_place> &chain, std::string &why);

} // namespace emu

#endif
