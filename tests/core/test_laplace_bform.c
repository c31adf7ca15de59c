/* test_laplace_bform.c -- the exact mode's Cholesky through
 * B = I + W^1/2 K W^1/2 when W^-1 spreads over many decades, and the
 * cg policy with pivoted-Cholesky preconditioned actions (precond_rank),
 * against dense oracles written here: Rasmussen & Williams Alg. 3.1 for the mode
 * and the Galerkin projection on the preconditioned Krylov space for IterGP.
 * eps below is DBL_EPSILON; every tolerance is a multiple of n eps times the
 * condition number the computation depends on, measured here. */
#include "test_helpers.h"
#include "laplace/laplace.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#define N 40
static const double ELL = 0.2, S2 = 1.0;

/* Poisson counts on seeded points of [0, 1]; off: log exposure (masked: every
 * 8th point at -20, a cell almost outside the window, W^-1 ~ 5e8 there;
 * else a smooth spread of [-3, 3], W^-1 over e^6 at f = 0). */
typedef struct { double X[N], y[N], off[N]; } pois;

static void make_pois(pois *p, int masked, uint64_t seed)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, seed);
  for (int i = 0; i < N; i++) {
    p->X[i] = sgp_rng_uniform(&rng);
    p->off[i] = masked ? (i % 8 == 3 ? -20.0 : 0.0) : 3.0 * sin(9.0 * p->X[i]);
    const double lam = exp(2.0 * sin(6.283185307179586 * p->X[i]) + p->off[i]);
    double u = sgp_rng_uniform(&rng), pk = exp(-lam), cdf = pk; /* inversion */
    int k = 0;
    while (u > cdf && k < 200) { k++; pk *= lam / k; cdf += pk; }
    p->y[i] = k;
  }
}

static void opts_pois(const pois *p, sgp_laplace_opts *o)
{
  static const double zero = 0.0;
  sgp_laplace_opts_default(o);
  /* the cg policy at the paper's budget, the default before policy "auto" */
  o->policy = SGP_POLICY_CG;
  o->max_iter = 5;
  o->likelihood = SGP_LIK_POISSON;
  o->kernel.kind = SGP_KERNEL_RBF;
  o->kernel.lengthscale = &ELL;
  o->kernel.n_lengthscale = 1;
  o->kernel.outputscale = S2;
  o->offset = sgp_cmat_of(p->off, N, 1);
  o->mean = &zero;
  o->n_mean = 1;
  o->learn = 0;
  o->tile = 16;
}

static sgp_laplace_result *fit_pois(sgp_ctx *ctx, const pois *p, const sgp_laplace_opts *o)
{
  sgp_laplace_result *fit = NULL;
  if (sgp_laplace_fit(ctx, sgp_cmat_of(p->X, N, 1), sgp_cmat_of(p->y, N, 1),
                      sgp_cmat_of(NULL, 0, 0), o, &fit))
    fail_msg("sgp_laplace_fit: %s", ctx->errmsg);
  return fit;
}

static double *kmat(const pois *p)
{
  double *K = th_zeros(N * N);
  th_kernel_matrix(SGP_KERNEL_RBF, S2, &ELL, 1, p->X, N, p->X, N, 1, K);
  return K;
}

/* lambda_max / lambda_min of a symmetric n x n matrix (cyclic Jacobi). */
static double cond_sym(int64_t n, const double *A)
{
  double *w = th_zeros(n);
  th_jacobi_eig(n, A, w);
  const double k = w[n - 1] / w[0];
  free(w);
  return k;
}

/* R&W Alg. 3.1: the mode f (zero mean) by Newton with B = I + sW K sW; also
 * the variance diag(K - K sW B^-1 sW K) and cond(B) there. */
static void rw31_mode(const pois *p, const double *K, double *f, double *var, double *condB)
{
  double *B = th_zeros(N * N), *Kb = th_zeros(N), *t = th_zeros(N), *a = th_zeros(N),
         *sw = th_zeros(N), *b = th_zeros(N), *Z = th_zeros(N * N), *SK = th_zeros(N * N);
  memset(f, 0, N * sizeof(double));
  for (int it = 0; it < 200; it++) {
    for (int i = 0; i < N; i++) {
      const double w = exp(f[i] + p->off[i]);
      sw[i] = sqrt(w);
      b[i] = w * f[i] + (p->y[i] - w);
    }
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++) B[i + j * N] = (i == j) + sw[i] * K[i + j * N] * sw[j];
    th_matmul(N, 1, N, K, b, Kb);
    for (int i = 0; i < N; i++) Kb[i] *= sw[i];
    assert_int_equal(th_chol_solve(N, B, 1, Kb, t), 0); /* B^-1 sW K b */
    for (int i = 0; i < N; i++) a[i] = b[i] - sw[i] * t[i];
    double step = 0;
    th_matmul(N, 1, N, K, a, t);
    for (int i = 0; i < N; i++) { step = fmax(step, fabs(t[i] - f[i])); f[i] = t[i]; }
    if (step <= 1e-15 * (1.0 + th_max_abs(N, f))) break;
  }
  for (int i = 0; i < N; i++) sw[i] = sqrt(exp(f[i] + p->off[i]));
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      B[i + j * N] = (i == j) + sw[i] * K[i + j * N] * sw[j];
      SK[i + j * N] = sw[i] * K[i + j * N];
    }
  assert_int_equal(th_chol_solve(N, B, N, SK, Z), 0);
  for (int q = 0; q < N; q++) {
    double s = 0;
    for (int j = 0; j < N; j++) s += SK[j + q * N] * Z[j + q * N];
    var[q] = K[q + q * N] - s;
  }
  *condB = cond_sym(N, B);
  free(B); free(Kb); free(t); free(a); free(sw); free(b); free(Z); free(SK);
}

/* ------------------------------------------------------------ point 2: B form */

/* d over 12 decades: the old pivot test (K^'s pivots > 1e-8 of its largest
 * diagonal) rejects this K^; through B every pivot is >= 1 and L L' = K^ to
 * Cholesky's backward error |dA_ij| <= c n eps sqrt(A_ii A_jj) (c = 2 covers
 * the scaling by d^-1/2 and back). */
static void khat_cholesky_spread_noise(void **state)
{
  (void)state;
  pois p;
  make_pois(&p, 0, 7);
  double *K = kmat(&p), *A = th_zeros(N * N), *d = th_zeros(N), *s = th_zeros(N);
  for (int i = 0; i < N; i++) d[i] = pow(10.0, -3.0 + 12.0 * (double)(i % 5) / 4.0);
  assert_true(S2 + 1e-3 < 1e-8 * (S2 + 1e9)); /* a pivot <= its diagonal: the old test fails */
  for (int j = 0; j < N; j++)
    for (int i = j; i < N; i++) A[i + j * N] = K[i + j * N] + (i == j) * d[i];
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  int ok = 0;
  assert_int_equal(sgp_khat_cholesky(&ctx, N, A, N, d, NULL, s, &ok), SGP_OK);
  assert_int_equal(ok, 1);
  for (int i = 0; i < N; i++) assert_true(A[i + i * N] * A[i + i * N] / d[i] >= 1.0 - 1e-12);
  for (int j = 0; j < N; j++)
    for (int i = j; i < N; i++) {
      double s2 = 0;
      for (int k = 0; k <= j; k++) s2 += A[i + k * N] * A[j + k * N];
      const double ref = K[i + j * N] + (i == j) * d[i];
      const double bound = 2.0 * (N + 3) * DBL_EPSILON *
                           sqrt((K[i + i * N] + d[i]) * (K[j + j * N] + d[j]));
      assert_le(fabs(s2 - ref), bound);
    }
  free(K); free(A); free(d); free(s);
}

/* A unit-vector state of all N points (the exact mode after its first step)
 * and that spread of W^-1: the virtual run keeps the lazy Cholesky root (the
 * eigen path leaves root_lazy = 0 and costs a dsyevd of order N), and v = K^-1 b
 * from it is backward stable: |K^ v - b|_i <= c n eps sum_j sqrt(A_ii A_jj)|v_j|. */
static void virtual_run_keeps_cholesky_root(void **state)
{
  (void)state;
  pois p;
  make_pois(&p, 0, 8);
  double *K = kmat(&p), *nd = th_zeros(N), *b = th_zeros(N), *v = th_zeros(N),
         *wr = th_zeros(N), *r = th_zeros(N);
  for (int i = 0; i < N; i++) {
    nd[i] = pow(10.0, -3.0 + 12.0 * (double)((i * 7) % 5) / 4.0);
    b[i] = sin(3.0 * i);
  }
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_itergp it;
  assert_int_equal(sgp_itergp_init(&ctx, &it, N, 1, N), SGP_OK);
  for (int j = 0; j < N; j++) { /* actions in reverse order: T = K P */
    it.idx[j] = N - 1 - j;
    for (int i = 0; i < N; i++) it.T[i + j * N] = K[i + it.idx[j] * N];
  }
  it.B = it.r = N;
  it.unit = 1;
  sgp_lik lik;
  memset(&lik, 0, sizeof lik);
  lik.kind = SGP_LIK_POISSON;
  lik.n = N;
  lik.C = 1;
  int finite = 0;
  assert_int_equal(sgp_itergp_virtual(&ctx, &it, &lik, nd, -1, 0.0, 1e-12, &finite), SGP_OK);
  assert_int_equal(finite, 1);
  assert_int_equal(it.root_lazy, 1);
  assert_int_equal(it.dropped, 0);
  assert_int_equal(it.r, N);
  assert_int_equal(sgp_itergp_project(&ctx, &it, b, v, wr), SGP_OK);
  th_matmul(N, 1, N, K, v, r);
  for (int i = 0; i < N; i++) {
    double bound = 0;
    for (int j = 0; j < N; j++)
      bound += sqrt((K[i + i * N] + nd[i]) * (K[j + j * N] + nd[j])) * fabs(v[j]);
    assert_le(fabs(r[i] + nd[i] * v[i] - b[i]), 4.0 * (N + 3) * DBL_EPSILON * bound);
  }
  sgp_itergp_free(&it);
  free(K); free(nd); free(b); free(v); free(wr); free(r);
}

/* A full budget (max_iter = N) of the policy (precond_rank for cg) converges to
 * R&W Alg. 3.1's mode and variance. Both solve with B, whose cond(B) (measured
 * at the mode) bounds the rounding: |df| <= tol + c n eps cond(B) (1 + max|f|)
 * with the fit's mode bound tol; the variance moves with W = exp(f) by the same
 * relative amount times s2. */
static void full_budget_is_rw31(const pois *p, sgp_policy policy, int precond_rank)
{
  double *K = kmat(p), *f = th_zeros(N), *var = th_zeros(N), condB = 0;
  rw31_mode(p, K, f, var, &condB);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_opts o;
  opts_pois(p, &o);
  o.policy = policy;
  o.precond_rank = precond_rank;
  o.max_iter = N;
  o.max_newton = 60;
  o.tol = 1e-9;
  sgp_laplace_result *fit = fit_pois(&ctx, p, &o);
  assert_int_equal(fit->converged, 1);
  const double tol = o.tol + 10.0 * N * DBL_EPSILON * condB * (1.0 + th_max_abs(N, f));
  assert_le(th_max_abs_diff(N, fit->f, f), tol);
  assert_le(th_max_abs_diff(N, fit->var, var), tol * S2);
  sgp_laplace_fit_free(fit);
  free(K); free(f); free(var);
}

/* The exact mode (unit policy, full budget) with masked cells: W^-1 from about
 * 0.1 to 5e8 at the mode, the regime of the old eigen fallback. */
static void exact_mode_with_masked_cells_is_rw31(void **state)
{
  (void)state;
  pois p;
  make_pois(&p, 1, 9);
  double *K = kmat(&p), *f = th_zeros(N), *var = th_zeros(N), condB = 0;
  rw31_mode(&p, K, f, var, &condB);
  double ndmin = INFINITY, ndmax = 0;
  for (int i = 0; i < N; i++) {
    const double nd = exp(-(f[i] + p.off[i]));
    ndmin = fmin(ndmin, nd);
    ndmax = fmax(ndmax, nd);
  }
  assert_true(S2 + ndmin < 1e-8 * ndmax);
  free(K); free(f); free(var);
  full_budget_is_rw31(&p, SGP_POLICY_CHOLESKY, 0);
}

/* ------------------------------------------------------------ point 3: precond_rank */

/* F F' ~ K: pivoted Cholesky, the largest remaining diagonal first (first index
 * on ties), until rank columns or a diagonal <= 1e-4 s2; returns the columns. */
static int pivchol(const double *K, int rank, double *F)
{
  double dg[N];
  for (int i = 0; i < N; i++) dg[i] = K[i + i * N];
  int k = 0;
  for (; k < rank; k++) {
    int piv = 0;
    for (int i = 1; i < N; i++) if (dg[i] > dg[piv]) piv = i;
    if (!(dg[piv] > 1e-4 * S2)) break;
    const double rr = sqrt(dg[piv]);
    for (int i = 0; i < N; i++) {
      double s = K[i + piv * N];
      for (int c = 0; c < k; c++) s -= F[i + c * N] * F[piv + c * N];
      F[i + k * N] = s / rr;
    }
    for (int i = 0; i < N; i++) dg[i] = fmax(dg[i] - F[i + k * N] * F[i + k * N], 0.0);
    dg[piv] = 0.0;
  }
  return k;
}

/* One preconditioned-cg solve at f = 0 (max_newton 1, no damping: v is the
 * solver's): after j actions IterGP is the Galerkin projection on
 * span(S) = K_j(P^-1 K^, P^-1 b), P = F F' + W^-1: v = S (S'K^S)^-1 S'b and
 * var = s2 - diag(K S (S'K^S)^-1 S'K). The oracle's S: that Krylov space by
 * Arnoldi (two Gram-Schmidt passes). Rounding: both sides solve with K^ on a
 * well-conditioned basis, so the differences are c n eps cond(K^) (measured;
 * the span itself to that times the Arnoldi cancellations u0 / |u| multiplied
 * over the steps, since each direction is computed from the previous one).
 * Also C K^ S = S for C = Q Q' (the fit's root; its error is E = Q'K^Q - I
 * carried through cond(Q) <= cond(K^)^1/2), and, with that root, the
 * computational variance is >= the exact one (C <= K^-1), both to the
 * deviation of Q'K^Q from I that the fit's root has (c n eps cond(K^)). */
static void precond_actions_are_galerkin_on_pcg_krylov(void **state)
{
  (void)state;
  pois p;
  make_pois(&p, 0, 10);
  const int rank = 6;
  double *K = kmat(&p), *F = th_zeros(N * rank), *P = th_zeros(N * N), *Kh = th_zeros(N * N),
         *S = th_zeros(N * 8), *b = th_zeros(N), *t = th_zeros(N), *u = th_zeros(N),
         *Z = th_zeros(N * N);
  const int k = pivchol(K, rank, F);
  assert_int_equal(k, rank);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) {
      double s = 0;
      for (int c = 0; c < k; c++) s += F[i + c * N] * F[j + c * N];
      const double nd = i == j ? exp(-p.off[i]) : 0.0; /* W^-1 at f = 0 */
      P[i + j * N] = s + nd;
      Kh[i + j * N] = K[i + j * N] + nd;
    }
  for (int i = 0; i < N; i++) b[i] = exp(-p.off[i]) * (p.y[i] - exp(p.off[i]));
  const double ck = cond_sym(N, Kh), tol = 100.0 * N * DBL_EPSILON * ck;
  /* the exact posterior variance at this W: diag(K - K K^-1 K) */
  assert_int_equal(th_chol_solve(N, Kh, N, K, Z), 0);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_opts o;
  opts_pois(&p, &o);
  o.max_newton = 1;
  o.damping = 0;
  o.precond_rank = rank;
  o.inner_atol = o.inner_rtol = 0.0;
  double amp = 1.0;
  for (int j = 1; j <= 6; j++) {
    /* Arnoldi: S[:, j-1] from P^-1 b or P^-1 K^ S[:, j-2] */
    if (j == 1) memcpy(t, b, N * sizeof(double));
    else th_matmul(N, 1, N, Kh, S + (j - 2) * N, t);
    assert_int_equal(th_chol_solve(N, P, 1, t, u), 0);
    amp *= th_orthonormal_append(N, j - 1, S, u); /* each direction inherits its
                                                    * predecessor's error */
    o.max_iter = j;
    sgp_laplace_result *fit = fit_pois(&ctx, &p, &o);
    assert_int_equal(fit->r, j);
    for (int i = 0; i < N; i++) assert_close(fit->noise_data[i], exp(-p.off[i]), 1e-15 * exp(3.0));
    /* Galerkin oracle: M = S'K^S, v = S M^-1 S'b, var = s2 - diag(K S M^-1 S'K) */
    double M[64], vref[N], *KhS = th_zeros(N * j), *KS = th_zeros(N * j), *Y = th_zeros(j * N);
    assert_int_equal(th_galerkin(N, j, S, Kh, b, KhS, M, vref), 0);
    th_matmul(N, j, N, K, S, KS);
    assert_le(th_max_abs_diff(N, fit->weights, vref), tol * th_max_abs(N, vref));
    double KSt[8 * N];
    for (int c = 0; c < j; c++)
      for (int i = 0; i < N; i++) KSt[c + i * j] = KS[i + c * N];
    assert_int_equal(th_chol_solve(j, M, N, KSt, Y), 0);
    /* the root: E = Q'K^Q - I, C K^ S = S with C = Q Q' */
    const double *Q = fit->root;
    double emax = 0;
    for (int c = 0; c < j; c++) {
      th_matmul(N, 1, N, Kh, Q + c * N, t);
      for (int e = 0; e < j; e++) emax = fmax(emax, fabs(sgp_dot(N, Q + e * N, t) - (c == e)));
    }
    assert_le(emax, tol);
    for (int c = 0; c < j; c++) { /* C K^ S[:, c] = Q (Q' K^ S[:, c]) */
      double qk[8];
      for (int e = 0; e < j; e++) qk[e] = sgp_dot(N, Q + e * N, KhS + c * N);
      for (int i = 0; i < N; i++) {
        double s = 0;
        for (int e = 0; e < j; e++) s += Q[i + e * N] * qk[e];
        /* S = Q G: C K^ S - S = Q E G, |Q E G| <= j |E|max cond(Q) <= j |E|max
         * cond(K^)^1/2; and span(S) is the fit's to the Krylov space's rounding,
         * tol amplified by the Arnoldi cancellations amp */
        assert_le(fabs(s - S[i + c * N]), j * emax * sqrt(ck) + amp * tol);
      }
    }
    for (int i = 0; i < N; i++) {
      double s = 0, sx = 0;
      for (int c = 0; c < j; c++) s += KS[i + c * N] * Y[c + i * j];
      for (int l = 0; l < N; l++) sx += K[l + i * N] * Z[l + i * N];
      assert_le(fabs(fit->var[i] - (S2 - s)), 2.0 * amp * tol * S2); /* quadratic in S */
      /* IterGP: computational variance >= the exact posterior's, to rounding */
      assert_true(fit->var[i] >= S2 - sx - (j * emax + tol) * S2);
    }
    free(KhS); free(KS); free(Y);
    sgp_laplace_fit_free(fit);
  }
  free(K); free(F); free(P); free(Kh); free(S); free(b); free(t); free(u); free(Z);
}

/* At the full budget the preconditioned policy's posterior is the exact Laplace
 * one (R&W Alg. 3.1's mode and variance). */
static void precond_full_budget_is_exact(void **state)
{
  (void)state;
  pois p;
  make_pois(&p, 0, 11);
  full_budget_is_rw31(&p, SGP_POLICY_CG, 8);
}

/* precond_rank: softmax (W^-1 not diagonal) and negative ranks are refused. */
static void precond_rank_checks(void **state)
{
  (void)state;
  pois p;
  make_pois(&p, 0, 12);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_opts o;
  opts_pois(&p, &o);
  o.offset = sgp_cmat_of(NULL, 0, 0);
  o.likelihood = SGP_LIK_SOFTMAX;
  o.precond_rank = 4;
  for (int i = 0; i < N; i++) p.y[i] = 1 + (i % 2);
  sgp_laplace_result *fit = NULL;
  assert_int_equal(sgp_laplace_fit(&ctx, sgp_cmat_of(p.X, N, 1), sgp_cmat_of(p.y, N, 1),
                                   sgp_cmat_of(NULL, 0, 0), &o, &fit), SGP_EINVAL);
  assert_contains(ctx.errmsg, "precond_rank");
  assert_null(fit);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(khat_cholesky_spread_noise),
    cmocka_unit_test(virtual_run_keeps_cholesky_root),
    cmocka_unit_test(exact_mode_with_masked_cells_is_rw31),
    cmocka_unit_test(precond_actions_are_galerkin_on_pcg_krylov),
    cmocka_unit_test(precond_full_budget_is_exact),
    cmocka_unit_test(precond_rank_checks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
