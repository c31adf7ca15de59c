/* test_valla_api.c -- the public glue (core/valla/valla_api.c): a fit rebuilt from
 * its plain data (what R / Octave save) predicts like the live fit for every
 * method and likelihood; the exported network view round-trips; activation
 * names; sgp_valla_net_new; bad plain data names the field. */
#include "valla_fixtures.h"

static const sgp_mat NOMAT = {NULL, 0, 0, 1};
static const sgp_cmat NOCMAT = {NULL, 0, 0, 1};

/* Rebuilds fit from its plain data through the exported network view. */
static sgp_valla_result *rebuild(sgp_ctx *ctx, const sgp_valla_result *fit)
{
  sgp_cmat W[8], b[8];
  sgp_valla_mlp mlp;
  sgp_valla_net_view(&fit->net, W, b, &mlp);
  sgp_valla_fit_data d;
  memset(&d, 0, sizeof d);
  d.likelihood = fit->likelihood;
  d.method = fit->method;
  d.inducing = sgp_cmat_of(fit->Z, fit->M, fit->D);
  d.tags = fit->tags;
  d.layers = fit->layers;
  d.P1 = sgp_cmat_of(fit->P1, fit->P1 ? fit->M : 0, fit->P1 ? fit->M : 0);
  d.P2 = sgp_cmat_of(fit->P2, fit->P2 ? fit->M : 0, fit->P2 ? fit->M : 0);
  d.prior = fit->prior;
  d.closed_form = fit->closed_form;
  d.prior_var = sgp_valla_fit_prior_var(fit);
  d.noise = sgp_valla_fit_noise(fit);
  d.y_mean = fit->y_mean;
  d.y_sd = fit->y_sd;
  sgp_valla_result *out = NULL;
  assert_int_equal(sgp_valla_fit_from_data(ctx, &mlp, &d, &out), SGP_OK);
  return out;
}

static void plain_data_predicts_like_live_fit(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 5);
  sgp_rng rng;
  sgp_rng_seed(&rng, 71);
  const int64_t n = 30, nt = 7, D = 2;
  for (int k = 0; k < 3; k++) {
    const sgp_likelihood lik = k == 0 ? SGP_LIK_GAUSSIAN : k == 1 ? SGP_LIK_SOFTMAX : SGP_LIK_BERNOULLI;
    const int64_t C = k == 1 ? 3 : 1, K = k == 2 ? 2 : C, width[3] = {D, 5, C};
    sgp_valla_net net;
    vf_random_net(&rng, 2, width, k == 1, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.2, &net);
    double X[60], Xt[14], y[30];
    th_randn(&rng, n * D, X, 1.0, 0.0);
    th_randn(&rng, nt * D, Xt, 1.5, 0.0);
    for (int64_t i = 0; i < n; i++) y[i] = k == 0 ? sin(3 * X[i]) + 0.5 : (double)(i % K);
    for (int m = 0; m < 4; m++) {
      sgp_valla_opts o;
      sgp_valla_opts_default(&o);
      o.likelihood = lik;
      o.n_inducing = 6;
      o.iterations = 40;
      o.batch_size = 10;
      o.lr = 1e-2;
      o.noise = k == 0 ? 0.05 : -1;
      o.method = m == 2 ? SGP_VALLA_METHOD_LLA : m == 3 ? SGP_VALLA_METHOD_ELLA : SGP_VALLA_METHOD_VALLA;
      o.closed_form = m == 1;
      o.ella_rank = 4;
      sgp_valla_result *fit = NULL;
      assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &fit), SGP_OK);
      sgp_valla_result *re = rebuild(&ctx, fit);
      double mu[2][21], v[2][21], lv[2][21], pr[2][21], cv[2][63];
      for (int f = 0; f < 2; f++)
        assert_int_equal(sgp_valla_predict(&ctx, f ? re : fit, sgp_cmat_of(Xt, nt, D), sgp_mat_of(mu[f], nt, C),
                                           sgp_mat_of(v[f], nt, C), sgp_mat_of(lv[f], nt, C),
                                           k ? sgp_mat_of(pr[f], nt, K) : NOMAT, sgp_mat_of(cv[f], C * C, nt)), SGP_OK);
      assert_true(th_max_abs_diff(nt * C, mu[0], mu[1]) == 0.0); /* the same network */
      const double sv = th_max_abs(nt * C, v[0]);
      assert_true(sv > 0);
      assert_le(th_max_abs_diff(nt * C, v[0], v[1]), 1e-12 * sv);
      assert_le(th_max_abs_diff(nt * C, lv[0], lv[1]), 1e-12 * sv);
      assert_le(th_max_abs_diff(nt * C * C, cv[0], cv[1]), 1e-12 * sv);
      if (k) assert_le(th_max_abs_diff(nt * K, pr[0], pr[1]), 1e-12);
      assert_close(sgp_valla_fit_prior_var(re), sgp_valla_fit_prior_var(fit), 1e-14 * sgp_valla_fit_prior_var(fit));
      sgp_valla_fit_free(re);
      sgp_valla_fit_free(fit);
    }
    sgp_valla_net_free(&net);
  }
}

static void net_view_and_names(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 3);
  for (int a = 0; a < 5; a++) {
    sgp_activation act;
    assert_int_equal(sgp_valla_activation_from_name(sgp_valla_activation_name((sgp_activation)a), &act), SGP_OK);
    assert_int_equal((int)act, a);
  }
  sgp_activation act;
  assert_int_equal(sgp_valla_activation_from_name("softplus", &act), SGP_EINVAL);
  assert_int_equal(sgp_valla_activation_from_name(NULL, &act), SGP_EINVAL);
  const int64_t width[4] = {3, 4, 5, 2};
  sgp_valla_net a, b;
  assert_int_equal(sgp_valla_net_new(&ctx, 3, width, SGP_ACT_RELU, &a), SGP_OK);
  assert_int_equal(sgp_valla_net_nparam(&a), 3 * 4 + 4 + 4 * 5 + 5 + 5 * 2 + 2);
  assert_true(th_max_abs(12, a.W[0]) > 0); /* Glorot, not zeros */
  assert_int_equal((int)a.output, SGP_ACT_IDENTITY);
  sgp_cmat W[3], bb[3];
  sgp_valla_mlp mlp;
  sgp_valla_net_view(&a, W, bb, &mlp);
  assert_int_equal(sgp_valla_net_from_mlp(&ctx, &mlp, &b), SGP_OK);
  double X[15], G1[10], G2[10];
  sgp_rng rng;
  sgp_rng_seed(&rng, 9);
  th_randn(&rng, 15, X, 1.0, 0.0);
  assert_int_equal(sgp_valla_forward(&ctx, &a, sgp_cmat_of(X, 5, 3), sgp_mat_of(G1, 5, 2)), SGP_OK);
  assert_int_equal(sgp_valla_forward(&ctx, &b, sgp_cmat_of(X, 5, 3), sgp_mat_of(G2, 5, 2)), SGP_OK);
  assert_true(th_max_abs_diff(10, G1, G2) == 0.0);
  /* seeded: the same seed gives the same weights */
  sgp_valla_net c;
  sgp_ctx_set_seed(&ctx, 3);
  assert_int_equal(sgp_valla_net_new(&ctx, 3, width, SGP_ACT_RELU, &c), SGP_OK);
  assert_true(th_max_abs_diff(12, a.W[0], c.W[0]) == 0.0);
  const int64_t bad[3] = {3, 0, 2};
  sgp_valla_net e;
  assert_int_equal(sgp_valla_net_new(&ctx, 2, bad, SGP_ACT_TANH, &e), SGP_EINVAL);
  assert_contains(ctx.errmsg, "hidden");
  sgp_valla_net_free(&a); sgp_valla_net_free(&b); sgp_valla_net_free(&c);
}

static void bad_plain_data(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 2);
  const int64_t width[3] = {2, 3, 3};
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.0, &net);
  sgp_cmat W[2], b[2];
  sgp_valla_mlp mlp;
  sgp_valla_net_view(&net, W, b, &mlp);
  double Z[8] = {0, 1, 2, 3, 0, 1, 2, 3}, P[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  int tags[4] = {0, 1, 2, 3};
  sgp_valla_fit_data d;
  memset(&d, 0, sizeof d);
  d.likelihood = SGP_LIK_SOFTMAX;
  d.inducing = sgp_cmat_of(Z, 4, 2);
  d.tags = tags;
  d.P1 = sgp_cmat_of(P, 4, 4);
  d.prior = 1;
  d.prior_var = 1;
  sgp_valla_result *fit = NULL;
  assert_int_equal(sgp_valla_fit_from_data(&ctx, &mlp, &d, &fit), SGP_EINVAL);
  assert_contains(ctx.errmsg, "tags[4]");
  assert_null(fit);
  tags[3] = 2;
  d.P1 = sgp_cmat_of(P, 2, 8);
  assert_int_not_equal(sgp_valla_fit_from_data(&ctx, &mlp, &d, &fit), SGP_OK);
  assert_contains(ctx.errmsg, "P1");
  d.P1 = sgp_cmat_of(P, 4, 4);
  d.prior_var = -1;
  assert_int_equal(sgp_valla_fit_from_data(&ctx, &mlp, &d, &fit), SGP_EINVAL);
  assert_contains(ctx.errmsg, "prior_var");
  d.prior_var = 1;
  d.likelihood = SGP_LIK_GAUSSIAN;
  assert_int_equal(sgp_valla_fit_from_data(&ctx, &mlp, &d, &fit), SGP_EINVAL);
  assert_contains(ctx.errmsg, "likelihood");
  d.likelihood = SGP_LIK_SOFTMAX;
  Z[1] = NAN;
  assert_int_not_equal(sgp_valla_fit_from_data(&ctx, &mlp, &d, &fit), SGP_OK);
  assert_contains(ctx.errmsg, "inducing");
  Z[1] = 1;
  assert_int_equal(sgp_valla_fit_from_data(&ctx, &mlp, &d, &fit), SGP_OK);
  sgp_valla_fit_free(fit);
  fit = NULL;
  /* P1, P2 and prior that no method leaves (a fit that lost or gained one) */
  const sgp_cmat none = sgp_cmat_of(NULL, 0, 0), PP = sgp_cmat_of(P, 4, 4);
  const struct { sgp_valla_method method; int closed_form, prior; sgp_cmat P1, P2; const char *msg; } bad[] = {
    {SGP_VALLA_METHOD_VALLA, 0, 1, none, none, "P1: is missing although prior = true"},
    {SGP_VALLA_METHOD_VALLA, 0, 0, PP, none, "P2: a fit with prior = false has P2 and no P1"},
    {SGP_VALLA_METHOD_VALLA, 0, 1, PP, PP, "closed_form: a valla fit with a trained A"},
    {SGP_VALLA_METHOD_VALLA, 1, 1, PP, none, "P2: is missing from a closed-form fit"},
    {SGP_VALLA_METHOD_VALLA, 1, 0, none, none, "P2: a fit with prior = false"},
    {SGP_VALLA_METHOD_LLA, 0, 1, PP, PP, "method: an exact LLA fit"},
    {SGP_VALLA_METHOD_LLA, 0, 0, none, PP, "method: an exact LLA fit"},
    {SGP_VALLA_METHOD_ELLA, 0, 1, PP, PP, "method: an ELLA fit"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    d.method = bad[k].method; d.closed_form = bad[k].closed_form; d.prior = bad[k].prior;
    d.P1 = bad[k].P1; d.P2 = bad[k].P2;
    assert_int_equal(sgp_valla_fit_from_data(&ctx, &mlp, &d, &fit), SGP_EINVAL);
    assert_contains(ctx.errmsg, bad[k].msg);
    assert_contains(ctx.errmsg, "the fit is damaged");
    assert_null(fit);
  }
  const struct { sgp_valla_method method; int closed_form, prior; sgp_cmat P1, P2; } good[] = {
    {SGP_VALLA_METHOD_VALLA, 0, 1, PP, none}, {SGP_VALLA_METHOD_VALLA, 1, 1, PP, PP},
    {SGP_VALLA_METHOD_VALLA, 1, 0, none, PP}, {SGP_VALLA_METHOD_LLA, 0, 1, PP, none},
    {SGP_VALLA_METHOD_ELLA, 0, 0, none, PP},
  };
  for (size_t k = 0; k < sizeof good / sizeof good[0]; k++) {
    d.method = good[k].method; d.closed_form = good[k].closed_form; d.prior = good[k].prior;
    d.P1 = good[k].P1; d.P2 = good[k].P2;
    assert_int_equal(sgp_valla_fit_from_data(&ctx, &mlp, &d, &fit), SGP_OK);
    sgp_valla_fit_free(fit);
  }
  sgp_valla_net_free(&net);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(plain_data_predicts_like_live_fit),
    cmocka_unit_test(net_view_and_names),
    cmocka_unit_test(bad_plain_data),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
