/* lik_negbin.c -- the negative binomial NB2: y in {0, 1, 2, ...} with mean
 * mu = exp(f + offset) (log link, log exposure `offset`) and variance
 * mu + mu^2 / r, r = `dispersion` (> 0; Poisson as r -> Inf):
 *   log p = lgamma(y + r) - lgamma(r) - lgamma(y + 1) + r log(r / (r + mu))
 *           + y log(mu / (r + mu)).
 * In eta = log mu: gradient r (y - mu) / (r + mu), W = r mu (y + r) / (r + mu)^2
 * (> 0: log-concave in f for a fixed r), d3 = -r (y + r) mu (r - mu) / (r + mu)^3.
 * In rho = log r at a fixed f, with s = r / (r + mu) (so r mu / (r + mu)^2 = s (1 - s)
 * and W = s (1 - s) (y + r)): d log p = r (psi(y + r) - psi(r) + log s + 1 - s) - y s,
 * d grad = s (1 - s) (y - mu), dW = s (1 - s) (y (1 - 2 s) + 2 r (1 - s)), psi the
 * digamma function; the evidence learns rho (par_derivs). */
#include "laplace/lik_table.h"

#include <stddef.h>

static int label(const sgp_lik *lik, int64_t i, char *why, size_t size)
{
  if (lik->y[i] >= 0.0 && lik->y[i] == floor(lik->y[i])) return 1;
  snprintf(why, size, "negbin counts must be non-negative integers");
  return 0;
}

static int check(sgp_ctx *ctx, const sgp_lik *lik)
{
  if (!(lik->par > 0.0) || !isfinite(lik->par))
    return sgp_fail(ctx, SGP_EINVAL, "dispersion: must be positive and finite (got %g)", lik->par);
  return SGP_OK;
}

/* log(r + mu) from eta = log mu without overflow */
static double log_r_mu(double r, double eta)
{
  const double lr = log(r);
  return eta > lr ? eta + log1p(exp(lr - eta)) : lr + log1p(exp(eta - lr));
}

static void eval(const sgp_lik *lik, const double *f, double *loglik, double *grad, double *delta,
                 double *nd)
{
  const double vmax = lik->noise_max, r = lik->par, lgr = lgamma(r), lr = log(r);
  double ll = 0.0;
  for (int64_t i = 0; i < lik->n; i++) {
    const double y = lik->y[i], eta = f[i] + sgp_lik_offset(lik, i), mu = exp(eta);
    const double lrm = log_r_mu(r, eta), s = r / (r + mu); /* s = r / (r + mu) */
    const double g = (y - mu) * s;
    /* W^-1 = (r + mu)^2 / (r mu (y + r)) = (r + mu) / (mu (y + r) s) */
    const double raw = exp(lrm - eta) / ((y + r) * s), ndi = sgp_lik_cap(raw, vmax);
    ll += lgamma(y + r) - lgr - lgamma(y + 1.0) + r * (lr - lrm) + y * (eta - lrm);
    nd[i] = ndi;
    if (grad) grad[i] = g;
    /* W^-1 g = (r + mu) / (y + r) (y / mu - 1) */
    if (delta) delta[i] = ndi == raw ? exp(lrm - log(y + r)) * (y * exp(-eta) - 1.0) : ndi * g;
  }
  if (loglik) *loglik = ll;
}

static double w_at(double r, double y, double eta)
{
  const double mu = exp(eta), s = r / (r + mu);
  return s * s * mu * (y + r) / r;
}

static void w_apply(const sgp_lik *lik, const double *f, int64_t b, const double *V, int64_t ldv,
                    double *Y, int64_t ldy, double *pi)
{
  (void)pi;
  SGP_LIK_DIAG_APPLY(lik, b, V, ldv, Y, ldy,
                     w_at(lik->par, lik->y[i], f[i] + sgp_lik_offset(lik, i)))
}

static void curvature(const sgp_lik *lik, const double *f, double *w, double *d3)
{
  const double r = lik->par;
  for (int64_t i = 0; i < lik->n; i++) {
    const double eta = f[i] + sgp_lik_offset(lik, i), mu = exp(eta);
    w[i] = w_at(r, lik->y[i], eta);
    d3[i] = -w[i] * (r - mu) / (r + mu);
  }
}

/* digamma for x > 0: the recurrence up to x >= 10, then the asymptotic series to
 * x^-10, whose first omitted term (691 / 32760 x^-12 <= 2.2e-14) is below 1e-14
 * of psi there (about 2.25) */
static double digamma(double x)
{
  double acc = 0.0;
  for (; x < 10.0; x += 1.0) acc -= 1.0 / x;
  const double q = 1.0 / (x * x);
  return acc + log(x) - 0.5 / x -
         q * (1.0 / 12 - q * (1.0 / 120 - q * (1.0 / 252 - q * (1.0 / 240 - q / 132))));
}

/* psi(y + r) - psi(r) for a count y: sum_{k < y} 1 / (r + k) exactly for small
 * counts, else the difference of the two (psi(y + r) >= psi(r) + 1 / r, no
 * cancellation to speak of) */
static double digamma_diff(double y, double r)
{
  if (y < 64.0) {
    double d = 0.0;
    for (double k = 0.0; k < y; k += 1.0) d += 1.0 / (r + k);
    return d;
  }
  return digamma(y + r) - digamma(r);
}

static void par_derivs(const sgp_lik *lik, const double *f, double *dl, double *dg, double *dw)
{
  const double r = lik->par, lr = log(r);
  for (int64_t i = 0; i < lik->n; i++) {
    const double y = lik->y[i], eta = f[i] + sgp_lik_offset(lik, i);
    /* s and 1 - s from eta - log r: no mu that overflows */
    const double s = sgp_logistic(lr - eta), t = sgp_logistic(eta - lr);
    dl[i] = r * (digamma_diff(y, r) + lr - log_r_mu(r, eta) + t) - y * s;
    dg[i] = s * t * y - r * t * t; /* s t (y - mu) with mu s = r t */
    dw[i] = s * t * (y * (t - s) + 2.0 * r * t);
  }
}

/* the mean mu = exp(f + off) of a normal f: lognormal mean and variance (as
 * poisson's rate) */
static void response(const sgp_laplace_result *fit, int64_t C, const double *m, int64_t sm,
                     const double *s2, int64_t ss, double off, double *pm, double *pv)
{
  (void)fit; (void)C; (void)sm; (void)ss;
  const double eta = m[0] + off;
  *pm = exp(eta + 0.5 * s2[0]);
  *pv = expm1(s2[0]) * exp(2.0 * eta + s2[0]);
}

const sgp_lik_ops sgp_lik_negbin_ops = {
  .takes_offset = 1, .par_name = "dispersion", .par_offset = offsetof(sgp_laplace_opts, dispersion),
  .par_default = 1.0, .resp_mean = "rate_mean", .resp_var = "rate_var", .plot_scale = "rate",
  .label = label, .check = check,
  .eval = eval, .w_apply = w_apply, .curvature = curvature, .response = response,
  .initial = sgp_lik_rate_initial, .par_derivs = par_derivs,
};
