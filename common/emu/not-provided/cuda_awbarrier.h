#error "the CPU emulation does not provide <cuda_awbarrier.h>; on a GPU this compiles"
