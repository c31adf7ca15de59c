/* backend.c -- which backend runs a computation. The CPU-only stand-ins for the
 * CUDA queries live here; a build with SGP_HAVE_CUDA takes them from
 * cuda_loader.c (the backend's shared object, opened on first use). */
#include "runtime/sgp_internal.h"

#ifndef SGP_HAVE_CUDA
int sgp_cuda_built(void) { return 0; }
int sgp_cuda_device_count(void) { return 0; }
const char *sgp_cuda_unavailable(void) { return "this build has no CUDA backend"; }
#endif

int sgp_backend_use_cuda(sgp_ctx *ctx, int *use_cuda)
{
  *use_cuda = 0;
  switch (ctx->backend) {
  case SGP_BACKEND_CPU: return SGP_OK;
  case SGP_BACKEND_CUDA:
    if (!sgp_cuda_built())
      return sgp_fail(ctx, SGP_EUNSUPPORTED,
                      "backend: \"cuda\" was requested but this build has no CUDA backend "
                      "(install with nvcc available, or configure --with-cuda=PATH)");
    if (sgp_cuda_device_count() <= 0) {
      const char *why = sgp_cuda_unavailable();
      return sgp_fail(ctx, SGP_ECUDA,
                      "backend: \"cuda\" was requested but no CUDA device was found%s%s%s",
                      why ? " (" : "", why ? why : "", why ? ")" : "");
    }
    *use_cuda = 1;
    return SGP_OK;
  case SGP_BACKEND_AUTO:
    if (sgp_cuda_built()) {
      *use_cuda = sgp_cuda_device_count() > 0;
      if (!*use_cuda) sgp_say(ctx, "backend \"auto\": no CUDA device found, using the CPU");
    }
    return SGP_OK;
  default:
    return sgp_fail(ctx, SGP_EINVAL, "backend: unknown backend %d", (int)ctx->backend);
  }
}
