/* scan-Blelloch_library.cu: cub::BlockScan, the run table's library row, on
 * the same segments as the student's stages, with as many values per thread
 * as the last stage (ITEMS). */
#include "scan_library.cuh"
#include "scan-Blelloch.h"

static void scan_blelloch_cub(const struct args *a, int block)
{
    block_scan_library_typed<ITEMS>(a, blelloch_segment(block));
}

const struct stage scan_blelloch_library = {
    "lib", "cub::BlockScan, one segment a block", scan_blelloch_cub};
