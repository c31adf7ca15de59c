/* test_valla_stop.c -- why valla's Adam loop stopped: a learning rate
 * that makes the objective or the parameters non-finite (or the prior / noise
 * variance leave the normal doubles) stops the loop with a usable state and
 * stop = diverged; an objective that rises over the run is reported as
 * loss_rose; an ordinary run says iterations. None of them is an error. */
#include "valla_fixtures.h"

#include <float.h>

static const sgp_mat NOMAT = {NULL, 0, 0, 1};
static const sgp_cmat NOCMAT = {NULL, 0, 0, 1};

typedef struct {
  double lr, val_frac;
  int64_t iterations;
  sgp_valla_stop stop;
} stop_case;

/* The fit of a tanh net trained by mlp_fit on sin data with one case's options; checks the stop reason and that the fit predicts finite variances. */
static void one_stop_case(const stop_case *sc)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 5);
  const int64_t width[3] = {1, 20, 1}, n = 200, ns = 7;
  double X[200], y[200], Xs[7], v[7];
  for (int64_t i = 0; i < n; i++) { X[i] = -2 + 4.0 * (double)i / (double)(n - 1); y[i] = sin(2 * X[i]); }
  for (int64_t i = 0; i < ns; i++) Xs[i] = -3 + (double)i;
  sgp_valla_net net;
  sgp_valla_mlp_fit_opts mo;
  sgp_valla_mlp_fit_opts_default(&mo);
  mo.iterations = 500; mo.lr = 1e-2;
  assert_int_equal(sgp_valla_net_new(&ctx, 2, width, SGP_ACT_TANH, &net), SGP_OK);
  assert_int_equal(sgp_valla_mlp_fit(&ctx, &net, sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1), &mo, NULL), SGP_OK);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.n_inducing = 10;
  o.iterations = sc->iterations;
  o.lr = sc->lr;
  o.val_frac = sc->val_frac;
  sgp_valla_result *f = NULL;
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_OK);
  print_message("lr %g, val_frac %g: stop %s at %lld, %lld iterations\n", sc->lr, sc->val_frac,
                sgp_valla_stop_name(f->stop), (long long)f->diverged_at, (long long)f->iterations);
  assert_int_equal(f->stop, sc->stop);
  if (sc->stop == SGP_VALLA_STOP_DIVERGED) {
    assert_true(f->diverged_at >= 1);
    assert_int_equal(f->iterations, f->diverged_at - 1);
  } else {
    assert_int_equal(f->diverged_at, 0);
  }
  const double s0 = sgp_valla_fit_prior_var(f), s = sgp_valla_fit_noise(f);
  assert_true(s0 >= DBL_MIN && s0 <= DBL_MAX && s >= DBL_MIN && s <= DBL_MAX);
  for (int64_t k = 0; k < f->iterations; k++) assert_true(isfinite(f->trace_obj[k]));
  assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, 1), NOMAT, sgp_mat_of(v, ns, 1), NOMAT, NOMAT, NOMAT), SGP_OK);
  for (int64_t i = 0; i < ns; i++) assert_true(isfinite(v[i]) && v[i] > 0);
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

static void stop_reasons(void **state)
{
  (void)state;
  const stop_case cases[] = {
    {1e-2, 0.0, 300, SGP_VALLA_STOP_ITERATIONS},
    {1e3, 0.1, 50, SGP_VALLA_STOP_DIVERGED},   /* log sigma0 = -+1000 after one step */
    {1e3, 0.0, 50, SGP_VALLA_STOP_DIVERGED},
    {1e300, 0.0, 50, SGP_VALLA_STOP_DIVERGED}, /* the step itself overflows */
    {9, 0.0, 300, SGP_VALLA_STOP_LOSS_ROSE},   /* finite, but the objective climbs (with
                                                  this network lr 6-8 and 12-20 diverge) */
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) one_stop_case(&cases[k]);
  assert_string_equal(sgp_valla_stop_name(SGP_VALLA_STOP_EARLY), "early_stopping");
  assert_contains(sgp_valla_stop_advice(SGP_VALLA_STOP_DIVERGED), "lower it");
  assert_string_equal(sgp_valla_stop_advice(SGP_VALLA_STOP_ITERATIONS), "");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(stop_reasons),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
