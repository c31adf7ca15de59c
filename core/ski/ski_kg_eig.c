/* ski_kg_eig.c -- top eigenpairs of the grid kernel matrix K_G
 * for the low-rank preconditioner of ski_precond.c. Matrix-free: block
 * subspace iteration with Rayleigh-Ritz, so it needs only (batched) K_G
 * products and works for every kernel the grid operator supports. */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Oversampling: extra columns speed up the convergence of the q-th pair
 * (rate lam_{b+1} / lam_q per iteration with b block columns). */
static int64_t block_size(int64_t q, int64_t m)
{
  const int64_t b = q + q / 4 + 8;
  return b < m ? b : m;
}

static int kg_eig(sgp_ctx *ctx, const sgp_op *kg, int64_t q, double tol, int64_t max_iter,
                  double *V, double *lam, int64_t *iters, double *resid);

/* With a serial BLAS: a threaded OpenBLAS splits the products by its thread
 * count, which changes their bits (ski_fft.c, mode_dense). */
int sgp_ski_kg_eig(sgp_ctx *ctx, const sgp_op *kg, int64_t q, double tol, int64_t max_iter,
                   double *V, double *lam, int64_t *iters, double *resid)
{
  const int blas_threads = sgp_blas_serial_begin();
  const int code = kg_eig(ctx, kg, q, tol, max_iter, V, lam, iters, resid);
  sgp_blas_serial_end(blas_threads);
  return code;
}

static int kg_eig(sgp_ctx *ctx, const sgp_op *kg, int64_t q, double tol, int64_t max_iter,
                  double *V, double *lam, int64_t *iters, double *resid)
{
  int code = SGP_OK;
  if (!kg || !kg->apply) return sgp_fail(ctx, SGP_EINVAL, "kg: missing");
  const int64_t m = kg->n;
  if (q < 1 || q >= m)
    return sgp_fail(ctx, SGP_EINVAL,
                    "precond_rank: must be a whole number >= 0 and < the %lld grid points "
                    "(got %lld)", (long long)m, (long long)q);
  if (!V || !lam) return sgp_fail(ctx, SGP_EINVAL, "precond_rank: eigenpair output missing");
  const int64_t b = block_size(q, m);
  double *Q = sgp_alloc(m * b), *Y = sgp_alloc(m * b), *Qr = sgp_alloc(m * b),
         *Yr = sgp_alloc(m * b), *H = sgp_alloc(b * b), *w = sgp_alloc(b);
  double worst = INFINITY;
  int64_t it = 0;
  if (!Q || !Y || !Qr || !Yr || !H || !w) {
    code = sgp_fail(ctx, SGP_ENOMEM, "precond_rank: out of memory for %lld eigenvectors",
                    (long long)b);
    goto cleanup;
  }
  for (int64_t i = 0; i < m * b; i++) Y[i] = sgp_rng_normal(&ctx->rng);
  const int64_t niter = max_iter > 0 ? max_iter : 1;
  for (it = 0; it < niter; it++) {
    if ((code = sgp_poll_interrupt(ctx))) goto cleanup;
    sgp_progress(ctx, "ski_gsgp: preconditioner eigenpairs", (double)it / (double)niter);
    /* Q = orth(Y); Y = K_G Q; H = Q' K_G Q */
    memcpy(Q, Y, (size_t)(m * b) * sizeof(double));
    if ((code = sgp_orth(ctx, m, b, Q, m))) goto cleanup;
    if ((code = kg->apply(kg, sgp_cmat_of(Q, m, b), sgp_mat_of(Y, m, b), ctx))) goto cleanup;
    if ((code = sgp_gemm(ctx, 'T', 'N', b, b, m, 1.0, Q, m, Y, m, 0.0, H, b))) goto cleanup;
    for (int64_t i = 0; i < b; i++)
      for (int64_t j = 0; j < i; j++)
        H[i + j * b] = H[j + i * b] = 0.5 * (H[i + j * b] + H[j + i * b]);
    if ((code = sgp_syev(ctx, b, H, b, w))) goto cleanup;
    /* Ritz vectors in descending order: column j of U is column b-1-j of H */
    for (int64_t j = 0; j < b / 2; j++) {
      double *c1 = H + j * b, *c2 = H + (b - 1 - j) * b;
      for (int64_t i = 0; i < b; i++) { const double t = c1[i]; c1[i] = c2[i]; c2[i] = t; }
      const double t = w[j]; w[j] = w[b - 1 - j]; w[b - 1 - j] = t;
    }
    if ((code = sgp_gemm(ctx, 'N', 'N', m, b, b, 1.0, Q, m, H, b, 0.0, Qr, m))) goto cleanup;
    if ((code = sgp_gemm(ctx, 'N', 'N', m, b, b, 1.0, Y, m, H, b, 0.0, Yr, m))) goto cleanup;
    /* residuals ||K_G v_j - w_j v_j|| = ||Yr_j - w_j Qr_j|| of the kept pairs */
    worst = 0.0;
    for (int64_t j = 0; j < q; j++) {
      double s = 0.0;
      const double *qj = Qr + j * m, *yj = Yr + j * m;
      for (int64_t i = 0; i < m; i++) { const double d = yj[i] - w[j] * qj[i]; s += d * d; }
      if (sqrt(s) > worst) worst = sqrt(s);
    }
    worst = w[0] > 0 ? worst / w[0] : INFINITY;
    /* the next power step starts from K_G times the Ritz basis */
    double *t = Y; Y = Yr; Yr = t;
    if (worst <= tol) { it++; break; }
  }
  for (int64_t j = 0; j < q; j++) {
    memcpy(V + j * m, Qr + j * m, (size_t)m * sizeof(double));
    lam[j] = w[j];
  }
  if (iters) *iters = it;
  if (resid) *resid = worst;
cleanup:
  free(Q); free(Y); free(Qr); free(Yr); free(H); free(w);
  return code;
}
