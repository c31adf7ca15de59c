/* optim.c -- bounded L-BFGS maximizer on NLopt (NLOPT_LD_LBFGS) with seeded
 * restarts, failed evaluations turned into penalties (see optim.h), a trace of
 * every evaluation and the host's interrupt polled before each one. */
#define _POSIX_C_SOURCE 200809L
#include "select/optim.h"

#include <math.h>
#include <nlopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { STOP_NONE = 0, STOP_MAXEVAL, STOP_INTERRUPT, STOP_FIRST_FAILED, STOP_NOMEM,
       STOP_FTOL_ABS, STOP_TIME };
/* ftol_abs: a start stops when its best value, having gained ftol_abs once
 * (not while the first line search backs off an overlong step), has gained
 * less than ftol_abs over this many evaluations. Luksan's L-BFGS tests only
 * successive iterates, and its line searches near the optimum of a stochastic
 * objective went on for 10 evaluations without a gain. */
#define FTOL_ABS_EVALS 3

/* One call of sgp_optim_maximize. Values inside are in the maximization sense;
 * only nlopt_objective() negates for NLopt. */
typedef struct {
  sgp_ctx *ctx;
  int n;
  sgp_objective f;
  void *data;
  const sgp_optim_opts *o;
  const double *lb, *ub;       /* n each, -+INFINITY where unbounded */
  sgp_optim_result *r;         /* trace arrays grow in place; trace_x row-major here */
  int64_t cap;                 /* rows allocated in the trace */
  double t0;
  nlopt_opt opt;               /* of the current start */
  double *xe, *g;              /* the evaluated point and its gradient */
  double *sx, *sg;             /* best point of the current start and its gradient */
  double sval;                 /* its value (a path value with o->path_values) */
  double sfirst;               /* value at the start's first point */
  double s_ftol;               /* the start's gain threshold: ftol_abs, or ftol_se ses */
  double s_ref;                /* the start's best value when it last gained s_ftol */
  int64_t s_ref_eval;          /* and the evaluation (s_evals) it was reached at */
  int s_gained;                /* the start has gained s_ftol once at least */
  int s_have, start, stop;
  int64_t s_evals, s_failed;   /* evaluations and failures of the current start */
  int s_consec_failed;         /* failures since its last success */
  int last_status;             /* status of the last failed evaluation */
  char failure[512];           /* first failure of the start (when it ends the start) */
  int have_best;
  int nomem;                   /* the trace could not grow */
  double fx;                   /* value of the last successful evaluation as NLopt sees
                                * it (a path value with o->path_values) */
} optim_run;

void sgp_optim_opts_default(sgp_optim_opts *o)
{
  memset(o, 0, sizeof *o);
  o->max_eval = 100;
  o->ftol_rel = 1e-6;
  o->ftol_abs = 0.0;
  o->ftol_se = 0.0;
  o->restarts = 0;
  o->restart_sd = 1.0;
  o->seed = 1;
  o->task = "optim";
  o->names = NULL;
  o->log_scale = NULL;
  o->memory = 10;
  o->max_log_step = 3.0;
  o->path_values = 0;
  o->value_se = NULL;
}

void sgp_optim_result_free(sgp_optim_result *r)
{
  if (!r) return;
  free(r->x); free(r->grad);
  free(r->trace_value); free(r->trace_gradnorm); free(r->trace_seconds);
  free(r->trace_start); free(r->trace_x);
  r->x = r->grad = r->trace_value = r->trace_gradnorm = r->trace_seconds = r->trace_x = NULL;
  r->trace_start = NULL;
}

/* Truncating copy (a failure's text may be longer than the field keeping it). */
static void copy_text(char *dst, size_t size, const char *src)
{
  const size_t len = strlen(src) < size - 1 ? strlen(src) : size - 1;
  memcpy(dst, src, len);
  dst[len] = '\0';
}

/* ------------------------------------------------------------ arguments */

static void coord_name(const sgp_optim_opts *o, int i, char *buf, size_t size)
{
  if (o->names && o->names[i]) snprintf(buf, size, "'%s'", o->names[i]);
  else snprintf(buf, size, "coordinate %d", i + 1);
}

static int check_opts(sgp_ctx *ctx, const sgp_optim_opts *o)
{
  if (o->max_eval < 1)
    return sgp_fail(ctx, SGP_EINVAL, "max_eval: must be a whole number >= 1 (got %d)", o->max_eval);
  if (!(o->ftol_rel >= 0.0 && o->ftol_rel < 1.0))
    return sgp_fail(ctx, SGP_EINVAL, "ftol_rel: must be in [0, 1) (got %g)", o->ftol_rel);
  if (!(o->ftol_abs >= 0.0) || !isfinite(o->ftol_abs))
    return sgp_fail(ctx, SGP_EINVAL, "ftol_abs: must be a non-negative number (got %g)",
                    o->ftol_abs);
  if (!(o->ftol_se >= 0.0) || !isfinite(o->ftol_se))
    return sgp_fail(ctx, SGP_EINVAL, "ftol_se: must be a non-negative number (got %g)",
                    o->ftol_se);
  if (o->restarts < 0)
    return sgp_fail(ctx, SGP_EINVAL, "restarts: must be a whole number >= 0 (got %d)", o->restarts);
  if (!(o->restart_sd >= 0.0 && isfinite(o->restart_sd)))
    return sgp_fail(ctx, SGP_EINVAL, "restart_sd: must be finite and >= 0 (got %g)", o->restart_sd);
  if (o->memory < 1)
    return sgp_fail(ctx, SGP_EINVAL, "memory: must be a whole number >= 1 (got %d)", o->memory);
  return SGP_OK;
}

static int check_point(sgp_ctx *ctx, int n, const double *x0, const double *lb, const double *ub,
                       const sgp_optim_opts *o)
{
  char name[128];
  for (int i = 0; i < n; i++) {
    const double l = lb ? lb[i] : -INFINITY, u = ub ? ub[i] : INFINITY;
    coord_name(o, i, name, sizeof name);
    if (isnan(l) || l == INFINITY)
      return sgp_fail(ctx, SGP_EINVAL, "lb: the bound of %s must be a number < Inf (got %g)", name, l);
    if (isnan(u) || u == -INFINITY)
      return sgp_fail(ctx, SGP_EINVAL, "ub: the bound of %s must be a number > -Inf (got %g)", name, u);
    if (l > u)
      return sgp_fail(ctx, SGP_EINVAL, "lb: the bound of %s is above ub (%g > %g)", name, l, u);
    if (!isfinite(x0[i]))
      return sgp_fail(ctx, SGP_EINVAL, "x0: %s must be finite (got %g)", name, x0[i]);
    if (x0[i] < l || x0[i] > u)
      return sgp_fail(ctx, SGP_EINVAL, "x0: %s = %g is outside its bounds [%g, %g]", name, x0[i], l, u);
  }
  return SGP_OK;
}

/* ------------------------------------------------------------ trace */

static int trace_grow(optim_run *R)
{
  sgp_optim_result *r = R->r;
  const int64_t cap = R->cap ? 2 * R->cap : 64, n = R->n;
  double *v = realloc(r->trace_value, (size_t)cap * sizeof *v);
  if (v) r->trace_value = v;
  double *gn = realloc(r->trace_gradnorm, (size_t)cap * sizeof *gn);
  if (gn) r->trace_gradnorm = gn;
  double *t = realloc(r->trace_seconds, (size_t)cap * sizeof *t);
  if (t) r->trace_seconds = t;
  int *s = realloc(r->trace_start, (size_t)cap * sizeof *s);
  if (s) r->trace_start = s;
  double *x = realloc(r->trace_x, (size_t)(cap * n) * sizeof *x);
  if (x) r->trace_x = x;
  if (!v || !gn || !t || !s || !x) return SGP_ENOMEM;
  R->cap = cap;
  return SGP_OK;
}

/* Appends one evaluation (value NaN when it failed). */
static int trace_push(optim_run *R, const double *x, double value, double gradnorm)
{
  sgp_optim_result *r = R->r;
  if (r->n_eval == R->cap && trace_grow(R) != SGP_OK) return SGP_ENOMEM;
  const int64_t k = r->n_eval++;
  r->trace_value[k] = value;
  r->trace_gradnorm[k] = gradnorm;
  r->trace_seconds[k] = sgp_clock() - R->t0;
  r->trace_start[k] = R->start;
  memcpy(r->trace_x + k * R->n, x, (size_t)R->n * sizeof *x);
  return SGP_OK;
}

/* Row-major rows (as recorded) to column-major with ld = n_eval, in place of trace_x. */
static int trace_finish(optim_run *R)
{
  sgp_optim_result *r = R->r;
  const int64_t m = r->n_eval, n = R->n;
  double *cm = sgp_alloc(m * n);
  if (!cm) return SGP_ENOMEM;
  for (int64_t k = 0; k < m; k++)
    for (int64_t j = 0; j < n; j++) cm[k + j * m] = r->trace_x[k * n + j];
  free(r->trace_x);
  r->trace_x = cm;
  return SGP_OK;
}

/* One progress line per evaluation (only built when it will be printed). */
static void say_eval(optim_run *R, int status, double value, double gradnorm)
{
  if (!R->ctx->verbose || !R->ctx->print) return;
  char line[512];
  size_t len = (size_t)snprintf(line, sizeof line, "%s: evaluation %lld (start %d): ",
                                R->o->task ? R->o->task : "optim", (long long)R->r->n_eval,
                                R->start);
  if (status == SGP_OK)
    len += (size_t)snprintf(line + len, sizeof line - len, "value %.10g, |grad| %.3g",
                            value, gradnorm);
  else
    len += (size_t)snprintf(line + len, sizeof line - len, "failed (%s)", R->r->last_failure);
  for (int i = 0; i < R->n && len < sizeof line; i++) {
    const double v = R->o->log_scale && R->o->log_scale[i] ? exp(R->xe[i]) : R->xe[i];
    if (R->o->names && R->o->names[i])
      len += (size_t)snprintf(line + len, sizeof line - len, ", %s %.6g", R->o->names[i], v);
    else
      len += (size_t)snprintf(line + len, sizeof line - len, ", x%d %.6g", i + 1, v);
  }
  sgp_say(R->ctx, "%s", line);
}

/* ------------------------------------------------------------ evaluation */

/* Calls f at xe; a non-finite value or gradient is a failed evaluation (its text
 * goes to ctx->errmsg). Returns f's status or SGP_EINVAL for non-finite output. */
static int call_objective(optim_run *R, double *value, double *gradnorm)
{
  sgp_ctx *ctx = R->ctx;
  ctx->errmsg[0] = '\0';
  int st = R->f(ctx, R->xe, value, R->g, R->data);
  if (st == SGP_EINTERRUPT) return st;
  if (st != SGP_OK) {
    if (ctx->errmsg[0] == '\0')
      sgp_fail(ctx, st, "f: failed with status %d (%s)", st, sgp_strerror(st));
    return st < 0 ? st : SGP_EINVAL;
  }
  if (!isfinite(*value))
    return sgp_fail(ctx, SGP_EINVAL, "f: the value is %g at evaluation %lld", *value,
                    (long long)R->r->n_eval + 1);
  double s = 0.0;
  for (int i = 0; i < R->n; i++) {
    if (!isfinite(R->g[i]))
      return sgp_fail(ctx, SGP_EINVAL, "f: gradient entry %d is %g at evaluation %lld", i + 1,
                      R->g[i], (long long)R->r->n_eval + 1);
    s += R->g[i] * R->g[i];
  }
  *gradnorm = sqrt(s);
  return SGP_OK;
}

/* The change of the path value from the start's best point to the evaluated one:
 * the trapezoid rule on the two gradients (exact for a quadratic objective). */
static double path_step(const optim_run *R)
{
  double dv = 0.0;
  for (int i = 0; i < R->n; i++) dv += 0.5 * (R->sg[i] + R->g[i]) * (R->xe[i] - R->sx[i]);
  return dv;
}

/* The path value at the evaluated point (f's own value there: value), within
 * PATH_BAND standard errors of value when f reports them. */
#define PATH_BAND 3.0
static double path_value(const optim_run *R, double value)
{
  const double pv = R->sval + path_step(R);
  if (!R->o->value_se) return pv;
  const double b = PATH_BAND * R->o->value_se(R->data);
  return isfinite(b) ? fmin(fmax(pv, value - b), value + b) : pv;
}

/* Evaluates f at x clamped to the box, records the row and updates the bests.
 * Returns SGP_OK, SGP_EINTERRUPT, SGP_ENOMEM (trace) or the failure's status. */
static int evaluate(optim_run *R, const double *x)
{
  const int n = R->n;
  sgp_optim_result *r = R->r;
  for (int i = 0; i < n; i++) R->xe[i] = fmin(fmax(x[i], R->lb[i]), R->ub[i]);
  double value = NAN, gradnorm = NAN;
  const int st = call_objective(R, &value, &gradnorm);
  if (st == SGP_EINTERRUPT) return st;
  if (trace_push(R, R->xe, st == SGP_OK ? value : NAN, st == SGP_OK ? gradnorm : NAN) != SGP_OK) {
    R->nomem = 1;
    return SGP_ENOMEM;
  }
  R->s_evals++;
  if (st != SGP_OK) {
    r->n_failed++;
    R->s_failed++;
    R->s_consec_failed++;
    R->last_status = st;
    copy_text(r->last_failure, sizeof r->last_failure, R->ctx->errmsg);
  } else {
    R->s_consec_failed = 0;
    R->fx = R->o->path_values && R->s_have ? path_value(R, value) : value;
    if (!R->s_have) R->sfirst = value;
    int improved = 0;
    const int first = !R->s_have;
    if (!R->s_have || R->fx > R->sval) {
      improved = R->s_have = 1;
      R->sval = R->fx;
      memcpy(R->sx, R->xe, (size_t)n * sizeof *R->sx);
      memcpy(R->sg, R->g, (size_t)n * sizeof *R->sg);
    }
    if (first) {
      const double se = R->o->ftol_se > 0 && R->o->value_se ? R->o->value_se(R->data) : 0.0;
      R->s_ftol = fmax(R->o->ftol_abs, R->o->ftol_se * (isfinite(se) ? se : 0.0));
    }
    if (first || R->sval > R->s_ref + R->s_ftol) {
      R->s_gained = !first;
      R->s_ref = R->sval;
      R->s_ref_eval = R->s_evals;
    }
    /* by path values: the start's best point, its own value against other starts' */
    const int best = R->o->path_values
      ? improved && (!R->have_best || r->best_start == R->start || value > r->value)
      : !R->have_best || value > r->value;
    if (best) {
      R->have_best = 1;
      r->value = value;
      r->best_start = R->start;
      r->best_eval = r->n_eval - 1;
      memcpy(r->x, R->xe, (size_t)n * sizeof *r->x);
      memcpy(r->grad, R->g, (size_t)n * sizeof *r->grad);
    }
  }
  say_eval(R, st, value, gradnorm);
  sgp_progress(R->ctx, R->o->task ? R->o->task : "optim",
               (double)r->n_eval / ((double)R->o->max_eval * (1.0 + R->o->restarts)));
  return st;
}

/* What NLopt (minimizing F = -f) sees at a point x that failed or was not
 * evaluated. Luksan's line search from a base (value F0, slope p0 < 0) fits a cubic
 * to the base and the trial (value F1, slope p1) and moves to its minimizer, kept
 * within [1/100, 9/10] of the interval (1/10 once its left end has moved). With the
 * start's best point (value Fa, f-gradient ga) as the base (the rule: the base is
 * the best point of the start but for a rare accepted step that is worse than an
 * earlier trial), d = ga.(x - xa) = -p0 * step, and F1 = Fa + A d, p1 = b p0 put the
 * cubic's minimizer at step / T when b = u - 3A - 2, u = (T^2 - 3A - 3) / (2T - 3).
 *  - F1 stays above the start's first value, hence above every base (the bases only
 *    decrease): the Armijo test fails and the penalty never becomes an iterate, nor
 *    enters the L-BFGS memory. F1 stays below 1e19 where it can (A <= 0.25 else),
 *    for from 1e20 on the line search only bisects.
 *  - T = 2 for the first 3 failures in a row (halving towards the border of a
 *    failing region), then 10, then 100: an overlong step along a steep gradient,
 *    even 1e11 times too long, is cut back within Luksan's 10 reductions.
 * Where d is not positive or A would be huge (a stale base), the gradient is
 * 100 ga instead: b = 100, and any A > 0 gives a cut by about 1/100. */
static double penalty(optim_run *R, const double *x, double *grad)
{
  const int n = R->n;
  if (!R->s_have) { /* nothing to go back to: the start ends (stop is set) */
    if (grad) memset(grad, 0, (size_t)n * sizeof *grad);
    return 1e19;
  }
  const double Fa = -R->sval, Ff = -R->sfirst;
  const double floor_ = fmax(Ff, Fa) + 1e-6 * (fabs(Ff) + 1.0);
  double d = 0.0;
  for (int i = 0; i < n; i++) d += R->sg[i] * (x[i] - R->sx[i]);
  double A = (floor_ - Fa) / d;
  if (!(d > 0.0 && isfinite(A) && A <= 1e6)) { /* the strong cut */
    if (grad) for (int i = 0; i < n; i++) grad[i] = -100.0 * R->sg[i];
    return floor_;
  }
  A = fmax(A, fmin(0.25, (1e19 - Fa) / d));
  const int k = R->s_consec_failed;
  const double T = k <= 3 ? 2.0 : k == 4 ? 10.0 : 100.0;
  const double b = (T * T - 3.0 * A - 3.0) / (2.0 * T - 3.0) - 3.0 * A - 2.0;
  if (grad) for (int i = 0; i < n; i++) grad[i] = -b * R->sg[i]; /* b times F's gradient */
  return Fa + A * d;
}

/* A trial point farther than max_log_step from the start's best point in a
 * log-scale coordinate. L-BFGS's first trial is the whole gradient step, clipped
 * to the box: with a gradient of ~1e3 (n = 20000) that is the box's corner (a
 * lengthscale 1000 times smaller), an evaluation as dear as any other that only
 * tells the line search to come back. Such a point gets the penalty instead, which
 * halves the step (see penalty) without an evaluation. */
static int beyond_step(const optim_run *R, const double *x)
{
  const double h = R->o->max_log_step;
  if (!R->s_have || !R->o->log_scale || !(h > 0.0)) return 0;
  for (int i = 0; i < R->n; i++)
    if (R->o->log_scale[i] && fabs(x[i] - R->sx[i]) > h) return 1;
  return 0;
}

/* x clamped to the box is finite (an unbounded coordinate may be proposed as +-Inf) */
static int finite_in_box(const optim_run *R, const double *x)
{
  for (int i = 0; i < R->n; i++)
    if (!isfinite(fmin(fmax(x[i], R->lb[i]), R->ub[i]))) return 0;
  return 1;
}

static void stop_start(optim_run *R, int why)
{
  R->stop = why;
  nlopt_force_stop(R->opt);
}

/* The objective NLopt minimizes: -f, or the penalty. Once the start is stopping,
 * nothing more is evaluated (Luksan's line search only checks the forced stop
 * between iterations, and may ask for a few more points). */
static double nlopt_objective(unsigned n, const double *x, double *grad, void *data)
{
  optim_run *R = data;
  (void)n;
  if (R->stop) return penalty(R, x, grad);
  if (R->s_evals >= R->o->max_eval) { stop_start(R, STOP_MAXEVAL); return penalty(R, x, grad); }
  if (sgp_poll_interrupt(R->ctx) != SGP_OK) { stop_start(R, STOP_INTERRUPT); return penalty(R, x, grad); }
  if (R->o->deadline > 0 && sgp_clock() >= R->o->deadline) {
    if (!R->have_best) copy_text(R->r->last_failure, sizeof R->r->last_failure,
                                 "the time limit was reached before the first evaluation");
    stop_start(R, STOP_TIME);
    return penalty(R, x, grad);
  }
  if (beyond_step(R, x) || !finite_in_box(R, x))
    return penalty(R, x, grad); /* cut back, not evaluated: each trace row is one call of f */
  const int st = evaluate(R, x);
  if (st == SGP_OK) {
    if (R->s_ftol > 0 && R->s_gained && R->s_evals - R->s_ref_eval >= FTOL_ABS_EVALS)
      stop_start(R, STOP_FTOL_ABS);
    if (grad) for (int i = 0; i < R->n; i++) grad[i] = -R->g[i];
    return -R->fx;
  }
  if (st == SGP_EINTERRUPT) stop_start(R, STOP_INTERRUPT);
  else if (R->nomem) stop_start(R, STOP_NOMEM);
  else if (!R->s_have) {
    copy_text(R->failure, sizeof R->failure, R->r->last_failure);
    stop_start(R, STOP_FIRST_FAILED);
  }
  return penalty(R, x, grad);
}

/* ------------------------------------------------------------ starts */

/* Why the start stopped, in words; *converged when by a tolerance. Errors only
 * for NLopt rejecting its arguments or running out of memory. */
static int describe_stop(optim_run *R, nlopt_result res, char *msg, size_t size, int *converged)
{
  const sgp_optim_opts *o = R->o;
  *converged = 0;
  if (R->nomem)
    return sgp_fail(R->ctx, SGP_ENOMEM, "optim: out of memory for the trace (%lld evaluations)",
                    (long long)R->r->n_eval);
  switch (R->stop) {
  case STOP_INTERRUPT: snprintf(msg, size, "interrupted"); return SGP_OK;
  case STOP_MAXEVAL: snprintf(msg, size, "max_eval (%d) evaluations reached", o->max_eval); return SGP_OK;
  case STOP_TIME: snprintf(msg, size, "the time limit was reached"); return SGP_OK;
  case STOP_FIRST_FAILED: snprintf(msg, size, "the starting point failed: %s", R->failure); return SGP_OK;
  case STOP_FTOL_ABS:
    *converged = 1;
    snprintf(msg, size, "the best value gained less than %.3g in %d evaluations", R->s_ftol,
             FTOL_ABS_EVALS);
    return SGP_OK;
  default: break;
  }
  switch (res) {
  case NLOPT_FTOL_REACHED:
    *converged = 1;
    if (o->ftol_abs > 0 && o->ftol_rel > 0)
      snprintf(msg, size, "change of the objective below %g (relative) or %g", o->ftol_rel,
               o->ftol_abs);
    else if (o->ftol_abs > 0)
      snprintf(msg, size, "change of the objective below %g", o->ftol_abs);
    else
      snprintf(msg, size, "relative change of the objective below %g", o->ftol_rel);
    break;
  case NLOPT_XTOL_REACHED:
    *converged = 1;
    snprintf(msg, size, "relative change of the parameters below its tolerance");
    break;
  case NLOPT_SUCCESS: /* Luksan's test max |projected gradient| <= 1e-8 */
    *converged = 1;
    snprintf(msg, size, "projected gradient below 1e-08");
    break;
  case NLOPT_MAXEVAL_REACHED:
    snprintf(msg, size, "max_eval (%d) evaluations reached", o->max_eval);
    break;
  case NLOPT_ROUNDOFF_LIMITED:
    snprintf(msg, size, "roundoff errors limited the progress (NLopt); the best point is kept");
    break;
  case NLOPT_FAILURE:
    if (R->s_failed > 0)
      snprintf(msg, size, "the line search failed after %lld failed evaluations in this start; "
               "the best point is kept", (long long)R->s_failed);
    else
      snprintf(msg, size, "the line search could not improve the objective (roundoff near "
               "an optimum, or an inexact gradient); the best point is kept");
    break;
  case NLOPT_INVALID_ARGS:
    return sgp_fail(R->ctx, SGP_EINVAL, "optim: NLopt rejected its arguments (n = %d)", R->n);
  case NLOPT_OUT_OF_MEMORY:
    return sgp_fail(R->ctx, SGP_ENOMEM, "optim: NLopt ran out of memory (n = %d, memory = %d)",
                    R->n, o->memory);
  default:
    snprintf(msg, size, "NLopt stopped (result code %d); the best point is kept", (int)res);
    break;
  }
  return SGP_OK;
}

/* One L-BFGS run from xs (overwritten by NLopt). */
static int run_start(optim_run *R, double *xs, char *msg, size_t size, int *converged)
{
  const sgp_optim_opts *o = R->o;
  R->opt = nlopt_create(NLOPT_LD_LBFGS, (unsigned)R->n);
  if (!R->opt) return sgp_fail(R->ctx, SGP_ENOMEM, "optim: NLopt could not create its optimizer");
  const int set_ok = nlopt_set_lower_bounds(R->opt, R->lb) > 0
    && nlopt_set_upper_bounds(R->opt, R->ub) > 0
    && nlopt_set_min_objective(R->opt, nlopt_objective, R) > 0
    && nlopt_set_ftol_rel(R->opt, o->ftol_rel) > 0
    && nlopt_set_ftol_abs(R->opt, o->ftol_abs) > 0
    /* NLopt counts the unevaluated cut-backs too (beyond_step); max_eval is
     * enforced on real evaluations in nlopt_objective */
    && nlopt_set_maxeval(R->opt, 4 * o->max_eval + 20) > 0
    && nlopt_set_vector_storage(R->opt, (unsigned)o->memory) > 0;
  if (!set_ok) {
    nlopt_destroy(R->opt);
    R->opt = NULL;
    return sgp_fail(R->ctx, SGP_EINVAL, "optim: NLopt rejected the settings (n = %d)", R->n);
  }
  R->s_have = 0;
  R->s_gained = 0;
  R->stop = STOP_NONE;
  R->s_evals = R->s_failed = 0;
  R->s_consec_failed = 0;
  R->failure[0] = '\0';
  double fmin = 0.0;
  const nlopt_result res = nlopt_optimize(R->opt, xs, &fmin);
  nlopt_destroy(R->opt);
  R->opt = NULL;
  return describe_stop(R, res, msg, size, converged);
}

/* Start s: x0, or x0 + restart_sd N(0,1) clamped to the box. The draws do not
 * depend on the evaluations, so every start point is fixed by the seed. */
static void start_point(optim_run *R, sgp_rng *rng, const double *x0, int s, double *xs)
{
  for (int i = 0; i < R->n; i++) {
    double v = x0[i];
    if (s > 0) v += R->o->restart_sd * sgp_rng_normal(rng);
    xs[i] = fmin(fmax(v, R->lb[i]), R->ub[i]);
  }
}

/* After all starts: an error when nothing succeeded, else the trace's final layout. */
static int finish(optim_run *R, int interrupted_at)
{
  sgp_optim_result *r = R->r;
  if (!R->have_best) {
    if (r->interrupted) {
      if (R->ctx->errmsg[0] == '\0') sgp_fail(R->ctx, SGP_EINTERRUPT, "interrupted by the user");
      return SGP_EINTERRUPT;
    }
    return sgp_fail(R->ctx, R->last_status < 0 ? R->last_status : SGP_EINVAL,
                    "%s", r->last_failure);
  }
  if (trace_finish(R) != SGP_OK)
    return sgp_fail(R->ctx, SGP_ENOMEM, "optim: out of memory for the trace (%lld evaluations)",
                    (long long)r->n_eval);
  if (r->interrupted && interrupted_at != r->best_start) {
    const size_t len = strlen(r->message);
    snprintf(r->message + len, sizeof r->message - len, "; interrupted during start %d",
             interrupted_at);
  }
  return SGP_OK;
}

int sgp_optim_maximize(sgp_ctx *ctx, int n, const double *x0, const double *lb, const double *ub,
                       sgp_objective f, void *data, const sgp_optim_opts *o, sgp_optim_result *r)
{
  const double t0 = sgp_clock(); /* the trace's clock */
  if (!r) return sgp_fail(ctx, SGP_EINVAL, "r: the result must not be NULL");
  memset(r, 0, sizeof *r);
  sgp_optim_opts od;
  if (!o) { sgp_optim_opts_default(&od); o = &od; }
  if (n < 1) return sgp_fail(ctx, SGP_EINVAL, "n: must be >= 1 (got %d)", n);
  if (!x0) return sgp_fail(ctx, SGP_EINVAL, "x0: must not be NULL");
  if (!f) return sgp_fail(ctx, SGP_EINVAL, "f: the objective must not be NULL");
  int st = check_opts(ctx, o);
  if (st == SGP_OK) st = check_point(ctx, n, x0, lb, ub, o);
  if (st != SGP_OK) return st;

  optim_run R;
  memset(&R, 0, sizeof R);
  R.ctx = ctx; R.n = n; R.f = f; R.data = data; R.o = o; R.r = r;
  double *work = sgp_alloc(7 * (int64_t)n);
  r->x = sgp_alloc(n);
  r->grad = sgp_alloc(n);
  if (!work || !r->x || !r->grad) {
    free(work);
    sgp_optim_result_free(r);
    return sgp_fail(ctx, SGP_ENOMEM, "optim: out of memory (n = %d)", n);
  }
  double *lbv = work, *ubv = work + n, *xs = work + 6 * n;
  R.xe = work + 2 * n; R.g = work + 3 * n; R.sx = work + 4 * n; R.sg = work + 5 * n;
  for (int i = 0; i < n; i++) {
    lbv[i] = lb ? lb[i] : -INFINITY;
    ubv[i] = ub ? ub[i] : INFINITY;
  }
  R.lb = lbv; R.ub = ubv;
  r->n = n;
  r->value = NAN;

  sgp_rng rng;
  sgp_rng_seed(&rng, o->seed);
  R.t0 = t0;
  int interrupted_at = -1;
  for (int s = 0; s <= o->restarts && st == SGP_OK; s++) {
    char msg[256];
    int conv = 0;
    R.start = s;
    start_point(&R, &rng, x0, s, xs);
    st = run_start(&R, xs, msg, sizeof msg, &conv);
    if (st != SGP_OK) break;
    if (R.have_best && r->best_start == s) {
      snprintf(r->message, sizeof r->message, "%s", msg);
      r->converged = conv;
    }
    if (R.stop == STOP_TIME) {
      r->timed_out = 1;
      break;
    }
    if (R.stop == STOP_INTERRUPT) {
      r->interrupted = 1;
      interrupted_at = s;
      break;
    }
  }
  if (st == SGP_OK) st = finish(&R, interrupted_at);
  free(work);
  if (st != SGP_OK) sgp_optim_result_free(r);
  return st;
}
