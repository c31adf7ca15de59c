/* laplace_lik.c -- likelihoods of gp_laplace (spec 1.5): log-likelihood, gradient,
 * capped noise data W^{-1} (softmax: 1/pi for the pseudo-inverse W^dagger) and the
 * pseudo-target increment delta = W^{-1} grad. */
#include "laplace.h"

#include <math.h>

static double log1pexp(double x) { return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x)); }

int sgp_lik_check(sgp_ctx *ctx, const sgp_lik *lik)
{
  const int64_t n = lik->n;
  if (n <= 0) return sgp_fail(ctx, SGP_EINVAL, "y: is empty");
  for (int64_t i = 0; i < n; i++) {
    const double y = lik->y[i];
    if (!isfinite(y))
      return sgp_fail(ctx, SGP_EINVAL, "y: contains NaN or Inf (element %lld)", (long long)(i + 1));
    switch (lik->kind) {
    case SGP_LIK_GAUSSIAN: break;
    case SGP_LIK_BERNOULLI:
      if (y != 0.0 && y != 1.0)
        return sgp_fail(ctx, SGP_EINVAL, "y: bernoulli labels must be 0 or 1 (element %lld is %g)",
                        (long long)(i + 1), y);
      break;
    case SGP_LIK_POISSON:
      if (y < 0.0 || y != floor(y))
        return sgp_fail(ctx, SGP_EINVAL,
                        "y: poisson counts must be non-negative integers (element %lld is %g)",
                        (long long)(i + 1), y);
      break;
    case SGP_LIK_SOFTMAX:
      if (y < 1.0 || y > (double)lik->C || y != floor(y))
        return sgp_fail(ctx, SGP_EINVAL,
                        "y: softmax labels must be integers in 1..%lld (element %lld is %g)",
                        (long long)lik->C, (long long)(i + 1), y);
      break;
    default:
      return sgp_fail(ctx, SGP_EINVAL, "likelihood: unknown value %d", (int)lik->kind);
    }
  }
  if (lik->kind == SGP_LIK_GAUSSIAN) {
    if (!lik->noise || (lik->n_noise != 1 && lik->n_noise != n))
      return sgp_fail(ctx, SGP_EDIM, "noise: needs 1 or %lld values (got %lld)", (long long)n,
                      (long long)lik->n_noise);
    for (int64_t i = 0; i < lik->n_noise; i++)
      if (!(lik->noise[i] > 0.0) || !isfinite(lik->noise[i]))
        return sgp_fail(ctx, SGP_EINVAL, "noise: must be positive and finite (element %lld is %g)",
                        (long long)(i + 1), lik->noise[i]);
  }
  for (int64_t i = 0; lik->offset && i < n; i++) {
    if (!isfinite(lik->offset[i]))
      return sgp_fail(ctx, SGP_EINVAL, "offset: contains NaN or Inf (element %lld)",
                      (long long)(i + 1));
    if (fabs(lik->offset[i]) > 700.0) /* the exposure exp(offset) must be finite */
      return sgp_fail(ctx, SGP_EINVAL,
                      "offset: log exposures must lie in [-700, 700] (element %lld is %g)",
                      (long long)(i + 1), lik->offset[i]);
  }
  if (!(lik->noise_max > 0.0))
    return sgp_fail(ctx, SGP_EINVAL, "noise_max: must be positive (got %g)", lik->noise_max);
  return SGP_OK;
}

static double cap(double v, double vmax) { return v < vmax ? v : vmax; }

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

double sgp_softmax_lse(const double *f, int64_t stride, int64_t C)
{
  double fmax = f[0], z = 0.0;
  for (int64_t c = 1; c < C; c++) if (f[c * stride] > fmax) fmax = f[c * stride];
  for (int64_t c = 0; c < C; c++) z += exp(f[c * stride] - fmax);
  return fmax + log(z);
}

void sgp_lik_eval(const sgp_lik *lik, const double *f, double *loglik, double *grad,
                  double *delta, double *nd)
{
  const int64_t n = lik->n, C = lik->C;
  const double vmax = lik->noise_max;
  double ll = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double y = lik->y[i];
    switch (lik->kind) {
    case SGP_LIK_GAUSSIAN: {
      /* the model's noise, not a pseudo-noise: never capped (noise_max would
       * bind on a y in large units, where the fit must be c times the fit on y / c) */
      const double s2 = lik->noise[lik->n_noise == 1 ? 0 : i], r = y - f[i];
      ll += -0.5 * r * r / s2 - 0.5 * log(6.283185307179586476925 * s2);
      nd[i] = s2;
      if (grad) grad[i] = r / s2;
      if (delta) delta[i] = r;
      break;
    }
    case SGP_LIK_BERNOULLI: {
      const double fi = f[i];
      const double p = fi >= 0 ? 1.0 / (1.0 + exp(-fi)) : exp(fi) / (1.0 + exp(fi));
      const double g = y - p, raw = 2.0 + exp(fi) + exp(-fi), ndi = cap(raw, vmax);
      ll += y * fi - log1pexp(fi);
      nd[i] = ndi;
      if (grad) grad[i] = g;
      if (delta)
        delta[i] = ndi == raw ? (y == 1.0 ? 1.0 + exp(-fi) : -(1.0 + exp(fi))) : ndi * g;
      break;
    }
    case SGP_LIK_POISSON: {
      const double eta = f[i] + (lik->offset ? lik->offset[i] : 0.0);
      const double lam = exp(eta), g = y - lam, raw = exp(-eta), ndi = cap(raw, vmax);
      ll += y * eta - lam - lgamma(y + 1.0);
      nd[i] = ndi;
      if (grad) grad[i] = g;
      if (delta) delta[i] = ndi == raw ? y * raw - 1.0 : ndi * g;
      break;
    }
    case SGP_LIK_SOFTMAX: {
      const int64_t yc = (int64_t)y - 1;
      const double lse = sgp_softmax_lse(f + i, n, C);
      ll += f[i + yc * n] - lse;
      for (int64_t c = 0; c < C; c++) {
        const double p = exp(f[i + c * n] - lse);
        nd[i + c * n] = cap(1.0 / p, vmax);
        if (grad) grad[i + c * n] = (c == yc ? 1.0 : 0.0) - p;
      }
      if (delta) {
        /* delta = W^dagger grad with the capped 1/pi (spec 1.5); grad is needed */
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
      break;
    }
    }
  }
  if (loglik) *loglik = ll;
}

static void winv_block(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                       double *Y, int add)
{
  const int64_t n = lik->n, C = lik->C, NC = n * C;
  for (int64_t j = 0; j < b; j++) {
    const double *v = V + j * NC;
    double *y = Y + j * NC;
    if (lik->kind != SGP_LIK_SOFTMAX) {
      if (add) for (int64_t i = 0; i < NC; i++) y[i] += nd[i] * v[i];
      else for (int64_t i = 0; i < NC; i++) y[i] = nd[i] * v[i];
      continue;
    }
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
}

void sgp_lik_winv(const sgp_lik *lik, const double *nd, int64_t b, const double *V, double *Y)
{
  winv_block(lik, nd, b, V, Y, 0);
}

void sgp_lik_winv_add(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                      double *Y)
{
  winv_block(lik, nd, b, V, Y, 1);
}

void sgp_lik_w_apply(const sgp_lik *lik, const double *f, int64_t b, const double *V,
                     int64_t ldv, double *Y, int64_t ldy, double *pi)
{
  const int64_t n = lik->n, C = lik->C;
  for (int64_t i = 0; i < n; i++) {
    if (lik->kind != SGP_LIK_SOFTMAX) {
      double w;
      switch (lik->kind) {
      case SGP_LIK_GAUSSIAN: w = 1.0 / lik->noise[lik->n_noise == 1 ? 0 : i]; break;
      case SGP_LIK_BERNOULLI: {
        const double p = f[i] >= 0 ? 1.0 / (1.0 + exp(-f[i])) : exp(f[i]) / (1.0 + exp(f[i]));
        w = p * (1.0 - p);
        break;
      }
      default: w = exp(f[i] + (lik->offset ? lik->offset[i] : 0.0)); break;
      }
      for (int64_t j = 0; j < b; j++) Y[i + j * ldy] = w * V[i + j * ldv];
      continue;
    }
    /* W_n = diag(pi) - pi pi' (the exact Hessian block, no cap) */
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
