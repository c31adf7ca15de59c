/* laplace_select.c -- gp_laplace's model selection (spec model_selection.md §5,
 * §6): the hyperparameters a fit uses are the user's values, data-based initial
 * values for the others, and, for those in `learn` (default: every one not
 * given), the maximizer of the Laplace evidence (L-BFGS, optim.c): exact
 * (evidence.c), or estimated matrix-free with probes fixed for the whole
 * optimization (evidence_stochastic.c) when asked or when the exact one does not
 * fit. The evidence and its gradient are reported at the values used, learned or not. */
#include "evidence.h"
#include "optim.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exact evidence keeps K and the factors: about (5 + 3C) n^2 doubles. */
#define EV_MEMORY_SHARE 0.25
/* Up to this n a fit reports its evidence even when nothing is learned (about a
 * second of O(n^3) work); beyond it only when asked to learn. */
#define SGP_EVIDENCE_UNASKED_MAX_N 3000

typedef struct {
  sgp_ev_problem p;
  int stochastic;      /* which estimator: mws, or the exact one's ws */
  sgp_ev_ws ws;
  sgp_evs_ws mws;
  double *theta;       /* full theta (spec §1) */
  const int64_t *free_idx;
  int64_t n_free;
  double *grad_full;
  double best_value;   /* the best evaluation so far and its full gradient: the */
  double *best_grad;   /* reported evidence after learning, not evaluated again */
  double best_se;
  int have_best;
} select_t;

/* The evidence at s->p's hyperparameters: exact (se NaN) or estimated. */
static int evaluate(sgp_ctx *ctx, select_t *s, double *value, double *se, double *grad)
{
  *se = NAN;
  return s->stochastic ? sgp_evidence_stochastic(ctx, &s->p, &s->mws, value, se, grad)
                       : sgp_evidence(ctx, &s->p, &s->ws, value, grad);
}

/* theta -> the problem's hyperparameters */
static void set_theta(select_t *s, sgp_laplace_hyper *h, const double *theta)
{
  const sgp_ev_layout *l = &s->p.layout;
  for (int64_t j = 0; j < l->n_ls; j++) h->lengthscale[j] = exp(theta[j]);
  h->outputscale = s->p.kernel.outputscale = exp(theta[l->n_ls]);
  for (int64_t c = 0; c < l->n_mean; c++) h->mean[c] = theta[l->n_ls + 1 + c];
  if (l->has_noise) h->noise = exp(theta[l->n_ls + 1 + l->n_mean]);
}

static void get_theta(const sgp_ev_layout *l, const sgp_laplace_hyper *h, double *theta)
{
  for (int64_t j = 0; j < l->n_ls; j++) theta[j] = log(h->lengthscale[j]);
  theta[l->n_ls] = log(h->outputscale);
  for (int64_t c = 0; c < l->n_mean; c++) theta[l->n_ls + 1 + c] = h->mean[c];
  if (l->has_noise) theta[l->n_ls + 1 + l->n_mean] = log(h->noise);
}

/* Which hyperparameter coordinate k of theta belongs to (an SGP_LEARN_* bit). */
static unsigned coordinate(int64_t n_ls, int64_t n_mean, int64_t k)
{
  return k < n_ls ? SGP_LEARN_LENGTHSCALE : k == n_ls ? SGP_LEARN_OUTPUTSCALE
         : k < n_ls + 1 + n_mean ? SGP_LEARN_MEAN : SGP_LEARN_NOISE;
}

typedef struct { select_t *s; sgp_laplace_hyper *h; } objective_data;

static int objective(sgp_ctx *ctx, const double *x, double *value, double *grad, void *data)
{
  objective_data *od = (objective_data *)data;
  select_t *s = od->s;
  for (int64_t k = 0; k < s->n_free; k++) s->theta[s->free_idx[k]] = x[k];
  set_theta(s, od->h, s->theta);
  double se;
  int st = evaluate(ctx, s, value, &se, s->grad_full);
  if (st) return st;
  for (int64_t k = 0; k < s->n_free; k++) grad[k] = s->grad_full[s->free_idx[k]];
  if (!s->have_best || *value > s->best_value) {
    s->have_best = 1;
    s->best_value = *value;
    s->best_se = se;
    memcpy(s->best_grad, s->grad_full, (size_t)od->h->n_theta * sizeof(double));
  }
  return SGP_OK;
}

void sgp_laplace_theta_name(const sgp_laplace_hyper *h, int64_t k, char *buf, size_t size)
{
  const int64_t nl = h->n_lengthscale, nm = h->n_mean;
  switch (coordinate(nl, nm, k)) {
  case SGP_LEARN_LENGTHSCALE:
    snprintf(buf, size, nl == 1 ? "lengthscale" : "lengthscale%lld", (long long)k + 1); break;
  case SGP_LEARN_OUTPUTSCALE: snprintf(buf, size, "outputscale"); break;
  case SGP_LEARN_MEAN: snprintf(buf, size, nm == 1 ? "mean" : "mean%lld", (long long)(k - nl)); break;
  default: snprintf(buf, size, "noise");
  }
}

void sgp_laplace_hyper_free(sgp_laplace_hyper *h)
{
  free(h->lengthscale); free(h->mean); free(h->grad);
  free(h->tr_loglik); free(h->tr_gradnorm); free(h->tr_seconds); free(h->tr_theta);
  memset(h, 0, sizeof *h);
}

/* The optimizer's trace and verdict into h. */
static int keep_trace(sgp_ctx *ctx, const sgp_optim_result *r, sgp_laplace_hyper *h,
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
    if (coordinate(h->n_lengthscale, h->n_mean, k) != SGP_LEARN_MEAN)
      for (int64_t e = 0; e < ne; e++) h->tr_theta[e + k * ne] = exp(h->tr_theta[e + k * ne]);
  h->optim_converged = r->converged;
  h->optim_interrupted = r->interrupted;
  snprintf(h->optim_message, sizeof h->optim_message, "%s", r->message);
  return SGP_OK;
}

/* Bounds around the starting value: factors 1e3 (lengthscale), 1e4 (outputscale),
 * 1e6 (noise) either way on the log scale; the mean is free. */
static void bounds(unsigned what, double start, double *lo, double *hi)
{
  const double span = what == SGP_LEARN_LENGTHSCALE ? log(1e3)
                      : what == SGP_LEARN_OUTPUTSCALE ? log(1e4)
                      : what == SGP_LEARN_MEAN ? INFINITY : log(1e6);
  *lo = start - span;
  *hi = start + span;
}

/* A learned value at its bound is not a maximum of the evidence, which still
 * rises there (an outputscale growing without end: separable classes; a noise
 * shrinking to nothing: an interpolating fit). The fit says which. */
static void note_bound(sgp_laplace_hyper *h, const int64_t *idx, int64_t nf, const double *x,
                       const double *lo, const double *hi)
{
  for (int64_t k = 0; k < nf; k++) {
    const int at_hi = x[k] >= hi[k] - 1e-6, at_lo = x[k] <= lo[k] + 1e-6;
    /* an ARD lengthscale at its upper bound switches an input off: the method working */
    const int ard_off = at_hi && h->n_lengthscale > 1 && idx[k] < h->n_lengthscale;
    if ((!at_hi && !at_lo) || ard_off) continue;
    char name[32];
    sgp_laplace_theta_name(h, idx[k], name, sizeof name);
    snprintf(h->note, sizeof h->note, "%s stopped at its %s bound %.3g (the evidence still "
             "rises there%s); give %s a value, or check the data",
             name, at_hi ? "upper" : "lower", exp(at_hi ? hi[k] : lo[k]),
             at_hi && idx[k] == h->n_lengthscale ? ": for classes, the data may be separable" : "",
             name);
    return;
  }
}

static int learn(sgp_ctx *ctx, select_t *s, sgp_laplace_hyper *h, const sgp_laplace_opts *o,
                 unsigned bits)
{
  const sgp_ev_layout *l = &s->p.layout;
  const int64_t nt = h->n_theta;
  int64_t idx[SGP_OPT_MAX_THETA];
  double x0[SGP_OPT_MAX_THETA], lo[SGP_OPT_MAX_THETA], hi[SGP_OPT_MAX_THETA];
  int64_t nf = 0;
  for (int64_t k = 0; k < nt; k++) {
    const unsigned what = coordinate(l->n_ls, l->n_mean, k);
    if (!(bits & what)) continue;
    idx[nf] = k;
    x0[nf] = s->theta[k];
    bounds(what, s->theta[k], lo + nf, hi + nf);
    nf++;
  }
  s->free_idx = idx;
  s->n_free = nf;
  double theta0[SGP_OPT_MAX_THETA];
  memcpy(theta0, s->theta, (size_t)nt * sizeof(double));
  sgp_optim_opts oo;
  sgp_optim_opts_default(&oo);
  oo.max_eval = o->optim_max_iter;
  oo.restarts = o->restarts;
  oo.seed = ctx->seed;
  oo.task = "gp_laplace: learning";
  char names[SGP_OPT_MAX_THETA][32];
  const char *np[SGP_OPT_MAX_THETA];
  unsigned char on_log[SGP_OPT_MAX_THETA];
  for (int64_t k = 0; k < nf; k++) {
    sgp_laplace_theta_name(h, idx[k], names[k], sizeof names[k]);
    np[k] = names[k];
    on_log[k] = coordinate(l->n_ls, l->n_mean, idx[k]) != SGP_LEARN_MEAN;
  }
  oo.names = np;
  oo.log_scale = on_log;
  sgp_optim_result r;
  memset(&r, 0, sizeof r);
  objective_data od = {s, h};
  int st = sgp_optim_maximize(ctx, (int)nf, x0, lo, hi, objective, &od, &oo, &r);
  if (st && st != SGP_EINTERRUPT && st != SGP_ENOMEM) {
    /* no evaluation succeeded: the fit goes on from the start values and says so */
    snprintf(h->note, sizeof h->note, "learning failed, the start values are used: %.200s",
             ctx->errmsg);
    memcpy(s->theta, theta0, (size_t)nt * sizeof(double));
    sgp_optim_result_free(&r);
    set_theta(s, h, s->theta);
    return SGP_OK;
  }
  if (!st) {
    for (int64_t k = 0; k < nf; k++) s->theta[idx[k]] = r.x[k];
    h->loglik = r.value;
    st = keep_trace(ctx, &r, h, idx, nf, theta0);
    note_bound(h, idx, nf, r.x, lo, hi);
  }
  sgp_optim_result_free(&r);
  set_theta(s, h, s->theta);
  h->learned = bits;
  return st;
}

/* The exact evidence fits: K and its factors take (5 + 3C) n^2 doubles. */
static int exact_fits(int64_t n, int64_t C, char *note, size_t size)
{
  const double need = 8.0 * (double)n * (double)n * (double)(5 + 3 * (C > 1 ? C : 0));
  const double have = EV_MEMORY_SHARE * sgp_phys_mem_bytes();
  if (need <= have) return 1;
  snprintf(note, size, "the exact evidence needs %.3g GB for n = %lld (a quarter of the memory "
           "is %.3g GB)%s", need / 1e9, (long long)n, have / 1e9,
           C > 1 ? "; softmax has no matrix-free estimate" : "");
  return 0;
}

/* Which estimator (1: stochastic), or 0 with a note when neither is run. */
static int choose_estimator(sgp_ctx *ctx, const sgp_lik *lik, const sgp_laplace_opts *o,
                            int *stochastic, char *note, size_t size)
{
  const int soft = lik->kind == SGP_LIK_SOFTMAX;
  *stochastic = 0;
  if (o->evidence == SGP_EVIDENCE_STOCHASTIC) {
    if (soft)
      return sgp_fail(ctx, SGP_EINVAL, "evidence: \"stochastic\" takes a bernoulli, poisson or "
                      "gaussian likelihood; softmax has the exact evidence only");
    *stochastic = 1;
    return SGP_OK;
  }
  if (exact_fits(lik->n, lik->C, note, size)) return SGP_OK;
  if (o->evidence == SGP_EVIDENCE_AUTO && !soft) { note[0] = '\0'; *stochastic = 1; }
  return SGP_OK;
}

/* Which coordinates to learn: o->learn, with AUTO for each one not given. */
static int learn_bits(sgp_ctx *ctx, const sgp_laplace_opts *o, const sgp_ev_layout *l,
                      unsigned *bits)
{
  unsigned b = o->learn & ~(unsigned)SGP_LEARN_AUTO;
  if (o->learn & SGP_LEARN_AUTO) {
    if (!o->kernel.lengthscale) b |= SGP_LEARN_LENGTHSCALE;
    if (isnan(o->kernel.outputscale)) b |= SGP_LEARN_OUTPUTSCALE;
    if (!o->mean) b |= SGP_LEARN_MEAN;
    if (!o->noise.data && l->has_noise) b |= SGP_LEARN_NOISE;
  }
  if ((b & SGP_LEARN_NOISE) && !l->has_noise)
    return sgp_fail(ctx, SGP_EINVAL, o->likelihood == SGP_LIK_GAUSSIAN
                    ? "learn: names \"noise\", which is learned as one value; 'noise' has one per point"
                    : "learn: names \"noise\", which only likelihood = \"gaussian\" has");
  *bits = b;
  return SGP_OK;
}

/* h's values: the user's where given; else the data-based initial values for what
 * is learned, and the fixed defaults (lengthscale 1, outputscale 1, mean 0, noise 1)
 * for what is not. */
static int start_values(sgp_ctx *ctx, sgp_cmat X, const sgp_lik *lik, const sgp_laplace_opts *o,
                        unsigned bits, sgp_laplace_hyper *h)
{
  const int64_t nl = o->kernel.lengthscale ? o->kernel.n_lengthscale : 1;
  h->lengthscale = sgp_alloc(nl);
  h->mean = sgp_alloc(h->n_mean > 1 ? h->n_mean : 1);
  if (!h->lengthscale || !h->mean) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  if (o->mean && o->n_mean != 1 && o->n_mean != h->n_mean)
    return sgp_fail(ctx, SGP_EDIM, "mean: has %lld values; need 1%s", (long long)o->n_mean,
                    h->n_mean > 1 ? " or one per class" : "");
  int st = sgp_laplace_initial(ctx, X, lik, !o->kernel.lengthscale && (bits & SGP_LEARN_LENGTHSCALE),
                               h->lengthscale, &h->outputscale, h->mean, &h->noise);
  if (st) return st;
  if (!(bits & SGP_LEARN_LENGTHSCALE)) h->lengthscale[0] = 1.0;
  if (!(bits & SGP_LEARN_OUTPUTSCALE)) h->outputscale = 1.0;
  for (int64_t c = 0; !(bits & SGP_LEARN_MEAN) && c < h->n_mean; c++) h->mean[c] = 0.0;
  if (!(bits & SGP_LEARN_NOISE)) h->noise = 1.0;
  if (o->kernel.lengthscale) memcpy(h->lengthscale, o->kernel.lengthscale, (size_t)nl * sizeof(double));
  if (!isnan(o->kernel.outputscale)) h->outputscale = o->kernel.outputscale;
  for (int64_t c = 0; o->mean && c < h->n_mean; c++) h->mean[c] = o->mean[o->n_mean == 1 ? 0 : c];
  if (lik->kind == SGP_LIK_GAUSSIAN && lik->n_noise == 1 && o->noise.data) h->noise = lik->noise[0];
  if (lik->kind != SGP_LIK_GAUSSIAN || lik->n_noise != 1) h->noise = NAN;
  return SGP_OK;
}

/* The evidence at the values used, learned first when asked. */
static int evidence_and_learn(sgp_ctx *ctx, sgp_cmat X, sgp_lik *lik, const sgp_laplace_opts *o,
                              const sgp_ev_layout *l, unsigned bits, int stochastic,
                              sgp_laplace_hyper *h)
{
  select_t s;
  memset(&s, 0, sizeof s);
  s.p.lik = *lik;
  if (!isnan(h->noise)) s.p.lik.noise = &h->noise;
  s.p.X = X;
  s.p.kernel = o->kernel;
  s.p.kernel.lengthscale = h->lengthscale;
  s.p.kernel.n_lengthscale = h->n_lengthscale;
  s.p.kernel.outputscale = h->outputscale;
  s.p.mean = h->mean;
  s.p.layout = *l;
  double theta[SGP_OPT_MAX_THETA], gfull[SGP_OPT_MAX_THETA];
  s.theta = theta;
  s.grad_full = gfull;
  s.stochastic = stochastic;
  get_theta(l, h, theta);
  h->grad = s.best_grad = sgp_alloc(h->n_theta);
  int st = !h->grad ? sgp_fail(ctx, SGP_ENOMEM, "out of memory")
           : stochastic ? sgp_evs_ws_init(ctx, &s.mws, lik->n, o->probes, ctx->seed,
                                          o->kernel_cache_bytes, o->tile)
           : sgp_ev_ws_init(ctx, &s.ws, lik->n, lik->C, 1);
  if (!st && bits) st = learn(ctx, &s, h, o, bits);
  /* after learning, h holds the best point evaluated and best_grad its gradient */
  const int evaluated = !st && s.have_best && s.best_value == h->loglik;
  if (evaluated) h->loglik_se = s.best_se;
  if (!st && !evaluated && (st = evaluate(ctx, &s, &h->loglik, &h->loglik_se, h->grad)) &&
      st != SGP_EINTERRUPT) {
    snprintf(h->note, sizeof h->note, "the evidence failed at these values: %.200s", ctx->errmsg);
    h->loglik = h->loglik_se = NAN;
    free(h->grad);
    h->grad = NULL;
    st = SGP_OK;
  }
  sgp_ev_ws_free(&s.ws);
  sgp_evs_ws_free(&s.mws);
  return st;
}

int sgp_laplace_select(sgp_ctx *ctx, sgp_cmat X, sgp_lik *lik, const sgp_laplace_opts *o,
                       sgp_laplace_opts *ro, sgp_laplace_hyper *h)
{
  memset(h, 0, sizeof *h);
  h->loglik = h->loglik_se = NAN;
  h->n_lengthscale = o->kernel.lengthscale ? o->kernel.n_lengthscale : 1;
  h->n_mean = lik->kind == SGP_LIK_SOFTMAX ? lik->C : 1;
  sgp_ev_layout l = {h->n_lengthscale, h->n_mean,
                     lik->kind == SGP_LIK_GAUSSIAN && lik->n_noise == 1};
  unsigned bits = 0;
  int st = learn_bits(ctx, o, &l, &bits);
  if (st || (st = start_values(ctx, X, lik, o, bits, h))) return st;
  h->requested = bits;
  if (sgp_ev_size(&l) > SGP_OPT_MAX_THETA)
    return sgp_fail(ctx, SGP_EDIM, "lengthscale: model selection takes at most %d "
                    "hyperparameters", SGP_OPT_MAX_THETA);
  if (!bits && lik->n > SGP_EVIDENCE_UNASKED_MAX_N && o->evidence != SGP_EVIDENCE_STOCHASTIC)
    snprintf(h->note, sizeof h->note, "not computed: nothing is learned and n > %d (the exact "
             "evidence costs O(n^3))", SGP_EVIDENCE_UNASKED_MAX_N);
  h->n_theta = sgp_ev_size(&l);
  int stochastic = 0;
  if (!h->note[0] && !(st = choose_estimator(ctx, lik, o, &stochastic, h->note, sizeof h->note)) &&
      !h->note[0])
    st = evidence_and_learn(ctx, X, lik, o, &l, bits, stochastic, h);
  if (st) return st;
  *ro = *o;
  ro->kernel.lengthscale = h->lengthscale;
  ro->kernel.n_lengthscale = h->n_lengthscale;
  ro->kernel.outputscale = h->outputscale;
  ro->mean = h->mean;
  ro->n_mean = h->n_mean;
  if (!isnan(h->noise)) /* the fit's lik owns its copy of the noise */
    *(double *)lik->noise = h->noise;
  return SGP_OK;
}
