/* skl_evidence.c -- the Laplace evidence of ski_laplace at the mode and its
 * gradient over theta = (log lengthscale(s), log outputscale, mean), with the
 * implicit term (the mode moves with theta; docs/ski_laplace.md, "Evidence and
 * gradient"):
 *   log q = log p(y | f^) - 1/2 alpha'K alpha - 1/2 log|B|,
 *   d log q / d theta_j = 1/2 alpha'C_j alpha - 1/2 tr(R C_j) + s^'C_j alpha,
 *   d log q / d mean = 1'alpha + 1's^,
 * R = sw B^-1 sw on the observed cells, s2 = 1/2 diag(Sigma_f) t3, s^ = s2 -
 * sw B^-1 sw K s2. The exact path is dense on the observed cells; the slq path
 * estimates log|B|, the traces and diag(Sigma_f) with Rademacher probes keyed by
 * (seed, probe, grid index), so that the learning sees common random numbers. */
#include "ski_laplace/skl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double half_quad(const skl_problem *p, const skl_state *s)
{
  return 0.5 * sgp_dot(p->m, s->alpha, s->kappa);
}

/* Scattered: grad_l = sum G o (W C_l W') over the lengthscale derivatives and
 * sum G o K_f for the log outputscale (C = K). */
static int scattered_grad(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, const double *K,
                          const double *G, double *grad)
{
  const int64_t n = p->n, nl = pr->kernel.n_lengthscale > 0 ? pr->kernel.n_lengthscale : 1;
  sgp_op dK[SGP_SKI_MAX_D];
  memset(dK, 0, sizeof dK);
  double *C = sgp_alloc(n * n);
  int st = C ? skl_deriv_ops(ctx, p, pr, nl, dK) : sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  for (int64_t l = 0; !st && l < nl; l++)
    if (!(st = skl_wkw_dense(ctx, p, &dK[l], C))) grad[l] = sgp_dot(n * n, G, C);
  if (!st) grad[nl] = sgp_dot(n * n, G, K);
  for (int64_t l = 0; l < nl; l++) sgp_op_destroy(&dK[l]);
  free(C);
  return st;
}

/* G = 1/2 a a' - 1/2 R + 1/2 (s^ a' + a s^'), R = (L^-1 sw)'(L^-1 sw). */
static int exact_grad(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, const skl_state *s,
                      const double *K, const double *L, double *grad)
{
  const int64_t n = p->n;
  const int64_t nl = pr->kernel.n_lengthscale > 0 ? pr->kernel.n_lengthscale : 1;
  double *V = sgp_alloc(n * n), *s2 = sgp_alloc(n), *t = sgp_alloc(n), *a = sgp_alloc(n);
  int st = !V || !s2 || !t || !a ? sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory") : 0;
  /* diag(Sigma_f) = diag K - colsums((L^-1 sw K)^2) */
  for (int64_t j = 0; !st && j < n; j++)
    for (int64_t i = 0; i < n; i++) V[i + j * n] = s->sw[i] * K[i + j * n];
  if (!st) st = sgp_ev_trsm_left(ctx, 'L', 'N', n, n, L, n, V, n);
  for (int64_t j = 0; !st && j < n; j++) {
    double c = 0.0;
    for (int64_t i = 0; i < n; i++) c += V[i + j * n] * V[i + j * n];
    s2[j] = 0.5 * (K[j + j * n] - c) * s->d3[j];
  }
  /* s^ = s2 - sw B^-1 sw K s2 */
  if (!st) st = sgp_gemm(ctx, 'N', 'N', n, 1, n, 1.0, K, n, s2, n, 0.0, t, n);
  for (int64_t i = 0; !st && i < n; i++) t[i] *= s->sw[i];
  if (!st) st = sgp_ev_trsm_left(ctx, 'L', 'N', n, 1, L, n, t, n);
  if (!st) st = sgp_ev_trsm_left(ctx, 'L', 'T', n, 1, L, n, t, n);
  /* a = K_f^-1 (f - mean): alpha at the observed cells; scattered: alpha = W'a
   * (Newton keeps alpha in the range of W'), a = the gradient g at the mode */
  for (int64_t i = 0; !st && i < n; i++) {
    t[i] = s2[i] - s->sw[i] * t[i];
    a[i] = p->widx ? s->g[i] : s->alpha[p->obs[i]];
  }
  /* R via V = L^-1 diag(sw) */
  for (int64_t j = 0; !st && j < n; j++)
    for (int64_t i = 0; i < n; i++) V[i + j * n] = i == j ? s->sw[i] : 0.0;
  if (!st) st = sgp_ev_trsm_left(ctx, 'L', 'N', n, n, L, n, V, n);
  double *G = st ? NULL : sgp_alloc(n * n);
  if (!st && !G) st = sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  if (!st) st = sgp_gemm(ctx, 'T', 'N', n, n, n, 1.0, V, n, V, n, 0.0, G, n);
  for (int64_t j = 0; !st && j < n; j++)
    for (int64_t i = 0; i < n; i++)
      G[i + j * n] = 0.5 * a[i] * a[j] - 0.5 * G[i + j * n] + 0.5 * (t[i] * a[j] + a[i] * t[j]);
  if (!st && !p->widx)
    st = sgp_kernel_grad_dense(ctx, &pr->kernel, sgp_cmat_of(p->xo, n, p->grid.d), K, G, n, grad,
                               NULL);
  if (!st && p->widx) st = scattered_grad(ctx, p, pr, K, G, grad);
  if (!st) {
    double gm = 0.0;
    for (int64_t i = 0; i < n; i++) gm += a[i] + t[i];
    grad[nl + 1] = gm;
  }
  free(V); free(s2); free(t); free(a); free(G);
  return st;
}

int skl_evidence_exact(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr,
                       const skl_state *s, double *loglik, double *grad)
{
  const int64_t n = p->n;
  const int64_t nl = pr->kernel.n_lengthscale > 0 ? pr->kernel.n_lengthscale : 1;
  if (n == 0) {
    *loglik = 0.0;
    if (grad) memset(grad, 0, (size_t)(nl + 2) * sizeof(double));
    return SGP_OK;
  }
  const sgp_cmat X = sgp_cmat_of(p->xo, n, p->grid.d);
  double *K = sgp_alloc(n * n), *L = sgp_alloc(n * n);
  int st = !K || !L ? sgp_fail(ctx, SGP_ENOMEM, "evidence: the exact path needs %.3g GB for %lld "
                               "observed cells; use loglik_method = \"slq\"",
                               16.0 * (double)n * (double)n / 1e9, (long long)n) : 0;
  if (!st) st = p->widx ? skl_wkw_dense(ctx, p, &pr->K, K)
                        : sgp_kernel_matrix(ctx, &pr->kernel, X, X, sgp_mat_of(K, n, n));
  for (int64_t j = 0; !st && j < n; j++)
    for (int64_t i = 0; i < n; i++)
      L[i + j * n] = s->sw[i] * K[i + j * n] * s->sw[j] + (i == j ? 1.0 : 0.0);
  int64_t minor = 0;
  if (!st) st = sgp_ev_potrf(ctx, n, L, n, &minor);
  if (!st && minor > 0) st = sgp_fail(ctx, SGP_ENOTPD, "evidence: B is not positive definite");
  for (int64_t j = 0; !st && j < n; j++)
    for (int64_t i = 0; i < j; i++) L[i + j * n] = 0.0;
  double hld = 0.0;
  for (int64_t i = 0; !st && i < n; i++) hld += log(L[i + i * n]);
  if (!st) *loglik = s->logp - half_quad(p, s) - hld;
  if (!st && grad) st = exact_grad(ctx, p, pr, s, K, L, grad);
  free(K); free(L);
  return st;
}

/* ------------------------------------------------------------ the slq path */

#define SKL_PROBE_CHUNK 8

int skl_slq_quadrature(sgp_ctx *ctx, int64_t c, const int64_t *steps, const double *ca,
                       const double *cb, int64_t km, double scale, double *qw, skl_slq_sums *q)
{
  for (int64_t j = 0; j < c; j++) {
    double v = 0.0;
    int ok = 0, st;
    if (steps[j] > 0 && (st = sgp_ski_cg_quadrature(ctx, steps[j], ca + j * km, cb + j * km, qw, &v, &ok)))
      return st;
    if (!ok || steps[j] == 0) { q->discarded++; continue; }
    const double g = scale * v;
    q->sum += g; q->sum2 += g * g; q->used++;
  }
  return SGP_OK;
}

int skl_slq_mean(sgp_ctx *ctx, const skl_slq_sums *q, double *mean, double *se)
{
  if (q->used < 2)
    return sgp_fail(ctx, SGP_ENOTPD, "evidence: fewer than 2 usable probes (raise slq_max_iter)");
  const double u = (double)q->used;
  *mean = q->sum / u;
  *se = sqrt(fmax(q->sum2 / u - *mean * *mean, 0.0) / (u - 1.0));
  return SGP_OK;
}

typedef struct {
  skl_slq_sums q;            /* the probes' log-det estimates */
  double *diag_acc;          /* m: sum_j (K A_j) o (K Bz_j) */
  double *diag_sq;           /* m or NULL: the sums of their squares (the map's se) */
  double *diag_obs;          /* scattered, n: sum_j (W K A_j) o (W K Bz_j) */
  double tr[SGP_SKI_MAX_D + 1]; /* sums of A_j' C Bz_j per lengthscale, then K */
} slq_acc;

/* One chunk of probes: solves, quadrature, and the trace and diagonal sums. */
static int slq_chunk(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, const skl_state *s,
                     const sgp_ski_laplace_opts *o, uint64_t seed, int64_t j0, int64_t c,
                     const sgp_op *dK, int64_t nl, slq_acc *acc)
{
  const int64_t n = p->n, m = p->m, km = o->slq_max_iter;
  double *Z = sgp_alloc(n * c), *Y = sgp_alloc(n * c), *ca = sgp_alloc(km * c), *cb = sgp_alloc(km * c);
  double *A = sgp_alloc(m * c), *Bz = sgp_alloc(m * c), *KA = sgp_alloc(m * c), *KB = sgp_alloc(m * c);
  double *qw = sgp_alloc(3 * km + km * km);
  int64_t *steps = malloc((size_t)c * sizeof(int64_t));
  int st = !Z || !Y || !ca || !cb || !A || !Bz || !KA || !KB || !qw || !steps
           ? sgp_fail(ctx, SGP_ENOMEM, "probes: out of memory (lower probes)") : 0;
  for (int64_t j = 0; !st && j < c; j++)
    for (int64_t i = 0; i < n; i++)
      Z[i + j * n] = sgp_ski_probe_value(seed, j0 + j, p->widx ? i : p->obs[i]);
  const skl_bop B = {p, &pr->K, s->sw};
  int conv = 0;
  if (!st) st = skl_cg(ctx, &B, c, Z, Y, 1e-10, km, ca, cb, steps, &conv, NULL);
  if (!st) st = skl_slq_quadrature(ctx, c, steps, ca, cb, km, (double)n, qw, &acc->q);
  for (int64_t j = 0; !st && j < c; j++) {
    skl_scatter(p, s->sw, Y + j * n, A + j * m);
    skl_scatter(p, s->sw, Z + j * n, Bz + j * m);
  }
  if (!st) st = skl_apply_k(ctx, &pr->K, m, c, A, KA);
  if (!st) st = skl_apply_k(ctx, &pr->K, m, c, Bz, KB);
  for (int64_t j = 0; !st && j < c; j++) {
    for (int64_t i = 0; i < m; i++) {
      const double v = KA[i + j * m] * KB[i + j * m];
      acc->diag_acc[i] += v;
      if (acc->diag_sq) acc->diag_sq[i] += v * v;
    }
    acc->tr[nl] += sgp_dot(m, A + j * m, KB + j * m);
    for (int64_t i = 0; acc->diag_obs && i < n; i++)  /* scattered: diag(W K W' R W K W') */
      acc->diag_obs[i] += skl_at(p, KA + j * m, i) * skl_at(p, KB + j * m, i);
  }
  for (int64_t l = 0; !st && l < nl; l++) {  /* KA is free now: C_l Bz */
    if ((st = dK[l].apply(&dK[l], (sgp_cmat){Bz, m, c, m}, (sgp_mat){KA, m, c, m}, ctx))) break;
    for (int64_t j = 0; j < c; j++) acc->tr[l] += sgp_dot(m, A + j * m, KA + j * m);
  }
  free(Z); free(Y); free(ca); free(cb); free(A); free(Bz); free(KA); free(KB); free(qw); free(steps);
  return st;
}

/* s^ (m) from s2 (n): s^ = P's2 - sw' B^-1 sw K P's2. */
static int implicit_term(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr,
                         const skl_state *s, const sgp_ski_laplace_opts *o, const double *s2,
                         double *shat)
{
  const int64_t m = p->m, n = p->n;
  double *b = sgp_alloc(m), *kb = sgp_alloc(m), *z = sgp_alloc(n), *x = sgp_alloc(n);
  int st = !b || !kb || !z || !x ? sgp_fail(ctx, SGP_ENOMEM, "out of memory") : 0;
  if (!st) { skl_scatter(p, NULL, s2, b); st = skl_apply_k(ctx, &pr->K, m, 1, b, kb); }
  for (int64_t i = 0; !st && i < n; i++) z[i] = s->sw[i] * skl_at(p, kb, i);
  const skl_bop B = {p, &pr->K, s->sw};
  int conv = 0;
  if (!st) st = skl_cg(ctx, &B, 1, z, x, o->inner_rtol, o->max_iter, NULL, NULL, NULL, &conv, NULL);
  if (!st) {
    skl_scatter(p, s->sw, x, kb);
    for (int64_t i = 0; i < m; i++) shat[i] = b[i] - kb[i];
  }
  free(b); free(kb); free(z); free(x);
  return st;
}

int skl_deriv_ops(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, int64_t nl, sgp_op *dK)
{
  const int d = p->grid.d;
  for (int64_t l = 0; l < nl; l++) {
    const unsigned mask = nl == 1 ? (1u << d) - 1u : 1u << l;
    const int st = sgp_ski_grid_op_deriv(ctx, &pr->kernel, &p->grid, NULL, mask, &dK[l]);
    if (st) return st;
  }
  return SGP_OK;
}

int skl_evidence_slq(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr,
                     const skl_state *s, const sgp_ski_laplace_opts *o, uint64_t seed,
                     double *loglik, double *se, double *grad, skl_varmap *map)
{
  const int64_t n = p->n, m = p->m, t = o->probes;
  const int64_t nl = pr->kernel.n_lengthscale > 0 ? pr->kernel.n_lengthscale : 1;
  *se = 0.0;
  if (n == 0) {
    *loglik = 0.0;
    if (grad) memset(grad, 0, (size_t)(nl + 2) * sizeof(double));
    return SGP_OK;
  }
  slq_acc acc;
  memset(&acc, 0, sizeof acc);
  sgp_op dK[SGP_SKI_MAX_D];
  memset(dK, 0, sizeof dK);
  acc.diag_acc = sgp_calloc(m);
  acc.diag_sq = map ? sgp_calloc(m) : NULL;
  acc.diag_obs = p->widx ? sgp_calloc(n) : NULL;
  double *kff = p->widx ? sgp_alloc(n) : NULL; /* diag(W K W'); the cells': the outputscale */
  int st = acc.diag_acc && (!map || acc.diag_sq) && (!p->widx || (acc.diag_obs && kff))
           ? 0 : sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  if (!st && kff) st = skl_wkw_diag(ctx, p, &pr->kernel, kff);
  if (!st) st = skl_deriv_ops(ctx, p, pr, nl, dK);
  for (int64_t j0 = 0; !st && j0 < t; j0 += SKL_PROBE_CHUNK)
    st = slq_chunk(ctx, p, pr, s, o, seed, j0, t - j0 < SKL_PROBE_CHUNK ? t - j0 : SKL_PROBE_CHUNK,
                   dK, nl, &acc);
  double lmean = 0.0, lse = 0.0;
  if (!st) st = skl_slq_mean(ctx, &acc.q, &lmean, &lse);
  if (!st) {
    *loglik = s->logp - half_quad(p, s) - 0.5 * lmean;
    *se = 0.5 * lse;
  }
  double *s2 = NULL, *shat = NULL, *ca = NULL;
  if (!st && grad) {
    s2 = sgp_alloc(n); shat = sgp_alloc(m); ca = sgp_alloc(m);
    if (!s2 || !shat || !ca) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory");
    for (int64_t i = 0; !st && i < n; i++)
      s2[i] = 0.5 * (kff ? kff[i] - acc.diag_obs[i] / (double)t
                         : pr->kernel.outputscale - acc.diag_acc[p->obs[i]] / (double)t) * s->d3[i];
    if (!st) st = implicit_term(ctx, p, pr, s, o, s2, shat);
    for (int64_t l = 0; !st && l < nl; l++) {
      if ((st = dK[l].apply(&dK[l], (sgp_cmat){s->alpha, m, 1, m}, (sgp_mat){ca, m, 1, m}, ctx))) break;
      grad[l] = 0.5 * sgp_dot(m, s->alpha, ca) - 0.5 * acc.tr[l] / (double)t + sgp_dot(m, shat, ca);
    }
    if (!st) {
      grad[nl] = half_quad(p, s) - 0.5 * acc.tr[nl] / (double)t + sgp_dot(m, shat, s->kappa);
      double gm = 0.0;
      for (int64_t i = 0; i < m; i++) gm += s->alpha[i] + shat[i];
      grad[nl + 1] = gm;
    }
  }
  for (int64_t i = 0; !st && map && i < m; i++) {
    const double mu = acc.diag_acc[i] / (double)t;
    map->var[i] = pr->kernel.outputscale - mu;
    map->se[i] = sqrt(fmax(acc.diag_sq[i] / (double)t - mu * mu, 0.0) / (double)(t - 1));
  }
  for (int64_t i = 0; !st && map && map->fvar && kff && i < n; i++)
    map->fvar[i] = kff[i] - acc.diag_obs[i] / (double)t;
  for (int64_t l = 0; l < nl; l++) sgp_op_destroy(&dK[l]);
  free(acc.diag_acc); free(acc.diag_sq); free(acc.diag_obs); free(kff); free(s2); free(shat); free(ca);
  return st;
}
