/* test_fit_stats.c -- plain data read by the core for both hosts: ski_stats as a
 * host's list or struct (sgp_ski_stats_check: the grid, shapes against the
 * stencil, finiteness, errors naming the argument) and valla_metrics' arguments
 * (sgp_valla_metrics_of: what pred is, the labels' coding, the option bins) and
 * a valla fit's fields (sgp_valla_fit_check). */
#include "test_helpers.h"
#include "sgp_options.h"

#include <stdlib.h>

#define REALV(p, n) {SGP_VAL_REAL, (n), (p), NULL, NULL, 0, 0, NULL}
#define MATV(p, r, c) {SGP_VAL_REAL, (r) * (c), (p), NULL, NULL, (r), (c), NULL}
#define STRV(s) {SGP_VAL_STRING, 1, NULL, (s), NULL, 0, 0, NULL}

static void stats_are_read_and_checked(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  static const double size = 10, bounds[2] = {0, 1}, one = 1, zero = 0;
  /* m and S of a 1-D cubic grid of 10 points */
  const sgp_value gv[] = {REALV(&size, 1), MATV(bounds, 1, 2), STRV("cubic")};
  const char *gn[] = {"size", "bounds", "interpolation"};
  const int64_t m = 10, S = 7;
  double *D = calloc((size_t)(m * S), sizeof(double)), *u = calloc((size_t)m, sizeof(double));
  assert_non_null(D);
  assert_non_null(u);
  const char *sn[] = {"grid", "n", "yty", "ysum", "Wty", "Wt1", "WtW", "probes", "probe_seed",
                      "rhoz", "Wtz"};
  sgp_value sv[] = {{SGP_VAL_LIST, 3, NULL, NULL, gn, 0, 0, gv}, REALV(&zero, 1), REALV(&zero, 1),
                    REALV(&zero, 1), REALV(u, m), REALV(u, m), MATV(D, m, S), REALV(&zero, 1),
                    REALV(&one, 1), REALV(&zero, 1), MATV(u, m, 0)};
  const sgp_value s = {SGP_VAL_LIST, 11, NULL, NULL, sn, 0, 0, sv};
  sgp_ski_stats_data d;
  assert_int_equal(sgp_ski_stats_check(&ctx, &s, "b", &d), SGP_OK);
  assert_int_equal(d.m, m);
  assert_int_equal(d.S, S);
  D[3] = NAN;
  assert_int_equal(sgp_ski_stats_check(&ctx, &s, "b", &d), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'b' has a 'WtW' with NaN or Inf");
  D[3] = 0;
  sv[6].rows = m - 1;
  assert_int_equal(sgp_ski_stats_check(&ctx, &s, "b", &d), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'b' has a 'WtW' that is not the 10-by-7 stencil of its grid");
  sv[6].rows = m;
  const sgp_value short_list = {SGP_VAL_LIST, 10, NULL, NULL, sn, 0, 0, sv}; /* no Wtz */
  assert_int_equal(sgp_ski_stats_check(&ctx, &short_list, "...1", &d), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'...1' must be ski_stats (from ski_stats or ski_stats_merge)");
  free(D);
  free(u);
}

static void metrics_read_pred(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  static const double p1[4] = {0.2, 0.7, 0.6, 0.4}, lab01[4] = {0, 1, 1, 0},
                      lab12[4] = {1, 2, 2, 1}, P[8] = {0.8, 0.3, 0.4, 0.6, 0.2, 0.7, 0.6, 0.4};
  const sgp_value none = {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL};
  const sgp_value pv = REALV(p1, 4), y01 = REALV(lab01, 4), y12 = REALV(lab12, 4),
                  Pm = MATV(P, 4, 2);
  double a[5], b[5], c[5];
  int na, nb, nc;
  const char *const *names;
  /* P(y = 1) with labels 0/1 or 1/2, and the n-by-2 matrix with labels 1/2: one answer
   * (from P(y = 1) alone the other class's probability is the rounded 1 - p, in the
   * matrix it is the literal: an ulp apart, which moves the five O(1) metrics of
   * these 4 points by a few eps, below 1e-15) */
  assert_int_equal(sgp_valla_metrics_of(&ctx, &pv, &y01, &none, 0, NULL, NULL, a, &na, &names), SGP_OK);
  assert_int_equal(sgp_valla_metrics_of(&ctx, &pv, &y12, &none, 0, NULL, NULL, b, &nb, &names), SGP_OK);
  assert_int_equal(sgp_valla_metrics_of(&ctx, &Pm, &y12, &none, 0, NULL, NULL, c, &nc, &names), SGP_OK);
  assert_int_equal(na, 5);
  assert_string_equal(names[0], "accuracy");
  for (int k = 0; k < 5; k++) {
    assert_close(a[k], b[k], 0);
    assert_close(a[k], c[k], 1e-15);
  }
  /* a list without mean or prob; an option that is not valla_metrics' */
  const char *ln[] = {"var"};
  const sgp_value lv = {SGP_VAL_LIST, 1, NULL, NULL, ln, 0, 0, &pv};
  assert_int_equal(sgp_valla_metrics_of(&ctx, &lv, &y01, &none, 0, NULL, NULL, a, &na, &names),
                   SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "pred: is a list or struct without 'mean' or 'prob'");
  const char *on[] = {"nbins"};
  assert_int_equal(sgp_valla_metrics_of(&ctx, &pv, &y01, &none, 1, on, &pv, a, &na, &names),
                   SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "unknown option 'nbins'; valid options are bins");
}

/* a valla fit's fields: presence first, in the order of the check */
static void valla_fit_fields_are_named(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  static const double one = 1;
  const char *names[] = {"inducing"};
  const sgp_value v[] = {REALV(&one, 1)};
  const sgp_value fit = {SGP_VAL_LIST, 1, NULL, NULL, names, 0, 0, v};
  assert_int_equal(sgp_valla_fit_check(&ctx, &fit, "object", "$"), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'object$model' is missing (the fit is damaged; refit it)");
  assert_int_equal(sgp_valla_fit_check(&ctx, &v[0], "fit", "."), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'fit' must be a valla fit (a list or struct)");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(stats_are_read_and_checked),
    cmocka_unit_test(metrics_read_pred),
    cmocka_unit_test(valla_fit_fields_are_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
