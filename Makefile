# scalegp developer entry points. `make demo` and `make check` are the two
# commands of the README: both install missing Debian packages first.
R ?= R
RSCRIPT ?= Rscript
RLIB := build/Rlib
VERSION := $(shell sed -n 's/^Version: *//p' DESCRIPTION)
# How the core is built (sources, flags, libraries): core/core.mk, shared with
# the R, Octave and test builds. The C benchmark drivers here are CPU-only
# (bench-cuda builds its own), so CUDA is not looked for.
SGP_CUDA_CFG :=
include core/core.mk
BENCH_LIBS = $(SGP_CORE_LIBS) -ldl
DEB_PACKAGES := make gcc pkg-config r-base-dev r-cran-testthat r-cran-roxygen2 \
  r-cran-knitr r-cran-rmarkdown pandoc r-cran-nnet r-cran-mass r-cran-data.table r-cran-hdf5r r-cran-bit64 r-cran-future r-cran-future.apply r-cran-spatstat.data r-cran-spatstat.geom \
  octave-parallel gnuplot-nox fonts-freefont-otf octave liboctave-dev libhdf5-dev libfftw3-dev libnlopt-dev libopenblas-dev libcmocka-dev

.PHONY: all deps install demo check check-core check-r check-octave check-self-contained hooks bench bench-report bench-cuda \
  octave-pkg rcheck docs clean fuzz fuzz-r fuzz-octave bench-laplace bench-laplace-budget bench-laplace-residual bench-laplace-core bench-select bench-select-mf bench-ski bench-ski-pass bench-ski-precond bench-ski-learn bench-valla bench-ski-sources bench-valla-coverage bench-laplace-poisson bench-kernel bench-laplace-gmm bench-ski-laplace bench-laplace-birthwt bench-threads

all: install

deps:
	@sh tools/deps.sh $(DEB_PACKAGES)

# The R package, installed into build/Rlib (the user library is left alone).
# --preclean: R's make does not track header dependencies, and objects built
# against an older struct layout crash at run time.
install: deps
	@mkdir -p $(RLIB)
	$(R) CMD INSTALL --preclean --no-multiarch --library=$(RLIB) .

# The README's main job: a real small analysis that writes build/demo.png.
demo: install
	R_LIBS=$(RLIB) $(RSCRIPT) inst/examples/demo.R build/demo.png

# The README's test command: every test (core C under ASan/UBSan, R, Octave).
# check-self-contained goes first: a grep, it fails in a second.
check: deps
	$(MAKE) check-self-contained
	$(MAKE) check-core
	$(MAKE) check-r
	$(MAKE) check-octave
	@echo "make check: all test layers passed"

check-core: deps
	python3 tools/function_lengths.py core cuda
	$(MAKE) -C tests/core check check-asan

# The R-vs-Octave parity tests (test-parity-*.R) run the Octave side on oct-files
# built in the source tree; here a missing Octave fails them instead of skipping.
check-r: install
	$(MAKE) -C bindings_octave/src CORE_DIR=../../core
	SCALEGP_PARITY=required R_LIBS=$(RLIB) $(RSCRIPT) tools/run_testthat.R

check-octave: deps
	sh tools/check_octave.sh

# Comments cite papers and docs/, never documents outside the repository or
# issue numbers: tools/check_self_contained.sh lists any such citation.
check-self-contained:
	sh tools/check_self_contained.sh

# The git hooks of tools/ into this clone's hooks folder (git rev-parse
# --git-path hooks: the common one for every worktree): commit-msg rejects a
# subject over 72 characters. Nothing to do outside a git checkout.
hooks:
	@if hooks=$$(git rev-parse --git-path hooks 2>/dev/null); then \
	  mkdir -p "$$hooks" && cp tools/commit-msg "$$hooks/commit-msg" && \
	  chmod +x "$$hooks/commit-msg" && echo "installed $$hooks/commit-msg"; \
	else echo "make hooks: not a git checkout; nothing installed"; fi

octave-pkg: deps
	sh tools/octave_pkg.sh

# Every bench target tees its output to build/bench/<target>.log, which starts
# with a BENCH-RUN line (target, commit, "+" for uncommitted changes, UTC time);
# bash's pipefail keeps a failing benchmark's status through the tee.
# make bench-report turns the BENCH lines of every such log into the generated
# tables of docs/benchmarks.md (tools/bench_report.R; the narrative is kept).
bench bench-%: SHELL := /bin/bash
bench bench-%: .SHELLFLAGS := -o pipefail -c
BENCH_LOG = build/bench/$@.log
BENCH_LOG_START = @mkdir -p build/bench && printf 'BENCH-RUN target=%s commit=%s%s date=%s\n' '$@' \
  "$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "$$(git status --porcelain --untracked-files=no 2>/dev/null | grep -q . && echo +)" \
  "$$(date -u +%Y-%m-%dT%H:%MZ)" > $(BENCH_LOG)
BENCH_TEE = 2>&1 | tee -a $(BENCH_LOG)

bench-report:
	$(RSCRIPT) tools/bench_report.R --out=docs/benchmarks.md $(wildcard build/bench/*.log)

# Every benchmark (about an hour on 2 cores); each also runs on its own.
bench: install
	$(BENCH_LOG_START)
	R_LIBS=$(RLIB) $(RSCRIPT) inst/bench/bench_kernel.R $(BENCH_TEE)
	$(MAKE) bench-kernel
	$(MAKE) bench-laplace
	$(MAKE) bench-laplace-budget
	$(MAKE) bench-select
	$(MAKE) bench-select-mf
	$(MAKE) bench-laplace-birthwt
	$(MAKE) bench-ski
	$(MAKE) bench-ski-learn
	$(MAKE) bench-ski-laplace
	$(MAKE) bench-valla
	$(MAKE) bench-valla-coverage
	$(MAKE) bench-threads
	$(MAKE) bench-cuda
	$(MAKE) bench-report

# GPU against 2-thread CPU (CUDA backend); says so and exits 0 without a device.
bench-cuda: deps
	$(BENCH_LOG_START)
	$(MAKE) -C inst/bench/cuda run $(BENCH_TEE)

# gp_laplace benchmarks (the experiments of Wenger et al.'s IterNCGP paper); Fashion-MNIST
# from Debian. BENCH_ARGS selects cases/options, e.g. BENCH_ARGS="--quick e2_toy".
# bench-laplace-core: the C timing driver (no R), ARGS="exact 5000 16 2".
BENCH_DEB_PACKAGES := dataset-fashion-mnist r-cran-mlbench
bench-laplace: install
	$(BENCH_LOG_START)
	@sh tools/deps.sh $(BENCH_DEB_PACKAGES)
	R_LIBS=$(RLIB) OPENBLAS_NUM_THREADS=2 $(RSCRIPT) inst/bench/bench_laplace.R $(BENCH_ARGS) $(BENCH_TEE)

# gp_laplace at small solver budgets on real data (r-cran-mlbench): accuracy,
# log loss and ECE per max_iter beside the prior and a converged fit.
bench-laplace-budget: install
	$(BENCH_LOG_START)
	@sh tools/deps.sh $(BENCH_DEB_PACKAGES)
	R_LIBS=$(RLIB) OPENBLAS_NUM_THREADS=2 $(RSCRIPT) inst/bench/bench_laplace_budget.R $(BENCH_ARGS) $(BENCH_TEE)

# gp_laplace's input scaling (option scale) on MASS::birthwt (r-cran-mass): 5-fold
# cross-validated log loss beside the intercept-only model and glm.
bench-laplace-birthwt: install
	$(BENCH_LOG_START)
	@sh tools/deps.sh r-cran-mass
	R_LIBS=$(RLIB) OPENBLAS_NUM_THREADS=2 $(RSCRIPT) inst/bench/bench_laplace_birthwt.R $(BENCH_TEE)

# gp_laplace's recursive residual (default) against residual = "explicit":
# seconds per solver iteration side by side on the softmax GMM;
# BENCH_ARGS="--per=2000 --max_iter=5 --rounds=3" (per x 10 points).
bench-laplace-residual: install
	$(BENCH_LOG_START)
	@uptime $(BENCH_TEE)
	R_LIBS=$(RLIB) OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 $(RSCRIPT) inst/bench/bench_laplace_residual.R $(BENCH_ARGS) $(BENCH_TEE)
	@uptime $(BENCH_TEE)

# Model selection in the exact mode on real data: learning time and
# held-out log loss, learned ARD hyperparameters against the fixed defaults
# (mlbench, MASS, spatstat.data). BENCH_ARGS picks sets: pima biopsy bei letters.
SELECT_DEB_PACKAGES := r-cran-mlbench r-cran-mass r-cran-spatstat.data
bench-select: install
	$(BENCH_LOG_START)
	@sh tools/deps.sh $(SELECT_DEB_PACKAGES)
	R_LIBS=$(RLIB) OPENBLAS_NUM_THREADS=2 $(RSCRIPT) inst/bench/bench_model_selection.R $(BENCH_ARGS) $(BENCH_TEE)

# The matrix-free (stochastic) evidence at n = 20000, d = 16 against exact-mode
# learning on a 5000-point subset; generated data.
bench-select-mf: install
	$(BENCH_LOG_START)
	R_LIBS=$(RLIB) OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 $(RSCRIPT) inst/bench/bench_laplace_learn_mf.R $(BENCH_ARGS) $(BENCH_TEE)

# C benchmark drivers compile the core as R compiles the package (GNU C, the
# compiler's default standard: -std=c99 turned off FMA contraction in the
# kernels' target clones and made drivers 15-25% slower than the package;
# core/kernels/target_clones.h now fixes the clones' contraction whatever the -std).
BENCH_CFLAGS := -O2 -g $(SGP_OPENMP_CFLAGS) -Wall -Wextra $(SGP_CORE_CPPFLAGS)

# Spatial Poisson counts, n = 5000: the exact mode's Newton
# step against one Cholesky, and cg iterations with and without precond_rank;
# built with R's compiler and flags, as the package is (the stagnation rule off: see
# the driver). ARGS="exact" | "solve RANK" | "cg RANK MAXIT".
bench-laplace-poisson:
	$(BENCH_LOG_START)
	@mkdir -p build
	$$($(R) CMD config CC) $$($(R) CMD config CFLAGS) $(SGP_OPENMP_CFLAGS) $(SGP_FAST_MATH_CFLAGS) \
	  -DSGP_LAPLACE_STAGNATION=1000000 $(SGP_CORE_CPPFLAGS) inst/bench/laplace_poisson_bench.c $(SGP_CORE_SRC) \
	  -o build/laplace_poisson_bench $(BENCH_LIBS)
	OPENBLAS_NUM_THREADS=2 build/laplace_poisson_bench $(ARGS) $(BENCH_TEE)

# gp_laplace softmax at the paper's budget: n = 1e5, C = 10, matrix-free, rank 10,
# 100 solver iterations, 2 threads (target: <= 15 min, <= 2 GB);
# BENCH_ARGS="per_class max_iter".
bench-laplace-gmm: install
	$(BENCH_LOG_START)
	@sh tools/deps.sh time
	@uptime $(BENCH_TEE)
	R_LIBS=$(RLIB) OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive \
	  /usr/bin/time -v $(RSCRIPT) inst/bench/bench_laplace_gmm_budget.R $(BENCH_ARGS) 2>&1 | \
	  grep -E "BENCH|Maximum resident|Elapsed" $(BENCH_TEE)
	@uptime $(BENCH_TEE)

# The matrix-free symmetric product K V against its bound on this machine:
# the DGEMM rate, the exp rate, the bound and the measured product in one
# run, n = 2e4 and 1e5, d = 2 and 16, rbf and Matern-3/2, b = 10; built as the
# package is. ARGS="reps threads n...", e.g. ARGS="3 2 20000".
bench-kernel:
	$(BENCH_LOG_START)
	@mkdir -p build
	$$($(R) CMD config CC) $$($(R) CMD config CFLAGS) $(SGP_OPENMP_CFLAGS) $(SGP_FAST_MATH_CFLAGS) \
	  $(SGP_CORE_CPPFLAGS) inst/bench/bench_kernel_bound.c $(SGP_CORE_SRC) \
	  -o build/bench_kernel_bound $(BENCH_LIBS)
	@uptime $(BENCH_TEE)
	OMP_WAIT_POLICY=passive build/bench_kernel_bound $(ARGS) $(BENCH_TEE)
	@uptime $(BENCH_TEE)

# CPU-only build of the whole core into one binary (no CUDA objects to link).
bench-laplace-core:
	$(BENCH_LOG_START)
	@mkdir -p build
	$(CC) -O2 $(SGP_OPENMP_CFLAGS) $(SGP_FAST_MATH_CFLAGS) $(SGP_CORE_CPPFLAGS) \
	  inst/bench/laplace_core_bench.c $(SGP_CORE_SRC) \
	  -o build/laplace_core_bench $(BENCH_LIBS)
	OPENBLAS_NUM_THREADS=2 build/laplace_core_bench $(ARGS) $(BENCH_TEE)

# R CMD build + R CMD check on the tarball.
rcheck: deps
	@mkdir -p build/rcheck
	cd build/rcheck && $(R) CMD build ../.. && \
	  _R_CHECK_FORCE_SUGGESTS_=false $(R) CMD check --no-manual scalegp_$(VERSION).tar.gz

# Regenerates NAMESPACE and man/ from the roxygen comments in R/.
# The options' docs come from the core's tables (R/option_docs.R): roxygen runs
# on the installed package, and tools/option_docs.R writes the Octave help blocks.
# The vignettes go to build/doc (R CMD build makes the tarball's inst/doc itself).
docs: install
	R_LIBS=$(RLIB) $(RSCRIPT) -e 'roxygen2::roxygenise(load_code = roxygen2::load_installed)'
	R_LIBS=$(RLIB) $(RSCRIPT) tools/option_docs.R
	R_LIBS=$(RLIB) $(RSCRIPT) tools/build_vignettes.R

# Fuzz runs (not part of check): bad inputs and tampered fits for every public
# function; tables of clean errors / crashes / silent garbage. FUZZ_ARGS, e.g.
# FUZZ_ARGS="--quick --filter=^gp_laplace --tsv=build/fuzz.tsv".
fuzz:
	@status=0; $(MAKE) fuzz-r || status=1; $(MAKE) fuzz-octave || status=1; exit $$status

fuzz-r: install
	R_LIBS=$(RLIB) $(RSCRIPT) inst/fuzz/fuzz_r.R $(FUZZ_ARGS)

fuzz-octave: deps
	$(MAKE) -C bindings_octave/src CORE_DIR=../../core
	octave-cli --no-gui --norc inst/fuzz/fuzz_octave.m $(FUZZ_ARGS)

clean:
	sh cleanup
	rm -rf build tests/core/bin

# valla's held-out 95% coverage on an overfitted nnet (Boston)
# beside the old hold-out default, LLA, a bootstrap of the nnet and lm; about 2 min.
# BENCH_ARGS: the number of seeded splits (5).
bench-valla-coverage: install
	$(BENCH_LOG_START)
	R_LIBS=$(RLIB) OPENBLAS_NUM_THREADS=2 $(RSCRIPT) inst/bench/bench_valla_coverage.R $(BENCH_ARGS) $(BENCH_TEE)

# VaLLA benchmarks: a C driver (inst/bench/valla/) linked against the
# core, compiled as the package (BENCH_CFLAGS) into build/bench-valla (ignored by
# git and R CMD build). VALLA_BENCH_QUICK=1 make bench-valla: smoke run (< 1 min).
# Each case runs in its own process so that its peak RSS is its own.
VALLA_BENCH := build/bench-valla
VALLA_BENCH_SRC := $(SGP_CORE_SRC) $(wildcard inst/bench/valla/*.c)
VALLA_BENCH_OBJ := $(patsubst %.c,$(VALLA_BENCH)/%.o,$(VALLA_BENCH_SRC))
VALLA_BENCH_CFLAGS := $(BENCH_CFLAGS)
$(VALLA_BENCH)/%.o: %.c $(SGP_CORE_HDR) $(wildcard inst/bench/valla/*.h)
	@mkdir -p $(@D)
	$(CC) $(VALLA_BENCH_CFLAGS) -c $< -o $@
$(patsubst %.c,$(VALLA_BENCH)/%.o,$(SGP_FAST_MATH_SRC)): VALLA_BENCH_CFLAGS += $(SGP_FAST_MATH_CFLAGS)
$(VALLA_BENCH)/bench_valla: $(VALLA_BENCH_OBJ)
	$(CC) $(SGP_OPENMP_CFLAGS) -o $@ $^ $(BENCH_LIBS)
.PHONY: bench-valla
bench-valla: deps $(VALLA_BENCH)/bench_valla
	$(BENCH_LOG_START)
	@dpkg -s dataset-fashion-mnist >/dev/null 2>&1 || sh tools/deps.sh dataset-fashion-mnist
	@uptime $(BENCH_TEE)
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 $(VALLA_BENCH)/bench_valla toy $(BENCH_TEE)
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 $(VALLA_BENCH)/bench_valla fmnist $(BENCH_TEE)
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 $(VALLA_BENCH)/bench_valla reg $(BENCH_TEE)
	@uptime $(BENCH_TEE)

# ski_gsgp benchmarks: a C driver (inst/bench/bench_ski.c) linked against the
# core, compiled as the package (BENCH_CFLAGS) into build/bench (ignored by git
# and R CMD build). SKI_BENCH_QUICK=1 make bench-ski: a smoke run (< 1 min).
SKI_BENCH := build/bench
SKI_BENCH_SRC := $(SGP_CORE_SRC) inst/bench/bench_ski.c
SKI_BENCH_OBJ := $(patsubst %.c,$(SKI_BENCH)/%.o,$(SKI_BENCH_SRC))
SKI_BENCH_CFLAGS := $(BENCH_CFLAGS)
$(SKI_BENCH)/%.o: %.c $(SGP_CORE_HDR)
	@mkdir -p $(@D)
	$(CC) $(SKI_BENCH_CFLAGS) -c $< -o $@
$(patsubst %.c,$(SKI_BENCH)/%.o,$(SGP_FAST_MATH_SRC)): SKI_BENCH_CFLAGS += $(SGP_FAST_MATH_CFLAGS)
$(SKI_BENCH)/bench_ski: $(SKI_BENCH_OBJ)
	$(CC) $(SGP_OPENMP_CFLAGS) -o $@ $^ $(BENCH_LIBS)
# Passive OpenMP waits: on a shared, oversubscribed machine spinning threads
# steal the cores the working ones need (it only makes small products slower).
bench-ski: $(SKI_BENCH)/bench_ski
	$(BENCH_LOG_START)
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive $(SKI_BENCH)/bench_ski all $(BENCH_TEE)
# The crossover of the statistics pass (tap vs moments, ski_stats_pass.c).
$(SKI_BENCH)/bench_ski_pass: $(filter-out $(SKI_BENCH)/inst/bench/bench_ski.o,$(SKI_BENCH_OBJ)) $(SKI_BENCH)/inst/bench/bench_ski_pass.o
	$(CC) $(SGP_OPENMP_CFLAGS) -o $@ $^ $(BENCH_LIBS)
# Hyperparameter learning from streamed 3-D statistics: the time of one
# optimizer step at n = 1e6 and 1e8 and the whole learning at m = 128K;
# BENCH_ARGS="1e6 1e7" picks other n.
$(SKI_BENCH)/bench_ski_learn: $(filter-out $(SKI_BENCH)/inst/bench/bench_ski.o,$(SKI_BENCH_OBJ)) $(SKI_BENCH)/inst/bench/bench_ski_learn.o
	$(CC) $(SGP_OPENMP_CFLAGS) -o $@ $^ $(BENCH_LIBS)
# ski_stats over 20 CSV files (2e7 points in 3-D; BENCH_ARGS="2e8 20 /big/dir"
# for the 2e8 run, ~8 GB of disk): sequential and 2-worker PSOCK beside the rate
# of merely reading the files; the master's peak RSS. Many small files:
# BENCH_ARGS="138000 103 /tmp/skibench grid=40x30x20 reps=3 memory read
# sequential psock future octave octave_workers" (see the script's usage).
bench-ski-sources: install
	$(BENCH_LOG_START)
	@uptime $(BENCH_TEE)
	R_LIBS=$(RLIB) $(RSCRIPT) inst/bench/bench_ski_sources.R $(BENCH_ARGS) $(BENCH_TEE)
	@uptime $(BENCH_TEE)

# ski_laplace on bei and clmfires (r-cran-spatstat.data), points layout, all
# learned: exact/eigen/slq at 64 x 32, 256 x 128 and 256 x 256, and 1024 x 512
# (BENCH_ARGS="small medium large" picks), beside t_K, one K product's time on the
# same grid (the C driver bench_ski_kg).
$(SKI_BENCH)/bench_ski_kg: $(filter-out $(SKI_BENCH)/inst/bench/bench_ski.o,$(SKI_BENCH_OBJ)) $(SKI_BENCH)/inst/bench/bench_ski_kg.o
	$(CC) $(SGP_OPENMP_CFLAGS) -o $@ $^ $(BENCH_LIBS)
# threads = 2 against 1, idle and with two busy processes (the user's OpenMP
# settings, no wait policy).
bench-threads: install
	$(BENCH_LOG_START)
	@uptime $(BENCH_TEE)
	R_LIBS=$(RLIB) $(RSCRIPT) inst/bench/bench_threads.R $(BENCH_ARGS) $(BENCH_TEE)
	@uptime $(BENCH_TEE)

bench-ski-laplace: install $(SKI_BENCH)/bench_ski_kg
	$(BENCH_LOG_START)
	@uptime $(BENCH_TEE)
	R_LIBS=$(RLIB) OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive $(RSCRIPT) inst/bench/bench_ski_laplace.R $(SKI_BENCH)/bench_ski_kg $(BENCH_ARGS) $(BENCH_TEE)
	@uptime $(BENCH_TEE)

bench-ski-learn: $(SKI_BENCH)/bench_ski_learn
	$(BENCH_LOG_START)
	@uptime $(BENCH_TEE)
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive $(SKI_BENCH)/bench_ski_learn $(BENCH_ARGS) $(BENCH_TEE)
	@uptime $(BENCH_TEE)
bench-ski-pass: $(SKI_BENCH)/bench_ski_pass
	$(BENCH_LOG_START)
	@uptime $(BENCH_TEE)
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive $(SKI_BENCH)/bench_ski_pass $(BENCH_TEE)
	@uptime $(BENCH_TEE)
# One K_G product with FFTW_ESTIMATE plans (the deterministic default) against
# FFTW_MEASURE ones, side by side; BENCH_ARGS="rounds reps".
$(SKI_BENCH)/bench_ski_planner: $(filter-out $(SKI_BENCH)/inst/bench/bench_ski.o,$(SKI_BENCH_OBJ)) $(SKI_BENCH)/inst/bench/bench_ski_planner.o
	$(CC) $(SGP_OPENMP_CFLAGS) -o $@ $^ $(BENCH_LIBS)
.PHONY: bench-ski-planner
bench-ski-planner: $(SKI_BENCH)/bench_ski_planner
	$(BENCH_LOG_START)
	@uptime $(BENCH_TEE)
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive $(SKI_BENCH)/bench_ski_planner $(BENCH_ARGS) $(BENCH_TEE)
	@uptime $(BENCH_TEE)
# First-call latency of ski_gsgp against a warm call, and the per-iteration time
# (FFTW planning effort); BENCH_ARGS="--libs=old/Rlib,build/Rlib --rounds=5"
# compares two installed builds side by side.
.PHONY: bench-ski-first
bench-ski-first: install
	$(BENCH_LOG_START)
	@uptime $(BENCH_TEE)
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive R_LIBS=$(RLIB) $(RSCRIPT) inst/bench/bench_ski_first_call.R $(BENCH_ARGS) $(BENCH_TEE)
	@uptime $(BENCH_TEE)
# ski_gsgp precond_rank on the demo's 1e6-point panel (demo noise, then a harder one).
bench-ski-precond: install
	$(BENCH_LOG_START)
	@uptime $(BENCH_TEE)
	OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive R_LIBS=$(RLIB) $(RSCRIPT) inst/bench/bench_ski_precond.R $(BENCH_TEE)
	OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive NOISE=0.001 MAX_ITER=20000 R_LIBS=$(RLIB) $(RSCRIPT) inst/bench/bench_ski_precond.R $(BENCH_TEE)
	OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive R_LIBS=$(RLIB) $(RSCRIPT) inst/bench/bench_ski_precond_3d.R $(BENCH_TEE)
	@uptime $(BENCH_TEE)
