#!/usr/bin/env bash
# cuda-names.sh [CUDA]: common/emu/not-provided/device-functions.txt, the
# names of CUDA's device functions (intrinsics and atomics) as the toolkit
# at CUDA (default /usr/local/cuda) declares them, one a line. A kernel
# that calls one the emulation lacks is told so by name
# (common/emu/not-provided.awk) rather than by the compiler's "not
# declared", which may suggest a name of the emulation's instead.
set -u
cd "$(dirname "$0")/.." || exit 1
include=${1:-/usr/local/cuda}/include
[ -d "$include/crt" ] || { echo "cuda-names.sh: no CUDA toolkit headers in $include" >&2; exit 1; }
out=common/emu/not-provided/device-functions.txt
{
    echo "# CUDA's device functions, from $(basename "$(readlink -f "$include/..")")'s headers: written by authoring/cuda-names.sh"
    (cd "$include" && cat device_atomic_functions.h sm_*_atomic_functions.h sm_*_intrinsics.h crt/device_functions.h \
        crt/sm_*_rt.h crt/device_double_functions.h |
        grep -oE '\b(__[a-z][a-z0-9_]*|atomic[A-Z][A-Za-z_]*)[ ]*\(' | tr -d ' (' |
        grep -vE '^__(attribute|declspec|builtin|nv_|cudart|device_builtin|forceinline|inline|cuda|has_|is_)' |
        LC_ALL=C sort -u)
} > "$out.tmp" && mv "$out.tmp" "$out"
