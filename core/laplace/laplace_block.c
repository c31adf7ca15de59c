/* laplace_block.c -- a block of unit-vector actions appended to the IterGP state
 * with BLAS-3 work. For actions s_j = e_{idx_j}:
 *   T_b = K S_b            kernel columns, no K product
 *   Z   = T_b + W^{-1} S_b  = K^ S_b
 *   W   = Q'Z,  D = S_b - Q W        projection on the old root
 *   E   = D'K^D = Z_J - W'W = L L'   (pivot j of L is eta_j of action j)
 *   Q_new = D L^{-T},  K Q_new = (T_b - (K Q) W) L^{-T}
 * which is the one-at-a-time Gram-Schmidt of the inner
 * solve (laplace_inner.c) reordered. When
 * S = P_I (every action so far a unit vector) Q'z = G'z[I] and D's rows are G's,
 * so the projection costs O(r^2 b) instead of O(NC r b). */
#include "laplace/laplace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int64_t sgp_unit_block_ws(int64_t NC, int64_t b, int64_t cap)
{
  return 2 * NC * b + 2 * cap * b + 2 * b * b;
}

/* T[:, j] = K e_{idx_j}: column p of K_x in class block c (idx = p + N c). Runs
 * of consecutive points in one class (the natural order of the exact mode) are
 * evaluated as tiles of up to 64 columns, the same entries as column by column.
 * With one class every entry is written, so only C > 1 zeroes the other blocks. */
void sgp_unit_kernel_columns(sgp_ctx *ctx, const sgp_unit_block *ub, int64_t n, int64_t NC,
                             double *T)
{
  const int64_t b = ub->b, tile = 64;
  if (NC > n) memset(T, 0, (size_t)(NC * b) * sizeof(double));
  const int saved = sgp_blas_serial_begin();
  /* each kernel entry costs tens of flops (distance and exponential) */
  const int nt = sgp_par_threads(ctx, 30.0 * (double)n * (double)b);
  (void)nt;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
  for (int64_t j0 = 0; j0 < b; j0 += tile) {
    const int64_t j1 = j0 + tile < b ? j0 + tile : b;
    for (int64_t j = j0; j < j1;) {
      const int64_t p = ub->idx[j] % n, c = ub->idx[j] / n;
      int64_t nj = 1;
      while (j + nj < j1 && ub->idx[j + nj] == ub->idx[j] + nj && p + nj < n) nj++;
      sgp_kernel_tile(ctx, ub->kernel, ub->prep, 0, n, ub->prep, p, nj, T + j * NC + n * c, NC);
      j += nj;
    }
  }
  sgp_blas_serial_end(saved);
}

/* Lower Cholesky of the b-by-b E in place, column by column, stopping at the
 * first pivot eta_j <= eta_rtol * sz_j (or not positive). Returns the number of
 * accepted pivots. */
static int64_t block_cholesky(int64_t b, double *E, const double *sz, double eta_rtol)
{
  for (int64_t j = 0; j < b; j++) {
    double piv = E[j + j * b];
    for (int64_t k = 0; k < j; k++) piv -= E[j + k * b] * E[j + k * b];
    if (!(piv > eta_rtol * sz[j]) || !(piv > 0.0) || !isfinite(piv)) return j;
    const double l = sqrt(piv);
    E[j + j * b] = l;
    for (int64_t i = j + 1; i < b; i++) {
      double a = E[i + j * b];
      for (int64_t k = 0; k < j; k++) a -= E[i + k * b] * E[j + k * b];
      E[i + j * b] = a / l;
    }
  }
  return b;
}

int sgp_itergp_unit_block(sgp_ctx *ctx, sgp_itergp *it, sgp_unit_block *ub)
{
  const int64_t n = it->n, NC = it->NC, B = it->B, r = it->r, ldg = it->cap, b = ub->b;
  int st;
  ub->accepted = 0;
  ub->reason = SGP_STOP_NONE;
  if (b < 1) return SGP_OK;
  if (B + b > it->cap || B != r)
    return sgp_fail(ctx, SGP_EDIM, "unit block: %lld actions do not fit (B %lld, r %lld, cap %lld)",
                    (long long)b, (long long)B, (long long)r, (long long)it->cap);
  if ((st = sgp_itergp_kq(ctx, it))) return st;
  double *Z = ub->ws, *Y = Z + NC * b, *W = Y + NC * b, *GW = W + ldg * b, *E = GW + ldg * b,
         *Li = E + b * b;
  double *Sb = it->S + NC * B, *Tb = it->T + NC * B, *Qn = it->Q + NC * r, *KQn = it->work + NC * r;
  /* S_b, T_b, Z = K^ S_b */
  memset(Sb, 0, (size_t)(NC * b) * sizeof(double));
  for (int64_t j = 0; j < b; j++) Sb[ub->idx[j] + j * NC] = 1.0;
  sgp_unit_kernel_columns(ctx, ub, n, NC, Tb);
  memcpy(Z, Tb, (size_t)(NC * b) * sizeof(double));
  sgp_lik_winv_add(ub->lik, ub->nd, b, Sb, Z);
  /* W = Q'Z (r x b), GW = G W (B x b) */
  if (r > 0) {
    if (it->unit) {
      for (int64_t j = 0; j < b; j++)
        for (int64_t i = 0; i < B; i++) GW[i + j * ldg] = Z[it->idx[i] + j * NC];
      if (it->g_tri) {
        for (int64_t j = 0; j < b; j++) memcpy(W + j * ldg, GW + j * ldg, (size_t)B * sizeof(double));
        if ((st = sgp_trmm(ctx, 'L', 'U', 'T', r, b, 1.0, it->G, ldg, W, ldg))) return st;
      } else if ((st = sgp_gemm(ctx, 'T', 'N', r, b, B, 1.0, it->G, ldg, GW, ldg, 0.0, W, ldg))) {
        return st;
      }
    } else if ((st = sgp_gemm(ctx, 'T', 'N', r, b, NC, 1.0, it->Q, NC, Z, NC, 0.0, W, ldg))) {
      return st;
    }
    if (it->g_tri) {
      for (int64_t j = 0; j < b; j++) memcpy(GW + j * ldg, W + j * ldg, (size_t)r * sizeof(double));
      if ((st = sgp_trmm(ctx, 'L', 'U', 'N', B, b, 1.0, it->G, ldg, GW, ldg))) return st;
    } else if ((st = sgp_gemm(ctx, 'N', 'N', B, b, r, 1.0, it->G, ldg, W, ldg, 0.0, GW, ldg))) {
      return st;
    }
  }
  /* E = Z_J - W'W, symmetrized; sz_j = s_j'z_j */
  double *sz = Y; /* b values; Y is filled only later */
  for (int64_t j = 0; j < b; j++)
    for (int64_t i = 0; i < b; i++) E[i + j * b] = Z[ub->idx[i] + j * NC];
  for (int64_t j = 0; j < b; j++) sz[j] = E[j + j * b];
  if (r > 0 && (st = sgp_gemm(ctx, 'T', 'N', b, b, r, -1.0, W, ldg, W, ldg, 1.0, E, b)))
    return st;
  for (int64_t j = 0; j < b; j++)
    for (int64_t i = j + 1; i < b; i++) E[i + j * b] = 0.5 * (E[i + j * b] + E[j + i * b]);
  const int64_t bc = block_cholesky(b, E, sz, ub->eta_rtol);
  if (bc < b) ub->reason = SGP_STOP_BREAKDOWN;
  if (bc == 0) return SGP_OK;
  /* Li = L^{-1} (lower, bc x bc); L^{-T} = Li' */
  memset(Li, 0, (size_t)(b * b) * sizeof(double));
  for (int64_t j = 0; j < bc; j++) memcpy(Li + j * b + j, E + j * b + j, (size_t)(bc - j) * sizeof(double));
  if ((st = sgp_trtri(ctx, 'L', bc, Li, b))) return st;
  /* G's new columns [-GW; I] L^{-T} (and zero rows B.. in the old columns) */
  if ((st = sgp_trmm(ctx, 'R', 'L', 'T', B, bc, -1.0, Li, b, GW, ldg))) return st;
  for (int64_t j = 0; j < bc; j++) {
    double *g = it->G + (r + j) * ldg;
    memset(g, 0, (size_t)ldg * sizeof(double));
    memcpy(g, GW + j * ldg, (size_t)B * sizeof(double));
    for (int64_t l = 0; l <= j; l++) g[B + l] = Li[j + l * b]; /* (L^{-T})[l, j] */
  }
  for (int64_t l = 0; l < r; l++)
    for (int64_t i = 0; i < bc; i++) it->G[B + i + l * ldg] = 0.0;
  /* Q_new = D L^{-T}: a scatter of G's rows when S = P_I, else (S_b - Q W) L^{-T} */
  if (it->unit) {
    memset(Qn, 0, (size_t)(NC * bc) * sizeof(double));
    for (int64_t j = 0; j < bc; j++) {
      const double *g = it->G + (r + j) * ldg;
      for (int64_t i = 0; i < B; i++) Qn[it->idx[i] + j * NC] += g[i];
      for (int64_t i = 0; i <= j; i++) Qn[ub->idx[i] + j * NC] += g[B + i];
    }
  } else {
    memcpy(Qn, Sb, (size_t)(NC * bc) * sizeof(double));
    if (r > 0 && (st = sgp_gemm(ctx, 'N', 'N', NC, bc, r, -1.0, it->Q, NC, W, ldg, 1.0, Qn, NC)))
      return st;
    if ((st = sgp_trmm(ctx, 'R', 'L', 'T', NC, bc, 1.0, Li, b, Qn, NC))) return st;
  }
  /* K Q_new = (T_b - (K Q) W) L^{-T};  Y = K^ Q_new */
  memcpy(KQn, Tb, (size_t)(NC * bc) * sizeof(double));
  if (r > 0 && (st = sgp_gemm(ctx, 'N', 'N', NC, bc, r, -1.0, it->work, NC, W, ldg, 1.0, KQn, NC)))
    return st;
  if ((st = sgp_trmm(ctx, 'R', 'L', 'T', NC, bc, 1.0, Li, b, KQn, NC))) return st;
  memcpy(Y, KQn, (size_t)(NC * bc) * sizeof(double));
  sgp_lik_winv_add(ub->lik, ub->nd, bc, Qn, Y);
  /* the actions one after the other: v += (alpha_j / eta_j) d_j = (alpha_j / L_jj) q_j */
  double tr = it->trace_KQ;
  int64_t a = 0;
  for (int64_t j = 0; j < bc; j++) {
    const double rho = sgp_nrm2(NC, ub->res);
    if (!(rho >= ub->rtol)) { ub->reason = SGP_STOP_RESID; break; }
    const double alpha = ub->res[ub->idx[j]], l = E[j + j * b], c = alpha / l;
    const double *q = Qn + j * NC, *y = Y + j * NC, *kq = KQn + j * NC;
    double kq2 = 0.0;
    for (int64_t i = 0; i < NC; i++) {
      ub->v[i] += c * q[i];
      ub->res[i] -= c * y[i];
      kq2 += kq[i] * kq[i];
    }
    if (ub->Kv)
      for (int64_t i = 0; i < NC; i++) ub->Kv[i] += c * kq[i];
    tr += kq2;
    ub->rho[j] = rho;
    ub->alpha[j] = alpha;
    ub->eta[j] = l * l;
    ub->trace_KQ[j] = tr;
    a = j + 1;
  }
  if (a < bc && ub->reason == SGP_STOP_BREAKDOWN) ub->reason = SGP_STOP_RESID;
  for (int64_t j = 0; j < a; j++) it->idx[B + j] = ub->idx[j];
  it->B = B + a;
  it->r = r + a;
  it->trace_KQ = tr;
  ub->accepted = a;
  return SGP_OK;
}
