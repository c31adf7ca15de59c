/* test_kernel_rq.c -- the rational-quadratic kernel ("rq") against its formula.
 * Oracle: s (1 + r^2/(2 alpha))^(-alpha) in plain loops with libm pow, r the
 * lengthscale-scaled distance; its lengthscale and log-alpha gradients against
 * central differences of that oracle. */
#include "test_helpers.h"
#include "kernels/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double rq_oracle(double s, double alpha, const double *ell, int64_t nell,
                        const double *x, int64_t ldx, const double *y, int64_t ldy, int64_t d)
{
  double r2 = 0.0;
  for (int64_t l = 0; l < d; l++) {
    const double t = (x[l * ldx] - y[l * ldy]) / ell[nell == 1 ? 0 : l];
    r2 += t * t;
  }
  return s * pow(1.0 + r2 / (2.0 * alpha), -alpha);
}

/* The tiles' squared distances carry rounding of a few eps times the squared
 * norms (about 30 here); |dk/dr2| <= s/2, so 1e-12 s bounds the difference. */
static void compare(int64_t d, int ard, double alpha, uint64_t seed)
{
  const int64_t n1 = 37, n2 = 29, nell = ard ? d : 1;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, seed);
  double *X1 = th_zeros(n1 * d), *X2 = th_zeros(n2 * d), *K = th_zeros(n1 * n2), ell[8];
  th_randn(&ctx.rng, n1 * d, X1, 1.0, 0.0);
  th_randn(&ctx.rng, n2 * d, X2, 1.0, 0.5);
  for (int64_t l = 0; l < d; l++) X1[l * n1] = X2[l * n2]; /* one coincident pair */
  for (int64_t l = 0; l < nell; l++) ell[l] = 0.5 + 1.5 * sgp_rng_uniform(&ctx.rng);
  const sgp_kernel k = {SGP_KERNEL_RQ, ell, nell, 1.7, alpha};
  assert_int_equal(sgp_kernel_matrix(&ctx, &k, sgp_cmat_of(X1, n1, d), sgp_cmat_of(X2, n2, d),
                                     sgp_mat_of(K, n1, n2)), SGP_OK);
  double err = 0.0;
  for (int64_t j = 0; j < n2; j++)
    for (int64_t i = 0; i < n1; i++)
      err = fmax(err, fabs(K[i + j * n1] - rq_oracle(1.7, alpha, ell, nell, X1 + i, n1, X2 + j,
                                                     n2, d)));
  if (!(err <= 1e-12 * 1.7))
    fail_msg("rq d=%lld ard=%d alpha=%g: max abs error %.3g", (long long)d, ard, alpha, err);
  assert_close(K[0], 1.7, 1e-12 * 1.7);
  free(X1); free(X2); free(K);
}

static void rq_matches_formula(void **state)
{
  (void)state;
  const double alphas[] = {0.3, 1.0, 7.5};
  for (int a = 0; a < 3; a++) {
    compare(2, 0, alphas[a], 3 + a); /* d <= 4: direct differences */
    compare(2, 1, alphas[a], 13 + a);
    compare(6, 1, alphas[a], 23 + a); /* d > 4: the dgemm path */
  }
}

/* f(ell) = sum_ik G_ik k(x_i, x_k) from the oracle. */
static double weighted_sum(const double *X, int64_t n, int64_t d, const double *ell,
                           double alpha, const double *G)
{
  double f = 0.0;
  for (int64_t c = 0; c < n; c++)
    for (int64_t i = 0; i < n; i++)
      f += G[i + c * n] * rq_oracle(1.3, alpha, ell, d, X + i, n, X + c, n, d);
  return f;
}

/* sgp_kernel_grad_dense's log-lengthscale gradient against central differences
 * (step h = 1e-5 in log ell): truncation h^2/6 |f'''| and rounding
 * eps sum|G k| / h, both below 1e-9 sum|G| s for these smooth, bounded
 * derivatives; 1e-8 sum|G| s leaves a margin. */
static void rq_lengthscale_gradient_matches_differences(void **state)
{
  (void)state;
  const int64_t n = 15, d = 3;
  const double alpha = 0.8, h = 1e-5;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 7);
  double *X = th_zeros(n * d), *K = th_zeros(n * n), *G = th_zeros(n * n);
  double ell[3] = {0.6, 1.1, 1.9}, grad[4], sumg = 0.0;
  th_randn(&ctx.rng, n * d, X, 1.0, 0.0);
  for (int64_t c = 0; c < n; c++)
    for (int64_t i = 0; i <= c; i++) {
      G[i + c * n] = G[c + i * n] = sgp_rng_uniform(&ctx.rng) - 0.5;
    }
  for (int64_t q = 0; q < n * n; q++) sumg += fabs(G[q]);
  const sgp_kernel k = {SGP_KERNEL_RQ, ell, d, 1.3, alpha};
  assert_int_equal(sgp_kernel_matrix(&ctx, &k, sgp_cmat_of(X, n, d), sgp_cmat_of(X, n, d),
                                     sgp_mat_of(K, n, n)), SGP_OK);
  assert_int_equal(sgp_kernel_grad_dense(&ctx, &k, sgp_cmat_of(X, n, d), K, G, n, grad, NULL), SGP_OK);
  for (int64_t j = 0; j < d; j++) {
    double e[3];
    memcpy(e, ell, sizeof e);
    e[j] = ell[j] * exp(h);
    const double fp = weighted_sum(X, n, d, e, alpha, G);
    e[j] = ell[j] * exp(-h);
    const double fm = weighted_sum(X, n, d, e, alpha, G);
    const double fd = (fp - fm) / (2.0 * h);
    if (!(fabs(grad[j] - fd) <= 1e-8 * sumg * 1.3))
      fail_msg("rq d log ell_%lld: %.12g, differences %.12g", (long long)j, grad[j], fd);
  }
  /* d/dlog s = the kernel sum itself */
  assert_close(grad[d], weighted_sum(X, n, d, ell, alpha, G), 1e-12 * sumg * 1.3);
  free(X); free(K); free(G);
}

/* sgp_kernel_grad_dense's log-alpha entry against central differences in log
 * alpha (h = 1e-5, the bound above), at an alpha whose pairs mostly have
 * x = r2 / (2 alpha) >= 0.01 (the closed form) and one where all but the far
 * ones take the series (x < 0.01); a kernel without alpha gives 0. */
static void rq_alpha_gradient_matches_differences(void **state)
{
  (void)state;
  const int64_t n = 15, d = 2;
  const double h = 1e-5, alphas[] = {0.8, 300.0};
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 9);
  double *X = th_zeros(n * d), *K = th_zeros(n * n), *G = th_zeros(n * n);
  double ell[2] = {0.7, 1.2}, grad[3], ga, sumg = 0.0;
  th_randn(&ctx.rng, n * d, X, 1.0, 0.0);
  for (int64_t c = 0; c < n; c++)
    for (int64_t i = 0; i <= c; i++) G[i + c * n] = G[c + i * n] = sgp_rng_uniform(&ctx.rng) - 0.5;
  for (int64_t q = 0; q < n * n; q++) sumg += fabs(G[q]);
  for (int a = 0; a < 2; a++) {
    const double alpha = alphas[a];
    const sgp_kernel k = {SGP_KERNEL_RQ, ell, d, 1.3, alpha};
    assert_int_equal(sgp_kernel_matrix(&ctx, &k, sgp_cmat_of(X, n, d), sgp_cmat_of(X, n, d),
                                       sgp_mat_of(K, n, n)), SGP_OK);
    assert_int_equal(sgp_kernel_grad_dense(&ctx, &k, sgp_cmat_of(X, n, d), K, G, n, grad, &ga),
                     SGP_OK);
    const double fd = (weighted_sum(X, n, d, ell, alpha * exp(h), G) -
                       weighted_sum(X, n, d, ell, alpha * exp(-h), G)) / (2.0 * h);
    if (!(fabs(ga - fd) <= 1e-8 * sumg * 1.3))
      fail_msg("rq alpha %g: d log alpha %.12g, differences %.12g", alpha, ga, fd);
    print_message("rq alpha %g: d/dlog alpha %.12g, differences %.12g\n", alpha, ga, fd);
  }
  const sgp_kernel rbf = {SGP_KERNEL_RBF, ell, d, 1.3, 1.0};
  assert_int_equal(sgp_kernel_matrix(&ctx, &rbf, sgp_cmat_of(X, n, d), sgp_cmat_of(X, n, d),
                                     sgp_mat_of(K, n, n)), SGP_OK);
  assert_int_equal(sgp_kernel_grad_dense(&ctx, &rbf, sgp_cmat_of(X, n, d), K, G, n, grad, &ga),
                   SGP_OK);
  assert_true(ga == 0.0);
  free(X); free(K); free(G);
}

static void rq_name_alpha_check_and_far_values(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_kernel_kind kind = SGP_KERNEL_RBF;
  assert_int_equal(sgp_kernel_from_name(&ctx, "rq", &kind), SGP_OK);
  assert_int_equal(kind, SGP_KERNEL_RQ);
  assert_string_equal(sgp_kernel_name(kind), "rq");
  /* the names in an error come from the table too */
  assert_int_equal(sgp_kernel_from_name(&ctx, "rq2", &kind), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "kernel: is unknown: \"rq2\"; use \"rbf\", \"matern12\", "
                                  "\"matern32\", \"matern52\" or \"rq\"");
  const double ell = 1.0;
  const double bad[] = {0.0, -1.0, NAN, INFINITY};
  for (int i = 0; i < 4; i++) {
    const sgp_kernel k = {SGP_KERNEL_RQ, &ell, 1, 1.0, bad[i]};
    assert_int_equal(sgp_kernel_check(&ctx, &k, 1), SGP_EINVAL);
    assert_non_null(strstr(ctx.errmsg, "alpha:"));
  }
  /* heavy tails: (1 + r2/2)^-1 at r2 = 1e198 (exp's relative error times the
   * exponent's size, 455, stays far below 1e-12); ~0 at an infinite distance */
  const sgp_kernel k = {SGP_KERNEL_RQ, &ell, 1, 2.0, 1.0};
  assert_close(sgp_kernel_value_r2(&k, 2.0, 1e198), 4e-198, 1e-12 * 4e-198);
  const double far = sgp_kernel_value_r2(&k, 2.0, INFINITY);
  assert_true(far >= 0.0 && far < 1e-300);
  assert_true(sgp_kernel_dlogell_r2(&k, 2.0, 0.0, 0.0) == 0.0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(rq_matches_formula),
    cmocka_unit_test(rq_lengthscale_gradient_matches_differences),
    cmocka_unit_test(rq_alpha_gradient_matches_differences),
    cmocka_unit_test(rq_name_alpha_check_and_far_values),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
