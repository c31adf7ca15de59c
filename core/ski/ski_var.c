/* ski_var.c -- posterior variances of ski_gsgp at test points:
 *  - the SKI prior w(x)' K_G w(x) from a table of K_G's first column;
 *  - exact variances: one sEFCG solve (Alg. A4,
 *    x0 = 0, right-hand side W K_G w(x*)) per test point, grid-size work only;
 *  - LOVE-style low-rank variances: span-W
 *    efficiently factorized Lanczos (Alg. A6') with full reorthogonalization,
 *    precomputed once into F (m-by-k), then O(k taps) per test point. */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VAR_BLOCK 64 /* test points per interpolation / K_G block */

static double dot(int64_t n, const double *a, const double *b)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += a[i] * b[i];
  return s;
}

/* Interpolation of a block of test points; messages of sgp_ski_interp name
 * `x`, here the argument is `xtest`. */
static int interp_test(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                       sgp_ski_bounds_policy policy, sgp_cmat Xb, int64_t first,
                       int64_t *idx, double *w)
{
  const int code = sgp_ski_interp(ctx, g, interp, policy, Xb, first, idx, w);
  if (code && strncmp(ctx->errmsg, "x:", 2) == 0) {
    size_t len = strlen(ctx->errmsg);
    if (len + 4 >= sizeof ctx->errmsg) len = sizeof ctx->errmsg - 5;
    memmove(ctx->errmsg + 6, ctx->errmsg + 2, len - 2);
    memcpy(ctx->errmsg, "xtest:", 6);
    ctx->errmsg[len + 4] = '\0';
  }
  return code;
}

static int check_xtest(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_cmat Xs)
{
  if (Xs.rows > 0 && !Xs.data) return sgp_fail(ctx, SGP_EINVAL, "xtest: missing");
  if (Xs.rows < 0 || Xs.cols != g->d)
    return sgp_fail(ctx, SGP_EDIM, "xtest: has %lld columns; the grid has %d dimensions",
                    (long long)Xs.cols, g->d);
  if (Xs.rows > 0 && Xs.ld < Xs.rows)
    return sgp_fail(ctx, SGP_EDIM, "xtest: leading dimension %lld below %lld rows",
                    (long long)Xs.ld, (long long)Xs.rows);
  return SGP_OK;
}

/* c0 = K_G e_0: c0[g] = kappa(sub(g) h), all lags >= 0 in every coordinate. */
static int first_column(sgp_ctx *ctx, const sgp_op *kg, double *e0, double *c0)
{
  memset(e0, 0, (size_t)kg->n * sizeof(double));
  e0[0] = 1.0;
  return kg->apply(kg, sgp_cmat_of(e0, kg->n, 1), sgp_mat_of(c0, kg->n, 1), ctx);
}

/* w' K_G w over the tap pairs of one point; kappa is even in every coordinate,
 * so the lag o = sub_a - sub_b is looked up at |o| in c0. sub: T-by-d work. */
static double prior_point(const sgp_ski_grid *g, const double *c0, int64_t T,
                          const int64_t *idx, const double *w, int64_t *sub)
{
  const int d = g->d;
  int64_t stride[SGP_SKI_MAX_D];
  stride[0] = 1;
  for (int j = 1; j < d; j++) stride[j] = stride[j - 1] * g->m[j - 1];
  for (int64_t t = 0; t < T; t++)
    if (idx[t] >= 0) sgp_ski_grid_subscripts(g, idx[t], sub + t * d);
  double acc = 0.0;
  for (int64_t a = 0; a < T; a++) {
    if (idx[a] < 0 || w[a] == 0.0) continue;
    const int64_t *sa = sub + a * d;
    double row = 0.0;
    for (int64_t b = 0; b < T; b++) {
      if (idx[b] < 0) continue;
      const int64_t *sb = sub + b * d;
      int64_t lag = 0;
      for (int j = 0; j < d; j++) {
        const int64_t o = sa[j] - sb[j];
        lag += (o < 0 ? -o : o) * stride[j];
      }
      row += w[b] * c0[lag];
    }
    acc += w[a] * row;
  }
  return acc;
}

int sgp_ski_prior_var(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                      sgp_ski_bounds_policy policy, const sgp_op *kg, sgp_cmat Xs,
                      double *prior)
{
  int code;
  int64_t *idx = NULL, *sub = NULL;
  double *w = NULL, *e0 = NULL, *c0 = NULL;
  if (!g) return sgp_fail(ctx, SGP_EINVAL, "grid: missing");
  if ((code = sgp_ski_grid_check(ctx, g))) return code;
  const int64_t m = sgp_ski_grid_npoints(g), T = sgp_ski_interp_taps(interp, g->d);
  if (!kg || kg->n != m || !kg->apply)
    return sgp_fail(ctx, SGP_EINVAL, "kg: missing or not of the grid's order %lld",
                    (long long)m);
  if ((code = check_xtest(ctx, g, Xs))) return code;
  const int64_t n = Xs.rows;
  if (n == 0) return SGP_OK;
  if (!prior) return sgp_fail(ctx, SGP_EINVAL, "prior: output missing");
  const int64_t blk = n < VAR_BLOCK ? n : VAR_BLOCK;
  idx = (int64_t *)malloc((size_t)(blk * T) * sizeof(int64_t));
  sub = (int64_t *)malloc((size_t)(T * g->d) * sizeof(int64_t));
  w = sgp_alloc(blk * T);
  e0 = sgp_alloc(m);
  c0 = sgp_alloc(m);
  if (!idx || !sub || !w || !e0 || !c0) {
    code = sgp_fail(ctx, SGP_ENOMEM, "xtest: out of memory for the prior variances");
    goto cleanup;
  }
  if ((code = first_column(ctx, kg, e0, c0))) goto cleanup;
  for (int64_t i0 = 0; i0 < n; i0 += blk) {
    const int64_t nb = n - i0 < blk ? n - i0 : blk;
    const sgp_cmat Xb = {Xs.data + i0, nb, Xs.cols, Xs.ld};
    if ((code = interp_test(ctx, g, interp, policy, Xb, i0, idx, w))) goto cleanup;
    /* w'K_G w >= 0 for the positive semi-definite K_G: below 0 only by the
     * rounding of its sum (eps times sum |w_a w_b kappa|), not an estimate */
    for (int64_t i = 0; i < nb; i++)
      prior[i0 + i] = fmax(0.0, prior_point(g, c0, T, idx + i * T, w + i * T, sub));
  }
cleanup:
  free(idx); free(sub); free(w); free(e0); free(c0);
  return code;
}

/* ------------------------------------------------------------ exact */

/* The accuracy of an exact variance. With A = W K_G W' + noise I, k = W rhat
 * (rhat = K_G w*) and any iterate x of A x = k with residual r = k - A x,
 *   k'A^{-1}k = k'x + x'r + r'A^{-1}r   (write k = A x + r),
 * so the posterior variance v = prior - k'A^{-1}k satisfies
 *   v = var - r'A^{-1}r,  var = prior - k'x - x'r,
 *   0 <= r'A^{-1}r <= ||r||^2 / lambda_min(A) <= ||r||^2 / noise
 * (W K_G W' is positive semi-definite). var is computed from the solve's
 * verified residual (x'r vanishes for exact CG, not after its restarts), and
 *   |var - v| <= err = ||r||^2 / noise + rounding of var's sums.
 * The error is quadratic in the residual but must be small against v itself,
 * which is the difference of two numbers near the prior: at small noise v is
 * many times below the prior (at noise 1e-8 a point among the data has
 * v ~ 1e-9 of a prior 1), and ||r|| <= tol ||k|| at tol 0.01 gave variances
 * 5 to 3e6 times the exact ones (noise 1e-2 to 1e-8). So each solve also runs
 * until err <= SGP_SKI_RTOL (var - err), i.e. the relative error of var
 * against v is at most SGP_SKI_RTOL; where rounding (or max_iter) stops it
 * first, the variance is reported not converged. */

/* The largest relative error err / (var - err) of a variance; Inf when the
 * bound does not keep v away from 0. */
static double var_rel_error(const sgp_ski_var_bound *vb)
{
  const double lo = vb->var - vb->err;
  if (vb->err == 0.0) return 0.0;
  return lo > 0 ? vb->err / lo : INFINITY;
}

static void var_info_add(sgp_ski_var_info *tot, const sgp_ski_solve_info *inf,
                         const sgp_ski_var_bound *vb)
{
  if (inf->iterations > tot->solve.iterations) tot->solve.iterations = inf->iterations;
  if (!inf->converged) tot->solve.converged = 0;
  if (inf->stop > tot->solve.stop) tot->solve.stop = inf->stop; /* the worst reason */
  if (inf->rel_residual > tot->solve.rel_residual) tot->solve.rel_residual = inf->rel_residual;
  const double re = var_rel_error(vb);
  if (!(re <= tot->rel_error)) tot->rel_error = re;
}

void sgp_ski_var_info_init(sgp_ski_var_info *info)
{
  const sgp_ski_solve_info none = {0, 1, 0.0, SGP_SKI_STOP_TOL, NAN, NAN};
  info->solve = none;
  info->rel_error = 0.0;
  info->clamped = 0;
}

int sgp_ski_var_exact(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      sgp_ski_bounds_policy policy, sgp_cmat Xs, const sgp_ski_solve_opts *o,
                      double *var, double *pvar, sgp_ski_var_info *info)
{
  int code;
  int64_t *idx = NULL;
  double *w = NULL, *Wt = NULL, *Rh = NULL, *xd = NULL;
  sgp_ski_var_info tot;
  sgp_ski_var_info_init(&tot);
  if (info) *info = tot;
  if ((code = sgp_ski_check_model(ctx, st, kg, noise))) return code;
  if (!o) return sgp_fail(ctx, SGP_EINVAL, "tol: options missing");
  if (!(o->tol >= 0) || !isfinite(o->tol))
    return sgp_fail(ctx, SGP_EINVAL, "tol: must be a non-negative number (got %g)", o->tol);
  if (o->max_iter < 0)
    return sgp_fail(ctx, SGP_EINVAL, "max_iter: must be non-negative (got %lld)",
                    (long long)o->max_iter);
  const sgp_ski_grid *g = &st->grid;
  if ((code = check_xtest(ctx, g, Xs))) return code;
  const int64_t n = Xs.rows, m = st->m, T = st->T;
  if (n == 0) return SGP_OK;
  if (!var) return sgp_fail(ctx, SGP_EINVAL, "var: output missing");
  const int64_t blk = n < VAR_BLOCK ? n : VAR_BLOCK;
  idx = (int64_t *)malloc((size_t)(blk * T) * sizeof(int64_t));
  w = sgp_alloc(blk * T);
  Wt = sgp_alloc(m * blk);
  Rh = sgp_alloc(m * blk);
  xd = sgp_alloc(m);
  if (!idx || !w || !Wt || !Rh || !xd) {
    code = sgp_fail(ctx, SGP_ENOMEM, "xtest: out of memory for %lld x %lld grid columns",
                    (long long)m, (long long)blk);
    goto cleanup;
  }
  for (int64_t i0 = 0; i0 < n; i0 += blk) {
    const int64_t nb = n - i0 < blk ? n - i0 : blk;
    const sgp_cmat Xb = {Xs.data + i0, nb, Xs.cols, Xs.ld};
    if ((code = interp_test(ctx, g, st->interp, policy, Xb, i0, idx, w))) goto cleanup;
    /* W*' (m-by-nb) and rhat = K_G W*' in one block product */
    memset(Wt, 0, (size_t)(m * nb) * sizeof(double));
    for (int64_t i = 0; i < nb; i++)
      for (int64_t t = 0; t < T; t++)
        if (idx[i * T + t] >= 0) Wt[idx[i * T + t] + i * m] += w[i * T + t];
    if ((code = kg->apply(kg, sgp_cmat_of(Wt, m, nb), sgp_mat_of(Rh, m, nb), ctx)))
      goto cleanup;
    for (int64_t i = 0; i < nb; i++) {
      const double *rh = Rh + i * m;
      sgp_ski_var_bound vb = {0.0, SGP_SKI_RTOL, 0.0, 0.0};
      for (int64_t t = 0; t < T; t++)
        if (idx[i * T + t] >= 0) vb.prior += w[i * T + t] * rh[idx[i * T + t]];
      sgp_ski_solve_info inf;
      if ((code = sgp_ski_sefcg_var(ctx, st, kg, noise, rh, o, xd, &vb, &inf))) goto cleanup;
      var_info_add(&tot, &inf, &vb);
      /* v <= prior always: a var above it is within err and moves closer;
       * v >= 0: a var below 0 is counted (its err exceeds it: not converged) */
      double v = vb.var;
      if (v > vb.prior) v = vb.prior;
      if (!(v >= 0)) {
        v = 0.0;
        tot.clamped++;
      }
      var[i0 + i] = v;
      if (pvar) pvar[i0 + i] = v + noise;
    }
  }
  if (info) *info = tot;
cleanup:
  free(idx); free(w); free(Wt); free(Rh); free(xd);
  return code;
}

/* ------------------------------------------------------------ LOVE */

void sgp_ski_love_free(sgp_ski_love *lv)
{
  if (!lv) return;
  free(lv->Ft);
  free(lv->c0);
  free(lv);
}

static int love_nonfinite(sgp_ctx *ctx, int64_t k)
{
  return sgp_fail(ctx, SGP_EINVAL,
                  "outputscale: the LOVE Lanczos met a non-finite value at step %lld (an "
                  "overflow: y, outputscale and noise must be of moderate magnitude)",
                  (long long)k);
}

/* The Lanczos rank: 0 asks for min(m, 256); never above m. */
static int love_rank(sgp_ctx *ctx, int64_t m, int64_t rank, int64_t *k_out)
{
  if (rank < 0)
    return sgp_fail(ctx, SGP_EINVAL, "rank: must be positive, or 0 for the default "
                    "min(m, 256) (got %lld)", (long long)rank);
  int64_t k = rank == 0 ? (m < 256 ? m : 256) : rank;
  if (k > m) k = m;
  if (k > 2147483647 / 2)
    return sgp_fail(ctx, SGP_EINVAL, "rank: %lld is too large", (long long)k);
  if (k > (INT64_MAX / 8) / m)
    return sgp_fail(ctx, SGP_ENOMEM, "rank: %lld x %lld basis does not fit in memory",
                    (long long)m, (long long)k);
  *k_out = k;
  return SGP_OK;
}

/* Span-W Lanczos (Alg. A6'): basis Qhat (m-by-k) with Phat = B Qhat, S = M q_i
 * of the current vector, m-vectors wv, Pw, Sw, tmp, the CGS2 coefficients lam
 * and the tridiagonal T (diagonal al, off-diagonal be) with its bidiagonal
 * Cholesky factor (cc, ee); all in one `work` block. */
typedef struct {
  int64_t m, k;
  double noise;
  double *Qh, *Ph, *work;
  double *S, *wv, *Pw, *Sw, *tmp, *lam, *al, *be, *cc, *ee;
} love_lanczos;

static int love_lanczos_alloc(love_lanczos *lz)
{
  const int64_t m = lz->m, k = lz->k;
  lz->Qh = sgp_alloc(m * k);
  lz->Ph = sgp_alloc(m * k);
  lz->work = sgp_alloc(5 * m + 5 * k);
  if (!lz->Qh || !lz->Ph || !lz->work) return 0;
  double *work = lz->work;
  lz->S = work; lz->wv = work + m; lz->Pw = work + 2 * m; lz->Sw = work + 3 * m;
  lz->tmp = work + 4 * m;
  lz->lam = work + 5 * m; lz->al = lz->lam + k; lz->be = lz->al + k; lz->cc = lz->be + k;
  lz->ee = lz->cc + k;
  return 1;
}

/* q1 from bhat = K_G 1 / m, normalized in the B inner product (||W bhat|| = 1),
 * and S = M q1 = K_G B q1 + noise q1. *empty: bhat is 0 (no Lanczos steps). */
static int love_first_vector(sgp_ctx *ctx, const sgp_op *kg, const sgp_op *B, love_lanczos *lz,
                             int *empty)
{
  const int64_t m = lz->m;
  int code;
  for (int64_t g = 0; g < m; g++) lz->tmp[g] = 1.0 / (double)m;
  if ((code = kg->apply(kg, sgp_cmat_of(lz->tmp, m, 1), sgp_mat_of(lz->wv, m, 1), ctx)))
    return code;
  if ((code = B->apply(B, sgp_cmat_of(lz->wv, m, 1), sgp_mat_of(lz->Pw, m, 1), ctx)))
    return code;
  const double nrm2 = dot(m, lz->wv, lz->Pw);
  if (!isfinite(nrm2)) return love_nonfinite(ctx, 0);
  *empty = !(nrm2 > 0 && isfinite(nrm2));
  if (*empty) return SGP_OK;
  const double nrm = sqrt(nrm2);
  for (int64_t g = 0; g < m; g++) { lz->Qh[g] = lz->wv[g] / nrm; lz->Ph[g] = lz->Pw[g] / nrm; }
  if ((code = kg->apply(kg, sgp_cmat_of(lz->Ph, m, 1), sgp_mat_of(lz->S, m, 1), ctx)))
    return code;
  for (int64_t g = 0; g < m; g++) lz->S[g] += lz->noise * lz->Qh[g];
  return SGP_OK;
}

/* CGS2 of wv against q_1..q_{i+1} in the B inner product: lambda = Phat' w;
 * w -= Qhat lambda, twice. */
static int love_reorthogonalize(sgp_ctx *ctx, love_lanczos *lz, int64_t i)
{
  const int64_t m = lz->m;
  int code = SGP_OK;
  /* serial BLAS: a threaded OpenBLAS splits the products by its thread count,
   * which changes their bits (ski_fft.c, mode_dense) */
  const int blas_threads = sgp_blas_serial_begin();
  for (int pass = 0; pass < 2 && !code; pass++) {
    code = sgp_gemm(ctx, 'T', 'N', i + 1, 1, m, 1.0, lz->Ph, m, lz->wv, m, 0.0, lz->lam, i + 1);
    if (!code)
      code = sgp_gemm(ctx, 'N', 'N', m, 1, i + 1, -1.0, lz->Qh, m, lz->lam, i + 1, 1.0, lz->wv,
                      m);
  }
  sgp_blas_serial_end(blas_threads);
  return code;
}

/* beta_i = ||wv||_B and the next vector q_{i+2} = wv / beta_i with its Phat
 * column and S = M q_{i+2}. *stop: an invariant subspace (beta_i negligible). */
static int love_next_vector(sgp_ctx *ctx, const sgp_op *kg, const sgp_op *B, love_lanczos *lz,
                            int64_t i, int *stop)
{
  const int64_t m = lz->m;
  int code;
  if ((code = B->apply(B, sgp_cmat_of(lz->wv, m, 1), sgp_mat_of(lz->Pw, m, 1), ctx)))
    return code;
  const double bb = dot(m, lz->wv, lz->Pw);
  if (!isfinite(bb)) return love_nonfinite(ctx, i + 1);
  const double b = bb > 0 ? sqrt(bb) : 0.0;
  *stop = !(b > 1e-10 * fabs(lz->al[i]));
  if (*stop) return SGP_OK;
  lz->be[i] = b;
  if ((code = kg->apply(kg, sgp_cmat_of(lz->Pw, m, 1), sgp_mat_of(lz->Sw, m, 1), ctx)))
    return code;
  double *qn = lz->Qh + (i + 1) * m, *pn = lz->Ph + (i + 1) * m;
  for (int64_t g = 0; g < m; g++) {
    qn[g] = lz->wv[g] / b;
    pn[g] = lz->Pw[g] / b;
    lz->S[g] = (lz->Sw[g] + lz->noise * lz->wv[g]) / b;
  }
  return SGP_OK;
}

/* Up to k Lanczos steps with full reorthogonalization; *steps: how many gave
 * a diagonal entry of T (an invariant subspace ends the run early). */
static int love_lanczos_run(sgp_ctx *ctx, const sgp_op *kg, const sgp_op *B, love_lanczos *lz,
                            int64_t *steps)
{
  const int64_t m = lz->m, k = lz->k;
  int code, empty = 0, stop = 0;
  *steps = 0;
  if ((code = love_first_vector(ctx, kg, B, lz, &empty)) || empty) return code;
  for (int64_t i = 0; i < k; i++) {
    const double *qi = lz->Qh + i * m, *pi = lz->Ph + i * m;
    if ((code = sgp_poll_interrupt(ctx))) return code;
    /* w = A q_i - beta_i q_{i-1} */
    if (i == 0) memcpy(lz->wv, lz->S, (size_t)m * sizeof(double));
    else
      for (int64_t g = 0; g < m; g++) lz->wv[g] = lz->S[g] - lz->be[i - 1] * qi[g - m];
    lz->al[i] = dot(m, pi, lz->wv);
    if (!isfinite(lz->al[i])) return love_nonfinite(ctx, i + 1);
    *steps = i + 1;
    if (i == k - 1) break;
    for (int64_t g = 0; g < m; g++) lz->wv[g] -= lz->al[i] * qi[g];
    if ((code = love_reorthogonalize(ctx, lz, i))) return code;
    if ((code = love_next_vector(ctx, kg, B, lz, i, &stop)) || stop) return code;
  }
  return SGP_OK;
}

/* T = C C' (lower bidiagonal C: diagonal cc, subdiagonal ee); the rank kept is
 * where T's leading block stops being numerically positive definite. */
static int64_t love_tridiag_cholesky(love_lanczos *lz, int64_t steps)
{
  int64_t kk = 0;
  for (int64_t i = 0; i < steps; i++) {
    double d2 = lz->al[i];
    if (i > 0) { lz->ee[i - 1] = lz->be[i - 1] / lz->cc[i - 1]; d2 -= lz->ee[i - 1] * lz->ee[i - 1]; }
    if (!(d2 > 0) || !isfinite(d2)) break;
    lz->cc[i] = sqrt(d2);
    kk = i + 1;
  }
  return kk;
}

/* The cache F' (kk-by-m) with F C' = K_G Phat. */
static int love_cache(sgp_ctx *ctx, const sgp_op *kg, const love_lanczos *lz, sgp_ski_love *lv)
{
  const int64_t m = lz->m, kk = lv->rank;
  int code = SGP_OK;
  double *R = sgp_alloc(m * kk);
  lv->Ft = sgp_alloc(kk * m);
  if (!R || !lv->Ft) {
    code = sgp_fail(ctx, SGP_ENOMEM, "rank: out of memory for the LOVE cache");
    goto cleanup;
  }
  /* R = K_G Phat = K_G W' Q (one block product) */
  if ((code = kg->apply(kg, sgp_cmat_of(lz->Ph, m, kk), sgp_mat_of(R, m, kk), ctx)))
    goto cleanup;
  /* F C' = R row by row: C f = r (forward substitution) */
  for (int64_t g = 0; g < m; g++) {
    double *f = lv->Ft + g * kk, prev = 0.0;
    for (int64_t i = 0; i < kk; i++) {
      const double r = R[g + i * m] - (i > 0 ? lz->ee[i - 1] * prev : 0.0);
      f[i] = prev = r / lz->cc[i];
    }
  }
cleanup:
  free(R);
  return code;
}

int sgp_ski_love_build(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       int64_t rank, sgp_ski_love **out)
{
  int code;
  sgp_op B;
  sgp_ski_love *lv = NULL;
  love_lanczos lz;
  memset(&B, 0, sizeof B);
  memset(&lz, 0, sizeof lz);
  if (!out) return sgp_fail(ctx, SGP_EINVAL, "love: output handle missing");
  *out = NULL;
  if ((code = sgp_ski_check_model(ctx, st, kg, noise))) return code;
  const int64_t m = st->m;
  int64_t k = 0, steps = 0;
  if ((code = love_rank(ctx, m, rank, &k))) return code;
  if ((code = sgp_ski_stats_op(ctx, st, &B))) return code;
  lz.m = m; lz.k = k; lz.noise = noise;
  lv = (sgp_ski_love *)calloc(1, sizeof *lv);
  const int have_basis = love_lanczos_alloc(&lz);
  if (lv) lv->c0 = sgp_alloc(m);
  if (!lv || !have_basis || !lv->c0) {
    code = sgp_fail(ctx, SGP_ENOMEM, "rank: out of memory for the %lld x %lld Lanczos basis",
                    (long long)m, (long long)k);
    goto cleanup;
  }
  lv->grid = st->grid;
  lv->interp = st->interp;
  lv->m = m;
  if ((code = first_column(ctx, kg, lz.tmp, lv->c0))) goto cleanup;
  if ((code = love_lanczos_run(ctx, kg, &B, &lz, &steps))) goto cleanup;
  lv->rank = love_tridiag_cholesky(&lz, steps);
  if (lv->rank > 0 && (code = love_cache(ctx, kg, &lz, lv))) goto cleanup;
  const sgp_ski_love_basis lb = {lv->rank, lz.Qh, lz.Ph, lz.cc, lz.ee, lv->c0};
  if ((code = sgp_ski_love_check(ctx, st, kg, &B, noise, &lb, &lv->error))) goto cleanup;
  *out = lv;
  lv = NULL;
cleanup:
  sgp_op_destroy(&B);
  sgp_ski_love_free(lv);
  free(lz.Qh); free(lz.Ph); free(lz.work);
  return code;
}

int sgp_ski_love_var(sgp_ctx *ctx, const sgp_ski_love *lv, sgp_ski_bounds_policy policy,
                     sgp_cmat Xs, double noise, double *var, double *pvar, int64_t *clamped)
{
  int code;
  int64_t *idx = NULL, *sub = NULL;
  double *w = NULL, *f = NULL;
  if (!lv || !lv->c0) return sgp_fail(ctx, SGP_EINVAL, "love: missing");
  const sgp_ski_grid *g = &lv->grid;
  if ((code = check_xtest(ctx, g, Xs))) return code;
  if (pvar && (!(noise >= 0) || !isfinite(noise)))
    return sgp_fail(ctx, SGP_EINVAL, "noise: must be a non-negative finite variance (got %g)",
                    noise);
  const int64_t n = Xs.rows, T = sgp_ski_interp_taps(lv->interp, g->d), k = lv->rank;
  if (clamped) *clamped = 0;
  if (n == 0) return SGP_OK;
  if (!var) return sgp_fail(ctx, SGP_EINVAL, "var: output missing");
  const int64_t blk = n < VAR_BLOCK ? n : VAR_BLOCK;
  idx = (int64_t *)malloc((size_t)(blk * T) * sizeof(int64_t));
  sub = (int64_t *)malloc((size_t)(T * g->d) * sizeof(int64_t));
  w = sgp_alloc(blk * T);
  f = sgp_alloc(k > 0 ? k : 1);
  if (!idx || !sub || !w || !f) {
    code = sgp_fail(ctx, SGP_ENOMEM, "xtest: out of memory for the variances");
    goto cleanup;
  }
  for (int64_t i0 = 0; i0 < n; i0 += blk) {
    const int64_t nb = n - i0 < blk ? n - i0 : blk;
    const sgp_cmat Xb = {Xs.data + i0, nb, Xs.cols, Xs.ld};
    if ((code = interp_test(ctx, g, lv->interp, policy, Xb, i0, idx, w))) goto cleanup;
    for (int64_t i = 0; i < nb; i++) {
      const int64_t *ix = idx + i * T;
      const double *wi = w + i * T;
      /* (w'K_G w < 0 only by rounding, as in sgp_ski_prior_var) */
      const double prior = fmax(0.0, prior_point(g, lv->c0, T, ix, wi, sub));
      for (int64_t j = 0; j < k; j++) f[j] = 0.0;
      for (int64_t t = 0; t < T; t++) {
        if (ix[t] < 0 || wi[t] == 0.0) continue;
        const double *Fg = lv->Ft + ix[t] * k, wt = wi[t];
        for (int64_t j = 0; j < k; j++) f[j] += wt * Fg[j];
      }
      double v = prior - dot(k, f, f);
      if (!(v >= 0)) { /* never negative: set to 0 and counted (the check's bound tells how
                          far the cache is from exact) */
        v = 0.0;
        if (clamped) (*clamped)++;
      }
      var[i0 + i] = v;
      if (pvar) pvar[i0 + i] = v + noise;
    }
  }
cleanup:
  free(idx); free(sub); free(w); free(f);
  return code;
}
