/* scan-HS_library.cu: cub::BlockScan, the run table's library row, on the
 * same segments as the student's stages (one value per thread). */
#include "scan_library.cuh"
#include "scan-HS.h"

static void scan_hs_cub(const struct args *a, int block)
{
    block_scan_library_typed<1>(a, hs_segment(block));
}

const struct stage scan_hs_library = {"lib", "cub::BlockScan, one segment a block",
                                                 scan_hs_cub};
