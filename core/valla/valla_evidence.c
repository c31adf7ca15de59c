/* valla_evidence.c -- Laplace log evidence of LLA (as the `laplace` library of
 * Daxberger et al., "Laplace Redux -- Effortless Bayesian Deep Learning",
 * NeurIPS 2021): log Z = sum_n log p(y_n | g_n) - |theta|^2 / (2 s0)
 *                   - 1/2 log|I + Lambda^{1/2} K Lambda^{1/2}|,  K = s0 K0,
 * on the original target scale. One eigendecomposition (of K0, or of
 * Lambda^{1/2} K0 Lambda^{1/2} for classification) makes each evaluation O(N C);
 * the hyper-parameters are then maximized by Nelder-Mead on the log scale. */
#include "valla/valla.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOG_2PI 1.8378770664093453

typedef struct {
  sgp_likelihood lik;
  int64_t n, nc;
  double *ev;          /* nc eigenvalues */
  double *g, *y;       /* outputs (n x C), targets */
  double theta2;       /* |theta|^2 */
  double loglik;       /* classification: fixed sum log p(y | g) */
} evid;

static double evid_eval(const evid *e, double log_s0, double log_s)
{
  const double s0 = exp(log_s0), s = exp(log_s);
  double ll = e->loglik, ld = 0;
  if (e->lik == SGP_LIK_GAUSSIAN) {
    ll = 0;
    for (int64_t i = 0; i < e->n; i++) {
      const double r = e->y[i] - e->g[i];
      ll -= 0.5 * (LOG_2PI + log_s) + r * r / (2 * s);
    }
    for (int64_t k = 0; k < e->nc; k++) ld += log1p(s0 * (e->ev[k] > 0 ? e->ev[k] : 0) / s);
  } else {
    for (int64_t k = 0; k < e->nc; k++) ld += log1p(s0 * (e->ev[k] > 0 ? e->ev[k] : 0));
  }
  return ll - e->theta2 / (2 * s0) - 0.5 * ld;
}

static void evid_free(evid *e) { free(e->ev); free(e->g); free(e->y); }

static int evid_build(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                      sgp_likelihood lik, const int *layers, int64_t lla_max, evid *e)
{
  const int64_t N = X.rows, C = net->width[net->n_layers], NC = N * C;
  memset(e, 0, sizeof *e);
  e->lik = lik;
  e->n = N;
  e->nc = NC;
  int st;
  if ((st = sgp_check_finite(ctx, "x", X)) || (st = sgp_check_finite(ctx, "y", y))) return st;
  if (X.cols != net->width[0])
    return sgp_fail(ctx, SGP_EINVAL, "x has %lld columns but the network expects %lld inputs",
                    (long long)X.cols, (long long)net->width[0]);
  if (y.rows * y.cols != N) return sgp_fail(ctx, SGP_EINVAL, "y must have one value per row of x");
  if (NC > lla_max)
    return sgp_fail(ctx, SGP_EINVAL, "log evidence needs N*C (%lld) <= lla_max (%lld)",
                    (long long)NC, (long long)lla_max);
  if ((lik == SGP_LIK_GAUSSIAN || lik == SGP_LIK_BERNOULLI) != (C == 1))
    return sgp_fail(ctx, SGP_EINVAL, "likelihood does not match the %lld network outputs", (long long)C);
  for (int64_t i = 0; lik != SGP_LIK_GAUSSIAN && i < N; i++) {
    const double t = y.data[i];
    if (t != floor(t) || t < 0 || t > (lik == SGP_LIK_BERNOULLI ? 1 : C - 1))
      return sgp_fail(ctx, SGP_EINVAL, "y: label %g at row %lld is outside the classes", t, (long long)(i + 1));
  }
  for (int l = 0; l < net->n_layers; l++) {
    for (int64_t k = 0; k < net->width[l] * net->width[l + 1]; k++) e->theta2 += net->W[l][k] * net->W[l][k];
    for (int64_t k = 0; k < net->width[l + 1]; k++) e->theta2 += net->b[l][k] * net->b[l][k];
  }
  if (net->skip)
    for (int64_t k = 0; k < net->width[0] * C; k++) e->theta2 += net->skip[k] * net->skip[k];
  e->ev = sgp_alloc(NC);
  e->g = sgp_alloc(NC);
  e->y = sgp_alloc(N);
  double *K = sgp_alloc(NC * NC), *Z = sgp_alloc(NC * X.cols), *S = NULL, *T = NULL;
  int *tags = (int *)malloc((size_t)NC * sizeof(int));
  if (!e->ev || !e->g || !e->y || !K || !Z || !tags) { st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the log evidence"); goto done; }
  for (int64_t i = 0; i < N; i++) e->y[i] = y.data[i * (y.rows == 1 ? y.ld : 1)];
  for (int64_t c = 0; c < C; c++)
    for (int64_t i = 0; i < N; i++) {
      tags[i + N * c] = (int)c;
      for (int64_t j = 0; j < X.cols; j++) Z[i + N * c + NC * j] = X.data[i + X.ld * j];
    }
  if ((st = sgp_valla_ntk(ctx, net, X, sgp_cmat_of(Z, NC, X.cols), tags, layers, 1.0,
                          sgp_mat_of(K, NC, NC), sgp_mat_of(NULL, 0, 0), sgp_mat_of(NULL, 0, 0),
                          sgp_mat_of(NULL, 0, 0))))
    goto done;
  if ((st = sgp_valla_forward(ctx, net, X, sgp_mat_of(e->g, N, C)))) goto done;
  if (lik != SGP_LIK_GAUSSIAN) { /* K <- Sq K Sq with Sq = Lambda^{1/2} (block diagonal) */
    S = sgp_calloc(NC * NC);
    T = sgp_alloc(NC * NC);
    double *Lam = sgp_alloc(C * C), *w = sgp_alloc(C);
    if (!S || !T || !Lam || !w) { free(Lam); free(w); st = sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory"); goto done; }
    for (int64_t i = 0; i < N && !st; i++) {
      double mx = -INFINITY, z = 0, p[VALLA_MAX_C];
      if (lik == SGP_LIK_BERNOULLI) {
        const double u = e->g[i], q = u >= 0 ? 1 / (1 + exp(-u)) : exp(u) / (1 + exp(u));
        S[i + NC * i] = sqrt(q * (1 - q));
        e->loglik += e->y[i] > 0.5 ? log(q) : log1p(-q);
        continue;
      }
      for (int64_t c = 0; c < C; c++) if (e->g[i + N * c] > mx) mx = e->g[i + N * c];
      for (int64_t c = 0; c < C; c++) { p[c] = exp(e->g[i + N * c] - mx); z += p[c]; }
      e->loglik += e->g[i + N * (int64_t)e->y[i]] - mx - log(z);
      for (int64_t c = 0; c < C; c++) p[c] /= z;
      for (int64_t a = 0; a < C; a++)
        for (int64_t b = 0; b < C; b++) Lam[a + C * b] = (a == b ? p[a] : 0) - p[a] * p[b];
      st = sgp_syev(ctx, C, Lam, C, w);
      for (int64_t a = 0; a < C && !st; a++)
        for (int64_t b = 0; b < C; b++) {
          double q = 0;
          for (int64_t k = 0; k < C; k++) q += Lam[a + C * k] * sqrt(w[k] > 0 ? w[k] : 0) * Lam[b + C * k];
          S[i + N * a + NC * (i + N * b)] = q;
        }
    }
    free(Lam); free(w);
    if (!st) st = sgp_gemm(ctx, 'N', 'N', NC, NC, NC, 1.0, K, NC, S, NC, 0.0, T, NC);
    if (!st) st = sgp_gemm(ctx, 'N', 'N', NC, NC, NC, 1.0, S, NC, T, NC, 0.0, K, NC);
    if (st) goto done;
  }
  st = sgp_syev(ctx, NC, K, NC, e->ev);
done:
  free(K); free(Z); free(tags); free(S); free(T);
  if (st) evid_free(e);
  return st;
}

int sgp_valla_lla_log_evidence(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                               sgp_likelihood lik, const int *layers, double prior_var,
                               double noise, double *log_evidence)
{
  if (!(prior_var > 0)) return sgp_fail(ctx, SGP_EINVAL, "prior_var must be positive");
  if (lik == SGP_LIK_GAUSSIAN && !(noise > 0)) return sgp_fail(ctx, SGP_EINVAL, "noise must be positive");
  evid e;
  int st = evid_build(ctx, net, X, y, lik, layers, INT64_MAX, &e);
  if (st) return st;
  *log_evidence = evid_eval(&e, log(prior_var), lik == SGP_LIK_GAUSSIAN ? log(noise) : 0.0);
  evid_free(&e);
  return SGP_OK;
}

/* Nelder-Mead maximization of f over dim (1 or 2) log-scale variables. */
static void nelder_mead(const evid *e, int dim, double *x, double *fx)
{
  double P[3][2], F[3];
  for (int k = 0; k <= dim; k++) {
    for (int j = 0; j < dim; j++) P[k][j] = x[j] + (k == j + 1 ? 1.0 : 0.0);
    F[k] = -evid_eval(e, P[k][0], dim > 1 ? P[k][1] : 0.0);
  }
  for (int it = 0; it < 400; it++) {
    int hi = 0, lo = 0;
    for (int k = 1; k <= dim; k++) { if (F[k] > F[hi]) hi = k; if (F[k] < F[lo]) lo = k; }
    double spread = 0;
    for (int k = 0; k <= dim; k++) for (int j = 0; j < dim; j++) spread = fmax(spread, fabs(P[k][j] - P[lo][j]));
    if (spread < 1e-10) break;
    double c[2] = {0, 0}, r[2], t[2];
    for (int k = 0; k <= dim; k++) if (k != hi) for (int j = 0; j < dim; j++) c[j] += P[k][j] / dim;
    for (int j = 0; j < dim; j++) r[j] = 2 * c[j] - P[hi][j];
    const double fr = -evid_eval(e, r[0], dim > 1 ? r[1] : 0.0);
    if (fr < F[lo]) {
      for (int j = 0; j < dim; j++) t[j] = 3 * c[j] - 2 * P[hi][j];
      const double fe = -evid_eval(e, t[0], dim > 1 ? t[1] : 0.0);
      if (fe < fr) { memcpy(P[hi], t, sizeof t); F[hi] = fe; } else { memcpy(P[hi], r, sizeof r); F[hi] = fr; }
      continue;
    }
    int second = lo;
    for (int k = 0; k <= dim; k++) if (k != hi && F[k] > F[second]) second = k;
    if (fr < F[second]) { memcpy(P[hi], r, sizeof r); F[hi] = fr; continue; }
    for (int j = 0; j < dim; j++) t[j] = 0.5 * (c[j] + P[hi][j]);
    const double fc = -evid_eval(e, t[0], dim > 1 ? t[1] : 0.0);
    if (fc < F[hi]) { memcpy(P[hi], t, sizeof t); F[hi] = fc; continue; }
    for (int k = 0; k <= dim; k++) /* shrink towards the best vertex */
      if (k != lo) {
        for (int j = 0; j < dim; j++) P[k][j] = 0.5 * (P[k][j] + P[lo][j]);
        F[k] = -evid_eval(e, P[k][0], dim > 1 ? P[k][1] : 0.0);
      }
  }
  int lo = 0;
  for (int k = 1; k <= dim; k++) if (F[k] < F[lo]) lo = k;
  for (int j = 0; j < dim; j++) x[j] = P[lo][j];
  *fx = -F[lo];
}

int sgp_valla_lla_tune(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                       sgp_likelihood lik, const int *layers, int64_t lla_max, double *prior_var,
                       double *noise, double *log_evidence)
{
  evid e;
  int st = evid_build(ctx, net, X, y, lik, layers, lla_max, &e);
  if (st) return st;
  double x[2] = {log(*prior_var > 0 ? *prior_var : 1.0), log(noise && *noise > 0 ? *noise : 1.0)};
  const int dim = lik == SGP_LIK_GAUSSIAN ? 2 : 1;
  nelder_mead(&e, dim, x, log_evidence);
  *prior_var = exp(x[0]);
  if (noise && dim == 2) *noise = exp(x[1]);
  evid_free(&e);
  return SGP_OK;
}
