#error "the CPU emulation does not provide <curand_kernel.h>; on a GPU this compiles"
