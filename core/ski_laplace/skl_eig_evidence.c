/* skl_eig_evidence.c -- the Laplace evidence and its gradient on the eigen path
 * (docs/ski_laplace.md, "The eigen path"):
 *   log|B| = log|M| = sum log p + log|p^-1/2 M p^-1/2|,
 * the first exact, the second by stochastic Lanczos quadrature from PCG on M
 * with right-hand sides p^1/2 xi (xi Rademacher, keyed by (seed, probe, index)),
 * whose coefficients are those of p^-1/2 M p^-1/2 started at xi. With y = M^-1
 * p^1/2 xi and w = p^-1/2 xi, E[y w'] = M^-1, so
 *   diag(Sigma_u) = diag(F p^-1 F') + E[(F y) o (F w) - (F w) o (F w)]
 * (the first term exact: the preconditioner's part, a control variate), and with
 * Rademacher z on the grid tr(R C) = E[(R z)' C z], R = H - H F M^-1 F'H.
 * The implicit term's s^ = b - H F M^-1 F'b, b = P's2. */
#include "ski_laplace/skl_eig.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SKL_EIG_CHUNK 8
/* the trace probes' stream, apart from the log-determinant's */
#define SKL_TRACE_SEED 0x5bd1e995ull

typedef struct {
  skl_slq_sums q;                /* the probes' log-det estimates */
  double *diag;                  /* m: sum_j (F y_j o F w_j - F w_j o F w_j) */
  double *diag_sq;               /* m or NULL: the sums of their squares (the map's se) */
  double tr[SGP_SKI_MAX_D + 1];  /* sums of (R z_j)' C z_j: lengthscales, then K */
} eig_acc;

static int probe_chunk(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, skl_eig *e,
                       const sgp_ski_laplace_opts *o, uint64_t seed, int64_t j0, int64_t c,
                       const sgp_op *dK, int64_t nl, eig_acc *acc)
{
  const int64_t m = p->m, mr = e->mr, km = o->slq_max_iter;
  /* B, Y: whitened (mr per column); W, FY, FW, CW: on the grid (m) */
  double *B = sgp_alloc(mr * c), *Y = sgp_alloc(mr * c), *W = sgp_alloc(m * c), *FY = sgp_alloc(m * c);
  double *FW = sgp_alloc(m * c), *CW = sgp_alloc(m * c), *ca = sgp_alloc(km * c), *cb = sgp_alloc(km * c);
  double *qw = sgp_alloc(3 * km + km * km);
  int64_t *steps = malloc((size_t)c * sizeof(int64_t));
  int st = !B || !Y || !W || !FY || !FW || !CW || !ca || !cb || !qw || !steps
           ? sgp_fail(ctx, SGP_ENOMEM, "probes: out of memory (lower probes)") : 0;
  for (int64_t j = 0; !st && j < c; j++)
    for (int64_t i = 0; i < mr; i++) {
      const double xi = sgp_ski_probe_value(seed, j0 + j, e->full[i]), sp = sqrt(e->p[i]);
      B[i + j * mr] = sp * xi;
      W[i + j * mr] = xi / sp;
    }
  int conv = 0;
  /* the solves serve the traces too: an error far below the probes' spread */
  if (!st) st = skl_eig_pcg(ctx, e, c, B, Y, 1e-8, km, ca, cb, steps, &conv, NULL, NULL);
  if (!st) st = skl_slq_quadrature(ctx, c, steps, ca, cb, km, (double)mr, qw, &acc->q);
  if (!st) st = skl_eig_F(ctx, e, c, Y, FY);
  if (!st) st = skl_eig_F(ctx, e, c, W, FW);
  for (int64_t k = 0; !st && k < m * c; k++) {
    const int64_t i = k % m;
    const double v = FY[k] * FW[k] - FW[k] * FW[k];
    acc->diag[i] += v;
    if (acc->diag_sq) acc->diag_sq[i] += v * v;
  }
  /* the traces tr(R C) = E[(R z)'C z] with Rademacher z on the grid, R z = H z -
   * H F M^-1 F'H z: the eigenbasis probes above would weight them by p^+-1/2, which
   * the traces of lengthscale derivatives do not follow (their variance grew by
   * orders of magnitude on bei) */
  for (int64_t j = 0; !st && nl >= 0 && j < c; j++)
    for (int64_t i = 0; i < m; i++) {
      W[i + j * m] = sgp_ski_probe_value(seed + SKL_TRACE_SEED, j0 + j, i);
      FY[i + j * m] = e->dfull[i] * W[i + j * m];
    }
  if (!st && nl >= 0) st = skl_eig_Ft(ctx, e, c, FY, B);
  if (!st && nl >= 0) st = skl_eig_pcg(ctx, e, c, B, Y, 1e-8, km, NULL, NULL, NULL, &conv, NULL, NULL);
  if (!st && nl >= 0) st = skl_eig_F(ctx, e, c, Y, FW);
  for (int64_t k = 0; !st && nl >= 0 && k < m * c; k++) FY[k] -= e->dfull[k % m] * FW[k];
  for (int64_t l = 0; !st && l <= nl; l++) {
    const sgp_op *C = l < nl ? &dK[l] : &pr->K;
    if ((st = C->apply(C, (sgp_cmat){W, m, c, m}, (sgp_mat){CW, m, c, m}, ctx))) break;
    for (int64_t j = 0; j < c; j++) acc->tr[l] += sgp_dot(m, FY + j * m, CW + j * m);
  }
  free(B); free(Y); free(W); free(FY); free(FW); free(CW); free(ca); free(cb); free(qw); free(steps);
  return st;
}

/* s^ = b - H F M^-1 F'b for b = P's2 (m). */
static int implicit_eig(sgp_ctx *ctx, const skl_problem *p, skl_eig *e,
                        const sgp_ski_laplace_opts *o, const double *s2, double *shat)
{
  const int64_t m = p->m;
  double *b = sgp_alloc(m), *ftb = sgp_alloc(m), *x = sgp_alloc(e->mr);
  int st = !b || !ftb || !x ? sgp_fail(ctx, SGP_ENOMEM, "out of memory") : 0;
  if (!st) { skl_scatter(p, NULL, s2, b); st = skl_eig_Ft(ctx, e, 1, b, ftb); }
  int conv = 0;
  if (!st)
    st = skl_eig_pcg(ctx, e, 1, ftb, x, o->inner_rtol, o->max_iter, NULL, NULL, NULL, &conv, NULL,
                     NULL);
  if (!st) st = skl_eig_F(ctx, e, 1, x, ftb);
  for (int64_t i = 0; !st && i < m; i++) shat[i] = b[i] - e->dfull[i] * ftb[i];
  free(b); free(ftb); free(x);
  return st;
}

static int eig_gradient(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, skl_eig *e,
                        const skl_state *s, const sgp_ski_laplace_opts *o, const eig_acc *acc,
                        const sgp_op *dK, int64_t nl, double *grad)
{
  const int64_t m = p->m, n = p->n, t = o->probes;
  double *dc = sgp_alloc(m), *s2 = sgp_alloc(n > 0 ? n : 1), *shat = sgp_alloc(m), *ca = sgp_alloc(m);
  int st = !dc || !s2 || !shat || !ca ? sgp_fail(ctx, SGP_ENOMEM, "out of memory") : 0;
  if (!st) st = skl_eig_diag_cov(ctx, e, dc);
  for (int64_t i = 0; !st && i < n; i++) {
    const int64_t g = p->obs[i];
    s2[i] = 0.5 * (dc[g] + acc->diag[g] / (double)t) * s->d3[i];
  }
  if (!st) st = implicit_eig(ctx, p, e, o, s2, shat);
  for (int64_t l = 0; !st && l <= nl; l++) {
    const sgp_op *C = l < nl ? &dK[l] : &pr->K;
    if ((st = C->apply(C, (sgp_cmat){s->alpha, m, 1, m}, (sgp_mat){ca, m, 1, m}, ctx))) break;
    grad[l] = 0.5 * sgp_dot(m, s->alpha, ca) - 0.5 * acc->tr[l] / (double)t + sgp_dot(m, shat, ca);
  }
  if (!st) {
    double gm = 0.0;
    for (int64_t i = 0; i < m; i++) gm += s->alpha[i] + shat[i];
    grad[nl + 1] = gm;
  }
  free(dc); free(s2); free(shat); free(ca);
  return st;
}

int skl_evidence_eig(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, skl_eig *e,
                     const skl_state *s, const sgp_ski_laplace_opts *o, uint64_t seed,
                     double *loglik, double *se, double *grad, skl_varmap *map)
{
  const int64_t m = p->m, t = o->probes;
  const int64_t nl = pr->kernel.n_lengthscale > 0 ? pr->kernel.n_lengthscale : 1;
  eig_acc acc;
  memset(&acc, 0, sizeof acc);
  sgp_op dK[SGP_SKI_MAX_D];
  memset(dK, 0, sizeof dK);
  acc.diag = sgp_calloc(m);
  acc.diag_sq = map ? sgp_calloc(m) : NULL;
  int st = acc.diag && (!map || acc.diag_sq) ? 0 : sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t l = 0; !st && grad && l < nl; l++)
    st = sgp_ski_grid_op_deriv(ctx, &pr->kernel, &p->grid, NULL,
                               nl == 1 ? (1u << p->grid.d) - 1u : 1u << l, &dK[l]);
  const int64_t chunk = e->cols < SKL_EIG_CHUNK ? e->cols : SKL_EIG_CHUNK;
  for (int64_t j0 = 0; !st && j0 < t; j0 += chunk)
    st = probe_chunk(ctx, p, pr, e, o, seed, j0, t - j0 < chunk ? t - j0 : chunk, grad ? dK : NULL,
                     grad ? nl : -1, &acc);
  double lmean = 0.0, lse = 0.0;
  if (!st) st = skl_slq_mean(ctx, &acc.q, &lmean, &lse);
  if (!st) {
    double lp = 0.0;
    for (int64_t i = 0; i < e->mr; i++) lp += log(e->p[i]);
    *loglik = s->logp - 0.5 * sgp_dot(e->mr, s->v, s->v) - 0.5 * (lp + lmean);
    *se = 0.5 * lse;
  }
  if (!st && grad) st = eig_gradient(ctx, p, pr, e, s, o, &acc, dK, nl, grad);
  if (!st && map) st = skl_eig_diag_cov(ctx, e, map->var);
  for (int64_t i = 0; !st && map && i < m; i++) {
    const double mu = acc.diag[i] / (double)t;
    map->var[i] += mu;
    map->se[i] = sqrt(fmax(acc.diag_sq[i] / (double)t - mu * mu, 0.0) / (double)(t - 1));
  }
  for (int64_t l = 0; l < nl; l++) sgp_op_destroy(&dK[l]);
  free(acc.diag); free(acc.diag_sq);
  return st;
}
