/* evidence_factor.c -- B = I + W^1/2 K W^1/2 for the exact evidence: its
 * factorization, products with R = W^1/2 B^-1 W^1/2, and the parts of
 * Sigma = K - K R K that the gradient needs. The
 * O(n^3) steps run in blocks that poll the interrupt (evidence_blocked.c). */
#include "laplace/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sgp_ev_factor_free(sgp_ev_factor *fac)
{
  free(fac->sw); free(fac->L); free(fac->V); free(fac->E); free(fac->M);
  memset(fac, 0, sizeof *fac);
}

int sgp_chol_scaled(sgp_ctx *ctx, int64_t n, const double *A, int64_t lda, const double *s,
                    double shift, double *L, int64_t ldl, int64_t *minor)
{
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = j; i < n; i++)
      L[i + j * ldl] = (i == j ? shift : 0.0) + s[i] * A[i + j * lda] * s[j];
  return minor ? sgp_potrf_minor(ctx, n, L, ldl, minor) : sgp_potrf(ctx, n, L, ldl);
}

/* L L' = I + diag(s) K diag(s) (polled: evidence_blocked.c); half_logdet += sum log L_ii. */
static int chol_scaled(sgp_ctx *ctx, int64_t n, const double *K, const double *s, double *L,
                       double *half_logdet)
{
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = j; i < n; i++)
      L[i + j * n] = (i == j ? 1.0 : 0.0) + s[i] * K[i + j * n] * s[j];
  int64_t minor = 0;
  int st = sgp_ev_potrf(ctx, n, L, n, &minor);
  if (st) return st;
  if (minor > 0)
    return sgp_fail(ctx, SGP_ENOTPD, "matrix is not positive definite (leading minor %lld)",
                    (long long)minor);
  for (int64_t i = 0; i < n; i++) *half_logdet += log(L[i + i * n]);
  return SGP_OK;
}

/* V = L^-1 diag(s) (lower triangular): a triangular inverse (n^3/3 flops, a
 * third of a solve against the identity) with its columns scaled. */
static int inv_scaled(sgp_ctx *ctx, int64_t n, const double *L, const double *s, double *V)
{
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) V[i + j * n] = i >= j ? L[i + j * n] : 0.0;
  int st = sgp_ev_trtri(ctx, n, V, n);
  if (st) return st;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = j; i < n; i++) V[i + j * n] *= s[j];
  return SGP_OK;
}

int sgp_ev_factorize(sgp_ctx *ctx, sgp_ev_factor *fac, const double *K, const double *w)
{
  const int64_t n = fac->n, C = fac->C;
  int st;
  fac->half_logdet = 0.0;
  if (!fac->softmax) {
    for (int64_t i = 0; i < n; i++) fac->sw[i] = sqrt(w[i]);
    return chol_scaled(ctx, n, K, fac->sw, fac->L, &fac->half_logdet);
  }
  /* softmax: |B| = prod_c |B_c| * |sum_c E_c| (Rasmussen and Williams, GPML, section 3.4.2;
   * the matrix determinant lemma) */
  double *Lc = fac->M, *sq = fac->sw; /* M and sw double as scratch until the end */
  for (int64_t c = 0; c < C; c++) {
    double *V = fac->V + c * n * n, *E = fac->E + c * n * n;
    for (int64_t i = 0; i < n; i++) sq[i] = sqrt(w[i + c * n]);
    if ((st = chol_scaled(ctx, n, K, sq, Lc, &fac->half_logdet))) return st;
    if ((st = inv_scaled(ctx, n, Lc, sq, V))) return st;
    /* E = V'V for the lower-triangular V (dlauum's n^3/3 flops), both triangles */
    memcpy(E, V, (size_t)(n * n) * sizeof(double));
    if ((st = sgp_ev_lauum(ctx, n, E, n))) return st;
    for (int64_t j = 1; j < n; j++)
      for (int64_t i = 0; i < j; i++) E[i + j * n] = E[j + i * n];
  }
  memcpy(fac->M, fac->E, (size_t)(n * n) * sizeof(double));
  for (int64_t c = 1; c < C; c++)
    for (int64_t k = 0; k < n * n; k++) fac->M[k] += fac->E[c * n * n + k];
  int64_t minor = 0;
  if ((st = sgp_ev_potrf(ctx, n, fac->M, n, &minor))) return st;
  if (minor > 0)
    return sgp_fail(ctx, SGP_ENOTPD, "matrix is not positive definite (leading minor %lld)",
                    (long long)minor);
  for (int64_t i = 0; i < n; i++) fac->half_logdet += log(fac->M[i + i * n]);
  return SGP_OK;
}

int sgp_ev_apply_r(sgp_ctx *ctx, const sgp_ev_factor *fac, const double *Z, double *out)
{
  const int64_t n = fac->n, C = fac->C;
  int st;
  if (!fac->softmax) {
    for (int64_t i = 0; i < n; i++) out[i] = fac->sw[i] * Z[i];
    if ((st = sgp_potrs(ctx, n, 1, fac->L, n, out, n))) return st;
    for (int64_t i = 0; i < n; i++) out[i] *= fac->sw[i];
    return SGP_OK;
  }
  /* R = E - E R' (sum_c E_c)^-1 R E with R' stacking identities (R&W Alg. 3.3) */
  double *p = sgp_calloc(n);
  if (!p) return sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  for (int64_t c = 0; c < C; c++) {
    if ((st = sgp_gemm(ctx, 'N', 'N', n, 1, n, 1.0, fac->E + c * n * n, n, Z + c * n, n, 0.0,
                       out + c * n, n))) { free(p); return st; }
    for (int64_t i = 0; i < n; i++) p[i] += out[i + c * n];
  }
  if (!(st = sgp_potrs(ctx, n, 1, fac->M, n, p, n)))
    for (int64_t c = 0; c < C && !st; c++)
      st = sgp_gemm(ctx, 'N', 'N', n, 1, n, -1.0, fac->E + c * n * n, n, p, n, 1.0,
                    out + c * n, n);
  free(p);
  return st;
}

/* diag(K V'V K): d[i] = sum_k (V K)[k, i]^2 for a lower-triangular V (a
 * triangular product: half the flops of a general one). */
static int diag_kvvk(sgp_ctx *ctx, int64_t n, const double *V, const double *K, double *work,
                     double *d)
{
  memcpy(work, K, (size_t)(n * n) * sizeof(double));
  int st = sgp_ev_trmm_left(ctx, 'L', 'N', n, n, V, n, work, n);
  if (st) return st;
  for (int64_t i = 0; i < n; i++) d[i] = sgp_dot(n, work + i * n, work + i * n);
  return SGP_OK;
}

/* Diagonal W: everything from B^-1 (dpotri, 2n^3/3 flops): R = W^1/2 B^-1 W^1/2,
 * and with K = W^-1/2 (B - I) W^-1/2, Sigma = (K^-1 + W)^-1 = W^-1/2 (I - B^-1)
 * W^-1/2, so Sigma_ii = (1 - (B^-1)_ii) / W_ii. Where W_ii K_ii is tiny the
 * difference loses digits, but Sigma only enters s2 = 1/2 Sigma_ii d3_i with
 * |d3_i| <= W_ii (logit, poisson; 0 for gaussian): s2 keeps an absolute error of
 * a few eps. W_ii = 0 (an underflowed logit weight) has d3_i = 0: Sigma_ii = K_ii. */
static int cov_parts_diagonal(sgp_ctx *ctx, const sgp_ev_factor *fac, const double *K,
                              double *Q, double *S)
{
  const int64_t n = fac->n;
  const double *sw = fac->sw;
  memcpy(Q, fac->L, (size_t)(n * n) * sizeof(double));
  int st = sgp_ev_potri(ctx, n, Q, n);
  if (st) return st;
  for (int64_t i = 0; i < n; i++)
    S[i] = sw[i] > 0.0 ? (1.0 - Q[i + i * n]) / (sw[i] * sw[i]) : K[i + i * n];
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = j; i < n; i++) Q[i + j * n] = Q[j + i * n] = sw[i] * Q[i + j * n] * sw[j];
  return SGP_OK;
}

/* Softmax: R_cc = E_c - E_c P E_c with P = (sum E)^-1, so Q = sum_c E_c - sum_c
 * Y_c' Y_c with Y_c = M^-1 E_c; Sigma_i[c, c'] = [c = c'] (K_ii - (K E_c K)_ii)
 * + (H_c' H_c'')_ii with H_c = Y_c K. */
static int cov_parts_softmax(sgp_ctx *ctx, const sgp_ev_factor *fac, const double *K,
                             double *Q, double *S)
{
  const int64_t n = fac->n, C = fac->C, nn = n * n;
  double *H = sgp_alloc(C * nn), *Y = sgp_alloc(nn), *d = sgp_alloc(n);
  int st = SGP_OK;
  if (!H || !Y || !d) { st = sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory"); goto done; }
  for (int64_t k = 0; k < nn; k++) { Q[k] = 0.0; for (int64_t c = 0; c < C; c++) Q[k] += fac->E[c * nn + k]; }
  for (int64_t c = 0; c < C && !st; c++) {
    memcpy(Y, fac->E + c * nn, (size_t)nn * sizeof(double));
    if ((st = sgp_ev_trsm_left(ctx, 'L', 'N', n, n, fac->M, n, Y, n))) break;
    if ((st = sgp_ev_syrk_sub(ctx, n, n, Y, n, Q, n))) break;
    if ((st = sgp_ev_gemm_nn(ctx, n, n, n, Y, n, K, n, H + c * nn, n))) break;
    if ((st = diag_kvvk(ctx, n, fac->V + c * nn, K, Y, d))) break;
    for (int64_t i = 0; i < n; i++) S[i + n * (c + C * c)] = K[i + i * n] - d[i];
  }
  for (int64_t c = 0; c < C && !st; c++)
    for (int64_t c2 = 0; c2 <= c; c2++)
      for (int64_t i = 0; i < n; i++) {
        const double h = sgp_dot(n, H + c * nn + i * n, H + c2 * nn + i * n);
        if (c2 == c) S[i + n * (c + C * c)] += h;
        else S[i + n * (c + C * c2)] = S[i + n * (c2 + C * c)] = h;
      }
done:
  free(H); free(Y); free(d);
  return st;
}

int sgp_ev_cov_parts(sgp_ctx *ctx, const sgp_ev_factor *fac, const double *K, double *Q,
                     double *S)
{
  return fac->softmax ? cov_parts_softmax(ctx, fac, K, Q, S)
                      : cov_parts_diagonal(ctx, fac, K, Q, S);
}
