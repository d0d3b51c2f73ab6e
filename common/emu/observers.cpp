/* observers.cpp: checks and counters that watch kernels from outside the
 * memory checks (counts.cpp is one) register here, and hear of each access,
 * warp collective, barrier and block end. A new one needs no call of its
 * own in the funnel or the scheduler, which stay as fast as they were while
 * none is registered. */
#include "emu.h"

#include <algorithm>

namespace emu {

unsigned observers;
static std::vector<const observer *> registered; /* in the order they came */

void observe(const observer &o)
{
    if (std::find(registered.begin(), registered.end(), &o) == registered.end())
        registered.push_back(&o);
    observers = (unsigned)registered.size();
}

void unobserve(const observer &o)
{
    registered.erase(std::remove(registered.begin(), registered.end(), &o), registered.end());
    observers = (unsigned)registered.size();
}

/* Each observer's `call`, where it has one. */
template <typename Call, typename... Args> static void tell(Call observer::*call, const Args &...args)
{
    for (const observer *o : registered)
        if (o->*call)
            (o->*call)(args...);
}

void tell_access(const block_runner &r, const access_event &a) { tell(&observer::on_access, r, a); }
void tell_collective(const block_runner &r, unsigned warp, unsigned lanes)
{
    tell(&observer::on_collective, r, warp, lanes);
}
void tell_barrier(const block_runner &r) { tell(&observer::on_barrier, r); }
void tell_block_end(const block_runner &r) { tell(&observer::on_block_end, r); }

} // namespace emu
