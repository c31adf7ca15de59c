/* ski_love_check.c -- how far the LOVE variances (variance = "lanczos",
 * ski_var.c) may be from the exact ones, bounded at a few check points when
 * the cache is built.
 *
 * LOVE gives v_L = prior - k'Q T^{-1} Q'k for k = W K_G w*: the Galerkin
 * solution x_L = Q y, y = T^{-1} Q'k, of A x = k in the Lanczos basis Q. With
 * its residual r = k - A x_L the identity of ski_var.c (k'A^{-1}k = k'x_L +
 * x_L'r + r'A^{-1}r) gives the exact variance v = v_L - x_L'r - r'A^{-1}r, so
 *   |v_L - v| <= err = |x_L'r| + ||r||^2 / noise (+ rounding),
 * quadratic in a residual that vanishes once the basis holds k's directions.
 * A rank too small for the data (a 2-D grid with many points, small noise)
 * leaves the directions that make v small unresolved: the variances come
 * out many times the exact ones, and nothing in v_L shows it. The check costs
 * two K_G and two B products of a block of SGP_SKI_LOVE_CHECKS columns.
 *
 * The check points are grid nodes (w* = e_g, prior K_G[g, g]): in each of
 * SGP_SKI_LOVE_CHECKS equal slices of the grid's index range the node with the
 * most data weight (W'1), where the posterior variance is smallest against
 * the prior and so hardest to resolve. This bounds the error there, not at
 * every test point; variance = "exact" bounds it at each. */
#include "ski/ski.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The nodes of most data weight, one per slice (slices without data none). */
static int64_t check_nodes(const sgp_ski_stats *st, int64_t *node)
{
  const int64_t m = st->m, P = SGP_SKI_LOVE_CHECKS;
  int64_t count = 0;
  for (int64_t s = 0; s < P; s++) {
    const int64_t a = s * m / P, b = (s + 1) * m / P;
    int64_t best = -1;
    for (int64_t g = a; g < b; g++)
      if (st->u1[g] > 0 && (best < 0 || st->u1[g] > st->u1[best])) best = g;
    if (best >= 0) node[count++] = best;
  }
  return count;
}

/* y (k-by-P) = T^{-1} a = C^{-T} C^{-1} a with T = C C' (C lower bidiagonal:
 * diagonal cc, subdiagonal ee); q (P) = ||C^{-1} a_j||^2, LOVE's k'Q T^{-1}Q'k. */
static void tridiag_solve(int64_t k, int64_t P, const double *cc, const double *ee, double *y,
                          double *q)
{
  for (int64_t j = 0; j < P; j++) {
    double *c = y + j * k, s = 0.0;
    for (int64_t i = 0; i < k; i++) {
      c[i] = (c[i] - (i > 0 ? ee[i - 1] * c[i - 1] : 0.0)) / cc[i];
      s += c[i] * c[i];
    }
    q[j] = s;
    for (int64_t i = k - 1; i >= 0; i--)
      c[i] = (c[i] - (i + 1 < k ? ee[i] * c[i + 1] : 0.0)) / cc[i];
  }
}

int sgp_ski_love_check(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, const sgp_op *B,
                       double noise, const sgp_ski_love_basis *lb, double *rel_error)
{
  const int64_t m = st->m, k = lb->k;
  int64_t node[SGP_SKI_LOVE_CHECKS];
  int code = SGP_OK;
  *rel_error = 0.0;
  const int64_t P = check_nodes(st, node);
  if (P == 0 || k == 0) { /* no data: v = prior, exact; rank 0 (no data either) */
    *rel_error = P == 0 ? 0.0 : NAN;
    return SGP_OK;
  }
  /* K (rhat), U = B rhat, then rho (m-by-P each); Y (k-by-P); Z: work */
  double *K = sgp_alloc(m * P), *U = sgp_calloc(m * P), *Z = sgp_alloc(m * P);
  double *X = sgp_alloc(m * P), *Y = sgp_alloc(k * P), *q = sgp_alloc(P);
  if (!K || !U || !Z || !X || !Y || !q) {
    code = sgp_fail(ctx, SGP_ENOMEM, "rank: out of memory for the LOVE check");
    goto cleanup;
  }
  for (int64_t j = 0; j < P; j++) U[node[j] + j * m] = 1.0;
  if ((code = kg->apply(kg, sgp_cmat_of(U, m, P), sgp_mat_of(K, m, P), ctx))) goto cleanup;
  if ((code = B->apply(B, sgp_cmat_of(K, m, P), sgp_mat_of(U, m, P), ctx))) goto cleanup;
  /* a = Q'k = Qhat' B rhat; y = T^{-1} a; x_L = W Qhat y: X = Qhat y, Z = Phat y
   * (serial BLAS: the same bits for every thread count, as in ski_var.c) */
  const int blas_threads = sgp_blas_serial_begin();
  code = sgp_gemm(ctx, 'T', 'N', k, P, m, 1.0, lb->Qh, m, U, m, 0.0, Y, k);
  if (!code) tridiag_solve(k, P, lb->cc, lb->ee, Y, q);
  if (!code) code = sgp_gemm(ctx, 'N', 'N', m, P, k, 1.0, lb->Qh, m, Y, k, 0.0, X, m);
  if (!code) code = sgp_gemm(ctx, 'N', 'N', m, P, k, 1.0, lb->Ph, m, Y, k, 0.0, Z, m);
  sgp_blas_serial_end(blas_threads);
  if (code) goto cleanup;
  /* rho = rhat - K_G (Phat y) - noise Qhat y, r = W rho */
  if ((code = kg->apply(kg, sgp_cmat_of(Z, m, P), sgp_mat_of(U, m, P), ctx))) goto cleanup;
  for (int64_t i = 0; i < m * P; i++) K[i] -= U[i] + noise * X[i];
  if ((code = B->apply(B, sgp_cmat_of(K, m, P), sgp_mat_of(U, m, P), ctx))) goto cleanup;
  const double prior = lb->c0[0];
  for (int64_t j = 0; j < P; j++) {
    const double *rho = K + j * m, *u = U + j * m, *x = X + j * m;
    double rr = 0.0, ra = 0.0, xr = 0.0, xa = 0.0;
    for (int64_t i = 0; i < m; i++) {
      rr += rho[i] * u[i];
      ra += fabs(rho[i] * u[i]);
      xr += x[i] * u[i];
      xa += fabs(x[i] * u[i]);
    }
    const double vl = prior - q[j];
    const double round = (2.0 + sqrt((double)m)) * DBL_EPSILON * (ra / noise + xa + prior + q[j]);
    const double err = fabs(xr) + fmax(rr, 0.0) / noise + round, lo = vl - err;
    const double re = lo > 0 ? err / lo : INFINITY;
    if (!(re <= *rel_error)) *rel_error = re;
  }
cleanup:
  free(K); free(U); free(Z); free(X); free(Y); free(q);
  return code;
}
