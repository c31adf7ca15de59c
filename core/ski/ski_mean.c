/* ski_mean.c -- the constant prior mean of ski_gsgp: statistics of
 * the centred targets y - mu 1 and the GLS estimate of mu, both from the
 * sufficient statistics alone (W'y, W'1, y'y, sum y, n), so fits from merged
 * statistics need no data pass.
 *
 * Why centre: the solves stop on ||r|| <= tol ||b||. With b = y far from 0
 * (Lake Huron ~579 ft) ||y|| is dominated by the offset, and a 1% residual of
 * it is several feet of error in the posterior mean; with b = y - mu 1 the
 * rule is relative to the data's variation. */
#include "ski/ski.h"

#include <math.h>
#include <string.h>


int sgp_ski_gls_fail(sgp_ctx *ctx, double den)
{
  /* 1'A^-1 1 > 0 for any positive definite A: a value that is not is A's
   * rounding, an outputscale or noise far off the data's scale */
  return sgp_fail(ctx, SGP_EINVAL, "mean: its GLS estimate is not finite (1'A^-1 1 = %g): give "
                  "mean, or an outputscale and noise on the data's scale", den);
}

void sgp_ski_stats_centred(const sgp_ski_stats *st, double mu, double *uy_buf,
                           sgp_ski_stats *out)
{
  *out = *st;
  for (int64_t i = 0; i < st->m; i++) uy_buf[i] = st->uy[i] - mu * st->u1[i];
  out->uy = uy_buf;
  out->ysum = st->ysum - mu * (double)st->n;
  /* sum (y - mu)^2 = y'y - 2 mu sum y + mu^2 n: the cancellation leaves an error
   * of a few eps y'y, far below the tolerances it is compared with */
  const double yy = st->yy - 2.0 * mu * st->ysum + mu * mu * (double)st->n;
  out->yy = yy > 0 ? yy : 0.0;
}

int sgp_ski_gls_mean(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                     const sgp_ski_solve_opts *so, double *work, double *mu,
                     sgp_ski_solve_info *info)
{
  *mu = 0.0;
  memset(info, 0, sizeof *info);
  info->converged = 1;
  info->stop = SGP_SKI_STOP_TOL;
  if (st->n < 1) return SGP_OK;
  /* the targets 1: W'1 = u1, 1'1 = sum 1 = n */
  sgp_ski_stats ones = *st;
  ones.uy = st->u1;
  ones.yy = ones.ysum = (double)st->n;
  const int64_t m = st->m;
  double *a = work, *xh = work + m, cx = 0.0;
  int code = sgp_ski_mean_efcg(ctx, &ones, kg, noise, so, a, xh, &cx, info, NULL, NULL, NULL);
  if (code) return code;
  /* x = A^-1 1 = W xh + cx 1: mu = y'x / 1'x */
  double num, den;
  sgp_ski_dot2(m, st->uy, xh, st->u1, xh, &num, &den);
  num += cx * st->ysum;
  den += cx * (double)st->n;
  if (!(den > 0) || !isfinite(num / den))
    return sgp_ski_gls_fail(ctx, den);
  *mu = num / den;
  return SGP_OK;
}

int sgp_ski_gls_mean_cg(sgp_ctx *ctx, const sgp_op *ski, sgp_cmat y, const sgp_ski_solve_opts *so,
                        double *work, double *mu, sgp_ski_solve_info *info)
{
  *mu = 0.0;
  memset(info, 0, sizeof *info);
  info->converged = 1;
  info->stop = SGP_SKI_STOP_TOL;
  const int64_t n = y.rows;
  if (n < 1) return SGP_OK;
  /* work: n ones, then x (n), then the weights (m) */
  double *one = work, *x = work + n;
  for (int64_t i = 0; i < n; i++) one[i] = 1.0;
  int code = sgp_ski_mean_cg(ctx, ski, sgp_cmat_of(one, n, 1), so, x + n, x, info, NULL, NULL,
                             NULL);
  if (code) return code;
  double num = 0.0, den = 0.0;
  for (int64_t i = 0; i < n; i++) {
    num += y.data[i] * x[i];
    den += x[i];
  }
  if (!(den > 0) || !isfinite(num / den))
    return sgp_ski_gls_fail(ctx, den);
  *mu = num / den;
  return SGP_OK;
}
