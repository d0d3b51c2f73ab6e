/* lookback.cuh: the status words of decoupled look-back, for counts
 * (scan-large-arrays' stage 4 built them for any sum), given to compact and
 * radix. A tile publishes what it knows in one 64-bit word: a flag in the
 * high half, a count in the low half. One store writes both, so a reader
 * never sees a flag without its count. */
#ifndef LOOKBACK_CUH
#define LOOKBACK_CUH

enum { NOT_READY = 0, AGGREGATE = 1, PREFIX = 2 };

__device__ inline unsigned long long status_word(unsigned flag, unsigned count)
{
    return (unsigned long long)flag << 32 | count;
}

#endif
