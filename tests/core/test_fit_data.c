/* test_fit_data.c -- a gp_laplace fit given back as plain data (the LIST value a
 * host makes of its list or struct) is checked by the core: a whole fit gives a
 * view that predicts, and each tampered field is an error naming it in the host's
 * words ("'object$root' ..."); the predict options' rules against the fit. */
#include "test_helpers.h"
#include "api/sgp_options.h"

enum { N = 4 };
static const double X[N] = {0, 1, 2, 3}, F[N] = {0.1, 0.2, 0.3, 0.4}, V[N] = {1, 1, 1, 1},
                    W[N] = {0.5, -0.5, 0.5, -0.5}, Y[N] = {0, 1, 0, 1}, R[N] = {1, 0, 0, 1},
                    ONE = 1, ZERO = 0, TRUE_ = 1;
static const double HIST[1] = {0};

#define REALV(p, n) {SGP_VAL_REAL, (n), (p), NULL, NULL, 0, 0, NULL}
#define STRV(s) {SGP_VAL_STRING, 1, NULL, (s), NULL, 0, 0, NULL}

typedef struct {
  const char *names[20];
  sgp_value vals[20], kernel[3], hist[4], steps[1], hyper[3], optim[7];
  const char *knames[3], *hnames[4], *snames[1], *hypnames[3];
  sgp_value fit;
} fit_data;

static void make_fit(fit_data *d)
{
  const char *names[] = {"x", "f", "var", "weights", "root", "likelihood", "n_class", "kernel",
                         "y", "newton_steps", "iterations", "converged", "policy",
                         "stop_reason", "history", "steps", "hyper", "optim"};
  const sgp_value vals[] = {REALV(X, N), REALV(F, N), REALV(V, N), REALV(W, N), REALV(R, N),
                            STRV("bernoulli"), REALV(&ONE, 1), {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL},
                            REALV(Y, N), REALV(&ONE, 1), REALV(&ONE, 1),
                            {SGP_VAL_LOGICAL, 1, &TRUE_, NULL, NULL, 0, 0, NULL}, STRV("cg"),
                            STRV("converged"), {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL},
                            {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL},
                            {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL}};
  const int n = (int)(sizeof names / sizeof names[0]);
  memcpy(d->names, names, sizeof names);
  memcpy(d->vals, vals, sizeof vals);
  d->vals[4].rows = N;  /* root: n x 1 */
  d->vals[4].cols = 1;
  const sgp_value k[] = {STRV("rbf"), REALV(&ONE, 1), REALV(&ONE, 1)};
  memcpy(d->kernel, k, sizeof k);
  d->knames[0] = "kernel"; d->knames[1] = "lengthscale"; d->knames[2] = "outputscale";
  d->vals[7] = (sgp_value){SGP_VAL_LIST, 3, NULL, NULL, d->knames, 0, 0, d->kernel};
  const char *hn[] = {"newton", "total", "residual", "trace"};
  memcpy(d->hnames, hn, sizeof hn);
  for (int i = 0; i < 4; i++) d->hist[i] = (sgp_value)REALV(HIST, 1);
  d->vals[14] = (sgp_value){SGP_VAL_LIST, 4, NULL, NULL, d->hnames, 0, 0, d->hist};
  d->snames[0] = "delta";
  d->steps[0] = (sgp_value)REALV(HIST, 1);
  d->vals[15] = (sgp_value){SGP_VAL_LIST, 1, NULL, NULL, d->snames, 0, 0, d->steps};
  /* the hyperparameters used (the kernel's), nothing learned: an empty trace */
  d->hypnames[0] = "mean";
  d->hypnames[1] = "lengthscale";
  d->hypnames[2] = "outputscale";
  d->hyper[0] = (sgp_value)REALV(&ZERO, 1);
  d->hyper[1] = (sgp_value)REALV(&ONE, 1);
  d->hyper[2] = (sgp_value)REALV(&ONE, 1);
  d->vals[16] = (sgp_value){SGP_VAL_LIST, 3, NULL, NULL, d->hypnames, 0, 0, d->hyper};
  static const char *const onames[] = {"evaluation", "loglik", "grad_norm", "seconds",
                                       "lengthscale", "outputscale", "mean"};
  for (int i = 0; i < 7; i++) d->optim[i] = (sgp_value)REALV(HIST, 0);
  d->vals[17] = (sgp_value){SGP_VAL_LIST, 7, NULL, NULL, onames, 0, 0, d->optim};
  d->fit = (sgp_value){SGP_VAL_LIST, n, NULL, NULL, d->names, 0, 0, d->vals};
}

static int check(fit_data *d, sgp_ctx *ctx)
{
  sgp_laplace_result view;
  sgp_kernel k;
  return sgp_laplace_fit_check(ctx, &d->fit, "object", "$", &view, &k);
}

static void whole_fit_predicts(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_data d;
  make_fit(&d);
  sgp_laplace_result view;
  sgp_kernel k;
  assert_int_equal(sgp_laplace_fit_check(&ctx, &d.fit, "object", "$", &view, &k), SGP_OK);
  double m[2], v[2];
  const double xs[2] = {0.5, 1.5};
  assert_int_equal(sgp_laplace_predict(&ctx, &view, sgp_cmat_of(xs, 2, 1), sgp_cmat_of(NULL, 0, 0),
                                       sgp_mat_of(m, 2, 1), sgp_mat_of(v, 2, 1),
                                       sgp_mat_of(NULL, 0, 0), sgp_mat_of(NULL, 0, 0)), SGP_OK);
  /* the options' rules: an offset only for the count likelihoods, "class" for classification */
  sgp_laplace_predict_opts o;
  sgp_laplace_predict_opts_default(&o);
  o.type = SGP_PREDICT_CLASS;
  assert_int_equal(sgp_laplace_predict_check(&ctx, &view, &o, 2), SGP_OK);
  o.offset = sgp_cmat_of(xs, 2, 1);
  assert_int_equal(sgp_laplace_predict_check(&ctx, &view, &o, 2), SGP_EINVAL);
  assert_string_equal(ctx.errmsg,
                      "offset: is only used with likelihood = \"poisson\" or \"negbin\"");
}

/* A root of all n C columns with no iteration is the exact state (a full budget
 * whose right-hand side met the tolerance at once: the dense Cholesky of K^). */
static void exact_state_without_iterations(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_data d;
  make_fit(&d);
  static const double root[N * N] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  d.vals[4] = (sgp_value)REALV(root, N * N);
  d.vals[4].rows = N;
  d.vals[4].cols = N;
  d.vals[10] = (sgp_value)REALV(&ZERO, 1);
  assert_int_equal(check(&d, &ctx), SGP_OK);
  d.vals[4].len = N * (N - 1); /* one column short of the exact state */
  d.vals[4].cols = N - 1;
  assert_int_equal(check(&d, &ctx), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'object$root' has 3 columns but the fit took 0 solver iterations");
}

static void tampered_fields_are_named(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_data d;
  make_fit(&d);
  d.vals[3].len = N - 1; /* weights */
  assert_int_equal(check(&d, &ctx), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'object$weights' is 3 x 1; need 4 x 1");
  make_fit(&d);
  d.vals[10] = (sgp_value)REALV(&ZERO, 1); /* iterations 0 with a root column */
  assert_int_equal(check(&d, &ctx), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'object$root' has 1 columns but the fit took 0 solver iterations");
  make_fit(&d);
  d.vals[4].len = 0; /* no root column after an iteration: predict would give the prior */
  d.vals[4].cols = 0;
  assert_int_equal(check(&d, &ctx), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'object$root' has 0 columns but the fit took 1 solver iterations");
  make_fit(&d);
  d.vals[5] = (sgp_value)STRV("probit");
  assert_int_equal(check(&d, &ctx), SGP_EINVAL);
  assert_non_null(strstr(ctx.errmsg, "'object$likelihood' must be one of"));
  make_fit(&d);
  d.fit.len = 16; /* hyper deleted: predicting would drop the prior mean */
  assert_int_equal(check(&d, &ctx), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'object$hyper' is missing");
  make_fit(&d);
  static const double NAN_ = NAN;
  d.hyper[0] = (sgp_value)REALV(&NAN_, 1);
  assert_int_equal(check(&d, &ctx), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'object$hyper$mean' contains NaN, NA or Inf");
  make_fit(&d);
  d.hyper[0] = (sgp_value)STRV("zero");
  assert_int_equal(check(&d, &ctx), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'object$hyper$mean' must be one number (the constant prior mean)");
  make_fit(&d);
  d.fit.len = 2; /* only x and f */
  assert_int_equal(check(&d, &ctx), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'object$weights' is missing");
  const sgp_value notalist = REALV(X, 1);
  sgp_laplace_result view;
  sgp_kernel k;
  assert_int_equal(sgp_laplace_fit_check(&ctx, &notalist, "fit", ".", &view, &k), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'fit' must be a gp_laplace fit (a list or struct)");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(whole_fit_predicts),
    cmocka_unit_test(tampered_fields_are_named),
    cmocka_unit_test(exact_state_without_iterations),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
