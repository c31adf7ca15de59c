/* laplace_report.c -- what a fit tells its user beyond its numbers: the warning
 * of a fit that did not converge, worded once for both hosts. */
#include "laplace.h"

#include <stdio.h>

int sgp_laplace_warning(const sgp_laplace_fit_t *fit, const sgp_laplace_opts *o, char *buf,
                        size_t size)
{
  if (size > 0) buf[0] = '\0';
  if (fit->converged) return 0;
  const sgp_laplace_history *h = &fit->history;
  const double err = h->n_step > 0 ? h->st_mode_err[h->n_step - 1] : 0.0;
  snprintf(buf, size,
           "gp_laplace: did not converge (stop reason \"%s\" after %d Newton steps, %lld solver "
           "iterations; the mode is within %.3g, tol %g); raise max_iter or max_newton%s",
           sgp_laplace_stop_name(fit->stop_reason), fit->newton_steps,
           (long long)fit->iterations, err, o->tol, o->damping ? "" : ", or use damping = TRUE");
  return 1;
}
