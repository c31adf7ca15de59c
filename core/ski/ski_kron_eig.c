/* ski_kron_eig.c -- the exact eigen-decomposition of a separable grid kernel
 * K_G = s T_d x ... x T_1 (Kronecker of the unit-scale Toeplitz factors) for
 * the preconditioned log-likelihood of ski_loglik_eig.c:
 *   K_G = Q Lambda Q',  Q = Q_d x ... x Q_1,  Lambda = s mu_d x ... x mu_1,
 * from one small dense eigen-decomposition per dimension, and the derivative
 * of K_G^{1/2} = Q Lambda^{1/2} Q' in a log lengthscale, in the eigenbasis
 * (Daleckii-Krein): Q_j'(d T_j^{1/2})Q_j = (Q_j' dT_j Q_j) o G_j with
 * G_j[a,b] = 1 / (sqrt(mu_a) + sqrt(mu_b)). Products with Q are mode-by-mode
 * dense products (BLAS-3). */
#include "ski/ski.h"
#include "kernels/kernels.h"
#include "kernels/kernel_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Factor eigenvalues below this fraction of the largest are rounding (the
 * RBF's fall to 1e-16 and below, some negative): they are set to 0, which
 * changes K_G by at most that fraction of its norm, and keeps 1/(sqrt(mu_a) +
 * sqrt(mu_b)) from amplifying the rounding of Q_j' dT_j Q_j. */
#define MU_FLOOR 1e-14
/* Columns per dense product along the first dimension: a fixed split, so the
 * bits do not depend on the thread count. */
#define COL_CHUNK 256

int sgp_ski_kron_eig_fits(const sgp_kernel *k, const sgp_ski_grid *g, int64_t dim_max)
{
  int nontrivial = 0;
  for (int j = 0; j < g->d; j++) {
    if (g->m[j] > dim_max) return 0;
    nontrivial += g->m[j] > 1;
  }
  return sgp_kernel_info_of(k->kind)->separable || nontrivial <= 1;
}

int sgp_ski_kron_eig_applies(const sgp_kernel *k, const sgp_ski_grid *g)
{
  return sgp_ski_kron_eig_fits(k, g, SGP_SKI_KRON_EIG_DIM_MAX);
}

void sgp_ski_kron_eig_free(sgp_ski_kron_eig *ke)
{
  for (int j = 0; j < SGP_SKI_MAX_D; j++) { free(ke->Q[j]); free(ke->mu[j]); free(ke->dR[j]); }
  memset(ke, 0, sizeof *ke);
}

/* Each eigenvector's sign is LAPACK's choice, which may flip between nearby
 * lengthscales. Probes keyed by eigen index (the eigen paths' common random
 * numbers) would then meet another sign pattern, and the estimated
 * log-determinant would jump between neighbouring hyperparameters. The sign is
 * fixed by the first entry, which for the Toeplitz factors' eigenvectors moves
 * continuously with the lengthscale (the first moment decides where it is 0). */
static void fix_signs(int64_t m, double *Q)
{
  for (int64_t b = 0; b < m; b++) {
    double *q = Q + b * m, key = q[0];
    if (fabs(key) < 1e-10) {
      key = 0.0;
      for (int64_t i = 0; i < m; i++) key += (double)(i + 1) * q[i];
    }
    if (key < 0.0)
      for (int64_t i = 0; i < m; i++) q[i] = -q[i];
  }
}

/* One dimension: Q_j, mu_j and the eigenbasis derivative dR_j of T_j^{1/2}. */
static int factor(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g, int j,
                  sgp_ski_kron_eig *ke)
{
  const int64_t m = g->m[j];
  const double ell = k->lengthscale[k->n_lengthscale == 1 ? 0 : j];
  double *Q = sgp_alloc(m * m), *mu = sgp_alloc(m), *dR = sgp_alloc(m * m),
         *D = sgp_alloc(m * m), *t = sgp_alloc(2 * m);
  ke->Q[j] = Q; ke->mu[j] = mu; ke->dR[j] = dR;
  int code = SGP_OK;
  if (!Q || !mu || !dR || !D || !t) {
    code = sgp_fail(ctx, SGP_ENOMEM, "out of memory for the kernel's eigenvectors");
    goto done;
  }
  for (int64_t i = 0; i < m; i++) {
    const double z = (double)i * g->h[j] / ell;
    t[i] = sgp_kernel_value_r2(k, 1.0, z * z);
    t[m + i] = sgp_kernel_dlogell_r2(k, 1.0, z * z, z * z);
  }
  for (int64_t b = 0; b < m; b++)
    for (int64_t a = 0; a < m; a++) {
      Q[a + b * m] = t[a > b ? a - b : b - a];
      D[a + b * m] = t[m + (a > b ? a - b : b - a)];
    }
  if ((code = sgp_syev(ctx, m, Q, m, mu))) goto done;
  fix_signs(m, Q);
  const double floor = MU_FLOOR * mu[m - 1];
  for (int64_t i = 0; i < m; i++) if (!(mu[i] > floor)) mu[i] = 0.0;
  /* dR = (Q' D Q) o G */
  if ((code = sgp_gemm(ctx, 'T', 'N', m, m, m, 1.0, Q, m, D, m, 0.0, dR, m))) goto done;
  if ((code = sgp_gemm(ctx, 'N', 'N', m, m, m, 1.0, dR, m, Q, m, 0.0, D, m))) goto done;
  for (int64_t b = 0; b < m; b++)
    for (int64_t a = 0; a < m; a++) {
      const double den = sqrt(mu[a]) + sqrt(mu[b]);
      dR[a + b * m] = den > 0 ? 0.5 * (D[a + b * m] + D[b + a * m]) / den : 0.0;
    }
done:
  free(D);
  free(t);
  return code;
}

int sgp_ski_kron_eig_make(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                          sgp_ski_kron_eig *ke)
{
  int code;
  memset(ke, 0, sizeof *ke);
  if ((code = sgp_kernel_check(ctx, k, g->d))) return code;
  if (!sgp_ski_kron_eig_fits(k, g, SGP_SKI_KRON_EIG_HARD_MAX))
    return sgp_fail(ctx, SGP_EINVAL, "kernel: no Kronecker eigen-decomposition for %s on this "
                    "grid", sgp_kernel_name(k->kind));
  ke->d = g->d;
  ke->mtot = sgp_ski_grid_npoints(g);
  ke->scale = k->outputscale;
  for (int j = 0; j < g->d; j++) ke->m[j] = g->m[j];
  const int blas = sgp_blas_serial_begin();
  for (int j = 0; j < g->d && !code; j++)
    if (g->m[j] > 1) code = factor(ctx, k, g, j, ke);
  sgp_blas_serial_end(blas);
  if (code) sgp_ski_kron_eig_free(ke);
  return code;
}

/* sqrt of the product of the factor eigenvalues of every dimension but skip
 * (-1: all), for each grid index (first dimension fastest). */
static void sqrt_products(const sgp_ski_kron_eig *ke, int skip, double *out)
{
  int64_t sub[SGP_SKI_MAX_D] = {0};
  for (int64_t i = 0; i < ke->mtot; i++) {
    double p = 1.0;
    for (int j = 0; j < ke->d; j++)
      if (j != skip && ke->mu[j]) p *= ke->mu[j][sub[j]];
    out[i] = sqrt(p);
    sgp_ski_sub_next(sub, ke->m, ke->d);
  }
}

void sgp_ski_kron_eig_sqrt_values(const sgp_ski_kron_eig *ke, double *lamh)
{
  sqrt_products(ke, -1, lamh);
  const double rs = sqrt(ke->scale);
  for (int64_t i = 0; i < ke->mtot; i++) lamh[i] *= rs;
}

/* Mode j of a block (cols columns of mtot): B = A x_j op(F). Along the first
 * dimension the block is one m_j-by-(rest) matrix, split in fixed column
 * chunks; further out it is slabs of S-by-m_j matrices, one product each. */
static void mode_product(int nt, int64_t mj, const double *F, char trans, int64_t S,
                         int64_t total, const double *A, double *B, sgp_ctx *ctx)
{
  (void)nt;
  if (S == 1) {
    const int64_t cols = total / mj, chunks = (cols + COL_CHUNK - 1) / COL_CHUNK;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t c = 0; c < chunks; c++) {
      const int64_t c0 = c * COL_CHUNK, nc = cols - c0 < COL_CHUNK ? cols - c0 : COL_CHUNK;
      (void)sgp_gemm(ctx, trans, 'N', mj, nc, mj, 1.0, F, mj, A + c0 * mj, mj, 0.0,
                     B + c0 * mj, mj);
    }
    return;
  }
  const int64_t slabs = total / (S * mj);
  const char tb = trans == 'N' ? 'T' : 'N';
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t p = 0; p < slabs; p++)
    (void)sgp_gemm(ctx, 'N', tb, S, mj, mj, 1.0, A + p * S * mj, S, F, mj, 0.0,
                   B + p * S * mj, S);
}

int sgp_ski_kron_eig_apply(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, double *const *F,
                           char trans, int64_t cols, const double *X, double *Y, double *work)
{
  const int64_t total = ke->mtot * cols;
  int left = 0;
  for (int j = 0; j < ke->d; j++) left += F[j] != NULL;
  if (left == 0) {
    if (X != Y) memcpy(Y, X, (size_t)total * sizeof(double));
    return SGP_OK;
  }
  /* the last product lands in Y: start in Y or work so that the ping-pong ends there */
  double *bufs[2] = {left % 2 ? Y : work, left % 2 ? work : Y};
  const int blas = sgp_blas_serial_begin();
  const double *in = X;
  int64_t S = 1, done = 0;
  int code = SGP_OK;
  for (int j = 0; j < ke->d; j++) {
    if (F[j]) {
      if ((code = sgp_poll_interrupt(ctx))) break;
      double *out = bufs[done % 2];
      const int nt = sgp_par_threads_blas3(ctx, 2.0 * (double)total * (double)ke->m[j]);
      mode_product(nt, ke->m[j], F[j], trans, S, total, in, out, ctx);
      in = out;
      done++;
    }
    S *= ke->m[j];
  }
  sgp_blas_serial_end(blas);
  return code;
}

int sgp_ski_kron_eig_transform(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, char trans,
                               int64_t cols, const double *X, double *Y, double *work)
{
  return sgp_ski_kron_eig_apply(ctx, ke, (double *const *)ke->Q, trans, cols, X, Y, work);
}

int sgp_ski_kron_eig_dsqrt(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, unsigned mask,
                           int64_t cols, const double *X, double *Y, double *work)
{
  const int64_t m = ke->mtot;
  double *scaled = sgp_alloc(m * cols), *w = sgp_alloc(m), *part = sgp_alloc(m * cols);
  int code = SGP_OK, first = 1;
  if (!scaled || !w || !part) {
    code = sgp_fail(ctx, SGP_ENOMEM, "out of memory for the lengthscale derivative");
    goto done;
  }
  const double rs = sqrt(ke->scale);
  for (int j = 0; j < ke->d && !code; j++) {
    if (!(mask >> j & 1u) || ke->m[j] == 1) continue; /* m_j = 1: no slope */
    double *F[SGP_SKI_MAX_D] = {NULL};
    F[j] = ke->dR[j];
    sqrt_products(ke, j, w);
    for (int64_t c = 0; c < cols; c++)
      for (int64_t i = 0; i < m; i++) scaled[i + c * m] = rs * w[i] * X[i + c * m];
    code = sgp_ski_kron_eig_apply(ctx, ke, F, 'N', cols, scaled, first ? Y : part, work);
    if (!code && !first)
      for (int64_t i = 0; i < m * cols; i++) Y[i] += part[i];
    first = 0;
  }
  if (!code && first) memset(Y, 0, (size_t)(m * cols) * sizeof(double));
done:
  free(scaled); free(w); free(part);
  return code;
}

int sgp_ski_kron_eig_diag_proxy(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, const double *d,
                                double *g)
{
  double *F[SGP_SKI_MAX_D] = {NULL}, *work = sgp_alloc(ke->mtot);
  int code = work ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int j = 0; j < ke->d && !code; j++) {
    if (!ke->Q[j]) continue;
    const int64_t mj = ke->m[j];
    if (!(F[j] = sgp_alloc(mj * mj))) code = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
    else for (int64_t i = 0; i < mj * mj; i++) F[j][i] = ke->Q[j][i] * ke->Q[j][i];
  }
  if (!code) code = sgp_ski_kron_eig_apply(ctx, ke, F, 'T', 1, d, g, work);
  for (int j = 0; j < ke->d; j++) free(F[j]);
  free(work);
  return code;
}
