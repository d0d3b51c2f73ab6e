# gpu-workbook: staged CUDA C labs, with tests, run tables and handouts.
# `make help` says what each target does.

SHELL := /bin/bash
.DEFAULT_GOAL := help

# ---- tools and flags: the one place that decides them ---------------------
CUDA   ?= /usr/local/cuda
NVCC   ?= $(CUDA)/bin/nvcc
BUILD  ?= build
# The GPU's own architecture when there is one (e.g. 90 on an H100), else
# nvcc's default, which any newer GPU runs through its PTX.
ARCH   ?= $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
                  | head -n 1 | tr -d . | grep -E '^[0-9]+$$')

# Builds run a job per core (a -j given to make still wins): on two cores
# this takes make check from a fresh clone from about 7 to 5 minutes. Only
# the first make sets it; the makes it starts share its jobs.
ifeq ($(MAKELEVEL),0)
  MAKEFLAGS += -j$(shell nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
endif

COURSE := map reduce histogram scan-HS scan-Blelloch scan-large-arrays compact radix transpose

# Labs that share code belong to a family, whose code is in tests/<family>/:
# its checks and CPU reference (<family>.c), and headers the labs include.
FAMILY.scan-HS           := scan
FAMILY.scan-Blelloch     := scan
FAMILY.scan-large-arrays := scan
FAMILIES := $(sort $(foreach l,$(COURSE),$(FAMILY.$(l))))
FAMILY_DIRS := $(FAMILIES:%=tests/%)

# V=1 prints every command; otherwise only what needs reading: errors, and
# the warnings of the lab's own .cu file.
Q := $(if $(filter 1,$(V)),,@)

# LAB= is checked before anything else is said.
ifneq ($(LAB),)
  ifeq ($(filter $(LAB)%,$(COURSE)),)
    $(error LAB=$(LAB) names no lab. The labs: $(COURSE). A prefix picks a family: LAB=scan)
  endif
endif

# A student copy (make dist) has no solutions/. What needs them says so; its
# make check is the student's: the harness, the emulation, every lab built.
STUDENT_COPY := $(if $(wildcard solutions/*/*.cu),,1)
FOR_INSTRUCTORS := skeletons check-skeletons prove mutants grade check-grade diff dist check-dist gradescope \
                   check-bench
ifeq ($(STUDENT_COPY),1)
  ifneq ($(filter $(FOR_INSTRUCTORS),$(MAKECMDGOALS))$(filter 1,$(SOLUTION)),)
    $(error make $(or $(firstword $(filter $(FOR_INSTRUCTORS),$(MAKECMDGOALS))),test SOLUTION=1) \
      is for instructors: it needs solutions/, which this student copy leaves out)
  endif
endif

# Without a GPU, test and run fall back to the CPU emulation by themselves,
# as check does (in a student copy, check too); EMU=0 insists on a GPU.
ifeq ($(origin EMU),undefined)
  ifneq ($(filter test run build grade bench $(if $(STUDENT_COPY),check),$(MAKECMDGOALS)),)
    ifeq ($(ARCH),)
      EMU := 1
      $(info No NVIDIA GPU here (nvidia-smi finds none): running on the CPU emulation, as EMU=1 does.)
    endif
  endif
endif

CPPFLAGS  = -Icommon $(FAMILY_DIRS:%=-I%)
CFLAGS    = -std=gnu11 -O2 -g -Wall -Wextra
NVFLAGS   = -std=c++17 -O3 -g -lineinfo $(if $(ARCH),-arch=sm_$(ARCH)) -Xcompiler -Wall
LDLIBS    = -L$(CUDA)/lib64 -lcudart_static -ldl -lrt -lpthread -lm
# EMU=1: no GPU and no CUDA toolkit needed. Each .cu file goes through
# common/emu/rewrite (launch syntax to a C++ call) and the host compiler,
# against common/emu's CUDA on the CPU. Builds go to build/emu/.
ifeq ($(EMU),1)
  BUILD    := build/emu
  CFLAGS   += -DWORKBOOK_EMU
  # The shared .cuh headers hold kernels too: they are rewritten into
  # $(BUILD)/cuh, which is searched before their own folders.
  EMUFLAGS  = -std=c++17 -O2 -g -Wall -Wno-unknown-pragmas -DWORKBOOK_EMU -Icommon/emu \
              -I$(BUILD)/cuh -pthread
  # Kernels get a call before each load and store (common/emu/access.cpp
  # answers them): the checks for races and out-of-bounds accesses.
  EMU_CHECKS = -fsanitize=thread --param tsan-distinguish-volatile=1 -fstack-clash-protection
  LDLIBS    = -pthread -lm
  CU_TOOL   = $(BUILD)/rewrite $(addprefix $(BUILD)/cuh/,$(notdir $(SHARED_CUH)))
  CU_REWRITE = $(BUILD)/rewrite # what it makes of a .cu file changes with it
  CU_COMPILE = $(BUILD)/rewrite $< > $@.cpp && $(CXX) $(EMUFLAGS) $(CPPFLAGS) -I$(<D) -c $@.cpp -o $@
  # A lab's kernels: -Wextra too (a signed/unsigned comparison betrays a
  # 32-bit index). Where nvcc is installed it reads the file as well, so
  # what only a GPU's compiler refuses (a host function called in a kernel)
  # is refused here too.
  KERNEL_COMPILE = $(BUILD)/rewrite $< > $@.cpp && \
                   $(CXX) $(EMUFLAGS) -Wextra -Wno-unused-parameter $(EMU_CHECKS) $(CPPFLAGS) -I$(<D) -c $@.cpp -o $@
  NVCC_CHECK = $(if $(wildcard $(NVCC)),$(NVCC) -std=c++17 $(CPPFLAGS) -I$(<D) -cuda $< -o $@.ii)
else
  CU_TOOL   = need-nvcc
  CU_COMPILE = $(NVCC) $(NVFLAGS) $(CPPFLAGS) -c $< -o $@
  KERNEL_COMPILE = $(CU_COMPILE)
endif
CRITERION_CFLAGS = $(shell pkg-config --cflags criterion 2>/dev/null)
CRITERION_LIBS   = $(shell pkg-config --libs criterion 2>/dev/null)
PANDOC_EMBED = $(shell pandoc --help 2>/dev/null | grep -q -- --embed-resources \
                 && echo --embed-resources --standalone || echo --self-contained)

# The lab's own file is compiled with its warnings kept and shown, marked,
# even in the quiet build; errors come out as the compiler wrote them.
SHOW_KERNEL_COMPILE = echo "compiling $<$(if $(filter 1,$(EMU)), for the CPU emulation)"; \
	{ $(KERNEL_COMPILE); } 2> $@.log; tools/show-diagnostics.sh $@.log $$? "$<" \
	$(if $(NVCC_CHECK),&& { { $(NVCC_CHECK); } 2> $@.nvcc.log; \
	                        tools/show-diagnostics.sh $@.nvcc.log $$? "$<" nvcc; })

# ---- the labs ----------------------------------------------------------------
# (A copy without solutions/, as a grader builds a submission in, goes by labs/.)
WRITTEN := $(strip $(foreach l,$(COURSE),$(if $(wildcard solutions/$(l)/$(l).cu labs/$(l)/$(l).cu),$(l))))

# LAB=map picks one lab, LAB=scan the labs whose names start with it, no LAB all.
ifneq ($(LAB),)
  PICKED := $(filter $(LAB)%,$(COURSE))
  SELECTED := $(filter $(WRITTEN),$(PICKED))
  ifeq ($(SELECTED),)
    $(error LAB=$(LAB): $(PICKED) not written yet. Written so far: $(WRITTEN))
  endif
else
  SELECTED := $(WRITTEN)
endif

# A value as one shell word, whatever it holds: 'it'\''s'.
quote = '$(subst ','\'',$(1))'

# Whose kernels: the student's labs/ (default), the reference (SOLUTION=1),
# or another checkout's labs/ (SUBMISSION=path), graded with these tests.
# MAKE_ARGS is what a reproduce line must repeat to test the same kernels.
ifeq ($(SOLUTION),1)
  TREE := solutions
  SRC  := solutions
  MAKE_ARGS := SOLUTION=1
else ifneq ($(SUBMISSION),)
  # Make cannot name a file whose path has a space or a quote, so the
  # submission is reached through a link named by the checksum of its path,
  # which also names its build: two submissions never share one.
  ifeq ($(shell [ -d $(call quote,$(SUBMISSION)) ] && echo yes),)
    $(error SUBMISSION=$(SUBMISSION) is not a folder)
  endif
  SUBMISSION_ID := $(firstword $(shell printf '%s' $(call quote,$(SUBMISSION)) | cksum))
  SUBMISSION_LINK := build/submissions/$(SUBMISSION_ID)
  $(shell mkdir -p build/submissions && ln -sfn "$$(cd $(call quote,$(SUBMISSION)) && pwd)" $(SUBMISSION_LINK))
  TREE := submission-$(SUBMISSION_ID)
  SRC  := $(SUBMISSION_LINK)/labs
  MAKE_ARGS := SUBMISSION=$(call quote,$(SUBMISSION))
  MISSING := $(foreach l,$(SELECTED),$(if $(wildcard $(SRC)/$(l)/$(l).cu),,$(SRC)/$(l)/$(l).cu))
  ifneq ($(MISSING),)
    $(error SUBMISSION=$(SUBMISSION) is not a workbook checkout: $(patsubst $(SRC)/%,labs/%,$(MISSING)) is missing)
  endif
else
  TREE := labs
  SRC  := labs
endif

# What the student chose reaches the tests and the driver alike, as
# environment variables (an empty one means the default).
CHOICES = N=$(call quote,$(N)) STAGE=$(call quote,$(STAGE)) VARIANT=$(call quote,$(VARIANT)) \
          SEED=$(call quote,$(SEED)) BLOCK=$(call quote,$(BLOCK))
SHARED_CUH  := $(wildcard common/*.cuh $(FAMILY_DIRS:%=%/*.cuh))
COMMON_H    := $(wildcard common/*.h common/emu/*.h $(FAMILY_DIRS:%=%/*.h)) $(SHARED_CUH)
EMU_OBJS    := $(patsubst common/emu/%.cpp,$(BUILD)/common/emu/%.o,$(wildcard common/emu/*.cpp))
COMMON_OBJS := $(BUILD)/common/workbook.o $(BUILD)/common/check.o $(if $(filter 1,$(EMU)),$(EMU_OBJS))

# ---- building ------------------------------------------------------------------
# A command that fails leaves no half-made target behind.
.DELETE_ON_ERROR:

$(BUILD)/common/%.o: common/%.cu $(COMMON_H) $(CU_REWRITE) | $(CU_TOOL)
	@mkdir -p $(@D)
	$(Q)$(CU_COMPILE)

$(BUILD)/common/emu/%.o: common/emu/%.cpp $(wildcard common/emu/*.h)
	@mkdir -p $(@D)
	$(Q)$(CXX) $(EMUFLAGS) -c $< -o $@

$(BUILD)/rewrite: common/emu/rewrite.c
	@mkdir -p $(@D)
	$(Q)$(CC) -std=c11 -O2 -Wall -Wextra -o $@ $<

vpath %.cuh common $(FAMILY_DIRS)
$(BUILD)/cuh/%.cuh: %.cuh $(BUILD)/rewrite
	@mkdir -p $(@D)
	$(Q)$(BUILD)/rewrite $< > $@

$(BUILD)/common/%.o: common/%.c $(COMMON_H)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) $(CRITERION_CFLAGS) -c $< -o $@

$(BUILD)/probe: $(BUILD)/common/probe.o $(COMMON_OBJS)
	$(Q)$(CXX) -o $@ $^ $(LDLIBS)

$(BUILD)/selftest: $(BUILD)/common/check.o $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/common/*.c))
	$(Q)$(CXX) -o $@ $^ $(CRITERION_LIBS) -lm

# The emulation's own tests (EMU=1 only): kernels built like a lab's.
$(BUILD)/emutest: $(BUILD)/tests/emu/emu_kernels.o $(BUILD)/tests/emu/test_emu.o $(COMMON_OBJS)
	$(Q)$(CXX) -o $@ $^ $(CRITERION_LIBS) $(LDLIBS)

$(BUILD)/tests/emu/emu_kernels.o: tests/emu/emu_kernels.cu tests/emu/emu_kernels.h $(COMMON_H) $(CU_REWRITE) | $(CU_TOOL)
	@mkdir -p $(@D)
	$(Q)$(KERNEL_COMPILE)

$(BUILD)/tests/emu/%.o: tests/emu/%.c tests/emu/emu_kernels.h $(COMMON_H) | need-criterion
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) $(CRITERION_CFLAGS) -c $< -o $@

# The skeletons as the solutions make them today, file by file: what
# labs/ should hold, and what `make check` proves the tests fail on. They
# are built as the tree `skeletons`, whose objects go to $(BUILD)/skeletons.
SKELETONS := $(BUILD)/skeleton-sources
# Every file of a solution but its model answers, which stay with the instructor.
SKELETON_FILES := $(patsubst solutions/%,$(SKELETONS)/%,$(filter-out %/ANSWERS.md,\
                    $(wildcard $(foreach l,$(WRITTEN),solutions/$(l)/*))))
$(SKELETONS)/%: solutions/% tools/skeleton.awk
	@mkdir -p $(@D)
	$(Q)awk -f tools/skeleton.awk $< > $@.tmp && mv $@.tmp $@

# A lab of a family links the family's code (FAMILY.<lab> above).
FAMILY_OBJS = $(if $(FAMILY.$(1)),$(BUILD)/tests/$(FAMILY.$(1))/$(FAMILY.$(1)).o)

$(BUILD)/tests/%.o: tests/%.c $(COMMON_H) | need-criterion
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) $(CRITERION_CFLAGS) -c $< -o $@

# A lab's own CUDA files under tests/ (its library row), built per tree.
LAB_CU_OBJS = $(patsubst tests/$(2)/%.cu,$(BUILD)/$(1)/$(2)/%.o,$(wildcard tests/$(2)/*.cu))

# A lab's headers in a tree; the generated skeletons' are made on demand.
LAB_HEADERS = $(wildcard $(1)/$(2)/*.h) $(filter $(1)/$(2)/%.h,$(SKELETON_FILES))

# One lab built from one tree: $(1) its name under build/, $(2) the folder
# holding the lab's sources, $(3) the lab. The tests and the harness are
# always this checkout's; only the kernels come from the tree.
define LAB_RULES
$(BUILD)/$(1)/$(3)/$(3).o: $(2)/$(3)/$(3).cu $(call LAB_HEADERS,$(2),$(3)) $(COMMON_H) $(if $(filter submission-%,$(1)),FORCE) $(CU_REWRITE) | $(CU_TOOL)
	@mkdir -p $$(@D)
	$(Q)$$(if $$(filter 1,$$(V)),$$(KERNEL_COMPILE) $$(if $$(NVCC_CHECK),&& $$(NVCC_CHECK)),$$(SHOW_KERNEL_COMPILE))

$(BUILD)/$(1)/$(3)/%.o: tests/$(3)/%.c $(call LAB_HEADERS,$(2),$(3)) $(COMMON_H) $(if $(filter submission-%,$(1)),FORCE) | need-criterion
	@mkdir -p $$(@D)
	$(Q)$$(CC) $$(CFLAGS) $$(CPPFLAGS) -I$(2)/$(3) $$(CRITERION_CFLAGS) -c $$< -o $$@

$(BUILD)/$(1)/$(3)/%.o: tests/$(3)/%.cu $(call LAB_HEADERS,$(2),$(3)) $(COMMON_H) $(if $(filter submission-%,$(1)),FORCE) $(CU_REWRITE) | $(CU_TOOL)
	@mkdir -p $$(@D)
	$(Q)$$(CU_COMPILE) -I$(2)/$(3)

$(BUILD)/$(1)/$(3)/%.o: common/%.c $(COMMON_H) $(if $(filter submission-%,$(1)),FORCE) | need-criterion
	@mkdir -p $$(@D)
	$(Q)$$(CC) $$(CFLAGS) $$(CPPFLAGS) $$(CRITERION_CFLAGS) -DLAB_SOURCE='"$(2)/$(3)/$(3).cu"' -c $$< -o $$@

$(BUILD)/$(1)/$(3)/test: $(BUILD)/$(1)/$(3)/$(3).o $(BUILD)/$(1)/$(3)/$(3)_lab.o $(call LAB_CU_OBJS,$(1),$(3)) \
		$(BUILD)/$(1)/$(3)/test_$(3).o $(BUILD)/$(1)/$(3)/test_main.o \
		$(BUILD)/common/testing.o $(call FAMILY_OBJS,$(3)) $(COMMON_OBJS)
	$(Q)$$(CXX) -o $$@ $$^ $$(CRITERION_LIBS) $$(LDLIBS)

$(BUILD)/$(1)/$(3)/run: $(BUILD)/$(1)/$(3)/$(3).o $(BUILD)/$(1)/$(3)/$(3)_lab.o $(call LAB_CU_OBJS,$(1),$(3)) \
		$(BUILD)/$(1)/$(3)/driver.o $(call FAMILY_OBJS,$(3)) $(COMMON_OBJS)
	$(Q)$$(CXX) -o $$@ $$^ $$(LDLIBS)
endef
$(foreach l,$(WRITTEN),$(eval $(call LAB_RULES,labs,labs,$(l))))
$(foreach l,$(WRITTEN),$(eval $(call LAB_RULES,solutions,solutions,$(l))))
$(foreach l,$(WRITTEN),$(eval $(call LAB_RULES,skeletons,$(SKELETONS),$(l))))
ifneq ($(SUBMISSION),)
$(foreach l,$(SELECTED),$(eval $(call LAB_RULES,$(TREE),$(SRC),$(l))))
endif

BINARIES = $(foreach l,$(SELECTED),$(BUILD)/$(TREE)/$(l)/test $(BUILD)/$(TREE)/$(l)/run)
PROVEN   = $(foreach t,skeletons solutions,$(foreach l,$(WRITTEN),$(BUILD)/$(t)/$(l)/test $(BUILD)/$(t)/$(l)/run))

# ---- NVIDIA's own tools, on a GPU ---------------------------------------------
# make sanitize and make profile check one lab's chosen stages once each
# (run once=1) under compute-sanitizer or Nsight Compute.
SANITIZER ?= $(CUDA)/bin/compute-sanitizer
NCU       ?= $(firstword $(wildcard $(CUDA)/bin/ncu) ncu)
TOOL      ?= memcheck
SANITIZER_TOOLS := memcheck racecheck synccheck initcheck
# What make profile reads from each kernel of the stage: its time and DRAM
# traffic; occupancy (theoretical, as the occupancy API counts it, the limit
# each resource sets, and achieved); global loads and stores as requests and
# 32-byte sectors; shared memory as instructions, wavefronts and bank
# conflicts; and the threads active per instruction.
PROFILE_METRICS := gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum \
  dram__throughput.avg.pct_of_peak_sustained_elapsed launch__registers_per_thread \
  launch__occupancy_limit_registers launch__occupancy_limit_shared_mem \
  launch__occupancy_limit_blocks launch__occupancy_limit_warps \
  sm__maximum_warps_per_active_cycle_pct sm__warps_active.avg.pct_of_peak_sustained_active \
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum \
  l1tex__t_requests_pipe_lsu_mem_global_op_st.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum \
  smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum \
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum \
  smsp__thread_inst_executed_per_inst_executed.ratio
comma := ,
empty :=
space := $(empty) $(empty)

GPU_TOOL := $(filter sanitize profile,$(MAKECMDGOALS))
ifneq ($(GPU_TOOL),)
  ifeq ($(EMU),1)
    $(error make $(GPU_TOOL) runs NVIDIA's tools on a GPU; under EMU=1, make test already \
      checks races, barriers and bounds as it runs)
  endif
  ifeq ($(ARCH),)
    $(error make $(GPU_TOOL) needs an NVIDIA GPU, and nvidia-smi finds none here. Without \
      one, make test (EMU=1) checks races, barriers and bounds as it runs)
  endif
  ifneq ($(words $(SELECTED)),1)
    $(error make $(GPU_TOOL) looks at one lab at a time, and $(if $(LAB),LAB=$(LAB) picks,no \
      LAB= picks all of) $(SELECTED): name one, such as LAB=$(firstword $(SELECTED)))
  endif
  ifeq ($(filter $(TOOL),$(SANITIZER_TOOLS)),)
    $(error TOOL=$(TOOL): compute-sanitizer's tools are $(SANITIZER_TOOLS))
  endif
endif

# --error-exitcode: a hazard fails the command even when the stage's results
# come out right, as a race's often do.
sanitize: $(BINARIES)
	@command -v $(SANITIZER) > /dev/null || { echo "compute-sanitizer not found at \
	$(SANITIZER): it comes with the CUDA toolkit (CUDA=/path/to/cuda, or SANITIZER=...)"; exit 1; }
	$(CHOICES) ONCE=1 $(SANITIZER) --tool $(TOOL) --error-exitcode 1 --print-limit 10 \
	  $(SANITIZERFLAGS) $(BUILD)/$(TREE)/$(SELECTED)/run

# --clock-control none: the GPU at the clocks the run table sees (ncu would
# otherwise lock them to base), and the card's settings left alone.
profile: $(BINARIES)
	@command -v $(NCU) > /dev/null || { echo "Nsight Compute (ncu) not found: it comes with \
	the CUDA toolkit (CUDA=/path/to/cuda, or NCU=/path/to/ncu)"; exit 1; }
	$(CHOICES) ONCE=1 $(NCU) --profile-from-start off --clock-control none \
	  --metrics $(subst $(space),$(comma),$(strip $(PROFILE_METRICS))) $(NCUFLAGS) \
	  $(BUILD)/$(TREE)/$(SELECTED)/run

# ---- grading a class ------------------------------------------------------------
# make grade SUBMISSIONS=dir: every folder in dir, each in a sandbox, judged
# by this checkout's own binaries (tools/grade.sh says how). OUT= where the
# grades go; WEIGHTS= the points file; JOBS= submissions at once.
grade:
	@[ -n "$(SUBMISSIONS)" ] || { echo "make grade needs SUBMISSIONS=dir, a folder of submission \
	folders (each with labs/<lab>/<lab>.cu)"; exit 1; }
	@EMU=$(if $(filter 1,$(EMU)),1,0) tools/grade.sh "$(BUILD)" "$(SUBMISSIONS)" "$(or $(OUT),grades)" $(SELECTED)

# The grader against a hostile class, and as Gradescope runs it (tests/grade):
# about 2.5 minutes on 2 cores.
check-grade:
	+@tests/grade/grade-test.sh
	+@tests/grade/gradescope-test.sh

# The student copy: no solutions/, answers, grader or mutants (tools/dist.sh),
# into DIST= (default build/dist).
dist:
	@tools/dist.sh "$(or $(DIST),build/dist)" $(WRITTEN)

# Gradescope's autograder: build/gradescope/autograder.zip, this tree with
# grading/gradescope's setup.sh and run_autograder at its top.
gradescope:
	@rm -rf build/gradescope && mkdir -p build/gradescope
	@git archive --format=zip -o build/gradescope/autograder.zip HEAD
	@cd grading/gradescope && zip -q ../../build/gradescope/autograder.zip setup.sh run_autograder
	@echo "gradescope: build/gradescope/autograder.zip, to upload as a programming assignment's autograder"

# ---- how each stage's cost grows with n ------------------------------------------
# make bench: every stage, the library and the copy from n = 2^10 to 2^28,
# each checked once and timed as make run times it, into
# results/bench/<gpu>/<lab>.csv and a gnuplot .svg beside it (tools/bench.sh;
# OUT= another folder). Times under the emulation would be the CPU's: refused.
bench: $(if $(filter 1,$(EMU)),,$(BINARIES))
	@if [ "$(EMU)" = 1 ]; then echo "make bench: no sweep under EMU=1: its times would be the \
	CPU's, not a GPU's. Run it where nvidia-smi finds a GPU (make check-bench tests the CSV and \
	plot code without one)"; exit 1; fi
	@tools/bench.sh "$(BUILD)/$(TREE)" "$(or $(OUT),results/bench)" $(SELECTED)

# make bench's CSV and plot code on a tiny emulated sweep, for CI (tests/bench).
check-bench:
	+@tests/bench/bench-test.sh

# The student copy checked as CI checks it: it builds, its make check passes,
# its tests fail until a lab is done and pass once it is (tests/dist).
check-dist:
	+@tests/dist/dist-test.sh

# ---- what students and instructors run -----------------------------------------
.PHONY: help test run build skeletons check check-skeletons prove mutants diff handouts deps \
        sanitize profile grade check-grade dist check-dist gradescope bench check-bench clean need-nvcc need-criterion need-pandoc FORCE

build: $(BINARIES)

# FORMAT=junit, json or tap: each lab's results also as Criterion writes
# them, in $(BUILD)/reports/<lab>.xml, .json or .tap.
FORMATS := junit json tap
ifneq ($(filter test,$(MAKECMDGOALS)),)
  ifneq ($(filter-out $(FORMATS),$(FORMAT)),)
    $(error FORMAT=$(FORMAT): make test writes its results as junit (JUnit XML), json or tap)
  endif
endif

test: $(BINARIES)
	@$(CHOICES) WORKBOOK_MAKE_ARGS=$(call quote,$(MAKE_ARGS)) TESTFLAGS=$(call quote,$(TESTFLAGS)) EMU=$(EMU) \
	 FORMAT='$(FORMAT)' REPORTS='$(BUILD)/reports' tools/test-labs.sh $(BUILD) $(TREE) $(SELECTED)

run: $(BINARIES)
	@status=0; for lab in $(SELECTED); do \
	  $(CHOICES) $(BUILD)/$(TREE)/$$lab/run || status=1; \
	done; exit $$status

# AGAINST=skeleton: only what the student wrote, against the untouched skeleton.
DIFF_BASE = $(if $(filter skeleton,$(AGAINST)),$(SKELETONS),solutions)
diff: $(if $(filter skeleton,$(AGAINST)),$(SKELETON_FILES))
	@for lab in $(SELECTED); do diff -ru -x ANSWERS.md $(DIFF_BASE)/$$lab $(SRC)/$$lab; done; true

# labs/ from solutions/, never over a student's work (tools/skeletons.sh).
skeletons: $(SKELETON_FILES)
	@tools/skeletons.sh write $(SKELETONS) $(WRITTEN)

check-skeletons: $(SKELETON_FILES)
	@tools/skeletons.sh check $(SKELETONS) $(WRITTEN)

# Under EMU=1 the emulation proves itself first: its own tests, planted bugs included.
EMU_TEST = $(if $(filter 1,$(EMU)),$(BUILD)/emutest)
RUN_EMU_TEST = $(if $(EMU_TEST),@echo "check: the CPU emulation's own tests:" && $(EMU_TEST) --short-filename)

ifeq ($(STUDENT_COPY),1)
check: $(BINARIES) $(BUILD)/selftest $(EMU_TEST)
	@echo "check: built every lab: $(WRITTEN)"
	@$(BUILD)/selftest --short-filename
	$(RUN_EMU_TEST)
	@if command -v pandoc > /dev/null; then $(MAKE) --no-print-directory handouts; \
	 else echo "check: handouts not built: pandoc is missing (make deps installs it)"; fi
	@echo "check: all is in place. Start with handouts/00-introduction.md, then make test LAB=map"
else
# (Without a GPU it proves under the emulation, with NVCC_CHECK= : nvcc has
# just compiled every file.)
check: check-skeletons $(PROVEN) $(BUILD)/selftest $(BUILD)/probe $(EMU_TEST)
	@echo "check: built the skeleton and the solution of: $(WRITTEN)"
	@$(BUILD)/selftest --short-filename
	$(RUN_EMU_TEST)
	@tools/prove.sh $(BUILD) $(WRITTEN)
	@if [ "$(EMU)" != 1 ] && ! $(BUILD)/probe > /dev/null; then \
	  echo "check: so proving the tests under the CPU emulation instead (EMU=1):"; \
	  $(MAKE) --no-print-directory EMU=1 NVCC_CHECK= prove; fi
	@if command -v pandoc > /dev/null; then $(MAKE) --no-print-directory handouts; \
	 else echo "check: handouts not built: pandoc is missing (make deps installs it)"; fi
endif

# The tests' honesty, proven in this build: pass on solutions, fail on skeletons.
prove: $(PROVEN) $(BUILD)/probe $(EMU_TEST)
	$(RUN_EMU_TEST)
	@tools/prove.sh $(BUILD) $(WRITTEN)

# The tests against the mistakes students make: each planted in a copy of
# the solution, caught, and its cause named in the report.
mutants:
	@tests/mutants/mutants.sh $(SELECTED)

# The handouts in course order, each with links to the one before and after
# (tools/handout-pages.sh), and an index of them all.
HANDOUT_PAGES := $(sort $(wildcard handouts/[0-9]*.md))
HANDOUTS := $(BUILD)/handouts/index.html $(patsubst handouts/%.md,$(BUILD)/handouts/%.html,$(HANDOUT_PAGES))
PANDOC_HTML = pandoc --from markdown --to html5 $(PANDOC_EMBED) --mathml \
	  --resource-path=handouts --css=handouts/handout.css --highlight-style=tango \
	  --syntax-definition=handouts/cuda.xml

handouts: $(HANDOUTS)
	@echo "handouts: $(HANDOUTS)"

$(BUILD)/handouts/%.html: handouts/%.md $(HANDOUT_PAGES) handouts/handout.css \
                          $(wildcard handouts/figures/*.svg results/bench/*/*.svg) \
                          tools/handout-pages.sh | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh nav $* $(HANDOUT_PAGES) > $(@:.html=.nav)
	$(Q)$(PANDOC_HTML) --toc --include-before-body=$(@:.html=.nav) \
	  --include-after-body=$(@:.html=.nav) $< -o $@

$(BUILD)/handouts/index.html: $(HANDOUT_PAGES) handouts/handout.css tools/handout-pages.sh | need-pandoc
	@mkdir -p $(@D)
	$(Q)tools/handout-pages.sh index $(HANDOUT_PAGES) > $(@:.html=.md)
	$(Q)$(PANDOC_HTML) $(@:.html=.md) -o $@

deps:
	@tools/deps.sh "$(NVCC)"

clean:
	rm -rf $(BUILD)

need-nvcc:
	@command -v $(NVCC) > /dev/null || { echo "nvcc not found at $(NVCC): install the CUDA \
	toolkit, or point CUDA= at it (make CUDA=/opt/cuda ...), or add EMU=1"; exit 1; }
need-criterion:
	@pkg-config --exists criterion 2> /dev/null || { echo "Criterion (the C test \
	framework) is not installed: run make deps"; exit 1; }
need-pandoc:
	@command -v pandoc > /dev/null || { echo "pandoc is not installed: run make deps"; exit 1; }
FORCE:

# ---- what each target does ---------------------------------------------------
help:
	@echo "gpu-workbook: labs $(WRITTEN) (planned: $(filter-out $(WRITTEN),$(COURSE)))"
	@echo
	@echo "Students"
	@echo "  make test LAB=map        build labs/map, run its tests; on a GPU, then its run table"
	@echo "  make run LAB=map         only the run table, and a block-size sweep (EMU=1: sectors per"
	@echo "                           request, bank conflicts, lanes used; STAGE=n alone: by line)"
	@echo "      N=2^28 STAGE=3 SEED=42 BLOCK=128   size, stages (STAGE=2,3), inputs, threads per block"
	@echo "      VARIANT=float                       one variant (reduce: int, float;"
	@echo "                                          histogram: uniform-256, skewed-4096...;"
	@echo "                                          scans: exclusive-int, inclusive-float...;"
	@echo "                                          compact: int-half, int-sparse, float-dense...)"
	@echo "  make handouts            the handouts as HTML in $(BUILD)/handouts/ (start at index.html)"
	@echo "  make bench LAB=reduce    on a GPU: every stage, the library and the copy from n = 2^10"
	@echo "                           to 2^28, to results/bench/<gpu>/<lab>.csv and a plot (.svg)"
	@echo "  make sanitize LAB=reduce STAGE=3 TOOL=racecheck   on a GPU: the stage once under"
	@echo "                           compute-sanitizer (TOOL=memcheck, racecheck, synccheck, initcheck)"
	@echo "  make profile LAB=reduce STAGE=2   on a GPU: the stage's kernels under Nsight Compute:"
	@echo "                           time, DRAM bytes, occupancy, sectors/request, bank conflicts"
	@echo "  LAB=scan picks every lab whose name starts with scan; no LAB picks all"
	@echo "  EMU=1 runs the kernels on the CPU: no GPU or CUDA toolkit needed (the default"
	@echo "        when no GPU is found; EMU=0 insists on one)"
	@echo "  V=1 shows every compiler command; NO_COLOR=1 turns colour off"
	@echo "  FORMAT=junit (or json, tap): make test also writes each lab's results in that format,"
	@echo "        as Criterion does, to $(BUILD)/reports/<lab>.xml (.json, .tap)"
	@echo "  TESTFLAGS=--verbose (any of Criterion's own options) for the test binaries"
	@echo
	@echo "Instructors"
	@echo "  make test SOLUTION=1     the same tests on the reference solutions"
	@echo "  make test SUBMISSION=dir grade another checkout's labs/ with these tests"
	@echo "  make grade SUBMISSIONS=dir  grade every submission folder in dir, each in a sandbox,"
	@echo "                           judged by this checkout's own binaries: grades/summary.md, .csv"
	@echo "      OUT=grades WEIGHTS=grading/weights.txt JOBS=cores SEED=...   (LAB= some labs)"
	@echo "  make check-grade          the grader against submissions built to attack it"
	@echo "  make gradescope          Gradescope's autograder.zip: make grade on each upload, no GPU"
	@echo "  make dist                the student copy: build/dist/gpu-workbook.tar.gz, without"
	@echo "                           solutions, answers, grader or mutants (make check-dist tries it)"
	@echo "  make diff LAB=map        a student's work: labs/ (or SUBMISSION=dir) against solutions/"
	@echo "      AGAINST=skeleton                    against the untouched skeleton: what they wrote"
	@echo "  make skeletons           regenerate labs/ from the STUDENT regions of solutions/"
	@echo "                           (refuses if labs/ holds work; FORCE=1 keeps a backup first)"
	@echo "  make check               the workbook's own checks: skeletons in sync, all builds,"
	@echo "                           tests pass on every solution and fail on every skeleton"
	@echo "  make mutants             plant the usual student mistakes (tests/mutants) and check"
	@echo "                           that the tests catch each and name its cause (LAB= some)"
	@echo "  make deps                install Criterion, pandoc and gnuplot (apt)"

