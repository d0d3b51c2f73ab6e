/* driver.h: what the run program's parts share; only they include it.
 * driver.c: options and main; run_table.c: make run's table and sweep;
 * bench_csv.c: its rows for make bench; judge.c: once=, technique= and
 * time=, the runs grading asks for; seal.c: the seal on the records those
 * leave for the grader. */
#ifndef DRIVER_H
#define DRIVER_H
#include "workbook.h"
#include "technique.h"

enum { WARMUP = 3, REPS = 20, STAGE_SECONDS = 60, UNDER_TOOL_TIMES = 10 };

struct run_options {
    size_t n;
    size_t cols;         /* a matrix lab's columns (n = rows * cols); 0 for the others */
    const char *stages;  /* STAGE's filter; NULL: every stage */
    const char *variant; /* NULL: every variant */
    uint64_t seed;
    int block;
    bool sweep;
    bool once; /* check each stage once, time nothing */
    const char *dump, *judge; /* grading: where results go, or whence they are judged */
    bool all_cases;           /* dump every grading case, the k-th into DUMP/k */
    const char *csv;          /* make bench: the file the rows are appended to */
    const char *technique;    /* stages whose technique is counted: an id, or "all" */
    const char *time;         /* stages timed for the grader: an id, or "all" */
};

/* driver.c. What only the lab and the GPU can judge; dies at the first thing
 * wrong. Returns the one variant asked for, or -1 for every variant. */
int check_options(const struct lab *lab, const struct run_options *o);
/* Stage s gets STAGE_SECONDS from watch to unwatch; then the run stops,
 * saying which stage did not finish (`what`: whose). */
void watch(const char *what, const struct stage *s);
void unwatch(void);

/* run_table.c */
struct job {
    struct problem *p;
    const struct stage *s;
};
void launch_once(void *ctx); /* a struct job's launch, to be timed */
/* The run table of one variant. Returns false if a stage was wrong. */
bool run_table(const struct lab *lab, int variant, const struct run_options *opt);

/* bench_csv.c: make bench's CSV. bench_open names the file each row is
 * appended to from then on; without it the others do nothing. */
void bench_open(const char *path);
void bench_row(const struct problem *p, const char *stage, const char *check, double ms,
               double gbps, double copy_share, double cpu_ms);
void bench_progress(const struct problem *p, const char *label);

/* judge.c: each returns false when a stage was wrong (or its technique not
 * shown). */
bool check_once(const struct lab *lab, int variant, const struct run_options *opt);
bool dump_cases(const struct lab *lab, struct run_options *o);
bool check_techniques(const struct lab *lab, const struct run_options *opt);
bool time_stages(const struct lab *lab, const struct run_options *o);

/* seal.c */
enum { RECORD_MAX = 16384 }; /* a record's bytes, its seal included */
void write_sealed(char *text, int len, const char *dir, const char *name);
const char *seal_check(const unsigned char key[16], char *text, size_t len, char **seal);
long read_whole(const char *dir, const char *name, char *text);
void grader_key(const char *what, const char *id, const char *dir, unsigned char key[16]);

#endif
