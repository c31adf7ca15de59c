/* valla_ella.c -- ELLA baseline (Deng et al. 2022): Nystrom features
 * psi(x) = K0(x, Z_E) U_K Lambda_K^{-1/2} from the top K eigenpairs of K0 on M_E
 * tagged training points, a Gaussian posterior over the feature weights
 * (G + I/s0)^{-1} with G = sum_n psi_n' Lambda_n psi_n, stored as the P2 map of the
 * common predictive form (no prior term: ELLA drops the variance outside span J_X). */
#include "valla/valla.h"
#include "valla/valla_lik.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int valla_ella_pick(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, int64_t M)
{
  const int64_t N = X.rows, D = fit->D;
  int64_t *idx = (int64_t *)malloc((size_t)N * sizeof(int64_t));
  fit->M = M;
  fit->Z = sgp_alloc(M * D);
  fit->tags = (int *)malloc((size_t)M * sizeof(int));
  if (!idx || !fit->Z || !fit->tags) { free(idx); return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory"); }
  for (int64_t i = 0; i < N; i++) idx[i] = i;
  for (int64_t m = 0; m < M; m++) { /* M distinct points, a uniform output tag each */
    int64_t j = m + (int64_t)(sgp_rng_uniform(&ctx->rng) * (double)(N - m));
    if (j >= N) j = N - 1;
    const int64_t t = idx[m]; idx[m] = idx[j]; idx[j] = t;
    int c = (int)(sgp_rng_uniform(&ctx->rng) * (double)fit->C);
    fit->tags[m] = c < fit->C ? c : (int)fit->C - 1;
    for (int64_t d = 0; d < D; d++) fit->Z[m + M * d] = X.data[idx[m] + X.ld * d];
  }
  free(idx);
  return SGP_OK;
}

int valla_ella(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, int64_t rank)
{
  const sgp_valla_net *net = &fit->net;
  const int64_t M = fit->M, C = fit->C, N = X.rows, T = N < 512 ? N : 512;
  const double sc = valla_kernel_scale(fit), s = exp(fit->log_noise);
  double *E = sgp_alloc(M * M), *ev = sgp_alloc(M), *F = sgp_calloc(M * M), *KB = sgp_alloc(T * C * M),
         *Psi = sgp_alloc(T * C * M), *LP = sgp_alloc(T * C * M), *G = sgp_calloc(M * M), *Lam = sgp_alloc(C * C);
  valla_cache cZ;
  memset(&cZ, 0, sizeof cZ);
  int st = (!E || !ev || !F || !KB || !Psi || !LP || !G || !Lam)
               ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in ELLA") : SGP_OK;
  if (!st) st = valla_cache_build(ctx, net, sgp_cmat_of(fit->Z, M, fit->D), fit->tags, &cZ);
  if (!st) st = valla_ntk_cross(ctx, net, &cZ, &cZ, fit->layers, E, M);
  if (!st) st = sgp_syev(ctx, M, E, M, ev);
  /* F (M x K) = U_K Lambda_K^{-1/2}, top eigenpairs above a relative floor */
  int64_t K = 0;
  if (!st) {
    const double top = ev[M - 1] > 0 ? ev[M - 1] : 0.0;
    for (int64_t k = 0; k < (rank < M ? rank : M); k++) {
      const int64_t col = M - 1 - k;
      if (!(ev[col] > 1e-12 * top)) break;
      for (int64_t m = 0; m < M; m++) F[m + M * K] = E[m + M * col] / sqrt(ev[col]);
      K++;
    }
    if (K == 0) st = sgp_fail(ctx, SGP_EINVAL, "inducing: the NTK on the ELLA points is zero");
  }
  /* G = sum_n psi_n' Lambda_n psi_n over tiles of the training data */
  for (int64_t i0 = 0; i0 < N && !st; i0 += T) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    const int64_t nt = N - i0 < T ? N - i0 : T, nr = nt * C;
    valla_cache cB;
    sgp_cmat Xt = {X.data + i0, nt, X.cols, X.ld};
    if ((st = valla_cache_build(ctx, net, Xt, NULL, &cB))) break;
    st = valla_ntk_cross(ctx, net, &cB, &cZ, fit->layers, KB, nr);
    if (!st) st = sgp_gemm(ctx, 'N', 'N', nr, K, M, 1.0, KB, nr, F, M, 0.0, Psi, nr);
    for (int64_t i = 0; i < nt && !st; i++) {
      double g[VALLA_MAX_C];
      for (int64_t c = 0; c < C; c++) g[c] = cB.G[i + nt * c];
      valla_lik_hessian(fit->likelihood, C, g, 1, s, Lam);
      valla_lik_hessian_rows(C, Lam, i, nt, K, Psi, LP);
    }
    if (!st) st = sgp_gemm(ctx, 'T', 'N', K, K, nr, 1.0, Psi, nr, LP, nr, 1.0, G, K);
    valla_cache_free(net, &cB);
  }
  /* Sigma = (G + I/sc)^{-1} = Ci' Ci with Ci = chol(G + I/sc)^{-1};
   * P2 (rows 0..K-1) = Ci F' / sc, so |P2 K_Zx|^2 = psi Sigma psi' */
  if (!st) {
    for (int64_t k = 0; k < K; k++) G[k + K * k] += 1.0 / sc;
    st = sgp_potrf(ctx, K, G, K);
  }
  if (!st) {
    free(fit->P1); free(fit->P2); free(fit->L);
    fit->P1 = fit->L = NULL;
    fit->P2 = sgp_calloc(M * M);
    if (!fit->P2) st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in ELLA");
  }
  if (!st) {
    for (int64_t k = 0; k < K; k++)
      for (int64_t m = 0; m < M; m++) fit->P2[k + M * m] = F[m + M * k] / sc;
    st = sgp_trsm(ctx, 'L', 'L', 'N', K, M, 1.0, G, K, fit->P2, M);
    fit->prior = 0;
  }
  if (cZ.A) valla_cache_free(net, &cZ);
  free(E); free(ev); free(F); free(KB); free(Psi); free(LP); free(G); free(Lam);
  return st;
}
