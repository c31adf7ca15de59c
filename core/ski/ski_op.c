/* ski_op.c -- the classic SKI operator:
 * v -> W K_G W' v + noise v on R^n, with W kept in row-compressed form
 * (n x taps indices and weights). O(n taps + K_G product) per application. */
#include "ski/ski.h"
#include "kernels/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  sgp_ski_grid grid;
  sgp_ski_interpolation interp;
  int64_t n, m, T;
  int64_t *idx;          /* n-by-T row-compressed W */
  double *w;
  const sgp_op *kg;      /* not owned */
  double noise;
  sgp_kernel kernel;     /* kind and alpha, for diag (no lengthscale) */
  double ell[SGP_SKI_MAX_D], outputscale;
  double *u, *ku;        /* m work vectors */
} ski_state;

static void ski_free(ski_state *s)
{
  if (!s) return;
  free(s->idx);
  free(s->w);
  free(s->u);
  free(s->ku);
  free(s);
}

/* u = W' v: serial scatter in row order (deterministic). */
static void wt_apply(const ski_state *s, const double *v, double *u)
{
  memset(u, 0, (size_t)s->m * sizeof(double));
  const int64_t T = s->T;
  for (int64_t i = 0; i < s->n; i++) {
    const int64_t *ix = s->idx + i * T;
    const double *wi = s->w + i * T, vi = v[i];
    for (int64_t t = 0; t < T; t++)
      if (ix[t] >= 0) u[ix[t]] += wi[t] * vi;
  }
}

static int ski_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  ski_state *s = (ski_state *)op->state;
  int code;
  if (V.rows != s->n || Y.rows != s->n || Y.cols != V.cols)
    return sgp_fail(ctx, SGP_EDIM, "op: blocks are %lld x %lld and %lld x %lld; order %lld",
                    (long long)V.rows, (long long)V.cols, (long long)Y.rows,
                    (long long)Y.cols, (long long)s->n);
  const int64_t n = s->n, T = s->T;
  const int nthreads = sgp_par_threads(ctx, 2.0 * (double)(n * T));
  (void)nthreads;
  for (int64_t j = 0; j < V.cols; j++) {
    const double *v = V.data + j * V.ld;
    double *y = Y.data + j * Y.ld;
    wt_apply(s, v, s->u);
    if ((code = s->kg->apply(s->kg, sgp_cmat_of(s->u, s->m, 1), sgp_mat_of(s->ku, s->m, 1),
                             ctx)))
      return code;
    const double *ku = s->ku;
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int64_t i = 0; i < n; i++) {
      const int64_t *ix = s->idx + i * T;
      const double *wi = s->w + i * T;
      double acc = 0.0;
      for (int64_t t = 0; t < T; t++)
        if (ix[t] >= 0) acc += wi[t] * ku[ix[t]];
      y[i] = acc + s->noise * v[i];
    }
  }
  return SGP_OK;
}

/* diag = noise + sum_{t,t'} w_t w_t' k(g_t, g_t') */
static int ski_diag(const sgp_op *op, sgp_mat dg, sgp_ctx *ctx)
{
  const ski_state *s = (const ski_state *)op->state;
  if (dg.rows != s->n) return sgp_fail(ctx, SGP_EDIM, "op: diagonal needs %lld rows",
                                       (long long)s->n);
  const int d = s->grid.d;
  const int64_t T = s->T;
  for (int64_t i = 0; i < s->n; i++) {
    const int64_t *ix = s->idx + i * T;
    const double *wi = s->w + i * T;
    double acc = 0.0;
    for (int64_t a = 0; a < T; a++) {
      if (ix[a] < 0) continue;
      int64_t sa[SGP_SKI_MAX_D];
      sgp_ski_grid_subscripts(&s->grid, ix[a], sa);
      for (int64_t b = 0; b < T; b++) {
        if (ix[b] < 0) continue;
        int64_t sb[SGP_SKI_MAX_D];
        sgp_ski_grid_subscripts(&s->grid, ix[b], sb);
        double r2 = 0.0;
        for (int j = 0; j < d; j++) {
          const double q = (double)(sa[j] - sb[j]) * s->grid.h[j] / s->ell[j];
          r2 += q * q;
        }
        acc += wi[a] * wi[b] * sgp_kernel_value_r2(&s->kernel, s->outputscale, r2);
      }
    }
    dg.data[i] = acc + s->noise;
  }
  return SGP_OK;
}

static void ski_destroy(sgp_op *op)
{
  ski_free((ski_state *)op->state);
  op->state = NULL;
}

int sgp_ski_op_ski(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                   sgp_ski_interpolation interp, sgp_ski_bounds_policy policy, sgp_cmat X,
                   double noise, const sgp_op *kg, sgp_op *op)
{
  int code;
  ski_state *s = NULL;
  if (!op) return sgp_fail(ctx, SGP_EINVAL, "op: missing");
  memset(op, 0, sizeof *op);
  if ((code = sgp_ski_grid_check(ctx, g))) return code;
  if ((code = sgp_kernel_check(ctx, k, g->d))) return code;
  if (!(noise > 0) || !isfinite(noise))
    return sgp_fail(ctx, SGP_EINVAL, "noise: must be a positive finite variance (got %g)",
                    noise);
  const int64_t m = sgp_ski_grid_npoints(g);
  if (!kg || kg->n != m)
    return sgp_fail(ctx, SGP_EINVAL, "kg: missing or not of the grid's order %lld",
                    (long long)m);
  if (X.cols != g->d)
    return sgp_fail(ctx, SGP_EDIM, "x: has %lld columns; the grid has %d dimensions",
                    (long long)X.cols, g->d);
  if (X.rows < 1) return sgp_fail(ctx, SGP_EINVAL, "x: needs at least one row");
  s = (ski_state *)calloc(1, sizeof *s);
  if (!s) return sgp_fail(ctx, SGP_ENOMEM, "op: out of memory");
  s->grid = *g;
  s->interp = interp;
  s->n = X.rows;
  s->m = m;
  s->T = sgp_ski_interp_taps(interp, g->d);
  s->kg = kg;
  s->noise = noise;
  s->kernel = *k;
  s->kernel.lengthscale = NULL;
  s->outputscale = k->outputscale;
  for (int j = 0; j < g->d; j++) s->ell[j] = k->lengthscale[k->n_lengthscale == 1 ? 0 : j];
  s->idx = (int64_t *)malloc((size_t)(s->n * s->T) * sizeof(int64_t));
  s->w = sgp_alloc(s->n * s->T);
  s->u = sgp_alloc(m);
  s->ku = sgp_alloc(m);
  if (!s->idx || !s->w || !s->u || !s->ku) {
    code = sgp_fail(ctx, SGP_ENOMEM, "op: out of memory for W (%lld x %lld taps)",
                    (long long)s->n, (long long)s->T);
    goto fail;
  }
  if ((code = sgp_ski_interp(ctx, g, interp, policy, X, 0, s->idx, s->w))) goto fail;
  op->n = s->n;
  op->state = s;
  op->apply = ski_apply;
  op->diag = ski_diag;
  op->destroy = ski_destroy;
  return SGP_OK;
fail:
  ski_free(s);
  return code;
}

int sgp_ski_op_ski_wt(sgp_ctx *ctx, const sgp_op *op, const double *v, double *u)
{
  if (!op || op->destroy != ski_destroy || !op->state)
    return sgp_fail(ctx, SGP_EINVAL, "op: not a SKI operator (sgp_ski_op_ski)");
  wt_apply((const ski_state *)op->state, v, u);
  return SGP_OK;
}

const sgp_op *sgp_ski_op_ski_kg(const sgp_op *op)
{
  if (!op || op->destroy != ski_destroy || !op->state) return NULL;
  return ((const ski_state *)op->state)->kg;
}
