/* evidence_blocked.c -- the exact evidence's dense O(n^3) steps in blocks, with
 * the host's interrupt polled between them. One LAPACK call on an n x n matrix
 * (a Cholesky, an inverse) cannot be stopped and runs for seconds at a few
 * thousand points; here no BLAS or LAPACK call does more than about
 * SGP_EV_CALL_FLOPS, so Ctrl-C is seen within a fraction of a second. The
 * algorithms are LAPACK's blocked ones (dpotrf's right-looking variant, dtrtri,
 * dlauum), with their large level-3 updates cut into blocks of b columns or
 * rows: the flops are the same, and b >= 64 keeps the calls at level-3 speed. */
#include "laplace/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Work of one call at most (2 n b^2 for an update of n rows by b columns over b
 * terms): a small fraction of a second even on one core. */
#define SGP_EV_CALL_FLOPS 1e9
#define BLOCK_MIN 64
#define BLOCK_MAX 256

/* Block size for an n x n factorization: 2 n b^2 <= SGP_EV_CALL_FLOPS, within
 * [BLOCK_MIN, BLOCK_MAX] (above n = 122k the calls grow past the target). */
static int64_t block_size(int64_t n)
{
  const double b = sqrt(SGP_EV_CALL_FLOPS / (2.0 * (double)(n > 1 ? n : 1)));
  return b >= BLOCK_MAX ? BLOCK_MAX : b <= BLOCK_MIN ? BLOCK_MIN : (int64_t)b;
}

static inline int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

int sgp_ev_potrf(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, int64_t *minor)
{
  const int64_t b = block_size(n);
  int st;
  *minor = 0;
  for (int64_t k = 0; k < n; k += b) {
    const int64_t kb = min64(b, n - k), r = n - k - kb;
    double *Akk = A + k + k * lda;
    int64_t m = 0;
    if ((st = sgp_potrf_minor(ctx, kb, Akk, lda, &m))) return st;
    if (m > 0) { *minor = k + m; return SGP_OK; }
    if (r == 0) break;
    /* A21 = A21 L11^-T, then the trailing matrix minus A21 A21', block column by column */
    if ((st = sgp_trsm(ctx, 'R', 'L', 'T', r, kb, 1.0, Akk, lda, Akk + kb, lda))) return st;
    for (int64_t j = k + kb; j < n; j += b) {
      const int64_t jb = min64(b, n - j);
      const double *Ajk = A + j + k * lda;
      double *Ajj = A + j + j * lda;
      if ((st = sgp_syrk(ctx, 'N', jb, kb, -1.0, Ajk, lda, 1.0, Ajj, lda)) ||
          (n - j - jb > 0 && (st = sgp_gemm(ctx, 'N', 'T', n - j - jb, jb, kb, -1.0, Ajk + jb, lda,
                                            Ajk, lda, 1.0, Ajj + jb, lda))) ||
          (st = sgp_poll_interrupt(ctx)))
        return st;
    }
  }
  return SGP_OK;
}

/* X = Linv X for the rows [j0, n) of the lower-triangular Linv (inverted
 * already) and X = A[j0:n, c:c+w], in row blocks from the bottom up: block i
 * becomes Linv_ii X_i + Linv[i, j0:i] X[j0:i], whose X[j0:i] is still the old one. */
static int trmm_rows_bottom_up(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, int64_t b,
                               int64_t j0, int64_t c, int64_t w)
{
  int st;
  for (int64_t i = j0 + (n - 1 - j0) / b * b; i >= j0; i -= b) {
    const int64_t ib = min64(b, n - i);
    if ((st = sgp_trmm(ctx, 'L', 'L', 'N', ib, w, 1.0, A + i + i * lda, lda, A + i + c * lda,
                       lda)) ||
        (i > j0 && (st = sgp_gemm(ctx, 'N', 'N', ib, w, i - j0, 1.0, A + i + j0 * lda, lda,
                                  A + j0 + c * lda, lda, 1.0, A + i + c * lda, lda))) ||
        (st = sgp_poll_interrupt(ctx)))
      return st;
  }
  return SGP_OK;
}

int sgp_ev_trtri(sgp_ctx *ctx, int64_t n, double *A, int64_t lda)
{
  if (n == 0) return SGP_OK;
  const int64_t b = block_size(n);
  int st;
  for (int64_t j = (n - 1) / b * b; j >= 0; j -= b) { /* dtrtri, lower: last block first */
    const int64_t jb = min64(b, n - j), r = n - j - jb;
    double *Ajj = A + j + j * lda;
    if (r > 0 && ((st = trmm_rows_bottom_up(ctx, n, A, lda, b, j + jb, j, jb)) ||
                  (st = sgp_trsm(ctx, 'R', 'L', 'N', r, jb, -1.0, Ajj, lda, Ajj + jb, lda))))
      return st;
    if ((st = sgp_trtri(ctx, 'L', jb, Ajj, lda)) || (st = sgp_poll_interrupt(ctx))) return st;
  }
  return SGP_OK;
}

/* The lower triangle of L' L for the lower-triangular ib x ib block L (dlauu2). */
static int lauum_block(sgp_ctx *ctx, int64_t ib, double *L, int64_t lda, double *T)
{
  for (int64_t j = 0; j < ib; j++)
    for (int64_t i = 0; i < ib; i++) T[i + j * ib] = i >= j ? L[i + j * lda] : 0.0;
  const int st = sgp_trmm(ctx, 'L', 'L', 'T', ib, ib, 1.0, L, lda, T, ib);
  if (st) return st;
  for (int64_t j = 0; j < ib; j++)
    for (int64_t i = j; i < ib; i++) L[i + j * lda] = T[i + j * ib];
  return SGP_OK;
}

int sgp_ev_lauum(sgp_ctx *ctx, int64_t n, double *A, int64_t lda)
{
  const int64_t b = block_size(n);
  double *T = sgp_alloc(b * b);
  if (!T) return sgp_fail(ctx, SGP_ENOMEM, "evidence: out of memory");
  int st = SGP_OK;
  for (int64_t i = 0; i < n && !st; i += b) { /* dlauum, lower */
    const int64_t ib = min64(b, n - i), r = n - i - ib;
    double *Aii = A + i + i * lda;
    if ((st = sgp_trmm(ctx, 'L', 'L', 'T', ib, i, 1.0, Aii, lda, A + i, lda)) ||
        (st = lauum_block(ctx, ib, Aii, lda, T)))
      break;
    for (int64_t c = 0; r > 0 && c < i && !st; c += b) /* A[i, 0:i] += A[i+ib:, i]' A[i+ib:, 0:i] */
      if (!(st = sgp_gemm(ctx, 'T', 'N', ib, min64(b, i - c), r, 1.0, Aii + ib, lda,
                          A + i + ib + c * lda, lda, 1.0, A + i + c * lda, lda)))
        st = sgp_poll_interrupt(ctx);
    if (!st && r > 0) st = sgp_syrk(ctx, 'T', ib, r, 1.0, Aii + ib, lda, 1.0, Aii, lda);
    if (!st) st = sgp_poll_interrupt(ctx);
  }
  free(T);
  return st;
}

int sgp_ev_potri(sgp_ctx *ctx, int64_t n, double *A, int64_t lda)
{
  int st = sgp_ev_trtri(ctx, n, A, lda);
  return st ? st : sgp_ev_lauum(ctx, n, A, lda);
}

/* Columns per call of a product whose every column costs `per_column` flops. */
static int64_t panel_width(double per_column, int64_t ncols)
{
  const double w = SGP_EV_CALL_FLOPS / (per_column > 1.0 ? per_column : 1.0);
  return w >= (double)ncols ? (ncols > 0 ? ncols : 1) : w <= 32.0 ? 32 : (int64_t)w;
}

int sgp_ev_trsm_left(sgp_ctx *ctx, char uplo, char trans, int64_t m, int64_t n,
                     const double *A, int64_t lda, double *B, int64_t ldb)
{
  const int64_t w = panel_width((double)m * (double)m, n);
  int st = SGP_OK;
  for (int64_t c = 0; c < n && !st; c += w)
    if (!(st = sgp_trsm(ctx, 'L', uplo, trans, m, min64(w, n - c), 1.0, A, lda, B + c * ldb, ldb)))
      st = sgp_poll_interrupt(ctx);
  return st;
}

int sgp_ev_trmm_left(sgp_ctx *ctx, char uplo, char trans, int64_t m, int64_t n,
                     const double *A, int64_t lda, double *B, int64_t ldb)
{
  const int64_t w = panel_width((double)m * (double)m, n);
  int st = SGP_OK;
  for (int64_t c = 0; c < n && !st; c += w)
    if (!(st = sgp_trmm(ctx, 'L', uplo, trans, m, min64(w, n - c), 1.0, A, lda, B + c * ldb, ldb)))
      st = sgp_poll_interrupt(ctx);
  return st;
}

int sgp_ev_gemm_nn(sgp_ctx *ctx, int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                   const double *B, int64_t ldb, double *C, int64_t ldc)
{
  const int64_t w = panel_width(2.0 * (double)m * (double)k, n);
  int st = SGP_OK;
  for (int64_t c = 0; c < n && !st; c += w)
    if (!(st = sgp_gemm(ctx, 'N', 'N', m, min64(w, n - c), k, 1.0, A, lda, B + c * ldb, ldb, 0.0,
                        C + c * ldc, ldc)))
      st = sgp_poll_interrupt(ctx);
  return st;
}

int sgp_ev_syrk_sub(sgp_ctx *ctx, int64_t n, int64_t k, const double *Y, int64_t ldy, double *Q,
                    int64_t ldq)
{
  const int64_t w = panel_width(2.0 * (double)n * (double)k, n);
  int st = SGP_OK;
  for (int64_t c = 0; c < n && !st; c += w) { /* Q[c:, c:c+w] -= Y[:, c:]' Y[:, c:c+w] */
    const int64_t cw = min64(w, n - c);
    if (!(st = sgp_gemm(ctx, 'T', 'N', n - c, cw, k, -1.0, Y + c * ldy, ldy, Y + c * ldy, ldy,
                        1.0, Q + c + c * ldq, ldq)))
      st = sgp_poll_interrupt(ctx);
  }
  for (int64_t j = 1; !st && j < n; j++) /* mirror: callers read both triangles */
    for (int64_t i = 0; i < j; i++) Q[i + j * ldq] = Q[j + i * ldq];
  return st;
}
