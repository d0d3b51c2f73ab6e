/* driver.c: `make run` for any lab. Checks each stage once, then times it
 * and prints the run table: time, effective bandwidth, share of the copy
 * roofline, and speedups over the previous stage and over the CPU.
 *
 *   run [n=2^24] [stage=ID] [seed=S] [block=256] [sweep=0|1]
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workbook.h"

extern const struct lab *const workbook_lab;

enum { WARMUP = 3, REPS = 20, STAGE_SECONDS = 60 };

/* A kernel that never finishes must not freeze the terminal: each stage gets
 * STAGE_SECONDS for its check and its timings, then the run stops saying which. */
static char running[160];

static void on_alarm(int sig)
{
    (void)sig;
    static const char after[] = " did not finish: a kernel that never returns usually "
                                "has a loop whose index never reaches its bound\n";
    if (write(STDOUT_FILENO, running, strlen(running)) < 0 ||
        write(STDOUT_FILENO, after, sizeof after - 1) < 0)
        _exit(3);
    _exit(3);
}

static void watch(const char *what, const struct stage *s)
{
    snprintf(running, sizeof running, "\n%s stage %s (%s)", what, s->id, s->idea);
    alarm(STAGE_SECONDS);
}

struct job {
    struct problem *p;
    const struct stage *s;
};

static void launch_once(void *ctx)
{
    struct job *j = ctx;
    j->s->launch(j->p->args, j->p->block);
}
static void upload_once(void *ctx)
{
    struct job *j = ctx;
    problem_upload(j->p, j->s);
}
static void download_once(void *ctx) { problem_download(((struct job *)ctx)->p); }
static void reference_once(void *ctx)
{
    struct problem *p = ctx;
    p->lab->reference(p);
}

static void usage(const char *bad)
{
    die("%s: expected n=SIZE stage=ID seed=S block=THREADS sweep=0|1, e.g. n=2^28 block=128",
        bad);
}

static void print_rule(void)
{
    printf("------  ------------------------------------------  -----  ---------  -------  "
           "------  -------  -------  --------\n");
}

static void print_header(void)
{
    printf("%-6s  %-42s  %-5s  %9s  %7s  %6s  %7s  %7s  %8s\n", "stage", "idea", "check",
           "time ms", "GB/s", "% copy", "vs prev", "vs CPU", "vs CPU+");
    print_rule();
}

static const char *gbps_text(double gbps)
{
    static char text[2][32];
    static int k;
    k = (k + 1) % 2;
    snprintf(text[k], sizeof text[k], "%.1f", gbps);
    return text[k];
}

static const char *times(double x)
{
    static char text[4][32];
    static int k;
    k = (k + 1) % 4;
    if (x > 0)
        snprintf(text[k], sizeof text[k], "%.1fx", x);
    else
        snprintf(text[k], sizeof text[k], "-");
    return text[k];
}

/* Resident threads per SM that a block shape allows (registers and shared
 * memory aside), and the share of lanes that do work in its warps. */
static void sweep(struct problem *p, const struct stage *s,
                  double bytes, double copy_gbps)
{
    static const int blocks[] = {32, 33, 64, 65, 96, 128, 192, 256, 257, 512, 768, 1000, 1024};
    printf("\nBlock-size sweep of stage %s (%s), n = %zu:\n", s->id, s->idea, p->n);
    printf("%6s  %6s  %9s  %13s  %9s  %7s  %6s\n", "block", "warps", "lanes used", "threads/SM",
           "time ms", "GB/s", "% copy");
    printf("------  ------  ----------  -------------  ---------  -------  ------\n");
    for (size_t k = 0; k < sizeof blocks / sizeof blocks[0]; k++) {
        int block = blocks[k];
        if (block > gpu_max_threads_per_block())
            continue;
        int warps = (block + 31) / 32;
        p->block = block;
        watch("the sweep of", s);
        struct job j = {p, s};
        double ms = time_gpu_ms(launch_once, &j, WARMUP, REPS);
        double gbps = bytes / ms / 1e6;
        printf("%6d  %6d  %9.0f%%  %6d of %4d  %9.4f  %7.1f  %5.1f%%\n", block, warps,
               100.0 * block / (32.0 * warps), gpu_resident_blocks(block) * block,
               gpu_max_threads_per_sm(), ms, gbps, 100 * gbps / copy_gbps);
    }
    alarm(0);
    printf("threads/SM: the most threads of this kernel an SM can hold at once, counting only "
           "the block limits\n(threads and blocks per SM), not registers or shared memory.\n");
}

int main(int argc, char *argv[])
{
    const struct lab *lab = workbook_lab;
    /* Emulated kernels run thousands of times slower: a smaller default size */
    size_t n = (size_t)1 << (gpu_emulated() ? 20 : 24);
    const char *filter = NULL;
    int block = 256, want_sweep = 1;
    uint64_t seed = 0;

    for (int i = 1; i < argc; i++) {
        const char *v = strchr(argv[i], '=');
        if (!v)
            usage(argv[i]);
        v++;
        if (strncmp(argv[i], "n=", 2) == 0) {
            if (!parse_size(v, &n))
                die("N=%s: expected a size such as 1000000, 2^28 or 2^24+17", v);
        } else if (strncmp(argv[i], "stage=", 6) == 0) {
            filter = v;
        } else if (strncmp(argv[i], "seed=", 5) == 0) {
            setenv("SEED", v, 1);
        } else if (strncmp(argv[i], "block=", 6) == 0) {
            block = atoi(v);
        } else if (strncmp(argv[i], "sweep=", 6) == 0) {
            want_sweep = atoi(v);
        } else {
            usage(argv[i]);
        }
    }
    seed = seed_from_env();
    setvbuf(stdout, NULL, _IOLBF, 0); /* rows already printed survive a time-out */
    signal(SIGALRM, on_alarm);

    char why[256];
    if (!gpu_present(why, sizeof why)) {
        printf("%s: no run table: no CUDA GPU here (%s).\n", lab->name, why);
        return 0;
    }
    if (n == 0)
        die("N=0: there is nothing to time; choose N >= 1");
    if (block < 1 || block > gpu_max_threads_per_block())
        die("BLOCK=%d: a block holds 1 to %d threads on this GPU", block,
            gpu_max_threads_per_block());
    bool any = false;
    for (const struct stage *s = lab->stages; s->id; s++)
        any |= stage_selected(s, filter);
    if (!any)
        die("STAGE=%s: %s has stages %s", filter, lab->name, stage_list(lab));

    struct problem *p = problem_new(lab, n, seed, block);
    int cpu_reps = 1;
    double cpu_ms = time_cpu_ms(reference_once, p, 1);
    if (cpu_ms < 500) {
        cpu_reps = 5;
        cpu_ms = time_cpu_ms(reference_once, p, cpu_reps);
    }
    bool emu = gpu_emulated();
    int warmup = emu ? 1 : WARMUP, reps = emu ? 3 : REPS;
    double bytes = lab->bytes(p, &lab->stages[0]);
    double copy_ms = time_copy_ms((size_t)(bytes / 2), reps);
    double copy_gbps = bytes / copy_ms / 1e6;

    printf("\n%s: %s\n", lab->name, lab->operation);
    printf("n = %zu, seed %llu, block %d, source %s\n", n, (unsigned long long)seed, block,
           LAB_SOURCE);
    printf("GPU: %s\n", gpu_description());
    printf("CPU reference: %.3f ms (one core, median of %d)\n", cpu_ms, cpu_reps);
    printf("GPU times: median of %d runs after %d warm-up runs, CUDA events. GB/s: bytes that "
           "must move / time.\n",
           reps, warmup);
    if (emu)
        printf("EMULATED on the CPU (EMU=1): the checks are real, but the times are CPU times,\n"
               "so no bandwidths or speedups are shown. n defaults to 2^20 here.\n\n");
    else
        printf("vs CPU+: the CPU time over the GPU time including the copies of the stage's "
               "inputs in and outputs out (pinned memory).\n\n");
    print_header();
    printf("%-6s  %-42s  %-5s  %9.4f  %7s  %6s  %7s  %7s  %8s\n", "copy",
           "cudaMemcpy device to device (roofline)", "-", copy_ms, emu ? "-" : gbps_text(copy_gbps),
           emu ? "-" : "100.0%", "-", "-", "-");

    double prev_ms = 0;
    char failures[4096] = "";
    const struct stage *sweep_stage = NULL;
    for (const struct stage *s = lab->stages; s->id; s++) {
        if (!stage_selected(s, filter))
            continue;
        char msg[2048];
        watch(lab->name, s);
        if (!problem_verify(p, s, msg, sizeof msg)) {
            printf("%-6s  %-42.42s  %-5s  %9s  %7s  %6s  %7s  %7s  %8s\n", s->id, s->idea,
                   "WRONG", "-", "-", "-", "-", "-", "-");
            char *line_end = strchr(msg, '\n');
            snprintf(failures + strlen(failures), sizeof failures - strlen(failures),
                     "stage %s:%s\n", s->id, line_end ? line_end : msg);
            if (!gpu_healthy()) {
                printf("(stage %s left the GPU context unusable: the stages after it cannot run "
                       "in this process)\n",
                       s->id);
                break;
            }
            continue;
        }
        struct job j = {p, s};
        double ms = time_gpu_ms(launch_once, &j, warmup, reps);
        double copies = time_gpu_ms(upload_once, &j, 1, emu ? 1 : 5) +
                        time_gpu_ms(download_once, &j, 1, emu ? 1 : 5);
        double gbps = lab->bytes(p, s) / ms / 1e6;
        char share[16];
        snprintf(share, sizeof share, "%5.1f%%", 100 * gbps / copy_gbps);
        printf("%-6s  %-42.42s  %-5s  %9.4f  %7s  %6s  %7s  %7s  %8s\n", s->id, s->idea, "ok", ms,
               emu ? "-" : gbps_text(gbps), emu ? "-" : share,
               times(prev_ms > 0 && !emu ? prev_ms / ms : 0), times(emu ? 0 : cpu_ms / ms),
               times(emu ? 0 : cpu_ms / (ms + copies)));
        prev_ms = ms;
        if (lab->sweep_stage && strcmp(s->id, lab->sweep_stage) == 0)
            sweep_stage = s;
    }
    alarm(0);
    print_rule();
    if (*failures)
        printf("\nWrong stages (make test LAB=%s STAGE=... says more):\n%s", lab->name, failures);
    if (want_sweep && sweep_stage && gpu_healthy() && !gpu_emulated())
        sweep(p, sweep_stage, bytes, copy_gbps);
    return *failures ? 1 : 0;
}
