#error "the CPU emulation does not provide <mma.h>; on a GPU this compiles"
