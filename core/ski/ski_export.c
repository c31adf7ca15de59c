/* ski_export.c -- the sufficient statistics as plain arrays and back, so the R
 * and Octave fronts can hold them as lists/structs that survive saveRDS/save,
 * travel between workers and are merged by adding arrays. */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sgp_ski_stats_shape(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                        int64_t *m, int64_t *S)
{
  int code;
  if (interp != SGP_SKI_CUBIC && interp != SGP_SKI_LINEAR)
    return sgp_fail(ctx, SGP_EINVAL, "interpolation: unknown code %d (cubic or linear)",
                    (int)interp);
  if ((code = sgp_ski_grid_fits(ctx, g, interp))) return code;
  const int width = sgp_ski_interp_width(interp);
  for (int j = 0; j < g->d; j++)
    if (g->m[j] < width)
      return sgp_fail(ctx, SGP_EINVAL,
                      "grid_size: %s interpolation needs at least %d points per dimension "
                      "(dimension %d has %lld)", interp == SGP_SKI_LINEAR ? "linear" : "cubic",
                      width, j + 1, (long long)g->m[j]);
  const int64_t P = 2 * (width - 1) + 1;
  int64_t s = 1;
  for (int j = 0; j < g->d; j++) s *= P;
  if (m) *m = sgp_ski_grid_npoints(g);
  if (S) *S = s;
  return SGP_OK;
}

int sgp_ski_stats_compute(sgp_ctx *ctx, const sgp_ski_grid *g, const sgp_ski_opts *o,
                          sgp_cmat X, sgp_cmat y, int64_t first_row, sgp_ski_stats **out,
                          double *uz, double *rhoz)
{
  /* the pass (moments or taps) is chosen in ski_stats_pass.c */
  return sgp_ski_stats_compute_pass(ctx, g, o, X, y, first_row, SGP_SKI_PASS_AUTO, out, uz,
                                    rhoz);
}

int sgp_ski_stats_export(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_ski_stats_data *out)
{
  if (!st || !out) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  memset(out, 0, sizeof *out);
  out->grid = st->grid;
  out->interpolation = st->interp;
  out->m = st->m;
  out->S = st->S;
  out->n = st->n;
  out->yy = st->yy;
  out->ysum = st->ysum;
  out->uy = st->uy;
  out->u1 = st->u1;
  out->D = st->D;
  return SGP_OK;
}

/* Re-raises the last error with a "stats: " prefix (errmsg copied first: it is
 * the buffer sgp_fail writes to). */
static int stats_error(sgp_ctx *ctx, int code)
{
  char msg[sizeof ctx->errmsg];
  memcpy(msg, ctx->errmsg, sizeof msg);
  msg[sizeof msg - 1] = 0;
  return sgp_fail(ctx, code, "stats: %s", msg);
}

static int all_finite(const double *v, int64_t n, int64_t *bad)
{
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(v[i])) {
      *bad = i;
      return 0;
    }
  return 1;
}

/* Stencil entries whose partner g + o lies outside the grid must be 0, and B
 * must be symmetric: B[g, g + o] = B[g + o, g] (offset -o at g + o). */
static int check_stencil(sgp_ctx *ctx, const sgp_ski_stats *st)
{
  const int d = st->grid.d;
  int o[SGP_SKI_MAX_D], neg[SGP_SKI_MAX_D];
  int64_t sub[SGP_SKI_MAX_D];
  const int64_t m = st->m;
  for (int64_t s = 0; s < st->S; s++) {
    for (int j = 0; j < d; j++) {
      o[j] = st->off[s * d + j];
      neg[j] = -o[j];
    }
    const int64_t sn = sgp_ski_stats_offset_index(st, neg);
    for (int64_t g = 0; g < m; g++) {
      const double v = st->D[s * m + g];
      sgp_ski_grid_subscripts(&st->grid, g, sub);
      int inside = 1;
      for (int j = 0; j < d && inside; j++)
        inside = sub[j] + o[j] >= 0 && sub[j] + o[j] < st->grid.m[j];
      if (!inside) {
        if (v != 0.0)
          return sgp_fail(ctx, SGP_EINVAL,
                          "stats: 'WtW' (the stencil of W'W) has a non-zero entry (%g) at grid point %lld, offset "
                          "column %lld, which leaves the grid", v, (long long)g + 1,
                          (long long)s + 1);
        continue;
      }
      const double w = st->D[sn * m + g + st->delta[s]];
      if (fabs(v - w) > 1e-9 * (fabs(v) + fabs(w)) + 1e-300)
        return sgp_fail(ctx, SGP_EINVAL,
                        "stats: 'WtW' is not the stencil of a symmetric W'W (grid point %lld, "
                        "offset column %lld: %g vs %g)", (long long)g + 1, (long long)s + 1,
                        v, w);
      if (s == sn && v < 0)
        return sgp_fail(ctx, SGP_EINVAL,
                        "stats: the diagonal of W'W is negative at grid point %lld",
                        (long long)g + 1);
    }
  }
  return SGP_OK;
}

int sgp_ski_stats_import(sgp_ctx *ctx, const sgp_ski_stats_data *in, sgp_ski_stats **out)
{
  int code;
  int64_t m = 0, S = 0, bad = 0;
  sgp_ski_stats *st = NULL;
  if (!in || !out) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  *out = NULL;
  if ((code = sgp_ski_stats_shape(ctx, &in->grid, in->interpolation, &m, &S)))
    return stats_error(ctx, code);
  if (in->m != m || in->S != S)
    return sgp_fail(ctx, SGP_EDIM,
                    "stats: arrays of %lld grid points x %lld stencil offsets do not match "
                    "the grid (%lld x %lld)", (long long)in->m, (long long)in->S,
                    (long long)m, (long long)S);
  if (!in->uy || !in->u1 || !in->D) return sgp_fail(ctx, SGP_EINVAL, "stats: arrays missing");
  if (in->n < 0 || !isfinite(in->yy) || in->yy < 0 || !isfinite(in->ysum))
    return sgp_fail(ctx, SGP_EINVAL,
                    "stats: 'n' must be >= 0 and 'yty' (>= 0), 'ysum' finite");
  if (!all_finite(in->uy, m, &bad))
    return sgp_fail(ctx, SGP_EINVAL, "stats: 'Wty' is not finite at %lld", (long long)bad + 1);
  if (!all_finite(in->u1, m, &bad))
    return sgp_fail(ctx, SGP_EINVAL, "stats: 'Wt1' is not finite at %lld", (long long)bad + 1);
  if (!all_finite(in->D, m * S, &bad))
    return sgp_fail(ctx, SGP_EINVAL, "stats: 'WtW' is not finite at %lld", (long long)bad + 1);
  if (in->probes < 0 || (in->probes > 0 && (!in->uz || !isfinite(in->rhoz) || in->rhoz < 0)))
    return sgp_fail(ctx, SGP_EINVAL, "stats: probe sketches 'Wtz' or 'rhoz' missing or invalid");
  if (in->probes > 0 && !all_finite(in->uz, m * in->probes, &bad))
    return sgp_fail(ctx, SGP_EINVAL, "stats: 'Wtz' is not finite at %lld", (long long)bad + 1);
  if ((code = sgp_ski_stats_create(ctx, &in->grid, in->interpolation, &st)))
    return stats_error(ctx, code);
  st->n = in->n;
  st->yy = in->yy;
  st->ysum = in->ysum;
  memcpy(st->uy, in->uy, (size_t)m * sizeof(double));
  memcpy(st->u1, in->u1, (size_t)m * sizeof(double));
  memcpy(st->D, in->D, (size_t)(m * S) * sizeof(double));
  if ((code = check_stencil(ctx, st))) {
    sgp_ski_stats_free(st);
    return code;
  }
  *out = st;
  return SGP_OK;
}
