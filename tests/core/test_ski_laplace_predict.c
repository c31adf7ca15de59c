/* test_ski_laplace_predict.c -- predictions from a ski_laplace fit given back as
 * plain data (sgp_ski_laplace_predict_plain), the fit as the hosts hold it
 * (selection's hyper on top, integers as doubles):
 *  - at the fit's xtest they equal the fit's test bitwise (mean, var, response,
 *    response_var): the same code on the same numbers (the curvature recomputed
 *    from f, the prior from the grid and hyper the fit wrote), for poisson cells
 *    with offsets and -Inf cells (exact path), learned binned labels and
 *    scattered counts (x clamped; exact and slq paths);
 *  - variance "none" gives the same means and no var;
 *  - a poisson offset o multiplies the rate by exp(o) (to rounding);
 *  - a damaged fit or bad options give errors naming the field or option. */
#include "test_helpers.h"
#include "ski_laplace/skl.h"
#include "host/value_out.h"
#include "host/fit_data.h"

#include <stdlib.h>

#define M1 12
#define M2 10
#define MG (M1 * M2)
#define NS 7

/* v as a host gives it back: INT as REAL, lists copied (into a). */
static sgp_value as_host(sgp_value_arena *a, sgp_value v)
{
  if (v.type == SGP_VAL_INT) v.type = SGP_VAL_REAL;
  if (v.type != SGP_VAL_LIST || v.len == 0) return v;
  sgp_value *e = sgp_vo_alloc(a, (size_t)v.len * sizeof(sgp_value));
  for (int64_t i = 0; i < v.len; i++) e[i] = as_host(a, v.elts[i]);
  v.elts = e;
  return v;
}

/* The fit r as the fronts keep it: its fields and selection's hyper on top. */
static sgp_value flat(sgp_value_arena *a, const sgp_value *r)
{
  const char **names = sgp_vo_alloc(a, (size_t)(r->len + 1) * sizeof(char *));
  sgp_value *e = sgp_vo_alloc(a, (size_t)(r->len + 1) * sizeof(sgp_value));
  int64_t k = 0;
  for (int64_t i = 0; i < r->len; i++) {
    names[k] = r->strs[i];
    e[k++] = as_host(a, r->elts[i]);
  }
  names[k] = "hyper";
  e[k++] = as_host(a, *sgp_fd_elt(sgp_fd_elt(r, "selection"), "hyper"));
  return sgp_vo_list(a, k, names, e);
}

/* list with its element name replaced by v (drop: removed). */
static sgp_value with(sgp_value_arena *a, const sgp_value *list, const char *name, sgp_value v,
                      int drop)
{
  const char **names = sgp_vo_alloc(a, (size_t)list->len * sizeof(char *));
  sgp_value *e = sgp_vo_alloc(a, (size_t)list->len * sizeof(sgp_value));
  int64_t k = 0;
  for (int64_t i = 0; i < list->len; i++) {
    if (drop && !strcmp(list->strs[i], name)) continue;
    names[k] = list->strs[i];
    e[k++] = strcmp(list->strs[i], name) ? list->elts[i] : v;
  }
  return sgp_vo_list(a, k, names, e);
}

typedef struct {
  double y[MG], off[MG], dim[2], bounds[4], ls[2], xt[NS * 2];
  sgp_ski_laplace_opts o;
  sgp_ski_laplace_data d;
} case_t;

/* poisson counts on the 12 x 10 grid (spacing 0.25), offsets, 20 cells without
 * exposure; fixed hyperparameters; NS test points inside the grid */
static void poisson_case(case_t *c)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 7);
  memset(c, 0, sizeof *c);
  sgp_ski_laplace_opts_default(&c->o);
  c->ls[0] = 0.6; c->ls[1] = 0.8;
  c->o.kernel.lengthscale = c->ls;
  c->o.kernel.n_lengthscale = 2;
  c->o.kernel.outputscale = 1.3;
  c->o.mean = 0.5;
  c->o.learn = 0;
  c->o.loglik_method = SGP_SKL_LOGLIK_EXACT;
  c->bounds[0] = 0.0; c->bounds[1] = 0.0; c->bounds[2] = 0.25 * (M1 - 1); c->bounds[3] = 0.25 * (M2 - 1);
  c->o.grid_bounds = c->bounds;
  c->o.n_grid_bounds = 4;
  c->dim[0] = M1; c->dim[1] = M2;
  for (int g = 0; g < MG; g++) {
    const int i = g % M1, j = g / M1;
    c->off[g] = 0.2 * sgp_rng_normal(&rng);
    c->y[g] = floor(exp(0.5 + sin(0.3 * i) + cos(0.25 * j) + c->off[g]) * sgp_rng_uniform(&rng) * 1.5);
    if (g % 6 == 3) { c->off[g] = -INFINITY; c->y[g] = 0.0; }
  }
  for (int k = 0; k < NS; k++) {
    c->xt[k] = 0.1 + 0.37 * k;
    c->xt[NS + k] = 2.2 - 0.3 * k;
  }
  c->d.y = sgp_cmat_of(c->y, MG, 1);
  c->d.ydim = sgp_cmat_of(c->dim, 2, 1);
  c->d.offset = sgp_cmat_of(c->off, MG, 1);
  c->d.xtest = sgp_cmat_of(c->xt, NS, 2);
}

static void fit_of(sgp_ctx *ctx, case_t *c, sgp_value_arena *a, sgp_value *fit)
{
  sgp_value r;
  if (sgp_ski_laplace_run(ctx, &c->o, &c->d, a, &r)) fail_msg("%s", ctx->errmsg);
  *fit = flat(a, &r);
}

static sgp_value predict(sgp_ctx *ctx, const sgp_value *fit, const sgp_ski_laplace_predict_opts *o,
                         sgp_cmat Xs, sgp_value_arena *a)
{
  sgp_value out;
  if (sgp_ski_laplace_predict_plain(ctx, fit, "fit", ".", o, Xs, a, &out))
    fail_msg("%s", ctx->errmsg);
  return *sgp_fd_elt(&out, "pred");
}

static void assert_same(const sgp_value *test, const sgp_value *pred, const char *name)
{
  const sgp_value *x = sgp_fd_elt(test, name), *y = sgp_fd_elt(pred, name);
  assert_int_equal(x->type, SGP_VAL_REAL);
  assert_int_equal(x->len, y->len);
  for (int64_t i = 0; i < x->len; i++)
    if (memcmp(&x->real[i], &y->real[i], sizeof(double)))
      fail_msg("%s[%lld]: fit %.17g, predict %.17g", name, (long long)i, x->real[i], y->real[i]);
}

static void equals_fit_test(sgp_ctx *ctx, case_t *c)
{
  sgp_value_arena *a = sgp_value_arena_new();
  sgp_value fit;
  fit_of(ctx, c, a, &fit);
  sgp_ski_laplace_predict_opts o;
  sgp_ski_laplace_predict_opts_default(&o);
  const sgp_value p = predict(ctx, &fit, &o, c->d.xtest, a);
  const sgp_value *t = sgp_fd_elt(&fit, "test");
  assert_same(t, &p, "mean");
  assert_same(t, &p, "var");
  assert_same(t, &p, "response");
  assert_same(t, &p, "response_var");
  for (int k = 0; k < NS; k++) assert_true(sgp_fd_elt(&p, "var")->real[k] > 0.0);
  /* without variances: the same means, no var */
  o.variance = SGP_SKL_VARIANCE_NONE;
  const sgp_value q = predict(ctx, &fit, &o, c->d.xtest, a);
  assert_same(t, &q, "mean");
  assert_int_equal(sgp_fd_elt(&q, "var")->type, SGP_VAL_NULL);
  sgp_value_arena_free(a);
}

static void poisson_cells_equal_fit_test(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  case_t c;
  poisson_case(&c);
  equals_fit_test(&ctx, &c);
}

/* labels binned into cells (binomial counts with trials), the mean and
 * outputscale learned: the hyper the fit writes is the prior it predicted with */
static void learned_binned_equal_fit_test(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  case_t c;
  poisson_case(&c);
  static double x[2 * 90], lab[90];
  for (int i = 0; i < 90; i++) {
    x[i] = fmod(0.37 * i, 2.75);
    x[90 + i] = fmod(0.53 * i, 2.25);
    lab[i] = sin(2.0 * x[i]) + cos(x[90 + i]) > 0.3 ? 1.0 : 0.0;
  }
  c.o.likelihood = SGP_LIK_BERNOULLI;
  c.o.mean = NAN;
  c.o.kernel.outputscale = NAN;
  c.o.learn = SGP_LEARN_AUTO;
  c.o.optim_max_iter = 8;
  c.d.x = sgp_cmat_of(x, 90, 2);
  c.d.y = sgp_cmat_of(lab, 90, 1);
  c.d.ydim = sgp_cmat_of(NULL, 0, 0);
  c.d.offset = sgp_cmat_of(NULL, 0, 0);
  equals_fit_test(&ctx, &c);
}

/* scattered poisson counts (cubic weights, observations at their own
 * locations; two rows outside cubic's valid range, clamped): the fit carries x
 * and predict makes W again from it, so the numbers are the fit's; exact and
 * slq paths */
static void scattered_equal_fit_test(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  case_t c;
  poisson_case(&c);
  static double x[2 * 90], cnt[90], off[90];
  for (int i = 0; i < 90; i++) {
    x[i] = 0.25 + fmod(0.37 * i, 2.25);
    x[90 + i] = 0.25 + fmod(0.53 * i, 1.75);
    off[i] = 0.1 * sin(i);
    cnt[i] = floor(exp(0.5 + sin(x[i]) + off[i]) * (0.5 + 0.5 * cos(3.0 * i)));
  }
  x[3] = 2.7; x[90 + 5] = 0.1;
  c.o.layout = SGP_SKL_LAYOUT_SCATTERED;
  c.o.bounds_policy = SGP_SKI_BOUNDS_CLAMP;
  c.d.x = sgp_cmat_of(x, 90, 2);
  c.d.y = sgp_cmat_of(cnt, 90, 1);
  c.d.ydim = sgp_cmat_of(NULL, 0, 0);
  c.d.offset = sgp_cmat_of(off, 90, 1);
  for (int path = 0; path < 2; path++) {
    c.o.loglik_method = path ? SGP_SKL_LOGLIK_SLQ : SGP_SKL_LOGLIK_EXACT;
    equals_fit_test(&ctx, &c);
  }
}

/* a poisson offset o at a point: the rate's moments exp(o) and exp(2 o) times */
static void offset_scales_the_rate(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  case_t c;
  poisson_case(&c);
  sgp_value_arena *a = sgp_value_arena_new();
  sgp_value fit;
  fit_of(&ctx, &c, a, &fit);
  sgp_ski_laplace_predict_opts o;
  sgp_ski_laplace_predict_opts_default(&o);
  double off[NS];
  for (int k = 0; k < NS; k++) off[k] = 0.1 * k - 0.3;
  o.offset = sgp_cmat_of(off, NS, 1);
  const sgp_value p = predict(&ctx, &fit, &o, c.d.xtest, a);
  const sgp_value *t = sgp_fd_elt(&fit, "test");
  for (int k = 0; k < NS; k++) {
    const double r0 = sgp_fd_elt(t, "response")->real[k], r1 = sgp_fd_elt(&p, "response")->real[k];
    const double v0 = sgp_fd_elt(t, "response_var")->real[k];
    const double v1 = sgp_fd_elt(&p, "response_var")->real[k];
    /* exp of a sum against a product of exps: a few ulps */
    assert_close(r1, r0 * exp(off[k]), 1e-14 * r1);
    assert_close(v1, v0 * exp(2.0 * off[k]), 1e-14 * v1);
  }
  sgp_value_arena_free(a);
}

static void expect_error(sgp_ctx *ctx, const sgp_value *fit, const sgp_ski_laplace_predict_opts *o,
                         sgp_cmat Xs, const char *msg)
{
  sgp_value_arena *a = sgp_value_arena_new();
  sgp_value out;
  assert_int_not_equal(sgp_ski_laplace_predict_plain(ctx, fit, "fit", ".", o, Xs, a, &out), SGP_OK);
  if (!strstr(ctx->errmsg, msg)) fail_msg("error \"%s\" lacks \"%s\"", ctx->errmsg, msg);
  sgp_value_arena_free(a);
}

static void damaged_fits_name_the_field(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  case_t c;
  poisson_case(&c);
  sgp_value_arena *a = sgp_value_arena_new();
  sgp_value fit;
  fit_of(&ctx, &c, a, &fit);
  sgp_ski_laplace_predict_opts o;
  sgp_ski_laplace_predict_opts_default(&o);
  const sgp_cmat X = c.d.xtest;
  double ten[10] = {0};
  sgp_value bad = with(a, &fit, "weights", sgp_vo_real(a, 10, ten, 0, 0), 0);
  expect_error(&ctx, &bad, &o, X, "'fit.weights' has 10 values; need 120 (one per grid point) "
               "(the fit is damaged; refit it)");
  bad = with(a, &fit, "used", sgp_vo_null(), 1);
  expect_error(&ctx, &bad, &o, X, "'fit.used' is missing");
  bad = with(a, &fit, "f", sgp_vo_string(a, "x"), 0);
  expect_error(&ctx, &bad, &o, X, "'fit.f' must be numeric");
  const sgp_value *used = sgp_fd_elt(&fit, "used");
  sgp_value u2 = with(a, used, "likelihood", sgp_vo_string(a, "nope"), 0);
  bad = with(a, &fit, "used", u2, 0);
  expect_error(&ctx, &bad, &o, X, "'fit.used.likelihood' must be one of");
  u2 = with(a, used, "max_iter", sgp_vo_scalar(a, 0.5), 0);
  bad = with(a, &fit, "used", u2, 0);
  expect_error(&ctx, &bad, &o, X, "'fit.used.max_iter' must be a whole number >= 1");
  double obs[3] = {5, 3, 9};
  bad = with(a, &fit, "observed", sgp_vo_real(a, 3, obs, 0, 0), 0);
  expect_error(&ctx, &bad, &o, X, "'fit.observed' must be increasing grid indices in 1..120");
  const sgp_value *cnt = sgp_fd_elt(&fit, "counts");
  double *neg = sgp_vo_alloc(a, (size_t)cnt->len * sizeof(double));
  memcpy(neg, cnt->real, (size_t)cnt->len * sizeof(double));
  neg[4] = 1.5;
  bad = with(a, &fit, "counts", sgp_vo_real(a, cnt->len, neg, 0, 0), 0);
  expect_error(&ctx, &bad, &o, X, "'fit.counts' poisson counts must be non-negative integers "
               "(element 5 is 1.5)");
  sgp_value h2 = with(a, sgp_fd_elt(&fit, "hyper"), "outputscale", sgp_vo_scalar(a, -1), 0);
  bad = with(a, &fit, "hyper", h2, 0);
  expect_error(&ctx, &bad, &o, X, "'fit.hyper.outputscale' must be one positive finite number");
  const sgp_value one = sgp_vo_scalar(a, 1.0);
  expect_error(&ctx, &one, &o, X, "'fit' must be a ski_laplace fit");
  /* options and new points against the fit */
  double off[2] = {0, 0}, x3[3] = {1, 1, 1};
  o.offset = sgp_cmat_of(off, 2, 1);
  expect_error(&ctx, &fit, &o, X, "offset: must be 7 finite numbers, one per new point (got 2)");
  sgp_ski_laplace_predict_opts_default(&o);
  expect_error(&ctx, &fit, &o, sgp_cmat_of(x3, 1, 3), "xtest: has 3 columns; the grid has 2");
  /* the check alone */
  sgp_value out;
  assert_int_equal(sgp_ski_laplace_predict_plain(&ctx, &fit, "fit", ".", &o, sgp_cmat_of(NULL, 0, 0),
                                                 a, &out), SGP_OK);
  assert_int_equal(out.type, SGP_VAL_NULL);
  sgp_value_arena_free(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(poisson_cells_equal_fit_test),
    cmocka_unit_test(learned_binned_equal_fit_test),
    cmocka_unit_test(scattered_equal_fit_test),
    cmocka_unit_test(offset_scales_the_rate),
    cmocka_unit_test(damaged_fits_name_the_field),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
