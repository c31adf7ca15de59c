/* test_helpers.c -- independent dense oracles for the core unit tests (plain
 * loops and libm; no BLAS/LAPACK and no core code besides the RNG). */
#include "test_helpers.h"

#include <stdlib.h>
#include <string.h>

double *th_zeros(int64_t n)
{
  double *p = (double *)calloc((size_t)(n > 0 ? n : 1), sizeof(double));
  assert_non_null(p);
  return p;
}

void th_randn(sgp_rng *rng, int64_t n, double *x, double scale, double offset)
{
  for (int64_t i = 0; i < n; i++) x[i] = offset + scale * sgp_rng_normal(rng);
}

double th_kernel_of_r(sgp_kernel_kind kind, double s2, double r)
{
  switch (kind) {
  case SGP_KERNEL_RBF: return s2 * exp(-0.5 * r * r);
  case SGP_KERNEL_MATERN12: return s2 * exp(-r);
  case SGP_KERNEL_MATERN32: return s2 * (1.0 + sqrt(3.0) * r) * exp(-sqrt(3.0) * r);
  case SGP_KERNEL_MATERN52:
    return s2 * (1.0 + sqrt(5.0) * r + 5.0 * r * r / 3.0) * exp(-sqrt(5.0) * r);

  case SGP_KERNEL_RQ: break; /* alpha not here: NaN */
  case SGP_KERNEL_COUNT: break;
  }
  return NAN;
}

void th_kernel_matrix(sgp_kernel_kind kind, double s2, const double *ell, int64_t nell,
                      const double *X1, int64_t n1, const double *X2, int64_t n2, int64_t d,
                      double *K)
{
  for (int64_t j = 0; j < n2; j++)
    for (int64_t i = 0; i < n1; i++) {
      double r2 = 0.0;
      for (int64_t l = 0; l < d; l++) {
        const double diff = (X1[i + l * n1] - X2[j + l * n2]) / ell[nell == 1 ? 0 : l];
        r2 += diff * diff;
      }
      K[i + j * n1] = th_kernel_of_r(kind, s2, sqrt(r2));
    }
}

void th_matmul(int64_t m, int64_t n, int64_t k, const double *A, const double *B, double *C)
{
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < m; i++) {
      double s = 0.0;
      for (int64_t l = 0; l < k; l++) s += A[i + l * m] * B[l + j * k];
      C[i + j * m] = s;
    }
}

double th_max_abs(int64_t n, const double *a)
{
  double m = 0.0;
  for (int64_t i = 0; i < n; i++) {
    if (isnan(a[i])) return NAN;
    if (fabs(a[i]) > m) m = fabs(a[i]);
  }
  return m;
}

double th_max_abs_diff(int64_t n, const double *a, const double *b)
{
  double m = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double e = fabs(a[i] - b[i]);
    if (isnan(e)) return NAN;
    if (e > m) m = e;
  }
  return m;
}

double th_rel_max(int64_t n, const double *a, const double *b)
{
  const double s = th_max_abs(n, b), e = th_max_abs_diff(n, a, b);
  return s > 0 ? e / s : e;
}

void th_random_spd(sgp_rng *rng, int64_t n, double shift, double *A)
{
  double *G = th_zeros(n * n);
  th_randn(rng, n * n, G, 1.0, 0.0);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      double s = 0.0;
      for (int64_t l = 0; l < n; l++) s += G[i + l * n] * G[j + l * n];
      A[i + j * n] = s / (double)n + (i == j ? shift : 0.0);
    }
  free(G);
}

int th_chol_solve(int64_t n, const double *A, int64_t nrhs, const double *B, double *X)
{
  double *L = th_zeros(n * n);
  for (int64_t j = 0; j < n; j++) {
    double s = A[j + j * n];
    for (int64_t l = 0; l < j; l++) s -= L[j + l * n] * L[j + l * n];
    if (!(s > 0)) { free(L); return -1; }
    L[j + j * n] = sqrt(s);
    for (int64_t i = j + 1; i < n; i++) {
      double t = A[i + j * n];
      for (int64_t l = 0; l < j; l++) t -= L[i + l * n] * L[j + l * n];
      L[i + j * n] = t / L[j + j * n];
    }
  }
  for (int64_t c = 0; c < nrhs; c++) {
    double *x = X + c * n;
    for (int64_t i = 0; i < n; i++) { /* L y = b */
      double s = B[i + c * n];
      for (int64_t l = 0; l < i; l++) s -= L[i + l * n] * x[l];
      x[i] = s / L[i + i * n];
    }
    for (int64_t i = n - 1; i >= 0; i--) { /* L' x = y */
      double s = x[i];
      for (int64_t l = i + 1; l < n; l++) s -= L[l + i * n] * x[l];
      x[i] = s / L[i + i * n];
    }
  }
  free(L);
  return 0;
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void th_jacobi_eig(int64_t n, const double *A0, double *w)
{
  double *A = th_zeros(n * n);
  memcpy(A, A0, (size_t)(n * n) * sizeof(double));
  for (int sweep = 0; sweep < 100; sweep++) {
    double off = 0.0, tot = 0.0;
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < n; i++) {
        tot += A[i + j * n] * A[i + j * n];
        if (i != j) off += A[i + j * n] * A[i + j * n];
      }
    if (off <= 1e-30 * tot) break;
    for (int64_t p = 0; p < n - 1; p++)
      for (int64_t q = p + 1; q < n; q++) {
        const double apq = A[p + q * n];
        if (apq == 0.0) continue;
        /* Rotation zeroing A[p,q] (Golub & Van Loan, sym.schur2). */
        const double tau = (A[q + q * n] - A[p + p * n]) / (2.0 * apq);
        const double t = (tau >= 0 ? 1.0 : -1.0) / (fabs(tau) + sqrt(1.0 + tau * tau));
        const double c = 1.0 / sqrt(1.0 + t * t), s = t * c;
        for (int64_t k = 0; k < n; k++) { /* columns p, q */
          const double akp = A[k + p * n], akq = A[k + q * n];
          A[k + p * n] = c * akp - s * akq;
          A[k + q * n] = s * akp + c * akq;
        }
        for (int64_t k = 0; k < n; k++) { /* rows p, q */
          const double apk = A[p + k * n], aqk = A[q + k * n];
          A[p + k * n] = c * apk - s * aqk;
          A[q + k * n] = s * apk + c * aqk;
        }
      }
  }
  for (int64_t i = 0; i < n; i++) w[i] = A[i + i * n];
  qsort(w, (size_t)n, sizeof(double), cmp_double);
  free(A);
}

sgp_ski_grid th_ski_grid(int d, const int64_t *m, const double *lo, const double *h)
{
  sgp_ski_grid g;
  memset(&g, 0, sizeof g);
  g.d = d;
  for (int j = 0; j < SGP_SKI_MAX_D; j++) {
    g.m[j] = j < d ? m[j] : 1;
    g.lo[j] = j < d ? lo[j] : 0.0;
    g.h[j] = j < d ? h[j] : 1.0;
  }
  return g;
}

double *th_ski_dense_W(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                       sgp_ski_bounds_policy policy, const double *X, int64_t n)
{
  const int64_t m = sgp_ski_grid_npoints(g), T = sgp_ski_interp_taps(interp, g->d);
  int64_t *idx = (int64_t *)malloc((size_t)(n * T) * sizeof(int64_t));
  double *w = th_zeros(n * T), *W = th_zeros(n * m);
  assert_non_null(idx);
  assert_int_equal(sgp_ski_interp(ctx, g, interp, policy, sgp_cmat_of(X, n, g->d), 0, idx, w),
                   SGP_OK);
  for (int64_t i = 0; i < n; i++)
    for (int64_t t = 0; t < T; t++)
      if (idx[i * T + t] >= 0) W[i + idx[i * T + t] * n] += w[i * T + t];
  free(idx);
  free(w);
  return W;
}

void th_ski_data(sgp_rng *rng, const sgp_ski_grid *g, sgp_ski_interpolation interp, int64_t n,
                 double out, double *X, double *y)
{
  const double t0 = interp == SGP_SKI_CUBIC ? 1.0 : 0.0;
  for (int j = 0; j < g->d; j++) {
    const double t1 = interp == SGP_SKI_CUBIC ? (double)g->m[j] - 2 : (double)g->m[j] - 1;
    for (int64_t i = 0; i < n; i++) {
      const double t = t0 - out + (t1 - t0 + 2 * out) * sgp_rng_uniform(rng);
      X[i + j * n] = g->lo[j] + t * g->h[j];
    }
  }
  for (int64_t i = 0; i < n; i++) {
    double f = 0.3;
    for (int j = 0; j < g->d; j++) f += sin((2.0 + j) * X[i + j * n]);
    y[i] = f + 0.2 * sgp_rng_normal(rng);
  }
}

int th_ski_stats_same_bits(const sgp_ski_stats *a, const sgp_ski_stats *b)
{
  return a->n == b->n && a->yy == b->yy && a->ysum == b->ysum && a->S == b->S && a->m == b->m &&
         !memcmp(a->D, b->D, (size_t)(a->S * a->m) * sizeof(double)) &&
         !memcmp(a->uy, b->uy, (size_t)a->m * sizeof(double)) &&
         !memcmp(a->u1, b->u1, (size_t)a->m * sizeof(double));
}

void th_ski_p2_init(th_ski_p2 *p)
{
  memset(p, 0, sizeof *p);
  sgp_ctx_init(&p->ctx);
  p->ctx.nthreads = 2;
  memset(&p->g, 0, sizeof p->g);
  p->g.d = 2;
  for (int j = 0; j < SGP_SKI_MAX_D; j++) { p->g.m[j] = 1; p->g.h[j] = 1.0; }
  p->g.m[0] = 12; p->g.m[1] = 10;
  p->g.h[0] = p->g.h[1] = 0.25;
  p->ell[0] = 0.6; p->ell[1] = 0.8;
  p->k.kind = SGP_KERNEL_RBF;
  p->k.lengthscale = p->ell;
  p->k.n_lengthscale = 2;
  p->k.outputscale = 1.3;
  p->noise = 0.5;
  const int64_t n = 400, m = 120, nt = 50;
  p->n = n; p->m = m; p->nt = nt;
  sgp_rng rng;
  sgp_rng_seed(&rng, 2021);
  p->X = th_zeros(n * 2); p->y = th_zeros(n); p->Xt = th_zeros(nt * 2);
  for (int j = 0; j < 2; j++) {
    const double hi = (double)(p->g.m[j] - 2) * 0.25, lo = 0.25;
    for (int64_t i = 0; i < n; i++) p->X[i + j * n] = lo + (hi - lo) * sgp_rng_uniform(&rng);
    for (int64_t i = 0; i < nt; i++) p->Xt[i + j * nt] = lo + (hi - lo) * sgp_rng_uniform(&rng);
  }
  for (int64_t i = 0; i < n; i++)
    p->y[i] = sin(3 * p->X[i]) * cos(2 * p->X[i + n]) + 0.2 * sgp_rng_normal(&rng);
  /* dense oracles */
  p->W = th_ski_dense_W(&p->ctx, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, p->X, n);
  p->Wt = th_ski_dense_W(&p->ctx, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, p->Xt, nt);
  double *P = th_zeros(m * 2);
  assert_int_equal(sgp_ski_grid_points(&p->ctx, &p->g, sgp_mat_of(P, m, 2)), SGP_OK);
  p->KG = th_zeros(m * m);
  th_kernel_matrix(SGP_KERNEL_RBF, 1.3, p->ell, 2, P, m, P, m, 2, p->KG);
  free(P);
  double *WK = th_zeros(n * m), *WT = th_zeros(m * n);
  th_matmul(n, m, m, p->W, p->KG, WK);
  for (int64_t i = 0; i < n; i++)
    for (int64_t a = 0; a < m; a++) WT[a + i * m] = p->W[i + a * n];
  p->A = th_zeros(n * n);
  th_matmul(n, n, m, WK, WT, p->A);
  for (int64_t i = 0; i < n; i++) p->A[i + i * n] += p->noise;
  double *z = th_zeros(n), *u = th_zeros(m);
  assert_int_equal(th_chol_solve(n, p->A, 1, p->y, z), 0);
  th_matmul(m, 1, n, WT, z, u);
  p->a_ref = th_zeros(m);
  th_matmul(m, 1, m, p->KG, u, p->a_ref);
  p->mean_ref = th_zeros(nt);
  th_matmul(nt, 1, m, p->Wt, p->a_ref, p->mean_ref);
  free(WK); free(WT); free(z); free(u);
  /* operators and statistics */
  assert_int_equal(sgp_ski_grid_op(&p->ctx, &p->k, &p->g, NULL, &p->kg), SGP_OK);
  assert_int_equal(sgp_ski_op_ski(&p->ctx, &p->k, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                  sgp_cmat_of(p->X, n, 2), p->noise, &p->kg, &p->ski), SGP_OK);
  assert_int_equal(sgp_ski_stats_create(&p->ctx, &p->g, SGP_SKI_CUBIC, &p->st), SGP_OK);
  assert_int_equal(sgp_ski_stats_accumulate(&p->ctx, p->st, sgp_cmat_of(p->X, n, 2),
                                            sgp_cmat_of(p->y, n, 1), 0, SGP_SKI_BOUNDS_ERROR),
                   SGP_OK);
}

th_ski_p2 *th_ski_p2_new(void)
{
  th_ski_p2 *p = (th_ski_p2 *)malloc(sizeof *p);
  assert_non_null(p);
  th_ski_p2_init(p);
  return p;
}

void th_ski_p2_release(th_ski_p2 *p)
{
  sgp_op_destroy(&p->ski);
  sgp_op_destroy(&p->kg);
  sgp_ski_stats_free(p->st);
  free(p->X); free(p->y); free(p->Xt); free(p->W); free(p->Wt); free(p->KG); free(p->A);
  free(p->a_ref); free(p->mean_ref);
}

void th_ski_p2_free(th_ski_p2 *p)
{
  th_ski_p2_release(p);
  free(p);
}

double th_orthonormal_append(int64_t n, int64_t k, double *S, double *u)
{
  const double u0 = sgp_nrm2(n, u);
  for (int pass = 0; pass < 2; pass++)
    for (int64_t l = 0; l < k; l++) {
      const double h = sgp_dot(n, S + l * n, u);
      for (int64_t i = 0; i < n; i++) u[i] -= h * S[i + l * n];
    }
  const double un = sgp_nrm2(n, u);
  for (int64_t i = 0; i < n; i++) S[i + k * n] = u[i] / un;
  return u0 / un;
}

int th_galerkin(int64_t n, int64_t k, const double *S, const double *Kh, const double *b,
                double *KhS, double *M, double *v)
{
  double *sb = th_zeros(k), *y = th_zeros(k);
  th_matmul(n, k, n, Kh, S, KhS);
  for (int64_t c = 0; c < k; c++) {
    sb[c] = sgp_dot(n, S + c * n, b);
    for (int64_t e = 0; e < k; e++) M[e + c * k] = sgp_dot(n, S + e * n, KhS + c * n);
  }
  const int st = th_chol_solve(k, M, 1, sb, y);
  if (!st) th_matmul(n, 1, k, S, y, v);
  free(sb); free(y);
  return st;
}
