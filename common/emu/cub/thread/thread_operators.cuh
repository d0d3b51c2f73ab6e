/* cub/thread/thread_operators.cuh, emulated: the operators of CUB before
 * 3.0 (CUDA 12), cub::Sum, cub::Max and cub::Min; CUB 3.0 (CUDA 13) takes
 * cuda::std::plus<>, cuda::maximum<> and cuda::minimum<> instead, which
 * come with it, as on a GPU. */
#ifndef EMU_CUB_THREAD_OPERATORS_CUH
#define EMU_CUB_THREAD_OPERATORS_CUH

#include "../../cuda/functional"

namespace cub {

struct Sum {
    template <typename T> EMU_INLINE T operator()(const T &a, const T &b) const { return a + b; }
};
struct Max {
    template <typename T> EMU_INLINE T operator()(const T &a, const T &b) const { return b > a ? b : a; }
};
struct Min {
    template <typename T> EMU_INLINE T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};

} // namespace cub

#endif
