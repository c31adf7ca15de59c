/* ski_eig_precond.c -- the working basis and diagonal preconditioner of the
 * eigenbasis log-likelihood (ski_loglik_eig.c). Its solves are with
 *   M = noise I + F'BF,  F = Q Lambda^{1/2} U = sqrt(s) (F_d x ... x F_1),
 *   F_j = Q_j diag(mu_j)^{1/2} U_j,
 * (M is orthogonally similar to noise I + K_G^{1/2} B K_G^{1/2}) with a
 * preconditioner P that is diagonal in the basis U:
 *  - DENSITY (U = I): P = noise + Lambda g, g = (Q o Q)'W'1 ~ diag(Q'BQ)
 *    (sgp_ski_kron_eig_diag_proxy). It follows the data density across the
 *    grid but not B's coupling of modes, and a layer of grid cells without
 *    data (the pad of a cubic grid) leaves most of the large modes' coupling
 *    out: the Krylov steps grow with n.
 *  - MARGINAL: B ~ c (B_d x ... x B_1), B_j = (I x 1')B(I x 1) the marginal of
 *    B along dimension j and c = (1'B1)^(1 - d): exact when B is a Kronecker
 *    product (then B_j = B_j' prod_{k != j} 1'B_k'1 and 1'B1 = prod_k 1'B_k'1),
 *    and so in expectation for data of a product density (the interpolation
 *    weights of a point are a product over the dimensions). Then
 *    Lambda^{1/2}Q'(c x B_j)Q Lambda^{1/2} = c s x_j U_j E_j U_j' with
 *    U_j E_j U_j' the eigen-decomposition of mu_j^{1/2} Q_j'B_jQ_j mu_j^{1/2},
 *    and P = noise + c s (E_d x ... x E_1) inverts that approximation exactly:
 *    as n grows B's deviation from its expectation shrinks relative to it,
 *    and so do the Krylov steps. (A dimension with m_j = 1 has the scalar
 *    marginal 1'B1 and leaves the exponent of c.)
 * MARGINAL is the default: on 3-D data at m = 128K (bench_ski_learn) the
 * probes took 1 Krylov step at n = 1e6 and 1e8 against DENSITY's 13 and 32;
 * for data uniform in a ball, 18 against 147; near a plane, both the cap. */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sgp_ski_eig_basis_free(sgp_ski_eig_basis *eb)
{
  for (int j = 0; j < SGP_SKI_MAX_D; j++) {
    free(eb->F[j]); free(eb->U[j]); free(eb->E[j]); free(eb->dA[j]);
  }
  memset(eb, 0, sizeof *eb);
}

/* Bj[j] (m_j-by-m_j, zeroed by the caller) += the marginals of the stencil
 * rows s0..s1-1; grid coordinates follow g incrementally. */
static void marginal_rows(const sgp_ski_stats *st, int64_t s0, int64_t s1, double **Bj)
{
  const int d = st->grid.d;
  const int64_t m = st->m;
  for (int64_t s = s0; s < s1; s++) {
    const int *o = st->off + s * d;
    const double *Ds = st->D + s * m;
    int64_t sub[SGP_SKI_MAX_D] = {0};
    for (int64_t g = 0; g < m; g++) {
      const double v = Ds[g];
      if (v != 0.0)
        for (int j = 0; j < d; j++) {
          const int64_t mj = st->grid.m[j];
          Bj[j][sub[j] + (sub[j] + o[j]) * mj] += v;
        }
      sgp_ski_sub_next(sub, st->grid.m, d);
    }
  }
}

/* Partial sums over this many fixed slices of the stencil rows, added in
 * order: the marginals' bits do not depend on the thread count. */
#define MARGINAL_SLICES 4

void sgp_ski_marginals_free(sgp_ski_marginals *mg)
{
  for (int j = 0; j < SGP_SKI_MAX_D; j++) free(mg->B[j]);
  memset(mg, 0, sizeof *mg);
}

int sgp_ski_marginals_make(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_ski_marginals *mg)
{
  const int d = st->grid.d;
  int64_t size = 0;
  memset(mg, 0, sizeof *mg);
  for (int j = 0; j < d; j++) size += st->grid.m[j] * st->grid.m[j];
  const int nt = sgp_ctx_threads(ctx) > 0 ? sgp_ctx_threads(ctx) : 1;
  double *part = sgp_calloc(size * MARGINAL_SLICES);
  int code = part ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "out of memory for the marginals of B");
  for (int j = 0; j < d && !code; j++)
    if (!(mg->B[j] = sgp_alloc(st->grid.m[j] * st->grid.m[j])))
      code = sgp_fail(ctx, SGP_ENOMEM, "out of memory for the marginals of B");
  if (code) {
    free(part);
    sgp_ski_marginals_free(mg);
    return code;
  }
  (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int t = 0; t < MARGINAL_SLICES; t++) {
    double *mine[SGP_SKI_MAX_D];
    int64_t at = size * t;
    for (int j = 0; j < d; j++) { mine[j] = part + at; at += st->grid.m[j] * st->grid.m[j]; }
    marginal_rows(st, st->S * t / MARGINAL_SLICES, st->S * (t + 1) / MARGINAL_SLICES, mine);
  }
  int64_t at = 0;
  for (int j = 0; j < d; j++) {
    const int64_t n2 = st->grid.m[j] * st->grid.m[j];
    for (int64_t i = 0; i < n2; i++) {
      double v = 0.0;
      for (int t = 0; t < MARGINAL_SLICES; t++) v += part[size * t + at + i];
      mg->B[j][i] = v;
    }
    at += n2;
  }
  for (int64_t i = 0; i < st->grid.m[0] * st->grid.m[0]; i++) mg->total += mg->B[0][i];
  free(part);
  return SGP_OK;
}

/* F_j = Q_j diag(mu_j)^{1/2} [U_j], scaled by sqrt(s) when `first`. */
static int basis_factor(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, int j, const double *U,
                        int first, double *F)
{
  const int64_t mj = ke->m[j];
  const double rs = first ? sqrt(ke->scale) : 1.0;
  double *QM = sgp_alloc(mj * mj);
  if (!QM) return sgp_fail(ctx, SGP_ENOMEM, "out of memory for the eigenbasis");
  for (int64_t b = 0; b < mj; b++) {
    const double f = rs * sqrt(ke->mu[j][b]);
    for (int64_t a = 0; a < mj; a++) QM[a + b * mj] = f * ke->Q[j][a + b * mj];
  }
  int code = SGP_OK;
  if (U) code = sgp_gemm(ctx, 'N', 'N', mj, mj, mj, 1.0, QM, mj, U, mj, 0.0, F, mj);
  else memcpy(F, QM, (size_t)(mj * mj) * sizeof(double));
  free(QM);
  return code;
}

/* U_j and E_j (ascending, negatives of rounding set to 0) of
 * mu_j^{1/2} Q_j'B_jQ_j mu_j^{1/2}; Bj is overwritten. */
static int marginal_eig(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, int j, double *Bj,
                        double *U, double *E)
{
  const int64_t mj = ke->m[j];
  const double *Q = ke->Q[j], *mu = ke->mu[j];
  int code;
  if ((code = sgp_gemm(ctx, 'T', 'N', mj, mj, mj, 1.0, Q, mj, Bj, mj, 0.0, U, mj))) return code;
  if ((code = sgp_gemm(ctx, 'N', 'N', mj, mj, mj, 1.0, U, mj, Q, mj, 0.0, Bj, mj))) return code;
  for (int64_t b = 0; b < mj; b++)
    for (int64_t a = 0; a < mj; a++)
      U[a + b * mj] = sqrt(mu[a] * mu[b]) * 0.5 * (Bj[a + b * mj] + Bj[b + a * mj]);
  if ((code = sgp_syev(ctx, mj, U, mj, E))) return code;
  for (int64_t i = 0; i < mj; i++) if (!(E[i] > 0)) E[i] = 0.0;
  return SGP_OK;
}

/* dA = diag(U' diag(mu)^{1/2} C dR U) for C = Q_j'B_jQ_j (m_j-by-m_j). */
static int marginal_dA(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, int j, const double *C,
                       const double *U, double *dA)
{
  const int64_t mj = ke->m[j];
  double *W = sgp_alloc(2 * mj * mj);
  if (!W) return sgp_fail(ctx, SGP_ENOMEM, "out of memory for the lengthscale traces");
  double *W2 = W + mj * mj;
  int code = sgp_gemm(ctx, 'N', 'N', mj, mj, mj, 1.0, C, mj, ke->dR[j], mj, 0.0, W, mj);
  if (!code) code = sgp_gemm(ctx, 'N', 'N', mj, mj, mj, 1.0, W, mj, U, mj, 0.0, W2, mj);
  for (int64_t i = 0; !code && i < mj; i++) {
    double v = 0.0;
    for (int64_t a = 0; a < mj; a++) v += U[a + i * mj] * sqrt(ke->mu[j][a]) * W2[a + i * mj];
    dA[i] = v;
  }
  free(W);
  return code;
}

/* pd = noise + c s prod_j E_j[sub_j] (E_j = {1} where m_j = 1: its marginal
 * is the scalar 1'B1, whose factor c already holds). */
static void marginal_diagonal(const sgp_ski_kron_eig *ke, double *const *E, double cs,
                              double noise, double *pd)
{
  int64_t sub[SGP_SKI_MAX_D] = {0};
  for (int64_t i = 0; i < ke->mtot; i++) {
    double p = cs;
    for (int j = 0; j < ke->d; j++) if (E[j]) p *= E[j][sub[j]];
    pd[i] = noise + p;
    sgp_ski_sub_next(sub, ke->m, ke->d);
  }
}

static int marginal_basis(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, const sgp_ski_marginals *mg,
                          double noise, sgp_ski_eig_basis *eb, double *pd)
{
  const int d = ke->d;
  double **E = eb->E, *C = NULL;
  int code = SGP_OK, first = 1, scalars = 0;
  if (!mg || !(mg->total > 0))
    return sgp_fail(ctx, SGP_EINVAL, "stats: the interpolation weights sum to %g",
                    mg ? mg->total : 0.0);
  eb->mg = mg;
  for (int j = 0; j < d && !code; j++) {
    if (!ke->Q[j]) { scalars++; continue; }
    const int64_t mj = ke->m[j];
    eb->U[j] = sgp_alloc(mj * mj); eb->F[j] = sgp_alloc(mj * mj); E[j] = sgp_alloc(mj);
    eb->dA[j] = sgp_alloc(mj);
    free(C);
    C = sgp_alloc(mj * mj);
    if (!eb->U[j] || !eb->F[j] || !E[j] || !eb->dA[j] || !C)
      code = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
    if (!code) memcpy(C, mg->B[j], (size_t)(mj * mj) * sizeof(double));
    if (!code) code = marginal_eig(ctx, ke, j, C, eb->U[j], E[j]); /* C: Q_j'B_jQ_j */
    if (!code) code = marginal_dA(ctx, ke, j, C, eb->U[j], eb->dA[j]);
    if (!code) code = basis_factor(ctx, ke, j, eb->U[j], first, eb->F[j]);
    first = 0;
  }
  free(C);
  /* c = total^(1 - d); a dimension with m_j = 1 contributes total */
  eb->c = pow(mg->total, (double)(1 + scalars - d));
  if (!code) marginal_diagonal(ke, E, ke->scale * eb->c, noise, pd);
  return code;
}

static int density_basis(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_ski_kron_eig *ke,
                         double noise, sgp_ski_eig_basis *eb, double *pd)
{
  const int64_t m = ke->mtot;
  double *g = sgp_alloc(m);
  int code = g ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "out of memory for the preconditioner");
  int first = 1;
  for (int j = 0; j < ke->d && !code; j++) {
    if (!ke->Q[j]) continue;
    if (!(eb->F[j] = sgp_alloc(ke->m[j] * ke->m[j])))
      code = sgp_fail(ctx, SGP_ENOMEM, "out of memory for the eigenbasis");
    else code = basis_factor(ctx, ke, j, NULL, first, eb->F[j]);
    first = 0;
  }
  if (!code) code = sgp_ski_kron_eig_diag_proxy(ctx, ke, st->u1, g);
  if (!code) {
    sgp_ski_kron_eig_sqrt_values(ke, pd);
    for (int64_t i = 0; i < m; i++) pd[i] = noise + pd[i] * pd[i] * (g[i] > 0 ? g[i] : 0.0);
  }
  free(g);
  return code;
}

int sgp_ski_eig_basis_make(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_ski_kron_eig *ke,
                           const sgp_ski_marginals *mg, double noise,
                           sgp_ski_eig_precond precond, sgp_ski_eig_basis *eb, double *pd)
{
  memset(eb, 0, sizeof *eb);
  /* a serial BLAS, as for ke's factors: a threaded one splits the products by
   * its thread count, which changes their bits */
  const int blas = sgp_blas_serial_begin();
  const int code = precond == SGP_SKI_EIG_PRECOND_MARGINAL
                   ? marginal_basis(ctx, ke, mg, noise, eb, pd)
                   : density_basis(ctx, st, ke, noise, eb, pd);
  sgp_blas_serial_end(blas);
  if (code) sgp_ski_eig_basis_free(eb);
  return code;
}
