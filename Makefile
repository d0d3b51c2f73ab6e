# gpu-workbook: staged CUDA C labs, with tests, run tables and handouts.
# `make help` says what each target does. This file builds the labs and
# holds what students run; each other audience has a part of its own:
# mk/emu.mk (the CPU emulation, EMU=1), mk/gpu-tools.mk (NVIDIA's tools and
# make bench, on a GPU), mk/handouts.mk, and authoring/instructor.mk (the
# solutions, the proof, the grader, the student copy), which the student
# copy leaves out with the rest of authoring/.

SHELL := /bin/bash
.DEFAULT_GOAL := help

# ---- tools and flags: the one place that decides them ---------------------
CUDA   ?= /usr/local/cuda
NVCC   ?= $(CUDA)/bin/nvcc
BUILD  ?= build
# The GPU's own architecture when there is one (e.g. 90 on an H100), else
# nvcc's default, which any newer GPU runs through its PTX. Asked once: the
# makes this one starts inherit the answer.
ifeq ($(origin ARCH),undefined)
  ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null \
                  | head -n 1 | tr -d . | grep -E '^[0-9]+$$')
endif
export ARCH

# Builds run a job per core (a -j given to make still wins): on two cores
# this takes make check from a fresh clone from about 7 to 5 minutes. Only
# the first make sets it; the makes it starts share its jobs.
ifeq ($(MAKELEVEL),0)
  MAKEFLAGS += -j$(shell nproc 2>/dev/null || sysctl -n hw.ncpu 2>/dev/null || echo 2)
endif

COURSE := map reduce histogram scan-HS scan-Blelloch scan-large-arrays compact radix transpose

# What defines a lab is in spec/<lab>/: its facts, techniques, inputs, CPU
# reference and library row. Labs that share code belong to a family, whose
# code is in spec/<family>/: its checks and CPU reference (<family>.c), and
# headers the labs include. tests/ holds only the kit's own tests.
FAMILY.scan-HS           := scan
FAMILY.scan-Blelloch     := scan
FAMILY.scan-large-arrays := scan
FAMILIES := $(sort $(foreach l,$(COURSE),$(FAMILY.$(l))))
FAMILY_DIRS := $(FAMILIES:%=spec/%)

# V=1 prints every command; otherwise only what needs reading: errors, and
# the warnings of the lab's own .cu file.
Q := $(if $(filter 1,$(V)),,@)

# LAB= is checked before anything else is said.
ifneq ($(LAB),)
  ifeq ($(filter $(LAB)%,$(COURSE)),)
    $(error LAB=$(LAB) names no lab. The labs: $(COURSE). A prefix picks a family: LAB=scan)
  endif
endif

# A student copy (make dist), like the tree the grader builds submissions
# in, has no solutions/, and no instructors' part of this Makefile.
STUDENT_COPY := $(if $(wildcard solutions/*/*.cu),,1)
ifeq ($(STUDENT_COPY)$(SOLUTION),11)
  $(error make ... SOLUTION=1 is for instructors: it needs solutions/, which this student copy \
    leaves out)
endif

# Grading in two tiers (make grade SCHEDULER=slurm GPU_PARTITION=...) runs
# its first under the emulation, whatever this machine has.
ifneq ($(GPU_PARTITION),)
  override EMU := 1
endif

# Without a GPU, test, run and the like fall back to the CPU emulation by
# themselves (and check, in a student copy or where no nvcc is, as on a
# Mac); EMU=0 insists on a GPU.
ifeq ($(origin EMU),undefined)
  ifneq ($(filter test run build list grade bench record dist $(if $(STUDENT_COPY),check,$(if $(wildcard $(NVCC)),,check)),$(MAKECMDGOALS)),)
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
CU_TOOL   = need-nvcc
CU_COMPILE = $(NVCC) $(NVFLAGS) $(CPPFLAGS) -c $< -o $@
KERNEL_COMPILE = $(CU_COMPILE)
SHARED_CUH  := $(wildcard common/*.cuh $(FAMILY_DIRS:%=%/*.cuh))
COMMON_H    := $(wildcard common/*.h common/emu/*.h $(FAMILY_DIRS:%=%/*.h)) $(SHARED_CUH)
# The host half, no CUDA in it: the lab model, the diagnosis of a wrong run,
# its report, and host helpers (tests/common tests them without a GPU).
CHECK_OBJS   = $(patsubst %,$(BUILD)/common/%.o,lab diagnose report host)
COMMON_OBJS  = $(patsubst %,$(BUILD)/common/%.o,workbook verify gpu) $(CHECK_OBJS) $(EMU_OBJS)
# EMU=1 changes the build folder, the compilers and the flags above.
include mk/emu.mk
# GRADED=1: what make grade builds a submission with (grading/grade.sh), in a
# tree of its own. The process runs the student's code, so no CPU reference
# is linked into it (LAB_REFERENCE in workbook.h; unused code is dropped).
ifeq ($(GRADED),1)
  CPPFLAGS += -DWORKBOOK_GRADED
  CFLAGS   += -Wno-unused-function -ffunction-sections
  LDLIBS   += -Wl,--gc-sections
endif

# A value asked of another program the first time it is needed, and only then.
CRITERION_CFLAGS = $(eval CRITERION_CFLAGS := $$(shell pkg-config --cflags criterion 2>/dev/null))$(CRITERION_CFLAGS)
CRITERION_LIBS   = $(eval CRITERION_LIBS := $$(shell pkg-config --libs criterion 2>/dev/null))$(CRITERION_LIBS)

# The lab's own file is compiled with its warnings kept and shown, marked,
# even in the quiet build; errors come out as the compiler wrote them.
SHOW_KERNEL_COMPILE = echo "compiling $<$(if $(filter 1,$(EMU)), for the CPU emulation)"; \
	{ $(KERNEL_COMPILE); } 2> $@.log; tools/show-diagnostics.sh $@.log $$? "$<" \
	$(if $(NVCC_CHECK),&& { { $(NVCC_CHECK); } 2> $@.nvcc.log; \
	                        tools/show-diagnostics.sh $@.nvcc.log $$? "$<" nvcc; })

# ---- the labs ----------------------------------------------------------------
# (A copy without solutions/, as a grader builds a submission in, goes by labs/.)
# The others are planned, or in a student copy of some labs (make dist
# LABS=), to come.
WRITTEN := $(strip $(foreach l,$(COURSE),$(if $(wildcard solutions/$(l)/$(l).cu labs/$(l)/$(l).cu),$(l))))
UNWRITTEN := $(filter-out $(WRITTEN),$(COURSE))

# LAB=map picks one lab, LAB=scan the labs whose names start with it, no LAB all.
ifneq ($(LAB),)
  PICKED := $(filter $(LAB)%,$(COURSE))
  SELECTED := $(filter $(WRITTEN),$(PICKED))
  ifeq ($(SELECTED),)
    $(error LAB=$(LAB): $(PICKED) $(if $(STUDENT_COPY),not in this copy yet (to come). The labs here,not written \
      yet. Written so far): $(WRITTEN))
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
# environment variables (an empty one means the default), with whose kernels
# they are, for the reproduce lines.
CHOICES = N=$(call quote,$(N)) STAGE=$(call quote,$(STAGE)) VARIANT=$(call quote,$(VARIANT)) \
          SEED=$(call quote,$(SEED)) BLOCK=$(call quote,$(BLOCK)) \
          WORKBOOK_MAKE_ARGS=$(call quote,$(MAKE_ARGS))

# ---- building ------------------------------------------------------------------
# A command that fails leaves no half-made target behind.
.DELETE_ON_ERROR:

$(BUILD)/common/%.o: common/%.cu $(COMMON_H) $(CU_REWRITE) | $(CU_TOOL)
	@mkdir -p $(@D)
	$(Q)$(CU_COMPILE)

$(BUILD)/common/%.o: common/%.c $(COMMON_H)
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) $(CRITERION_CFLAGS) -c $< -o $@

$(BUILD)/probe: $(BUILD)/common/probe.o $(COMMON_OBJS)
	$(Q)$(CXX) -o $@ $^ $(LDLIBS)

$(BUILD)/selftest: $(CHECK_OBJS) $(patsubst %.c,$(BUILD)/%.o,$(wildcard tests/common/*.c))
	$(Q)$(CXX) -o $@ $^ $(CRITERION_LIBS) -lm

# The run program (make run, and every run grading asks for), built per lab:
# its options and main, the run table and its CSV, the grader's runs, their
# seal.
DRIVER_PARTS := driver run_table bench_csv judge seal

# A lab of a family links the family's code (FAMILY.<lab> above).
FAMILY_OBJS = $(if $(FAMILY.$(1)),$(BUILD)/spec/$(FAMILY.$(1))/$(FAMILY.$(1)).o)

$(BUILD)/spec/%.o: spec/%.c $(COMMON_H) | need-criterion
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) $(CRITERION_CFLAGS) -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c $(COMMON_H) | need-criterion
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(CPPFLAGS) $(CRITERION_CFLAGS) -c $< -o $@

# A lab's own CUDA files under spec/ (its library row), built per tree;
# but the generated skeletons link the solutions': their headers are the
# same (authoring/skeleton.awk changes no header), and CUB's sorts and
# scans are most of a lab's compile time.
LAB_CU_OBJS = $(patsubst spec/$(2)/%.cu,$(BUILD)/$(patsubst skeletons,solutions,$(1))/$(2)/%.o,\
                $(wildcard spec/$(2)/*.cu))

# A lab's headers in a tree (authoring/instructor.mk adds the generated
# skeletons' own, made on demand).
LAB_HEADERS = $(wildcard $(1)/$(2)/*.h) $(filter $(1)/$(2)/%.h,$(SKELETON_FILES))

# A submission is built whole every time: another may have stood at its
# path, with files older than that build. tests/mutants/mutants.sh, which
# copies each mutant afresh, builds by the files' dates (REBUILD_SUBMISSION=).
REBUILD_SUBMISSION ?= FORCE

# One lab built from one tree: $(1) its name under build/, $(2) the folder
# holding the lab's sources, $(3) the lab. The tests and the harness are
# always this checkout's; only the kernels come from the tree. The run
# program's seal.o links first: its .preinit_array entry (the grader's seal
# key) runs before anything of the student's file.
define LAB_RULES
$(BUILD)/$(1)/$(3)/$(3).o: $(2)/$(3)/$(3).cu $(call LAB_HEADERS,$(2),$(3)) $(COMMON_H) $(if $(filter submission-%,$(1)),$(REBUILD_SUBMISSION)) $(CU_REWRITE) | $(CU_TOOL)
	@mkdir -p $$(@D)
	$(Q)$$(if $$(filter 1,$$(V)),$$(KERNEL_COMPILE) $$(if $$(NVCC_CHECK),&& $$(NVCC_CHECK)),$$(SHOW_KERNEL_COMPILE))

$(BUILD)/$(1)/$(3)/%.o: tests/$(3)/%.c $(call LAB_HEADERS,$(2),$(3)) $(COMMON_H) $(if $(filter submission-%,$(1)),$(REBUILD_SUBMISSION)) | need-criterion
	@mkdir -p $$(@D)
	$(Q)$$(CC) $$(CFLAGS) $$(CPPFLAGS) -I$(2)/$(3) $$(CRITERION_CFLAGS) -c $$< -o $$@

$(BUILD)/$(1)/$(3)/%.o: spec/$(3)/%.c $(call LAB_HEADERS,$(2),$(3)) $(COMMON_H) $(if $(filter submission-%,$(1)),$(REBUILD_SUBMISSION)) | need-criterion
	@mkdir -p $$(@D)
	$(Q)$$(CC) $$(CFLAGS) $$(CPPFLAGS) -I$(2)/$(3) $$(CRITERION_CFLAGS) -c $$< -o $$@

$(BUILD)/$(1)/$(3)/%.o: spec/$(3)/%.cu $(call LAB_HEADERS,$(2),$(3)) $(COMMON_H) $(if $(filter submission-%,$(1)),$(REBUILD_SUBMISSION)) $(CU_REWRITE) | $(CU_TOOL)
	@mkdir -p $$(@D)
	$(Q)$$(CU_COMPILE) -I$(2)/$(3)

$(BUILD)/$(1)/$(3)/%.o: common/%.c $(COMMON_H) $(if $(filter submission-%,$(1)),$(REBUILD_SUBMISSION)) | need-criterion
	@mkdir -p $$(@D)
	$(Q)$$(CC) $$(CFLAGS) $$(CPPFLAGS) $$(CRITERION_CFLAGS) -DLAB_SOURCE='"$(2)/$(3)/$(3).cu"' -c $$< -o $$@

$(BUILD)/$(1)/$(3)/test: $(BUILD)/$(1)/$(3)/$(3).o $(BUILD)/$(1)/$(3)/$(3)_lab.o $(call LAB_CU_OBJS,$(1),$(3)) \
		$(BUILD)/$(1)/$(3)/test_$(3).o $(BUILD)/$(1)/$(3)/test_main.o $(BUILD)/$(1)/$(3)/test_report.o \
		$(BUILD)/common/testing.o $(call FAMILY_OBJS,$(3)) $(COMMON_OBJS)
	$(Q)$$(CXX) -o $$@ $$^ $$(CRITERION_LIBS) $$(LDLIBS)

$(BUILD)/$(1)/$(3)/run: $(BUILD)/$(1)/$(3)/$(3).o $(BUILD)/$(1)/$(3)/$(3)_lab.o $(call LAB_CU_OBJS,$(1),$(3)) \
		$(patsubst %,$(BUILD)/$(1)/$(3)/%.o,$(DRIVER_PARTS)) $(call FAMILY_OBJS,$(3)) $(COMMON_OBJS)
	$(Q)$$(CXX) -o $$@ $$(filter %/seal.o,$$^) $$(filter-out %/seal.o,$$^) $$(LDLIBS)
endef
$(foreach l,$(WRITTEN),$(eval $(call LAB_RULES,labs,labs,$(l))))
$(foreach l,$(WRITTEN),$(eval $(call LAB_RULES,solutions,solutions,$(l))))
ifneq ($(SUBMISSION),)
$(foreach l,$(SELECTED),$(eval $(call LAB_RULES,$(TREE),$(SRC),$(l))))
endif

BINARIES = $(foreach l,$(SELECTED),$(BUILD)/$(TREE)/$(l)/test $(BUILD)/$(TREE)/$(l)/run)

# ---- what students run ---------------------------------------------------------
.PHONY: help test run build list check deps clean need-nvcc need-criterion FORCE

build: $(BINARIES)

# FORMAT=junit, json or tap: each lab's results also as Criterion writes
# them, in $(BUILD)/reports/<lab>.xml, .json or .tap.
FORMATS := junit json tap
ifneq ($(filter test,$(MAKECMDGOALS)),)
  ifneq ($(filter-out $(FORMATS),$(FORMAT)),)
    $(error FORMAT=$(FORMAT): make test writes its results as junit (JUnit XML), json or tap)
  endif
endif

# Whether a stage's kernel shows its idea is counted under the emulation,
# on a GPU too: there the tests ask the emulated driver of the same file.
ifneq ($(EMU),1)
TECHNIQUE_RUNS = $(foreach l,$(SELECTED),build/emu/$(TREE)/$(l)/run)
.PHONY: technique-runs
technique-runs: | $(BINARIES)
	@$(MAKE) --no-print-directory EMU=1 $(TECHNIQUE_RUNS)
test: technique-runs
endif

test: $(BINARIES)
	@$(CHOICES) TESTFLAGS=$(call quote,$(TESTFLAGS)) EMU=$(EMU) \
	 TECHNIQUE_BUILD=build/emu FORMAT='$(FORMAT)' REPORTS='$(BUILD)/reports' \
	 tools/test-labs.sh $(BUILD) $(TREE) $(SELECTED)

run: $(BINARIES)
	@status=0; for lab in $(SELECTED); do \
	  $(CHOICES) $(BUILD)/$(TREE)/$$lab/run || status=1; \
	done; exit $$status

# Each lab's stages and variants, as its own driver names them (run list=).
list: $(BINARIES)
	@for lab in $(SELECTED); do run=$(BUILD)/$(TREE)/$$lab/run; \
	  variants=$$($$run list=variants | paste -sd ' ' -); \
	  echo "$$lab$${variants:+ (VARIANT= $$variants)}"; \
	  $$run list=stages | while IFS=$$'\t' read -r id idea; do printf '  stage %-3s %s\n' "$$id" "$$idea"; done; \
	done

# The student copy's check: every lab builds, and the harness and the
# emulation pass their own tests (the instructors' check is in
# authoring/instructor.mk).
ifeq ($(STUDENT_COPY),1)
check: $(BINARIES) $(BUILD)/selftest $(EMU_TEST)
	@echo "check: built every lab: $(WRITTEN)"
	@$(BUILD)/selftest --short-filename
	$(RUN_EMU_TEST)
	@if command -v pandoc > /dev/null; then $(MAKE) --no-print-directory handouts; \
	 else echo "check: handouts not built: pandoc is missing (make deps installs it)"; fi
	@echo "check: all is in place. Start with handouts/00-introduction.md, then make test LAB=map"
endif

deps:
	@tools/deps.sh "$(NVCC)" $(DEPS_EXTRA)

clean:
	rm -rf $(BUILD)

need-nvcc:
	@command -v $(NVCC) > /dev/null || { echo "nvcc not found at $(NVCC): install the CUDA \
	toolkit, or point CUDA= at it (make CUDA=/opt/cuda ...), or add EMU=1"; exit 1; }
need-criterion:
	@pkg-config --exists criterion 2> /dev/null || { echo "Criterion (the C test \
	framework) is not installed: run make deps"; exit 1; }
FORCE:

include mk/gpu-tools.mk
include mk/handouts.mk

# ---- what each target does ---------------------------------------------------
help::
	@echo "gpu-workbook: labs $(WRITTEN)$(if $(UNWRITTEN), ($(if $(STUDENT_COPY),to come,planned): $(UNWRITTEN)))"
	@echo
	@echo "Students"
	@echo "  make test LAB=map        build labs/map, run its tests; on a GPU, then its run table"
	@echo "  make run LAB=map         only the run table, and a block-size sweep (EMU=1: sectors per"
	@echo "                           request, bank conflicts, lanes used; STAGE=n alone: by line)"
	@echo "      N=2^28 STAGE=3 SEED=42 BLOCK=128   size, stages (STAGE=2,3), inputs, threads per block"
	@echo "      VARIANT=float                       one variant (make list names each lab's)"
	@echo "  make list LAB=reduce     the lab's stages and variants"
	@echo "  make handouts            the handouts as HTML in $(BUILD)/handouts/ (start at index.html)"
	@echo "  make bench LAB=reduce    on a GPU: every stage, the library and the copy from n = 2^10"
	@echo "                           to 2^28, to results/<gpu>/<lab>/bench.csv and a plot (.svg)"
	@echo "      VARIANT=all                         every variant, in the one CSV, a plot each"
	@echo "  make sanitize LAB=reduce STAGE=3 TOOL=racecheck   on a GPU: the stage once under"
	@echo "                           compute-sanitizer (TOOL=memcheck, racecheck, synccheck, initcheck)"
	@echo "  make profile LAB=reduce STAGE=2   on a GPU: the stage's kernels under Nsight Compute:"
	@echo "                           time, DRAM bytes, occupancy, sectors/request, bank conflicts"
	@echo "      METRICS=name,name                   more counters, added to those; NCUFLAGS= other options"
	@echo "  LAB=scan picks every lab whose name starts with scan; no LAB picks all"
	@echo "  EMU=1 runs the kernels on the CPU: no GPU or CUDA toolkit needed (the default"
	@echo "        when no GPU is found; EMU=0 insists on one)"
	@echo "  V=1 shows every compiler command; NO_COLOR=1 turns colour off"
	@echo "  FORMAT=junit (or json, tap): make test also writes each lab's results in that format,"
	@echo "        as Criterion does, to $(BUILD)/reports/<lab>.xml (.json, .tap)"
	@echo "  TESTFLAGS=--verbose (any of Criterion's own options) for the test binaries;"
	@echo "        --timeout=120 gives each test 120 s (default 30)"
	@[ -z "$(STUDENT_COPY)" ] || echo "  make check               the kit's own checks: every lab builds, the harness's tests pass"
	@echo "  make deps                install Criterion, pandoc and gnuplot (apt; Homebrew on a Mac)"

# The instructors' part: not in the student copy, nor in a tree without the
# solutions; there a target of theirs gets one line instead of make's own.
ifeq ($(STUDENT_COPY),)
  include authoring/instructor.mk
else
.DEFAULT:
	@if [ -n "$(filter $@,$(MAKECMDGOALS))" ]; then echo "make $@: no such target here (make \
	help lists them; the student copy leaves out what is for instructors)"; else echo "make: $@ \
	is missing, and nothing here makes it"; fi; exit 1
endif
