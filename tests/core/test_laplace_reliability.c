/* test_laplace_reliability.c -- gp_laplace's solver ends against dense oracles:
 * softmax's converged = 1 holds on the per-point sums of f - m, where the mode
 * has 0. */
#include "test_helpers.h"
#include "laplace/laplace.h"

#include <math.h>
#include <stdlib.h>

static sgp_laplace_fit_t *fit_or_fail(sgp_ctx *ctx, const double *x, int64_t n, int64_t d,
                                      const double *y, const sgp_laplace_opts *o)
{
  sgp_laplace_fit_t *fit = NULL;
  const int st = sgp_laplace_fit(ctx, sgp_cmat_of(x, n, d), sgp_cmat_of(y, n, 1),
                                 sgp_cmat_of(NULL, 0, 0), o, &fit);
  if (st) fail_msg("sgp_laplace_fit: %s", ctx->errmsg);
  return fit;
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
  sgp_laplace_fit_t *fit = fit_or_fail(&ctx, x, n, 2, y, &o);
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
    cmocka_unit_test(softmax_sums_at_the_mode),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
