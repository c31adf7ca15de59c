/* skl_scattered.c -- ski_laplace's scattered layout: observations at their own
 * locations, the latent there f_i = w(x_i)'u with the interpolation weights of
 * ski_gsgp (docs/ski_laplace.md, "The scattered layout"). W (n x m, T taps a
 * row) is made once and takes the place of the observed cells' selection P:
 * every n-vector reaches the grid as W'v and the grid returns as W G (skl_at).
 * Here: the data and W, and the dense W K W' and its diagonal for the exact path
 * and the probes' variances. */
#include "ski_laplace/skl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t len_of(sgp_cmat a) { return a.data ? a.rows * a.cols : 0; }

sgp_ski_interpolation skl_interp_of(const sgp_ski_laplace_opts *o, sgp_skl_layout layout)
{
  if ((int)o->interpolation != SGP_SKL_INTERPOLATION_AUTO) return o->interpolation;
  return layout == SGP_SKL_LAYOUT_SCATTERED ? SGP_SKI_CUBIC : SGP_SKI_LINEAR;
}

int skl_scattered_weights(sgp_ctx *ctx, skl_problem *p, sgp_cmat X, sgp_ski_bounds_policy policy,
                          unsigned char *keep)
{
  const int d = p->grid.d;
  const int64_t nx = X.rows, T = sgp_ski_interp_taps(p->interp, d);
  if (policy != SGP_SKI_BOUNDS_ERROR && policy != SGP_SKI_BOUNDS_CLAMP &&
      policy != SGP_SKI_BOUNDS_DROP)
    return sgp_fail(ctx, SGP_EINVAL, "bounds_policy: ski_laplace takes \"error\", \"clamp\" or "
                    "\"drop\" (truncated weights would not sum to 1)");
  p->T = T;
  p->policy = policy;
  p->widx = malloc((size_t)((nx > 0 ? nx : 1) * T) * sizeof(int64_t));
  p->ww = sgp_alloc((nx > 0 ? nx : 1) * T);
  p->xo = sgp_alloc((nx > 0 ? nx : 1) * d);
  double *colsum = sgp_calloc(p->m);
  int st = !p->widx || !p->ww || !p->xo || !colsum ? sgp_fail(ctx, SGP_ENOMEM, "x: out of memory") : 0;
  if (!st && nx > 0) st = sgp_ski_interp(ctx, &p->grid, p->interp, policy, X, 0, p->widx, p->ww);
  /* keep the rows with a tap (DROP marks the others), compacting in place */
  int64_t n = 0;
  double rowmax = 0.0;
  for (int64_t i = 0; !st && i < nx; i++) {
    int any = 0;
    for (int64_t t = 0; t < T; t++) any |= p->widx[i * T + t] >= 0;
    if (keep) keep[i] = (unsigned char)any;
    if (!any) continue;
    memmove(p->widx + n * T, p->widx + i * T, (size_t)T * sizeof(int64_t));
    memmove(p->ww + n * T, p->ww + i * T, (size_t)T * sizeof(double));
    double rs = 0.0;
    for (int64_t t = 0; t < T; t++) {
      rs += fabs(p->ww[n * T + t]);
      if (p->widx[n * T + t] >= 0) colsum[p->widx[n * T + t]] += fabs(p->ww[n * T + t]);
    }
    rowmax = fmax(rowmax, rs);
    n++;
  }
  /* ||W||_2^2 <= ||W||_1 ||W||_inf */
  double cmax = 0.0;
  for (int64_t g = 0; !st && g < p->m; g++) cmax = fmax(cmax, colsum[g]);
  p->wnorm2 = rowmax * cmax;
  p->n = n;
  p->dropped = nx - n;
  for (int j = 0; !st && j < d; j++) {
    int64_t k = 0;
    for (int64_t i = 0; i < nx; i++)
      if (!keep || keep[i]) p->xo[k++ + j * n] = X.data[i + j * X.ld];
  }
  free(colsum);
  return st;
}

/* y, offset and trials per row of x: lengths and values, the kept rows only. */
static int scattered_values(sgp_ctx *ctx, const sgp_ski_laplace_opts *o,
                            const sgp_ski_laplace_data *dt, const unsigned char *keep, skl_problem *p)
{
  const int64_t nx = dt->x.rows, no = len_of(dt->offset), nt = len_of(dt->trials), n = p->n;
  const sgp_lik_ops *ops = sgp_lik_ops_of(o->likelihood);
  p->y = sgp_alloc(n > 0 ? n : 1);
  p->off = sgp_alloc(n > 0 ? n : 1);
  p->trials = ops->takes_trials ? sgp_alloc(n > 0 ? n : 1) : NULL;
  if (!p->y || !p->off || (ops->takes_trials && !p->trials))
    return sgp_fail(ctx, SGP_ENOMEM, "y: out of memory");
  int64_t k = 0;
  for (int64_t i = 0; i < nx; i++) {
    const double y = dt->y.data[i], off = no ? dt->offset.data[i] : 0.0;
    if (!isfinite(y))
      return sgp_fail(ctx, SGP_EINVAL, "y: element %lld is not finite", (long long)(i + 1));
    if (!isfinite(off) || fabs(off) > 700.0)
      return sgp_fail(ctx, SGP_EINVAL, "offset: log exposures must be finite and lie in "
                      "[-700, 700] (element %lld is %g)", (long long)(i + 1), off);
    if (keep && !keep[i]) continue;
    p->y[k] = y;
    p->off[k] = off;
    if (p->trials) p->trials[k] = nt ? dt->trials.data[nt == 1 ? 0 : i] : 1.0;
    k++;
  }
  skl_problem_lik(p, o->likelihood, o->noise, o->dispersion);
  /* the labels by the likelihood's rule, in the user's numbering */
  char why[160];
  k = 0;
  for (int64_t i = 0; i < nx; i++) {
    if (keep && !keep[i]) continue;
    if (!ops->label(&p->lik, k, why, sizeof why))
      return sgp_fail(ctx, SGP_EINVAL, "y: %s (element %lld is %g)", why, (long long)(i + 1),
                      p->y[k]);
    k++;
  }
  return ops->check && n > 0 ? ops->check(ctx, &p->lik) : SGP_OK;
}

int skl_scattered_make(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *dt,
                       skl_problem *p)
{
  const int64_t nx = dt->x.rows, no = len_of(dt->offset), nt = len_of(dt->trials);
  if (len_of(dt->y) != nx)
    return sgp_fail(ctx, SGP_EDIM, "y: needs one value per row of x (%lld); got %lld",
                    (long long)nx, (long long)len_of(dt->y));
  if (no && no != nx)
    return sgp_fail(ctx, SGP_EDIM, "offset: needs one value per row of x (%lld); got %lld",
                    (long long)nx, (long long)no);
  if (nt && nt != 1 && nt != nx)
    return sgp_fail(ctx, SGP_EDIM, "trials: needs 1 or one value per row of x (%lld); got %lld",
                    (long long)nx, (long long)nt);
  unsigned char *keep = malloc((size_t)(nx > 0 ? nx : 1));
  int st = keep ? skl_scattered_weights(ctx, p, dt->x, o->bounds_policy, keep)
                : sgp_fail(ctx, SGP_ENOMEM, "x: out of memory");
  if (!st) st = scattered_values(ctx, o, dt, keep, p);
  free(keep);
  return st;
}

/* ---- W op W' and diag(W K W') */

#define SKL_WKW_BLOCK 32

int skl_wkw_dense(sgp_ctx *ctx, const skl_problem *p, const sgp_op *op, double *out)
{
  const int64_t n = p->n, m = p->m, T = p->T, b = SKL_WKW_BLOCK;
  double *E = sgp_alloc(m * b), *KE = sgp_alloc(m * b);
  int st = !E || !KE ? sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory for W K W'") : SGP_OK;
  for (int64_t j0 = 0; !st && j0 < n; j0 += b) {
    const int64_t c = n - j0 < b ? n - j0 : b;
    memset(E, 0, (size_t)(m * c) * sizeof(double));
    for (int64_t j = 0; j < c; j++)  /* the columns W'e_j */
      for (int64_t t = 0; t < T; t++) {
        const int64_t g = p->widx[(j0 + j) * T + t];
        if (g >= 0) E[g + j * m] += p->ww[(j0 + j) * T + t];
      }
    if ((st = op->apply(op, (sgp_cmat){E, m, c, m}, (sgp_mat){KE, m, c, m}, ctx))) break;
    for (int64_t j = 0; j < c; j++)
      for (int64_t i = 0; i < n; i++) out[i + (j0 + j) * n] = skl_at(p, KE + j * m, i);
  }
  /* the grid's FFT products are symmetric up to rounding; the Cholesky reads one triangle */
  for (int64_t j = 0; !st && j < n; j++)
    for (int64_t i = 0; i < j; i++) {
      const double v = 0.5 * (out[i + j * n] + out[j + i * n]);
      out[i + j * n] = v;
      out[j + i * n] = v;
    }
  free(E); free(KE);
  return st;
}

int skl_wkw_diag(sgp_ctx *ctx, const skl_problem *p, const sgp_kernel *k, double *out)
{
  const int64_t T = p->T;
  const int d = p->grid.d;
  double *G = sgp_alloc(T * d), *Kt = sgp_alloc(T * T);
  int st = !G || !Kt ? sgp_fail(ctx, SGP_ENOMEM, "out of memory") : SGP_OK;
  int64_t sub[SGP_SKI_MAX_D];
  for (int64_t i = 0; !st && i < p->n; i++) {
    const int64_t *ix = p->widx + i * T;
    const double *w = p->ww + i * T;
    for (int64_t t = 0; t < T; t++) {  /* the taps' grid points (a tap off the grid has w = 0) */
      sgp_ski_grid_subscripts(&p->grid, ix[t] >= 0 ? ix[t] : 0, sub);
      for (int j = 0; j < d; j++) G[t + j * T] = p->grid.lo[j] + (double)sub[j] * p->grid.h[j];
    }
    const sgp_cmat Gc = sgp_cmat_of(G, T, d);
    if ((st = sgp_kernel_matrix(ctx, k, Gc, Gc, sgp_mat_of(Kt, T, T)))) break;
    double v = 0.0;
    for (int64_t b = 0; b < T; b++)
      for (int64_t a = 0; a < T; a++) v += w[a] * Kt[a + b * T] * w[b];
    out[i] = v;
  }
  free(G); free(Kt);
  return st;
}
