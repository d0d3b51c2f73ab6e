/* probe.c: one line on whether there is a CUDA GPU; exit 0 when there is. */
#include <stdio.h>

#include "workbook.h"

int main(void)
{
    char why[256];
    bool present = gpu_present(why, sizeof why);
    printf(present ? "GPU: %s\n" : "no CUDA GPU here (%s)\n", why);
    return present ? 0 : 1;
}
