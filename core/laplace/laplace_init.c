/* laplace_init.c -- data-based initial hyperparameters (spec model_selection.md
 * §5): the values a fit starts learning from, and uses when told to learn
 * nothing of what the user did not give. */
#include "laplace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define INIT_SUBSAMPLE 1000
#define INIT_SEED_SALT 0x5ca1e9b1u /* the subsample's own stream: the fit's is untouched */

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median of the positive values (the median of all when fewer than half are
 * positive would be 0: a lengthscale must not be). 1 when none is. */
static double positive_median(double *v, int64_t m)
{
  int64_t k = 0;
  for (int64_t i = 0; i < m; i++) if (v[i] > 0) v[k++] = v[i];
  if (k == 0) return 1.0;
  qsort(v, (size_t)k, sizeof(double), cmp_double);
  return k % 2 ? v[k / 2] : 0.5 * (v[k / 2 - 1] + v[k / 2]);
}

/* The lengthscale: the median Euclidean distance between the points of a seeded
 * subsample (one lengthscale: a lengthscale not given is isotropic; ARD starts
 * from the values the user gives). */
static int init_lengthscale(sgp_ctx *ctx, sgp_cmat X, double *ls)
{
  const int64_t n = X.rows, d = X.cols, m = n < INIT_SUBSAMPLE ? n : INIT_SUBSAMPLE;
  const int64_t pairs = m * (m - 1) / 2;
  int64_t *rows = malloc((size_t)n * sizeof(int64_t));
  double *dist = sgp_alloc(pairs > 0 ? pairs : 1);
  if (!rows || !dist) { free(rows); free(dist); return sgp_fail(ctx, SGP_ENOMEM, "out of memory"); }
  sgp_rng rng;
  sgp_rng_seed(&rng, ctx->seed ^ INIT_SEED_SALT);
  for (int64_t i = 0; i < n; i++) rows[i] = i;
  if (m < n) sgp_rng_sample_prefix(&rng, rows, n, m);
  int64_t k = 0;
  for (int64_t a = 0; a < m; a++)
    for (int64_t b = a + 1; b < m; b++) {
      double s = 0.0;
      for (int64_t j = 0; j < d; j++) {
        const double t = X.data[rows[a] + j * X.ld] - X.data[rows[b] + j * X.ld];
        s += t * t;
      }
      dist[k++] = sqrt(s);
    }
  *ls = positive_median(dist, k);
  free(rows);
  free(dist);
  return SGP_OK;
}

static double variance(const double *y, int64_t n, double (*tf)(double))
{
  double s = 0.0, q = 0.0;
  for (int64_t i = 0; i < n; i++) s += tf ? tf(y[i]) : y[i];
  const double mu = s / (double)n;
  for (int64_t i = 0; i < n; i++) { const double t = (tf ? tf(y[i]) : y[i]) - mu; q += t * t; }
  return n > 1 ? q / (double)(n - 1) : 0.0;
}

static double log_count(double y) { return log(y + 0.5); }

int sgp_laplace_initial(sgp_ctx *ctx, sgp_cmat X, const sgp_lik *lik, int want_ls, double *ls,
                        double *s, double *mean, double *noise)
{
  const int64_t n = lik->n, C = lik->C;
  int st = want_ls ? init_lengthscale(ctx, X, ls) : SGP_OK;
  if (st) return st;
  double ysum = 0.0;
  for (int64_t i = 0; i < n; i++) ysum += lik->y[i];
  *noise = NAN;
  switch (lik->kind) {
  case SGP_LIK_GAUSSIAN: {
    const double v = variance(lik->y, n, NULL);
    *s = v > 0 ? v / 2 : 1.0;
    *noise = v > 0 ? v / 4 : 1.0;
    mean[0] = ysum / (double)n;
    break;
  }
  case SGP_LIK_BERNOULLI: { /* the class frequency, kept off 0 and 1 */
    const double p = fmin(fmax(ysum / (double)n, 0.5 / (double)n), 1.0 - 0.5 / (double)n);
    *s = 1.0;
    mean[0] = log(p / (1.0 - p));
    break;
  }
  case SGP_LIK_POISSON: { /* the mean rate over the exposure */
    double expo = 0.0;
    for (int64_t i = 0; i < n; i++) expo += exp(lik->offset ? lik->offset[i] : 0.0);
    const double v = variance(lik->y, n, log_count);
    *s = v > 0 ? v : 1.0;
    mean[0] = log(fmax(ysum, 0.5) / expo);
    break;
  }
  case SGP_LIK_SOFTMAX: { /* log class frequencies, centred (softmax ignores a shift) */
    double centre = 0.0;
    for (int64_t c = 0; c < C; c++) mean[c] = 0.5;
    for (int64_t i = 0; i < n; i++) mean[(int64_t)lik->y[i] - 1] += 1.0;
    for (int64_t c = 0; c < C; c++) { mean[c] = log(mean[c]); centre += mean[c] / (double)C; }
    for (int64_t c = 0; c < C; c++) mean[c] -= centre;
    *s = 1.0;
    break;
  }
  }
  return SGP_OK;
}
