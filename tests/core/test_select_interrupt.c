/* test_select_interrupt.c -- an interrupt during the learning of gp_laplace or
 * ski_gsgp ends the call: SGP_EINTERRUPT, no fit, nothing computed after it.
 * The hook reports the interrupt once, at poll k, as R's hook sees a Ctrl-C
 * (R_CheckUserInterrupt consumes it): a learning that took it as "stop
 * learning" went on to fit with the values reached (a whole fit's time), then
 * returned a fit claiming learned hyperparameters. Here k runs over the first
 * poll, polls inside an evaluation and polls of later evaluations. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdlib.h>

typedef struct { long polls, fire_at; } once_t;

static int once(void *ud)
{
  once_t *h = (once_t *)ud;
  return h->polls++ == h->fire_at;
}

static const long fire_at[] = {0, 1, 4, 12, 40};

static void laplace_learning_interrupted_is_an_interrupted_call(void **state)
{
  (void)state;
  enum { n = 150 };
  double X[2 * n], y[n];
  sgp_rng rng;
  sgp_rng_seed(&rng, 3);
  for (int i = 0; i < 2 * n; i++) X[i] = sgp_rng_uniform(&rng);
  for (int i = 0; i < n; i++) y[i] = sin(6.0 * X[i]) + sgp_rng_normal(&rng) > 0;
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o); /* learns lengthscale, outputscale and mean */
  /* the polls of an uninterrupted fit: the learning's are far more than fire_at's */
  once_t h = {0, -1};
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.interrupt = once;
  ctx.user_data = &h;
  sgp_laplace_result *fit = NULL;
  assert_int_equal(sgp_laplace_fit(&ctx, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1),
                                   sgp_cmat_of(NULL, 0, 0), &o, &fit), SGP_OK);
  assert_true(fit->hyper.n_eval >= 3);
  assert_true(h.polls > 2 * fire_at[4]);
  sgp_laplace_fit_free(fit);
  for (size_t i = 0; i < sizeof fire_at / sizeof fire_at[0]; i++) {
    sgp_ctx_init(&ctx);
    h.polls = 0;
    h.fire_at = fire_at[i];
    ctx.interrupt = once;
    ctx.user_data = &h;
    fit = (sgp_laplace_result *)0x1;
    const int st = sgp_laplace_fit(&ctx, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1),
                                   sgp_cmat_of(NULL, 0, 0), &o, &fit);
    if (st != SGP_EINTERRUPT)
      fail_msg("interrupt at poll %ld: status %d (%s), %ld polls in all", fire_at[i], st,
               ctx.errmsg, h.polls);
    assert_null(fit);
    assert_string_equal(ctx.errmsg, "interrupted by the user");
    assert_int_equal(h.polls, fire_at[i] + 1); /* nothing polled, so nothing run, after it */
  }
}

static void ski_learning_interrupted_is_an_interrupted_call(void **state)
{
  (void)state;
  enum { N = 500, M = 50, T = 10 };
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double X[N], y[N], weights[M], hist[1001];
  sgp_rng rng;
  sgp_rng_seed(&rng, 5);
  for (int i = 0; i < N; i++) {
    X[i] = 4.0 * sgp_rng_uniform(&rng);
    y[i] = sin(3 * X[i]) + 0.1 * sgp_rng_normal(&rng);
  }
  const double range[2] = {0.0, 4.0};
  const int64_t size[1] = {M};
  sgp_ski_grid g;
  assert_int_equal(sgp_ski_grid_auto(&ctx, sgp_cmat_of(range, 1, 2), size, SGP_SKI_CUBIC, -1, &g),
                   SGP_OK);
  sgp_ski_opts o, ro;
  sgp_ski_opts_default(&o); /* learns every hyperparameter */
  o.probes = T;
  o.seed = 3;
  double *uz = th_zeros(M * T), rhoz = 0.0;
  sgp_ski_stats *st = NULL;
  sgp_ski_stats_data sd;
  assert_int_equal(sgp_ski_stats_compute(&ctx, &g, &o, sgp_cmat_of(X, N, 1), sgp_cmat_of(y, N, 1),
                                         0, &st, uz, &rhoz), SGP_OK);
  assert_int_equal(sgp_ski_stats_export(&ctx, st, &sd), SGP_OK);
  sd.probes = T;
  sd.probe_seed = 3;
  sd.uz = uz;
  sd.rhoz = rhoz;
  once_t h = {0, -1};
  for (int i = -1; i < (int)(sizeof fire_at / sizeof fire_at[0]); i++) {
    sgp_ski_selection sel;
    sgp_ski_result res;
    memset(&res, 0, sizeof res);
    res.weights = weights;
    res.history = hist;
    h.polls = 0;
    h.fire_at = i < 0 ? -1 : fire_at[i];
    ctx.interrupt = once;
    ctx.user_data = &h;
    ctx.errmsg[0] = '\0';
    const int code = sgp_ski_fit_learn(&ctx, &sd, &o, sgp_cmat_of(X, N, 1), sgp_cmat_of(y, N, 1),
                                       &ro, &sel, &res);
    if (i < 0) { /* uninterrupted: it learns, and polls far more often than fire_at's */
      assert_int_equal(code, SGP_OK);
      assert_true(sel.hyper.n_eval >= 3);
      assert_true(h.polls > 2 * fire_at[4]);
    } else {
      if (code != SGP_EINTERRUPT)
        fail_msg("interrupt at poll %ld: status %d (%s)", fire_at[i], code, ctx.errmsg);
      assert_string_equal(ctx.errmsg, "interrupted by the user");
      assert_int_equal(h.polls, fire_at[i] + 1);
    }
    sgp_ski_selection_free(&sel);
  }
  sgp_ski_stats_free(st);
  free(uz);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(laplace_learning_interrupted_is_an_interrupted_call),
    cmocka_unit_test(ski_learning_interrupted_is_an_interrupted_call),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
