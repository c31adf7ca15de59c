/* laplace_fit_check.c -- a gp_laplace fit given back as plain data (an R list or
 * an Octave struct: saved, reloaded, edited) is checked here, once for both
 * hosts, before predict, print, summary or plot read it: every field those read,
 * for type, shape, finiteness and consistency, the error naming the field. */
#include "laplace/lik_table.h"
#include "host/fit_data.h"
#include "kernels/kernel_table.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const *choices(const char *option)
{
  return sgp_opt_find(sgp_verb_options("gp_laplace"), option)->choices;
}

/* likelihood, n_class, levels and the kernel's name */
static int check_model(const sgp_fd *f, sgp_likelihood *lik, int64_t *C, sgp_kernel *k)
{
  int st, li, ki;
  if ((st = sgp_fd_string(f, "likelihood", sgp_lik_names, &li))) return st;
  *lik = (sgp_likelihood)li;
  const char *ln = sgp_lik_names[li];
  const int softmax = sgp_lik_multiclass(*lik);
  const sgp_value *c = sgp_fd_elt(f->fit, "n_class");
  if (c->type != SGP_VAL_REAL || c->len != 1 || !isfinite(c->real[0]) ||
      c->real[0] != floor(c->real[0]) || (softmax && c->real[0] < 2) ||
      (!softmax && c->real[0] != 1))
    return sgp_fd_bad(f, "n_class", "must be %s for likelihood = \"%s\"",
                      softmax ? "a whole number >= 2" : "1", ln);
  *C = (int64_t)c->real[0];
  const sgp_value *lev = sgp_fd_elt(f->fit, "levels");
  const int64_t nl = *C > 2 ? *C : 2;
  if (!sgp_fd_absent(f, lev) && (lev->type != SGP_VAL_STRING || lev->len != nl))
    return sgp_fd_bad(f, "levels", "must be absent or %lld class names", (long long)nl);
  const sgp_value *kv = sgp_fd_elt(f->fit, "kernel");
  const sgp_fd kf = sgp_fd_of(f->ctx, kv, f->arg, f->sep, NULL);
  memset(k, 0, sizeof *k);
  if (kv->type != SGP_VAL_LIST || sgp_fd_string(&kf, "kernel", sgp_kernel_names, &ki)) {
    char list[128] = "";
    for (int i = 0; sgp_kernel_names[i]; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s\"%s\"", i ? ", " : "",
               sgp_kernel_names[i]);
    return sgp_fd_bad(f, "kernel", "must be a list or struct of kernel (one of %s), "
                      "lengthscale, outputscale", list);
  }
  k->kind = (sgp_kernel_kind)ki;
  return SGP_OK;
}

/* x (n x d); f, var, weights (n x C); root (nC x r); the kernel's scales */
static int check_arrays(const sgp_fd *f, int64_t C, sgp_cmat *X, sgp_cmat *W, sgp_cmat *R,
                        sgp_kernel *k)
{
  int st;
  sgp_cmat m;
  if ((st = sgp_fd_matrix(f, "x", -1, -1, X))) return st;
  const int64_t n = X->rows, d = X->cols;
  if (!n || !d) return sgp_fd_bad(f, "x", "is empty (%lld x %lld)", (long long)n, (long long)d);
  if ((st = sgp_fd_matrix(f, "f", n, C, &m)) || (st = sgp_fd_matrix(f, "var", n, C, &m)) ||
      (st = sgp_fd_matrix(f, "weights", n, C, W)))
    return st;
  for (int64_t i = 0; i < n * C; i++)
    if (m.data[i] < 0) return sgp_fd_bad(f, "var", "has negative variances");
  if ((st = sgp_fd_matrix(f, "root", n * C, -1, R))) return st;
  const sgp_value *kv = sgp_fd_elt(f->fit, "kernel");
  const sgp_value *ell = sgp_fd_elt(kv, "lengthscale"), *s2 = sgp_fd_elt(kv, "outputscale");
  int ok = ell->type == SGP_VAL_REAL && (ell->len == 1 || ell->len == d) && sgp_fd_finite(ell);
  for (int64_t i = 0; ok && i < ell->len; i++) ok = ell->real[i] > 0;
  if (!ok)
    return sgp_fd_bad(f, "kernel", "must have 1 or d = %lld positive finite lengthscales",
                      (long long)d);
  if (s2->type != SGP_VAL_REAL || s2->len != 1 || !isfinite(s2->real[0]) || !(s2->real[0] > 0))
    return sgp_fd_bad(f, "kernel", "must have one positive finite outputscale");
  k->lengthscale = ell->real;
  k->n_lengthscale = ell->len;
  k->outputscale = s2->real[0];
  k->alpha = 1.0;
  if (sgp_kernel_info_of(k->kind)->uses_alpha) {
    const sgp_value *al = sgp_fd_elt(kv, "alpha");
    if (al->type != SGP_VAL_REAL || al->len != 1 || !isfinite(al->real[0]) || !(al->real[0] > 0))
      return sgp_fd_bad(f, "kernel", "must have one positive finite alpha (kernel \"%s\")",
                        sgp_kernel_names[k->kind]);
    k->alpha = al->real[0];
  }
  return SGP_OK;
}

/* n finite numbers (positive ones where positive) */
static int reals(const sgp_value *v, int64_t n, int positive)
{
  int ok = v->type == SGP_VAL_REAL && v->len == n && sgp_fd_finite(v);
  for (int64_t i = 0; ok && positive && i < n; i++) ok = v->real[i] > 0;
  return ok;
}

/* scaling (laplace_scale.c): absent in a fit saved before it (inputs as given);
 * else scaled (a flag), centre and scale (d each, scale 1 unless scaled) and
 * the lengthscale(s) on the inputs the kernel saw, which times scale must be the
 * kernel's, on the inputs' own scale. k becomes the kernel the fit's inputs saw;
 * ls, n_ls keep the kernel's lengthscales (the selection's hyper shows those). */
static int check_scaling(const sgp_fd *f, int64_t d, sgp_kernel *k, sgp_laplace_result *sc,
                         const double **ls, int64_t *n_ls)
{
  const sgp_value *sv = sgp_fd_elt(f->fit, "scaling");
  *ls = k->lengthscale;
  *n_ls = k->n_lengthscale;
  if (sgp_fd_absent(f, sv)) return SGP_OK;
  const sgp_value *fl = sgp_fd_elt(sv, "scaled"), *c = sgp_fd_elt(sv, "centre");
  const sgp_value *s = sgp_fd_elt(sv, "scale"), *ell = sgp_fd_elt(sv, "lengthscale");
  int ok = sv->type == SGP_VAL_LIST && (fl->type == SGP_VAL_LOGICAL || fl->type == SGP_VAL_REAL) &&
           fl->len == 1 && (fl->real[0] == 0 || fl->real[0] == 1) && reals(c, d, 0) &&
           reals(s, d, 1) && (reals(ell, 1, 1) || reals(ell, d, 1));
  for (int64_t j = 0; ok && fl->real[0] == 0 && j < d; j++) ok = s->real[j] == 1.0;
  if (!ok)
    return sgp_fd_bad(f, "scaling", "must be a list or struct of scaled (TRUE or FALSE), "
                      "centre and scale (%lld finite numbers each, scale positive, and 1 unless "
                      "scaled) and the lengthscale (1 or %lld positive finite numbers)",
                      (long long)d, (long long)d);
  double *orig = sgp_alloc(d);
  int64_t n_orig = 0;
  if (!orig) return sgp_fail(f->ctx, SGP_ENOMEM, "out of memory");
  sc->scaled = fl->real[0] != 0;
  sgp_laplace_lengthscale_original(ell->real, ell->len, s->real, sc->scaled, d, orig, &n_orig);
  ok = n_orig == k->n_lengthscale;
  for (int64_t j = 0; ok && j < n_orig; j++) ok = orig[j] == k->lengthscale[j];
  free(orig);
  if (!ok)
    return sgp_fd_bad(f, "kernel", "lengthscale must be scaling's lengthscale times its scale "
                      "(one per column where scaled: the inputs' own scale)");
  sc->centre = (double *)c->real;
  sc->scale = (double *)s->real;
  k->lengthscale = ell->real;
  k->n_lengthscale = ell->len;
  return SGP_OK;
}

/* y (labels valid for the likelihood), trials (binomial), the scalar parameter,
 * noise (gaussian), offset (log links) */
static int check_data(const sgp_fd *f, sgp_likelihood lik, int64_t n, int64_t C, double *noise,
                      double *par)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(lik);
  const char *ln = sgp_lik_names[lik];
  const sgp_value *y = sgp_fd_elt(f->fit, "y");
  int ok = y->type == SGP_VAL_REAL && y->len == n && sgp_fd_finite(y);
  char why[160], list[160];
  sgp_lik labels = {.kind = lik, .n = n, .C = C, .y = ok ? y->real : NULL};
  const sgp_value *tv = sgp_fd_elt(f->fit, "trials");
  if (ops->takes_trials) { /* binomial: the trials the labels are checked against */
    int tok = tv->type == SGP_VAL_REAL && (tv->len == 1 || tv->len == n);
    for (int64_t i = 0; tok && i < tv->len; i++)
      tok = sgp_lik_whole_in(tv->real[i], 1, 9007199254740992.0);
    if (!tok)
      return sgp_fd_bad(f, "trials", "must be 1 or %lld whole numbers >= 1 for likelihood = \"%s\"",
                        (long long)n, ln);
    labels.trials = tv->real;
    labels.n_trials = tv->len;
  } else if (!sgp_fd_absent(f, tv)) {
    return sgp_fd_bad(f, "trials", "must be absent (NULL or []) for likelihood = \"%s\"", ln);
  }
  if (ops->par_name) { /* negbin: the dispersion its labels and summary read */
    const sgp_value *pv = sgp_fd_elt(f->fit, ops->par_name);
    if (pv->type != SGP_VAL_REAL || pv->len != 1 || !isfinite(pv->real[0]) || !(pv->real[0] > 0))
      return sgp_fd_bad(f, ops->par_name,
                        "must be one positive finite number for likelihood = \"%s\"", ln);
    labels.par = *par = pv->real[0];
  }
  for (int64_t i = 0; ok && i < n; i++) ok = ops->label(&labels, i, why, sizeof why);
  if (!ok)
    return sgp_fd_bad(f, "y", "must be %lld finite labels valid for likelihood = \"%s\"",
                      (long long)n, ln);
  const sgp_value *nv = sgp_fd_elt(f->fit, "noise");
  if (ops->has_noise) {
    ok = nv->type == SGP_VAL_REAL && (nv->len == 1 || nv->len == n) && sgp_fd_finite(nv);
    for (int64_t i = 0; ok && i < nv->len; i++) ok = nv->real[i] > 0;
    if (!ok)
      return sgp_fd_bad(f, "noise", "must be 1 or %lld positive finite variances", (long long)n);
    *noise = nv->real[0];
  } else if (!sgp_fd_absent(f, nv)) {
    return sgp_fd_bad(f, "noise", "must be absent (NULL or []) for likelihood = \"%s\"", ln);
  }
  const sgp_value *off = sgp_fd_elt(f->fit, "offset");
  if (!sgp_fd_absent(f, off) && (!ops->takes_offset || off->type != SGP_VAL_REAL ||
                                  off->len != n || !sgp_fd_finite(off)))
    return sgp_fd_bad(f, "offset", "must be absent or, for likelihood = %s, %lld finite "
                      "numbers", sgp_lik_list(SGP_LIK_FACT_OFFSET, 1, list, sizeof list), (long long)n);
  return SGP_OK;
}

/* counters, status and history; a root without columns only with no solver
 * iteration (else predict would give the prior), and columns without an
 * iteration only as the exact state (all nC of them: a full budget whose
 * right-hand side met the tolerance at once takes the dense Cholesky of K^,
 * recording no iteration) */
static int check_run(const sgp_fd *f, int64_t r, int64_t nc)
{
  static const char *const hist[] = {"newton", "total", "residual", "trace"};
  static const char *const steps[] = {"delta"};
  double steps_n, iters;
  int st, conv;
  if ((st = sgp_fd_whole(f, "newton_steps", 0, &steps_n)) ||
      (st = sgp_fd_whole(f, "iterations", 0, &iters)))
    return st;
  if ((st = sgp_fd_flag(f, "converged", &conv)) || (st = sgp_fd_string(f, "policy", NULL, NULL)) ||
      (st = sgp_fd_string(f, "stop_reason", NULL, NULL)) ||
      (st = sgp_fd_string(f, "policy", choices("policy"), NULL)) ||
      (st = sgp_fd_columns(f, "history", hist, 4)) || (st = sgp_fd_columns(f, "steps", steps, 1)))
    return st;
  /* a fit that diverged keeps the last finite weights and no root (its variance
   * is the prior's, and it says it did not converge) */
  const int diverged = !strcmp(sgp_fd_elt(f->fit, "stop_reason")->str, "diverged");
  if ((r == 0 && iters > 0 && !diverged) || (r > 0 && r < nc && iters == 0))
    return sgp_fd_bad(f, "root", "has %lld columns but the fit took %.15g solver iterations",
                      (long long)r, iters);
  return SGP_OK;
}

int sgp_laplace_fit_check(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                          sgp_laplace_result *view, sgp_kernel *k)
{
  sgp_fd f;
  sgp_likelihood lik;
  int64_t C = 1;
  sgp_cmat X, W, R;
  double noise = 0, par = NAN;
  int st;
  static const char *const need[] = {"x", "weights", "root", "likelihood", "n_class", "kernel",
                                     "f", "var", "y", "newton_steps", "iterations", "converged",
                                     "policy", "stop_reason", "history", "steps", NULL};
  sgp_laplace_result sc;
  const double *ls;
  int64_t n_ls;
  memset(&sc, 0, sizeof sc);
  if ((st = sgp_fd_begin(&f, ctx, fit, arg, sep, "gp_laplace", need, NULL)) ||
      (st = check_model(&f, &lik, &C, k)) || (st = check_arrays(&f, C, &X, &W, &R, k)) ||
      (st = check_scaling(&f, X.cols, k, &sc, &ls, &n_ls)) ||
      (st = check_data(&f, lik, X.rows, C, &noise, &par)) || (st = check_run(&f, R.cols, X.rows * C)))
    return st;
  sgp_cmat mv;
  const int one_noise = sgp_lik_has_noise(lik) && sgp_fd_elt(fit, "noise")->len == 1;
  if ((st = sgp_fd_hyper_mean(&f, C, &mv)) ||
      (st = sgp_fd_selection(&f, ls, n_ls, k->n_lengthscale, k->outputscale,
                             one_noise ? &noise : NULL, isnan(par) ? NULL : &par,
                             sgp_kernel_info_of(k->kind)->uses_alpha ? &k->alpha : NULL)))
    return st;
  if ((st = sgp_laplace_fit_view(ctx, view, X, W, R.cols ? R : sgp_cmat_of(NULL, 0, 0), k, lik,
                                 noise, mv)))
    return st;
  view->centre = sc.centre; /* the view references them, as the rest */
  view->scale = sc.scale;
  view->scaled = sc.scaled;
  return SGP_OK;
}
