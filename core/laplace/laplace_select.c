/* laplace_select.c -- gp_laplace's model selection (spec model_selection.md §5,
 * §6): the hyperparameters a fit uses are the user's values, data-based initial
 * values for the others, and, for those in `learn` (default: every one not
 * given), the maximizer of the Laplace evidence (L-BFGS, optim.c): exact
 * (evidence.c), or estimated matrix-free with probes fixed for the whole
 * optimization (evidence_stochastic.c) when asked or when the exact one does not
 * fit. The evidence and its gradient are reported at the values used, learned or not. */
#include "evidence.h"

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
  double best_value, best_se; /* the best evaluation so far and its standard error */
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
static void set_theta(select_t *s, const double *theta)
{
  const sgp_ev_layout *l = &s->p.layout;
  sgp_laplace_hyper *h = s->h;
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

static int objective(sgp_ctx *ctx, const double *theta, double *value, double *grad, void *data)
{
  select_t *s = (select_t *)data;
  set_theta(s, theta);
  double se;
  const int st = evaluate(ctx, s, value, &se, grad);
  if (!st && (!s->have_best || *value > s->best_value)) {
    s->have_best = 1;
    s->best_value = *value;
    s->best_se = se;
  }
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
  s.h = h;
  s.p.lik = *lik;
  if (!isnan(h->noise)) s.p.lik.noise = &h->noise;
  s.p.X = X;
  s.p.kernel = o->kernel;
  s.p.kernel.lengthscale = h->lengthscale;
  s.p.kernel.n_lengthscale = h->n_lengthscale;
  s.p.kernel.outputscale = h->outputscale;
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
  int evaluated = 0;
  if (!st && bits)
    st = sgp_select_learn(ctx, h, theta, NULL, NULL, bits, o->optim_max_iter, o->restarts, 0.0,
                          "gp_laplace: learning", objective, &s, &evaluated);
  if (bits) set_theta(&s, theta);
  /* after learning, h holds the best point evaluated and h->grad its gradient */
  if (evaluated) h->loglik_se = s.have_best && s.best_value == h->loglik ? s.best_se : NAN;
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
