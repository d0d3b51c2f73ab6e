/* symbols.cpp: the names and source lines in reports, read from the
 * program's debug information by addr2line (binutils), once per address.
 *
 * At a code address, addr2line -i gives the chain of functions inlined
 * there, innermost first. A kernel thread's calls, outermost first, are
 * emu_run_body (cuda_runtime.h), then the launch's lambda, then the kernel:
 * its name is the one after the lambda, whether the compiler inlined it or
 * not, launched by name or through a pointer. */
#include "emu.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>

namespace emu {

/* One level of the chain of inlined calls at a code address. */
struct frame {
    std::string function; /* "" when addr2line cannot tell */
    std::string file;     /* relative to the working directory when under it */
    std::string line;     /* "file:42", or "" when unknown */
};

static std::mutex lookup_lock;
static std::map<const void *, std::vector<frame>> known;

/* "common/emu/": reports point past the emulator's own headers */
static const std::string EMU_DIR =
    std::string(__FILE__).substr(0, std::string(__FILE__).rfind('/') + 1);

static bool own_code(const std::string &file)
{
    return file.find(EMU_DIR) == std::string::npos && file.rfind("/usr/", 0) != 0;
}

/* "f<int>(int)" -> "f<int>": the group that ends the name, if it ends with
 * `close`, goes, nested groups and all. */
static void erase_last_group(std::string &name, char open, char close)
{
    if (name.empty() || name.back() != close)
        return;
    int depth = 0;
    for (size_t k = name.size(); k-- > 0;)
        if (name[k] == close)
            depth++;
        else if (name[k] == open && --depth == 0) {
            name.erase(k);
            return;
        }
}

/* "void scan<int>(int const*, int) [clone .cold]" -> "scan<int>" */
static std::string bare(std::string name)
{
    name = name.substr(0, name.find(" [clone"));
    erase_last_group(name, '(', ')'); /* the parameters */
    int depth = 0; /* the return type ends at the last space outside <> and () */
    for (size_t k = name.size(); k-- > 0;) {
        char c = name[k];
        depth += (c == '>' || c == ')') - (c == '<' || c == '(');
        if (c == ' ' && depth == 0)
            return name.substr(k + 1);
    }
    return name;
}

/* "std::f<int>" -> "f", to compare two names for the same function */
static std::string identifier(const std::string &name)
{
    std::string b = bare(name);
    erase_last_group(b, '<', '>');
    size_t colons = b.rfind("::");
    return colons == std::string::npos ? b : b.substr(colons + 2);
}

static frame parse(std::string function, std::string place)
{
    function = function.substr(0, function.find('\n'));
    place = place.substr(0, place.find_first_of(" \n"));
    char here[4096];
    if (getcwd(here, sizeof here) && place.rfind(std::string(here) + "/", 0) == 0)
        place = place.substr(strlen(here) + 1); /* tests/emu/emu_kernels.cu:42 */
    size_t colon = place.rfind(':');
    std::string file = place.substr(0, colon), number = place.substr(colon + 1);
    bool unknown = colon == std::string::npos || file == "??" || number == "?" || number == "0";
    return {function == "??" ? "" : function, file, unknown ? "" : place};
}

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
static bool object_of(const void *pc, std::string &file, size_t &address)
{
    Dl_info info, self;
    if (!pc || !dladdr(pc, &info) || !info.dli_fname)
        return false;
    file = info.dli_fname;
    /* the program itself: its name may have changed (Criterion renames the
     * processes that run tests) */
    if (dladdr((void *)&object_of, &self) && self.dli_fbase == info.dli_fbase)
        file = program_file();
    address = (size_t)pc - 1; /* pc is a return address: the call is before it */
    if (((const ElfW(Ehdr) *)info.dli_fbase)->e_type != ET_EXEC)
        address -= (size_t)info.dli_fbase;
    return true;
}

/* The chain of inlined calls at return address pc, innermost first.
 * Called with lookup_lock held. */
static const std::vector<frame> &frames_at(const void *pc)
{
    auto hit = known.find(pc);
    if (hit != known.end())
        return hit->second;
    std::vector<frame> &chain = known[pc];
    std::string file;
    size_t address;
    if (!object_of(pc, file, address))
        return chain;
    char command[600], function[4096], place[4096];
    snprintf(command, sizeof command, "addr2line -f -C -i -e '%s' 0x%zx 2>/dev/null", file.c_str(),
             address);
    FILE *out = popen(command, "r");
    if (!out)
        return chain;
    while (fgets(function, sizeof function, out) && fgets(place, sizeof place, out))
        chain.push_back(parse(function, place));
    pclose(out);
    /* addr2line names the innermost of several by the enclosing symbol when
     * it has no linkage name (a static function): that name is no use */
    if (chain.size() > 1 && identifier(chain[0].function) == identifier(chain.back().function))
        chain[0].function = "";
    return chain;
}

std::string source_line(const void *pc)
{
    std::lock_guard<std::mutex> hold(lookup_lock);
    for (const frame &f : frames_at(pc))
        if (own_code(f.file) && !f.line.empty())
            return f.line;
    return "";
}

/* A lambda, by the names compilers give it: never the kernel */
static bool lambda(const std::string &function)
{
    return function.find("lambda") != std::string::npos || bare(function) == "operator()";
}

std::string at_line(const void *pc)
{
    std::string line = source_line(pc);
    return line.empty() ? "" : " (" + line + ")";
}

bool same_line(const void *a, const void *b)
{
    if (a == b)
        return true;
    std::string line = source_line(a);
    return !line.empty() && line == source_line(b);
}

std::string kernel_name(const calls &in, const void *pc, const char *fallback)
{
    std::lock_guard<std::mutex> hold(lookup_lock);
    std::vector<const frame *> chain; /* outermost first */
    auto add = [&](const void *at) {
        const std::vector<frame> &inlined = frames_at(at);
        for (auto k = inlined.rbegin(); k != inlined.rend(); ++k)
            chain.push_back(&*k);
    };
    /* at[0] returns to the emulator; each later one is a call site in the
     * function called before it */
    for (unsigned d = 1; d < std::min(in.depth, CALLERS); d++)
        add(in.at[d]);
    if (in.depth <= CALLERS)
        add(pc);
    /* A chain that does not start in emu_run_body misses calls (through
     * code not instrumented): it cannot tell which is the kernel. */
    size_t k = 0;
    while (k < chain.size() && chain[k]->file.find(EMU_DIR) != std::string::npos)
        k++;
    k++; /* the launch's lambda */
    if (k > 1 && k < chain.size() && !chain[k]->function.empty() && !lambda(chain[k]->function))
        return bare(chain[k]->function);
    return fallback;
}

} // namespace emu
