/* laplace_init.c -- data-based initial hyperparameters (spec model_selection.md
 * §5): the values a fit starts learning from, and uses when told to learn
 * nothing of what the user did not give. */
#include "laplace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double variance(const double *y, int64_t n, double (*tf)(double))
{
  double s = 0.0, q = 0.0;
  for (int64_t i = 0; i < n; i++) s += tf ? tf(y[i]) : y[i];
  const double mu = s / (double)n;
  for (int64_t i = 0; i < n; i++) { const double t = (tf ? tf(y[i]) : y[i]) - mu; q += t * t; }
  return n > 1 ? q / (double)(n - 1) : 0.0;
}

static double log_count(double y) { return log(y + 0.5); }

int sgp_laplace_initial(sgp_ctx *ctx, sgp_cmat X, const sgp_lik *lik, int want_ls, double *ls,
                        double *s, double *mean, double *noise)
{
  const int64_t n = lik->n, C = lik->C;
  int st = want_ls ? sgp_select_init_lengthscale(ctx, X, ls) : SGP_OK;
  if (st) return st;
  double ysum = 0.0;
  for (int64_t i = 0; i < n; i++) ysum += lik->y[i];
  *noise = NAN;
  switch (lik->kind) {
  case SGP_LIK_GAUSSIAN: {
    const double v = variance(lik->y, n, NULL);
    *s = v > 0 ? v / 2 : 1.0;
    *noise = v > 0 ? v / 4 : 1.0;
    mean[0] = ysum / (double)n;
    break;
  }
  case SGP_LIK_BERNOULLI: { /* the class frequency, kept off 0 and 1 */
    const double p = fmin(fmax(ysum / (double)n, 0.5 / (double)n), 1.0 - 0.5 / (double)n);
    *s = 1.0;
    mean[0] = log(p / (1.0 - p));
    break;
  }
  case SGP_LIK_POISSON: { /* the mean rate over the exposure */
    double expo = 0.0;
    for (int64_t i = 0; i < n; i++) expo += exp(lik->offset ? lik->offset[i] : 0.0);
    const double v = variance(lik->y, n, log_count);
    *s = v > 0 ? v : 1.0;
    mean[0] = log(fmax(ysum, 0.5) / expo);
    break;
  }
  case SGP_LIK_SOFTMAX: { /* log class frequencies, centred (softmax ignores a shift) */
    double centre = 0.0;
    for (int64_t c = 0; c < C; c++) mean[c] = 0.5;
    for (int64_t i = 0; i < n; i++) mean[(int64_t)lik->y[i] - 1] += 1.0;
    for (int64_t c = 0; c < C; c++) { mean[c] = log(mean[c]); centre += mean[c] / (double)C; }
    for (int64_t c = 0; c < C; c++) mean[c] -= centre;
    *s = 1.0;
    break;
  }
  }
  return SGP_OK;
}
