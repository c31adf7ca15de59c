/* kernel_grad.c -- the kernel's derivatives contracted with a weight matrix,
 * sum_ik G_ik dK_ik/dtheta for every kernel coordinate in one pass over the
 * pairs (spec model_selection.md §1-§3): a gradient of the evidence is a few
 * solves plus this pass, not one pass per hyperparameter.
 *
 * For k = s phi(r), r^2 = sum_j (x_j - x'_j)^2 / l_j^2:
 *   dk/dlog l_j = s psi(r) (x_j - x'_j)^2 / l_j^2,  psi = -2 dphi/d(r^2),
 *   dk/dlog s   = k. */
#include "kernels.h"

#include <math.h>
#include <stdlib.h>

/* phi(r) and psi(r) of each kernel (sgp_kernel_kind) at r = sqrt(r2). */
static void phi_psi(sgp_kernel_kind kind, double r2, double *phi, double *psi)
{
  const double r = sqrt(r2), s3 = 1.7320508075688772935, s5 = 2.2360679774997896964;
  switch (kind) {
  case SGP_KERNEL_RBF: *phi = exp(-0.5 * r2); *psi = *phi; break;
  case SGP_KERNEL_MATERN12: /* psi = e^-r / r; its factor (dx/l)^2 <= r^2 keeps r -> 0 at 0 */
    *phi = exp(-r); *psi = r > 0 ? *phi / r : 0.0; break;
  case SGP_KERNEL_MATERN32: {
    const double e = exp(-s3 * r);
    *phi = (1.0 + s3 * r) * e; *psi = 3.0 * e; break;
  }
  default: {
    const double e = exp(-s5 * r);
    *phi = (1.0 + s5 * r + 5.0 * r2 / 3.0) * e; *psi = (5.0 / 3.0) * (1.0 + s5 * r) * e; break;
  }
  }
}

int sgp_kernel_grad_dense(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, const double *G,
                          int64_t ldg, double *grad)
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
      double phi, psi;
      phi_psi(k->kind, r2, &phi, &psi);
      const double w = (i == c ? 1.0 : 2.0) * G[i + c * ldg] * k->outputscale;
      if (nl == 1) pc[0] += w * psi * r2;
      else for (int64_t j = 0; j < d; j++) pc[j] += w * psi * buf[j];
      pc[nl] += w * phi;
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
