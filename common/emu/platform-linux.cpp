/* platform-linux.cpp: the emulator's platform layer (platform.h) on Linux,
 * x86-64 and arm64. */
#if defined(__linux__)
#include "platform.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace emu {

/* ---- the fiber switch ---------------------------------------------------- */

#if defined(__x86_64__)
asm(R"(
    .text
    .globl emu_save
    .hidden emu_save
    .type emu_save, @function
emu_save:
    movq %rbx, 0(%rdi)
    movq %rbp, 8(%rdi)
    movq %r12, 16(%rdi)
    movq %r13, 24(%rdi)
    movq %r14, 32(%rdi)
    movq %r15, 40(%rdi)
    leaq 8(%rsp), %rdx
    movq %rdx, 48(%rdi)
    movq (%rsp), %rdx
    movq %rdx, 56(%rdi)
    xorl %eax, %eax
    ret
    .size emu_save, .-emu_save
    .globl emu_jump
    .hidden emu_jump
    .type emu_jump, @function
emu_jump:
    movq 0(%rdi), %rbx
    movq 8(%rdi), %rbp
    movq 16(%rdi), %r12
    movq 24(%rdi), %r13
    movq 32(%rdi), %r14
    movq 40(%rdi), %r15
    movq 48(%rdi), %rsp
    movl $1, %eax
    jmpq *56(%rdi)
    .size emu_jump, .-emu_jump
)");
#endif

void run_on_stack(char *bottom, size_t bytes, void (*start)())
{
    static thread_local ucontext_t entry;
    getcontext(&entry);
    entry.uc_stack.ss_sp = bottom;
    entry.uc_stack.ss_size = bytes;
    entry.uc_link = nullptr;
    makecontext(&entry, start, 0);
    setcontext(&entry);
    abort(); /* setcontext returns only when it fails */
}

/* ---- memory ---------------------------------------------------------------- */

long memory_map_limit()
{
    long maps = 65530; /* the kernel's default */
    if (FILE *f = fopen("/proc/sys/vm/max_map_count", "r")) {
        if (fscanf(f, "%ld", &maps) != 1)
            maps = 65530;
        fclose(f);
    }
    return maps;
}

size_t memory_total() { return (size_t)sysconf(_SC_PHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE); }

/* MemAvailable: free memory and what the kernel can take back (page cache);
 * free pages alone where the kernel (before 3.14) does not say */
size_t memory_available()
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    if (kb < 0)
        return (size_t)sysconf(_SC_AVPHYS_PAGES) * (size_t)sysconf(_SC_PAGESIZE);
    return (size_t)(kb * 1024);
}

unsigned usable_cores()
{
    cpu_set_t cores;
    return sched_getaffinity(0, sizeof cores, &cores) == 0 ? (unsigned)CPU_COUNT(&cores) : 0;
}

/* The last writable segment of the first object, the program itself */
static int find_static_data(struct dl_phdr_info *info, size_t, void *range)
{
    const char **lo_hi = (const char **)range;
    for (int k = 0; k < info->dlpi_phnum; k++) {
        const ElfW(Phdr) &h = info->dlpi_phdr[k];
        if (h.p_type == PT_LOAD && (h.p_flags & PF_W)) {
            lo_hi[0] = (const char *)(info->dlpi_addr + h.p_vaddr);
            lo_hi[1] = lo_hi[0] + h.p_memsz;
        }
    }
    return 1;
}

bool program_static_data(const char **lo, const char **hi)
{
    const char *range[2] = {nullptr, nullptr};
    dl_iterate_phdr(find_static_data, range);
    *lo = range[0];
    *hi = range[1];
    return *lo != nullptr;
}

/* ---- faults ------------------------------------------------------------- */

static fault_kind kind_of(int sig, int code)
{
    switch (sig) {
    case SIGSEGV: return code == SI_KERNEL ? WILD_POINTER : BAD_ACCESS; /* x86-64: no address */
    case SIGBUS: return BUS_ERROR;
    case SIGFPE: return code == FPE_INTDIV ? DIVISION_BY_ZERO : ARITHMETIC;
    default: return BAD_INSTRUCTION;
    }
}

/* 1 read, 2 write, 0 unknown: a page fault's error code tells on x86-64;
 * on arm64 the faulting instruction itself (qemu-user, which runs arm64
 * builds here, leaves out the kernel's record of the fault). In arm64's
 * loads and stores, bit 22 clear means a store, except in the register
 * forms' sign-extending loads (bit 23 set), and atomics do both. An
 * instruction fetched from a bad address (a call through a wild pointer)
 * cannot be read. */
static int access_of(int sig, const ucontext_t *uc, const void *address)
{
#if defined(__x86_64__)
    if (sig == SIGSEGV && uc->uc_mcontext.gregs[REG_TRAPNO] == 14)
        return uc->uc_mcontext.gregs[REG_ERR] & 2 ? 2 : 1;
#elif defined(__aarch64__)
    if ((const void *)uc->uc_mcontext.pc == address)
        return 0;
    unsigned op = *(const unsigned *)uc->uc_mcontext.pc;
    auto bits = [op](int high, int low) { return op >> low & ((1u << (high - low + 1)) - 1); };
    bool load_or_store = bits(27, 27) == 1 && bits(25, 25) == 0;
    bool register_form = bits(29, 28) == 3, general = bits(26, 26) == 0;
    bool atomic = register_form && bits(24, 24) == 0 && bits(21, 21) == 1 && bits(11, 10) == 0;
    if (sig == SIGSEGV && load_or_store && !atomic)
        return bits(22, 22) || (register_form && general && bits(23, 23)) ? 1 : 2;
#endif
    (void)sig;
    (void)uc;
    (void)address;
    return 0;
}

bool read_fault(int sig, const siginfo_t *info, const void *context, fault &f)
{
    if (info->si_code <= 0) /* kill, tgkill, sigqueue */
        return false;
    const ucontext_t *uc = (const ucontext_t *)context;
    f = {kind_of(sig, info->si_code), info->si_addr, nullptr, nullptr, access_of(sig, uc, info->si_addr)};
#if defined(__x86_64__)
    f.pc = (const char *)uc->uc_mcontext.gregs[REG_RIP] + 1;
    f.sp = (const char *)uc->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
    f.pc = (const char *)uc->uc_mcontext.pc + 1;
    f.sp = (const char *)uc->uc_mcontext.sp;
#endif
    return true;
}

/* Linux tells a handler on the signal stack by the stack pointer alone, so
 * a jump out of it is enough; only the signal's mask must be undone. */
void leave_handler_for(int sig, void *, void (*then)(), char *)
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, sig);
    pthread_sigmask(SIG_UNBLOCK, &mask, nullptr);
    then();
}

/* ---- symbols --------------------------------------------------------------- */

/* The program's file, as addr2line must open it. The link in /proc names it,
 * but under qemu-user (an arm64 build on an x86-64 machine) the process that
 * addr2line sees is qemu: only this process's own reading of the link, which
 * qemu answers, names the program. A rebuilt or deleted file falls back on
 * /proc's link, which still opens the one that runs. */
static std::string program_file()
{
    char path[4096];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length > 0) {
        path[length] = 0;
        if (access(path, R_OK) == 0)
            return path;
    }
    return "/proc/" + std::to_string(getpid()) + "/exe";
}

/* addr2line's arguments for a code address: its object file and the
 * address in that file's terms */
static bool object_of(const void *at, std::string &file, size_t &address)
{
    Dl_info info, self;
    if (!dladdr(at, &info) || !info.dli_fname)
        return false;
    file = info.dli_fname;
    /* the program itself: its name may have changed (Criterion renames the
     * processes that run tests) */
    if (dladdr((void *)&object_of, &self) && self.dli_fbase == info.dli_fbase)
        file = program_file();
    address = (size_t)at;
    if (((const ElfW(Ehdr) *)info.dli_fbase)->e_type != ET_EXEC)
        address -= (size_t)info.dli_fbase;
    return true;
}

/* addr2line's two lines for a level: "f<int>(int)" or "??", then
 * "file:42", "file:?" or "??:0", perhaps with " (discriminator 3)" */
static code_place parse(std::string function, std::string place)
{
    function = function.substr(0, function.find('\n'));
    place = place.substr(0, place.find_first_of(" \n"));
    size_t colon = place.rfind(':');
    std::string file = place.substr(0, colon);
    unsigned line = colon == std::string::npos ? 0 : (unsigned)strtoul(place.c_str() + colon + 1, nullptr, 10);
    return {function == "??" ? "" : function, file == "??" ? "" : file, line};
}

bool inlined_at(const void *at, std::vector<code_place> &chain, std::string &why)
{
    std::string file;
    size_t address;
    if (!object_of(at, file, address))
        return true;
    char command[600], function[4096], place[4096];
    snprintf(command, sizeof command, "addr2line -f -C -i -e '%s' 0x%zx 2>/dev/null", file.c_str(),
             address);
    FILE *out = popen(command, "r");
    if (!out)
        return true;
    while (fgets(function, sizeof function, out) && fgets(place, sizeof place, out))
        chain.push_back(parse(function, place));
    int status = pclose(out);
    if (chain.empty() && WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        why = "emulation: addr2line is not installed (binutils): reports name no source lines";
        return false;
    }
    return true;
}

} // namespace emu

#endif
