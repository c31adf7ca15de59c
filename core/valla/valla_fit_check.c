/* valla_fit_check.c -- a valla fit given back as plain data (an R list or an
 * Octave struct: saved, reloaded, edited) is checked here, once for both hosts,
 * before predict, print, summary or plot read it: presence, types and lengths of
 * its fields, each error naming the field ("the fit is damaged; refit it"), and
 * the network (`model`) by sgp_valla_net_from_value, as valla's own argument; the
 * values, shapes and the P1 / P2 / prior combination are sgp_valla_fit_from_data's. */
#include "valla/valla.h"
#include "host/fit_data.h"
#include "api/sgp_options.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const method_names[] = {"valla", "lla", "ella", NULL};
static const char *const stop_names[] = {"iterations", "early_stopping", "diverged", "loss_rose",
                                         NULL};

/* R's NULL or Octave's [] (not an empty string vector, which is a wrong value) */
static int null_or_empty(const sgp_value *v)
{
  return v->type == SGP_VAL_NULL || (v->type == SGP_VAL_REAL && v->len == 0);
}

static int finite_scalar(const sgp_value *v, int positive)
{
  return v->type == SGP_VAL_REAL && v->len == 1 && isfinite(v->real[0]) &&
         (!positive || v->real[0] > 0);
}

/* flags, counts, likelihood, method, prior_var, y_mean, y_sd, noise */
static int check_scalars(const sgp_fd *f, int *lik, double *d, double *C)
{
  static const char *const flags[] = {"prior", "closed_form", "stopped_early"};
  static const char *const counts[] = {"n", "d", "C", "n_class", "iterations", "best_iteration",
                                       "clamps"};
  int st, b, method;
  double v;
  for (int i = 0; i < 3; i++)
    if ((st = sgp_fd_flag(f, flags[i], &b))) return st;
  for (int i = 0; i < 7; i++) {
    if ((st = sgp_fd_whole(f, counts[i], 0, &v))) return st;
    if (i == 1) *d = v;
    if (i == 2) *C = v;
  }
  if (*d < 1) return sgp_fd_bad(f, "d", "must be at least 1");
  if (*C < 1) return sgp_fd_bad(f, "C", "must be at least 1");
  if ((st = sgp_fd_string(f, "likelihood", sgp_lik_valla_names, lik)) ||
      (st = sgp_fd_string(f, "method", method_names, &method)))
    return st;
  const char *pos[] = {"prior_var", "y_sd", "noise"};
  for (int i = 0; i < 3 - (*lik != SGP_LIK_GAUSSIAN); i++)
    if (!finite_scalar(sgp_fd_elt(f->fit, pos[i]), 1))
      return sgp_fd_bad(f, pos[i], "must be one positive finite number");
  if (!finite_scalar(sgp_fd_elt(f->fit, "y_mean"), 0))
    return sgp_fd_bad(f, "y_mean", "must be one finite number");
  if (*lik != SGP_LIK_GAUSSIAN && !sgp_fd_absent(f, sgp_fd_elt(f->fit, "noise")))
    return sgp_fd_bad(f, "noise", "must be absent (NULL or []) for classification");
  return SGP_OK;
}

/* inducing (M x d), tags (M in 1..C), P1 / P2 (empty or M x M), layers, x_range (2 x d) */
static int check_arrays(const sgp_fd *f, double d, double C)
{
  const sgp_value *Z = sgp_fd_elt(f->fit, "inducing"), *tg = sgp_fd_elt(f->fit, "tags");
  if (!sgp_fd_is_numeric(Z) || (Z->rows == 0 && Z->cols == 0 && Z->len > 0) ||
      sgp_fd_cols(Z) != (int64_t)d)
    return sgp_fd_bad(f, "inducing", "must be a numeric matrix with d = %.0f columns", d);
  const int64_t M = sgp_fd_rows(Z);
  int ok = sgp_fd_is_numeric(tg) && tg->len == M && sgp_fd_finite(tg);
  for (int64_t i = 0; ok && i < M; i++)
    ok = tg->real[i] == floor(tg->real[i]) && tg->real[i] >= 1 && tg->real[i] <= C;
  if (!ok)
    return sgp_fd_bad(f, "tags", "must give one output per inducing point (%lld of them, each "
                      "in 1..%.0f)", (long long)M, C);
  const char *P[] = {"P1", "P2"};
  for (int i = 0; i < 2; i++) {
    const sgp_value *p = sgp_fd_elt(f->fit, P[i]);
    if (!null_or_empty(p) && (!sgp_fd_is_numeric(p) || (p->rows == 0 && p->cols == 0) ||
                              p->rows != M || p->cols != M))
      return sgp_fd_bad(f, P[i], "must be empty or a %lld x %lld numeric matrix", (long long)M,
                        (long long)M);
  }
  const sgp_value *ly = sgp_fd_elt(f->fit, "layers");
  if (!null_or_empty(ly) && (!sgp_fd_is_numeric(ly) || !sgp_fd_finite(ly)))
    return sgp_fd_bad(f, "layers", "must be empty or one flag per layer");
  const sgp_value *xr = sgp_fd_elt(f->fit, "x_range");
  if (!sgp_fd_is_numeric(xr) || xr->rows != 2 || xr->cols != (int64_t)d)
    return sgp_fd_bad(f, "x_range", "must be a 2 x %.0f numeric matrix", d);
  return SGP_OK;
}

/* history, test, stop_reason, levels, and that model is a network as plain data */
static int check_rest(const sgp_fd *f, int lik, double C)
{
  const sgp_value *h = sgp_fd_elt(f->fit, "history"), *val = sgp_fd_elt(h, "validation");
  if (h->type != SGP_VAL_LIST || !sgp_fd_is_numeric(sgp_fd_elt(h, "objective")) ||
      val->type != SGP_VAL_LIST || !sgp_fd_has(val, "iteration") || !sgp_fd_has(val, "nll"))
    return sgp_fd_bad(f, "history", "must be a list or struct of objective and validation "
                      "(iteration, nll)");
  const sgp_value *t = sgp_fd_elt(f->fit, "test");
  if (!sgp_fd_absent(f, t) && (t->type != SGP_VAL_LIST || !sgp_fd_is_numeric(sgp_fd_elt(t, "mean"))))
    return sgp_fd_bad(f, "test", "must be a list or struct of mean, var, ...");
  if (!sgp_fd_absent(f, sgp_fd_elt(f->fit, "stop_reason"))) {
    int st = sgp_fd_string(f, "stop_reason", stop_names, NULL);
    if (st) return st;
  }
  const sgp_value *lv = sgp_fd_elt(f->fit, "levels");
  if (!sgp_fd_absent(f, lv)) {
    const int64_t want = lik == SGP_LIK_GAUSSIAN ? 0 : lik == SGP_LIK_BERNOULLI ? 2 : (int64_t)C;
    if (!want) return sgp_fd_bad(f, "levels", "must be empty for a gaussian fit");
    int ok = lv->type == SGP_VAL_STRING && lv->len == want && lv->strs;
    for (int64_t i = 0; ok && i < want; i++) {
      ok = strcmp(lv->strs[i], "NA") != 0;
      for (int64_t j = 0; ok && j < i; j++) ok = strcmp(lv->strs[i], lv->strs[j]) != 0;
    }
    if (!ok)
      return sgp_fd_bad(f, "levels", "must be empty or %lld distinct class names (strings, no "
                        "NA)", (long long)want);
  }
  if (sgp_fd_elt(f->fit, "model")->type != SGP_VAL_LIST)
    return sgp_fd_bad(f, "model", "must be a network as plain data (a list or struct of "
                      "weights, biases, ...)");
  /* the network's insides, in the words of valla's own model argument */
  char marg[128];
  snprintf(marg, sizeof marg, "%s%smodel", f->arg, f->sep);
  sgp_valla_net net;
  const int st = sgp_valla_net_from_value(f->ctx, sgp_fd_elt(f->fit, "model"), marg, f->sep, &net);
  sgp_valla_net_free(&net);
  return st;
}

int sgp_valla_fit_check(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep)
{
  static const char *const need[] = {"model", "inducing", "tags", "P1", "P2", "prior",
                                     "prior_var", "noise", "y_mean", "y_sd", "likelihood",
                                     "method", "closed_form", "n", "d", "C", "n_class",
                                     "iterations", "best_iteration", "stopped_early", "clamps",
                                     "history", "x_range", NULL};
  sgp_fd f;
  int st, lik;
  double d = 0, C = 0;
  if ((st = sgp_fd_begin(&f, ctx, fit, arg, sep, "valla", need,
                         " (the fit is damaged; refit it)")) ||
      (st = check_scalars(&f, &lik, &d, &C)) || (st = check_arrays(&f, d, C)))
    return st;
  return check_rest(&f, lik, C);
}
