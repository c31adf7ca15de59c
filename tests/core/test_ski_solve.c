/* test_ski_solve.c -- ski_gsgp posterior mean solvers (docs/ski_gsgp.md,
 * "The statistics and the factorized solves") on problem P2 of test_helpers.h (d = 2, grid 12 x 10, h = 0.25,
 * RBF ell = (0.6, 0.8), s = 1.3, noise 0.5, n = 400):
 *  - SKI CG (A1) and EFCG (A3) run to a tight tolerance give the mean cache
 *    a = K_G W' A^{-1} y of the dense SKI GP (A = W K_G W' + noise I built in
 *    the test from a dense W and a dense K_G, naive Cholesky), and test means
 *    W* a equal the dense W* K_G W' A^{-1} y;
 *  - EFCG reproduces the SKI CG iterates for the first 8 iterations (alpha,
 *    beta, residual norms, x_k = W xhat + c_x y);
 *  - with the default tol = 0.01 both stop with relative residual <= 0.01;
 *  - the SKI operator against the dense A (products and diagonal);
 *  - bad inputs and interrupts. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>

static double err_cg = 0, err_efcg = 0, err_mean_cg = 0, err_mean_efcg = 0, err_iter = 0,
              err_x = 0, err_op = 0;
static int it_cg_tight = 0, it_efcg_tight = 0, it_cg_def = 0, it_efcg_def = 0;
static double res_cg_def = 0, res_efcg_def = 0, err_def = 0;
static double err_sefcg = 0, sefcg_r0 = 0, err_iter4 = 0, err_x4 = 0, err_sefcg_cov = 0;
static int it_sefcg_def = 0, it_sefcg_tight = 0;

typedef th_ski_p2 problem;

static int setup(void **state)
{
  *state = th_ski_p2_new();
  return 0;
}

static int report(void **state)
{
  (void)state;
  printf("ski solve (P2, n = 400, m = 120): tol 1e-11: weights vs dense SKI GP rel err "
         "CG %.2e (%d it), EFCG %.2e (%d it); test means CG %.2e, EFCG %.2e; first 8 "
         "iterates EFCG vs CG: coefficients/residuals %.2e, x_k %.2e; SKI op vs dense %.2e; "
         "tol 0.01: CG %d it (res %.4f), EFCG %d it (res %.4f), max weights rel err %.2e\n", err_cg, it_cg_tight,
         err_efcg, it_efcg_tight, err_mean_cg, err_mean_efcg, err_iter, err_x, err_op,
         it_cg_def, res_cg_def, it_efcg_def, res_efcg_def, err_def);
  printf("ski sEFCG: mean (x0 = y/noise) vs dense %.2e (%d it at tol 1e-11; %d it at tol "
         "0.01, ||r0||/||y|| = %.3g); span-W rhs vs CG first 8 iterates %.2e, x_k/W'x_k %.2e; "
         "W'A^-1 b vs dense %.2e\n", err_sefcg, it_sefcg_tight, it_sefcg_def, sefcg_r0,
         err_iter4, err_x4, err_sefcg_cov);
  return 0;
}

static int teardown(void **state)
{
  report(state);
  th_ski_p2_free((th_ski_p2 *)*state);
  return 0;
}

/* The SKI operator equals the dense A (products and diagonal). */
static void ski_operator_matches_dense(void **state)
{
  problem *p = (problem *)*state;
  const int64_t n = p->n, b = 3;
  sgp_rng rng;
  sgp_rng_seed(&rng, 9);
  double *V = th_zeros(n * b), *Y = th_zeros(n * b), *Yref = th_zeros(n * b), *dg = th_zeros(n);
  th_randn(&rng, n * b, V, 1.0, 0.0);
  th_matmul(n, b, n, p->A, V, Yref);
  assert_int_equal(p->ski.apply(&p->ski, sgp_cmat_of(V, n, b), sgp_mat_of(Y, n, b), &p->ctx),
                   SGP_OK);
  err_op = th_rel_max(n * b, Y, Yref);
  assert_le(err_op, 1e-12);
  assert_int_equal(p->ski.diag(&p->ski, sgp_mat_of(dg, n, 1), &p->ctx), SGP_OK);
  for (int64_t i = 0; i < n; i++) assert_close(dg[i], p->A[i + i * n], 1e-12);
  free(V); free(Y); free(Yref); free(dg);
}

/* Tight tolerance: both solvers give the dense SKI mean cache and test means. */
static void solvers_match_dense_ski_gp(void **state)
{
  problem *p = (problem *)*state;
  const int64_t m = p->m, nt = p->nt;
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  assert_close(o.tol, 0.01, 0);
  assert_int_equal(o.max_iter, 1000);
  o.tol = 1e-11;
  double *a1 = th_zeros(m), *a3 = th_zeros(m), *mu = th_zeros(nt);
  double *hist = th_zeros(o.max_iter + 1);
  sgp_ski_solve_info info;
  int code = sgp_ski_mean_cg(&p->ctx, &p->ski, sgp_cmat_of(p->y, p->n, 1), &o, a1, NULL,
                             &info, hist, NULL, NULL);
  if (code) fail_msg("mean_cg: %s", p->ctx.errmsg);
  assert_true(info.converged);
  assert_le(info.rel_residual, o.tol);
  assert_close(hist[info.iterations], info.rel_residual, 0);
  assert_close(hist[0], 1.0, 0);
  it_cg_tight = (int)info.iterations;
  err_cg = th_rel_max(m, a1, p->a_ref);
  assert_le(err_cg, 1e-9);
  code = sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a3, NULL, NULL, &info, hist,
                           NULL, NULL);
  if (code) fail_msg("mean_efcg: %s", p->ctx.errmsg);
  assert_true(info.converged);
  assert_le(info.rel_residual, o.tol);
  it_efcg_tight = (int)info.iterations;
  err_efcg = th_rel_max(m, a3, p->a_ref);
  assert_le(err_efcg, 1e-9);
  /* predictive means at the test points */
  assert_int_equal(sgp_ski_predict_mean(&p->ctx, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                        sgp_cmat_of(p->Xt, nt, 2), a1, mu), SGP_OK);
  err_mean_cg = th_rel_max(nt, mu, p->mean_ref);
  assert_le(err_mean_cg, 1e-8);
  assert_int_equal(sgp_ski_predict_mean(&p->ctx, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                        sgp_cmat_of(p->Xt, nt, 2), a3, mu), SGP_OK);
  err_mean_efcg = th_rel_max(nt, mu, p->mean_ref);
  assert_le(err_mean_efcg, 1e-8);
  free(a1); free(a3); free(mu); free(hist);
}

/* EFCG = SKI CG in the first 8 iterations (the same iterates in exact arithmetic). */
static void efcg_reproduces_cg_iterates(void **state)
{
  problem *p = (problem *)*state;
  const int64_t n = p->n, m = p->m;
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  o.tol = 0.0;
  double *a = th_zeros(m), *x = th_zeros(n), *xh = th_zeros(m), *xr = th_zeros(n);
  double al1[8], be1[8], h1[9], al3[8], be3[8], h3[9], cx = 0;
  for (int64_t k = 1; k <= 8; k++) {
    o.max_iter = k;
    sgp_ski_solve_info i1, i3;
    assert_int_equal(sgp_ski_mean_cg(&p->ctx, &p->ski, sgp_cmat_of(p->y, n, 1), &o, a, x, &i1,
                                     h1, al1, be1), SGP_OK);
    assert_int_equal(sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, xh, &cx, &i3,
                                       h3, al3, be3), SGP_OK);
    assert_int_equal(i1.iterations, k);
    assert_int_equal(i3.iterations, k);
    assert_false(i1.converged);
    for (int64_t j = 0; j < k; j++) {
      const double ea = fabs(al3[j] - al1[j]) / fabs(al1[j]);
      const double eb = fabs(be3[j] - be1[j]) / fabs(be1[j]);
      const double eh = fabs(h3[j + 1] - h1[j + 1]) / h1[j + 1];
      const double e = fmax(ea, fmax(eb, eh));
      if (e > err_iter) err_iter = e;
    }
    /* x_k = W xhat + c_x y */
    th_matmul(n, 1, m, p->W, xh, xr);
    for (int64_t i = 0; i < n; i++) xr[i] += cx * p->y[i];
    const double ex = th_rel_max(n, xr, x);
    if (ex > err_x) err_x = ex;
  }
  assert_le(err_iter, 1e-9);
  assert_le(err_x, 1e-8);
  free(a); free(x); free(xh); free(xr);
}

/* Default tol = 0.01: both stop with relative residual <= 0.01. */
static void default_tolerance(void **state)
{
  problem *p = (problem *)*state;
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  double *a1 = th_zeros(p->m), *a3 = th_zeros(p->m);
  sgp_ski_solve_info i1, i3;
  assert_int_equal(sgp_ski_mean_cg(&p->ctx, &p->ski, sgp_cmat_of(p->y, p->n, 1), &o, a1, NULL,
                                   &i1, NULL, NULL, NULL), SGP_OK);
  assert_int_equal(sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a3, NULL, NULL, &i3,
                                     NULL, NULL, NULL), SGP_OK);
  assert_true(i1.converged && i3.converged);
  assert_le(i1.rel_residual, 0.01);
  assert_le(i3.rel_residual, 0.01);
  /* same iterates in exact arithmetic; finite-precision trajectories drift
   * apart after ~10 steps, so compare loosely */
  assert_le(labs((long)(i1.iterations - i3.iterations)), 1);
  err_def = fmax(th_rel_max(p->m, a1, p->a_ref), th_rel_max(p->m, a3, p->a_ref));
  assert_le(err_def, 0.1);
  it_cg_def = (int)i1.iterations; it_efcg_def = (int)i3.iterations;
  res_cg_def = i1.rel_residual; res_efcg_def = i3.rel_residual;
  free(a1); free(a3);
}

/* sEFCG mean (x0 = y/noise): dense SKI GP at a tight tolerance, <= 0.01 at the default. */
static void sefcg_mean_matches_dense(void **state)
{
  problem *p = (problem *)*state;
  const int64_t m = p->m;
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  double *a = th_zeros(m), *hist = th_zeros(o.max_iter + 1);
  sgp_ski_solve_info info;
  assert_int_equal(sgp_ski_mean_sefcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, &info, hist,
                                      NULL, NULL), SGP_OK);
  assert_true(info.converged);
  assert_le(info.rel_residual, 0.01);
  it_sefcg_def = (int)info.iterations;
  sefcg_r0 = hist[0];
  o.tol = 1e-11;
  assert_int_equal(sgp_ski_mean_sefcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, &info, hist,
                                      NULL, NULL), SGP_OK);
  assert_true(info.converged);
  it_sefcg_tight = (int)info.iterations;
  err_sefcg = th_rel_max(m, a, p->a_ref);
  assert_le(err_sefcg, 1e-9);
  free(a); free(hist);
}

/* sEFCG with b = W bhat, x0 = 0 (covariance columns of the exact variances) reproduces SKI
 * CG on b: first 8 iterates, and W' A^{-1} b at a tight tolerance. */
static void sefcg_span_w_matches_cg(void **state)
{
  problem *p = (problem *)*state;
  const int64_t n = p->n, m = p->m;
  sgp_rng rng;
  sgp_rng_seed(&rng, 31);
  double *bh = th_zeros(m), *b = th_zeros(n), *x = th_zeros(n), *a = th_zeros(m);
  double *xd = th_zeros(m), *xh = th_zeros(m), *xr = th_zeros(n), *ur = th_zeros(m);
  th_randn(&rng, m, bh, 1.0, 0.0);
  th_matmul(n, 1, m, p->W, bh, b);
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  o.tol = 0.0;
  double al1[8], be1[8], h1[9], al4[8], be4[8], h4[9];
  for (int64_t k = 1; k <= 8; k++) {
    o.max_iter = k;
    sgp_ski_solve_info i1, i4;
    assert_int_equal(sgp_ski_mean_cg(&p->ctx, &p->ski, sgp_cmat_of(b, n, 1), &o, a, x, &i1, h1,
                                     al1, be1), SGP_OK);
    assert_int_equal(sgp_ski_sefcg(&p->ctx, p->st, &p->kg, p->noise, bh, 0.0, &o, xd, xh, &i4,
                                   h4, al4, be4), SGP_OK);
    assert_int_equal(i4.iterations, k);
    for (int64_t j = 0; j < k; j++) {
      const double e = fmax(fabs(al4[j] - al1[j]) / fabs(al1[j]),
                            fmax(fabs(be4[j] - be1[j]) / fabs(be1[j]),
                                 fabs(h4[j + 1] - h1[j + 1]) / h1[j + 1]));
      if (e > err_iter4) err_iter4 = e;
    }
    th_matmul(n, 1, m, p->W, xh, xr);
    for (int64_t c = 0; c < m; c++) {
      double s = 0;
      for (int64_t i = 0; i < n; i++) s += p->W[i + c * n] * x[i];
      ur[c] = s;
    }
    const double ex = fmax(th_rel_max(n, xr, x), th_rel_max(m, xd, ur));
    if (ex > err_x4) err_x4 = ex;
  }
  assert_le(err_iter4, 1e-9);
  assert_le(err_x4, 1e-8);
  /* converged: xd = W' A^{-1} b */
  o.tol = 1e-11;
  o.max_iter = 1000;
  sgp_ski_solve_info i4;
  assert_int_equal(sgp_ski_sefcg(&p->ctx, p->st, &p->kg, p->noise, bh, 0.0, &o, xd, NULL, &i4,
                                 NULL, NULL, NULL), SGP_OK);
  assert_true(i4.converged);
  assert_int_equal(th_chol_solve(n, p->A, 1, b, x), 0);
  for (int64_t c = 0; c < m; c++) {
    double s = 0;
    for (int64_t i = 0; i < n; i++) s += p->W[i + c * n] * x[i];
    ur[c] = s;
  }
  err_sefcg_cov = th_rel_max(m, xd, ur);
  assert_le(err_sefcg_cov, 1e-9);
  /* rhat0 = 0: x = 0 at once; NaN rejected naming rhat0 */
  memset(bh, 0, (size_t)m * sizeof(double));
  assert_int_equal(sgp_ski_sefcg(&p->ctx, p->st, &p->kg, p->noise, bh, 0.0, &o, xd, NULL, &i4,
                                 NULL, NULL, NULL), SGP_OK);
  assert_true(i4.converged && i4.iterations == 0 && th_max_abs(m, xd) == 0.0);
  bh[3] = NAN;
  assert_int_equal(sgp_ski_sefcg(&p->ctx, p->st, &p->kg, p->noise, bh, 0.0, &o, xd, NULL, &i4,
                                 NULL, NULL, NULL), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "rhat0");
  free(bh); free(b); free(x); free(a); free(xd); free(xh); free(xr); free(ur);
}

static int stop_now(void *user) { (void)user; return 1; }

static void solvers_reject_bad_inputs(void **state)
{
  problem *p = (problem *)*state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t n = p->n, m = p->m;
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  double *a = th_zeros(m), *yb = th_zeros(n);
  sgp_ski_solve_info info;
  memcpy(yb, p->y, (size_t)n * sizeof(double));
  /* y: wrong length, NaN */
  assert_int_equal(sgp_ski_mean_cg(&ctx, &p->ski, sgp_cmat_of(yb, n - 1, 1), &o, a, NULL, &info,
                                   NULL, NULL, NULL), SGP_EDIM);
  assert_contains(ctx.errmsg, "y");
  yb[17] = NAN;
  assert_int_equal(sgp_ski_mean_cg(&ctx, &p->ski, sgp_cmat_of(yb, n, 1), &o, a, NULL, &info,
                                   NULL, NULL, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "y");
  assert_contains(ctx.errmsg, "row 18");
  /* not a SKI operator */
  assert_int_equal(sgp_ski_mean_cg(&ctx, &p->kg, sgp_cmat_of(p->y, m, 1), &o, a, NULL, &info,
                                   NULL, NULL, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "op");
  /* noise, tol, max_iter, stats, kg */
  assert_int_equal(sgp_ski_mean_efcg(&ctx, p->st, &p->kg, 0.0, &o, a, NULL, NULL, &info, NULL,
                                     NULL, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "noise");
  assert_int_equal(sgp_ski_mean_efcg(&ctx, p->st, &p->kg, NAN, &o, a, NULL, NULL, &info, NULL,
                                     NULL, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "noise");
  o.tol = -1;
  assert_int_equal(sgp_ski_mean_efcg(&ctx, p->st, &p->kg, 0.5, &o, a, NULL, NULL, &info, NULL,
                                     NULL, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "tol");
  o.tol = 0.01;
  o.max_iter = -2;
  assert_int_equal(sgp_ski_mean_cg(&ctx, &p->ski, sgp_cmat_of(p->y, n, 1), &o, a, NULL, &info,
                                   NULL, NULL, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "max_iter");
  o.max_iter = 1000;
  assert_int_equal(sgp_ski_mean_efcg(&ctx, NULL, &p->kg, 0.5, &o, a, NULL, NULL, &info, NULL,
                                     NULL, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "stats");
  assert_int_equal(sgp_ski_mean_efcg(&ctx, p->st, &p->ski, 0.5, &o, a, NULL, NULL, &info, NULL,
                                     NULL, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "kg");
  /* SKI operator: noise, x */
  sgp_op bad;
  assert_int_equal(sgp_ski_op_ski(&ctx, &p->k, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(p->X, n, 2), -1.0, &p->kg, &bad), SGP_EINVAL);
  assert_contains(ctx.errmsg, "noise");
  double Xo[2] = {0.5, 5.0};
  assert_int_equal(sgp_ski_op_ski(&ctx, &p->k, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(Xo, 1, 2), 0.5, &p->kg, &bad), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x");
  /* interrupts: polled every iteration, nothing leaks */
  ctx.interrupt = stop_now;
  assert_int_equal(sgp_ski_mean_cg(&ctx, &p->ski, sgp_cmat_of(p->y, n, 1), &o, a, NULL, &info,
                                   NULL, NULL, NULL), SGP_EINTERRUPT);
  assert_int_equal(sgp_ski_mean_efcg(&ctx, p->st, &p->kg, 0.5, &o, a, NULL, NULL, &info, NULL,
                                     NULL, NULL), SGP_EINTERRUPT);
  ctx.interrupt = NULL;
  /* no data: mean 0, converged at once */
  sgp_ski_stats *e = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, &p->g, SGP_SKI_CUBIC, &e), SGP_OK);
  a[0] = 7;
  assert_int_equal(sgp_ski_mean_efcg(&ctx, e, &p->kg, 0.5, &o, a, NULL, NULL, &info, NULL, NULL,
                                     NULL), SGP_OK);
  assert_true(info.converged);
  assert_int_equal(info.iterations, 0);
  assert_true(th_max_abs(m, a) == 0.0);
  sgp_ski_stats_free(e);
  free(a); free(yb);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(ski_operator_matches_dense),
    cmocka_unit_test(solvers_match_dense_ski_gp),
    cmocka_unit_test(efcg_reproduces_cg_iterates),
    cmocka_unit_test(default_tolerance),
    cmocka_unit_test(sefcg_mean_matches_dense),
    cmocka_unit_test(sefcg_span_w_matches_cg),
    cmocka_unit_test(solvers_reject_bad_inputs),
  };
  return cmocka_run_group_tests_name("ski_solve", tests, setup, teardown);
}
