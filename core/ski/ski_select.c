/* ski_select.c -- ski_gsgp's model selection: the hyperparameters a fit uses are the user's values,
 * data-based initial values for the others, and, for those in `learn`
 * (default: every one not given), the maximizer of the SLQ log marginal
 * likelihood by L-BFGS (select.c, optim.c). Every evaluation is
 * sgp_ski_loglik_grad_eig for a separable kernel (the eigenbasis, grid-space
 * probes of the options' probes and seed), else sgp_ski_loglik_grad on the
 * fixed probe sketches (common random numbers either way): no pass over the
 * data, the cost of a step independent of n.
 * The log-likelihood and its gradient are reported at the values used. */
#include "ski/ski.h"
#include "select/select.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The solves of a learning evaluation. The fit's defaults (tol 0.01, 100
 * Lanczos steps per probe) leave an error in the Hutchinson trace x_j'(dA)z_j
 * of about tol times the trace itself, which is O(n) while the gradient at the
 * optimum is 0: the optimizer would stop where that error balances the data
 * term. A relative residual of 1e-6 (the user's tol when tighter) makes the
 * solve error negligible beside the probes' own standard error; the probe
 * solves may take LEARN_KRYLOV steps (or slq_max_iter when more) to get there.
 * The cap binds only at badly conditioned trial points far from the optimum
 * (a huge outputscale over a tiny noise), where a rougher value is harmless,
 * while max_iter steps for every probe made such an evaluation cost 10-50
 * normal ones. */
#define LEARN_TOL 1e-6
#define LEARN_KRYLOV 300
/* The eigenbasis objective's probe solves (ski_loglik_eig.c) stop at a
 * relative residual of the preconditioned system of EIG_PROBE_TOL (the user's
 * tol when tighter), when learning and for the gradient alone: their
 * quadratures and traces converge far sooner than the plain SLQ's. Measured at
 * the start of bench_ski_learn (m = 128K, n = 1e6, 30 probes) against 1e-6:
 * the log-likelihood moved by 0.002 (its standard error 1.55), the gradient
 * by 0.1 and 0.008 (standard errors 10 and 0.5), at 13 Krylov steps instead of
 * 35 (then with the density preconditioner; the marginal one, the default
 * since, takes 1 step there). The mean columns keep LEARN_TOL (the data fit
 * and quadratic terms have no probe noise to hide an error). */
#define EIG_PROBE_TOL 1e-3
/* Its optimizer stops on an absolute change of the value below EIG_FTOL_SE
 * of the start's standard error (no less than EIG_FTOL_MIN, above the wobble
 * of the probe solves, ~0.002): a change the estimate cannot resolve. A
 * relative change has no meaning here: NLopt's default 1e-6 stopped the
 * learning at n = 1e8 (a value of 8.8e7) while it still gained 20 nats per
 * step, 4 standard errors; with no test at all it ran on for 10 evaluations
 * at the optimum (n = 1e6, to 1e-3 in the value). */
#define EIG_FTOL_SE 0.25
#define EIG_FTOL_MIN 0.01
/* The exact objective (ski_loglik_exact.c) is smooth to its rounding, a
 * relative 1e-13 or so, so the optimizer may stop on a far smaller relative
 * change than the default 1e-6, which left the weakly determined outputscale
 * 8e-4 (log scale) short of the optimum on oracle 5's problem
 * (test-ski-learn-oracle.R): the change left at a stop shrinks with the
 * squared distance to the maximum, so 1e-10 leaves ~1e-2 of that distance,
 * at a few more evaluations. */
#define EXACT_FTOL 1e-10
/* A learned lengthscale stays at least this many grid cells: below, the grid
 * no longer resolves the kernel and the model turns
 * into cubic interpolation of nearly independent grid values, whose evidence
 * can exceed that of the kernel the grid was meant for (seen on a 1-D signal:
 * the optimizer ran to the smallest lengthscale it was allowed). */
#define LS_MIN_CELLS 3.0

/* The floor of each log lengthscale (theta_lo of sgp_select_learn): LS_MIN_CELLS
 * cells of its dimension (an isotropic lengthscale: of the coarsest one). */
static void lengthscale_floor(const sgp_ski_grid *g, int64_t nl, double *theta_lo)
{
  double hmax = 0.0;
  for (int j = 0; j < g->d; j++) if (g->m[j] > 1 && g->h[j] > hmax) hmax = g->h[j];
  for (int64_t j = 0; j < nl; j++) {
    const double h = nl == 1 ? hmax : g->m[j] > 1 ? g->h[j] : 0.0;
    theta_lo[j] = h > 0 ? log(LS_MIN_CELLS * h) : -INFINITY;
  }
  theta_lo[nl] = theta_lo[nl + 1] = theta_lo[nl + 2] = -INFINITY;
}

/* What the optimizer learns: the mean alone has a closed form, its GLS
 * estimate at the fixed kernel and noise (sgp_ski_fit). With others it is a
 * coordinate (derivative 1'A^-1(y - mu 1), exact), and at the end it is
 * replaced by its GLS estimate at the learned values: L is a concave
 * quadratic in mu, so that is its exact maximizer there, where the optimizer,
 * which stops on the log-scaled coordinates' progress, may leave the mean
 * short of it (seen: 0.14 off on a 1-D signal). */
static unsigned optimized_bits(unsigned bits)
{
  return bits == SGP_LEARN_MEAN ? 0u : bits;
}

unsigned sgp_ski_learn_optimized(const sgp_ski_opts *o)
{
  return optimized_bits(sgp_ski_learn_bits(o));
}

unsigned sgp_ski_learn_bits(const sgp_ski_opts *o)
{
  const unsigned l = o->learn;
  unsigned b = 0;
  if (l & SGP_SKI_LEARN_LENGTHSCALE) b |= SGP_LEARN_LENGTHSCALE;
  if (l & SGP_SKI_LEARN_OUTPUTSCALE) b |= SGP_LEARN_OUTPUTSCALE;
  if (l & SGP_SKI_LEARN_NOISE) b |= SGP_LEARN_NOISE;
  if (l & SGP_SKI_LEARN_MEAN) b |= SGP_LEARN_MEAN;
  if (l & SGP_SKI_LEARN_AUTO) {
    if (isnan(o->mean)) b |= SGP_LEARN_MEAN;
    if (!o->kernel.lengthscale) b |= SGP_LEARN_LENGTHSCALE;
    if (isnan(o->kernel.outputscale)) b |= SGP_LEARN_OUTPUTSCALE;
    if (isnan(o->noise)) b |= SGP_LEARN_NOISE;
  }
  return b;
}

void sgp_ski_selection_free(sgp_ski_selection *sel)
{
  if (!sel) return;
  sgp_hyper_free(&sel->hyper);
  memset(sel, 0, sizeof *sel);
}

void sgp_ski_selection_warning(const char *fn, const sgp_ski_selection *sel, char *buf,
                               size_t size)
{
  char msg[400];
  sgp_select_warning(&sel->hyper, msg, sizeof msg);
  if (!msg[0] && sel->at_floor)
    snprintf(msg, sizeof msg, "the learned lengthscale is at its floor of %g grid cells, below "
             "which the grid does not resolve the kernel: a finer grid (grid_size) may "
             "find a smaller one", LS_MIN_CELLS);
  if (size > 0) buf[0] = '\0';
  if (msg[0]) snprintf(buf, size, "%s: %s", fn, msg);
}

/* The initial lengthscale from the statistics alone (no data at hand, e.g.
 * ski_gsgp(stats = s)): W'1 is positive exactly at the grid points next to
 * data, so it gives the extent e_j of the data in each dimension (to within
 * the interpolation's support), and the lengthscale is the root mean squared
 * distance of points spread uniformly over that box, sqrt(sum_j e_j^2 / 6) --
 * the scale of the median pairwise distance used with data. 1 when the data
 * occupy one grid point. */
static double stats_lengthscale(const sgp_ski_stats *st)
{
  const sgp_ski_grid *g = &st->grid;
  int64_t lo[SGP_SKI_MAX_D], hi[SGP_SKI_MAX_D], sub[SGP_SKI_MAX_D];
  for (int j = 0; j < g->d; j++) { lo[j] = g->m[j]; hi[j] = -1; }
  for (int64_t i = 0; i < st->m; i++) {
    if (!(st->u1[i] > 0)) continue;
    sgp_ski_grid_subscripts(g, i, sub);
    for (int j = 0; j < g->d; j++) {
      if (sub[j] < lo[j]) lo[j] = sub[j];
      if (sub[j] > hi[j]) hi[j] = sub[j];
    }
  }
  double s = 0.0;
  for (int j = 0; j < g->d; j++)
    if (hi[j] > lo[j]) {
      const double e = (double)(hi[j] - lo[j]) * g->h[j];
      s += e * e;
    }
  return s > 0 ? sqrt(s / 6.0) : 1.0;
}

/* h's values: the user's where given; else the data-based initial values
 * (outputscale var(y)/2, noise var(y)/4, the lengthscale from X or
 * the statistics) for what is learned, and 1 for what is not. var(y) comes
 * from the statistics (y'y, sum y, n). */
static int start_values(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_cmat X,
                        const sgp_ski_opts *o, unsigned bits, sgp_hyper *h)
{
  const int64_t nl = h->n_lengthscale, n = st->n;
  if (!(h->lengthscale = sgp_alloc(nl)) || !(h->mean = sgp_alloc(1)))
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  const double mu = n > 0 ? st->ysum / (double)n : 0.0;
  const double v = n > 1 ? (st->yy - (double)n * mu * mu) / (double)(n - 1) : 0.0;
  h->outputscale = bits & SGP_LEARN_OUTPUTSCALE && v > 0 ? v / 2 : 1.0;
  h->noise = bits & SGP_LEARN_NOISE && v > 0 ? v / 4 : 1.0;
  /* a learned mean starts at the sample mean; not learned, not given: 0 */
  h->mean[0] = bits & SGP_LEARN_MEAN ? mu : 0.0;
  if (!isnan(o->mean)) h->mean[0] = o->mean;
  h->lengthscale[0] = 1.0;
  if ((bits & SGP_LEARN_LENGTHSCALE) && !o->kernel.lengthscale) {
    int code = SGP_OK;
    if (X.data && X.rows > 1) code = sgp_select_init_lengthscale(ctx, X, h->lengthscale);
    else h->lengthscale[0] = stats_lengthscale(st);
    if (code) return code;
  }
  if (o->kernel.lengthscale)
    memcpy(h->lengthscale, o->kernel.lengthscale, (size_t)nl * sizeof(double));
  if (!isnan(o->kernel.outputscale)) h->outputscale = o->kernel.outputscale;
  if (!isnan(o->noise)) h->noise = o->noise;
  return SGP_OK;
}

typedef struct {
  const sgp_ski_stats *st;
  const sgp_ski_stats_data *sd;
  sgp_kernel k;
  sgp_hyper *h;
  sgp_ski_loglik_opts lo;
  sgp_ski_kg_opts kgo;
  double *uy;                 /* m: W'(y - mu 1) at the evaluated mean */
  double *work;               /* 2 m: the GLS solve */
  int polish;                 /* the learned mean ends at its GLS estimate */
  int exact;                  /* loglik_method: the exact evaluation (ski_loglik_exact.c) */
  int eig;                    /* else the eigenbasis SLQ (ski_loglik_eig.c; separable
                                 kernels), with probes and seed of the options */
  int64_t probes;
  uint64_t seed;
  double best_dmean, best_dmean2; /* dL/dmu, d2L/dmu2 at the best evaluation (eig) */
  double last_value_se;       /* the last evaluation's loglik standard error */
  sgp_ski_marginals mg;       /* B's marginals (eig): the same in every evaluation */
  int64_t last_run_evals;     /* evaluations of the last optimizer run (learn) */
  int have_best;
  sgp_ski_loglik_result best; /* the value's parts at the best evaluation */
  double best_se[SGP_SKI_NTHETA_MAX]; /* and its gradient's standard errors */
} select_t;

static void set_theta(select_t *s, const double *theta)
{
  sgp_hyper *h = s->h;
  const int64_t nl = h->n_lengthscale;
  for (int64_t j = 0; j < nl; j++) h->lengthscale[j] = exp(theta[j]);
  h->outputscale = exp(theta[nl]);
  h->mean[0] = theta[nl + 1];
  h->noise = exp(theta[nl + 2]);
  s->k.lengthscale = h->lengthscale;
  s->k.n_lengthscale = nl;
  s->k.outputscale = h->outputscale;
}

/* h->mean = the GLS mean at s's kernel and noise (the learning's tolerance;
 * exact: the closed form from the LU, on the targets centred on the current
 * mean, plus that mean). */
static int profile_mean(sgp_ctx *ctx, select_t *s)
{
  if (s->eig && s->have_best && s->best_dmean2 < 0) { /* the best evaluation is at h */
    s->h->mean[0] -= s->best_dmean / s->best_dmean2;
    return SGP_OK;
  }
  if (s->exact) {
    sgp_ski_stats c;
    sgp_ski_loglik_grad_result r;
    double d = 0.0;
    sgp_ski_stats_centred(s->st, s->h->mean[0], s->uy, &c);
    int code = sgp_ski_loglik_exact(ctx, &c, &s->k, s->h->noise, &s->kgo, 0, NULL, &r, &d);
    if (!code) s->h->mean[0] += d;
    return code;
  }
  sgp_op kg = {0};
  sgp_ski_solve_opts so;
  sgp_ski_solve_info gi;
  sgp_ski_solve_opts_default(&so);
  so.tol = s->lo.mean_tol;
  so.max_iter = s->lo.max_iter;
  int code = sgp_ski_grid_op(ctx, &s->k, &s->st->grid, &s->kgo, &kg);
  if (!code) code = sgp_ski_gls_mean(ctx, s->st, &kg, s->h->noise, &so, s->work, s->h->mean, &gi);
  sgp_op_destroy(&kg);
  return code;
}

static int objective(sgp_ctx *ctx, const double *theta, double *value, double *grad, void *data)
{
  select_t *s = (select_t *)data;
  sgp_ski_loglik_grad_result r;
  sgp_ski_stats c; /* the targets centred on the mean evaluated */
  int code;
  set_theta(s, theta);
  sgp_ski_stats_centred(s->st, s->h->mean[0], s->uy, &c);
  if (s->exact)
    code = sgp_ski_loglik_exact(ctx, &c, &s->k, s->h->noise, &s->kgo, 1, NULL, &r, NULL);
  else if (s->eig)
    code = sgp_ski_loglik_grad_eig(ctx, &c, &s->k, s->h->noise, &s->kgo, s->probes, s->seed,
                                   &s->lo, NULL, &r);
  else
    code = sgp_ski_loglik_grad(ctx, &c, &s->k, s->h->noise, &s->kgo, s->sd->uz, s->sd->rhoz,
                               s->sd->probes, &s->lo, NULL, &r);
  if (code) return code;
  if (!isfinite(r.value.loglik))
    return sgp_fail(ctx, SGP_EINVAL, "loglik: not finite at these hyperparameters");
  *value = r.value.loglik;
  s->last_value_se = 0.5 * r.value.logdet_se;
  /* r's coordinates (log ell, log s, log noise) around the mean's: its
   * derivative 1'z is exact up to the mean solve, whose error bounds it:
   * |1'dz| <= sqrt(n) ||A^-1|| tol ||y - mu 1|| <= sqrt(n) tol ||y - mu 1|| / noise */
  const int64_t nm = r.ntheta - 1; /* index of the mean in theta */
  double se[SGP_SKI_NTHETA_MAX];
  for (int64_t k = 0; k < r.ntheta; k++) {
    if (!isfinite(r.grad[k]) || !isfinite(r.dmean))
      return sgp_fail(ctx, SGP_EINVAL, "loglik: its gradient is not finite here");
    grad[k < nm ? k : k + 1] = r.grad[k];
    se[k < nm ? k : k + 1] = r.grad_se[k];
  }
  grad[nm] = r.dmean;
  se[nm] = s->exact ? 0.0 : sqrt((double)c.n * c.yy) * s->lo.mean_tol / s->h->noise;
  if (!s->have_best || *value > s->best.loglik) {
    s->have_best = 1;
    s->best = r.value;
    memcpy(s->best_se, se, sizeof s->best_se);
    s->best_dmean = r.dmean;
    s->best_dmean2 = r.dmean2;
  }
  return SGP_OK;
}

/* The objective's value is the SLQ quadrature and its gradient the Hutchinson
 * trace; they agree only in expectation (ski.h), so near the maximum the line
 * search can find no better point along a gradient that is not quite the
 * value's, and NLopt ends with a failure. When that happens before max_eval
 * and every learned coordinate of the gradient at the best point is within 3
 * of its standard errors of 0, the optimum is found to the probes' accuracy:
 * converged, and the message says so. */
static void accept_line_search_stop(sgp_hyper *h, const sgp_ski_opts *o, const double *se,
                                    int64_t last_run_evals)
{
  if (h->optim_converged || h->optim_interrupted || !h->grad ||
      last_run_evals >= (int64_t)o->optim_max_iter * (o->restarts + 1))
    return;
  for (int64_t k = 0; k < h->n_theta; k++)
    if ((h->learned & sgp_select_coordinate(h, k)) &&
        !(fabs(h->grad[k]) <= 3.0 * se[k]))
      return;
  h->optim_converged = 1;
  const size_t l = strlen(h->optim_message);
  snprintf(h->optim_message + l, sizeof h->optim_message - l,
           "; the gradient is within 3 standard errors of 0 (converged to the probes' "
           "accuracy)");
}

/* SLQ learning in a moving box. L-BFGS builds its curvature pairs from
 * Hutchinson gradients, whose noise over a short step can make a pair
 * meaningless and send the next step as far as the bounds allow: on
 * test_ski_select.c's problem the third evaluation put the outputscale at its
 * upper bound (1e4 times its start: from 0.5 to 3152) for about half of the
 * probe seeds 11-30. There A is so ill-conditioned that the SLQ value (a
 * quadrature of z'log(A)z) and the Hutchinson gradient (z'A^-1 dA z) no
 * longer agree: their derivatives differ by many standard errors, the value
 * has probe-made local maxima, and NLopt stopped there (a failed line search,
 * or the relative change 1e-6) with a gradient 4-9 standard errors from 0 and
 * an exact evidence 25 below the maximum. So each run's box is the bounds
 * intersected with BOX_SPAN (log scale) either way of its start, and while the
 * best point of a run lies on an edge of its box that is not a bound, the next
 * run starts there with a fresh box and memory (at most BOX_RUNS runs of
 * optim_max_iter evaluations each, like the optimizer's restarts); the trace
 * keeps every run's evaluations. A factor
 * 10 per run (in a lengthscale, the outputscale or the noise) still takes a
 * far optimum in a few runs. The exact objective has no such noise: one run. */
#define BOX_SPAN 2.302585092994046 /* log(10) */
#define BOX_RUNS 8

/* h's trace becomes the earlier runs' (prev, n0 evaluations; freed) followed
 * by its own. */
static int join_traces(sgp_ctx *ctx, sgp_hyper *h, sgp_hyper *prev)
{
  const int64_t n0 = prev->n_eval, n1 = h->n_eval, ne = n0 + n1, nt = h->n_theta;
  double *lv = sgp_alloc(ne), *gn = sgp_alloc(ne), *sec = sgp_alloc(ne), *th = sgp_alloc(ne * nt);
  int code = SGP_OK;
  if (!lv || !gn || !sec || !th) {
    code = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
    free(lv); free(gn); free(sec); free(th);
  } else {
    memcpy(lv, prev->tr_loglik, (size_t)n0 * sizeof(double));
    memcpy(lv + n0, h->tr_loglik, (size_t)n1 * sizeof(double));
    memcpy(gn, prev->tr_gradnorm, (size_t)n0 * sizeof(double));
    memcpy(gn + n0, h->tr_gradnorm, (size_t)n1 * sizeof(double));
    for (int64_t e = 0; e < n1; e++) /* seconds since the first run's start */
      sec[n0 + e] = h->tr_seconds[e] + (n0 > 0 ? prev->tr_seconds[n0 - 1] : 0.0);
    memcpy(sec, prev->tr_seconds, (size_t)n0 * sizeof(double));
    for (int64_t k = 0; k < nt; k++) {
      memcpy(th + k * ne, prev->tr_theta + k * n0, (size_t)n0 * sizeof(double));
      memcpy(th + k * ne + n0, h->tr_theta + k * n1, (size_t)n1 * sizeof(double));
    }
    free(h->tr_loglik); free(h->tr_gradnorm); free(h->tr_seconds); free(h->tr_theta);
    h->tr_loglik = lv; h->tr_gradnorm = gn; h->tr_seconds = sec; h->tr_theta = th;
    h->n_eval = ne;
  }
  free(prev->tr_loglik); free(prev->tr_gradnorm); free(prev->tr_seconds); free(prev->tr_theta);
  return code;
}

/* 1 when a learned log-scaled coordinate of theta lies on an edge of its box
 * (box_lo, box_hi) that is not its floor (theta_lo); the box's upper edges
 * lie inside the bounds of sgp_select_learn (1e3..1e6 either way). */
static int on_box_edge(const sgp_hyper *h, const double *theta, const double *box_lo,
                       const double *box_hi, const double *theta_lo)
{
  for (int64_t k = 0; k < h->n_theta; k++) {
    const unsigned what = sgp_select_coordinate(h, k);
    if (!(h->learned & what) || what == SGP_LEARN_MEAN) continue;
    if (theta[k] >= box_hi[k] - 1e-6) return 1; /* the global upper bound is wider */
    if (theta[k] <= box_lo[k] + 1e-6 && box_lo[k] > theta_lo[k] + 1e-9) return 1;
  }
  return 0;
}

static double last_value_se(void *data)
{
  return ((const select_t *)data)->last_value_se;
}

/* The learning: for the exact and the eigenbasis objectives one optimizer run
 * (with the user's restarts); for the sketch SLQ the runs in a moving box
 * (above). */
static int learn(sgp_ctx *ctx, const sgp_ski_opts *o, unsigned opt_bits, const double *theta_lo,
                 select_t *s, double *theta, int *evaluated)
{
  sgp_hyper *h = s->h;
  sgp_select_run run = {o->optim_max_iter, o->restarts, EXACT_FTOL, 0.0, 0.0, 0, NULL,
                        "ski_gsgp: learning", 0.0};
  int64_t best_eval = -1;
  if (s->eig) { /* a stop on the start's standard error (EIG_FTOL_SE) */
    run.ftol_rel = -1.0;
    run.ftol_abs = EIG_FTOL_MIN;
    run.ftol_se = EIG_FTOL_SE;
    run.value_se = last_value_se;
  }
  if (s->exact || s->eig) {
    const int code = sgp_select_learn(ctx, h, theta, theta_lo, NULL, opt_bits, &run, objective,
                                      s, &best_eval);
    *evaluated = best_eval >= 0;
    return code;
  }
  int code = SGP_OK;
  double box_lo[SGP_SKI_NTHETA_MAX], box_hi[SGP_SKI_NTHETA_MAX];
  for (int r = 0; r < BOX_RUNS; r++) {
    for (int64_t k = 0; k < h->n_theta; k++) {
      const int mean = sgp_select_coordinate(h, k) == SGP_LEARN_MEAN;
      box_lo[k] = mean ? -INFINITY : fmax(theta[k] - BOX_SPAN, theta_lo[k]);
      box_hi[k] = mean ? INFINITY : theta[k] + BOX_SPAN;
    }
    sgp_hyper prev = *h;
    h->tr_loglik = h->tr_gradnorm = h->tr_seconds = h->tr_theta = NULL;
    h->n_eval = 0;
    h->note[0] = '\0';
    run.restarts = r == 0 ? o->restarts : 0;
    run.ftol_rel = 0.0;
    code = sgp_select_learn(ctx, h, theta, box_lo, box_hi, opt_bits, &run, objective, s,
                            &best_eval);
    *evaluated = best_eval >= 0;
    s->last_run_evals = h->n_eval;
    if (!code && r > 0) code = join_traces(ctx, h, &prev);
    else if (r > 0) {
      free(prev.tr_loglik); free(prev.tr_gradnorm); free(prev.tr_seconds); free(prev.tr_theta);
    }
    if (code || !*evaluated || h->optim_interrupted ||
        !on_box_edge(h, theta, box_lo, box_hi, theta_lo))
      break;
  }
  return code;
}

/* Which log-likelihood the selection evaluates (s->exact, s->eig) and with
 * which probes; an error where the kernel or the statistics cannot give it. */
static int choose_loglik(sgp_ctx *ctx, const sgp_ski_opts *o, const sgp_ski_stats *st,
                         const sgp_ski_stats_data *sd, select_t *s)
{
  s->exact = sgp_ski_loglik_use_exact(o->loglik_method, st->m);
  s->eig = sgp_ski_loglik_use_eig(o->loglik_method, &o->kernel, &st->grid, st->m);
  if (o->loglik_method == SGP_SKI_LOGLIK_EIGEN && !s->eig)
    return sgp_fail(ctx, SGP_EINVAL, "loglik_method: \"eigen\" needs a separable kernel (rbf, "
                    "or a grid of one dimension) with at most %d points per dimension",
                    SGP_SKI_KRON_EIG_DIM_MAX);
  s->probes = sgp_ski_probes(o, 1);
  s->seed = o->seed;
  if (!s->exact && !s->eig && sd->probes < 1)
    return sgp_fail(ctx, SGP_EINVAL, "stats: has no probe sketches for the log-likelihood");
  return SGP_OK;
}

/* The selection: start values, learning, the log-likelihood at the values
 * used (when learned or asked for). */
static int select_hyper(sgp_ctx *ctx, const sgp_ski_stats_data *sd, const sgp_ski_opts *o,
                        sgp_cmat X, int after_fit, sgp_ski_selection *sel)
{
  sgp_hyper *h = &sel->hyper;
  sgp_ski_stats *st = NULL;
  const unsigned bits = sgp_ski_learn_bits(o), opt_bits = optimized_bits(bits);
  select_t s;
  memset(&s, 0, sizeof s);
  if (!after_fit) {
    h->loglik = NAN;
    h->noise = NAN;
    h->n_lengthscale = o->kernel.lengthscale ? o->kernel.n_lengthscale : 1;
    h->n_mean = 1;
    h->n_theta = h->n_lengthscale + 3;
    h->requested = bits;
  }
  int code = sgp_ski_stats_import(ctx, sd, &st);
  if (!code && !after_fit) code = start_values(ctx, st, X, o, bits, h);
  /* learning: before the fit; nothing learned: the gradient after it */
  if (code || (opt_bits ? after_fit : !after_fit || !o->loglik)) goto done;
  if ((code = choose_loglik(ctx, o, st, sd, &s))) goto done;
  s.st = st;
  s.sd = sd;
  s.h = h;
  s.k = o->kernel;
  s.polish = (opt_bits & SGP_LEARN_MEAN) && !after_fit;
  if (!(s.uy = sgp_alloc(st->m)) || !(s.work = sgp_alloc(2 * st->m))) {
    code = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
    goto done;
  }
  sgp_ski_kg_opts_default(&s.kgo);
  /* no time-limited FFTW measuring inside the optimization: its plans, and with
   * them the last bits of every evaluation, would vary from run to run */
  s.kgo.planner = SGP_SKI_FFT_PLAN_ESTIMATE;
  sgp_ski_loglik_opts_default(&s.lo);
  s.lo.mean_tol = o->tol;
  s.lo.max_iter = o->max_iter;
  if (o->slq_max_iter > 0) s.lo.slq_max_iter = o->slq_max_iter;
  if (opt_bits) { /* see LEARN_TOL */
    s.lo.tol = s.lo.mean_tol = fmin(o->tol, LEARN_TOL);
    s.lo.slq_max_iter = s.lo.slq_max_iter > LEARN_KRYLOV ? s.lo.slq_max_iter : LEARN_KRYLOV;
  } else { /* the gradient after the fit, at tol: its data-fit solve resolved, as the
            * fit's own log-likelihood (no optimizer needs a smooth stopping rule) */
    s.lo.datafit_rtol = SGP_SKI_RTOL;
  }
  if (s.eig) { /* learning or not (a gradient) */
    s.lo.tol = fmin(o->tol, EIG_PROBE_TOL);
    if ((code = sgp_ski_marginals_make(ctx, st, &s.mg))) goto done;
    s.lo.marginals = &s.mg;
  }
  double theta[SGP_SKI_NTHETA_MAX];
  for (int64_t j = 0; j < h->n_lengthscale; j++) theta[j] = log(h->lengthscale[j]);
  theta[h->n_lengthscale] = log(h->outputscale);
  theta[h->n_lengthscale + 1] = h->mean[0];
  theta[h->n_lengthscale + 2] = log(h->noise);
  if (!(h->grad = sgp_alloc(h->n_theta))) {
    code = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
    goto done;
  }
  /* the values not learned, as given (exp(log(v)) may differ from v in the last bit) */
  double fixed[SGP_SKI_NTHETA_MAX];
  for (int64_t j = 0; j < h->n_lengthscale; j++) fixed[j] = h->lengthscale[j];
  fixed[h->n_lengthscale] = h->outputscale;
  fixed[h->n_lengthscale + 1] = h->mean[0];
  fixed[h->n_lengthscale + 2] = h->noise;
  int evaluated = 0;
  if (opt_bits) {
    double theta_lo[SGP_SKI_NTHETA_MAX];
    lengthscale_floor(&st->grid, h->n_lengthscale, theta_lo);
    sgp_progress(ctx, "ski_gsgp: learning", 0.0);
    code = learn(ctx, o, opt_bits, theta_lo, &s, theta, &evaluated);
    for (int64_t j = 0; !code && (bits & SGP_LEARN_LENGTHSCALE) && j < h->n_lengthscale; j++)
      if (theta[j] <= theta_lo[j] + 1e-9) sel->at_floor = 1;
    if (!code && evaluated) accept_line_search_stop(h, o, s.best_se, s.last_run_evals);
  }
  set_theta(&s, theta);
  if (!code && evaluated && s.polish) { /* the value and gradient reported are there */
    if (!(code = profile_mean(ctx, &s))) {
      theta[h->n_lengthscale + 1] = h->mean[0];
      s.have_best = 0;
      code = objective(ctx, theta, &h->loglik, h->grad, &s);
    }
  }
  if (!code && !evaluated) {
    s.have_best = 0;
    code = objective(ctx, theta, &h->loglik, h->grad, &s);
    if (code && code != SGP_EINTERRUPT && code != SGP_ENOMEM) {
      snprintf(h->note, sizeof h->note, "the log-likelihood failed at these values: %.200s",
               ctx->errmsg);
      h->loglik = NAN;
      free(h->grad);
      h->grad = NULL;
      code = SGP_OK;
    }
  }
  for (int64_t k = 0; k < h->n_theta; k++)
    if (!(opt_bits & sgp_select_coordinate(h, k))) {
      if (k < h->n_lengthscale) h->lengthscale[k] = fixed[k];
      else if (k == h->n_lengthscale) h->outputscale = fixed[k];
      else if (k == h->n_lengthscale + 1) h->mean[0] = fixed[k];
      else h->noise = fixed[k];
    }
  if (!code && s.have_best && h->grad) {
    sel->evaluated = 1;
    sel->eigen = s.eig && !after_fit; /* after the fit the value is the fit's */
    sel->logdet = s.best.logdet;
    sel->logdet_se = s.best.logdet_se;
    sel->loglik_se = sel->hyper.loglik_se = 0.5 * s.best.logdet_se; /* loglik = -(logdet + ...)/2 */
    sel->datafit = s.best.datafit;
    sel->probes_used = s.best.probes_used;
    sel->loglik_converged = s.best.converged;
  }
done:
  sgp_ski_marginals_free(&s.mg);
  free(s.uy);
  free(s.work);
  sgp_ski_stats_free(st);
  return code;
}

int sgp_ski_fit_learn(sgp_ctx *ctx, const sgp_ski_stats_data *stats, const sgp_ski_opts *o,
                      sgp_cmat X, sgp_cmat y, sgp_ski_opts *ro, sgp_ski_selection *sel,
                      sgp_ski_result *res)
{
  if (!stats || !o || !ro || !sel || !res)
    return sgp_fail(ctx, SGP_EINVAL, "stats: arguments missing");
  memset(sel, 0, sizeof *sel);
  /* backend "auto" resolved once (and said once with verbose), not by every
   * grid operator of every evaluation */
  const sgp_backend backend = ctx->backend;
  int use_cuda = 0, code = sgp_backend_use_cuda(ctx, &use_cuda);
  if (code) return code;
  ctx->backend = use_cuda ? SGP_BACKEND_CUDA : SGP_BACKEND_CPU;
  code = select_hyper(ctx, stats, o, X, 0, sel);
  ctx->backend = backend;
  if (code) return code;
  sgp_hyper *h = &sel->hyper;
  const int gls = optimized_bits(sgp_ski_learn_bits(o)) != sgp_ski_learn_bits(o);
  *ro = *o;
  ro->kernel.lengthscale = h->lengthscale;
  ro->kernel.n_lengthscale = h->n_lengthscale;
  ro->kernel.outputscale = h->outputscale;
  ro->noise = h->noise;
  ro->mean = gls ? NAN : h->mean[0]; /* NaN: the fit's GLS estimate */
  sgp_ski_opts fo = *ro; /* the fit need not estimate what the selection did */
  if (sel->evaluated) fo.loglik = 0;
  if ((code = sgp_ski_fit(ctx, stats, &fo, X, y, res))) return code;
  ro->mean = h->mean[0] = res->mean;
  if (gls && !h->learned) { /* nothing optimized: the closed form is the optimum */
    h->learned = SGP_LEARN_MEAN;
    h->optim_converged = 1;
    snprintf(h->optim_message, sizeof h->optim_message,
             "the mean is its GLS estimate (closed form)");
  }
  if (!sel->evaluated && o->loglik) {
    /* nothing learned: the fit estimated the log-likelihood as always (before
     * its gradient, so that the fit itself is that of loglik without
     * learning); the gradient comes from one more evaluation at the same values
     * and the same probes, and the reported value stays the fit's */
    ctx->backend = use_cuda ? SGP_BACKEND_CUDA : SGP_BACKEND_CPU;
    code = select_hyper(ctx, stats, o, X, 1, sel);
    ctx->backend = backend;
    if (code) return code;
    if (sel->evaluated) {
      sel->hyper.loglik = res->loglik;
      sel->logdet = res->logdet;
      sel->logdet_se = res->logdet_se;
      sel->loglik_se = sel->hyper.loglik_se = 0.5 * res->logdet_se;
      sel->datafit = res->datafit;
      sel->probes_used = res->probes_used;
      sel->loglik_converged = res->loglik_converged;
    }
    return SGP_OK;
  }
  if (sel->evaluated) {
    res->loglik = h->loglik;
    res->logdet = sel->logdet;
    res->logdet_se = sel->logdet_se;
    res->datafit = sel->datafit;
    res->probes_used = sel->probes_used;
    res->loglik_converged = sel->loglik_converged;
  }
  return SGP_OK;
}
