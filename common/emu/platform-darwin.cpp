/* platform-darwin.cpp: the emulator's platform layer (platform.h) on macOS,
 * arm64 (Apple silicon) and x86-64. Checked here by compiling and linking
 * for both with zig's macOS headers (tests/platforms/darwin-compile.sh);
 * what only a Mac can show, such as the signals' details, follows Apple's
 * published xnu and libplatform sources. */
#if defined(__APPLE__)
#include "platform.h"

#include <dlfcn.h>
#include <mach-o/dyld.h>
#include <mach-o/getsect.h>
#include <mach/mach.h>
#include <sys/sysctl.h>
#include <sys/ucontext.h>
#include <sys/wait.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace emu {

/* ---- the fiber switch ----------------------------------------------------
 * ucontext's makecontext is deprecated on macOS (and absent from its arm64
 * headers without _XOPEN_SOURCE): a few instructions enter the new stack. */
extern "C" [[noreturn]] void emu_enter_stack(char *top, void (*start)());
#if defined(__aarch64__)
asm(R"(
    .text
    .globl _emu_enter_stack
    .private_extern _emu_enter_stack
    .p2align 2
_emu_enter_stack:
    mov sp, x0
    mov x29, #0
    blr x1
    brk #1
)");
#elif defined(__x86_64__)
asm(R"(
    .text
    .globl _emu_enter_stack
    .private_extern _emu_enter_stack
_emu_enter_stack:
    movq %rdi, %rsp
    xorl %ebp, %ebp
    callq *%rsi
    ud2
)");
#else
#error "the emulation's fibers know arm64 and x86-64 Macs only"
#endif

/* The call pushes nothing on arm64 and a return address on x86-64: start
 * finds the stack 16-byte aligned, as both ABIs want. */
void run_on_stack(char *bottom, size_t bytes, void (*start)())
{
    emu_enter_stack((char *)((uintptr_t)(bottom + bytes) & ~(uintptr_t)15), start);
}

/* ---- memory ---------------------------------------------------------------- */

long memory_map_limit() { return LONG_MAX; }

size_t memory_total()
{
    uint64_t bytes = 0;
    size_t size = sizeof bytes;
    return sysctlbyname("hw.memsize", &bytes, &size, nullptr, 0) == 0 ? (size_t)bytes : 0;
}

/* Free pages and inactive ones, which the system takes back first (as
 * psutil reckons "available" on a Mac); half the memory if it will not say. */
size_t memory_available()
{
    vm_statistics64_data_t vm;
    mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
    vm_size_t page = 0;
    if (host_statistics64(mach_host_self(), HOST_VM_INFO64, (host_info64_t)&vm, &count) != KERN_SUCCESS ||
        host_page_size(mach_host_self(), &page) != KERN_SUCCESS)
        return memory_total() / 2;
    return ((size_t)vm.free_count + (size_t)vm.inactive_count) * (size_t)page;
}

unsigned usable_cores()
{
    int cores = 0;
    size_t size = sizeof cores;
    return sysctlbyname("hw.activecpu", &cores, &size, nullptr, 0) == 0 && cores > 0 ? (unsigned)cores : 0;
}

/* Image 0 is the program itself; its __DATA segment holds __data, __bss and
 * __common, every writable global. */
bool program_static_data(const char **lo, const char **hi)
{
    unsigned long size = 0;
    const uint8_t *data =
        getsegmentdata((const struct mach_header_64 *)_dyld_get_image_header(0), "__DATA", &size);
    *lo = (const char *)data;
    *hi = data ? (const char *)data + size : nullptr;
    return data != nullptr;
}

/* ---- faults -------------------------------------------------------------
 * A touch of a page mapped without access (a guard zone, a freed array, the
 * gaps between device arrays) is SIGBUS on Darwin (xnu's ux_exception:
 * KERN_PROTECTION_FAILURE), SIGSEGV on Linux: here both are BAD_ACCESS. */

static fault_kind kind_of(int sig, int code)
{
    switch (sig) {
    case SIGSEGV: return code == 0 ? WILD_POINTER : BAD_ACCESS; /* x86-64's protection fault: no address */
    case SIGBUS: return BAD_ACCESS;
    case SIGFPE: return code == FPE_INTDIV ? DIVISION_BY_ZERO : ARITHMETIC;
    default: return BAD_INSTRUCTION;
    }
}

bool read_fault(int sig, const siginfo_t *info, const void *context, fault &f)
{
    /* kill() and sigqueue() say SI_USER, SI_QUEUE (0x1000x); xnu fills a
     * fault's own codes in by the signal, whoever sent it */
    if (info->si_code >= SI_USER)
        return false;
    const ucontext_t *uc = (const ucontext_t *)context;
    f = {kind_of(sig, info->si_code), info->si_addr, nullptr, nullptr, 0};
    bool memory = sig == SIGSEGV || sig == SIGBUS;
#if defined(__aarch64__)
    const auto &ss = uc->uc_mcontext->__ss;
    f.pc = (const char *)__darwin_arm_thread_state64_get_pc(ss) + 1;
    f.sp = (const char *)__darwin_arm_thread_state64_get_sp(ss);
    /* a data abort's syndrome: bit 6 says write, not read */
    uint32_t esr = uc->uc_mcontext->__es.__esr, kind = esr >> 26 & 0x3f;
    if (memory && (kind == 0x24 || kind == 0x25))
        f.access = esr >> 6 & 1 ? 2 : 1;
#elif defined(__x86_64__)
    const auto &ss = uc->uc_mcontext->__ss;
    f.pc = (const char *)ss.__rip + 1;
    f.sp = (const char *)ss.__rsp;
    /* a page fault's (trap 14) error code: bit 1 says write */
    if (memory && uc->uc_mcontext->__es.__trapno == 14)
        f.access = uc->uc_mcontext->__es.__err & 2 ? 2 : 1;
#endif
    return true;
}

/* A jump out of the handler would leave the kernel sure that the thread is
 * still on its signal stack (its _longjmp does not say otherwise), and the
 * next fault's handler would run on the faulting stack. So the handler
 * returns, through sigreturn, which restores the signal stack's state and
 * the mask, into then() on the given stack. */
void leave_handler_for(int, void *context, void (*then)(), char *stack_top)
{
    ucontext_t *uc = (ucontext_t *)context;
    uintptr_t top = (uintptr_t)stack_top & ~(uintptr_t)15;
#if defined(__aarch64__)
    auto &ss = uc->uc_mcontext->__ss;
    __darwin_arm_thread_state64_set_pc_fptr(ss, then);
    __darwin_arm_thread_state64_set_sp(ss, top);
    __darwin_arm_thread_state64_set_fp(ss, 0);
#elif defined(__x86_64__)
    auto &ss = uc->uc_mcontext->__ss;
    ss.__rip = (uint64_t)then;
    ss.__rsp = top - 8; /* as if called: a return address's room */
    ss.__rbp = 0;
#endif
}

/* ---- symbols ---------------------------------------------------------------
 * atos (Xcode's command line tools) reads the debug information the linker
 * leaves in the object files, as long as build/ keeps them. */

/* atos's line for a level: "f<int>(int) (in run) (/path/lab.cu:42)", or
 * "0x100003f50 (in run) + 20" when it knows nothing */
static code_place parse(const std::string &text)
{
    code_place p{"", "", 0};
    size_t in = text.find(" (in ");
    if (in == std::string::npos)
        return p;
    if (text.rfind("0x", 0) != 0)
        p.function = text.substr(0, in);
    size_t open = text.rfind(" ("), colon = text.rfind(':');
    if (open != in && colon != std::string::npos && colon > open && text.back() == ')') {
        p.file = text.substr(open + 2, colon - open - 2);
        p.line = (unsigned)strtoul(text.c_str() + colon + 1, nullptr, 10);
    }
    return p;
}

bool inlined_at(const void *at, std::vector<code_place> &chain, std::string &why)
{
    Dl_info info;
    if (!dladdr(at, &info) || !info.dli_fname)
        return true;
    char program[4096];
    uint32_t size = sizeof program;
    std::string file = info.dli_fname;
    if (info.dli_fbase == (const void *)_dyld_get_image_header(0) &&
        _NSGetExecutablePath(program, &size) == 0)
        file = program;
    char command[4400], line[8192];
    snprintf(command, sizeof command, "atos -o '%s' -l %p -fullPath -i %p 2>/dev/null", file.c_str(),
             info.dli_fbase, at);
    FILE *out = popen(command, "r");
    if (!out)
        return true;
    while (fgets(line, sizeof line, out)) {
        std::string text = line;
        text = text.substr(0, text.find('\n'));
        if (!text.empty())
            chain.push_back(parse(text));
    }
    int status = pclose(out);
    if (chain.empty() && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        why = "emulation: atos is not installed (xcode-select --install): reports name no "
              "source lines";
        return false;
    }
    return true;
}

} // namespace emu

#endif
