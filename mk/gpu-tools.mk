# gpu-tools.mk: what only a machine with an NVIDIA GPU runs: make sanitize
# and make profile (one lab's chosen stages, each checked once, run once=1,
# under compute-sanitizer or Nsight Compute), and make bench (every stage
# from n = 2^10 to 2^28). Included by the Makefile.

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
# METRICS=a,b: counters of your own, added to the list (ncu takes --metrics once)
PROFILE_METRICS += $(subst $(comma), ,$(METRICS))
empty :=
space := $(empty) $(empty)

GPU_TOOL := $(filter sanitize profile,$(MAKECMDGOALS))
ifneq ($(filter profile,$(GPU_TOOL)),)
  ifneq ($(filter --metrics --metrics=%,$(NCUFLAGS)),)
    $(error NCUFLAGS has --metrics, which make profile passes already and Nsight Compute \
      takes only once: give your counters as METRICS=name,name, and make profile adds them)
  endif
endif
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

.PHONY: sanitize profile bench

# --error-exitcode: a hazard fails the command even when the stage's results
# come out right, as a race's often do.
sanitize: $(BINARIES)
	@command -v $(SANITIZER) > /dev/null || { echo "compute-sanitizer not found at \
	$(SANITIZER): it comes with the CUDA toolkit (CUDA=/path/to/cuda, or SANITIZER=...)"; exit 1; }
	$(CHOICES) ONCE=1 WORKBOOK_TOOL="compute-sanitizer's $(TOOL), which watches every access" \
	  $(SANITIZER) --tool $(TOOL) --error-exitcode 1 --print-limit 10 \
	  $(SANITIZERFLAGS) $(BUILD)/$(TREE)/$(SELECTED)/run

# --clock-control none: the GPU at the clocks the run table sees (ncu would
# otherwise lock them to base), and the card's settings left alone.
profile: $(BINARIES)
	@command -v $(NCU) > /dev/null || { echo "Nsight Compute (ncu) not found: it comes with \
	the CUDA toolkit (CUDA=/path/to/cuda, or NCU=/path/to/ncu)"; exit 1; }
	$(CHOICES) ONCE=1 WORKBOOK_TOOL="Nsight Compute, which runs each kernel once a pass of \
	  its counters" $(NCU) --profile-from-start off --clock-control none \
	  --metrics $(subst $(space),$(comma),$(strip $(PROFILE_METRICS))) $(NCUFLAGS) \
	  $(BUILD)/$(TREE)/$(SELECTED)/run

# make bench: every stage, the library and the copy from n = 2^10 to 2^28,
# each checked once and timed as make run times it, into
# results/<gpu>/<lab>/bench.csv and a gnuplot plot beside it, bench.svg,
# and with VARIANT=all bench-<variant>.svg for each variant after the first
# (tools/bench.sh; BENCH_OUT= another folder in place of results: not OUT,
# a name shells and tools often set for their own use). Times under the emulation would be
# the CPU's: refused.
bench: $(if $(filter 1,$(EMU)),,$(BINARIES))
	@if [ "$(EMU)" = 1 ]; then echo "make bench: no sweep under EMU=1: its times would be the \
	CPU's, not a GPU's. Run it where nvidia-smi finds a GPU (make check-bench tests the CSV and \
	plot code without one)"; exit 1; fi
	@tools/bench.sh "$(BUILD)/$(TREE)" "$(or $(BENCH_OUT),results)" $(SELECTED)
