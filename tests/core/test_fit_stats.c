/* test_fit_stats.c -- plain data read by the core for both hosts: ski_stats as a
 * host's list or struct (sgp_ski_stats_check: the grid, shapes against the
 * stencil, finiteness, errors naming the argument), a grid given as plain data
 * (sgp_ski_grid_read: every error, named in the host's syntax), valla_metrics' arguments
 * (sgp_valla_metrics_of: what pred is, the labels' coding, the option bins) and
 * a valla fit's fields (sgp_valla_fit_check). */
#include "test_helpers.h"
#include "api/sgp_options.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

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
  assert_int_equal(sgp_ski_stats_check(&ctx, &s, "b", "$", &d), SGP_OK);
  assert_int_equal(d.m, m);
  assert_int_equal(d.S, S);
  D[3] = NAN;
  assert_int_equal(sgp_ski_stats_check(&ctx, &s, "b", "$", &d), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'b' has a 'WtW' with NaN or Inf");
  D[3] = 0;
  sv[6].rows = m - 1;
  assert_int_equal(sgp_ski_stats_check(&ctx, &s, "b", "$", &d), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'b' has a 'WtW' that is not the 10-by-7 stencil of its grid");
  sv[6].rows = m;
  const sgp_value short_list = {SGP_VAL_LIST, 10, NULL, NULL, sn, 0, 0, sv}; /* no Wtz */
  assert_int_equal(sgp_ski_stats_check(&ctx, &short_list, "...1", "$", &d), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'...1' must be ski_stats (from ski_stats or ski_stats_merge)");
  /* the statistics' grid is read by sgp_ski_grid_read, named in the host's syntax */
  static const double zero_size = 0;
  sgp_value bad_gv[] = {REALV(&zero_size, 1), MATV(bounds, 1, 2), STRV("cubic")};
  sv[0].elts = bad_gv;
  assert_int_equal(sgp_ski_stats_check(&ctx, &s, "b", ".", &d), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'b.grid.size' must be whole numbers >= 1 (got 0)");
  free(D);
  free(u);
}

/* sgp_ski_grid_read: one wording per error, the argument and its fields named as
 * the host's user writes them; ski_stats and fits are read through their grid */
static int read_grid(sgp_ctx *ctx, const sgp_value *size, const sgp_value *bounds,
                     const sgp_value *interp, const char *sep, sgp_ski_grid_data *g)
{
  const char *gn[] = {"size", "bounds", "interpolation"};
  const sgp_value gv[] = {*size, *bounds, *interp};
  const sgp_value grid = {SGP_VAL_LIST, 3, NULL, NULL, gn, 0, 0, gv};
  return sgp_ski_grid_read(ctx, &grid, "grid", sep, g);
}

static void grid_errors_are_worded_once(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  static const double s1 = 10, s2[2] = {10, 12}, s9[9] = {2, 2, 2, 2, 2, 2, 2, 2, 2},
                      half = 2.5, huge = 3e9, b1[2] = {0, 1}, b2[4] = {0, -1, 1, 1},
                      rev[2] = {1, 0}, nan2[2] = {0, NAN}, b3[6] = {0, 0, 0, 1, 1, 1};
  const sgp_value size1 = REALV(&s1, 1), size2 = MATV(s2, 1, 2), size9 = REALV(s9, 9),
                  sizeh = REALV(&half, 1), sizeb = REALV(&huge, 1), sizes = STRV("10"),
                  vec = REALV(b1, 2), row = MATV(b1, 1, 2), col = MATV(b1, 2, 1),
                  box = MATV(b2, 2, 2), bad_box = MATV(b3, 3, 2), back = MATV(rev, 1, 2),
                  nan = REALV(nan2, 2), cubic = STRV("cubic"), linear = STRV("linear"),
                  spline = STRV("spline"), num = REALV(&s1, 1);
  sgp_ski_grid_data g;
  /* good: a plain vector of 2 bounds when d = 1, a d x 2 matrix; kept exactly */
  assert_int_equal(read_grid(&ctx, &size1, &vec, &cubic, "$", &g), SGP_OK);
  assert_int_equal(g.grid.d, 1);
  assert_int_equal(g.grid.m[0], 10);
  assert_ptr_equal(g.bounds, b1);
  assert_int_equal(read_grid(&ctx, &size2, &box, &linear, ".", &g), SGP_OK);
  assert_int_equal(g.grid.d, 2);
  assert_int_equal(g.interpolation, SGP_SKI_LINEAR);
  /* (1 - (-1)) / (12 - 1): one rounded division of exact numbers, half an ulp */
  assert_close(g.grid.h[1], 2.0 / 11, DBL_EPSILON * (2.0 / 11));
  assert_int_equal(read_grid(&ctx, &size1, &row, &cubic, ".", &g), SGP_OK);
  /* sizes: dimensions, whole numbers, R's integers */
  assert_int_equal(read_grid(&ctx, &size9, &vec, &cubic, "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid$size' must have 1 to 8 values, one per dimension (got 9)");
  assert_int_equal(read_grid(&ctx, &sizeh, &vec, &cubic, ".", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid.size' must be whole numbers >= 1 (got 2.5)");
  assert_int_equal(read_grid(&ctx, &sizes, &vec, &cubic, "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid$size' must be whole numbers >= 1");
  assert_int_equal(read_grid(&ctx, &sizeb, &vec, &cubic, "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg,
                      "'grid$size' must be at most 2147483647 per dimension (got 3000000000)");
  /* bounds: d x 2, finite, lower < upper */
  assert_int_equal(read_grid(&ctx, &size1, &col, &cubic, ".", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid.bounds' is 2 x 1; need 1 x 2");
  assert_int_equal(read_grid(&ctx, &size2, &bad_box, &cubic, "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid$bounds' is 3 x 2; need 2 x 2");
  assert_int_equal(read_grid(&ctx, &size2, &vec, &cubic, "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid$bounds' is 2 x 1; need 2 x 2");
  assert_int_equal(read_grid(&ctx, &size1, &nan, &cubic, "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid$bounds' contains NaN, NA or Inf");
  assert_int_equal(read_grid(&ctx, &size1, &back, &cubic, "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid$bounds' row 1 must have lower < upper (got 1, 0)");
  assert_int_equal(read_grid(&ctx, &size1, &cubic, &cubic, "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid$bounds' must be a numeric matrix (got strings)");
  /* interpolation */
  assert_int_equal(read_grid(&ctx, &size1, &vec, &spline, ".", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid.interpolation' must be one of \"cubic\", \"linear\"");
  assert_int_equal(read_grid(&ctx, &size1, &vec, &num, "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid$interpolation' must be one of \"cubic\", \"linear\"");
  /* not a grid: a number, a list without bounds */
  assert_int_equal(sgp_ski_grid_read(&ctx, &num, "grid", "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg,
                      "'grid' must be a grid from ski_grid (or ski_stats or a ski_gsgp fit)");
  const char *sn[] = {"size"};
  const sgp_value only_size = {SGP_VAL_LIST, 1, NULL, NULL, sn, 0, 0, &size1};
  assert_int_equal(sgp_ski_grid_read(&ctx, &only_size, "grid", "$", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg,
                      "'grid' must be a grid from ski_grid (or ski_stats or a ski_gsgp fit)");
  /* ski_stats or a fit: its grid, named as the user reaches it */
  const char *gn[] = {"size", "bounds", "interpolation"}, *fn[] = {"n", "grid"};
  const sgp_value gv[] = {sizeh, vec, cubic};
  const sgp_value fv[] = {size1, {SGP_VAL_LIST, 3, NULL, NULL, gn, 0, 0, gv}};
  const sgp_value stats = {SGP_VAL_LIST, 2, NULL, NULL, fn, 0, 0, fv};
  assert_int_equal(sgp_ski_grid_read(&ctx, &stats, "grid", ".", &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid.grid.size' must be whole numbers >= 1 (got 2.5)");
  const sgp_value gv_ok[] = {size1, vec, linear};
  const sgp_value fv_ok[] = {size1, {SGP_VAL_LIST, 3, NULL, NULL, gn, 0, 0, gv_ok}};
  const sgp_value stats_ok = {SGP_VAL_LIST, 2, NULL, NULL, fn, 0, 0, fv_ok};
  assert_int_equal(sgp_ski_grid_read(&ctx, &stats_ok, "grid", "$", &g), SGP_OK);
  assert_int_equal(g.interpolation, SGP_SKI_LINEAR);
  /* a grid whose statistics do not fit in memory: the core's own words */
  static const double big[3] = {1e5, 1e5, 1e4}, cube[6] = {0, 0, 0, 1, 1, 1};
  const sgp_value sbig = MATV(big, 1, 3), bcube = MATV(cube, 3, 2);
  assert_int_equal(read_grid(&ctx, &sbig, &bcube, &cubic, "$", &g), SGP_ENOMEM);
  assert_non_null(strstr(ctx.errmsg, "grid_size"));
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
    cmocka_unit_test(grid_errors_are_worded_once),
    cmocka_unit_test(metrics_read_pred),
    cmocka_unit_test(valla_fit_fields_are_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
