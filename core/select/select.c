/* select.c -- model selection shared by gp_laplace and ski_gsgp: theta's
 * coordinates and names, the bounds of the optimizer, one optimizer run over the coordinates asked for with its trace
 * kept in an sgp_hyper, the model-selection warning, and the data-based
 * initial lengthscale. */
#include "select/select.h"
#include "select/optim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INIT_SUBSAMPLE 1000
#define INIT_SEED_SALT 0x5ca1e9b1u /* the subsample's own stream: the fit's is untouched */

unsigned sgp_select_coordinate(const sgp_hyper *h, int64_t k)
{
  const int64_t n_ls = h->n_lengthscale, base = n_ls + 1 + h->n_mean;
  const int64_t noise_end = h->n_theta - (h->has_dispersion != 0) - (h->has_alpha != 0);
  return k < n_ls ? SGP_LEARN_LENGTHSCALE : k == n_ls ? SGP_LEARN_OUTPUTSCALE
         : k < base ? SGP_LEARN_MEAN : k < noise_end ? SGP_LEARN_NOISE
         : k == noise_end && h->has_dispersion ? SGP_LEARN_DISPERSION : SGP_LEARN_ALPHA;
}

void sgp_hyper_theta_name(const sgp_hyper *h, int64_t k, char *buf, size_t size)
{
  const int64_t nl = h->n_lengthscale, nm = h->n_mean;
  switch (sgp_select_coordinate(h, k)) {
  case SGP_LEARN_LENGTHSCALE:
    snprintf(buf, size, nl == 1 ? "lengthscale" : "lengthscale%lld", (long long)k + 1); break;
  case SGP_LEARN_OUTPUTSCALE: snprintf(buf, size, "outputscale"); break;
  case SGP_LEARN_MEAN: snprintf(buf, size, nm == 1 ? "mean" : "mean%lld", (long long)(k - nl)); break;
  case SGP_LEARN_DISPERSION: snprintf(buf, size, "dispersion"); break;
  case SGP_LEARN_ALPHA: snprintf(buf, size, "alpha"); break;
  default: snprintf(buf, size, "noise");
  }
}

void sgp_hyper_free(sgp_hyper *h)
{
  free(h->lengthscale); free(h->mean); free(h->grad);
  free(h->tr_loglik); free(h->tr_gradnorm); free(h->tr_seconds); free(h->tr_theta);
  memset(h, 0, sizeof *h);
}

/* The optimizer's trace and verdict into h. */
static int keep_trace(sgp_ctx *ctx, const sgp_optim_result *r, sgp_hyper *h,
                      const int64_t *free_idx, int64_t n_free, const double *theta0)
{
  const int64_t ne = r->n_eval, nt = h->n_theta;
  h->n_eval = ne;
  h->tr_loglik = sgp_alloc(ne); h->tr_gradnorm = sgp_alloc(ne); h->tr_seconds = sgp_alloc(ne);
  h->tr_theta = sgp_alloc(ne * nt);
  if (!h->tr_loglik || !h->tr_gradnorm || !h->tr_seconds || !h->tr_theta)
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  memcpy(h->tr_loglik, r->trace_value, (size_t)ne * sizeof(double));
  memcpy(h->tr_gradnorm, r->trace_gradnorm, (size_t)ne * sizeof(double));
  memcpy(h->tr_seconds, r->trace_seconds, (size_t)ne * sizeof(double));
  for (int64_t k = 0; k < nt; k++)
    for (int64_t e = 0; e < ne; e++) h->tr_theta[e + k * ne] = theta0[k];
  for (int64_t k = 0; k < n_free; k++)
    memcpy(h->tr_theta + free_idx[k] * ne, r->trace_x + k * ne, (size_t)ne * sizeof(double));
  for (int64_t k = 0; k < nt; k++) /* the values on the user's scale */
    if (sgp_select_coordinate(h, k) != SGP_LEARN_MEAN)
      for (int64_t e = 0; e < ne; e++) h->tr_theta[e + k * ne] = exp(h->tr_theta[e + k * ne]);
  h->optim_converged = r->converged;
  h->optim_timed_out = r->timed_out;
  h->optim_interrupted = r->interrupted;
  snprintf(h->optim_message, sizeof h->optim_message, "%s", r->message);
  return SGP_OK;
}

/* Bounds around the starting value: factors 1e3 (lengthscale, and alpha, beyond
 * which rq is rbf to within rounding of the kernel's leading term), 1e4
 * (outputscale, dispersion: NB2 at r = 1e4 times its start is Poisson to the
 * data's resolution), 1e6 (noise) either way on the log scale; the mean is free. */
static void bounds(unsigned what, double start, double *lo, double *hi)
{
  const double span = what == SGP_LEARN_LENGTHSCALE || what == SGP_LEARN_ALPHA ? log(1e3)
                      : what == SGP_LEARN_OUTPUTSCALE || what == SGP_LEARN_DISPERSION ? log(1e4)
                      : what == SGP_LEARN_MEAN ? INFINITY : log(1e6);
  *lo = start - span;
  *hi = start + span;
}

/* A learned value at its bound is not a maximum of the objective, which still
 * rises there (an outputscale growing without end: separable classes; a noise
 * shrinking to nothing: an interpolating fit). The fit says which. An ARD
 * lengthscale at its upper bound switches an input off: the method working. */
static void note_bound(sgp_hyper *h, const int64_t *idx, int64_t nf, const double *x,
                       const double *lo, const double *hi, const char *floor)
{
  for (int64_t k = 0; k < nf; k++) {
    const int at_hi = x[k] >= hi[k] - 1e-6, at_lo = x[k] <= lo[k] + 1e-6;
    const int ard_off = at_hi && h->n_lengthscale > 1 && idx[k] < h->n_lengthscale;
    /* (a floor the caller raised is the caller's to explain) */
    if ((!at_hi && !at_lo) || ard_off || (at_lo && floor[k])) continue;
    char name[32];
    sgp_hyper_theta_name(h, idx[k], name, sizeof name);
    snprintf(h->note, sizeof h->note, "%s stopped at its %s bound %.3g (the evidence still "
             "rises there%s); give %s a value, or check the data",
             name, at_hi ? "upper" : "lower", exp(at_hi ? hi[k] : lo[k]),
             /* a model with a noise coordinate is a regression */
             at_hi && idx[k] == h->n_lengthscale &&
                 h->n_theta - h->has_dispersion - h->has_alpha ==
                   h->n_lengthscale + 1 + h->n_mean
               ? ": for classes, the data may be separable" : "", name);
    return;
  }
}

typedef struct {
  sgp_select_eval f;
  void *data;
  double *theta;        /* full theta, the free coordinates overwritten per evaluation */
  const int64_t *free_idx;
  int64_t n_free, n_theta;
  double *grads;        /* the full gradient of every evaluation (n_theta each, NaN */
  int64_t n_grads, cap; /* when it failed): the reported one, not evaluated again */
  int nomem;
  double (*value_se)(void *data);
} learn_t;

/* the value's standard error, from f's data */
static double learn_value_se(void *data)
{
  const learn_t *s = (const learn_t *)data;
  return s->value_se(s->data);
}

static int objective(sgp_ctx *ctx, const double *x, double *value, double *grad, void *data)
{
  learn_t *s = (learn_t *)data;
  if (s->n_grads == s->cap) {
    const int64_t cap = s->cap ? 2 * s->cap : 64;
    double *g = realloc(s->grads, (size_t)(cap * s->n_theta) * sizeof(double));
    if (!g) { s->nomem = 1; return sgp_fail(ctx, SGP_ENOMEM, "out of memory"); }
    s->grads = g;
    s->cap = cap;
  }
  double *full = s->grads + s->n_grads++ * s->n_theta;
  for (int64_t k = 0; k < s->n_free; k++) s->theta[s->free_idx[k]] = x[k];
  int st = s->f(ctx, s->theta, value, full, s->data);
  if (st) {
    for (int64_t k = 0; k < s->n_theta; k++) full[k] = NAN;
    return st;
  }
  for (int64_t k = 0; k < s->n_free; k++) grad[k] = full[s->free_idx[k]];
  return SGP_OK;
}

int sgp_select_learn(sgp_ctx *ctx, sgp_hyper *h, double *theta, const double *theta_lo,
                     const double *theta_hi, unsigned bits, const sgp_select_run *run,
                     sgp_select_eval f, void *data, int64_t *best_eval)
{
  const int64_t nt = h->n_theta;
  int64_t idx[SGP_OPT_MAX_THETA];
  double x0[SGP_OPT_MAX_THETA], lo[SGP_OPT_MAX_THETA], hi[SGP_OPT_MAX_THETA];
  double theta0[SGP_OPT_MAX_THETA];
  char floor[SGP_OPT_MAX_THETA];
  int64_t nf = 0;
  *best_eval = -1;
  if (nt > SGP_OPT_MAX_THETA)
    return sgp_fail(ctx, SGP_EDIM, "lengthscale: model selection takes at most %d "
                    "hyperparameters", SGP_OPT_MAX_THETA);
  for (int64_t k = 0; k < nt; k++) {
    const unsigned what = sgp_select_coordinate(h, k);
    if (!(bits & what)) continue;
    idx[nf] = k;
    bounds(what, theta[k], lo + nf, hi + nf);
    floor[nf] = theta_lo && theta_lo[k] > lo[nf];
    if (floor[nf]) lo[nf] = theta_lo[k];
    if (theta_hi && theta_hi[k] < hi[nf]) hi[nf] = theta_hi[k];
    if (hi[nf] < lo[nf]) hi[nf] = lo[nf];
    if (theta[k] < lo[nf]) theta[k] = lo[nf]; /* a start below the floor starts at it */
    x0[nf] = theta[k];
    nf++;
  }
  memcpy(theta0, theta, (size_t)nt * sizeof(double));
  learn_t s = {f, data, theta, idx, nf, nt, NULL, 0, 0, 0, run->value_se};
  sgp_optim_opts oo;
  sgp_optim_opts_default(&oo);
  oo.max_eval = run->max_eval;
  oo.restarts = run->restarts;
  if (run->ftol_rel != 0) oo.ftol_rel = run->ftol_rel > 0 ? run->ftol_rel : 0.0;
  oo.ftol_abs = run->ftol_abs;
  oo.ftol_se = run->ftol_se;
  oo.path_values = run->path_values;
  oo.value_se = run->value_se ? learn_value_se : NULL;
  oo.seed = ctx->seed;
  oo.task = run->task;
  oo.deadline = run->deadline;
  char names[SGP_OPT_MAX_THETA][32];
  const char *np[SGP_OPT_MAX_THETA];
  unsigned char on_log[SGP_OPT_MAX_THETA];
  for (int64_t k = 0; k < nf; k++) {
    sgp_hyper_theta_name(h, idx[k], names[k], sizeof names[k]);
    np[k] = names[k];
    on_log[k] = sgp_select_coordinate(h, idx[k]) != SGP_LEARN_MEAN;
  }
  oo.names = np;
  oo.log_scale = on_log;
  sgp_optim_result r;
  memset(&r, 0, sizeof r);
  int st = sgp_optim_maximize(ctx, (int)nf, x0, lo, hi, objective, &s, &oo, &r);
  if (s.nomem && st == SGP_OK) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  /* Ctrl-C means stop now, as everywhere else: no fit on the values reached so
   * far, which would take a whole fit's time and claim a learning it lacks */
  if (st == SGP_OK && r.interrupted) st = sgp_fail(ctx, SGP_EINTERRUPT, "interrupted by the user");
  if (st && st != SGP_EINTERRUPT && st != SGP_ENOMEM) {
    /* no evaluation succeeded: the fit goes on from the start values and says so */
    snprintf(h->note, sizeof h->note, "learning failed, the start values are used: %.200s",
             ctx->errmsg);
    memcpy(theta, theta0, (size_t)nt * sizeof(double));
    sgp_optim_result_free(&r);
    free(s.grads);
    return SGP_OK;
  }
  if (!st) {
    for (int64_t k = 0; k < nf; k++) theta[idx[k]] = r.x[k];
    h->loglik = r.value;
    st = keep_trace(ctx, &r, h, idx, nf, theta0);
    note_bound(h, idx, nf, r.x, lo, hi, floor);
  }
  if (!st && r.best_eval >= 0 && r.best_eval < s.n_grads) {
    memcpy(h->grad, s.grads + r.best_eval * nt, (size_t)nt * sizeof(double));
    *best_eval = r.best_eval;
  }
  sgp_optim_result_free(&r);
  free(s.grads);
  h->learned = bits;
  return st;
}

void sgp_select_warning(const sgp_hyper *h, char *buf, size_t size)
{
  if (size > 0) buf[0] = '\0';
  if (h->learned && !h->optim_converged)
    snprintf(buf, size, "learning the hyperparameters did not converge (%s); raise %s",
             h->optim_message, h->optim_timed_out ? "time_limit" : "optim_max_iter");
  const size_t len = strlen(buf);
  if (h->note[0] && h->requested) /* also beside the optimizer's verdict: a value at a bound */
    snprintf(buf + len, size - len, "%s%s", len ? "; " : "", h->note);
}

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

int sgp_select_init_lengthscale(sgp_ctx *ctx, sgp_cmat X, double *ls)
{
  const int64_t n = X.rows, d = X.cols, m = n < INIT_SUBSAMPLE ? n : INIT_SUBSAMPLE;
  const int64_t pairs = m * (m - 1) / 2;
  int64_t *rows = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
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
