/* valla_state.c -- option defaults and the lifetime of a VaLLA fit. */
#include "valla/valla.h"

#include <stdlib.h>
#include <string.h>

void sgp_valla_opts_default(sgp_valla_opts *o)
{
  memset(o, 0, sizeof *o);
  o->likelihood = SGP_LIK_GAUSSIAN;
  o->method = SGP_VALLA_METHOD_VALLA;
  o->n_inducing = 0; /* VALLA_DEFAULT_INDUCING, or the rows of x left when fewer */
  o->prior_var = 1.0;
  o->noise = -1.0; /* exp(-5) on the standardized scale */
  o->learn = SGP_VALLA_LEARN_A | SGP_VALLA_LEARN_INDUCING | SGP_VALLA_LEARN_PRIOR_VAR |
             SGP_VALLA_LEARN_NOISE;
  o->closed_form = 0;
  o->iterations = 20000;
  o->batch_size = 100;
  o->lr = 1e-3;
  o->alpha = 1.0;
  o->eval_every = 100;
  o->patience = 1;
  o->restore_best = 1;
  o->beta1 = 0.9;
  o->beta2 = 0.999;
  o->adam_eps = 1e-8;
  o->init_A = SGP_VALLA_INIT_IDENTITY;
  o->standardize_y = 1;
  o->noise_fit = SGP_VALLA_NOISE_VALIDATION;
  o->folds = 5;
  o->kmeans_iter = 10;
  o->kmeans_max = 50000;
  o->jitter = 1e-8;
  o->cache_max_bytes = (size_t)1 << 31;
  o->val_frac = 0.1;
  o->val_max = 10000; /* the validation cost must not grow with n */
  o->layers = NULL;
  o->lla_max = 5000;
  o->ella_rank = 20;
}

void sgp_valla_fit_free(sgp_valla_result *fit)
{
  if (!fit) return;
  sgp_valla_net_free(&fit->net);
  free(fit->Z); free(fit->tags); free(fit->layers); free(fit->L);
  free(fit->P1); free(fit->P2);
  free(fit->trace_obj); free(fit->trace_val); free(fit->trace_val_iter);
  free(fit);
}
