# scalegp developer entry points. `make demo` and `make check` are the two
# commands of the README: both install missing Debian packages first.
R ?= R
RSCRIPT ?= Rscript
RLIB := build/Rlib
VERSION := $(shell sed -n 's/^Version: *//p' DESCRIPTION)
DEB_PACKAGES := make gcc pkg-config r-base-dev r-cran-testthat r-cran-roxygen2 \
  r-cran-nnet octave liboctave-dev libfftw3-dev libopenblas-dev libcmocka-dev

.PHONY: all deps install demo check check-core check-r check-octave bench bench-cuda bench-ski \
  octave-pkg rcheck docs clean

all: install

deps:
	@sh tools/deps.sh $(DEB_PACKAGES)

# The R package, installed into build/Rlib (the user library is left alone).
install: deps
	@mkdir -p $(RLIB)
	$(R) CMD INSTALL --no-multiarch --library=$(RLIB) .

# The README's main job: a real small analysis that writes build/demo.png.
demo: install
	R_LIBS=$(RLIB) $(RSCRIPT) inst/examples/demo.R build/demo.png

# The README's test command: every test (core C under ASan/UBSan, R, Octave).
check: deps
	$(MAKE) check-core
	$(MAKE) check-r
	$(MAKE) check-octave
	@echo "make check: all test layers passed"

check-core: deps
	$(MAKE) -C tests/core check check-asan

check-r: install
	R_LIBS=$(RLIB) $(RSCRIPT) tools/run_testthat.R

check-octave: deps
	sh tools/check_octave.sh

octave-pkg: deps
	sh tools/octave_pkg.sh

bench: install
	R_LIBS=$(RLIB) $(RSCRIPT) inst/bench/bench_kernel.R

# GPU against 2-thread CPU (CUDA backend); says so and exits 0 without a device.
bench-cuda: deps
	$(MAKE) -C inst/bench/cuda run

# R CMD build + R CMD check on the tarball (acceptance of the R package).
rcheck: deps
	@mkdir -p build/rcheck
	cd build/rcheck && $(R) CMD build ../.. && \
	  _R_CHECK_FORCE_SUGGESTS_=false $(R) CMD check --no-manual scalegp_$(VERSION).tar.gz

# Regenerates NAMESPACE and man/ from the roxygen comments in R/.
docs:
	$(RSCRIPT) -e 'roxygen2::roxygenise(load_code = "source")'

clean:
	sh cleanup
	rm -rf build tests/core/bin

# ski_gsgp benchmarks: a C driver (inst/bench/bench_ski.c) linked against the
# core, compiled with the flags of tests/core into build/bench (ignored by git
# and R CMD build). SKI_BENCH_QUICK=1 make bench-ski: a smoke run (< 1 min).
SKI_BENCH := build/bench
SKI_BENCH_SRC := $(shell find core -name '*.c') inst/bench/bench_ski.c
SKI_BENCH_OBJ := $(patsubst %.c,$(SKI_BENCH)/%.o,$(SKI_BENCH_SRC))
SKI_BENCH_CFLAGS := -std=c99 -O2 -g -fopenmp -Wall -Wextra -Icore/include -Icore
$(SKI_BENCH)/%.o: %.c $(wildcard core/*.h core/*/*.h core/include/*.h)
	@mkdir -p $(@D)
	$(CC) $(SKI_BENCH_CFLAGS) -c $< -o $@
$(SKI_BENCH)/core/kernels.o: SKI_BENCH_CFLAGS += -fno-math-errno -fno-trapping-math
$(SKI_BENCH)/bench_ski: $(SKI_BENCH_OBJ)
	$(CC) -fopenmp -o $@ $^ $$(pkg-config --libs fftw3) -llapack -lblas -lm
# Passive OpenMP waits: on a shared, oversubscribed machine spinning threads
# steal the cores the working ones need (it only makes small products slower).
bench-ski: $(SKI_BENCH)/bench_ski
	OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=passive $(SKI_BENCH)/bench_ski all
