#!/bin/sh
# Finds a CUDA toolkit that can build and link the backend in this directory.
# Prints "NVCC LIBDIR" on one line when it can, nothing otherwise (a CPU
# build). One answer for every build: configure (R), the Octave Makefile, the
# core tests and the GPU benchmark all ask this script.
#   sh cuda_config.sh [CUDA_HOME]     honours $SGP_CUDA=no, $CUDA_HOME, $CC
# The toolkit's home is asked of nvcc itself (its TOP), because nvcc on PATH
# may be a wrapper script far from the libraries.
test "${SGP_CUDA:-}" = no && exit 0
CC=${CC:-cc}

candidates=""
test -n "${1:-}" && candidates="$1/bin/nvcc"
test -n "${CUDA_HOME:-}" && candidates="$candidates ${CUDA_HOME}/bin/nvcc"
on_path=`command -v nvcc 2>/dev/null`
test -n "$on_path" && candidates="$candidates $on_path"
candidates="$candidates /usr/local/cuda/bin/nvcc"

tmp=`mktemp -d 2>/dev/null || echo /tmp/scalegp-cuda.$$`
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/conftest.cu" <<'EOC'
#include <cublas_v2.h>
#include <cufft.h>
extern "C" int conftest(void) { int n = 0; cublasHandle_t h; (void)h; return cudaGetDeviceCount(&n); }
EOC
echo 'int conftest(void); int main(void) { return conftest() < -1; }' > "$tmp/main.c"

for nvcc in $candidates; do
  test -x "$nvcc" || continue
  top=`"$nvcc" --dryrun -c "$tmp/conftest.cu" 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n 1`
  test -n "$top" || top=`dirname "$nvcc"`/..
  "$nvcc" -O0 -Xcompiler -fPIC -c "$tmp/conftest.cu" -o "$tmp/conftest.o" >/dev/null 2>&1 || continue
  for lib in "$top/lib64" "$top/lib" "$top/targets/x86_64-linux/lib"; do
    test -e "$lib/libcudart.so" || continue
    lib=`cd "$lib" && pwd -P`
    if $CC "$tmp/main.c" "$tmp/conftest.o" -o "$tmp/conftest" \
         -L"$lib" -Wl,-rpath,"$lib" -lcufft -lcublas -lcudart -lstdc++ >/dev/null 2>&1; then
      echo "$nvcc $lib"
      exit 0
    fi
  done
done
exit 0
