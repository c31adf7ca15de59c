/* laplace_report.c -- what a fit tells its user beyond its numbers: the warnings
 * (no convergence, an empty class, model selection that fell short), worded once
 * for both hosts, each with its identifier. */
#include "laplace/laplace.h"

#include <stdio.h>
#include <string.h>

/* Appends one warning line to buf and its identifier to ids (both "\n"-separated). */
static void add(char *buf, size_t size, char *ids, size_t ids_size, int *k, const char *id,
                const char *text)
{
  size_t l = strlen(buf);
  snprintf(buf + l, size - l, "%sgp_laplace: %s", *k ? "\n" : "", text);
  if (ids) {
    l = strlen(ids);
    snprintf(ids + l, ids_size - l, "%s%s", *k ? "\n" : "", id);
  }
  (*k)++;
}

int sgp_laplace_warning(const sgp_laplace_result *fit, const sgp_laplace_opts *o, char *buf,
                        size_t size, char *ids, size_t ids_size)
{
  char msg[600];
  int k = 0;
  if (size > 0) buf[0] = '\0';
  if (ids && ids_size > 0) ids[0] = '\0';
  if (!fit->converged) {
    const sgp_laplace_history *h = &fit->history;
    const double err = h->n_step > 0 ? h->st_mode_err[h->n_step - 1] : 0.0;
    snprintf(msg, sizeof msg,
             "did not converge (stop reason \"%s\" after %d Newton steps, %lld solver "
             "iterations; the mode is within %.3g, tol %g); raise %s%s",
             sgp_laplace_stop_name(fit->stop_reason), fit->newton_steps,
             (long long)fit->iterations, err,
             o->tol * sgp_laplace_latent_scale(fit->likelihood, fit->kernel.outputscale),
             fit->stop_reason == SGP_STOP_TIME ? "time_limit" : "max_iter or max_newton",
             fit->stop_reason == SGP_STOP_TIME || o->damping ? "" : ", or use damping = TRUE");
    add(buf, size, ids, ids_size, &k, "not-converged", msg);
  }
  if (fit->empty_class > 0) {
    snprintf(msg, sizeof msg,
             "class %lld of %lld has no training point (softmax classes are the labels 1..C); "
             "it keeps its prior probability: recode y as 1..C without gaps",
             (long long)fit->empty_class, (long long)fit->C);
    add(buf, size, ids, ids_size, &k, "empty-class", msg);
  }
  if (fit->var_unresolved > 0) {
    sgp_variance_warning(fit->var_unresolved, fit->n * fit->C, msg, sizeof msg);
    add(buf, size, ids, ids_size, &k, "variance-unresolved", msg);
  }
  sgp_select_warning(&fit->hyper, msg, sizeof msg);
  if (msg[0]) add(buf, size, ids, ids_size, &k, "model-selection", msg);
  return k;
}
