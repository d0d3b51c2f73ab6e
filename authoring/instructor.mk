# instructor.mk: what instructors and the kit's maintainers run, all of it
# needing solutions/: the skeletons generated from the solutions, the proof
# that the tests are honest, the planted mistakes, the grader, the student
# copy and CI's checks of them. The Makefile includes it where solutions/
# is; the student copy leaves out authoring/, this file with it.

.PHONY: check-drawn skeletons check-skeletons prove mutants soak diff grade check-grade dist check-dist \
        deps-slurm check-grade-slurm record \
        gradescope check-bench check-pdf check-pdf-ua check-a11y check-scripts check-figures check-platforms check-darwin deps-darwin \
        deps-arm64 check-deps deps-devcontainer check-devcontainer

# The skeletons as the solutions make them today, file by file: what
# labs/ should hold, and what `make check` proves the tests fail on. They
# are built as the tree `skeletons`, whose objects go to $(BUILD)/skeletons.
SKELETONS := $(BUILD)/skeleton-sources
# Every file of a solution but its model answers, which stay with the instructor.
SKELETON_FILES := $(patsubst solutions/%,$(SKELETONS)/%,$(filter-out %/ANSWERS.md,\
                    $(wildcard $(foreach l,$(WRITTEN),solutions/$(l)/*))))
$(SKELETONS)/%: solutions/% authoring/skeleton.awk
	@mkdir -p $(@D)
	$(Q)awk -f authoring/skeleton.awk $< > $@.tmp && mv $@.tmp $@

$(foreach l,$(WRITTEN),$(eval $(call LAB_RULES,skeletons,$(SKELETONS),$(l))))
PROVEN = $(foreach t,skeletons solutions,$(foreach l,$(WRITTEN),$(BUILD)/$(t)/$(l)/test $(BUILD)/$(t)/$(l)/run))

# How much the TODO comments give (authoring/skeleton.awk): HINTS=full, the
# skeletons above, or goal: Goal and Keep, no Hint, and the formulas a stage
# teaches left to derive. The code is the same at every level, so the
# checks build and prove the full skeletons whatever HINTS says.
HINTS ?= full
ifeq ($(filter full goal,$(HINTS)),)
  $(error HINTS=$(HINTS): the hint levels are full (the default) and goal)
endif
HINTED := $(if $(filter full,$(HINTS)),$(SKELETONS),$(BUILD)/skeleton-sources-$(HINTS))
HINTED_FILES := $(patsubst $(SKELETONS)/%,$(HINTED)/%,$(SKELETON_FILES))
$(BUILD)/skeleton-sources-goal/%: solutions/% authoring/skeleton.awk
	@mkdir -p $(@D)
	$(Q)awk -v hints=goal -f authoring/skeleton.awk $< > $@.tmp && mv $@.tmp $@

# labs/ from solutions/, never over a student's work (authoring/skeletons.sh).
skeletons: $(HINTED_FILES)
	@HINTS=$(HINTS) authoring/skeletons.sh write $(HINTED) $(WRITTEN)

check-skeletons: $(HINTED_FILES)
	@HINTS=$(HINTS) authoring/skeletons.sh check $(HINTED) $(WRITTEN)

# Every figure a handout or a model answer quotes beside a citation of a
# file under results/ or notebook/, checked against that file by the rules
# that authoring/figures.c lists: one line a figure not found, with the
# nearest value. make check runs the checker's test, then the checker, and
# fails on a figure that is not in the file it cites.
$(BUILD)/figures: authoring/figures.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $< -lm

# A figure drawn by a script (handouts/figures/draw/NAME.sh prints
# handouts/figures/NAME.svg) is what its script draws now.
check-drawn:
	@for script in handouts/figures/draw/*.sh; do \
	  svg=handouts/figures/$$(basename $$script .sh).svg; \
	  bash $$script | cmp -s - $$svg || { echo "check: $$svg is not what $$script draws: run" \
	    "$$script > $$svg"; exit 1; }; \
	done; echo "check: every drawn figure is what its script draws"

check-figures: $(BUILD)/figures
	@tests/figures/figures-test.sh $(BUILD)/figures
	@$(BUILD)/figures

# The kit's own checks. Without a GPU it proves under the emulation, with
# NVCC_CHECK= : nvcc has just compiled every file.
check: check-skeletons check-scripts $(PROVEN) $(BUILD)/selftest $(BUILD)/probe $(EMU_TEST) $(BUILD)/figures
	@echo "check: built the skeleton and the solution of: $(WRITTEN)"
	@$(BUILD)/selftest --short-filename
	$(RUN_EMU_TEST)
	@authoring/prove.sh $(BUILD) $(WRITTEN)
	@GPU=0 REFERENCE=results/H200/differential.md CENSUS=build/differential/census.md \
	  authoring/differential/run.sh 200 1 2 | sed 's/^differential:/check: differential:/'
	@tests/load/load-test.sh $(BUILD) map reduce
	@authoring/results-index.sh --check && echo "check: results/ holds only what the tools wrote, and its index is current"
	@authoring/stage-words.sh $(BUILD)
	@$(MAKE) --no-print-directory check-drawn
	@if [ "$(EMU)" != 1 ] && ! $(BUILD)/probe > /dev/null; then \
	  echo "check: so proving the tests under the CPU emulation instead (EMU=1):"; \
	  $(MAKE) --no-print-directory EMU=1 NVCC_CHECK= prove; fi
	@if command -v pandoc > /dev/null; then $(MAKE) --no-print-directory handouts; \
	 else echo "check: handouts not built: pandoc is missing (make deps installs it)"; fi
	@tests/figures/figures-test.sh $(BUILD)/figures
	@$(BUILD)/figures > $(BUILD)/figures.txt && sed 's/^/check: /' <(tail -n 1 $(BUILD)/figures.txt) || \
	  { head -n 20 $(BUILD)/figures.txt; echo "check: figures differ from the files they cite" \
	  "($(BUILD)/figures.txt lists them all; make check-figures runs the check alone)"; exit 1; }

# On a GPU the tests count each stage's technique with the emulated driver
# of its tree (authoring/prove.sh points them at it).
ifneq ($(EMU),1)
check prove: proven-technique-runs
.PHONY: proven-technique-runs
proven-technique-runs:
	@$(MAKE) --no-print-directory EMU=1 NVCC_CHECK= \
	  $(foreach t,skeletons solutions,$(foreach l,$(WRITTEN),build/emu/$(t)/$(l)/run))
endif

# The tests' honesty, proven in this build: pass on solutions, fail on
# skeletons; and under load, every stage a verdict (tests/load).
prove: $(PROVEN) $(BUILD)/probe $(EMU_TEST)
	$(RUN_EMU_TEST)
	@authoring/prove.sh $(BUILD) $(WRITTEN)
	@tests/load/load-test.sh $(BUILD) map reduce

# Every shell script, as shellcheck reads it (make deps installs it here).
# Without it the check says so, and fails where it must not be missed: in
# CI (WORKBOOK_MAINTAINER=1).
SCRIPTS := $(wildcard tools/*.sh grading/*.sh grading/gradescope/* authoring/*.sh authoring/*/*.sh tests/*.sh \
                      tests/*/*.sh .ci/run .devcontainer/*.sh handouts/figures/draw/*.sh)
DEPS_EXTRA += shellcheck
check-scripts:
	@if ! command -v shellcheck > /dev/null; then echo "check: the scripts were not checked: \
	shellcheck is missing (make deps installs it)"; [ -z "$(WORKBOOK_MAINTAINER)" ]; \
	else shellcheck -x $(SCRIPTS) && echo "check: shellcheck finds nothing in the \
	$(words $(SCRIPTS)) scripts"; fi
	@authoring/includes.sh --check
	@authoring/support-matrix.sh --check

# The tests against the mistakes students make: each planted in a copy of
# the solution, caught, and its cause named in the report. JOBS=N: N copies
# side by side (tests/mutants/census.sh; EMU=0: three tests a GPU at once).
mutants:
	@$(if $(JOBS),JOBS=$(JOBS) tests/mutants/census.sh,tests/mutants/mutants.sh) $(SELECTED)

# The emulation against correct code: its own tests and every stage of the
# solutions at many seeds, sizes, blocks and worker counts, under load; one
# report fails it (authoring/soak.sh). SEEDS=200 gives results/emulation/soak.txt.
SOAK_RUNS = $(foreach l,$(SELECTED),build/emu/solutions/$(l)/run) build/emu/emutest
soak:
	@$(MAKE) --no-print-directory EMU=1 NVCC_CHECK= $(SOAK_RUNS)
	@authoring/soak.sh build/emu $(or $(SEEDS),20) $(SELECTED)

# AGAINST=skeleton: only what the student wrote, against the untouched skeleton.
DIFF_BASE = $(if $(filter skeleton,$(AGAINST)),$(SKELETONS),solutions)
diff: $(if $(filter skeleton,$(AGAINST)),$(SKELETON_FILES))
	@for lab in $(SELECTED); do diff -ru -x ANSWERS.md $(DIFF_BASE)/$$lab $(SRC)/$$lab; done; true

# The same verdicts on other platforms as from gcc here, under the
# emulation: its own tests, and make test on every lab's solution and
# skeleton at one seed (SEED=, default 5), line for line (tests/platforms);
# and a clone with Windows line ends builds. PLATFORMS="clang arm64": clang
# (a Mac's compiler; the default; clang-16 that version), arm64 (gcc's
# cross compiler under qemu-user); LABS= a few labs only; LARGEST_N= no
# test of more elements, on every side; MUTANTS="map reduce" those labs'
# planted mistakes too (tests/mutants): the same verdicts, and the first
# reports that differ in more than where they tripped, shown; COUNTS=1 the
# solutions' counts tables beside gcc's, a report.
check-platforms:
	+@PLATFORMS='$(PLATFORMS)' LABS='$(LABS)' LARGEST_N=$(LARGEST_N) MUTANTS='$(MUTANTS)' \
	  tests/platforms/platforms-test.sh $(SEED)

# The emulation and the harness built for a Mac without one, arm64 and
# x86-64 (zig's clang and Apple's headers: pip install ziglang), through
# the rules above: everything compiled, a lab's make run program linked
# (LAB=, default map; tests/platforms/darwin-compile.sh); nothing run.
check-darwin:
	+@tests/platforms/darwin-compile.sh $(firstword $(PICKED))

# zig, whose clang and Apple headers make check-darwin uses, from PyPI.
deps-darwin:
	@python3 -m ziglang version > /dev/null 2>&1 || python3 -m pip install --quiet ziglang || \
	  { echo "deps-darwin: pip could not install ziglang (zig's clang for macOS)"; exit 1; }
	@echo "deps-darwin: zig $$(python3 -m ziglang version) is installed"

# arm64 on this machine, for make check-platforms PLATFORMS=arm64: Debian's
# cross compiler and qemu-user, and arm64's Criterion unpacked in build/.
deps-arm64:
	@tools/deps.sh "$(NVCC)" aarch64-linux-gnu-g++=g++-aarch64-linux-gnu qemu-aarch64=qemu-user
	@tests/platforms/arm64-root.sh build/arm64-root

# make deps on the machines it meets (macOS with Homebrew and without,
# Linux without apt, Debian with apt), each made of stubs: no package is
# installed (tests/deps, a second).
check-deps:
	@tests/deps/deps-test.sh

# The devcontainer (.devcontainer/): its image cannot be built here, where
# no image registry is reachable, so its Dockerfile's steps are replayed in
# a fresh Debian 12 root (debootstrap), and a student's first commands run
# there as its user (tests/devcontainer; root, and Debian's mirror).
deps-devcontainer:
	@tools/deps.sh "$(NVCC)" debootstrap
check-devcontainer:
	+@tests/devcontainer/devcontainer-test.sh

# Differential testing (authoring/differential/run.sh): batches of random
# race-free kernels from gen.c, each built as a lab's file is, by the
# emulation's compile under EMU=1 (its checks, and the not-provided lines)
# or by nvcc; DIFFERENTIAL= the folder the batches were written to. make
# check runs 200 under the emulation, which must report nothing and give
# the checksums the H200 gave (results/H200/differential.md records them,
# while gen.c is unchanged); on a GPU, run.sh 10000 compares every output
# word with the GPU's.
DIFFERENTIAL ?= build/differential/src
build/differential/gen: authoring/differential/gen.c
	@mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -o $@ $<

$(BUILD)/differential/%.o: CPPFLAGS += -Iauthoring/differential
$(BUILD)/differential/%.o: $(DIFFERENTIAL)/%.cu authoring/differential/host.cuh $(COMMON_H) $(CU_REWRITE) | $(CU_TOOL)
	@mkdir -p $(@D)
	$(Q)$(KERNEL_COMPILE)

.PRECIOUS: $(BUILD)/differential/%.o
$(BUILD)/differential/%.bin: $(BUILD)/differential/%.o $(EMU_OBJS)
	$(Q)$(CXX) -o $@ $^ $(LDLIBS)

# make grade SUBMISSIONS=dir: every folder in dir, each in a sandbox, judged
# by this checkout's own binaries (grading/grade.sh says how). OUT= where the
# grades go; WEIGHTS= the points file; JOBS= submissions at once.
# SCHEDULER=slurm: the same, as a Slurm job array (grading/grade-slurm.sh:
# PARTITION=, ACCOUNT=, TASKS=, SLURM_SITE=file, RESUME=1, REGRADE=1), and
# with GPU_PARTITION= in two tiers: the emulation on CPU nodes, then the GPU
# for the stages that passed (GPU_ARCH=90, GPU_SECONDS=300, GPU_JOBS=4).
grade:
	@[ -n "$(SUBMISSIONS)" ] || { echo "make grade needs SUBMISSIONS=dir, a folder of submission \
	folders (each with labs/<lab>/<lab>.cu)"; exit 1; }
	@case "$(SCHEDULER)" in "" | local | slurm) ;; *) echo "make grade: SCHEDULER=$(SCHEDULER) is \
	not one this grader knows: leave it out (this machine), or SCHEDULER=slurm"; exit 1 ;; esac
	@[ -z "$(GPU_PARTITION)" ] || [ "$(SCHEDULER)" = slurm ] || { echo "make grade: GPU_PARTITION= \
	names where tier 2 of a grading through Slurm runs: give SCHEDULER=slurm too"; exit 1; }
	@EMU=$(if $(filter 1,$(EMU)),1,0) grading/$(if $(filter slurm,$(SCHEDULER)),grade-slurm,grade).sh \
	  "$(BUILD)" "$(SUBMISSIONS)" "$(or $(OUT),grades)" $(SELECTED)

# Slurm and munge from Debian's packages, for make grade SCHEDULER=slurm and
# make check-grade-slurm (instructors only: students never need them).
deps-slurm:
	@tools/deps.sh "$(NVCC)" slurmctld slurmd sbatch=slurm-client munged=munge

# make grade SCHEDULER=slurm on a one-node Slurm started here (tests/grade):
# the hostile class in one tier and in two, a cancelled task resumed, the
# same grades as make grade (about 4 minutes on 2 cores).
check-grade-slurm:
	+@tests/grade/slurm-test.sh

# The sandbox against commands that try to get out, the grader against a
# hostile class, against submissions that try to buy the technique check,
# against what it is given besides the code, as Gradescope
# runs it, and in the sandbox's other modes (tests/grade): about 5 minutes
# on 2 cores.
check-grade:
	+@tests/grade/sandbox-test.sh
	+@tests/grade/grade-test.sh
	+@tests/grade/technique-test.sh
	+@tests/grade/inputs-test.sh
	+@tests/grade/gradescope-test.sh
	+@tests/grade/modes.sh
	+@tests/grade/gpu-time-test.sh

# The student copy: the committed tree less the instructors' folders
# (authoring/dist.sh), into DIST= (default build/dist). Its Classroom
# workflow names the stages the skeletons' drivers name. LABS=map,reduce
# (comma-separated): a copy of those labs alone, for a course released in
# parts; later labs' given code answers earlier labs' stages (README.md).
# HINTS=goal: its labs/ with the TODO comments of that level.
DIST_NAMED := $(subst $(comma), ,$(LABS))
ifneq ($(filter dist,$(MAKECMDGOALS)),)
  ifneq ($(filter-out $(WRITTEN),$(DIST_NAMED)),)
    $(error make dist LABS=$(LABS): $(filter-out $(WRITTEN),$(DIST_NAMED)) $(if $(word 2,$(filter-out \
      $(WRITTEN),$(DIST_NAMED))),are not labs,is not a lab); the labs, in course order: $(subst $(space),$(comma),$(WRITTEN)))
  endif
endif
DIST_LABS := $(if $(DIST_NAMED),$(filter $(DIST_NAMED),$(WRITTEN)),$(WRITTEN))
dist: $(foreach l,$(DIST_LABS),$(BUILD)/skeletons/$(l)/run) $(filter $(foreach l,$(DIST_LABS),$(HINTED)/$(l)/%),$(HINTED_FILES))
	@HINTS=$(HINTS) HINTED=$(if $(filter full,$(HINTS)),,$(HINTED)) authoring/dist.sh "$(or $(DIST),build/dist)" $(BUILD)/skeletons $(DIST_LABS)

# The student copy checked as CI checks it: it builds, its make check passes,
# its tests fail until a lab is done and pass once it is (tests/dist).
check-dist:
	+@tests/dist/dist-test.sh

# Gradescope's autograder: build/gradescope/autograder.zip, this tree with
# grading/gradescope's setup.sh and run_autograder at its top.
gradescope:
	@rm -rf build/gradescope && mkdir -p build/gradescope
	@git archive --format=zip -o build/gradescope/autograder.zip HEAD
	@cd grading/gradescope && zip -q ../../build/gradescope/autograder.zip setup.sh run_autograder
	@echo "gradescope: build/gradescope/autograder.zip, to upload as a programming assignment's autograder"

# What a GPU measured, recorded where the course reads it: each lab's run
# tables at n = 2^28 in results/<gpu>/<lab>/run.md (CHECK=1: make check's
# proof first, in results/<gpu>/check.md), then results/README.md, the
# index, and the machine's page (authoring/record.sh, results-index.sh).
record: $(if $(filter 1,$(EMU)),,$(foreach l,$(SELECTED),$(BUILD)/solutions/$(l)/run))
	@if [ "$(EMU)" = 1 ]; then echo "make record: a record is of a GPU, and this is the CPU \
	emulation: run it where nvidia-smi finds one"; exit 1; fi
	@authoring/record.sh $(BUILD)/solutions $(SELECTED)

# make bench's CSV and plot code on a tiny emulated sweep, for CI (tests/bench).
check-bench:
	+@tests/bench/bench-test.sh

# make pdf's course read page by page, as images and as text (tests/handouts):
# no blank page, nothing past the margins, each handout from a new page, in
# order: about 25 seconds on 2 cores, the PDF's build included (make
# deps-pdf installs the tools).
check-pdf:
	+@tests/handouts/pdf-test.sh

# make pdf's course read back as a screen reader finds it: tagged for
# PDF/UA-1, its language, its figures' alt text, code, formulas with their
# TeX, and each plot's data attached (tests/handouts/pdf-ua-test.sh, about
# 20 seconds with the PDF's build; make deps-pdf installs the tools).
check-pdf-ua:
	+@tests/handouts/pdf-ua-test.sh

# every HTML handout checked by axe-core in a headless Chromium against WCAG
# 2.1 A and AA, 0 violations, and a planted image without alt text found
# (tests/handouts/a11y-test.sh; make deps-a11y installs the tools).
check-a11y:
	+@tests/handouts/a11y-test.sh

help::
	@echo
	@echo "Instructors"
	@echo "  make test SOLUTION=1     the same tests on the reference solutions"
	@echo "  make test SUBMISSION=dir grade another checkout's labs/ with these tests"
	@echo "  make grade SUBMISSIONS=dir  grade every submission folder in dir, each in a sandbox,"
	@echo "                           judged by this checkout's own binaries: grades/summary.md, .csv"
	@echo "      OUT=grades WEIGHTS=grading/weights.txt JOBS=cores SEED=...   (LAB= some labs)"
	@echo "  make check-grade          the grader against submissions built to attack it"
	@echo "  make check-platforms      clang's verdicts against gcc's, under the emulation, line for line"
	@echo "                           (PLATFORMS=\"clang arm64\": gcc's arm64 build under qemu-user too)"
	@echo "  make check-darwin        the emulation and the harness compiled and linked for macOS (arm64,"
	@echo "                           x86-64) without a Mac, by zig (pip install ziglang); nothing run"
	@echo "  make check-deps          make deps on macOS (Homebrew), Debian (apt) and neither, as stubs"
	@echo "  make check-devcontainer  the devcontainer's install steps in a fresh Debian 12 root, then"
	@echo "                           make test as its user (root; make deps-devcontainer first)"
	@echo "  make gradescope          Gradescope's autograder.zip: make grade on each upload, no GPU"
	@echo "  make pdf                 the whole course as one PDF, $(PDF), to print or post"
	@echo "                           (make deps-pdf installs weasyprint, librsvg and poppler's tools)"
	@echo "  make check-pdf           the PDF rendered page by page: none blank, each handout from a new page"
	@echo "  make check-pdf-ua        the PDF's tags read back: PDF/UA-1, language, alt text, code, formulas, plots' data"
	@echo "  make check-a11y          every HTML handout through axe-core in headless Chromium: WCAG 2.1 AA"
	@echo "                           (make deps-a11y installs Chromium and build/pytools from PyPI)"
	@echo "  make record LAB=map      on a GPU: the run tables at 2^28 into results/<gpu>/<lab>/run.md,"
	@echo "                           then results/README.md, the index (CHECK=1: make check's proof too)"
	@echo "  make check-figures       each figure a handout or model answer quotes beside a cited file,"
	@echo "                           checked against it (make check runs it too)"
	@echo "  make dist                the student copy: build/dist/gpu-workbook.tar.gz, without solutions,"
	@echo "                           answers, notebook, grader or mutants (make check-dist tries it)"
	@echo "      LABS=map,reduce                     only those labs, for a course released in parts"
	@echo "      HINTS=goal                          TODO comments with Goal and Keep, no Hint, no formula"
	@echo "  make diff LAB=map        a student's work: labs/ (or SUBMISSION=dir) against solutions/"
	@echo "      AGAINST=skeleton                    against the untouched skeleton: what they wrote"
	@echo "  make skeletons           regenerate labs/ from the STUDENT regions of solutions/"
	@echo "                           (refuses if labs/ holds work; FORCE=1 keeps a backup first)"
	@echo "      HINTS=goal                          Goal and Keep only: the formulas left to derive"
	@echo "  make check               the kit's own checks: skeletons in sync, every script past"
	@echo "                           shellcheck, all builds, tests pass on every solution and fail"
	@echo "                           on every skeleton"
	@echo "  make soak SEEDS=20       the emulation on every solution at many seeds, sizes, blocks"
	@echo "                           and worker counts, under load: fails on any report"
	@echo "  make mutants             plant the usual student mistakes (tests/mutants) and check"
	@echo "                           that the tests catch each and name its cause (LAB= some;"
	@echo "                           JOBS=8: eight copies side by side; EMU=0: on the GPU)"
	@echo "  authoring/differential/run.sh 10000 1 16   random race-free kernels (count, seed, jobs)"
	@echo "                           under the emulation and, on a GPU, on it: every output word"
	@echo "                           compared, results/<gpu>/differential.md (common/emu/SUPPORT.md:"
	@echo "                           what each construct the course uses is tested by)"
