/* lik_binomial.c -- y successes in `trials` (per point, or one value for all),
 * logit link: log p = log choose(t, y) + y f - t log(1 + e^f). */
#include "laplace/lik_table.h"

static int label(const sgp_lik *lik, int64_t i, char *why, size_t size)
{
  const double t = sgp_lik_trials(lik, i);
  if (sgp_lik_whole_in(lik->y[i], 0.0, t)) return 1;
  snprintf(why, size, "binomial counts must be whole numbers in 0..trials (trials = %g)", t);
  return 0;
}

static int check(sgp_ctx *ctx, const sgp_lik *lik)
{
  if (lik->trials && lik->n_trials != 1 && lik->n_trials != lik->n)
    return sgp_fail(ctx, SGP_EDIM, "trials: needs 1 or %lld values (got %lld)", (long long)lik->n,
                    (long long)lik->n_trials);
  for (int64_t i = 0; lik->trials && i < lik->n_trials; i++)
    if (!sgp_lik_whole_in(lik->trials[i], 1.0, 9007199254740992.0))
      return sgp_fail(ctx, SGP_EINVAL, "trials: must be whole numbers >= 1 (element %lld is %g)",
                      (long long)(i + 1), lik->trials[i]);
  return SGP_OK;
}

static void eval(const sgp_lik *lik, const double *f, double *loglik, double *grad, double *delta,
                 double *nd)
{
  const double vmax = lik->noise_max;
  double ll = 0.0;
  for (int64_t i = 0; i < lik->n; i++) {
    const double y = lik->y[i], t = sgp_lik_trials(lik, i), fi = f[i];
    const double p = sgp_logistic(fi);
    const double g = y - t * p, raw = (2.0 + exp(fi) + exp(-fi)) / t, ndi = sgp_lik_cap(raw, vmax);
    ll += lgamma(t + 1.0) - lgamma(y + 1.0) - lgamma(t - y + 1.0) + y * fi - t * sgp_log1pexp(fi);
    nd[i] = ndi;
    if (grad) grad[i] = g;
    /* W^-1 g = (y/t) / p - (1 - y/t) / (1 - p), without the cancellation of y - t p */
    if (delta)
      delta[i] = ndi == raw ? (y / t) * (1.0 + exp(-fi)) - ((t - y) / t) * (1.0 + exp(fi))
                            : ndi * g;
  }
  if (loglik) *loglik = ll;
}

static double w_at(const sgp_lik *lik, int64_t i, double f)
{
  const double p = sgp_logistic(f);
  return sgp_lik_trials(lik, i) * p * (1.0 - p);
}

static void w_apply(const sgp_lik *lik, const double *f, int64_t b, const double *V, int64_t ldv,
                    double *Y, int64_t ldy, double *pi)
{
  (void)pi;
  SGP_LIK_DIAG_APPLY(lik, b, V, ldv, Y, ldy, w_at(lik, i, f[i]))
}

static void curvature(const sgp_lik *lik, const double *f, double *w, double *d3)
{
  for (int64_t i = 0; i < lik->n; i++) {
    const double p = sgp_logistic(f[i]);
    w[i] = sgp_lik_trials(lik, i) * p * (1.0 - p);
    d3[i] = -w[i] * (1.0 - 2.0 * p);
  }
}

/* the success probability by the probit approximation, and one trial's variance */
static void response(const sgp_laplace_result *fit, int64_t C, const double *m, int64_t sm,
                     const double *s2, int64_t ss, double off, double *pm, double *pv)
{
  (void)fit; (void)C; (void)sm; (void)ss; (void)off;
  *pm = sgp_logistic(m[0] * sgp_probit_kappa(s2[0]));
  *pv = *pm * (1.0 - *pm);
}

/* the pooled success rate, kept off 0 and 1 */
static void initial(const sgp_lik *lik, double *s, double *mean, double *noise)
{
  (void)noise;
  double ysum = 0.0, tsum = 0.0;
  for (int64_t i = 0; i < lik->n; i++) { ysum += lik->y[i]; tsum += sgp_lik_trials(lik, i); }
  const double p = fmin(fmax(ysum / tsum, 0.5 / tsum), 1.0 - 0.5 / tsum);
  *s = 1.0;
  mean[0] = log(p / (1.0 - p));
}

const sgp_lik_ops sgp_lik_binomial_ops = {
  .takes_trials = 1, .resp_mean = "prob", .resp_var = NULL, .plot_scale = "probability",
  .label = label, .check = check,
  .eval = eval, .w_apply = w_apply, .curvature = curvature, .response = response,
  .initial = initial,
};
