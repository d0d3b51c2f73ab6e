#!/usr/bin/env bash
# source-names.sh PROGRAM: every load and store the emulation watches in
# PROGRAM (a call to a __tsan_ function) is placed by addr2line, as reports
# place it (common/emu/symbols.cpp), in a source file, never in the
# rewritten copy the compiler read (build/.../x.o.cpp). Read from DWARF 5,
# GNU addr2line named that copy for some of them (clang 16, binutils 2.40),
# the line right; mk/emu.mk asks every compiler for DWARF 4.
# Skipped, saying so, where objdump or addr2line is missing (a Mac: atos).
set -u
program=$1
for tool in objdump addr2line; do
    command -v "$tool" > /dev/null ||
        { echo "source-names: skipped: $tool is missing"; exit 0; }
done
# each load, store and atomic: the address inside its call, as a report
# looks up its return address - 1
sites=$(objdump -d --no-show-raw-insn "$program" |
    awk '/call.*<__tsan_(volatile_|unaligned_)*(read|write|atomic)/ { sub(":", "", $1); print $1 }' |
    while read -r at; do printf '0x%x\n' $((16#$at + 1)); done)
[ -n "$sites" ] || { echo "source-names: $program has no watched accesses"; exit 1; }
# A report names the innermost level of the inlined calls there that is
# neither the emulation's own code nor the system's, with a line.
# shellcheck disable=SC2086 # one address a word
chosen=$(addr2line -a -i -e "$program" $sites | awk -v emu="$(pwd)/common/emu/" '
    /^0x/ { if (at != "" && !found) print at " none"; at = $0; found = 0; next }
    found { next }
    { file = $0; sub(/:[^:]*$/, "", file); line = $0; sub(/.*:/, "", line) }
    index(file, emu) == 1 || file ~ /^\/usr\// || line !~ /^[1-9]/ { next }
    { print at " " $0; found = 1 }
    END { if (at != "" && !found) print at " none" }')
count=$(wc -l <<< "$chosen")
copies=$(grep -c '\.o\.cpp:' <<< "$chosen")
if [ "$copies" -ne 0 ]; then
    echo "source-names: $copies of the $count watched accesses in $program would be reported in the rewritten .o.cpp, not their source:"
    grep '\.o\.cpp:' <<< "$chosen" | head -n 5
    exit 1
fi
echo "source-names: the $count watched accesses in $program are reported in their source files"
