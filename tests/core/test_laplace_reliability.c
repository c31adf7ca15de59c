/* test_laplace_reliability.c -- gp_laplace's solver ends against dense oracles
 * (naive kernel matrix and Cholesky of test_helpers.c): a right-hand side that
 * meets the tolerance before any action still buys variance with the budget; a
 * gaussian fit on c y with scales c^2 is c times the fit on y; softmax's
 * converged = 1 holds on the per-point sums of f - m, where the mode has 0. */
#include "test_helpers.h"
#include "laplace/laplace.h"

#include <math.h>
#include <stdlib.h>

enum { N = 30, NS = 40 };

/* 1-d gaussian data on [0, 1]: x, and y = 5 (the prior mean) */
static void gaussian_data(double *x, double *y, int64_t n, uint64_t seed)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, seed);
  for (int64_t i = 0; i < n; i++) {
    x[i] = sgp_rng_uniform(&rng);
    y[i] = 5.0;
  }
}

static void gaussian_opts(sgp_laplace_opts *o, const double *ell, const double *s,
                          const double *mean, const double *noise)
{
  sgp_laplace_opts_default(o);
  /* the cg policy at the paper's budget, the default before policy "auto" */
  o->policy = SGP_POLICY_CG;
  o->max_iter = 5;
  o->likelihood = SGP_LIK_GAUSSIAN;
  o->kernel.kind = SGP_KERNEL_RBF;
  o->kernel.lengthscale = ell;
  o->kernel.n_lengthscale = 1;
  o->kernel.outputscale = *s;
  o->mean = mean;
  o->n_mean = 1;
  o->noise = sgp_cmat_of(noise, 1, 1);
  o->learn = 0;
}

static sgp_laplace_result *fit_or_fail(sgp_ctx *ctx, const double *x, int64_t n, int64_t d,
                                      const double *y, const sgp_laplace_opts *o)
{
  sgp_laplace_result *fit = NULL;
  const int st = sgp_laplace_fit(ctx, sgp_cmat_of(x, n, d), sgp_cmat_of(y, n, 1),
                                 sgp_cmat_of(NULL, 0, 0), o, &fit);
  if (st) fail_msg("sgp_laplace_fit: %s", ctx->errmsg);
  return fit;
}

/* exact gaussian posterior variances diag(K - K (K + noise I)^-1 K) into var;
 * K (n x n) is written too */
static void exact_var(const double *x, int64_t n, double ell, double s, double noise, double *K,
                      double *var)
{
  double *Kh = th_zeros(n * n), *Z = th_zeros(n * n);
  th_kernel_matrix(SGP_KERNEL_RBF, s, &ell, 1, x, n, x, n, 1, K);
  for (int64_t i = 0; i < n * n; i++) Kh[i] = K[i];
  for (int64_t i = 0; i < n; i++) Kh[i + i * n] += noise;
  assert_int_equal(th_chol_solve(n, Kh, n, K, Z), 0);
  for (int64_t i = 0; i < n; i++) {
    double a = 0.0;
    for (int64_t j = 0; j < n; j++) a += K[j + i * n] * Z[j + i * n];
    var[i] = s - a;
  }
  free(Kh); free(Z);
}

/* y = m: b = 0 meets the tolerance before any action. cg: the default budget
 * (5) goes to a surrogate system's actions, the mean stays C b = 0; its
 * variance is IterGP's (never below the exact one) and buys most of the exact
 * reduction (the data's kernel has >= 99% of sum lambda^2 / (lambda + noise)
 * in its top 5 eigenvalues; checked). cholesky: its unit actions go on, the
 * first 5 points' subset-of-data variance. A full budget: the exact state
 * with no iteration recorded. */
static void zero_rhs_buys_variance(void **state)
{
  (void)state;
  const double ell = 0.3, s = 1.0, mean = 5.0, noise = 0.1;
  double x[N], y[N], ev[N], *K = th_zeros(N * N), lam[N];
  gaussian_data(x, y, N, 21);
  exact_var(x, N, ell, s, noise, K, ev);
  th_jacobi_eig(N, K, lam); /* ascending */
  double red = 0.0, top = 0.0;
  for (int i = 0; i < N; i++) {
    const double r = lam[i] * lam[i] / (lam[i] + noise);
    red += r;
    if (i >= N - 5) top += r;
  }
  assert_true(top >= 0.99 * red);
  sgp_laplace_opts o;
  gaussian_opts(&o, &ell, &s, &mean, &noise);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_result *fit = fit_or_fail(&ctx, x, N, 1, y, &o);
  assert_int_equal(fit->converged, 1);
  assert_int_equal(fit->iterations, 5);
  assert_int_equal(fit->r, 5);
  double got = 0.0, exact = 0.0;
  for (int i = 0; i < N; i++) {
    assert_true(fit->f[i] == 5.0);
    assert_true(fit->var[i] >= ev[i] - 1e-12);
    got += s - fit->var[i];
    exact += s - ev[i];
  }
  assert_true(got >= 0.9 * exact);
  sgp_laplace_fit_free(fit);
  /* cholesky: points 1..5, var_i = s - K_iI (K_II + noise I)^-1 K_Ii */
  o.policy = SGP_POLICY_CHOLESKY;
  fit = fit_or_fail(&ctx, x, N, 1, y, &o);
  assert_int_equal(fit->converged, 1);
  assert_int_equal(fit->iterations, 5);
  double KII[25], KIx[5 * N], Z[5 * N];
  for (int a = 0; a < 5; a++) {
    for (int b = 0; b < 5; b++) KII[a + 5 * b] = K[a + N * b] + (a == b ? noise : 0.0);
    for (int i = 0; i < N; i++) KIx[a + 5 * i] = K[a + N * i];
  }
  assert_int_equal(th_chol_solve(5, KII, N, KIx, Z), 0);
  for (int i = 0; i < N; i++) {
    double q = 0.0;
    for (int a = 0; a < 5; a++) q += KIx[a + 5 * i] * Z[a + 5 * i];
    assert_close(fit->var[i], s - q, 1e-10);
  }
  sgp_laplace_fit_free(fit);
  /* a full budget: the dense Cholesky of K^, no iteration */
  o.policy = SGP_POLICY_CG;
  o.max_iter = N;
  fit = fit_or_fail(&ctx, x, N, 1, y, &o);
  assert_int_equal(fit->converged, 1);
  assert_int_equal(fit->iterations, 0);
  assert_int_equal(fit->r, N);
  for (int i = 0; i < N; i++) assert_close(fit->var[i], ev[i], 1e-10);
  sgp_laplace_fit_free(fit);
  free(K);
}

/* (y, m, s, noise) -> (c y, c m, c^2 s, c^2 noise): the solver takes the same
 * actions, so f scales by c and var by c^2 up to the rounding of scaling by c
 * (not a power of 2) through its ~20 iterations, cond(K^) <= 1 + n s / noise;
 * against the unscaled fit to 1e-8. The default budget (cg, 5 iterations,
 * several Newton steps). */
static void gaussian_scale_covariance(void **state)
{
  (void)state;
  const double ell = 0.3;
  double x[NS], y[NS], yc[NS];
  sgp_rng rng;
  sgp_rng_seed(&rng, 22);
  for (int i = 0; i < NS; i++) {
    x[i] = sgp_rng_uniform(&rng);
    y[i] = sin(6.0 * x[i]) + 0.3 * sgp_rng_normal(&rng);
  }
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_opts o;
  const double s1 = 1.0, m1 = 0.5, n1 = 0.1;
  gaussian_opts(&o, &ell, &s1, &m1, &n1);
  sgp_laplace_result *base = fit_or_fail(&ctx, x, NS, 1, y, &o);
  assert_int_equal(base->converged, 1);
  const double cs[2] = {1e-6, 1e6};
  for (int k = 0; k < 2; k++) {
    const double c = cs[k], sc = c * c, mc = c * m1, nc = c * c * n1;
    for (int i = 0; i < NS; i++) yc[i] = c * y[i];
    gaussian_opts(&o, &ell, &sc, &mc, &nc);
    sgp_laplace_result *fit = fit_or_fail(&ctx, x, NS, 1, yc, &o);
    assert_int_equal(fit->converged, 1);
    assert_int_equal(fit->iterations, base->iterations);
    for (int i = 0; i < NS; i++) {
      assert_close(fit->f[i] / c, base->f[i], 1e-8 * th_max_abs(NS, base->f));
      assert_close(fit->var[i] / sc, base->var[i], 1e-8);
    }
    sgp_laplace_fit_free(fit);
  }
  sgp_laplace_fit_free(base);
}

/* Softmax, cholesky policy, a truncated budget: unit actions are not centred,
 * and the W^+ iteration keeps whatever sum of f - m it is given, while the
 * mode's is 0 (the likelihood ignores per-point constants; mean 0 here). A
 * converged fit has them within tol. */
static void softmax_sums_at_the_mode(void **state)
{
  (void)state;
  enum { n = 40, C = 3 };
  double x[2 * n], y[n];
  sgp_rng rng;
  sgp_rng_seed(&rng, 23);
  for (int i = 0; i < 2 * n; i++) x[i] = -3.0 + 6.0 * sgp_rng_uniform(&rng);
  for (int i = 0; i < n; i++) {
    const double sc[3] = {x[i], x[i + n], -0.5 * (x[i] + x[i + n])};
    int best = 0;
    for (int c = 1; c < 3; c++) if (sc[c] + 0.8 * sgp_rng_normal(&rng) > sc[best]) best = c;
    y[i] = best + 1;
  }
  const double ell = 1.0, zero = 0.0;
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  o.likelihood = SGP_LIK_SOFTMAX;
  o.kernel.kind = SGP_KERNEL_RBF;
  o.kernel.lengthscale = &ell;
  o.kernel.n_lengthscale = 1;
  o.kernel.outputscale = 2.0;
  o.mean = &zero;
  o.n_mean = 1;
  o.learn = 0;
  o.n_class = C;
  o.policy = SGP_POLICY_CHOLESKY;
  o.max_iter = 20;
  o.max_newton = 50;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_result *fit = fit_or_fail(&ctx, x, n, 2, y, &o);
  assert_int_equal(fit->converged, 1);
  for (int i = 0; i < n; i++) {
    double sum = 0.0;
    for (int c = 0; c < C; c++) sum += fit->f[i + c * n];
    assert_le(fabs(sum), o.tol);
  }
  sgp_laplace_fit_free(fit);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(zero_rhs_buys_variance),
    cmocka_unit_test(gaussian_scale_covariance),
    cmocka_unit_test(softmax_sums_at_the_mode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
