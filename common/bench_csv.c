/* bench_csv.c: make bench's CSV (tools/bench.sh reads it by column name):
 * the run table's rows, one line each, appended to the file csv= names. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "driver.h"

/* make bench: one line a row, appended to csv=, which starts with the
 * columns' names when it starts empty. */
static FILE *bench_csv;
static const char bench_columns[] =
    "lab,variant,n,rows,cols,stage,check,ms,gbps,copy_share,cpu_ms,vs_cpu\n";

void bench_open(const char *path)
{
    if (!(bench_csv = fopen(path, "a")))
        die("csv=%s: %s", path, strerror(errno));
    if (fseek(bench_csv, 0, SEEK_END) == 0 && ftell(bench_csv) == 0)
        fputs(bench_columns, bench_csv);
}

void bench_row(const struct problem *p, const char *stage, const char *check, double ms,
               double gbps, double copy_share, double cpu_ms)
{
    if (!bench_csv)
        return;
    const char *variant = variant_name(p->lab, p->variant);
    size_t cols = p->cols ? p->cols : 1;
    fprintf(bench_csv, "%s,%s,%zu,%zu,%zu,%s,%s,", p->lab->name, variant ? variant : "-", p->n,
            p->n / cols, cols, stage, check);
    if (ms > 0)
        fprintf(bench_csv, "%.6f,%.2f,%.4f,%.6f,%.3f\n", ms, gbps, copy_share, cpu_ms,
                cpu_ms / ms);
    else
        fprintf(bench_csv, ",,,%.6f,\n", cpu_ms);
    fflush(bench_csv);
}

/* Where the sweep is, on one line of the terminal. */
void bench_progress(const struct problem *p, const char *label)
{
    if (!bench_csv)
        return;
    const char *variant = variant_name(p->lab, p->variant);
    fprintf(stderr, "\rbench: %s%s%s, %s = %s, stage %s\033[K", p->lab->name,
            variant ? " " : "", variant ? variant : "", p->cols ? "shape" : "n",
            size_text(p->n, p->cols), label);
}
