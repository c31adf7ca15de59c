/* skl_run.c -- ski_laplace's call: the data on the grid, the hyperparameters
 * (the user's, data-based starts, learned by the Laplace evidence), the mode,
 * the evidence, the predictions, and the result as plain data for both hosts. */
#include "ski_laplace/skl_eig.h"
#include "host/value_out.h"
#include "select/select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const skl_problem *p;
  const sgp_ski_laplace_opts *o;
  skl_state *s;
  sgp_hyper *h;
  int path;            /* SKL_EXACT, SKL_EIGEN, SKL_SLQ */
  double deadline, last_se;
} learn_t;

enum { SKL_EXACT = 0, SKL_EIGEN = 1, SKL_SLQ = 2 };
/* The default probes: the eigen path's preconditioned ones vary far less (a
 * third of the standard error of slq's on bei at 256 x 128 with 30 each), so
 * 10 of them are about as precise as 30 plain ones. The learned values follow
 * the estimate's error: with 30 plain probes they scattered by about 3% over
 * seeds on bei at 64 x 32, so slq takes 60 (their error shrinks as
 * 1/sqrt(probes); the Newton solves' cost does not grow with them). */
#define SKL_EIG_PROBES 10
#define SKL_SLQ_PROBES 60
static const char *const path_names[] = {"exact", "eigen", "slq"};

/* The path of loglik_method for these data and this kernel. */
static int path_of(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const skl_problem *p, int *path)
{
  /* the scattered layout's curvature on the grid, W'DW, is not diagonal: the
   * whitened path's preconditioner and traces assume it is */
  const int scat = p->layout == SGP_SKL_LAYOUT_SCATTERED;
  const int eig = !scat && skl_eig_applies(p, &o->kernel);
  if (scat && o->loglik_method == SGP_SKL_LOGLIK_EIGEN)
    return sgp_fail(ctx, SGP_EINVAL, "loglik_method: the eigen path takes the cells, points and "
                    "binned layouts; use \"exact\" or \"slq\" for scattered data");
  switch (o->loglik_method) {
  case SGP_SKL_LOGLIK_EXACT: *path = SKL_EXACT; break;
  case SGP_SKL_LOGLIK_SLQ: *path = SKL_SLQ; break;
  case SGP_SKL_LOGLIK_EIGEN:
    if (!eig)
      return sgp_fail(ctx, SGP_EINVAL, "loglik_method: \"eigen\" needs a separable kernel (rbf) or "
                      "a grid of one dimension, and at most %d points per dimension",
                      SGP_SKI_KRON_EIG_HARD_MAX);
    *path = SKL_EIGEN;
    break;
  default:
    *path = p->n <= SGP_SKL_EXACT_AUTO_MAX ? SKL_EXACT : eig ? SKL_EIGEN : SKL_SLQ;
  }
  return SGP_OK;
}

/* The mode at the prior pr (Newton on the path's operator), then, with value,
 * the evidence (and grad) there; *se its standard error. */
static int mode_and_evidence(sgp_ctx *ctx, learn_t *L, const skl_prior *pr, double *value,
                             double *se, double *grad, skl_varmap *map)
{
  *se = 0.0;
  double v_map, se_map;
  if (L->path != SKL_EIGEN) {
    int st = skl_newton(ctx, L->p, pr, L->o, L->deadline, L->s);
    if (st || !L->s->converged) return st;
    if (value)
      st = L->path == SKL_EXACT
           ? skl_evidence_exact(ctx, L->p, pr, L->s, value, grad)
           : skl_evidence_slq(ctx, L->p, pr, L->s, L->o, ctx->seed, value, se, grad, map);
    if (!st && map && (!value || L->path == SKL_EXACT)) /* the map from probes of its own */
      st = skl_evidence_slq(ctx, L->p, pr, L->s, L->o, ctx->seed, &v_map, &se_map, NULL, map);
    return st;
  }
  skl_eig e;
  int st = skl_eig_make(ctx, L->p, &pr->kernel, 8, &e);
  if (!st) st = skl_newton_eig(ctx, L->p, pr, &e, L->o, L->deadline, L->s);
  if (!st && L->s->converged && (value || map))
    st = value ? skl_evidence_eig(ctx, L->p, pr, &e, L->s, L->o, ctx->seed, value, se, grad, map)
               : skl_evidence_eig(ctx, L->p, pr, &e, L->s, L->o, ctx->seed, &v_map, &se_map, NULL, map);
  skl_eig_free(&e);
  return st;
}

/* The kernel and mean of theta = (log lengthscale(s), log outputscale, mean). */
static void theta_to_prior(const learn_t *L, const double *theta, sgp_kernel *k, double *ls,
                           double *mean)
{
  const int64_t nl = L->h->n_lengthscale;
  *k = L->o->kernel;
  for (int64_t j = 0; j < nl; j++) ls[j] = exp(theta[j]);
  k->lengthscale = ls;
  k->n_lengthscale = nl;
  k->outputscale = exp(theta[nl]);
  *mean = theta[nl + 1];
}

/* Newton to the mode, then the evidence; a mode not found is a failed
 * evaluation (the evidence away from the mode is not the evidence). */
static int evidence_at(sgp_ctx *ctx, learn_t *L, const double *theta, double *value, double *grad)
{
  sgp_kernel k;
  double ls[SGP_SKI_MAX_D], mean;
  theta_to_prior(L, theta, &k, ls, &mean);
  skl_prior pr;
  int st = skl_prior_make(ctx, L->p, &k, mean, &pr);
  L->last_se = 0.0;
  if (!st) st = mode_and_evidence(ctx, L, &pr, value, &L->last_se, grad, NULL);
  if (!st && !L->s->converged)
    st = sgp_fail(ctx, SGP_ENOTPD, "evidence: the mode was not found (%s)", L->s->stop);
  skl_prior_free(&pr);
  return st;
}

static int objective(sgp_ctx *ctx, const double *theta, double *value, double *grad, void *data)
{
  return evidence_at(ctx, (learn_t *)data, theta, value, grad);
}

static double last_se(void *data) { return ((const learn_t *)data)->last_se; }

/* The extent of the grid's smallest side (cells times spacing), and the smallest spacing. */
static void grid_scales(const sgp_ski_grid *g, double *extent, double *hmin)
{
  *extent = INFINITY; *hmin = INFINITY;
  for (int j = 0; j < g->d; j++) {
    if (g->m[j] < 2) continue;
    *extent = fmin(*extent, (double)(g->m[j] - 1) * g->h[j]);
    *hmin = fmin(*hmin, g->h[j]);
  }
  if (!isfinite(*extent)) { *extent = 1.0; *hmin = 1.0; }
}

/* h: the user's values, else data-based starts; bits: what is learned. */
static int start_values(sgp_ctx *ctx, const skl_problem *p, const sgp_ski_laplace_opts *o,
                        sgp_hyper *h, unsigned *bits)
{
  const int d = p->grid.d;
  const int64_t nl = o->kernel.lengthscale ? o->kernel.n_lengthscale : 1;
  if (nl != 1 && nl != d)
    return sgp_fail(ctx, SGP_EDIM, "lengthscale: needs 1 or %d values (got %lld)", d, (long long)nl);
  unsigned b = o->learn & ~(unsigned)SGP_LEARN_AUTO;
  if (o->learn & SGP_LEARN_AUTO) {
    if (!o->kernel.lengthscale) b |= SGP_LEARN_LENGTHSCALE;
    if (isnan(o->kernel.outputscale)) b |= SGP_LEARN_OUTPUTSCALE;
    if (isnan(o->mean)) b |= SGP_LEARN_MEAN;
  }
  if (b & SGP_LEARN_NOISE)
    return sgp_fail(ctx, SGP_EINVAL, "learn: ski_laplace does not learn \"noise\" (give it)");
  *bits = b;
  h->n_lengthscale = nl;
  h->lengthscale = sgp_alloc(nl);
  h->n_mean = 1;
  h->mean = sgp_alloc(1);
  h->n_theta = nl + 2;
  h->grad = sgp_alloc(nl + 2);
  if (!h->lengthscale || !h->mean || !h->grad) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  double s0 = 1.0, m0 = 0.0, noise0 = NAN, extent, hmin;
  if (p->n > 0) sgp_lik_ops_of(p->lik.kind)->initial(&p->lik, &s0, &m0, &noise0);
  grid_scales(&p->grid, &extent, &hmin);
  for (int64_t j = 0; j < nl; j++)
    h->lengthscale[j] = o->kernel.lengthscale ? o->kernel.lengthscale[j]
                        : (b & SGP_LEARN_LENGTHSCALE) ? fmax(extent / 10.0, 2.0 * hmin) : 1.0;
  h->outputscale = !isnan(o->kernel.outputscale) ? o->kernel.outputscale
                   : (b & SGP_LEARN_OUTPUTSCALE) ? s0 : 1.0;
  h->mean[0] = !isnan(o->mean) ? o->mean : (b & SGP_LEARN_MEAN) ? m0 : 0.0;
  h->noise = NAN;
  h->loglik = NAN;
  return SGP_OK;
}

static int learn(sgp_ctx *ctx, learn_t *L, unsigned bits, double *theta)
{
  const int64_t nl = L->h->n_lengthscale, nt = nl + 2;
  double lo[SGP_SKI_MAX_D + 2], hi[SGP_SKI_MAX_D + 2], extent, hmin;
  grid_scales(&L->p->grid, &extent, &hmin);
  for (int64_t k = 0; k < nt; k++) { lo[k] = -INFINITY; hi[k] = INFINITY; }
  for (int64_t j = 0; j < nl; j++) { lo[j] = log(0.5 * hmin); hi[j] = log(10.0 * extent); }
  /* the stochastic evidence (probes fixed for the run): its Hutchinson gradient is
   * no derivative of its SLQ value, so the optimizer follows path values (the
   * values integrated from the gradients, kept within 3 standard errors of the
   * estimates), as gp_laplace's stochastic learning does */
  const int stoch = L->path != SKL_EXACT;
  const sgp_select_run run = {L->o->optim_max_iter, L->o->restarts, 0.0, 0.0, 0.0, stoch,
                              stoch ? last_se : NULL, "ski_laplace: learning", L->deadline};
  int64_t best = -1;
  return sgp_select_learn(ctx, L->h, theta, lo, hi, bits, &run, objective, L, &best);
}

/* ---- the result as plain data */

static sgp_value history_plain(const skl_state *s, sgp_value_arena *a)
{
  static const char *const names[] = {"step", "psi", "mode_error", "damping", "cg_steps",
                                      "rel_residual", "seconds"};
  double *step = sgp_vo_alloc(a, (size_t)(s->rows > 0 ? s->rows : 1) * sizeof(double));
  for (int64_t r = 0; step && r < s->rows; r++) step[r] = (double)(r + 1);
  const sgp_value e[] = {sgp_vo_real(a, s->rows, step, 0, 0), sgp_vo_real(a, s->rows, s->h_psi, 0, 0),
                         sgp_vo_real(a, s->rows, s->h_err, 0, 0),
                         sgp_vo_real(a, s->rows, s->h_step, 0, 0),
                         sgp_vo_real(a, s->rows, s->h_cg, 0, 0), sgp_vo_real(a, s->rows, s->h_res, 0, 0),
                         sgp_vo_real(a, s->rows, s->h_sec, 0, 0)};
  return sgp_vo_list(a, 7, names, e);
}

typedef struct {
  const skl_problem *p;
  const sgp_ski_laplace_opts *o;
  const skl_state *s;
  const double *u;            /* m: the latent mode on the grid (weights) */
  const sgp_hyper *h;
  int path;
  const double *var_obs;     /* n or NULL */
  const double *tmean, *tvar; /* ns or NULL */
  int64_t ns;
  const char *const *warn;
  int64_t n_warn;
  double seconds;
  const skl_varmap *map;      /* the stochastic variance map, or NULL */
} skl_parts;

static sgp_value test_plain(const skl_parts *q, sgp_value_arena *a)
{
  if (!q->tmean) return sgp_vo_null();
  static const char *const names[] = {"mean", "var", "response", "response_var"};
  double *rm = sgp_vo_alloc(a, (size_t)q->ns * sizeof(double) + 1);
  double *rv = sgp_vo_alloc(a, (size_t)q->ns * sizeof(double) + 1);
  if (rm && rv) skl_response(q->p->lik.kind, q->o->noise, q->ns, q->tmean, q->tvar, NULL, rm, rv);
  const sgp_value e[] = {sgp_vo_real(a, q->ns, q->tmean, 0, 0),
                         q->tvar ? sgp_vo_real(a, q->ns, q->tvar, 0, 0) : sgp_vo_null(),
                         sgp_vo_real(a, q->ns, rm, 0, 0), sgp_vo_real(a, q->ns, rv, 0, 0)};
  return sgp_vo_list(a, 4, names, e);
}

/* What predictions from the fit read back need besides the grid and hyper:
 * the likelihood (with its noise, dispersion and trials), the kernel (and its
 * alpha) and the solves' inner_rtol and max_iter. */
static sgp_value used_plain(const skl_parts *q, uint64_t seed, sgp_value_arena *a)
{
  static const char *const names[] = {"likelihood", "layout", "kernel", "loglik_method",
                                      "interpolation", "probes", "seed", "trials", "noise",
                                      "dispersion", "alpha", "inner_rtol", "max_iter",
                                      "bounds_policy"};
  static const char *const lay[] = {"auto", "cells", "points", "binned", "scattered"};
  static const char *const bounds[] = {"error", "truncate", "clamp", "drop"};
  const sgp_value e[] = {
    sgp_vo_string(a, sgp_lik_names[q->p->lik.kind]), sgp_vo_string(a, lay[q->p->layout]),
    sgp_vo_string(a, sgp_kernel_names[q->o->kernel.kind]),
    sgp_vo_string(a, path_names[q->path]),
    sgp_vo_string(a, q->o->interpolation == SGP_SKI_LINEAR ? "linear" : "cubic"),
    sgp_vo_scalar(a, q->path == SKL_EXACT ? 0.0 : (double)q->o->probes), sgp_vo_scalar(a, (double)seed),
    q->p->trials ? sgp_vo_real(a, q->p->n, q->p->trials, 0, 0) : sgp_vo_null(),
    sgp_vo_scalar(a, q->o->noise), sgp_vo_scalar(a, q->o->dispersion),
    sgp_vo_scalar(a, q->o->kernel.alpha), sgp_vo_scalar(a, q->o->inner_rtol),
    sgp_vo_scalar(a, (double)q->o->max_iter), sgp_vo_string(a, bounds[q->p->policy])};
  return sgp_vo_list(a, (int64_t)(sizeof names / sizeof names[0]), names, e);
}

static sgp_value result_plain(sgp_ctx *ctx, const skl_parts *q, sgp_value_arena *a)
{
  const skl_problem *p = q->p;
  const skl_state *s = q->s;
  int64_t *obs1 = sgp_vo_alloc(a, (size_t)(p->n > 0 ? p->n : 1) * sizeof(int64_t));
  for (int64_t i = 0; obs1 && p->obs && i < p->n; i++) obs1[i] = p->obs[i] + 1;
  static const char *const names[] = {
    "grid", "weights", "alpha", "f", "var", "counts", "offset", "observed", "x", "newton_steps",
    "iterations", "converged", "stop_reason", "mode_error", "history", "loglik", "loglik_se",
    "selection", "used", "warnings", "test", "seconds", "grid_var", "grid_var_se"};
  const sgp_value e[] = {
    sgp_ski_grid_plain(&p->grid, q->o->interpolation, p->bounds, a),
    sgp_vo_real(a, p->m, q->u, 0, 0), sgp_vo_real(a, p->m, s->alpha, 0, 0),
    sgp_vo_real(a, p->n, s->f, 0, 0),
    q->var_obs ? sgp_vo_real(a, p->n, q->var_obs, 0, 0) : sgp_vo_null(),
    sgp_vo_real(a, p->n, p->y, 0, 0), sgp_vo_real(a, p->n, p->off, 0, 0),
    p->widx ? sgp_vo_null() : sgp_vo_int(a, p->n, obs1),
    p->widx ? sgp_vo_real(a, p->n * p->grid.d, p->xo, p->n, p->grid.d) : sgp_vo_null(),
    sgp_vo_scalar(a, (double)s->newton_steps),
    sgp_vo_scalar(a, (double)s->cg_steps), sgp_vo_flag(a, s->converged),
    sgp_vo_string(a, s->stop), sgp_vo_scalar(a, s->mode_error), history_plain(s, a),
    sgp_vo_scalar(a, isnan(q->h->loglik) ? sgp_vo_na() : q->h->loglik),
    sgp_vo_scalar(a, isnan(q->h->loglik) ? sgp_vo_na() : q->h->loglik_se),
    sgp_hyper_plain(q->h, a), used_plain(q, ctx->seed, a),
    sgp_vo_strings(a, q->n_warn, q->warn), test_plain(q, a), sgp_vo_scalar(a, q->seconds),
    q->map ? sgp_vo_real(a, p->m, q->map->var, 0, 0) : sgp_vo_null(),
    q->map ? sgp_vo_real(a, p->m, q->map->se, 0, 0) : sgp_vo_null()};
  return sgp_vo_list(a, (int64_t)(sizeof names / sizeof names[0]), names, e);
}

/* The latent variances at the observed cells: the predictions at their centres. */
static int observed_var(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, const double *u,
                        const skl_state *s, const sgp_ski_laplace_opts *o, double *var)
{
  if (p->n == 0) return SGP_OK;
  if (p->widx) {  /* scattered: the observations' own weights (as clamped) */
    int st = SGP_OK;
    for (int64_t i0 = 0; !st && i0 < p->n; i0 += 16)
      st = skl_predict_var_taps(ctx, p, &pr->K, s->sw, o, p->n - i0 < 16 ? p->n - i0 : 16, p->T,
                                p->widx + i0 * p->T, p->ww + i0 * p->T, var + i0);
    return st;
  }
  double *mean = sgp_alloc(p->n);
  if (!mean) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  const int st = skl_predict(ctx, p, &pr->K, u, s->sw, o, sgp_cmat_of(p->xo, p->n, p->grid.d),
                             mean, var);
  free(mean);
  return st;
}

/* A learned lengthscale below 3 cells where the grid is ours to choose (points,
 * binned): the grid cannot represent such a field (the latent varies within a
 * cell), so the fit depends on the grid; say so. Cells data define their grid. */
#define SKL_MIN_CELLS_PER_LENGTHSCALE 3.0
static int under_resolved(const skl_problem *p, const sgp_hyper *h, char *buf, size_t size)
{
  if (!(h->learned & SGP_LEARN_LENGTHSCALE) || p->layout == SGP_SKL_LAYOUT_CELLS) return 0;
  for (int j = 0; j < p->grid.d; j++) {
    const double ls = h->lengthscale[h->n_lengthscale == 1 ? 0 : j];
    if (p->grid.m[j] > 1 && ls < SKL_MIN_CELLS_PER_LENGTHSCALE * p->grid.h[j]) {
      snprintf(buf, size, "ski_laplace: the learned lengthscale %.3g is under %g grid cells "
               "(spacing %.3g in dimension %d): the grid does not resolve it; raise grid_size",
               ls, SKL_MIN_CELLS_PER_LENGTHSCALE, p->grid.h[j], j + 1);
      return 1;
    }
  }
  return 0;
}

static int fit_and_write(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt,
                         const skl_problem *p, learn_t *L, int want_loglik, sgp_value_arena *a,
                         sgp_value *out, double t0)
{
  sgp_hyper *h = L->h;
  /* the prior of the values the fit writes (hyper), which predict reads back */
  skl_prior pr;
  int st = skl_prior_of(ctx, p, &o->kernel, h->lengthscale, h->n_lengthscale, h->outputscale,
                        h->mean[0], &pr);
  h->loglik_se = 0.0;
  const int stoch_var = o->variance == SGP_SKL_VARIANCE_STOCHASTIC;
  const int scat = p->widx != NULL;
  skl_varmap map = {stoch_var ? sgp_alloc(p->m) : NULL, stoch_var ? sgp_alloc(p->m) : NULL,
                    stoch_var && scat ? sgp_alloc(p->n > 0 ? p->n : 1) : NULL};
  if (!st && stoch_var && (!map.var || !map.se || (scat && !map.fvar)))
    st = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  if (!st) st = mode_and_evidence(ctx, L, &pr, want_loglik ? &h->loglik : NULL, &h->loglik_se, h->grad,
                                  stoch_var ? &map : NULL);
  const char *warn[5];
  char w1[320], w2[320], w3[360], w4[320], w5[200];
  int64_t nw = 0;
  if (!st && p->dropped > 0) {
    snprintf(w5, sizeof w5, "ski_laplace: %lld of %lld rows of x lie outside the grid's valid "
             "range and were dropped (bounds_policy \"drop\")", (long long)p->dropped,
             (long long)p->n_data);
    warn[nw++] = w5;
  }
  if (!st && !L->s->converged) {
    snprintf(w1, sizeof w1, "ski_laplace: the mode was not found (stop: %s; mode bound %.3g > tol "
             "%.3g): raise max_newton%s", L->s->stop, L->s->mode_error, o->tol,
             strcmp(L->s->stop, "time_limit") ? "" : " or time_limit");
    warn[nw++] = w1;
  }
  if (!st && !(want_loglik && L->s->converged)) {
    h->loglik = NAN;
    free(h->grad); /* no gradient without the evidence */
    h->grad = NULL;
    snprintf(h->note, sizeof h->note, want_loglik ? "the evidence is not computed: the mode was "
             "not found" : "the evidence was not asked for (loglik = TRUE computes it)");
  }
  sgp_select_warning(h, w2, sizeof w2);
  if (!st && w2[0]) { snprintf(w3, sizeof w3, "ski_laplace: %s", w2); warn[nw++] = w3; }
  if (!st && under_resolved(p, h, w4, sizeof w4)) warn[nw++] = w4;
  double *var_obs = NULL, *tm = NULL, *tv = NULL, *u = st ? NULL : sgp_alloc(p->m);
  if (!st && !u) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t i = 0; !st && i < p->m; i++) u[i] = pr.mean + L->s->kappa[i];
  const int64_t ns = dt->xtest.data ? dt->xtest.rows : 0;
  /* exact variances at the observed cells cost a solve each: up to the exact
   * path's size; beyond it the stochastic map gives them */
  if (!st && o->variance != SGP_SKL_VARIANCE_NONE && (stoch_var || p->n <= SGP_SKL_EXACT_AUTO_MAX)) {
    var_obs = sgp_alloc(p->n > 0 ? p->n : 1);
    if (!var_obs) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
    else if (stoch_var && L->s->converged)
      for (int64_t i = 0; i < p->n; i++) var_obs[i] = scat ? map.fvar[i] : map.var[p->obs[i]];
    else if (!stoch_var) st = observed_var(ctx, p, &pr, u, L->s, o, var_obs);
    else { free(var_obs); var_obs = NULL; }
  }
  if (!st && ns > 0) {
    if (dt->xtest.cols != p->grid.d)
      st = sgp_fail(ctx, SGP_EDIM, "xtest: has %lld columns; the grid has %d dimensions",
                    (long long)dt->xtest.cols, p->grid.d);
    tm = sgp_alloc(ns);
    tv = o->variance == SGP_SKL_VARIANCE_EXACT ? sgp_alloc(ns) : NULL; /* stochastic: the map */
    if (!st && (!tm || (o->variance == SGP_SKL_VARIANCE_EXACT && !tv)))
      st = sgp_fail(ctx, SGP_ENOMEM, "xtest: out of memory");
    if (!st) st = skl_predict(ctx, p, &pr.K, u, L->s->sw, o, dt->xtest, tm, tv);
  }
  if (!st) {
    const skl_parts q = {p, o, L->s, u, h, L->path, var_obs, tm, tv, ns, warn, nw,
                         sgp_clock() - t0, stoch_var && L->s->converged ? &map : NULL};
    *out = result_plain(ctx, &q, a);
    if (sgp_value_arena_failed(a)) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  }
  free(var_obs); free(tm); free(tv); free(u); free(map.var); free(map.se); free(map.fvar);
  skl_prior_free(&pr);
  (void)w2;
  return st;
}

int sgp_ski_laplace_run(sgp_ctx *ctx, const sgp_ski_laplace_opts *o,
                        const sgp_ski_laplace_data *dt, sgp_value_arena *a, sgp_value *out)
{
  const double t0 = sgp_clock();
  skl_problem p;
  skl_state s;
  sgp_hyper h;
  memset(&s, 0, sizeof s);
  memset(&h, 0, sizeof h);
  int st = skl_problem_make(ctx, o, dt, &p);
  unsigned bits = 0;
  sgp_ski_laplace_opts ro = *o;  /* the options as used: interpolation resolved, probes by the path */
  ro.interpolation = p.interp;
  o = &ro;
  if (!st) st = start_values(ctx, &p, o, &h, &bits);
  if (!st) st = skl_state_init(ctx, &s, p.m, p.n, o->max_newton + 1);
  learn_t L = {&p, o, &s, &h, SKL_EXACT, o->time_limit > 0 ? t0 + o->time_limit : 0.0, 0.0};
  if (!st) st = path_of(ctx, o, &p, &L.path);
  if (ro.probes <= 0) ro.probes = L.path == SKL_EIGEN ? SKL_EIG_PROBES : SKL_SLQ_PROBES;
  if (!st && bits && p.n > 0) {
    double theta[SGP_SKI_MAX_D + 2];
    const int64_t nl = h.n_lengthscale;
    for (int64_t j = 0; j < nl; j++) theta[j] = log(h.lengthscale[j]);
    theta[nl] = log(h.outputscale);
    theta[nl + 1] = h.mean[0];
    st = learn(ctx, &L, bits, theta);
    if (!st) {
      for (int64_t j = 0; j < nl; j++) h.lengthscale[j] = exp(theta[j]);
      h.outputscale = exp(theta[nl]);
      h.mean[0] = theta[nl + 1];
    }
  }
  const int want = o->loglik >= 0 ? o->loglik : (bits != 0 || L.path == SKL_EXACT);
  if (!st) st = fit_and_write(ctx, o, dt, &p, &L, want, a, out, t0);
  skl_state_free(&s);
  skl_problem_free(&p);
  sgp_hyper_free(&h);
  return st;
}
