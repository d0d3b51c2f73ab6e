#!/usr/bin/env bash
# sandbox-test.sh: grading/sandbox.sh against commands that try to get out,
# one fixture per way out a review found, each run through sandbox.sh
# itself (no make grade): with user namespaces, and in their fallback
# (SANDBOX=none). Run as root, it runs them all again as another user
# (nobody). A fixture that cannot hold in a mode is skipped, saying why.
# Besides the ways out: files it must not read (default-deny), the
# toolchain it must run, a CPU hog's share and its cgroups, gone after it.
# As root, all of it again on a kernel without Landlock, as a seccomp
# filter makes one. About two minutes on 2 cores.
set -u
cd "$(dirname "$0")/../.." || exit 1
sandbox=${SANDBOX_SCRIPT:-$(pwd)/grading/sandbox.sh} self=$(pwd)/tests/grade/sandbox-test.sh
status=0

# The attacks, in C: each prints what got through, nothing when held.
probe_source() {
    cat << 'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void type_into(int fd, const char *name)
{
    char c = ' ';
    if (ioctl(fd, TIOCSTI, &c) == 0) printf("TIOCSTI typed into %s\n", name);
}

/* fds: fds above 2, terminals, and keystrokes pushed into them */
static int fds(void)
{
    for (int fd = 0; fd < 1024; fd++) {
        if (fcntl(fd, F_GETFD) == -1) continue;
        char name[16];
        snprintf(name, sizeof name, "fd %d", fd);
        if (fd > 2) printf("%s is open\n", name);
        if (isatty(fd)) {
            printf("%s is a terminal\n", name);
            type_into(fd, name);
        }
    }
    int tty = open("/dev/tty", O_RDWR | O_NOCTTY);
    if (tty >= 0) {
        printf("/dev/tty opens: a controlling terminal\n");
        type_into(tty, "/dev/tty");
    }
    return 0;
}

static int unix_socket(const char *path, struct sockaddr_un *addr)
{
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    strncpy(addr->sun_path, path, sizeof addr->sun_path - 1);
    return socket(AF_UNIX, SOCK_STREAM, 0);
}

/* listen PATH: a socket any user may connect to, until killed */
static int listen_at(const char *path)
{
    struct sockaddr_un addr;
    int s = unix_socket(path, &addr);
    if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(s, 16) != 0) {
        perror(path);
        return 1;
    }
    chmod(path, 0777);
    for (;;) pause();
}

static int connect_to(const char *path)
{
    struct sockaddr_un addr;
    int s = unix_socket(path, &addr);
    if (s >= 0 && connect(s, (struct sockaddr *)&addr, sizeof addr) == 0) {
        printf("connected to %s\n", path);
        return 0;
    }
    return 1;
}

/* fork N: how many children, each living a second, it could start */
static int fork_many(int n)
{
    int forked = 0;
    for (int k = 0; k < n; k++) {
        pid_t p = fork();
        if (p == 0) {
            sleep(1);
            _exit(0);
        }
        if (p > 0) forked++;
    }
    printf("forked %d\n", forked);
    fflush(stdout);
    while (wait(NULL) > 0) {}
    return 0;
}

/* memfd MB: MB MiB written (never mapped) into memfds, held 5 s */
static int memfds(long mb)
{
    static char chunk[1 << 20];
    memset(chunk, 1, sizeof chunk);
    long written = 0;
    while (written < mb) {
        int fd = memfd_create("probe", 0);
        if (fd < 0) break;
        for (int k = 0; k < 64 && written < mb; k++, written++)
            if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk) goto hold;
    }
hold:
    printf("%ld MiB held in memfds\n", written);
    fflush(stdout);
    sleep(5);
    return 0;
}

/* spin N SECONDS: N processes busy for SECONDS of wall time; the CPU time
 * they got, and this one's nice */
static int spin(int n, double seconds)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int k = 0; k < n; k++)
        if (fork() == 0) {
            do clock_gettime(CLOCK_MONOTONIC, &t);
            while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
            _exit(0);
        }
    while (wait(NULL) > 0) {}
    struct rusage used;
    getrusage(RUSAGE_CHILDREN, &used);
    printf("cpu %.2f s, nice %d\n", used.ru_utime.tv_sec + used.ru_stime.tv_sec +
           (used.ru_utime.tv_usec + used.ru_stime.tv_usec) / 1e6, getpriority(PRIO_PROCESS, 0));
    return 0;
}

/* daemon SECONDS: a grandchild in a session of its own, sleeping on */
static int daemon_sleeping(const char *seconds)
{
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            for (int fd = 0; fd < 3; fd++) close(fd);
            execl("/bin/sleep", "sleep", seconds, (char *)NULL);
        }
        _exit(0);
    }
    wait(NULL);
    return 0;
}

int main(int argc, char **argv)
{
    const char *verb = argc > 1 ? argv[1] : "", *arg = argc > 2 ? argv[2] : "";
    if (!strcmp(verb, "fds")) return fds();
    if (!strcmp(verb, "listen")) return listen_at(arg);
    if (!strcmp(verb, "connect")) return connect_to(arg);
    if (!strcmp(verb, "fork")) return fork_many(atoi(arg));
    if (!strcmp(verb, "memfd")) return memfds(atol(arg));
    if (!strcmp(verb, "daemon")) return daemon_sleeping(arg);
    if (!strcmp(verb, "spin")) return spin(atoi(arg), argc > 3 ? atof(argv[3]) : 1);
    return 2;
}
EOF
}

# sb [VAR=VALUE...] -- WORK SECONDS HIDE... -- COMMAND...: sandbox.sh in
# this mode; what it printed in $out, its exit status in $rc
sb() {
    local vars=()
    while [ "$1" != -- ]; do vars+=("$1"); shift; done
    shift
    env SANDBOX="$sandbox_mode" "${vars[@]}" "$sandbox" "$@" > "$dir/out" 2>&1
    rc=$?
    out=$(cat "$dir/out")
}
# a new WORK, holding the probe: nothing else of this test is in its view
fresh() { work=$(mktemp -d "$dir/work.XXXXXX") && cp "$probe" "$work/probe"; }
say() { echo "sandbox-test: $who, $mode: $*"; }
held() { say "$1: as it should"; }
failed() { say "$1: $(tr '\n' ' ' <<< "$2")"; status=1; }
skip() { say "$1: skipped: $2"; }
# a number of seconds no other process sleeps: it names the fixture's processes
mark() { echo "$((4000 + RANDOM % 1000)).$$$RANDOM"; }
# end, by their ids, the processes a fixture left running
reap() { pgrep -f -- "$1" | xargs -r kill -KILL 2> /dev/null; }

fixtures() { # in $dir, a folder of this user's, as $who, in $mode
    local fallback=0 root=0 landlock=1 m listener t
    [ "$sandbox_mode" = none ] && fallback=1
    [ "$(id -u)" = 0 ] && root=1

    fresh
    sb SANDBOX_KEEP=results -- "$work" 10 -- sh -c 'mkdir results && echo kept > results/x && echo lost > junk'
    if [ "$(cat "$work/results/x" 2> /dev/null)" != kept ] || { [ $fallback = 0 ] && [ -e "$work/junk" ]; }; then
        failed "what it keeps" "results/x not kept, or junk kept: $out"
    elif [ -n "$(find "$work" ! -user "$(id -u)")" ]; then
        failed "what it keeps" "files not the grader's after it: $(find "$work" ! -user "$(id -u)" -printf '%u %p ')"
    else held "what it keeps is back, the grader's"; fi
    [[ $out != *"no Landlock here"* ]] || landlock=0

    fresh
    t=$SECONDS
    sb -- "$work" 1 -- sleep 10
    if [ $rc = 124 ] && [[ $out == *"sandbox: stopped"* ]] && [ $((SECONDS - t)) -le 4 ]; then
        held "a command past its time is stopped (124)"
    else failed "time-out" "exit $rc after $((SECONDS - t)) s: $out"; fi

    # 1. as root, the sandbox's root must be no root outside
    fresh
    # shellcheck disable=SC2016 # the sandbox's shell expands them
    sb -- "$work" 10 -- sh -c '{ cat /etc/shadow > /dev/null && echo "read /etc/shadow"
        p=$(cat /proc/sys/kernel/core_pattern) && echo "$p" > /proc/sys/kernel/core_pattern && echo "wrote core_pattern"
        } 2> /dev/null'
    if [[ $out == *"read /etc/shadow"* || $out == *"wrote core_pattern"* ]]; then failed "root's files" "$out"
    else held "reads no /etc/shadow, writes no kernel setting"; fi

    # 2. no terminal: TIOCSTI would type into the grader's shell
    fresh
    if command -v script > /dev/null; then
        SANDBOX=$sandbox_mode script -qec "$(printf '%q ' "$sandbox" "$work" 10 -- ./probe fds)" /dev/null > "$dir/out" 2>&1 < /dev/null
        out=$(cat "$dir/out")
        if [[ $out == *terminal* || $out == *TIOCSTI* ]]; then failed "terminal" "$(echo "$out" | tr -d '\r' | tr '\n' ';')"
        else held "run from a terminal, it has none, nor types into one"; fi
    else skip "terminal" "no script(1) here to give it one"; fi

    # 3. Unix sockets: /run, /var/run and /dev are the sandbox's own
    if [ $fallback = 1 ]; then
        skip "sockets" "the fallback has no view of its own: a socket its user may write is reachable"
    else
        fresh
        "$probe" listen "$rundir/listening" & listener=$!
        for _ in $(seq 50); do "$probe" connect "$rundir/listening" > /dev/null && break; sleep 0.1; done
        sb -- "$work" 10 -- sh -c "./probe connect '$rundir/listening'; ls -A /dev"
        kill "$listener"; wait "$listener" 2> /dev/null; rm -f "$rundir/listening"
        m=$(grep -v -x -E 'sandbox: .*|(null|zero|full|random|urandom|tty|shm|fd|stdin|stdout|stderr|nvidia.*)' <<< "$out")
        if [ -n "$m" ]; then failed "sockets" "$(echo "$m" | tr '\n' ' ')"
        else held "a socket under /run answers not, /dev holds only the usual nodes"; fi
    fi

    # 4. no fd of the grader's
    fresh
    sb -- "$work" 10 -- ./probe fds 7< /dev/null 9>> "$dir/lock"
    if [[ $out == *open* ]]; then failed "fds" "$(echo "$out" | tr '\n' ' ')"
    else held "inherits no fd but 0 to 2"; fi

    # 5. the process limit
    fresh
    sb SANDBOX_PROCS=20 -- "$work" 20 -- ./probe fork 200
    m=$(sed -n 's/^forked //p' <<< "$out")
    if [ -n "$m" ] && [ "$m" -le 30 ]; then held "with SANDBOX_PROCS=20, forks $m of 200"
    else failed "processes" "with SANDBOX_PROCS=20, forked ${m:-?} of 200"; fi

    # 6. memory held in memfds, never mapped
    fresh
    sb SANDBOX_MEM_MB=256 -- "$work" 30 -- ./probe memfd 512
    if [[ $out == *"no memory"* ]]; then skip "memfds" "no memory limit in this mode (no cgroup of its own)"
    elif [ $rc = 125 ] && [[ $out == *"sandbox: stopped"* ]]; then held "512 MiB in memfds, past 256 MiB, is stopped (125)"
    else failed "memfds" "exit $rc: $(echo "$out" | tr '\n' ' ')"; fi

    # 7. interrupted, as by Ctrl-C to the grader's process group (a job
    # started with & ignores SIGINT: env makes it heed one again)
    fresh
    m=$(mark)
    # shellcheck disable=SC2016 # the child shell expands them
    SANDBOX=$sandbox_mode setsid env --default-signal=INT sh -c '"$0" "$1" 60 -- sh -c "sleep $2 & sleep $2"; :' "$sandbox" "$work" "$m" > "$dir/out" 2>&1 < /dev/null &
    listener=$!
    for _ in $(seq 50); do [ "$(pgrep -c -f -x "sleep $m")" -ge 2 ] && break; sleep 0.1; done
    kill -INT -- "-$listener"
    for _ in $(seq 50); do pgrep -f -- "$m" > /dev/null || break; sleep 0.1; done
    if pgrep -f -- "$m" > /dev/null; then failed "interrupted" "5 s after SIGINT: $(pgrep -a -f -- "$m" | tr '\n' ';')"
    else held "interrupted, nothing of it runs on"; fi
    { reap "$m"; wait "$listener"; } 2> /dev/null # quiet: bash's notice of the job it killed

    # 8. a daemon, in a session of its own
    if [ $fallback = 1 ] && [ $root = 0 ]; then
        skip "daemon" "the fallback as another user kills its session alone"
    else
        fresh
        m=$(mark)
        sb -- "$work" 10 -- ./probe daemon "$m"
        if pgrep -f -x "sleep $m" > /dev/null; then failed "daemon" "it outlived the sandbox"
        else held "a daemon it leaves is ended with it"; fi
        reap "$m"
    fi

    # 9. a folder to hide, named through an absolute link; 10. in the fallback
    # as root, one the sandbox's user can reach is refused
    if [ $fallback = 1 ] && [ $root = 0 ] && [ $landlock = 0 ]; then
        skip "hidden folders" "the fallback as another user without Landlock hides nothing from that user"
    else
        fresh
        mkdir -p "$dir/real/hidden" && echo "s3cr3t" > "$dir/real/hidden/notes" && ln -sfn "$dir/real" "$dir/link"
        chmod 755 "$dir/real/hidden"
        [ $fallback = 1 ] && [ $root = 1 ] && chmod 700 "$dir/real/hidden"
        sb -- "$work" 10 "$dir/link/hidden" -- sh -c \
            "cat '$dir/link/hidden/notes' '$dir/real/hidden/notes' 2> /dev/null; ls '$dir/real/hidden' 2> /dev/null"
        if [[ $out == *s3cr3t* || $out == *notes* ]]; then failed "hidden folders" "a folder hidden as $dir/link/hidden: $out"
        else held "a folder hidden through a link is hidden"; fi
        if [ $fallback = 1 ] && [ $root = 1 ]; then
            fresh
            chmod 755 "$dir/real/hidden"
            sb -- "$work" 10 "$dir/link/hidden" -- touch ran
            if [ $rc = 126 ] && [ ! -e "$work/ran" ] && [[ $out == *"chmod 700"* ]]; then
                held "a folder to hide that its user can reach is refused (126)"
            else failed "reachable hidden folder" "exit $rc: $out"; fi
        fi
        rm -rf "$dir/real" "$dir/link"
    fi

    # 11. default-deny: world-readable files outside what it is given (a
    # course's files in another checkout, in /srv, /opt; the host's /etc)
    # are refused to it; what it is given reads
    fresh
    # shellcheck disable=SC2016 # the sandbox's shell expands them
    sb -- "$work" 10 -- sh -c 'for f in "$@"; do cat "$f" > /dev/null 2>&1 && echo "read $f"; done' sh \
        /etc/passwd "${planted[@]}"
    m=$(grep '^read ' <<< "$out" | grep -v -x 'read /etc/passwd')
    if [[ $out == *"no Landlock here"* ]] && [ $fallback = 1 ]; then skip "default-deny" "no Landlock here"
    elif [[ $out != *"read /etc/passwd"* ]]; then failed "default-deny" "it could not read /etc/passwd, which it is given: $out"
    elif [ -n "$m" ]; then failed "default-deny" "$m"
    else held "reads what it is given (/etc/passwd), not the ${#planted[@]} world-readable files outside it"; fi

    # 12. the toolchain inside: make, g++, and nvcc where there is one (the
    # emulated build of a lab: tests/grade/grade-test.sh, modes.sh and
    # gradescope-test.sh, in these modes)
    fresh
    printf 'int main() { return 0; }\n' | tee "$work/t.cpp" > "$work/t.cu"
    printf 'ok:\n\t@g++ -o t t.cpp && ./t && echo g++ built\n' > "$work/Makefile"
    m=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2> /dev/null)
    sb -- "$work" 120 -- sh -c "make -s ok; [ -z '$m' ] || { '$m' -c t.cu -o t.o && echo nvcc built; }"
    if [[ $out != *"g++ built"* ]] || { [ -n "$m" ] && [[ $out != *"nvcc built"* ]]; }; then failed "toolchain" "$out"
    else held "make and g++ work inside$([ -n "$m" ] && echo ", and nvcc")"; fi

    # 13. a CPU hog gets its share alone: 4 busy processes for 3 s at
    # SANDBOX_CPUS=0.25 (a cgroup's quota, exact to a period of 0.1 s), or
    # at nice 19 where it has no cgroup
    fresh
    sb SANDBOX_CPUS=0.25 -- "$work" 20 -- ./probe spin 4 3
    m=$(sed -n 's/^cpu \([0-9.]*\) s, nice \(-*[0-9]*\)$/\1 \2/p' <<< "$out")
    if grep -q '^sandbox: .*nice 19' <<< "$out"; then
        if [ "${m#* }" = 19 ]; then held "without a cgroup, a CPU hog runs at nice 19"
        else failed "CPU share" "nice 19 said, not done: $out"; fi
    elif [ -n "$m" ] && awk -v cpu="${m% *}" 'BEGIN { exit !(cpu <= 0.25 * 3 + 0.25) }'; then
        held "4 busy processes for 3 s got ${m% *} s of CPU, at SANDBOX_CPUS=0.25"
    else failed "CPU share" "4 busy processes for 3 s at SANDBOX_CPUS=0.25: $out"; fi

    # 14. as root, its cgroups hold the share and the process cap it is given
    if [ $root = 1 ]; then
        fresh
        SANDBOX=$sandbox_mode SANDBOX_CPUS=0.25 SANDBOX_PROCS=20 "$sandbox" "$work" 20 -- sleep 2 > "$dir/out" 2>&1 &
        t=$!
        sleep 1
        m=$(find /sys/fs/cgroup -maxdepth 4 -name "sandbox-$t" -exec sh -c \
            'cat "$1/pids.max" "$1/cpu.max" "$1/cpu.cfs_quota_us" 2> /dev/null' sh {} \; | tr '\n' ' ')
        wait "$t"
        if grep -q '^sandbox: .*(RLIMIT_NPROC)' "$dir/out"; then skip "cgroups" "none here: $(cat "$dir/out")"
        elif [[ $m == *"20 "* && $m == *"25000 "* ]]; then held "its cgroups: 20 processes, 25000 us of CPU a 100000 us period"
        else failed "cgroups" "SANDBOX_PROCS=20 SANDBOX_CPUS=0.25, its cgroups hold: ${m:-nothing}"; fi
    fi

    # 15. a toolchain folder in a folder to hide is given alone; the folder
    # to hide, named as one, stops it (126). Not in the fallback, where that
    # folder is its owner's alone.
    if [ $fallback = 0 ]; then
        fresh
        mkdir -p "$dir/real/hidden/include" && echo s3cr3t > "$dir/real/hidden/notes" &&
            echo '#define GIVEN 1' > "$dir/real/hidden/include/given.h" && chmod -R a+rX "$dir/real"
        sb CPATH="$dir/real/hidden/include" -- "$work" 10 "$dir/real/hidden" -- \
            sh -c "cat '$dir/real/hidden/include/given.h'; cat '$dir/real/hidden/notes' 2> /dev/null; exit 0"
        if [ $rc = 0 ] && [[ $out == *GIVEN* && $out != *s3cr3t* ]]; then
            held "a toolchain folder inside a folder to hide is given, alone"
        else failed "toolchain in a hidden folder" "exit $rc: $out"; fi
        fresh
        sb PATH="$dir/real/hidden:$PATH" -- "$work" 10 "$dir/real/hidden" -- touch ran
        if [ $rc = 126 ] && [[ $out == *"could not hide"* ]] && [ ! -e "$work/ran" ]; then
            held "a folder to hide that its PATH names is refused (126)"
        else failed "PATH naming a hidden folder" "exit $rc: $out"; fi
        rm -rf "$dir/real"
    fi
}

# each mode, as this user, in $1 (a folder of its own)
all_modes() {
    for sandbox_mode in "" none; do
        mode=$([ -n "$sandbox_mode" ] && echo "fallback (SANDBOX=none)" || echo "user namespaces")
        dir=$1/${sandbox_mode:-ns} && mkdir -p "$dir" && fixtures
    done
}

if [ "${1:-}" = --other ]; then # as the other user: $2 the folder, $3 for sockets, then the planted files
    who=$(id -un) probe=$2/../probe rundir=$3 planted=("${@:4}")
    all_modes "$2"
    exit $status
fi
# The same as root, on a kernel without Landlock (one built without it
# answers its calls ENOSYS), which without-landlock makes of this one: $2
# the folder, $3 for sockets, then the planted files. Each mode must say
# "no Landlock here", or the test tested nothing.
if [ "${1:-}" = --without-landlock ]; then
    who="$(id -un), without Landlock" probe=$2/../probe rundir=$3 planted=("${@:4}")
    for sandbox_mode in "" none; do
        mkdir -p "$2/say" && dir=$2/say && sb -- "$2/say" 10 -- true
        [[ $out == *"no Landlock here"* ]] ||
            { echo "sandbox-test: $who: the sandbox still finds Landlock (SANDBOX=$sandbox_mode): $out"; exit 1; }
    done
    all_modes "$2"
    exit $status
fi

# without-landlock COMMAND...: COMMAND on a kernel whose Landlock calls
# (444 to 446 on every architecture) answer ENOSYS, through a seccomp
# filter its children inherit
without_landlock_source() {
    cat << 'EOF'
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 444, 0, 2),
        BPF_JUMP(BPF_JMP | BPF_JGT | BPF_K, 446, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {sizeof f / sizeof f[0], f};
    if (argc < 2 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        perror("without-landlock");
        return 126;
    }
    execvp(argv[1], argv + 1);
    perror(argv[1]);
    return 127;
}
EOF
}

top=$(mktemp -d /var/tmp/sandbox-test.XXXXXX) rundir=/run/sandbox-test.$$
trap 'rm -rf "$top" "$rundir" "/srv/sandbox-test.$$" "/opt/sandbox-test.$$"' EXIT
chmod 755 "$top" && mkdir -p "$rundir" || exit 1
probe=$top/probe
probe_source | cc -O -x c -o "$probe" - || exit 1
# World-readable files it must not read: another checkout's solution and
# weights, and, as root, files in a fresh /srv and /opt folder (all gone
# with the test); and the host's /etc files beyond what it is given
planted=("$top/checkout/solutions/reduce/reduce.cu" "$top/checkout/grading/weights.txt")
[ "$(id -u)" = 0 ] && planted+=("/srv/sandbox-test.$$/notes" "/opt/sandbox-test.$$/notes")
for f in "${planted[@]}"; do
    mkdir -p "${f%/*}" && echo "planted by sandbox-test" > "$f" && chmod a+rx "${f%/*}" && chmod a+r "$f" || exit 1
done
chmod -R a+rX "$top/checkout"
for f in /etc/hostname /etc/hosts /etc/issue /etc/machine-id; do [ -r "$f" ] && planted+=("$f"); done
cgroups_before=$(find /sys/fs/cgroup -maxdepth 4 -name 'sandbox-*' 2> /dev/null)
who=$(id -un)
all_modes "$top/$who"
if [ "$(id -u)" = 0 ]; then
    mkdir "$top/other" && chown 65534:65534 "$top/other" "$rundir"
    # the other user may not reach this checkout (a clone in a private
    # folder, as mktemp -d makes): it runs a copy of the scripts, of its own
    mkdir -p "$top/copy/grading" "$top/copy/tests/grade" &&
        cp "$sandbox" "$(dirname "$sandbox")/supervise.sh" "$(dirname "$sandbox")/confine.c" "$top/copy/grading/" &&
        cp "$self" "$top/copy/tests/grade/" && chown -R 65534:65534 "$top/copy" || exit 1
    setpriv --reuid=65534 --regid=65534 --clear-groups -- env SANDBOX_SCRIPT="$top/copy/grading/sandbox.sh" \
        "$top/copy/tests/grade/sandbox-test.sh" --other "$top/other" "$rundir" "${planted[@]}" || status=1
    if without_landlock_source | cc -O -x c -o "$top/without-landlock" - 2> /dev/null; then
        mkdir "$top/no-landlock" &&
            "$top/without-landlock" "$self" --without-landlock "$top/no-landlock" "$rundir" "${planted[@]}" ||
            status=1
    else
        echo "sandbox-test: without Landlock: skipped: its seccomp wrapper does not build here"
    fi
    # every cgroup a sandbox made is gone with it, however it ended
    while read -r c; do
        grep -qxF "$c" <<< "$cgroups_before" || kill -0 "${c##*-}" 2> /dev/null ||
            { echo "sandbox-test: a cgroup left behind: $c"; status=1; }
    done < <(find /sys/fs/cgroup -maxdepth 4 -name 'sandbox-*' 2> /dev/null)
fi
exit $status
