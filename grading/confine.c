/* confine.c: the sandbox's last step before the command, default-deny
 * through Landlock (grading/sandbox.sh builds it on first use).
 *
 *   confine [-r PATH | -w PATH]... -- COMMAND...
 *
 * restricts itself to the paths given, -r to read and execute, -w to do
 * anything, and execs COMMAND: every other file of the host is refused to
 * it and to all it starts, whatever their user may read. Where the kernel
 * knows how (Landlock ABI 4 and 6), it also refuses TCP, signals to any
 * process outside, and abstract sockets made outside. A PATH that does not
 * exist, or that its user cannot reach, grants nothing.
 *
 *   confine --abi
 *
 * prints the kernel's Landlock ABI version, 0 where there is none; without
 * one, confine runs COMMAND unconfined (sandbox.sh says so first). Either
 * way it closes every fd above 2, the sandbox hands it over as one.
 *
 *   $ confine -r /usr -r /etc/ld.so.cache -w "$PWD" -- cat /etc/hostname
 *   cat: /etc/hostname: Permission denied
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's interface (include/uapi/linux/landlock.h), written out here:
 * the sandbox builds this where the headers may predate Landlock (it came
 * in Linux 5.13). The system calls are numbered alike on every
 * architecture. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define CREATE_RULESET_VERSION (1U << 0)
#define RULE_PATH_BENEATH 1
#define FS_EXECUTE (1ULL << 0) /* ABI 1: bits 0 to 12 */
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_ABI1 ((1ULL << 13) - 1)
#define FS_REFER (1ULL << 13)     /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define NET_BIND_TCP (1ULL << 0)  /* ABI 4 */
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)

/* The ruleset as ABI 6 reads it; an older kernel accepts the fields it
 * does not know as long as they are 0. */
struct ruleset {
    uint64_t fs, net, scoped;
};
struct path_beneath {
    uint64_t allowed;
    int32_t parent_fd;
} __attribute__((packed));

#define READ (FS_EXECUTE | FS_READ_FILE | FS_READ_DIR)
/* what a rule on a file (not a folder) may hold */
#define FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)

static int landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

/* What ABI abi handles: each version adds to the one before. */
static struct ruleset handled(int abi)
{
    struct ruleset r = {FS_ABI1, 0, 0};
    if (abi >= 2) r.fs |= FS_REFER;
    if (abi >= 3) r.fs |= FS_TRUNCATE;
    if (abi >= 4) r.net = NET_BIND_TCP | NET_CONNECT_TCP;
    if (abi >= 5) r.fs |= FS_IOCTL_DEV;
    if (abi >= 6) r.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
    return r;
}

/* allow RULESET RIGHTS PATH: 0, or -1 with errno for a rule the kernel refused */
static int allow(int ruleset, uint64_t rights, const char *path)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0) close(fd);
        return 0; /* nothing there, or out of its reach: nothing granted */
    }
    if (!S_ISDIR(st.st_mode)) rights &= FILE_RIGHTS;
    struct path_beneath rule = {.allowed = rights, .parent_fd = fd};
    long done = syscall(SYS_landlock_add_rule, ruleset, RULE_PATH_BENEATH, &rule, 0);
    int saved = errno;
    close(fd);
    errno = saved;
    return done == 0 ? 0 : -1;
}

/* every fd above 2: the sandbox hands this program over as one */
static void close_above_2(void)
{
    struct rlimit open_max;
    int top = 65536;
    if (getrlimit(RLIMIT_NOFILE, &open_max) == 0 && open_max.rlim_cur < (rlim_t)top)
        top = (int)open_max.rlim_cur;
    for (int fd = 3; fd < top; fd++) close(fd);
}

static int usage(void)
{
    fprintf(stderr, "usage: confine [-r PATH | -w PATH]... -- COMMAND...  |  confine --abi\n");
    return 126;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--abi")) {
        printf("%d\n", landlock_abi());
        return 0;
    }
    int abi = landlock_abi(), ruleset = -1, k = 1;
    struct ruleset all = handled(abi);
    if (abi > 0) {
        ruleset = (int)syscall(SYS_landlock_create_ruleset, &all, sizeof all, 0);
        if (ruleset < 0) {
            perror("confine: landlock_create_ruleset");
            return 126;
        }
    }
    for (; k + 1 < argc && (!strcmp(argv[k], "-r") || !strcmp(argv[k], "-w")); k += 2) {
        uint64_t rights = argv[k][1] == 'r' ? READ : all.fs;
        if (ruleset >= 0 && allow(ruleset, rights & all.fs, argv[k + 1]) != 0) {
            fprintf(stderr, "confine: %s: %s\n", argv[k + 1], strerror(errno));
            return 126;
        }
    }
    if (k >= argc || strcmp(argv[k], "--") || k + 1 == argc) return usage();
    /* no_new_privs: what Landlock asks of a process that is not root, and a
     * setuid program could not shed the rules anyway */
    if (ruleset >= 0 && (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
                         syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)) {
        perror("confine: landlock_restrict_self");
        return 126;
    }
    close_above_2();
    execvp(argv[k + 1], argv + k + 1);
    fprintf(stderr, "confine: %s: %s\n", argv[k + 1], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
