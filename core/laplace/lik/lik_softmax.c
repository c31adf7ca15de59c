/* lik_softmax.c -- y in {1, ..., n_class}, C = n_class latents with a shared
 * kernel; per point W_n = diag(pi) - pi pi' (singular along the all-ones
 * direction: the pseudo-inverse W^dagger with the capped 1/pi stands for W^-1). */
#include "laplace/lik_table.h"

static int label(const sgp_lik *lik, int64_t i, char *why, size_t size)
{
  if (sgp_lik_whole_in(lik->y[i], 1.0, (double)lik->C)) return 1;
  snprintf(why, size, "softmax labels must be integers in 1..%lld", (long long)lik->C);
  return 0;
}

double sgp_softmax_lse(const double *f, int64_t stride, int64_t C)
{
  double fmax = f[0], z = 0.0;
  for (int64_t c = 1; c < C; c++) if (f[c * stride] > fmax) fmax = f[c * stride];
  for (int64_t c = 0; c < C; c++) z += exp(f[c * stride] - fmax);
  return fmax + log(z);
}

void sgp_softmax_pinv_apply(int64_t C, const double *inv_pi, int64_t stride, const double *u,
                            int64_t su, double *out, int64_t so)
{
  double mu = 0.0, mw = 0.0;
  for (int64_t c = 0; c < C; c++) mu += u[c * su];
  mu /= (double)C;
  for (int64_t c = 0; c < C; c++) {
    const double w = (u[c * su] - mu) * inv_pi[c * stride];
    out[c * so] = w;
    mw += w;
  }
  mw /= (double)C;
  for (int64_t c = 0; c < C; c++) out[c * so] -= mw;
}

static void eval(const sgp_lik *lik, const double *f, double *loglik, double *grad, double *delta,
                 double *nd)
{
  const int64_t n = lik->n, C = lik->C;
  const double vmax = lik->noise_max;
  double ll = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const int64_t yc = (int64_t)lik->y[i] - 1;
    const double lse = sgp_softmax_lse(f + i, n, C);
    ll += f[i + yc * n] - lse;
    for (int64_t c = 0; c < C; c++) {
      const double p = exp(f[i + c * n] - lse);
      nd[i + c * n] = sgp_lik_cap(1.0 / p, vmax);
      if (grad) grad[i + c * n] = (c == yc ? 1.0 : 0.0) - p;
    }
    if (!delta) continue;
    /* delta = W^dagger grad with the capped 1/pi */
    double mu = 0.0, mw = 0.0;
    for (int64_t c = 0; c < C; c++) {
      const double p = exp(f[i + c * n] - lse);
      mu += (c == yc ? 1.0 : 0.0) - p;
    }
    mu /= (double)C;
    for (int64_t c = 0; c < C; c++) {
      const double p = exp(f[i + c * n] - lse);
      const double w = ((c == yc ? 1.0 : 0.0) - p - mu) * nd[i + c * n];
      delta[i + c * n] = w;
      mw += w;
    }
    mw /= (double)C;
    for (int64_t c = 0; c < C; c++) delta[i + c * n] -= mw;
  }
  if (loglik) *loglik = ll;
}

static void winv(const sgp_lik *lik, const double *nd, const double *v, double *y, int add)
{
  const int64_t n = lik->n, C = lik->C;
  for (int64_t i = 0; i < n; i++) {
    double mu = 0.0, mw = 0.0;
    for (int64_t c = 0; c < C; c++) mu += v[i + c * n];
    mu /= (double)C;
    for (int64_t c = 0; c < C; c++) mw += (v[i + c * n] - mu) * nd[i + c * n];
    mw /= (double)C;
    for (int64_t c = 0; c < C; c++) {
      const double w = (v[i + c * n] - mu) * nd[i + c * n] - mw;
      if (add) y[i + c * n] += w; else y[i + c * n] = w;
    }
  }
}

/* W_n = diag(pi) - pi pi' (the exact Hessian block, no cap) */
static void w_apply(const sgp_lik *lik, const double *f, int64_t b, const double *V, int64_t ldv,
                    double *Y, int64_t ldy, double *pi)
{
  const int64_t n = lik->n, C = lik->C;
  for (int64_t i = 0; i < n; i++) {
    double fmax = f[i], z = 0.0;
    for (int64_t c = 1; c < C; c++) if (f[i + c * n] > fmax) fmax = f[i + c * n];
    for (int64_t c = 0; c < C; c++) z += (pi[c] = exp(f[i + c * n] - fmax));
    for (int64_t c = 0; c < C; c++) pi[c] /= z;
    for (int64_t j = 0; j < b; j++) {
      const double *v = V + j * ldv;
      double *y = Y + j * ldy, s = 0.0;
      for (int64_t c = 0; c < C; c++) s += pi[c] * v[i + c * n];
      for (int64_t c = 0; c < C; c++) y[i + c * n] = pi[c] * (v[i + c * n] - s);
    }
  }
}

/* pi (n x C): the evidence's block paths read W from it */
static void curvature(const sgp_lik *lik, const double *f, double *w, double *d3)
{
  (void)d3;
  const int64_t n = lik->n, C = lik->C;
  for (int64_t i = 0; i < n; i++) {
    const double lse = sgp_softmax_lse(f + i, n, C);
    for (int64_t c = 0; c < C; c++) w[i + c * n] = exp(f[i + c * n] - lse);
  }
}

/* class probabilities softmax(m_c kappa(s2_c)) and p (1 - p) */
static void response(const sgp_laplace_result *fit, int64_t C, const double *m, int64_t sm,
                     const double *s2, int64_t ss, double off, double *pm, double *pv)
{
  (void)fit; (void)off;
  double zmax = -INFINITY, zs = 0.0;
  for (int64_t c = 0; c < C; c++) {
    const double z = m[c * sm] * sgp_probit_kappa(s2[c * ss]);
    if (z > zmax) zmax = z;
  }
  for (int64_t c = 0; c < C; c++) zs += exp(m[c * sm] * sgp_probit_kappa(s2[c * ss]) - zmax);
  for (int64_t c = 0; c < C; c++) {
    const double p = exp(m[c * sm] * sgp_probit_kappa(s2[c * ss]) - zmax) / zs;
    pm[c] = p;
    pv[c] = p * (1.0 - p);
  }
}

/* log class frequencies, centred (softmax ignores a shift) */
static void initial(const sgp_lik *lik, double *s, double *mean, double *noise)
{
  (void)noise;
  const int64_t C = lik->C;
  double centre = 0.0;
  for (int64_t c = 0; c < C; c++) mean[c] = 0.5;
  for (int64_t i = 0; i < lik->n; i++) mean[(int64_t)lik->y[i] - 1] += 1.0;
  for (int64_t c = 0; c < C; c++) { mean[c] = log(mean[c]); centre += mean[c] / (double)C; }
  for (int64_t c = 0; c < C; c++) mean[c] -= centre;
  *s = 1.0;
}

const sgp_lik_ops sgp_lik_softmax_ops = {
  .multiclass = 1, .classes = 1, .first_class = 1, .resp_mean = "prob", .resp_var = NULL,
  .plot_scale = "classes", .label = label,
  .eval = eval, .winv = winv, .w_apply = w_apply, .curvature = curvature, .response = response,
  .initial = initial,
};
