/* optim.h -- bounded L-BFGS maximizer (NLopt's NLOPT_LD_LBFGS) for model selection:
 * learning hyperparameters by maximizing a log marginal likelihood. Core-internal;
 * not part of the public header.
 *
 * Failed evaluations. NLopt's L-BFGS (Luksan's PLIS) cannot take NaN, so a failed
 * or non-finite evaluation is handed to it as a finite penalty: a value above every
 * base of its line searches (so the Armijo test fails and the point never becomes
 * an iterate nor enters the L-BFGS memory) and a gradient that, with that value,
 * puts the minimizer of the line search's cubic at 1/2 of the step for the first 3
 * failures in a row, then 1/10, then 1/100 (the penalty() comment in optim.c
 * derives it). Halving approaches the border of a failing region; the larger
 * cuts undo overlong steps along steep gradients. When a line search fails twice
 * NLopt ends the start (NLOPT_FAILURE): the best point is kept and the message
 * says so. A start whose first point fails ends at once; the next may succeed.
 *
 * Initial step: Luksan's L-BFGS ignores nlopt_set_initial_step (its first trial
 * step is the unit step along the scaled L-BFGS direction); an overlong step lands
 * in the penalty above and is cut back, so no initial step is set. */
#ifndef SGP_OPTIM_H
#define SGP_OPTIM_H

#include "runtime/sgp_internal.h"

/* Objective to MAXIMIZE: value and gradient at x (n values). Returns SGP_OK with a
 * finite value and gradient; SGP_EINTERRUPT to stop the optimization (the best point so
 * far is returned); any other negative status = a failed evaluation (e.g. a failed
 * factorization): the optimizer treats the point as bad and backtracks, never aborts.
 * ctx->errmsg of a failed evaluation is kept in result->last_failure. */
typedef int (*sgp_objective)(sgp_ctx *ctx, const double *x, double *value, double *grad,
                             void *data);

typedef struct {
  int max_eval;        /* objective evaluations at most, per start; default 100 */
  double ftol_rel;     /* stop on relative change of the objective; default 1e-6 */
  double ftol_abs;     /* and on an absolute change below this (NLopt's test between
                        * iterates, and the best value gaining less in 3 evaluations);
                        * default 0 (off) */
  int restarts;        /* extra starts from seeded random points; default 0 */
  double restart_sd;   /* the random starts: x0 + restart_sd * N(0,1) per coordinate, clamped to the bounds; default 1 */
  uint64_t seed;       /* seed of the random starts; default 1 */
  const char *task;    /* label of progress lines, e.g. "gp_laplace: learning"; default "optim" */
  const char *const *names; /* n coordinate names for progress lines (may be NULL) */
  const unsigned char *log_scale; /* n flags (may be NULL): progress lines show exp(x_i), the user's scale */
  int memory;          /* L-BFGS memory (nlopt_set_vector_storage); default 10 */
  double max_log_step; /* trial points farther than this from the best point in a
                        * log_scale coordinate are cut back unevaluated; default 3
                        * (a factor e^3 = 20); 0: no limit */
  int path_values;     /* for a value and gradient estimated separately (the stochastic
                        * evidence, whose gradient is no derivative of its value): NLopt
                        * sees values integrated from the gradients, the start's best
                        * point's plus the trapezoid rule along the step to the new point,
                        * so that every line search agrees with the gradient; the best
                        * point is the best by these values, and its own value is
                        * reported. Default 0 */
  double (*value_se)(void *data); /* with path_values: the standard error of the value f
                        * last returned (data: f's). A path value is kept within 3 of
                        * them of f's own value, so that the gradient leads where the
                        * values cannot tell the points apart and the values lead where
                        * they can (a gradient far off its mean at a bad point is
                        * overruled). NULL (default): not kept. Also read by ftol_se */
  double deadline;     /* sgp_clock() seconds after which no evaluation starts: the
                        * start ends, later starts are skipped, and the result is not
                        * converged (timed_out); 0 (default): none */
  double ftol_se;      /* with value_se: the stop on the best value's gain (ftol_abs) uses
                        * at least ftol_se times the standard error of each start's first
                        * value, a gain the estimate can resolve; default 0 */
} sgp_optim_opts;

typedef struct {
  int n;
  double *x, *grad;    /* n each: the best point found and the gradient there */
  double value;        /* objective at x */
  int64_t n_eval;      /* evaluations made (all starts), = rows of the trace */
  double *trace_value, *trace_gradnorm, *trace_seconds; /* n_eval each; value NaN for a failed evaluation; seconds since the start of sgp_optim_maximize */
  int *trace_start;    /* n_eval: 0 for the first start, 1.. for restarts */
  double *trace_x;     /* n_eval x n, column-major with ld = n_eval (R: a data frame's columns) */
  int converged;       /* the best start stopped by its tolerance (ftol/xtol), not by max_eval, failure or interrupt */
  int timed_out;       /* stopped at o->deadline */
  int interrupted;     /* stopped by the interrupt hook or an SGP_EINTERRUPT from the objective */
  int64_t n_failed;    /* failed evaluations */
  char message[256];   /* why the best start stopped, in words ("relative change of the objective below 1e-06", "max_eval (100) evaluations reached", "interrupted", ...) */
  char last_failure[512]; /* ctx->errmsg of the last failed evaluation, "" if none */
  int best_start;      /* the start the best point came from (0 = x0) */
  int64_t best_eval;   /* its row of the trace (0-based) */
} sgp_optim_result;

void sgp_optim_opts_default(sgp_optim_opts *o);
/* Maximizes f over the box lb <= x <= ub (lb/ub may be NULL = unbounded; entries may be +-INFINITY) from x0 with NLopt's NLOPT_LD_LBFGS. Returns SGP_OK (also when interrupted or not converged: the result says so), SGP_EINVAL for bad arguments (x0 outside the bounds, n < 1), SGP_ENOMEM, or an error when no evaluation at all succeeded (the message: the last failure). Deterministic: the same inputs give bitwise the same iterates. Polls sgp_poll_interrupt(ctx) before each evaluation. With ctx->verbose, one progress line per evaluation through sgp_say (evaluation number, value, gradient norm, the coordinates by name).
 * On an error the result holds no arrays (n_eval, n_failed, last_failure are kept).
 * A gradient tolerance stop of NLopt (max |projected gradient| <= 1e-8) also counts
 * as converged. */
int sgp_optim_maximize(sgp_ctx *ctx, int n, const double *x0, const double *lb, const double *ub,
                       sgp_objective f, void *data, const sgp_optim_opts *o, sgp_optim_result *r);
void sgp_optim_result_free(sgp_optim_result *r);  /* safe on a zeroed result */

#endif
