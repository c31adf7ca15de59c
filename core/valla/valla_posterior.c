/* valla_posterior.c -- the M x M maps P1, P2 of sgp_valla_fit_t for each way of
 * fitting the covariance: trained L (P1 = R^{-1} L', spec §1.3), the Titsias /
 * GGN closed form (SGPR form of spec §1.4) and exact LLA (spec §6.1, Z = X with
 * all C tags; the symmetric Lambda^{1/2} form for softmax). */
#include "valla/valla.h"
#include "valla/valla_lik.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Inverse of a lower-triangular T (n x n) into Ti (n x n). */
static int tri_inverse(sgp_ctx *ctx, int64_t n, const double *T, double *Ti)
{
  memset(Ti, 0, (size_t)(n * n) * sizeof(double));
  for (int64_t i = 0; i < n; i++) Ti[i + n * i] = 1.0;
  return sgp_trsm(ctx, 'L', 'L', 'N', n, n, 1.0, T, n, Ti, n);
}

static void zero_upper(int64_t n, double *A)
{
  for (int64_t j = 0; j < n; j++) for (int64_t i = 0; i < j; i++) A[i + n * j] = 0.0;
}

/* Scaled K_ZZ of the fit (M x M). */
static int kzz(sgp_ctx *ctx, const sgp_valla_fit_t *fit, double *K)
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

int valla_fit_finalize(sgp_ctx *ctx, sgp_valla_fit_t *fit, sgp_cmat X)
{
  (void)X;
  const int64_t M = fit->M;
  double *K = sgp_alloc(M * M), *H = sgp_alloc(M * M), *T = sgp_alloc(M * M);
  if (!fit->P1) fit->P1 = sgp_alloc(M * M);
  free(fit->P2);
  fit->P2 = NULL;
  fit->prior = 1;
  int st = (!K || !H || !T || !fit->P1) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory") : SGP_OK;
  if (!st) st = kzz(ctx, fit, K);
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

/* A* = K^{-1} Phi K^{-1} = Li' Mid Li (Mid = Li Phi Li'), reported as L = chol(A* + eps I)
 * (eps grows from 1e-10 mean diag until the factor exists: A* is singular when M > N). */
static int closed_form_L(sgp_ctx *ctx, int64_t M, const double *Li, const double *Mid, double *L)
{
  double *T = sgp_alloc(M * M), *A = sgp_alloc(M * M);
  int st = (!T || !A) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory") : SGP_OK;
  if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, Mid, M, Li, M, 0.0, T, M);
  if (!st) st = sgp_gemm(ctx, 'T', 'N', M, M, M, 1.0, Li, M, T, M, 0.0, A, M);
  double md = 0;
  for (int64_t i = 0; !st && i < M; i++) md += A[i + M * i] / (double)M;
  if (!(md > 0)) md = 1.0;
  for (double eps = 1e-10; !st; eps *= 100) {
    memcpy(L, A, (size_t)(M * M) * sizeof(double));
    for (int64_t i = 0; i < M; i++) L[i + M * i] += eps * md;
    if (sgp_potrf(ctx, M, L, M) == SGP_OK) { zero_upper(M, L); break; }
    if (eps > 1) st = sgp_fail(ctx, SGP_ENOTPD, "closed form: A* has no Cholesky factor");
  }
  free(T); free(A);
  return st;
}

int valla_closed_form(sgp_ctx *ctx, sgp_valla_fit_t *fit, sgp_cmat X, double jitter)
{
  const sgp_valla_net *net = &fit->net;
  const int64_t M = fit->M, C = fit->C, N = X.rows, T = N < 512 ? N : 512;
  const double sc = valla_kernel_scale(fit), s = exp(fit->log_noise);
  double *Phi = sgp_calloc(M * M), *K = sgp_alloc(M * M), *KB = sgp_alloc(T * C * M),
         *LK = sgp_alloc(T * C * M), *Lam = sgp_alloc(C * C), *Li = sgp_alloc(M * M);
  valla_cache cZ;
  memset(&cZ, 0, sizeof cZ);
  int st = (!Phi || !K || !KB || !LK || !Lam || !Li)
               ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the closed form") : SGP_OK;
  if (!st) st = valla_cache_build(ctx, net, sgp_cmat_of(fit->Z, M, fit->D), fit->tags, &cZ);
  /* Phi = sum_n K_Zn Lambda_n K_nZ, streamed over tiles of the training data */
  for (int64_t i0 = 0; i0 < N && !st; i0 += T) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    const int64_t nt = N - i0 < T ? N - i0 : T, nr = nt * C;
    valla_cache cB;
    sgp_cmat Xt = {X.data + i0, nt, X.cols, X.ld};
    if ((st = valla_cache_build(ctx, net, Xt, NULL, &cB))) break;
    st = valla_ntk_cross(ctx, net, &cB, &cZ, fit->layers, KB, nr);
    for (int64_t k = 0; k < nr * M; k++) KB[k] *= sc;
    for (int64_t i = 0; i < nt && !st; i++) {
      double g[VALLA_MAX_C];
      for (int64_t c = 0; c < C; c++)
        g[c] = fit->likelihood == SGP_LIK_GAUSSIAN ? (cB.G[i] - fit->y_mean) / fit->y_sd : cB.G[i + nt * c];
      valla_lik_hessian(fit->likelihood, C, g, 1, s, Lam);
      valla_lik_hessian_rows(C, Lam, i, nt, M, KB, LK);
    }
    if (!st) st = sgp_gemm(ctx, 'T', 'N', M, M, nr, 1.0, KB, nr, LK, nr, 1.0, Phi, M);
    valla_cache_free(net, &cB);
  }
  if (!st) st = kzz(ctx, fit, K);
  if (!st) { /* L_K = chol(K + eps I), P1 = L_K^{-1} */
    double md = 0;
    for (int64_t i = 0; i < M; i++) md += K[i + M * i];
    md /= (double)M;
    for (int64_t i = 0; i < M; i++) K[i + M * i] += jitter * md;
    st = sgp_potrf(ctx, M, K, M);
    if (st == SGP_ENOTPD)
      st = sgp_fail(ctx, SGP_ENOTPD, "closed form: K_ZZ is singular; increase jitter or use "
                                     "distinct inducing points");
  }
  if (!st) st = tri_inverse(ctx, M, K, Li);
  if (!st) { /* Lambda_Z = I + Li Phi Li' = L_L L_L'; P2 = L_L^{-1} Li */
    st = sgp_gemm(ctx, 'N', 'T', M, M, M, 1.0, Phi, M, Li, M, 0.0, K, M);
    if (!st) st = sgp_gemm(ctx, 'N', 'N', M, M, M, 1.0, Li, M, K, M, 0.0, Phi, M);
    if (!st && fit->L) st = closed_form_L(ctx, M, Li, Phi, fit->L);
    for (int64_t i = 0; !st && i < M; i++) Phi[i + M * i] += 1.0;
    if (!st) st = sgp_potrf(ctx, M, Phi, M);
    if (!st) {
      memcpy(K, Li, (size_t)(M * M) * sizeof(double));
      st = sgp_trsm(ctx, 'L', 'L', 'N', M, M, 1.0, Phi, M, K, M);
    }
  }
  if (!st) {
    free(fit->P1); free(fit->P2);
    fit->P1 = Li; fit->P2 = K; Li = K = NULL;
    zero_upper(M, fit->P1);
    fit->prior = 1;
    fit->closed_form = 1;
  }
  if (cZ.A) valla_cache_free(net, &cZ);
  free(Phi); free(K); free(KB); free(LK); free(Lam); free(Li);
  return st;
}

int valla_lla_exact(sgp_ctx *ctx, sgp_valla_fit_t *fit, sgp_cmat X)
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
    st = kzz(ctx, fit, K);
  }
  if (!st) st = sgp_valla_forward(ctx, net, X, sgp_mat_of(G, N, C));
  if (!st && fit->likelihood == SGP_LIK_GAUSSIAN) { /* P1 = chol(K + s I)^{-1} */
    const double s = exp(fit->log_noise);
    for (int64_t i = 0; i < M; i++) K[i + M * i] += s;
    st = sgp_potrf(ctx, M, K, M);
    if (!st) st = tri_inverse(ctx, M, K, fit->P1);
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
