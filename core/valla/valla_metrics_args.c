/* valla_metrics_args.c -- valla_metrics as the user calls it, read once for both
 * hosts: what `pred` is (a list or struct of mean and var, or of prob; n-by-C
 * probabilities; P(y = 1); predictive means with `var`), the labels' coding and
 * the option bins (its table), then the checked metrics (valla_metrics.c). */
#include "valla/valla.h"
#include "host/fit_data.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

typedef struct { int64_t bins; } metrics_opts;

static const sgp_opt_spec specs[] = {
  {"bins", SGP_OPT_COUNT, "15", 1, 2147483647.0, 0, NULL, offsetof(metrics_opts, bins),
   SGP_STORE_INT64, 0, "equal-width confidence bins of the expected calibration error"},
};

const sgp_verb_table sgp_valla_metrics_table = {"valla_metrics", specs, 1, 1};

static const char *const reg_names[] = {"nll", "crps", "cqm", NULL};
static const char *const cls_names[] = {"accuracy", "nll", "ece", "brier", "auc", NULL};

/* numbers (or nothing) as a column view; anything else an error naming arg */
static int numbers(sgp_ctx *ctx, const sgp_value *v, const char *arg, sgp_cmat *out)
{
  if (sgp_fd_is_nothing(v)) { *out = sgp_cmat_of(NULL, 0, 0); return SGP_OK; }
  if (!sgp_fd_is_numeric(v)) return sgp_fail(ctx, SGP_EINVAL, "%s: must be numbers", arg);
  *out = sgp_cmat_of(v->real, v->len, 1);
  return SGP_OK;
}

/* pred as probabilities (n-by-C: a matrix of several columns, or one row when y has
 * one value), else P(y = 1), or means with var */
static int read_pred(sgp_ctx *ctx, const sgp_value *pred, const sgp_value *y, const sgp_value **var,
                     sgp_cmat *mu, sgp_cmat *prob, int *binary)
{
  *mu = *prob = sgp_cmat_of(NULL, 0, 0);
  *binary = 0;
  if (pred->type == SGP_VAL_LIST) {
    const sgp_value *p = sgp_fd_elt(pred, "prob"), *m = sgp_fd_elt(pred, "mean");
    if (!sgp_fd_is_nothing(p)) pred = p;
    else if (m->type == SGP_VAL_NULL)
      return sgp_fail(ctx, SGP_EINVAL, "pred: is a list or struct without 'mean' or 'prob'");
    else {
      if (sgp_fd_has(pred, "var")) *var = sgp_fd_elt(pred, "var"); /* else the argument var */
      return numbers(ctx, m, "pred", mu);
    }
  }
  if (!sgp_fd_is_numeric(pred)) return sgp_fail(ctx, SGP_EINVAL, "pred: must be numbers");
  const int64_t r = sgp_fd_rows(pred), c = sgp_fd_cols(pred);
  if (c > 1 && (r != 1 || y->len == 1)) { *prob = sgp_cmat_of(pred->real, r, c); return SGP_OK; }
  if (!sgp_fd_is_nothing(*var)) { *mu = sgp_cmat_of(pred->real, pred->len, 1); return SGP_OK; }
  *binary = 1;
  *prob = sgp_cmat_of(pred->real, pred->len, 1);
  return SGP_OK;
}

/* labels 0..C-1 from 1..C (a matrix of probabilities) or, for P(y = 1), 0/1 or 1/2 */
static void code_labels(double *y, int64_t n, int binary)
{
  int nan = 0, in01 = 1, in12 = 1;
  for (int64_t i = 0; i < n; i++) {
    nan |= isnan(y[i]);
    in01 &= y[i] == 0 || y[i] == 1;
    in12 &= y[i] == 1 || y[i] == 2;
  }
  if (!binary || (!nan && !in01 && in12))
    for (int64_t i = 0; i < n; i++) y[i] -= 1;
}

int sgp_valla_metrics_of(sgp_ctx *ctx, const sgp_value *pred, const sgp_value *y,
                         const sgp_value *var, int n_opt, const char *const *opt_names,
                         const sgp_value *opt_values, double *out, int *count,
                         const char *const **names)
{
  metrics_opts o = {15};
  sgp_cmat mu, prob, v, yv;
  int binary, st;
  *count = 0;
  for (int i = 0; i < n_opt; i++)
    if ((st = sgp_opts_set(ctx, &sgp_valla_metrics_table, &o, opt_names[i], &opt_values[i])))
      return st;
  if (!sgp_fd_is_numeric(y)) return sgp_fail(ctx, SGP_EINVAL, "y: must be numbers");
  if (sgp_fd_rows(y) > 1 && sgp_fd_cols(y) > 1)
    return sgp_fail(ctx, SGP_EINVAL, "y: must be a vector (got a %lld x %lld matrix)",
                    (long long)sgp_fd_rows(y), (long long)sgp_fd_cols(y));
  if ((st = read_pred(ctx, pred, y, &var, &mu, &prob, &binary))) return st;
  if ((st = numbers(ctx, var, "var", &v))) return st;
  *names = prob.data || binary ? cls_names : reg_names;
  if (!prob.data && !binary)
    return sgp_valla_metrics(ctx, sgp_cmat_of(y->real, y->len, 1), mu, v, prob, o.bins, out, count);
  const int64_t n = y->len, np = prob.rows;
  double *yc = sgp_alloc(n > 0 ? n : 1), *p2 = binary ? sgp_alloc(2 * (np > 0 ? np : 1)) : NULL;
  if (!yc || (binary && !p2)) { free(yc); free(p2); return sgp_fail(ctx, SGP_ENOMEM, "out of memory"); }
  for (int64_t i = 0; i < n; i++) yc[i] = y->real[i];
  code_labels(yc, n, binary);
  for (int64_t i = 0; binary && i < np; i++) {
    p2[i] = 1 - prob.data[i];
    p2[np + i] = prob.data[i];
  }
  yv = sgp_cmat_of(yc, n, 1);
  st = sgp_valla_metrics(ctx, yv, sgp_cmat_of(NULL, 0, 0), sgp_cmat_of(NULL, 0, 0),
                         binary ? sgp_cmat_of(p2, np, 2) : prob, o.bins, out, count);
  free(yc);
  free(p2);
  return st;
}
