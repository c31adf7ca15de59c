/* test_laplace_scale.c -- gp_laplace's option scale (laplace_scale.c): a fit on X
 * with scale on is the fit on (X - centre) / scale with scale off, bit for bit
 * (the same doubles through the same computation); predict standardizes the
 * fit's and new inputs alike; a given lengthscale centres only; a constant
 * column keeps scale 1; lengthscales on the inputs' own scale. */
#include "test_helpers.h"
#include "laplace/laplace.h"

#include <stdlib.h>
#include <string.h>

enum { N = 40, D = 2, NS = 5 };

/* a weight-like column (sd 30 around 130) beside a 0/1 one, labels from both */
static void data(double *X, double *y, double *Xs)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 11);
  for (int i = 0; i < N; i++) {
    X[i] = 130.0 + 30.0 * sgp_rng_normal(&rng);
    X[i + N] = sgp_rng_uniform(&rng) < 0.4 ? 1.0 : 0.0;
    y[i] = (X[i] - 130.0) / 30.0 + X[i + N] + 0.5 * sgp_rng_normal(&rng) > 0.3 ? 1.0 : 0.0;
  }
  for (int i = 0; i < NS; i++) {
    Xs[i] = 90.0 + 25.0 * i;
    Xs[i + NS] = (double)(i % 2);
  }
}

static sgp_laplace_result *fit_of(const double *X, const double *y, int scale,
                                  const double *ls)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.seed = 1;
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  o.scale = scale;
  if (ls) { o.kernel.lengthscale = ls; o.kernel.n_lengthscale = 1; }
  sgp_laplace_result *fit = NULL;
  if (sgp_laplace_fit(&ctx, sgp_cmat_of(X, N, D), sgp_cmat_of(y, N, 1), sgp_cmat_of(NULL, 0, 0),
                      &o, &fit))
    fail_msg("%s", ctx.errmsg);
  return fit;
}

static void predict_mean(const sgp_laplace_result *fit, const double *Xs, double *m)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const sgp_mat none = sgp_mat_of(NULL, 0, 0);
  assert_int_equal(sgp_laplace_predict(&ctx, fit, sgp_cmat_of(Xs, NS, D), sgp_cmat_of(NULL, 0, 0),
                                       sgp_mat_of(m, NS, 1), none, none, none), SGP_OK);
}

static void scaled_is_unscaled_on_standardized_inputs(void **state)
{
  (void)state;
  double X[N * D], y[N], Xs[NS * D], Z[N * D], Zs[NS * D], m1[NS], m2[NS];
  data(X, y, Xs);
  sgp_laplace_result *a = fit_of(X, y, 1, NULL);
  assert_true(a->scaled);
  for (int j = 0; j < D; j++) {
    double mean = 0.0, ss = 0.0;
    for (int i = 0; i < N; i++) mean += X[i + j * N] / N;
    for (int i = 0; i < N; i++) ss += (X[i + j * N] - mean) * (X[i + j * N] - mean);
    /* the moments to rounding of sums of N terms */
    assert_close(a->centre[j], mean, 1e-12 * (1.0 + fabs(mean)));
    assert_close(a->scale[j], sqrt(ss / (N - 1)), 1e-12 * a->scale[j]);
    for (int i = 0; i < N; i++) Z[i + j * N] = (X[i + j * N] - a->centre[j]) / a->scale[j];
    for (int i = 0; i < NS; i++) Zs[i + j * NS] = (Xs[i + j * NS] - a->centre[j]) / a->scale[j];
  }
  /* the same doubles through the same deterministic computation (start values,
   * optimizer, Newton loop): equal bit for bit */
  sgp_laplace_result *b = fit_of(Z, y, 0, NULL);
  assert_false(b->scaled);
  assert_memory_equal(a->kernel.lengthscale, b->kernel.lengthscale, sizeof(double));
  assert_memory_equal(&a->kernel.outputscale, &b->kernel.outputscale, sizeof(double));
  assert_memory_equal(&a->hyper.loglik, &b->hyper.loglik, sizeof(double));
  assert_memory_equal(a->f, b->f, N * sizeof(double));
  predict_mean(a, Xs, m1);
  predict_mean(b, Zs, m2);
  assert_memory_equal(m1, m2, NS * sizeof(double));
  /* on the inputs' own scale: the one value times each sd */
  double orig[D];
  int64_t n_orig = 0;
  sgp_laplace_lengthscale_original(a->kernel.lengthscale, 1, a->scale, a->scaled, D, orig,
                                   &n_orig);
  assert_int_equal(n_orig, D);
  for (int j = 0; j < D; j++) assert_true(orig[j] == a->kernel.lengthscale[0] * a->scale[j]);
  assert_non_null(strstr(a->scale_note, "standardized"));
  sgp_laplace_fit_free(a);
  sgp_laplace_fit_free(b);
}

static void given_lengthscale_centres_only(void **state)
{
  (void)state;
  double X[N * D], y[N], Xs[NS * D], m1[NS], m2[NS];
  data(X, y, Xs);
  static const double ell = 2.0;
  sgp_laplace_result *a = fit_of(X, y, 1, &ell), *b = fit_of(X, y, 0, &ell);
  assert_false(a->scaled);
  assert_true(a->scale[0] == 1.0 && a->scale[1] == 1.0 && a->centre[0] != 0.0);
  assert_true(b->centre[0] == 0.0 && b->scale[0] == 1.0);
  predict_mean(a, Xs, m1);
  predict_mean(b, Xs, m2);
  /* centring moves the differences by 2 eps max|x| / ell per column (~3e-14
   * here), carried through the exact Laplace (cond(B) ~ 1e3): 1e-9 */
  for (int i = 0; i < NS; i++) assert_close(m1[i], m2[i], 1e-9);
  for (int i = 0; i < N; i++) assert_close(a->f[i], b->f[i], 1e-9);
  /* a fit without centre and scale (saved before them) predicts as given: scale
   * off's identity */
  double *centre = b->centre, m3[NS];
  b->centre = NULL;
  predict_mean(b, Xs, m3);
  b->centre = centre;
  assert_memory_equal(m2, m3, NS * sizeof(double));
  sgp_laplace_fit_free(a);
  sgp_laplace_fit_free(b);
}

static void constant_column_keeps_scale_one(void **state)
{
  (void)state;
  double X[N * D], y[N], Xs[NS * D];
  data(X, y, Xs);
  for (int i = 0; i < N; i++) X[i + N] = 0.1; /* not a sum's exact multiple */
  sgp_laplace_result *a = fit_of(X, y, 1, NULL);
  assert_true(a->scale[1] == 1.0 && a->centre[1] == 0.1);
  assert_non_null(strstr(a->scale_note, "a constant column keeps scale 1"));
  sgp_laplace_fit_free(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(scaled_is_unscaled_on_standardized_inputs),
    cmocka_unit_test(given_lengthscale_centres_only),
    cmocka_unit_test(constant_column_keeps_scale_one),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
