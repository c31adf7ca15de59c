/* ski_stats_pass.c -- which pass computes the public statistics
 * (sgp_ski_stats_compute): the moment pass (ski_moments.c) when it applies and
 * pays, else the tap pass (sgp_ski_stats_accumulate).
 *
 * Why a threshold on n / m: the moment pass costs ~(2r+1)^d multiply-adds per
 * point but a flush of O(m) separable contractions plus (2r+1)^d + (r+1)^d
 * extra doubles per grid point (407 m for cubic 3-D) and a fixed 2^21-point
 * block work space; with few points per cell the flush and the allocation
 * dominate and the tap pass is as fast with less memory. Both passes are
 * independent of the thread count and give the same statistics up to
 * rounding, so the choice only moves the last bits. */
#include "ski/ski.h"

#include <string.h>

/* Points per grid point from which the moment pass is used, by d (cubic,
 * 2 threads, `make bench-ski-pass`, loaded 2-core machine): the moment pass
 * became faster at n/m ~ 4 (d = 1, m = 2^16), ~8-16 (d = 2, m = 256^2) and
 * ~16-32 (d = 3, m = 32^3; 2x at 64); its flush costs more per grid point in
 * higher d. Linear interpolation uses the same thresholds. */
static const double ski_moments_min_points_per_cell[4] = {0, 4, 16, 24};

sgp_ski_pass sgp_ski_stats_pass_choice(const sgp_ski_grid *g, sgp_ski_bounds_policy policy,
                                       int64_t n)
{
  if (!g || g->d < 1 || g->d > 3) return SGP_SKI_PASS_TAP;
  if (policy != SGP_SKI_BOUNDS_ERROR && policy != SGP_SKI_BOUNDS_CLAMP &&
      policy != SGP_SKI_BOUNDS_DROP)
    return SGP_SKI_PASS_TAP;
  const int64_t m = sgp_ski_grid_npoints(g);
  if (m <= 0 || (double)n < ski_moments_min_points_per_cell[g->d] * (double)m)
    return SGP_SKI_PASS_TAP;
  return SGP_SKI_PASS_MOMENTS;
}

/* st += the rows of X, y by the moment pass. SGP_ENOMEM (st unchanged) lets
 * the caller fall back to the tap pass. */
static int moment_pass(sgp_ctx *ctx, sgp_ski_stats *st, sgp_cmat X, sgp_cmat y,
                       int64_t first_row, sgp_ski_bounds_policy policy)
{
  sgp_ski_moments *mo = NULL;
  int code = sgp_ski_moments_create(ctx, st, &mo);
  if (!code) code = sgp_ski_moments_accumulate(ctx, mo, X, y, first_row, policy);
  if (!code) code = sgp_ski_moments_flush(ctx, mo, st);
  sgp_ski_moments_free(mo);
  return code;
}

int sgp_ski_stats_compute_pass(sgp_ctx *ctx, const sgp_ski_grid *g, const sgp_ski_opts *o,
                               sgp_cmat X, sgp_cmat y, int64_t first_row, sgp_ski_pass pass,
                               sgp_ski_stats **out, double *uz, double *rhoz)
{
  int code;
  sgp_ski_stats *st = NULL;
  if (!out || !o) return sgp_fail(ctx, SGP_EINVAL, "stats: output or options missing");
  *out = NULL;
  const int64_t probes = uz ? sgp_ski_probes(o, 0) : 0;
  if (probes < 0 || (uz && !rhoz))
    return sgp_fail(ctx, SGP_EINVAL, "probes: must be >= 0 with room for the sketches");
  if (pass != SGP_SKI_PASS_AUTO && pass != SGP_SKI_PASS_TAP && pass != SGP_SKI_PASS_MOMENTS)
    return sgp_fail(ctx, SGP_EINVAL, "pass: unknown code %d (auto, tap or moments)", (int)pass);
  if (g && X.cols != g->d)
    return sgp_fail(ctx, SGP_EDIM, "x: has %lld columns but the grid has %d dimensions",
                    (long long)X.cols, g->d);
  if ((code = sgp_ski_stats_create(ctx, g, o->interpolation, &st))) return code;
  const int automatic = pass == SGP_SKI_PASS_AUTO;
  if (automatic) pass = sgp_ski_stats_pass_choice(g, o->bounds_policy, X.rows);
  code = SGP_ENOMEM;
  if (pass == SGP_SKI_PASS_MOMENTS)
    code = moment_pass(ctx, st, X, y, first_row, o->bounds_policy);
  /* the tap pass needs less memory: the automatic choice falls back to it */
  if (pass == SGP_SKI_PASS_TAP || (automatic && code == SGP_ENOMEM))
    code = sgp_ski_stats_accumulate(ctx, st, X, y, first_row, o->bounds_policy);
  if (!code) code = sgp_ski_stats_check_values(ctx, st);
  if (!code && probes > 0) {
    memset(uz, 0, (size_t)(st->m * probes) * sizeof(double));
    *rhoz = 0.0;
    code = sgp_ski_probe_sketch(ctx, g, o->interpolation, o->bounds_policy, X, first_row,
                                o->seed, probes, uz, rhoz);
  }
  if (code) {
    sgp_ski_stats_free(st);
    return code;
  }
  *out = st;
  return SGP_OK;
}
