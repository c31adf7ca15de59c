/* test_optim.c -- the bounded L-BFGS maximizer (core/select/optim.c): known optima of
 * Rosenbrock and concave quadratics (free and on a bound), failed and non-finite
 * evaluations, the interrupt, seeded restarts, max_eval, the trace and bad arguments.
 *
 * Tolerances. NLopt's L-BFGS stops by ftol_rel (two iterations whose change of f is
 * at most ftol_rel |f|), by its gradient test (max |projected gradient| <= 1e-8) or
 * when its line search cannot improve f (roundoff). For a concave quadratic
 * f = f* - sum a_i d_i^2 with smallest curvature lam = min a_i, a gap f* - f <= df
 * means |d| <= sqrt(df / lam); L-BFGS converges superlinearly, so the gap at an
 * ftol stop is below the last change, taken here with a factor 100:
 * df = 100 ftol_rel |f*|. The gradient test gives |d| <= 1e-8 / (2 lam), far inside. */
#include "test_helpers.h"
#include "select/optim.h"

#include <stdio.h>
#include <stdlib.h>

static double quad_xtol(double ftol_rel, double fstar, double lam)
{
  return sqrt(100.0 * ftol_rel * fabs(fstar) / lam);
}

/* ------------------------------------------------------------ objectives */

static int neg_rosenbrock(sgp_ctx *ctx, const double *x, double *v, double *g, void *data)
{
  (void)ctx;
  if (data) ++*(int *)data;
  const double a = x[1] - x[0] * x[0], b = 1.0 - x[0];
  *v = -(100.0 * a * a + b * b);
  g[0] = 400.0 * a * x[0] + 2.0 * b;
  g[1] = -200.0 * a;
  return SGP_OK;
}

enum { FAIL_NONE, FAIL_NOTPD, FAIL_NAN_VALUE, FAIL_INF_GRAD, FAIL_EINTERRUPT };

/* f = f0 - sum a_i (x_i - c_i)^2, failing as `mode` says where x_1 > fail_above
 * (FAIL_EINTERRUPT: from call interrupt_after + 1 on). */
typedef struct {
  int n;
  double a[3], c[3], f0;
  int mode;
  double fail_above;
  int calls, interrupt_after;
} quad;

static int quad_eval(sgp_ctx *ctx, const double *x, double *v, double *g, void *data)
{
  quad *q = data;
  q->calls++;
  if (q->mode == FAIL_EINTERRUPT && q->calls > q->interrupt_after) return SGP_EINTERRUPT;
  if (q->mode == FAIL_NOTPD && x[0] > q->fail_above)
    return sgp_fail(ctx, SGP_ENOTPD, "K: not positive definite at x1 = %g", x[0]);
  double s = q->f0;
  for (int i = 0; i < q->n; i++) {
    const double d = x[i] - q->c[i];
    s -= q->a[i] * d * d;
    g[i] = -2.0 * q->a[i] * d;
  }
  *v = s;
  if (q->mode == FAIL_NAN_VALUE && x[0] > q->fail_above) *v = NAN;
  if (q->mode == FAIL_INF_GRAD && x[0] > q->fail_above) g[1] = INFINITY;
  return SGP_OK;
}

/* The quadratic of the failure tests: optimum (1, 2), f* = 3, lam = 1; from (0, 0)
 * the first trial step (the unit step along the gradient, (2, 8)) lands in x1 > 1.5. */
static quad failing_quad(int mode)
{
  quad q = {2, {1.0, 2.0, 0.0}, {1.0, 2.0, 0.0}, 3.0, mode, 1.5, 0, 0};
  return q;
}

/* f = -(x^2 - 4)^2 - x: a local maximum near x = 1.97 (f ~ -1.97) and the global
 * one near x = -2.03 (f > f(-2) = 2); the basins meet near x = 0.06. */
static int bimodal(sgp_ctx *ctx, const double *x, double *v, double *g, void *data)
{
  (void)ctx; (void)data;
  const double u = x[0] * x[0] - 4.0;
  *v = -u * u - x[0];
  g[0] = -4.0 * x[0] * u - 1.0;
  return SGP_OK;
}

typedef struct { int polls, fire_after; } interrupt_state;

static int interrupt_hook(void *user_data)
{
  interrupt_state *s = user_data;
  return s->polls++ >= s->fire_after;
}

/* ------------------------------------------------------------ checks */

/* The trace agrees with the result: the best row holds value and x, failed rows
 * (NaN) count n_failed, starts and times do not decrease; no row is above the best
 * one when the best point is the best by value (not with path values). */
static void assert_trace_rows(const sgp_optim_result *r, int best_by_value)
{
  const int64_t m = r->n_eval;
  assert_true(m >= 1);
  assert_true(r->best_eval >= 0 && r->best_eval < m);
  assert_memory_equal(&r->trace_value[r->best_eval], &r->value, sizeof(double));
  assert_int_equal(r->trace_start[r->best_eval], r->best_start);
  for (int j = 0; j < r->n; j++)
    assert_memory_equal(&r->trace_x[r->best_eval + j * m], &r->x[j], sizeof(double));
  assert_close(r->trace_gradnorm[r->best_eval], sgp_nrm2(r->n, r->grad),
               1e-14 * r->trace_gradnorm[r->best_eval] + 1e-300);
  int64_t failed = 0;
  for (int64_t k = 0; k < m; k++) {
    if (isnan(r->trace_value[k])) { failed++; assert_true(isnan(r->trace_gradnorm[k])); continue; }
    if (best_by_value) assert_true(r->trace_value[k] <= r->value);
    if (k > 0) {
      assert_true(r->trace_start[k] >= r->trace_start[k - 1]);
      assert_true(r->trace_seconds[k] >= r->trace_seconds[k - 1]);
    }
  }
  assert_int_equal(failed, r->n_failed);
}

static void assert_trace_consistent(const sgp_optim_result *r)
{
  assert_trace_rows(r, 1);
}

/* ------------------------------------------------------------ optima */

static void rosenbrock_unbounded_reaches_one_one(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.max_eval = 1000;
  o.ftol_rel = 1e-15;
  const double x0[2] = {-1.2, 1.0};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, NULL, &o, &r), SGP_OK);
  /* Near (1, 1) the Hessian of Rosenbrock has eigenvalues 1001.6 and 0.3994: the
   * gradient test (1e-8 per entry) leaves |d| <= sqrt(2) 1e-8 / 0.3994 = 3.5e-8, and
   * ftol_rel = 1e-15 cannot stop it earlier while f -> 0 superlinearly; there
   * -f <= lambda_max |d|^2 / 2 = 1001.6 (3.5e-8)^2 / 2 = 6.1e-13. */
  assert_close(r.x[0], 1.0, 1e-6);
  assert_close(r.x[1], 1.0, 1e-6);
  assert_true(r.value <= 0.0 && r.value > -1e-12);
  assert_int_equal(r.interrupted, 0);
  assert_int_equal(r.n_failed, 0);
  assert_string_equal(r.last_failure, "");
  assert_true(strlen(r.message) > 0);
  assert_true(r.n_eval <= o.max_eval);
  assert_trace_consistent(&r);
  sgp_optim_result_free(&r);
}

static void quadratic_with_active_bounds_ends_on_them(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.ftol_rel = 1e-12;
  /* Box [0, 1]^3; the unconstrained optimum (2, -1, 0.5) is outside in x1 and x2:
   * the solution is (1, 0, 0.5), f* = 10 - 1 - 4 = 5. */
  quad q = {3, {1.0, 4.0, 1.0}, {2.0, -1.0, 0.5}, 10.0, FAIL_NONE, 0.0, 0, 0};
  const double x0[3] = {0.3, 0.7, 0.9}, lb[3] = {0, 0, 0}, ub[3] = {1, 1, 1};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 3, x0, lb, ub, quad_eval, &q, &o, &r), SGP_OK);
  /* Bounds: Luksan's L-BFGS puts a coordinate within 1e-8 max(|bound|, 1) of its
   * bound on it, and the objective pushes it there. */
  assert_close(r.x[0], 1.0, 1e-8);
  assert_close(r.x[1], 0.0, 1e-8);
  assert_close(r.x[2], 0.5, quad_xtol(o.ftol_rel, 5.0, 1.0));
  /* The value: the free coordinate's gap (df above) plus the bound coordinates'
   * 1e-8 times their slopes there, 2 and 8. */
  assert_close(r.value, 5.0, 100.0 * o.ftol_rel * 5.0 + (2.0 + 8.0) * 1e-8);
  assert_int_equal(r.converged, 1);
  for (int64_t k = 0; k < r.n_eval; k++)
    for (int j = 0; j < 3; j++) {
      assert_true(r.trace_x[k + j * r.n_eval] >= lb[j]);
      assert_true(r.trace_x[k + j * r.n_eval] <= ub[j]);
    }
  assert_trace_consistent(&r);
  sgp_optim_result_free(&r);
}

/* A steep start: f = 10 - 500 (x1 - 2)^2 - (x2 - 0.5)^2 from (0, 0) in the box
 * [-20, 20]^2, both coordinates on the log scale. The first gradient step (x1 by
 * 2000) is clipped to the box's corner; with max_log_step = 3 no evaluated point
 * is more than 3 from the best point before it in a log coordinate, and the
 * optimum is still reached (tolerance as in the quadratics above). Without the
 * cap the second evaluation is at the corner. */
static void steep_start_is_cut_back_to_the_step_limit(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const unsigned char on_log[2] = {1, 1};
  const double x0[2] = {0.0, 0.0}, lb[2] = {-20, -20}, ub[2] = {20, 20};
  for (int capped = 0; capped <= 1; capped++) {
    sgp_optim_opts o;
    sgp_optim_opts_default(&o);
    o.log_scale = on_log;
    if (!capped) o.max_log_step = 0.0;
    quad q = {2, {500.0, 1.0, 0.0}, {2.0, 0.5, 0.0}, 10.0, FAIL_NONE, 0.0, 0, 0};
    sgp_optim_result r;
    assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, lb, ub, quad_eval, &q, &o, &r), SGP_OK);
    double best[2] = {x0[0], x0[1]}, bestv = -INFINITY, far = 0.0;
    for (int64_t k = 0; k < r.n_eval; k++) {
      const double x1 = r.trace_x[k], x2 = r.trace_x[k + r.n_eval];
      far = fmax(far, fmax(fabs(x1 - best[0]), fabs(x2 - best[1])));
      if (r.trace_value[k] > bestv) { bestv = r.trace_value[k]; best[0] = x1; best[1] = x2; }
    }
    if (capped) assert_true(far <= 3.0);
    else assert_true(far > 3.0);
    assert_close(r.x[0], 2.0, quad_xtol(o.ftol_rel, 10.0, 1.0));
    assert_close(r.x[1], 0.5, quad_xtol(o.ftol_rel, 10.0, 1.0));
    assert_int_equal(r.converged, 1);
    assert_trace_consistent(&r);
    sgp_optim_result_free(&r);
  }
}

/* ------------------------------------------------------------ failures */

static void failing_region_is_backed_out_of(int mode, const char *expected_text)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.ftol_rel = 1e-12;
  quad q = failing_quad(mode);
  const double x0[2] = {0.0, 0.0};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, quad_eval, &q, &o, &r), SGP_OK);
  const double tol = quad_xtol(o.ftol_rel, 3.0, 1.0);
  assert_close(r.x[0], 1.0, tol);
  assert_close(r.x[1], 2.0, tol);
  assert_true(r.n_failed > 0);
  assert_contains(r.last_failure, expected_text);
  assert_int_equal(r.interrupted, 0);
  assert_trace_consistent(&r);
  for (int64_t k = 0; k < r.n_eval; k++) /* only points in the region failed */
    assert_int_equal(!!isnan(r.trace_value[k]), r.trace_x[k] > q.fail_above);
  sgp_optim_result_free(&r);
}

static void failed_evaluations_backtrack_to_the_optimum(void **state)
{
  (void)state;
  failing_region_is_backed_out_of(FAIL_NOTPD, "K: not positive definite at x1 = ");
}

static void nan_value_backtracks_to_the_optimum(void **state)
{
  (void)state;
  failing_region_is_backed_out_of(FAIL_NAN_VALUE, "f: the value is nan");
}

static void infinite_gradient_backtracks_to_the_optimum(void **state)
{
  (void)state;
  failing_region_is_backed_out_of(FAIL_INF_GRAD, "f: gradient entry 2 is inf");
}

/* f = 3 - 1e11 (x - 1)^2 failing for x > 10: the first trial step (the unit step
 * along the gradient 2e11) lands at 2e11, ten orders beyond the failing border,
 * where a penalty of 1e20 or more would leave Luksan's line search only bisecting
 * (10 halvings per line search). */
static void steep_gradient_into_a_failing_region_is_cut_back(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.ftol_rel = 1e-12;
  quad q = {1, {1e11, 0, 0}, {1.0, 0, 0}, 3.0, FAIL_NOTPD, 10.0, 0, 0};
  const double x0 = 0.0;
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 1, &x0, NULL, NULL, quad_eval, &q, &o, &r), SGP_OK);
  assert_close(r.x[0], 1.0, quad_xtol(o.ftol_rel, 3.0, 1e11));
  assert_true(r.n_failed > 0);
  /* The penalty's cuts (optim.c): the first trial 2e11 (the unit step along the
   * gradient 2e11), then 1/2, 1/2, 1/2 of it, then 1/10 and 1/100 of the last
   * trial, each exact for the cubic up to roundoff of its coefficients. */
  const double expect[7] = {0.0, 2e11, 1e11, 5e10, 2.5e10, 2.5e9, 2.5e7};
  for (int k = 0; k < 7; k++) assert_close(r.trace_x[k], expect[k], 1e-10 * expect[k]);
  assert_int_equal(r.converged, 1);
  assert_trace_consistent(&r);
  sgp_optim_result_free(&r);
}

/* f = 3 - (x - 1)^2 failing for x > 0.9: the supremum lies on the failing border,
 * so the line search eventually fails (NLOPT_FAILURE); the best point is kept. */
static void optimum_beyond_a_failing_border_keeps_the_best_point(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.ftol_rel = 0.0;
  o.max_eval = 500;
  quad q = {1, {1.0, 0, 0}, {1.0, 0, 0}, 3.0, FAIL_NOTPD, 0.9, 0, 0};
  const double x0 = 0.0;
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 1, &x0, NULL, NULL, quad_eval, &q, &o, &r), SGP_OK);
  assert_int_equal(r.converged, 0);
  assert_true(r.n_failed > 0);
  assert_true(r.x[0] <= 0.9 && r.x[0] >= 0.5);
  /* The first line search: the unit step along the gradient 2 to x = 2, then
   * halved twice (optim.c's penalty) to 1 and 0.5, which succeeds. */
  assert_close(r.trace_x[1], 2.0, 1e-12);
  assert_close(r.trace_x[2], 1.0, 1e-12);
  assert_close(r.trace_x[3], 0.5, 1e-12);
  assert_false(isnan(r.trace_value[3]));
  assert_true(strstr(r.message, "line search") || strstr(r.message, "max_eval"));
  assert_trace_consistent(&r);
  sgp_optim_result_free(&r);
}

/* x0 in the failing region: the first start ends at its first point, a random
 * start outside the region finds the optimum. */
static void failing_first_start_leaves_the_restarts(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.ftol_rel = 1e-12;
  o.restarts = 4;
  quad q = failing_quad(FAIL_NOTPD);
  const double x0[2] = {2.0, 0.0};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, quad_eval, &q, &o, &r), SGP_OK);
  assert_true(isnan(r.trace_value[0]));
  assert_int_equal(r.trace_start[1], 1); /* start 0 made one (failed) evaluation */
  assert_true(r.best_start > 0);
  const double tol = quad_xtol(o.ftol_rel, 3.0, 1.0);
  assert_close(r.x[0], 1.0, tol);
  assert_close(r.x[1], 2.0, tol);
  assert_trace_consistent(&r);
  sgp_optim_result_free(&r);
}

static void no_successful_evaluation_is_an_error(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.restarts = 2;
  quad q = failing_quad(FAIL_NOTPD);
  q.fail_above = -1e300; /* fails everywhere */
  const double x0[2] = {0.0, 0.0};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, quad_eval, &q, &o, &r), SGP_ENOTPD);
  assert_contains(ctx.errmsg, "K: not positive definite at x1 = ");
  assert_int_equal(r.n_eval, 3); /* each start ends at its failed first point */
  assert_int_equal(r.n_failed, 3);
  assert_null(r.x);
  assert_null(r.trace_value);
  sgp_optim_result_free(&r);
}

/* ------------------------------------------------------------ interrupt */

static void interrupt_hook_returns_the_best_so_far(void **state)
{
  (void)state;
  for (int k = 1; k <= 9; k += 4) {
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    interrupt_state is = {0, k};
    ctx.interrupt = interrupt_hook;
    ctx.user_data = &is;
    sgp_optim_opts o;
    sgp_optim_opts_default(&o);
    o.restarts = 2;
    int calls = 0;
    const double x0[2] = {-1.2, 1.0};
    sgp_optim_result r;
    assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, &calls, &o, &r),
                     SGP_OK);
    assert_int_equal(r.interrupted, 1);
    assert_int_equal(r.converged, 0);
    assert_int_equal(r.n_eval, k);
    assert_int_equal(calls, k);
    assert_int_equal(r.trace_start[k - 1], 0); /* no further start */
    double best = -INFINITY;
    for (int64_t i = 0; i < r.n_eval; i++) best = fmax(best, r.trace_value[i]);
    assert_memory_equal(&best, &r.value, sizeof best);
    assert_string_equal(r.message, "interrupted");
    assert_trace_consistent(&r);
    sgp_optim_result_free(&r);
  }
}

static void objective_interrupt_returns_the_best_so_far(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  quad q = failing_quad(FAIL_EINTERRUPT);
  q.interrupt_after = 4;
  const double x0[2] = {0.0, 0.0};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, quad_eval, &q, &o, &r), SGP_OK);
  assert_int_equal(r.interrupted, 1);
  assert_int_equal(r.n_eval, 4); /* the interrupted call is no evaluation */
  assert_int_equal(q.calls, 5);
  assert_trace_consistent(&r);
  sgp_optim_result_free(&r);
}

/* Interrupted in start 1 after start 0 used its 5 evaluations: the message of the
 * best start says where the interrupt came. */
static void interrupt_in_a_later_start_is_reported(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  interrupt_state is = {0, 7};
  ctx.interrupt = interrupt_hook;
  ctx.user_data = &is;
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.max_eval = 5;
  o.restarts = 3;
  quad q = failing_quad(FAIL_NONE);
  const double x0[2] = {0.0, 0.0};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, quad_eval, &q, &o, &r), SGP_OK);
  assert_int_equal(r.interrupted, 1);
  assert_int_equal(r.n_eval, 7);
  assert_int_equal(r.trace_start[6], 1);
  assert_contains(r.message, "interrupted");
  assert_trace_consistent(&r);
  sgp_optim_result_free(&r);
}

static void interrupt_before_any_evaluation_is_an_error(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  interrupt_state is = {0, 0};
  ctx.interrupt = interrupt_hook;
  ctx.user_data = &is;
  const double x0[2] = {-1.2, 1.0};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, NULL, NULL, &r),
                   SGP_EINTERRUPT);
  assert_int_equal(r.n_eval, 0);
  assert_null(r.x);
  sgp_optim_result_free(&r);
}

/* ------------------------------------------------------------ the deadline */

/* Rosenbrock that spends 2 ms of wall time per evaluation. */
static int slow_rosenbrock(sgp_ctx *ctx, const double *x, double *v, double *g, void *data)
{
  const double until = sgp_clock() + 2e-3;
  while (sgp_clock() < until) {}
  return neg_rosenbrock(ctx, x, v, g, data);
}

/* 3 starts of up to 1000 evaluations would take at least 6 s; a deadline 0.1 s
 * away ends the first start at the first evaluation after it, skips the
 * restarts, and the result says it timed out and did not converge. */
static void deadline_ends_the_starts(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.max_eval = 1000;
  o.ftol_rel = 1e-15;
  o.restarts = 2;
  const double x0[2] = {-1.2, 1.0};
  int evals = 0;
  o.deadline = sgp_clock() + 0.1;
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, slow_rosenbrock, &evals, &o, &r),
                   SGP_OK);
  assert_true(sgp_clock() >= o.deadline);
  assert_int_equal(r.timed_out, 1);
  assert_int_equal(r.converged, 0);
  assert_int_equal(r.best_start, 0);
  assert_string_equal(r.message, "the time limit was reached");
  assert_true(r.n_eval >= 1 && r.n_eval < 1000);
  assert_int_equal(evals, (int)r.n_eval);
  sgp_optim_result_free(&r);
}

static void deadline_before_any_evaluation_is_an_error(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.deadline = sgp_clock() - 1.0;
  const double x0[2] = {-1.2, 1.0};
  int evals = 0;
  sgp_optim_result r;
  assert_true(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, &evals, &o, &r) < 0);
  assert_int_equal(evals, 0);
  assert_int_equal(r.n_eval, 0);
  assert_string_equal(ctx.errmsg, "the time limit was reached before the first evaluation");
  sgp_optim_result_free(&r);
}

/* ------------------------------------------------------------ restarts, max_eval */

static void run_bimodal(uint64_t seed, sgp_optim_result *r)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.restarts = 8;
  o.restart_sd = 3.0;
  o.seed = seed;
  const double x0 = 2.0;
  assert_int_equal(sgp_optim_maximize(&ctx, 1, &x0, NULL, NULL, bimodal, NULL, &o, r), SGP_OK);
}

static void restarts_are_reproducible_and_the_best_start_wins(void **state)
{
  (void)state;
  sgp_optim_result a, b, c;
  run_bimodal(7, &a);
  run_bimodal(7, &b);
  run_bimodal(8, &c);
  assert_int_equal(a.n_eval, b.n_eval);
  const size_t m = (size_t)a.n_eval;
  assert_memory_equal(a.trace_x, b.trace_x, m * sizeof(double));
  assert_memory_equal(a.trace_value, b.trace_value, m * sizeof(double));
  assert_memory_equal(a.trace_start, b.trace_start, m * sizeof(int));
  assert_memory_equal(a.x, b.x, sizeof(double));
  assert_memory_equal(&a.value, &b.value, sizeof(double));
  assert_true(c.n_eval != a.n_eval || memcmp(c.trace_x, a.trace_x, m * sizeof(double)) != 0);
  /* The first start (x0 = 2) climbs to the local maximum (f < -1.9); with seed 7
   * some start begins left of the basins' border (0.06), whose climb reaches the
   * global maximum, f > 2 = f(-2). */
  int left = 0;
  double first_local = -INFINITY;
  for (int64_t k = 0; k < a.n_eval; k++) {
    if (a.trace_start[k] == 0) first_local = fmax(first_local, a.trace_value[k]);
    if (k > 0 && a.trace_start[k] != a.trace_start[k - 1] && a.trace_x[k] < 0.0) left = 1;
  }
  assert_true(left);
  assert_true(first_local < -1.9);
  assert_true(a.value > 2.0);
  assert_true(a.x[0] < -2.0 && a.x[0] > -2.1);
  assert_true(a.best_start > 0);
  assert_int_equal(a.trace_start[a.n_eval - 1], 8);
  assert_trace_consistent(&a);
  assert_trace_consistent(&c);
  sgp_optim_result_free(&a);
  sgp_optim_result_free(&b);
  sgp_optim_result_free(&c);
}

static void max_eval_is_respected_per_start(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  o.max_eval = 5;
  o.restarts = 3;
  o.restart_sd = 0.5;
  const double x0[2] = {-1.2, 1.0};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, NULL, &o, &r), SGP_OK);
  assert_true(r.n_eval <= (int64_t)o.max_eval * (1 + o.restarts));
  int per_start[4] = {0, 0, 0, 0};
  for (int64_t k = 0; k < r.n_eval; k++) per_start[r.trace_start[k]]++;
  for (int s = 0; s < 4; s++) assert_true(per_start[s] >= 1 && per_start[s] <= o.max_eval);
  assert_int_equal(r.converged, 0);
  assert_string_equal(r.message, "max_eval (5) evaluations reached");
  assert_trace_consistent(&r);
  sgp_optim_result_free(&r);
}

/* ------------------------------------------------------------ progress, arguments */

typedef struct { int lines; char first[512]; } printed;

static void print_hook(void *user_data, const char *msg)
{
  printed *p = user_data;
  if (p->lines++ == 0) snprintf(p->first, sizeof p->first, "%s", msg);
}

static void verbose_prints_one_line_per_evaluation(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  printed p = {0, ""};
  ctx.verbose = 1;
  ctx.print = print_hook;
  ctx.user_data = &p;
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  const char *const names[2] = {"log_ell", "log_s2"};
  o.names = names;
  o.task = "test: learning";
  const double x0[2] = {-1.2, 1.0};
  sgp_optim_result r;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, NULL, &o, &r), SGP_OK);
  assert_int_equal(p.lines, r.n_eval);
  assert_contains(p.first, "test: learning: evaluation 1 (start 0): value -24.2");
  assert_contains(p.first, "log_ell -1.2, log_s2 1");
  sgp_optim_result_free(&r);
}

static void expect_einval(int n, const double *x0, const double *lb, const double *ub,
                          sgp_objective f, const sgp_optim_opts *o, const char *text)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_optim_result r;
  memset(&r, 0x5A, sizeof r);
  assert_int_equal(sgp_optim_maximize(&ctx, n, x0, lb, ub, f, NULL, o, &r), SGP_EINVAL);
  assert_contains(ctx.errmsg, text);
  assert_null(r.x);
  assert_int_equal(r.n_eval, 0);
  sgp_optim_result_free(&r);
}

static void bad_arguments_are_einval(void **state)
{
  (void)state;
  const double x0[2] = {0.5, 0.5}, lb[2] = {0, 0}, ub[2] = {1, 1};
  const double out[2] = {0.5, 1.5}, nan_x[2] = {NAN, 0.0}, lb_high[2] = {0, 2};
  expect_einval(0, x0, NULL, NULL, neg_rosenbrock, NULL, "n: must be >= 1 (got 0)");
  expect_einval(2, NULL, NULL, NULL, neg_rosenbrock, NULL, "x0:");
  expect_einval(2, x0, NULL, NULL, NULL, NULL, "f:");
  expect_einval(2, out, lb, ub, neg_rosenbrock, NULL, "x0: coordinate 2 = 1.5 is outside its bounds [0, 1]");
  expect_einval(2, nan_x, NULL, NULL, neg_rosenbrock, NULL, "x0: coordinate 1 must be finite");
  expect_einval(2, x0, lb_high, ub, neg_rosenbrock, NULL, "lb: the bound of coordinate 2 is above ub");
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  const char *const names[2] = {"ell", "s2"};
  o.names = names;
  expect_einval(2, out, lb, ub, neg_rosenbrock, &o, "x0: 's2' = 1.5 is outside its bounds");
  o.max_eval = 0;
  expect_einval(2, x0, NULL, NULL, neg_rosenbrock, &o, "max_eval:");
  sgp_optim_opts_default(&o);
  o.restart_sd = -1.0;
  expect_einval(2, x0, NULL, NULL, neg_rosenbrock, &o, "restart_sd:");
  sgp_optim_opts_default(&o);
  o.ftol_rel = NAN;
  expect_einval(2, x0, NULL, NULL, neg_rosenbrock, &o, "ftol_rel:");
  sgp_optim_opts_default(&o);
  o.restarts = -1;
  expect_einval(2, x0, NULL, NULL, neg_rosenbrock, &o, "restarts:");
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, NULL, NULL, NULL),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "r:");
  sgp_optim_result zero;
  memset(&zero, 0, sizeof zero);
  sgp_optim_result_free(&zero); /* safe on a zeroed result */
}

/* From Rosenbrock's (-1.2, 1) (f = -24.2): rr the run with only a relative
 * 1e-12 test, ra the run with o and no relative test (o->ftol_rel set to 0);
 * then o with *bad (one of its fields) at -1 is refused naming it. */
static void rosenbrock_gain_runs(sgp_optim_opts *o, double *bad, const char *name,
                                 sgp_optim_result *ra, sgp_optim_result *rr)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const double x0[2] = {-1.2, 1.0};
  sgp_optim_opts ref;
  sgp_optim_opts_default(&ref);
  ref.ftol_rel = 1e-12;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, NULL, &ref, rr),
                   SGP_OK);
  o->ftol_rel = 0.0;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, NULL, o, ra),
                   SGP_OK);
  if (getenv("TEST_VERBOSE"))
    print_message("%s: %lld evaluations (%s); ftol_rel 1e-12: %lld\n", name,
                  (long long)ra->n_eval, ra->message, (long long)rr->n_eval);
  const double keep = *bad;
  sgp_optim_result r;
  *bad = -1.0;
  assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, neg_rosenbrock, NULL, o, &r),
                   SGP_EINVAL);
  assert_non_null(strstr(ctx.errmsg, name));
  *bad = keep;
}

/* ftol_abs stops a start on an absolute change of the objective: along
 * Rosenbrock's curved valley the run with ftol_abs = 0.01 and no relative
 * test stops before the run with a relative 1e-12, says why, counts as
 * converged and is not below its start. */
static void absolute_change_stops_a_start(void **state)
{
  (void)state;
  sgp_optim_opts o;
  sgp_optim_result ra, rr;
  sgp_optim_opts_default(&o);
  o.ftol_abs = 0.01;
  rosenbrock_gain_runs(&o, &o.ftol_abs, "ftol_abs", &ra, &rr);
  assert_true(ra.converged);
  assert_string_equal(ra.message, "change of the objective below 0.01");
  assert_true(ra.n_eval < rr.n_eval);
  assert_true(ra.value >= ra.trace_value[0]);
  sgp_optim_result_free(&ra);
  sgp_optim_result_free(&rr);
}

/* ftol_se: the gain threshold is ftol_se times the standard error value_se
 * reports at each start's first point (here a constant 0.02, so 0.5 x 0.02 =
 * 0.01) when that exceeds ftol_abs (here 0): optim's own test, not NLopt's,
 * stops the start, earlier than the relative 1e-12. */
static double const_se(void *data)
{
  (void)data;
  return 0.02;
}

static void standard_error_scales_the_gain_stop(void **state)
{
  (void)state;
  sgp_optim_opts o;
  sgp_optim_result ra, rr;
  sgp_optim_opts_default(&o);
  o.ftol_se = 0.5;
  o.value_se = const_se;
  rosenbrock_gain_runs(&o, &o.ftol_se, "ftol_se", &ra, &rr);
  assert_true(ra.converged);
  assert_string_equal(ra.message, "the best value gained less than 0.01 in 3 evaluations");
  assert_true(ra.n_eval < rr.n_eval);
  /* the stop: 3 evaluations after the best last rose by 0.01 */
  int64_t last_gain = 0;
  double ref = ra.trace_value[0];
  for (int64_t k = 1; k < ra.n_eval; k++)
    if (ra.trace_value[k] > ref + 0.01) { ref = ra.trace_value[k]; last_gain = k; }
  assert_int_equal(ra.n_eval - 1 - last_gain, 3);
  sgp_optim_result_free(&ra);
  sgp_optim_result_free(&rr);
}

static void defaults_are_documented(void **state)
{
  (void)state;
  sgp_optim_opts o;
  sgp_optim_opts_default(&o);
  assert_int_equal(o.max_eval, 100);
  assert_true(o.ftol_rel == 1e-6 && o.ftol_abs == 0.0 && o.ftol_se == 0.0);
  assert_int_equal(o.restarts, 0);
  assert_true(o.restart_sd == 1.0);
  assert_int_equal(o.seed, 1);
  assert_string_equal(o.task, "optim");
  assert_null(o.names);
  assert_int_equal(o.memory, 10);
}

/* An estimated objective whose value is biased by a term its gradient lacks (the
 * stochastic evidence: an SLQ value and a Hutchinson gradient that agree only in
 * expectation): value f + 4 sin(3 x1) with the gradient of the quadratic f =
 * 3 - (x1 - 1)^2 - 2 (x2 - 2)^2 alone. */
static int biased_value(sgp_ctx *ctx, const double *x, double *v, double *g, void *data)
{
  const int st = quad_eval(ctx, x, v, g, data);
  *v += 4.0 * sin(3.0 * x[0]);
  return st;
}

static double zero_se(void *data)
{
  (void)data;
  return 0.0;
}

static void path_values_follow_the_gradient_past_a_biased_value(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const double x0[2] = {-1.0, 0.5};
  sgp_optim_result r[3];
  for (int path = 0; path <= 2; path++) {
    sgp_optim_opts o;
    sgp_optim_opts_default(&o);
    o.path_values = path > 0;
    if (path == 2) o.value_se = zero_se; /* path values kept at the values themselves */
    quad q = failing_quad(FAIL_NONE);
    assert_int_equal(sgp_optim_maximize(&ctx, 2, x0, NULL, NULL, biased_value, &q, &o, &r[path]),
                     SGP_OK);
    assert_trace_rows(&r[path], path != 1);
  }
  /* The path values are f's own differences plus the start's bias (trapezoid rule,
   * exact on a quadratic), so L-BFGS runs as on f, whose maximizer (1, 2) it finds
   * to the ftol bound of the header with |f*| + 4 for the values' offset. */
  const double tol = quad_xtol(1e-6, 3.0 + 4.0, 1.0);
  assert_close(r[1].x[0], 1.0, tol);
  assert_close(r[1].x[1], 2.0, tol);
  assert_int_equal(r[1].converged, 1);
  /* the reported value is the objective's own at that point, not a path value */
  quad q = failing_quad(FAIL_NONE);
  double v, g[2];
  biased_value(&ctx, r[1].x, &v, g, &q);
  assert_true(r[1].value == v);
  assert_true(r[1].value == r[1].trace_value[r[1].best_eval]);
  /* the contrast: on the biased values themselves the line searches meet a slope
   * the gradient does not have, and the run stops short of (1, 2), unconverged
   * (at (0.71, 2.10) here) */
  assert_int_equal(r[0].converged, 0);
  assert_true(fabs(r[0].x[0] - 1.0) > tol || fabs(r[0].x[1] - 2.0) > tol);
  /* values with a standard error of 0 leave no room to the path: the same run */
  assert_int_equal(r[2].n_eval, r[0].n_eval);
  assert_memory_equal(r[2].trace_x, r[0].trace_x, (size_t)(2 * r[0].n_eval) * sizeof(double));
  for (int k = 0; k < 3; k++) sgp_optim_result_free(&r[k]);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(absolute_change_stops_a_start),
    cmocka_unit_test(standard_error_scales_the_gain_stop),
    cmocka_unit_test(defaults_are_documented),
    cmocka_unit_test(rosenbrock_unbounded_reaches_one_one),
    cmocka_unit_test(quadratic_with_active_bounds_ends_on_them),
    cmocka_unit_test(steep_start_is_cut_back_to_the_step_limit),
    cmocka_unit_test(failed_evaluations_backtrack_to_the_optimum),
    cmocka_unit_test(nan_value_backtracks_to_the_optimum),
    cmocka_unit_test(infinite_gradient_backtracks_to_the_optimum),
    cmocka_unit_test(steep_gradient_into_a_failing_region_is_cut_back),
    cmocka_unit_test(optimum_beyond_a_failing_border_keeps_the_best_point),
    cmocka_unit_test(failing_first_start_leaves_the_restarts),
    cmocka_unit_test(no_successful_evaluation_is_an_error),
    cmocka_unit_test(interrupt_hook_returns_the_best_so_far),
    cmocka_unit_test(objective_interrupt_returns_the_best_so_far),
    cmocka_unit_test(interrupt_in_a_later_start_is_reported),
    cmocka_unit_test(interrupt_before_any_evaluation_is_an_error),
    cmocka_unit_test(deadline_ends_the_starts),
    cmocka_unit_test(deadline_before_any_evaluation_is_an_error),
    cmocka_unit_test(restarts_are_reproducible_and_the_best_start_wins),
    cmocka_unit_test(max_eval_is_respected_per_start),
    cmocka_unit_test(verbose_prints_one_line_per_evaluation),
    cmocka_unit_test(bad_arguments_are_einval),
    cmocka_unit_test(path_values_follow_the_gradient_past_a_biased_value),
  };
  return cmocka_run_group_tests_name("optim", tests, NULL, NULL);
}
