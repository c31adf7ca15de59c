/* laplace_itergp.c -- IterGP state (buffers S, T, root Q = S G) and the virtual
 * solver run with optional compression (spec 2.3, 3.3). */
#include "laplace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int sgp_itergp_init(sgp_ctx *ctx, sgp_itergp *s, int64_t n, int64_t C, int64_t cap)
{
  memset(s, 0, sizeof *s);
  s->n = n;
  s->C = C;
  s->NC = n * C;
  s->cap = cap < 1 ? 1 : cap;
  const int64_t NC = s->NC, K = s->cap;
  s->S = sgp_alloc(NC * K);
  s->T = sgp_alloc(NC * K);
  s->Q = sgp_alloc(NC * K);
  s->work = sgp_alloc(NC * K);
  s->G = sgp_calloc(K * K);
  s->M = sgp_alloc(K * K);
  s->w = sgp_alloc(K);
  if (!s->S || !s->T || !s->Q || !s->work || !s->G || !s->M || !s->w) {
    sgp_itergp_free(s);
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory for the solver buffers (%lld x %lld)",
                    (long long)NC, (long long)K);
  }
  return SGP_OK;
}

int sgp_itergp_reserve(sgp_ctx *ctx, sgp_itergp *s, int64_t need, int64_t cap_max)
{
  if (need <= s->cap) return SGP_OK;
  int64_t cap = 2 * s->cap > need ? 2 * s->cap : need;
  if (cap > cap_max) cap = cap_max;
  if (cap <= s->cap) return SGP_OK;
  const int64_t NC = s->NC, old = s->cap;
  double *p[4] = {s->S, s->T, s->Q, s->work};
  for (int k = 0; k < 4; k++) {
    double *q = (double *)realloc(p[k], (size_t)(NC * cap) * sizeof(double));
    if (!q) goto nomem;
    p[k] = q;
    switch (k) { /* keep the owner's pointer current after every successful realloc */
    case 0: s->S = q; break;
    case 1: s->T = q; break;
    case 2: s->Q = q; break;
    default: s->work = q; break;
    }
  }
  double *G = sgp_calloc(cap * cap), *M = sgp_alloc(cap * cap), *w = sgp_alloc(cap);
  if (!G || !M || !w) { free(G); free(M); free(w); goto nomem; }
  for (int64_t j = 0; j < s->B; j++)
    memcpy(G + j * cap, s->G + j * old, (size_t)s->B * sizeof(double));
  free(s->G); free(s->M); free(s->w);
  s->G = G; s->M = M; s->w = w;
  s->cap = cap;
  return SGP_OK;
nomem:
  return sgp_fail(ctx, SGP_ENOMEM, "out of memory growing the solver buffers to %lld x %lld",
                  (long long)NC, (long long)cap);
}

void sgp_itergp_free(sgp_itergp *s)
{
  free(s->S); free(s->T); free(s->Q); free(s->work);
  free(s->G); free(s->M); free(s->w);
  s->S = s->T = s->Q = s->work = s->G = s->M = s->w = NULL;
  s->B = s->r = 0;
}

int sgp_itergp_virtual(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                       int64_t rank, double kappa, double eig_rtol, int *finite)
{
  const int64_t NC = s->NC, B = s->B, ldg = s->cap;
  int st;
  *finite = 1;
  s->dropped = 0;
  s->trace_KQ = 0.0;
  if (B == 0) { s->r = 0; return SGP_OK; }
  /* V2-V3: Y = T + W^{-1} S, M = S'Y symmetrized */
  memcpy(s->work, s->T, (size_t)(NC * B) * sizeof(double));
  sgp_lik_winv_add(lik, nd, B, s->S, s->work);
  if ((st = sgp_gemm(ctx, 'T', 'N', B, B, NC, 1.0, s->S, NC, s->work, NC, 0.0, s->M, ldg)))
    return st;
  for (int64_t j = 0; j < B; j++)
    for (int64_t i = j; i < B; i++) {
      const double a = 0.5 * (s->M[i + j * ldg] + s->M[j + i * ldg]);
      if (!isfinite(a)) { *finite = 0; return SGP_OK; }
      s->M[i + j * ldg] = s->M[j + i * ldg] = a;
    }
  /* V4: ascending eigenvalues in w, eigenvectors in M */
  if ((st = sgp_syev(ctx, B, s->M, ldg, s->w))) return st;
  const double lam1 = s->w[B - 1];
  const double thr = kappa > eig_rtol * lam1 ? kappa : eig_rtol * lam1;
  int64_t k = 0;
  while (k < B && s->w[B - 1 - k] > thr) k++;
  if (rank >= 0 && k > rank) k = rank;
  s->dropped = B - k;
  if (k == 0 || !(lam1 > 0.0)) {
    s->B = s->r = 0;
    s->dropped = B;
    return SGP_OK;
  }
  memset(s->G, 0, (size_t)(ldg * ldg) * sizeof(double));
  if (k < B) {
    /* V6 compression: S <- S U_k, T <- T U_k (U_k = top-k eigenvectors, descending);
     * U_k is gathered into Q's storage as a B-by-k block. */
    double *Uk = s->Q;
    for (int64_t l = 0; l < k; l++)
      memcpy(Uk + l * B, s->M + (B - 1 - l) * ldg, (size_t)B * sizeof(double));
    if ((st = sgp_gemm(ctx, 'N', 'N', NC, k, B, 1.0, s->S, NC, Uk, B, 0.0, s->work, NC)))
      return st;
    memcpy(s->S, s->work, (size_t)(NC * k) * sizeof(double));
    if ((st = sgp_gemm(ctx, 'N', 'N', NC, k, B, 1.0, s->T, NC, Uk, B, 0.0, s->work, NC)))
      return st;
    memcpy(s->T, s->work, (size_t)(NC * k) * sizeof(double));
    for (int64_t l = 0; l < k; l++) s->G[l + l * ldg] = 1.0 / sqrt(s->w[B - 1 - l]);
    s->B = k;
  } else {
    for (int64_t l = 0; l < B; l++) {
      const double sc = 1.0 / sqrt(s->w[B - 1 - l]);
      for (int64_t i = 0; i < B; i++) s->G[i + l * ldg] = s->M[i + (B - 1 - l) * ldg] * sc;
    }
  }
  s->r = k;
  /* Q = S G; ||K Q||_F^2 = ||T G||_F^2 */
  if ((st = sgp_gemm(ctx, 'N', 'N', NC, k, s->B, 1.0, s->S, NC, s->G, ldg, 0.0, s->Q, NC)))
    return st;
  if ((st = sgp_gemm(ctx, 'N', 'N', NC, k, s->B, 1.0, s->T, NC, s->G, ldg, 0.0, s->work, NC)))
    return st;
  double tr = 0.0;
  for (int64_t i = 0; i < NC * k; i++) tr += s->work[i] * s->work[i];
  s->trace_KQ = tr;
  return SGP_OK;
}
