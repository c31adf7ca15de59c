/* solvers.c -- Krylov solvers on sgp_op shared by the methods: block CG with
 * independent right-hand sides (one operator call per iteration) and Lanczos
 * with full reorthogonalization. */
#include "runtime/sgp_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sgp_cg_opts_default(sgp_cg_opts *o)
{
  o->max_iter = 0; /* 0 = n */
  o->tol = 1e-8;
  o->precond = NULL;
}

static int apply_precond(const sgp_cg_opts *o, sgp_cmat R, sgp_mat Z, sgp_ctx *ctx)
{
  if (o->precond) return o->precond->apply(o->precond, R, Z, ctx);
  for (int64_t j = 0; j < R.cols; j++)
    memcpy(Z.data + j * Z.ld, R.data + j * R.ld, (size_t)R.rows * sizeof(double));
  return SGP_OK;
}

int sgp_cg(sgp_ctx *ctx, const sgp_op *A, sgp_cmat B, sgp_mat X, const sgp_cg_opts *o,
           sgp_cg_info *info, double *alpha_out, double *beta_out)
{
  const int64_t n = A->n, nb = B.cols;
  const int max_iter = o->max_iter > 0 ? o->max_iter : (int)(n < 100000000 ? n : 100000000);
  double *R = NULL, *Z = NULL, *P = NULL, *AP = NULL, *rz = NULL, *bnorm = NULL;
  char *live = NULL;
  int st = SGP_OK, it = 0;
  memset(info, 0, sizeof *info);
  if (B.rows != n || X.rows != n || X.cols != nb)
    return sgp_fail(ctx, SGP_EDIM, "cg: right-hand side is %lld x %lld, solution %lld x %lld; "
                    "operator order %lld", (long long)B.rows, (long long)nb, (long long)X.rows,
                    (long long)X.cols, (long long)n);
  if (!(o->tol >= 0)) return sgp_fail(ctx, SGP_EINVAL, "tol: must be non-negative");
  R = sgp_alloc(n * nb); Z = sgp_alloc(n * nb); P = sgp_alloc(n * nb); AP = sgp_alloc(n * nb);
  rz = sgp_calloc(nb); bnorm = sgp_calloc(nb);
  live = (char *)calloc((size_t)(nb > 0 ? nb : 1), 1);
  if (!R || !Z || !P || !AP || !rz || !bnorm || !live) {
    st = sgp_fail(ctx, SGP_ENOMEM, "cg: out of memory for %lld x %lld work vectors",
                  (long long)n, (long long)nb);
    goto cleanup;
  }
  const sgp_mat Rm = sgp_mat_of(R, n, nb), Zm = sgp_mat_of(Z, n, nb), APm = sgp_mat_of(AP, n, nb);
  /* R = B - A X */
  if ((st = A->apply(A, sgp_const(X), APm, ctx))) goto cleanup;
  for (int64_t j = 0; j < nb; j++) {
    for (int64_t i = 0; i < n; i++) R[i + j * n] = B.data[i + j * B.ld] - AP[i + j * n];
    bnorm[j] = sgp_nrm2(n, B.data + j * B.ld);
    if (bnorm[j] == 0.0) /* b_j = 0: x_j = 0 exactly, whatever the initial guess */
      for (int64_t i = 0; i < n; i++) { X.data[i + j * X.ld] = 0.0; R[i + j * n] = 0.0; }
  }
  if ((st = apply_precond(o, sgp_const(Rm), Zm, ctx))) goto cleanup;
  memcpy(P, Z, (size_t)(n * nb) * sizeof(double));
  for (int64_t j = 0; j < nb; j++) rz[j] = sgp_dot(n, R + j * n, Z + j * n);

  for (;;) {
    /* Columns that met the tolerance are frozen (alpha = beta = 0 from then on). */
    double worst = 0.0;
    int active = 0;
    for (int64_t j = 0; j < nb; j++) {
      const double rel = bnorm[j] > 0 ? sgp_nrm2(n, R + j * n) / bnorm[j] : 0.0;
      if (rel > worst) worst = rel;
      live[j] = rel > o->tol;
      active |= live[j];
    }
    info->max_rel_residual = worst;
    if (!active) { info->converged = 1; break; }
    if (it >= max_iter) break;
    if ((st = sgp_poll_interrupt(ctx))) goto cleanup;
    if ((st = A->apply(A, sgp_cmat_of(P, n, nb), APm, ctx))) goto cleanup;
    for (int64_t j = 0; j < nb; j++) {
      double *r = R + j * n, *p = P + j * n, *ap = AP + j * n, *x = X.data + j * X.ld;
      double a = 0.0;
      if (live[j]) {
        const double pap = sgp_dot(n, p, ap);
        if (!(pap > 0)) {
          st = sgp_fail(ctx, SGP_ENOTPD, "cg: operator is not positive definite (p'Ap = %g)", pap);
          goto cleanup;
        }
        a = rz[j] / pap;
        for (int64_t i = 0; i < n; i++) { x[i] += a * p[i]; r[i] -= a * ap[i]; }
      }
      if (alpha_out) alpha_out[it + (int64_t)j * max_iter] = a;
    }
    if ((st = apply_precond(o, sgp_const(Rm), Zm, ctx))) goto cleanup;
    for (int64_t j = 0; j < nb; j++) {
      double b = 0.0;
      if (live[j]) {
        double *p = P + j * n, *z = Z + j * n;
        const double rz_new = sgp_dot(n, R + j * n, z);
        b = rz_new / rz[j];
        rz[j] = rz_new;
        for (int64_t i = 0; i < n; i++) p[i] = z[i] + b * p[i];
      }
      if (beta_out) beta_out[it + (int64_t)j * max_iter] = b;
    }
    it++;
    sgp_progress(ctx, "conjugate gradients", (double)it / (double)max_iter);
  }
  info->iterations = it;
cleanup:
  free(R); free(Z); free(P); free(AP); free(rz); free(bnorm); free(live);
  return st;
}

int sgp_lanczos(sgp_ctx *ctx, const sgp_op *A, const double *q0, int k, double *a, double *b,
                sgp_mat Q, int *steps)
{
  const int64_t n = A->n;
  double *Qw = Q.data, *w = NULL, *h = NULL;
  int st = SGP_OK;
  *steps = 0;
  if (k < 1 || k > n)
    return sgp_fail(ctx, SGP_EINVAL, "lanczos: steps must be in 1..%lld (got %d)", (long long)n, k);
  if (Qw && (Q.rows != n || Q.cols < k || Q.ld != n))
    return sgp_fail(ctx, SGP_EDIM, "lanczos: basis must be %lld x %d, contiguous", (long long)n, k);
  if (!Qw && !(Qw = sgp_alloc(n * k))) return sgp_fail(ctx, SGP_ENOMEM, "lanczos: out of memory");
  w = sgp_alloc(n);
  h = sgp_alloc(k);
  if (!w || !h) { st = sgp_fail(ctx, SGP_ENOMEM, "lanczos: out of memory"); goto cleanup; }
  const double q0n = sgp_nrm2(n, q0);
  if (!(q0n > 0) || !isfinite(q0n)) {
    st = sgp_fail(ctx, SGP_EINVAL, "lanczos: start vector must be finite and nonzero");
    goto cleanup;
  }
  for (int64_t i = 0; i < n; i++) Qw[i] = q0[i] / q0n;
  for (int j = 0; j < k; j++) {
    double *qj = Qw + (int64_t)j * n;
    if ((st = sgp_poll_interrupt(ctx))) goto cleanup;
    if ((st = A->apply(A, sgp_cmat_of(qj, n, 1), sgp_mat_of(w, n, 1), ctx))) goto cleanup;
    a[j] = sgp_dot(n, qj, w);
    *steps = j + 1;
    if (j == k - 1) break;
    /* Full reorthogonalization, Gram-Schmidt twice (w -= Q (Q' w)). */
    for (int pass = 0; pass < 2; pass++) {
      if ((st = sgp_gemm(ctx, 'T', 'N', j + 1, 1, n, 1.0, Qw, n, w, n, 0.0, h, j + 1))) goto cleanup;
      if ((st = sgp_gemm(ctx, 'N', 'N', n, 1, j + 1, -1.0, Qw, n, h, j + 1, 1.0, w, n))) goto cleanup;
    }
    b[j] = sgp_nrm2(n, w);
    if (b[j] <= 1e-12 * fabs(a[j]) || b[j] == 0.0) break; /* invariant subspace */
    for (int64_t i = 0; i < n; i++) qj[n + i] = w[i] / b[j];
  }
cleanup:
  if (!Q.data) free(Qw);
  free(w);
  free(h);
  return st;
}

int sgp_tridiag_eig(sgp_ctx *ctx, int k, const double *a, const double *b, double *evals,
                    double *evecs)
{
  double *e = sgp_alloc(k);
  if (!e) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  memcpy(evals, a, (size_t)k * sizeof(double));
  if (k > 1) memcpy(e, b, (size_t)(k - 1) * sizeof(double));
  int st = sgp_stev(ctx, k, evals, e, evecs);
  free(e);
  return st;
}
