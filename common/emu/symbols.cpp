/* symbols.cpp: the names and source lines in reports, read from the
 * program's debug information (platform.h's inlined_at: addr2line on
 * Linux, atos on a Mac), once per address.
 *
 * At a code address, addr2line -i gives the chain of functions inlined
 * there, innermost first. A kernel thread's calls, outermost first, are
 * emu_run_body (cuda_runtime.h), then the launch's lambda, then the kernel:
 * its name is the one after the lambda, whether the compiler inlined it or
 * not, launched by name or through a pointer. */
#include "emu.h"

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

/* A level as reports use it: the file relative to the working directory
 * when under it, and "file:42" */
static frame frame_of(const code_place &p)
{
    std::string file = p.file;
    char here[4096];
    if (getcwd(here, sizeof here) && file.rfind(std::string(here) + "/", 0) == 0)
        file = file.substr(strlen(here) + 1); /* tests/emu/emu_kernels.cu */
    return {p.function, file, p.line && !file.empty() ? file + ":" + std::to_string(p.line) : ""};
}

/* The chain of inlined calls at return address pc, innermost first.
 * Called with lookup_lock held. */
static const std::vector<frame> &frames_at(const void *pc)
{
    auto hit = known.find(pc);
    if (hit != known.end())
        return hit->second;
    std::vector<frame> &chain = known[pc];
    std::vector<code_place> levels;
    std::string why;
    static bool told;
    /* pc is a return address: the call is before it */
    if (pc && !inlined_at((const char *)pc - 1, levels, why) && !told) {
        told = true;
        fprintf(stderr, "%s\n", why.c_str());
    }
    for (const code_place &p : levels)
        chain.push_back(frame_of(p));
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
