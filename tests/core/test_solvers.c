/* test_solvers.c -- block CG (sgp_cg), Lanczos (sgp_lanczos) and the
 * tridiagonal eigensolver (sgp_tridiag_eig).
 * Oracles: a naive Cholesky solve (th_chol_solve), cyclic Jacobi eigenvalues
 * (th_jacobi_eig) and plain-loop products, all in test_helpers.c; matrices come
 * from the naive kernel oracle or from G G'/n + shift I. */
#include "test_helpers.h"

#include <stdlib.h>

/* max |X - Xref| / max |Xref| */
static double rel_err(int64_t len, const double *X, const double *Xref)
{
  return th_max_abs_diff(len, X, Xref) / th_max_abs(len, Xref);
}

/* ------------------------------------------------------------ CG */

/* K + 0.1 I on 60 random points in 2-d (naive oracle) and the same operator
 * through sgp_op_dense_kernel (matrix-free). */
typedef struct {
  int64_t n;
  double X[120], ell, *A;
  sgp_kernel k;
  sgp_op op;
  sgp_ctx ctx;
} kernel_problem;

static int kernel_setup(void **state)
{
  kernel_problem *p = (kernel_problem *)calloc(1, sizeof *p);
  if (!p) return -1;
  p->n = 60;
  sgp_ctx_init(&p->ctx);
  sgp_ctx_set_seed(&p->ctx, 2);
  th_randn(&p->ctx.rng, 120, p->X, 1.0, 0.0);
  p->ell = 0.8;
  p->k = (sgp_kernel){SGP_KERNEL_RBF, &p->ell, 1, 1.5, 1.0};
  p->A = th_zeros(p->n * p->n);
  th_kernel_matrix(p->k.kind, p->k.outputscale, &p->ell, 1, p->X, p->n, p->X, p->n, 2, p->A);
  for (int64_t i = 0; i < p->n; i++) p->A[i + i * p->n] += 0.1;
  sgp_dense_op_opts o;
  sgp_dense_op_opts_default(&o);
  o.shift = 0.1;
  o.tile = 16;
  if (sgp_op_dense_kernel(&p->ctx, &p->k, sgp_cmat_of(p->X, p->n, 2), &o, &p->op, NULL)) return -1;
  *state = p;
  return 0;
}

static int kernel_teardown(void **state)
{
  kernel_problem *p = (kernel_problem *)*state;
  sgp_op_destroy(&p->op);
  free(p->A);
  free(p);
  return 0;
}

static void cg_kernel_operator_matches_cholesky(void **state)
{
  kernel_problem *p = (kernel_problem *)*state;
  const int64_t n = p->n, nb = 3;
  double *B = th_zeros(n * nb), *X = th_zeros(n * nb), *Xref = th_zeros(n * nb);
  th_randn(&p->ctx.rng, n * nb, B, 1.0, 0.0);
  assert_int_equal(th_chol_solve(n, p->A, nb, B, Xref), 0);
  sgp_cg_opts o;
  sgp_cg_opts_default(&o);
  assert_int_equal(o.max_iter, 0);
  assert_close(o.tol, 1e-8, 0.0);
  assert_null(o.precond);
  o.tol = 1e-12; /* cond(A) ~ 1e3: the solution is then good to ~1e-9 */
  sgp_cg_info info;
  assert_int_equal(sgp_cg(&p->ctx, &p->op, sgp_cmat_of(B, n, nb), sgp_mat_of(X, n, nb), &o, &info,
                          NULL, NULL), SGP_OK);
  assert_int_equal(info.converged, 1);
  assert_true(info.iterations >= 1 && info.iterations <= n);
  assert_le(info.max_rel_residual, 1e-12);
  assert_le(rel_err(n * nb, X, Xref), 1e-8);
  /* a nonzero initial guess converges to the same solution */
  th_randn(&p->ctx.rng, n * nb, X, 3.0, 1.0);
  assert_int_equal(sgp_cg(&p->ctx, &p->op, sgp_cmat_of(B, n, nb), sgp_mat_of(X, n, nb), &o, &info,
                          NULL, NULL), SGP_OK);
  assert_int_equal(info.converged, 1);
  assert_le(rel_err(n * nb, X, Xref), 1e-8);
  /* the exact solution as initial guess takes (almost) no iterations */
  memcpy(X, Xref, (size_t)(n * nb) * sizeof(double));
  o.tol = 1e-8;
  assert_int_equal(sgp_cg(&p->ctx, &p->op, sgp_cmat_of(B, n, nb), sgp_mat_of(X, n, nb), &o, &info,
                          NULL, NULL), SGP_OK);
  assert_int_equal(info.converged, 1);
  assert_int_equal(info.iterations, 0);
  free(B); free(X); free(Xref);
}

static void cg_matrix_operator_matches_cholesky(void **state)
{
  (void)state;
  const int64_t n = 50, nb = 2;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double *A = th_zeros(n * n), *B = th_zeros(n * nb), *X = th_zeros(n * nb), *Xref = th_zeros(n * nb);
  th_random_spd(&ctx.rng, n, 0.5, A);
  th_randn(&ctx.rng, n * nb, B, 1.0, 0.0);
  assert_int_equal(th_chol_solve(n, A, nb, B, Xref), 0);
  sgp_op op;
  assert_int_equal(sgp_op_matrix(&ctx, sgp_cmat_of(A, n, n), &op), SGP_OK);
  sgp_cg_opts o;
  sgp_cg_opts_default(&o);
  o.tol = 1e-12;
  sgp_cg_info info;
  assert_int_equal(sgp_cg(&ctx, &op, sgp_cmat_of(B, n, nb), sgp_mat_of(X, n, nb), &o, &info, NULL,
                          NULL), SGP_OK);
  assert_int_equal(info.converged, 1);
  assert_true(info.iterations <= n);
  assert_le(rel_err(n * nb, X, Xref), 1e-8);
  /* with an exact inverse as preconditioner one iteration suffices */
  double *Ainv = th_zeros(n * n), *I = th_zeros(n * n);
  for (int64_t i = 0; i < n; i++) I[i + i * n] = 1.0;
  assert_int_equal(th_chol_solve(n, A, n, I, Ainv), 0);
  sgp_op pre;
  assert_int_equal(sgp_op_matrix(&ctx, sgp_cmat_of(Ainv, n, n), &pre), SGP_OK);
  o.precond = &pre;
  o.tol = 1e-10;
  memset(X, 0, (size_t)(n * nb) * sizeof(double));
  assert_int_equal(sgp_cg(&ctx, &op, sgp_cmat_of(B, n, nb), sgp_mat_of(X, n, nb), &o, &info, NULL,
                          NULL), SGP_OK);
  assert_int_equal(info.converged, 1);
  assert_true(info.iterations <= 2);
  assert_le(rel_err(n * nb, X, Xref), 1e-8);
  sgp_op_destroy(&pre);
  sgp_op_destroy(&op);
  free(A); free(B); free(X); free(Xref); free(Ainv); free(I);
}

/* A zero right-hand side column has the solution zero, whatever the initial guess. */
static void cg_zero_rhs_column_gives_zero_solution(void **state)
{
  kernel_problem *p = (kernel_problem *)*state;
  const int64_t n = p->n, nb = 3;
  double *B = th_zeros(n * nb), *X = th_zeros(n * nb), *Xref = th_zeros(n * nb);
  th_randn(&p->ctx.rng, n * nb, B, 1.0, 0.0);
  for (int64_t i = 0; i < n; i++) B[i + 1 * n] = 0.0;
  assert_int_equal(th_chol_solve(n, p->A, nb, B, Xref), 0);
  sgp_cg_opts o;
  sgp_cg_opts_default(&o);
  o.tol = 1e-12;
  sgp_cg_info info;
  for (int guess = 0; guess < 2; guess++) {
    if (guess) th_randn(&p->ctx.rng, n * nb, X, 1.0, 0.0);
    else memset(X, 0, (size_t)(n * nb) * sizeof(double));
    assert_int_equal(sgp_cg(&p->ctx, &p->op, sgp_cmat_of(B, n, nb), sgp_mat_of(X, n, nb), &o,
                            &info, NULL, NULL), SGP_OK);
    assert_int_equal(info.converged, 1);
    for (int64_t i = 0; i < n; i++)
      if (X[i + n] != 0.0) fail_msg("initial guess %d: x[%lld] = %g for b = 0", guess, (long long)i, X[i + n]);
    assert_le(rel_err(n * nb, X, Xref), 1e-8);
  }
  /* an all-zero B converges at once to X = 0 */
  memset(B, 0, (size_t)(n * nb) * sizeof(double));
  th_randn(&p->ctx.rng, n * nb, X, 1.0, 0.0);
  assert_int_equal(sgp_cg(&p->ctx, &p->op, sgp_cmat_of(B, n, nb), sgp_mat_of(X, n, nb), &o, &info,
                          NULL, NULL), SGP_OK);
  assert_int_equal(info.converged, 1);
  assert_int_equal(info.iterations, 0);
  assert_close(th_max_abs(n * nb, X), 0.0, 0.0);
  free(B); free(X); free(Xref);
}

static void cg_small_max_iter_reports_nonconvergence(void **state)
{
  kernel_problem *p = (kernel_problem *)*state;
  const int64_t n = p->n;
  double *B = th_zeros(n), *X = th_zeros(n), alpha[3], beta[3];
  th_randn(&p->ctx.rng, n, B, 1.0, 0.0);
  sgp_cg_opts o;
  sgp_cg_opts_default(&o);
  o.max_iter = 3;
  sgp_cg_info info;
  p->ctx.errmsg[0] = '\0';
  assert_int_equal(sgp_cg(&p->ctx, &p->op, sgp_cmat_of(B, n, 1), sgp_mat_of(X, n, 1), &o, &info,
                          alpha, beta), SGP_OK);
  assert_int_equal(info.converged, 0);
  assert_int_equal(info.iterations, 3);
  assert_true(info.max_rel_residual > o.tol && isfinite(info.max_rel_residual));
  /* it is the true relative residual ||b - A x|| / ||b|| */
  double *AX = th_zeros(n), rn = 0.0, bn = 0.0;
  th_matmul(n, 1, n, p->A, X, AX);
  for (int64_t i = 0; i < n; i++) {
    rn += (B[i] - AX[i]) * (B[i] - AX[i]);
    bn += B[i] * B[i];
  }
  assert_close(info.max_rel_residual, sqrt(rn / bn), 1e-8 * sqrt(rn / bn));
  free(AX);
  assert_int_equal(p->ctx.errmsg[0], '\0'); /* not an error */
  for (int i = 0; i < 3; i++) assert_true(alpha[i] > 0 && beta[i] > 0);
  free(B); free(X);
}

/* The CG coefficients rebuild the Lanczos tridiagonal T (T_jj = 1/a_j +
 * b_{j-1}/a_{j-1}, T_j,j+1 = sqrt(b_j)/a_j) whose extreme eigenvalues
 * approximate those of A. */
static void cg_coefficients_rebuild_lanczos_tridiagonal(void **state)
{
  (void)state;
  const int64_t n = 40;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double *A = th_zeros(n * n), *B = th_zeros(n * 2), *X = th_zeros(n * 2), lam[40];
  th_random_spd(&ctx.rng, n, 0.2, A);
  th_jacobi_eig(n, A, lam);
  th_randn(&ctx.rng, n, B, 1.0, 0.0); /* column 2 is zero: coefficients stay 0 */
  sgp_op op;
  assert_int_equal(sgp_op_matrix(&ctx, sgp_cmat_of(A, n, n), &op), SGP_OK);
  sgp_cg_opts o;
  sgp_cg_opts_default(&o);
  o.tol = 1e-10;
  o.max_iter = 2 * (int)n;
  double *alpha = th_zeros(o.max_iter * 2), *beta = th_zeros(o.max_iter * 2);
  sgp_cg_info info;
  assert_int_equal(sgp_cg(&ctx, &op, sgp_cmat_of(B, n, 2), sgp_mat_of(X, n, 2), &o, &info, alpha,
                          beta), SGP_OK);
  assert_int_equal(info.converged, 1);
  const int m = info.iterations;
  assert_true(m >= 5);
  for (int i = 0; i < m; i++) assert_close(alpha[o.max_iter + i], 0.0, 0.0);
  double *Td = th_zeros(m), *Te = th_zeros(m), *ritz = th_zeros(m);
  for (int j = 0; j < m; j++) {
    Td[j] = 1.0 / alpha[j] + (j > 0 ? beta[j - 1] / alpha[j - 1] : 0.0);
    if (j < m - 1) Te[j] = sqrt(beta[j]) / alpha[j];
  }
  assert_int_equal(sgp_tridiag_eig(&ctx, m, Td, Te, ritz, NULL), SGP_OK);
  /* the leading part of T equals the tridiagonal of sgp_lanczos started at b
   * (later entries drift: CG has no reorthogonalization) */
  double la[10], lb[10];
  int steps = -1;
  assert_int_equal(sgp_lanczos(&ctx, &op, B, 10, la, lb, sgp_mat_of(NULL, 0, 0), &steps), SGP_OK);
  assert_int_equal(steps, 10);
  for (int j = 0; j < 10; j++) {
    assert_close(Td[j], la[j], 1e-10 * lam[n - 1]);
    if (j < 9) assert_close(Te[j], lb[j], 1e-10 * lam[n - 1]);
  }
  /* Ritz values lie in [lam_min, lam_max]; the largest has converged, the
   * smallest only roughly (A's two smallest eigenvalues are 7e-4 apart) */
  for (int j = 0; j < m; j++) {
    assert_true(ritz[j] >= lam[0] * (1 - 1e-8));
    assert_true(ritz[j] <= lam[n - 1] * (1 + 1e-8));
  }
  assert_close(ritz[m - 1], lam[n - 1], 1e-8 * lam[n - 1]);
  assert_close(ritz[0], lam[0], 1e-3 * lam[n - 1]);
  sgp_op_destroy(&op);
  free(A); free(B); free(X); free(alpha); free(beta); free(Td); free(Te); free(ritz);
}

static void cg_rejects_bad_arguments(void **state)
{
  kernel_problem *p = (kernel_problem *)*state;
  const int64_t n = p->n;
  double *B = th_zeros(n * 2), *X = th_zeros(n * 2);
  sgp_cg_opts o;
  sgp_cg_opts_default(&o);
  sgp_cg_info info;
  sgp_ctx *ctx = &p->ctx;
  assert_int_equal(sgp_cg(ctx, &p->op, sgp_cmat_of(B, n - 1, 1), sgp_mat_of(X, n, 1), &o, &info,
                          NULL, NULL), SGP_EDIM);
  assert_contains(ctx->errmsg, "cg");
  assert_int_equal(sgp_cg(ctx, &p->op, sgp_cmat_of(B, n, 1), sgp_mat_of(X, n - 1, 1), &o, &info,
                          NULL, NULL), SGP_EDIM);
  assert_int_equal(sgp_cg(ctx, &p->op, sgp_cmat_of(B, n, 2), sgp_mat_of(X, n, 1), &o, &info,
                          NULL, NULL), SGP_EDIM);
  const double bad_tol[] = {-1e-3, NAN};
  for (int i = 0; i < 2; i++) {
    o.tol = bad_tol[i];
    assert_int_equal(sgp_cg(ctx, &p->op, sgp_cmat_of(B, n, 1), sgp_mat_of(X, n, 1), &o, &info,
                            NULL, NULL), SGP_EINVAL);
    assert_contains(ctx->errmsg, "tol");
  }
  /* a negative definite operator is detected (p'Ap <= 0) */
  double *N = th_zeros(n * n);
  for (int64_t i = 0; i < n; i++) N[i + i * n] = -1.0 - (double)i;
  sgp_op nop;
  assert_int_equal(sgp_op_matrix(ctx, sgp_cmat_of(N, n, n), &nop), SGP_OK);
  sgp_cg_opts_default(&o);
  th_randn(&ctx->rng, n, B, 1.0, 0.0);
  assert_int_equal(sgp_cg(ctx, &nop, sgp_cmat_of(B, n, 1), sgp_mat_of(X, n, 1), &o, &info, NULL,
                          NULL), SGP_ENOTPD);
  assert_contains(ctx->errmsg, "positive definite");
  sgp_op_destroy(&nop);
  free(B); free(X); free(N);
}

/* ------------------------------------------------------------ Lanczos */

typedef struct {
  int64_t n;
  double *A, *q0, lam[40];
  sgp_op op;
  sgp_ctx ctx;
} spd_problem;

static int spd_setup(void **state)
{
  spd_problem *p = (spd_problem *)calloc(1, sizeof *p);
  if (!p) return -1;
  p->n = 40;
  sgp_ctx_init(&p->ctx);
  sgp_ctx_set_seed(&p->ctx, 40);
  p->A = th_zeros(p->n * p->n);
  p->q0 = th_zeros(p->n);
  th_random_spd(&p->ctx.rng, p->n, 0.1, p->A);
  th_randn(&p->ctx.rng, p->n, p->q0, 1.0, 0.0);
  th_jacobi_eig(p->n, p->A, p->lam);
  if (sgp_op_matrix(&p->ctx, sgp_cmat_of(p->A, p->n, p->n), &p->op)) return -1;
  *state = p;
  return 0;
}

static int spd_teardown(void **state)
{
  spd_problem *p = (spd_problem *)*state;
  sgp_op_destroy(&p->op);
  free(p->A); free(p->q0); free(p);
  return 0;
}

/* max |Q'Q - I| for an n-by-k basis */
static double orthogonality_error(int64_t n, int64_t k, const double *Q)
{
  double err = 0.0;
  for (int64_t a = 0; a < k; a++)
    for (int64_t b = 0; b < k; b++) {
      double s = 0.0;
      for (int64_t i = 0; i < n; i++) s += Q[i + a * n] * Q[i + b * n];
      s -= a == b;
      err = fabs(s) > err ? fabs(s) : err;
    }
  return err;
}

static void jacobi_oracle_agrees_with_known_spectrum(void **state)
{
  (void)state; /* the oracle itself: A = U diag(1..6) U' with U from rotations */
  const int64_t n = 6;
  double A[36] = {0}, w[6];
  for (int64_t i = 0; i < n; i++) A[i + i * n] = (double)(i + 1);
  const double c = cos(0.7), s = sin(0.7); /* rotate planes (0,3) and (2,5) */
  const int64_t pl[2][2] = {{0, 3}, {2, 5}};
  for (int r = 0; r < 2; r++) {
    const int64_t p = pl[r][0], q = pl[r][1];
    for (int64_t k = 0; k < n; k++) {
      const double x = A[k + p * n], y = A[k + q * n];
      A[k + p * n] = c * x - s * y; A[k + q * n] = s * x + c * y;
    }
    for (int64_t k = 0; k < n; k++) {
      const double x = A[p + k * n], y = A[q + k * n];
      A[p + k * n] = c * x - s * y; A[q + k * n] = s * x + c * y;
    }
  }
  th_jacobi_eig(n, A, w);
  for (int64_t i = 0; i < n; i++) assert_close(w[i], (double)(i + 1), 1e-13);
}

static void lanczos_full_run_recovers_spectrum(void **state)
{
  spd_problem *p = (spd_problem *)*state;
  const int64_t n = p->n;
  const int k = (int)n;
  double *Q = th_zeros(n * n), a[40], b[40], ev[40];
  int steps = -1;
  assert_int_equal(sgp_lanczos(&p->ctx, &p->op, p->q0, k, a, b, sgp_mat_of(Q, n, k), &steps), SGP_OK);
  assert_int_equal(steps, k);
  assert_int_equal(sgp_tridiag_eig(&p->ctx, steps, a, b, ev, NULL), SGP_OK);
  for (int64_t i = 0; i < n; i++) assert_close(ev[i], p->lam[i], 1e-8 * p->lam[n - 1]);
  assert_le(orthogonality_error(n, k, Q), 1e-10);
  free(Q);
}

/* k < n: Q'Q = I, Q'AQ = T, and A Q = Q T in the first k-1 columns (the last
 * one also carries the residual b_k q_{k+1}). */
static void lanczos_partial_run_satisfies_three_term_relation(void **state)
{
  spd_problem *p = (spd_problem *)*state;
  const int64_t n = p->n;
  const int k = 15;
  double *Q = th_zeros(n * k), *AQ = th_zeros(n * k), *QT = th_zeros(n * k), *T = th_zeros(k * k),
         *QtAQ = th_zeros(k * k), *Qt = th_zeros(k * n), a[15], b[15], a2[15], b2[15];
  int steps = -1;
  assert_int_equal(sgp_lanczos(&p->ctx, &p->op, p->q0, k, a, b, sgp_mat_of(Q, n, k), &steps), SGP_OK);
  assert_int_equal(steps, k);
  assert_le(orthogonality_error(n, k, Q), 1e-10);
  /* first basis vector is the normalized start */
  double q0n = 0.0;
  for (int64_t i = 0; i < n; i++) q0n += p->q0[i] * p->q0[i];
  for (int64_t i = 0; i < n; i++) assert_close(Q[i], p->q0[i] / sqrt(q0n), 1e-14);
  for (int j = 0; j < k; j++) {
    T[j + j * k] = a[j];
    if (j < k - 1) T[j + (j + 1) * k] = T[(j + 1) + j * k] = b[j];
  }
  th_matmul(n, k, n, p->A, Q, AQ);
  th_matmul(n, k, k, Q, T, QT);
  const double scale = p->lam[n - 1];
  assert_le(th_max_abs_diff(n * (k - 1), AQ, QT), 1e-8 * scale);
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < k; j++) Qt[j + i * k] = Q[i + j * n];
  th_matmul(k, k, n, Qt, AQ, QtAQ);
  assert_le(th_max_abs_diff(k * k, QtAQ, T), 1e-8 * scale);
  /* without a caller's basis the coefficients are the same */
  assert_int_equal(sgp_lanczos(&p->ctx, &p->op, p->q0, k, a2, b2, sgp_mat_of(NULL, 0, 0), &steps),
                   SGP_OK);
  assert_int_equal(steps, k);
  for (int j = 0; j < k; j++) assert_close(a2[j], a[j], 1e-12 * scale);
  for (int j = 0; j < k - 1; j++) assert_close(b2[j], b[j], 1e-12 * scale);
  free(Q); free(AQ); free(QT); free(T); free(QtAQ); free(Qt);
}

/* Three distinct eigenvalues: the Krylov space is invariant after 3 steps. */
static void lanczos_stops_on_invariant_subspace(void **state)
{
  (void)state;
  const int64_t n = 12;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double A[144] = {0}, q0[12], a[10], b[10], ev[10];
  for (int64_t i = 0; i < n; i++) A[i + i * n] = (double)(1 + i % 3);
  th_randn(&ctx.rng, n, q0, 1.0, 0.0);
  sgp_op op;
  assert_int_equal(sgp_op_matrix(&ctx, sgp_cmat_of(A, n, n), &op), SGP_OK);
  int steps = -1;
  assert_int_equal(sgp_lanczos(&ctx, &op, q0, 10, a, b, sgp_mat_of(NULL, 0, 0), &steps), SGP_OK);
  assert_int_equal(steps, 3);
  assert_int_equal(sgp_tridiag_eig(&ctx, steps, a, b, ev, NULL), SGP_OK);
  for (int i = 0; i < 3; i++) assert_close(ev[i], (double)(i + 1), 1e-12);
  sgp_op_destroy(&op);
}

static void lanczos_rejects_bad_arguments(void **state)
{
  spd_problem *p = (spd_problem *)*state;
  const int64_t n = p->n;
  double *Q = th_zeros(n * n), a[41], b[41], *z = th_zeros(n);
  int steps = -1;
  const int bad_k[] = {0, -1, (int)n + 1};
  for (int i = 0; i < 3; i++) {
    assert_int_equal(sgp_lanczos(&p->ctx, &p->op, p->q0, bad_k[i], a, b, sgp_mat_of(NULL, 0, 0),
                                 &steps), SGP_EINVAL);
    assert_contains(p->ctx.errmsg, "lanczos");
    assert_int_equal(steps, 0);
  }
  assert_int_equal(sgp_lanczos(&p->ctx, &p->op, z, 5, a, b, sgp_mat_of(NULL, 0, 0), &steps),
                   SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "start vector");
  assert_int_equal(sgp_lanczos(&p->ctx, &p->op, z, 5, a, b, sgp_mat_of(Q, n, 5), &steps),
                   SGP_EINVAL);
  z[3] = NAN;
  assert_int_equal(sgp_lanczos(&p->ctx, &p->op, z, 5, a, b, sgp_mat_of(NULL, 0, 0), &steps),
                   SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "start vector");
  /* basis of the wrong shape */
  assert_int_equal(sgp_lanczos(&p->ctx, &p->op, p->q0, 5, a, b, sgp_mat_of(Q, n, 4), &steps), SGP_EDIM);
  assert_int_equal(sgp_lanczos(&p->ctx, &p->op, p->q0, 5, a, b, sgp_mat_of(Q, n - 1, 5), &steps),
                   SGP_EDIM);
  sgp_mat padded = {Q, n, 5, n + 1};
  assert_int_equal(sgp_lanczos(&p->ctx, &p->op, p->q0, 5, a, b, padded, &steps), SGP_EDIM);
  free(Q); free(z);
}

/* ------------------------------------------------------------ tridiagonal eigensolver */

static void tridiag_eig_matches_jacobi_with_vectors(void **state)
{
  (void)state;
  const int k = 9;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double a[9], b[8], T[81] = {0}, w[9], ev[9], V[81];
  for (int j = 0; j < k; j++) a[j] = 2.0 + sgp_rng_normal(&ctx.rng);
  for (int j = 0; j < k - 1; j++) b[j] = sgp_rng_normal(&ctx.rng);
  for (int j = 0; j < k; j++) {
    T[j + j * k] = a[j];
    if (j < k - 1) T[j + (j + 1) * k] = T[(j + 1) + j * k] = b[j];
  }
  th_jacobi_eig(k, T, w);
  assert_int_equal(sgp_tridiag_eig(&ctx, k, a, b, ev, V), SGP_OK);
  for (int j = 0; j < k; j++) {
    assert_close(ev[j], w[j], 1e-12 * fabs(w[k - 1]));
    if (j > 0) assert_true(ev[j] >= ev[j - 1]);
    double tv[9];
    th_matmul(k, 1, k, T, V + j * k, tv); /* T v = lambda v */
    for (int i = 0; i < k; i++) assert_close(tv[i], ev[j] * V[i + j * k], 1e-12 * fabs(w[k - 1]));
  }
  assert_le(orthogonality_error(k, k, V), 1e-12);
  /* inputs are not modified */
  for (int j = 0; j < k; j++) assert_true(a[j] == T[j + j * k]);
  /* order 1 */
  assert_int_equal(sgp_tridiag_eig(&ctx, 1, a, b, ev, NULL), SGP_OK);
  assert_true(ev[0] == a[0]);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(cg_kernel_operator_matches_cholesky, kernel_setup, kernel_teardown),
    cmocka_unit_test(cg_matrix_operator_matches_cholesky),
    cmocka_unit_test_setup_teardown(cg_zero_rhs_column_gives_zero_solution, kernel_setup, kernel_teardown),
    cmocka_unit_test_setup_teardown(cg_small_max_iter_reports_nonconvergence, kernel_setup, kernel_teardown),
    cmocka_unit_test(cg_coefficients_rebuild_lanczos_tridiagonal),
    cmocka_unit_test_setup_teardown(cg_rejects_bad_arguments, kernel_setup, kernel_teardown),
    cmocka_unit_test(jacobi_oracle_agrees_with_known_spectrum),
    cmocka_unit_test_setup_teardown(lanczos_full_run_recovers_spectrum, spd_setup, spd_teardown),
    cmocka_unit_test_setup_teardown(lanczos_partial_run_satisfies_three_term_relation, spd_setup, spd_teardown),
    cmocka_unit_test(lanczos_stops_on_invariant_subspace),
    cmocka_unit_test_setup_teardown(lanczos_rejects_bad_arguments, spd_setup, spd_teardown),
    cmocka_unit_test(tridiag_eig_matches_jacobi_with_vectors),
  };
  return cmocka_run_group_tests_name("solvers", tests, NULL, NULL);
}
