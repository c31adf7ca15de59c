/* skl_data.c -- ski_laplace's data on the grid: the three layouts (cells,
 * points, binned) become one set of observed cells (the scattered layout's
 * observations are in skl_scattered.c) with a count or label, a log
 * exposure and trials each (docs/ski_laplace.md, "Layouts"). Errors name the
 * argument and the element, in the user's numbering. */
#include "ski_laplace/skl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void skl_problem_free(skl_problem *p)
{
  free(p->obs); free(p->y); free(p->off); free(p->trials); free(p->xo); free(p->widx); free(p->ww);
  memset(p, 0, sizeof *p);
}

void skl_problem_lik(skl_problem *p, sgp_likelihood kind, double noise, double dispersion)
{
  p->noise = noise;
  p->lik = (sgp_lik){kind, p->n, 1, p->y, sgp_lik_ops_of(kind)->takes_offset ? p->off : NULL,
                     &p->noise, 1, 1e12, p->trials, p->trials ? p->n : 0, dispersion};
}

int skl_problem_grid(sgp_ctx *ctx, const sgp_ski_grid *g0, const double *bounds, skl_problem *p)
{
  const int d = g0->d;
  memcpy(p->bounds, bounds, (size_t)(2 * d) * sizeof(double));
  return sgp_ski_grid_bounds(ctx, sgp_cmat_of(p->bounds, d, 2), g0->m, &p->grid);
}

/* The working memory of a fit, counted in grid vectors held at once: the
 * Newton state (9), the eigen basis's buffers (17), a block of 8 probes with
 * its solves (40), the variance map (2) and the FFT products' padded complex
 * blocks of 8 (64), with room for the data's vectors: 160 per grid point. A
 * grid beyond the machine's memory is refused before anything is allocated. */
#define SKL_GRID_VECTORS 160.0

static int grid_fits_memory(sgp_ctx *ctx, int64_t m)
{
  const double need = SKL_GRID_VECTORS * 8.0 * (double)m, have = sgp_phys_mem_bytes();
  if (have > 0 && need > have)
    return sgp_fail(ctx, SGP_ENOMEM, "grid_size: a grid of %lld points needs about %.3g GB of "
                    "working memory, more than this machine's %.3g GB; use fewer grid points",
                    (long long)m, need / 1e9, have / 1e9);
  return SGP_OK;
}

static int64_t len_of(sgp_cmat a) { return a.data ? a.rows * a.cols : 0; }

/* The grid of the cells layout: dim(y) cells, centred at 1..m_j unless
 * grid_bounds says otherwise. */
static int cells_grid(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt,
                      sgp_ski_grid *g)
{
  const int64_t ny = len_of(dt->y), nd = len_of(dt->ydim);
  int64_t size[SGP_SKI_MAX_D];
  const int d = nd > 0 ? (int)nd : 1;
  if (nd > SGP_SKI_MAX_D)
    return sgp_fail(ctx, SGP_EDIM, "y: has %lld dimensions; at most %d", (long long)nd, SGP_SKI_MAX_D);
  int64_t prod = 1;
  for (int j = 0; j < d; j++) {
    const double v = nd > 0 ? dt->ydim.data[j] : (double)ny;
    if (!(v >= 1.0) || v != floor(v) || v > 1e9)
      return sgp_fail(ctx, SGP_EINVAL, "y: its dimensions must be whole numbers >= 1");
    size[j] = (int64_t)v;
    prod *= size[j];
  }
  if (prod != ny)
    return sgp_fail(ctx, SGP_EDIM, "y: has %lld values but its dimensions give %lld",
                    (long long)ny, (long long)prod);
  if (o->n_grid_size > 0)
    for (int j = 0; j < d; j++) {
      const int64_t gs = o->grid_size[o->n_grid_size == 1 ? 0 : j];
      if ((o->n_grid_size != 1 && o->n_grid_size != d) || gs != size[j])
        return sgp_fail(ctx, SGP_EDIM, "grid_size: must match dim(y) in the cells layout "
                        "(dimension %d has %lld cells)", j + 1, (long long)size[j]);
    }
  if (o->grid_bounds) {
    if (o->n_grid_bounds != 2 * d)
      return sgp_fail(ctx, SGP_EDIM, "grid_bounds: needs %d values (a %d x 2 matrix); got %lld",
                      2 * d, d, (long long)o->n_grid_bounds);
    return sgp_ski_grid_bounds(ctx, sgp_cmat_of(o->grid_bounds, d, 2), size, g);
  }
  memset(g, 0, sizeof *g);
  g->d = d;
  for (int j = 0; j < d; j++) { g->m[j] = size[j]; g->lo[j] = 1.0; g->h[j] = 1.0; }
  return SGP_OK;
}

/* The grid of the points and binned layouts: grid_size (default 64 per
 * dimension, a single value for all) over grid_bounds or the data's range. */
static int data_grid(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, sgp_cmat X, sgp_ski_grid *g)
{
  const int d = (int)X.cols;
  if (d < 1 || d > SGP_SKI_MAX_D)
    return sgp_fail(ctx, SGP_EDIM, "x: has %d columns; need 1 to %d", d, SGP_SKI_MAX_D);
  int64_t size[SGP_SKI_MAX_D];
  if (o->n_grid_size > 1 && o->n_grid_size != d)
    return sgp_fail(ctx, SGP_EDIM, "grid_size: needs 1 or %d values (got %lld)", d,
                    (long long)o->n_grid_size);
  for (int j = 0; j < d; j++)
    size[j] = o->n_grid_size > 0 ? o->grid_size[o->n_grid_size == 1 ? 0 : j] : 64;
  if (o->grid_bounds) {
    if (o->n_grid_bounds != 2 * d)
      return sgp_fail(ctx, SGP_EDIM, "grid_bounds: needs %d values (a %d x 2 matrix); got %lld",
                      2 * d, d, (long long)o->n_grid_bounds);
    return sgp_ski_grid_bounds(ctx, sgp_cmat_of(o->grid_bounds, d, 2), size, g);
  }
  double range[2 * SGP_SKI_MAX_D];
  int st = sgp_ski_data_range(ctx, X, range);
  if (st) return st;
  return sgp_ski_grid_auto(ctx, sgp_cmat_of(range, d, 2), size, o->interpolation,
                           o->grid_pad < 0 ? 1 : o->grid_pad, g);
}

/* Per-cell values of the cells layout, and the points and binned totals: y (m),
 * off (m, -Inf: no data), trials (m or NULL). The observed cells are those with
 * y not NaN and off > -Inf. */
typedef struct { double *y, *off, *trials; } cell_values;

static int cells_values(sgp_ctx *ctx, const sgp_ski_laplace_data *dt, int64_t m, cell_values *cv)
{
  const int64_t no = len_of(dt->offset), nt = len_of(dt->trials);
  if (no && no != m)
    return sgp_fail(ctx, SGP_EDIM, "offset: needs one value per cell (%lld); got %lld",
                    (long long)m, (long long)no);
  if (nt && nt != 1 && nt != m)
    return sgp_fail(ctx, SGP_EDIM, "trials: needs 1 or one value per cell (%lld); got %lld",
                    (long long)m, (long long)nt);
  for (int64_t i = 0; i < m; i++) {
    const double y = dt->y.data[i], off = no ? dt->offset.data[i] : 0.0;
    if (isnan(off) || off == INFINITY || (isfinite(off) && fabs(off) > 700.0))
      return sgp_fail(ctx, SGP_EINVAL, "offset: log exposures must lie in [-700, 700] or be -Inf "
                      "for a cell without data (element %lld is %g)", (long long)(i + 1), off);
    if (isinf(y))
      return sgp_fail(ctx, SGP_EINVAL, "y: contains Inf (element %lld)", (long long)(i + 1));
    if (off == -INFINITY && !isnan(y) && y != 0.0)
      return sgp_fail(ctx, SGP_EINVAL, "y: element %lld is %g in a cell whose offset is -Inf "
                      "(no exposure)", (long long)(i + 1), y);
    cv->y[i] = y;
    cv->off[i] = off;
    if (cv->trials) cv->trials[i] = nt ? dt->trials.data[nt == 1 ? 0 : i] : 1.0;
  }
  return SGP_OK;
}

/* The point pattern's counts c = W'1 (linear weights, so c >= 0) and the cells'
 * log areas (given, or the cell volume). */
/* c = W'1 of the points x with linear weights onto y (m, zeroed). */
static int count_points(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, sgp_cmat X,
                        const sgp_ski_grid *g, double *y)
{
  const int64_t n = X.rows, T = sgp_ski_interp_taps(o->interpolation, g->d);
  int64_t *idx = malloc((size_t)(n * T) * sizeof(int64_t));
  double *w = sgp_alloc(n * T);
  if (!idx || !w) { free(idx); free(w); return sgp_fail(ctx, SGP_ENOMEM, "x: out of memory"); }
  /* a point in the outer half of an edge cell belongs to that cell: clamped */
  int st = SGP_OK;
  for (int j = 0; j < g->d && !st; j++) {
    const double lo = g->lo[j] - 0.5 * g->h[j], hi = sgp_ski_grid_hi(g, j) + 0.5 * g->h[j];
    for (int64_t i = 0; i < n && !st; i++) {
      const double v = X.data[i + j * X.ld];
      if (!(v >= lo && v <= hi))
        st = sgp_fail(ctx, SGP_EINVAL, "x: row %lld, column %d (%g) lies outside the grid's cells "
                      "[%g, %g]", (long long)(i + 1), j + 1, v, lo, hi);
    }
  }
  if (!st) st = sgp_ski_interp(ctx, g, o->interpolation, SGP_SKI_BOUNDS_CLAMP, X, 0, idx, w);
  for (int64_t k = 0; !st && k < n * T; k++)
    if (idx[k] >= 0) y[idx[k]] += w[k];
  free(idx); free(w);
  return st;
}

/* The points layout: counts c = W'1 (from x, or the statistics' W'1) and the
 * cells' log areas (default: the cell volume; -Inf outside the window). */
static int points_values(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt,
                         const sgp_ski_grid *g, int64_t m, cell_values *cv)
{
  const int64_t no = len_of(dt->offset);
  if (o->interpolation != SGP_SKI_LINEAR)
    return sgp_fail(ctx, SGP_EINVAL, "interpolation: the points layout takes \"linear\" (its "
                    "counts W'1 must not be negative)");
  if (no && no != m)
    return sgp_fail(ctx, SGP_EDIM, "offset: needs one log area per cell (%lld); got %lld",
                    (long long)m, (long long)no);
  double vol = 0.0;
  for (int j = 0; j < g->d; j++) vol += log(g->h[j]);
  for (int64_t i = 0; i < m; i++) { cv->y[i] = 0.0; cv->off[i] = no ? dt->offset.data[i] : vol; }
  int st = SGP_OK;
  if (dt->stats) memcpy(cv->y, dt->stats->u1, (size_t)m * sizeof(double));
  else st = count_points(ctx, o, dt->x, g, cv->y);
  for (int64_t i = 0; !st && i < m; i++) {
    const double off = cv->off[i];
    if (isnan(off) || off == INFINITY || (isfinite(off) && fabs(off) > 700.0))
      st = sgp_fail(ctx, SGP_EINVAL, "offset: log areas must lie in [-700, 700] or be -Inf "
                    "outside the window (element %lld is %g)", (long long)(i + 1), off);
    else if (dt->stats && !(cv->y[i] >= 0.0))
      st = sgp_fail(ctx, SGP_EINVAL, "stats: 'Wt1' element %lld is %g; counts cannot be negative",
                    (long long)(i + 1), cv->y[i]);
    else if (off == -INFINITY && cv->y[i] > 0.0)
      st = sgp_fail(ctx, SGP_EINVAL, "%s: points fall next to grid cell %lld, whose offset is "
                    "-Inf (outside the window)", dt->stats ? "stats" : "x", (long long)(i + 1));
  }
  return st;
}

/* Observations summed into their nearest cell: counts (poisson: exposures
 * exp(offset) summed too), labels into binomial counts with trials. */
static int binned_values(sgp_ctx *ctx, const sgp_ski_laplace_data *dt, const sgp_ski_grid *g,
                         int64_t m, int binomial, cell_values *cv)
{
  const sgp_cmat X = dt->x;
  const int64_t n = X.rows, no = len_of(dt->offset), nt = len_of(dt->trials);
  if (len_of(dt->y) != n)
    return sgp_fail(ctx, SGP_EDIM, "y: needs one value per row of x (%lld); got %lld",
                    (long long)n, (long long)len_of(dt->y));
  if (no && no != n)
    return sgp_fail(ctx, SGP_EDIM, "offset: needs one value per row of x (%lld); got %lld",
                    (long long)n, (long long)no);
  if (nt && nt != 1 && nt != n)
    return sgp_fail(ctx, SGP_EDIM, "trials: needs 1 or one value per row of x (%lld); got %lld",
                    (long long)n, (long long)nt);
  double *expo = sgp_calloc(m);
  if (!expo) return sgp_fail(ctx, SGP_ENOMEM, "x: out of memory");
  for (int64_t i = 0; i < m; i++) { cv->y[i] = NAN; if (cv->trials) cv->trials[i] = 0.0; }
  int st = SGP_OK;
  for (int64_t i = 0; !st && i < n; i++) {
    int64_t cell = 0, stride = 1;
    for (int j = 0; j < g->d; j++) {
      const double x = X.data[i + j * X.ld], t = (x - g->lo[j]) / g->h[j];
      const double r = floor(t + 0.5);
      if (!isfinite(x) || r < 0 || r > (double)(g->m[j] - 1)) {
        st = sgp_fail(ctx, SGP_EINVAL, "x: row %lld, column %d lies outside the grid",
                      (long long)(i + 1), j + 1);
        break;
      }
      cell += (int64_t)r * stride;
      stride *= g->m[j];
    }
    if (st) break;
    const double y = dt->y.data[i], off = no ? dt->offset.data[i] : 0.0;
    const double tr = nt ? dt->trials.data[nt == 1 ? 0 : i] : 1.0;
    if (isfinite(y) && !(y >= 0.0 && y == floor(y)))
      st = sgp_fail(ctx, SGP_EINVAL, "y: binned counts and labels must be non-negative whole "
                    "numbers (element %lld is %g)", (long long)(i + 1), y);
    else if (!isfinite(y) || !isfinite(off) || fabs(off) > 700.0)
      st = sgp_fail(ctx, SGP_EINVAL, "%s: element %lld is not finite or out of [-700, 700]",
                    isfinite(y) ? "offset" : "y", (long long)(i + 1));
    cv->y[cell] = (isnan(cv->y[cell]) ? 0.0 : cv->y[cell]) + y;
    expo[cell] += exp(off);
    if (cv->trials) cv->trials[cell] += binomial ? tr : 0.0;
  }
  for (int64_t i = 0; i < m; i++) cv->off[i] = expo[i] > 0.0 ? log(expo[i]) : -INFINITY;
  free(expo);
  return st;
}

/* The observed cells' arrays and coordinates, and the likelihood over them; the
 * labels are checked per cell with the user's element numbers. */
static int gather(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const cell_values *cv,
                  skl_problem *p)
{
  const int64_t m = p->m;
  const sgp_lik_ops *ops = sgp_lik_ops_of(o->likelihood);
  int64_t n = 0;
  for (int64_t i = 0; i < m; i++) n += !isnan(cv->y[i]) && cv->off[i] > -INFINITY;
  p->n = n;
  p->obs = malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
  p->y = sgp_alloc(n > 0 ? n : 1);
  p->off = sgp_alloc(n > 0 ? n : 1);
  p->xo = sgp_alloc(n > 0 ? n * p->grid.d : 1);
  p->trials = cv->trials ? sgp_alloc(n > 0 ? n : 1) : NULL;
  if (!p->obs || !p->y || !p->off || !p->xo || (cv->trials && !p->trials))
    return sgp_fail(ctx, SGP_ENOMEM, "y: out of memory");
  sgp_lik full = {o->likelihood, m, 1, cv->y, NULL, &o->noise, 1, 1e12, cv->trials,
                  cv->trials ? m : 0, o->dispersion};
  int64_t k = 0, sub[SGP_SKI_MAX_D];
  for (int64_t i = 0; i < m; i++) {
    if (isnan(cv->y[i]) || cv->off[i] == -INFINITY) continue;
    char why[160];
    if (!p->points && !ops->label(&full, i, why, sizeof why))
      return sgp_fail(ctx, SGP_EINVAL, "y: %s (element %lld is %g)", why, (long long)(i + 1),
                      cv->y[i]);
    p->obs[k] = i;
    p->y[k] = cv->y[i];
    p->off[k] = cv->off[i];
    if (p->trials) p->trials[k] = cv->trials[i];
    sgp_ski_grid_subscripts(&p->grid, i, sub);
    for (int j = 0; j < p->grid.d; j++) p->xo[k + j * n] = p->grid.lo[j] + (double)sub[j] * p->grid.h[j];
    k++;
  }
  skl_problem_lik(p, o->likelihood, o->noise, o->dispersion);
  if (ops->check && n > 0) {
    const int st = ops->check(ctx, &p->lik);
    if (st) return st;
  }
  p->ll_shift = 0.0;
  for (int64_t i = 0; p->points && i < n; i++)  /* c u - a e^u from poisson's form */
    p->ll_shift += lgamma(p->y[i] + 1.0) - p->y[i] * p->off[i];
  return SGP_OK;
}

static sgp_skl_layout resolve_layout(const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt)
{
  if (o->layout != SGP_SKL_LAYOUT_AUTO) return o->layout;
  if (dt->stats) return SGP_SKL_LAYOUT_POINTS;
  if (!dt->x.data) return SGP_SKL_LAYOUT_CELLS;
  return dt->y.data ? SGP_SKL_LAYOUT_BINNED : SGP_SKL_LAYOUT_POINTS;
}

/* Statistics in the place of the points: the points layout, with the grid and
 * the linear weights they were made with (cubic weights give negative W'1). */
static int check_stats(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt,
                       sgp_skl_layout lay)
{
  if (dt->x.data || dt->y.data)
    return sgp_fail(ctx, SGP_EINVAL, "stats: takes the place of x (the points); give one of them, "
                    "and no y");
  if (lay != SGP_SKL_LAYOUT_POINTS)
    return sgp_fail(ctx, SGP_EINVAL, "layout: statistics give the \"points\" layout");
  if (dt->stats->interpolation != SGP_SKI_LINEAR)
    return sgp_fail(ctx, SGP_EINVAL, "stats: the points layout needs statistics made with "
                    "interpolation = \"linear\" (cubic weights make the counts W'1 negative)");
  if (o->n_grid_size > 0 || o->grid_bounds)
    return sgp_fail(ctx, SGP_EINVAL, "%s: is set by stats (their grid is the fit's)",
                    o->n_grid_size > 0 ? "grid_size" : "grid_bounds");
  return SGP_OK;
}

static int check_layout(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt,
                        sgp_skl_layout lay)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(o->likelihood);
  if (!ops || ops->multiclass)
    return sgp_fail(ctx, SGP_EUNSUPPORTED, "likelihood: ski_laplace takes one latent per cell; "
                    "softmax is not supported");
  if (dt->stats) {
    const int st = check_stats(ctx, o, dt, lay);
    if (st) return st;
  } else if (lay == SGP_SKL_LAYOUT_POINTS && (!dt->x.data || dt->y.data)) {
    return sgp_fail(ctx, SGP_EINVAL, "layout: \"points\" takes x (the points) and no y");
  }
  if (lay == SGP_SKL_LAYOUT_CELLS && (dt->x.data || !dt->y.data))
    return sgp_fail(ctx, SGP_EINVAL, "layout: \"cells\" takes y (one value per cell) and no x");
  if (lay == SGP_SKL_LAYOUT_BINNED && (!dt->x.data || !dt->y.data))
    return sgp_fail(ctx, SGP_EINVAL, "layout: \"binned\" takes x and y");
  if (lay != SGP_SKL_LAYOUT_SCATTERED && o->bounds_policy != SGP_SKI_BOUNDS_ERROR)
    return sgp_fail(ctx, SGP_EINVAL, "bounds_policy: applies to the scattered layout only (binned "
                    "data must lie on the grid; points use the grid's cells)");
  if (lay == SGP_SKL_LAYOUT_SCATTERED && (!dt->x.data || !dt->y.data))
    return sgp_fail(ctx, SGP_EINVAL, "layout: \"scattered\" takes x and y (one value per row of x)");
  if (lay == SGP_SKL_LAYOUT_POINTS && o->likelihood != SGP_LIK_POISSON)
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: the points layout is a Poisson (Cox) process; "
                    "use likelihood = \"poisson\"");
  if (lay == SGP_SKL_LAYOUT_BINNED && !ops->takes_offset && !ops->takes_trials &&
      !ops->classes)
    return sgp_fail(ctx, SGP_EINVAL, "likelihood: the binned layout sums counts or labels per "
                    "cell; it takes poisson, bernoulli or binomial");
  if (dt->trials.data && !ops->takes_trials)
    return sgp_fail(ctx, SGP_EINVAL, "trials: only used with likelihood = \"binomial\"");
  if (dt->offset.data && !ops->takes_offset && lay != SGP_SKL_LAYOUT_CELLS)
    return sgp_fail(ctx, SGP_EINVAL, "offset: only used with a count likelihood");
  return SGP_OK;
}

int skl_problem_make(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt,
                     skl_problem *p)
{
  memset(p, 0, sizeof *p);
  p->wnorm2 = 1.0;
  const sgp_skl_layout lay = resolve_layout(o, dt);
  int st = check_layout(ctx, o, dt, lay);
  if (st) return st;
  p->layout = lay;
  p->interp = skl_interp_of(o, lay);
  sgp_ski_laplace_opts oi = *o;  /* with the interpolation resolved */
  oi.interpolation = p->interp;
  o = &oi;
  p->points = lay == SGP_SKL_LAYOUT_POINTS;
  if (dt->x.data && (st = sgp_check_finite(ctx, "x", dt->x))) return st;
  sgp_ski_grid g0;
  if (dt->stats) g0 = dt->stats->grid;
  else st = lay == SGP_SKL_LAYOUT_CELLS ? cells_grid(ctx, o, dt, &g0) : data_grid(ctx, o, dt->x, &g0);
  if (st) return st;
  /* the fit writes the grid as bounds (the user's, else lo and lo + (m - 1) h) and
   * its predictions read them back: the grid made from them serves both */
  double b[2 * SGP_SKI_MAX_D];
  for (int j = 0; j < g0.d; j++) {
    const int user = o->grid_bounds && o->n_grid_bounds == 2 * g0.d;
    b[j] = user ? o->grid_bounds[j] : g0.lo[j];
    b[g0.d + j] = user ? o->grid_bounds[g0.d + j]
                       : g0.m[j] > 1 ? g0.lo[j] + (double)(g0.m[j] - 1) * g0.h[j] : g0.lo[j];
  }
  if ((st = skl_problem_grid(ctx, &g0, b, p))) return st;
  p->m = sgp_ski_grid_npoints(&p->grid);
  if ((st = grid_fits_memory(ctx, p->m))) return st;
  p->n_data = dt->stats ? dt->stats->n : dt->x.data ? dt->x.rows : len_of(dt->y);
  if (lay == SGP_SKL_LAYOUT_SCATTERED) return skl_scattered_make(ctx, o, dt, p);
  /* bernoulli labels summed per cell are binomial counts */
  const sgp_lik_ops *ops = sgp_lik_ops_of(o->likelihood);
  const int binomial = ops->takes_trials || (lay == SGP_SKL_LAYOUT_BINNED && ops->classes);
  sgp_ski_laplace_opts ob = *o;
  if (binomial && !ops->takes_trials) ob.likelihood = SGP_LIK_BINOMIAL;
  cell_values cv = {sgp_alloc(p->m), sgp_alloc(p->m), binomial ? sgp_alloc(p->m) : NULL};
  if (!cv.y || !cv.off || (binomial && !cv.trials)) st = sgp_fail(ctx, SGP_ENOMEM, "y: out of memory");
  else if (lay == SGP_SKL_LAYOUT_CELLS) st = cells_values(ctx, dt, p->m, &cv);
  else if (lay == SGP_SKL_LAYOUT_POINTS) st = points_values(ctx, o, dt, &p->grid, p->m, &cv);
  else st = binned_values(ctx, dt, &p->grid, p->m, binomial, &cv);
  if (!st) st = gather(ctx, &ob, &cv, p);
  free(cv.y); free(cv.off); free(cv.trials);
  return st;
}
