#!/usr/bin/env bash
# platforms-test.sh [SEED]: the same verdicts from another compiler, and a
# clone with Windows line ends that is not one. Under
# the CPU emulation, built with clang (a Mac's compiler) and with gcc, at
# one seed: the emulation's own tests must pass, and make test must print
# the same lines for every lab's solution and for every lab's skeleton
# (each stage's summary, and the first report of each failing stage).
# Build folders of their own (build/clang), so gcc's build is not touched;
# CLANG=clang-16 compares that version.
set -u
cd "$(dirname "$0")/../.." || exit 1
seed=${1:-5}
status=0
# A clone by Git for Windows converts line ends to CRLF (core.autocrlf):
# .gitattributes must keep every text file LF, or WSL stops at bash\r
if [ -d .git ]; then
    crlf=$(mktemp -d "${TMPDIR:-/tmp}/crlf.XXXXXX")
    git clone -q -c core.autocrlf=true . "$crlf/clone" &&
        found=$(cd "$crlf/clone" && git ls-files -z | xargs -0 grep -Il $'\r' -- 2> /dev/null | head -n 3)
    if [ -n "${found:-}" ]; then
        echo "platforms-test: a clone with core.autocrlf=true has CRLF lines: $found"; status=1
    else
        echo "platforms-test: a clone with core.autocrlf=true (Git for Windows) has LF lines only"
    fi
    rm -rf "$crlf"
fi
# CLANG=clang-16 tries another version (its clang++-16 beside it)
cc=${CLANG:-clang} cxx=${CLANG:-clang}
cxx=${cxx/clang/clang++}
if ! command -v "$cxx" > /dev/null || ! command -v "$cc" > /dev/null; then
    echo "platforms-test: $cc is not installed (apt install clang): nothing compared"
    exit 1
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/platforms.XXXXXX")
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
clang=(CC="$cc" CXX="$cxx" BUILD="build/$cc")

if make -s "build/$cc/emutest" EMU=1 "${clang[@]}" > "$work/emutest-build.log" 2>&1 &&
    "build/$cc/emutest" --short-filename > "$work/emutest.log" 2>&1; then
    echo "platforms-test: $cc: the emulation's own tests: $(tail -n 1 "$work/emutest.log" | sed 's/^\[====\] //')"
else
    tail -n 20 "$work/emutest-build.log" "$work/emutest.log"
    echo "platforms-test: the emulation's own tests fail under $cc"
    status=1
fi

# What make test prints, less the build's own lines and its folder's name
printed() { grep -v '^compiling ' "$1" | sed -e "s|build/$cc/|BUILD/|g" -e 's|build/emu/|BUILD/|g'; }
for tree in solutions skeletons; do
    solution=$([ $tree = solutions ] && echo SOLUTION=1)
    # shellcheck disable=SC2086 # SOLUTION=1, or nothing
    make -s test EMU=1 SEED="$seed" $solution > "$work/gcc-$tree.log" 2>&1
    # shellcheck disable=SC2086
    make -s test EMU=1 SEED="$seed" $solution "${clang[@]}" > "$work/clang-$tree.log" 2>&1
    stages=$(grep -c '^  stage ' "$work/gcc-$tree.log")
    if [ "$stages" -eq 0 ]; then
        echo "platforms-test: $tree: gcc's make test printed no stage"; status=1
    elif ! diff <(printed "$work/gcc-$tree.log") <(printed "$work/clang-$tree.log") > "$work/$tree.diff"; then
        echo "platforms-test: $tree: $cc's make test differs from gcc's at SEED=$seed:"
        head -n 30 "$work/$tree.diff"
        status=1
    else
        echo "platforms-test: $tree: gcc and $cc print the same $(wc -l < "$work/gcc-$tree.log") lines at SEED=$seed ($stages stages)"
    fi
done
exit $status
