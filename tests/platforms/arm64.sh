# shellcheck shell=bash
# arm64.sh, sourced by bash: what running the workbook's arm64 build on
# this x86-64 machine takes. arm64_start sets arm64_make, the make
# arguments of that build (gcc's cross compiler into build/arm64, arm64's
# Criterion from the root that make deps-arm64 unpacks), lets this shell's
# commands run arm64 binaries, and says in one line why not where it
# cannot; arm64_stop undoes what arm64_start did to the machine.
#
# An arm64 binary runs through the kernel's binfmt_misc, with qemu-user as
# its interpreter: Criterion starts each test by running its own file
# again, so a wrapper in front of the first command would not be enough.
arm64_root=${ARM64_ROOT:-build/arm64-root}
arm64_registered=''

arm64_start() {
    local lib=/usr/lib/aarch64-linux-gnu binfmt=/proc/sys/fs/binfmt_misc
    if ! command -v aarch64-linux-gnu-g++ > /dev/null || ! command -v qemu-aarch64 > /dev/null ||
        [ ! -e "$arm64_root$lib/libcriterion.so" ]; then
        echo "arm64: the cross compiler, qemu-user or arm64's Criterion (in $arm64_root) is missing: make deps-arm64 installs them"
        return 1
    fi
    # the system's own registration if it has one (qemu-user-binfmt's), else
    # one of this shell's, which another run beside it does not remove
    if ! grep -ls 'qemu-aarch64' "$binfmt"/* 2> /dev/null | grep -qv '/workbook-aarch64-'; then
        # (left mounted: another run may be using it)
        [ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" 2> /dev/null
        local magic='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
        local mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
        if ! printf ':workbook-aarch64-%s:M::%s:%s:%s:F' "$$" "$magic" "$mask" "$(command -v qemu-aarch64)" \
            > "$binfmt/register" 2> /dev/null; then
            echo "arm64: arm64 binaries cannot run here: registering qemu-aarch64 with binfmt_misc needs root"
            arm64_stop
            return 1
        fi
        arm64_registered=$binfmt/workbook-aarch64-$$
    fi
    # arm64's libraries, glibc's and Criterion's, from the unpacked root
    QEMU_LD_PREFIX=$(cd "$arm64_root" && pwd) && export QEMU_LD_PREFIX
    local libs="$arm64_root$lib:$arm64_root/lib/aarch64-linux-gnu"
    # shellcheck disable=SC2034 # for the script that sources this one
    arm64_make=(BUILD=build/arm64 HOSTCC="${CC:-gcc}" CC=aarch64-linux-gnu-gcc CXX=aarch64-linux-gnu-g++
        CRITERION_CFLAGS="-I$arm64_root/usr/include"
        CRITERION_LIBS="-L$arm64_root$lib -Wl,-rpath-link,$libs -lcriterion")
    # qemu keeps a record of every page that the emulation's reserved device
    # addresses span (64 TiB where it may): capped, the emulation takes less
    ulimit -v $((16 * 1024 * 1024))
}

arm64_stop() {
    [ -z "$arm64_registered" ] || echo -1 > "$arm64_registered"
    arm64_registered=''
}
