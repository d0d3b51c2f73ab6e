/* faults.cpp: a kernel thread that crashes stops its launch, not the
 * program. The launch then fails, like a faulting kernel on a GPU, with the
 * kernel, block, thread and line in its error string.
 *
 *  - Each fiber's stack sits above a guard zone that nothing may touch, so
 *    a stack overflow faults instead of corrupting the next fiber's stack.
 *    (access.cpp checks the stack's depth at each instrumented function's
 *    entry too: one large local array can jump past a guard.)
 *  - A handler for SIGSEGV, SIGBUS and SIGFPE, on a signal stack of each
 *    worker's own, notes what happened and leaves the fiber for the
 *    scheduler, which writes the report: addr2line and malloc are not safe
 *    in a handler. Outside kernels these signals keep their usual effect. */
#undef _FORTIFY_SOURCE /* its longjmp check refuses jumps between stacks */
#include "emu.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdio>

namespace emu {

const size_t SIGNAL_STACK = 64 * 1024;

/* Each guard splits the stacks' mapping, costing two of the memory maps a
 * process may have (vm.max_map_count, often 65530). All but 16384 of them
 * may go to guards; past that, fibers go without, and only the check at
 * function entry watches their stacks. */
static std::atomic<long> guards_left;

bool reserve_stacks(block_runner &r)
{
    void *p = mmap(nullptr, STACK_SLOT * MAX_THREADS, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return false;
    r.stacks = (char *)p;
    stack_t now;
    if (sigaltstack(nullptr, &now) == 0 && (now.ss_flags & SS_DISABLE)) {
        void *s = mmap(nullptr, SIGNAL_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
        if (s != MAP_FAILED) {
            stack_t mine = {};
            mine.ss_sp = s;
            mine.ss_size = SIGNAL_STACK;
            sigaltstack(&mine, nullptr);
        }
    }
    return true;
}

/* Stacks are addresses only until their first use. */
bool map_stack(block_runner &r, unsigned s)
{
    stack &k = r.stacks_of[s];
    char *bottom = r.stacks + s * STACK_SLOT + STACK_GUARD;
    if (!k.mapped) {
        char *from = guards_left-- > 0 ? bottom : bottom - STACK_GUARD;
        k.mapped = mprotect(from, bottom + STACK_BYTES - from, PROT_READ | PROT_WRITE) == 0;
    }
    return k.mapped;
}

/* ---- the handler -------------------------------------------------------- */

/* SIGILL too: where the compiler proves undefined behaviour (a division by
 * a zero it can see) it may put an instruction that traps. */
std::string divides_by_zero(const std::string &who, const std::string &at)
{
    return who + " divides an integer by zero" + at +
           ". A GPU gives a meaningless number instead of stopping: is the divisor a count or a "
           "size that can be 0?";
}

static const int WATCHED[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction usual[4];

static int watched(int sig)
{
    return sig == SIGSEGV ? 0 : sig == SIGBUS ? 1 : sig == SIGFPE ? 2 : 3;
}

/* The faulting instruction (as a return address, one past, like every pc
 * in reports) and the stack pointer then */
static void registers(const void *context, crash &c)
{
    const ucontext_t *uc = (const ucontext_t *)context;
#if defined(__x86_64__)
    c.pc = (const char *)uc->uc_mcontext.gregs[REG_RIP] + 1;
    c.sp = (const char *)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    c.pc = (const char *)uc->uc_mcontext.pc + 1;
    c.sp = (const char *)uc->uc_mcontext.sp;
#else
    (void)uc;
#endif
}

/* 1 read, 2 write, 0 unknown: a page fault's error code tells on x86-64;
 * on arm64 the faulting instruction itself (qemu-user, which runs arm64
 * builds here, leaves out the kernel's record of the fault). In arm64's
 * loads and stores, bit 22 clear means a store, except in the register
 * forms' sign-extending loads (bit 23 set), and atomics do both. */
static int access_of(int sig, const void *context)
{
#if defined(__x86_64__)
    const ucontext_t *uc = (const ucontext_t *)context;
    if (sig == SIGSEGV && uc->uc_mcontext.gregs[REG_TRAPNO] == 14)
        return uc->uc_mcontext.gregs[REG_ERR] & 2 ? 2 : 1;
#elif defined(__aarch64__) && defined(__linux__)
    const ucontext_t *uc = (const ucontext_t *)context;
    unsigned op = *(const unsigned *)uc->uc_mcontext.pc;
    auto bits = [op](int high, int low) { return op >> low & ((1u << (high - low + 1)) - 1); };
    bool load_or_store = bits(27, 27) == 1 && bits(25, 25) == 0;
    bool register_form = bits(29, 28) == 3, general = bits(26, 26) == 0;
    bool atomic = register_form && bits(24, 24) == 0 && bits(21, 21) == 1 && bits(11, 10) == 0;
    if (sig == SIGSEGV && load_or_store && !atomic)
        return bits(22, 22) || (register_form && general && bits(23, 23)) ? 1 : 2;
#endif
    (void)sig;
    (void)context;
    return 0;
}

static void on_fault(int sig, siginfo_t *info, void *context)
{
    block_runner *r = runner;
    if (!r || !r->in_fiber || info->si_code <= 0) { /* not a kernel's, or sent by kill */
        sigaction(sig, &usual[watched(sig)], nullptr);
        if (info->si_code <= 0)
            raise(sig);
        return; /* the faulting instruction runs again, to its usual end */
    }
    r->crashed = {sig, info->si_code, info->si_addr, nullptr, nullptr, access_of(sig, context)};
    registers(context, r->crashed);
    sigset_t mask; /* leaving by a jump skips the return that would unblock it */
    sigemptyset(&mask);
    sigaddset(&mask, sig);
    pthread_sigmask(SIG_UNBLOCK, &mask, nullptr);
    abandon_thread();
}

void watch_faults()
{
    static bool watching = [] {
        long maps = 65530;
        if (FILE *f = fopen("/proc/sys/vm/max_map_count", "r")) {
            if (fscanf(f, "%ld", &maps) != 1)
                maps = 65530;
            fclose(f);
        }
        guards_left = (maps - 16384) / 2;
        struct sigaction mine = {};
        mine.sa_sigaction = on_fault;
        mine.sa_flags = SA_SIGINFO | SA_ONSTACK;
        sigemptyset(&mine.sa_mask);
        for (int sig : WATCHED)
            sigaction(sig, &mine, &usual[watched(sig)]);
        return true;
    }();
    (void)watching;
}

void stack_overflow(const void *pc, const void *caller)
{
    runner->crashed = {STACK_OVERFLOW, 0, caller, pc, nullptr, 0};
    abandon_thread();
}

/* ---- the report ------------------------------------------------------- */

static std::string hex(const void *p)
{
    char text[32];
    snprintf(text, sizeof text, "%#zx", (size_t)p);
    return text;
}

std::string crash_report(const block_runner &r, unsigned t)
{
    const crash &c = r.crashed;
    const char *p = (const char *)c.address;
    std::string who = where(t, c.pc), at = at_line(c.pc);
    const char *verb = c.access == 2 ? "writes" : c.access == 1 ? "reads" : "reads or writes";
    const char *bottom = r.stacks + r.fibers[t].stack * STACK_SLOT + STACK_GUARD;
    if (c.signal == STACK_OVERFLOW && at.empty())
        at = at_line(c.address); /* the call that ran out */
    if (c.signal == STACK_OVERFLOW || (c.sp && c.sp < bottom) ||
        (p >= r.stacks && p < r.stacks + STACK_SLOT * MAX_THREADS))
        return who + " used more than its " + std::to_string(STACK_BYTES / 1024) + " KB stack" + at +
               ": a large local array, or recursion too deep? Keep large arrays in shared or "
               "global memory";
    if (c.signal == SIGFPE && c.code == FPE_INTDIV)
        return divides_by_zero(who, at);
    if (c.signal == SIGFPE)
        return who + " makes an arithmetic fault" + at +
               ". A GPU gives a meaningless number instead of stopping: is the divisor a count or "
               "a size that can be 0, or the most negative integer divided by -1?";
    if (c.signal == SIGILL)
        return who + " runs an instruction that traps" + at +
               ": the compiler put it where it proved undefined behaviour, such as a division "
               "by zero or a function that ends without returning its value";
    if (c.signal == SIGBUS)
        return who + " " + verb + " address " + hex(p) + at +
               ", which is mapped but cannot be used (a bus error): a pointer to something "
               "other than a device array?";
    if (is_device(p))
        return who + " " + device_access(p, 1, verb, c.pc);
    if (c.code == SI_KERNEL) /* x86-64 tells no address for these */
        return who + " " + verb + " through a wild pointer" + at +
               ", to an address no memory can have: a pointer that was never set, or index "
               "arithmetic gone far astray?";
    if ((size_t)p < 65536)
        return who + " " + verb + " through a null pointer" + at + " (address " + hex(p) +
               "): an array that was never allocated, or a pointer argument left NULL?";
    return who + " " + verb + " address " + hex(p) + at +
           ", where no memory is mapped and no device array is: a pointer that was never set, a "
           "host pointer passed to the kernel, or index arithmetic gone far astray?";
}

} // namespace emu
