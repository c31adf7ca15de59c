/* valla_kmeans.c -- seeded Lloyd k-means for the initial inducing inputs
 * (as scipy's kmeans2(minit = "points")), in column-standardized coordinates. */
#include "valla/valla.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int valla_kmeans(sgp_ctx *ctx, sgp_cmat X, const int64_t *rows, int64_t nrows, int64_t k,
                 int iters, int64_t max_points, double *centres, int64_t ldc)
{
  const int64_t D = X.cols;
  if (!rows) nrows = X.rows;
  if (k < 1 || k > nrows)
    return sgp_fail(ctx, SGP_EINVAL, "inducing: %lld centres need at least as many points (have %lld)",
                    (long long)k, (long long)nrows);
  int64_t *idx = (int64_t *)malloc((size_t)nrows * sizeof(int64_t));
  int64_t n = nrows < max_points || max_points <= 0 ? nrows : max_points;
  if (n < k) n = k;
  double *P = sgp_alloc(n * D), *Cn = sgp_alloc(k * D), *mu = sgp_calloc(D), *sd = sgp_calloc(D),
         *sum = sgp_alloc(k * D);
  int64_t *cnt = (int64_t *)malloc((size_t)k * sizeof(int64_t)), *lab = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  if (!idx || !P || !Cn || !mu || !sd || !sum || !cnt || !lab) {
    free(idx); free(P); free(Cn); free(mu); free(sd); free(sum); free(cnt); free(lab);
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in k-means");
  }
  for (int64_t i = 0; i < nrows; i++) idx[i] = rows ? rows[i] : i;
  if (n < nrows) sgp_rng_sample_prefix(&ctx->rng, idx, nrows, n);
  for (int64_t j = 0; j < D; j++) {
    for (int64_t i = 0; i < n; i++) { P[i + n * j] = X.data[idx[i] + X.ld * j]; mu[j] += P[i + n * j]; }
    mu[j] /= (double)n;
    for (int64_t i = 0; i < n; i++) sd[j] += (P[i + n * j] - mu[j]) * (P[i + n * j] - mu[j]);
    sd[j] = sqrt(sd[j] / (double)n);
    if (!(sd[j] > 0)) sd[j] = 1.0;
    for (int64_t i = 0; i < n; i++) P[i + n * j] = (P[i + n * j] - mu[j]) / sd[j];
  }
  /* initial centres: k distinct points */
  for (int64_t i = 0; i < n; i++) idx[i] = i;
  sgp_rng_sample_prefix(&ctx->rng, idx, n, k);
  for (int64_t c = 0; c < k; c++)
    for (int64_t j = 0; j < D; j++) Cn[c + k * j] = P[idx[c] + n * j];
  int st = SGP_OK;
  for (int it = 0; it < iters; it++) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    const int nt = sgp_ctx_threads(ctx);
#pragma omp parallel for num_threads(nt) if (n * k * D > 100000)
    for (int64_t i = 0; i < n; i++) {
      double best = INFINITY;
      int64_t bc = 0;
      for (int64_t c = 0; c < k; c++) {
        double d2 = 0;
        for (int64_t j = 0; j < D; j++) { const double t = P[i + n * j] - Cn[c + k * j]; d2 += t * t; }
        if (d2 < best) { best = d2; bc = c; }
      }
      lab[i] = bc;
    }
    memset(sum, 0, (size_t)(k * D) * sizeof(double));
    memset(cnt, 0, (size_t)k * sizeof(int64_t));
    for (int64_t i = 0; i < n; i++) {
      cnt[lab[i]]++;
      for (int64_t j = 0; j < D; j++) sum[lab[i] + k * j] += P[i + n * j];
    }
    for (int64_t c = 0; c < k; c++) /* an empty cluster keeps its centre */
      if (cnt[c] > 0)
        for (int64_t j = 0; j < D; j++) Cn[c + k * j] = sum[c + k * j] / (double)cnt[c];
  }
  if (!st)
    for (int64_t c = 0; c < k; c++)
      for (int64_t j = 0; j < D; j++) centres[c + ldc * j] = mu[j] + sd[j] * Cn[c + k * j];
  free(idx); free(P); free(Cn); free(mu); free(sd); free(sum); free(cnt); free(lab);
  return st;
}
