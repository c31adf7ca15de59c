/* valla_closed_form.c -- the Titsias / GGN closed form of the
 * variational covariance as the maps
 * P1, P2 of sgp_valla_result, for any K_ZZ, singular ones included.
 *
 * With any F (M x M) such that F K_ZZ F' is the identity on range(K_ZZ) (F's other
 * rows zero) and W = sum_n (F K_Zn) Lambda_n (F K_Zn)',
 *   K*(x,x) = K_xx - |F K_Zx|^2 + |chol(I + W)^{-1} F K_Zx|^2.
 * W is accumulated as a sum of Gram blocks, so I + W >= I always has its Cholesky
 * factor. F is
 *  - chol(K_ZZ + eps I)^{-1} (the spec's SGPR form) when M < P, the number of
 *    linearized network parameters, and that factor exists;
 *  - when M >= P (K_ZZ = s0 J_Z J_Z' has rank <= P, so an nnet fit with fewer
 *    weights than inducing points lands here): F = s0^{-1/2} S^{-1} U' from the
 *    SVD J_Z = U S V' of the explicit M x P Jacobian of the tagged inducing
 *    outputs; F K_Zx = s0^{1/2} V' J_x' then carries errors of order
 *    u cond(J_Z) instead of the u cond(J_Z)^2 of any factor of K_ZZ itself;
 *  - otherwise (M < P, K_ZZ singular in floating point: duplicated points) the
 *    eigenpairs of K_ZZ above its numerical-rank threshold.
 * When the rank is P the inducing points span every parameter direction, the
 * Nystrom residual K_xx - |F K_Zx|^2 is zero for every x and is left out
 * (prior = 0, P1 = NULL) instead of being computed as a difference of two equal
 * numbers: with Z = X this is exact LLA in weight space, s0 j (I + s0 J' Lambda J)^{-1} j'. */
#include "valla/valla.h"
#include "valla/valla_lik.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* W = sum_n Q_n Lambda_n Q_n' with Q_n = F K_Zn (scaled kernels), streamed over
 * tiles of X: per tile Q = K_BZ F' (nr x M), W += Q' (Lambda Q). */
static int w_accumulate(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, const double *F,
                        double *W)
{
  const sgp_valla_net *net = &fit->net;
  const int64_t M = fit->M, C = fit->C, N = X.rows, T = N < 512 ? N : 512;
  const double sc = valla_kernel_scale(fit), s = exp(fit->log_noise);
  double *KB = sgp_alloc(T * C * M), *Q = sgp_alloc(T * C * M), *LQ = sgp_alloc(T * C * M),
         *Lam = sgp_alloc(C * C);
  valla_cache cZ;
  memset(&cZ, 0, sizeof cZ);
  memset(W, 0, (size_t)(M * M) * sizeof(double));
  int st = (!KB || !Q || !LQ || !Lam) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the closed form")
                                      : SGP_OK;
  if (!st) st = valla_cache_build(ctx, net, sgp_cmat_of(fit->Z, M, fit->D), fit->tags, &cZ);
  for (int64_t i0 = 0; i0 < N && !st; i0 += T) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    const int64_t nt = N - i0 < T ? N - i0 : T, nr = nt * C;
    valla_cache cB;
    sgp_cmat Xt = {X.data + i0, nt, X.cols, X.ld};
    if ((st = valla_cache_build(ctx, net, Xt, NULL, &cB))) break;
    st = valla_ntk_cross(ctx, net, &cB, &cZ, fit->layers, KB, nr);
    if (!st) st = sgp_gemm(ctx, 'N', 'T', nr, M, M, sc, KB, nr, F, M, 0.0, Q, nr);
    for (int64_t i = 0; i < nt && !st; i++) {
      double g[VALLA_MAX_C];
      for (int64_t c = 0; c < C; c++)
        g[c] = fit->likelihood == SGP_LIK_GAUSSIAN ? (cB.G[i] - fit->y_mean) / fit->y_sd : cB.G[i + nt * c];
      valla_lik_hessian(fit->likelihood, C, g, 1, s, Lam);
      valla_lik_hessian_rows(C, Lam, i, nt, M, Q, LQ);
    }
    if (!st) st = sgp_gemm(ctx, 'T', 'N', M, M, nr, 1.0, Q, nr, LQ, nr, 1.0, W, M);
    valla_cache_free(net, &cB);
  }
  if (cZ.A) valla_cache_free(net, &cZ);
  free(KB); free(Q); free(LQ); free(Lam);
  return st;
}

/* F = chol(K + jitter * mean(diag K) I)^{-1}; *ok = 0 (F untouched) when that
 * Cholesky factor does not exist in floating point or has a pivot below
 * M u max(diag K), the rounding level of K (singular K: duplicated points with
 * jitter 0 can leave a tiny positive pivot). K is left intact. */
static int factor_chol(sgp_ctx *ctx, int64_t M, const double *K, double jitter, double *F, int *ok)
{
  double *Lk = sgp_alloc(M * M), md = 0, mx = 0;
  if (!Lk) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the closed form");
  memcpy(Lk, K, (size_t)(M * M) * sizeof(double));
  for (int64_t i = 0; i < M; i++) md += K[i + M * i] / (double)M;
  for (int64_t i = 0; i < M; i++) mx = fmax(mx, K[i + M * i]);
  for (int64_t i = 0; i < M; i++) Lk[i + M * i] += jitter * md;
  int64_t minor = 0;
  int st = sgp_potrf_minor(ctx, M, Lk, M, &minor);
  *ok = !st && minor == 0;
  for (int64_t i = 0; *ok && i < M; i++)
    if (!(Lk[i + M * i] * Lk[i + M * i] > (double)M * DBL_EPSILON * mx)) *ok = 0;
  if (*ok) st = valla_tri_inverse(ctx, M, Lk, F);
  free(Lk);
  return st;
}

/* F = diag(lambda)^{-1/2} U' over the eigenpairs of K with lambda > M u lambda_max
 * (the usual numerical-rank threshold: dsyevd's eigenvalues carry absolute errors
 * of order M u |K|), at most P of them; the other rows of F are zero. *rank gets
 * their number. K is destroyed. */
static int factor_eig(sgp_ctx *ctx, int64_t M, int64_t P, double *K, double *F, int64_t *rank)
{
  double *w = sgp_alloc(M);
  if (!w) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the closed form");
  int st = sgp_syev(ctx, M, K, M, w);
  memset(F, 0, (size_t)(M * M) * sizeof(double));
  int64_t r = 0;
  const double tau = M > 0 ? (double)M * DBL_EPSILON * w[M - 1] : 0.0;
  while (!st && r < M && r < P && w[M - 1 - r] > tau && w[M - 1 - r] > 0) {
    const double *u = K + M * (M - 1 - r), f = 1.0 / sqrt(w[M - 1 - r]);
    for (int64_t m = 0; m < M; m++) F[r + M * m] = f * u[m];
    r++;
  }
  *rank = r;
  free(w);
  return st;
}

/* F = s0^{-1/2} S^{-1} U' over the singular triplets of the explicit Jacobian J_Z
 * (M x P, the tagged output at each inducing point, active layers) with
 * sigma > max(M, P) u sigma_max (the numerical-rank threshold of an SVD); rows
 * past *rank are zero. s0 here is the whole kernel scale (K_ZZ = sc J_Z J_Z'). */
static int factor_svd(sgp_ctx *ctx, const sgp_valla_result *fit, int64_t P, double *F, int64_t *rank)
{
  const int64_t M = fit->M, k = M < P ? M : P;
  double *J = sgp_alloc(M * P), *U = sgp_alloc(M * k), *sv = sgp_alloc(k);
  valla_cache cZ;
  memset(&cZ, 0, sizeof cZ);
  int st = (!J || !U || !sv) ? sgp_fail(ctx, SGP_ENOMEM, "inducing: the closed form with M = %lld "
                                        "inducing points >= P = %lld network weights needs their "
                                        "M x P Jacobian, which does not fit in memory; use fewer "
                                        "inducing points", (long long)M, (long long)P)
                             : SGP_OK;
  if (!st) st = valla_cache_build(ctx, &fit->net, sgp_cmat_of(fit->Z, M, fit->D), fit->tags, &cZ);
  if (!st) valla_jacobian_rows(&fit->net, &cZ, fit->layers, J, M);
  if (!st) st = sgp_svd_left(ctx, M, P, J, M, sv, U, M);
  memset(F, 0, (size_t)(M * M) * sizeof(double));
  int64_t r = 0;
  const double tau = k > 0 ? (double)(M > P ? M : P) * DBL_EPSILON * sv[0] : 0.0;
  const double rs = 1.0 / sqrt(valla_kernel_scale(fit));
  while (!st && r < k && sv[r] > tau && sv[r] > 0) {
    for (int64_t m = 0; m < M; m++) F[r + M * m] = rs / sv[r] * U[m + M * r];
    r++;
  }
  *rank = r;
  if (cZ.A) valla_cache_free(&fit->net, &cZ);
  free(J); free(U); free(sv);
  return st;
}

/* The reported A* = F' W F (= K^+ Phi K^+, W = F Phi F') as L L' with L lower
 * triangular: W = Q diag(mu) Q', B = diag(mu)^{1/2} Q' F, B = Qb R, L = R'.
 * Exact for a singular A* too (no jitter); W is destroyed. */
static int closed_form_L(sgp_ctx *ctx, int64_t M, const double *F, double *W, double *L)
{
  double *mu = sgp_alloc(M), *B = sgp_alloc(M * M);
  int st = (!mu || !B) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the closed form") : SGP_OK;
  if (!st) st = sgp_syev(ctx, M, W, M, mu);
  if (!st) st = sgp_gemm(ctx, 'T', 'N', M, M, M, 1.0, W, M, F, M, 0.0, B, M);
  for (int64_t i = 0; !st && i < M; i++) {
    const double f = mu[i] > 0 ? sqrt(mu[i]) : 0.0;
    for (int64_t j = 0; j < M; j++) B[i + M * j] *= f;
  }
  if (!st) st = sgp_qr_r(ctx, M, M, B, M);
  for (int64_t j = 0; !st && j < M; j++)
    for (int64_t i = 0; i < M; i++) L[i + M * j] = B[j + M * i];
  free(mu); free(B);
  return st;
}

/* P2 = chol(I + W)^{-1} F (I + W >= I: the factor exists); H is scratch. */
static int posterior_map(sgp_ctx *ctx, int64_t M, const double *F, const double *W, double *H,
                         double *P2)
{
  memcpy(H, W, (size_t)(M * M) * sizeof(double));
  for (int64_t i = 0; i < M; i++) H[i + M * i] += 1.0;
  int st = sgp_potrf(ctx, M, H, M);
  if (!st) {
    memcpy(P2, F, (size_t)(M * M) * sizeof(double));
    st = sgp_trsm(ctx, 'L', 'L', 'N', M, M, 1.0, H, M, P2, M);
  }
  return st;
}

int valla_closed_form(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, double jitter)
{
  const int64_t M = fit->M, P = valla_nparam_active(&fit->net, fit->layers);
  double *K = sgp_alloc(M * M), *F = sgp_alloc(M * M), *W = sgp_alloc(M * M), *P2 = sgp_alloc(M * M);
  int st = (!K || !F || !W || !P2)
               ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the closed form") : SGP_OK;
  int ok = 0;
  int64_t rank = M;
  if (!st && M < P) { /* the spec's form; falls back to eigenpairs when K_ZZ is singular */
    st = valla_kzz(ctx, fit, K);
    if (!st) st = factor_chol(ctx, M, K, jitter, F, &ok);
    if (!st && !ok) st = factor_eig(ctx, M, P, K, F, &rank);
  } else if (!st) {
    st = factor_svd(ctx, fit, P, F, &rank);
  }
  if (!st) st = w_accumulate(ctx, fit, X, F, W);
  if (!st) st = posterior_map(ctx, M, F, W, K, P2);
  if (!st && fit->L) st = closed_form_L(ctx, M, F, W, fit->L);
  if (!st) {
    const int spans = !ok && rank == P; /* Nystrom residual identically zero */
    free(fit->P1); free(fit->P2);
    fit->P1 = spans ? NULL : F;
    fit->P2 = P2;
    if (!spans) F = NULL;
    P2 = NULL;
    fit->prior = !spans;
    fit->closed_form = 1;
  }
  free(K); free(F); free(W); free(P2);
  return st;
}
