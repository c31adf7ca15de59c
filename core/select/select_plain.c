/* select_plain.c -- the model selection of a fit as plain data (sgp_hyper_plain,
 * sgp_options.h): its fields written once for both hosts. */
#include "runtime/sgp_internal.h"
#include "host/value_out.h"

#include <math.h>
#include <stdio.h>

/* lengthscale (ls_report where set), outputscale, mean (when the model has one), noise (NULL when there
 * is none; ski_gsgp has no mean and always a noise), then dispersion and alpha
 * where theta has them. */
static sgp_value hyper_list(const sgp_hyper *h, sgp_value_arena *a)
{
  const int has_mean = h->n_mean > 0, has_noise = !isnan(h->noise);
  const char *names[6] = {"lengthscale", "outputscale"};
  sgp_value v[6];
  int n = 0;
  v[n++] = h->ls_report ? sgp_vo_real(a, h->n_ls_report, h->ls_report, 0, 0)
                        : sgp_vo_real(a, h->n_lengthscale, h->lengthscale, 0, 0);
  v[n++] = sgp_vo_scalar(a, h->outputscale);
  if (has_mean) {
    names[n] = "mean";
    v[n++] = sgp_vo_real(a, h->n_mean, h->mean, 0, 0);
  }
  if (has_mean || has_noise) {
    names[n] = "noise";
    v[n++] = has_noise ? sgp_vo_scalar(a, h->noise) : sgp_vo_null();
  }
  if (h->has_dispersion) {
    names[n] = "dispersion";
    v[n++] = sgp_vo_scalar(a, h->dispersion);
  }
  if (h->has_alpha) {
    names[n] = "alpha";
    v[n++] = sgp_vo_scalar(a, h->alpha);
  }
  return sgp_vo_list(a, n, names, v);
}

/* theta's coordinate names (n_theta of them, in the arena). */
static const char **theta_names(const sgp_hyper *h, sgp_value_arena *a)
{
  const char **names = (const char **)sgp_vo_alloc(a, (size_t)h->n_theta * sizeof(char *));
  for (int64_t k = 0; names && k < h->n_theta; k++) {
    char *buf = (char *)sgp_vo_alloc(a, 32);
    if (buf) sgp_hyper_theta_name(h, k, buf, 32);
    names[k] = buf ? buf : "";
  }
  return names;
}

/* The optimizer's trace: evaluation (1..n_eval), loglik, grad_norm, seconds and
 * one column per coordinate. */
static sgp_value optim_list(const sgp_hyper *h, const char *const *theta,
                            sgp_value_arena *a)
{
  const int64_t ne = h->n_eval, nt = h->n_theta;
  const char **names = (const char **)sgp_vo_alloc(a, (size_t)(4 + nt) * sizeof(char *));
  sgp_value *cols = (sgp_value *)sgp_vo_alloc(a, (size_t)(4 + nt) * sizeof(sgp_value));
  double *ev = (double *)sgp_vo_alloc(a, (size_t)ne * sizeof(double));
  if (!names || !cols || !ev || !theta) return sgp_vo_null();
  for (int64_t e = 0; e < ne; e++) ev[e] = (double)(e + 1);
  const char *fixed[] = {"evaluation", "loglik", "grad_norm", "seconds"};
  const double *fcol[] = {ev, h->tr_loglik, h->tr_gradnorm, h->tr_seconds};
  for (int i = 0; i < 4; i++) {
    names[i] = fixed[i];
    cols[i] = sgp_vo_real(a, ne, fcol[i], 0, 0);
  }
  for (int64_t k = 0; k < nt; k++) {
    names[4 + k] = theta[k];
    cols[4 + k] = sgp_vo_real(a, ne, h->tr_theta + k * ne, 0, 0);
  }
  return sgp_vo_list(a, 4 + nt, names, cols);
}

/* SGP_LEARN_* bits as the names of gp_laplace's `learn` choices (bit i = choice i;
 * ski_gsgp's hyperparameters carry the same bits). */
static sgp_value learned_names(unsigned bits, sgp_value_arena *a)
{
  const char *const *choices = sgp_opt_find(sgp_verb_options("gp_laplace"), "learn")->choices;
  const char *names[32];
  int64_t k = 0;
  for (int i = 0; choices[i] && i < 32; i++)
    if ((bits >> i) & 1u) names[k++] = choices[i];
  return sgp_vo_strings(a, k, names);
}

sgp_value sgp_hyper_plain(const sgp_hyper *h, sgp_value_arena *a)
{
  const char **theta = theta_names(h, a);
  const char *names[] = {"hyper", "loglik", "loglik_se", "loglik_grad", "learned", "optim",
                         "optim_converged", "optim_message", "note"};
  const sgp_value v[] = {
    hyper_list(h, a), sgp_vo_scalar(a, h->loglik), sgp_vo_scalar(a, h->loglik_se),
    sgp_vo_named(a, h->grad && theta ? h->n_theta : 0, h->grad, theta),
    learned_names(h->learned, a), optim_list(h, theta, a),
    sgp_vo_flag(a, h->learned ? (double)(h->optim_converged != 0) : NAN),
    sgp_vo_string(a, h->optim_message), sgp_vo_string(a, h->note)};
  return sgp_vo_list(a, 9, names, v);
}
