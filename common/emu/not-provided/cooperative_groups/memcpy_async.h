#error "the CPU emulation does not provide <cooperative_groups/memcpy_async.h>; on a GPU this compiles"
