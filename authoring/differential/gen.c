/* gen.c: random CUDA kernels for differential testing, the emulation
 * against a GPU (authoring/differential/run.sh drives it).
 *
 *   gen SEED FIRST COUNT > batch.cu    kernels FIRST .. FIRST+COUNT-1 of SEED,
 *                                      and a main that runs each
 *   gen --vocabulary                   the CUDA constructs it can emit, a line each
 *
 * Kernel i of a seed is the same whatever batch holds it: its generator is
 * seeded by (SEED, i). Every kernel is race-free and deterministic by
 * construction, so its output is defined and a GPU and the emulation must
 * agree on every word of it:
 *   - a thread writes only its own slots of shared or device memory (in s,
 *     the 4 words from 4 * tid, whatever the width of its store); the block
 *     reads them after __syncthreads(), the lanes of a warp after
 *     __syncwarp(mask); a second barrier ends each exchange;
 *   - a warp collective's mask is a union of aligned groups of G lanes
 *     (G a power of two, at least the shuffle's width), only those lanes
 *     call it, and a shuffle reads only lanes of its caller's group;
 *   - atomics whose final value is order-independent (add, min, max, and,
 *     or, xor, inc, a CAS loop that adds; float adds of quarters small
 *     enough to be exact), and no return value that depends on the order;
 *   - float arithmetic multiplies only by powers of two, so a fused
 *     multiply-add (nvcc's) rounds as the separate operations (the host's);
 *   - blocks meet only through a ticket (the last block sums what every
 *     block stored before its ticket) and a chain in the order of tickets,
 *     a block waiting on a volatile flag that the one before it stored
 *     after a __threadfence().
 * Its host half, host.cuh, prints "INDEX ok CHECKSUM" or "INDEX error WHY"
 * a kernel. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the census counts: every name use() is given is one of these. */
static const char *const VOCABULARY[] = {
    "__global__", "__device__", "__host__", "__forceinline__", "__launch_bounds__", "__maxnreg__",
    "__shared__", "extern __shared__", "__restrict__", "__align__",
    "threadIdx", "blockIdx", "blockDim", "gridDim", "dim3", "2-D block", "2-D grid",
    "__syncthreads", "__syncthreads_count", "__syncthreads_and", "__syncthreads_or", "__syncwarp",
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "shuffle width < 32",
    "partial mask", "__ballot_sync", "__all_sync", "__any_sync", "__match_any_sync",
    "atomicAdd", "atomicSub", "atomicMin", "atomicMax", "atomicAnd", "atomicOr", "atomicXor",
    "atomicInc", "atomicExch", "atomicCAS", "atomic on shared", "atomic on global",
    "atomic int", "atomic unsigned", "atomic float", "atomic unsigned long long",
    "__threadfence", "volatile", "__nanosleep", "__ldg",
    "int2", "int4", "uint4", "float4", "make_int2", "make_uint4", "make_float4",
    "reinterpret_cast vector", "__popc", "__popcll", "__clz", "__clzll", "__ffs", "__ffsll",
    "__brev", "__brevll", "__float_as_uint", "__uint_as_float", "min", "max", "fminf", "fmaxf",
    "integer arithmetic", "float arithmetic", "float to integer", "divergent branch",
    "kernel launch", "cudaMalloc", "cudaMemcpy", "cudaMemset", "cudaMemsetAsync", "cudaGetLastError",
    "cudaDeviceSynchronize", "cudaGetErrorString", "cudaDeviceReset",
};
enum { WORDS = sizeof VOCABULARY / sizeof *VOCABULARY };

/* ---- randomness: splitmix64, seeded per kernel ----------------------------- */
static uint64_t state;
static uint64_t next64(void)
{
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ z >> 30) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ z >> 27) * 0x94d049bb133111ebull;
    return z ^ z >> 31;
}
static unsigned rnd(unsigned n) { return (unsigned)(next64() % n); }
static unsigned odd(void) { return (unsigned)next64() | 1u; }

/* ---- the kernel being written ------------------------------------------- */
static char body[1 << 16];
static size_t body_len;
static unsigned uses[WORDS];

static void emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    body_len += (size_t)vsnprintf(body + body_len, sizeof body - body_len, fmt, ap);
    va_end(ap);
    if (body_len >= sizeof body) {
        fprintf(stderr, "gen: a kernel outgrew its buffer\n");
        exit(1);
    }
}
static void use(const char *name)
{
    for (unsigned k = 0; k < WORDS; k++)
        if (!strcmp(VOCABULARY[k], name)) {
            uses[k]++;
            return;
        }
    fprintf(stderr, "gen: %s is not in the vocabulary\n", name);
    exit(1);
}

/* The kernel's shape, and what its body needs declared. */
static unsigned bx, by, gx, gy, threads, blocks;
static int need_s, need_sf, need_acc, need_facc, need_qacc, need_tile, need_dyn, need_last;
static int did_last, did_chain;

/* Scratch in device memory: atomics between blocks, 16 words for each row
 * of ATOMICS (an op of one kind a slot: mixed ops would depend on their
 * order), starting at the row's init; then the last block's and the chain's. */
enum { PARTIAL = 288, TICKET = 296, TOTAL = 297, ORDER = 298, FLAGS = 304, PREFIX = 320, SCRATCH = 512 };
/* Inputs of IN words, in[] and fin[]; OUT_WORDS words of out[] a thread, of
 * at most MOST_BLOCKS blocks of MOST_THREADS. */
enum { IN = 4096, OUT_WORDS = 4, MOST_BLOCKS = 8, MOST_THREADS = 256 };
_Static_assert(PARTIAL + MOST_BLOCKS <= TICKET && FLAGS + MOST_BLOCKS <= PREFIX, "scratch regions overlap");

/* ---- warp masks --------------------------------------------------------- */
/* A union of aligned groups of `group` lanes: every lane a collective of
 * that group size reads is in it. Usually the whole warp. */
static unsigned group_mask(unsigned group)
{
    if (rnd(2) == 0 || group == 32)
        return ~0u;
    unsigned one = (1u << group) - 1, mask = 0;
    while (!mask)
        for (unsigned g = 0; g < 32 / group; g++)
            if (rnd(2))
                mask |= one << g * group;
    return mask;
}
static unsigned log2u(unsigned x) { return (unsigned)__builtin_ctz(x); }
static unsigned pow2_upto(unsigned most) { return 1u << rnd(log2u(most) + 1); }

/* Open the lanes of `mask`; returns whether a brace was opened. */
static int open_mask(unsigned mask)
{
    if (mask == ~0u)
        return 0;
    use("partial mask");
    emit("    if (0x%08xu >> lane & 1) {\n", mask);
    return 1;
}
static void close_mask(int opened)
{
    if (opened)
        emit("    }\n");
}

/* ---- steps -------------------------------------------------------------- */
static void step_integer(void)
{
    use("integer arithmetic");
    switch (rnd(10)) {
    case 0: emit("    a = a * 0x%08xu + b;\n    b ^= a >> (b & 31u);\n", odd()); break;
    case 1:
        use("min"), use("max");
        emit("    b = min(a, b ^ 0x%08xu) + max(a, 0x%08xu);\n", (unsigned)next64(), (unsigned)next64());
        break;
    case 2:
        use("__popc"), use("__clz"), use("__ffs");
        emit("    a += __popc(b) + __clz(a & 0x%08xu) * 3u + __ffs(b >> %u);\n", (unsigned)next64(), rnd(32));
        break;
    case 3: use("__brev"); emit("    b ^= __brev(a) + 0x%08xu;\n", (unsigned)next64()); break;
    case 4: emit("    a += a / (b | 1u) + b %% ((a & 255u) | 1u);\n"); break;
    case 5:
        use("min"), use("max");
        emit("    {\n        int t = (int)a;\n"
             "        a = (unsigned)(t / -%u) + (unsigned)(t >> %u) + (unsigned)min(t, (int)b) + "
             "(unsigned)max(t, -(int)(b & 1023u));\n    }\n",
             rnd(30) + 1, rnd(31));
        break;
    case 6:
        use("__popcll"), use("__clzll"), use("__ffsll");
        emit("    q = q * 6364136223846793005ull + a;\n"
             "    b ^= (unsigned)(q >> 33) + __popcll(q) + __clzll((long long)(q >> %u)) + __ffsll((long long)q);\n",
             rnd(64));
        break;
    case 7:
        use("__brevll"), use("min"), use("max");
        emit("    q ^= __brevll(q) >> (a & 63u);\n    q = min(q, (unsigned long long)a * b) + max(q, 0x%xull);\n",
             (unsigned)next64());
        break;
    case 8:
        use("__device__"), use("__host__"), use("__forceinline__");
        emit("    a = mix(a, b) + rotate(b, %uu);\n", rnd(32));
        break;
    default:
        use("divergent branch");
        emit("    if (b & 0x%xu)\n        a += 0x%08xu;\n    else\n        b -= a >> 1;\n", 1u << rnd(32),
             (unsigned)next64());
    }
}

static void step_float(void)
{
    use("float arithmetic");
    switch (rnd(5)) {
    case 4: /* from 1.0f up, never a NaN */
        use("__uint_as_float"), use("fmaxf");
        emit("    f = fmaxf(f, __uint_as_float(0x3f800000u + (a & 0xffffu)));\n");
        break;
    case 0: emit("    f = f * 0.5f + (float)(a & 255u) * 0.25f;\n"); break;
    case 1:
        use("fminf"), use("fmaxf");
        emit("    f = fmaxf(fminf(f, (float)(b & 1023u)), (float)(a & 7u) * 0.125f);\n");
        break;
    case 2: use("__float_as_uint"); emit("    a ^= __float_as_uint(f) >> %u;\n", rnd(8)); break;
    default: use("float to integer"); emit("    b += (unsigned)(int)f + (unsigned)(f * 4.0f);\n");
    }
}

static void step_shuffle(void)
{
    static const char *const kinds[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                        "__shfl_xor_sync"};
    unsigned kind = rnd(4), width = pow2_upto(32), group = width << rnd(log2u(32 / width) + 1);
    unsigned mask = group_mask(group);
    use(kinds[kind]);
    if (width < 32)
        use("shuffle width < 32");
    char lane_arg[64];
    switch (kind) {
    case 0:
        switch (rnd(3)) { /* any int: CUDA takes it modulo the width */
        case 0: snprintf(lane_arg, sizeof lane_arg, "%d", (int)rnd(80) - 24); break;
        case 1: snprintf(lane_arg, sizeof lane_arg, "(int)(lane * %uu + %uu)", rnd(8), rnd(40)); break;
        default: snprintf(lane_arg, sizeof lane_arg, "(int)(b %% %uu)", rnd(60) + 1);
        }
        break;
    case 1:
    case 2:
        if (rnd(3))
            snprintf(lane_arg, sizeof lane_arg, "%uu", rnd(32));
        else
            snprintf(lane_arg, sizeof lane_arg, "b & %uu", pow2_upto(16) - 1);
        break;
    default: /* within the group: the lane read is in the mask */
        if (rnd(3))
            snprintf(lane_arg, sizeof lane_arg, "%u", rnd(group));
        else
            snprintf(lane_arg, sizeof lane_arg, "(int)(b & %uu)", group - 1);
    }
    char width_arg[16] = "";
    if (width < 32 || rnd(2))
        snprintf(width_arg, sizeof width_arg, ", %u", width);
    int opened = open_mask(mask);
    switch (rnd(4)) {
    case 0: emit("    a += %s(0x%08xu, b, %s%s);\n", kinds[kind], mask, lane_arg, width_arg); break;
    case 1:
        emit("    b ^= (unsigned)%s(0x%08xu, (int)a, %s%s);\n", kinds[kind], mask, lane_arg, width_arg);
        break;
    case 2:
        use("float arithmetic"), use("fmaxf");
        emit("    f = fmaxf(f * 0.5f, %s(0x%08xu, f, %s%s) * 0.25f);\n", kinds[kind], mask, lane_arg, width_arg);
        break;
    default: emit("    q += %s(0x%08xu, q, %s%s);\n", kinds[kind], mask, lane_arg, width_arg);
    }
    close_mask(opened);
}

static void step_vote(void)
{
    unsigned mask = group_mask(pow2_upto(32));
    int opened = open_mask(mask);
    switch (rnd(5)) {
    case 4: /* on the bits: 0.25f steps that convert to one integer differ */
        use("__match_any_sync"), use("float arithmetic");
        emit("    a += __match_any_sync(0x%08xu, (float)(b & 7u) * 0.25f);\n", mask);
        break;
    case 0: use("__ballot_sync"); emit("    a ^= __ballot_sync(0x%08xu, b & 0x%xu);\n", mask, 1u << rnd(32)); break;
    case 1:
        use("__all_sync"), use("__any_sync");
        emit("    b += __all_sync(0x%08xu, a > 0x%08xu) + 2u * __any_sync(0x%08xu, (a & 15u) == %uu);\n",
             mask, (unsigned)next64(), mask, rnd(16));
        break;
    case 2: use("__match_any_sync"); emit("    a += __match_any_sync(0x%08xu, b & %uu);\n", mask, rnd(8)); break;
    default: use("__match_any_sync"); emit("    b ^= __match_any_sync(0x%08xu, q >> %u);\n", mask, 61 + rnd(3));
    }
    close_mask(opened);
}

/* A permutation of the block's threads, or a many-to-one map onto them. */
static void perm(char *out, size_t size, const char *index, unsigned n)
{
    if (rnd(3))
        snprintf(out, size, "(%s * %uu + %uu) %% %uu", index, odd() % 64, rnd(n), n);
    else
        snprintf(out, size, "(%s / %uu) %% %uu", index, 1u << rnd(4), n);
}

/* The barrier between an exchange's writes and its reads; none at all
 * with PLANT=race in the environment, a bug every exchange then carries. */
static int plant_race;
static const char *between(void) { return plant_race ? "" : "    __syncthreads();\n"; }

static void step_block_exchange(void)
{
    char p[96];
    perm(p, sizeof p, "tid", threads);
    unsigned word = rnd(4); /* of the 4 words of s each thread owns */
    use("__syncthreads");
    switch (rnd(8)) {
    case 0:
        need_s = 1;
        emit("    s[tid * 4u + %uu] = a ^ 0x%08xu;\n%s    b += s[(%s) * 4u + %uu];\n", word, (unsigned)next64(),
             between(), p, word);
        break;
    case 1:
        need_s = 1;
        use("uint4"), use("make_uint4"), use("reinterpret_cast vector");
        emit("    reinterpret_cast<uint4 *>(s)[tid] = make_uint4(a, b, a ^ b, tid);\n%s"
             "    {\n        uint4 v = reinterpret_cast<const uint4 *>(s)[%s];\n"
             "        a += v.x ^ v.w;\n        b ^= v.y + v.z;\n    }\n", between(), p);
        break;
    case 2:
        need_s = 1;
        use("int2"), use("make_int2"), use("reinterpret_cast vector");
        emit("    reinterpret_cast<int2 *>(s)[tid * 2u + %uu] = make_int2((int)a, (int)(b >> 1));\n%s"
             "    {\n        int2 v = reinterpret_cast<const int2 *>(s)[(%s) * 2u + %uu];\n"
             "        a ^= (unsigned)v.y;\n        b += (unsigned)v.x;\n    }\n", word / 2, between(), p, word / 2);
        break;
    case 3:
        need_sf = 1;
        use("float4"), use("make_float4"), use("reinterpret_cast vector"), use("fmaxf");
        emit("    reinterpret_cast<float4 *>(sf)[tid] = make_float4(f, f * 0.5f, (float)(a & 255u), 1.0f);\n%s"
             "    {\n        float4 v = reinterpret_cast<const float4 *>(sf)[%s];\n"
             "        f = fmaxf(f, v.x) + v.y * 0.25f;\n        a += (unsigned)v.z + (unsigned)v.w;\n    }\n", between(), p);
        break;
    case 4:
        if (by > 1) {
            need_tile = 1;
            use("2-D block");
            emit("    tile[threadIdx.y][threadIdx.x] = a + %uu;\n%s"
                 "    b += tile[(threadIdx.x + %uu) %% %uu][(threadIdx.y * %uu + threadIdx.x) %% %uu];\n",
                 rnd(1000), between(), rnd(8), by, rnd(5), bx);
        } else {
            need_dyn = 1;
            use("extern __shared__");
            emit("    dyn[tid] = b;\n%s    a ^= dyn[%s];\n", between(), p);
        }
        break;
    case 5:
        use("__syncthreads_count"), use("__syncthreads_and"), use("__syncthreads_or");
        emit("    a += __syncthreads_count(b & %uu);\n    b ^= __syncthreads_or(a == %uu) + 2 * __syncthreads_and(a != %uu);\n",
             1u << rnd(32), rnd(4), rnd(4));
        break;
    case 6:
        use("__ldg");
        emit("    xbuf[gid] = a;\n%s    b += xbuf[bid * %uu + %s] + __ldg(&in[(gid * %uu) %% %uu]);\n",
             between(), threads, p, odd() % 100, (unsigned)IN);
        break;
    default:
        use("int4"), use("reinterpret_cast vector");
        emit("    {\n        int4 v = reinterpret_cast<const int4 *>(in)[(gid * %uu + %uu) %% %uu];\n"
             "        a += (unsigned)(v.x ^ v.w);\n        b ^= (unsigned)(v.y - v.z);\n    }\n",
             odd() % 64, rnd(IN / 4), (unsigned)IN / 4);
        use("float4");
        emit("    {\n        float4 v = reinterpret_cast<const float4 *>(fin)[(gid * %uu) %% %uu];\n"
             "        f = fmaxf(f * 0.5f, v.x) + v.w * 0.5f;\n    }\n", odd() % 64, (unsigned)IN / 4);
        return; /* loads only: no barrier to close */
    }
    emit("    __syncthreads();\n");
}

static void step_warp_exchange(void)
{
    unsigned group = pow2_upto(32), mask = group_mask(group);
    need_s = 1;
    use("__syncwarp");
    int opened = open_mask(mask);
    char m[16] = "";
    if (mask != ~0u || rnd(2))
        snprintf(m, sizeof m, "0x%08xu", mask);
    unsigned word = rnd(4);
    emit("    s[tid * 4u + %uu] = a + %uu;\n    __syncwarp(%s);\n"
         "    b ^= s[((tid & ~%uu) | ((lane + %uu) & %uu)) * 4u + %uu];\n    __syncwarp(%s);\n",
         word, rnd(100), m, group - 1, rnd(32), group - 1, word, m);
    close_mask(opened);
}

/* The op, its type, the value it adds in, and the word its slots start at. */
struct atomic_op {
    const char *name, *type, *use_type, *value;
    unsigned init;
};
static const struct atomic_op ATOMICS[] = {
    {"atomicAdd", "unsigned", "atomic unsigned", "b & 0xffffu", 0},
    {"atomicAdd", "int", "atomic int", "(int)(a >> 8) - 0x7fffff", 0},
    {"atomicAdd", "float", "atomic float", "(float)(a & 63u) * 0.25f", 0},
    {"atomicAdd", "unsigned long long", "atomic unsigned long long", "q >> 40", 0},
    {"atomicSub", "unsigned", "atomic unsigned", "a & 0xfffu", 0},
    {"atomicMin", "unsigned", "atomic unsigned", "a ^ b", ~0u},
    {"atomicMax", "unsigned", "atomic unsigned", "a * 3u", 0},
    {"atomicMin", "int", "atomic int", "(int)(b ^ a)", 0x7fffffffu},
    {"atomicMax", "int", "atomic int", "(int)(a - b)", 0x80000000u},
    {"atomicMin", "unsigned long long", "atomic unsigned long long", "q", ~0u},
    {"atomicMax", "unsigned long long", "atomic unsigned long long", "q ^ a", 0},
    {"atomicOr", "unsigned", "atomic unsigned", "1u << (a & 31u)", 0},
    {"atomicXor", "unsigned", "atomic unsigned", "b", 0},
    {"atomicAnd", "unsigned", "atomic unsigned", "~(1u << (b & 31u))", ~0u},
    {"atomicInc", "unsigned", "atomic unsigned", "37u", 0},
    {"atomicCAS", "unsigned", "atomic unsigned", "a & 0xffu", 0},
    {"atomicCAS", "unsigned long long", "atomic unsigned long long", "(unsigned long long)b << 8", 0},
};
enum { ATOMIC_OPS = sizeof ATOMICS / sizeof *ATOMICS };
_Static_assert(16 * ATOMIC_OPS <= PARTIAL, "the atomics' rows run into the last block's words");

/* One atomic on `place` (an lvalue of its type). */
static void emit_atomic(const struct atomic_op *op, const char *place)
{
    use(op->name), use(op->use_type);
    if (!strcmp(op->name, "atomicCAS"))
        emit("    {\n        %s *p = &%s, v = %s, seen = 0, want;\n"
             "        do {\n            want = seen;\n            seen = atomicCAS(p, want, want + v);\n"
             "        } while (seen != want);\n    }\n",
             op->type, place, op->value);
    else if (!strcmp(op->name, "atomicInc"))
        emit("    atomicInc(&%s, %s);\n", place, op->value);
    else
        emit("    %s(&%s, %s);\n", op->name, place, op->value);
}

static void step_shared_atomic(void)
{
    const struct atomic_op *op = &ATOMICS[rnd(ATOMIC_OPS)];
    use("atomic on shared"), use("__syncthreads");
    char place[96];
    const char *reader;
    if (!strcmp(op->type, "float")) {
        need_facc = 1;
        emit("    if (tid < 8)\n        facc[tid] = 0.0f;\n");
        snprintf(place, sizeof place, "facc[b & 7u]");
        reader = "    f += facc[tid & 7u];\n";
    } else if (!strcmp(op->type, "unsigned long long")) {
        need_qacc = 1;
        emit("    if (tid < 8)\n        qacc[tid] = %s;\n", op->init ? "~0ull" : "0");
        snprintf(place, sizeof place, "qacc[a & 7u]");
        reader = "    q ^= qacc[tid & 7u];\n";
    } else {
        need_acc = 1;
        emit("    if (tid < 8)\n        acc[tid] = 0x%08xu;\n", op->init);
        snprintf(place, sizeof place, strcmp(op->type, "int") ? "acc[b & 7u]" : "((int *)acc)[b & 7u]");
        reader = "    a += acc[tid & 7u];\n";
    }
    emit("    __syncthreads();\n");
    if (rnd(4) == 0 && need_acc && !strcmp(op->type, "unsigned")) {
        /* each slot exchanged by one thread: what it gets back is the start */
        use("atomicExch"), use("atomic unsigned");
        emit("    if (tid < 8)\n        b += atomicExch(&acc[tid], a);\n");
    } else {
        emit_atomic(op, place);
    }
    emit("    __syncthreads();\n%s    __syncthreads();\n", reader);
}

static void step_global_atomic(void)
{
    unsigned row = rnd(ATOMIC_OPS);
    const struct atomic_op *op = &ATOMICS[row];
    use("atomic on global");
    char place[96];
    if (!strcmp(op->type, "unsigned"))
        snprintf(place, sizeof place, "scratch[%u + (b & 7u)]", 16 * row);
    else
        snprintf(place, sizeof place, "((%s *)scratch)[%u + (b & 7u)]", op->type,
                 !strcmp(op->type, "unsigned long long") ? 8 * row : 16 * row);
    emit_atomic(op, place);
}

/* The last block to take a ticket adds what every block stored before it. */
static void step_last_block(void)
{
    did_last = need_last = 1;
    use("__threadfence"), use("volatile"), use("atomicAdd"), use("atomic on global"), use("__syncthreads");
    emit("    if (tid == 0) {\n        scratch[%u + bid] = a;\n        __threadfence();\n"
         "        last = atomicAdd(&scratch[%u], 1u) == %uu;\n    }\n    __syncthreads();\n"
         "    if (last) {\n        unsigned sum = 0;\n"
         "        for (unsigned i = 0; i < %uu; i++)\n            sum += ((volatile unsigned *)scratch)[%u + i];\n"
         "        if (tid == %uu)\n            scratch[%u] = sum;\n    }\n",
         PARTIAL, TICKET, blocks - 1, blocks, PARTIAL, rnd(threads), TOTAL);
}

/* Blocks in the order of their tickets, each adding to the sum the one
 * before it published behind a volatile flag. */
static void step_chain(void)
{
    did_chain = 1;
    use("__threadfence"), use("volatile"), use("atomicAdd"), use("atomic on global"), use("__syncthreads");
    int nap = rnd(2);
    if (nap)
        use("__nanosleep");
    emit("    if (tid == 0) {\n        unsigned id = atomicAdd(&scratch[%u], 1u), before = 0;\n"
         "        if (id > 0) {\n            while (((volatile unsigned *)scratch)[%u + id - 1] == 0)\n"
         "                %s;\n"
         "            before = ((volatile unsigned *)scratch)[%u + id - 1];\n        }\n"
         "        scratch[%u + id] = before + (id * 0x%08xu >> 12);\n        __threadfence();\n"
         "        ((volatile unsigned *)scratch)[%u + id] = 1;\n    }\n    __syncthreads();\n",
         ORDER, FLAGS, nap ? "__nanosleep(32)" : "", PREFIX, PREFIX, odd(), FLAGS);
}

static void step(void)
{
    switch (rnd(12)) {
    case 0:
    case 1: step_integer(); break;
    case 2: step_float(); break;
    case 3:
    case 4: step_shuffle(); break;
    case 5: step_vote(); break;
    case 6:
    case 7: step_block_exchange(); break;
    case 8: step_warp_exchange(); break;
    case 9: step_shared_atomic(); break;
    case 10: step_global_atomic(); break;
    default:
        if (!did_last && rnd(2))
            step_last_block();
        else if (!did_chain)
            step_chain();
        else
            step_integer();
    }
}

/* ---- a kernel and its launcher ------------------------------------------- */
static void kernel(unsigned long long seed, unsigned index)
{
    state = seed * 0x9e3779b97f4a7c15ull ^ index;
    next64();
    body_len = 0;
    memset(uses, 0, sizeof uses);
    need_s = need_sf = need_acc = need_facc = need_qacc = need_tile = need_dyn = need_last = 0;
    did_last = did_chain = 0;
    static const unsigned sizes[] = {32, 64, 128, MOST_THREADS};
    threads = sizes[rnd(4)];
    by = rnd(2) ? 1 : 1u << rnd(4);
    while (threads / by < 4)
        by /= 2;
    bx = threads / by;
    gx = 1 + rnd(MOST_BLOCKS / 2);
    gy = rnd(3) ? 1 : 2;
    blocks = gx * gy;
    if (by > 1)
        use("2-D block");
    if (gy > 1)
        use("2-D grid");
    unsigned steps = 4 + rnd(7);
    for (unsigned k = 0; k < steps; k++)
        step();
    /* what every kernel and its run use */
    static const char *const always[] = {"__global__", "__restrict__", "threadIdx", "blockIdx", "gridDim",
                                         "dim3", "kernel launch", "cudaMalloc", "cudaMemcpy", "cudaMemset",
                                         "cudaMemsetAsync", "cudaGetLastError", "cudaDeviceSynchronize", "cudaGetErrorString",
                                         "cudaDeviceReset"};
    for (unsigned k = 0; k < sizeof always / sizeof *always; k++)
        use(always[k]);
    if (by > 1)
        use("blockDim");
    if (need_s || need_sf || need_acc || need_facc || need_qacc || need_tile || need_last)
        use("__shared__");
    if (need_s || need_sf)
        use("__align__");

    const char *bounds = "";
    char bound[48];
    if (rnd(3) == 0) {
        snprintf(bound, sizeof bound, "__launch_bounds__(%u) ", threads);
        bounds = bound;
        use("__launch_bounds__");
    } else if (rnd(4) == 0) {
        bounds = "__maxnreg__(64) ";
        use("__maxnreg__");
    }
    printf("\n/* kernel %u of seed %llu; uses:", index, seed);
    for (unsigned k = 0; k < WORDS; k++)
        if (uses[k])
            printf(" %s=%u;", VOCABULARY[k], uses[k]);
    printf(" */\n__global__ void %skernel_%u(const unsigned *__restrict__ in, const float *__restrict__ fin,\n"
           "    unsigned *__restrict__ out, unsigned *scratch, unsigned *__restrict__ xbuf)\n{\n",
           bounds, index);
    if (need_s)
        printf("    __shared__ __align__(16) unsigned s[%u];\n", threads * 4);
    if (need_sf)
        printf("    __shared__ __align__(16) float sf[%u];\n", threads * 4);
    if (need_acc)
        printf("    __shared__ unsigned acc[8];\n");
    if (need_facc)
        printf("    __shared__ float facc[8];\n");
    if (need_qacc)
        printf("    __shared__ unsigned long long qacc[8];\n");
    if (need_tile)
        printf("    __shared__ unsigned tile[%u][%u];\n", by, bx + 1);
    if (need_dyn)
        printf("    extern __shared__ unsigned dyn[];\n");
    if (need_last)
        printf("    __shared__ bool last;\n");
    printf("    const unsigned tid = %s, bid = blockIdx.y * gridDim.x + blockIdx.x;\n",
           by > 1 ? "threadIdx.y * blockDim.x + threadIdx.x" : "threadIdx.x");
    printf("    const unsigned gid = bid * %uu + tid, lane = tid %% 32u;\n", threads);
    printf("    unsigned a = in[gid %% %uu], b = in[(gid * 7u + 3u) %% %uu];\n", (unsigned)IN, (unsigned)IN);
    printf("    float f = fin[(gid * 3u + 1u) %% %uu];\n", (unsigned)IN);
    printf("    unsigned long long q = (unsigned long long)a << 32 | b;\n");
    printf("    (void)lane;\n");
    fwrite(body, 1, body_len, stdout);
    if (rnd(2)) {
        printf("    reinterpret_cast<uint4 *>(out)[gid] = make_uint4(a, b, __float_as_uint(f), "
               "(unsigned)(q ^ q >> 32));\n}\n");
    } else {
        printf("    out[gid * 4 + 0] = a;\n    out[gid * 4 + 1] = b;\n    out[gid * 4 + 2] = __float_as_uint(f);\n"
               "    out[gid * 4 + 3] = (unsigned)(q ^ q >> 32);\n}\n");
    }
    printf("static void launch_%u(const unsigned *in, const float *fin, unsigned *out, unsigned *scratch, "
           "unsigned *xbuf)\n{\n    kernel_%u<<<dim3(%u, %u), dim3(%u, %u), %u>>>(in, fin, out, scratch, xbuf);\n}\n",
           index, index, gx, gy, bx, by, need_dyn ? threads * 4 : 0);
    printf("#define THREADS_%u %u\n", index, threads * blocks);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--vocabulary")) {
        for (unsigned k = 0; k < WORDS; k++)
            puts(VOCABULARY[k]);
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: gen SEED FIRST COUNT > batch.cu, or gen --vocabulary\n");
        return 2;
    }
    plant_race = getenv("PLANT") && !strcmp(getenv("PLANT"), "race");
    unsigned long long seed = strtoull(argv[1], NULL, 10);
    unsigned first = (unsigned)strtoul(argv[2], NULL, 10), count = (unsigned)strtoul(argv[3], NULL, 10);
    printf("/* Written by authoring/differential/gen.c %llu %u %u: kernels %u to %u of seed %llu. */\n",
           seed, first, count, first, first + count - 1, seed);
    printf("#include <cuda_runtime.h>\n");
    printf("enum { IN = %u, SCRATCH = %u, OUT_MOST = %u };\n", (unsigned)IN, (unsigned)SCRATCH,
           MOST_BLOCKS * MOST_THREADS * OUT_WORDS);
    printf("static const unsigned row_init[] = {");
    for (unsigned k = 0; k < ATOMIC_OPS; k++)
        printf("%s0x%08xu", k ? ", " : "", ATOMICS[k].init);
    printf("};\n");
    printf("/* helpers the kernels call, as a lab's kernels do */\n"
           "__device__ __forceinline__ unsigned mix(unsigned x, unsigned y)\n{\n"
           "    return (x ^ y >> 7) * 0x9e3779b1u + __popc(y);\n}\n"
           "__host__ __device__ unsigned rotate(unsigned x, unsigned by)\n{\n"
           "    return x << (by & 31u) | x >> ((32u - by) & 31u);\n}\n");
    for (unsigned i = first; i < first + count; i++)
        kernel(seed, i);
    printf("%s", "\nstatic const struct kernel_entry {\n    unsigned index, threads;\n"
                 "    void (*launch)(const unsigned *, const float *, unsigned *, unsigned *, unsigned *);\n"
                 "} kernels[] = {\n");
    for (unsigned i = first; i < first + count; i++)
        printf("    {%u, THREADS_%u, launch_%u},\n", i, i, i);
    printf("};\n");
    printf("\n#include \"host.cuh\" /* authoring/differential's: runs each kernel, prints its checksum */\n");
    return 0;
}
