/* laplace_select.c -- gp_laplace's model selection: the hyperparameters a fit
 * uses are the user's values, data-based initial values for the others, and, for those in `learn` (default: every one not
 * given), the maximizer of the Laplace evidence (L-BFGS, optim.c): exact
 * (evidence.c), or estimated matrix-free with probes fixed for the whole
 * optimization (evidence_stochastic.c) when asked or when the exact one does not
 * fit. The evidence and its gradient are reported at the values used, learned or not. */
#include "laplace/evidence.h"
#include "laplace/lik_table.h"
#include "kernels/kernel_table.h"

#include <limits.h>
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
  sgp_laplace_hyper *h;
  double *se;          /* the standard error of every evaluation of the learning */
  int64_t n_se, cap_se;
  double deadline;     /* sgp_clock() seconds, 0: none */
} select_t;

/* The evidence at s->p's hyperparameters: exact (se 0, as ski_gsgp's exact
 * log-likelihood) or estimated. */
static int evaluate(sgp_ctx *ctx, select_t *s, double *value, double *se, double *grad)
{
  *se = 0.0;
  return s->stochastic ? sgp_evidence_stochastic(ctx, &s->p, &s->mws, value, se, grad)
                       : sgp_evidence(ctx, &s->p, &s->ws, value, grad);
}

/* theta -> the problem's hyperparameters */
static void set_theta(select_t *s, const double *theta)
{
  const sgp_ev_layout *l = &s->p.layout;
  sgp_laplace_hyper *h = s->h;
  for (int64_t j = 0; j < l->n_ls; j++) h->lengthscale[j] = exp(theta[j]);
  h->outputscale = s->p.kernel.outputscale = exp(theta[l->n_ls]);
  for (int64_t c = 0; c < l->n_mean; c++) h->mean[c] = theta[l->n_ls + 1 + c];
  if (l->has_noise) h->noise = exp(theta[sgp_ev_noise_at(l)]);
  if (l->has_par) h->dispersion = s->p.lik.par = exp(theta[sgp_ev_par_at(l)]);
  if (l->has_alpha) h->alpha = s->p.kernel.alpha = exp(theta[sgp_ev_alpha_at(l)]);
}

static void get_theta(const sgp_ev_layout *l, const sgp_laplace_hyper *h, double *theta)
{
  for (int64_t j = 0; j < l->n_ls; j++) theta[j] = log(h->lengthscale[j]);
  theta[l->n_ls] = log(h->outputscale);
  for (int64_t c = 0; c < l->n_mean; c++) theta[l->n_ls + 1 + c] = h->mean[c];
  if (l->has_noise) theta[sgp_ev_noise_at(l)] = log(h->noise);
  if (l->has_par) theta[sgp_ev_par_at(l)] = log(h->dispersion);
  if (l->has_alpha) theta[sgp_ev_alpha_at(l)] = log(h->alpha);
}

static int objective(sgp_ctx *ctx, const double *theta, double *value, double *grad, void *data)
{
  select_t *s = (select_t *)data;
  set_theta(s, theta);
  if (s->n_se == s->cap_se) {
    const int64_t cap = s->cap_se ? 2 * s->cap_se : 64;
    double *v = realloc(s->se, (size_t)cap * sizeof(double));
    if (!v) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
    s->se = v;
    s->cap_se = cap;
  }
  double *se = s->se + s->n_se++;
  return evaluate(ctx, s, value, se, grad);
}

/* the standard error of the last evaluation (path values, sgp_select_run) */
static double last_se(void *data)
{
  const select_t *s = (const select_t *)data;
  return s->n_se > 0 ? s->se[s->n_se - 1] : NAN;
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

void sgp_laplace_auto_policy(const sgp_laplace_opts *o, int64_t n, int64_t C, int evidence_exact,
                             double mem, int *policy, int *max_iter, char *reason, size_t size)
{
  const int64_t NC = n * C;
  *max_iter = o->max_iter > 0 ? o->max_iter : SGP_LAPLACE_DEFAULT_MAX_ITER;
  *policy = o->policy == SGP_POLICY_CHOLESKY ? SGP_POLICY_CHOLESKY : SGP_POLICY_CG;
  if (o->policy != SGP_POLICY_AUTO) { snprintf(reason, size, "given"); return; }
  if (o->max_iter > 0 || o->rank >= 0 || o->max_total_iter >= 0 || o->precond_rank > 0) {
    snprintf(reason, size, "auto: cg, as a budget is given (max_iter, rank, max_total_iter or "
             "precond_rank)");
    return;
  }
  /* the same share of the memory as the exact evidence's factors */
  const double need = 8.0 * SGP_LAPLACE_DENSE_DOUBLES * (double)NC * (double)NC;
  const double have = EV_MEMORY_SHARE * mem;
  if (need > have || NC > INT_MAX) {
    snprintf(reason, size, "auto: cg with max_iter %d, as the exact Laplace's dense factor "
             "for n C = %lld needs %.3g GB (a quarter of the memory is %.3g GB)", *max_iter,
             (long long)NC, need / 1e9, have / 1e9);
    return;
  }
  /* its O(NC^3) work: that of one exact evidence, which the learning evaluated */
  if (NC > SGP_EVIDENCE_UNASKED_MAX_N && !(C == 1 && evidence_exact)) {
    snprintf(reason, size, "auto: cg with max_iter %d, as n C = %lld > %d and the learning did "
             "not use the exact evidence (the exact Laplace costs O((n C)^3))", *max_iter,
             (long long)NC, SGP_EVIDENCE_UNASKED_MAX_N);
    return;
  }
  *policy = SGP_POLICY_CHOLESKY;
  *max_iter = (int)NC;
  snprintf(reason, size, "auto: the exact Laplace (cholesky, max_iter = n C = %lld)",
           (long long)NC);
}

/* Which estimator (1: stochastic), or 0 with a note when neither is run. */
static int choose_estimator(sgp_ctx *ctx, const sgp_lik *lik, const sgp_laplace_opts *o,
                            int *stochastic, char *note, size_t size)
{
  const int soft = sgp_lik_multiclass(lik->kind);
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
  char list[160];
  if (o->learn & SGP_LEARN_AUTO) {
    if (!o->kernel.lengthscale) b |= SGP_LEARN_LENGTHSCALE;
    if (isnan(o->kernel.outputscale)) b |= SGP_LEARN_OUTPUTSCALE;
    if (!o->mean) b |= SGP_LEARN_MEAN;
    if (!o->noise.data && l->has_noise) b |= SGP_LEARN_NOISE;
    if (isnan(sgp_lik_par_given(o)) && l->has_par) b |= SGP_LEARN_DISPERSION;
    if (isnan(o->kernel.alpha) && l->has_alpha) b |= SGP_LEARN_ALPHA;
  }
  if ((b & SGP_LEARN_NOISE) && !l->has_noise)
    return sgp_fail(ctx, SGP_EINVAL, sgp_lik_has_noise(o->likelihood)
                    ? "learn: names \"noise\", which is learned as one value; 'noise' has one per point"
                    : "learn: names \"noise\", which only likelihood = \"gaussian\" has");
  if ((b & SGP_LEARN_DISPERSION) && !l->has_par)
    return sgp_fail(ctx, SGP_EINVAL, "learn: names \"dispersion\", which only likelihood = %s has",
                    sgp_lik_list(SGP_LIK_FACT_LEARNED_PAR, 1, list, sizeof list));
  if ((b & SGP_LEARN_ALPHA) && !l->has_alpha)
    return sgp_fail(ctx, SGP_EINVAL, "learn: names \"alpha\", which kernel = \"%s\" does not "
                    "have", sgp_kernel_names[o->kernel.kind]);
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
  if (sgp_lik_has_noise(lik->kind) && lik->n_noise == 1 && o->noise.data) h->noise = lik->noise[0];
  if (!sgp_lik_has_noise(lik->kind) || lik->n_noise != 1) h->noise = NAN;
  /* a parameter not given starts from its default, learned or not: lik->par holds it */
  h->dispersion = lik->par;
  h->alpha = isnan(o->kernel.alpha) ? 1.0 : o->kernel.alpha;
  return SGP_OK;
}

void sgp_laplace_pilot_rows(const sgp_ctx *ctx, int64_t n, int64_t *idx)
{
  for (int64_t i = 0; i < n; i++) idx[i] = i;
  sgp_rng rng; /* its own stream, keyed by the seed */
  sgp_rng_seed(&rng, ctx->seed ^ 0x9170751b5e7ull);
  sgp_rng_sample_prefix(&rng, idx, n, SGP_EVS_PILOT_N);
}

/* Subset: the rows idx[0..m) of X and of y, offset, a per-point noise and
 * per-point trials. */
typedef struct {
  double *X, *y, *offset, *noise, *trials;
  sgp_lik lik;
} subset_t;

static void subset_free(subset_t *b)
{
  free(b->X); free(b->y); free(b->offset); free(b->noise); free(b->trials);
}

static int subset_take(sgp_ctx *ctx, sgp_cmat X, const sgp_lik *lik, const int64_t *idx,
                       int64_t m, subset_t *b)
{
  const int64_t d = X.cols, pn = lik->n_noise == lik->n, pt = lik->trials && lik->n_trials == lik->n;
  memset(b, 0, sizeof *b);
  b->X = sgp_alloc(m * d);
  b->y = sgp_alloc(m);
  if (lik->offset) b->offset = sgp_alloc(m);
  if (pn) b->noise = sgp_alloc(m);
  if (pt) b->trials = sgp_alloc(m);
  if (!b->X || !b->y || (lik->offset && !b->offset) || (pn && !b->noise) || (pt && !b->trials))
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t i = 0; i < m; i++) {
    const int64_t r = idx[i];
    for (int64_t j = 0; j < d; j++) b->X[i + j * m] = X.data[r + j * X.ld];
    b->y[i] = lik->y[r];
    if (b->offset) b->offset[i] = lik->offset[r];
    if (b->noise) b->noise[i] = lik->noise[r];
    if (b->trials) b->trials[i] = lik->trials[r];
  }
  b->lik = *lik;
  b->lik.n = m;
  b->lik.y = b->y;
  b->lik.offset = b->offset;
  if (pn) { b->lik.noise = b->noise; b->lik.n_noise = m; }
  if (pt) { b->lik.trials = b->trials; b->lik.n_trials = m; }
  return SGP_OK;
}

/* The stochastic learning's start: the exact evidence's maximizer on a seeded
 * subset of SGP_EVS_PILOT_N points (a few seconds), from the data-based start. A
 * long stochastic run from the data-based start spends most of its (minute-long)
 * evaluations getting near the optimum, which a subset locates to within the
 * flat directions of the evidence. theta moves to the subset's maximizer; h is
 * untouched but for the values set_theta writes. */
static int pilot_start(sgp_ctx *ctx, select_t *s, unsigned bits, int max_eval, double *theta)
{
  const int64_t n = s->p.lik.n, m = SGP_EVS_PILOT_N;
  int64_t *idx = (int64_t *)malloc((size_t)n * sizeof(int64_t));
  if (!idx) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  sgp_laplace_pilot_rows(ctx, n, idx);
  subset_t b;
  int st = subset_take(ctx, s->p.X, &s->p.lik, idx, m, &b);
  free(idx);
  select_t ps = *s;
  sgp_hyper ph = *s->h;
  ph.tr_loglik = ph.tr_gradnorm = ph.tr_seconds = ph.tr_theta = NULL;
  ph.grad = sgp_alloc(ph.n_theta);
  ps.h = &ph;
  ps.p.lik = b.lik;
  ps.p.X = sgp_cmat_of(b.X, m, s->p.X.cols);
  ps.stochastic = 0;
  ps.se = NULL;
  ps.n_se = ps.cap_se = 0;
  memset(&ps.ws, 0, sizeof ps.ws);
  if (!st && !ph.grad) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  if (!st) st = sgp_ev_ws_init(ctx, &ps.ws, m, 1, 1);
  double pt[SGP_OPT_MAX_THETA];
  memcpy(pt, theta, (size_t)ph.n_theta * sizeof(double));
  int64_t best_eval = -1;
  const sgp_select_run run = {max_eval, 0, 0.0, 0.0, 0.0, 0, NULL,
                              "gp_laplace: learning the start on a subset", s->deadline};
  if (!st) st = sgp_select_learn(ctx, &ph, pt, NULL, NULL, bits, &run, objective, &ps, &best_eval);
  if (!st && !ph.note[0]) memcpy(theta, pt, (size_t)ph.n_theta * sizeof(double));
  sgp_ev_ws_free(&ps.ws);
  free(ps.se); free(ph.grad);
  free(ph.tr_loglik); free(ph.tr_gradnorm); free(ph.tr_seconds); free(ph.tr_theta);
  subset_free(&b);
  return st;
}

/* The evidence at the values used, learned first when asked. */
static int evidence_and_learn(sgp_ctx *ctx, sgp_cmat X, sgp_lik *lik, const sgp_laplace_opts *o,
                              const sgp_ev_layout *l, unsigned bits, int stochastic,
                              double deadline, sgp_laplace_hyper *h)
{
  select_t s;
  memset(&s, 0, sizeof s);
  s.h = h;
  s.deadline = deadline;
  s.p.lik = *lik;
  if (!isnan(h->noise)) s.p.lik.noise = &h->noise;
  s.p.X = X;
  s.p.kernel = o->kernel;
  s.p.kernel.lengthscale = h->lengthscale;
  s.p.kernel.n_lengthscale = h->n_lengthscale;
  s.p.kernel.outputscale = h->outputscale;
  s.p.kernel.alpha = h->alpha;
  s.p.mean = h->mean;
  s.p.layout = *l;
  double theta[SGP_OPT_MAX_THETA];
  s.stochastic = stochastic;
  get_theta(l, h, theta);
  h->grad = sgp_alloc(h->n_theta);
  int st = !h->grad ? sgp_fail(ctx, SGP_ENOMEM, "out of memory")
           : stochastic ? sgp_evs_ws_init(ctx, &s.mws, lik->n, o->probes, ctx->seed,
                                          o->kernel_cache_bytes, o->tile)
           : sgp_ev_ws_init(ctx, &s.ws, lik->n, lik->C, 1);
  int64_t best_eval = -1;
  /* the stochastic gradient is no derivative of its value: path values */
  const sgp_select_run run = {o->optim_max_iter, o->restarts, 0.0, 0.0, 0.0, stochastic, last_se,
                              "gp_laplace: learning", deadline};
  if (!st && bits && stochastic && lik->n >= 2 * SGP_EVS_PILOT_N)
    st = pilot_start(ctx, &s, bits, o->optim_max_iter, theta);
  /* an interrupt ends the learning with SGP_EINTERRUPT, and the call with it */
  if (!st && bits)
    st = sgp_select_learn(ctx, h, theta, NULL, NULL, bits, &run, objective, &s, &best_eval);
  if (bits) set_theta(&s, theta);
  /* after learning, h holds the best point evaluated and h->grad its gradient */
  if (best_eval >= 0) h->loglik_se = best_eval < s.n_se ? s.se[best_eval] : NAN;
  const int late = deadline > 0 && sgp_clock() >= deadline;
  if (!st && best_eval < 0 && late) {
    snprintf(h->note, sizeof h->note, "the evidence was not computed: the time limit was "
             "reached%s", bits ? " before the first evaluation of the learning" : "");
    h->loglik = h->loglik_se = NAN;
    free(h->grad);
    h->grad = NULL;
  }
  if (!st && best_eval < 0 && !late &&
      (st = evaluate(ctx, &s, &h->loglik, &h->loglik_se, h->grad)) &&
      st != SGP_EINTERRUPT) {
    snprintf(h->note, sizeof h->note, "the evidence failed at these values: %.200s", ctx->errmsg);
    h->loglik = h->loglik_se = NAN;
    free(h->grad);
    h->grad = NULL;
    st = SGP_OK;
  }
  sgp_ev_ws_free(&s.ws);
  sgp_evs_ws_free(&s.mws);
  free(s.se);
  return st;
}

int sgp_laplace_select(sgp_ctx *ctx, sgp_cmat X, sgp_lik *lik, const sgp_laplace_opts *o,
                       double deadline, sgp_laplace_opts *ro, sgp_laplace_hyper *h)
{
  memset(h, 0, sizeof *h);
  h->loglik = h->loglik_se = NAN;
  h->n_lengthscale = o->kernel.lengthscale ? o->kernel.n_lengthscale : 1;
  h->n_mean = sgp_lik_multiclass(lik->kind) ? lik->C : 1;
  sgp_ev_layout l = {h->n_lengthscale, h->n_mean,
                     sgp_lik_has_noise(lik->kind) && lik->n_noise == 1,
                     sgp_lik_ops_of(lik->kind)->par_derivs != NULL,
                     sgp_kernel_info_of(o->kernel.kind)->uses_alpha};
  h->has_dispersion = (int)l.has_par;
  h->has_alpha = (int)l.has_alpha;
  unsigned bits = 0;
  /* the start values come from y's moments, which must not overflow */
  int st = sgp_check_bounded(ctx, "y", sgp_cmat_of(lik->y, lik->n, 1), SGP_MAX_DATA_VALUE);
  if (st || (st = learn_bits(ctx, o, &l, &bits)) ||
      (st = start_values(ctx, X, lik, o, bits, h)))
    return st;
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
    st = evidence_and_learn(ctx, X, lik, o, &l, bits, stochastic, deadline, h);
  if (st) return st;
  *ro = *o;
  ro->kernel.lengthscale = h->lengthscale;
  ro->kernel.n_lengthscale = h->n_lengthscale;
  ro->kernel.outputscale = h->outputscale;
  ro->mean = h->mean;
  ro->n_mean = h->n_mean;
  ro->kernel.alpha = h->alpha; /* 1 where not given: the kernels that ignore it too */
  if (!isnan(h->noise)) /* the fit's lik owns its copy of the noise */
    *(double *)lik->noise = h->noise;
  if (l.has_par) { /* and the learned parameter */
    lik->par = h->dispersion;
    *(double *)((char *)ro + sgp_lik_ops_of(lik->kind)->par_offset) = h->dispersion;
  }
  return SGP_OK;
}
