/* test_laplace_view.c -- sgp_laplace_fit_view: predictions from plain data (as a
 * reloaded R/Octave fit holds it) equal those of the owning fit bitwise, for
 * every likelihood; bad shapes and values are errors naming the field. */
#include "test_helpers.h"

#include <stdlib.h>

static void fit_problem(sgp_ctx *ctx, sgp_likelihood kind, int64_t n, int C,
                        sgp_laplace_result **fit, double *X, double *y)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 7 + (uint64_t)kind);
  th_randn(&rng, 2 * n, X, 1.0, 0.0);
  for (int64_t i = 0; i < n; i++) {
    const double u = sgp_rng_uniform(&rng);
    if (kind == SGP_LIK_SOFTMAX) y[i] = 1.0 + (double)(int64_t)(u * C);
    else if (kind == SGP_LIK_POISSON) y[i] = (double)(int64_t)(3.0 * u);
    else if (kind == SGP_LIK_BERNOULLI) y[i] = X[i] + 0.3 * (u - 0.5) > 0 ? 1.0 : 0.0;
    else y[i] = sin(2.0 * X[i]) + 0.1 * (u - 0.5);
  }
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  static const double ell = 0.8, noise = 0.05;
  o.likelihood = kind;
  o.kernel.lengthscale = &ell;
  o.n_class = C;
  o.max_iter = 4;
  o.learn = 0; /* the view below has no prior mean: keep it 0 */
  static const double zero = 0.0;
  o.mean = &zero;
  o.n_mean = 1;
  if (kind == SGP_LIK_GAUSSIAN) o.noise = sgp_cmat_of(&noise, 1, 1);
  assert_int_equal(sgp_laplace_fit(ctx, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1),
                                   sgp_cmat_of(NULL, 0, 0), &o, fit), SGP_OK);
}

static void view_predicts_like_the_fit_case(sgp_likelihood kind, int C)
{
  const int64_t n = 25, ns = 7;
  double X[50], y[25], Xs[14];
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_result *fit = NULL, view;
  fit_problem(&ctx, kind, n, C, &fit, X, y);
  assert_true(fit->r > 0);
  sgp_rng rng;
  sgp_rng_seed(&rng, 99);
  th_randn(&rng, 2 * ns, Xs, 1.0, 0.0);
  /* plain copies: the view must not depend on the fit's own arrays */
  const int64_t NC = n * fit->C;
  double *Xc = th_zeros(n * 2), *wc = th_zeros(NC), *rc = th_zeros(NC * fit->r);
  memcpy(Xc, fit->X, sizeof(double) * (size_t)(n * 2));
  memcpy(wc, fit->weights, sizeof(double) * (size_t)NC);
  memcpy(rc, fit->root, sizeof(double) * (size_t)(NC * fit->r));
  const double ell = fit->lengthscale[0];
  sgp_kernel k = fit->kernel;
  k.lengthscale = &ell;
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, sgp_cmat_of(Xc, n, 2),
                                        sgp_cmat_of(wc, n, fit->C),
                                        sgp_cmat_of(rc, NC, fit->r), &k, kind, fit->noise,
                                        sgp_cmat_of(NULL, 0, 0)),
                   SGP_OK);
  /* the inputs' centring (the lengthscale is given: no scale), as a reloaded fit
   * holds it */
  double *cc = th_zeros(2), *sc = th_zeros(2);
  memcpy(cc, fit->centre, 2 * sizeof(double));
  memcpy(sc, fit->scale, 2 * sizeof(double));
  assert_false(fit->scaled);
  assert_true(sc[0] == 1.0 && sc[1] == 1.0 && cc[0] != 0.0);
  view.centre = cc;
  view.scale = sc;
  const int64_t q = ns * fit->C;
  double *m1 = th_zeros(4 * q), *m2 = th_zeros(4 * q);
  const sgp_cmat Xsv = sgp_cmat_of(Xs, ns, 2), none = sgp_cmat_of(NULL, 0, 0);
  assert_int_equal(sgp_laplace_predict(&ctx, fit, Xsv, none, sgp_mat_of(m1, ns, fit->C),
                                       sgp_mat_of(m1 + q, ns, fit->C),
                                       sgp_mat_of(m1 + 2 * q, ns, fit->C),
                                       sgp_mat_of(m1 + 3 * q, ns, fit->C)), SGP_OK);
  assert_int_equal(sgp_laplace_predict(&ctx, &view, Xsv, none, sgp_mat_of(m2, ns, fit->C),
                                       sgp_mat_of(m2 + q, ns, fit->C),
                                       sgp_mat_of(m2 + 2 * q, ns, fit->C),
                                       sgp_mat_of(m2 + 3 * q, ns, fit->C)), SGP_OK);
  assert_memory_equal(m1, m2, sizeof(double) * (size_t)(4 * q));
  /* the latent variance is not trivially the prior: the root is used */
  assert_true(m1[q] < fit->kernel.outputscale - 1e-6);
  free(m1); free(m2); free(Xc); free(wc); free(rc); free(cc); free(sc);
  sgp_laplace_fit_free(fit);
}

static void view_predicts_like_the_fit(void **state)
{
  (void)state;
  view_predicts_like_the_fit_case(SGP_LIK_BERNOULLI, 1);
  view_predicts_like_the_fit_case(SGP_LIK_POISSON, 1);
  view_predicts_like_the_fit_case(SGP_LIK_GAUSSIAN, 1);
  view_predicts_like_the_fit_case(SGP_LIK_SOFTMAX, 3);
}

static void view_rejects_bad_fields(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_result view;
  double X[6] = {0, 1, 2, 0, 1, 2}, w[6] = {0.1, 0.2, 0.3, 0.1, 0.2, 0.3}, R[6] = {0};
  const double ell = 1.0, bad_ell = -1.0;
  sgp_kernel k = {SGP_KERNEL_RBF, &ell, 1, 1.0, 1.0};
  const sgp_cmat Xv = sgp_cmat_of(X, 3, 2), wv = sgp_cmat_of(w, 3, 1);
  const sgp_cmat Rv = sgp_cmat_of(R, 3, 2), none = sgp_cmat_of(NULL, 0, 0);
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, wv, Rv, &k, SGP_LIK_BERNOULLI, 0, sgp_cmat_of(NULL, 0, 0)),
                   SGP_OK);
  assert_int_equal(view.r, 2);
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, wv, none, &k, SGP_LIK_POISSON, 0, sgp_cmat_of(NULL, 0, 0)),
                   SGP_OK);
  assert_int_equal(view.r, 0);
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, sgp_cmat_of(w, 2, 1), Rv, &k,
                                        SGP_LIK_BERNOULLI, 0, sgp_cmat_of(NULL, 0, 0)), SGP_EDIM);
  assert_contains(ctx.errmsg, "weights");
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, sgp_cmat_of(w, 3, 2), Rv, &k,
                                        SGP_LIK_BERNOULLI, 0, sgp_cmat_of(NULL, 0, 0)), SGP_EDIM);
  assert_contains(ctx.errmsg, "weights");
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, wv, Rv, &k, SGP_LIK_SOFTMAX, 0, sgp_cmat_of(NULL, 0, 0)),
                   SGP_EDIM);
  assert_contains(ctx.errmsg, "weights");
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, wv, sgp_cmat_of(R, 2, 3), &k,
                                        SGP_LIK_BERNOULLI, 0, sgp_cmat_of(NULL, 0, 0)), SGP_EDIM);
  assert_contains(ctx.errmsg, "root");
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, wv, Rv, &k, SGP_LIK_GAUSSIAN, 0, sgp_cmat_of(NULL, 0, 0)),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "noise");
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, wv, Rv, &k, (sgp_likelihood)9, 0, sgp_cmat_of(NULL, 0, 0)),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "likelihood");
  k.lengthscale = &bad_ell;
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, wv, Rv, &k, SGP_LIK_BERNOULLI, 0, sgp_cmat_of(NULL, 0, 0)),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "lengthscale");
  k.lengthscale = &ell;
  w[1] = NAN;
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, wv, Rv, &k, SGP_LIK_BERNOULLI, 0, sgp_cmat_of(NULL, 0, 0)),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "weights");
}

/* Finite fields whose predictions overflow are an error, never NaN/Inf results:
 * weights near DBL_MAX (the mean overflows), a poisson offset of 700 on top of a
 * large latent mean (the rate overflows). */
static void predictions_that_overflow_are_errors(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_result view;
  double X[3] = {0, 0.1, 0.2}, w[3] = {1e308, 1e308, 1e308}, m[2], v[2], pm[2], pv[2];
  const double ell = 1.0, Xs[2] = {0.05, 0.15}, off[2] = {700, 700};
  const sgp_kernel k = {SGP_KERNEL_RBF, &ell, 1, 1.0, 1.0};
  const sgp_cmat Xv = sgp_cmat_of(X, 3, 1), none = sgp_cmat_of(NULL, 0, 0);
  const sgp_mat M = sgp_mat_of(m, 2, 1), V = sgp_mat_of(v, 2, 1);
  const sgp_mat PM = sgp_mat_of(pm, 2, 1), PV = sgp_mat_of(pv, 2, 1);
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, sgp_cmat_of(w, 3, 1), none, &k,
                                        SGP_LIK_BERNOULLI, 0, sgp_cmat_of(NULL, 0, 0)), SGP_OK);
  assert_int_equal(sgp_laplace_predict(&ctx, &view, sgp_cmat_of(Xs, 2, 1), none, M, V, PM, PV),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "fit: the prediction overflowed double precision");
  w[0] = w[1] = w[2] = 100.0;
  assert_int_equal(sgp_laplace_fit_view(&ctx, &view, Xv, sgp_cmat_of(w, 3, 1), none, &k,
                                        SGP_LIK_POISSON, 0, sgp_cmat_of(NULL, 0, 0)), SGP_OK);
  assert_int_equal(sgp_laplace_predict(&ctx, &view, sgp_cmat_of(Xs, 2, 1), sgp_cmat_of(off, 2, 1),
                                       M, V, PM, PV), SGP_EINVAL);
  assert_contains(ctx.errmsg, "offset: the prediction overflowed double precision");
  assert_int_equal(sgp_laplace_predict(&ctx, &view, sgp_cmat_of(Xs, 2, 1), none, M, V, PM, PV),
                   SGP_OK); /* the same fit without the offset is fine */
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(view_predicts_like_the_fit),
    cmocka_unit_test(view_rejects_bad_fields),
    cmocka_unit_test(predictions_that_overflow_are_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
