/* laplace_direct.c -- the exact mode's first solve: NC unit-vector actions from an
 * empty IterGP state as one dense Cholesky.
 * In the permuted basis (action order idx) A = P'K^P = L L'. The actions taken one
 * at a time build exactly this factor (eta_j = L_jj^2), and with z = L^{-1} P'b:
 *   v_a   = P_a L_a^{-T} z[0..a)                 (weights after a actions)
 *   res_k = sum_{m >= k} L[:, m] z_m             (residual before action k)
 *   alpha_k = res_k[k] = L_kk z_k
 *   ||K q_m||^2 = ||L[:, m]||^2 - 2 d_m + sum_{i <= m} (d_i L^{-1}[m, i])^2
 * (K P L^{-T} = L - D L^{-T}, D = W^{-1} permuted, diagonal for C = 1), so the
 * per-action history costs O(NC^2) plus one trtri, instead of the O(NC^3) that
 * keeping K Q current costs in the blocked path. The trtri (NC^3/3 flops, as
 * many as the Cholesky) only serves the trace, a metric: it is taken
 * when ub->trace (option history_trace = "always"); otherwise the trace is NaN
 * and the solve costs one Cholesky. The state left behind is the same. */
#include "laplace/laplace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void reset_empty(sgp_itergp *it)
{
  it->B = it->r = 0;
  it->unit = it->g_tri = it->kq_valid = 1;
  it->root_lazy = 0;
  it->trace_KQ = 0.0;
}

static int direct(sgp_ctx *ctx, sgp_itergp *it, sgp_unit_block *ub, int *fallback, double *S,
                  double *T, double *L, double *Li, double *z, double *dp, double *racc,
                  double *cn, double *dl, double *sz)
{
  const int64_t n = it->n, NC = it->NC, ldg = it->cap;
  const int64_t *idx = ub->idx;
  int st;
  /* T = K P (kernel columns); S = P stays implied by idx (unit state: only a
   * compression reads S, and it forms S from idx first) */
  (void)S;
  sgp_unit_kernel_columns(ctx, ub, n, NC, T);
  for (int64_t j = 0; j < NC; j++) dp[j] = ub->nd[idx[j]];
  /* lower triangle of A = P'T + D, symmetrized as the blocked path does (tiles
   * keep the transposed reads in cache) */
  const int64_t tb = 64;
  for (int64_t j0 = 0; j0 < NC; j0 += tb)
    for (int64_t i0 = j0; i0 < NC; i0 += tb) {
      const int64_t j1 = j0 + tb < NC ? j0 + tb : NC, i1 = i0 + tb < NC ? i0 + tb : NC;
      for (int64_t j = j0; j < j1; j++)
        for (int64_t i = i0 > j ? i0 : j; i < i1; i++)
          L[i + j * ldg] = 0.5 * (T[idx[i] + j * NC] + T[idx[j] + i * NC]);
    }
  for (int64_t j = 0; j < NC; j++) {
    L[j + j * ldg] += dp[j];
    sz[j] = L[j + j * ldg];
  }
  /* through B = I + W^1/2 K W^1/2 (pivots >= 1); dl is scratch until the trace */
  int ok = 0;
  if ((st = sgp_khat_cholesky(ctx, NC, L, ldg, dp, NULL, dl, &ok))) return st;
  for (int64_t j = 0; ok && j < NC; j++) {
    const double piv = L[j + j * ldg] * L[j + j * ldg];
    if (!(piv > ub->eta_rtol * sz[j]) || !(piv > 0.0) || !isfinite(piv)) ok = 0;
  }
  if (!ok) { reset_empty(it); *fallback = 1; return SGP_OK; }
  /* z = L^{-1} P'b; residual norms before each action (from the end: racc[0..k)
   * is still zero, and sgp_nrm2 skips zeros, so its tail has the same norm) */
  for (int64_t j = 0; j < NC; j++) z[j] = ub->rhs[idx[j]];
  if ((st = sgp_trsm(ctx, 'L', 'L', 'N', NC, 1, 1.0, L, ldg, z, NC))) return st;
  memset(racc, 0, (size_t)NC * sizeof(double));
  double *rho = ub->rho;
  for (int64_t k = NC - 1; k >= 0; k--) {
    const double *l = L + k * ldg;
    for (int64_t i = k; i < NC; i++) racc[i] += l[i] * z[k];
    rho[k] = sgp_nrm2(NC - k, racc + k);
  }
  int64_t a = 0;
  while (a < NC && rho[a] >= ub->rtol) a++;
  if (a < NC) ub->reason = SGP_STOP_RESID;
  /* trace after each action (a metric: only when asked for, ub->trace): column
   * norms of L, row norms of D L^{-1} (the one trtri) */
  if (ub->trace) {
    for (int64_t j = 0; j < a; j++) {
      memcpy(Li + j * ldg + j, L + j * ldg + j, (size_t)(a - j) * sizeof(double));
      cn[j] = 0.0;
      for (int64_t i = j; i < NC; i++) cn[j] += L[i + j * ldg] * L[i + j * ldg];
      dl[j] = 0.0;
    }
    if ((st = sgp_trtri(ctx, 'L', a, Li, ldg))) return st;
    for (int64_t i = 0; i < a; i++) { /* dl[m] += (d_i Li[m, i])^2, column by column */
      const double *li = Li + i * ldg;
      for (int64_t m = i; m < a; m++) dl[m] += (dp[i] * li[m]) * (dp[i] * li[m]);
    }
  }
  double tr = 0.0;
  for (int64_t j = 0; j < a; j++) {
    tr = ub->trace ? tr + (cn[j] - 2.0 * dp[j] + dl[j]) : NAN;
    ub->alpha[j] = L[j + j * ldg] * z[j];
    ub->eta[j] = L[j + j * ldg] * L[j + j * ldg];
    ub->trace_KQ[j] = tr;
  }
  /* v = P_a L_a^{-T} z[0..a); res = P sum_{m >= a} L[:, m] z_m; Kv = b - res - D v */
  memset(racc, 0, (size_t)NC * sizeof(double));
  for (int64_t k = NC - 1; k >= a; k--) {
    const double *l = L + k * ldg;
    for (int64_t i = k; i < NC; i++) racc[i] += l[i] * z[k];
  }
  if ((st = sgp_trsm(ctx, 'L', 'L', 'T', a, 1, 1.0, L, ldg, z, NC))) return st;
  for (int64_t j = 0; j < a; j++) ub->v[idx[j]] += z[j];
  for (int64_t j = 0; j < NC; j++) ub->res[idx[j]] = racc[j];
  if (ub->Kv)
    for (int64_t q = 0; q < NC; q++)
      ub->Kv[q] = ub->rhs[q] - ub->res[q] - ub->nd[q] * ub->v[q];
  /* the state a virtual run leaves: G = L (lower), root not formed */
  for (int64_t j = 0; j < a; j++) it->idx[j] = idx[j];
  it->B = it->r = a;
  it->unit = it->g_tri = 1;
  it->kq_valid = a == 0;
  it->root_lazy = a > 0;
  it->trace_KQ = tr;
  ub->accepted = a;
  return SGP_OK;
}

int sgp_itergp_unit_direct(sgp_ctx *ctx, sgp_itergp *it, sgp_unit_block *ub, int *fallback)
{
  const int64_t NC = it->NC, ldg = it->cap, N = ub->b;
  int st;
  *fallback = 0;
  ub->accepted = 0;
  ub->reason = SGP_STOP_NONE;
  if (it->B != 0 || it->C != 1 || N != NC || ldg < NC)
    return sgp_fail(ctx, SGP_EDIM, "unit direct: needs an empty state and all %lld actions",
                    (long long)NC);
  double *S = it->S, *T = it->T, *L = it->G, *Li = it->M;
  /* z, d, the residual, column sums, pivots' s'z */
  double *z = sgp_alloc(6 * NC);
  if (!z) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  double *dp = z + NC, *racc = dp + NC, *cn = racc + NC, *dl = cn + NC, *sz = dl + NC;
  st = direct(ctx, it, ub, fallback, S, T, L, Li, z, dp, racc, cn, dl, sz);
  free(z);
  return st;
}

/* The full budget's exact state (policy cg, max_iter >= NC): once the residual
 * has converged, span(S) = R^{NC} means C = K^{-1} whatever the actions were,
 * so the state is rebuilt from the NC unit vectors in natural order: T = K,
 * G = L with L L' = K^ = K + W^{-1} (dense, softmax blocks included), v = K^{-1} b
 * and Kv = K v. Filling span(S) with unit vectors after the CG residuals and
 * K^-orthonormalizing by Gram-Schmidt instead loses accuracy in the directions
 * where K^ is ill-conditioned (softmax: K^ = K on the per-point sums, where W^+
 * is zero), by an amount that depends on the CPU's rounding. The factor is
 * built in M with K in work, so that *ok = 0 (K^ has no numerically positive
 * definite factor) leaves the state as it was (K Q is recomputed on demand).
 * e, y: NC doubles of scratch. */
int sgp_itergp_exact_state(sgp_ctx *ctx, sgp_itergp *it, const sgp_unit_block *cols,
                           const double *b, double *v, double *Kv, double *e, double *y,
                           int *ok)
{
  const int64_t n = it->n, NC = it->NC, ldg = it->cap;
  double *K = it->work, *L = it->M;
  int st;
  *ok = 0;
  if (ldg < NC || cols->b != NC) return SGP_OK;
  /* a previous exact state (unit vectors 0..NC-1) already holds T = K: no
   * second pass of NC^2 kernel evaluations in the later Newton steps */
  int have_K = it->unit && it->B == NC;
  for (int64_t j = 0; have_K && j < NC; j++) have_K = it->idx[j] == j;
  if (have_K) memcpy(K, it->T, (size_t)(NC * NC) * sizeof(double));
  else sgp_unit_kernel_columns(ctx, cols, n, NC, K);
  it->kq_valid = 0;
  memset(e, 0, (size_t)NC * sizeof(double));
  for (int64_t j = 0; j < NC; j++) { /* lower triangle of K + W^{-1}, symmetrized */
    e[j] = 1.0;
    sgp_lik_winv(cols->lik, cols->nd, 1, e, y);
    e[j] = 0.0;
    for (int64_t i = j; i < NC; i++)
      L[i + j * ldg] = 0.5 * (K[i + j * NC] + K[j + i * NC]) + y[i];
  }
  if (!sgp_lik_multiclass(cols->lik->kind)) { /* diagonal W^{-1}: through B (pivots >= 1) */
    int okb = 0;
    if ((st = sgp_khat_cholesky(ctx, NC, L, ldg, cols->nd, NULL, e, &okb)) || !okb) return st;
  } else {
    int64_t minor = 0;
    if ((st = sgp_potrf_minor(ctx, NC, L, ldg, &minor))) return st;
    if (minor) return SGP_OK;
  }
  for (int64_t j = 0; j < NC; j++)
    if (!(L[j + j * ldg] > 0.0) || !isfinite(L[j + j * ldg])) return SGP_OK;
  memcpy(v, b, (size_t)NC * sizeof(double));
  if ((st = sgp_potrs(ctx, NC, 1, L, ldg, v, NC))) return st;
  if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, NC, 1.0, K, NC, v, NC, 0.0, Kv, NC))) return st;
  memcpy(it->T, K, (size_t)(NC * NC) * sizeof(double));
  memset(it->S, 0, (size_t)(NC * NC) * sizeof(double));
  memset(it->G, 0, (size_t)(ldg * ldg) * sizeof(double));
  for (int64_t j = 0; j < NC; j++) {
    it->S[j + j * NC] = 1.0;
    it->idx[j] = j;
    memcpy(it->G + j * ldg + j, L + j * ldg + j, (size_t)(NC - j) * sizeof(double));
  }
  it->B = it->r = NC;
  it->unit = it->g_tri = 1;
  it->root_lazy = 1;
  *ok = 1;
  return SGP_OK;
}
