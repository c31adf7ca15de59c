/* valla_posterior.c -- the M x M maps P1, P2 of sgp_valla_result for a trained L
 * (P1 = R^{-1} L') and exact LLA (Z = X with all C tags;
 * the symmetric Lambda^{1/2} form for softmax). The closed form is in
 * valla_closed_form.c. */
#include "valla/valla.h"
#include "valla/valla_lik.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int valla_tri_inverse(sgp_ctx *ctx, int64_t n, const double *T, double *Ti)
{
  memset(Ti, 0, (size_t)(n * n) * sizeof(double));
  for (int64_t i = 0; i < n; i++) Ti[i + n * i] = 1.0;
  return sgp_trsm(ctx, 'L', 'L', 'N', n, n, 1.0, T, n, Ti, n);
}

int valla_kzz(sgp_ctx *ctx, const sgp_valla_result *fit, double *K)
{
  valla_cache cZ;
  int st = valla_cache_build(ctx, &fit->net, sgp_cmat_of(fit->Z, fit->M, fit->D), fit->tags, &cZ);
  if (st) return st;
  st = valla_ntk_cross(ctx, &fit->net, &cZ, &cZ, fit->layers, K, fit->M);
  valla_cache_free(&fit->net, &cZ);
  const double sc = valla_kernel_scale(fit);
  for (int64_t k = 0; k < fit->M * fit->M; k++) K[k] *= sc;
  return st;
}

int valla_fit_finalize(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X)
{
  (void)X;
  const int64_t M = fit->M;
  double *K = sgp_alloc(M * M), *H = sgp_alloc(M * M), *T = sgp_alloc(M * M);
  if (!fit->P1) fit->P1 = sgp_alloc(M * M);
  free(fit->P2);
  fit->P2 = NULL;
  fit->prior = 1;
  int st = (!K || !H || !T || !fit->P1) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory") : SGP_OK;
  if (!st) st = valla_kzz(ctx, fit, K);
  if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, K, M, fit->L, M, 0.0, T, M);
  if (!st) st = sgp_gemm(ctx, 'T', 'N', M, M, M, 1.0, fit->L, M, T, M, 0.0, H, M);
  if (!st) {
    for (int64_t i = 0; i < M; i++) H[i + M * i] += 1.0;
    st = sgp_potrf(ctx, M, H, M); /* H >= I: never fails in exact arithmetic */
  }
  if (!st) { /* P1 = R^{-1} L' */
    for (int64_t j = 0; j < M; j++)
      for (int64_t i = 0; i < M; i++) fit->P1[i + M * j] = fit->L[j + M * i];
    st = sgp_trsm(ctx, 'L', 'L', 'N', M, M, 1.0, H, M, fit->P1, M);
  }
  free(K); free(H); free(T);
  return st;
}

int valla_lla_exact(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X)
{
  const sgp_valla_net *net = &fit->net;
  const int64_t N = X.rows, C = fit->C, M = N * C, D = fit->D;
  free(fit->Z); free(fit->tags); free(fit->L); free(fit->P1); free(fit->P2);
  fit->L = fit->P2 = NULL;
  fit->M = M;
  fit->Z = sgp_alloc(M * D);
  fit->tags = (int *)malloc((size_t)M * sizeof(int));
  fit->P1 = sgp_alloc(M * M);
  double *K = sgp_alloc(M * M), *Sq = sgp_calloc(M * M), *T = sgp_alloc(M * M), *G = sgp_alloc(N * C),
         *Lam = sgp_alloc(C * C), *w = sgp_alloc(C);
  int st = (!fit->Z || !fit->tags || !fit->P1 || !K || !Sq || !T || !G || !Lam || !w)
               ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in exact LLA") : SGP_OK;
  if (!st) {
    for (int64_t c = 0; c < C; c++)
      for (int64_t i = 0; i < N; i++) {
        fit->tags[i + N * c] = (int)c;
        for (int64_t j = 0; j < D; j++) fit->Z[i + N * c + M * j] = X.data[i + X.ld * j];
      }
    st = valla_kzz(ctx, fit, K);
  }
  if (!st) st = sgp_valla_forward(ctx, net, X, sgp_mat_of(G, N, C));
  if (!st && fit->likelihood == SGP_LIK_GAUSSIAN) { /* P1 = chol(K + s I)^{-1} */
    const double s = exp(fit->log_noise);
    double kmax = 0;
    for (int64_t i = 0; i < M; i++) kmax = fmax(kmax, K[i + M * i]);
    for (int64_t i = 0; i < M; i++) K[i + M * i] += s;
    int64_t minor = 0;
    st = sgp_potrf_minor(ctx, M, K, M, &minor);
    if (!st && minor) /* K has rank <= P: s must exceed its rounding level, about M u max K_nn */
      st = sgp_fail(ctx, SGP_ENOTPD, "method = \"lla\": noise %g is below the rounding level of "
                    "the prior covariance (max %g), so K + noise I cannot be factored; raise "
                    "noise, or use closed_form = TRUE with inducing = x (the same posterior)",
                    s * fit->y_sd * fit->y_sd, kmax * fit->y_sd * fit->y_sd);
    if (!st) st = valla_tri_inverse(ctx, M, K, fit->P1);
  } else if (!st) { /* P1 = chol(I + Sq K Sq)^{-1} Sq, Sq = Lambda^{1/2} block diagonal */
    for (int64_t i = 0; i < N && !st; i++) {
      valla_lik_hessian(fit->likelihood, C, G + i, N, 0.0, Lam);
      st = sgp_syev(ctx, C, Lam, C, w);
      for (int64_t a = 0; a < C && !st; a++)
        for (int64_t b = 0; b < C; b++) {
          double q = 0;
          for (int64_t e = 0; e < C; e++) q += Lam[a + C * e] * sqrt(w[e] > 0 ? w[e] : 0) * Lam[b + C * e];
          Sq[i + N * a + M * (i + N * b)] = q;
        }
    }
    if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, K, M, Sq, M, 0.0, T, M);
    if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, Sq, M, T, M, 0.0, K, M);
    for (int64_t i = 0; !st && i < M; i++) K[i + M * i] += 1.0;
    if (!st) st = sgp_potrf(ctx, M, K, M);
    if (!st) {
      memcpy(fit->P1, Sq, (size_t)(M * M) * sizeof(double));
      st = sgp_trsm(ctx, 'L', 'L', 'N', M, M, 1.0, K, M, fit->P1, M);
    }
  }
  fit->prior = 1;
  free(K); free(Sq); free(T); free(G); free(Lam); free(w);
  return st;
}
