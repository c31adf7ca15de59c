# core/core.mk -- how to build the C core: the one description that every build
# of it includes (GNU make): the R package (src/Makevars, written by ../configure),
# the Octave oct-files (bindings_octave/src/Makefile), the core tests
# (tests/core/Makefile) and the C benchmarks (Makefile, inst/bench/cuda/Makefile).
# A new core source is found here (every core/**/*.c); a new library is one
# lookup here and its name in SGP_CORE_LIBS.
#
# It defines variables only (no rule but sgp-config when asked for, so it changes no
# includer's default goal):
#   SGP_CORE_DIR       this folder as the includer sees it (default: found here)
#   SGP_CORE_SRC       every .c under it, sorted; SGP_CORE_HDR every .h
#   SGP_CORE_CPPFLAGS  include and define flags of every C file that sees the core
#   SGP_FAST_MATH_SRC  the sources that compile with SGP_FAST_MATH_CFLAGS on top
#   SGP_OPENMP_CFLAGS  OpenMP, for compiling and linking (R sets its own)
#   SGP_LAPACK_LIBS    LAPACK and BLAS (R and Octave set the ones they link)
#   SGP_CORE_LIBS      every library the core links
#   SGP_NVCC           nvcc when the CUDA backend is built, else empty (a CPU
#                      build); with it SGP_CUDA_DIR, SGP_CUDA_SRC, SGP_NVCC_FLAGS,
#                      SGP_CUDA_PLUGIN (scalegp_cuda.so) and the recipes
#                      SGP_NVCC_COMPILE, SGP_CUDA_PLUGIN_LINK
# Settings: SGP_CUDA=no (a CPU build), SGP_CUDA_HOME (where to look for nvcc
# first), SGP_CUDA_CFG (the answer of cuda_config.sh, when already known).
# `make -s -f core/core.mk sgp-config` prints them for shell scripts (configure).

ifeq ($(origin SGP_CORE_DIR),undefined)
SGP_CORE_DIR := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
endif
SGP_CORE_SRC := $(shell find $(SGP_CORE_DIR) -name '*.c' | LC_ALL=C sort)
SGP_CORE_HDR := $(shell find $(SGP_CORE_DIR) -name '*.h' | LC_ALL=C sort)
SGP_CORE_INC := -I$(SGP_CORE_DIR)

# kernels/kernels.c must vectorize its sqrt/exp loops (see the comment at its top).
SGP_FAST_MATH_SRC := $(SGP_CORE_DIR)/kernels/kernels.c
SGP_FAST_MATH_CFLAGS := -fno-math-errno -fno-trapping-math

SGP_OPENMP_CFLAGS ?= -fopenmp
SGP_LAPACK_LIBS ?= -llapack -lblas

# FFTW3 (the SKI operators) and NLopt (the L-BFGS of model selection):
# pkg-config first, else the plain library name.
SGP_FFTW_CFLAGS := $(shell pkg-config --cflags fftw3 2>/dev/null)
SGP_FFTW_LIBS := $(shell pkg-config --libs fftw3 2>/dev/null || echo -lfftw3)
SGP_NLOPT_CFLAGS := $(shell pkg-config --cflags nlopt 2>/dev/null)
SGP_NLOPT_LIBS := $(shell pkg-config --libs nlopt 2>/dev/null || echo -lnlopt)

# The optional CUDA backend (cuda/ beside this folder): compiled when
# cuda_config.sh finds an nvcc that builds and links a test ("nvcc libdir").
# Nothing links a CUDA library but the backend's own shared object,
# scalegp_cuda.so, which core/backend/cuda_loader.c opens on first use (-ldl).
ifeq ($(origin SGP_CUDA_DIR),undefined)
SGP_CUDA_DIR := $(dir $(SGP_CORE_DIR))cuda
endif
SGP_CUDA_SRC := $(sort $(wildcard $(SGP_CUDA_DIR)/*.cu))
ifeq ($(origin SGP_CUDA_CFG),undefined)
SGP_CUDA_CFG := $(if $(filter no,$(SGP_CUDA)),,$(if $(SGP_CUDA_SRC),$(shell \
  CC="$(CC)" sh $(SGP_CUDA_DIR)/cuda_config.sh $(SGP_CUDA_HOME))))
endif
SGP_NVCC := $(word 1,$(SGP_CUDA_CFG))
SGP_CUDA_LIB := $(word 2,$(SGP_CUDA_CFG))
SGP_CUDA_CPPFLAGS :=
SGP_CUDA_LDLIBS :=
SGP_CUDA_PLUGIN :=
ifneq ($(SGP_NVCC),)
SGP_CUDA_CPPFLAGS := -DSGP_HAVE_CUDA
SGP_CUDA_LDLIBS := -ldl
SGP_CUDA_PLUGIN := scalegp_cuda.so
endif
# SASS for Turing..Hopper plus PTX, so that newer GPUs JIT-compile the kernels.
SGP_NVCC_ARCH ?= -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
  -gencode arch=compute_90,code=sm_90 -gencode arch=compute_90,code=compute_90
SGP_NVCC_FLAGS = -O2 -std=c++17 -Xcompiler -fPIC -Xcompiler -fvisibility=hidden \
  $(SGP_NVCC_ARCH) $(SGP_CORE_INC)
SGP_CUDA_PLUGIN_LIBS = -L$(SGP_CUDA_LIB) -Wl,-rpath,$(SGP_CUDA_LIB) -lcufft -lcublas -lcudart
# Recipes: one .cu into $@; the objects of $^ into the backend's shared object.
SGP_NVCC_COMPILE = $(SGP_NVCC) $(SGP_NVCC_FLAGS) -c $< -o $@
SGP_CUDA_PLUGIN_LINK = $(CXX) -shared -Wl,-Bsymbolic -o $@ $(filter %.o,$^) $(SGP_CUDA_PLUGIN_LIBS)

SGP_CORE_CPPFLAGS = $(SGP_CORE_INC) $(SGP_FFTW_CFLAGS) $(SGP_NLOPT_CFLAGS) $(SGP_CUDA_CPPFLAGS)
SGP_CORE_LIBS = $(SGP_FFTW_LIBS) $(SGP_NLOPT_LIBS) $(SGP_LAPACK_LIBS) -lm $(SGP_CUDA_LDLIBS)

SGP_CONFIG_VARS := SGP_FFTW_CFLAGS SGP_FFTW_LIBS SGP_NLOPT_CFLAGS SGP_NLOPT_LIBS \
  SGP_NVCC SGP_CUDA_LIB SGP_CUDA_CFG
ifeq ($(MAKECMDGOALS),sgp-config)
sgp-config:
	@$(foreach v,$(SGP_CONFIG_VARS),echo "$(v)='$($(v))'";)
endif
