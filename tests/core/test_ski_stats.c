/* test_ski_stats.c -- ski_gsgp sufficient statistics:
 * the streamed stencil B = W'W, W'y, W'1, y'y, n against the dense W (n-by-m,
 * built in the test from the interpolation taps) for several grids; bitwise
 * invariance to chunk size {1, 7, n} and thread count {1, 2}; merge(a, b) =
 * one pass over the union; the B operator against the dense W'W; the CSR form
 * of B on partly covered grids; bad inputs. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>

static double max_err_B = 0.0, max_err_u = 0.0, max_err_merge = 0.0, max_err_op = 0.0;
static int ncases = 0;

/* One pass over (X, y) in chunks of `chunk` rows with `threads` threads. */
static sgp_ski_stats *stream(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                             sgp_ski_bounds_policy policy, const double *X, const double *y,
                             int64_t n, int64_t chunk, int threads, int64_t ldx)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.nthreads = threads;
  sgp_ski_stats *st = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, g, interp, &st), SGP_OK);
  for (int64_t i0 = 0; i0 < n; i0 += chunk) {
    const int64_t nc = n - i0 < chunk ? n - i0 : chunk;
    const sgp_cmat Xc = {X + i0, nc, g->d, ldx};
    const int code = sgp_ski_stats_accumulate(&ctx, st, Xc, sgp_cmat_of(y + i0, nc, 1), i0,
                                              policy);
    if (code) fail_msg("accumulate: %s", ctx.errmsg);
  }
  return st;
}

static void check_against_dense(int d, const int64_t *msz, sgp_ski_interpolation interp,
                                sgp_ski_bounds_policy policy, double out, int64_t n)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 77 + 13 * (uint64_t)ncases);
  const double lo[3] = {0.0, -1.0, 0.5}, h[3] = {0.25, 0.3, 0.2};
  const sgp_ski_grid g = th_ski_grid(d, msz, lo, h);
  const int64_t m = sgp_ski_grid_npoints(&g);
  double *X = th_zeros(n * d), *y = th_zeros(n);
  th_ski_data(&rng, &g, interp, n, out, X, y);
  double *W = th_ski_dense_W(&ctx, &g, interp, policy, X, n);
  double *Bd = th_zeros(m * m), *uy = th_zeros(m), *u1 = th_zeros(m), *Wt = th_zeros(m * n);
  for (int64_t i = 0; i < n; i++)
    for (int64_t a = 0; a < m; a++) Wt[a + i * m] = W[i + a * n];
  th_matmul(m, m, n, Wt, W, Bd);
  double yy = 0, ysum = 0;
  int64_t kept = 0;
  for (int64_t i = 0; i < n; i++) {
    int taps = 0;
    for (int64_t a = 0; a < m; a++) {
      uy[a] += W[i + a * n] * y[i];
      u1[a] += W[i + a * n];
      taps += W[i + a * n] != 0.0;
    }
    if (policy == SGP_SKI_BOUNDS_DROP && !taps) continue; /* no data point of the model */
    yy += y[i] * y[i];
    ysum += y[i];
    kept++;
  }
  sgp_ski_stats *st = stream(&g, interp, policy, X, y, n, n, 2, n);
  if (policy == SGP_SKI_BOUNDS_DROP) assert_true(kept < n); /* the case drops some */
  assert_int_equal(st->n, kept);
  assert_int_equal(st->m, m);
  /* every stencil entry: B[g, g + o] or 0 outside the grid */
  const double bs = th_max_abs(m * m, Bd);
  double errB = 0.0;
  for (int64_t s = 0; s < st->S; s++)
    for (int64_t gi = 0; gi < m; gi++) {
      int64_t sub[SGP_SKI_MAX_D];
      sgp_ski_grid_subscripts(&g, gi, sub);
      int inside = 1;
      for (int j = 0; j < d; j++) {
        sub[j] += st->off[s * d + j];
        inside &= sub[j] >= 0 && sub[j] < g.m[j];
      }
      const double v = st->D[s * m + gi];
      if (!inside) { assert_true(v == 0.0); continue; }
      const int64_t g2 = sgp_ski_grid_index(&g, sub);
      assert_int_equal(g2, gi + st->delta[s]);
      const double e = fabs(v - Bd[gi + g2 * m]) / bs;
      if (e > errB) errB = e;
    }
  /* entries of the dense B outside the stencil are zero */
  for (int64_t a = 0; a < m; a++)
    for (int64_t b = 0; b < m; b++) {
      int64_t sa[SGP_SKI_MAX_D], sb[SGP_SKI_MAX_D];
      sgp_ski_grid_subscripts(&g, a, sa);
      sgp_ski_grid_subscripts(&g, b, sb);
      int o[SGP_SKI_MAX_D];
      for (int j = 0; j < d; j++) o[j] = (int)(sb[j] - sa[j]);
      if (sgp_ski_stats_offset_index(st, o) < 0) assert_true(Bd[a + b * m] == 0.0);
    }
  assert_le(errB, 1e-13);
  const double eu = fmax(th_rel_max(m, st->uy, uy), th_rel_max(m, st->u1, u1));
  assert_le(eu, 1e-13);
  assert_close(st->yy, yy, 1e-13 * yy);
  assert_close(st->ysum, ysum, 1e-12 * (fabs(ysum) + 1));
  /* the B operator on the identity (threaded path when m S is large) */
  sgp_op B;
  assert_int_equal(sgp_ski_stats_op(&ctx, st, &B), SGP_OK);
  assert_int_equal(B.n, m);
  double *I = th_zeros(m * m), *BI = th_zeros(m * m), *dg = th_zeros(m);
  for (int64_t a = 0; a < m; a++) I[a + a * m] = 1.0;
  ctx.nthreads = 2;
  assert_int_equal(B.apply(&B, sgp_cmat_of(I, m, m), sgp_mat_of(BI, m, m), &ctx), SGP_OK);
  const double eop = th_rel_max(m * m, BI, Bd);
  assert_le(eop, 1e-13);
  assert_int_equal(B.diag(&B, sgp_mat_of(dg, m, 1), &ctx), SGP_OK);
  for (int64_t a = 0; a < m; a++) assert_close(dg[a], Bd[a + a * m], 1e-13 * bs);
  /* without truncation or drops: B 1 = u_1 and 1' B 1 = n */
  if (out == 0.0) {
    double tot = 0.0;
    for (int64_t a = 0; a < m; a++) {
      double row = 0.0;
      for (int64_t b = 0; b < m; b++) row += BI[a + b * m];
      assert_close(row, st->u1[a], 1e-12);
      tot += row;
    }
    assert_close(tot, (double)n, 1e-12 * n);
  }
  sgp_op_destroy(&B);
  if (errB > max_err_B) max_err_B = errB;
  if (eu > max_err_u) max_err_u = eu;
  if (eop > max_err_op) max_err_op = eop;
  ncases++;
  sgp_ski_stats_free(st);
  free(X); free(y); free(W); free(Bd); free(uy); free(u1); free(Wt); free(I); free(BI);
  free(dg);
}

static void stats_match_dense(void **state)
{
  (void)state;
  const int64_t m2[2] = {12, 10}, m1[1] = {15}, m3[3] = {6, 5, 4}, m3c[3] = {7, 6, 5};
  check_against_dense(2, m2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 400);
  check_against_dense(1, m1, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 60);
  check_against_dense(1, m1, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_ERROR, 0.0, 60);
  check_against_dense(3, m3, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_ERROR, 0.0, 150);
  check_against_dense(3, m3c, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, 0.0, 120);
  /* points beyond the valid range: truncated taps, dropped points */
  check_against_dense(2, m2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_TRUNCATE, 1.5, 200);
  check_against_dense(2, m2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_DROP, 1.5, 200);
  check_against_dense(2, m2, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_CLAMP, 0.7, 200);
}

static int same_stats(const sgp_ski_stats *a, const sgp_ski_stats *b)
{
  return a->n == b->n && a->yy == b->yy && a->ysum == b->ysum &&
         !memcmp(a->uy, b->uy, (size_t)a->m * sizeof(double)) &&
         !memcmp(a->u1, b->u1, (size_t)a->m * sizeof(double)) &&
         !memcmp(a->D, b->D, (size_t)(a->S * a->m) * sizeof(double));
}

/* Bitwise identical for chunk sizes 1, 7, n and 1 or 2 threads. */
static void chunking_and_threads_are_bitwise_invariant(void **state)
{
  (void)state;
  const double lo[3] = {0.0, -1.0, 0.5}, h[3] = {0.25, 0.3, 0.2};
  const int64_t m2[2] = {12, 10}, m3[3] = {8, 7, 6};
  /* c = 2: truncated taps (points beyond the valid range), the accumulation's
   * path for incomplete points; chunk n takes the half-stencil path, chunks 1
   * and 7 the full one, so the two paths are compared bitwise too */
  for (int c = 0; c < 3; c++) {
    const int d = c == 1 ? 3 : 2;
    const int64_t n = c == 1 ? 200 : 400;
    const sgp_ski_bounds_policy pol = c == 2 ? SGP_SKI_BOUNDS_TRUNCATE : SGP_SKI_BOUNDS_ERROR;
    const sgp_ski_grid g = th_ski_grid(d, c == 1 ? m3 : m2, lo, h);
    sgp_rng rng;
    sgp_rng_seed(&rng, 5 + (uint64_t)c);
    double *X = th_zeros(n * d), *y = th_zeros(n);
    th_ski_data(&rng, &g, SGP_SKI_CUBIC, n, c == 2 ? 1.5 : 0.0, X, y);
    sgp_ski_stats *ref = stream(&g, SGP_SKI_CUBIC, pol, X, y, n, n, 1, n);
    const int64_t chunks[3] = {1, 7, n};
    for (int ci = 0; ci < 3; ci++)
      for (int th = 1; th <= 2; th++) {
        sgp_ski_stats *st = stream(&g, SGP_SKI_CUBIC, pol, X, y, n, chunks[ci], th, n);
        if (!same_stats(st, ref))
          fail_msg("d=%d chunk %lld threads %d: statistics differ", d, (long long)chunks[ci],
                   th);
        sgp_ski_stats_free(st);
      }
    /* merge(a, b) = one pass over the union (up to rounding) */
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    const int64_t n1 = n / 3;
    sgp_ski_stats *a = stream(&g, SGP_SKI_CUBIC, pol, X, y, n1, 7, 2, n);
    sgp_ski_stats *b = NULL;
    assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &b), SGP_OK);
    const sgp_cmat Xb = {X + n1, n - n1, d, n};
    assert_int_equal(sgp_ski_stats_accumulate(&ctx, b, Xb, sgp_cmat_of(y + n1, n - n1, 1), n1,
                                              pol), SGP_OK);
    assert_int_equal(sgp_ski_stats_merge(&ctx, a, b), SGP_OK);
    assert_int_equal(a->n, n);
    const double e = fmax(fmax(th_rel_max(a->S * a->m, a->D, ref->D), th_rel_max(a->m, a->uy, ref->uy)),
                          th_rel_max(a->m, a->u1, ref->u1));
    assert_le(e, 1e-13);
    assert_close(a->yy, ref->yy, 1e-13 * ref->yy);
    if (e > max_err_merge) max_err_merge = e;
    sgp_ski_stats_free(a);
    sgp_ski_stats_free(b);
    sgp_ski_stats_free(ref);
    free(X);
    free(y);
  }
}

static void stats_reject_bad_inputs(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const double lo[2] = {0.0, 0.0}, h[2] = {0.25, 0.25};
  const int64_t m2[2] = {12, 10}, m2b[2] = {12, 11};
  const sgp_ski_grid g = th_ski_grid(2, m2, lo, h), g2 = th_ski_grid(2, m2b, lo, h);
  sgp_ski_stats *a = NULL, *b = NULL, *c = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &a), SGP_OK);
  assert_int_equal(sgp_ski_stats_create(&ctx, &g2, SGP_SKI_CUBIC, &b), SGP_OK);
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_LINEAR, &c), SGP_OK);
  /* merge: mismatched grid, mismatched interpolation, missing */
  assert_int_equal(sgp_ski_stats_merge(&ctx, a, b), SGP_EINVAL);
  assert_contains(ctx.errmsg, "stats");
  assert_int_equal(sgp_ski_stats_merge(&ctx, a, c), SGP_EINVAL);
  assert_contains(ctx.errmsg, "stats");
  assert_int_equal(sgp_ski_stats_merge(&ctx, a, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "stats");
  double X[10] = {0.5, 1.0, 1.5, 2.0, 2.5, 0.5, 0.7, 0.9, 1.1, 1.3};
  double y[5] = {1, 2, 3, 4, 5};
  const sgp_cmat Xm = sgp_cmat_of(X, 5, 2);
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, NULL, Xm, sgp_cmat_of(y, 5, 1), 0,
                                            SGP_SKI_BOUNDS_ERROR), SGP_EINVAL);
  assert_contains(ctx.errmsg, "stats");
  /* y length mismatch */
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, a, Xm, sgp_cmat_of(y, 4, 1), 0,
                                            SGP_SKI_BOUNDS_ERROR), SGP_EDIM);
  assert_contains(ctx.errmsg, "y");
  /* NaN in y: named with its (global, 1-based) row */
  y[2] = NAN;
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, a, Xm, sgp_cmat_of(y, 5, 1), 10,
                                            SGP_SKI_BOUNDS_ERROR), SGP_EINVAL);
  assert_contains(ctx.errmsg, "y");
  assert_contains(ctx.errmsg, "row 13");
  y[2] = 3;
  /* x: NaN, outside the grid, wrong column count; the stats stay unchanged */
  X[6] = NAN;
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, a, Xm, sgp_cmat_of(y, 5, 1), 0,
                                            SGP_SKI_BOUNDS_ERROR), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x");
  X[6] = 0.7;
  X[4] = 9.0; /* beyond the valid range, last row */
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, a, Xm, sgp_cmat_of(y, 5, 1), 0,
                                            SGP_SKI_BOUNDS_ERROR), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x: row 5");
  assert_int_equal(a->n, 0);
  assert_true(th_max_abs(a->S * a->m, a->D) == 0.0 && th_max_abs(a->m, a->uy) == 0.0);
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, a, sgp_cmat_of(X, 5, 1),
                                            sgp_cmat_of(y, 5, 1), 0, SGP_SKI_BOUNDS_ERROR),
                   SGP_EDIM);
  assert_contains(ctx.errmsg, "x");
  /* empty chunk is a no-op; create rejects a grid too small for cubic */
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, a, sgp_cmat_of(X, 0, 2), sgp_cmat_of(y, 0, 1),
                                            0, SGP_SKI_BOUNDS_ERROR), SGP_OK);
  const int64_t tiny[2] = {3, 10};
  const sgp_ski_grid gt = th_ski_grid(2, tiny, lo, h);
  sgp_ski_stats *t = (sgp_ski_stats *)1;
  assert_int_equal(sgp_ski_stats_create(&ctx, &gt, SGP_SKI_CUBIC, &t), SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_size");
  assert_null(t);
  /* B operator refuses wrong shapes */
  sgp_op B;
  assert_int_equal(sgp_ski_stats_op(&ctx, a, &B), SGP_OK);
  double V[240] = {0}, Y[240] = {0};
  assert_int_equal(B.apply(&B, sgp_cmat_of(V, 119, 1), sgp_mat_of(Y, 119, 1), &ctx), SGP_EDIM);
  sgp_op_destroy(&B);
  sgp_ski_stats_free(a);
  sgp_ski_stats_free(b);
  sgp_ski_stats_free(c);
  sgp_ski_stats_free(NULL);
}

/* B operator in CSR form when the data cover only part of the grid:
 * CSR, STENCIL and the dense W'W give the same products; AUTO picks CSR exactly
 * when nnz(B) <= S m / 3; nnz equals the dense count of non-zeros. */
static double max_err_csr = 0.0;
static int ncsr = 0;

static void check_csr(int d, const int64_t *msz, sgp_ski_interpolation interp, int64_t n,
                      double frac, int expect_csr)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = SGP_BACKEND_CPU; /* the CPU operator's path: AUTO would take a GPU (test_backend) */
  ctx.nthreads = 2;
  sgp_rng rng;
  sgp_rng_seed(&rng, 901 + (uint64_t)ncsr);
  const double lo[3] = {0.0, -1.0, 0.5}, h[3] = {0.25, 0.3, 0.2};
  const sgp_ski_grid g = th_ski_grid(d, msz, lo, h);
  const int64_t m = sgp_ski_grid_npoints(&g);
  double *X = th_zeros(n * d), *y = th_zeros(n);
  th_ski_data(&rng, &g, interp, n, 0.0, X, y);
  /* squeeze the data into the lower corner: a fraction frac of each range */
  for (int j = 0; j < d; j++)
    for (int64_t i = 0; i < n; i++) {
      const double t0 = interp == SGP_SKI_CUBIC ? 1.0 : 0.0;
      const double t = (X[i + j * n] - g.lo[j]) / g.h[j];
      X[i + j * n] = g.lo[j] + (t0 + (t - t0) * frac) * g.h[j];
    }
  sgp_ski_stats *st = stream(&g, interp, SGP_SKI_BOUNDS_ERROR, X, y, n, n, 2, n);
  double *W = th_ski_dense_W(&ctx, &g, interp, SGP_SKI_BOUNDS_ERROR, X, n);
  double *Wt = th_zeros(m * n), *Bd = th_zeros(m * m);
  for (int64_t i = 0; i < n; i++)
    for (int64_t a = 0; a < m; a++) Wt[a + i * m] = W[i + a * n];
  th_matmul(m, m, n, Wt, W, Bd);
  int64_t nnz_dense = 0;
  for (int64_t i = 0; i < m * m; i++) nnz_dense += Bd[i] != 0.0;
  const int64_t k = 3;
  double *V = th_zeros(m * k), *Yc = th_zeros(m * k), *Ys = th_zeros(m * k),
         *Yd = th_zeros(m * k);
  for (int64_t i = 0; i < m * k; i++) V[i] = sgp_rng_normal(&rng);
  th_matmul(m, k, m, Bd, V, Yd);
  sgp_op Bc, Bs, Ba;
  assert_int_equal(sgp_ski_stats_op_format(&ctx, st, SGP_SKI_B_CSR, &Bc), SGP_OK);
  assert_int_equal(sgp_ski_stats_op_format(&ctx, st, SGP_SKI_B_STENCIL, &Bs), SGP_OK);
  assert_int_equal(sgp_ski_stats_op(&ctx, st, &Ba), SGP_OK);
  int64_t nnz = -1, nnz_s = -1;
  assert_int_equal(sgp_ski_stats_op_kind(&Bc, &nnz), SGP_SKI_B_CSR);
  assert_int_equal(sgp_ski_stats_op_kind(&Bs, &nnz_s), SGP_SKI_B_STENCIL);
  assert_int_equal(nnz, nnz_dense);
  assert_int_equal(nnz_s, st->S * m);
  assert_int_equal(sgp_ski_stats_op_kind(&Ba, NULL),
                   expect_csr ? SGP_SKI_B_CSR : SGP_SKI_B_STENCIL);
  assert_int_equal(3 * nnz <= st->S * m, expect_csr);
  for (int64_t i = 0; i < m * k; i++) Yc[i] = Ys[i] = NAN; /* every entry must be written */
  assert_int_equal(Bc.apply(&Bc, sgp_cmat_of(V, m, k), sgp_mat_of(Yc, m, k), &ctx), SGP_OK);
  assert_int_equal(Bs.apply(&Bs, sgp_cmat_of(V, m, k), sgp_mat_of(Ys, m, k), &ctx), SGP_OK);
  const double ecs = th_rel_max(m * k, Yc, Ys), ecd = th_rel_max(m * k, Yc, Yd);
  assert_le(ecs, 1e-12);
  assert_le(ecd, 1e-12);
  double *dg = th_zeros(m);
  assert_int_equal(Bc.diag(&Bc, sgp_mat_of(dg, m, 1), &ctx), SGP_OK);
  for (int64_t a = 0; a < m; a++) assert_true(dg[a] == Bd[a + a * m]);
  /* a wrong block shape is refused in CSR form too */
  assert_int_equal(Bc.apply(&Bc, sgp_cmat_of(V, m - 1, 1), sgp_mat_of(Yc, m - 1, 1), &ctx),
                   SGP_EDIM);
  if (fmax(ecs, ecd) > max_err_csr) max_err_csr = fmax(ecs, ecd);
  ncsr++;
  sgp_op_destroy(&Bc);
  sgp_op_destroy(&Bs);
  sgp_op_destroy(&Ba);
  sgp_ski_stats_free(st);
  free(X); free(y); free(W); free(Wt); free(Bd); free(V); free(Yc); free(Ys); free(Yd);
  free(dg);
}

static void csr_equals_stencil(void **state)
{
  (void)state;
  const int64_t m3[3] = {14, 12, 10}, m1[1] = {400}, m2[2] = {12, 10};
  check_csr(3, m3, SGP_SKI_CUBIC, 60, 0.3, 1);   /* a corner of a 3-D grid */
  check_csr(1, m1, SGP_SKI_CUBIC, 40, 1.0, 1);   /* m >> n in 1-D */
  check_csr(3, m3, SGP_SKI_LINEAR, 80, 0.5, 1);
  check_csr(2, m2, SGP_SKI_CUBIC, 400, 1.0, 0);  /* dense coverage: stencil */
  /* bad format code */
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = SGP_BACKEND_CPU; /* the CPU operator's path: AUTO would take a GPU (test_backend) */
  const double lo[2] = {0.0, 0.0}, h[2] = {0.25, 0.25};
  const sgp_ski_grid g = th_ski_grid(2, m2, lo, h);
  sgp_ski_stats *st = NULL;
  sgp_op B;
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &st), SGP_OK);
  assert_int_equal(sgp_ski_stats_op_format(&ctx, st, (sgp_ski_b_format)7, &B), SGP_EINVAL);
  assert_contains(ctx.errmsg, "b_format");
  /* empty statistics: CSR has no rows and gives B v = 0 */
  assert_int_equal(sgp_ski_stats_op(&ctx, st, &B), SGP_OK);
  assert_int_equal(sgp_ski_stats_op_kind(&B, NULL), SGP_SKI_B_CSR);
  double v[120], out[120];
  for (int i = 0; i < 120; i++) { v[i] = 1.0; out[i] = 5.0; }
  assert_int_equal(B.apply(&B, sgp_cmat_of(v, 120, 1), sgp_mat_of(out, 120, 1), &ctx), SGP_OK);
  assert_true(th_max_abs(120, out) == 0.0);
  sgp_op_destroy(&B);
  sgp_ski_stats_free(st);
}

static int report(void **state)
{
  (void)state;
  printf("ski stats: %d grids vs dense W'W; max rel error stencil %.2e, W'y/W'1 %.2e, "
         "B operator %.2e; merge vs one pass %.2e; chunks {1,7,n} x threads {1,2} bitwise "
         "identical; CSR (%d cases) vs stencil and dense %.2e\n", ncases, max_err_B, max_err_u,
         max_err_op, max_err_merge, ncsr, max_err_csr);
  return 0;
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(stats_match_dense),
    cmocka_unit_test(chunking_and_threads_are_bitwise_invariant),
    cmocka_unit_test(stats_reject_bad_inputs),
    cmocka_unit_test(csr_equals_stencil),
  };
  return cmocka_run_group_tests_name("ski_stats", tests, NULL, report);
}
