/* ski_stats.c -- sufficient statistics of the ski_gsgp streaming pass
 * (the statistics of Yadav, Sheldon and Musco, "Faster Kernel Interpolation
 * for Gaussian Processes", AISTATS 2021): B = W'W in offset-stencil storage
 * (STENCIL_FULL), W'y, W'1, y'y,
 * sum y and n, accumulated chunk by chunk (merge is in ski_merge.c, the operator
 * v -> B v in ski_bop.c).
 *
 * Determinism: a chunk is split into blocks of points whose weights are
 * computed by sgp_ski_interp; the grid is cut into tiles (contiguous ranges of
 * grid points), each processed by one thread scanning the block's points in
 * order and adding only the contributions whose row g lies in the tile. A
 * point touches each entry (g, o) at most once (its taps have distinct grid
 * indices), so every entry receives its terms in data order: the statistics
 * are bitwise identical for any chunking and thread count. */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STATS_BLOCK_TAPS (1 << 21) /* taps per block of points (idx + w: 32 MB) */

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
  if ((st_code = sgp_ski_grid_fits(ctx, g, interp))) return st_code;
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

/* ------------------------------------------------------------ accumulation
 * Cache blocking: the grid is cut into tiles of G consecutive grid indices so
 * that the products of a block of points land in one tile's part of D at a time.
 * (The tiles are sized by measurement, see accum_ws_init.)
 * The taps of a block of points are binned by tile with a stable counting
 * sort; a tap's tile is nondecreasing in the tap index (grid indices grow with
 * it), so each (point, tile) pair is one run of taps [a0, a1). Tiles are
 * independent (each owns its rows g of D, u_y, u_1) and are processed by the
 * threads in any order, each in data order.
 * Symmetry: when a call brings enough work, only the canonical half of the
 * stencil (offsets o with tap b >= tap a, i.e. stencil index s >= the centre) is
 * accumulated and the other half is mirrored at the end of the call,
 * D[-o][g + o] = D[o][g]; w_a w_b = w_b w_a exactly, so both ways give the same
 * bits and the choice does not depend on anything but the call's size. */

typedef struct {
  int32_t i, a0, a1; /* point in the block, tap run [a0, a1) inside the tile */
} tap_run;

typedef struct {
  int64_t G, ntiles;     /* tile length (grid points), number of tiles */
  int64_t *start;        /* ntiles + 1: runs of tile k are start[k] .. start[k+1]-1 */
  tap_run *runs;
  int64_t cap;           /* capacity of runs */
  unsigned char *complete; /* per point: 1 when no tap was dropped (index -1) */
  int64_t *g0;           /* per complete point: grid index of tap 0 (half path) */
  double *w1d;           /* per complete point: d x width 1-D weights (half path) */
  int64_t *tap_delta;    /* T: grid index of tap t minus that of tap 0 */
  int64_t *codem;        /* T: tap_code[b] * m, the D offset of tap b */
} accum_ws;

static void accum_ws_free(accum_ws *ws)
{
  free(ws->start);
  free(ws->runs);
  free(ws->complete);
  free(ws->g0);
  free(ws->w1d);
  free(ws->tap_delta);
  free(ws->codem);
}

/* Workspace for blocks of up to nb points: a point's taps form T/width runs
 * of `width` consecutive grid indices, each split by at most one tile border
 * (G >= 16 > width), so 2 T/width runs per point suffice. */
static int accum_ws_init(accum_ws *ws, const sgp_ski_stats *st, int64_t nb, int nthreads)
{
  memset(ws, 0, sizeof *ws);
  /* S G = 2^19 doubles per tile (measured: 2^14..2^19 on a 64 x 64 x 32 cubic
   * grid, larger was faster: fewer runs per point), at least 4 tiles per thread */
  int64_t G = 524288 / st->S;
  const int64_t share = (st->m + 4 * nthreads - 1) / (4 * nthreads);
  if (G > share) G = share;
  if (G < 16) G = 16;
  ws->G = G;
  ws->ntiles = (st->m + G - 1) / G;
  ws->start = (int64_t *)malloc((size_t)(ws->ntiles + 1) * sizeof(int64_t));
  ws->codem = (int64_t *)malloc((size_t)st->T * sizeof(int64_t));
  ws->cap = nb * 2 * (st->T / sgp_ski_interp_width(st->interp));
  ws->runs = (tap_run *)malloc((size_t)ws->cap * sizeof(tap_run));
  ws->complete = (unsigned char *)malloc((size_t)(nb > 0 ? nb : 1));
  const int d = st->grid.d, width = sgp_ski_interp_width(st->interp);
  ws->g0 = (int64_t *)malloc((size_t)(nb > 0 ? nb : 1) * sizeof(int64_t));
  ws->w1d = sgp_alloc((nb > 0 ? nb : 1) * d * width);
  ws->tap_delta = (int64_t *)malloc((size_t)st->T * sizeof(int64_t));
  if (!ws->start || !ws->codem || !ws->runs || !ws->complete || !ws->g0 || !ws->w1d ||
      !ws->tap_delta)
    return SGP_ENOMEM;
  for (int64_t t = 0; t < st->T; t++) {
    int64_t rest = t, delta = 0, stride = 1;
    for (int j = 0; j < d; j++) {
      delta += (rest % width) * stride;
      rest /= width;
      stride *= st->grid.m[j];
    }
    ws->tap_delta[t] = delta;
  }
  for (int64_t b = 0; b < st->T; b++) ws->codem[b] = st->tap_code[b] * st->m;
  return SGP_OK;
}

/* Stable counting sort of the taps of nb points by tile. */
static void bin_taps(accum_ws *ws, int64_t nb, int64_t T, const int64_t *idx)
{
  const int64_t G = ws->G;
  int64_t *cnt = ws->start;
  memset(cnt, 0, (size_t)(ws->ntiles + 1) * sizeof(int64_t));
  for (int64_t i = 0; i < nb; i++) {
    int64_t prev = -1;
    unsigned char complete = 1;
    for (int64_t a = 0; a < T; a++) {
      const int64_t ga = idx[i * T + a];
      if (ga < 0) { complete = 0; continue; }
      const int64_t k = ga / G;
      if (k != prev) { cnt[k + 1]++; prev = k; }
    }
    ws->complete[i] = complete;
  }
  for (int64_t k = 0; k < ws->ntiles; k++) cnt[k + 1] += cnt[k];
  /* fill: cnt[k] is the next free slot of tile k; afterwards cnt[k] = end of
   * tile k = start of tile k + 1, so shift back by one tile */
  for (int64_t i = 0; i < nb; i++) {
    int64_t prev = -1, pos = -1;
    for (int64_t a = 0; a < T; a++) {
      const int64_t ga = idx[i * T + a];
      if (ga < 0) continue;
      const int64_t k = ga / G;
      if (k != prev) {
        pos = cnt[k]++;
        ws->runs[pos].i = (int32_t)i;
        ws->runs[pos].a0 = (int32_t)a;
        prev = k;
      }
      ws->runs[pos].a1 = (int32_t)(a + 1);
    }
  }
  for (int64_t k = ws->ntiles; k > 0; k--) cnt[k] = cnt[k - 1];
  cnt[0] = 0;
}

/* Adds the binned block (taps idx/w, nb-by-T) tile by tile into every offset
 * of D (the path of small calls: no copy, no mirror). */
static void accumulate_tiles(sgp_ski_stats *st, const accum_ws *ws, const int64_t *idx,
                             const double *w, const double *y, int nthreads)
{
  const int64_t m = st->m, T = st->T;
  int64_t c0 = 0, pw = 1; /* stencil index of o = 0 */
  for (int j = 0; j < st->grid.d; j++) { c0 += (int64_t)st->R * pw; pw *= 2 * st->R + 1; }
  double *D = st->D, *uy = st->uy, *u1 = st->u1;
  const int64_t *codem = ws->codem;
  (void)nthreads;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
  for (int64_t k = 0; k < ws->ntiles; k++) {
    for (int64_t e = ws->start[k]; e < ws->start[k + 1]; e++) {
      const tap_run r = ws->runs[e];
      const int64_t *ix = idx + (int64_t)r.i * T;
      const double *wi = w + (int64_t)r.i * T;
      const double yi = y[r.i];
      for (int64_t a = r.a0; a < r.a1; a++) {
        const int64_t ga = ix[a];
        if (ga < 0) continue;
        const double wa = wi[a];
        uy[ga] += wa * yi;
        u1[ga] += wa;
        /* D[s m + ga] with s = c0 + code[b] - code[a] (>= 0: code[a] <= c0) */
        double *Dg = D + ga + c0 * m - codem[a];
        for (int64_t b = 0; b < T; b++)
          if (ix[b] >= 0) Dg[codem[b]] += wa * wi[b];
      }
    }
  }
}

/* The half path accumulates into a grid-major copy L of the canonical half of
 * D, L[g H + h] = D[(c0 + h) m + g] (h = 0..H-1, H = c0 + 1): a tap's products
 * then land in one window of H consecutive doubles, while D's S rows lie m
 * doubles apart -- a power of two on common grids, where every row maps to
 * the same cache sets. Copies are exact, so the bits do not change. */
static void accumulate_tiles_half(sgp_ski_stats *st, const accum_ws *ws, const int64_t *idx,
                                  const double *w, const double *y, double *L, int nthreads)
{
  const int d = st->grid.d;
  const int64_t T = st->T, H = (st->S + 1) / 2, width = sgp_ski_interp_width(st->interp);
  const int64_t *code = st->tap_code, *tdelta = ws->tap_delta;
  double *uy = st->uy, *u1 = st->u1;
  (void)nthreads;
#pragma omp parallel num_threads(nthreads)
  {
    double wloc[2 * 4096]; /* T <= 4096 (caller checks): prefix table + tap weights */
#pragma omp for schedule(dynamic, 1)
    for (int64_t k = 0; k < ws->ntiles; k++) {
      for (int64_t e = ws->start[k]; e < ws->start[k + 1]; e++) {
        const tap_run r = ws->runs[e];
        const double yi = y[r.i];
        if (ws->complete[r.i]) {
          /* weights rebuilt from the 1-D factors exactly as sgp_ski_interp_point
           * forms them (left fold over dimensions: same products, same bits) but
           * from d width doubles per point instead of T indices and weights */
          const double *wj = ws->w1d + (int64_t)r.i * d * width;
          wloc[0] = 1.0;
          int64_t count = 1;
          for (int j = 0; j < d - 1; j++, count *= width)
            for (int64_t q = width - 1; q >= 0; q--)
              for (int64_t t = 0; t < count; t++) wloc[t + q * count] = wloc[t] * wj[j * width + q];
          /* the last dimension's factor only for the taps this run needs (from
           * a0's row on), into wt so that the prefix table wloc[0..count) stays */
          const double *wl = wj + (d - 1) * width;
          double *wt = wloc + count; /* wt[t] = weight of tap t (t >= a0 valid) */
          for (int64_t t = r.a0 - r.a0 % count; t < T; t++) wt[t] = wloc[t % count] * wl[t / count];
          const int64_t g0 = ws->g0[r.i];
          for (int64_t a = r.a0; a < r.a1; a++) {
            const int64_t ga = g0 + tdelta[a];
            const double wa = wt[a];
            uy[ga] += wa * yi;
            u1[ga] += wa;
            double *Lg = L + ga * H - code[a]; /* Lg[code[b]]: h = code[b] - code[a] */
            const int64_t a1 = a % width, ra = a - a1;
            for (int64_t q = a1; q < width; q++) Lg[code[ra] + q] += wa * wt[ra + q];
            if (width == 4) { /* full rows of 4 consecutive codes (cubic) */
              for (int64_t rb = ra + 4; rb < T; rb += 4) {
                double *Lr = Lg + code[rb];
                const double *wr = wt + rb;
                Lr[0] += wa * wr[0];
                Lr[1] += wa * wr[1];
                Lr[2] += wa * wr[2];
                Lr[3] += wa * wr[3];
              }
            } else {
              for (int64_t rb = ra + width; rb < T; rb += width)
                for (int64_t q = 0; q < width; q++) Lg[code[rb] + q] += wa * wt[rb + q];
            }
          }
        } else {
          const int64_t *ix = idx + (int64_t)r.i * T;
          const double *wi = w + (int64_t)r.i * T;
          for (int64_t a = r.a0; a < r.a1; a++) {
            const int64_t ga = ix[a];
            if (ga < 0) continue;
            const double wa = wi[a];
            uy[ga] += wa * yi;
            u1[ga] += wa;
            double *Lg = L + ga * H - code[a];
            for (int64_t b2 = a; b2 < T; b2++)
              if (ix[b2] >= 0) Lg[code[b2]] += wa * wi[b2];
          }
        }
      }
    }
  }
}

/* Compact form of the block's complete points (no dropped tap) for the half
 * path: grid index of tap 0 and the d 1-D weight vectors, from
 * sgp_ski_interp_point on the 1-D grid of each dimension (the factors the
 * tensor-product weights are made of). */
static void compact_points(const sgp_ski_stats *st, accum_ws *ws, sgp_cmat X,
                           sgp_ski_bounds_policy policy, const int64_t *idx, int nthreads)
{
  const int d = st->grid.d, width = sgp_ski_interp_width(st->interp);
  const int64_t nb = X.rows, T = st->T;
  (void)nthreads;
#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (int64_t i = 0; i < nb; i++) {
    if (!ws->complete[i]) continue;
    ws->g0[i] = idx[i * T];
    for (int j = 0; j < d; j++) {
      sgp_ski_grid g1;
      memset(&g1, 0, sizeof g1);
      g1.d = 1;
      g1.m[0] = st->grid.m[j];
      g1.lo[0] = st->grid.lo[j];
      g1.h[0] = st->grid.h[j];
      int64_t ix1[4];
      int bad;
      sgp_ski_interp_point(&g1, st->interp, policy, X.data + i + j * X.ld, 1, ix1,
                           ws->w1d + (i * d + j) * width, &bad);
    }
  }
}

/* L <-> canonical half of D (to_L: D -> L). */
static void half_copy(sgp_ski_stats *st, double *L, int to_L, int nthreads)
{
  const int64_t m = st->m, H = (st->S + 1) / 2, c0 = H - 1;
  (void)nthreads;
#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (int64_t g0 = 0; g0 < m; g0 += 256) {
    const int64_t g1 = g0 + 256 < m ? g0 + 256 : m;
    for (int64_t h = 0; h < H; h++) {
      double *Dh = st->D + (c0 + h) * m;
      if (to_L)
        for (int64_t g = g0; g < g1; g++) L[g * H + h] = Dh[g];
      else
        for (int64_t g = g0; g < g1; g++) Dh[g] = L[g * H + h];
    }
  }
}

/* D[-o][g + o] = D[o][g] for the canonical offsets o != 0 (s > centre). */
static void mirror_half(sgp_ski_stats *st, int nthreads)
{
  const int d = st->grid.d;
  const int64_t m = st->m, m1 = st->grid.m[0], fibres = m / m1, S = st->S, c0 = (S - 1) / 2;
  (void)nthreads;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
  for (int64_t s = c0 + 1; s < S; s++) {
    const int *o = st->off + s * d;
    const double *src = st->D + s * m;
    double *dst = st->D + (2 * c0 - s) * m + st->delta[s];
    const int64_t lo = o[0] < 0 ? -o[0] : 0, hi = o[0] > 0 ? m1 - o[0] : m1;
    for (int64_t row = 0; row < fibres; row++) {
      if (!sgp_ski_fibre_inside(st, row, o)) continue;
      const int64_t g0 = row * m1;
      for (int64_t i = lo; i < hi; i++) dst[g0 + i] = src[g0 + i];
    }
  }
}

/* Empty statistics again (an interrupted accumulation: see pass 2). */
static void stats_clear(sgp_ski_stats *st)
{
  memset(st->D, 0, (size_t)(st->S * st->m) * sizeof(double));
  memset(st->uy, 0, (size_t)st->m * sizeof(double));
  memset(st->u1, 0, (size_t)st->m * sizeof(double));
  st->n = 0;
  st->yy = st->ysum = 0.0;
}

/* y'y and sum y of the block's points that are kept (a point dropped under
 * bounds_policy "drop" has no taps and is no data point of the model; a
 * truncated point without taps is one: y_i = noise); returns their count. */
static int64_t add_moments_y(sgp_ski_stats *st, sgp_ski_bounds_policy policy,
                             const int64_t *idx, const double *y, int64_t nb)
{
  int64_t kept = 0;
  for (int64_t i = 0; i < nb; i++) {
    if (policy == SGP_SKI_BOUNDS_DROP && idx[i * st->T] < 0) continue;
    st->yy += y[i] * y[i];
    st->ysum += y[i];
    kept++;
  }
  return kept;
}

/* keep: the caller's grid-major half buffer (sgp_ski_stats_accumulate_half),
 * NULL: a buffer of the call's own when the call's products pay for it. */
static int accumulate(sgp_ctx *ctx, sgp_ski_stats *st, sgp_cmat X, sgp_cmat y,
                      int64_t first_row, sgp_ski_bounds_policy policy, double *keep)
{
  int code = SGP_OK;
  int64_t kept = 0;
  int64_t *idx = NULL;
  double *w = NULL, *L = NULL;
  accum_ws ws;
  memset(&ws, 0, sizeof ws);
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
  {
    /* y'y is a statistic: a y whose squares overflow would give yty = Inf */
    double yy = st->yy;
    for (int64_t i = 0; i < n; i++) yy += y.data[i] * y.data[i];
    if (!isfinite(yy))
      return sgp_fail(ctx, SGP_EINVAL,
                      "y: its sum of squares (the statistic yty) overflows a double; "
                      "rescale y (e.g. divide by its standard deviation)");
  }
  const int64_t T = st->T, bmax = STATS_BLOCK_TAPS / T > 0 ? STATS_BLOCK_TAPS / T : 1;
  const int64_t blk = n < bmax ? n : bmax;
  const int threads = sgp_ctx_threads(ctx);
  idx = (int64_t *)malloc((size_t)(blk * T) * sizeof(int64_t));
  w = sgp_alloc(blk * T);
  if (!idx || !w || accum_ws_init(&ws, st, blk, threads)) {
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
   * only an interrupt can stop it (polled between blocks), and then the
   * statistics are cleared (a chunk cannot be taken out again).
   * Half the stencil plus a mirror pays when the products outweigh the
   * mirror's S m / 2 copies (the result is the same either way). */
  const int half = keep || ((double)n * (double)T * (double)(T + 1) / 2 >= (double)st->S * st->m &&
                           T <= 4096);
  const int copy_threads = st->S * st->m >= 65536 ? threads : 1;
  if (keep) {
    L = keep;
  } else if (half) {
    L = sgp_alloc((st->S + 1) / 2 * st->m);
    if (!L) {
      code = sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory for the accumulation buffer "
                      "(%lld doubles)", (long long)((st->S + 1) / 2 * st->m));
      goto cleanup;
    }
    half_copy(st, L, 1, copy_threads);
  }
  for (int64_t i0 = 0; i0 < n; i0 += blk) {
    const int64_t nb = n - i0 < blk ? n - i0 : blk;
    if (i0 > 0 && (code = sgp_poll_interrupt(ctx))) {
      stats_clear(st);
      goto cleanup;
    }
    if (n > blk) {
      const sgp_cmat Xb = {X.data + i0, nb, X.cols, X.ld};
      if ((code = sgp_ski_interp(ctx, &st->grid, st->interp, policy, Xb, first_row + i0, idx,
                                 w)))
        goto cleanup; /* cannot happen: pass 1 accepted these rows */
    }
    bin_taps(&ws, nb, T, idx);
    if (half) {
      const sgp_cmat Xb = {X.data + i0, nb, X.cols, X.ld};
      compact_points(st, &ws, Xb, policy, idx, nb >= 4096 ? threads : 1);
    }
    const int nthreads = nb * T * T >= 65536 && ws.ntiles > 1 ? threads : 1;
    if (half)
      accumulate_tiles_half(st, &ws, idx, w, y.data + i0, L, nthreads);
    else
      accumulate_tiles(st, &ws, idx, w, y.data + i0, nthreads);
    kept += add_moments_y(st, policy, idx, y.data + i0, nb);
    sgp_progress(ctx, "stats", (double)(i0 + nb) / (double)n);
  }
  if (half && !keep) {
    half_copy(st, L, 0, copy_threads);
    mirror_half(st, copy_threads);
  }
  st->n += kept;
  if ((code = sgp_ski_stats_check_values(ctx, st))) stats_clear(st);
cleanup:
  accum_ws_free(&ws);
  if (!keep) free(L);
  free(idx);
  free(w);
  return code;
}

int sgp_ski_stats_accumulate(sgp_ctx *ctx, sgp_ski_stats *st, sgp_cmat X, sgp_cmat y,
                             int64_t first_row, sgp_ski_bounds_policy policy)
{
  return accumulate(ctx, st, X, y, first_row, policy, NULL);
}

int sgp_ski_stats_accumulate_half(sgp_ctx *ctx, sgp_ski_stats *st, double *L, sgp_cmat X,
                                  sgp_cmat y, int64_t first_row, sgp_ski_bounds_policy policy)
{
  if (!st || !L || st->T > 4096)
    return sgp_fail(ctx, SGP_EINVAL, "stats: no half buffer for %lld taps per point",
                    (long long)(st ? st->T : 0));
  return accumulate(ctx, st, X, y, first_row, policy, L);
}

void sgp_ski_stats_half_finish(sgp_ctx *ctx, sgp_ski_stats *st, double *L)
{
  const int threads = st->S * st->m >= 65536 ? sgp_ctx_threads(ctx) : 1;
  half_copy(st, L, 0, threads);
  mirror_half(st, threads);
}

int sgp_ski_stats_check_values(sgp_ctx *ctx, const sgp_ski_stats *st)
{
  if (!st) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  if (!isfinite(st->yy) || !isfinite(st->ysum))
    return sgp_fail(ctx, SGP_EINVAL,
                    "y: the statistics yty / ysum overflow a double; rescale y");
  for (int64_t g = 0; g < st->m; g++)
    if (!isfinite(st->uy[g]))
      return sgp_fail(ctx, SGP_EINVAL,
                      "y: the statistic Wty overflows a double (grid point %lld); rescale y",
                      (long long)g + 1);
  return SGP_OK;
}
