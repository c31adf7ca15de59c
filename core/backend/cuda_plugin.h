/* cuda_plugin.h -- the interface between the C core and the CUDA backend's
 * shared object (scalegp_cuda.so, built from cuda/ beside the package's own
 * library and opened on first use by backend/cuda_loader.c). The core hands the
 * plugin the few core functions its operators call (host); the plugin fills in
 * its entry points (api). Nothing else crosses: a CPU-only process never maps
 * cudart, cuBLAS or cuFFT. */
#ifndef SGP_CUDA_PLUGIN_H
#define SGP_CUDA_PLUGIN_H

#include <stdarg.h>
#include <stddef.h>

#include "runtime/cuda_backend.h"
#include "kernels/kernels.h"
#include "ski/ski.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever either struct changes: a plugin of another build is refused. */
#define SGP_CUDA_PLUGIN_ABI 1
#define SGP_CUDA_PLUGIN_FILE "scalegp_cuda.so"
#define SGP_CUDA_PLUGIN_INIT "sgp_cuda_plugin_init"

typedef struct {
  int (*vfail)(sgp_ctx *ctx, int code, const char *fmt, va_list ap);
  int (*poll_interrupt)(sgp_ctx *ctx);
  void (*progress)(sgp_ctx *ctx, const char *task, double fraction);
  void (*op_destroy)(sgp_op *op);
  int (*ski_grid_op_circulant)(const sgp_op *op, sgp_ski_circulant *c);
  int (*ski_stats_op)(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_op *op);
} sgp_cuda_host;

typedef struct {
  int (*device_count)(void);
  int (*op_dense_kernel)(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *prep, double shift,
                         sgp_op *op);
  int (*op_ski_grid)(sgp_ctx *ctx, const sgp_op *kg, sgp_op *op);
  int (*op_ski_grid_take)(sgp_ctx *ctx, sgp_op *kg, sgp_op *op);
  int (*op_ski_stencil)(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_op *op);
} sgp_cuda_api;

/* The plugin's one exported symbol: 0 on success, -1 for another ABI. */
typedef int (*sgp_cuda_plugin_init_fn)(int abi, const sgp_cuda_host *host, sgp_cuda_api *api);

/* backend/cuda_loader.c: opens the plugin at path and fills *api (SGP_OK), else
 * SGP_ECUDA with the reason in msg (n bytes). The core's loader calls it once;
 * tests call it directly. */
int sgp_cuda_plugin_open(const char *path, sgp_cuda_api *api, char *msg, size_t n);

#ifdef __cplusplus
}
#endif

#endif
