/* laplace_defaults.c -- gp_laplace's option defaults, the names of its stop
 * reasons, the latent scale of its tolerances, and a fit's history and memory. */
#define _POSIX_C_SOURCE 200809L
#include "laplace/laplace_run.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* The scale the absolute tolerances (tol, inner_atol) are in units of: a
 * gaussian latent field is in y's units, so the prior's standard deviation
 * sqrt(outputscale) (a fit on c y with scales c^2 is then c times the fit on y,
 * the solver taking the same actions); the other likelihoods' link fixes the
 * latent scale (a logit or log rate), so 1. */
double sgp_laplace_latent_scale(sgp_likelihood lik, double outputscale)
{
  return sgp_lik_has_noise(lik) && outputscale > 0.0 ? sqrt(outputscale) : 1.0;
}

void sgp_laplace_opts_default(sgp_laplace_opts *o)
{
  memset(o, 0, sizeof *o);
  o->likelihood = SGP_LIK_BERNOULLI;
  sgp_lik_par_defaults(o);
  o->noise = sgp_cmat_of(NULL, 0, 0); /* gaussian: 1 */
  o->offset = sgp_cmat_of(NULL, 0, 0);
  o->kernel.kind = SGP_KERNEL_RBF;
  o->kernel.lengthscale = NULL;  /* not given: learned (model selection) */
  o->kernel.n_lengthscale = 1;  /* when a lengthscale pointer is set */
  o->kernel.outputscale = NAN;
  o->kernel.alpha = NAN;         /* not given: learned for the kernels that read it */
  o->policy = SGP_POLICY_AUTO;
  o->max_newton = 20;
  o->max_iter = 0; /* not given: sgp_laplace_auto_policy */
  o->rank = -1;
  o->tol = 1e-6;
  o->n_class = 0; /* softmax: the largest label */
  o->recycle = 1;
  o->max_total_iter = -1;
  o->time_limit = -1.0;
  o->inner_atol = 1e-5;
  o->inner_rtol = 1e-5;
  o->eta_tol = 0.0;
  o->eig_rtol = 1e-12;
  o->kappa = 0.0;
  o->noise_max = 1e12;
  o->residual = SGP_RESIDUAL_RECURSIVE;
  o->damping = 1;
  o->random_order = 0;
  o->kernel_cache_bytes = (size_t)2 << 30;
  o->mean = NULL;
  o->n_mean = 0;
  o->learn = SGP_LEARN_AUTO; /* what is not given is learned */
  o->optim_max_iter = 100;
  o->restarts = 0;
  o->evidence = SGP_EVIDENCE_AUTO;
  o->probes = 32;
  o->precond_rank = 0;
  o->class_actions = 1;
  o->history_trace = SGP_HISTORY_TRACE_AUTO;
  o->tile = SGP_DEFAULT_TILE;
  o->scale = 1;
}

const char *sgp_laplace_stop_name(int reason)
{
  switch (reason) {
  case SGP_STOP_RESID: return "residual";
  case SGP_STOP_MAXITER: return "max_iter";
  case SGP_STOP_BUDGET: return "budget";
  case SGP_STOP_BREAKDOWN: return "breakdown";
  case SGP_STOP_EXHAUSTED: return "exhausted";
  case SGP_STOP_CONVERGED: return "converged";
  case SGP_STOP_MAXNEWTON: return "max_newton";
  case SGP_STOP_DIVERGED: return "diverged";
  case SGP_STOP_TIME: return "time_limit";
  case SGP_STOP_STALLED: return "stalled";
  case SGP_STOP_STAGNATED: return "stagnated";
  default: return "none";
  }
}

static void history_free(sgp_laplace_history *h)
{
  free(h->it_newton); free(h->it_iter); free(h->it_total); free(h->it_buffer);
  free(h->it_rank); free(h->it_resid); free(h->it_rel_resid); free(h->it_alpha);
  free(h->it_eta); free(h->it_trace); free(h->it_time);
  free(h->st_psi); free(h->st_delta); free(h->st_mode_err); free(h->st_inner_stop); free(h->st_kprod);
  free(h->st_dropped); free(h->st_time);
  memset(h, 0, sizeof *h);
}

int sgp_laplace_history_alloc(sgp_laplace_history *h, int64_t ni, int64_t ns)
{
  memset(h, 0, sizeof *h);
  if (ni < 1) ni = 1;
  if (ns < 1) ns = 1;
#define HA(p, n) ((p) = calloc((size_t)(n), sizeof *(p)))
  HA(h->it_newton, ni); HA(h->it_iter, ni); HA(h->it_total, ni); HA(h->it_buffer, ni);
  HA(h->it_rank, ni); HA(h->it_resid, ni); HA(h->it_rel_resid, ni); HA(h->it_alpha, ni);
  HA(h->it_eta, ni); HA(h->it_trace, ni); HA(h->it_time, ni);
  HA(h->st_psi, ns); HA(h->st_delta, ns); HA(h->st_mode_err, ns); HA(h->st_inner_stop, ns); HA(h->st_kprod, ns);
  HA(h->st_dropped, ns); HA(h->st_time, ns);
#undef HA
  if (!h->it_newton || !h->it_iter || !h->it_total || !h->it_buffer || !h->it_rank ||
      !h->it_resid || !h->it_rel_resid || !h->it_alpha || !h->it_eta || !h->it_trace ||
      !h->it_time || !h->st_psi || !h->st_delta || !h->st_mode_err || !h->st_inner_stop || !h->st_kprod ||
      !h->st_dropped || !h->st_time) {
    history_free(h);
    return -1;
  }
  return 0;
}

void sgp_laplace_fit_free(sgp_laplace_result *fit)
{
  if (!fit) return;
  free(fit->lengthscale); free(fit->X); free(fit->m); free(fit->f); free(fit->var);
  free(fit->weights); free(fit->root); free(fit->flin); free(fit->noise_data);
  free(fit->centre); free(fit->scale);
  history_free(&fit->history);
  sgp_hyper_free(&fit->hyper);
  free(fit);
}
