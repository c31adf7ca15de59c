/* ski_fit_check.c -- a ski_gsgp fit given back as plain data (an R list or an
 * Octave struct: saved, reloaded, edited) is checked here, once for both hosts,
 * before predict, print, summary or plot read it: its grid and statistics, the
 * model, the weights, the LOVE cache and the results, each error naming the field
 * ("the fit is damaged; refit it"); and the view its predictions need. */
#include "ski/ski.h"
#include "host/fit_data.h"
#include "kernels/kernel_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const kind_names[] = {"gsgp", "ski", NULL};
static const char *const variance_names[] = {"none", "lanczos", "exact", NULL};
static const char *const bounds_names[] = {"error", "truncate", "clamp", "drop", NULL};
static const char *const backend_names[] = {"auto", "cpu", "cuda", NULL};
static const char *const stop_names[] = {"tol", "max_iter", "accuracy", "breakdown", NULL};

static int positive(const sgp_value *v)
{
  return v->type == SGP_VAL_REAL && v->len == 1 && isfinite(v->real[0]) && v->real[0] > 0;
}

/* kernel, lengthscale, outputscale, noise, tol, max_iter, method, variance,
 * bounds_policy, backend (optional: older fits have none), hyper$mean */
static int check_model(const sgp_fd *f, int64_t d, sgp_ski_fit_view *v)
{
  int st, k, i;
  double mi;
  sgp_ski_opts *o = &v->o;
  if ((st = sgp_fd_string(f, "kernel", sgp_kernel_names, &k))) return st;
  o->kernel.kind = (sgp_kernel_kind)k;
  const sgp_value *ell = sgp_fd_elt(f->fit, "lengthscale");
  int ok = ell->type == SGP_VAL_REAL && (ell->len == 1 || ell->len == d) && sgp_fd_finite(ell);
  for (int64_t j = 0; ok && j < ell->len; j++) ok = ell->real[j] > 0;
  if (!ok) return sgp_fd_bad(f, "lengthscale", "must be 1 or %lld positive finite numbers", (long long)d);
  o->kernel.lengthscale = ell->real;
  o->kernel.n_lengthscale = ell->len;
  o->kernel.alpha = 1.0;
  if (sgp_kernel_info_of(o->kernel.kind)->uses_alpha) {
    if (!positive(sgp_fd_elt(f->fit, "alpha")))
      return sgp_fd_bad(f, "alpha", "must be one positive finite number");
    o->kernel.alpha = sgp_fd_elt(f->fit, "alpha")->real[0];
  }
  const char *pos[] = {"outputscale", "noise", "tol"};
  double *to[] = {&o->kernel.outputscale, &o->noise, &o->tol};
  for (int j = 0; j < 3; j++) {
    if (!positive(sgp_fd_elt(f->fit, pos[j])))
      return sgp_fd_bad(f, pos[j], "must be one positive finite number");
    *to[j] = sgp_fd_elt(f->fit, pos[j])->real[0];
  }
  if ((st = sgp_fd_whole(f, "max_iter", 1, &mi)) || (st = sgp_fd_string(f, "method", kind_names, &i)) ||
      (st = sgp_fd_string(f, "variance", variance_names, &v->variance)) ||
      (st = sgp_fd_string(f, "bounds_policy", bounds_names, &k)))
    return st;
  o->max_iter = (int64_t)mi;
  o->bounds_policy = (sgp_ski_bounds_policy)k;
  v->backend = -1;
  if (sgp_fd_has(f->fit, "backend") &&
      (st = sgp_fd_string(f, "backend", backend_names, &v->backend)))
    return st;
  sgp_cmat mean;
  if ((st = sgp_fd_hyper_mean(f, 1, &mean))) return st;
  o->mean = mean.data[0];
  return SGP_OK;
}

/* The LOVE cache list(Ft = rank-by-m, c0 = m values, error), finite; variance
 * "lanczos" needs it. error (the bound of its check: a number >= 0, Inf, or NA)
 * is optional: fits made before the check have none. */
static int check_love(const sgp_fd *f, int64_t m, sgp_ski_fit_view *v)
{
  const sgp_value *love = sgp_fd_elt(f->fit, "love");
  char ft[32], c0[32], er[32];
  snprintf(ft, sizeof ft, "love%sFt", f->sep);
  snprintf(c0, sizeof c0, "love%sc0", f->sep);
  snprintf(er, sizeof er, "love%serror", f->sep);
  v->love_error = NAN;
  if (sgp_fd_is_nothing(love)) {
    if (v->variance == SGP_SKI_VARIANCE_LANCZOS)
      return sgp_fd_bad(f, "love", "is missing (the fit was made with variance = \"lanczos\")");
    return SGP_OK;
  }
  const sgp_value *F = sgp_fd_elt(love, "Ft"), *c = sgp_fd_elt(love, "c0");
  if (love->type != SGP_VAL_LIST || F->type == SGP_VAL_NULL || c->type == SGP_VAL_NULL)
    return sgp_fd_bad(f, "love", "must be a list or struct of Ft and c0");
  if (!sgp_fd_is_numeric(F) || (F->rows == 0 && F->cols == 0) || F->cols != m)
    return sgp_fd_bad(f, ft, "must be a numeric rank-by-%lld matrix", (long long)m);
  if (!sgp_fd_finite(F)) return sgp_fd_bad(f, ft, "has NaN or Inf");
  if (!sgp_fd_is_numeric(c) || c->len != m || !sgp_fd_finite(c))
    return sgp_fd_bad(f, c0, "must be %lld finite numbers", (long long)m);
  v->love_Ft = F->real;
  v->love_c0 = c->real;
  v->love_rank = sgp_fd_rows(F);
  const sgp_value *e = sgp_fd_elt(love, "error");
  if (sgp_fd_is_nothing(e)) return SGP_OK;
  if (e->type != SGP_VAL_REAL || e->len != 1 || e->real[0] < 0)
    return sgp_fd_bad(f, er, "must be one number >= 0 (or NA)");
  v->love_error = e->real[0];
  return SGP_OK;
}

/* timings: named finite seconds >= 0 with preprocess and solve (R: a named vector,
 * Octave: a struct of scalars) */
static int timings_ok(const sgp_value *t)
{
  int pre = 0, solve = 0;
  const int list = t->type == SGP_VAL_LIST;
  if ((!list && t->type != SGP_VAL_REAL) || !t->strs) return 0;
  for (int64_t i = 0; i < t->len; i++) {
    const sgp_value *e = list ? &t->elts[i] : NULL;
    const double s = list ? (e->type == SGP_VAL_REAL && e->len == 1 ? e->real[0] : NAN) : t->real[i];
    if (!isfinite(s) || s < 0) return 0;
    pre |= !strcmp(t->strs[i], "preprocess");
    solve |= !strcmp(t->strs[i], "solve");
  }
  return pre && solve;
}

/* iterations, converged, rel_residual, the optional log-likelihood figures,
 * timings and stop (what print and summary show) */
static int check_results(const sgp_fd *f)
{
  static const char *const num[] = {"rel_residual", "loglik", "logdet", "logdet_se", "datafit"};
  double it;
  int st, conv;
  if ((st = sgp_fd_whole(f, "iterations", 0, &it)) || (st = sgp_fd_flag(f, "converged", &conv)))
    return st;
  /* the log-likelihood's figures come together (a fit without them has none of
   * the fields); a field that is there holds its value (older fits lack stop and
   * timings) */
  const int with_loglik = sgp_fd_has(f->fit, "loglik");
  for (int j = 0; j < 5; j++) {
    const sgp_value *v = sgp_fd_elt(f->fit, num[j]);
    if (j > 0 && !with_loglik && !sgp_fd_has(f->fit, num[j])) continue;
    if (v->type != SGP_VAL_REAL || v->len != 1 || !isfinite(v->real[0]))
      return sgp_fd_bad(f, num[j], "must be one finite number%s", j > 1 && with_loglik
                        ? " (loglik is given)" : "");
    if ((j == 0 || j == 3) && v->real[0] < 0) return sgp_fd_bad(f, num[j], "must be >= 0");
  }
  const sgp_value *t = sgp_fd_elt(f->fit, "timings");
  if (sgp_fd_has(f->fit, "timings") && !timings_ok(t))
    return sgp_fd_bad(f, "timings", "must be named finite seconds >= 0 (preprocess, solve, ...)");
  if (sgp_fd_has(f->fit, "stop")) return sgp_fd_string(f, "stop", stop_names, NULL);
  return SGP_OK;
}

static int same_grid(const sgp_ski_grid_data *a, const sgp_ski_stats_data *b)
{
  if (a->grid.d != b->grid.d || a->interpolation != b->interpolation) return 0;
  for (int j = 0; j < a->grid.d; j++)
    if (a->grid.m[j] != b->grid.m[j] || a->grid.lo[j] != b->grid.lo[j] || a->grid.h[j] != b->grid.h[j])
      return 0;
  return 1;
}

int sgp_ski_fit_check(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                      sgp_ski_fit_view *v)
{
  static const char *const need[] = {"grid", "weights", "iterations", "converged", "rel_residual",
                                     "stats", "kernel", "lengthscale", "outputscale", "noise",
                                     "method", "variance", "tol", "max_iter", "bounds_policy", NULL};
  char sub[64];
  sgp_fd f;
  sgp_ski_grid_data g;
  int st;
  memset(v, 0, sizeof *v);
  sgp_ski_opts_default(&v->o);
  if ((st = sgp_fd_begin(&f, ctx, fit, arg, sep, "ski_gsgp", need,
                         " (the fit is damaged; refit it)")))
    return st;
  snprintf(sub, sizeof sub, "%s%sgrid", arg, sep);
  if ((st = sgp_ski_grid_read(ctx, sgp_fd_elt(fit, "grid"), sub, sep, &g))) return st;
  snprintf(sub, sizeof sub, "%s%sstats", arg, sep);
  if ((st = sgp_ski_stats_check(ctx, sgp_fd_elt(fit, "stats"), sub, sep, &v->stats))) return st;
  if (!same_grid(&g, &v->stats)) return sgp_fd_bad(&f, "grid", "differs from the grid of its statistics");
  const int64_t m = v->stats.m;
  if ((st = check_model(&f, g.grid.d, v))) return st;
  const sgp_value *w = sgp_fd_elt(fit, "weights");
  if (!sgp_fd_is_numeric(w) || w->len != m || !sgp_fd_finite(w))
    return sgp_fd_bad(&f, "weights", "must be %lld finite numbers (one per grid point)", (long long)m);
  v->weights = w->real;
  v->o.interpolation = v->stats.interpolation;
  if ((st = check_love(&f, m, v)) || (st = check_results(&f))) return st;
  return sgp_fd_selection(&f, v->o.kernel.lengthscale, v->o.kernel.n_lengthscale,
                          v->o.kernel.n_lengthscale, v->o.kernel.outputscale, &v->o.noise, NULL,
                          NULL);
}
