/* kernel_grad.c -- the kernel's derivatives contracted with a weight matrix,
 * sum_ik G_ik dK_ik/dtheta for every kernel coordinate in one pass over the
 * pairs (spec model_selection.md §1-§3): a gradient of the evidence is a few
 * solves plus this pass, not one pass per hyperparameter. With k = s phi(r):
 *   dk/dlog l_j = psi (x_j - x'_j)^2 / l_j^2 (psi = sgp_kernel_psi, from k),
 *   dk/dlog s   = k,
 * so the kernel values already in K are reused and no exp is evaluated. */
#include "kernels.h"

#include <stdlib.h>

int sgp_kernel_grad_dense(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, const double *K,
                          const double *G, int64_t ldg, double *grad)
{
  const int64_t n = X.rows, d = X.cols, nl = k->n_lengthscale, np = nl + 1;
  const int nt = sgp_ctx_threads(ctx);
  double *part = sgp_calloc(n * np), *inv = sgp_alloc(d), *scratch = sgp_alloc(d * nt);
  if (!part || !inv || !scratch) {
    free(part); free(inv); free(scratch);
    return sgp_fail(ctx, SGP_ENOMEM, "kernel gradient: out of memory");
  }
  for (int64_t j = 0; j < d; j++) inv[j] = 1.0 / k->lengthscale[nl == 1 ? 0 : j];
  /* Column c sums the pairs i >= c in a fixed order: the result does not depend
   * on the thread count. */
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt)
  for (int64_t c = 0; c < n; c++) {
    double *pc = part + c * np, *buf = scratch + d * sgp_thread_num();
    for (int64_t i = c; i < n; i++) {
      double r2 = 0.0;
      for (int64_t j = 0; j < d; j++) {
        const double t = (X.data[i + j * X.ld] - X.data[c + j * X.ld]) * inv[j];
        buf[j] = t * t;
        r2 += buf[j];
      }
      const double kv = K[i + c * n], psi = sgp_kernel_psi(k->kind, kv, r2);
      const double w = (i == c ? 1.0 : 2.0) * G[i + c * ldg];
      if (nl == 1) pc[0] += w * psi * r2;
      else for (int64_t j = 0; j < d; j++) pc[j] += w * psi * buf[j];
      pc[nl] += w * kv;
    }
  }
  for (int64_t p = 0; p < np; p++) grad[p] = 0.0;
  for (int64_t c = 0; c < n; c++)
    for (int64_t p = 0; p < np; p++) grad[p] += part[c * np + p];
  free(part);
  free(inv);
  free(scratch);
  return sgp_poll_interrupt(ctx);
}
