/* device_launch_parameters.h, emulated: what nvcc declares for every .cu
 * (threadIdx, blockIdx, ...) is in cuda_runtime.h here. */
#include "cuda_runtime.h"
