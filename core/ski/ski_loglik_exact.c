/* ski_loglik_exact.c -- the exact log marginal likelihood of ski_gsgp and its
 * gradient from the sufficient statistics alone (option loglik_method
 * "exact"), by dense
 * m-by-m linear algebra: O(m^3) per evaluation, independent of n, no probes,
 * deterministic.
 *
 * Model: y - mu 1 ~ N(0, A), A = s2 I_n + W K W' (K = K_G, m-by-m, PSD;
 * s2 = noise), statistics B = W'W, u = W'(y - mu 1), rho = |y - mu 1|^2, n,
 * u1 = W'1, sum (y - mu). Everything below follows from the push-through
 * identity (s2 I_n + W K W')^{-1} W = W M^{-1} with
 *
 *   M = s2 I_m + K B                                            (m-by-m)
 *
 * whose eigenvalues are those of s2 I + L'BL (K = LL'): real and >= s2, so M
 * is invertible for every s2 > 0 however singular K or B are.
 *  - log|A| = n log s2 + log|I_m + K B / s2| = (n - m) log s2 + log|M|
 *    (Weinstein-Aronszajn); log|M| = sum log|U_ii| of M's LU factor (its
 *    sign, with the pivots', must be +: a check).
 *  - A^{-1} = (I_n - W M^{-1} K W') / s2 (Woodbury), so with a = M^{-1} K u
 *    (the mean cache of the fit): y'A^{-1}y = (rho - u'a) / s2, and
 *    z = A^{-1}(y - mu 1) = ((y - mu 1) - W a) / s2.
 *  - W'z = M^{-T} u (transpose the push-through); 1'z = (sum (y - mu) - u1'a)
 *    / s2 (the mean's derivative); z'z = (rho - 2 u'a + a'Ba) / s2^2.
 *  - W'A^{-1}W = B M^{-1} =: S (symmetric, PSD), so for a kernel parameter
 *    with dA = W dK W':  tr(A^{-1} dA) = tr(dK S)  and
 *      dL/dtheta = 1/2 (W'z)' dK (W'z) - 1/2 tr(dK S);
 *    dK = K for log outputscale, sgp_ski_grid_op_deriv for each log ell.
 *  - noise: dA/dlog s2 = s2 I, tr(A^{-1}) = (n - m)/s2 + tr(M^{-1}), so
 *      dL/dlog s2 = 1/2 s2 z'z - 1/2 ((n - m) + s2 tr(M^{-1})).
 *  - the GLS mean at these values: 1'A^{-1}(y - mu 1) / 1'A^{-1}1 with
 *    1'A^{-1}1 = (n - u1'M^{-1}K u1) / s2 (one more solve).
 *
 * Why this form and not a symmetric one. (1) A factor of K (K = LL',
 * C = s2 I + L'BL, Cholesky) needs L: K of a smooth kernel on a grid that
 * resolves it is numerically singular (rbf with h = ell/3: eigenvalues down
 * to 1e-17 ||K||), so Cholesky fails or needs a jitter, which changes the
 * model by that jitter (the noise is of the same order as the terms it
 * perturbs when s2 is small), and an eigen-decomposition of K costs ~9 m^3
 * per evaluation. (2) A factor of B (B = FF', C = s2 I + F'KF) is computed
 * once and gives log|A| and S = F C^{-1} F' cleanly, but the data fit then
 * needs F^+ u (B's pseudo-inverse: grid points at the edge of the data have
 * B entries 1e-6 of the others, so that solve amplifies rounding by
 * cond(B)^(1/2)), or the form (u'Ku - |R^{-1}F'Ku|^2)/s2 whose cancellation
 * grows with cond(C)^2. (3) M's LU (partial pivoting) is backward stable:
 * the computed factor is that of M + E with |E| <= c m eps |L||U| (growth
 * factor ~1 in practice); M is similar to the SPD s2 I + L'BL, so the
 * eigenvalues of M + E stay within ||E|| kappa(L) of theirs, and what this
 * costs is bounded by the condition number kappa = ||M|| ||M^{-1}|| <=
 * (s2 + ||K|| ||B||) ||M^{-1}||, with ||M^{-1}|| <= (1 + ||K|| ||B|| / s2) / s2
 * (M^{-1} = (I - K S) / s2, ||S|| <= ||B|| / s2). Every quantity above is
 * one LU solve, the inverse, or a product with B or dK: relative errors of
 * order m eps kappa, with no cancellation beyond the data's own (rho - u'a:
 * the residual against the signal, and the noise entry's z'z), which any
 * formula in these statistics has. One factorization, no jitter, no
 * factor of K or B: 2 m^3 flops (dgetrf 2/3 m^3, dgetri 4/3 m^3) plus
 * O(m^2 log m) for the products with K and dK (FFT or Kronecker operators
 * applied to m columns) and O(S m^2) with B.
 *
 * Threads: the whole evaluation runs with a serial BLAS (sgp_blas_serial_begin):
 * OpenBLAS's threaded dgetrf/dgetri/dgemm split their blocks by the thread
 * count, and the values of the same evaluation under OPENBLAS_NUM_THREADS=1
 * and 2 differed in the last 10-20 bits (seen on m = 150..600), which the
 * optimizer turns into different learned values. The operators (K_G, dK,
 * B products) thread over columns with the context's threads, each column
 * computed alike (ski_fft.c, ski_bop.c): the result is the same for every
 * thread count. Measured on 2 shared cores: 0.92 s per evaluation (value and
 * gradient) at m = 2048 with the serial BLAS, 0.95 s with two threads. */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LOG_2PI 1.8378770664093454836
/* Columns of S per derivative product (bounds the work buffers to 3 x CHUNK
 * columns of m). */
#define CHUNK 256

int sgp_ski_loglik_use_eig(sgp_ski_loglik_method method, const sgp_kernel *k,
                           const sgp_ski_grid *g, int64_t m)
{
  if (sgp_ski_loglik_use_exact(method, m) || method == SGP_SKI_LOGLIK_SLQ) return 0;
  return sgp_ski_kron_eig_applies(k, g);
}

int sgp_ski_loglik_use_exact(sgp_ski_loglik_method method, int64_t m)
{
  if (method == SGP_SKI_LOGLIK_EXACT) return 1;
  if (method == SGP_SKI_LOGLIK_SLQ || method == SGP_SKI_LOGLIK_EIGEN) return 0;
  return m <= SGP_SKI_EXACT_AUTO_MAX;
}

typedef struct {
  int64_t m;
  double *K, *M, *S;       /* m-by-m each: K_G; M's LU, then M^{-1}; S = B M^{-1} */
  double *vec;             /* 8 m: Ku, K u1, a, a1, W'z, B a, K W'z */
  double *in, *out, *acc;  /* m-by-(CHUNK + 1) each: [W'z, columns of S] through dK */
  int *ipiv;
  sgp_op kg, B;
} exact_work;

static void work_free(exact_work *w)
{
  free(w->K); free(w->M); free(w->S); free(w->vec); free(w->in); free(w->out); free(w->acc);
  free(w->ipiv);
  sgp_op_destroy(&w->kg);
  sgp_op_destroy(&w->B);
}

static int work_alloc(sgp_ctx *ctx, exact_work *w, int grad)
{
  const int64_t m = w->m, c = m < CHUNK ? m : CHUNK;
  /* three m-by-m matrices must fit in half the machine's memory */
  const double need = 3.0 * 8.0 * (double)m * (double)m, have = sgp_phys_mem_bytes();
  if (have > 0 && need > 0.5 * have)
    return sgp_fail(ctx, SGP_ENOMEM, "loglik_method: \"exact\" needs %.3g GB for m = %lld grid "
                    "points; use \"slq\"", need / 1e9, (long long)m);
  w->K = sgp_alloc(m * m);
  w->M = sgp_alloc(m * m);
  w->S = grad ? sgp_alloc(m * m) : NULL;
  w->vec = sgp_calloc(8 * m);
  w->in = grad ? sgp_alloc(m * (c + 1)) : NULL;
  w->out = grad ? sgp_alloc(m * (c + 1)) : NULL;
  w->acc = grad ? sgp_alloc(m * (c + 1)) : NULL;
  w->ipiv = (int *)malloc((size_t)(m > 0 ? m : 1) * sizeof(int));
  if (!w->K || !w->M || !w->vec || !w->ipiv || (grad && (!w->S || !w->in || !w->out || !w->acc)))
    return sgp_fail(ctx, SGP_ENOMEM, "loglik_method: out of memory for the exact "
                    "log-likelihood (m = %lld)", (long long)m);
  return SGP_OK;
}

/* K = K_G (dense, symmetrized: the FFT products round the two triangles
 * differently) and M = s2 I + K B = s2 I + (B K)' (K and B symmetric), B K
 * formed in S (or in M's place first when there is no S). */
static int build_m(sgp_ctx *ctx, double noise, exact_work *w)
{
  const int64_t m = w->m;
  int code;
  memset(w->M, 0, (size_t)(m * m) * sizeof(double));
  for (int64_t i = 0; i < m; i++) w->M[i + i * m] = 1.0;
  if ((code = w->kg.apply(&w->kg, sgp_cmat_of(w->M, m, m), sgp_mat_of(w->K, m, m), ctx)))
    return code;
  for (int64_t j = 0; j < m; j++)
    for (int64_t i = j + 1; i < m; i++) {
      const double v = 0.5 * (w->K[i + j * m] + w->K[j + i * m]);
      w->K[i + j * m] = w->K[j + i * m] = v;
    }
  double *bk = w->S ? w->S : w->M;
  if ((code = w->B.apply(&w->B, sgp_cmat_of(w->K, m, m), sgp_mat_of(bk, m, m), ctx))) return code;
  if (bk == w->M) { /* transpose in place */
    for (int64_t j = 0; j < m; j++)
      for (int64_t i = j + 1; i < m; i++) {
        const double t = w->M[i + j * m];
        w->M[i + j * m] = w->M[j + i * m];
        w->M[j + i * m] = t;
      }
  } else {
    for (int64_t j = 0; j < m; j++)
      for (int64_t i = 0; i < m; i++) w->M[i + j * m] = bk[j + i * m];
  }
  for (int64_t i = 0; i < m; i++) w->M[i + i * m] += noise;
  return SGP_OK;
}

/* log|M| from its LU factor; SGP_ENOTPD when the determinant is not positive
 * (it is in exact arithmetic: a matrix this ill-conditioned is no model). */
static int lu_logdet(sgp_ctx *ctx, const exact_work *w, double *logdet)
{
  const int64_t m = w->m;
  double s = 0.0;
  int neg = 0;
  for (int64_t i = 0; i < m; i++) {
    const double u = w->M[i + i * m];
    if (!(u != 0.0) || !isfinite(u))
      return sgp_fail(ctx, SGP_ENOTPD, "noise: the exact log-likelihood's matrix s2 I + K_G B "
                      "is numerically singular (noise too small against outputscale)");
    neg ^= u < 0;
    neg ^= w->ipiv[i] != (int)(i + 1);
    s += log(fabs(u));
  }
  if (neg)
    return sgp_fail(ctx, SGP_ENOTPD, "noise: the exact log-likelihood's matrix s2 I + K_G B "
                    "has a negative determinant (rounding: noise too small against outputscale)");
  *logdet = s;
  return SGP_OK;
}

/* The value: M's LU, a = M^{-1} K u, a1 = M^{-1} K u1, W'z = M^{-T} u. */
static int value_part(sgp_ctx *ctx, const sgp_ski_stats *st, double noise, exact_work *w,
                      sgp_ski_loglik_result *v)
{
  const int64_t m = w->m;
  double *ku = w->vec, *k1 = w->vec + m, *a = w->vec + 2 * m, *a1 = w->vec + 3 * m,
         *wz = w->vec + 4 * m;
  int code;
  if ((code = sgp_gemm(ctx, 'N', 'N', m, 1, m, 1.0, w->K, m, st->uy, m, 0.0, ku, m))) return code;
  if ((code = sgp_gemm(ctx, 'N', 'N', m, 1, m, 1.0, w->K, m, st->u1, m, 0.0, k1, m))) return code;
  if ((code = sgp_getrf(ctx, m, w->M, m, w->ipiv)))
    return code == SGP_ENOTPD
               ? sgp_fail(ctx, SGP_ENOTPD, "noise: the exact log-likelihood's matrix s2 I + K_G "
                          "B is numerically singular (noise too small against outputscale)")
               : code;
  double logm = 0.0;
  if ((code = lu_logdet(ctx, w, &logm))) return code;
  memcpy(a, ku, (size_t)m * sizeof(double));
  memcpy(a1, k1, (size_t)m * sizeof(double));
  memcpy(wz, st->uy, (size_t)m * sizeof(double));
  if ((code = sgp_getrs(ctx, 'N', m, 2, w->M, m, w->ipiv, a, m))) return code; /* a, a1 */
  if ((code = sgp_getrs(ctx, 'T', m, 1, w->M, m, w->ipiv, wz, m))) return code;
  v->logdet = (double)(st->n - m) * log(noise) + logm;
  v->logdet_se = 0.0;
  v->datafit = (st->yy - sgp_dot(m, st->uy, a)) / noise;
  v->loglik = -0.5 * (v->logdet + v->datafit + (double)st->n * LOG_2PI);
  v->probes_used = v->probes_discarded = v->slq_iterations = 0;
  v->converged = 1;
  memset(&v->mean_info, 0, sizeof v->mean_info);
  v->mean_info.converged = 1;
  v->mean_info.stop = SGP_SKI_STOP_TOL;
  return SGP_OK;
}

/* Lengthscale entries: 1/2 (W'z)' dK (W'z) - 1/2 tr(dK S), dK applied to
 * [W'z, CHUNK columns of S] at a time (the trace from the diagonal). */
static int grad_lengthscales(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                             const sgp_ski_kg_opts *ko, exact_work *w,
                             sgp_ski_loglik_grad_result *res)
{
  const sgp_ski_grid *g = &st->grid;
  const int64_t m = w->m, L = k->n_lengthscale;
  const unsigned all = (1u << g->d) - 1u;
  const int kron = sgp_ski_grid_op_path(&w->kg) == SGP_SKI_KG_KRONECKER;
  const double *wz = w->vec + 4 * m;
  int code;
  for (int64_t p = 0; p < L; p++) {
    const unsigned mask = L == 1 ? all : 1u << p;
    double quad = 0.0, tr = 0.0;
    for (int64_t j0 = 0; j0 < m; j0 += CHUNK) {
      const int64_t c = m - j0 < CHUNK ? m - j0 : CHUNK;
      memcpy(w->in, wz, (size_t)m * sizeof(double));
      memcpy(w->in + m, w->S + j0 * m, (size_t)(c * m) * sizeof(double));
      if ((code = sgp_ski_apply_dkg(ctx, k, g, ko, L == 1 && kron, mask,
                                    sgp_cmat_of(w->in, m, c + 1), w->out, w->acc)))
        return code;
      if (j0 == 0) quad = 0.5 * sgp_dot(m, wz, w->acc);
      for (int64_t j = 0; j < c; j++) tr += w->acc[(j + 1) * m + j0 + j];
    }
    res->quad[p] = quad;
    res->trace[p] = 0.5 * tr;
    res->grad[p] = quad - 0.5 * tr;
  }
  return SGP_OK;
}

/* The gradient: M^{-1} (in M's place), S = B M^{-1}, then every entry. */
static int grad_part(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k, double noise,
                     const sgp_ski_kg_opts *ko, exact_work *w, sgp_ski_loglik_grad_result *res)
{
  const int64_t m = w->m, L = k->n_lengthscale;
  const double *a = w->vec + 2 * m, *wz = w->vec + 4 * m;
  double *ba = w->vec + 5 * m, *kwz = w->vec + 6 * m;
  int code;
  if ((code = sgp_getri(ctx, m, w->M, m, w->ipiv))) return code;
  double trm = 0.0, trks = 0.0;
  for (int64_t i = 0; i < m; i++) trm += w->M[i + i * m];
  if ((code = w->B.apply(&w->B, sgp_cmat_of(w->M, m, m), sgp_mat_of(w->S, m, m), ctx)))
    return code;
  if ((code = grad_lengthscales(ctx, st, k, ko, w, res))) return code;
  /* log outputscale: dK = K; tr(K S) = sum_ij K_ij S_ji */
  for (int64_t j = 0; j < m; j++)
    for (int64_t i = 0; i < m; i++) trks += w->K[i + j * m] * w->S[j + i * m];
  if ((code = sgp_gemm(ctx, 'N', 'N', m, 1, m, 1.0, w->K, m, wz, m, 0.0, kwz, m))) return code;
  res->quad[L] = 0.5 * sgp_dot(m, wz, kwz);
  res->trace[L] = 0.5 * trks;
  res->grad[L] = res->quad[L] - res->trace[L];
  /* log noise: z'z = (rho - 2 u'a + a'Ba) / s2^2 */
  if ((code = w->B.apply(&w->B, sgp_cmat_of(a, m, 1), sgp_mat_of(ba, m, 1), ctx))) return code;
  const double zz = (st->yy - 2.0 * sgp_dot(m, st->uy, a) + sgp_dot(m, a, ba)) / (noise * noise);
  res->quad[L + 1] = 0.5 * noise * zz;
  res->trace[L + 1] = 0.5 * ((double)(st->n - m) + noise * trm);
  res->grad[L + 1] = res->quad[L + 1] - res->trace[L + 1];
  return SGP_OK;
}

int sgp_ski_loglik_exact(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                         double noise, const sgp_ski_kg_opts *kgo, int grad, double *weights,
                         sgp_ski_loglik_grad_result *res, double *gls)
{
  exact_work w;
  int code, blas_threads = 0;
  memset(&w, 0, sizeof w);
  if ((code = sgp_ski_loglik_args(ctx, st, k, res))) return code;
  if ((code = sgp_ski_grid_op(ctx, k, &st->grid, kgo, &w.kg))) return code;
  if ((code = sgp_ski_check_model(ctx, st, &w.kg, noise))) goto cleanup;
  w.m = st->m;
  res->ntheta = k->n_lengthscale + 2;
  blas_threads = sgp_blas_serial_begin();
  if ((code = work_alloc(ctx, &w, grad))) goto cleanup;
  if ((code = sgp_ski_stats_op(ctx, st, &w.B))) goto cleanup;
  if ((code = build_m(ctx, noise, &w))) goto cleanup;
  if ((code = value_part(ctx, st, noise, &w, &res->value))) goto cleanup;
  const int64_t m = w.m;
  const double *a = w.vec + 2 * m, *a1 = w.vec + 3 * m;
  if (weights) memcpy(weights, a, (size_t)m * sizeof(double));
  res->dmean = (st->ysum - sgp_dot(m, st->u1, a)) / noise; /* 1'z */
  if (gls) { /* 1'A^{-1}(y - mu 1) / 1'A^{-1}1 */
    const double den = ((double)st->n - sgp_dot(m, st->u1, a1)) / noise;
    if (!(den > 0) || !isfinite(res->dmean / den)) {
      code = sgp_ski_gls_fail(ctx, den);
      goto cleanup;
    }
    *gls = res->dmean / den;
  }
  if (grad) {
    sgp_ski_kg_opts dko; /* one product each: no measuring of FFT plans */
    if (kgo) dko = *kgo; else sgp_ski_kg_opts_default(&dko);
    dko.expected_products = 0.0;
    code = grad_part(ctx, st, k, noise, &dko, &w, res);
  }
cleanup:
  sgp_blas_serial_end(blas_threads);
  work_free(&w);
  return code;
}
