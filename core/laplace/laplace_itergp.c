/* laplace_itergp.c -- IterGP state (buffers S, T, root Q = S G) and the virtual
 * solver run with optional compression. */
#define _POSIX_C_SOURCE 200809L
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "laplace/laplace.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

/* Large solver buffers (NC x cap, cap^2) are touched page by page as they fill;
 * on Linux, transparent huge pages cut the page faults (costly in VMs) and TLB
 * misses 512-fold. Freed with free(). */
double *sgp_laplace_big_alloc(int64_t n)
{
  if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(double)) return NULL;
  const size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const size_t huge = (size_t)2 << 20;
  if (bytes >= 2 * huge) {
    void *p = NULL;
    if (posix_memalign(&p, huge, bytes)) return NULL;
    (void)madvise(p, (bytes + huge - 1) / huge * huge, MADV_HUGEPAGE); /* advice only */
    return (double *)p;
  }
#endif
  return (double *)malloc(bytes);
}

/* Grows p (n_old doubles kept) to n_new doubles; frees p only on success. */
static double *big_realloc(double *p, int64_t n_old, int64_t n_new)
{
  double *q = sgp_laplace_big_alloc(n_new);
  if (!q) return NULL;
  memcpy(q, p, (size_t)n_old * sizeof(double));
  free(p);
  return q;
}

int sgp_itergp_init(sgp_ctx *ctx, sgp_itergp *s, int64_t n, int64_t C, int64_t cap)
{
  memset(s, 0, sizeof *s);
  s->n = n;
  s->C = C;
  s->NC = n * C;
  s->cap = cap < 1 ? 1 : cap;
  const int64_t NC = s->NC, K = s->cap;
  s->S = sgp_laplace_big_alloc(NC * (K + SGP_ITERGP_SPARE));
  s->T = sgp_laplace_big_alloc(NC * (K + SGP_ITERGP_SPARE));
  s->Q = sgp_laplace_big_alloc(NC * K);
  s->work = sgp_laplace_big_alloc(NC * K);
  s->G = sgp_laplace_big_alloc(K * K);
  s->M = sgp_laplace_big_alloc(K * K);
  if (s->G) memset(s->G, 0, (size_t)(K * K) * sizeof(double));
  s->w = sgp_alloc(K);
  s->wb = sgp_alloc(K);
  s->idx = (int64_t *)malloc((size_t)K * sizeof(int64_t));
  s->unit = s->g_tri = s->kq_valid = 0; /* no structure known until a virtual run sees B = 0 */
  s->kq_stored = 1;
  if (!s->S || !s->T || !s->Q || !s->work || !s->G || !s->M || !s->w || !s->wb || !s->idx) {
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
  for (int k = 0; k < (s->kq_stored ? 4 : 3); k++) {
    const int64_t spare = k < 2 ? SGP_ITERGP_SPARE : 0; /* S, T */
    double *q = big_realloc(p[k], NC * old, NC * (cap + spare));
    if (!q) goto nomem;
    p[k] = q;
    switch (k) { /* keep the owner's pointer current after every successful realloc */
    case 0: s->S = q; break;
    case 1: s->T = q; break;
    case 2: s->Q = q; break;
    default: s->work = q; break;
    }
  }
  int64_t *idx = (int64_t *)realloc(s->idx, (size_t)cap * sizeof(int64_t));
  if (!idx) goto nomem;
  s->idx = idx;
  double *G = sgp_laplace_big_alloc(cap * cap), *M = sgp_laplace_big_alloc(cap * cap),
         *w = sgp_alloc(cap), *wb = sgp_alloc(cap);
  if (!G || !M || !w || !wb) { free(G); free(M); free(w); free(wb); goto nomem; }
  memset(G, 0, (size_t)(cap * cap) * sizeof(double));
  for (int64_t j = 0; j < s->B; j++)
    memcpy(G + j * cap, s->G + j * old, (size_t)s->B * sizeof(double));
  free(s->G); free(s->M); free(s->w); free(s->wb);
  s->G = G; s->M = M; s->w = w; s->wb = wb;
  s->cap = cap;
  return SGP_OK;
nomem:
  return sgp_fail(ctx, SGP_ENOMEM, "out of memory growing the solver buffers to %lld x %lld",
                  (long long)NC, (long long)cap);
}

void sgp_itergp_free(sgp_itergp *s)
{
  free(s->S); free(s->T); free(s->Q); free(s->work);
  free(s->G); free(s->M); free(s->w); free(s->wb); free(s->idx);
  s->S = s->T = s->Q = s->work = s->G = s->M = s->w = s->wb = NULL;
  s->idx = NULL;
  s->B = s->r = 0;
}

int sgp_itergp_kq_implicit(sgp_ctx *ctx, sgp_itergp *s)
{
  if (!s->kq_stored) return SGP_OK;
  double *w = sgp_laplace_big_alloc(s->NC * SGP_ITERGP_CHUNK);
  if (!w) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  free(s->work);
  s->work = w;
  s->kq_stored = 0;
  return SGP_OK;
}

/* M[:, 0..B) = S'(T + W^{-1} S) (row gather S' = P_I' when unit), Y = T + W^{-1} S
 * formed SGP_ITERGP_CHUNK columns at a time in work when K Q is not stored. */
static int m_from_actions(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd)
{
  const int64_t NC = s->NC, B = s->B, ldg = s->cap;
  const int64_t jc = s->kq_stored ? B : SGP_ITERGP_CHUNK;
  for (int64_t j0 = 0; j0 < B; j0 += jc) {
    const int64_t jb = B - j0 < jc ? B - j0 : jc;
    memcpy(s->work, s->T + j0 * NC, (size_t)(NC * jb) * sizeof(double));
    sgp_lik_winv_add(lik, nd, jb, s->S + j0 * NC, s->work);
    if (s->unit) {
      for (int64_t j = 0; j < jb; j++)
        for (int64_t i = 0; i < B; i++) s->M[i + (j0 + j) * ldg] = s->work[s->idx[i] + j * NC];
    } else {
      int st = sgp_gemm(ctx, 'T', 'N', B, jb, NC, 1.0, s->S, NC, s->work, NC, 0.0,
                        s->M + j0 * ldg, ldg);
      if (st) return st;
    }
  }
  return SGP_OK;
}

/* X <- X U (X: NC x B, ld NC; U: B x k, ld B) in place, a panel of rows at a
 * time through work (each row of the product needs only that row of X). */
static int rotate_in_place(sgp_ctx *ctx, sgp_itergp *s, double *X, const double *U, int64_t k)
{
  const int64_t NC = s->NC, B = s->B;
  int64_t rb = NC * SGP_ITERGP_CHUNK / (k > 0 ? k : 1);
  if (rb < 1) rb = 1;
  for (int64_t i0 = 0; i0 < NC; i0 += rb) {
    const int64_t ib = NC - i0 < rb ? NC - i0 : rb;
    int st = sgp_gemm(ctx, 'N', 'N', ib, k, B, 1.0, X + i0, NC, U, B, 0.0, s->work, ib);
    if (st) return st;
    for (int64_t l = 0; l < k; l++)
      memcpy(X + i0 + l * NC, s->work + l * ib, (size_t)ib * sizeof(double));
  }
  return SGP_OK;
}

/* Q = S G: a scatter of G's rows when S = P_I, else a product. */
static int form_root(sgp_ctx *ctx, sgp_itergp *s, int64_t k)
{
  const int64_t NC = s->NC, ldg = s->cap;
  if (!s->unit)
    return sgp_gemm(ctx, 'N', 'N', NC, k, s->B, 1.0, s->S, NC, s->G, ldg, 0.0, s->Q, NC);
  memset(s->Q, 0, (size_t)(NC * k) * sizeof(double));
  for (int64_t l = 0; l < k; l++)
    for (int64_t i = 0; i < s->B; i++) s->Q[s->idx[i] + NC * l] = s->G[i + l * ldg];
  return SGP_OK;
}

int sgp_khat_cholesky(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, const double *d,
                      const int64_t *idx, double *s, int *ok)
{
  int st;
  int64_t minor = 0;
  *ok = 0;
  for (int64_t i = 0; i < n; i++) s[i] = 1.0 / sqrt(d[idx ? idx[i] : i]);
  if ((st = sgp_chol_scaled(ctx, n, A, lda, s, 0.0, A, lda, &minor)) || minor) return st;
  for (int64_t j = 0; j < n; j++) {
    const double piv = A[j + j * lda] * A[j + j * lda];
    if (!(piv >= 0.5) || !isfinite(piv)) return SGP_OK;
  }
  for (int64_t j = 0; j < n; j++) /* rows of L_B times d^1/2 */
    for (int64_t i = j; i < n; i++) A[i + j * lda] /= s[i];
  *ok = 1;
  return SGP_OK;
}

/* Cholesky factor M = L L' into G (root_lazy; G = L^{-T} is formed later by
 * sgp_itergp_root): when M is comfortably positive definite, a Cholesky G is as
 * valid a root as the eigenbasis (G'MG = I) at a fraction of the cost for large B.
 * Diagonal W^{-1}: through B = I + W^1/2 K W^1/2 (sgp_khat_cholesky), whose
 * pivots are >= 1 even where those of M are below 1e-8 of its largest diagonal
 * (W^{-1} spread over many decades: the eigen path cost 20 s a step at n = 5000).
 * Returns 1 when used, 0 when the caller must take the eigen path. */
static int cholesky_root(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                         int b_tried, int *st)
{
  const int64_t B = s->B, ldg = s->cap;
  double dmax = 0.0;
  for (int64_t i = 0; i < B; i++) if (s->M[i + i * ldg] > dmax) dmax = s->M[i + i * ldg];
  if (!(dmax > 0.0)) return 0;
  int ok = 0;
  for (int pass = sgp_lik_multiclass(lik->kind) || b_tried; pass < 2 && !ok; pass++) {
    for (int64_t j = 0; j < B; j++)
      memcpy(s->G + j * ldg + j, s->M + j * ldg + j, (size_t)(B - j) * sizeof(double));
    if (pass == 0) { /* B form (s->w: scratch until an eigen path) */
      if ((*st = sgp_khat_cholesky(ctx, B, s->G, ldg, nd, s->idx, s->w, &ok))) return 0;
      continue;
    }
    int64_t minor = 0;
    if ((*st = sgp_potrf_minor(ctx, B, s->G, ldg, &minor)) || minor) return 0;
    /* pivots far from zero (stricter than the eigenvalue drop rule, which then
     * keeps every direction too): otherwise take the eigen path */
    ok = 1;
    for (int64_t i = 0; i < B; i++)
      if (!(s->G[i + i * ldg] * s->G[i + i * ldg] > 1e-8 * dmax)) ok = 0;
  }
  return ok;
}

/* The exact mode's recycled actions (S = P_I, W^{-1} diagonal, no truncation):
 * M = K^[I, I] is the row gather T[I, :] + diag(nd[I]); its lower triangle,
 * symmetrized as sgp_itergp_virtual does (the same values), is written straight
 * into G and factored there through B, the first pass of cholesky_root. M, a
 * second B^2 buffer, is then neither touched nor copied in a Newton step (its
 * pages cost as much as the gather at B = 5000). *finite = 0 as the general path
 * sets it; *tried: the B form was tried (G no longer holds the old root);
 * *done: it succeeded (G = L). */
static int unit_root_in_g(sgp_ctx *ctx, sgp_itergp *s, const double *nd, int *finite,
                          int *tried, int *done)
{
  const int64_t NC = s->NC, B = s->B, ldg = s->cap, tb = 64;
  const int64_t *idx = s->idx;
  const double *T = s->T;
  double *G = s->G, dmax = 0.0;
  int st, ok = 0;
  *tried = *done = 0;
  for (int64_t j0 = 0; j0 < B; j0 += tb) /* tiles keep the transposed reads in cache */
    for (int64_t i0 = j0; i0 < B; i0 += tb) {
      const int64_t j1 = j0 + tb < B ? j0 + tb : B, i1 = i0 + tb < B ? i0 + tb : B;
      for (int64_t j = j0; j < j1; j++)
        for (int64_t i = i0 > j ? i0 : j; i < i1; i++) {
          double a;
          if (i == j) {
            const double m = T[idx[j] + j * NC] + nd[idx[j]];
            a = 0.5 * (m + m);
          } else {
            a = 0.5 * (T[idx[i] + j * NC] + T[idx[j] + i * NC]);
          }
          if (!isfinite(a)) { *finite = 0; return SGP_OK; }
          G[i + j * ldg] = a;
        }
    }
  for (int64_t i = 0; i < B; i++) if (G[i + i * ldg] > dmax) dmax = G[i + i * ldg];
  if (!(dmax > 0.0)) return SGP_OK; /* the general path (its eigen branch) */
  *tried = 1;
  if ((st = sgp_khat_cholesky(ctx, B, G, ldg, nd, idx, s->w, &ok))) return st;
  *done = ok;
  return SGP_OK;
}

int sgp_itergp_root(sgp_ctx *ctx, sgp_itergp *s)
{
  const int64_t B = s->B, ldg = s->cap;
  int st;
  if (!s->root_lazy) return SGP_OK;
  if ((st = sgp_trtri(ctx, 'L', B, s->G, ldg))) return st;
  for (int64_t j = 0; j < B; j++)
    for (int64_t i = j + 1; i < B; i++) {
      s->G[j + i * ldg] = s->G[i + j * ldg]; /* G = (L^{-1})' upper */
      s->G[i + j * ldg] = 0.0;
    }
  s->root_lazy = 0;
  return form_root(ctx, s, B);
}

int sgp_itergp_project(sgp_ctx *ctx, sgp_itergp *s, const double *b, double *v, double *wr)
{
  const int64_t NC = s->NC, r = s->r;
  int st;
  if (s->root_lazy) { /* v = P_I (L L')^{-1} b[I] */
    for (int64_t i = 0; i < r; i++) wr[i] = b[s->idx[i]];
    if ((st = sgp_potrs(ctx, r, 1, s->G, s->cap, wr, r))) return st;
    memset(v, 0, (size_t)NC * sizeof(double));
    for (int64_t i = 0; i < r; i++) v[s->idx[i]] = wr[i];
    return SGP_OK;
  }
  if ((st = sgp_gemm(ctx, 'T', 'N', r, 1, NC, 1.0, s->Q, NC, b, NC, 0.0, wr, r))) return st;
  return sgp_gemm(ctx, 'N', 'N', NC, 1, r, 1.0, s->Q, NC, wr, r, 0.0, v, NC);
}

int sgp_itergp_virtual(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                       int64_t rank, double kappa, double eig_rtol, int *finite)
{
  const int64_t NC = s->NC, B = s->B, ldg = s->cap;
  int st = SGP_OK;
  *finite = 1;
  s->dropped = 0;
  s->trace_KQ = 0.0;
  s->kq_valid = 1;
  s->root_lazy = 0;
  if (B == 0) { s->r = 0; s->unit = s->g_tri = 1; return SGP_OK; }
  int b_tried = 0;
  if (s->unit && !sgp_lik_multiclass(lik->kind) && (rank < 0 || rank >= B)) {
    int done = 0;
    if ((st = unit_root_in_g(ctx, s, nd, finite, &b_tried, &done)) || !*finite) return st;
    if (done) { /* as the Cholesky branch below */
      s->r = B;
      s->g_tri = 1;
      s->kq_valid = 0;
      s->root_lazy = 1;
      return SGP_OK;
    }
  }
  /* V2-V3: Y = T + W^{-1} S, M = S'Y symmetrized (a row gather when S = P_I) */
  if (s->unit && !sgp_lik_multiclass(lik->kind)) {
    /* S = P_I and W^{-1} diagonal: M = T[I, :] + diag(nd[I]), no NC x B pass */
    for (int64_t j = 0; j < B; j++) {
      for (int64_t i = 0; i < B; i++) s->M[i + j * ldg] = s->T[s->idx[i] + j * NC];
      s->M[j + j * ldg] += nd[s->idx[j]];
    }
  } else if ((st = m_from_actions(ctx, s, lik, nd))) {
    return st;
  }
  for (int64_t j = 0; j < B; j++)
    for (int64_t i = j; i < B; i++) {
      const double a = 0.5 * (s->M[i + j * ldg] + s->M[j + i * ldg]);
      if (!isfinite(a)) { *finite = 0; return SGP_OK; }
      s->M[i + j * ldg] = s->M[j + i * ldg] = a;
    }
  /* unit-vector buffers without truncation (the exact mode): Cholesky root,
   * K Q computed only when needed */
  if (s->unit && (rank < 0 || rank >= B)) {
    /* G's upper triangle is written when the root is formed (sgp_itergp_root) */
    if (cholesky_root(ctx, s, lik, nd, b_tried, &st)) {
      s->r = B;
      s->g_tri = 1;
      s->kq_valid = 0;
      s->root_lazy = 1;
      return SGP_OK;
    }
    if (st) return st;
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
    s->unit = s->g_tri = 1;
    return SGP_OK;
  }
  memset(s->G, 0, (size_t)(ldg * ldg) * sizeof(double));
  if (k < B) {
    /* V6 compression: S <- S U_k, T <- T U_k (U_k = top-k eigenvectors, descending);
     * U_k is gathered into Q's storage as a B-by-k block. */
    double *Uk = s->Q;
    if (s->unit) { /* S = P_I from idx (the direct exact path leaves S unwritten) */
      memset(s->S, 0, (size_t)(NC * B) * sizeof(double));
      for (int64_t j = 0; j < B; j++) s->S[s->idx[j] + j * NC] = 1.0;
    }
    for (int64_t l = 0; l < k; l++)
      memcpy(Uk + l * B, s->M + (B - 1 - l) * ldg, (size_t)B * sizeof(double));
    if (!s->kq_stored) {
      if ((st = rotate_in_place(ctx, s, s->S, Uk, k)) || (st = rotate_in_place(ctx, s, s->T, Uk, k)))
        return st;
    } else {
      if ((st = sgp_gemm(ctx, 'N', 'N', NC, k, B, 1.0, s->S, NC, Uk, B, 0.0, s->work, NC)))
        return st;
      memcpy(s->S, s->work, (size_t)(NC * k) * sizeof(double));
      if ((st = sgp_gemm(ctx, 'N', 'N', NC, k, B, 1.0, s->T, NC, Uk, B, 0.0, s->work, NC)))
        return st;
      memcpy(s->T, s->work, (size_t)(NC * k) * sizeof(double));
    }
    for (int64_t l = 0; l < k; l++) s->G[l + l * ldg] = 1.0 / sqrt(s->w[B - 1 - l]);
    s->B = k;
    s->unit = 0;   /* rotated actions */
    s->g_tri = 1;  /* diagonal */
  } else {
    for (int64_t l = 0; l < B; l++) {
      const double sc = 1.0 / sqrt(s->w[B - 1 - l]);
      for (int64_t i = 0; i < B; i++) s->G[i + l * ldg] = s->M[i + (B - 1 - l) * ldg] * sc;
    }
    s->g_tri = 0;
  }
  s->r = k;
  if ((st = form_root(ctx, s, k))) return st;
  s->kq_valid = 0;
  return sgp_itergp_kq(ctx, s);
}

int sgp_itergp_kq(sgp_ctx *ctx, sgp_itergp *s)
{
  const int64_t NC = s->NC, r = s->r;
  int st;
  if (s->kq_valid) return SGP_OK;
  if ((st = sgp_itergp_root(ctx, s))) return st;
  if (!s->kq_stored) { /* the trace only: T G a chunk of columns at a time */
    double tr = 0.0;
    for (int64_t l0 = 0; l0 < r; l0 += SGP_ITERGP_CHUNK) {
      const int64_t lb = r - l0 < SGP_ITERGP_CHUNK ? r - l0 : SGP_ITERGP_CHUNK;
      if ((st = sgp_gemm(ctx, 'N', 'N', NC, lb, s->B, 1.0, s->T, NC, s->G + l0 * s->cap, s->cap,
                         0.0, s->work, NC)))
        return st;
      for (int64_t i = 0; i < NC * lb; i++) tr += s->work[i] * s->work[i];
    }
    s->trace_KQ = tr;
    s->kq_valid = 1;
    return SGP_OK;
  }
  if (s->g_tri && s->B == r) { /* T G with G upper triangular: half the flops */
    memcpy(s->work, s->T, (size_t)(NC * r) * sizeof(double));
    if ((st = sgp_trmm(ctx, 'R', 'U', 'N', NC, r, 1.0, s->G, s->cap, s->work, NC))) return st;
  } else if ((st = sgp_gemm(ctx, 'N', 'N', NC, r, s->B, 1.0, s->T, NC, s->G, s->cap, 0.0,
                            s->work, NC))) {
    return st;
  }
  double tr = 0.0;
  for (int64_t i = 0; i < NC * r; i++) tr += s->work[i] * s->work[i];
  s->trace_KQ = tr;
  s->kq_valid = 1;
  return SGP_OK;
}

int sgp_itergp_reorth(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                      double *tmp)
{
  const int64_t NC = s->NC, r = s->r, ldg = s->cap;
  int st;
  if (r == 0) return SGP_OK;
  if (!s->kq_stored) return sgp_fail(ctx, SGP_EINVAL, "reorth: needs K Q stored");
  if ((st = sgp_itergp_kq(ctx, s))) return st; /* forms a lazy root too */
  /* E = (K Q)'Q + Q'W^{-1}Q into M (W^{-1} one column at a time: tmp is NC) */
  if ((st = sgp_gemm(ctx, 'T', 'N', r, r, NC, 1.0, s->work, NC, s->Q, NC, 0.0, s->M, ldg)))
    return st;
  for (int64_t l = 0; l < r; l++) {
    sgp_lik_winv(lik, nd, 1, s->Q + l * NC, tmp);
    if ((st = sgp_gemm(ctx, 'T', 'N', r, 1, NC, 1.0, s->Q, NC, tmp, NC, 1.0, s->M + l * ldg,
                       ldg)))
      return st;
  }
  for (int64_t j = 0; j < r; j++)
    for (int64_t i = j + 1; i < r; i++) {
      const double a = 0.5 * (s->M[i + j * ldg] + s->M[j + i * ldg]);
      if (!isfinite(a)) return SGP_OK;
      s->M[i + j * ldg] = s->M[j + i * ldg] = a;
    }
  int64_t minor = 0;
  if ((st = sgp_potrf_minor(ctx, r, s->M, ldg, &minor)) || minor) return st;
  if ((st = sgp_trtri(ctx, 'L', r, s->M, ldg))) return st;
  /* X <- X L^{-T} for X = Q, K Q, G (L^{-1} lower, in M) */
  if ((st = sgp_trmm(ctx, 'R', 'L', 'T', NC, r, 1.0, s->M, ldg, s->Q, NC))) return st;
  if ((st = sgp_trmm(ctx, 'R', 'L', 'T', NC, r, 1.0, s->M, ldg, s->work, NC))) return st;
  if ((st = sgp_trmm(ctx, 'R', 'L', 'T', s->B, r, 1.0, s->M, ldg, s->G, ldg))) return st;
  double tr = 0.0;
  for (int64_t i = 0; i < NC * r; i++) tr += s->work[i] * s->work[i];
  s->trace_KQ = tr;
  return SGP_OK;
}

int sgp_itergp_kq_exact(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                        double *rowsq, int *done)
{
  const int64_t NC = s->NC, B = s->B, ldg = s->cap;
  int st;
  *done = 0;
  if (!s->root_lazy || !s->unit || s->C != 1 || B != NC || s->r != B ||
      sgp_lik_multiclass(lik->kind)) {
    if ((st = sgp_itergp_root(ctx, s))) return st;
    return sgp_itergp_kq(ctx, s);
  }
  /* L (lower, in G) into M before the root overwrites G with L^{-T} */
  for (int64_t j = 0; j < B; j++)
    memcpy(s->M + j * ldg + j, s->G + j * ldg + j, (size_t)(B - j) * sizeof(double));
  if ((st = sgp_itergp_root(ctx, s))) return st;
  /* K P L^{-T} = P (L - D L^{-T}), D = P'W^{-1}P diagonal: row i of the permuted
   * product is L left of the diagonal, -d_i L^{-T} right of it (G = L^{-T} upper) */
  const int64_t *idx = s->idx;
  double *acc = s->work; /* NC sums in permuted order */
  memset(acc, 0, (size_t)B * sizeof(double));
  for (int64_t l = 0; l < B; l++) {
    const double *Lc = s->M + l * ldg, *Gc = s->G + l * ldg;
    for (int64_t i = 0; i < l; i++) {
      const double a = nd[idx[i]] * Gc[i];
      acc[i] += a * a;
    }
    const double dg = Lc[l] - nd[idx[l]] * Gc[l];
    acc[l] += dg * dg;
    for (int64_t i = l + 1; i < B; i++) acc[i] += Lc[i] * Lc[i];
  }
  for (int64_t i = 0; i < B; i++) rowsq[idx[i]] = acc[i];
  *done = 1;
  return SGP_OK;
}

int sgp_itergp_kq_axpy(sgp_ctx *ctx, sgp_itergp *s, double alpha, const double *w, double *y)
{
  const int64_t NC = s->NC, r = s->r;
  int st;
  if (r == 0) return SGP_OK;
  if (s->kq_stored) return sgp_gemm(ctx, 'N', 'N', NC, 1, r, alpha, s->work, NC, w, r, 1.0, y, NC);
  if ((st = sgp_gemm(ctx, 'N', 'N', s->B, 1, r, 1.0, s->G, s->cap, w, r, 0.0, s->wb, s->B)))
    return st;
  return sgp_gemm(ctx, 'N', 'N', NC, 1, s->B, alpha, s->T, NC, s->wb, s->B, 1.0, y, NC);
}

int sgp_itergp_kq_rowsq(sgp_ctx *ctx, sgp_itergp *s, double *rowsq)
{
  const int64_t NC = s->NC, r = s->r;
  int st;
  memset(rowsq, 0, (size_t)NC * sizeof(double));
  for (int64_t l0 = 0; l0 < r; l0 += s->kq_stored ? r : SGP_ITERGP_CHUNK) {
    const int64_t lb = s->kq_stored ? r : (r - l0 < SGP_ITERGP_CHUNK ? r - l0 : SGP_ITERGP_CHUNK);
    const double *kq = s->work + (s->kq_stored ? l0 * NC : 0);
    if (!s->kq_stored &&
        (st = sgp_gemm(ctx, 'N', 'N', NC, lb, s->B, 1.0, s->T, NC, s->G + l0 * s->cap, s->cap,
                       0.0, s->work, NC)))
      return st;
    for (int64_t l = 0; l < lb; l++) /* column by column (contiguous) */
      for (int64_t q = 0; q < NC; q++) rowsq[q] += kq[q + l * NC] * kq[q + l * NC];
  }
  return SGP_OK;
}
