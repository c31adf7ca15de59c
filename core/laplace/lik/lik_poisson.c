/* lik_poisson.c -- y in {0, 1, 2, ...}, log link, log exposure `offset`. */
#include "laplace/lik_table.h"

static int label(const sgp_lik *lik, int64_t i, char *why, size_t size)
{
  if (lik->y[i] >= 0.0 && lik->y[i] == floor(lik->y[i])) return 1;
  snprintf(why, size, "poisson counts must be non-negative integers");
  return 0;
}

static void eval(const sgp_lik *lik, const double *f, double *loglik, double *grad, double *delta,
                 double *nd)
{
  const double vmax = lik->noise_max;
  double ll = 0.0;
  for (int64_t i = 0; i < lik->n; i++) {
    const double y = lik->y[i], eta = f[i] + sgp_lik_offset(lik, i);
    const double lam = exp(eta), g = y - lam, raw = exp(-eta), ndi = sgp_lik_cap(raw, vmax);
    ll += y * eta - lam - lgamma(y + 1.0);
    nd[i] = ndi;
    if (grad) grad[i] = g;
    if (delta) delta[i] = ndi == raw ? y * raw - 1.0 : ndi * g;
  }
  if (loglik) *loglik = ll;
}

static void w_apply(const sgp_lik *lik, const double *f, int64_t b, const double *V, int64_t ldv,
                    double *Y, int64_t ldy, double *pi)
{
  (void)pi;
  SGP_LIK_DIAG_APPLY(lik, b, V, ldv, Y, ldy, exp(f[i] + sgp_lik_offset(lik, i)))
}

static void curvature(const sgp_lik *lik, const double *f, double *w, double *d3)
{
  for (int64_t i = 0; i < lik->n; i++) { w[i] = exp(f[i] + sgp_lik_offset(lik, i)); d3[i] = -w[i]; }
}

/* the rate exp(f + off) of a normal f: lognormal mean and variance */
static void response(const sgp_laplace_result *fit, int64_t C, const double *m, int64_t sm,
                     const double *s2, int64_t ss, double off, double *pm, double *pv)
{
  (void)fit; (void)C; (void)sm; (void)ss;
  const double eta = m[0] + off;
  *pm = exp(eta + 0.5 * s2[0]);
  *pv = expm1(s2[0]) * exp(2.0 * eta + s2[0]);
}

static double log_count(double y) { return log(y + 0.5); }

/* the mean rate over the exposure; the outputscale from the spread of log counts
 * (every log-link count likelihood's start) */
void sgp_lik_rate_initial(const sgp_lik *lik, double *s, double *mean, double *noise)
{
  (void)noise;
  const int64_t n = lik->n;
  double ysum = 0.0, expo = 0.0, ls = 0.0, q = 0.0;
  for (int64_t i = 0; i < n; i++) ysum += lik->y[i];
  for (int64_t i = 0; i < n; i++) expo += exp(sgp_lik_offset(lik, i));
  for (int64_t i = 0; i < n; i++) ls += log_count(lik->y[i]);
  const double mu = ls / (double)n;
  for (int64_t i = 0; i < n; i++) { const double t = log_count(lik->y[i]) - mu; q += t * t; }
  const double v = n > 1 ? q / (double)(n - 1) : 0.0;
  *s = v > 0 ? v : 1.0;
  mean[0] = log(fmax(ysum, 0.5) / expo);
}

const sgp_lik_ops sgp_lik_poisson_ops = {
  .takes_offset = 1, .resp_mean = "rate_mean", .resp_var = "rate_var", .plot_scale = "rate",
  .label = label,
  .eval = eval, .w_apply = w_apply, .curvature = curvature, .response = response,
  .initial = sgp_lik_rate_initial,
};
