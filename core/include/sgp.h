/*
 * sgp.h -- the one public header of the scalegp C core.
 *
 * Conventions (see shared/design/ARCHITECTURE.md):
 *  - matrices are non-owning column-major views (sgp_cmat / sgp_mat, ld >= rows);
 *  - every entry point returns SGP_OK (0) or a negative SGP_E* code, with the
 *    detail in ctx->errmsg; non-convergence is reported in results, not as error;
 *  - the core never prints, exits or aborts: output, interrupts and progress go
 *    through the hooks in sgp_ctx, randomness through its seeded RNG.
 */
#ifndef SGP_H
#define SGP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SGP_VERSION_MAJOR 0
#define SGP_VERSION_MINOR 1
#define SGP_VERSION_PATCH 0
#define SGP_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------- views */

typedef struct { const double *data; int64_t rows, cols, ld; } sgp_cmat;
typedef struct { double *data; int64_t rows, cols, ld; } sgp_mat;

/* View helpers: a contiguous rows-by-cols block (ld = rows). */
static inline sgp_cmat sgp_cmat_of(const double *data, int64_t rows, int64_t cols)
{ sgp_cmat m; m.data = data; m.rows = rows; m.cols = cols; m.ld = rows > 0 ? rows : 1; return m; }
static inline sgp_mat sgp_mat_of(double *data, int64_t rows, int64_t cols)
{ sgp_mat m; m.data = data; m.rows = rows; m.cols = cols; m.ld = rows > 0 ? rows : 1; return m; }
static inline sgp_cmat sgp_const(sgp_mat m)
{ sgp_cmat c; c.data = m.data; c.rows = m.rows; c.cols = m.cols; c.ld = m.ld; return c; }

/* ---------------------------------------------------------------- status */

enum {
  SGP_OK = 0,
  SGP_EINVAL = -1,        /* invalid argument value (the message names it) */
  SGP_EDIM = -2,          /* inconsistent dimensions */
  SGP_ENOMEM = -3,        /* allocation failed */
  SGP_ELAPACK = -4,       /* a LAPACK routine reported failure */
  SGP_ENOTPD = -5,        /* matrix not positive definite */
  SGP_EINTERRUPT = -6,    /* stopped by the host's interrupt hook */
  SGP_ECUDA = -7,         /* CUDA runtime / library failure */
  SGP_EUNSUPPORTED = -8   /* feature not built or not available */
};

/* Generic text for a status code (static storage; never NULL). */
const char *sgp_strerror(int status);

/* ---------------------------------------------------------------- RNG */

/* xoshiro256** state; seeded through splitmix64 so any 64-bit seed is fine. */
typedef struct { uint64_t s[4]; } sgp_rng;

void     sgp_rng_seed(sgp_rng *rng, uint64_t seed);
uint64_t sgp_rng_next(sgp_rng *rng);          /* uniform 64-bit integer */
double   sgp_rng_uniform(sgp_rng *rng);       /* uniform on (0, 1), never 0 or 1 */
double   sgp_rng_normal(sgp_rng *rng);        /* standard normal (Box-Muller, no cache) */
/* Jump to an independent stream (2^128 steps ahead), e.g. one per thread. */
void     sgp_rng_jump(sgp_rng *rng);

/* ---------------------------------------------------------------- context */

typedef enum { SGP_BACKEND_AUTO = 0, SGP_BACKEND_CPU = 1, SGP_BACKEND_CUDA = 2 } sgp_backend;

typedef struct sgp_ctx {
  /* Host hooks; any may be NULL. They are only ever called from the thread
   * that called the core, never inside a parallel region. */
  void (*print)(void *user_data, const char *msg);     /* verbose output */
  int  (*interrupt)(void *user_data);                  /* nonzero = stop now */
  void (*progress)(void *user_data, const char *task, double fraction);
  void *user_data;
  int verbose;            /* 0 = silent; 1 = progress and short summaries */
  int nthreads;           /* OpenMP threads; <= 0 means the OpenMP default */
  uint64_t seed;          /* seed given to sgp_ctx_init / sgp_ctx_set_seed */
  sgp_rng rng;            /* the only source of randomness in the core */
  sgp_backend backend;    /* requested backend (AUTO falls back to CPU) */
  char errmsg[256];       /* detail of the last error */
} sgp_ctx;

/* Defaults: no hooks, silent, OpenMP default threads, seed 1, AUTO backend. */
void sgp_ctx_init(sgp_ctx *ctx);
void sgp_ctx_set_seed(sgp_ctx *ctx, uint64_t seed);
/* Thread count the core will actually use (resolves nthreads <= 0). */
int  sgp_ctx_threads(const sgp_ctx *ctx);

/* ---------------------------------------------------------------- build info */

typedef struct {
  const char *version;      /* SGP_VERSION_STRING */
  const char *fftw;         /* FFTW's version string */
  int openmp;               /* 1 when compiled with OpenMP */
  int max_threads;          /* OpenMP's default thread count (1 without OpenMP) */
  int cuda_built;           /* 1 when the CUDA backend was compiled in */
  int cuda_devices;         /* CUDA devices found at run time (0 if not built) */
} sgp_build_info;

void sgp_info(sgp_build_info *info);
/* 1 when the backend can run here (CPU always; CUDA when built and a device is present). */
int  sgp_backend_available(sgp_backend backend);

/* ---------------------------------------------------------------- kernels */

typedef enum {
  SGP_KERNEL_RBF = 0,       /* s2 exp(-r^2/2) */
  SGP_KERNEL_MATERN12 = 1,  /* s2 exp(-r) */
  SGP_KERNEL_MATERN32 = 2,  /* s2 (1 + sqrt3 r) exp(-sqrt3 r) */
  SGP_KERNEL_MATERN52 = 3   /* s2 (1 + sqrt5 r + 5 r^2/3) exp(-sqrt5 r) */
} sgp_kernel_kind;
/* r = || (x - x') / lengthscale || with per-dimension (ARD) or one lengthscale. */

typedef struct {
  sgp_kernel_kind kind;
  const double *lengthscale;  /* n_lengthscale positive values */
  int64_t n_lengthscale;      /* 1 (isotropic) or d (ARD) */
  double outputscale;         /* signal variance s2 > 0 */
} sgp_kernel;

/* Kernel by name ("rbf", "matern12", "matern32", "matern52"); SGP_EINVAL if unknown. */
int sgp_kernel_from_name(sgp_ctx *ctx, const char *name, sgp_kernel_kind *kind);
const char *sgp_kernel_name(sgp_kernel_kind kind);
/* Checks the kernel for inputs of dimension d (lengthscale count and positivity,
 * outputscale > 0, all finite); messages name `lengthscale` / `outputscale`. */
int sgp_kernel_check(sgp_ctx *ctx, const sgp_kernel *k, int64_t d);
/* Checks that a matrix argument is non-empty and finite; names it in errors. */
int sgp_check_finite(sgp_ctx *ctx, const char *argname, sgp_cmat a);

/* K = k(X1, X2), an n1-by-n2 block (tiled, OpenMP). X1, X2: n-by-d rows. */
int sgp_kernel_matrix(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X1, sgp_cmat X2,
                      sgp_mat K);
/* Y = k(X1, X2) V without forming the kernel matrix: V is n2-by-b, Y n1-by-b.
 * Each kernel entry is evaluated once per call (tiles of `tile` rows/columns,
 * 0 = default 512); rows are split between threads, so results do not depend on
 * the thread count. Polls the interrupt hook between row blocks. */
int sgp_kernel_apply(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X1, sgp_cmat X2,
                     sgp_cmat V, sgp_mat Y, int tile);

/* ---------------------------------------------------------------- operators */

/* A symmetric linear operator on R^n applied to blocks of b vectors. */
typedef struct sgp_op {
  int64_t n;
  void *state;
  /* Y = A V for an n-by-b block V (b >= 1). */
  int  (*apply)(const struct sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx);
  /* d = diag(A), an n-by-1 view. */
  int  (*diag)(const struct sgp_op *op, sgp_mat d, sgp_ctx *ctx);
  void (*destroy)(struct sgp_op *op);
} sgp_op;

/* Releases the operator's state (safe on a zeroed or already destroyed op). */
void sgp_op_destroy(sgp_op *op);

typedef struct {
  double shift;             /* adds shift * I (e.g. noise variance); default 0 */
  int tile;                 /* tile size for matrix-free products; default 512 */
  size_t cache_bytes;       /* materialize K once when 8 n^2 bytes fit; default 0
                               (always matrix-free) */
} sgp_dense_op_opts;

void sgp_dense_op_opts_default(sgp_dense_op_opts *o);
/* Operator K(X, X) + shift I. X and the kernel's lengthscale array must outlive
 * the operator (they are not copied). Sets *cached to 1 when K was materialized
 * (cached may be NULL). */
int sgp_op_dense_kernel(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X,
                        const sgp_dense_op_opts *o, sgp_op *op, int *cached);
/* Operator for an explicit symmetric n-by-n matrix (not copied). */
int sgp_op_matrix(sgp_ctx *ctx, sgp_cmat A, sgp_op *op);

/* ---------------------------------------------------------------- solvers */

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

#ifdef __cplusplus
}
#endif
#endif /* SGP_H */
