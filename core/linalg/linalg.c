/* linalg.c -- the only file that calls BLAS and LAPACK.
 *
 * Prototypes are declared here (no host headers in the core) with the hidden
 * Fortran string-length arguments that gfortran-compiled libraries expect
 * (R's FCONE convention); passing them is harmless for C implementations. */
#include "runtime/sgp_internal.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

typedef size_t fc_len;

extern void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *b,
                   const int *ldb, const double *beta, double *c, const int *ldc,
                   fc_len lta, fc_len ltb);
extern void dsyrk_(const char *uplo, const char *trans, const int *n, const int *k,
                   const double *alpha, const double *a, const int *lda, const double *beta,
                   double *c, const int *ldc, fc_len luplo, fc_len ltrans);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info,
                    fc_len luplo);
extern void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a,
                    const int *lda, double *b, const int *ldb, int *info, fc_len luplo);
extern void dstev_(const char *jobz, const int *n, double *d, double *e, double *z,
                   const int *ldz, double *work, int *info, fc_len ljobz);
extern void dtrtri_(const char *uplo, const char *diag, const int *n, double *a, const int *lda,
                    int *info, fc_len l1, fc_len l2);
extern void dpotri_(const char *uplo, const int *n, double *a, const int *lda, int *info,
                    size_t luplo);
extern void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a,
                    const int *lda, double *w, double *work, const int *lwork, int *iwork,
                    const int *liwork, int *info, fc_len ljobz, fc_len luplo);
extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv,
                    int *info);
extern void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a,
                    const int *lda, const int *ipiv, double *b, const int *ldb, int *info,
                    fc_len ltrans);
extern void dgetri_(const int *n, double *a, const int *lda, const int *ipiv, double *work,
                    const int *lwork, int *info);

/* OpenBLAS extensions, looked up weakly: present when the host's BLAS is
 * OpenBLAS, NULL otherwise (reference BLAS, MKL, ...). */
extern int openblas_get_num_threads(void) __attribute__((weak));
extern void openblas_set_num_threads(int) __attribute__((weak));

int sgp_blas_serial_begin(void)
{
  if (!openblas_get_num_threads || !openblas_set_num_threads) return 0;
  const int saved = openblas_get_num_threads();
  if (saved > 1) openblas_set_num_threads(1);
  return saved;
}

void sgp_blas_serial_end(int saved)
{
  if (saved > 1 && openblas_set_num_threads) openblas_set_num_threads(saved);
}

static int fits(sgp_ctx *ctx, const char *routine, int64_t v)
{
  if (v < 0 || v > INT_MAX)
    return sgp_fail(ctx, SGP_EDIM, "%s: dimension %lld exceeds LAPACK's int range",
                    routine, (long long)v);
  return SGP_OK;
}
#define FITS(v) do { int st_ = fits(ctx, routine, (v)); if (st_) return st_; } while (0)

int sgp_gemm(sgp_ctx *ctx, char transa, char transb, int64_t m, int64_t n, int64_t k,
             double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
             double beta, double *C, int64_t ldc)
{
  static const char routine[] = "dgemm";
  FITS(m); FITS(n); FITS(k); FITS(lda); FITS(ldb); FITS(ldc);
  if (m == 0 || n == 0) return SGP_OK;
  int im = (int)m, in = (int)n, ik = (int)k, ila = (int)lda, ilb = (int)ldb, ilc = (int)ldc;
  dgemm_(&transa, &transb, &im, &in, &ik, &alpha, A, &ila, B, &ilb, &beta, C, &ilc, 1, 1);
  return SGP_OK;
}

int sgp_syrk(sgp_ctx *ctx, char trans, int64_t n, int64_t k, double alpha, const double *A,
             int64_t lda, double beta, double *C, int64_t ldc)
{
  static const char routine[] = "dsyrk";
  FITS(n); FITS(k); FITS(lda); FITS(ldc);
  if (n == 0) return SGP_OK;
  int in = (int)n, ik = (int)k, ila = (int)lda, ilc = (int)ldc;
  dsyrk_("L", &trans, &in, &ik, &alpha, A, &ila, &beta, C, &ilc, 1, 1);
  for (int64_t j = 1; j < n; j++) /* mirror: callers read both triangles */
    for (int64_t i = 0; i < j; i++) C[i + j * ldc] = C[j + i * ldc];
  return SGP_OK;
}

int sgp_potrf(sgp_ctx *ctx, int64_t n, double *A, int64_t lda)
{
  static const char routine[] = "dpotrf";
  FITS(n); FITS(lda);
  int in = (int)n, ila = (int)lda, info = 0;
  if (n == 0) return SGP_OK;
  dpotrf_("L", &in, A, &ila, &info, 1);
  if (info > 0)
    return sgp_fail(ctx, SGP_ENOTPD, "matrix is not positive definite (leading minor %d)", info);
  if (info < 0) return sgp_fail(ctx, SGP_ELAPACK, "dpotrf: argument %d invalid", -info);
  return SGP_OK;
}

int sgp_potrs(sgp_ctx *ctx, int64_t n, int64_t nrhs, const double *L, int64_t ldl,
              double *B, int64_t ldb)
{
  static const char routine[] = "dpotrs";
  FITS(n); FITS(nrhs); FITS(ldl); FITS(ldb);
  int in = (int)n, ir = (int)nrhs, ill = (int)ldl, ilb = (int)ldb, info = 0;
  if (n == 0 || nrhs == 0) return SGP_OK;
  dpotrs_("L", &in, &ir, L, &ill, B, &ilb, &info, 1);
  if (info != 0) return sgp_fail(ctx, SGP_ELAPACK, "dpotrs: argument %d invalid", -info);
  return SGP_OK;
}

int sgp_stev(sgp_ctx *ctx, int64_t n, double *d, double *e, double *Z)
{
  static const char routine[] = "dstev";
  FITS(n);
  int in = (int)n, ldz = n > 0 ? (int)n : 1, info = 0;
  if (n == 0) return SGP_OK;
  double *work = Z ? sgp_alloc(2 * n) : NULL;
  if (Z && !work) return sgp_fail(ctx, SGP_ENOMEM, "dstev: out of memory");
  dstev_(Z ? "V" : "N", &in, d, e, Z, &ldz, work, &info, 1);
  free(work);
  if (info != 0)
    return sgp_fail(ctx, SGP_ELAPACK, "dstev failed (info %d)", info);
  return SGP_OK;
}

int sgp_syev(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, double *w)
{
  static const char routine[] = "dsyevd";
  FITS(n); FITS(lda);
  int in = (int)n, ila = (int)lda, info = 0, lwork = -1, liwork = -1, iwq = 0;
  double wq = 0;
  if (n == 0) return SGP_OK;
  dsyevd_("V", "L", &in, A, &ila, w, &wq, &lwork, &iwq, &liwork, &info, 1, 1);
  if (info != 0) return sgp_fail(ctx, SGP_ELAPACK, "dsyevd workspace query failed (info %d)", info);
  lwork = (int)wq;
  liwork = iwq;
  double *work = sgp_alloc(lwork);
  int *iwork = (int *)malloc((size_t)liwork * sizeof(int));
  if (!work || !iwork) {
    free(work); free(iwork);
    return sgp_fail(ctx, SGP_ENOMEM, "dsyevd: out of memory");
  }
  dsyevd_("V", "L", &in, A, &ila, w, work, &lwork, iwork, &liwork, &info, 1, 1);
  free(work); free(iwork);
  if (info != 0) return sgp_fail(ctx, SGP_ELAPACK, "dsyevd failed (info %d)", info);
  return SGP_OK;
}

int sgp_trtri(sgp_ctx *ctx, char uplo, int64_t n, double *A, int64_t lda)
{
  static const char routine[] = "dtrtri";
  FITS(n); FITS(lda);
  if (n == 0) return SGP_OK;
  int in = (int)n, ila = (int)lda, info = 0;
  dtrtri_(&uplo, "N", &in, A, &ila, &info, 1, 1);
  if (info > 0) return sgp_fail(ctx, SGP_ENOTPD, "dtrtri: singular triangular factor (%d)", info);
  if (info < 0) return sgp_fail(ctx, SGP_ELAPACK, "dtrtri: argument %d invalid", -info);
  return SGP_OK;
}

int sgp_potri(sgp_ctx *ctx, int64_t n, double *A, int64_t lda)
{
  static const char routine[] = "dpotri";
  FITS(n); FITS(lda);
  if (n == 0) return SGP_OK;
  int in = (int)n, ila = (int)lda, info = 0;
  dpotri_("L", &in, A, &ila, &info, 1);
  if (info > 0) return sgp_fail(ctx, SGP_ENOTPD, "dpotri: singular Cholesky factor (%d)", info);
  if (info < 0) return sgp_fail(ctx, SGP_ELAPACK, "dpotri: argument %d invalid", -info);
  return SGP_OK;
}

int sgp_getrf(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, int *ipiv)
{
  static const char routine[] = "dgetrf";
  FITS(n); FITS(lda);
  int in = (int)n, ila = (int)lda, info = 0;
  if (n == 0) return SGP_OK;
  dgetrf_(&in, &in, A, &ila, ipiv, &info);
  if (info > 0) return sgp_fail(ctx, SGP_ENOTPD, "matrix is singular (pivot %d)", info);
  if (info < 0) return sgp_fail(ctx, SGP_ELAPACK, "dgetrf: argument %d invalid", -info);
  return SGP_OK;
}

int sgp_getrs(sgp_ctx *ctx, char trans, int64_t n, int64_t nrhs, const double *LU, int64_t ldlu,
              const int *ipiv, double *B, int64_t ldb)
{
  static const char routine[] = "dgetrs";
  FITS(n); FITS(nrhs); FITS(ldlu); FITS(ldb);
  int in = (int)n, ir = (int)nrhs, ill = (int)ldlu, ilb = (int)ldb, info = 0;
  if (n == 0 || nrhs == 0) return SGP_OK;
  dgetrs_(&trans, &in, &ir, LU, &ill, ipiv, B, &ilb, &info, 1);
  if (info != 0) return sgp_fail(ctx, SGP_ELAPACK, "dgetrs: argument %d invalid", -info);
  return SGP_OK;
}

int sgp_getri(sgp_ctx *ctx, int64_t n, double *LU, int64_t lda, const int *ipiv)
{
  static const char routine[] = "dgetri";
  FITS(n); FITS(lda);
  int in = (int)n, ila = (int)lda, info = 0, lwork = -1;
  double wq = 0;
  if (n == 0) return SGP_OK;
  dgetri_(&in, LU, &ila, ipiv, &wq, &lwork, &info);
  if (info != 0) return sgp_fail(ctx, SGP_ELAPACK, "dgetri workspace query failed (info %d)", info);
  lwork = (int)wq > in ? (int)wq : in;
  double *work = sgp_alloc(lwork);
  if (!work) return sgp_fail(ctx, SGP_ENOMEM, "dgetri: out of memory");
  dgetri_(&in, LU, &ila, ipiv, work, &lwork, &info);
  free(work);
  if (info > 0) return sgp_fail(ctx, SGP_ENOTPD, "dgetri: singular factor (%d)", info);
  if (info < 0) return sgp_fail(ctx, SGP_ELAPACK, "dgetri: argument %d invalid", -info);
  return SGP_OK;
}

int sgp_potrf_minor(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, int64_t *minor)
{
  static const char routine[] = "dpotrf";
  FITS(n); FITS(lda);
  *minor = 0;
  if (n == 0) return SGP_OK;
  int in = (int)n, ila = (int)lda, info = 0;
  dpotrf_("L", &in, A, &ila, &info, 1);
  if (info < 0) return sgp_fail(ctx, SGP_ELAPACK, "dpotrf: argument %d invalid", -info);
  *minor = info;
  return SGP_OK;
}

double sgp_dot(int64_t n, const double *x, const double *y)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += x[i] * y[i];
  return s;
}

double sgp_nrm2(int64_t n, const double *x)
{
  /* Scaled sum of squares: no overflow for large entries. */
  double scale = 0.0, ssq = 1.0;
  for (int64_t i = 0; i < n; i++) {
    double a = x[i] < 0 ? -x[i] : x[i];
    if (a == 0.0) continue;
    if (scale < a) { ssq = 1.0 + ssq * (scale / a) * (scale / a); scale = a; }
    else ssq += (a / scale) * (a / scale);
  }
  return scale * sqrt(ssq);
}

extern void dtrsm_(const char *side, const char *uplo, const char *ta, const char *diag,
                   const int *m, const int *n, const double *alpha, const double *a,
                   const int *lda, double *b, const int *ldb, fc_len ls, fc_len lu, fc_len lt,
                   fc_len ld);
extern void dtrmm_(const char *side, const char *uplo, const char *ta, const char *diag,
                   const int *m, const int *n, const double *alpha, const double *a,
                   const int *lda, double *b, const int *ldb, fc_len ls, fc_len lu, fc_len lt,
                   fc_len ld);

int sgp_trsm(sgp_ctx *ctx, char side, char uplo, char transa, int64_t m, int64_t n,
             double alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
  static const char routine[] = "dtrsm";
  FITS(m); FITS(n); FITS(lda); FITS(ldb);
  if (m == 0 || n == 0) return SGP_OK;
  int im = (int)m, in = (int)n, ila = (int)lda, ilb = (int)ldb;
  dtrsm_(&side, &uplo, &transa, "N", &im, &in, &alpha, A, &ila, B, &ilb, 1, 1, 1, 1);
  return SGP_OK;
}

int sgp_trmm(sgp_ctx *ctx, char side, char uplo, char transa, int64_t m, int64_t n,
             double alpha, const double *A, int64_t lda, double *B, int64_t ldb)
{
  static const char routine[] = "dtrmm";
  FITS(m); FITS(n); FITS(lda); FITS(ldb);
  if (m == 0 || n == 0) return SGP_OK;
  int im = (int)m, in = (int)n, ila = (int)lda, ilb = (int)ldb;
  dtrmm_(&side, &uplo, &transa, "N", &im, &in, &alpha, A, &ila, B, &ilb, 1, 1, 1, 1);
  return SGP_OK;
}

/* ------------------------------------------------------------ orthonormal basis */
extern void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau,
                    double *work, const int *lwork, int *info);
extern void dorgqr_(const int *m, const int *n, const int *k, double *a, const int *lda,
                    const double *tau, double *work, const int *lwork, int *info);

int sgp_orth(sgp_ctx *ctx, int64_t m, int64_t k, double *A, int64_t lda)
{
  static const char routine[] = "dgeqrf";
  FITS(m); FITS(k); FITS(lda);
  if (k > m) return sgp_fail(ctx, SGP_EDIM, "dgeqrf: %lld columns exceed %lld rows",
                             (long long)k, (long long)m);
  if (m == 0 || k == 0) return SGP_OK;
  int im = (int)m, ik = (int)k, ila = (int)lda, info = 0, lwork = -1, l2 = -1;
  double wq = 0, wq2 = 0;
  double *tau = sgp_alloc(k);
  if (!tau) return sgp_fail(ctx, SGP_ENOMEM, "dgeqrf: out of memory");
  dgeqrf_(&im, &ik, A, &ila, tau, &wq, &lwork, &info);
  dorgqr_(&im, &ik, &ik, A, &ila, tau, &wq2, &l2, &info);
  lwork = (int)(wq > wq2 ? wq : wq2);
  if (lwork < 1) lwork = 1;
  double *work = sgp_alloc(lwork);
  if (!work) { free(tau); return sgp_fail(ctx, SGP_ENOMEM, "dgeqrf: out of memory"); }
  dgeqrf_(&im, &ik, A, &ila, tau, work, &lwork, &info);
  if (info == 0) dorgqr_(&im, &ik, &ik, A, &ila, tau, work, &lwork, &info);
  free(work); free(tau);
  if (info != 0) return sgp_fail(ctx, SGP_ELAPACK, "dgeqrf/dorgqr failed (info %d)", info);
  return SGP_OK;
}

int sgp_qr_r(sgp_ctx *ctx, int64_t m, int64_t n, double *A, int64_t lda)
{
  static const char routine[] = "dgeqrf";
  FITS(m); FITS(n); FITS(lda);
  const int64_t k = m < n ? m : n;
  if (k == 0) return SGP_OK;
  int im = (int)m, in = (int)n, ila = (int)lda, info = 0, lwork = -1;
  double wq = 0;
  double *tau = sgp_alloc(k);
  if (!tau) return sgp_fail(ctx, SGP_ENOMEM, "dgeqrf: out of memory");
  dgeqrf_(&im, &in, A, &ila, tau, &wq, &lwork, &info);
  lwork = wq >= 1 ? (int)wq : 1;
  double *work = sgp_alloc(lwork);
  if (!work) { free(tau); return sgp_fail(ctx, SGP_ENOMEM, "dgeqrf: out of memory"); }
  dgeqrf_(&im, &in, A, &ila, tau, work, &lwork, &info);
  free(work); free(tau);
  if (info != 0) return sgp_fail(ctx, SGP_ELAPACK, "dgeqrf failed (info %d)", info);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = j + 1; i < m; i++) A[i + lda * j] = 0.0;
  return SGP_OK;
}

extern void dgesvd_(const char *jobu, const char *jobvt, const int *m, const int *n, double *a,
                    const int *lda, double *s, double *u, const int *ldu, double *vt,
                    const int *ldvt, double *work, const int *lwork, int *info, fc_len l1,
                    fc_len l2);

int sgp_svd_left(sgp_ctx *ctx, int64_t m, int64_t n, double *A, int64_t lda, double *s, double *U,
                 int64_t ldu)
{
  static const char routine[] = "dgesvd";
  FITS(m); FITS(n); FITS(lda); FITS(ldu);
  if (m == 0 || n == 0) return SGP_OK;
  int im = (int)m, in = (int)n, ila = (int)lda, ilu = (int)ldu, one = 1, info = 0, lwork = -1;
  double wq = 0, vt = 0;
  dgesvd_("S", "N", &im, &in, A, &ila, s, U, &ilu, &vt, &one, &wq, &lwork, &info, 1, 1);
  lwork = wq >= 1 ? (int)wq : 1;
  double *work = sgp_alloc(lwork);
  if (!work) return sgp_fail(ctx, SGP_ENOMEM, "dgesvd: out of memory");
  dgesvd_("S", "N", &im, &in, A, &ila, s, U, &ilu, &vt, &one, work, &lwork, &info, 1, 1);
  free(work);
  if (info != 0) return sgp_fail(ctx, SGP_ELAPACK, "dgesvd failed (info %d)", info);
  return SGP_OK;
}
