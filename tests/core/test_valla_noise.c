/* test_valla_noise.c -- valla's noise from validation data and its overfitting check
 * (docs/valla.md, "Noise and validation data"): the noise is the minimizer of the validation NLL (oracle: valla_nll on
 * a fine log grid and at nearby values), and overfit is set when the validation
 * residuals are much larger than those on x, not when they are alike. */
#include "valla_fixtures.h"

static const int64_t width[3] = {2, 8, 1};

/* A hand-made fit (valla_fit_finalize builds its covariance) with y_sd = 1.7, so
 * that the standardized and original scales differ. */
static sgp_valla_result *noise_fit(sgp_rng *rng, sgp_valla_net *net, sgp_cmat X)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  vf_random_net(rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.0, net);
  sgp_valla_result *f = vf_fit_state(rng, net, SGP_LIK_GAUSSIAN, 6, X.rows, 0.5);
  f->y_sd = 1.7;
  f->y_mean = 0.4;
  assert_int_equal(valla_fit_finalize(&ctx, f, X), SGP_OK);
  return f;
}

/* y = g(X) + sd e, e ~ N(0, 1). */
static void targets(sgp_ctx *ctx, sgp_rng *rng, const sgp_valla_net *net, sgp_cmat X, double sd,
                    double *y)
{
  assert_int_equal(sgp_valla_forward(ctx, net, X, sgp_mat_of(y, X.rows, 1)), SGP_OK);
  for (int64_t i = 0; i < X.rows; i++) y[i] += sd * sgp_rng_normal(rng);
}

static void noise_minimizes_validation_nll(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 71);
  const int64_t n = 40, nv = 30;
  double X[80], Xv[60], yv[30];
  th_randn(&rng, 2 * n, X, 1.0, 0.0);
  th_randn(&rng, 2 * nv, Xv, 1.0, 0.0);
  sgp_valla_net net;
  sgp_valla_result *f = noise_fit(&rng, &net, sgp_cmat_of(X, n, 2));
  targets(&ctx, &rng, &net, sgp_cmat_of(Xv, nv, 2), 0.9, yv);
  assert_int_equal(valla_noise_from_validation(&ctx, f, sgp_cmat_of(Xv, nv, 2), sgp_cmat_of(yv, nv, 1)), SGP_OK);
  const double best = f->log_noise;
  double nll0, nll;
  assert_int_equal(valla_nll(&ctx, f, sgp_cmat_of(Xv, nv, 2), sgp_cmat_of(yv, nv, 1), &nll0), SGP_OK);
  /* a grid over 16 decades of the noise around it, and steps of 1e-4 in log s: the
   * NLL is not lower anywhere (up to rounding of a mean of 30 terms: 1e-13) */
  for (int k = -400; k <= 400; k++) {
    const double d = k == -400 ? -1e-4 : k == 400 ? 1e-4 : 0.046 * k;
    f->log_noise = best + d;
    assert_int_equal(valla_nll(&ctx, f, sgp_cmat_of(Xv, nv, 2), sgp_cmat_of(yv, nv, 1), &nll), SGP_OK);
    assert_true(nll >= nll0 - 1e-13 * fabs(nll0));
  }
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

static void overfitting_is_flagged(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 72);
  const int64_t n = 200, nv = 200;
  double X[400], Xv[400], y[200], yv[200], g[200];
  th_randn(&rng, 2 * n, X, 1.0, 0.0);
  th_randn(&rng, 2 * nv, Xv, 1.0, 0.0);
  sgp_valla_net net;
  sgp_valla_result *f = noise_fit(&rng, &net, sgp_cmat_of(X, n, 2));
  targets(&ctx, &rng, &net, sgp_cmat_of(X, n, 2), 0.2, y);
  /* residuals of one level: the log ratio of the mean squares has sd about
   * sqrt(2/200 + 2/200) = 0.14, so 1.5 (log 0.41) is 2.9 sd away: not flagged */
  targets(&ctx, &rng, &net, sgp_cmat_of(Xv, nv, 2), 0.2, yv);
  assert_int_equal(valla_overfit_check(&ctx, f, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), sgp_cmat_of(Xv, nv, 2), sgp_cmat_of(yv, nv, 1)), SGP_OK);
  assert_int_equal(f->overfit, 0);
  char buf[512];
  assert_int_equal(sgp_valla_overfit_warning(f, buf, sizeof buf), 0);
  assert_string_equal(buf, "");
  /* the RMSE on x, against a direct sum (original scale: y_sd does not enter) */
  assert_int_equal(sgp_valla_forward(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_mat_of(g, n, 1)), SGP_OK);
  double ms = 0;
  for (int64_t i = 0; i < n; i++) ms += (y[i] - g[i]) * (y[i] - g[i]) / (double)n;
  assert_true(fabs(f->rmse_train - sqrt(ms)) <= 1e-12 * sqrt(ms));
  /* validation residuals three times larger (mean square 9 times): flagged, with
   * the words of the warning */
  targets(&ctx, &rng, &net, sgp_cmat_of(Xv, nv, 2), 0.6, yv);
  assert_int_equal(valla_overfit_check(&ctx, f, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), sgp_cmat_of(Xv, nv, 2), sgp_cmat_of(yv, nv, 1)), SGP_OK);
  assert_int_equal(f->overfit, 1);
  f->noise_from_val = 1;
  assert_int_equal(sgp_valla_overfit_warning(f, buf, sizeof buf), 1);
  assert_contains(buf, "(overfitting); the noise variance is taken from the validation data");
  f->noise_from_val = 0;
  sgp_valla_overfit_warning(f, buf, sizeof buf);
  assert_contains(buf, "noise_fit = \"validation\"");
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(noise_minimizes_validation_nll),
    cmocka_unit_test(overfitting_is_flagged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
