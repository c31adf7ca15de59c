/* cuda_loader.c -- the CUDA backend, loaded on first use. A build with
 * SGP_HAVE_CUDA compiles cuda/ into a separate shared object (scalegp_cuda.so,
 * installed beside the library that holds the core: the R package's libs/,
 * the oct-files' folder, a test binary's folder; $SGP_CUDA_PLUGIN overrides).
 * The core links no CUDA library: cudart, cuBLAS and cuFFT are mapped only
 * when the plugin is opened, which happens only where an NVIDIA driver is
 * present (so "auto" on a machine without one costs nothing: they add ~220 MiB
 * to a process's peak RSS) or when a test opens it explicitly. */
#define _GNU_SOURCE /* dladdr */
#include "runtime/sgp_internal.h"

#ifdef SGP_HAVE_CUDA
#include "backend/cuda_plugin.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int state;        /* 0 not tried, 1 loaded, -1 failed */
static sgp_cuda_api api;
static char why[600];

/* The plugin's path: $SGP_CUDA_PLUGIN, else beside the module holding this code. */
static void plugin_path(char *buf, size_t n)
{
  const char *env = getenv("SGP_CUDA_PLUGIN");
  Dl_info info;
  if (env && *env) {
    snprintf(buf, n, "%s", env);
  } else if (dladdr((void *)&plugin_path, &info) && info.dli_fname) {
    const char *slash = strrchr(info.dli_fname, '/');
    const int dir = slash ? (int)(slash - info.dli_fname) : 1;
    snprintf(buf, n, "%.*s/%s", dir, slash ? info.dli_fname : ".", SGP_CUDA_PLUGIN_FILE);
  } else {
    snprintf(buf, n, "%s", SGP_CUDA_PLUGIN_FILE);
  }
}

int sgp_cuda_plugin_open(const char *path, sgp_cuda_api *out, char *msg, size_t n)
{
  static const sgp_cuda_host host = {sgp_vfail, sgp_poll_interrupt, sgp_progress,
                                     sgp_op_destroy, sgp_ski_grid_op_circulant,
                                     sgp_ski_stats_op};
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    snprintf(msg, n, "the CUDA backend could not be loaded: %s", dlerror());
    return SGP_ECUDA;
  }
  sgp_cuda_plugin_init_fn init;
  *(void **)&init = dlsym(h, SGP_CUDA_PLUGIN_INIT); /* object to function pointer */
  if (!init || init(SGP_CUDA_PLUGIN_ABI, &host, out) != 0) {
    snprintf(msg, n, "the CUDA backend %s is not this build's (%s)", path,
             init ? "another interface version" : "no entry point");
    dlclose(h);
    return SGP_ECUDA;
  }
  return SGP_OK; /* never closed: operators may hold its functions */
}

/* An NVIDIA driver: Linux's /proc entry or device node, WSL2's /dev/dxg. */
static int driver_present(void)
{
  return access("/proc/driver/nvidia/version", R_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0 ||
         access("/dev/dxg", F_OK) == 0;
}

/* Loads once per process (the planner lock's idea: one named critical section). */
static int load(void)
{
#ifdef _OPENMP
#pragma omp critical(sgp_cuda_loader)
#endif
  if (state == 0) {
    char path[512];
    plugin_path(path, sizeof path);
    if (!driver_present()) {
      snprintf(why, sizeof why, "no NVIDIA driver on this machine");
      state = -1;
    } else {
      state = sgp_cuda_plugin_open(path, &api, why, sizeof why) == SGP_OK ? 1 : -1;
    }
  }
  return state == 1;
}

int sgp_cuda_built(void) { return 1; }
int sgp_cuda_device_count(void) { return load() ? api.device_count() : 0; }
const char *sgp_cuda_unavailable(void) { return load() ? NULL : why; }

/* Reached only after sgp_backend_use_cuda chose the GPU (the plugin is loaded). */
static int not_loaded(sgp_ctx *ctx)
{
  return sgp_fail(ctx, SGP_ECUDA, "backend: %s", load() ? "?" : why);
}

int sgp_cuda_op_dense_kernel(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *prep,
                             double shift, sgp_op *op)
{
  return load() ? api.op_dense_kernel(ctx, k, prep, shift, op) : not_loaded(ctx);
}
int sgp_cuda_op_ski_grid(sgp_ctx *ctx, const sgp_op *kg, sgp_op *op)
{
  return load() ? api.op_ski_grid(ctx, kg, op) : not_loaded(ctx);
}
int sgp_cuda_op_ski_grid_take(sgp_ctx *ctx, sgp_op *kg, sgp_op *op)
{
  return load() ? api.op_ski_grid_take(ctx, kg, op) : not_loaded(ctx);
}
int sgp_cuda_op_ski_stencil(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_op *op)
{
  return load() ? api.op_ski_stencil(ctx, st, op) : not_loaded(ctx);
}
#else
typedef int sgp_cuda_loader_empty; /* ISO C: no empty translation unit */
#endif
