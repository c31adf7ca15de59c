/* lik_gaussian.c -- y real, variance `noise` (1 or n values), identity link. The
 * model's noise, not a pseudo-noise: never capped (noise_max would bind on a y
 * in large units, where the fit must be c times the fit on y / c). */
#include "laplace/lik_table.h"

static double noise_at(const sgp_lik *lik, int64_t i)
{
  return lik->noise[lik->n_noise == 1 ? 0 : i];
}

static int label(const sgp_lik *lik, int64_t i, char *why, size_t size)
{
  (void)lik; (void)i; (void)why; (void)size;
  return 1;
}

static void eval(const sgp_lik *lik, const double *f, double *loglik, double *grad, double *delta,
                 double *nd)
{
  double ll = 0.0;
  for (int64_t i = 0; i < lik->n; i++) {
    const double s2 = noise_at(lik, i), r = lik->y[i] - f[i];
    ll += -0.5 * r * r / s2 - 0.5 * log(6.283185307179586476925 * s2);
    nd[i] = s2;
    if (grad) grad[i] = r / s2;
    if (delta) delta[i] = r;
  }
  if (loglik) *loglik = ll;
}

static void w_apply(const sgp_lik *lik, const double *f, int64_t b, const double *V, int64_t ldv,
                    double *Y, int64_t ldy, double *pi)
{
  (void)f; (void)pi;
  SGP_LIK_DIAG_APPLY(lik, b, V, ldv, Y, ldy, 1.0 / noise_at(lik, i))
}

static void curvature(const sgp_lik *lik, const double *f, double *w, double *d3)
{
  (void)f;
  for (int64_t i = 0; i < lik->n; i++) { w[i] = 1.0 / noise_at(lik, i); d3[i] = 0.0; }
}

static void response(const sgp_laplace_result *fit, int64_t C, const double *m, int64_t sm,
                     const double *s2, int64_t ss, double off, double *pm, double *pv)
{
  (void)C; (void)sm; (void)ss; (void)off;
  *pm = m[0];
  *pv = s2[0] + fit->noise;
}

static double variance(const double *y, int64_t n)
{
  double s = 0.0, q = 0.0;
  for (int64_t i = 0; i < n; i++) s += y[i];
  const double mu = s / (double)n;
  for (int64_t i = 0; i < n; i++) { const double t = y[i] - mu; q += t * t; }
  return n > 1 ? q / (double)(n - 1) : 0.0;
}

/* half the variance of y to the signal, a quarter to the noise */
static void initial(const sgp_lik *lik, double *s, double *mean, double *noise)
{
  double ysum = 0.0;
  for (int64_t i = 0; i < lik->n; i++) ysum += lik->y[i];
  const double v = variance(lik->y, lik->n);
  *s = v > 0 ? v / 2 : 1.0;
  *noise = v > 0 ? v / 4 : 1.0;
  mean[0] = ysum / (double)lik->n;
}

const sgp_lik_ops sgp_lik_gaussian_ops = {
  .has_noise = 1, .resp_mean = "mean", .resp_var = "y_var", .plot_scale = "latent",
  .label = label,
  .eval = eval, .w_apply = w_apply, .curvature = curvature, .response = response,
  .initial = initial,
};
