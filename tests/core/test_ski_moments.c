/* test_ski_moments.c -- the moment pass of the ski_gsgp statistics
 * (core/ski/ski_moments.c): flushed statistics against the dense W'W, W'y,
 * W'1 (oracle: the n-by-m W from the interpolation taps) and against the tap
 * pass, for d = 1, 2, 3, cubic and linear, bounds policies error, clamp and
 * drop; bitwise invariance to chunk size {1, 7, n} and thread count {1, 2};
 * a rejected chunk leaves the moments unchanged; bad inputs. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double max_err_dense = 0.0, max_err_tap = 0.0;
static int ncases = 0;

static sgp_ski_stats *moment_pass(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                                  sgp_ski_bounds_policy policy, const double *X,
                                  const double *y, int64_t n, int64_t chunk, int threads)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.nthreads = threads;
  sgp_ski_stats *st = NULL;
  sgp_ski_moments *mo = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, g, interp, &st), SGP_OK);
  assert_int_equal(sgp_ski_moments_create(&ctx, st, &mo), SGP_OK);
  for (int64_t i0 = 0; i0 < n; i0 += chunk) {
    const int64_t nc = n - i0 < chunk ? n - i0 : chunk;
    const sgp_cmat Xc = {X + i0, nc, g->d, n};
    if (sgp_ski_moments_accumulate(&ctx, mo, Xc, sgp_cmat_of(y + i0, nc, 1), i0, policy))
      fail_msg("moments: %s", ctx.errmsg);
  }
  assert_int_equal(sgp_ski_moments_flush(&ctx, mo, st), SGP_OK);
  sgp_ski_moments_free(mo);
  return st;
}

static void check_case(int d, const int64_t *msz, sgp_ski_interpolation interp,
                       sgp_ski_bounds_policy policy, double out, int64_t n)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 4242 + 17 * (uint64_t)ncases++);
  const double lo[3] = {0.0, -1.0, 0.5}, h[3] = {0.25, 0.3, 0.2};
  const sgp_ski_grid g = th_ski_grid(d, msz, lo, h);
  const int64_t m = sgp_ski_grid_npoints(&g);
  double *X = th_zeros(n * d), *y = th_zeros(n);
  th_ski_data(&rng, &g, interp, n, out, X, y);
  sgp_ski_stats *ref = moment_pass(&g, interp, policy, X, y, n, n, 1);
  /* bitwise: chunks {1, 7, n} x threads {1, 2} */
  const int64_t chunks[3] = {1, 7, n};
  for (int c = 0; c < 3; c++)
    for (int t = 1; t <= 2; t++) {
      sgp_ski_stats *s = moment_pass(&g, interp, policy, X, y, n, chunks[c], t);
      if (!th_ski_stats_same_bits(s, ref)) fail_msg("d %d chunk %lld threads %d: not bitwise identical", d,
                                       (long long)chunks[c], t);
      sgp_ski_stats_free(s);
    }
  /* oracle: dense W (n-by-m) -> W'W, W'y, W'1 */
  double *W = th_ski_dense_W(&ctx, &g, interp, policy, X, n);
  double *Wt = th_zeros(m * n), *Bd = th_zeros(m * m), *uy = th_zeros(m), *u1 = th_zeros(m);
  for (int64_t i = 0; i < n; i++)
    for (int64_t a = 0; a < m; a++) {
      Wt[a + i * m] = W[i + a * n];
      uy[a] += W[i + a * n] * y[i];
      u1[a] += W[i + a * n];
    }
  th_matmul(m, m, n, Wt, W, Bd);
  /* stencil entries D[s m + g] = B[g, g + o] where g + o is on the grid */
  double *Dd = th_zeros(ref->S * m);
  for (int64_t s = 0; s < ref->S; s++)
    for (int64_t gi = 0; gi < m; gi++) {
      int64_t sub[3] = {0, 0, 0};
      sgp_ski_grid_subscripts(&g, gi, sub);
      int inside = 1;
      for (int j = 0; j < d; j++) {
        sub[j] += ref->off[s * d + j];
        inside = inside && sub[j] >= 0 && sub[j] < g.m[j];
      }
      if (inside) Dd[s * m + gi] = Bd[gi + sgp_ski_grid_index(&g, sub) * m];
    }
  double yy = 0.0;
  int64_t kept = 0;
  for (int64_t i = 0; i < n; i++) {
    int taps = 0;
    for (int64_t a = 0; a < m; a++) taps += W[i + a * n] != 0.0;
    if (policy == SGP_SKI_BOUNDS_DROP && !taps) continue; /* dropped: no data point */
    yy += y[i] * y[i];
    kept++;
  }
  const double e_dense = fmax(fmax(th_rel_max(ref->S * m, ref->D, Dd), th_rel_max(m, ref->uy, uy)),
                              th_rel_max(m, ref->u1, u1));
  assert_le(e_dense, 1e-12);
  assert_int_equal(ref->n, kept);
  assert_close(ref->yy, yy, 1e-13 * yy);
  /* the tap pass: the same statistics up to rounding */
  sgp_ski_stats *tap = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, interp, &tap), SGP_OK);
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, tap, sgp_cmat_of(X, n, d), sgp_cmat_of(y, n, 1),
                                            0, policy), SGP_OK);
  const double e_tap = fmax(fmax(th_rel_max(ref->S * m, ref->D, tap->D), th_rel_max(m, ref->uy, tap->uy)),
                            th_rel_max(m, ref->u1, tap->u1));
  assert_le(e_tap, 1e-12);
  assert_close(ref->ysum, tap->ysum, 1e-12 * fabs(tap->ysum) + 1e-12);
  if (e_dense > max_err_dense) max_err_dense = e_dense;
  if (e_tap > max_err_tap) max_err_tap = e_tap;
  sgp_ski_stats_free(tap);
  sgp_ski_stats_free(ref);
  free(Dd);
  free(W);
  free(Wt);
  free(Bd);
  free(uy);
  free(u1);
  free(X);
  free(y);
}

static void moments_match_dense(void **state)
{
  (void)state;
  const int64_t m1[1] = {40}, m2[2] = {13, 9}, m3[3] = {8, 7, 6}, m2l[2] = {6, 5};
  check_case(1, m1, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 300);
  check_case(1, m1, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_ERROR, 0.0, 300);
  check_case(2, m2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 400);
  check_case(2, m2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_CLAMP, 1.5, 400);
  check_case(2, m2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 5000); /* threaded blocks */
  check_case(2, m2l, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_DROP, 1.0, 300);
  check_case(3, m3, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 500);
  check_case(3, m3, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_DROP, 0.8, 500);
  check_case(3, m3, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_CLAMP, 0.8, 400);
  printf("ski moments: %d cases; max rel error vs dense W'W/W'y/W'1 %.2e, vs tap pass %.2e "
         "(tol 1e-12); chunks {1,7,n} x threads {1,2} bitwise identical\n", ncases,
         max_err_dense, max_err_tap);
}

static void moments_reject_bad_inputs(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const double lo[4] = {0.0, 0.0, 0.0, 0.0}, h[4] = {0.25, 0.25, 0.25, 0.25};
  const int64_t m2[2] = {12, 10}, m4[4] = {4, 4, 4, 4};
  const sgp_ski_grid g = th_ski_grid(2, m2, lo, h), g4 = th_ski_grid(4, m4, lo, h);
  sgp_ski_stats *st = NULL, *st4 = NULL, *lin = NULL;
  sgp_ski_moments *mo = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &st), SGP_OK);
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_LINEAR, &lin), SGP_OK);
  assert_int_equal(sgp_ski_stats_create(&ctx, &g4, SGP_SKI_CUBIC, &st4), SGP_OK);
  assert_int_equal(sgp_ski_moments_create(&ctx, st4, &mo), SGP_EUNSUPPORTED);
  assert_contains(ctx.errmsg, "d <= 3");
  assert_null(mo);
  assert_int_equal(sgp_ski_moments_create(&ctx, NULL, &mo), SGP_EINVAL);
  assert_contains(ctx.errmsg, "stats");
  assert_int_equal(sgp_ski_moments_create(&ctx, st, &mo), SGP_OK);
  double X[10] = {0.5, 1.0, 1.5, 2.0, 2.5, 0.5, 0.7, 0.9, 1.1, 1.3};
  double y[5] = {1, 2, 3, 4, 5};
  const sgp_cmat Xm = sgp_cmat_of(X, 5, 2);
  assert_int_equal(sgp_ski_moments_accumulate(&ctx, mo, Xm, sgp_cmat_of(y, 5, 1), 0,
                                              SGP_SKI_BOUNDS_TRUNCATE), SGP_EUNSUPPORTED);
  assert_contains(ctx.errmsg, "bounds_policy");
  assert_int_equal(sgp_ski_moments_accumulate(&ctx, mo, Xm, sgp_cmat_of(y, 4, 1), 0,
                                              SGP_SKI_BOUNDS_ERROR), SGP_EDIM);
  assert_contains(ctx.errmsg, "y");
  assert_int_equal(sgp_ski_moments_accumulate(&ctx, mo, sgp_cmat_of(X, 5, 1),
                                              sgp_cmat_of(y, 5, 1), 0, SGP_SKI_BOUNDS_ERROR),
                   SGP_EDIM);
  assert_contains(ctx.errmsg, "x");
  y[2] = NAN;
  assert_int_equal(sgp_ski_moments_accumulate(&ctx, mo, Xm, sgp_cmat_of(y, 5, 1), 10,
                                              SGP_SKI_BOUNDS_ERROR), SGP_EINVAL);
  assert_contains(ctx.errmsg, "row 13");
  y[2] = 3;
  /* outside: the tap pass's message, global row; nothing added */
  X[4] = 9.0;
  assert_int_equal(sgp_ski_moments_accumulate(&ctx, mo, Xm, sgp_cmat_of(y, 5, 1), 20,
                                              SGP_SKI_BOUNDS_ERROR), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x: row 25");
  X[6] = NAN;
  assert_int_equal(sgp_ski_moments_accumulate(&ctx, mo, Xm, sgp_cmat_of(y, 5, 1), 0,
                                              SGP_SKI_BOUNDS_ERROR), SGP_EINVAL);
  assert_contains(ctx.errmsg, "NaN");
  X[6] = 0.7;
  X[4] = 2.4;
  /* after the rejected chunks, one good chunk = a fresh pass over it */
  assert_int_equal(sgp_ski_moments_accumulate(&ctx, mo, Xm, sgp_cmat_of(y, 5, 1), 0,
                                              SGP_SKI_BOUNDS_ERROR), SGP_OK);
  assert_int_equal(sgp_ski_moments_flush(&ctx, mo, lin), SGP_EINVAL);
  assert_contains(ctx.errmsg, "stats");
  assert_int_equal(sgp_ski_moments_flush(&ctx, mo, st), SGP_OK);
  assert_int_equal(st->n, 5);
  sgp_ski_stats *fresh = moment_pass(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, X, y, 5, 5, 1);
  assert_true(th_ski_stats_same_bits(st, fresh));
  /* the flush reset the moments: a second flush adds nothing */
  assert_int_equal(sgp_ski_moments_flush(&ctx, mo, st), SGP_OK);
  assert_true(th_ski_stats_same_bits(st, fresh));
  sgp_ski_stats_free(fresh);
  sgp_ski_moments_free(mo);
  sgp_ski_moments_free(NULL);
  sgp_ski_stats_free(st);
  sgp_ski_stats_free(st4);
  sgp_ski_stats_free(lin);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(moments_match_dense),
    cmocka_unit_test(moments_reject_bad_inputs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
