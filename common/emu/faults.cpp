/* faults.cpp: a kernel thread that crashes stops its launch, not the
 * program. The launch then fails, like a faulting kernel on a GPU, with the
 * kernel, block, thread and line in its error string.
 *
 *  - Each fiber's stack sits above a guard zone that nothing may touch, so
 *    a stack overflow faults instead of corrupting the next fiber's stack.
 *    (access.cpp checks the stack's depth at each instrumented function's
 *    entry too: one large local array can jump past a guard.)
 *  - A handler for SIGSEGV, SIGBUS, SIGFPE and SIGILL, on a signal stack of
 *    each worker's own, notes what happened (platform.h's read_fault says
 *    it in the same terms on every system) and leaves the fiber for the
 *    scheduler, which writes the report: the symbol lookup and malloc are
 *    not safe in a handler. Outside kernels these signals keep their usual
 *    effect. */
#undef _FORTIFY_SOURCE /* its longjmp check refuses jumps between stacks */
#include "emu.h"

#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdio>

namespace emu {

const size_t SIGNAL_STACK = 64 * 1024;

/* Each guard splits the stacks' mapping, costing two of the memory maps a
 * process may have (Linux's vm.max_map_count, often 65530). All but 16384
 * of them may go to guards; past that, fibers go without, and only the
 * check at function entry watches their stacks. */
static std::atomic<long> guards_left;

bool reserve_stacks(block_runner &r)
{
    void *p = mmap(nullptr, STACK_SLOT * MAX_THREADS, PROT_NONE, LAZY_MAPPING, -1, 0);
    if (p == MAP_FAILED)
        return false;
    r.stacks = (char *)p;
    stack_t now;
    if (sigaltstack(nullptr, &now) == 0 && (now.ss_flags & SS_DISABLE)) {
        void *s = mmap(nullptr, SIGNAL_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANON, -1, 0);
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

static void on_fault(int sig, siginfo_t *info, void *context)
{
    block_runner *r = runner;
    fault f;
    bool sent = !read_fault(sig, info, context, f); /* by kill */
    if (!r || !r->in_fiber || sent) { /* not a kernel's */
        sigaction(sig, &usual[watched(sig)], nullptr);
        if (sent)
            raise(sig);
        return; /* the faulting instruction runs again, to its usual end */
    }
    r->crashed = f;
    /* where abandon_thread() runs if the system needs a stack for it: the
     * top of the thread's own, which it leaves for good */
    char *top = r->stacks + r->fibers[r->current].stack * STACK_SLOT + STACK_SLOT;
    leave_handler_for(sig, context, abandon_thread, top);
}

void watch_faults()
{
    static bool watching = [] {
        guards_left = (memory_map_limit() - 16384) / 2;
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
    runner->crashed = {STACK_OVERFLOW, caller, pc, nullptr, 0};
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
    const fault &c = r.crashed;
    const char *p = (const char *)c.address;
    std::string who = where(t, c.pc), at = at_line(c.pc);
    const char *verb = c.access == 2 ? "writes" : c.access == 1 ? "reads" : "reads or writes";
    const char *bottom = r.stacks + r.fibers[t].stack * STACK_SLOT + STACK_GUARD;
    if (c.kind == STACK_OVERFLOW && at.empty())
        at = at_line(c.address); /* the call that ran out */
    if (c.kind == STACK_OVERFLOW || (c.sp && c.sp < bottom) ||
        (p >= r.stacks && p < r.stacks + STACK_SLOT * MAX_THREADS))
        return who + " used more than its " + std::to_string(STACK_BYTES / 1024) + " KB stack" + at +
               ": a large local array, or recursion too deep? Keep large arrays in shared or "
               "global memory";
    if (c.kind == DIVISION_BY_ZERO)
        return divides_by_zero(who, at);
    if (c.kind == ARITHMETIC)
        return who + " makes an arithmetic fault" + at +
               ". A GPU gives a meaningless number instead of stopping: is the divisor a count or "
               "a size that can be 0, or the most negative integer divided by -1?";
    if (c.kind == BAD_INSTRUCTION)
        return who + " runs an instruction that traps" + at +
               ": the compiler put it where it proved undefined behaviour, such as a division "
               "by zero or a function that ends without returning its value";
    if (c.kind == BUS_ERROR)
        return who + " " + verb + " address " + hex(p) + at +
               ", which is mapped but cannot be used (a bus error): a pointer to something "
               "other than a device array?";
    if (is_device(p))
        return who + " " + device_access(p, 1, verb, c.pc);
    if (c.kind == WILD_POINTER) /* x86-64 tells no address for these */
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
