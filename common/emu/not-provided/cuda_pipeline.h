#error "the CPU emulation does not provide <cuda_pipeline.h>; on a GPU this compiles"
