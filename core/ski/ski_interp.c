/* ski_interp.c -- interpolation weights of ski_gsgp: cubic
 * convolution (Keys 1981, a = -1/2, 4 taps per dimension) or linear (2 taps),
 * tensor products over the dimensions, and the boundary policies. */
#include "ski/ski.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

int sgp_ski_interp_width(sgp_ski_interpolation interp)
{
  return interp == SGP_SKI_LINEAR ? 2 : 4;
}

int64_t sgp_ski_interp_taps(sgp_ski_interpolation interp, int d)
{
  int64_t t = 1;
  for (int j = 0; j < d; j++) t *= sgp_ski_interp_width(interp);
  return t;
}

double sgp_ski_keys_kernel(double xi)
{
  const double a = -0.5, s = fabs(xi);
  if (s <= 1.0) return ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0;
  if (s < 2.0) return ((a * s - 5.0 * a) * s + 8.0 * a) * s - 4.0 * a;
  return 0.0;
}

void sgp_ski_cubic_weights(double f, double w[4])
{
  const double f2 = f * f, f3 = f2 * f;
  w[0] = 0.5 * (-f3 + 2.0 * f2 - f);
  w[1] = 0.5 * (3.0 * f3 - 5.0 * f2 + 2.0);
  w[2] = 0.5 * (-3.0 * f3 + 4.0 * f2 + f);
  w[3] = 0.5 * (f3 - f2);
}

/* Valid range of t = (x - lo)/h in dimension j. */
static void valid_range(sgp_ski_interpolation interp, int64_t m, double *tmin, double *tmax)
{
  if (interp == SGP_SKI_LINEAR) {
    *tmin = 0.0;
    *tmax = (double)(m - 1);
  } else {
    *tmin = 1.0;
    *tmax = (double)(m - 2);
  }
}

/* x lies outside the valid range of t = (x - lo)/h, with a rounding slack of t
 * (a grid end point given as data stays inside). The one definition of
 * "outside the grid" (the fronts ask sgp_ski_outside). */
static int outside_1d(sgp_ski_interpolation interp, int64_t m, double lo, double h, double x)
{
  double tmin, tmax;
  valid_range(interp, m, &tmin, &tmax);
  const double t = (x - lo) / h;
  const double slack = 8.0 * DBL_EPSILON * ((fabs(x) + fabs(lo)) / h + fabs(t) + 1.0);
  return t < tmin - slack || t > tmax + slack;
}

int sgp_ski_outside(const sgp_ski_grid *g, sgp_ski_interpolation interp, const double *x,
                    int64_t incx)
{
  for (int j = 0; j < g->d; j++)
    if (!isfinite(x[j * incx]) || outside_1d(interp, g->m[j], g->lo[j], g->h[j], x[j * incx]))
      return 1;
  return 0;
}

/* One-dimensional taps: first tap index *base, weights w[0..R-1], ok[a] = tap
 * inside the grid. Returns an SGP_SKI_POINT_* status. */
static int weights_1d(sgp_ski_interpolation interp, sgp_ski_bounds_policy policy, int64_t m,
                      double lo, double h, double x, int64_t *base, double *w, int *ok)
{
  const int R = sgp_ski_interp_width(interp);
  double tmin, tmax;
  if (!isfinite(x)) return SGP_SKI_POINT_NONFINITE;
  valid_range(interp, m, &tmin, &tmax);
  double t = (x - lo) / h;
  int truncate = 0;
  if (outside_1d(interp, m, lo, h, x)) {
    switch (policy) {
    case SGP_SKI_BOUNDS_DROP: return SGP_SKI_POINT_DROPPED;
    case SGP_SKI_BOUNDS_CLAMP: break;
    case SGP_SKI_BOUNDS_TRUNCATE: truncate = 1; break;
    case SGP_SKI_BOUNDS_ERROR:
    default: return SGP_SKI_POINT_OUTSIDE;
    }
  }
  int64_t i0;
  if (truncate) {
    /* the taps of the unclamped position; those off the grid are dropped */
    const double far = (double)R; /* beyond this every tap is off the grid */
    if (t < -far || t > (double)m + far) {
      *base = 0;
      for (int a = 0; a < R; a++) { w[a] = 0.0; ok[a] = 0; }
      return SGP_SKI_POINT_OK;
    }
    i0 = (int64_t)floor(t);
  } else {
    t = t < tmin ? tmin : (t > tmax ? tmax : t);
    i0 = (int64_t)floor(t);
    const int64_t top = interp == SGP_SKI_LINEAR ? m - 2 : m - 3;
    if (i0 > top) i0 = top; /* upper edge: f = 1, weights stay exact */
  }
  const double f = t - (double)i0;
  if (interp == SGP_SKI_LINEAR) {
    *base = i0;
    w[0] = 1.0 - f;
    w[1] = f;
  } else {
    *base = i0 - 1;
    sgp_ski_cubic_weights(f, w);
  }
  for (int a = 0; a < R; a++) {
    const int64_t g = *base + a;
    ok[a] = g >= 0 && g < m;
    if (!ok[a]) w[a] = 0.0;
  }
  return SGP_SKI_POINT_OK;
}

int sgp_ski_interp_point(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                         sgp_ski_bounds_policy policy, const double *x, int64_t incx,
                         int64_t *idx, double *w, int *bad_dim)
{
  const int R = sgp_ski_interp_width(interp), d = g->d;
  int64_t base[SGP_SKI_MAX_D];
  double wj[SGP_SKI_MAX_D][4];
  int ok[SGP_SKI_MAX_D][4];
  int dropped = 0;
  for (int j = 0; j < d; j++) {
    if (!isfinite(x[j * incx])) {
      *bad_dim = j;
      return SGP_SKI_POINT_NONFINITE;
    }
  }
  for (int j = 0; j < d; j++) {
    const int st = weights_1d(interp, policy, g->m[j], g->lo[j], g->h[j], x[j * incx],
                              &base[j], wj[j], ok[j]);
    if (st == SGP_SKI_POINT_DROPPED) {
      dropped = 1;
    } else if (st != SGP_SKI_POINT_OK) {
      *bad_dim = j;
      return st;
    }
  }
  const int64_t T = sgp_ski_interp_taps(interp, d);
  if (dropped) {
    for (int64_t t = 0; t < T; t++) { idx[t] = -1; w[t] = 0.0; }
    return SGP_SKI_POINT_DROPPED;
  }
  /* tensor product, first dimension fastest: tap t = a_1 + R (a_2 + R (...));
   * idx < 0 marks a tap off the grid in some dimension */
  idx[0] = 0;
  w[0] = 1.0;
  int64_t count = 1, stride = 1;
  for (int j = 0; j < d; j++) {
    for (int a = R - 1; a >= 0; a--) { /* a = 0 last: it overwrites the inputs in place */
      const int64_t gi = base[j] + a;
      for (int64_t t = 0; t < count; t++) {
        const int64_t prev = idx[t];
        idx[t + a * count] = (prev < 0 || !ok[j][a]) ? -1 : prev + gi * stride;
        w[t + a * count] = w[t] * wj[j][a];
      }
    }
    count *= R;
    stride *= g->m[j];
  }
  for (int64_t t = 0; t < T; t++)
    if (idx[t] < 0) w[t] = 0.0;
  return SGP_SKI_POINT_OK;
}

int sgp_ski_interp(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                   sgp_ski_bounds_policy policy, sgp_cmat X, int64_t first_row,
                   int64_t *idx, double *w)
{
  int st;
  if (interp != SGP_SKI_CUBIC && interp != SGP_SKI_LINEAR)
    return sgp_fail(ctx, SGP_EINVAL, "interpolation: unknown code %d (cubic or linear)",
                    (int)interp);
  if (policy < SGP_SKI_BOUNDS_ERROR || policy > SGP_SKI_BOUNDS_DROP)
    return sgp_fail(ctx, SGP_EINVAL,
                    "bounds_policy: unknown code %d (error, truncate, clamp or drop)", (int)policy);
  if ((st = sgp_ski_grid_check(ctx, g))) return st;
  if (X.cols != g->d)
    return sgp_fail(ctx, SGP_EDIM, "x: has %lld columns; the grid has %d dimensions",
                    (long long)X.cols, g->d);
  const int64_t need = interp == SGP_SKI_LINEAR ? 2 : 4;
  for (int j = 0; j < g->d; j++)
    if (g->m[j] < need)
      return sgp_fail(ctx, SGP_EINVAL,
                      "grid_size: %s interpolation needs at least %lld points per dimension "
                      "(dimension %d has %lld)", interp == SGP_SKI_LINEAR ? "linear" : "cubic",
                      (long long)need, j + 1, (long long)g->m[j]);
  const int64_t n = X.rows, T = sgp_ski_interp_taps(interp, g->d);
  if (n <= 0) return SGP_OK;
  if (X.ld < n) return sgp_fail(ctx, SGP_EDIM, "x: leading dimension below the row count");
  if (!idx || !w) return sgp_fail(ctx, SGP_EINVAL, "interpolation: output arrays missing");
  const int nthreads = sgp_par_threads(ctx, 20.0 * (double)(n * T));
  (void)nthreads; /* used by OpenMP only */
  int64_t bad = INT64_MAX;
#pragma omp parallel for num_threads(nthreads) schedule(static) reduction(min : bad)
  for (int64_t i = 0; i < n; i++) {
    int dim = 0;
    const int s = sgp_ski_interp_point(g, interp, policy, X.data + i, X.ld, idx + i * T,
                                       w + i * T, &dim);
    if ((s == SGP_SKI_POINT_OUTSIDE || s == SGP_SKI_POINT_NONFINITE) && i < bad) bad = i;
  }
  if (bad == INT64_MAX) return SGP_OK;
  /* report the first offending row (independent of the thread count) */
  int dim = 0;
  const int s = sgp_ski_interp_point(g, interp, policy, X.data + bad, X.ld, idx + bad * T,
                                     w + bad * T, &dim);
  const double v = X.data[bad + dim * X.ld];
  const long long row = (long long)(first_row + bad + 1);
  if (s == SGP_SKI_POINT_NONFINITE)
    return sgp_fail(ctx, SGP_EINVAL, "x: contains NaN or Inf (row %lld, column %d)", row,
                    dim + 1);
  double tmin, tmax;
  valid_range(interp, g->m[dim], &tmin, &tmax);
  return sgp_fail(ctx, SGP_EINVAL,
                  "x: row %lld, column %d (%g) is outside the grid's valid range [%g, %g] for "
                  "%s interpolation (bounds_policy \"error\"; widen grid_bounds or use "
                  "\"clamp\", \"truncate\" or \"drop\")", row, dim + 1, v,
                  g->lo[dim] + tmin * g->h[dim], g->lo[dim] + tmax * g->h[dim],
                  interp == SGP_SKI_LINEAR ? "linear" : "cubic");
}
