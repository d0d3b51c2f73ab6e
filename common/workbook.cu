/* workbook.cu: the device side of the harness. Buffers carry a poisoned
 * guard zone behind them, outputs are poisoned before every run, and inputs
 * are compared with their host copy after it. */
#include "workbook.cuh"

#ifndef WORKBOOK_EMU
#include <cuda_profiler_api.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Every device array sits between two poisoned guard zones: a store up to
 * 4096 words past either end shows as a changed guard. */
enum { GUARD_BYTES = 16384 };

__global__ static void fill_word(uint32_t *d, size_t words, uint32_t value)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < words;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = value;
}

static void poison_device(void *d, size_t bytes)
{
    size_t words = bytes / 4; /* every size here is a multiple of 4 */
    if (words == 0)
        return;
#ifdef WORKBOOK_EMU
    /* the emulation's device memory is this process's: filled in place, not
     * by a launch of a fiber a word */
    for (size_t i = 0; i < words; i++)
        ((uint32_t *)d)[i] = POISON_WORD;
    return;
#endif
    unsigned grid = (unsigned)(ceil_div(words, 256) < 4096 ? ceil_div(words, 256) : 4096);
    fill_word<<<grid, 256>>>((uint32_t *)d, words, POISON_WORD);
    CUDA_CHECK(cudaGetLastError());
}

/* ---- the GPU ----------------------------------------------------------- */

bool gpu_present(char *why, size_t len)
{
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice) {
        snprintf(why, len, "no NVIDIA GPU with a working driver; CUDA says: %s",
                 cudaGetErrorString(err));
        return false;
    }
    if (err != cudaSuccess) {
        snprintf(why, len, "%s", cudaGetErrorString(err));
        return false;
    }
    if (count == 0) {
        snprintf(why, len, "the CUDA driver sees no GPU");
        return false;
    }
    snprintf(why, len, "%s", gpu_description());
    return true;
}

bool gpu_present_forked(char *why, size_t len)
{
    int fd[2];
    if (pipe(fd) != 0)
        die("pipe: cannot ask whether a GPU is present");
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char text[256];
        bool ok = gpu_present(text, sizeof text);
        ssize_t w = write(fd[1], text, strlen(text) + 1);
        _exit(ok && w > 0 ? 0 : 1);
    }
    close(fd[1]);
    ssize_t got = read(fd[0], why, len - 1);
    why[got > 0 ? got : 0] = '\0';
    close(fd[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (got <= 0)
        snprintf(why, len, "the GPU probe crashed");
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void gpu_check_block_forked(int block)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char why[256];
        if (gpu_present(why, sizeof why)) /* without a GPU no test runs to use it */
            gpu_check_block(block);
        _exit(0);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        die("BLOCK=%d: cannot ask the GPU whether it fits", block);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        exit(2); /* the child has said why */
}

static cudaDeviceProp *props(void)
{
    static cudaDeviceProp p;
    static bool known;
    if (!known) {
        int dev;
        CUDA_CHECK(cudaGetDevice(&dev));
        CUDA_CHECK(cudaGetDeviceProperties(&p, dev));
        known = true;
    }
    return &p;
}

const char *gpu_description(void)
{
    static char text[200];
    if (gpu_emulated()) {
        snprintf(text, sizeof text, "%.100s: EMULATED, times are CPU times", props()->name);
        return text;
    }
    int runtime = 0, driver = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    snprintf(text, sizeof text, "%.100s, %d SMs, sm_%d%d, %.0f GiB, CUDA runtime %d.%d, driver %d.%d",
             props()->name, props()->multiProcessorCount, props()->major, props()->minor,
             props()->totalGlobalMem / 1073741824.0, runtime / 1000, runtime % 1000 / 10,
             driver / 1000, driver % 1000 / 10);
    return text;
}

#ifdef WORKBOOK_EMU
bool gpu_emulated(void) { return true; }
#else
bool gpu_emulated(void) { return false; }
#endif
int gpu_sm_count(void) { return props()->multiProcessorCount; }
int gpu_max_threads_per_block(void) { return props()->maxThreadsPerBlock; }

void gpu_check_block(int block)
{
    if (block < 1 || block > gpu_max_threads_per_block())
        die("BLOCK=%d: a block holds 1 to %d threads on this GPU", block,
            gpu_max_threads_per_block());
}
int gpu_max_threads_per_sm(void) { return props()->maxThreadsPerMultiProcessor; }

int gpu_resident_blocks(int block)
{
    int warps = (block + 31) / 32;  /* a block occupies whole warps */
    int by_threads = props()->maxThreadsPerMultiProcessor / (32 * warps);
    int by_blocks = props()->maxBlocksPerMultiProcessor;
    return by_threads < by_blocks ? by_threads : by_blocks;
}

void *library_temp(size_t bytes)
{
    static void *temp;
    static size_t have;
    if (bytes > have) {
        CUDA_CHECK(cudaFree(temp));
        CUDA_CHECK(cudaMalloc(&temp, bytes));
        have = bytes;
    }
    return temp;
}

bool gpu_healthy(void) { return cudaDeviceSynchronize() == cudaSuccess; }

/* ---- problems ---------------------------------------------------------- */

struct problem *problem_new(const struct lab *lab, int variant, size_t n, size_t cols,
                            uint64_t seed, int block)
{
    struct problem *p = (struct problem *)calloc(1, sizeof *p);
    if (!p || !(p->args = (struct args *)calloc(1, lab->args_size)))
        die("out of host memory");
    p->lab = lab;
    p->variant = variant;
    p->n = n;
    p->cols = cols;
    p->seed = seed;
    p->block = block;
    p->emulated = gpu_emulated();
#ifdef WORKBOOK_EMU
    emu_block_order(seed); /* blocks start in an order the seed scrambles */
#endif
    lab->setup(p);
    if (n > 0 && !(p->bytes > 0))
        die("%s: its setup must say how many bytes a stage moves (p->bytes)", lab->name);
    return p;
}

void problem_free(struct problem *p)
{
    for (int i = 0; i < p->nbuf; i++) {
        CUDA_CHECK(cudaFree(p->buf[i].dev_base));
        CUDA_CHECK(cudaFreeHost(p->buf[i].host));
        CUDA_CHECK(cudaFreeHost(p->buf[i].got_base));
    }
    free(p->args);
    free(p);
}

static void *host_alloc(size_t bytes, const char *name)
{
    void *h = NULL;
    /* pinned, so copies run at full speed and their times are fair */
    if (cudaMallocHost(&h, bytes ? bytes : 4) != cudaSuccess)
        die("cannot allocate %.2f GiB of pinned host memory for '%s': choose a smaller N",
            bytes / 1073741824.0, name);
    return h;
}

/* An array's bytes rounded up to whole words, so guards start on a word. */
static size_t padded_bytes(enum elem type, size_t count) { return (count * elem_size(type) + 3) / 4 * 4; }
/* A whole allocation: the guard before, the array, the guard after. */
static size_t whole_bytes(const struct buffer *b) { return GUARD_BYTES + padded_bytes(b->type, b->count) + GUARD_BYTES; }

static struct buffer *add(struct problem *p, const char *name, enum role role, enum elem type,
                          size_t count)
{
    if (p->nbuf == MAX_BUFFERS)
        die("%s: more than %d buffers", p->lab->name, MAX_BUFFERS);
    struct buffer *b = &p->buf[p->nbuf++];
    size_t bytes = padded_bytes(type, count);
    b->name = name;
    b->role = role;
    b->type = type;
    b->count = count;
    b->compared = count;
    b->host = role == SCRATCH ? NULL : host_alloc(bytes, name);
    if (role == OUTPUT) {
        b->got_base = host_alloc(whole_bytes(b), name);
        b->got = (char *)b->got_base + GUARD_BYTES;
    }
    cudaError_t err = cudaMalloc(&b->dev_base, whole_bytes(b));
    if (err == cudaErrorMemoryAllocation) {
        size_t free_b = 0, total = 0;
        cudaMemGetInfo(&free_b, &total);
        die("%s with n = %zu: buffer '%s' needs %.2f GiB more of GPU memory but only %.2f GiB "
            "of %.2f GiB is free: choose a smaller N",
            p->lab->name, p->n, name, bytes / 1073741824.0, free_b / 1073741824.0,
            total / 1073741824.0);
    }
    CUDA_CHECK(err);
    b->dev = (char *)b->dev_base + GUARD_BYTES;
#ifdef WORKBOOK_EMU
    /* the emulation then stops a kernel at its first access to a guard */
    emu_name_array(b->dev_base, name, GUARD_BYTES, count, elem_size(type));
#endif
    poison_device(b->dev_base, whole_bytes(b));
    return b;
}

struct buffer *problem_add_input(struct problem *p, const char *name, enum elem type, size_t count)
{
    return add(p, name, INPUT, type, count);
}

struct buffer *problem_add_output(struct problem *p, const char *name, enum elem type,
                                  size_t count, double rtol, double atol)
{
    struct buffer *b = add(p, name, OUTPUT, type, count);
    b->rtol = rtol;
    b->atol = atol;
    return b;
}

struct buffer *problem_add_scratch(struct problem *p, const char *name, enum elem type, size_t count)
{
    return add(p, name, SCRATCH, type, count);
}

struct buffer *problem_buffer(const struct problem *p, const char *name)
{
    for (int i = 0; i < p->nbuf; i++)
        if (strcmp(p->buf[i].name, name) == 0)
            return (struct buffer *)&p->buf[i];
    die("%s: no buffer named '%s'", p->lab->name, name);
}

static size_t bytes_of(const struct buffer *b) { return b->count * elem_size(b->type); }

void problem_upload(struct problem *p, const struct stage *s)
{
    for (int i = 0; i < p->nbuf; i++) {
        struct buffer *b = &p->buf[i];
        if (b->role == INPUT && (!s || !p->lab->reads || p->lab->reads(s, b)))
            CUDA_CHECK(cudaMemcpy(b->dev, b->host, bytes_of(b), cudaMemcpyHostToDevice));
    }
}

void problem_poison_outputs(struct problem *p)
{
    for (int i = 0; i < p->nbuf; i++)
        if (p->buf[i].role != INPUT)
            poison_device(p->buf[i].dev_base, whole_bytes(&p->buf[i]));
}

void problem_download(struct problem *p)
{
    for (int i = 0; i < p->nbuf; i++)
        if (p->buf[i].role == OUTPUT)
            CUDA_CHECK(cudaMemcpy(p->buf[i].got, p->buf[i].dev, bytes_of(&p->buf[i]),
                                  cudaMemcpyDeviceToHost));
}

/* Launch a stage and wait for it; false, with CUDA's words in *f, if it failed. */
static bool launch(struct problem *p, const struct stage *s, struct finding *f)
{
#ifndef WORKBOOK_EMU
    if (p->profiled)
        CUDA_CHECK(cudaProfilerStart());
#endif
    if (p->counts)
        access_counts_begin();
    double start = now_ms();
    s->launch(p->args, p->block);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    p->launch_ms = now_ms() - start;
    if (p->counts)
        access_counts_end(p->counts);
#ifndef WORKBOOK_EMU
    if (p->profiled && err == cudaSuccess)
        CUDA_CHECK(cudaProfilerStop());
#endif
    if (err == cudaSuccess)
        return true;
    f->verdict = KERNEL_FAILED;
    f->error_name = cudaGetErrorName(err);
    snprintf(f->error, sizeof f->error, "%s", cudaGetErrorString(err));
    return false;
}

/* A whole device allocation, guards included: into ->got_base for an
 * output, into fresh memory for an input. */
static unsigned char *download_all(const struct buffer *b)
{
    unsigned char *h = (unsigned char *)(b->got_base ? b->got_base : malloc(whole_bytes(b)));
    if (!h)
        die("out of host memory");
    CUDA_CHECK(cudaMemcpy(h, b->dev_base, whole_bytes(b), cudaMemcpyDeviceToHost));
    return h;
}

/* Both guards still poison? If not, the element written nearest the array
 * (negative before it). */
static bool guards_intact(const struct buffer *b, const unsigned char *all, long long *written)
{
    size_t end = GUARD_BYTES + padded_bytes(b->type, b->count), k = GUARD_BYTES;
    while (k >= 4 && is_poison(all + k - 4, 4))
        k -= 4;
    if (k >= 4) {
        long long before = (long long)(GUARD_BYTES - (k - 4));
        *written = -((before + (long long)elem_size(b->type) - 1) / (long long)elem_size(b->type));
        return false;
    }
    while (k < GUARD_BYTES && is_poison(all + end + k, 4))
        k += 4;
    if (k < GUARD_BYTES) {
        *written = (long long)((end - GUARD_BYTES + k) / elem_size(b->type));
        return false;
    }
    return true;
}

/* One buffer's whole allocation as it stood after a launch (`all`): its
 * guards, then an input's bytes or an output's values. */
static bool bytes_right(const struct problem *p, const struct stage *s, struct buffer *b,
                        const unsigned char *all, struct finding *f)
{
    bool ok = guards_intact(b, all, &f->index);
    if (!ok)
        f->verdict = GUARD_WRITTEN;
    if (ok && b->role == INPUT) {
        size_t at = first_difference(all + GUARD_BYTES, b->host, bytes_of(b));
        if (at != (size_t)-1) {
            f->verdict = INPUT_CHANGED;
            f->index = (long long)(at / elem_size(b->type));
            ok = false;
        }
    }
    if (ok && b->role == OUTPUT && p->lab->normalize)
        p->lab->normalize(p, s, b);
    if (ok && b->role == OUTPUT && !compare_output(b, &f->mismatch)) {
        f->verdict = OUTPUT_WRONG;
        ok = false;
    }
    f->buffer = b;
    return ok;
}

/* Every buffer after a launch, fetched from the device. */
static bool buffer_right(const struct problem *p, const struct stage *s, struct buffer *b,
                         struct finding *f)
{
    unsigned char *all = download_all(b);
    bool ok = bytes_right(p, s, b, all, f);
    if (all != b->got_base)
        free(all);
    return ok;
}

/* Bytes kernels stored into the outputs since the last call (emulation only). */
static double output_bytes_written(const struct problem *p)
{
    double bytes = 0;
#ifdef WORKBOOK_EMU
    for (int i = 0; i < p->nbuf; i++)
        if (p->buf[i].role == OUTPUT)
            bytes += (double)emu_bytes_written(p->buf[i].dev_base);
#else
    (void)p;
#endif
    return bytes;
}

#ifdef WORKBOOK_EMU
void access_counts_begin(void) { emu_count_begin(); }
void access_counts_end(struct access_counts *c)
{
    emu_count_end(c);
}
void problem_count_lines(void (*line)(const char *where, const struct access_counts *c, void *arg),
                         void *arg)
{
    emu_count_lines(line, arg);
}
#else
void access_counts_begin(void) {}
void access_counts_end(struct access_counts *c) { memset(c, 0, sizeof *c); }
void problem_count_lines(void (*line)(const char *where, const struct access_counts *c, void *arg),
                         void *arg)
{
    (void)line, (void)arg;
}
#endif

bool problem_count_accesses(struct problem *p, const struct stage *s, struct access_counts *c)
{
    struct finding f;
    problem_upload(p, NULL);
    problem_poison_outputs(p);
    p->counts = c;
    bool launched = launch(p, s, &f);
    p->counts = NULL;
    return launched;
}

const char *const technique_verdict_names[] = {"shown", "missing", "wrong", "uncounted"};

#ifdef WORKBOOK_EMU
/* Stage s once under the emulation at `size` (a lab's case), counted into c
 * if c is given. The problem if its outputs are right there (the caller
 * frees it); else NULL, and r says what went wrong: WRONG. */
static struct problem *emulated_case(const struct lab *lab, const struct stage *s, const char *size,
                                     int block, uint64_t seed, struct access_counts *c,
                                     struct technique_result *r)
{
    size_t n, cols = 0;
    if (!(lab->matrix ? parse_shape(size, &n, &cols) : parse_size(size, &n)))
        die("%s: its case %s is no size", lab->name, size);
    if (lab->matrix)
        n *= cols;
    struct problem *p = problem_new(lab, 0, n, cols, seed, block);
    if (lab->reference) /* a graded build has none: its outputs are judged elsewhere */
        lab->reference(p);
    struct finding f;
    p->counts = c;
    bool right = lab->reference ? problem_verify(p, s, &f) : problem_run(p, s, &f);
    p->counts = NULL;
    if (right)
        return p;
    struct report wrong;
    report_make(p, s, &f, &wrong);
    snprintf(r->sentence, sizeof r->sentence, "%s: %.*s", wrong.title,
             (int)strcspn(wrong.what, "\n"), wrong.what);
    r->verdict = WRONG;
    problem_free(p);
    return NULL;
}
#endif

/* The emulation's checks (races, barriers, bounds, the order of blocks) run
 * first at a small size whose last tiles are partly filled (4999 leaves
 * 135 of 256, 903 of 1024 or of 4096; 47x33, 15 and 1 of 32): on a GPU
 * this and the technique case are the only runs they see. */
static const char *const CHECKS_SIZE = "4999", *const CHECKS_SHAPE = "47x33";

void technique_judge(const struct problem *p, const struct stage *s, const struct access_counts *c,
                     struct technique_result *r)
{
    const struct grade_case *at = stage_technique_case(p->lab, s);
    double got = 0;
    const struct trait *t = technique_missing(p, s, c, &got);
    r->verdict = t ? MISSING : SHOWN;
    r->figures[0] = '\0';
    if (!t) {
        snprintf(r->sentence, sizeof r->sentence, "shown");
        return;
    }
    technique_sentence(p->lab, s, t, r->sentence, sizeof r->sentence);
    snprintf(r->figures, sizeof r->figures,
             "counted under the emulation (%d SMs) at %s = %s, block %d: %.3g, where the idea "
             "gives %s %g",
             TECHNIQUE_SMS, p->lab->matrix ? "rows x cols" : "n", at->size, at->block, got,
             t->bound == AT_LEAST ? "at least" : "at most", t->limit);
}

void stage_technique_check(const struct lab *lab, const struct stage *s, uint64_t seed,
                           const char *dump, struct technique_result *r)
{
    memset(r, 0, sizeof *r);
#ifndef WORKBOOK_EMU
    (void)lab, (void)s, (void)seed, (void)dump, (void)CHECKS_SIZE, (void)CHECKS_SHAPE;
    snprintf(r->sentence, sizeof r->sentence,
             "a GPU counts nothing: techniques are counted by the emulated build");
    r->verdict = UNCOUNTED;
#else
    const struct grade_case *at = stage_technique_case(lab, s);
    /* a device of as many SMs on every machine, so that a grid sized from
     * the device, and what is counted per thread, are the same everywhere */
    emu_device_sms(TECHNIQUE_SMS);
    struct problem *p = emulated_case(lab, s, lab->matrix ? CHECKS_SHAPE : CHECKS_SIZE, 256, seed,
                                      NULL, r);
    struct access_counts c = {};
    if (p) {
        problem_free(p);
        p = emulated_case(lab, s, at->size, at->block, seed, &c, r);
    }
    if (p && getenv("WORKBOOK_FIGURES")) /* for whoever writes a lab's traits */
        print_measures(stderr, p, &c);
    if (p) {
        r->counts = c;
        technique_judge(p, s, &c, r);
        if (dump)
            problem_dump(p, dump);
        problem_free(p);
    }
    emu_device_sms(0);
#endif
}

double problem_output_writes(const struct problem *p)
{
    double bytes = problem_output_bytes(p);
    return bytes > 0 ? p->output_writes / bytes : 0;
}

bool problem_run(struct problem *p, const struct stage *s, struct finding *f)
{
    memset(f, 0, sizeof *f);
    problem_upload(p, NULL);
    problem_poison_outputs(p);
    output_bytes_written(p);
    bool launched = launch(p, s, f);
    p->output_writes = output_bytes_written(p);
    return launched;
}

bool problem_verify(struct problem *p, const struct stage *s, struct finding *f)
{
    if (!problem_run(p, s, f))
        return false;
    for (int i = 0; i < p->nbuf; i++)
        if (!buffer_right(p, s, &p->buf[i], f))
            return false;
    f->buffer = NULL;
    f->verdict = RIGHT;
    return true;
}

/* ---- grading: the verdict in a process that runs no student code -------- */

static void buffer_path(const struct buffer *b, const char *dir, char *path, size_t len)
{
    snprintf(path, len, "%s/%s.bin", dir, b->name);
}

void problem_dump(const struct problem *p, const char *dir)
{
    for (int i = 0; i < p->nbuf; i++) {
        const struct buffer *b = &p->buf[i];
        char path[4096];
        buffer_path(b, dir, path, sizeof path);
        unsigned char *all = (unsigned char *)malloc(whole_bytes(b));
        if (!all)
            die("out of host memory");
        CUDA_CHECK(cudaMemcpy(all, b->dev_base, whole_bytes(b), cudaMemcpyDeviceToHost));
        FILE *out = fopen(path, "wb");
        if (!out || fwrite(all, 1, whole_bytes(b), out) != whole_bytes(b) || fclose(out) != 0)
            die("%s: cannot write the stage's result there", path);
        free(all);
    }
}

/* A launch that failed leaves no buffers but DIR/failed: the error's name,
 * then its words, a line each. Read back, it is the judge's finding. */
void problem_dump_failure(const struct finding *f, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/failed", dir);
    FILE *out = fopen(path, "w");
    if (!out || fprintf(out, "%s\n%.*s\n", f->error_name ? f->error_name : "-",
                        (int)strcspn(f->error, "\n"), f->error) < 0 || fclose(out) != 0)
        die("%s: cannot write the stage's failure there", path);
}

static bool read_failure(const char *dir, struct finding *f)
{
    static char name[64];
    char path[4096], said[256] = "";
    snprintf(path, sizeof path, "%s/failed", dir);
    FILE *in = fopen(path, "r");
    if (!in)
        return false;
    if (!fgets(name, sizeof name, in) || !fgets(said, sizeof said, in))
        name[0] = said[0] = '\0';
    fclose(in);
    name[strcspn(name, "\n")] = said[strcspn(said, "\n")] = '\0';
    /* the process that ran the student's code wrote it: quoted as its own */
    snprintf(f->error, sizeof f->error, "the launch failed%s%s%s", *said ? " (its own process said: \"" : "",
             said, *said ? "\")" : "");
    /* a name the hints know, or none: a hint must come from a real error */
    f->error_name = strncmp(name, "cudaError", 9) == 0 && name[strspn(name,
                    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")] == '\0' ? name : NULL;
    f->verdict = KERNEL_FAILED;
    return true;
}

bool problem_judge(struct problem *p, const struct stage *s, const char *dir, struct finding *f)
{
    memset(f, 0, sizeof *f);
    if (read_failure(dir, f))
        return false;
    for (int i = 0; i < p->nbuf; i++) {
        struct buffer *b = &p->buf[i];
        char path[4096];
        buffer_path(b, dir, path, sizeof path);
        unsigned char *all = (unsigned char *)(b->got_base ? b->got_base : malloc(whole_bytes(b)));
        if (!all)
            die("out of host memory");
        FILE *in = fopen(path, "rb");
        size_t got = in ? fread(all, 1, whole_bytes(b), in) : 0;
        bool whole = in && got == whole_bytes(b) && fgetc(in) == EOF;
        if (in)
            fclose(in);
        bool ok = whole && bytes_right(p, s, b, all, f);
        if (all != b->got_base)
            free(all);
        if (!whole) {
            f->verdict = KERNEL_FAILED;
            f->error_name = "no result";
            snprintf(f->error, sizeof f->error,
                     "no result for '%s': the stage crashed, hung or was stopped before its "
                     "results were written",
                     b->name);
        }
        if (!ok)
            return false;
    }
    f->buffer = NULL;
    f->verdict = RIGHT;
    return true;
}

/* ---- will a problem fit? -------------------------------------------------- */

/* Memory this machine can still give, from the kernel's own estimate. The
 * emulation's device memory is this machine's: its runtime asks the system
 * (common/emu/platform.h), Linux's or a Mac's. */
static double host_available(void)
{
#ifdef WORKBOOK_EMU
    size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    return (double)free_bytes;
#else
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lf kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
#endif
}

/* Host and device bytes of one problem: setup sizes every buffer as an
 * affine function of n, so two small problems tell the line. */
static void footprint(const struct lab *lab, int variant, size_t n, double *host, double *device)
{
    const size_t probe[2] = {4096, 8192};
    double h[2] = {0, 0}, d[2] = {0, 0};
    for (int k = 0; k < 2; k++) {
        struct problem *p = problem_new(lab, variant, probe[k], lab->matrix ? 64 : 0, 1, 256);
        d[k] = p->bytes; /* the copy roofline's two buffers */
        for (int i = 0; i < p->nbuf; i++) {
            const struct buffer *b = &p->buf[i];
            d[k] += whole_bytes(b);
            /* an input's host copy, and its download when checked; an
             * output's reference and download */
            h[k] += b->role == SCRATCH ? 0 : padded_bytes(b->type, b->count) + whole_bytes(b);
        }
        problem_free(p);
    }
    double x = ((double)n - probe[0]) / (double)(probe[1] - probe[0]);
    *host = h[0] + (h[1] - h[0]) * x;
    *device = d[0] + (d[1] - d[0]) * x;
}

bool problem_fits(const struct lab *lab, int variant, size_t n, size_t cols, char *why,
                  size_t len)
{
    double host, device, gib = 1073741824.0;
    footprint(lab, variant, n, &host, &device);
#ifdef WORKBOOK_EMU
    device *= 1 + EMU_HISTORY_BYTES / 4.0; /* and each word's history, in this machine's memory */
#endif
    size_t device_free = 0, device_total = 0;
    CUDA_CHECK(cudaMemGetInfo(&device_free, &device_total));
    /* keep a tenth of memory for everything else */
    double host_room = 0.9 * host_available(), device_room = 0.9 * (double)device_free;
    const char *name = variant_name(lab, variant);
    if (gpu_emulated() && host + device > host_room) {
        snprintf(why, len,
                 "N=%s: %s%s%s needs about %.1f GiB of memory under EMU=1 (the GPU's memory is "
                 "this machine's), and %.1f GiB is free. Emulated kernels are slow anyway: "
                 "N=%s is plenty to check a stage",
                 size_text(n, cols), lab->name, name ? ", " : "", name ? name : "", (host + device) / gib,
                 host_room / 0.9 / gib, lab->matrix ? "2^10x2^10" : "2^20");
        return false;
    }
    if (!gpu_emulated() && (device > device_room || host > host_room)) {
        snprintf(why, len,
                 "N=%s: %s%s%s needs about %.1f GiB of GPU memory (%.1f GiB free) and %.1f GiB "
                 "of host memory (%.1f GiB free): choose a smaller N",
                 size_text(n, cols), lab->name, name ? ", " : "", name ? name : "", device / gib,
                 device_room / 0.9 / gib, host / gib, host_room / 0.9 / gib);
        return false;
    }
    return true;
}

/* ---- timing ------------------------------------------------------------ */

double time_gpu_ms(void (*work)(void *ctx), void *ctx, int warmup, int reps)
{
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int r = 0; r < warmup; r++)
        work(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    double *t = (double *)malloc(reps * sizeof *t);
    for (int r = 0; r < reps; r++) {
        float ms;
        CUDA_CHECK(cudaEventRecord(start));
        work(ctx);
        CUDA_CHECK(cudaEventRecord(stop));
        CUDA_CHECK(cudaEventSynchronize(stop));
        CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        t[r] = ms;
    }
    CUDA_CHECK(cudaGetLastError());
    double m = median(t, reps);
    free(t);
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return m;
}

struct copy_job {
    void *dst;
    const void *src;
    size_t bytes;
};

static void copy_once(void *ctx)
{
    struct copy_job *c = (struct copy_job *)ctx;
    CUDA_CHECK(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice));
}

double time_copy_ms(size_t bytes, int reps)
{
    struct copy_job c;
    c.bytes = bytes;
    CUDA_CHECK(cudaMalloc(&c.dst, bytes));
    CUDA_CHECK(cudaMalloc((void **)&c.src, bytes));
    CUDA_CHECK(cudaMemset(c.dst, 1, bytes));
    CUDA_CHECK(cudaMemset((void *)c.src, 2, bytes));
    double ms = time_gpu_ms(copy_once, &c, 3, reps);
    CUDA_CHECK(cudaFree(c.dst));
    CUDA_CHECK(cudaFree((void *)c.src));
    return ms;
}
