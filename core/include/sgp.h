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

/* ---------------------------------------------------------------- gp_laplace */
/* IterNCGP (spec shared/spec/gp_laplace.md): computation-aware Laplace inference for
 * non-conjugate likelihoods. Every NC-vector is a column-major N-by-C matrix. */


typedef enum {
  SGP_LIK_GAUSSIAN = 0,   /* y real, variance `noise` (scalar or per point) */
  SGP_LIK_BERNOULLI = 1,  /* y in {0, 1}, logit link, one latent function */
  SGP_LIK_POISSON = 2,    /* y in {0, 1, 2, ...}, log link, log exposure `offset` */
  SGP_LIK_SOFTMAX = 3     /* y in {1, ..., n_class}, C = n_class latents, shared kernel */
} sgp_likelihood;

typedef enum { SGP_POLICY_CG = 0, SGP_POLICY_CHOLESKY = 1 } sgp_policy;
typedef enum { SGP_RESIDUAL_EXPLICIT = 0, SGP_RESIDUAL_RECURSIVE = 1 } sgp_residual;

/* Stop reasons (inner loop and outer loop). */
enum {
  SGP_STOP_NONE = 0,
  SGP_STOP_RESID = 1,      /* inner: residual below max(inner_atol, inner_rtol ||b||) */
  SGP_STOP_MAXITER = 2,    /* inner: max_iter iterations in this Newton step */
  SGP_STOP_BUDGET = 3,     /* max_total_iter reached or the buffer is full */
  SGP_STOP_BREAKDOWN = 4,  /* inner: eta <= eta_tol s'z (action in span(S)) */
  SGP_STOP_EXHAUSTED = 5,  /* inner: unit policy used all NC unit vectors */
  SGP_STOP_CONVERGED = 6,  /* outer: relative Newton step <= tol */
  SGP_STOP_MAXNEWTON = 7,  /* outer: max_newton steps */
  SGP_STOP_DIVERGED = 8,   /* outer: non-finite latent / pseudo-targets */
  SGP_STOP_TIME = 9        /* outer: time_limit reached */
};
const char *sgp_laplace_stop_name(int reason);

typedef struct {
  sgp_likelihood likelihood; /* default bernoulli */
  sgp_cmat noise;            /* gaussian variance: 1x1 or Nx1 (gaussian only; default 1) */
  sgp_cmat offset;           /* Nx1 poisson log exposure; empty (data NULL) = 0 */
  sgp_kernel kernel;         /* shared by all classes */
  sgp_policy policy;         /* default CG */
  int max_newton;            /* default 20 */
  int max_iter;              /* solver iterations per Newton step; default 5 */
  int64_t rank;              /* compression rank R; < 0 = Inf (default) */
  double tol;                /* outer tolerance on ||g_{i+1}-g_i||/||g_{i+1}||; 0.01 */
  int n_class;               /* C for softmax (>= 2), ignored otherwise */
  int recycle;               /* 1: recycle S, T across Newton steps (default) */
  int64_t max_total_iter;    /* < 0 = none (default) */
  double time_limit;         /* seconds; < 0 = none (default) */
  double inner_atol, inner_rtol, eta_tol; /* 1e-5, 1e-5, 0 */
  double eig_rtol, kappa, noise_max;      /* 1e-12, 0, 1e12 */
  sgp_residual residual;     /* default explicit */
  int damping;               /* 1: backtracking on Psi after each Newton step (spec 3.8); 0 */
  int random_order;          /* unit policy: seeded random permutation (default 0) */
  size_t kernel_cache_bytes; /* materialize K_x when 8 N^2 bytes fit; default 2 GiB */
  int tile;                  /* kernel tile size; default 512 */
} sgp_laplace_opts;

void sgp_laplace_opts_default(sgp_laplace_opts *o);

/* History: one row per accepted solver iteration (iteration arrays) and one per
 * Newton step (step arrays). */
typedef struct {
  int64_t n_iter, n_step;
  /* per accepted iteration */
  int *it_newton, *it_iter; int64_t *it_total, *it_buffer, *it_rank;
  double *it_resid, *it_rel_resid, *it_alpha, *it_eta, *it_trace, *it_time;
  /* per Newton step */
  double *st_psi;     /* Psi at the linearization point f_i */
  double *st_delta;   /* relative Newton step delta_i */
  int *st_inner_stop; /* inner stop reason */
  int64_t *st_kprod;  /* K products in this step */
  int64_t *st_dropped;/* eigenpairs dropped/truncated by the virtual run */
  double *st_time;
} sgp_laplace_history;

typedef struct sgp_laplace_fit {
  int64_t n, d, C, r;      /* data points, input dimension, latents, rank of root */
  sgp_likelihood likelihood;
  sgp_kernel kernel;       /* lengthscale points into the fit's own copy */
  double *lengthscale;
  double *X;               /* N x d copy of the inputs */
  double noise;            /* gaussian scalar noise (first entry) for the response */
  double *m;               /* N x C prior mean at X */
  double *f;               /* N x C latent mode estimate f_{i+1} = m + K v */
  double *var;             /* N x C latent variances incl. computational uncertainty */
  double *weights;         /* N x C representer weights v */
  double *root;            /* NC x r, C_j = Q Q' */
  double *flin;            /* N x C linearization point f_i of the last problem */
  double *noise_data;      /* N x C W^{-1} diagonal (softmax: capped 1/pi) at flin */
  int newton_steps;
  int64_t iterations;      /* total accepted solver iterations J */
  int converged;
  int stop_reason, inner_stop_reason;
  int64_t kernel_products;
  sgp_laplace_history history;
} sgp_laplace_fit_t;

/* y: N x 1 (softmax labels 1..C as doubles); prior_mean: N x C or empty (= 0). */
int sgp_laplace_fit(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                    const sgp_laplace_opts *o, sgp_laplace_fit_t **out);
void sgp_laplace_fit_free(sgp_laplace_fit_t *fit);
/* Latent mean / variance (Ns x C each; var may have data NULL) at Xs (zero prior
 * mean at Xs), and the response (optional, data NULL to skip), Ns x C each:
 * bernoulli P(y=1) by the probit approximation and its Bernoulli variance;
 * softmax probabilities softmax(mu_c kappa(s2_c)) and p(1-p); poisson rate mean
 * exp(mu+o+s2/2) and variance (e^{s2}-1) e^{2(mu+o)+s2}; gaussian mu and s2+noise.
 * offset_s: Ns x 1 test log exposure (poisson) or empty. */
int sgp_laplace_predict(sgp_ctx *ctx, const sgp_laplace_fit_t *fit, sgp_cmat Xs,
                        sgp_cmat offset_s, sgp_mat mean, sgp_mat var, sgp_mat resp_mean,
                        sgp_mat resp_var);

/* A non-owning fit for predictions from plain data (a fit reloaded from R or
 * Octave): fills *fit with pointers to X (n x d), weights (n x C) and root
 * (nC x r, r may be 0), the kernel (its lengthscale array is referenced), the
 * likelihood, C and the gaussian noise. Checks shapes and finiteness; messages
 * name the field ("x", "weights", "root", ...). Never pass the view to
 * sgp_laplace_fit_free. */
int sgp_laplace_fit_view(sgp_ctx *ctx, sgp_laplace_fit_t *fit, sgp_cmat X, sgp_cmat weights,
                         sgp_cmat root, const sgp_kernel *kernel, sgp_likelihood likelihood,
                         double noise);

#ifdef __cplusplus
}
#endif
#endif /* SGP_H */
