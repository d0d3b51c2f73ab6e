/* seal.c: the seal on the records a grading run leaves (judge.c writes and
 * reads them), and the key it is made with.
 *
 * In grading, the emulated driver that counts a stage runs the student's
 * code in its own process, so nothing it prints can be a verdict. Instead it
 * writes DIR/technique.txt: what it counted, as numbers, and a SipHash-2-4
 * tag over them under a key the grader wrote to ./technique.key for this run
 * alone. The driver reads and deletes that file before any constructor of
 * the student's file runs (.preinit_array, and seal.o is linked first);
 * the grader's own binary (technique=ID judge=DIR) checks the tag, judges
 * the counted run's outputs as it judges any case, and computes the verdict
 * and its sentence itself. A record that is missing counts as uncounted; one
 * without its right tag, or malformed, as forged: "review", never credit.
 * What the seal cannot stop is code that digs the key out of this process's
 * memory: that takes deliberate work, which a reviewer of the file sees. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "driver.h"

static uint64_t le64(const unsigned char *b)
{
    uint64_t w = 0;
    for (int i = 7; i >= 0; i--)
        w = w << 8 | b[i];
    return w;
}
#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
static void sip_round(uint64_t v[4])
{
    v[0] += v[1], v[1] = ROTL(v[1], 13) ^ v[0], v[0] = ROTL(v[0], 32);
    v[2] += v[3], v[3] = ROTL(v[3], 16) ^ v[2];
    v[0] += v[3], v[3] = ROTL(v[3], 21) ^ v[0];
    v[2] += v[1], v[1] = ROTL(v[1], 17) ^ v[2], v[2] = ROTL(v[2], 32);
}
/* SipHash-2-4 (Aumasson and Bernstein, 2012) of m under a 16-byte key */
static uint64_t siphash(const unsigned char key[16], const unsigned char *m, size_t len)
{
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
                     k0 ^ 0x6c7967656e657261ull, k1 ^ 0x7465646279746573ull};
    size_t whole = len - len % 8;
    uint64_t last = (uint64_t)len << 56;
    for (size_t i = 0; i < len % 8; i++)
        last |= (uint64_t)m[whole + i] << (8 * i);
    for (size_t i = 0; i <= whole; i += 8) {
        uint64_t w = i < whole ? le64(m + i) : last;
        v[3] ^= w;
        sip_round(v), sip_round(v);
        v[0] ^= w;
    }
    v[2] ^= 0xff;
    for (int r = 0; r < 4; r++)
        sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}
#undef ROTL

static bool hex_key(const char *hex, unsigned char key[16])
{
    for (int i = 0; i < 32; i++) {
        int c = hex[i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return false;
        key[i / 2] = (unsigned char)(i % 2 ? key[i / 2] << 4 | d : d);
    }
    return hex[32] == '\0' || hex[32] == '\n';
}

static unsigned char seal_key[16];
static bool seal_given;
static void take_seal_key(void);
#if defined(__linux__)
/* Before any constructor: raw system calls, since no library (the race
 * detector's among them) is ready yet. */
__attribute__((section(".preinit_array"), used)) static void (*const seal_key_taker)(void) =
    take_seal_key;
/* Up to n bytes of the file at path, which is then removed: how many, or -1. */
static long take_file(const char *path, char *bytes, long n)
{
    long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long got = syscall(SYS_read, fd, bytes, n);
    syscall(SYS_close, fd);
    syscall(SYS_unlinkat, AT_FDCWD, path, 0);
    return got;
}
#else
/* Darwin has no .preinit_array: the first constructor, through the C
 * library (graders, who give keys, run on Linux). */
__attribute__((constructor(101))) static void seal_key_taker(void) { take_seal_key(); }
static long take_file(const char *path, char *bytes, long n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    long got = read(fd, bytes, (size_t)n);
    close(fd);
    unlink(path);
    return got;
}
#endif
static void take_seal_key(void)
{
    char hex[33] = "";
    seal_given = take_file("technique.key", hex, 32) == 32 && hex_key(hex, seal_key);
    for (int i = 0; i < 32; i++)
        ((volatile char *)hex)[i] = 0;
}

/* Seals the record text[0..len) (room for RECORD_MAX) with the key, if one
 * was given, and writes it to DIR/NAME. */
void write_sealed(char *text, int len, const char *dir, const char *name)
{
    if (seal_given && len > 0 && len < RECORD_MAX - 32)
        len += snprintf(text + len, RECORD_MAX - len, "seal %016llx\n",
                        (unsigned long long)siphash(seal_key, (unsigned char *)text, (size_t)len));
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *out = fopen(path, "w");
    if (!out || len <= 0 || fwrite(text, 1, (size_t)len, out) != (size_t)len || fclose(out) != 0)
        die("%s: cannot write the record there", path);
}

/* Why text[0..len) (read into RECORD_MAX + 1 bytes) is not sealed under the
 * key, its last line the seal; NULL when it is, with *seal where that
 * line starts. */
const char *seal_check(const unsigned char key[16], char *text, size_t len, char **seal)
{
    if (len >= RECORD_MAX || memchr(text, '\0', len))
        return "it is too long, or not text";
    text[len] = '\0';
    *seal = strstr(text, "\nseal ");
    if (!*seal)
        return "it has no seal";
    ++*seal;
    unsigned long long tag;
    char end;
    if (sscanf(*seal, "seal %16llx%c", &tag, &end) != 2 || end != '\n' ||
        *seal + strlen("seal ") + 17 != text + len)
        return "its seal line is malformed";
    if (tag != siphash(key, (unsigned char *)text, (size_t)(*seal - text)))
        return "its seal does not match what it holds";
    return NULL;
}

/* The text of DIR/NAME, a regular file, into text (RECORD_MAX + 1 bytes):
 * its length, or -1 when there is none. */
long read_whole(const char *dir, const char *name, char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    FILE *in = lstat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "rb") : NULL;
    if (!in)
        return -1;
    long len = (long)fread(text, 1, RECORD_MAX, in);
    fclose(in);
    return len;
}

/* The grader's key, from its environment's WORKBOOK_SEAL_KEY. */
void grader_key(const char *what, const char *id, const char *dir, unsigned char key[16])
{
    const char *hex = getenv("WORKBOOK_SEAL_KEY");
    if (!hex || strlen(hex) != 32 || !hex_key(hex, key))
        die("%s=%s judge=%s: WORKBOOK_SEAL_KEY holds no key of 32 hex digits", what, id, dir);
}
