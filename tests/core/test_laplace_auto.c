/* test_laplace_auto.c -- policy "auto" (the default): where its dense factor fits it
 * is the exact Laplace, the same fit as policy cholesky with max_iter = n C; beyond,
 * or with a budget given, it is cg; the fit says which ran and why. */
#include "test_helpers.h"
#include "laplace/laplace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { N = 80 };

static void data(double *X, double *y, uint64_t seed)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, seed);
  for (int i = 0; i < N; i++) {
    X[i] = -3.0 + 6.0 * sgp_rng_uniform(&rng);
    y[i] = sgp_rng_uniform(&rng) < 1.0 / (1.0 + exp(-3.0 * sin(X[i])));
  }
}

static sgp_laplace_result *fit_of(const double *X, const double *y, const sgp_laplace_opts *o)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_result *fit = NULL;
  const int st = sgp_laplace_fit(&ctx, sgp_cmat_of(X, N, 1), sgp_cmat_of(y, N, 1),
                                 sgp_cmat_of(NULL, 0, 0), o, &fit);
  if (st) fail_msg("fit: %s", ctx.errmsg);
  return fit;
}

/* Learned hyperparameters (the default), then auto: the same bits as cholesky with
 * the full budget (the same code runs), converged, and the fit names it. */
static void auto_is_exact_on_small_data(void **state)
{
  (void)state;
  double X[N], y[N];
  data(X, y, 11);
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  assert_int_equal(o.policy, SGP_POLICY_AUTO);
  sgp_laplace_result *a = fit_of(X, y, &o);
  o.policy = SGP_POLICY_CHOLESKY;
  o.max_iter = N;
  sgp_laplace_result *b = fit_of(X, y, &o);
  assert_true(a->converged);
  assert_int_equal(a->policy, SGP_POLICY_CHOLESKY);
  assert_int_equal(a->max_iter, N);
  assert_non_null(strstr(a->policy_reason, "auto: the exact Laplace"));
  assert_string_equal(b->policy_reason, "given");
  assert_int_equal(a->newton_steps, b->newton_steps);
  assert_memory_equal(a->f, b->f, N * sizeof(double));
  assert_memory_equal(a->var, b->var, N * sizeof(double));
  assert_memory_equal(a->weights, b->weights, N * sizeof(double));
  sgp_laplace_fit_free(a);
  sgp_laplace_fit_free(b);
}

/* A budget given with auto: cg with it (the old default's fit, bit for bit). */
static void auto_with_max_iter_is_cg(void **state)
{
  (void)state;
  double X[N], y[N];
  data(X, y, 12);
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  o.max_iter = 5;
  sgp_laplace_result *a = fit_of(X, y, &o);
  o.policy = SGP_POLICY_CG;
  sgp_laplace_result *b = fit_of(X, y, &o);
  assert_int_equal(a->policy, SGP_POLICY_CG);
  assert_int_equal(a->max_iter, 5);
  assert_non_null(strstr(a->policy_reason, "budget is given"));
  assert_memory_equal(a->f, b->f, N * sizeof(double));
  assert_memory_equal(a->var, b->var, N * sizeof(double));
  sgp_laplace_fit_free(a);
  sgp_laplace_fit_free(b);
}

/* The rule itself: memory (8 (n C)^2 doubles in a quarter of mem), then the work
 * (n C <= 3000, or C = 1 with the exact evidence evaluated by the learning). */
static void auto_rule(void **state)
{
  (void)state;
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  int pol = -1, mi = -1;
  char why[160];
  const double big = 1e15; /* bytes: memory is no limit */
  sgp_laplace_auto_policy(&o, 3000, 1, 0, big, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CHOLESKY);
  assert_int_equal(mi, 3000);
  sgp_laplace_auto_policy(&o, 3001, 1, 0, big, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CG);
  assert_int_equal(mi, 5);
  assert_non_null(strstr(why, "did not use the exact evidence"));
  sgp_laplace_auto_policy(&o, 3681, 1, 1, big, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CHOLESKY);
  assert_int_equal(mi, 3681);
  /* softmax: the evidence's C n^3 is not the dense fit's (n C)^3 */
  sgp_laplace_auto_policy(&o, 1001, 3, 1, big, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CG);
  sgp_laplace_auto_policy(&o, 1000, 3, 0, big, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CHOLESKY);
  assert_int_equal(mi, 3000);
  /* memory: 4 * 64 n^2 bytes is the edge */
  const double edge = 4.0 * 64.0 * 1000.0 * 1000.0;
  sgp_laplace_auto_policy(&o, 1000, 1, 0, edge, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CHOLESKY);
  sgp_laplace_auto_policy(&o, 1000, 1, 1, edge - 1.0, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CG);
  assert_non_null(strstr(why, "a quarter of the memory"));
  /* a budget given: cg with it */
  o.rank = 10;
  sgp_laplace_auto_policy(&o, 100, 1, 1, big, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CG);
  assert_int_equal(mi, 5);
  o.rank = -1;
  o.max_iter = 7;
  sgp_laplace_auto_policy(&o, 100, 1, 1, big, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CG);
  assert_int_equal(mi, 7);
  /* a policy given keeps its max_iter, 5 when not given */
  o.max_iter = 0;
  o.policy = SGP_POLICY_CHOLESKY;
  sgp_laplace_auto_policy(&o, 100, 1, 1, big, &pol, &mi, why, sizeof why);
  assert_int_equal(pol, SGP_POLICY_CHOLESKY);
  assert_int_equal(mi, 5);
  assert_string_equal(why, "given");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(auto_is_exact_on_small_data),
    cmocka_unit_test(auto_with_max_iter_is_cg),
    cmocka_unit_test(auto_rule),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
