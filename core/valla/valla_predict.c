/* valla_predict.c -- predictions of every method from one representation:
 * mean = network output; latent covariance prior*K_xx - |P1 K_Zx|^2 + |P2 K_Zx|^2,
 * in tiles of test points; regression predictive variance and probit class
 * probabilities; the mean predictive NLL used for validation. */
#include "valla/valla.h"
#include "valla/valla_lik.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TILE 1024
#define LOG_2PI 1.8378770664093453

double valla_kernel_scale(const sgp_valla_result *fit)
{
  const double s0 = exp(2.0 * fit->log_sigma0);
  return fit->likelihood == SGP_LIK_GAUSSIAN ? s0 / (fit->y_sd * fit->y_sd) : s0;
}

/* For one tile: latent variances v (nr, standardized scale) and optionally the
 * C x C blocks (C*C*n). G receives the outputs (n x C). mag (nr) is scratch for
 * the size of the terms whose difference v is (sgp_variance_resolved). */
static int tile_latent(sgp_ctx *ctx, const sgp_valla_result *fit, const valla_cache *cZ,
                       sgp_cmat X, double *G, double *v, double *mag, double *blk,
                       int64_t *unresolved)
{
  const sgp_valla_net *net = &fit->net;
  const int64_t n = X.rows, C = fit->C, nr = n * C, M = fit->M;
  const double sc = valla_kernel_scale(fit);
  valla_cache cX;
  int st = valla_cache_build(ctx, net, X, NULL, &cX);
  if (st) return st;
  double *K = M > 0 ? sgp_alloc(nr * M) : NULL, *Q1 = sgp_alloc(M * nr), *Q2 = sgp_alloc(M * nr);
  if ((M > 0 && (!K || !Q1 || !Q2))) {
    st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in predict");
    goto done;
  }
  memcpy(G, cX.G, (size_t)(n * C) * sizeof(double));
  valla_ntk_diag(ctx, net, &cX, fit->layers, v);
  for (int64_t r = 0; r < nr; r++) {
    v[r] *= fit->prior ? sc : 0.0;
    mag[r] = fabs(v[r]);
  }
  if (blk) {
    valla_ntk_blocks(ctx, net, &cX, fit->layers, blk);
    for (int64_t k = 0; k < C * C * n; k++) blk[k] *= fit->prior ? sc : 0.0;
  }
  if (M > 0) {
    if ((st = valla_ntk_cross(ctx, net, &cX, cZ, fit->layers, K, nr))) goto done;
    for (int64_t k = 0; k < nr * M; k++) K[k] *= sc;
    for (int pass = 0; pass < 2; pass++) {
      const double *P = pass ? fit->P2 : fit->P1, sign = pass ? 1.0 : -1.0;
      double *Q = pass ? Q2 : Q1;
      if (!P) continue;
      if ((st = sgp_gemm(ctx, 'N', 'T', M, nr, M, 1.0, P, M, K, nr, 0.0, Q, M))) goto done;
      for (int64_t r = 0; r < nr; r++) {
        const double q = sgp_dot(M, Q + M * r, Q + M * r);
        v[r] += sign * q;
        mag[r] += q;
      }
      if (blk)
        for (int64_t i = 0; i < n; i++)
          for (int64_t a = 0; a < C; a++)
            for (int64_t b = 0; b < C; b++)
              blk[a + C * b + C * C * i] += sign * sgp_dot(M, Q + M * (i + n * a), Q + M * (i + n * b));
    }
  }
  for (int64_t r = 0; r < nr; r++) v[r] = sgp_variance_resolved(v[r], mag[r], M, unresolved);
done:
  valla_cache_free(net, &cX);
  free(K); free(Q1); free(Q2);
  return st;
}

static int check_out(sgp_ctx *ctx, const char *name, sgp_mat m, int64_t rows, int64_t cols)
{
  if (m.data && (m.rows != rows || m.cols != cols || m.ld < m.rows))
    return sgp_fail(ctx, SGP_EDIM, "%s must be %lld x %lld", name, (long long)rows, (long long)cols);
  return SGP_OK;
}

/* An output or variance that overflowed: the error names the first test point. */
static int tile_finite(sgp_ctx *ctx, const double *G, const double *v, int64_t nt, int64_t C,
                       int64_t i0)
{
  for (int64_t r = 0; r < nt * C; r++)
    if (!isfinite(G[r]) || !isfinite(v[r]))
      return sgp_fail(ctx, SGP_EINVAL, "fit: the prediction overflowed double precision "
                      "(non-finite %s at test point %lld); the network's weights are out "
                      "of range", isfinite(G[r]) ? "variance" : "output",
                      (long long)(i0 + r % nt + 1));
  return SGP_OK;
}

int sgp_valla_predict(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, sgp_mat mean,
                      sgp_mat var, sgp_mat latent_var, sgp_mat prob, sgp_mat cov)
{
  int64_t unresolved = 0;
  return sgp_valla_predict_count(ctx, fit, X, mean, var, latent_var, prob, cov, &unresolved);
}

int sgp_valla_predict_count(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, sgp_mat mean,
                            sgp_mat var, sgp_mat latent_var, sgp_mat prob, sgp_mat cov,
                            int64_t *unresolved)
{
  const int64_t n = X.rows, C = fit->C, K = fit->n_class;
  int st;
  if (X.cols != fit->D)
    return sgp_fail(ctx, SGP_EINVAL, "newdata has %lld columns but the network expects %lld inputs",
                    (long long)X.cols, (long long)fit->D);
  if ((st = sgp_check_bounded(ctx, "newdata", X, SGP_MAX_DATA_VALUE))) return st;
  if ((st = check_out(ctx, "mean", mean, n, C)) || (st = check_out(ctx, "var", var, n, C)) ||
      (st = check_out(ctx, "latent_var", latent_var, n, C)) ||
      (st = check_out(ctx, "cov", cov, C * C, n)))
    return st;
  if (prob.data && (fit->likelihood == SGP_LIK_GAUSSIAN || (st = check_out(ctx, "prob", prob, n, K))))
    return st ? st : sgp_fail(ctx, SGP_EINVAL, "prob: not available for regression");
  valla_cache cZ;
  memset(&cZ, 0, sizeof cZ);
  if (fit->M > 0 && (st = valla_cache_build(ctx, &fit->net, sgp_cmat_of(fit->Z, fit->M, fit->D),
                                            fit->tags, &cZ)))
    return st;
  const int64_t T = n < TILE ? (n > 0 ? n : 1) : TILE;
  double *G = sgp_alloc(T * C), *v = sgp_alloc(T * C), *mag = sgp_alloc(T * C),
         *blk = cov.data ? sgp_alloc(C * C * T) : NULL;
  if (!G || !v || !mag || (cov.data && !blk)) st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in predict");
  const int gauss = fit->likelihood == SGP_LIK_GAUSSIAN;
  const double sd2 = fit->y_sd * fit->y_sd, s = gauss ? exp(fit->log_noise) : 0.0;
  for (int64_t i0 = 0; i0 < n && !st; i0 += T) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    const int64_t nt = n - i0 < T ? n - i0 : T;
    sgp_cmat Xt = {X.data + i0, nt, X.cols, X.ld};
    if ((st = tile_latent(ctx, fit, &cZ, Xt, G, v, mag, blk, unresolved)) ||
        (st = tile_finite(ctx, G, v, nt, C, i0)))
      break;
    for (int64_t c = 0; c < C; c++)
      for (int64_t i = 0; i < nt; i++) {
        const double g = G[i + nt * c], lv = v[i + nt * c];
        if (mean.data) mean.data[i0 + i + mean.ld * c] = g;
        if (latent_var.data) latent_var.data[i0 + i + latent_var.ld * c] = gauss ? lv * sd2 : lv;
        if (var.data) var.data[i0 + i + var.ld * c] = gauss ? (lv + s) * sd2 : lv;
      }
    if (cov.data)
      for (int64_t i = 0; i < nt; i++)
        for (int64_t k = 0; k < C * C; k++)
          cov.data[k + cov.ld * (i0 + i)] = blk[k + C * C * i] * (gauss ? sd2 : 1.0);
    if (prob.data)
      for (int64_t i = 0; i < nt; i++)
        valla_probit_prob(fit->likelihood, C, G + i, nt, v + i, nt, prob.data + i0 + i, prob.ld);
  }
  if (fit->M > 0) valla_cache_free(&fit->net, &cZ);
  free(G); free(v); free(mag); free(blk);
  return st;
}

int valla_nll(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, sgp_cmat y, double *nll)
{
  const int64_t n = X.rows, C = fit->C;
  double *mu = sgp_alloc(n * C), *lv = sgp_alloc(n * C);
  if (!mu || !lv) {
    free(mu); free(lv);
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the validation NLL");
  }
  int st = sgp_valla_predict(ctx, fit, X, sgp_mat_of(mu, n, C), sgp_mat_of(NULL, 0, 0),
                             sgp_mat_of(lv, n, C), sgp_mat_of(NULL, 0, 0), sgp_mat_of(NULL, 0, 0));
  if (!st) {
    const int gauss = fit->likelihood == SGP_LIK_GAUSSIAN;
    const double sd2 = fit->y_sd * fit->y_sd, s = exp(fit->log_noise) * sd2;
    double sum = 0;
    for (int64_t i = 0; i < n; i++) {
      const double yi = y.data[i];
      if (gauss) {
        const double t = lv[i] + s, r = yi - mu[i];
        sum += 0.5 * (LOG_2PI + log(t)) + r * r / (2 * t);
      } else {
        sum -= valla_lik_term(fit->likelihood, 1.0, C, mu + i, n, lv + i, n, yi, 0.0, NULL, 0, NULL);
      }
    }
    *nll = sum / (double)(n > 0 ? n : 1);
  }
  free(mu); free(lv);
  return st;
}

int sgp_valla_predict_mc(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, int64_t mc_samples,
                         sgp_mat prob)
{
  const int64_t n = X.rows, C = fit->C, K = fit->n_class;
  if (fit->likelihood == SGP_LIK_GAUSSIAN)
    return sgp_fail(ctx, SGP_EINVAL, "prob_method = \"mc\" is for classification fits");
  if (mc_samples < 1) return sgp_fail(ctx, SGP_EINVAL, "mc_samples must be >= 1");
  int st = check_out(ctx, "prob", prob, n, K);
  if (st) return st;
  double *G = sgp_alloc(n * C), *cov = sgp_alloc(C * C * n), *R = sgp_alloc(C * C), *e = sgp_alloc(C),
         *f = sgp_alloc(C);
  if (!G || !cov || !R || !e || !f) st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in predict");
  if (!st)
    st = sgp_valla_predict(ctx, fit, X, sgp_mat_of(G, n, C), sgp_mat_of(NULL, 0, 0), sgp_mat_of(NULL, 0, 0),
                           sgp_mat_of(NULL, 0, 0), sgp_mat_of(cov, C * C, n));
  for (int64_t i = 0; i < n && !st; i++) {
    if (i % 256 == 0 && (st = sgp_poll_interrupt(ctx))) break;
    /* R = chol(K* + eps I), eps growing from 1e-10 mean diag (K* may be singular) */
    double md = 0;
    for (int64_t c = 0; c < C; c++) md += cov[c + C * c + C * C * i] / (double)C;
    if (!(md > 0)) md = 1e-300;
    for (double eps = 1e-10;; eps *= 100) {
      memcpy(R, cov + C * C * i, (size_t)(C * C) * sizeof(double));
      for (int64_t c = 0; c < C; c++) R[c + C * c] += eps * md;
      if (sgp_potrf(ctx, C, R, C) == SGP_OK) break;
      if (eps > 1) { st = sgp_fail(ctx, SGP_ENOTPD, "mc: latent covariance at row %lld is not PSD", (long long)(i + 1)); break; }
    }
    if (st) break;
    for (int64_t k = 0; k < K; k++) prob.data[i + prob.ld * k] = 0.0;
    for (int64_t smp = 0; smp < mc_samples; smp++) {
      for (int64_t c = 0; c < C; c++) e[c] = sgp_rng_normal(&ctx->rng);
      double mx = -INFINITY, z = 0;
      for (int64_t a = 0; a < C; a++) {
        double q = G[i + n * a];
        for (int64_t b = 0; b <= a; b++) q += R[a + C * b] * e[b];
        f[a] = q;
        if (q > mx) mx = q;
      }
      if (fit->likelihood == SGP_LIK_BERNOULLI) {
        const double p1 = f[0] >= 0 ? 1 / (1 + exp(-f[0])) : exp(f[0]) / (1 + exp(f[0]));
        prob.data[i] += (1 - p1) / (double)mc_samples;
        prob.data[i + prob.ld] += p1 / (double)mc_samples;
        continue;
      }
      for (int64_t a = 0; a < C; a++) { f[a] = exp(f[a] - mx); z += f[a]; }
      for (int64_t a = 0; a < C; a++) prob.data[i + prob.ld * a] += f[a] / (z * (double)mc_samples);
    }
  }
  free(G); free(cov); free(R); free(e); free(f);
  return st;
}
