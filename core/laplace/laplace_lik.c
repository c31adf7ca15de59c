/* laplace_lik.c -- the likelihoods' common entry points (laplace.h): the checks
 * every likelihood shares and the dispatch to its ops (lik_table.h). */
#include "laplace/lik_table.h"

#include <math.h>

int sgp_lik_check(sgp_ctx *ctx, const sgp_lik *lik)
{
  const int64_t n = lik->n;
  const sgp_lik_ops *ops = sgp_lik_ops_of(lik->kind);
  if (!ops)
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: unknown value %d", (int)lik->kind);
  if (n <= 0) return sgp_fail(ctx, SGP_EINVAL, "y: is empty");
  int st = ops->check ? ops->check(ctx, lik) : SGP_OK;
  if (st) return st;
  for (int64_t i = 0; i < n; i++) {
    const double y = lik->y[i];
    char why[160];
    if (!isfinite(y))
      return sgp_fail(ctx, SGP_EINVAL, "y: contains NaN or Inf (element %lld)", (long long)(i + 1));
    if (!ops->label(lik, i, why, sizeof why))
      return sgp_fail(ctx, SGP_EINVAL, "y: %s (element %lld is %g)", why, (long long)(i + 1), y);
  }
  if (ops->has_noise) {
    if (!lik->noise || (lik->n_noise != 1 && lik->n_noise != n))
      return sgp_fail(ctx, SGP_EDIM, "noise: needs 1 or %lld values (got %lld)", (long long)n,
                      (long long)lik->n_noise);
    for (int64_t i = 0; i < lik->n_noise; i++)
      if (!(lik->noise[i] > 0.0) || !isfinite(lik->noise[i]))
        return sgp_fail(ctx, SGP_EINVAL, "noise: must be positive and finite (element %lld is %g)",
                        (long long)(i + 1), lik->noise[i]);
  }
  for (int64_t i = 0; lik->offset && i < n; i++) {
    if (!isfinite(lik->offset[i]))
      return sgp_fail(ctx, SGP_EINVAL, "offset: contains NaN or Inf (element %lld)",
                      (long long)(i + 1));
    if (fabs(lik->offset[i]) > 700.0) /* the exposure exp(offset) must be finite */
      return sgp_fail(ctx, SGP_EINVAL,
                      "offset: log exposures must lie in [-700, 700] (element %lld is %g)",
                      (long long)(i + 1), lik->offset[i]);
  }
  if (!(lik->noise_max > 0.0))
    return sgp_fail(ctx, SGP_EINVAL, "noise_max: must be positive (got %g)", lik->noise_max);
  return SGP_OK;
}

void sgp_lik_eval(const sgp_lik *lik, const double *f, double *loglik, double *grad,
                  double *delta, double *nd)
{
  sgp_lik_ops_of(lik->kind)->eval(lik, f, loglik, grad, delta, nd);
}

static void winv_block(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                       double *Y, int add)
{
  const int64_t NC = lik->n * lik->C;
  const sgp_lik_ops *ops = sgp_lik_ops_of(lik->kind);
  for (int64_t j = 0; j < b; j++) {
    const double *v = V + j * NC;
    double *y = Y + j * NC;
    if (ops->winv) { ops->winv(lik, nd, v, y, add); continue; }
    if (add) for (int64_t i = 0; i < NC; i++) y[i] += nd[i] * v[i];
    else for (int64_t i = 0; i < NC; i++) y[i] = nd[i] * v[i];
  }
}

void sgp_lik_winv(const sgp_lik *lik, const double *nd, int64_t b, const double *V, double *Y)
{
  winv_block(lik, nd, b, V, Y, 0);
}

void sgp_lik_winv_add(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                      double *Y)
{
  winv_block(lik, nd, b, V, Y, 1);
}

void sgp_lik_w_apply(const sgp_lik *lik, const double *f, int64_t b, const double *V,
                     int64_t ldv, double *Y, int64_t ldy, double *pi)
{
  sgp_lik_ops_of(lik->kind)->w_apply(lik, f, b, V, ldv, Y, ldy, pi);
}

int sgp_lik_multiclass(sgp_likelihood kind)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(kind);
  return ops && ops->multiclass;
}

int sgp_lik_has_noise(sgp_likelihood kind)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(kind);
  return ops && ops->has_noise;
}
