/* laplace_finite.c -- the last check of gp_laplace's fit and predictions: no
 * NaN or Inf leaves the core as a result. Scales beyond double precision (counts,
 * offsets or kernel scales whose exp or square overflows) would otherwise come
 * back as silent garbage; they become an error naming the inputs involved. */
#include "laplace/laplace.h"

#include <math.h>

/* Index of the first non-finite of n values, or -1. */
static int64_t first_bad(int64_t n, const double *v)
{
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return i;
  return -1;
}

int sgp_laplace_check_fit_finite(sgp_ctx *ctx, const sgp_laplace_result *fit)
{
  const int64_t NC = fit->n * fit->C;
  const char *names[] = {"f", "var", "weights", "root"};
  const double *arrays[] = {fit->f, fit->var, fit->weights, fit->root};
  const int64_t sizes[] = {NC, NC, NC, NC * fit->r};
  for (int k = 0; k < 4; k++) {
    const int64_t i = first_bad(sizes[k], arrays[k]);
    if (i >= 0)
      return sgp_fail(ctx, SGP_EINVAL,
                      "y: the fit overflowed double precision (non-finite %s at row %lld); "
                      "rescale y, offset, outputscale or noise",
                      names[k], (long long)(i % fit->n + 1));
  }
  return SGP_OK;
}

int sgp_laplace_check_pred_finite(sgp_ctx *ctx, int has_offset, sgp_mat mean, sgp_mat var,
                                  sgp_mat resp_mean, sgp_mat resp_var)
{
  const char *names[] = {"mean", "var", "response mean", "response variance"};
  const sgp_mat m[] = {mean, var, resp_mean, resp_var};
  for (int k = 0; k < 4; k++) {
    if (!m[k].data) continue;
    for (int64_t j = 0; j < m[k].cols; j++) {
      const int64_t i = first_bad(m[k].rows, m[k].data + j * m[k].ld);
      if (i >= 0)
        return sgp_fail(ctx, SGP_EINVAL,
                        "%s: the prediction overflowed double precision (non-finite %s at "
                        "test point %lld)%s", has_offset ? "offset" : "fit", names[k],
                        (long long)(i + 1), has_offset ? "; use smaller offsets (log exposures)"
                                                       : "; its weights or root are out of range");
    }
  }
  return SGP_OK;
}
