/* test_ski_stats_acc.c -- the running accumulator (core/ski/ski_stats_acc.c):
 * rows added in blocks of uneven sizes, with the probe keys of chunk sources
 * (a key range per chunk), equal bitwise to one sgp_ski_stats_compute over
 * the same rows (both passes: the first block's rows choose it), probe
 * sketches equal to one sketch per chunk added in order; 1 and 2 threads
 * alike; an error (a row outside the grid) names the row and leaves the
 * accumulator unusable. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sgp_ski_stats_acc *acc_of(const sgp_ski_grid *g, const sgp_ski_opts *o, int threads,
                                 sgp_ctx *ctx)
{
  sgp_ctx_init(ctx);
  ctx->nthreads = threads;
  sgp_ski_stats_acc *acc = NULL;
  if (sgp_ski_stats_acc_create(ctx, g, o, &acc)) fail_msg("create: %s", ctx->errmsg);
  return acc;
}

static void check_case(int d, const int64_t *msz, int64_t n, int64_t first, int probes,
                       sgp_ski_pass expect)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 4000 + (uint64_t)n);
  const double lo[3] = {0.0, -1.0, 0.5}, h[3] = {0.25, 0.3, 0.2};
  const sgp_ski_grid g = th_ski_grid(d, msz, lo, h);
  const int64_t m = sgp_ski_grid_npoints(&g), per = n / 3 + 1;
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  o.probes = probes;
  o.seed = 7;
  double *X = th_zeros(n * d), *y = th_zeros(n);
  th_ski_data(&rng, &g, SGP_SKI_CUBIC, n, 0.0, X, y);
  /* the oracle: one pass over all rows, the pass the first block chooses */
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ski_stats *one = NULL;
  assert_int_equal(sgp_ski_stats_pass_choice(&g, o.bounds_policy, first), expect);
  if (sgp_ski_stats_compute_pass(&ctx, &g, &o, sgp_cmat_of(X, n, d), sgp_cmat_of(y, n, 1), 0,
                                 expect, &one, NULL, NULL))
    fail_msg("compute: %s", ctx.errmsg);
  /* the probes' oracle: each chunk's sketch with its keys, added in order */
  double *uz = probes ? th_zeros(m * probes) : NULL, rz = 0.0;
  for (int64_t c = 0; probes && c * per < n; c++) {
    const int64_t nc = (c + 1) * per < n ? per : n - c * per;
    const sgp_cmat Xc = {X + c * per, nc, d, n};
    if (sgp_ski_probe_sketch(&ctx, &g, o.interpolation, o.bounds_policy, Xc, c << 40, o.seed,
                             probes, uz, &rz))
      fail_msg("sketch: %s", ctx.errmsg);
  }
  for (int threads = 1; threads <= 2; threads++) {
    sgp_ski_stats_acc *acc = acc_of(&g, &o, threads, &ctx);
    /* the first block decides the pass */
    const sgp_cmat X0 = {X, first, d, n};
    int64_t nacc = 0;
    if (sgp_ski_stats_acc_add(&ctx, acc, X0, sgp_cmat_of(y, first, 1), 0, &nacc))
      fail_msg("add: %s", ctx.errmsg);
    assert_int_equal(nacc, first);
    /* the rest in uneven blocks: X + first viewed with leading dimension n */
    int64_t i0 = first;
    const int64_t sizes[4] = {3, 120, 1, 777};
    for (int k = 0; i0 < n; k++) {
      const int64_t c = i0 / per, end = (c + 1) * per < n ? (c + 1) * per : n;
      int64_t nb = sizes[k % 4] < end - i0 ? sizes[k % 4] : end - i0;
      const sgp_cmat Xb = {X + i0, nb, d, n};
      if (sgp_ski_stats_acc_add(&ctx, acc, Xb, sgp_cmat_of(y + i0, nb, 1), (c << 40) + i0 % per,
                                &nacc))
        fail_msg("add: %s", ctx.errmsg);
      i0 += nb;
    }
    sgp_ski_stats_data dt;
    if (sgp_ski_stats_acc_export(&ctx, acc, &dt)) fail_msg("export: %s", ctx.errmsg);
    assert_int_equal(dt.n, one->n);
    assert_true(dt.yy == one->yy && dt.ysum == one->ysum);
    assert_memory_equal(dt.uy, one->uy, (size_t)m * sizeof(double));
    assert_memory_equal(dt.u1, one->u1, (size_t)m * sizeof(double));
    assert_memory_equal(dt.D, one->D, (size_t)(m * one->S) * sizeof(double));
    assert_int_equal(dt.probes, probes);
    if (probes) {
      assert_memory_equal(dt.uz, uz, (size_t)(m * probes) * sizeof(double));
      assert_true(dt.rhoz == rz && dt.probe_seed == 7);
    } else {
      assert_null(dt.uz);
    }
    sgp_ski_stats_acc_free(acc);
  }
  sgp_ski_stats_free(one);
  free(uz);
  free(X);
  free(y);
}

static void blocks_equal_one_pass(void **state)
{
  (void)state;
  const int64_t m2[2] = {13, 9}, m3[3] = {8, 7, 6};
  /* taps: a small first block (the chunk sources' case) */
  check_case(2, m2, 3000, 40, 3, SGP_SKI_PASS_TAP);
  check_case(3, m3, 2500, 1, 2, SGP_SKI_PASS_TAP);
  /* moments: a first block of >= 16 m rows */
  check_case(2, m2, 6000, 16 * 117, 2, SGP_SKI_PASS_MOMENTS);
  check_case(3, m3, 9000, 24 * 336, 0, SGP_SKI_PASS_MOMENTS);
}

static void an_error_names_the_row_and_stops(void **state)
{
  (void)state;
  const int64_t m1[1] = {20};
  const double lo[1] = {0.0}, h[1] = {0.5};
  const sgp_ski_grid g = th_ski_grid(1, m1, lo, h);
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  sgp_ctx ctx;
  sgp_ski_stats_acc *acc = acc_of(&g, &o, 1, &ctx);
  const double x[3] = {3.0, 4.0, 50.0}, y[3] = {1, 2, 3};
  assert_int_equal(sgp_ski_stats_acc_add(&ctx, acc, sgp_cmat_of(x, 2, 1), sgp_cmat_of(y, 2, 1),
                                         0, NULL), SGP_OK);
  assert_int_not_equal(sgp_ski_stats_acc_add(&ctx, acc, sgp_cmat_of(x, 3, 1),
                                             sgp_cmat_of(y, 3, 1), 10, NULL), SGP_OK);
  assert_non_null(strstr(ctx.errmsg, "13")); /* row 10 + 3 */
  assert_int_not_equal(sgp_ski_stats_acc_add(&ctx, acc, sgp_cmat_of(x, 1, 1),
                                             sgp_cmat_of(y, 1, 1), 20, NULL), SGP_OK);
  assert_non_null(strstr(ctx.errmsg, "earlier block failed"));
  sgp_ski_stats_data dt;
  assert_int_not_equal(sgp_ski_stats_acc_export(&ctx, acc, &dt), SGP_OK);
  sgp_ski_stats_acc_free(acc);
  /* two columns on a 1-D grid: compute's words */
  acc = acc_of(&g, &o, 1, &ctx);
  assert_int_not_equal(sgp_ski_stats_acc_add(&ctx, acc, sgp_cmat_of(x, 1, 2),
                                             sgp_cmat_of(y, 1, 1), 0, NULL), SGP_OK);
  assert_non_null(strstr(ctx.errmsg, "x: has 2 columns but the grid has 1 dimensions"));
  sgp_ski_stats_acc_free(acc);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(blocks_equal_one_pass),
    cmocka_unit_test(an_error_names_the_row_and_stops),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
