/* evidence_precond.c -- the preconditioner of the matrix-free evidence's solves
 * with B = I + S K S (evidence_stochastic.c): P = I + S F F' S from a rank-k
 * pivoted Cholesky F F' ~ K (k kernel columns, once per evaluation), applied by
 * Woodbury, P^-1 v = v - S F (I_k + F' W F)^-1 F' S v, refactorized (k x k) when W
 * changes; log|P| = log|I_k + F' W F| (the determinant lemma) for the probes'
 * quadrature, which is of P^-1/2 B P^-1/2. */
#include "laplace/evidence.h"
#include "kernels/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Columns until the largest remaining diagonal of K - F F' is below this share of
 * the outputscale: the rest of K is then a small perturbation of the identity part. */
#define PC_DIAG_TOL 1e-4

void sgp_evs_precond_free(sgp_evs_precond *pc)
{
  free(pc->F); free(pc->SF); free(pc->M); free(pc->T);
  memset(pc, 0, sizeof *pc);
}

/* Pivots given: F = K(:, piv) L^-T with L L' = K(piv, piv), one n x k tile, a
 * k x k Cholesky and a triangular solve, where the greedy loop below reads all of
 * F once a column (O(n k^2) memory traffic: 1-2 s at n = 20000, k = 512). The same
 * factor in exact arithmetic; it stops where the loop would, at the first pivot
 * whose remaining diagonal L_jj^2 is not above 1e-10 s (numerically in span(F)). */
static int build_given(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, const sgp_kprep *prep,
                       const double *center, const int64_t *piv, int64_t given,
                       sgp_evs_precond *pc)
{
  const int64_t n = X.rows, d = X.cols;
  double *Xp = sgp_alloc(given * d);
  sgp_kprep pp;
  memset(&pp, 0, sizeof pp);
  int st = Xp ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory for the preconditioner");
  for (int64_t c = 0; !st && c < d; c++)
    for (int64_t j = 0; j < given; j++) Xp[j + c * given] = X.data[piv[j] + c * X.ld];
  if (!st) st = sgp_kprep_init(ctx, k, sgp_cmat_of(Xp, given, d), center, &pp, "x");
  int64_t kk = 0, minor = 0;
  if (!st) {
    sgp_kernel_tile(ctx, k, prep, 0, n, &pp, 0, given, pc->F, n);
    for (int64_t j = 0; j < given; j++)
      for (int64_t i = 0; i < given; i++) pc->M[i + j * given] = pc->F[piv[i] + j * n];
    st = sgp_potrf_minor(ctx, given, pc->M, given, &minor);
  }
  if (!st) {
    const int64_t ok = minor ? minor - 1 : given;
    while (kk < ok && pc->M[kk + kk * given] * pc->M[kk + kk * given] > 1e-10 * k->outputscale)
      kk++;
    if (kk > 0) st = sgp_trsm(ctx, 'R', 'L', 'T', n, kk, 1.0, pc->M, given, pc->F, n);
  }
  pc->k = pc->ldm = kk;
  sgp_kprep_free(&pp);
  free(Xp);
  return st;
}

int sgp_evs_precond_build(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, int rank,
                          int64_t *piv_io, int64_t *npiv, sgp_evs_precond *pc)
{
  const int64_t given = npiv ? *npiv : 0;
  const int64_t n = X.rows;
  const int64_t kmax = rank < n ? rank : n;
  double *center = NULL, *diag = sgp_alloc(n), *col = sgp_alloc(kmax > 0 ? kmax : 1);
  sgp_kprep prep;
  memset(&prep, 0, sizeof prep);
  memset(pc, 0, sizeof *pc);
  pc->n = n;
  pc->F = sgp_alloc(n * kmax); pc->SF = sgp_alloc(n * kmax); pc->M = sgp_alloc(kmax * kmax);
  pc->T = sgp_alloc((kmax > 0 ? kmax : 1) * SGP_EVS_APPLY_COLS);
  int st = diag && col && pc->F && pc->SF && pc->M && pc->T ? SGP_OK
           : sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory for the preconditioner");
  if (!st) st = sgp_column_means(ctx, X, &center);
  if (!st) st = sgp_kprep_init(ctx, k, X, center, &prep, "x");
  if (!st && given) {
    st = build_given(ctx, k, X, &prep, center, piv_io, given < kmax ? given : kmax, pc);
    goto done;
  }
  for (int64_t i = 0; !st && i < n; i++) diag[i] = k->outputscale;
  int64_t j = 0;
  while (!st && j < kmax) {
    int64_t piv = 0;
    for (int64_t i = 1; i < n; i++) if (diag[i] > diag[piv]) piv = i;
    if (!(diag[piv] > PC_DIAG_TOL * k->outputscale)) break;
    if (piv_io) piv_io[j] = piv;
    double *f = pc->F + j * n;
    sgp_kernel_tile(ctx, k, &prep, 0, n, &prep, piv, 1, f, n);
    /* f = (K e_piv - F F' e_piv) / r: one gemv (row piv of F gathered first; a
     * row-wise loop strides through F, a cache miss per term) */
    for (int64_t c = 0; c < j; c++) col[c] = pc->F[piv + c * n];
    if (j > 0 && (st = sgp_gemm(ctx, 'N', 'N', n, 1, j, -1.0, pc->F, n, col, j, 1.0, f, n)))
      break;
    const double r = sqrt(diag[piv]);
    for (int64_t i = 0; i < n; i++) f[i] /= r;
    for (int64_t i = 0; i < n; i++) diag[i] = fmax(diag[i] - f[i] * f[i], 0.0);
    diag[piv] = 0.0;
    j++;
  }
  pc->k = j;
  pc->ldm = j;
  if (npiv) *npiv = j;
done:
  sgp_kprep_free(&prep);
  free(center); free(diag); free(col);
  if (st) sgp_evs_precond_free(pc);
  return st;
}

int sgp_evs_precond_factorize(sgp_ctx *ctx, sgp_evs_precond *pc, const double *sw)
{
  const int64_t n = pc->n, k = pc->k;
  if (k == 0) return SGP_OK;
  for (int64_t c = 0; c < k; c++)
    for (int64_t i = 0; i < n; i++) pc->SF[i + c * n] = sw[i] * pc->F[i + c * n];
  const int64_t ld = pc->ldm;
  int st = sgp_syrk(ctx, 'T', k, n, 1.0, pc->SF, n, 0.0, pc->M, ld); /* lower: (SF)'SF */
  if (st) return st;
  for (int64_t c = 0; c < k; c++) pc->M[c + c * ld] += 1.0;
  return sgp_potrf(ctx, k, pc->M, ld);
}

int sgp_evs_precond_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  const sgp_evs_precond *pc = (const sgp_evs_precond *)op->state;
  const int64_t n = pc->n, k = pc->k, nb = V.cols;
  for (int64_t c = 0; c < nb; c++)
    memcpy(Y.data + c * Y.ld, V.data + c * V.ld, (size_t)n * sizeof(double));
  if (k == 0) return SGP_OK;
  int st = SGP_OK;
  for (int64_t c0 = 0; !st && c0 < nb; c0 += SGP_EVS_APPLY_COLS) {
    const int64_t nc = nb - c0 < SGP_EVS_APPLY_COLS ? nb - c0 : SGP_EVS_APPLY_COLS;
    st = sgp_gemm(ctx, 'T', 'N', k, nc, n, 1.0, pc->SF, n, V.data + c0 * V.ld, V.ld, 0.0, pc->T, k);
    if (!st) st = sgp_potrs(ctx, k, nc, pc->M, pc->ldm, pc->T, k);
    if (!st)
      st = sgp_gemm(ctx, 'N', 'N', n, nc, k, -1.0, pc->SF, n, pc->T, k, 1.0, Y.data + c0 * Y.ld, Y.ld);
  }
  return st;
}

double sgp_evs_precond_logdet(const sgp_evs_precond *pc)
{
  double ld = 0.0;
  for (int64_t c = 0; c < pc->k; c++) ld += 2.0 * log(pc->M[c + c * pc->ldm]);
  return ld;
}
