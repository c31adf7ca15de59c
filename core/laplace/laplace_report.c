/* laplace_report.c -- what a fit tells its user beyond its numbers: the warnings
 * (no convergence, an empty class, model selection that fell short), worded once for both hosts. */
#include "laplace.h"

#include <stdio.h>
#include <string.h>

int sgp_laplace_warning(const sgp_laplace_fit_t *fit, const sgp_laplace_opts *o, char *buf,
                        size_t size)
{
  if (size > 0) buf[0] = '\0';
  int k = 0;
  if (!fit->converged) {
    const sgp_laplace_history *h = &fit->history;
    const double err = h->n_step > 0 ? h->st_mode_err[h->n_step - 1] : 0.0;
    snprintf(buf, size,
             "gp_laplace: did not converge (stop reason \"%s\" after %d Newton steps, %lld solver "
             "iterations; the mode is within %.3g, tol %g); raise max_iter or max_newton%s",
             sgp_laplace_stop_name(fit->stop_reason), fit->newton_steps,
             (long long)fit->iterations, err, o->tol, o->damping ? "" : ", or use damping = TRUE");
    k++;
  }
  if (fit->empty_class > 0) {
    const size_t l = strlen(buf);
    snprintf(buf + l, size - l,
             "%sgp_laplace: class %lld of %lld has no training point (softmax classes are the "
             "labels 1..C); it keeps its prior probability: recode y as 1..C without gaps",
             k ? "\n" : "", (long long)fit->empty_class, (long long)fit->C);
    k++;
  }
  const sgp_laplace_hyper *hy = &fit->hyper;
  const char *why = NULL;
  char msg[600];
  if (hy->learned && hy->optim_interrupted)
    why = "interrupted: the fit uses the best hyperparameters found so far";
  else if (hy->learned && !hy->optim_converged) {
    snprintf(msg, sizeof msg, "learning the hyperparameters did not converge (%s); raise "
             "optim_max_iter", hy->optim_message);
    why = msg;
  } else if (hy->note[0] && hy->requested) {
    snprintf(msg, sizeof msg, "%s", hy->note);
    why = msg;
  }
  if (why) {
    const size_t l = strlen(buf);
    snprintf(buf + l, size - l, "%sgp_laplace: %s", k ? "\n" : "", why);
    k++;
  }
  return k;
}
