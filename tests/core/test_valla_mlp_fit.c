/* test_valla_mlp_fit.c -- the MAP trainer: loss gradient vs central differences
 * for every loss and a skip network, training reduces the loss, seeded runs
 * reproduce, bad labels are named. */
#include "valla_fixtures.h"

static void loss_gradient_matches_fd(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 51);
  const sgp_likelihood liks[3] = {SGP_LIK_GAUSSIAN, SGP_LIK_SOFTMAX, SGP_LIK_BERNOULLI};
  for (int k = 0; k < 3; k++) {
    const int64_t width[4] = {2, 5, 4, k == 1 ? 3 : 1}, n = 7;
    sgp_valla_net net;
    vf_random_net(&rng, 3, width, 1, k == 1 ? SGP_ACT_SIGMOID : SGP_ACT_TANH,
                  k == 0 ? SGP_ACT_SIGMOID : SGP_ACT_IDENTITY, 1.3, &net);
    const int64_t P = sgp_valla_net_nparam(&net);
    double X[14], y[7], *g = th_zeros(P), *gfd = th_zeros(P), f;
    th_randn(&rng, 14, X, 1.0, 0.0);
    for (int i = 0; i < n; i++) y[i] = k == 0 ? sgp_rng_normal(&rng) : (double)(i % (k == 1 ? 3 : 2));
    assert_int_equal(valla_mlp_loss_grad(&ctx, &net, liks[k], sgp_cmat_of(X, n, 2), y, &f, g), SGP_OK);
    for (int64_t p = 0; p < P; p++) {
      double *w = vf_param(&net, p), w0 = *w, h = 1e-6 * fmax(1, fabs(w0)), fp, fm;
      *w = w0 + h; assert_int_equal(valla_mlp_loss_grad(&ctx, &net, liks[k], sgp_cmat_of(X, n, 2), y, &fp, NULL), SGP_OK);
      *w = w0 - h; assert_int_equal(valla_mlp_loss_grad(&ctx, &net, liks[k], sgp_cmat_of(X, n, 2), y, &fm, NULL), SGP_OK);
      *w = w0;
      gfd[p] = (fp - fm) / (2 * h);
    }
    assert_le(vf_rel(P, g, gfd), 1e-6);
    sgp_valla_net_free(&net);
    free(g); free(gfd);
  }
}

static void training_reduces_loss_and_is_seeded(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 52);
  const int64_t width[3] = {1, 16, 1}, n = 100;
  double X[100], y[100], loss[2], start;
  sgp_valla_mlp_fit_info info;
  for (int i = 0; i < n; i++) { X[i] = -2 + 4.0 * i / (n - 1); y[i] = sin(2 * X[i]) + 0.05 * sgp_rng_normal(&rng); }
  sgp_valla_mlp_fit_opts o;
  sgp_valla_mlp_fit_opts_default(&o);
  o.iterations = 1500; o.batch_size = 20; o.lr = 1e-2; o.weight_decay = 1e-4;
  sgp_valla_net nets[2];
  for (int k = 0; k < 2; k++) {
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    sgp_ctx_set_seed(&ctx, 9);
    vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.0, &nets[k]);
    assert_int_equal(sgp_valla_net_init_random(&ctx, &nets[k]), SGP_OK);
    /* the start is the network mapped to y's scale: sd^2 times its loss on (y - m) / sd */
    double m = 0, v = 0, ys[100];
    for (int i = 0; i < n; i++) m += y[i];
    m /= (double)n;
    for (int i = 0; i < n; i++) v += (y[i] - m) * (y[i] - m);
    const double sd = sqrt(v / (double)n);
    for (int i = 0; i < n; i++) ys[i] = (y[i] - m) / sd;
    assert_int_equal(valla_mlp_loss_grad(&ctx, &nets[k], SGP_LIK_GAUSSIAN, sgp_cmat_of(X, n, 1), ys, &start, NULL), SGP_OK);
    start *= sd * sd;
    assert_int_equal(sgp_valla_mlp_fit(&ctx, &nets[k], sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1), &o, &info), SGP_OK);
    loss[k] = info.final_loss;
    assert_true(fabs(info.initial_loss - start) <= 1e-13 * start); /* same sums, one product */
    assert_int_equal(info.stop, SGP_VALLA_STOP_ITERATIONS);
    assert_int_equal(info.iterations, o.iterations);
  }
  assert_le(loss[0], 0.05);           /* var(sin 2x) ~ 0.5 */
  assert_true(loss[0] < 0.2 * start);
  assert_memory_equal(nets[0].W[0], nets[1].W[0], 16 * sizeof(double));
  assert_true(loss[0] == loss[1]);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  o.likelihood = SGP_LIK_BERNOULLI;
  y[3] = 2;
  assert_int_equal(sgp_valla_mlp_fit(&ctx, &nets[0], sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1), &o, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "y: label");
  sgp_valla_net_free(&nets[0]);
  sgp_valla_net_free(&nets[1]);
}

/* Gaussian targets are standardized inside: training on a y + b (mcycle's units: sd
 * about 48, mean about -25) gives a g + b. In exact arithmetic both runs see the same
 * standardized targets and the same trajectory; they differ by the rounding of the
 * standardization (|a| eps relative), which 1500 Adam steps may amplify but not to
 * 1e-6 of the output's scale (a run without standardization misses by O(1): the
 * raw loss of an unstandardized run is several times larger). */
static void targets_are_standardized(void **state)
{
  (void)state;
  const int64_t width[3] = {1, 16, 1}, n = 100;
  const double a = 48.0, b = -25.0;
  double X[100], y[2][100], loss[2], out[2][100];
  sgp_rng rng;
  sgp_rng_seed(&rng, 53);
  for (int i = 0; i < n; i++) {
    X[i] = -2 + 4.0 * i / (n - 1);
    y[0][i] = sin(2 * X[i]) + 0.05 * sgp_rng_normal(&rng);
    y[1][i] = a * y[0][i] + b;
  }
  sgp_valla_mlp_fit_opts o;
  sgp_valla_mlp_fit_opts_default(&o);
  o.iterations = 1500; o.batch_size = 20; o.lr = 1e-2;
  for (int k = 0; k < 2; k++) {
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    sgp_ctx_set_seed(&ctx, 9);
    sgp_valla_net net;
    assert_int_equal(sgp_valla_net_new(&ctx, 2, width, SGP_ACT_TANH, &net), SGP_OK);
    sgp_valla_mlp_fit_info info;
    assert_int_equal(sgp_valla_mlp_fit(&ctx, &net, sgp_cmat_of(X, n, 1), sgp_cmat_of(y[k], n, 1), &o, &info), SGP_OK);
    loss[k] = info.final_loss;
    sgp_mat G = {out[k], n, 1, n};
    assert_int_equal(sgp_valla_forward(&ctx, &net, sgp_cmat_of(X, n, 1), G), SGP_OK);
    sgp_valla_net_free(&net);
  }
  double e = 0;
  for (int i = 0; i < n; i++) e = fmax(e, fabs(out[1][i] - (a * out[0][i] + b)));
  assert_true(e <= 1e-6 * a);
  assert_true(fabs(loss[1] - a * a * loss[0]) <= 1e-6 * a * a * loss[0] + 1e-12 * a * a);
  assert_true(loss[0] <= 0.05); /* var(sin 2x) ~ 0.5: the fit itself is good */
}

/* A learning rate that diverges: a non-finite loss stops the training with finite
 * weights (stop = diverged), a loss that ends above its start is reported
 * (loss_rose); neither is an error. */
static void divergence_is_reported(void **state)
{
  (void)state;
  const int64_t width[3] = {1, 16, 1}, n = 100;
  double X[100], y[100];
  for (int i = 0; i < n; i++) { X[i] = -2 + 4.0 * i / (n - 1); y[i] = sin(2 * X[i]); }
  const double lrs[2] = {1e300, 1e5};
  for (int k = 0; k < 2; k++) {
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    sgp_ctx_set_seed(&ctx, 3);
    sgp_valla_net net;
    assert_int_equal(sgp_valla_net_new(&ctx, 2, width, SGP_ACT_TANH, &net), SGP_OK);
    sgp_valla_mlp_fit_opts o;
    sgp_valla_mlp_fit_opts_default(&o);
    o.iterations = 200; o.batch_size = 20; o.lr = lrs[k];
    sgp_valla_mlp_fit_info info;
    assert_int_equal(sgp_valla_mlp_fit(&ctx, &net, sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1), &o, &info), SGP_OK);
    for (int64_t p = 0; p < sgp_valla_net_nparam(&net); p++) assert_true(isfinite(*vf_param(&net, p)));
    assert_true(isfinite(info.final_loss));
    if (k == 0) {
      assert_int_equal(info.stop, SGP_VALLA_STOP_DIVERGED);
      assert_true(info.diverged_at >= 1 && info.diverged_at <= o.iterations);
      assert_int_equal(info.iterations, info.diverged_at - 1);
    } else {
      assert_int_equal(info.stop, SGP_VALLA_STOP_LOSS_ROSE);
      assert_true(info.final_loss > info.initial_loss);
    }
    assert_true(strlen(sgp_valla_stop_advice(info.stop)) > 0);
    sgp_valla_net_free(&net);
  }
}

/* Sizes are refused before anything is allocated: a width beyond the BLAS int
 * range, and a network whose training cannot fit in this machine's memory (2^60
 * parameters: no machine has 8 * 6 * 2^60 bytes). */
static void huge_networks_are_refused(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_valla_net net;
  const int64_t wide[3] = {1, 3000000000LL, 1}, huge[3] = {1 << 30, 1 << 30, 1};
  assert_int_equal(sgp_valla_net_new(&ctx, 2, wide, SGP_ACT_TANH, &net), SGP_EINVAL);
  assert_contains(ctx.errmsg, "hidden");
  assert_int_equal(sgp_valla_net_new(&ctx, 2, huge, SGP_ACT_TANH, &net), SGP_ENOMEM);
  assert_contains(ctx.errmsg, "hidden: a network of");
  assert_contains(ctx.errmsg, "use fewer hidden units");
  const int64_t issue[3] = {1, 1000000000LL, 1}; /* mlp_fit(x, y, hidden = 1e9): 3.3 TB */
  assert_int_equal(sgp_valla_mlp_check_size(&ctx, 2, issue, 0, 100), SGP_ENOMEM);
  assert_contains(ctx.errmsg, "hidden");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(loss_gradient_matches_fd),
    cmocka_unit_test(training_reduces_loss_and_is_seeded),
    cmocka_unit_test(targets_are_standardized),
    cmocka_unit_test(divergence_is_reported),
    cmocka_unit_test(huge_networks_are_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
