# emu.mk: the CPU emulation (EMU=1), for students without an NVIDIA GPU. No
# GPU or CUDA toolkit is needed: each .cu file goes through common/emu/rewrite
# (launch syntax to a C++ call) and the host compiler, against common/emu's
# CUDA on the CPU. Builds go to build/emu/. Included by the Makefile after
# its nvcc settings, which this replaces.

ifeq ($(EMU),1)
  BUILD    := build/emu
  CFLAGS   += -DWORKBOOK_EMU
  # The shared .cuh headers hold kernels too: they are rewritten into
  # $(BUILD)/cuh, which is searched before their own folders; and the CUDA
  # headers the emulation lacks (common/emu/not-provided, each naming itself)
  # before the system's folders, where a toolkit's own would be half-read.
  EMU_CXX_IS := $(shell $(CXX) --version 2> /dev/null | head -n 1)
  EMU_CLANG := $(if $(findstring clang,$(EMU_CXX_IS)),1)
  # The emulation must see a volatile access as one (a flag between blocks):
  # gcc 11 was the first to tell, clang 11 the first of clang's, and Apple's
  # clang numbers its own (12.0.0 is LLVM 10; 13, of Xcode 13, is LLVM 12)
  EMU_CXX_MAJOR := $(firstword $(subst ., ,$(shell $(CXX) -dumpversion 2> /dev/null)))
  EMU_APPLE := $(if $(findstring Apple,$(EMU_CXX_IS)),1)
  ifneq ($(filter 1 2 3 4 5 6 7 8 9 10 $(if $(EMU_APPLE),11 12),$(EMU_CXX_MAJOR)),)
    ifeq ($(filter clean help deps,$(MAKECMDGOALS)),)
      ifeq ($(EMU_APPLE),1)
        $(error the CPU emulation needs Apple clang 13 (Xcode 13) or newer, and $(CXX) is Apple clang \
          $(EMU_CXX_MAJOR): update the Command Line Tools (softwareupdate --list, or Xcode's own update))
      endif
      $(error the CPU emulation needs gcc 11 or newer, or clang 11 or newer, and $(CXX) is \
        $(if $(EMU_CLANG),clang,gcc) $(EMU_CXX_MAJOR): install a newer one (on Ubuntu 20.04: \
        sudo apt install clang-12, then make ... CC=clang-12 CXX=clang++-12))
    endif
  endif
  # Every compiler writes DWARF 4: from DWARF 5, binutils' addr2line
  # (symbols.cpp) names the rewritten copy (build/emu/.../x.o.cpp) for some
  # code instead of the #line'd source, the line right (clang 16 and binutils
  # 2.40: Harris's out-of-line volatile helpers; tests/emu/source-names.sh).
  EMUFLAGS  = -std=c++17 -O2 -g -gdwarf-4 -Wall -Wno-unknown-pragmas -DWORKBOOK_EMU \
              -Icommon/emu -Icommon/emu/not-provided -I$(BUILD)/cuh -pthread
  # and its library headers (cooperative groups, CUB) in folders of their own
  COMMON_H += $(filter-out %.cpp %.awk %/README,$(shell find common/emu -mindepth 2 -type f))
  # Kernels get a call before each load and store (common/emu/access.cpp answers
  # them): the checks for races and out-of-bounds accesses; and one before a
  # shift by the value's width or more, which a GPU and a CPU do differently,
  # and before an integer division by zero, which traps on x86-64 alone
  # (common/emu/undefined.cpp).
  # Volatile accesses (flags) reach access.cpp as such: gcc's --param, clang's
  # -mllvm spelling of the same switch; and clang must not leave out a read
  # that a write to the same word follows (x++: the race report needs both).
  EMU_VOLATILE = $(if $(EMU_CLANG),-mllvm -tsan-distinguish-volatile=1 -mllvm -tsan-instrument-read-before-write=1,--param tsan-distinguish-volatile=1)
  # A large local array touches its pages in order, so it faults on the guard
  # below a fiber's stack rather than past it: compilers do that for Linux
  # targets only, and a Mac's clang would call the flag unused in every
  # kernel's warnings (the check at function entry watches there).
  EMU_STACK_PROBES := $(if $(findstring linux,$(shell $(CXX) -dumpmachine 2> /dev/null)),-fstack-clash-protection)
  EMU_CHECKS = -fsanitize=thread,shift-exponent,integer-divide-by-zero $(EMU_VOLATILE) $(EMU_STACK_PROBES)
  LDLIBS    = -pthread -lm -ldl # dladdr: in libdl before glibc 2.34
  CU_TOOL   = $(BUILD)/rewrite $(addprefix $(BUILD)/cuh/,$(notdir $(SHARED_CUH)))
  CU_REWRITE = $(BUILD)/rewrite # what it makes of a .cu file changes with it
  CU_COMPILE = $(BUILD)/rewrite $< > $@.cpp && $(CXX) $(EMUFLAGS) $(CPPFLAGS) -I$(<D) -c $@.cpp -o $@
  # A lab's kernels: -Wextra too (a signed/unsigned comparison betrays a
  # 32-bit index). What the emulation lacks but a GPU compiles is named on
  # lines of their own, "emulation: not provided: X (FILE:LINE)", before the
  # compiler's messages (common/emu/not-provided.awk). Where nvcc is
  # installed it reads the file as well, so what only a GPU's compiler
  # refuses (a host function called in a kernel) is refused here too.
  KERNEL_COMPILE = $(BUILD)/rewrite $< > $@.cpp && \
                   { $(CXX) $(EMUFLAGS) -Wextra -Wno-unused-parameter $(EMU_CHECKS) $(CPPFLAGS) -I$(<D) \
                       -c $@.cpp -o $@ 2> $@.err; status=$$?; \
                     awk -v source='$<' -f common/emu/not-provided.awk $@.err >&2; [ $$status -eq 0 ]; }
  NVCC_CHECK = $(if $(wildcard $(NVCC)),$(NVCC) -std=c++17 $(CPPFLAGS) -I$(<D) -cuda $< -o $@.ii)
  EMU_OBJS := $(patsubst common/emu/%.cpp,$(BUILD)/common/emu/%.o,$(wildcard common/emu/*.cpp))
  # Under EMU=1 the emulation proves itself first: its own tests, planted
  # bugs included.
  EMU_TEST := $(BUILD)/emutest
  RUN_EMU_TEST = @echo "check: the CPU emulation's own tests:" && $(EMU_TEST) --short-filename && \
                 tests/emu/source-names.sh $(EMU_TEST)
endif

$(BUILD)/common/emu/%.o: common/emu/%.cpp $(wildcard common/emu/*.h)
	@mkdir -p $(@D)
	$(Q)$(CXX) $(EMUFLAGS) -c $< -o $@

# The rewriter runs here, while the build does: HOSTCC compiles it where CC
# is a cross compiler (arm64's, for a test under qemu).
HOSTCC ?= $(CC)
$(BUILD)/rewrite: common/emu/rewrite.c
	@mkdir -p $(@D)
	$(Q)$(HOSTCC) -std=c11 -O2 -Wall -Wextra -o $@ $<

vpath %.cuh common $(FAMILY_DIRS)
$(BUILD)/cuh/%.cuh: %.cuh $(BUILD)/rewrite
	@mkdir -p $(@D)
	$(Q)$(BUILD)/rewrite $< > $@

# The emulation's own tests: kernels built like a lab's.
EMU_TEST_OBJS = $(patsubst %,$(BUILD)/%.o,$(basename $(wildcard tests/emu/*.c tests/emu/*.cu)))
$(BUILD)/emutest: $(EMU_TEST_OBJS) $(COMMON_OBJS)
	$(Q)$(CXX) -o $@ $^ $(CRITERION_LIBS) $(LDLIBS)

$(BUILD)/tests/emu/%.o: tests/emu/%.cu $(wildcard tests/emu/*.h) $(COMMON_H) $(CU_REWRITE) | $(CU_TOOL)
	@mkdir -p $(@D)
	$(Q)$(KERNEL_COMPILE)

$(BUILD)/tests/emu/%.o: tests/emu/%.c $(wildcard tests/emu/*.h) $(COMMON_H) | need-criterion
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) $(CRITERION_CFLAGS) -c $< -o $@
