/* test_ski_merge.c -- sgp_ski_stats_merge_data (ski_stats_merge of the R and
 * Octave fronts): the sum of plain statistics equals one pass over the union,
 * in place too; grids, interpolation and probe sketches must agree; overflow;
 * every message names the argument's label. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define N 40

static const double lo[1] = {-1.0}, h[1] = {0.25};
static const int64_t m1[1] = {20}, m1b[1] = {21};

/* Plain statistics of x[0..n) on grid g (the caller frees *st). */
static sgp_ski_stats_data chunk(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation ip,
                                const double *x, const double *y, int64_t n, sgp_ski_stats **st)
{
  sgp_ski_opts o;
  sgp_ski_stats_data d;
  sgp_ski_opts_default(&o);
  o.interpolation = ip;
  assert_int_equal(sgp_ski_stats_compute(ctx, g, &o, sgp_cmat_of(x, n, 1), sgp_cmat_of(y, n, 1),
                                         0, st, NULL, NULL), SGP_OK);
  assert_int_equal(sgp_ski_stats_export(ctx, *st, &d), SGP_OK);
  return d;
}

static void merge_equals_one_pass_and_checks(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double x[N], y[N];
  for (int i = 0; i < N; i++) {
    x[i] = 3.0 * i / (N - 1);
    y[i] = sin(2.0 * x[i]);
  }
  const sgp_ski_grid g = th_ski_grid(1, m1, lo, h), g2 = th_ski_grid(1, m1b, lo, h);
  sgp_ski_stats *sa = NULL, *sb = NULL, *sall = NULL, *so = NULL, *sl = NULL;
  sgp_ski_stats_data in[3];
  in[0] = chunk(&ctx, &g, SGP_SKI_CUBIC, x, y, 15, &sa);
  in[1] = chunk(&ctx, &g, SGP_SKI_CUBIC, x + 15, y + 15, N - 15, &sb);
  const sgp_ski_stats_data all = chunk(&ctx, &g, SGP_SKI_CUBIC, x, y, N, &sall);
  const char *label[3] = {"a", "b", "...1"};
  const int64_t m = all.m, S = all.S;
  double *uy = th_zeros(m), *u1 = th_zeros(m), *D = th_zeros(m * S);
  sgp_ski_stats_sum sum = {uy, u1, D, NULL, 0, 0.0, 0.0, 0.0};
  assert_int_equal(sgp_ski_stats_merge_data(&ctx, 2, in, label, &sum), SGP_OK);
  assert_int_equal(sum.n, N);
  assert_true(fabs(sum.yy - all.yy) <= 1e-13 * all.yy);
  for (int64_t i = 0; i < m * S; i++) assert_true(fabs(D[i] - all.D[i]) <= 1e-13);
  for (int64_t i = 0; i < m; i++) assert_true(fabs(uy[i] - all.uy[i]) <= 1e-13);

  /* another grid size, another interpolation: named by label, against 'a' */
  in[2] = chunk(&ctx, &g2, SGP_SKI_CUBIC, x, y, 5, &so);
  assert_int_equal(sgp_ski_stats_merge_data(&ctx, 3, in, label, &sum), SGP_EINVAL);
  assert_contains(ctx.errmsg, "'...1' was built on another grid than 'a'");
  in[2] = chunk(&ctx, &g, SGP_SKI_LINEAR, x, y, 5, &sl);
  assert_int_equal(sgp_ski_stats_merge_data(&ctx, 3, in, label, &sum), SGP_EINVAL);
  assert_contains(ctx.errmsg, "'...1' was built on another grid");

  /* probe sketches must agree */
  sgp_ski_stats_data p = in[1];
  double uz[20 * 2] = {0};
  p.probes = 2;
  p.uz = uz;
  in[2] = p;
  assert_int_equal(sgp_ski_stats_merge_data(&ctx, 3, in, label, &sum), SGP_EINVAL);
  assert_contains(ctx.errmsg, "'...1' has other probe sketches than 'a'");

  /* arrays that do not match the grid */
  p = in[1];
  p.S = 3;
  in[1] = p;
  assert_int_equal(sgp_ski_stats_merge_data(&ctx, 2, in, label, &sum), SGP_EDIM);
  assert_contains(ctx.errmsg, "'b' has arrays that do not match its grid");

  /* overflow of a sum names the argument and the field */
  sgp_ski_stats_data big = all;
  big.yy = 1.5e308;
  in[0] = big;
  in[1] = big;
  assert_int_equal(sgp_ski_stats_merge_data(&ctx, 2, in, label, &sum), SGP_EINVAL);
  assert_contains(ctx.errmsg, "'b' makes the merged 'yty' overflow");

  /* in place: the output arrays are the first argument's */
  in[0] = all;
  in[1] = all;
  double *D2 = th_zeros(m * S), *uy2 = th_zeros(m), *u12 = th_zeros(m);
  memcpy(D2, all.D, (size_t)(m * S) * sizeof(double));
  memcpy(uy2, all.uy, (size_t)m * sizeof(double));
  memcpy(u12, all.u1, (size_t)m * sizeof(double));
  in[0].D = D2;
  in[0].uy = uy2;
  in[0].u1 = u12;
  sgp_ski_stats_sum self = {uy2, u12, D2, NULL, 0, 0.0, 0.0, 0.0};
  assert_int_equal(sgp_ski_stats_merge_data(&ctx, 2, in, label, &self), SGP_OK);
  assert_int_equal(self.n, 2 * N);
  for (int64_t i = 0; i < m * S; i++) assert_true(D2[i] == 2.0 * all.D[i]);
  free(D2);
  free(uy2);
  free(u12);
  free(uy);
  free(u1);
  free(D);
  sgp_ski_stats_free(sa);
  sgp_ski_stats_free(sb);
  sgp_ski_stats_free(sall);
  sgp_ski_stats_free(so);
  sgp_ski_stats_free(sl);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(merge_equals_one_pass_and_checks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
