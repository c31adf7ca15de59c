/* sgp_internal.h -- helpers shared inside the core; not part of the public API. */
#ifndef SGP_INTERNAL_H
#define SGP_INTERNAL_H

#include "api/sgp.h"
#include <stdarg.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* This machine's physical memory in bytes (0 when unknown): sizes that cannot
 * fit are refused before anything is allocated. */
double sgp_phys_mem_bytes(void);

/* 1 in a process forked after the library was loaded (where sgp_ctx_threads
 * gives 1: OpenMP's thread pool does not survive fork), else 0. */
int sgp_forked_child(void);

/* The team size for a parallel region of about `flops` operations: 1 below
 * SGP_PAR_MIN_FLOPS, else at most one thread per SGP_PAR_MIN_FLOPS and at
 * most sgp_ctx_threads. A region's barrier costs microseconds on an idle
 * machine, but a timeslice (milliseconds) when another process has taken a
 * team member's core, while the waiting members spin on theirs: on a busy
 * machine many small regions made two threads ten times slower than one. Work
 * of a millisecond or more per region keeps that wait a small fraction
 * (docs/usage.md, "Threads and backends"). */
#define SGP_PAR_MIN_FLOPS 4e6
int sgp_par_threads(const sgp_ctx *ctx, double flops);
/* The same for dense BLAS-3 products, which run near the machine's peak: their
 * flops count an eighth of scalar ones. */
static inline int sgp_par_threads_blas3(const sgp_ctx *ctx, double flops)
{
  return sgp_par_threads(ctx, flops / 8.0);
}

/* Inside a parallel region: this thread's number and the team's size (0 and 1
 * without OpenMP; the runtime may give a smaller team than asked for). */
static inline int sgp_thread_num(void)
{
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

static inline int sgp_team_size(void)
{
#ifdef _OPENMP
  return omp_get_num_threads();
#else
  return 1;
#endif
}

/* A predictive variance v computed as a difference (a prior variance minus what
 * the data explain), whose terms add up to mag in absolute value, `terms` of them:
 * rounding leaves v uncertain by about (terms + 2) eps mag, so a v below that is
 * not resolved: cancellation may have put it far below the exact variance, and a
 * negative v is rounding alone. Returns what is reported (v, 0 where negative) and
 * counts an unresolved v in *unresolved: the caller warns, never clamps silently. */
static inline double sgp_variance_resolved(double v, double mag, int64_t terms,
                                           int64_t *unresolved)
{
  if (v < (double)(terms + 2) * 2.220446049250313e-16 * mag) {
    (*unresolved)++;
    return v > 0.0 ? v : 0.0;
  }
  return v;
}

/* The warning of count unresolved variances out of n (sgp_variance_resolved), one
 * wording for every method ("" when count is 0; the hosts prefix the function). */
void sgp_variance_warning(int64_t count, int64_t n, char *buf, size_t size);

#if defined(__GNUC__)
#define SGP_PRINTF_LIKE(i, j) __attribute__((format(printf, i, j)))
#else
#define SGP_PRINTF_LIKE(i, j)
#endif

/* Records a formatted message in ctx->errmsg and returns code (for `return sgp_fail(...)`). */
int sgp_fail(sgp_ctx *ctx, int code, const char *fmt, ...) SGP_PRINTF_LIKE(3, 4);
/* sgp_fail with a va_list (the CUDA plugin's errors come through it). */
int sgp_vfail(sgp_ctx *ctx, int code, const char *fmt, va_list ap);
/* Sends a formatted line to the print hook when ctx->verbose is set. */
void sgp_say(sgp_ctx *ctx, const char *fmt, ...) SGP_PRINTF_LIKE(2, 3);
/* Reports progress through the hook when ctx->verbose is set. */
void sgp_progress(sgp_ctx *ctx, const char *task, double fraction);
/* SGP_EINTERRUPT (with message) when the host asks to stop, else SGP_OK. */
int sgp_poll_interrupt(sgp_ctx *ctx);
/* Seconds on a monotonic clock: the one clock of time limits and traces. */
double sgp_clock(void);

/* The first k entries of idx (n of them) become a uniform random k-subset of all
 * n, in random order (partial Fisher-Yates). */
void sgp_rng_sample_prefix(sgp_rng *rng, int64_t *idx, int64_t n, int64_t k);

/* malloc of n doubles (n may be 0); NULL only on failure. */
double *sgp_alloc(int64_t n);
/* Same, zero-filled. */
double *sgp_calloc(int64_t n);

/* ------------------------------------------------------------ linalg.c
 * The only place that calls BLAS/LAPACK. Sizes are int64_t and are checked to
 * fit LAPACK's int; failures return SGP_EDIM / SGP_ELAPACK with a message. */

/* Small BLAS calls made from inside our own OpenMP regions must not spawn BLAS
 * threads of their own (oversubscription, spinning): bracket such regions with
 * saved = sgp_blas_serial_begin(); ... sgp_blas_serial_end(saved);
 * (a no-op unless the BLAS is a threaded OpenBLAS). Main thread only. */
int  sgp_blas_serial_begin(void);
void sgp_blas_serial_end(int saved);

/* C = alpha op(A) op(B) + beta C, op = 'N' or 'T'. */
int sgp_gemm(sgp_ctx *ctx, char transa, char transb, int64_t m, int64_t n, int64_t k,
             double alpha, const double *A, int64_t lda, const double *B, int64_t ldb,
             double beta, double *C, int64_t ldc);
/* C = alpha op(A)' op(A) + beta C (n-by-n, both triangles filled): trans 'T' gives
 * A'A for a k-by-n A, 'N' gives A A' for an n-by-k A. */
int sgp_syrk(sgp_ctx *ctx, char trans, int64_t n, int64_t k, double alpha, const double *A,
             int64_t lda, double beta, double *C, int64_t ldc);
/* Cholesky A = L L' in place (lower); SGP_ENOTPD when not positive definite. */
int sgp_potrf(sgp_ctx *ctx, int64_t n, double *A, int64_t lda);
/* Solves (L L') X = B in place given the lower Cholesky factor. */
int sgp_potrs(sgp_ctx *ctx, int64_t n, int64_t nrhs, const double *L, int64_t ldl,
              double *B, int64_t ldb);
/* Eigen-decomposition of a symmetric tridiagonal matrix (LAPACK dstev):
 * d (n) becomes the ascending eigenvalues, e (n-1) is destroyed, Z (n-by-n) the
 * eigenvectors when not NULL. */
int sgp_stev(sgp_ctx *ctx, int64_t n, double *d, double *e, double *Z);
/* Eigen-decomposition of a symmetric matrix (LAPACK dsyevd, lower triangle):
 * w (n) ascending eigenvalues, A overwritten by the eigenvectors. */
int sgp_syev(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, double *w);
/* Triangular factors (gp_laplace's blocked unit-vector actions; sgp_trmm below).
 * Inverse of a triangular matrix in place (LAPACK dtrtri, non-unit diagonal). */
int sgp_trtri(sgp_ctx *ctx, char uplo, int64_t n, double *A, int64_t lda);
/* The inverse of L L' from its lower Cholesky factor, in place (LAPACK dpotri):
 * only the lower triangle of the inverse is written. */
int sgp_potri(sgp_ctx *ctx, int64_t n, double *A, int64_t lda);
/* Cholesky (lower) in place that reports failure instead of raising it: *minor is 0
 * on success, else the 1-based order of the first non-positive leading minor. */
int sgp_potrf_minor(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, int64_t *minor);
/* LU with partial pivoting in place (LAPACK dgetrf; ipiv n, 1-based):
 * SGP_ENOTPD when exactly singular. Solves op(A) X = B from it (dgetrs, trans
 * 'N' or 'T'), and the inverse in place of the factor (dgetri). */
int sgp_getrf(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, int *ipiv);
int sgp_getrs(sgp_ctx *ctx, char trans, int64_t n, int64_t nrhs, const double *LU, int64_t ldlu,
              const int *ipiv, double *B, int64_t ldb);
int sgp_getri(sgp_ctx *ctx, int64_t n, double *LU, int64_t lda, const int *ipiv);
double sgp_dot(int64_t n, const double *x, const double *y);
double sgp_nrm2(int64_t n, const double *x);
/* Triangular solve / product with a non-unit triangular A (LAPACK dtrsm, dtrmm):
 * B = alpha op(A)^{-1} B or alpha B op(A)^{-1} (side 'L' / 'R'), and likewise
 * B = alpha op(A) B or alpha B op(A); uplo 'L' / 'U', transa 'N' / 'T'. */
int sgp_trsm(sgp_ctx *ctx, char side, char uplo, char transa, int64_t m, int64_t n,
             double alpha, const double *A, int64_t lda, double *B, int64_t ldb);
int sgp_trmm(sgp_ctx *ctx, char side, char uplo, char transa, int64_t m, int64_t n,
             double alpha, const double *A, int64_t lda, double *B, int64_t ldb);
/* Orthonormal basis of the k <= m columns of A in place (Householder QR, LAPACK
 * dgeqrf + dorgqr): A = Q R, A becomes Q. Rank-deficient A still gives an
 * orthonormal Q. */
int sgp_orth(sgp_ctx *ctx, int64_t m, int64_t k, double *A, int64_t lda);
/* The R of a Householder QR A = Q R in place (LAPACK dgeqrf): A (m-by-n) becomes
 * its upper-triangular (trapezoidal) factor R, zeros below the diagonal. Exact
 * for rank-deficient A too (no pivoting, no breakdown). */
int sgp_qr_r(sgp_ctx *ctx, int64_t m, int64_t n, double *A, int64_t lda);
/* Singular values s (min(m,n), descending) and the left singular vectors U
 * (m-by-min(m,n)) of A (m-by-n; destroyed), LAPACK dgesvd. */
int sgp_svd_left(sgp_ctx *ctx, int64_t m, int64_t n, double *A, int64_t lda, double *s, double *U,
                 int64_t ldu);

/* ------------------------------------------------------------ solvers.c
 * Krylov solvers on sgp_op. Not public: the methods run their own solvers
 * (ski_gsgp its factorized CG with true-residual checks, ski_cg.c); these serve
 * the dense oracles of the tests and the SLQ quadrature (sgp_tridiag_eig). */

typedef struct {
  int max_iter;           /* default n */
  double tol;             /* stop when ||r_j|| <= tol ||b_j|| for every column; 1e-8 */
  const sgp_op *precond;  /* optional SPD preconditioner P ~ A^{-1} applied as P r */
} sgp_cg_opts;

typedef struct {
  int iterations;         /* iterations taken (max over columns) */
  int converged;          /* 1 when every column met tol */
  double max_rel_residual;/* largest ||r_j|| / ||b_j|| at exit */
} sgp_cg_info;

void sgp_cg_opts_default(sgp_cg_opts *o);
/* Block CG for A X = B with b independent right-hand sides (one operator
 * application of n-by-b per iteration). X holds the initial guess on entry
 * (zero it for a zero start) and the solution on exit. When alpha/beta are not
 * NULL they receive the CG coefficients, max_iter-by-b each (column-major),
 * from which the Lanczos tridiagonal can be rebuilt. */
int sgp_cg(sgp_ctx *ctx, const sgp_op *A, sgp_cmat B, sgp_mat X,
           const sgp_cg_opts *o, sgp_cg_info *info, double *alpha, double *beta);

/* k steps of Lanczos with full reorthogonalization from start vector q0 (n),
 * giving the tridiagonal T (diagonal a[0..steps-1], off-diagonal b[0..steps-2])
 * and, when Q is not NULL, the n-by-k orthonormal basis. Stops early on an
 * invariant subspace; *steps is the number of steps taken. */
int sgp_lanczos(sgp_ctx *ctx, const sgp_op *A, const double *q0, int k,
                double *a, double *b, sgp_mat Q, int *steps);
/* Eigenvalues (ascending) and optionally eigenvectors (k-by-k, may be NULL) of
 * the symmetric tridiagonal (a, b) of order k. */
int sgp_tridiag_eig(sgp_ctx *ctx, int k, const double *a, const double *b,
                    double *evals, double *evecs);

/* ------------------------------------------------------------ backend.c / cuda/ */
int sgp_cuda_built(void);
/* Devices of the CUDA backend: 0 without an NVIDIA driver (checked without
 * loading anything) or when the backend's shared object cannot be loaded
 * (sgp_cuda_unavailable says why); else the plugin asks the CUDA runtime. */
int sgp_cuda_device_count(void);
/* Why the backend cannot run (no driver, the plugin failed to load), or NULL. */
const char *sgp_cuda_unavailable(void);
/* Resolves ctx->backend: *use_cuda = 1 when the CUDA backend is to run (CUDA
 * requested and available, or AUTO with a device present). Requesting CUDA
 * without the build or a device is an error naming `backend`. */
int sgp_backend_use_cuda(sgp_ctx *ctx, int *use_cuda);

/* ------------------------------------------------------------ fft.c */
const char *sgp_fft_version(void);

#endif
