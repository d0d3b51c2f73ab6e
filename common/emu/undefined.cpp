/* undefined.cpp: what C++ leaves undefined, and a GPU and a CPU then do
 * differently, stops a kernel instead of giving the CPU's answer.
 *
 * Kernels are compiled with -fsanitize=shift-exponent (and
 * integer-divide-by-zero, below), without the sanitizer's library: the
 * compiler calls the handler below when a shift's
 * count is negative or not below the width of the value shifted. A GPU
 * shifts every bit out (1u << 32 == 0), an x86 CPU shifts by the count
 * modulo the width (1u << 32 == 1), so code that is right on one is wrong
 * on the other, and the emulation must not pick one. */
#include "memory.h"

#include <cstdint>

namespace {

/* The compiler's descriptions of the shift, as GCC and Clang lay them out. */
struct source_location {
    const char *file;
    unsigned line, column;
};
struct type_descriptor {
    unsigned short kind, info; /* an integer's info: log2 of its bits, shifted left once, | signed */
    char name[1];
};
struct shift_data {
    source_location at;
    const type_descriptor *value, *count;
};

unsigned bits(const type_descriptor *t) { return 1u << (t->info >> 1); }
bool is_signed(const type_descriptor *t) { return t->info & 1; }

/* A count wider than a pointer comes by address (a 128-bit one). */
long long count_of(const shift_data *d, uintptr_t count)
{
    if (bits(d->count) > 8 * sizeof(uintptr_t))
        return (long long)*(const unsigned long long *)count;
    if (is_signed(d->count) && bits(d->count) < 64) {
        unsigned shift = 64 - bits(d->count);
        return (long long)((unsigned long long)count << shift) >> shift;
    }
    return (long long)count;
}

void shift_out_of_bounds(const shift_data *d, uintptr_t count, const void *pc)
{
    emu::block_runner *r = emu::runner;
    if (!r) /* host code: the CPU's answer is the one it would get anyway */
        return;
    long long by = count_of(d, count);
    unsigned width = bits(d->value);
    emu::stop_kernel(emu::where(r->current, pc) + " shifts a " + std::to_string(width) +
                     "-bit value by " + std::to_string(by) + emu::at_line(pc) +
                     ". C++ leaves a shift by a negative count, or by the value's width or more, "
                     "undefined, and machines differ: a GPU shifts every bit out (0, or -1 for a "
                     "negative value shifted right), a CPU shifts by the count modulo " + std::to_string(width) +
                     ". Keep the count between 0 and " + std::to_string(width - 1) +
                     ", and handle the case of a whole width apart (a wider type, or a test)");
}

/* A division by zero traps on x86-64 (faults.cpp reports the signal) but
 * not on arm64, which gives 0: -fsanitize=integer-divide-by-zero asks here
 * first, on every machine. */
void divided_by_zero(const void *pc)
{
    if (emu::block_runner *r = emu::runner)
        emu::stop_kernel(emu::divides_by_zero(emu::where(r->current, pc), emu::at_line(pc)));
}

} // namespace

extern "C" {
void __ubsan_handle_divrem_overflow(const void *, uintptr_t, uintptr_t) { divided_by_zero(PC); }
void __ubsan_handle_divrem_overflow_abort(const void *, uintptr_t, uintptr_t) { divided_by_zero(PC); }
void __ubsan_handle_shift_out_of_bounds(const shift_data *d, uintptr_t value, uintptr_t count)
{
    (void)value;
    shift_out_of_bounds(d, count, PC);
}
void __ubsan_handle_shift_out_of_bounds_abort(const shift_data *d, uintptr_t value, uintptr_t count)
{
    (void)value;
    shift_out_of_bounds(d, count, PC);
}
}
