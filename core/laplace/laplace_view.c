/* laplace_view.c -- a non-owning sgp_laplace_result over plain data, so that the R
 * and Octave shims can predict from a saved/reloaded fit (no external pointers). */
#include "laplace/lik_table.h"

#include <string.h>

int sgp_laplace_fit_view(sgp_ctx *ctx, sgp_laplace_result *fit, sgp_cmat X, sgp_cmat weights,
                         sgp_cmat root, const sgp_kernel *kernel, sgp_likelihood likelihood,
                         double noise, sgp_cmat mean)
{
  int st;
  if (!fit || !kernel) return sgp_fail(ctx, SGP_EINVAL, "fit: must not be NULL");
  memset(fit, 0, sizeof *fit);
  const sgp_lik_ops *ops = sgp_lik_ops_of(likelihood);
  if (!ops)
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: unknown value %d", (int)likelihood);
  if ((st = sgp_check_finite(ctx, "x", X))) return st;
  if ((st = sgp_kernel_check(ctx, kernel, X.cols))) return st;
  const int64_t n = X.rows, C = weights.cols;
  if (weights.rows != n || C < 1 || (!ops->multiclass && C != 1) || (ops->multiclass && C < 2))
    return sgp_fail(ctx, SGP_EDIM, "weights: is %lld x %lld; need %lld rows and %s",
                    (long long)weights.rows, (long long)C, (long long)n,
                    ops->multiclass ? "at least 2 columns" : "1 column");
  if ((st = sgp_check_finite(ctx, "weights", weights))) return st;
  if (root.cols > 0 && root.rows != n * C)
    return sgp_fail(ctx, SGP_EDIM, "root: has %lld rows; need n * C = %lld",
                    (long long)root.rows, (long long)(n * C));
  if (root.cols > 0 && (st = sgp_check_finite(ctx, "root", root))) return st;
  /* the predictor reads contiguous blocks */
  if (X.ld != n || weights.ld != n || (root.cols > 0 && root.ld != n * C))
    return sgp_fail(ctx, SGP_EDIM, "x: views must be contiguous (ld = rows)");
  if (ops->has_noise && !(noise > 0.0))
    return sgp_fail(ctx, SGP_EINVAL, "noise: must be positive (got %g)", noise);
  const int64_t nm = mean.data ? mean.rows * mean.cols : 0;
  if (nm && nm != 1 && nm != C)
    return sgp_fail(ctx, SGP_EDIM, C > 1 ? "mean: has %lld values; need 1 or %lld"
                                         : "mean: has %lld values; need 1", (long long)nm,
                    (long long)C);
  if (nm && (st = sgp_check_finite(ctx, "mean", mean))) return st;
  fit->hyper.mean = nm ? (double *)mean.data : NULL;
  fit->hyper.n_mean = nm;
  fit->n = n;
  fit->d = X.cols;
  fit->C = C;
  fit->r = root.cols > 0 ? root.cols : 0;
  fit->likelihood = likelihood;
  fit->kernel = *kernel;
  fit->X = (double *)X.data;
  fit->weights = (double *)weights.data;
  fit->root = (double *)root.data;
  fit->noise = ops->has_noise ? noise : 0.0;
  return SGP_OK;
}
