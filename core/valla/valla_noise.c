/* valla_noise.c -- the gaussian noise taken from validation data and the check that
 * the network fits its training data much better than the validation data
 * (overfitting). A network trained on x has residuals on x that understate
 * its error elsewhere, and Adam's noise, learned on x, inherits that: the intervals
 * cover far less than they claim. The paper treats the noise as a hyperparameter tuned
 * on validation data; here it is the exact minimizer of the validation NLL given the
 * current latent variances, so it is honest when the validation data are data the
 * network did not see (a user's validation set, or the R front's out-of-fold refits). */
#include "valla/valla.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* d/ds of sum_i [log(v_i + s) + r2_i / (v_i + s)]: sum (v + s - r2) / (v + s)^2. */
static double nll_slope(int64_t n, const double *v, const double *r2, double s)
{
  double d = 0;
  for (int64_t i = 0; i < n; i++) {
    const double t = v[i] + s;
    d += (t - r2[i]) / (t * t);
  }
  return d;
}

/* The s > 0 where the slope changes sign from - to +, by bisection on log s. The
 * slope is positive at s = max r2 (every term has t >= r2); at s_lo = 1e-12 mean r2
 * (the smallest noise the standardized scale can express usefully) a positive slope
 * means the latent variances alone already explain the residuals: s_lo. */
static double nll_argmin(int64_t n, const double *v, const double *r2)
{
  double mean = 0, hi = 0;
  for (int64_t i = 0; i < n; i++) { mean += r2[i] / (double)n; hi = fmax(hi, r2[i]); }
  if (!(mean > 0)) return 0;
  double lo = 1e-12 * mean;
  if (nll_slope(n, v, r2, lo) >= 0) return lo;
  for (int k = 0; k < 200 && hi > lo * (1 + 1e-12); k++) { /* log-bisection: 200 halvings */
    const double mid = sqrt(lo * hi);
    if (nll_slope(n, v, r2, mid) < 0) lo = mid; else hi = mid;
  }
  return sqrt(lo * hi);
}

/* Residuals (y - g)^2 and latent variances at X on the standardized scale. */
static int residuals(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, sgp_cmat y,
                     double *r2, double *lv)
{
  const int64_t n = X.rows;
  double *mu = sgp_alloc(n);
  if (!mu) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory for the validation noise");
  int st = sgp_valla_predict(ctx, fit, X, sgp_mat_of(mu, n, 1), sgp_mat_of(NULL, 0, 0),
                             lv ? sgp_mat_of(lv, n, 1) : sgp_mat_of(NULL, 0, 0),
                             sgp_mat_of(NULL, 0, 0), sgp_mat_of(NULL, 0, 0));
  const double sd2 = fit->y_sd * fit->y_sd;
  for (int64_t i = 0; i < n && !st; i++) {
    const double r = y.data[i * (y.rows == 1 ? y.ld : 1)] - mu[i];
    r2[i] = r * r / sd2;
    if (lv) lv[i] /= sd2;
  }
  free(mu);
  return st;
}

int valla_noise_from_validation(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat Xv, sgp_cmat yv)
{
  const int64_t n = Xv.rows;
  if (fit->likelihood != SGP_LIK_GAUSSIAN || n < 1) return SGP_OK;
  double *r2 = sgp_alloc(n), *lv = sgp_alloc(n);
  int st = (!r2 || !lv) ? sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory for the validation noise")
                        : residuals(ctx, fit, Xv, yv, r2, lv);
  if (!st) {
    const double s = nll_argmin(n, lv, r2);
    if (s > 0 && isfinite(log(s))) fit->log_noise = log(s);
  }
  free(r2); free(lv);
  return st;
}

/* Mean of r2 and the delta-method variance of its log, var(r2) / (n mean^2). */
static void log_mean_stats(int64_t n, const double *r2, double *mean, double *var_log)
{
  double m = 0, v = 0;
  for (int64_t i = 0; i < n; i++) m += r2[i] / (double)n;
  for (int64_t i = 0; i < n; i++) v += (r2[i] - m) * (r2[i] - m) / (double)(n > 1 ? n - 1 : 1);
  *mean = m;
  *var_log = m > 0 ? v / ((double)n * m * m) : 0;
}

int valla_overfit_check(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, sgp_cmat y, sgp_cmat Xv,
                        sgp_cmat yv)
{
  fit->overfit = 0;
  if (fit->likelihood != SGP_LIK_GAUSSIAN || Xv.rows < 2 || X.rows < 2) return SGP_OK;
  const int64_t n = X.rows > Xv.rows ? X.rows : Xv.rows;
  double *r2 = sgp_alloc(n);
  if (!r2) return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory for the overfitting check");
  double mt, vt, mv, vv;
  int st = residuals(ctx, fit, X, y, r2, NULL);
  if (!st) log_mean_stats(X.rows, r2, &mt, &vt);
  if (!st) st = residuals(ctx, fit, Xv, yv, r2, NULL);
  if (!st) log_mean_stats(Xv.rows, r2, &mv, &vv);
  free(r2);
  if (st) return st;
  const double sd = fit->y_sd;
  fit->rmse_train = sqrt(mt) * sd;
  fit->rmse_val = sqrt(mv) * sd;
  /* Overfitting: the validation mean square exceeds the training one by a factor
   * that matters (1.5: intervals sized on x would be 1.22 times too narrow in sd)
   * and that the sampling noise of the two means cannot explain (log ratio beyond 3
   * standard errors; var(r2) carries the residuals' own tails). */
  if (mt > 0 && mv > 1.5 * mt && log(mv / mt) > 3.0 * sqrt(vt + vv)) fit->overfit = 1;
  return SGP_OK;
}

int sgp_valla_overfit_warning(const sgp_valla_result *fit, char *buf, size_t size)
{
  if (size > 0) buf[0] = '\0';
  if (!fit->overfit) return 0;
  snprintf(buf, size, "the network's residuals on the validation data (RMSE %.3g) are %.2g "
           "times those on x (RMSE %.3g): it fits the data it was trained on much better "
           "than other data (overfitting); %s", fit->rmse_val,
           fit->rmse_val / fit->rmse_train, fit->rmse_train,
           fit->noise_from_val ? "the noise variance is taken from the validation data"
                                 : "the noise here does not come from them (noise_fit = "
                                   "\"validation\" with Adam, method \"valla\", takes it "
                                   "from the validation data)");
  return 1;
}
