#error "the CPU emulation does not provide <cuda_bf16.h>; on a GPU this compiles"
