/* counts.cpp: what a profiler counts about memory, counted by the emulation.
 *
 * Between emu_count_begin() and emu_count_end(), this file observes the
 * kernels (observers.cpp): every load and store they make, atomics aside,
 * joins a warp request: the same instruction executed by the lanes of one
 * warp, the k-th time each lane executes it since the block's last barrier
 * and the warp's last collective (so that lanes that join a loop late, as in
 * a scan's down-sweep, meet the lanes of their own step). When its block
 * ends, each request is counted:
 * - in device memory, the distinct 32-byte sectors it touches, against the
 *   fewest that could hold the bytes it asks for;
 * - in shared memory, its wavefronts: the most distinct 4-byte words that
 *   fall in one of the 32 banks (a word several lanes read is a broadcast,
 *   one word), against the fewest that could serve its bytes;
 * - and the lanes taking part.
 * The totals are kept per instruction and added up per source line.
 * Beside them, what shows a stage's technique: launches, blocks, barriers,
 * warp collectives, atomics and volatile stores to device memory (flags),
 * and of those the ones a thread stored before its first poll: a tile that
 * publishes without waiting for another; the shared memory each block
 * touched (its distinct words, however often); the shared accesses of the
 * busiest thread of any block (a tree's depth, a serial sum's length); and
 * the loads of device memory a thread made after it first waited at a
 * warp collective (a shuffle, vote or __syncwarp) or a barrier: loads not
 * all in flight at once. Atomics and volatile loads of device memory
 * (polls) are no requests.
 *
 * A float4's copy is one 16-byte access, as on a GPU, because the
 * emulation's vector types copy all their bytes at once (cuda_runtime.h). */
#include "emu.h"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <map>
#include <mutex>
#include <unordered_map>
#include <string>
#include <vector>

namespace emu {

namespace {

struct request_key {
    const void *pc;
    unsigned warp, time;     /* the time-th execution by each lane ... */
    unsigned long long span; /* ... in this span between synchronisations */
    bool operator==(const request_key &o) const
    {
        return pc == o.pc && warp == o.warp && time == o.time && span == o.span;
    }
};
struct key_hash {
    size_t operator()(const request_key &k) const
    {
        return (size_t)k.pc * 31 + k.warp * 0x9e3779b9u + (size_t)k.time * 0x85ebca6bu +
               (size_t)k.span * 0xc2b2ae35u;
    }
};
struct executions {
    unsigned long long span;
    unsigned times;
};

struct span {
    unsigned long long at; /* a device address, or an offset in shared memory */
    unsigned size;
};

struct request {
    unsigned lanes = 0; /* a bit per lane */
    int kind = 0;       /* GLOBAL_LOAD ... SHARED_STORE */
    std::vector<span> spans;
};

/* The requests of the block this host thread runs, until it ends, and the
 * synchronisations that part its spans: the block's barriers so far, each
 * warp's collectives since the last. */
struct block_requests {
    std::unordered_map<request_key, request, key_hash> open;
    std::unordered_map<unsigned long long, executions> times; /* by (pc, thread) */
    unsigned long long barriers;
    unsigned collectives[WARPS];
};
thread_local block_requests block;

struct instruction_counts {
    int kind;
    double requests = 0, units = 0, ideal = 0, lanes = 0, bytes = 0;
};
std::mutex totals_lock;
std::map<const void *, instruction_counts> totals; /* by instruction */
access_counts events; /* the counts that are no requests', under totals_lock */
unsigned long long launches_before; /* emu::launches when counting began */
std::map<unsigned long long, double> launch_threads; /* by launch, under totals_lock */

/* What a block did beside its requests, added to events when it ends. */
struct block_events {
    double barriers, shuffles, votes, global_atomics, shared_atomics, flag_stores,
        flag_stores_before_waiting, loads_after_waiting;
};
thread_local block_events seen;
thread_local std::bitset<1024> polled; /* the block's threads that have polled a flag */
thread_local std::bitset<1024> waited; /* ... that have met a shuffle, vote or barrier */
thread_local unsigned shared_accesses[1024]; /* by thread */
thread_local std::vector<unsigned long long> shared_words; /* touched, with repeats */

/* The distinct bytes of a request's spans, and the distinct units of
 * `unit` bytes they fall in. */
void distinct(std::vector<span> &spans, unsigned unit, double &bytes, std::vector<unsigned long long> &units)
{
    std::sort(spans.begin(), spans.end(), [](const span &a, const span &b) { return a.at < b.at; });
    unsigned long long end = 0;
    bytes = 0;
    for (const span &s : spans) {
        unsigned long long from = std::max(s.at, end), to = s.at + s.size;
        if (to > from)
            bytes += (double)(to - from);
        end = std::max(end, to);
        for (unsigned long long u = s.at / unit; u <= (to - 1) / unit; u++)
            if (units.empty() || units.back() != u)
                units.push_back(u);
    }
    std::sort(units.begin(), units.end());
    units.erase(std::unique(units.begin(), units.end()), units.end());
}

void count_request(request &q, instruction_counts &c)
{
    double bytes;
    std::vector<unsigned long long> units;
    c.requests++;
    c.lanes += __builtin_popcount(q.lanes);
    if (q.kind == GLOBAL_LOAD || q.kind == GLOBAL_STORE) {
        distinct(q.spans, 32, bytes, units); /* sectors */
        c.bytes += bytes;
        c.units += (double)units.size();
        c.ideal += std::ceil(bytes / 32);
    } else {
        distinct(q.spans, 4, bytes, units); /* words */
        c.bytes += bytes;
        unsigned in_bank[32] = {0}, most = 0;
        for (unsigned long long w : units)
            most = std::max(most, ++in_bank[w % 32]);
        c.units += most;
        c.ideal += std::ceil(bytes / 128);
    }
}

void on_access(const block_runner &r, const access_event &a)
{
    if (a.shared)
        shared_accesses[r.current]++;
    if (a.shared)
        for (unsigned long long w = a.at / 4; w <= (a.at + a.size - 1) / 4; w++)
            if (shared_words.empty() || shared_words.back() != w)
                shared_words.push_back(w);
    if (a.kind == ATOMIC) {
        (a.shared ? seen.shared_atomics : seen.global_atomics)++;
        return;
    }
    if (a.kind == VOLATILE && !a.shared) {
        /* flags: how often a block polls one depends on the emulation's
         * schedule, not on the kernel, so it is no request here */
        if (!a.write) {
            polled[r.current] = true;
            return;
        }
        seen.flag_stores++;
        seen.flag_stores_before_waiting += !polled[r.current];
    }
    unsigned t = r.current;
    seen.loads_after_waiting += !a.shared && !a.write && waited[t];
    unsigned long long since = block.barriers * 0x100000001b3ull + block.collectives[t / 32];
    executions &e = block.times[((unsigned long long)(size_t)a.pc << 10) | t];
    if (e.span != since)
        e = executions{since, 0};
    request &q = block.open[request_key{a.pc, t / 32, e.times++, since}];
    q.lanes |= 1u << (t % 32);
    q.kind = a.shared ? (a.write ? SHARED_STORE : SHARED_LOAD)
                      : (a.write ? GLOBAL_STORE : GLOBAL_LOAD);
    q.spans.push_back(span{a.at, (unsigned)a.size});
}

/* warp_op in emu.cpp: 0 a __syncwarp, 1 a shuffle, the rest votes */
void on_collective(const block_runner &r, unsigned warp, unsigned lanes)
{
    block.collectives[warp]++;
    for (unsigned l = 0; l < 32; l++)
        if (lanes >> l & 1)
            waited[warp * 32 + l] = true;
    int op = r.fibers[warp * 32 + __builtin_ctz(lanes)].call.op;
    if (op == 1)
        seen.shuffles++;
    else if (op > 1)
        seen.votes++;
}

void new_span()
{
    block.barriers++;
    std::fill(block.collectives, block.collectives + WARPS, 0u);
}

void on_barrier(const block_runner &)
{
    new_span();
    waited.set();
    seen.barriers++;
}

void on_block_end(const block_runner &r)
{
    new_span(); /* the next block's spans are new ones, as after a barrier */
    std::sort(shared_words.begin(), shared_words.end());
    double footprint = 4.0 * (double)(std::unique(shared_words.begin(), shared_words.end()) -
                                      shared_words.begin());
    shared_words.clear();
    unsigned busiest = *std::max_element(shared_accesses, shared_accesses + r.threads);
    std::fill(shared_accesses, shared_accesses + r.threads, 0u);
    {
        std::lock_guard<std::mutex> hold(totals_lock);
        events.blocks++;
        events.threads += r.threads;
        events.barriers += seen.barriers;
        events.shuffles += seen.shuffles;
        events.votes += seen.votes;
        events.global_atomics += seen.global_atomics;
        events.shared_atomics += seen.shared_atomics;
        events.flag_stores += seen.flag_stores;
        events.flag_stores_before_waiting += seen.flag_stores_before_waiting;
        events.shared_footprint += footprint;
        events.busiest_thread_shared = std::max(events.busiest_thread_shared, (double)busiest);
        events.loads_after_waiting += seen.loads_after_waiting;
        events.barrier_blocks += seen.barriers > 0;
        events.atomic_blocks += seen.global_atomics > 0;
        events.publishing_blocks += seen.flag_stores > 0;
        launch_threads[launches] += r.threads;
    }
    seen = block_events{};
    polled.reset();
    waited.reset();
    if (block.open.empty())
        return;
    std::map<const void *, instruction_counts> mine;
    for (auto &entry : block.open) {
        instruction_counts &c = mine[entry.first.pc];
        c.kind = entry.second.kind;
        count_request(entry.second, c);
    }
    block.open.clear();
    block.times.clear();
    std::lock_guard<std::mutex> hold(totals_lock);
    for (auto &entry : mine) {
        instruction_counts &c = totals[entry.first];
        c.kind = entry.second.kind;
        c.requests += entry.second.requests;
        c.units += entry.second.units;
        c.ideal += entry.second.ideal;
        c.lanes += entry.second.lanes;
        c.bytes += entry.second.bytes;
    }
}

const observer counter = {on_access, on_collective, on_barrier, on_block_end};

} // namespace

} // namespace emu

using namespace emu;

void emu_count_begin()
{
    std::lock_guard<std::mutex> hold(totals_lock);
    totals.clear();
    events = access_counts{};
    launch_threads.clear();
    launches_before = launches;
    observe(counter);
}

void emu_note_library(double bytes)
{
    std::lock_guard<std::mutex> hold(totals_lock);
    events.launches++;
    events.library_bytes += bytes;
}

void emu_count_end(access_counts *all)
{
    std::lock_guard<std::mutex> hold(totals_lock);
    unobserve(counter);
    *all = events;
    all->launches += (double)(launches - launches_before);
    for (const auto &launch : launch_threads)
        all->main_threads = std::max(all->main_threads, launch.second);
    for (const auto &entry : totals) {
        const instruction_counts &c = entry.second;
        all->requests[c.kind] += c.requests;
        all->units[c.kind] += c.units;
        all->ideal[c.kind] += c.ideal;
        all->lanes[c.kind] += c.lanes;
        all->bytes[c.kind] += c.bytes;
    }
}

void emu_count_lines(void (*line)(const char *where, const access_counts *counts, void *arg), void *arg)
{
    std::map<std::pair<std::string, long>, access_counts> by_line; /* in file and line order */
    {
        std::lock_guard<std::mutex> hold(totals_lock);
        for (const auto &entry : totals) {
            const instruction_counts &c = entry.second;
            std::string where = source_line(entry.first);
            size_t colon = where.rfind(':');
            long number = colon == std::string::npos ? 0 : atol(where.c_str() + colon + 1);
            access_counts &l = by_line[{where.substr(0, colon), number}];
            l.requests[c.kind] += c.requests;
            l.units[c.kind] += c.units;
            l.ideal[c.kind] += c.ideal;
            l.lanes[c.kind] += c.lanes;
            l.bytes[c.kind] += c.bytes;
        }
    }
    for (const auto &entry : by_line) {
        std::string where = entry.first.first + ":" + std::to_string(entry.first.second);
        line(entry.first.second ? where.c_str() : "(no line)", &entry.second, arg);
    }
}
