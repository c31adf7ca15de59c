/* ski_moments.c -- a faster streaming pass for the statistics of large data:
 * per-cell power moments instead of per-tap products.
 *
 * Why: within one grid cell (the points sharing the tap-0 grid index c) every
 * interpolation weight is a polynomial of degree r = width - 1 in the local
 * offset f_j of each dimension (Keys cubic: degree 3; linear: 1), so the
 * point's contribution w_a w_b to B[c + a, c + b] is prod_j P_{a_j b_j}(f_j)
 * with P of degree 2r. Summed over the cell's points it only needs the
 * moments M_c[p] = sum_i prod_j f_ij^p_j, p_j = 0..2r ((2r+1)^d numbers;
 * 343 for cubic in 3-D) and, for W'y, sum_i y_i prod_j f_ij^p_j, p_j <= r.
 * A point then costs ~(2r+1)^d contiguous multiply-adds (343 for cubic 3-D)
 * instead of T (T + 1)/2 scattered ones (2080), and the moments are turned
 * into B, W'y, W'1 once, at the flush, by separable contractions (O(m) work).
 *
 * Determinism: cells are cut into tiles of consecutive cells; a block of
 * points is sorted by tile (stable counting sort), each tile is owned by one
 * thread and adds its points in data order, so the moments are bitwise
 * identical for any chunking and thread count. The flush adds the cells'
 * contributions in a fixed order (phases by the last subscript mod width,
 * slabs of one last subscript per thread), also independent of the thread
 * count. The result equals sgp_ski_stats_accumulate's up to rounding (the
 * same sums, grouped differently); flushing more than once changes the
 * rounding, so flush once after the last chunk for chunk-independent bits.
 *
 * Scope: d <= 3 (the moments take (2r+1)^d + (r+1)^d doubles per grid
 * point) and bounds policies error, clamp and drop (truncate splits cells;
 * use sgp_ski_stats_accumulate for it). */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* points per block (located, sorted by tile, then added): large, so that a
 * tile's moments, loaded once per block, receive many points (m = 128K cells:
 * ~16 points per cell and block); 36 bytes per point of work space */
#define MOM_BLOCK (1 << 21)
#define MOM_TILE_DOUBLES 65536 /* moment doubles per tile (512 KB, ~L2) */

struct sgp_ski_moments {
  int d, W, Q;          /* dims, taps per dim (r + 1), powers per dim (2r + 1) */
  int64_t m, K, Ky;     /* cells (= grid points), Q^d, W^d */
  int64_t G, ntiles;    /* cells per tile, tiles */
  sgp_ski_grid grid, g1[3]; /* the grid and its 1-D factors */
  sgp_ski_interpolation interp;
  double *M;            /* m-by-(K + Ky): cell c at M[c (K + Ky)], y part after K */
  int64_t n, used;      /* points since the last flush (dropped ones not counted);
                           points in cells */
  double yy, ysum;
  /* block work space */
  int64_t *cell, *cnt;  /* MOM_BLOCK: cell of a point (-1 dropped); ntiles + 1 */
  int32_t *order;       /* MOM_BLOCK: points sorted by tile */
  double *f;            /* MOM_BLOCK-by-d local offsets */
};

int64_t sgp_ski_moments_points(const sgp_ski_moments *mo)
{
  return mo ? mo->n : 0;
}

void sgp_ski_moments_free(sgp_ski_moments *mo)
{
  if (!mo) return;
  free(mo->M);
  free(mo->cell);
  free(mo->cnt);
  free(mo->order);
  free(mo->f);
  free(mo);
}

int sgp_ski_moments_create(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_ski_moments **out)
{
  if (!out) return sgp_fail(ctx, SGP_EINVAL, "moments: output handle missing");
  *out = NULL;
  if (!st) return sgp_fail(ctx, SGP_EINVAL, "stats: missing (create it first)");
  const int d = st->grid.d;
  if (d > 3)
    return sgp_fail(ctx, SGP_EUNSUPPORTED, "stats: the moment pass supports d <= 3 (d = %d); "
                    "use sgp_ski_stats_accumulate", d);
  sgp_ski_moments *mo = (sgp_ski_moments *)calloc(1, sizeof *mo);
  if (!mo) return sgp_fail(ctx, SGP_ENOMEM, "moments: out of memory");
  mo->d = d;
  mo->W = sgp_ski_interp_width(st->interp);
  mo->Q = 2 * mo->W - 1;
  mo->m = st->m;
  mo->K = 1;
  mo->Ky = 1;
  for (int j = 0; j < d; j++) { mo->K *= mo->Q; mo->Ky *= mo->W; }
  mo->grid = st->grid;
  for (int j = 0; j < d; j++) {
    mo->g1[j].d = 1;
    mo->g1[j].m[0] = st->grid.m[j];
    mo->g1[j].lo[0] = st->grid.lo[j];
    mo->g1[j].h[0] = st->grid.h[j];
  }
  mo->interp = st->interp;
  mo->G = MOM_TILE_DOUBLES / (mo->K + mo->Ky);
  if (mo->G < 1) mo->G = 1;
  mo->ntiles = (mo->m + mo->G - 1) / mo->G;
  mo->M = sgp_calloc(mo->m * (mo->K + mo->Ky));
  mo->cell = (int64_t *)malloc((size_t)MOM_BLOCK * sizeof(int64_t));
  mo->cnt = (int64_t *)malloc((size_t)(mo->ntiles + 1) * sizeof(int64_t));
  mo->order = (int32_t *)malloc((size_t)MOM_BLOCK * sizeof(int32_t));
  mo->f = sgp_alloc((int64_t)MOM_BLOCK * d);
  if (!mo->M || !mo->cell || !mo->cnt || !mo->order || !mo->f) {
    const long long per = (long long)(mo->K + mo->Ky);
    sgp_ski_moments_free(mo);
    return sgp_fail(ctx, SGP_ENOMEM, "grid_size: out of memory for the moments (%lld x %lld "
                    "doubles)", (long long)st->m, per);
  }
  *out = mo;
  return SGP_OK;
}

/* Cell (grid index of tap 0) and local offsets of one point, the same
 * position as sgp_ski_interp_point (clamped as the policy says); returns an
 * SGP_SKI_POINT_* status. */
static int locate(const sgp_ski_moments *mo, sgp_ski_bounds_policy policy, const double *x,
                  int64_t incx, int64_t *cell, double *f)
{
  int64_t c = 0, stride = 1;
  for (int j = 0; j < mo->d; j++) {
    int64_t ix[4];
    double w[4];
    int bad;
    const int s = sgp_ski_interp_point(&mo->g1[j], mo->interp, policy, x + j * incx, 1, ix, w, &bad);
    if (s != SGP_SKI_POINT_OK) return s;
    /* t as weights_1d forms it (clamped into the valid range) */
    const int64_t mj = mo->grid.m[j];
    const double tmin = mo->W == 4 ? 1.0 : 0.0, tmax = mo->W == 4 ? (double)(mj - 2) :
                                                                     (double)(mj - 1);
    double t = (x[j * incx] - mo->grid.lo[j]) / mo->grid.h[j];
    t = t < tmin ? tmin : (t > tmax ? tmax : t);
    const int64_t i0 = ix[0] + (mo->W == 4 ? 1 : 0);
    f[j] = t - (double)i0;
    c += ix[0] * stride;
    stride *= mj;
  }
  *cell = c;
  return SGP_SKI_POINT_OK;
}

#if defined(__GNUC__)
#define MOM_INLINE static inline __attribute__((always_inline))
#else
#define MOM_INLINE static inline
#endif

/* Adds the points of one tile (in data order) to their cells' moments
 * (inlined with constant d, Q, W so that the short loops unroll). */
MOM_INLINE void add_tile_dqw(sgp_ski_moments *mo, const int32_t *pts, int64_t np,
                             const double *f, const double *y, int64_t ldf, const int d,
                             const int Q, const int W)
{
  const int64_t stride = mo->K + mo->Ky;
  for (int64_t e = 0; e < np; e++) {
    const int32_t i = pts[e];
    double *Mc = mo->M + mo->cell[i] * stride, *My = Mc + mo->K;
    double pw[3][8];
    for (int j = 0; j < d; j++) {
      const double fj = f[i + j * ldf];
      pw[j][0] = 1.0;
      for (int p = 1; p < Q; p++) pw[j][p] = pw[j][p - 1] * fj;
    }
    const double yi = y[i];
    if (d == 1) {
      for (int p = 0; p < Q; p++) Mc[p] += pw[0][p];
      for (int p = 0; p < W; p++) My[p] += yi * pw[0][p];
    } else if (d == 2) {
      for (int q = 0; q < Q; q++) {
        const double v = pw[1][q];
        double *Mq = Mc + q * Q;
        for (int p = 0; p < Q; p++) Mq[p] += pw[0][p] * v;
      }
      for (int q = 0; q < W; q++) {
        const double v = yi * pw[1][q];
        for (int p = 0; p < W; p++) My[p + q * W] += pw[0][p] * v;
      }
    } else {
      for (int r = 0; r < Q; r++)
        for (int q = 0; q < Q; q++) {
          const double v = pw[1][q] * pw[2][r];
          double *Mq = Mc + (q + r * Q) * Q;
          for (int p = 0; p < Q; p++) Mq[p] += pw[0][p] * v;
        }
      for (int r = 0; r < W; r++)
        for (int q = 0; q < W; q++) {
          const double v = yi * (pw[1][q] * pw[2][r]);
          double *Mq = My + (q + r * W) * W;
          for (int p = 0; p < W; p++) Mq[p] += pw[0][p] * v;
        }
    }
  }
}

static void add_tile(sgp_ski_moments *mo, const int32_t *pts, int64_t np, const double *f,
                     const double *y, int64_t ldf)
{
  if (mo->d == 3 && mo->W == 4)
    add_tile_dqw(mo, pts, np, f, y, ldf, 3, 7, 4);
  else if (mo->d == 2 && mo->W == 4)
    add_tile_dqw(mo, pts, np, f, y, ldf, 2, 7, 4);
  else
    add_tile_dqw(mo, pts, np, f, y, ldf, mo->d, mo->Q, mo->W);
}

/* Index of the first row of X outside the grid (policy error) or not finite
 * in *bad (INT64_MAX: none); the interrupt hook is polled between blocks. */
static int first_bad_row(sgp_ctx *ctx, const sgp_ski_moments *mo,
                         sgp_ski_bounds_policy policy, sgp_cmat X, int threads, int64_t *bad)
{
  int code;
  const int64_t n = X.rows;
  for (int64_t i0 = 0; i0 < n && *bad == INT64_MAX; i0 += MOM_BLOCK) {
    const int64_t i1 = n - i0 < MOM_BLOCK ? n : i0 + MOM_BLOCK;
    const int nt = i1 - i0 >= 4096 ? threads : 1;
    int64_t b = INT64_MAX;
    if (i0 > 0 && (code = sgp_poll_interrupt(ctx))) return code;
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static) reduction(min : b)
    for (int64_t i = i0; i < i1; i++) {
      int64_t c;
      double f[3];
      const int s = locate(mo, policy, X.data + i, X.ld, &c, f);
      if ((s == SGP_SKI_POINT_OUTSIDE || s == SGP_SKI_POINT_NONFINITE) && i < b) b = i;
    }
    *bad = b;
  }
  return SGP_OK;
}

/* Empty moments again (an interrupted accumulation). */
static void moments_clear(sgp_ski_moments *mo)
{
  memset(mo->M, 0, (size_t)(mo->m * (mo->K + mo->Ky)) * sizeof(double));
  mo->n = mo->used = 0;
  mo->yy = mo->ysum = 0.0;
}

int sgp_ski_moments_accumulate(sgp_ctx *ctx, sgp_ski_moments *mo, sgp_cmat X, sgp_cmat y,
                               int64_t first_row, sgp_ski_bounds_policy policy)
{
  int code;
  if (!mo) return sgp_fail(ctx, SGP_EINVAL, "moments: missing (create them first)");
  if (policy == SGP_SKI_BOUNDS_TRUNCATE)
    return sgp_fail(ctx, SGP_EUNSUPPORTED, "bounds_policy: \"truncate\" is not supported by "
                    "the moment pass (use sgp_ski_stats_accumulate)");
  if (policy < SGP_SKI_BOUNDS_ERROR || policy > SGP_SKI_BOUNDS_DROP)
    return sgp_fail(ctx, SGP_EINVAL,
                    "bounds_policy: unknown code %d (error, truncate, clamp or drop)", (int)policy);
  const int64_t n = X.rows;
  if (y.rows != n)
    return sgp_fail(ctx, SGP_EDIM, "y: has %lld values but x has %lld rows",
                    (long long)y.rows, (long long)n);
  if (n > 0 && y.cols != 1)
    return sgp_fail(ctx, SGP_EDIM, "y: must have one column (has %lld)", (long long)y.cols);
  if (X.cols != mo->d)
    return sgp_fail(ctx, SGP_EDIM, "x: has %lld columns; the grid has %d dimensions",
                    (long long)X.cols, mo->d);
  if (n == 0) return SGP_OK;
  if (!X.data || !y.data) return sgp_fail(ctx, SGP_EINVAL, "x: missing");
  if (X.ld < n) return sgp_fail(ctx, SGP_EDIM, "x: leading dimension below the row count");
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(y.data[i]))
      return sgp_fail(ctx, SGP_EINVAL, "y: contains NaN or Inf (row %lld)",
                      (long long)(first_row + i + 1));
  const int threads = sgp_ctx_threads(ctx);
  /* pass 1: every row valid, so that an error leaves the moments unchanged;
   * the first bad row gets sgp_ski_interp's message */
  int64_t bad = INT64_MAX;
  if ((code = first_bad_row(ctx, mo, policy, X, threads, &bad))) return code;
  if (bad != INT64_MAX) {
    const int64_t T = sgp_ski_interp_taps(mo->interp, mo->d);
    int64_t *ix = (int64_t *)malloc((size_t)T * sizeof(int64_t));
    double *w = sgp_alloc(T);
    const sgp_cmat Xb = {X.data + bad, 1, X.cols, X.ld};
    code = ix && w ? sgp_ski_interp(ctx, &mo->grid, mo->interp, policy, Xb, first_row + bad,
                                    ix, w)
                   : sgp_fail(ctx, SGP_ENOMEM, "moments: out of memory");
    free(ix);
    free(w);
    return code ? code : sgp_fail(ctx, SGP_EINVAL, "x: row %lld is outside the grid",
                                  (long long)(first_row + bad + 1));
  }
  if ((code = sgp_poll_interrupt(ctx))) return code; /* nothing added yet */
  /* pass 2 (only an interrupt, polled between blocks, stops it: then the
   * moments are cleared, a chunk cannot be taken out again): blocks of
   * points, located, sorted by tile, added tile by tile */
  for (int64_t i0 = 0; i0 < n; i0 += MOM_BLOCK) {
    const int64_t nb = n - i0 < MOM_BLOCK ? n - i0 : MOM_BLOCK;
    if (i0 > 0 && (code = sgp_poll_interrupt(ctx))) {
      moments_clear(mo);
      return code;
    }
    const int nt = nb >= 4096 ? threads : 1;
    (void)nt;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t i = 0; i < nb; i++) {
      double f[3];
      int64_t c;
      if (locate(mo, policy, X.data + i0 + i, X.ld, &c, f) != SGP_SKI_POINT_OK) c = -1;
      mo->cell[i] = c;
      for (int j = 0; j < mo->d; j++) mo->f[i + j * nb] = f[j];
    }
    int64_t *cnt = mo->cnt;
    memset(cnt, 0, (size_t)(mo->ntiles + 1) * sizeof(int64_t));
    for (int64_t i = 0; i < nb; i++)
      if (mo->cell[i] >= 0) cnt[mo->cell[i] / mo->G + 1]++;
    for (int64_t k = 0; k < mo->ntiles; k++) cnt[k + 1] += cnt[k];
    for (int64_t i = 0; i < nb; i++)
      if (mo->cell[i] >= 0) mo->order[cnt[mo->cell[i] / mo->G]++] = (int32_t)i;
    for (int64_t k = mo->ntiles; k > 0; k--) cnt[k] = cnt[k - 1];
    cnt[0] = 0;
    mo->used += cnt[mo->ntiles];
    const double *yb = y.data + i0;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 4)
    for (int64_t k = 0; k < mo->ntiles; k++)
      if (cnt[k + 1] > cnt[k])
        add_tile(mo, mo->order + cnt[k], cnt[k + 1] - cnt[k], mo->f, yb, nb);
    for (int64_t i = 0; i < nb; i++) { /* kept points only (see add_moments_y) */
      if (mo->cell[i] < 0) continue;
      const double v = yb[i];
      mo->yy += v * v;
      mo->ysum += v;
    }
    mo->n += cnt[mo->ntiles];
    sgp_progress(ctx, "stats", (double)(i0 + nb) / (double)n);
  }
  return SGP_OK;
}

/* ------------------------------------------------------------ flush */

/* Index of the unordered tap pair {a, b} of one dimension (W taps). */
static int pair_index(int W, int a, int b)
{
  if (a > b) { const int t = a; a = b; b = t; }
  return a * W - a * (a - 1) / 2 + (b - a); /* rows a = 0..W-1 of b >= a */
}

/* Polynomial coefficients of the 1-D weights, w_a(f) = sum_p cw[a][p] f^p
 * (sgp_ski_cubic_weights; linear 1 - f, f), and of the products
 * w_a w_b = sum_p cp[pair_index(a, b)][p] f^p (w_a w_b = w_b w_a: W (W+1)/2
 * distinct products). */
static void weight_polys(int W, double cw[4][4], double cp[16][7])
{
  static const double cubic[4][4] = {{0.0, -0.5, 1.0, -0.5},
                                     {1.0, 0.0, -2.5, 1.5},
                                     {0.0, 0.5, 2.0, -1.5},
                                     {0.0, 0.0, -0.5, 0.5}};
  static const double linear[2][2] = {{1.0, -1.0}, {0.0, 1.0}};
  memset(cw, 0, 16 * sizeof(double));
  memset(cp, 0, 16 * 7 * sizeof(double));
  for (int a = 0; a < W; a++)
    for (int p = 0; p < W; p++) cw[a][p] = W == 4 ? cubic[a][p] : linear[a][p];
  for (int a = 0; a < W; a++)
    for (int b = a; b < W; b++)
      for (int p = 0; p < W; p++)
        for (int q = 0; q < W; q++) cp[pair_index(W, a, b)][p + q] += cw[a][p] * cw[b][q];
}

/* Contracts axis j (size nin, innermost axes before it have size pre in
 * total, those after it post) of A with C (nout-by-nin, row stride ldc):
 * B[i + pre (o + nout k)] = sum_p C[o][p] A[i + pre (p + nin k)]. */
static void contract(const double *A, int64_t pre, int nin, int64_t post, const double *C,
                     int ldc, int nout, double *B)
{
  for (int64_t k = 0; k < post; k++)
    for (int o = 0; o < nout; o++) {
      double *Bo = B + pre * (o + (int64_t)nout * k);
      for (int64_t i = 0; i < pre; i++) Bo[i] = 0.0;
      for (int p = 0; p < nin; p++) {
        const double c = C[o * ldc + p];
        if (c == 0.0) continue;
        const double *Ap = A + pre * (p + (int64_t)nin * k);
        for (int64_t i = 0; i < pre; i++) Bo[i] += c * Ap[i];
      }
    }
}

/* Adds cell c's contributions to L (grid-major copy of the stencil: the
 * entry (g, s) at L[g S + s]), u_y, u_1 (work: 2 buffers of W^(2d) Q doubles
 * at most). vmap[a T + b] is the index of the tap pair (a, b) in V,
 * loff[a T + b] the position of B[c + a, c + b] in L minus c S. */
static void flush_cell(const sgp_ski_moments *mo, sgp_ski_stats *st, double *L, int64_t c,
                       const double cw[4][4], const double cp[16][7], double *b1, double *b2,
                       const int64_t *tap_delta, const int32_t *vmap, const int64_t *loff)
{
  const int d = mo->d, W = mo->W, Q = mo->Q, NP = W * (W + 1) / 2;
  const double *Mc = mo->M + c * (mo->K + mo->Ky), *My = Mc + mo->K;
  const int64_t T = sgp_ski_interp_taps(mo->interp, d);
  /* V[u_1 + NP (u_2 + ...)] = sum_p prod_j cp[u_j][p_j] M[p], u_j = pair {a_j, b_j} */
  const double *A = Mc;
  double *bufs[2] = {b1, b2};
  int64_t pre = 1, post = mo->K / Q;
  for (int j = 0; j < d; j++) {
    double *B = bufs[j % 2];
    contract(A, pre, Q, post, &cp[0][0], 7, NP, B);
    A = B;
    pre *= NP;
    post /= Q;
  }
  const double *V = A;
  double *Lc = L + c * st->S;
  for (int64_t e = 0; e < T * T; e++) Lc[loff[e]] += V[vmap[e]];
  /* u_1 and u_y: sum_p prod_j cw[a_j][p_j] M[p] over p_j < W (M's strided
   * corner) and over My */
  for (int which = 0; which < 2; which++) {
    const double *Ain = which ? My : Mc;
    int64_t pre2 = 1, post2 = mo->Ky / W;
    /* first contraction reads with the input's own strides: copy the corner */
    double *B = b1;
    if (!which) {
      for (int64_t t = 0; t < mo->Ky; t++) {
        int64_t rest = t, idx = 0, s2 = 1;
        for (int j = 0; j < d; j++) { idx += (rest % W) * s2; rest /= W; s2 *= Q; }
        b2[t] = Ain[idx];
      }
      Ain = b2;
    }
    const double *Ac = Ain;
    for (int j = 0; j < d; j++) {
      B = (Ac == b1) ? b2 : b1;
      contract(Ac, pre2, W, post2, &cw[0][0], 4, W, B);
      Ac = B;
      pre2 *= W;
      post2 /= W;
    }
    double *u = which ? st->uy : st->u1;
    for (int64_t a = 0; a < T; a++) u[c + tap_delta[a]] += Ac[a];
  }
}

int sgp_ski_moments_flush(sgp_ctx *ctx, sgp_ski_moments *mo, sgp_ski_stats *st)
{
  if (!mo) return sgp_fail(ctx, SGP_EINVAL, "moments: missing");
  if (!st) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  const sgp_ski_grid *a = &mo->grid, *b = &st->grid;
  int same = a->d == b->d && mo->interp == st->interp;
  for (int j = 0; same && j < a->d; j++)
    same = a->m[j] == b->m[j] && a->lo[j] == b->lo[j] && a->h[j] == b->h[j];
  if (!same)
    return sgp_fail(ctx, SGP_EINVAL, "stats: the moments were made for another grid or "
                    "interpolation");
  const int d = mo->d, W = mo->W;
  const int64_t T = sgp_ski_interp_taps(mo->interp, d), m = mo->m;
  int64_t tap_delta[64];
  for (int64_t t = 0; t < T; t++) {
    int64_t rest = t, delta = 0, stride = 1;
    for (int j = 0; j < d; j++) {
      delta += (rest % W) * stride;
      rest /= W;
      stride *= st->grid.m[j];
    }
    tap_delta[t] = delta;
  }
  double cw[4][4], cp[16][7];
  weight_polys(W, cw, cp);
  int32_t *vmap = (int32_t *)malloc((size_t)(T * T) * sizeof(int32_t));
  int64_t *loff = (int64_t *)malloc((size_t)(T * T) * sizeof(int64_t));
  /* scattering a cell into D's S rows (m doubles apart) thrashes the TLB;
   * L holds the same entries grid-major, then D += L' */
  double *L = sgp_calloc(st->S * m);
  int64_t c0 = 0, pw = 1; /* stencil index of o = 0 */
  for (int j = 0; j < d; j++) { c0 += (int64_t)st->R * pw; pw *= 2 * st->R + 1; }
  for (int64_t a = 0; vmap && loff && a < T; a++)
    for (int64_t b = 0; b < T; b++) {
      /* pair index {a_j, b_j} per dimension; stencil offset b - a */
      int64_t v = 0, vs = 1, ra = a, rb = b;
      for (int j = 0; j < d; j++) {
        v += pair_index(W, (int)(ra % W), (int)(rb % W)) * vs;
        vs *= W * (W + 1) / 2;
        ra /= W;
        rb /= W;
      }
      vmap[a * T + b] = (int32_t)v;
      loff[a * T + b] = tap_delta[a] * st->S + c0 + st->tap_code[b] - st->tap_code[a];
    }
  /* slabs: cells with one last subscript; a cell writes to W slabs, so the
   * slabs k = phase (mod W) of one phase are disjoint and run in parallel */
  const int64_t mlast = st->grid.m[d - 1], slab = m / mlast;
  const int64_t bufn = T * T * 7 + 64;
  const int threads = m * T * T >= (1 << 16) ? sgp_ctx_threads(ctx) : 1;
  double *work = sgp_alloc(2 * bufn * threads);
  if (!work || !vmap || !loff || !L) {
    free(work);
    free(vmap);
    free(loff);
    free(L);
    return sgp_fail(ctx, SGP_ENOMEM, "moments: out of memory for the flush");
  }
  const int64_t stride = mo->K + mo->Ky;
  for (int phase = 0; phase < W; phase++) {
    int code;
    if ((code = sgp_poll_interrupt(ctx))) { /* st and the moments are unchanged */
      free(work);
      free(vmap);
      free(loff);
      free(L);
      return code;
    }
    (void)threads;
#pragma omp parallel num_threads(threads)
    {
      const int tid = sgp_thread_num();
      double *b1 = work + 2 * bufn * tid, *b2 = b1 + bufn;
#pragma omp for schedule(dynamic, 1)
      for (int64_t k = phase; k < mlast; k += W)
        for (int64_t c = k * slab; c < (k + 1) * slab; c++)
          if (mo->M[c * stride] != 0.0) flush_cell(mo, st, L, c, cw, cp, b1, b2, tap_delta, vmap, loff);
    }
  }
  /* D += L' in blocks of grid points (each entry once: any order) */
  const int64_t S = st->S;
  (void)threads;
#pragma omp parallel for num_threads(threads) schedule(static)
  for (int64_t g0 = 0; g0 < m; g0 += 256) {
    const int64_t g1 = g0 + 256 < m ? g0 + 256 : m;
    for (int64_t s = 0; s < S; s++) {
      double *Ds = st->D + s * m;
      for (int64_t g = g0; g < g1; g++) Ds[g] += L[g * S + s];
    }
  }
  /* W'W's diagonal is a sum of squared weights, >= 0; the moments reach it by
   * cancellation, which leaves rounding of ~eps x the terms (observed -1.6e-18)
   * below zero where it is ~0. Zero those; a larger negative stays and is
   * reported by the import check. */
  double *Dd = st->D + c0 * m, dmax = 0.0;
  for (int64_t g = 0; g < m; g++) if (Dd[g] > dmax) dmax = Dd[g];
  for (int64_t g = 0; g < m; g++) if (Dd[g] < 0.0 && Dd[g] >= -1e-12 * dmax) Dd[g] = 0.0;
  free(L);
  free(work);
  free(vmap);
  free(loff);
  st->yy += mo->yy;
  st->ysum += mo->ysum;
  st->n += mo->n;
  moments_clear(mo);
  return SGP_OK;
}
