/* test_ski_grid.c -- ski_gsgp grid and interpolation weights.
 * Oracles: Keys' kernel u(xi) evaluated directly; exact reproduction of
 * polynomials of degree <= 2 per dimension (cubic) / multilinear (linear); the
 * closed-form error of x^3; first-dimension-fastest index arithmetic written
 * out by hand; the boundary policies on hand-placed points. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>

static double max_poly_err_cubic = 0.0, max_poly_err_linear = 0.0, max_sum_err = 0.0;

/* ------------------------------------------------------------ 1-D weights */

static void cubic_closed_form_equals_keys_kernel(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 3);
  for (int i = 0; i <= 200; i++) {
    const double f = i <= 128 ? i / 128.0 : sgp_rng_uniform(&rng);
    double w[4];
    sgp_ski_cubic_weights(f, w);
    assert_close(w[0], sgp_ski_keys_kernel(1.0 + f), 1e-14);
    assert_close(w[1], sgp_ski_keys_kernel(f), 1e-14);
    assert_close(w[2], sgp_ski_keys_kernel(1.0 - f), 1e-14);
    assert_close(w[3], sgp_ski_keys_kernel(2.0 - f), 1e-14);
    const double sum = w[0] + w[1] + w[2] + w[3];
    assert_close(sum, 1.0, 1e-14);
    if (fabs(sum - 1.0) > max_sum_err) max_sum_err = fabs(sum - 1.0);
  }
  /* the kernel itself: u(0) = 1, u(+-1) = u(+-2) = 0, zero beyond 2 */
  assert_close(sgp_ski_keys_kernel(0.0), 1.0, 0.0);
  assert_close(sgp_ski_keys_kernel(1.0), 0.0, 1e-15);
  assert_close(sgp_ski_keys_kernel(-1.0), 0.0, 1e-15);
  assert_close(sgp_ski_keys_kernel(2.0), 0.0, 0.0);
  assert_close(sgp_ski_keys_kernel(-2.5), 0.0, 0.0);
  assert_int_equal(sgp_ski_interp_width(SGP_SKI_CUBIC), 4);
  assert_int_equal(sgp_ski_interp_width(SGP_SKI_LINEAR), 2);
  assert_int_equal(sgp_ski_interp_taps(SGP_SKI_CUBIC, 3), 64);
  assert_int_equal(sgp_ski_interp_taps(SGP_SKI_LINEAR, 3), 8);
}

/* Weights of random points sum to 1 (both interpolations, d = 1..3). */
static void weights_sum_to_one(void **state)
{
  (void)state;
  const int64_t m[3] = {9, 7, 6};
  const double lo[3] = {-1.3, 0.4, 2.0}, h[3] = {0.25, 0.3, 0.17};
  sgp_rng rng;
  sgp_rng_seed(&rng, 5);
  for (int interp = 0; interp < 2; interp++)
    for (int d = 1; d <= 3; d++) {
      const sgp_ski_grid g = th_ski_grid(d, m, lo, h);
      const int64_t T = sgp_ski_interp_taps((sgp_ski_interpolation)interp, d);
      int64_t idx[64];
      double w[64], x[3];
      for (int rep = 0; rep < 200; rep++) {
        for (int j = 0; j < d; j++) {
          const double tmin = interp == SGP_SKI_CUBIC ? 1.0 : 0.0;
          const double tmax = (double)m[j] - 1.0 - tmin;
          x[j] = lo[j] + (tmin + (tmax - tmin) * sgp_rng_uniform(&rng)) * h[j];
        }
        int bad = -1;
        assert_int_equal(sgp_ski_interp_point(&g, (sgp_ski_interpolation)interp,
                                              SGP_SKI_BOUNDS_ERROR, x, 1, idx, w, &bad),
                         SGP_SKI_POINT_OK);
        double s = 0.0;
        for (int64_t t = 0; t < T; t++) {
          assert_true(idx[t] >= 0 && idx[t] < sgp_ski_grid_npoints(&g));
          s += w[t];
        }
        assert_close(s, 1.0, 1e-14);
        if (fabs(s - 1.0) > max_sum_err) max_sum_err = fabs(s - 1.0);
      }
    }
}

/* ------------------------------------------------------------ reproduction */

/* Test functions: cubic reproduces degree <= 2 in every dimension (tensor
 * products included), linear reproduces multilinear functions. */
static double poly(int cubic, int d, const double *x)
{
  double v = 0.7;
  for (int j = 0; j < d; j++) v += (0.3 + 0.2 * j) * x[j];
  if (d >= 2) v += 1.5 * x[0] * x[1];
  if (d >= 3) v -= 0.8 * x[0] * x[1] * x[2];
  if (cubic) {
    for (int j = 0; j < d; j++) v += (j % 2 ? -0.4 : 0.9) * x[j] * x[j];
    if (d >= 2) v += x[0] * x[0] * x[1] * x[1] + 3.0 * x[0] * x[1];
    if (d >= 3) v += 0.5 * x[1] * x[2] * x[2] - 0.3 * x[0] * x[0] * x[2];
  }
  return v;
}

static void check_reproduction(sgp_ski_interpolation interp, int d)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 40 + d + 10 * (int)interp);
  const int64_t m[3] = {9, 7, 6};
  const double lo[3] = {-1.3, 0.4, 2.0}, h[3] = {0.25, 0.3, 0.17};
  const sgp_ski_grid g = th_ski_grid(d, m, lo, h);
  const int64_t M = sgp_ski_grid_npoints(&g), T = sgp_ski_interp_taps(interp, d), n = 300;
  double *P = th_zeros(M * d), *F = th_zeros(M), *X = th_zeros(n * d), *W = th_zeros(n * T);
  int64_t *I = (int64_t *)calloc((size_t)(n * T), sizeof *I);
  assert_non_null(I);
  assert_int_equal(sgp_ski_grid_points(&ctx, &g, sgp_mat_of(P, M, d)), SGP_OK);
  for (int64_t i = 0; i < M; i++) {
    double p[3];
    for (int j = 0; j < d; j++) p[j] = P[i + j * M];
    F[i] = poly(interp == SGP_SKI_CUBIC, d, p);
  }
  const double tmin = interp == SGP_SKI_CUBIC ? 1.0 : 0.0;
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < d; j++) {
      const double tmax = (double)m[j] - 1.0 - tmin;
      X[i + j * n] = lo[j] + (tmin + (tmax - tmin) * sgp_rng_uniform(&ctx.rng)) * h[j];
    }
  assert_int_equal(sgp_ski_interp(&ctx, &g, interp, SGP_SKI_BOUNDS_ERROR, sgp_cmat_of(X, n, d),
                                  0, I, W), SGP_OK);
  double worst = 0.0;
  for (int64_t i = 0; i < n; i++) {
    double x[3], v = 0.0;
    for (int j = 0; j < d; j++) x[j] = X[i + j * n];
    for (int64_t t = 0; t < T; t++) v += W[i * T + t] * F[I[i * T + t]];
    const double ref = poly(interp == SGP_SKI_CUBIC, d, x);
    const double err = fabs(v - ref) / (fabs(ref) > 1.0 ? fabs(ref) : 1.0);
    if (err > worst) worst = err;
  }
  if (!(worst <= 1e-12))
    fail_msg("%s d=%d: polynomial reproduction error %.3g",
             interp == SGP_SKI_CUBIC ? "cubic" : "linear", d, worst);
  double *mx = interp == SGP_SKI_CUBIC ? &max_poly_err_cubic : &max_poly_err_linear;
  if (worst > *mx) *mx = worst;
  free(P); free(F); free(X); free(W); free(I);
}

static void cubic_reproduces_quadratics(void **state)
{
  (void)state;
  for (int d = 1; d <= 3; d++) check_reproduction(SGP_SKI_CUBIC, d);
}

static void linear_reproduces_multilinear(void **state)
{
  (void)state;
  for (int d = 1; d <= 3; d++) check_reproduction(SGP_SKI_LINEAR, d);
}

/* x^3 is not reproduced: the error is h^3 f (f - 1)(2f - 1), at most h^3/(6 sqrt 3). */
static void cubic_error_on_x_cubed(void **state)
{
  (void)state;
  const int64_t m = 12;
  const double lo = 0.3, h = 0.2;
  const sgp_ski_grid g = th_ski_grid(1, &m, &lo, &h);
  double maxerr = 0.0;
  for (int i = 0; i <= 900; i++) {
    const double t = 1.0 + (double)(m - 3) * i / 900.0;
    const double x = lo + t * h;
    int64_t idx[4];
    double w[4], v = 0.0;
    int bad;
    assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, &x, 1, idx,
                                          w, &bad), SGP_SKI_POINT_OK);
    for (int a = 0; a < 4; a++) {
      const double gx = lo + (double)idx[a] * h;
      v += w[a] * gx * gx * gx;
    }
    const double tt = (x - lo) / h;
    double i0 = floor(tt);
    if (i0 > (double)(m - 3)) i0 = (double)(m - 3);
    const double f = tt - i0;
    const double expect = h * h * h * f * (f - 1.0) * (2.0 * f - 1.0);
    assert_close(v - x * x * x, expect, 1e-12);
    if (fabs(v - x * x * x) > maxerr) maxerr = fabs(v - x * x * x);
  }
  const double bound = h * h * h / (6.0 * sqrt(3.0));
  assert_le(maxerr, bound * (1.0 + 1e-9));
  assert_true(maxerr > 0.999 * bound);
}

/* Grid nodes (in the valid range) get a unit weight vector. */
static void nodes_are_interpolated(void **state)
{
  (void)state;
  const int64_t m[2] = {8, 6};
  const double lo[2] = {-2.0, 1.0}, h[2] = {0.5, 0.1};
  const sgp_ski_grid g = th_ski_grid(2, m, lo, h);
  for (int interp = 0; interp < 2; interp++) {
    const int64_t T = sgp_ski_interp_taps((sgp_ski_interpolation)interp, 2);
    const int64_t first = interp == SGP_SKI_CUBIC ? 1 : 0;
    for (int64_t i2 = first; i2 <= m[1] - 1 - first; i2++)
      for (int64_t i1 = first; i1 <= m[0] - 1 - first; i1++) {
        const double x[2] = {lo[0] + (double)i1 * h[0], lo[1] + (double)i2 * h[1]};
        int64_t idx[16];
        double w[16];
        int bad;
        assert_int_equal(sgp_ski_interp_point(&g, (sgp_ski_interpolation)interp,
                                              SGP_SKI_BOUNDS_ERROR, x, 1, idx, w, &bad),
                         SGP_SKI_POINT_OK);
        const int64_t node = i1 + m[0] * i2;
        int found = 0;
        for (int64_t t = 0; t < T; t++) {
          assert_true(idx[t] >= 0 && idx[t] < m[0] * m[1]);
          if (idx[t] == node) { assert_close(w[t], 1.0, 1e-14); found = 1; }
          else assert_close(w[t], 0.0, 1e-14);
        }
        assert_true(found);
      }
  }
}

/* ------------------------------------------------------------ index layout */

static void index_layout_is_first_dimension_fastest(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t m[3] = {5, 4, 3};
  const double lo[3] = {0.0, 10.0, -3.0}, h[3] = {1.0, 0.5, 2.0};
  const sgp_ski_grid g = th_ski_grid(3, m, lo, h);
  const int64_t M = 60;
  assert_int_equal(sgp_ski_grid_npoints(&g), M);
  double *P = th_zeros(M * 3);
  assert_int_equal(sgp_ski_grid_points(&ctx, &g, sgp_mat_of(P, M, 3)), SGP_OK);
  for (int64_t i3 = 0; i3 < 3; i3++)
    for (int64_t i2 = 0; i2 < 4; i2++)
      for (int64_t i1 = 0; i1 < 5; i1++) {
        const int64_t gidx = i1 + 5 * (i2 + 4 * i3), sub[3] = {i1, i2, i3};
        int64_t back[3];
        assert_int_equal(sgp_ski_grid_index(&g, sub), gidx);
        sgp_ski_grid_subscripts(&g, gidx, back);
        assert_int_equal(back[0], i1);
        assert_int_equal(back[1], i2);
        assert_int_equal(back[2], i3);
        assert_close(P[gidx], lo[0] + (double)i1 * h[0], 1e-15);
        assert_close(P[gidx + M], lo[1] + (double)i2 * h[1], 1e-14);
        assert_close(P[gidx + 2 * M], lo[2] + (double)i3 * h[2], 1e-15);
      }
  /* linear taps: t = a1 + 2 a2 + 4 a3 -> base + a1 + 5 a2 + 20 a3 */
  const double x[3] = {2.3, 10.7, -0.5}; /* cells (2, 1, 1) */
  int64_t idx[8];
  double w[8];
  int bad;
  assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_ERROR, x, 1, idx, w,
                                        &bad), SGP_SKI_POINT_OK);
  const int64_t base = 2 + 5 * (1 + 4 * 1);
  for (int a3 = 0; a3 < 2; a3++)
    for (int a2 = 0; a2 < 2; a2++)
      for (int a1 = 0; a1 < 2; a1++) {
        const int t = a1 + 2 * a2 + 4 * a3;
        assert_int_equal(idx[t], base + a1 + 5 * a2 + 20 * a3);
        const double w1 = a1 ? 0.3 : 0.7, w2 = a2 ? 0.4 : 0.6, w3 = a3 ? 0.25 : 0.75;
        assert_close(w[t], w1 * w2 * w3, 1e-14);
      }
  /* cubic taps in 2-D: t = a1 + 4 a2 -> (b1 + a1) + m1 (b2 + a2) */
  const int64_t m2[2] = {7, 6};
  const double lo2[2] = {0.0, 0.0}, h2[2] = {1.0, 1.0};
  const sgp_ski_grid g2 = th_ski_grid(2, m2, lo2, h2);
  const double x2[2] = {3.25, 2.5};
  int64_t idx2[16];
  double w2[16], wa[4], wb[4];
  assert_int_equal(sgp_ski_interp_point(&g2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, x2, 1, idx2,
                                        w2, &bad), SGP_SKI_POINT_OK);
  sgp_ski_cubic_weights(0.25, wa);
  sgp_ski_cubic_weights(0.5, wb);
  for (int a2 = 0; a2 < 4; a2++)
    for (int a1 = 0; a1 < 4; a1++) {
      assert_int_equal(idx2[a1 + 4 * a2], (2 + a1) + 7 * (1 + a2));
      assert_close(w2[a1 + 4 * a2], wa[a1] * wb[a2], 1e-15);
    }
  /* a strided point (incx) gives the same */
  const double xs[4] = {3.25, -9.0, 2.5, -9.0};
  int64_t idx3[16];
  double w3[16];
  assert_int_equal(sgp_ski_interp_point(&g2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, xs, 2, idx3,
                                        w3, &bad), SGP_SKI_POINT_OK);
  for (int t = 0; t < 16; t++) {
    assert_int_equal(idx3[t], idx2[t]);
    assert_close(w3[t], w2[t], 0.0);
  }
  free(P);
}

/* ------------------------------------------------------------ boundaries */

static void upper_and_lower_edges_are_in_range(void **state)
{
  (void)state;
  const int64_t m = 8;
  const double lo = -1.0, h = 0.3;
  const sgp_ski_grid g = th_ski_grid(1, &m, &lo, &h);
  int64_t idx[4];
  double w[4];
  int bad;
  /* cubic: t = 1 and t = m - 2 */
  for (int e = 0; e < 2; e++) {
    const double t = e ? (double)(m - 2) : 1.0, x = lo + t * h;
    assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, &x, 1, idx, w,
                                          &bad), SGP_SKI_POINT_OK);
    for (int a = 0; a < 4; a++) {
      assert_true(idx[a] >= 0 && idx[a] < m);
      assert_close(w[a], idx[a] == (int64_t)t ? 1.0 : 0.0, 1e-14);
    }
  }
  /* linear: t = 0 and t = m - 1 */
  for (int e = 0; e < 2; e++) {
    const double t = e ? (double)(m - 1) : 0.0, x = lo + t * h;
    assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_ERROR, &x, 1, idx,
                                          w, &bad), SGP_SKI_POINT_OK);
    for (int a = 0; a < 2; a++) {
      assert_true(idx[a] >= 0 && idx[a] < m);
      assert_close(w[a], idx[a] == (int64_t)t ? 1.0 : 0.0, 1e-14);
    }
  }
  /* just outside: cubic t = m - 2 + 1e-6 and t = 1 - 1e-6 */
  const double out_hi = lo + ((double)(m - 2) + 1e-6) * h, out_lo = lo + (1.0 - 1e-6) * h;
  assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, &out_hi, 1, idx,
                                        w, &bad), SGP_SKI_POINT_OUTSIDE);
  assert_int_equal(bad, 0);
  assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, &out_lo, 1, idx,
                                        w, &bad), SGP_SKI_POINT_OUTSIDE);
}

static void out_of_grid_error_names_x_and_row(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t m[2] = {8, 6};
  const double lo[2] = {0.0, 0.0}, h[2] = {1.0, 1.0};
  const sgp_ski_grid g = th_ski_grid(2, m, lo, h);
  /* 3 rows; row 2 has column 2 at t = 4.5 > m_2 - 2 = 4 */
  double X[6] = {2.0, 3.0, 4.0, 2.0, 4.5, 3.0};
  int64_t idx[48];
  double w[48];
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 3, 2), 0, idx, w), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x: row 2, column 2");
  assert_contains(ctx.errmsg, "outside");
  /* the global row with first_row */
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 3, 2), 100, idx, w), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x: row 102, column 2");
  /* linear accepts it (valid range up to m - 1 = 5) */
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 3, 2), 0, idx, w), SGP_OK);
  /* NaN is an error under every policy */
  X[1] = NAN;
  for (int p = 0; p <= SGP_SKI_BOUNDS_DROP; p++) {
    ctx.errmsg[0] = 0;
    assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_LINEAR, (sgp_ski_bounds_policy)p,
                                     sgp_cmat_of(X, 3, 2), 0, idx, w), SGP_EINVAL);
    assert_contains(ctx.errmsg, "x: contains NaN or Inf (row 2, column 1)");
  }
  X[1] = INFINITY;
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_CLAMP,
                                  sgp_cmat_of(X, 3, 2), 0, idx, w), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x:");
  /* argument errors */
  X[1] = 3.0;
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 2, 3), 0, idx, w), SGP_EDIM);
  assert_contains(ctx.errmsg, "x: has 3 columns");
  assert_int_equal(sgp_ski_interp(&ctx, &g, (sgp_ski_interpolation)7, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 3, 2), 0, idx, w), SGP_EINVAL);
  assert_contains(ctx.errmsg, "interpolation");
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, (sgp_ski_bounds_policy)9,
                                  sgp_cmat_of(X, 3, 2), 0, idx, w), SGP_EINVAL);
  assert_contains(ctx.errmsg, "bounds_policy");
  const int64_t small[2] = {3, 6};
  const sgp_ski_grid gs = th_ski_grid(2, small, lo, h);
  assert_int_equal(sgp_ski_interp(&ctx, &gs, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 3, 2), 0, idx, w), SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_size");
  const int64_t one[2] = {1, 6};
  const sgp_ski_grid g1 = th_ski_grid(2, one, lo, h);
  assert_int_equal(sgp_ski_interp(&ctx, &g1, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 3, 2), 0, idx, w), SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_size");
  /* zero rows is fine */
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 0, 2), 0, idx, w), SGP_OK);
}

static void clamp_truncate_and_drop(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t m = 8;
  const double lo = 0.0, h = 1.0;
  const sgp_ski_grid g = th_ski_grid(1, &m, &lo, &h);
  int64_t idx[4], ref_idx[4];
  double w[4], ref_w[4], wf[4];
  int bad;
  /* CLAMP: t = 6.5 behaves as t = 6, t = -50 as t = 1 */
  const double xs[2] = {6.5, -50.0}, xc[2] = {6.0, 1.0};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_CLAMP, &xs[i], 1, idx,
                                          w, &bad), SGP_SKI_POINT_OK);
    assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, &xc[i], 1,
                                          ref_idx, ref_w, &bad), SGP_SKI_POINT_OK);
    for (int a = 0; a < 4; a++) {
      assert_int_equal(idx[a], ref_idx[a]);
      assert_close(w[a], ref_w[a], 0.0);
    }
  }
  /* TRUNCATE: t = 6.5 -> taps 5, 6, 7, (8 dropped) with the f = 0.5 weights */
  const double x1 = 6.5;
  assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_TRUNCATE, &x1, 1, idx,
                                        w, &bad), SGP_SKI_POINT_OK);
  sgp_ski_cubic_weights(0.5, wf);
  for (int a = 0; a < 3; a++) {
    assert_int_equal(idx[a], 5 + a);
    assert_close(w[a], wf[a], 1e-15);
  }
  assert_int_equal(idx[3], -1);
  assert_close(w[3], 0.0, 0.0);
  /* t = -0.5 -> taps -2, -1 dropped; 0, 1 kept with f = 0.5 */
  const double x2 = -0.5;
  assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_TRUNCATE, &x2, 1, idx,
                                        w, &bad), SGP_SKI_POINT_OK);
  assert_int_equal(idx[0], -1);
  assert_int_equal(idx[1], -1);
  assert_int_equal(idx[2], 0);
  assert_int_equal(idx[3], 1);
  assert_close(w[2], wf[2], 1e-15);
  assert_close(w[3], wf[3], 1e-15);
  /* far away: every tap dropped */
  const double x3 = 1e6;
  assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_TRUNCATE, &x3, 1, idx,
                                        w, &bad), SGP_SKI_POINT_OK);
  for (int a = 0; a < 4; a++) { assert_int_equal(idx[a], -1); assert_close(w[a], 0.0, 0.0); }
  /* linear truncation: t = 7.25 -> tap 7 (weight 0.75), tap 8 dropped */
  assert_int_equal(sgp_ski_interp_point(&g, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_TRUNCATE,
                                        &(double){7.25}, 1, idx, w, &bad), SGP_SKI_POINT_OK);
  assert_int_equal(idx[0], 7);
  assert_close(w[0], 0.75, 1e-15);
  assert_int_equal(idx[1], -1);
  /* 2-D: truncated in one dimension only; batch with DROP and TRUNCATE */
  const int64_t m2[2] = {8, 6};
  const double lo2[2] = {0.0, 0.0}, h2[2] = {1.0, 1.0};
  const sgp_ski_grid g2 = th_ski_grid(2, m2, lo2, h2);
  double X[6] = {3.5, 6.5, 2.0, 2.5, 2.5, 9.0}; /* rows (3.5,2.5) in, (6.5,2.5) x1 out, (2,9) x2 out */
  int64_t I[48];
  double W[48];
  assert_int_equal(sgp_ski_interp(&ctx, &g2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_DROP,
                                  sgp_cmat_of(X, 3, 2), 0, I, W), SGP_OK);
  double s0 = 0.0;
  for (int t = 0; t < 16; t++) s0 += W[t];
  assert_close(s0, 1.0, 1e-14);
  for (int t = 16; t < 48; t++) { assert_int_equal(I[t], -1); assert_close(W[t], 0.0, 0.0); }
  assert_int_equal(sgp_ski_interp(&ctx, &g2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_TRUNCATE,
                                  sgp_cmat_of(X, 3, 2), 0, I, W), SGP_OK);
  double s1 = 0.0;
  int dropped = 0;
  for (int t = 16; t < 32; t++) {
    if (I[t] < 0) { dropped++; assert_close(W[t], 0.0, 0.0); continue; }
    assert_true(I[t] < 48);
    s1 += W[t];
  }
  assert_int_equal(dropped, 4); /* the a1 = 3 column of taps */
  assert_close(s1, 1.0 - wf[3], 1e-14);
  for (int t = 32; t < 48; t++) assert_int_equal(I[t], -1); /* t2 = 9: taps 8..11 all off */
  assert_int_equal(sgp_ski_interp(&ctx, &g2, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_CLAMP,
                                  sgp_cmat_of(X, 3, 2), 0, I, W), SGP_OK);
  for (int i = 0; i < 3; i++) {
    double s = 0.0;
    for (int t = 0; t < 16; t++) { assert_true(I[i * 16 + t] >= 0); s += W[i * 16 + t]; }
    assert_close(s, 1.0, 1e-14);
  }
}

/* Results do not depend on the thread count (parallel for n >= 4096). */
static void interp_independent_of_threads(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t n = 5000, m[2] = {30, 20};
  const double lo[2] = {0.0, -1.0}, h[2] = {0.1, 0.2};
  const sgp_ski_grid g = th_ski_grid(2, m, lo, h);
  double *X = th_zeros(n * 2), *W1 = th_zeros(n * 16), *W2 = th_zeros(n * 16);
  int64_t *I1 = (int64_t *)calloc((size_t)n * 16, sizeof *I1), *I2 = (int64_t *)calloc((size_t)n * 16, sizeof *I2);
  assert_non_null(I1);
  assert_non_null(I2);
  for (int64_t i = 0; i < n; i++) {
    X[i] = 0.1 + 2.7 * sgp_rng_uniform(&ctx.rng);
    X[i + n] = -0.8 + 3.4 * sgp_rng_uniform(&ctx.rng);
  }
  X[4321 + n] = 5.0; /* out of range: the first offending row is reported */
  X[4400] = 9.0;
  ctx.nthreads = 2;
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, n, 2), 0, I1, W1), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x: row 4322, column 2");
  X[4321 + n] = 0.0;
  X[4400] = 1.0;
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, n, 2), 0, I1, W1), SGP_OK);
  ctx.nthreads = 1;
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, n, 2), 0, I2, W2), SGP_OK);
  assert_memory_equal(I1, I2, (size_t)n * 16 * sizeof *I1);
  assert_memory_equal(W1, W2, (size_t)n * 16 * sizeof *W1);
  free(X); free(W1); free(W2); free(I1); free(I2);
}

/* ------------------------------------------------------------ grid construction */

static void grid_from_bounds(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const double B[6] = {-1.0, 0.0, 5.0, 2.0, 1.0, 5.0}; /* rows (-1,2), (0,1), (5,5) */
  const int64_t m[3] = {7, 11, 1};
  sgp_ski_grid g;
  assert_int_equal(sgp_ski_grid_bounds(&ctx, sgp_cmat_of(B, 3, 2), m, &g), SGP_OK);
  assert_int_equal(g.d, 3);
  assert_close(g.lo[0], -1.0, 0.0);
  assert_close(g.h[0], 0.5, 1e-15);
  assert_close(g.h[1], 0.1, 1e-15);
  assert_close(g.h[2], 1.0, 0.0);
  assert_close(sgp_ski_grid_hi(&g, 0), 2.0, 1e-15);
  assert_close(sgp_ski_grid_hi(&g, 1), 1.0, 1e-15);
  assert_close(sgp_ski_grid_hi(&g, 2), 5.0, 0.0);
  /* the points lo + i (hi - lo)/(m - 1) */
  double *P = th_zeros(77 * 3);
  assert_int_equal(sgp_ski_grid_points(&ctx, &g, sgp_mat_of(P, 77, 3)), SGP_OK);
  for (int64_t i = 0; i < 77; i++) {
    assert_close(P[i], -1.0 + (double)(i % 7) * 3.0 / 6.0, 1e-15);
    assert_close(P[i + 77], 0.0 + (double)(i / 7) * 1.0 / 10.0, 1e-15);
    assert_close(P[i + 154], 5.0, 0.0);
  }
  assert_int_equal(sgp_ski_grid_points(&ctx, &g, sgp_mat_of(P, 76, 3)), SGP_EDIM);
  /* errors */
  const double Bbad[4] = {1.0, 0.0, 1.0, 1.0}; /* row 1: hi = lo */
  const int64_t m2[2] = {4, 4}, mz[2] = {4, 0};
  assert_int_equal(sgp_ski_grid_bounds(&ctx, sgp_cmat_of(Bbad, 2, 2), m2, &g), SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_bounds: row 1");
  assert_int_equal(sgp_ski_grid_bounds(&ctx, sgp_cmat_of(B, 3, 2), mz, &g), SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_size");
  assert_int_equal(sgp_ski_grid_bounds(&ctx, sgp_cmat_of(B, 2, 3), m, &g), SGP_EDIM);
  assert_contains(ctx.errmsg, "grid_bounds");
  const double Bnan[2] = {0.0, NAN};
  assert_int_equal(sgp_ski_grid_bounds(&ctx, sgp_cmat_of(Bnan, 1, 2), m, &g), SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_bounds");
  double B9[18] = {0};
  int64_t m9[9];
  for (int j = 0; j < 9; j++) { B9[9 + j] = 1.0; m9[j] = 2; }
  assert_int_equal(sgp_ski_grid_bounds(&ctx, sgp_cmat_of(B9, 9, 2), m9, &g), SGP_EDIM);
  assert_contains(ctx.errmsg, "grid_size");
  /* grid_check */
  sgp_ski_grid bad = g;
  assert_int_equal(sgp_ski_grid_bounds(&ctx, sgp_cmat_of(B, 3, 2), m, &bad), SGP_OK);
  bad.h[1] = -0.1;
  assert_int_equal(sgp_ski_grid_check(&ctx, &bad), SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_bounds");
  bad.h[1] = 0.1;
  bad.d = 0;
  assert_int_equal(sgp_ski_grid_check(&ctx, &bad), SGP_EDIM);
  free(P);
}

static void grid_from_data_range(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  /* data: 2 columns, x1 in [0, 1], x2 constant 3 */
  double X[8] = {0.2, 1.0, 0.0, 0.6, 3.0, 3.0, 3.0, 3.0}, R[4];
  assert_int_equal(sgp_ski_data_range(&ctx, sgp_cmat_of(X, 4, 2), R), SGP_OK);
  assert_close(R[0], 0.0, 0.0);
  assert_close(R[2], 1.0, 0.0);
  assert_close(R[1], 3.0, 0.0);
  assert_close(R[3], 3.0, 0.0);
  const int64_t m[2] = {10, 6};
  sgp_ski_grid g;
  /* cubic, default pad 2: h = 1/5, lo = -0.4; data at t in [2, 7] */
  assert_int_equal(sgp_ski_grid_auto(&ctx, sgp_cmat_of(R, 2, 2), m, SGP_SKI_CUBIC, -1, &g),
                   SGP_OK);
  assert_close(g.h[0], 0.2, 1e-15);
  assert_close(g.lo[0], -0.4, 1e-15);
  assert_close((0.0 - g.lo[0]) / g.h[0], 2.0, 1e-12);
  assert_close((1.0 - g.lo[0]) / g.h[0], 7.0, 1e-12);
  assert_close(g.h[1], 1.0, 0.0); /* constant column */
  assert_close(g.lo[1], 1.0, 0.0);
  /* every datum interpolates without error */
  int64_t I[64];
  double W[64];
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 4, 2), 0, I, W), SGP_OK);
  /* linear, default pad 1 */
  assert_int_equal(sgp_ski_grid_auto(&ctx, sgp_cmat_of(R, 2, 2), m, SGP_SKI_LINEAR, -1, &g),
                   SGP_OK);
  assert_close(g.h[0], 1.0 / 7.0, 1e-15);
  assert_close(g.lo[0], -1.0 / 7.0, 1e-15);
  assert_int_equal(sgp_ski_interp(&ctx, &g, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(X, 4, 2), 0, I, W), SGP_OK);
  /* too small for the pad */
  const int64_t small[2] = {5, 6};
  assert_int_equal(sgp_ski_grid_auto(&ctx, sgp_cmat_of(R, 2, 2), small, SGP_SKI_CUBIC, -1, &g),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_size: value 1");
  assert_int_equal(sgp_ski_grid_auto(&ctx, sgp_cmat_of(R, 2, 2), small, SGP_SKI_CUBIC, 1, &g),
                   SGP_OK);
  /* data errors name x */
  X[5] = NAN;
  assert_int_equal(sgp_ski_data_range(&ctx, sgp_cmat_of(X, 4, 2), R), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x:");
  assert_int_equal(sgp_ski_data_range(&ctx, sgp_cmat_of(X, 0, 2), R), SGP_EDIM);
  assert_contains(ctx.errmsg, "x:");
}

static int smooth(int64_t n)
{
  while (n % 2 == 0) n /= 2;
  while (n % 3 == 0) n /= 3;
  while (n % 5 == 0) n /= 5;
  while (n % 7 == 0) n /= 7;
  return n == 1;
}

static void grid_size_defaults(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  assert_int_equal(sgp_ski_fft_good_size(1), 1);
  assert_int_equal(sgp_ski_fft_good_size(11), 12);
  assert_int_equal(sgp_ski_fft_good_size(13), 14);
  assert_int_equal(sgp_ski_fft_good_size(121), 125);
  const double R[6] = {0.0, -1.0, 5.0, 2.0, 1.0, 5.0}; /* widths 2, 2, 0 */
  int64_t m[8];
  /* lengthscale rule: h <= ell/3 -> 12 cells + 1 + 2 pads = 17 -> 18 */
  const double ell[3] = {0.5, 0.25, 1.0};
  assert_int_equal(sgp_ski_grid_size_auto(&ctx, sgp_cmat_of(R, 3, 2), 100, ell, 3, SGP_SKI_CUBIC,
                                          -1, 0, m), SGP_OK);
  assert_int_equal(m[0], 18);
  assert_int_equal(m[1], 30); /* 24 + 5 = 29 -> 30 */
  assert_int_equal(m[2], 6);  /* constant column: the minimum */
  sgp_ski_grid g;
  assert_int_equal(sgp_ski_grid_auto(&ctx, sgp_cmat_of(R, 3, 2), m, SGP_SKI_CUBIC, -1, &g), SGP_OK);
  assert_le(g.h[0], ell[0] / 3.0);
  assert_le(g.h[1], ell[1] / 3.0);
  /* n rule: ceil(1000^(1/3)) + 2 pads = 14 */
  assert_int_equal(sgp_ski_grid_size_auto(&ctx, sgp_cmat_of(R, 3, 2), 1000, NULL, 0,
                                          SGP_SKI_CUBIC, -1, 0, m), SGP_OK);
  assert_int_equal(m[0], 14);
  assert_int_equal(m[1], 14);
  assert_int_equal(m[2], 6);
  /* budget: a tiny lengthscale in 2-D capped at 1000 points */
  const double tiny = 1e-3;
  assert_int_equal(sgp_ski_grid_size_auto(&ctx, sgp_cmat_of(R, 2, 2), 100, &tiny, 1,
                                          SGP_SKI_CUBIC, -1, 1000, m), SGP_OK);
  assert_le((double)(m[0] * m[1]), 1000.0);
  assert_true(m[0] >= 6 && m[1] >= 6);
  assert_true(m[0] * m[1] >= 500);
  assert_true(smooth(m[0]) && smooth(m[1]));
  /* the minimum alone exceeds the budget */
  double R8[16] = {0};
  for (int j = 0; j < 8; j++) R8[8 + j] = 1.0;
  assert_int_equal(sgp_ski_grid_size_auto(&ctx, sgp_cmat_of(R8, 8, 2), 100, NULL, 0,
                                          SGP_SKI_CUBIC, -1, 1000, m), SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_size");
  assert_int_equal(sgp_ski_grid_size_auto(&ctx, sgp_cmat_of(R, 3, 2), 100, ell, 2,
                                          SGP_SKI_CUBIC, -1, 0, m), SGP_EDIM);
  assert_contains(ctx.errmsg, "lengthscale");
}

static int report(void **state)
{
  (void)state;
  printf("ski grid: max |sum(w) - 1| %.2e, quadratic reproduction (cubic) %.2e, "
         "multilinear (linear) %.2e\n", max_sum_err, max_poly_err_cubic, max_poly_err_linear);
  return 0;
}

/* Grids whose statistics cannot fit in memory are refused before anything is
 * allocated, by the grid builder and by the statistics, naming grid_size: a
 * 1e5 x 1e5 x 1e4 grid (1e14 points, below the 2^50 index limit) needs
 * (343 + 2) x 1e14 doubles = 2.8e17 bytes; 2^50 points and beyond are refused
 * as too many. A small grid fits. */
static void oversized_grids_are_refused(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t big[3] = {100000, 100000, 10000}, small[2] = {20, 30};
  const double lo[3] = {0, 0, 0}, h[3] = {1, 1, 1};
  const sgp_ski_grid g = th_ski_grid(3, big, lo, h), ok = th_ski_grid(2, small, lo, h);
  assert_int_equal(sgp_ski_grid_fits(&ctx, &g, SGP_SKI_CUBIC), SGP_ENOMEM);
  assert_contains(ctx.errmsg, "grid_size:");
  assert_contains(ctx.errmsg, "memory");
  assert_int_equal(sgp_ski_grid_fits(&ctx, &g, SGP_SKI_LINEAR), SGP_ENOMEM);
  assert_int_equal(sgp_ski_grid_fits(&ctx, &ok, SGP_SKI_CUBIC), SGP_OK);
  sgp_ski_stats *st = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &st), SGP_ENOMEM);
  assert_null(st);
  assert_contains(ctx.errmsg, "grid_size:");
  int64_t m = 0, S = 0;
  assert_int_equal(sgp_ski_stats_shape(&ctx, &g, SGP_SKI_CUBIC, &m, &S), SGP_ENOMEM);
  /* the builders: user bounds and the data range */
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  const double range[6] = {0, 0, 0, 1, 1, 1};
  sgp_ski_grid out;
  for (int j = 0; j < 3; j++) o.grid_size[j] = big[j];
  assert_int_equal(sgp_ski_grid_from_range(&ctx, sgp_cmat_of(range, 3, 2), 10, &o, &out),
                   SGP_ENOMEM);
  assert_contains(ctx.errmsg, "grid_size:");
  o.grid_bounds = range;
  assert_int_equal(sgp_ski_grid_from_range(&ctx, sgp_cmat_of(range, 3, 2), 10, &o, &out),
                   SGP_ENOMEM);
  /* 1e10 points per dimension: more than 2^50 points in all */
  o.grid_size[0] = o.grid_size[1] = 10000000000LL;
  assert_int_equal(sgp_ski_grid_from_range(&ctx, sgp_cmat_of(range, 3, 2), 10, &o, &out),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_size:");
}

/* The default spacing from the kernel's smoothness (ski_grid_rule.c): the
 * spacing it picks is the one whose estimated error is 5% of the noise sd (the
 * two functions are inverse to each other, up to rounding: 1e-12 relative),
 * never coarser than ell/3, smoother kernels need fewer cells, less noise more;
 * linear interpolation keeps 3 cells and has no estimate. */
static void grid_rule_inverse(void **state)
{
  (void)state;
  const sgp_kernel_kind kinds[4] = {SGP_KERNEL_MATERN12, SGP_KERNEL_MATERN32,
                                    SGP_KERNEL_MATERN52, SGP_KERNEL_RBF};
  const double ell = 0.3, s = 2.0;
  double prev = INFINITY;
  for (int i = 0; i < 6; i++) {
    /* then rq at alpha 2 and 0.5 */
    const sgp_kernel k = {i < 4 ? kinds[i] : SGP_KERNEL_RQ, &ell, 1, s, i == 5 ? 0.5 : 2.0};
    for (int d = 1; d <= 3; d++) {
      const double sd = 0.05, c = sgp_ski_cells_per_lengthscale(&k, SGP_SKI_CUBIC,
                                                                 sd / sqrt(s), d);
      assert_true(c >= 3.0);
      const int64_t m[3] = {50, 50, 50};
      const double lo[3] = {0, 0, 0}, h[3] = {ell / c, ell / c, ell / c};
      const sgp_ski_grid g = th_ski_grid(d, m, lo, h);
      const double e = sgp_ski_interp_error_est(&g, SGP_SKI_CUBIC, &k);
      if (c > 3.0) assert_true(fabs(e - 0.05 * sd) <= 1e-12 * 0.05 * sd);
      else assert_true(e <= 0.05 * sd * (1 + 1e-12));
      assert_true(isnan(sgp_ski_interp_error_est(&g, SGP_SKI_LINEAR, &k)));
      /* less noise, a finer grid */
      assert_true(sgp_ski_cells_per_lengthscale(&k, SGP_SKI_CUBIC, sd / 10 / sqrt(s), d) >= c);
      if (d == 2) {
        if (i < 4) assert_true(c <= prev); /* smoother kernels: no more cells */
        if (i == 5) assert_true(c > prev);  /* rq: a smaller alpha, more cells */
        prev = c;
      }
    }
    assert_true(sgp_ski_cells_per_lengthscale(&k, SGP_SKI_LINEAR, 0.01, 2) == 3.0);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(grid_rule_inverse),
    cmocka_unit_test(cubic_closed_form_equals_keys_kernel),
    cmocka_unit_test(weights_sum_to_one),
    cmocka_unit_test(cubic_reproduces_quadratics),
    cmocka_unit_test(linear_reproduces_multilinear),
    cmocka_unit_test(cubic_error_on_x_cubed),
    cmocka_unit_test(nodes_are_interpolated),
    cmocka_unit_test(index_layout_is_first_dimension_fastest),
    cmocka_unit_test(upper_and_lower_edges_are_in_range),
    cmocka_unit_test(out_of_grid_error_names_x_and_row),
    cmocka_unit_test(clamp_truncate_and_drop),
    cmocka_unit_test(interp_independent_of_threads),
    cmocka_unit_test(grid_from_bounds),
    cmocka_unit_test(grid_from_data_range),
    cmocka_unit_test(grid_size_defaults),
    cmocka_unit_test(oversized_grids_are_refused),
  };
  return cmocka_run_group_tests_name("ski_grid", tests, NULL, report);
}
