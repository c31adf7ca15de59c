/* lik_bernoulli.c -- y in {0, 1}, logit link, one latent function. */
#include "laplace/lik_table.h"

static int label(const sgp_lik *lik, int64_t i, char *why, size_t size)
{
  if (lik->y[i] == 0.0 || lik->y[i] == 1.0) return 1;
  snprintf(why, size, "bernoulli labels must be 0 or 1");
  return 0;
}

static void eval(const sgp_lik *lik, const double *f, double *loglik, double *grad, double *delta,
                 double *nd)
{
  const double vmax = lik->noise_max;
  double ll = 0.0;
  for (int64_t i = 0; i < lik->n; i++) {
    const double y = lik->y[i], fi = f[i];
    const double p = sgp_logistic(fi);
    const double g = y - p, raw = 2.0 + exp(fi) + exp(-fi), ndi = sgp_lik_cap(raw, vmax);
    ll += y * fi - sgp_log1pexp(fi);
    nd[i] = ndi;
    if (grad) grad[i] = g;
    /* W^-1 g without the cancellation of y - p: 1/p or -1/(1 - p) */
    if (delta) delta[i] = ndi == raw ? (y == 1.0 ? 1.0 + exp(-fi) : -(1.0 + exp(fi))) : ndi * g;
  }
  if (loglik) *loglik = ll;
}

static double w_at(double f) { const double p = sgp_logistic(f); return p * (1.0 - p); }

static void w_apply(const sgp_lik *lik, const double *f, int64_t b, const double *V, int64_t ldv,
                    double *Y, int64_t ldy, double *pi)
{
  (void)pi;
  SGP_LIK_DIAG_APPLY(lik, b, V, ldv, Y, ldy, w_at(f[i]))
}

static void curvature(const sgp_lik *lik, const double *f, double *w, double *d3)
{
  for (int64_t i = 0; i < lik->n; i++) {
    const double p = sgp_logistic(f[i]);
    w[i] = p * (1.0 - p); d3[i] = -w[i] * (1.0 - 2.0 * p);
  }
}

/* P(y = 1) by the probit approximation, and its Bernoulli variance */
static void response(const sgp_laplace_result *fit, int64_t C, const double *m, int64_t sm,
                     const double *s2, int64_t ss, double off, double *pm, double *pv)
{
  (void)fit; (void)C; (void)sm; (void)ss; (void)off;
  *pm = sgp_logistic(m[0] * sgp_probit_kappa(s2[0]));
  *pv = *pm * (1.0 - *pm);
}

/* the class frequency, kept off 0 and 1 */
static void initial(const sgp_lik *lik, double *s, double *mean, double *noise)
{
  (void)noise;
  const double n = (double)lik->n;
  double ysum = 0.0;
  for (int64_t i = 0; i < lik->n; i++) ysum += lik->y[i];
  const double p = fmin(fmax(ysum / n, 0.5 / n), 1.0 - 0.5 / n);
  *s = 1.0;
  mean[0] = log(p / (1.0 - p));
}

const sgp_lik_ops sgp_lik_bernoulli_ops = {
  .classes = 1, .resp_mean = "prob", .resp_var = NULL, .plot_scale = "classes",
  .label = label,
  .eval = eval, .w_apply = w_apply, .curvature = curvature, .response = response,
  .initial = initial,
};
