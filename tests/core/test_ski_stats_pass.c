/* test_ski_stats_pass.c -- the pass behind sgp_ski_stats_compute
 * (core/ski/ski_stats_pass.c): the automatic choice (moments for d <= 3,
 * bounds error/clamp/drop and n >= {4, 16, 24} m for d = {1, 2, 3}, else taps), AUTO equal bitwise to the
 * forced chosen pass (so the choice is really used), equal to the tap pass
 * within 1e-12 relative (W'W stencil, W'y, W'1, y'y, sum y), probe sketches
 * identical, thread count {1, 2} bitwise invariant, the same error for a row
 * outside the grid on both paths, a bad pass code. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double max_rel = 0.0;
static int ncases = 0, nmoments = 0;

static sgp_ski_stats *compute(const sgp_ski_grid *g, const sgp_ski_opts *o, const double *X,
                              const double *y, int64_t n, sgp_ski_pass pass, int threads,
                              double *uz, double *rhoz)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.nthreads = threads;
  sgp_ski_stats *st = NULL;
  if (sgp_ski_stats_compute_pass(&ctx, g, o, sgp_cmat_of(X, n, g->d), sgp_cmat_of(y, n, 1), 3,
                                 pass, &st, uz, rhoz))
    fail_msg("compute (pass %d): %s", (int)pass, ctx.errmsg);
  return st;
}

static void check_case(int d, const int64_t *msz, sgp_ski_interpolation interp,
                       sgp_ski_bounds_policy policy, double out, int64_t n, int probes,
                       sgp_ski_pass expect)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 777 + 31 * (uint64_t)ncases++);
  const double lo[3] = {0.0, -1.0, 0.5}, h[3] = {0.25, 0.3, 0.2};
  const sgp_ski_grid g = th_ski_grid(d, msz, lo, h);
  const int64_t m = sgp_ski_grid_npoints(&g);
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  o.interpolation = interp;
  o.bounds_policy = policy;
  o.probes = probes;
  o.seed = 99;
  assert_int_equal(sgp_ski_stats_pass_choice(&g, policy, n), expect);
  if (expect == SGP_SKI_PASS_MOMENTS) nmoments++;
  double *X = th_zeros(n * d), *y = th_zeros(n);
  th_ski_data(&rng, &g, interp, n, out, X, y);
  double *uz_a = probes ? th_zeros(m * probes) : NULL, *uz_t = probes ? th_zeros(m * probes) : NULL;
  double rz_a = -1, rz_t = -2;
  sgp_ski_stats *a = compute(&g, &o, X, y, n, SGP_SKI_PASS_AUTO, 1, uz_a, probes ? &rz_a : NULL);
  sgp_ski_stats *t = compute(&g, &o, X, y, n, SGP_SKI_PASS_TAP, 1, uz_t, probes ? &rz_t : NULL);
  /* AUTO is the chosen pass, bit for bit, for 1 and 2 threads */
  sgp_ski_stats *c = compute(&g, &o, X, y, n, expect, 1, NULL, NULL);
  sgp_ski_stats *a2 = compute(&g, &o, X, y, n, SGP_SKI_PASS_AUTO, 2, NULL, NULL);
  if (!th_ski_stats_same_bits(a, c)) fail_msg("case %d: AUTO differs from the chosen pass %d", ncases, expect);
  if (!th_ski_stats_same_bits(a, a2)) fail_msg("case %d: AUTO differs between 1 and 2 threads", ncases);
  /* against the tap pass: equal up to rounding */
  assert_int_equal(a->n, t->n);
  const double e = fmax(fmax(th_rel_max(a->S * m, a->D, t->D), th_rel_max(m, a->uy, t->uy)), th_rel_max(m, a->u1, t->u1));
  assert_le(e, 1e-12);
  assert_close(a->yy, t->yy, 1e-12 * t->yy);
  assert_close(a->ysum, t->ysum, 1e-12 * fabs(t->ysum) + 1e-12);
  if (expect == SGP_SKI_PASS_MOMENTS && policy != SGP_SKI_BOUNDS_DROP)
    assert_true(e > 0.0 || a->n < 2); /* a different pass: rounding differs somewhere */
  if (probes) {
    assert_memory_equal(uz_a, uz_t, (size_t)(m * probes) * sizeof(double));
    assert_true(rz_a == rz_t && rz_a > 0);
  }
  if (e > max_rel) max_rel = e;
  sgp_ski_stats_free(a);
  sgp_ski_stats_free(a2);
  sgp_ski_stats_free(c);
  sgp_ski_stats_free(t);
  free(uz_a);
  free(uz_t);
  free(X);
  free(y);
}

static void choice_and_agreement(void **state)
{
  (void)state;
  const int64_t m1[1] = {40}, m2[2] = {13, 9}, m3[3] = {8, 7, 6}, m2l[2] = {6, 5};
  const sgp_ski_pass MO = SGP_SKI_PASS_MOMENTS, TAP = SGP_SKI_PASS_TAP;
  /* n >= c_d m (4, 16, 24 for d = 1, 2, 3): moments (cubic, linear; error,
   * clamp, drop) */
  check_case(1, m1, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 160, 0, MO);
  check_case(1, m1, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_CLAMP, 1.0, 400, 2, MO);
  check_case(2, m2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 5000, 3, MO);
  check_case(2, m2l, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_DROP, 1.0, 480, 0, MO);
  check_case(3, m3, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_CLAMP, 0.8, 9000, 2, MO);
  check_case(3, m3, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_DROP, 0.8, 8064, 0, MO);
  /* taps: n < 4 m, truncate, and the threshold itself */
  check_case(1, m1, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 159, 0, TAP);
  check_case(3, m3, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 500, 2, TAP);
  check_case(3, m3, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_CLAMP, 0.5, 8063, 0, TAP);
  check_case(2, m2l, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 479, 0, TAP);
  check_case(2, m2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_TRUNCATE, 1.0, 5000, 0, TAP);
  printf("ski stats pass: %d cases (%d on the moment pass); max rel diff AUTO vs tap pass "
         "%.2e (tol 1e-12); AUTO bitwise = chosen pass, threads {1,2}\n", ncases, nmoments,
         max_rel);
  /* d = 4 and empty data: taps */
  const int64_t m4[4] = {4, 4, 4, 4};
  const double lo[4] = {0, 0, 0, 0}, h[4] = {1, 1, 1, 1};
  const sgp_ski_grid g4 = th_ski_grid(4, m4, lo, h), g1 = th_ski_grid(1, m1, lo, h);
  assert_int_equal(sgp_ski_stats_pass_choice(&g4, SGP_SKI_BOUNDS_ERROR, 1000000), TAP);
  assert_int_equal(sgp_ski_stats_pass_choice(&g1, SGP_SKI_BOUNDS_ERROR, 0), TAP);
  assert_int_equal(sgp_ski_stats_pass_choice(&g1, SGP_SKI_BOUNDS_DROP, 1000000), MO);
  assert_int_equal(sgp_ski_stats_pass_choice(&g1, SGP_SKI_BOUNDS_TRUNCATE, 1000000), TAP);
}

/* bounds_policy "drop": a dropped point is no data point of the model, so the
 * statistics (n, y'y and sum y included) on both passes are those of the kept
 * points alone, bit for bit, and the probes' rho_z counts the kept points. */
static void dropped_points_are_no_data(void **state)
{
  (void)state;
  const int64_t m1[1] = {40}, n = 400;
  const double lo[1] = {0.0}, h[1] = {0.25};
  const sgp_ski_grid g = th_ski_grid(1, m1, lo, h);
  sgp_rng rng;
  sgp_rng_seed(&rng, 4242);
  double *X = th_zeros(n), *y = th_zeros(n), *Xk = th_zeros(n), *yk = th_zeros(n);
  th_ski_data(&rng, &g, SGP_SKI_CUBIC, n, 3.0, X, y);
  int64_t nk = 0, idx[4];
  double w[4];
  for (int64_t i = 0; i < n; i++) {
    int bad;
    if (sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_DROP, X + i, 1, idx, w, &bad) ==
        SGP_SKI_POINT_DROPPED)
      continue;
    Xk[nk] = X[i];
    yk[nk++] = y[i];
  }
  assert_true(nk > n / 2 && nk < n);
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  o.probes = 2;
  double *uz = th_zeros(40 * 2), rz = -1.0;
  const sgp_ski_pass passes[2] = {SGP_SKI_PASS_TAP, SGP_SKI_PASS_MOMENTS};
  for (int p = 0; p < 2; p++) {
    o.bounds_policy = SGP_SKI_BOUNDS_DROP;
    sgp_ski_stats *a = compute(&g, &o, X, y, n, passes[p], 2, uz, &rz);
    o.bounds_policy = SGP_SKI_BOUNDS_ERROR;
    sgp_ski_stats *b = compute(&g, &o, Xk, yk, nk, passes[p], 2, NULL, NULL);
    assert_int_equal(a->n, nk);
    if (!th_ski_stats_same_bits(a, b))
      fail_msg("pass %d: the statistics with dropped points differ from the kept ones'",
               (int)passes[p]);
    assert_true(rz == (double)nk);
    sgp_ski_stats_free(a);
    sgp_ski_stats_free(b);
  }
  free(X); free(y); free(Xk); free(yk); free(uz);
}

/* ------------------------------------------------------------ interrupts */

typedef struct {
  int polls, stop_at; /* stop_at 0: never */
} poll_counter;

static int count_polls(void *user)
{
  poll_counter *p = (poll_counter *)user;
  return ++p->polls == p->stop_at;
}

/* 1-D data of n = 2^21 + 1000 points: several blocks of both passes (tap pass
 * 2^19 points per block for 4 taps, moment pass 2^21) and of the probe sketch. */
enum { NI = (1 << 21) + 1000 };

static int run_pass(const sgp_ski_grid *g, const double *X, const double *y, sgp_ski_pass pass,
                    poll_counter *pc, double *uz, double *rz, sgp_ctx *ctx)
{
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  o.probes = 1;
  sgp_ctx_init(ctx);
  ctx->nthreads = 2;
  ctx->interrupt = count_polls;
  ctx->user_data = pc;
  sgp_ski_stats *st = NULL;
  const int code = sgp_ski_stats_compute_pass(ctx, g, &o, sgp_cmat_of(X, NI, 1),
                                              sgp_cmat_of(y, NI, 1), 0, pass, &st, uz, rz);
  if (code) assert_null(st);
  sgp_ski_stats_free(st);
  return code;
}

/* The statistics pass polls the interrupt hook between blocks of points in
 * every stage (validation, accumulation, moment flush, probe sketch), outside
 * the parallel regions; an interrupt at any poll stops it with
 * SGP_EINTERRUPT, no statistics and (ASan) no leak. */
static void interrupts_stop_the_pass(void **state)
{
  (void)state;
  const int64_t m1[1] = {40};
  const double lo[1] = {0.0}, h[1] = {0.25};
  const sgp_ski_grid g = th_ski_grid(1, m1, lo, h);
  sgp_rng rng;
  sgp_rng_seed(&rng, 11);
  double *X = th_zeros(NI), *y = th_zeros(NI), *uz = th_zeros(40), rz = 0.0;
  th_ski_data(&rng, &g, SGP_SKI_CUBIC, NI, 0.0, X, y);
  const sgp_ski_pass passes[2] = {SGP_SKI_PASS_TAP, SGP_SKI_PASS_MOMENTS};
  sgp_ctx ctx;
  for (int p = 0; p < 2; p++) {
    poll_counter pc = {0, 0};
    assert_int_equal(run_pass(&g, X, y, passes[p], &pc, uz, &rz, &ctx), SGP_OK);
    /* polls: >= 2 blocks of accumulation, 513 sketch blocks of 4096 rows */
    const int total = pc.polls;
    assert_true(total >= (NI + 4095) / 4096 + 2);
    const int at[5] = {1, 2, 3, total - (NI + 4095) / 4096, total};
    for (int k = 0; k < 5; k++) {
      poll_counter stop = {0, at[k]};
      assert_int_equal(run_pass(&g, X, y, passes[p], &stop, uz, &rz, &ctx), SGP_EINTERRUPT);
      assert_int_equal(stop.polls, at[k]); /* stopped at once */
      assert_contains(ctx.errmsg, "interrupted");
    }
  }
  free(X); free(y); free(uz);
}

/* Interrupted accumulation into statistics that hold an earlier chunk: before
 * anything is added (validation) they are unchanged; once the chunk is being
 * added they are cleared (empty), never half of a chunk. */
static void interrupted_accumulation_is_all_or_nothing(void **state)
{
  (void)state;
  const int64_t m1[1] = {40};
  const double lo[1] = {0.0}, h[1] = {0.25};
  const sgp_ski_grid g = th_ski_grid(1, m1, lo, h);
  sgp_rng rng;
  sgp_rng_seed(&rng, 12);
  double *X = th_zeros(NI), *y = th_zeros(NI);
  th_ski_data(&rng, &g, SGP_SKI_CUBIC, NI, 0.0, X, y);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ski_stats *st = NULL, *ref = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &st), SGP_OK);
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &ref), SGP_OK);
  const sgp_cmat X0 = sgp_cmat_of(X, 100, 1), y0 = sgp_cmat_of(y, 100, 1);
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, st, X0, y0, 0, SGP_SKI_BOUNDS_ERROR), SGP_OK);
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, ref, X0, y0, 0, SGP_SKI_BOUNDS_ERROR), SGP_OK);
  /* the tap pass polls after each of the 5 validation blocks, then between the
   * 5 accumulation blocks */
  poll_counter pc = {0, 1};
  ctx.interrupt = count_polls;
  ctx.user_data = &pc;
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, st, sgp_cmat_of(X, NI, 1),
                                            sgp_cmat_of(y, NI, 1), 100, SGP_SKI_BOUNDS_ERROR),
                   SGP_EINTERRUPT);
  assert_true(th_ski_stats_same_bits(st, ref));
  pc = (poll_counter){0, 6};
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, st, sgp_cmat_of(X, NI, 1),
                                            sgp_cmat_of(y, NI, 1), 100, SGP_SKI_BOUNDS_ERROR),
                   SGP_EINTERRUPT);
  assert_int_equal(st->n, 0);
  assert_true(st->yy == 0.0 && st->ysum == 0.0);
  for (int64_t i = 0; i < st->S * st->m; i++) assert_true(st->D[i] == 0.0);
  for (int64_t i = 0; i < st->m; i++) assert_true(st->uy[i] == 0.0 && st->u1[i] == 0.0);
  /* the moments: cleared too, so a flush adds nothing */
  sgp_ski_moments *mo = NULL;
  ctx.interrupt = NULL;
  assert_int_equal(sgp_ski_moments_create(&ctx, ref, &mo), SGP_OK);
  assert_int_equal(sgp_ski_moments_accumulate(&ctx, mo, X0, y0, 0, SGP_SKI_BOUNDS_ERROR), SGP_OK);
  ctx.interrupt = count_polls;
  pc = (poll_counter){0, 3}; /* 1: between validation blocks, 2: before adding, 3: adding */
  assert_int_equal(sgp_ski_moments_accumulate(&ctx, mo, sgp_cmat_of(X, NI, 1),
                                              sgp_cmat_of(y, NI, 1), 100, SGP_SKI_BOUNDS_ERROR),
                   SGP_EINTERRUPT);
  ctx.interrupt = NULL;
  sgp_ski_stats *copy = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &copy), SGP_OK);
  assert_int_equal(sgp_ski_stats_merge(&ctx, copy, ref), SGP_OK);
  assert_int_equal(sgp_ski_moments_flush(&ctx, mo, ref), SGP_OK);
  assert_true(th_ski_stats_same_bits(copy, ref));
  sgp_ski_moments_free(mo);
  sgp_ski_stats_free(st);
  sgp_ski_stats_free(ref);
  sgp_ski_stats_free(copy);
  free(X); free(y);
}

/* A row outside the grid under "error": the same code and message on both
 * paths (global row numbering); a bad pass code names `pass`. */
static void errors_match(void **state)
{
  (void)state;
  sgp_ctx c1, c2;
  sgp_ctx_init(&c1);
  sgp_ctx_init(&c2);
  const int64_t m1[1] = {10};
  const double lo[1] = {0.0}, h[1] = {1.0};
  const sgp_ski_grid g = th_ski_grid(1, m1, lo, h);
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  const int64_t n = 100;
  double *X = th_zeros(n), *y = th_zeros(n);
  for (int64_t i = 0; i < n; i++) {
    X[i] = 1.0 + 7.0 * (double)i / (double)n;
    y[i] = (double)i;
  }
  X[57] = 42.0;
  assert_int_equal(sgp_ski_stats_pass_choice(&g, o.bounds_policy, n), SGP_SKI_PASS_MOMENTS);
  sgp_ski_stats *st = NULL;
  const int ca = sgp_ski_stats_compute(&c1, &g, &o, sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1),
                                       1000, &st, NULL, NULL);
  assert_null(st);
  const int ct = sgp_ski_stats_compute_pass(&c2, &g, &o, sgp_cmat_of(X, n, 1),
                                            sgp_cmat_of(y, n, 1), 1000, SGP_SKI_PASS_TAP, &st,
                                            NULL, NULL);
  assert_null(st);
  assert_int_equal(ca, SGP_EINVAL);
  assert_int_equal(ca, ct);
  assert_string_equal(c1.errmsg, c2.errmsg);
  assert_contains(c1.errmsg, "1058");
  assert_int_equal(sgp_ski_stats_compute_pass(&c1, &g, &o, sgp_cmat_of(X, n, 1),
                                              sgp_cmat_of(y, n, 1), 0, (sgp_ski_pass)7, &st,
                                              NULL, NULL), SGP_EINVAL);
  assert_contains(c1.errmsg, "pass");
  assert_null(st);
  free(X);
  free(y);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(choice_and_agreement),
    cmocka_unit_test(dropped_points_are_no_data),
    cmocka_unit_test(interrupts_stop_the_pass),
    cmocka_unit_test(interrupted_accumulation_is_all_or_nothing),
    cmocka_unit_test(errors_match),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
