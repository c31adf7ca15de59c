/* valla_lik.c -- per-point expected log-likelihood terms e_i of the alpha
 * objective and their derivatives in the latent variances:
 * Gaussian closed form for alpha in [0, 1], probit / mean-field softmax and the
 * binary (one logit) case. At alpha = 1 e_i is the log predictive density, so the
 * same code gives the validation NLL. */
#include "valla/valla_lik.h"

#include <math.h>

#define LOG_2PI 1.8378770664093453
#define PI_8 0.39269908169872414 /* pi / 8 */

static double log1pexp(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

double valla_lik_term(sgp_likelihood lik, double alpha, int64_t C, const double *g,
                      int64_t gs, const double *v, int64_t vs, double y, double s,
                      double *dv, int64_t dvs, double *ds)
{
  if (lik == SGP_LIK_GAUSSIAN) {
    const double r = y - g[0], r2 = r * r;
    if (alpha <= 0) { /* ELBO: log N(y | g, s) - v / (2 s) */
      if (dv) dv[0] = -0.5 / s;
      if (ds) *ds = -0.5 + (r2 + v[0]) / (2 * s);
      return -0.5 * (LOG_2PI + log(s)) - (r2 + v[0]) / (2 * s);
    }
    const double t = v[0] + s / alpha, q = -0.5 / t + r2 / (2 * t * t);
    if (dv) dv[0] = q / alpha;
    if (ds) *ds = s * (q / alpha + 0.5 / s - 0.5 * alpha / s) / alpha;
    return (-0.5 * (LOG_2PI + log(t)) - r2 / (2 * t) + 0.5 * (LOG_2PI + log(s / alpha)) -
            0.5 * alpha * (LOG_2PI + log(s))) / alpha;
  }
  if (ds) *ds = 0.0;
  if (lik == SGP_LIK_BERNOULLI) {
    const double f = 1.0 + PI_8 * v[0], u = g[0] / sqrt(f);
    const double sig = u >= 0 ? 1.0 / (1.0 + exp(-u)) : exp(u) / (1.0 + exp(u));
    if (dv) dv[0] = (y - sig) * (-0.5 * PI_8) * g[0] * pow(f, -1.5);
    return y > 0.5 ? -log1pexp(-u) : -log1pexp(u);
  }
  /* softmax: u_c = g_c / sqrt(1 + pi/8 v_c), e = log softmax(u)_y */
  double umax = -INFINITY, z = 0.0;
  const int yc = (int)y;
  for (int64_t c = 0; c < C; c++) {
    const double u = g[c * gs] / sqrt(1.0 + PI_8 * v[c * vs]);
    if (u > umax) umax = u;
  }
  for (int64_t c = 0; c < C; c++) z += exp(g[c * gs] / sqrt(1.0 + PI_8 * v[c * vs]) - umax);
  const double lse = umax + log(z);
  if (dv)
    for (int64_t c = 0; c < C; c++) {
      const double f = 1.0 + PI_8 * v[c * vs], u = g[c * gs] / sqrt(f), p = exp(u - lse);
      dv[c * dvs] = ((c == yc) - p) * (-0.5 * PI_8) * g[c * gs] * pow(f, -1.5);
    }
  return g[yc * gs] / sqrt(1.0 + PI_8 * v[yc * vs]) - lse;
}

void valla_probit_prob(sgp_likelihood lik, int64_t C, const double *g, int64_t gs,
                       const double *v, int64_t vs, double *p, int64_t ps)
{
  if (lik == SGP_LIK_BERNOULLI) {
    const double u = g[0] / sqrt(1.0 + PI_8 * v[0]);
    const double s1 = u >= 0 ? 1.0 / (1.0 + exp(-u)) : exp(u) / (1.0 + exp(u));
    p[0] = 1.0 - s1;
    p[ps] = s1;
    return;
  }
  double umax = -INFINITY, z = 0.0;
  for (int64_t c = 0; c < C; c++) {
    const double u = g[c * gs] / sqrt(1.0 + PI_8 * v[c * vs]);
    p[c * ps] = u;
    if (u > umax) umax = u;
  }
  for (int64_t c = 0; c < C; c++) { p[c * ps] = exp(p[c * ps] - umax); z += p[c * ps]; }
  for (int64_t c = 0; c < C; c++) p[c * ps] /= z;
}

void valla_lik_hessian(sgp_likelihood lik, int64_t C, const double *g, int64_t gs, double s,
                       double *Lam)
{
  if (lik == SGP_LIK_GAUSSIAN) { Lam[0] = 1.0 / s; return; }
  if (lik == SGP_LIK_BERNOULLI) {
    const double p = g[0] >= 0 ? 1.0 / (1.0 + exp(-g[0])) : exp(g[0]) / (1.0 + exp(g[0]));
    Lam[0] = p * (1.0 - p);
    return;
  }
  double p[VALLA_MAX_C], mx = -INFINITY, z = 0;
  for (int64_t c = 0; c < C; c++) if (g[c * gs] > mx) mx = g[c * gs];
  for (int64_t c = 0; c < C; c++) { p[c] = exp(g[c * gs] - mx); z += p[c]; }
  for (int64_t a = 0; a < C; a++)
    for (int64_t b = 0; b < C; b++) Lam[a + C * b] = (a == b ? p[a] / z : 0.0) - p[a] * p[b] / (z * z);
}

void valla_lik_hessian_rows(int64_t C, const double *Lam, int64_t i, int64_t nt, int64_t ncol,
                            const double *P, double *LP)
{
  const int64_t nr = nt * C;
  for (int64_t k = 0; k < ncol; k++)
    for (int64_t a = 0; a < C; a++) {
      double q = 0;
      for (int64_t b = 0; b < C; b++) q += Lam[a + C * b] * P[i + nt * b + nr * k];
      LP[i + nt * a + nr * k] = q;
    }
}
