/* cuda_device.cu -- the plugin's entry (sgp_cuda_plugin_init, cuda_plugin.h),
 * device discovery, and the core functions its operators call, forwarded to
 * the host's (the plugin links no core code). A machine without a driver or a
 * device reports 0 devices, never an error: the CPU path is used. */
#include <cuda_runtime.h>

extern "C" {
#include "backend/cuda_plugin.h"
#include "runtime/sgp_internal.h"
#include "kernels/kernels.h"
#include "ski/ski.h"
}

int cuda_op_dense_kernel(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *prep, double shift,
                         sgp_op *op);
int cuda_op_ski_grid(sgp_ctx *ctx, const sgp_op *kg, sgp_op *op);
int cuda_op_ski_grid_take(sgp_ctx *ctx, sgp_op *kg, sgp_op *op);
int cuda_op_ski_stencil(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_op *op);

static sgp_cuda_host host;

extern "C" {
int sgp_fail(sgp_ctx *ctx, int code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  const int st = host.vfail(ctx, code, fmt, ap);
  va_end(ap);
  return st;
}
int sgp_poll_interrupt(sgp_ctx *ctx) { return host.poll_interrupt(ctx); }
void sgp_progress(sgp_ctx *ctx, const char *task, double f) { host.progress(ctx, task, f); }
void sgp_op_destroy(sgp_op *op) { host.op_destroy(op); }
int sgp_ski_grid_op_circulant(const sgp_op *op, sgp_ski_circulant *c)
{
  return host.ski_grid_op_circulant(op, c);
}
int sgp_ski_stats_op(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_op *op)
{
  return host.ski_stats_op(ctx, st, op);
}
}

static int device_count(void)
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError(); /* clear the sticky "no driver" error */
    return 0;
  }
  return count;
}

extern "C" __attribute__((visibility("default"))) int
sgp_cuda_plugin_init(int abi, const sgp_cuda_host *h, sgp_cuda_api *api)
{
  if (abi != SGP_CUDA_PLUGIN_ABI) return -1;
  host = *h;
  api->device_count = device_count;
  api->op_dense_kernel = cuda_op_dense_kernel;
  api->op_ski_grid = cuda_op_ski_grid;
  api->op_ski_grid_take = cuda_op_ski_grid_take;
  api->op_ski_stencil = cuda_op_ski_stencil;
  return 0;
}
