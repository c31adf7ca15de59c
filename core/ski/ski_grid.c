/* ski_grid.c -- the regular grid of ski_gsgp: construction from user bounds or
 * from the data range, default sizes, index helpers and the
 * grid points. */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Largest grid the index arithmetic accepts (also keeps 2^d m FFT sizes in int64). */
#define SKI_MAX_POINTS ((int64_t)1 << 50)
#define SKI_DEFAULT_MAX_M ((int64_t)1 << 20)

int sgp_ski_grid_check(sgp_ctx *ctx, const sgp_ski_grid *g)
{
  if (g->d < 1 || g->d > SGP_SKI_MAX_D)
    return sgp_fail(ctx, SGP_EDIM, "grid_size: the grid needs 1 to %d dimensions (got %d)",
                    SGP_SKI_MAX_D, g->d);
  int64_t total = 1;
  for (int j = 0; j < g->d; j++) {
    if (g->m[j] < 1)
      return sgp_fail(ctx, SGP_EINVAL, "grid_size: value %d must be at least 1 (got %lld)",
                      j + 1, (long long)g->m[j]);
    if (g->m[j] > SKI_MAX_POINTS / total)
      return sgp_fail(ctx, SGP_EINVAL, "grid_size: the grid has more than 2^50 points");
    total *= g->m[j];
    if (!isfinite(g->lo[j]) || !isfinite(g->h[j]) || !(g->h[j] > 0) ||
        !isfinite(sgp_ski_grid_hi(g, j)))
      return sgp_fail(ctx, SGP_EINVAL,
                      "grid_bounds: dimension %d needs a finite origin and a positive, finite "
                      "spacing (lo %g, spacing %g)", j + 1, g->lo[j], g->h[j]);
  }
  return SGP_OK;
}

int sgp_ski_grid_fits(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp)
{
  int st;
  if ((st = sgp_ski_grid_check(ctx, g))) return st;
  const double P = interp == SGP_SKI_LINEAR ? 3.0 : 7.0;
  double m = 1.0, S = 1.0;
  for (int j = 0; j < g->d; j++) {
    m *= (double)g->m[j];
    S *= P;
  }
  /* the statistics: the S-by-m stencil of B, W'y and W'1 */
  const double need = (S + 2.0) * m * (double)sizeof(double), have = sgp_phys_mem_bytes();
  if (have > 0 && need > have)
    return sgp_fail(ctx, SGP_ENOMEM,
                    "grid_size: a grid of %.0f points needs %.3g GB for its statistics (%.0f "
                    "stencil entries per point), more than this machine's %.3g GB of memory; "
                    "use fewer grid points", m, need / 1e9, S, have / 1e9);
  return SGP_OK;
}

int64_t sgp_ski_grid_npoints(const sgp_ski_grid *g)
{
  int64_t total = 1;
  for (int j = 0; j < g->d; j++) total *= g->m[j];
  return total;
}

double sgp_ski_grid_hi(const sgp_ski_grid *g, int j)
{
  return g->lo[j] + (double)(g->m[j] - 1) * g->h[j];
}

int64_t sgp_ski_grid_index(const sgp_ski_grid *g, const int64_t *sub)
{
  int64_t idx = 0;
  for (int j = g->d - 1; j >= 0; j--) idx = idx * g->m[j] + sub[j];
  return idx;
}

void sgp_ski_grid_subscripts(const sgp_ski_grid *g, int64_t idx, int64_t *sub)
{
  for (int j = 0; j < g->d; j++) {
    sub[j] = idx % g->m[j];
    idx /= g->m[j];
  }
}

static void grid_clear(sgp_ski_grid *g)
{
  memset(g, 0, sizeof *g);
  for (int j = 0; j < SGP_SKI_MAX_D; j++) {
    g->m[j] = 1;
    g->h[j] = 1.0;
  }
}

static int check_sizes(sgp_ctx *ctx, int64_t d, const int64_t *grid_size)
{
  if (d < 1 || d > SGP_SKI_MAX_D)
    return sgp_fail(ctx, SGP_EDIM, "grid_size: the grid needs 1 to %d dimensions (got %lld)",
                    SGP_SKI_MAX_D, (long long)d);
  if (!grid_size) return sgp_fail(ctx, SGP_EINVAL, "grid_size: is missing");
  for (int64_t j = 0; j < d; j++)
    if (grid_size[j] < 1)
      return sgp_fail(ctx, SGP_EINVAL, "grid_size: value %lld must be at least 1 (got %lld)",
                      (long long)(j + 1), (long long)grid_size[j]);
  return SGP_OK;
}

int sgp_ski_grid_bounds(sgp_ctx *ctx, sgp_cmat grid_bounds, const int64_t *grid_size,
                        sgp_ski_grid *out)
{
  const int64_t d = grid_bounds.rows;
  int st;
  grid_clear(out);
  if (grid_bounds.cols != 2)
    return sgp_fail(ctx, SGP_EDIM, "grid_bounds: must have 2 columns (lower, upper); has %lld",
                    (long long)grid_bounds.cols);
  if ((st = check_sizes(ctx, d, grid_size))) return st;
  if ((st = sgp_check_finite(ctx, "grid_bounds", grid_bounds))) return st;
  out->d = (int)d;
  for (int64_t j = 0; j < d; j++) {
    const double lo = grid_bounds.data[j], hi = grid_bounds.data[j + grid_bounds.ld];
    const int64_t m = grid_size[j];
    if (m > 1 && !(hi > lo))
      return sgp_fail(ctx, SGP_EINVAL,
                      "grid_bounds: row %lld needs upper > lower when grid_size is above 1 "
                      "(got %g, %g)", (long long)(j + 1), lo, hi);
    out->m[j] = m;
    out->lo[j] = lo;
    out->h[j] = m > 1 ? (hi - lo) / (double)(m - 1) : 1.0;
  }
  return sgp_ski_grid_check(ctx, out);
}

static int default_pad(sgp_ski_interpolation interp, int grid_pad)
{
  return grid_pad >= 0 ? grid_pad : (interp == SGP_SKI_LINEAR ? 1 : 2);
}

static int64_t min_size(sgp_ski_interpolation interp, int pad)
{
  const int64_t need = interp == SGP_SKI_LINEAR ? 2 : 4, padded = 2 * (int64_t)pad + 2;
  return padded > need ? padded : need;
}

static int check_interp(sgp_ctx *ctx, sgp_ski_interpolation interp)
{
  if (interp != SGP_SKI_CUBIC && interp != SGP_SKI_LINEAR)
    return sgp_fail(ctx, SGP_EINVAL, "interpolation: unknown code %d (cubic or linear)",
                    (int)interp);
  return SGP_OK;
}

static int check_range(sgp_ctx *ctx, sgp_cmat data_range)
{
  int st;
  if (data_range.cols != 2)
    return sgp_fail(ctx, SGP_EDIM, "data range: must be d x 2 (min, max); is %lld x %lld",
                    (long long)data_range.rows, (long long)data_range.cols);
  if ((st = sgp_check_finite(ctx, "x", data_range))) return st;
  for (int64_t j = 0; j < data_range.rows; j++)
    if (data_range.data[j + data_range.ld] < data_range.data[j])
      return sgp_fail(ctx, SGP_EINVAL, "data range: maximum below minimum in dimension %lld",
                      (long long)(j + 1));
  return SGP_OK;
}

int sgp_ski_grid_auto(sgp_ctx *ctx, sgp_cmat data_range, const int64_t *grid_size,
                      sgp_ski_interpolation interp, int grid_pad, sgp_ski_grid *out)
{
  const int64_t d = data_range.rows;
  int st;
  grid_clear(out);
  if ((st = check_interp(ctx, interp))) return st;
  if ((st = check_sizes(ctx, d, grid_size))) return st;
  if ((st = check_range(ctx, data_range))) return st;
  const int p = default_pad(interp, grid_pad);
  const int64_t need = min_size(interp, p);
  out->d = (int)d;
  for (int64_t j = 0; j < d; j++) {
    const double a = data_range.data[j], b = data_range.data[j + data_range.ld];
    const int64_t m = grid_size[j];
    if (m < need)
      return sgp_fail(ctx, SGP_EINVAL,
                      "grid_size: value %lld is %lld; %s interpolation with grid_pad %d needs "
                      "at least %lld", (long long)(j + 1), (long long)m,
                      interp == SGP_SKI_LINEAR ? "linear" : "cubic", p, (long long)need);
    const double h = b > a ? (b - a) / (double)(m - 1 - 2 * (int64_t)p) : 1.0;
    out->m[j] = m;
    out->h[j] = h;
    out->lo[j] = a - (double)p * h;
    /* the default bounds come from x: name x when they do not fit in doubles */
    if (!isfinite(h) || !(h > 0) || !isfinite(out->lo[j]) ||
        !isfinite(out->lo[j] + (double)(m - 1) * h) ||
        (m > 1 && !(out->lo[j] + (double)(m - 1) * h > out->lo[j])))
      return sgp_fail(ctx, SGP_EINVAL,
                      "x: the range of column %lld ([%g, %g]) gives no grid in doubles (its "
                      "default bounds with %d cells of padding overflow, or cells of width %g "
                      "are lost to rounding at this magnitude); rescale x or give grid_bounds",
                      (long long)(j + 1), a, b, p, h);
  }
  return sgp_ski_grid_check(ctx, out);
}

int sgp_ski_data_range(sgp_ctx *ctx, sgp_cmat X, double *range)
{
  int st;
  if ((st = sgp_check_finite(ctx, "x", X))) return st;
  const int64_t d = X.cols;
  for (int64_t j = 0; j < d; j++) {
    const double *c = X.data + j * X.ld;
    double lo = c[0], hi = c[0];
    for (int64_t i = 1; i < X.rows; i++) {
      if (c[i] < lo) lo = c[i];
      if (c[i] > hi) hi = c[i];
    }
    range[j] = lo;
    range[d + j] = hi;
  }
  return SGP_OK;
}

int64_t sgp_ski_fft_good_size(int64_t n)
{
  if (n <= 1) return 1;
  for (int64_t c = n;; c++) {
    int64_t r = c;
    while (r % 2 == 0) r /= 2;
    while (r % 3 == 0) r /= 3;
    while (r % 5 == 0) r /= 5;
    while (r % 7 == 0) r /= 7;
    if (r == 1) return c;
  }
}

/* Largest 2,3,5,7-smooth integer <= n (n >= 1). */
static int64_t good_size_below(int64_t n)
{
  for (int64_t c = n; c > 1; c--) {
    int64_t r = c;
    while (r % 2 == 0) r /= 2;
    while (r % 3 == 0) r /= 3;
    while (r % 5 == 0) r /= 5;
    while (r % 7 == 0) r /= 7;
    if (r == 1) return c;
  }
  return 1;
}

static double product(const int64_t *m, int64_t d)
{
  double p = 1.0;
  for (int64_t j = 0; j < d; j++) p *= (double)m[j];
  return p;
}

int sgp_ski_grid_size_auto(sgp_ctx *ctx, sgp_cmat data_range, int64_t n,
                           const double *lengthscale, int64_t n_lengthscale,
                           sgp_ski_interpolation interp, int grid_pad, int64_t max_m,
                           int64_t *grid_size)
{
  const int64_t d = data_range.rows;
  int st;
  if ((st = check_interp(ctx, interp))) return st;
  if (d < 1 || d > SGP_SKI_MAX_D)
    return sgp_fail(ctx, SGP_EDIM, "x: the grid needs 1 to %d columns (got %lld)",
                    SGP_SKI_MAX_D, (long long)d);
  if ((st = check_range(ctx, data_range))) return st;
  if (n < 0) return sgp_fail(ctx, SGP_EINVAL, "n: must be non-negative (got %lld)", (long long)n);
  if (lengthscale && n_lengthscale != 1 && n_lengthscale != d)
    return sgp_fail(ctx, SGP_EDIM, "lengthscale: has %lld values; need 1 or %lld",
                    (long long)n_lengthscale, (long long)d);
  const int p = default_pad(interp, grid_pad);
  const int64_t need = min_size(interp, p), cap = max_m > 0 ? max_m : SKI_DEFAULT_MAX_M;
  const double budget = (double)cap;
  /* interior[j]: cells between the first and the last datum */
  double interior[SGP_SKI_MAX_D];
  for (int64_t j = 0; j < d; j++) {
    const double width = data_range.data[j + data_range.ld] - data_range.data[j];
    double cells;
    if (!(width > 0)) {
      cells = 0.0;
    } else if (lengthscale) {
      const double ell = lengthscale[n_lengthscale == 1 ? 0 : j];
      if (!isfinite(ell) || !(ell > 0))
        return sgp_fail(ctx, SGP_EINVAL, "lengthscale: must be positive and finite");
      cells = ceil(3.0 * width / ell);
    } else {
      cells = ceil(pow((double)(n > 1 ? n : 1), 1.0 / (double)d) - 1e-9) - 1.0;
    }
    interior[j] = cells > 4e15 ? 4e15 : cells;
    const double mj = interior[j] + 1.0 + 2.0 * p;
    grid_size[j] = mj < (double)need ? need : (mj > budget ? cap : (int64_t)mj);
  }
  if (product(grid_size, d) > budget) {
    double minprod = 1.0;
    for (int64_t j = 0; j < d; j++) minprod *= (double)need;
    if (minprod > budget)
      return sgp_fail(ctx, SGP_EINVAL,
                      "grid_size: even the minimum of %lld points per dimension exceeds the "
                      "budget of %lld grid points", (long long)need, (long long)cap);
    /* shrink every interior by the same factor until the product fits */
    double lo = 0.0, hi = 1.0;
    int64_t trial[SGP_SKI_MAX_D];
    for (int it = 0; it < 100; it++) {
      const double f = 0.5 * (lo + hi);
      for (int64_t j = 0; j < d; j++) {
        const double mj = floor(interior[j] * f) + 1.0 + 2.0 * p;
        trial[j] = mj < (double)need ? need : (int64_t)mj;
      }
      if (product(trial, d) <= budget) lo = f; else hi = f;
    }
    for (int64_t j = 0; j < d; j++) {
      const double mj = floor(interior[j] * lo) + 1.0 + 2.0 * p;
      grid_size[j] = mj < (double)need ? need : (int64_t)mj;
    }
  }
  /* FFT-friendly sizes: round up when the budget allows, else down (not below need) */
  for (int64_t j = 0; j < d; j++) {
    const int64_t keep = grid_size[j], up = sgp_ski_fft_good_size(keep);
    grid_size[j] = up;
    if (product(grid_size, d) > budget) {
      const int64_t down = good_size_below(keep);
      grid_size[j] = down >= need ? down : keep;
    }
  }
  return SGP_OK;
}

int sgp_ski_grid_points(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_mat P)
{
  int st;
  if ((st = sgp_ski_grid_check(ctx, g))) return st;
  const int64_t m = sgp_ski_grid_npoints(g);
  if (P.rows != m || P.cols != g->d)
    return sgp_fail(ctx, SGP_EDIM, "grid points: need a %lld x %d matrix (got %lld x %lld)",
                    (long long)m, g->d, (long long)P.rows, (long long)P.cols);
  int64_t stride = 1;
  for (int j = 0; j < g->d; j++) {
    double *col = P.data + j * P.ld;
    for (int64_t i = 0; i < m; i++)
      col[i] = g->lo[j] + (double)((i / stride) % g->m[j]) * g->h[j];
    stride *= g->m[j];
  }
  return SGP_OK;
}
