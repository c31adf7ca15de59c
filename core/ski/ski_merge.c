/* ski_merge.c -- merging sufficient statistics (ski_stats_merge): the
 * compatibility checks and their messages, and the sums, for the plain data
 * the R and Octave fronts hold and for the core's own statistics. The
 * statistics are sums over data points, so those of a union of chunks are
 * their sum; the fronts only pass the arguments and their names. */
#include "ski/ski.h"

#include <math.h>
#include <string.h>

static int same_grid(const sgp_ski_grid *a, sgp_ski_interpolation ia, const sgp_ski_grid *b,
                     sgp_ski_interpolation ib)
{
  int same = a->d == b->d && ia == ib;
  for (int j = 0; same && j < a->d; j++)
    same = a->m[j] == b->m[j] && a->lo[j] == b->lo[j] && a->h[j] == b->h[j];
  return same;
}

static int grid_mismatch(sgp_ctx *ctx, const char *label, const char *ref)
{
  return sgp_fail(ctx, SGP_EINVAL,
                  "'%s' was built on another grid than '%s' (sizes, bounds and interpolation "
                  "must be identical; make the grid once with ski_grid)", label, ref);
}

static int overflow(sgp_ctx *ctx, const char *label, const char *field)
{
  return sgp_fail(ctx, SGP_EINVAL, "'%s' makes the merged '%s' overflow (not finite); rescale y",
                  label, field);
}

/* dst[i] += src[i]; 0 when a sum is not finite. */
static int add_finite(double *dst, const double *src, int64_t n)
{
  int finite = 1;
  for (int64_t i = 0; i < n; i++) {
    dst[i] += src[i];
    finite &= isfinite(dst[i]) != 0;
  }
  return finite;
}

/* The arrays of s match its grid (sizes from the core, not the caller). */
static int check_shape(sgp_ctx *ctx, const sgp_ski_stats_data *s, const char *label)
{
  int64_t m = 0, S = 0;
  const int code = sgp_ski_stats_shape(ctx, &s->grid, s->interpolation, &m, &S);
  if (code) return code;
  if (s->m != m || s->S != S || !s->uy || !s->u1 || !s->D || s->probes < 0 ||
      (s->probes > 0 && !s->uz))
    return sgp_fail(ctx, SGP_EDIM,
                    "'%s' has arrays that do not match its grid (%lld grid points x %lld "
                    "stencil offsets)", label, (long long)m, (long long)S);
  return SGP_OK;
}

static int same_probes(const sgp_ski_stats_data *a, const sgp_ski_stats_data *b)
{
  return a->probes == b->probes && (a->probes == 0 || a->probe_seed == b->probe_seed);
}

/* out = in[0] (out's arrays may be in[0]'s own). */
static void copy_first(const sgp_ski_stats_data *a, sgp_ski_stats_sum *out)
{
  const int64_t m = a->m;
  if (out->uy != a->uy) memcpy(out->uy, a->uy, (size_t)m * sizeof(double));
  if (out->u1 != a->u1) memcpy(out->u1, a->u1, (size_t)m * sizeof(double));
  if (out->D != a->D) memcpy(out->D, a->D, (size_t)(m * a->S) * sizeof(double));
  if (a->probes > 0 && out->uz != a->uz)
    memcpy(out->uz, a->uz, (size_t)(m * a->probes) * sizeof(double));
  out->n = a->n;
  out->yy = a->yy;
  out->ysum = a->ysum;
  out->rhoz = a->rhoz;
}

/* out += b, checking every merged field in the fronts' order. */
static int add_one(sgp_ctx *ctx, const sgp_ski_stats_data *b, const char *label,
                   sgp_ski_stats_sum *out)
{
  const int64_t m = b->m;
  out->n += b->n;
  out->yy += b->yy;
  if (!isfinite(out->yy)) return overflow(ctx, label, "yty");
  out->ysum += b->ysum;
  if (!isfinite(out->ysum)) return overflow(ctx, label, "ysum");
  if (!add_finite(out->uy, b->uy, m)) return overflow(ctx, label, "Wty");
  if (!add_finite(out->u1, b->u1, m)) return overflow(ctx, label, "Wt1");
  if (!add_finite(out->D, b->D, m * b->S)) return overflow(ctx, label, "WtW");
  out->rhoz += b->rhoz;
  if (!isfinite(out->rhoz)) return overflow(ctx, label, "rhoz");
  if (b->probes > 0 && !add_finite(out->uz, b->uz, m * b->probes))
    return overflow(ctx, label, "Wtz");
  return SGP_OK;
}

int sgp_ski_stats_merge_data(sgp_ctx *ctx, int64_t k, const sgp_ski_stats_data *in,
                             const char *const *label, sgp_ski_stats_sum *out)
{
  int code;
  if (k < 1 || !in || !label || !out || !out->uy || !out->u1 || !out->D)
    return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  const sgp_ski_stats_data *a = &in[0];
  if ((code = check_shape(ctx, a, label[0]))) return code;
  if (a->probes > 0 && !out->uz) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  copy_first(a, out);
  for (int64_t i = 1; i < k; i++) {
    const sgp_ski_stats_data *b = &in[i];
    if ((code = check_shape(ctx, b, label[i]))) return code;
    if (!same_grid(&a->grid, a->interpolation, &b->grid, b->interpolation))
      return grid_mismatch(ctx, label[i], label[0]);
    if (!same_probes(a, b))
      return sgp_fail(ctx, SGP_EINVAL,
                      "'%s' has other probe sketches than '%s' (probes and seed must agree)",
                      label[i], label[0]);
    if ((code = add_one(ctx, b, label[i], out))) return code;
  }
  return SGP_OK;
}

int sgp_ski_stats_merge(sgp_ctx *ctx, sgp_ski_stats *dst, const sgp_ski_stats *src)
{
  if (!dst || !src) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  if (!same_grid(&dst->grid, dst->interp, &src->grid, src->interp))
    return grid_mismatch(ctx, "src stats", "dst stats");
  const int64_t m = dst->m, Sm = dst->S * m;
  for (int64_t i = 0; i < Sm; i++) dst->D[i] += src->D[i];
  for (int64_t i = 0; i < m; i++) {
    dst->uy[i] += src->uy[i];
    dst->u1[i] += src->u1[i];
  }
  dst->yy += src->yy;
  dst->ysum += src->ysum;
  dst->n += src->n;
  return SGP_OK;
}
