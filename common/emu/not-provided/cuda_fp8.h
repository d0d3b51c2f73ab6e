#error "the CPU emulation does not provide <cuda_fp8.h>; on a GPU this compiles"
