/* valla_metrics.c -- evaluation metrics (means over test points):
 * Gaussian NLL, CRPS, CQM; accuracy, NLL, ECE (15 bins), Brier; OOD AUC. */
#include "valla/valla.h"

#include <math.h>
#include <stdlib.h>

#define LOG_2PI 1.8378770664093453
#define PI 3.141592653589793

static double norm_cdf(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }

/* Inverse normal CDF: Acklam's rational approximation refined by one Halley step. */
static double norm_quantile(double p)
{
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  if (p <= 0) return -INFINITY;
  if (p >= 1) return INFINITY;
  double x;
  if (p < 0.02425) {
    const double q = sqrt(-2 * log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (p > 1 - 0.02425) {
    const double q = sqrt(-2 * log(1 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    const double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double e = norm_cdf(x) - p, u = e * sqrt(2 * PI) * exp(x * x / 2);
  return x - u / (1 + x * u / 2);
}

double sgp_valla_gauss_nll(int64_t n, const double *y, const double *mu, const double *var)
{
  double s = 0;
  for (int64_t i = 0; i < n; i++) {
    const double r = y[i] - mu[i];
    s += 0.5 * (LOG_2PI + log(var[i])) + r * r / (2 * var[i]);
  }
  return s / (double)n;
}

double sgp_valla_crps(int64_t n, const double *y, const double *mu, const double *var)
{
  double s = 0;
  for (int64_t i = 0; i < n; i++) {
    const double sd = sqrt(var[i]), z = (y[i] - mu[i]) / sd;
    s += sd * (z * (2 * norm_cdf(z) - 1) + 2 * exp(-z * z / 2) / sqrt(2 * PI) - 1 / sqrt(PI));
  }
  return s / (double)n;
}

double sgp_valla_cqm(int64_t n, const double *y, const double *mu, const double *var, int paper_compat)
{
  double dev[11];
  for (int k = 0; k <= 10; k++) {
    const double a = k / 10.0;
    if (k == 0) { dev[k] = 0; continue; }
    if (k == 10) { dev[k] = paper_compat ? 1.0 : 0.0; continue; }
    const double q = norm_quantile((1 + a) / 2);
    int64_t in = 0;
    for (int64_t i = 0; i < n; i++) in += fabs(y[i] - mu[i]) < q * sqrt(var[i]);
    dev[k] = fabs((double)in / (double)n - a);
  }
  double s = 0;
  for (int k = 0; k < 10; k++) s += 0.1 * (dev[k] + dev[k + 1]) / 2;
  return s;
}

static int64_t argmax_row(int64_t n, int64_t C, const double *p, int64_t i)
{
  int64_t b = 0;
  for (int64_t c = 1; c < C; c++) if (p[i + n * c] > p[i + n * b]) b = c;
  return b;
}

double sgp_valla_accuracy(int64_t n, int64_t C, const double *prob, const double *y)
{
  int64_t ok = 0;
  for (int64_t i = 0; i < n; i++) ok += argmax_row(n, C, prob, i) == (int64_t)y[i];
  return (double)ok / (double)n;
}

double sgp_valla_class_nll(int64_t n, int64_t C, const double *prob, const double *y)
{
  (void)C;
  double s = 0;
  for (int64_t i = 0; i < n; i++) s -= log(prob[i + n * (int64_t)y[i]]);
  return s / (double)n;
}

double sgp_valla_ece(int64_t n, int64_t C, const double *prob, const double *y, int bins)
{
  double *acc = calloc((size_t)bins, sizeof(double)), *conf = calloc((size_t)bins, sizeof(double));
  int64_t *cnt = calloc((size_t)bins, sizeof(int64_t));
  if (!acc || !conf || !cnt) { free(acc); free(conf); free(cnt); return NAN; }
  for (int64_t i = 0; i < n; i++) {
    const int64_t b0 = argmax_row(n, C, prob, i);
    const double p = prob[i + n * b0];
    int b = (int)ceil(p * bins) - 1; /* bins (lo, hi] */
    if (b < 0) b = 0;
    if (b >= bins) b = bins - 1;
    cnt[b]++;
    conf[b] += p;
    acc[b] += b0 == (int64_t)y[i];
  }
  double e = 0;
  for (int b = 0; b < bins; b++)
    if (cnt[b] > 0) e += fabs(acc[b] - conf[b]) / (double)n;
  free(acc); free(conf); free(cnt);
  return e;
}

double sgp_valla_brier(int64_t n, int64_t C, const double *prob, const double *y)
{
  double s = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t c = 0; c < C; c++) {
      const double t = prob[i + n * c] - (c == (int64_t)y[i]);
      s += t * t;
    }
  return s / (double)n;
}

typedef struct { double score, label; } auc_pair;
static int auc_cmp(const void *a, const void *b)
{
  const double x = ((const auc_pair *)a)->score, y = ((const auc_pair *)b)->score;
  return x < y ? -1 : x > y;
}

double sgp_valla_auc(int64_t n, const double *score, const double *label)
{
  auc_pair *o = malloc((size_t)n * sizeof(auc_pair));
  if (!o) return NAN;
  for (int64_t i = 0; i < n; i++) { o[i].score = score[i]; o[i].label = label[i]; }
  qsort(o, (size_t)n, sizeof(auc_pair), auc_cmp);
  double rsum = 0;
  int64_t n1 = 0;
  for (int64_t i = 0; i < n;) { /* tie-averaged ranks */
    int64_t j = i;
    while (j + 1 < n && o[j + 1].score == o[i].score) j++;
    const double r = 0.5 * (double)(i + j) + 1.0;
    for (int64_t k = i; k <= j; k++) if (o[k].label > 0.5) { rsum += r; n1++; }
    i = j + 1;
  }
  free(o);
  const double n0 = (double)(n - n1);
  return (rsum - (double)n1 * ((double)n1 + 1) / 2) / ((double)n1 * n0);
}

/* ------------------------------------------------------------ checked entry point */

/* prob (n x C): entries in [0, 1], rows summing to 1 up to 1e-6 (probabilities a
 * user rounded to 6 digits still pass), labels y whole numbers in 0..C-1. */
static int check_classes(sgp_ctx *ctx, sgp_cmat y, sgp_cmat prob)
{
  const int64_t n = y.rows * y.cols, C = prob.cols;
  int st = sgp_check_finite(ctx, "pred", prob);
  if (st) return st;
  if (prob.rows != n)
    return sgp_fail(ctx, SGP_EINVAL, "pred: must have one row of probabilities per entry of y "
                    "(%lld rows for %lld)", (long long)prob.rows, (long long)n);
  if (C < 2) return sgp_fail(ctx, SGP_EINVAL, "pred: needs at least 2 class columns");
  for (int64_t i = 0; i < n; i++) {
    double s = 0;
    for (int64_t c = 0; c < C; c++) {
      const double p = prob.data[i + prob.ld * c];
      if (p < 0 || p > 1)
        return sgp_fail(ctx, SGP_EINVAL, "pred: %g at row %lld is not a probability", p, (long long)(i + 1));
      s += p;
    }
    if (fabs(s - 1) > 1e-6)
      return sgp_fail(ctx, SGP_EINVAL, "pred: row %lld sums to %.9g, not 1", (long long)(i + 1), s);
    const double t = y.data[i];
    if (t != floor(t) || t < 0 || t > (double)(C - 1))
      return sgp_fail(ctx, SGP_EINVAL, "y: the label at row %lld is not one of the %lld classes",
                      (long long)(i + 1), (long long)C);
  }
  return SGP_OK;
}

/* mu, var: n finite values each, var > 0. */
static int check_gaussian(sgp_ctx *ctx, int64_t n, sgp_cmat mu, sgp_cmat var)
{
  int st;
  if ((st = sgp_check_bounded(ctx, "pred", mu, SGP_MAX_DATA_VALUE)) || (st = sgp_check_finite(ctx, "var", var))) return st;
  if (mu.rows * mu.cols != n)
    return sgp_fail(ctx, SGP_EINVAL, "pred: must have one predictive mean per entry of y "
                    "(%lld for %lld)", (long long)(mu.rows * mu.cols), (long long)n);
  if (var.rows * var.cols != n)
    return sgp_fail(ctx, SGP_EINVAL, "var: must have one predictive variance per entry of y "
                    "(%lld for %lld)", (long long)(var.rows * var.cols), (long long)n);
  for (int64_t i = 0; i < n; i++)
    if (!(var.data[i * (var.rows == 1 ? var.ld : 1)] > 0))
      return sgp_fail(ctx, SGP_EINVAL, "var: must be positive (row %lld)", (long long)(i + 1));
  return SGP_OK;
}

/* Vectors (n x 1 or 1 x n) as contiguous values. */
static int vec_copy(sgp_ctx *ctx, sgp_cmat v, double **out)
{
  const int64_t n = v.rows * v.cols, step = v.rows == 1 ? v.ld : 1;
  *out = sgp_alloc(n);
  if (!*out) return sgp_fail(ctx, SGP_ENOMEM, "valla_metrics: out of memory");
  for (int64_t i = 0; i < n; i++) (*out)[i] = v.data[i * step];
  return SGP_OK;
}

int sgp_valla_metrics(sgp_ctx *ctx, sgp_cmat y, sgp_cmat mu, sgp_cmat var, sgp_cmat prob,
                      int64_t bins, double *out, int *count)
{
  *count = 0;
  int st = sgp_check_bounded(ctx, "y", y, SGP_MAX_DATA_VALUE);
  if (st) return st;
  if (y.rows != 1 && y.cols != 1) return sgp_fail(ctx, SGP_EINVAL, "y: must be a vector");
  if (bins < 1 || bins > INT32_MAX) return sgp_fail(ctx, SGP_EINVAL, "bins: must be at least 1");
  const int64_t n = y.rows * y.cols;
  double *yv = NULL, *m = NULL, *v = NULL, *p = NULL;
  if (!prob.data) {
    if (!(st = check_gaussian(ctx, n, mu, var)) && !(st = vec_copy(ctx, y, &yv)) &&
        !(st = vec_copy(ctx, mu, &m)) && !(st = vec_copy(ctx, var, &v))) {
      out[0] = sgp_valla_gauss_nll(n, yv, m, v);
      out[1] = sgp_valla_crps(n, yv, m, v);
      out[2] = sgp_valla_cqm(n, yv, m, v, 0);
      *count = 3;
      for (int k = 0; k < 3; k++)
        if (!isfinite(out[k])) {
          st = sgp_fail(ctx, SGP_EINVAL, "var: the metrics overflow (y far from pred relative "
                        "to var); rescale y, pred and var");
          *count = 0;
          break;
        }
    }
  } else if (!(st = check_classes(ctx, y, prob)) && !(st = vec_copy(ctx, y, &yv))) {
    const int64_t C = prob.cols;
    p = sgp_alloc(n * C);
    if (!p) st = sgp_fail(ctx, SGP_ENOMEM, "valla_metrics: out of memory");
    for (int64_t c = 0; !st && c < C; c++)
      for (int64_t i = 0; i < n; i++) p[i + n * c] = prob.data[i + prob.ld * c];
    if (!st) {
      out[0] = sgp_valla_accuracy(n, C, p, yv);
      out[1] = sgp_valla_class_nll(n, C, p, yv);
      out[2] = sgp_valla_ece(n, C, p, yv, (int)bins);
      out[3] = sgp_valla_brier(n, C, p, yv);
      out[4] = C == 2 ? sgp_valla_auc(n, p + n, yv) : NAN; /* NaN: one class only in y */
      *count = C == 2 ? 5 : 4;
      if (isnan(out[2])) st = sgp_fail(ctx, SGP_ENOMEM, "valla_metrics: out of memory");
    }
  }
  free(yv); free(m); free(v); free(p);
  return st;
}
