/* shared.cpp: shared memory, and the race detector that watches it.
 *
 * Shared memory is one area per worker: the static __shared__ variables,
 * each placed where it is first used, then the launch's dynamic part. Each
 * block finds it poisoned (cuda_runtime.h says why). Each 4-byte word has a
 * record of who last wrote and read it since the last barrier. Two threads
 * that touch the same word between barriers, at least one of them writing,
 * race: on a GPU the result depends on timing. Within a warp, __syncwarp()
 * orders accesses too; shuffles, votes and matches do not (they imply no
 * memory barrier), and a race that only they came between names the latest.
 * A race stops its block at the next barrier (or the block's end): by then
 * a racing pair that spans two warps, which shows the fix is a
 * __syncthreads(), may have turned up.
 *
 * The records also say which bytes the block has written, so a read of
 * shared memory that no thread of this block wrote (what an earlier block
 * left) is caught at the read, as NVIDIA's initcheck does for device
 * memory (not shared), even where the value never reaches an output: the
 * emulation cannot follow it there. It is reported the same way, unless a
 * race turns up by the next barrier: then the write came, but too late, and
 * the race says why. */
#include "memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <mutex>

namespace emu {


static void poison(void *p, size_t bytes)
{
    unsigned char *b = (unsigned char *)p;
    for (size_t i = 0; i < bytes; i++)
        b[i] = (unsigned char)(POISON_WORD >> (8 * (i % 4)));
}

static std::mutex site_lock;
static std::vector<emu_shared_site *> sites; /* static variables, by offset */
/* Each variable is followed by as many words that no variable owns (256
 * bytes to 64 KB), so an index past its end lands where nothing lives. */
const size_t SITE_GAP_MIN = 256, SITE_GAP_MAX = 64 * 1024;
static size_t static_used = SITE_GAP_MIN;
static unsigned short site_of_word[SHARED_STATIC / 4]; /* 1 + its index in sites, or 0 */
static std::string dynamic_names; /* "sdata" or "sdata/temp": the extern arrays */
static size_t dynamic_element = 4;

void prepare_shared(block_runner &r)
{
    r.shared = (unsigned char *)mmap(nullptr, SHARED, PROT_READ | PROT_WRITE, LAZY_MAPPING, -1, 0);
    r.records = (word_record *)mmap(nullptr, SHARED / 4 * sizeof(word_record),
                                    PROT_READ | PROT_WRITE, LAZY_MAPPING, -1, 0);
    if (r.shared == MAP_FAILED || r.records == MAP_FAILED) {
        fprintf(stderr, "emulation: cannot map shared memory\n");
        exit(1);
    }
    poison(r.shared, SHARED_STATIC);
    r.phase = 1;
}

/* A new block: its dynamic shared memory poisoned, its static variables
 * poisoned as the block first touches them, no accesses recorded. */
void start_block_shared(block_runner &r)
{
    poison(r.shared + SHARED_STATIC, r.config.shared_bytes);
    r.touched.clear();
    r.raced = race();
    next_phase(r);
    r.first_phase = r.phase;
}

void next_phase(block_runner &r)
{
    r.phase++;
    std::fill(r.warp_step, r.warp_step + WARPS, 0u);
    std::fill(r.warp_synced, r.warp_synced + WARPS, 0u);
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
            static_used = at + site->bytes +
                          std::max(SITE_GAP_MIN, std::min(SITE_GAP_MAX, site->bytes));
            sites.push_back(site);
            std::fill(site_of_word + at / 4, site_of_word + (at + site->bytes + 3) / 4,
                      (unsigned short)sites.size());
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

/* Thread a's access at warp step a_step comes before thread b's now: a
 * __syncwarp() of their warp completed between. */
static bool ordered(const block_runner &r, unsigned a, unsigned a_step, unsigned b)
{
    return a / 32 == b / 32 && a_step < r.warp_synced[b / 32];
}

/* A racing pair: noted, and the block goes on to its next barrier, where
 * one that spans two warps may turn up. */
static void note_race(block_runner &r, const unsigned char *p, unsigned other, unsigned other_step,
                      bool other_wrote, const void *other_pc, bool writes, const void *pc,
                      bool update = false)
{
    unsigned w = r.current / 32;
    bool across = w != other / 32;
    if (r.raced.found && !r.raced.unwritten && (r.raced.across_warps || !across))
        return;
    unsigned long long since = r.raced.unwritten ? 0 : r.raced.accesses_since;
    collective_site between = !across && other_step != r.warp_step[w] ? r.last_collective[w]
                                                                      : collective_site();
    r.raced = {true, across, false, p, r.current, other, writes, other_wrote, pc, other_pc,
               r.fibers[r.current].in, since, 0, 0, update, between};
}

/* The array at offset at: its first byte, size, element size and name
 * ("local", or "sdata/temp" for the dynamic part); false outside them. */
static bool array_at(const block_runner &r, size_t at, size_t *lo, size_t *bytes,
                     size_t *element, std::string *name)
{
    if (at >= SHARED_STATIC) {
        std::lock_guard<std::mutex> hold(site_lock);
        *lo = SHARED_STATIC, *bytes = r.config.shared_bytes, *element = dynamic_element;
        *name = dynamic_names.empty() ? "the dynamic shared memory" : dynamic_names;
        return true;
    }
    for (const emu_shared_site *s : r.touched)
        if (at >= (size_t)s->offset && at < s->offset + s->bytes) {
            *lo = (size_t)s->offset, *bytes = s->bytes, *element = s->element, *name = s->name;
            return true;
        }
    return false;
}

/* How many elements of the array at offset at the block has written, and
 * of how many: part of it (a loop's bound, a partial tile), or none. The
 * bytes from skip to skip_end do not count (an atomic's own write). */
static void count_written(const block_runner &r, size_t at, size_t skip, size_t skip_end,
                          size_t *written, size_t *elements)
{
    size_t lo, bytes, element;
    std::string name;
    *written = *elements = 0;
    if (!array_at(r, at, &lo, &bytes, &element, &name))
        return;
    *elements = bytes / element;
    for (size_t e = 0; e < *elements; e++) {
        size_t b = lo + e * element;
        const word_record &rec = r.records[b / 4];
        *written += rec.write_phase >= r.first_phase && (rec.written >> b % 4 & 1) &&
                    (b < skip || b >= skip_end);
    }
}

/* A read of a byte no thread of the block wrote (an atomic's too: it reads
 * before it writes), noted unless a race or an earlier such read was. */
static void note_unwritten(block_runner &r, size_t at, size_t start, size_t size, bool atomic,
                           const void *pc)
{
    if (r.raced.found)
        return;
    r.raced = {true, false, true, r.shared + at, r.current, r.current, atomic, false, pc, nullptr,
               r.fibers[r.current].in, 0};
    count_written(r, at, start, atomic ? start + size : start, &r.raced.written,
                  &r.raced.elements);
}

/* " (it wrote 40 of the 64 elements of tile)", or ", nor any other element
 * of tile", as the read found the array */
static std::string share_written(const block_runner &r)
{
    size_t lo, bytes, element;
    std::string name;
    if (r.raced.elements < 2 || !array_at(r, (size_t)(r.raced.at - r.shared), &lo, &bytes,
                                          &element, &name))
        return "";
    if (!r.raced.written)
        return ", nor any other element of " + name;
    return " (it wrote " + std::to_string(r.raced.written) + " of the " +
           std::to_string(r.raced.elements) + " elements of " + name + ")";
}

/* For thread t's read of a 2-D array's [i][j] that no thread wrote: the
 * hint that it reads the tile in the order it was written, when [j][i]
 * was written and the thread reads at its own place (j = threadIdx.x,
 * i = threadIdx.y plus a multiple of blockDim.y), as a transpose whose
 * read repeats its write does. A right transpose reads [threadIdx.x][..]:
 * it meets both tests only on the diagonal, which is left out. */
static std::string read_as_written(const block_runner &r, const unsigned char *p, unsigned t)
{
    size_t at = (size_t)(p - r.shared);
    for (const emu_shared_site *s : r.touched) {
        if (at < (size_t)s->offset || at >= s->offset + s->bytes)
            continue;
        size_t k = (at - s->offset) / s->element, rows = s->bytes / s->element / s->row;
        size_t i = k / s->row, j = k % s->row;
        const uint3 &me = r.fibers[t].index;
        const dim3 &block = r.config.block;
        if (s->rank != 2 || i == j || j >= rows || i >= s->row || block.y == 1 || j != me.x ||
            i % block.y != me.y)
            return "";
        size_t b = s->offset + (j * s->row + i) * s->element;
        const word_record &rec = r.records[b / 4];
        if (rec.write_phase < r.first_phase || !(rec.written >> b % 4 & 1))
            return "";
        return ". Its mirror across the diagonal, " + std::string(s->name) + "[" +
               std::to_string(j) + "][" + std::to_string(i) + "], was written, and this thread "
               "reads at its own place, the row from threadIdx.y and the column from "
               "threadIdx.x, as the tile was written: are the two indices swapped? A transpose "
               "writes its tile in one order and reads it in the other";
    }
    return "";
}

/* What a read of an unwritten word means. The emulation cannot tell
 * whether the value reaches an output (PMPP's Brent-Kung scan reads past a
 * partial section's data and never stores what it computes there), so it
 * says both, and calls no write missing that may not be. */
static const char *const UNWRITTEN_READ =
    ". On a GPU the value read is undefined: shared memory starts each block holding "
    "whatever an earlier block left. If the value never reaches an output, the answer can "
    "still be right, but guard the read by the same bound as the write (a last, partial "
    "tile or segment). If the value is used, either the read's index goes too far (past the "
    "data of a last, partial tile; below 0 in s[i - offset]: a bounds test missing or "
    "wrong?), or a write it needs is not there (the block must write every element it "
    "reads, before a __syncthreads(): do the writes' indices reach them all?)";

static std::string unwritten_report(const block_runner &r)
{
    const race &c = r.raced;
    std::string name = shared_name(r, c.at), who = block_where(r, c.in, c.pc) + ", " +
                                                    thread_name(c.thread);
    if (c.writes)
        return who + ": an atomic on " + name + at_line(c.pc) + " updates the value there, but "
               "no thread of this block has written " + name + share_written(r) +
               ": shared memory starts each block holding whatever an earlier block left. Set "
               "every element first (counters to 0: each thread a few, then __syncthreads()), "
               "then the atomics";
    std::string swapped = read_as_written(r, c.at, c.thread);
    if (!swapped.empty())
        return who + " reads " + name + at_line(c.pc) + ", which no thread of this block has "
               "written" + share_written(r) + swapped;
    return who + " reads " + name + at_line(c.pc) + ", which no thread of this block has "
           "written" + share_written(r) + UNWRITTEN_READ;
}

std::string only_collective_between(const collective_site &c)
{
    return ". The two are in one warp, separated only by " + std::string(c.what) +
           at_line(c.pc) + ", which orders no memory (CUDA's shuffles, votes and matches imply "
           "no memory barrier): put a __syncwarp() between the two accesses, or a "
           "__syncthreads() where other warps share these words";
}

const char *const TWO_UPDATES =
    ". Both threads read the word and then wrote it back, as x[k]++ or x[k] += v does: two "
    "threads updated one word at once, and one update is lost. No barrier can order two threads "
    "running the same statement: make the update one atomic operation (atomicAdd), or give each "
    "thread a word of its own";

std::string race_report(const block_runner &r)
{
    const race &c = r.raced;
    if (c.unwritten)
        return unwritten_report(r);
    /* Two writes from one line: the threads' indices may simply collide,
     * which no barrier mends, so say both. */
    const char *same_place =
        c.writes && c.other_wrote && same_line(c.pc, c.other_pc)
            ? ". The same line wrote the word twice: either the two threads computed the same "
              "index (each must have a word of its own there), or a barrier between the two "
              "writes is missing"
            : nullptr;
    std::string report = block_where(r, c.in, c.pc) + ": a race on shared memory. " +
                         thread_name(c.thread) + (c.writes ? " writes " : " reads ") +
                         shared_name(r, c.at) + at_line(c.pc) + ", which " +
                         thread_name(c.other) + (c.other_wrote ? " wrote" : " read") +
                         at_line(c.other_pc);
    if (c.update)
        return report + TWO_UPDATES;
    if (same_place)
        return report + same_place;
    if (c.between.what)
        return report + " since the last __syncthreads() or __syncwarp()" +
               only_collective_between(c.between);
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

void after_race(block_runner &r)
{
    if (++r.raced.accesses_since > AFTER_RACE)
        stop_kernel(race_report(r));
}

const unsigned short NOBODY = 0xFFFF;

/* An access to static shared memory that no variable owns: past the end of
 * the variable below it, or before the start of the one above. */
[[noreturn]] static void outside_variables(block_runner &r, size_t at, bool write, const void *pc)
{
    const emu_shared_site *near = nullptr;
    size_t gap = SIZE_MAX;
    {
        std::lock_guard<std::mutex> hold(site_lock);
        for (const emu_shared_site *s : sites) {
            size_t lo = (size_t)s->offset, hi = lo + s->bytes;
            size_t d = at >= hi ? at - hi : lo > at ? lo - at : 0;
            if (d < gap) {
                gap = d;
                near = s;
            }
        }
    }
    std::string what = where(r.current, pc) + (write ? " writes " : " reads ");
    if (!near || SHARED_STATIC - at < gap)
        stop_kernel(what + "shared memory" + at_line(pc) + " before the start of the dynamic "
                                                              "shared memory (extern __shared__): an index that went below zero?");
    long long k = ((long long)at - near->offset) / (long long)near->element;
    if (at < (size_t)near->offset)
        k = -(((long long)near->offset - (long long)at + near->element - 1) / near->element);
    size_t elements = near->bytes / near->element;
    std::string index = near->rank == 2 ? "[" + std::to_string(k / (long long)near->row) + "][" +
                                              std::to_string(k % (long long)near->row) + "]"
                                        : "[" + std::to_string(k) + "]";
    if (at < (size_t)near->offset)
        stop_kernel(what + near->name + index + at_line(pc) + ", before the start of __shared__ " +
                           near->name + ": an index that went below zero?");
    stop_kernel(what + near->name + index + at_line(pc) + ", past the end of __shared__ " +
                       near->name + " (" + std::to_string(elements) +
                       (elements == 1 ? " element)" : " elements)") +
                       ": declare a shared array with room for every index the kernel uses (a "
                       "padded array needs room for its padding too), or test the index");
}

/* The bytes of word w, a bit each, that an access of size bytes at offset at covers. */
static inline unsigned bytes_of(size_t w, size_t at, size_t size)
{
    size_t lo = at > 4 * w ? at - 4 * w : 0, hi = std::min(at + size - 4 * w, (size_t)4);
    return (0xFu >> (4 - hi)) & (0xFu << lo);
}

void check_shared(block_runner &r, unsigned char *p, size_t size, bool write, bool atomic,
                  const void *pc)
{
    size_t at = (size_t)(p - r.shared);
    if (at >= SHARED_STATIC && at + size > SHARED_STATIC + r.config.shared_bytes) {
        stop_kernel(where(r.current, pc) + (write ? " writes " : " reads ") + shared_name(r, p) +
                    at_line(pc) + ", past the " + std::to_string(r.config.shared_bytes) +
                    " bytes of dynamic shared memory the launch asked for (the third "
                    "<<<grid, block, bytes>>> argument)");
    }
    if (at < SHARED_STATIC &&
        (!site_of_word[at / 4] || site_of_word[(at + size - 1) / 4] != site_of_word[at / 4]))
        outside_variables(r, at, write, pc);
    unsigned me = r.current, step = r.warp_step[me / 32];
    bool reads = !write || atomic;
    size_t unwritten = SIZE_MAX; /* the first byte read that no thread of the block wrote */
    bool some_written = false;
    for (size_t w = at / 4; w <= (at + size - 1) / 4; w++) {
        word_record &rec = r.records[w];
        unsigned bytes = bytes_of(w, at, size);
        unsigned mine = rec.write_phase >= r.first_phase ? rec.written : 0;
        if (reads) {
            if ((mine & bytes) != bytes && unwritten == SIZE_MAX)
                unwritten = 4 * w + __builtin_ctz(bytes & ~mine);
            some_written |= (mine & bytes) != 0;
        }
        /* An update from two threads (s[k]++): the writer read the word from
         * the instruction this read comes from, or this writer and the
         * reader both read it from one instruction. A barrier cannot mend it. */
        bool read_now = rec.read_phase == r.phase;
        if (rec.write_phase == r.phase && rec.writer != me && (rec.write_bytes & bytes) &&
            !(atomic && rec.atomic) && !ordered(r, rec.writer, rec.write_step, me))
            note_race(r, p, rec.writer, rec.write_step, true, rec.write_pc, write, pc,
                      !write && read_now && rec.reader == rec.writer && rec.read_pc == pc);
        if (rec.read_phase != r.phase) { /* no reads yet in this phase */
            rec.read_phase = r.phase;
            rec.reader = rec.other_reader = NOBODY;
            rec.read_pc = nullptr;
            rec.read_bytes = rec.other_read_bytes = 0;
        }
        if (write) {
            if (rec.reader != me && rec.reader != NOBODY && (rec.read_bytes & bytes) &&
                !ordered(r, rec.reader, rec.read_step, me))
                note_race(r, p, rec.reader, rec.read_step, false, rec.read_pc, true, pc,
                          rec.other_reader == me && rec.other_read_pc == rec.read_pc);
            if (rec.other_reader != me && rec.other_reader != NOBODY &&
                (rec.other_read_bytes & bytes) && !ordered(r, rec.other_reader, rec.other_step, me))
                note_race(r, p, rec.other_reader, rec.other_step, false, rec.other_read_pc, true,
                          pc);
            bool again = rec.write_phase == r.phase && rec.writer == me;
            rec.write_bytes = (unsigned char)(again ? rec.write_bytes | bytes : bytes);
            rec.write_phase = r.phase;
            rec.writer = (unsigned short)me;
            rec.write_step = step;
            rec.atomic = atomic;
            rec.written = (unsigned char)(mine | bytes);
            rec.write_pc = pc;
        } else {
            if (rec.reader != me) { /* remember one earlier reader too */
                rec.other_reader = rec.reader;
                rec.other_step = rec.read_step;
                rec.other_read_pc = rec.read_pc;
                rec.other_read_bytes = rec.read_bytes;
                rec.read_bytes = 0;
            }
            rec.read_bytes = (unsigned char)(rec.read_bytes | bytes);
            rec.reader = (unsigned short)me;
            rec.read_step = step;
            rec.read_pc = pc;
        }
    }
    /* A wider access, a vector or a struct, may carry lanes or padding that
     * no one uses: only one that read nothing written is surely wrong. */
    if (__builtin_expect(unwritten != SIZE_MAX, false) && (size <= 4 || !some_written))
        note_unwritten(r, unwritten, at, size, atomic, pc);
}

} // namespace emu
