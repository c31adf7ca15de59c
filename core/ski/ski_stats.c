/* ski_stats.c -- sufficient statistics of the ski_gsgp streaming pass (spec
 * §3): B = W'W in offset-stencil storage (STENCIL_FULL, §3.2), W'y, W'1, y'y,
 * sum y and n, accumulated chunk by chunk; and merge (the operator v -> B v is
 * in ski_bop.c).
 *
 * Determinism: a chunk is split into blocks of points whose weights are
 * computed by sgp_ski_interp; each thread owns a contiguous range of grid
 * points and scans every point of the block in order, adding only the
 * contributions whose row g lies in its range. A point touches each entry
 * (g, o) at most once (its taps have distinct grid indices), so every entry
 * receives its terms in data order: the statistics are bitwise identical for
 * any chunking and thread count. */
#include "ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STATS_BLOCK 4096 /* points per interpolation block */

void sgp_ski_stats_free(sgp_ski_stats *st)
{
  if (!st) return;
  free(st->uy);
  free(st->u1);
  free(st->D);
  free(st->off);
  free(st->delta);
  free(st->tap_code);
  free(st);
}

int sgp_ski_stats_create(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                         sgp_ski_stats **out)
{
  int st_code;
  sgp_ski_stats *st = NULL;
  if (!out) return sgp_fail(ctx, SGP_EINVAL, "stats: output handle missing");
  *out = NULL;
  if (interp != SGP_SKI_CUBIC && interp != SGP_SKI_LINEAR)
    return sgp_fail(ctx, SGP_EINVAL, "interpolation: unknown code %d (cubic or linear)",
                    (int)interp);
  if ((st_code = sgp_ski_grid_check(ctx, g))) return st_code;
  const int d = g->d, width = sgp_ski_interp_width(interp);
  for (int j = 0; j < d; j++)
    if (g->m[j] < width)
      return sgp_fail(ctx, SGP_EINVAL,
                      "grid_size: %s interpolation needs at least %d points per dimension "
                      "(dimension %d has %lld)", interp == SGP_SKI_LINEAR ? "linear" : "cubic",
                      width, j + 1, (long long)g->m[j]);
  const int R = width - 1, P = 2 * R + 1;
  const int64_t m = sgp_ski_grid_npoints(g), T = sgp_ski_interp_taps(interp, d);
  int64_t S = 1;
  for (int j = 0; j < d; j++) S *= P;
  if (S > INT64_MAX / 8 / m)
    return sgp_fail(ctx, SGP_ENOMEM, "grid_size: the stencil of B needs %lld x %lld doubles",
                    (long long)S, (long long)m);
  st = (sgp_ski_stats *)calloc(1, sizeof *st);
  if (!st) return sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory");
  st->grid = *g;
  st->interp = interp;
  st->R = R;
  st->m = m;
  st->S = S;
  st->T = T;
  st->uy = sgp_calloc(m);
  st->u1 = sgp_calloc(m);
  st->D = sgp_calloc(S * m);
  st->off = (int *)malloc((size_t)(S * d) * sizeof(int));
  st->delta = (int64_t *)malloc((size_t)S * sizeof(int64_t));
  st->tap_code = (int64_t *)malloc((size_t)T * sizeof(int64_t));
  if (!st->uy || !st->u1 || !st->D || !st->off || !st->delta || !st->tap_code) {
    sgp_ski_stats_free(st);
    return sgp_fail(ctx, SGP_ENOMEM,
                    "grid_size: out of memory for the statistics (%lld stencil offsets x %lld "
                    "grid points)", (long long)S, (long long)m);
  }
  for (int64_t s = 0; s < S; s++) {
    int64_t rest = s, delta = 0, stride = 1;
    for (int j = 0; j < d; j++) {
      const int o = (int)(rest % P) - R;
      rest /= P;
      st->off[s * d + j] = o;
      delta += (int64_t)o * stride;
      stride *= g->m[j];
    }
    st->delta[s] = delta;
  }
  for (int64_t t = 0; t < T; t++) {
    int64_t rest = t, code = 0, pw = 1;
    for (int j = 0; j < d; j++) {
      code += (rest % width) * pw;
      rest /= width;
      pw *= P;
    }
    st->tap_code[t] = code;
  }
  *out = st;
  return SGP_OK;
}

int64_t sgp_ski_stats_offset_index(const sgp_ski_stats *st, const int *o)
{
  const int P = 2 * st->R + 1;
  int64_t s = 0, pw = 1;
  for (int j = 0; j < st->grid.d; j++) {
    if (o[j] < -st->R || o[j] > st->R) return -1;
    s += (int64_t)(o[j] + st->R) * pw;
    pw *= P;
  }
  return s;
}

/* Adds one block of nb points with taps idx/w (nb-by-T, row-compressed). */
static void accumulate_block(sgp_ski_stats *st, int64_t nb, const int64_t *idx,
                             const double *w, const double *y, int nthreads)
{
  const int64_t m = st->m, T = st->T;
  /* centre code: offset index of o = 0 */
  int64_t c0 = 0, pw = 1;
  for (int j = 0; j < st->grid.d; j++) { c0 += (int64_t)st->R * pw; pw *= 2 * st->R + 1; }
  double *D = st->D, *uy = st->uy, *u1 = st->u1;
  const int64_t *code = st->tap_code;
  (void)nthreads;
#pragma omp parallel num_threads(nthreads)
  {
    int tid = 0, nt = 1;
#ifdef _OPENMP
    tid = omp_get_thread_num();
    nt = omp_get_num_threads();
#endif
    const int64_t glo = m * tid / nt, ghi = m * (tid + 1) / nt;
    for (int64_t i = 0; i < nb; i++) {
      const int64_t *ix = idx + i * T;
      const double *wi = w + i * T;
      const double yi = y[i];
      for (int64_t a = 0; a < T; a++) {
        const int64_t ga = ix[a];
        if (ga < glo || ga >= ghi) continue; /* also skips dropped taps (-1) */
        const double wa = wi[a];
        uy[ga] += wa * yi;
        u1[ga] += wa;
        const int64_t base = ga + (c0 - code[a]) * m; /* D index of offset code 0 */
        for (int64_t b = 0; b < T; b++) {
          if (ix[b] < 0) continue;
          D[base + code[b] * m] += wa * wi[b];
        }
      }
    }
  }
}

int sgp_ski_stats_accumulate(sgp_ctx *ctx, sgp_ski_stats *st, sgp_cmat X, sgp_cmat y,
                             int64_t first_row, sgp_ski_bounds_policy policy)
{
  int code = SGP_OK;
  int64_t *idx = NULL;
  double *w = NULL;
  if (!st) return sgp_fail(ctx, SGP_EINVAL, "stats: missing (create it first)");
  const int64_t n = X.rows;
  if (y.rows != n)
    return sgp_fail(ctx, SGP_EDIM, "y: has %lld values but x has %lld rows",
                    (long long)y.rows, (long long)n);
  if (n > 0 && y.cols != 1)
    return sgp_fail(ctx, SGP_EDIM, "y: must have one column (has %lld)", (long long)y.cols);
  if (X.cols != st->grid.d)
    return sgp_fail(ctx, SGP_EDIM, "x: has %lld columns; the grid has %d dimensions",
                    (long long)X.cols, st->grid.d);
  if (n == 0) return SGP_OK;
  if (!y.data) return sgp_fail(ctx, SGP_EINVAL, "y: missing");
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(y.data[i]))
      return sgp_fail(ctx, SGP_EINVAL, "y: contains NaN or Inf (row %lld)",
                      (long long)(first_row + i + 1));
  const int64_t T = st->T, blk = n < STATS_BLOCK ? n : STATS_BLOCK;
  idx = (int64_t *)malloc((size_t)(blk * T) * sizeof(int64_t));
  w = sgp_alloc(blk * T);
  if (!idx || !w) {
    code = sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory for %lld interpolation weights",
                    (long long)(blk * T));
    goto cleanup;
  }
  /* pass 1: validate every row first so that an error leaves st unchanged */
  for (int64_t i0 = 0; i0 < n; i0 += blk) {
    const int64_t nb = n - i0 < blk ? n - i0 : blk;
    const sgp_cmat Xb = {X.data + i0, nb, X.cols, X.ld};
    if ((code = sgp_ski_interp(ctx, &st->grid, st->interp, policy, Xb, first_row + i0, idx, w)))
      goto cleanup;
    if ((code = sgp_poll_interrupt(ctx))) goto cleanup; /* nothing added yet */
  }
  /* pass 2: accumulate (the first block's weights are reused when n <= blk);
   * nothing can fail here, so the chunk is added entirely or not at all */
  const int threads = sgp_ctx_threads(ctx);
  for (int64_t i0 = 0; i0 < n; i0 += blk) {
    const int64_t nb = n - i0 < blk ? n - i0 : blk;
    if (n > blk) {
      const sgp_cmat Xb = {X.data + i0, nb, X.cols, X.ld};
      if ((code = sgp_ski_interp(ctx, &st->grid, st->interp, policy, Xb, first_row + i0, idx,
                                 w)))
        goto cleanup;
    }
    const int nthreads = nb * T * T >= 65536 ? threads : 1;
    accumulate_block(st, nb, idx, w, y.data + i0, nthreads);
    for (int64_t i = 0; i < nb; i++) {
      const double v = y.data[i0 + i];
      st->yy += v * v;
      st->ysum += v;
    }
  }
  st->n += n;
cleanup:
  free(idx);
  free(w);
  return code;
}

int sgp_ski_stats_merge(sgp_ctx *ctx, sgp_ski_stats *dst, const sgp_ski_stats *src)
{
  if (!dst || !src) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  const sgp_ski_grid *a = &dst->grid, *b = &src->grid;
  int same = a->d == b->d && dst->interp == src->interp;
  for (int j = 0; same && j < a->d; j++)
    same = a->m[j] == b->m[j] && a->lo[j] == b->lo[j] && a->h[j] == b->h[j];
  if (!same)
    return sgp_fail(ctx, SGP_EINVAL,
                    "stats: cannot merge statistics built on different grids or "
                    "interpolations");
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
