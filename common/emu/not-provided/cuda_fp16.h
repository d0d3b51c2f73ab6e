#error "the CPU emulation does not provide <cuda_fp16.h>; on a GPU this compiles"
