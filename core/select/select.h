/* select.h -- model selection shared by the fronts that learn hyperparameters
 * (gp_laplace, ski_gsgp): theta's coordinates and
 * names, the optimizer's bounds, one L-BFGS run over the coordinates asked for
 * with its trace kept in an sgp_hyper, and the model-selection warning.
 * Core-internal. */
#ifndef SGP_SELECT_H
#define SGP_SELECT_H

#include "runtime/sgp_internal.h"

/* Most coordinates of theta (lengthscales + outputscale + means + noise). */
#define SGP_OPT_MAX_THETA 256

/* Which hyperparameter coordinate k of theta = (log ell_1..L, log s, mean_1..M,
 * log noise, log dispersion, log alpha) belongs to (an SGP_LEARN_* bit): h's
 * n_lengthscale, n_mean (0 for a model without a mean), has_dispersion, has_alpha
 * and n_theta (the noise is what is left). */
unsigned sgp_select_coordinate(const sgp_hyper *h, int64_t k);

/* The full objective at theta (h->n_theta values): value and full gradient;
 * statuses as sgp_objective's (optim.h). */
typedef int (*sgp_select_eval)(sgp_ctx *ctx, const double *theta, double *value,
                               double *grad, void *data);

/* How one learning runs: max_eval evaluations per start, restarts seeded by
 * ctx->seed, a stop on a relative change of f below ftol_rel (< 0: none; 0: the
 * optimizer's default, 1e-6), path values for an estimated objective whose
 * gradient is no derivative of its value, kept within 3 standard errors of its
 * values (sgp_optim_opts), progress lines labelled task. */
typedef struct {
  int max_eval, restarts;
  double ftol_rel, ftol_abs;      /* ftol_abs: a stop on an absolute change too (0: none) */
  double ftol_se;                 /* and on a gain below ftol_se standard errors (value_se) */
  int path_values;
  double (*value_se)(void *data); /* with path_values or ftol_se: the last value's standard
                                   * error (data: f's; sgp_optim_opts), or NULL */
  const char *task;
  double deadline;                /* sgp_clock() seconds; 0: none (sgp_optim_opts) */
} sgp_select_run;

/* Maximizes f over the coordinates of theta in bits (SGP_LEARN_*), from theta,
 * with NLopt's L-BFGS (optim.c) inside bounds around the start (raised to
 * theta_lo[k] where theta_lo, n_theta values or NULL, is higher; a start
 * below it moves up to it; lowered to theta_hi[k] where theta_hi, likewise, is
 * lower), as run says. On return theta holds the best point (the start when
 * learning failed: h->note says why), h its trace, h->loglik its value and
 * h->grad (n_theta, allocated by the caller) its full gradient, h->learned = bits,
 * and *best_eval that point's row of the trace (-1 when h->loglik and h->grad
 * are not of theta). Errors: SGP_EINTERRUPT when the host asked to stop (the
 * learning is not kept: the caller stops too), SGP_ENOMEM. */
int sgp_select_learn(sgp_ctx *ctx, sgp_hyper *h, double *theta, const double *theta_lo,
                     const double *theta_hi, unsigned bits, const sgp_select_run *run,
                     sgp_select_eval f, void *data, int64_t *best_eval);

/* The model-selection warning of h (not converged, or the note of
 * a selection that was asked for) in buf, without the function's name; "" when
 * none. Its identifier is "model-selection". */
void sgp_select_warning(const sgp_hyper *h, char *buf, size_t size);

/* The data-based initial lengthscale: the median Euclidean distance
 * between the points of a seeded subsample of at most 1000 rows of X (one
 * lengthscale: a lengthscale not given is isotropic; ARD starts from the values
 * the user gives). The subsample's stream is keyed by ctx->seed alone. */
int sgp_select_init_lengthscale(sgp_ctx *ctx, sgp_cmat X, double *ls);

#endif
