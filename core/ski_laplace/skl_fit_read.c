/* skl_fit_read.c -- a ski_laplace fit given back as plain data (an R list or an
 * Octave struct: saved, reloaded, edited) is checked and read here, once for
 * both hosts, before its predictions: the grid, the latent mode on it (weights),
 * the observed cells (observed, f, counts, offset; scattered: x, from which W
 * is made again, and observed empty), the model (hyper: the lengthscales,
 * outputscale and mean; used: likelihood, noise, dispersion, trials, kernel,
 * alpha, inner_rtol, max_iter, and the scattered layout's bounds_policy). Each error names the field as
 * the host's user writes it, with "(the fit is damaged; refit it)". */
#include "ski_laplace/skl.h"
#include "host/fit_data.h"
#include "kernels/kernel_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const damaged = " (the fit is damaged; refit it)";
static const char *const layout_names[] = {"auto", "cells", "points", "binned", "scattered",
                                            NULL};
static const char *const bounds_names[] = {"error", "truncate", "clamp", "drop", NULL};

void skl_fit_free(skl_fit *f)
{
  skl_problem_free(&f->p);
  memset(f, 0, sizeof *f);
}

/* n finite numbers (what: why n, as "one per grid point"). */
static int vector_of(const sgp_fd *f, const char *name, int64_t n, const char *what,
                     const double **out)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  if (!sgp_fd_is_numeric(v)) return sgp_fd_bad(f, name, "must be numeric (%s)", what);
  if (v->len != n)
    return sgp_fd_bad(f, name, "has %lld values; need %lld (%s)", (long long)v->len,
                      (long long)n, what);
  if (!sgp_fd_finite(v)) return sgp_fd_bad(f, name, "contains NaN, NA or Inf");
  *out = v->real;
  return SGP_OK;
}

/* One positive finite number. */
static int positive_of(const sgp_fd *f, const char *name, double *out)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  if (!sgp_fd_is_numeric(v) || v->len != 1 || !isfinite(v->real[0]) || !(v->real[0] > 0))
    return sgp_fd_bad(f, name, "must be one positive finite number");
  *out = v->real[0];
  return SGP_OK;
}

/* observed: n strictly increasing grid indices in 1..m (the fit's order). */
static int read_observed(const sgp_fd *f, skl_problem *p)
{
  const sgp_value *v = sgp_fd_elt(f->fit, "observed");
  if (!sgp_fd_is_numeric(v) || v->len > p->m)
    return sgp_fd_bad(f, "observed", "must be at most %lld grid indices (1-based)",
                      (long long)p->m);
  p->n = v->len;
  p->obs = malloc((size_t)(p->n > 0 ? p->n : 1) * sizeof(int64_t));
  if (!p->obs) return sgp_fail(f->ctx, SGP_ENOMEM, "out of memory");
  for (int64_t i = 0; i < p->n; i++) {
    const double k = v->real[i];
    if (!(k >= 1 && k <= (double)p->m && k == floor(k)) || (i > 0 && !(k > v->real[i - 1])))
      return sgp_fd_bad(f, "observed", "must be increasing grid indices in 1..%lld (element "
                        "%lld is %g)", (long long)p->m, (long long)(i + 1), k);
    p->obs[i] = (int64_t)k - 1;
  }
  return SGP_OK;
}

/* scattered: x (n x d, the locations the fit kept) and W from them on the
 * fit's grid, as the fit made it; observed is empty. */
static int read_scattered(const sgp_fd *f, skl_fit *out)
{
  skl_problem *p = &out->p;
  sgp_cmat X;
  int st = sgp_fd_matrix(f, "x", -1, p->grid.d, &X);
  if (st) return st;
  if (!sgp_fd_is_nothing(sgp_fd_elt(f->fit, "observed")))
    return sgp_fd_bad(f, "observed", "must be empty in a scattered fit (its observations are x)");
  unsigned char *keep = malloc((size_t)(X.rows > 0 ? X.rows : 1));
  st = keep ? skl_scattered_weights(f->ctx, p, X, out->o.bounds_policy, keep)
            : sgp_fail(f->ctx, SGP_ENOMEM, "out of memory");
  free(keep);
  if (st) {  /* the fit's x lies on its grid: an error here is damage */
    char msg[sizeof f->ctx->errmsg];
    snprintf(msg, sizeof msg, "%s", f->ctx->errmsg);
    return sgp_fd_bad(f, "x", "does not fit the grid: %s", msg);
  }
  if (p->dropped > 0) return sgp_fd_bad(f, "x", "has rows outside the grid");
  return SGP_OK;
}

/* counts, offset and the likelihood's trials over the n observed cells, their
 * labels checked as the fit checked them (the points layout's counts are
 * interpolation weights summed: any number >= 0). */
static int read_cells(const sgp_fd *f, const sgp_fd *u, skl_problem *p)
{
  const int64_t n = p->n, n1 = n > 0 ? n : 1;
  const double *y, *off, *tr = NULL;
  int st;
  if ((st = vector_of(f, "counts", n, "one per observed cell", &y)) ||
      (st = vector_of(f, "offset", n, "one per observed cell", &off)))
    return st;
  const sgp_lik_ops *ops = sgp_lik_ops_of(p->lik.kind);
  const sgp_value *tv = sgp_fd_elt(u->fit, "trials");
  if (ops->takes_trials && (st = vector_of(u, "trials", n, "binomial: one per observed cell", &tr)))
    return st;
  if (!ops->takes_trials && !sgp_fd_is_nothing(tv))
    return sgp_fd_bad(u, "trials", "must be empty (only binomial fits have trials)");
  p->y = sgp_alloc(n1);
  p->off = sgp_alloc(n1);
  p->trials = tr ? sgp_alloc(n1) : NULL;
  if (!p->y || !p->off || (tr && !p->trials)) return sgp_fail(f->ctx, SGP_ENOMEM, "out of memory");
  for (int64_t i = 0; i < n; i++) {
    if (tr && !(tr[i] >= 1 && tr[i] == floor(tr[i])))
      return sgp_fd_bad(u, "trials", "must be whole numbers >= 1 (element %lld is %g)",
                        (long long)(i + 1), tr[i]);
    if (fabs(off[i]) > 700.0)
      return sgp_fd_bad(f, "offset", "must lie in [-700, 700] (element %lld is %g)",
                        (long long)(i + 1), off[i]);
    p->y[i] = y[i];
    p->off[i] = off[i];
    if (tr) p->trials[i] = tr[i];
  }
  return SGP_OK;
}

/* The labels by the likelihood's rule, once the likelihood is set. */
static int check_labels(const sgp_fd *f, int points, const skl_problem *p)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(p->lik.kind);
  char why[160];
  for (int64_t i = 0; i < p->n; i++) {
    if (points ? p->y[i] >= 0.0 : ops->label(&p->lik, i, why, sizeof why)) continue;
    if (points) snprintf(why, sizeof why, "point counts must be >= 0");
    return sgp_fd_bad(f, "counts", "%s (element %lld is %g)", why, (long long)(i + 1), p->y[i]);
  }
  return SGP_OK;
}

/* used: the likelihood and its parameters, the layout, the kernel and its
 * alpha, the solves' inner_rtol and max_iter. */
static int read_used(const sgp_fd *u, skl_fit *out, int *points)
{
  int st, k, lay;
  double noise, disp, mi;
  sgp_ski_laplace_opts *o = &out->o;
  if ((st = sgp_fd_string(u, "likelihood", sgp_lik_names, &k))) return st;
  const sgp_lik_ops *ops = sgp_lik_ops_of((sgp_likelihood)k);
  if (!ops || ops->multiclass) return sgp_fd_bad(u, "likelihood", "must have one latent per cell");
  o->likelihood = (sgp_likelihood)k;
  if ((st = sgp_fd_string(u, "layout", layout_names, &lay)) ||
      (st = sgp_fd_string(u, "kernel", sgp_kernel_names, &k)) ||
      (st = positive_of(u, "noise", &noise)) || (st = positive_of(u, "dispersion", &disp)) ||
      (st = positive_of(u, "inner_rtol", &o->inner_rtol)) || (st = sgp_fd_whole(u, "max_iter", 1, &mi)))
    return st;
  if (o->inner_rtol > 1) return sgp_fd_bad(u, "inner_rtol", "must be in (0, 1]");
  o->kernel.kind = (sgp_kernel_kind)k;
  o->kernel.alpha = 1.0;
  if (sgp_kernel_info_of(o->kernel.kind)->uses_alpha && (st = positive_of(u, "alpha", &o->kernel.alpha)))
    return st;
  o->noise = noise;
  o->dispersion = disp;
  o->max_iter = mi < 2147483647.0 ? (int64_t)mi : 2147483647;
  out->p.layout = (sgp_skl_layout)lay;
  *points = lay == SGP_SKL_LAYOUT_POINTS;
  if (lay == SGP_SKL_LAYOUT_SCATTERED && (st = sgp_fd_string(u, "bounds_policy", bounds_names, &k)))
    return st;
  if (lay == SGP_SKL_LAYOUT_SCATTERED) out->o.bounds_policy = (sgp_ski_bounds_policy)k;
  return SGP_OK;
}

/* hyper: 1 or d lengthscales, the outputscale and the mean (positive finite,
 * finite). */
static int read_hyper(const sgp_fd *f, int d, skl_fit *out)
{
  char name[48];
  sgp_cmat mean;
  int st = sgp_fd_hyper_mean(f, 1, &mean);
  if (st) return st;
  const sgp_value *h = sgp_fd_elt(f->fit, "hyper"), *ls = sgp_fd_elt(h, "lengthscale");
  snprintf(name, sizeof name, "hyper%slengthscale", f->sep);
  int ok = sgp_fd_is_numeric(ls) && (ls->len == 1 || ls->len == d) && sgp_fd_finite(ls);
  for (int64_t j = 0; ok && j < ls->len; j++) ok = ls->real[j] > 0;
  if (!ok) return sgp_fd_bad(f, name, "must be 1 or %d positive finite numbers", d);
  for (int64_t j = 0; j < ls->len; j++) out->ls[j] = ls->real[j];
  out->o.kernel.lengthscale = out->ls;
  out->o.kernel.n_lengthscale = ls->len;
  const sgp_value *os = sgp_fd_elt(h, "outputscale");
  snprintf(name, sizeof name, "hyper%soutputscale", f->sep);
  if (!sgp_fd_is_numeric(os) || os->len != 1 || !isfinite(os->real[0]) || !(os->real[0] > 0))
    return sgp_fd_bad(f, name, "must be one positive finite number");
  out->o.kernel.outputscale = os->real[0];
  out->mean = mean.data[0];
  return SGP_OK;
}

int skl_fit_read(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                 skl_fit *out)
{
  static const char *const need[] = {"grid", "weights", "f", "counts", "offset", "observed",
                                     "hyper", "used", NULL};
  char sub[96];
  sgp_fd f;
  sgp_ski_grid_data g;
  int st, points = 0;
  memset(out, 0, sizeof *out);
  sgp_ski_laplace_opts_default(&out->o);
  if ((st = sgp_fd_begin(&f, ctx, fit, arg, sep, "ski_laplace", need, damaged))) return st;
  snprintf(sub, sizeof sub, "%s%sgrid", arg, sep);
  if ((st = sgp_ski_grid_read(ctx, sgp_fd_elt(fit, "grid"), sub, sep, &g))) return st;
  skl_problem *p = &out->p;
  if ((st = skl_problem_grid(ctx, &g.grid, g.bounds, p))) return st;
  out->o.interpolation = g.interpolation;
  p->m = sgp_ski_grid_npoints(&p->grid);
  p->wnorm2 = 1.0;
  p->interp = g.interpolation;
  const sgp_value *used = sgp_fd_elt(fit, "used");
  if (used->type != SGP_VAL_LIST) return sgp_fd_bad(&f, "used", "must be a list or struct");
  snprintf(sub, sizeof sub, "%s%sused", arg, sep);
  const sgp_fd u = sgp_fd_of(ctx, used, sub, sep, damaged);
  if ((st = read_used(&u, out, &points)) || (st = read_hyper(&f, p->grid.d, out)) ||
      (st = vector_of(&f, "weights", p->m, "one per grid point", &out->weights)) ||
      (st = p->layout == SGP_SKL_LAYOUT_SCATTERED ? read_scattered(&f, out) : read_observed(&f, p)) ||
      (st = vector_of(&f, "f", p->n, "one per observed cell", &out->f)))
    return st;
  p->lik.kind = out->o.likelihood;
  if ((st = read_cells(&f, &u, p))) return st;
  skl_problem_lik(p, out->o.likelihood, out->o.noise, out->o.dispersion);
  p->points = points;
  return check_labels(&f, points, p);
}
