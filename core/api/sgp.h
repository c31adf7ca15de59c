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
  int nthreads;           /* OpenMP threads; <= 0 means the OpenMP default; set it
                           * through sgp_ctx_set_threads (at most SGP_MAX_THREADS) */
  uint64_t seed;          /* seed given to sgp_ctx_init / sgp_ctx_set_seed */
  sgp_rng rng;            /* the only source of randomness in the core */
  sgp_backend backend;    /* requested backend (AUTO falls back to CPU) */
  char errmsg[1024];      /* detail of the last error */
} sgp_ctx;

/* Defaults: no hooks, silent, OpenMP default threads, seed 1, AUTO backend. */
void sgp_ctx_init(sgp_ctx *ctx);
void sgp_ctx_set_seed(sgp_ctx *ctx, uint64_t seed);
/* Most OpenMP threads a context may ask for. More threads than cores only
 * slow the core down, and each OpenMP thread reserves a stack (8 MB by
 * default): thousands exhaust the address space or a `ulimit -v`, and libgomp
 * then exits the whole process. 256 threads reserve about 2 GB. */
#define SGP_MAX_THREADS 256
/* Sets ctx->nthreads from a host number: 0 = the OpenMP default, else a whole
 * number 1..SGP_MAX_THREADS. Anything else (negative, fractional, NaN, Inf,
 * above the maximum) leaves ctx->nthreads alone and returns SGP_EINVAL with a
 * message naming `threads`. */
int  sgp_ctx_set_threads(sgp_ctx *ctx, double threads);
/* The tests' hooks (`name`, e.g. interrupt_after: a simulated Ctrl-C after that
 * many interrupt polls) work only where the environment variable
 * SCALEGP_TEST_HOOKS is "1", so that no user reaches one by accident. SGP_OK when
 * value < 0 (the hook is off) or the variable is set, else SGP_EINVAL naming it. */
int  sgp_ctx_test_hook(sgp_ctx *ctx, const char *name, double value);
/* When ctx->errmsg starts with "<from>:", makes it "<to>:" (a host whose argument
 * has another name than the core's, e.g. predict's newdata for the core's xtest). */
void sgp_ctx_rename_arg(sgp_ctx *ctx, const char *from, const char *to);
/* Thread count the core will actually use: nthreads <= 0 resolves to the OpenMP
 * default; a field set directly above SGP_MAX_THREADS (or OpenMP's thread
 * limit) is capped there; 1 in a process forked after the library was loaded
 * (OpenMP's thread pool does not survive fork). Every parallel region of the
 * core takes its team size from here. */
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
  SGP_KERNEL_MATERN52 = 3,  /* s2 (1 + sqrt5 r + 5 r^2/3) exp(-sqrt5 r) */
  SGP_KERNEL_RQ = 4,        /* s2 (1 + r^2/(2 alpha))^(-alpha), rational quadratic */
  SGP_KERNEL_COUNT          /* the number of kernels (core/kernels/kernel_table.c has their facts) */
} sgp_kernel_kind;
/* r = || (x - x') / lengthscale || with per-dimension (ARD) or one lengthscale. */

typedef struct {
  sgp_kernel_kind kind;
  const double *lengthscale;  /* n_lengthscale positive values */
  int64_t n_lengthscale;      /* 1 (isotropic) or d (ARD) */
  double outputscale;         /* signal variance s2 > 0 */
  double alpha;               /* shape parameter > 0 of the kernels that have one */
} sgp_kernel;

/* Kernel by name (sgp_kernel_names); SGP_EINVAL if unknown. */
int sgp_kernel_from_name(sgp_ctx *ctx, const char *name, sgp_kernel_kind *kind);
const char *sgp_kernel_name(sgp_kernel_kind kind);
/* Checks the kernel for inputs of dimension d (lengthscale count and positivity,
 * outputscale > 0, alpha > 0 where the kernel has it, all finite); messages name
 * `lengthscale` / `outputscale` / `alpha`. */
int sgp_kernel_check(sgp_ctx *ctx, const sgp_kernel *k, int64_t d);
/* Checks that a matrix argument is non-empty and finite; names it in errors. */
int sgp_check_finite(sgp_ctx *ctx, const char *argname, sgp_cmat a);
/* sgp_check_finite, and every |value| <= bound (SGP_MAX_DATA_VALUE for data
 * whose squares and products must not overflow); the error names argname. */
int sgp_check_bounded(sgp_ctx *ctx, const char *argname, sgp_cmat a, double bound);
#define SGP_MAX_DATA_VALUE 1e100

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
  int tile;                 /* tile size of the products (matrix-free, or blocks of
                               the cached K); default 512 */
  size_t cache_bytes;       /* materialize K once when 8 n^2 bytes fit; default 0
                               (always matrix-free). Only its lower triangle is
                               touched: about 4 n^2 bytes become resident */
} sgp_dense_op_opts;

void sgp_dense_op_opts_default(sgp_dense_op_opts *o);
/* Operator K(X, X) + shift I. X and the kernel's lengthscale array must outlive
 * the operator (they are not copied). Sets *cached to 1 when K was materialized
 * (cached may be NULL). */
int sgp_op_dense_kernel(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X,
                        const sgp_dense_op_opts *o, sgp_op *op, int *cached);
/* Operator for an explicit symmetric n-by-n matrix (not copied). */
int sgp_op_matrix(sgp_ctx *ctx, sgp_cmat A, sgp_op *op);

/* ---------------------------------------------------------------- gp_laplace */
/* IterNCGP (spec shared/spec/gp_laplace.md): computation-aware Laplace inference for
 * non-conjugate likelihoods. Every NC-vector is a column-major N-by-C matrix. */


typedef enum {
  SGP_LIK_GAUSSIAN = 0,   /* y real, variance `noise` (scalar or per point) */
  SGP_LIK_BERNOULLI = 1,  /* y in {0, 1}, logit link, one latent function */
  SGP_LIK_POISSON = 2,    /* y in {0, 1, 2, ...}, log link, log exposure `offset` */
  SGP_LIK_SOFTMAX = 3,    /* y in {1, ..., n_class}, C = n_class latents, shared kernel */
  SGP_LIK_BINOMIAL = 4,   /* y in {0, ..., trials}, logit link, `trials` per point */
  SGP_LIK_NEGBIN = 5      /* y in {0, 1, 2, ...}, NB2: variance mu + mu^2 / dispersion, log
                           * link, log exposure `offset` */
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
  SGP_STOP_CONVERGED = 6,  /* outer: the mode bound at the linearization point <= tol */
  SGP_STOP_MAXNEWTON = 7,  /* outer: max_newton steps */
  SGP_STOP_DIVERGED = 8,   /* outer: non-finite latent / pseudo-targets */
  SGP_STOP_TIME = 9,       /* outer: time_limit reached */
  SGP_STOP_STALLED = 10,   /* outer: the iterates stopped moving (relative step at
                            * rounding twice) with the mode bound still above tol */
  SGP_STOP_STAGNATED = 11  /* inner: the residual stopped decreasing (20 iterations
                            * without halving): the attainable accuracy */
};
const char *sgp_laplace_stop_name(int reason);

typedef struct {
  sgp_likelihood likelihood; /* default bernoulli */
  sgp_cmat noise;            /* gaussian variance: 1x1 or Nx1; empty (default) = 1.
                              * Other likelihoods: must stay empty (SGP_EINVAL) */
  sgp_cmat offset;           /* Nx1 poisson log exposure; empty (data NULL) = 0 */
  sgp_cmat trials;           /* binomial trials: 1x1 or Nx1 whole numbers >= 1; empty = 1 */
  double dispersion;         /* negbin: r of the variance mu + mu^2 / r (> 0); 1 */
  sgp_kernel kernel;         /* shared by all classes */
  sgp_policy policy;         /* default CG */
  int max_newton;            /* default 20 */
  int max_iter;              /* solver iterations per Newton step; default 5 */
  int64_t rank;              /* compression rank R; < 0 = Inf (default) */
  double tol;                /* outer: converged when the bound on max |f_i - f_mode| at the
                              * linearization point of the returned posterior is <= tol
                              * (f_i - f_mode <= ||grad Psi(f_i)|| / curvature); 1e-6 */
  int n_class;               /* C for softmax (>= 2; 0 = the largest label, the default),
                              * ignored otherwise */
  int recycle;               /* 1: recycle S, T across Newton steps (default) */
  int64_t max_total_iter;    /* < 0 = none (default) */
  double time_limit;         /* seconds; < 0 = none (default) */
  double inner_atol, inner_rtol, eta_tol; /* 1e-5, 1e-5, 0 */
  double eig_rtol, kappa, noise_max;      /* 1e-12, 0, 1e12 */
  sgp_residual residual;     /* default recursive: one kernel product per solver
                              * iteration, K v recomputed every 32 */
  int damping;               /* 1: backtracking on Psi after each Newton step (spec 3.8), so
                              * that truncated solves cannot diverge; 0: the paper's
                              * undamped steps; 1 */
  int random_order;          /* unit policy: seeded random permutation (default 0) */
  size_t kernel_cache_bytes; /* materialize K_x when 8 N^2 bytes fit; default 2 GiB */
  int tile;                  /* kernel tile size; default 512 */
  /* model selection (spec shared/spec/model_selection.md). Not given: the kernel's
   * lengthscale NULL, its outputscale NaN, mean NULL, noise empty. */
  const double *mean;        /* constant prior mean: 1 value, or C (softmax); added to
                              * sgp_laplace_fit's prior_mean */
  int64_t n_mean;
  unsigned learn;            /* SGP_LEARN_* bits; default 0 (none; AUTO: those not given) */
  int optim_max_iter;        /* evidence evaluations of the optimizer at most; 100 */
  int restarts;              /* extra seeded starts of the optimizer; 0 */
  int evidence;              /* SGP_EVIDENCE_*: the exact evidence or the matrix-free
                              * estimate (diagonal W only); default AUTO: exact when it
                              * fits in memory */
  int probes;                /* stochastic evidence: Rademacher probes (ctx seed); 32 */
  int precond_rank;          /* policy cg, diagonal W: the cg actions are P^-1 r with P =
                              * F F' + W^-1, F F' a rank-k pivoted Cholesky of K (IterGP
                              * with preconditioned actions); 0 = none (default) */
  int class_actions;         /* softmax with C > 2, policy cg: each cg action's C class
                              * blocks (per point centred) are C actions, their kernel
                              * products all from the action's one product (default 1);
                              * 0: one action per iteration */
  int history_trace;         /* SGP_HISTORY_TRACE_*: the history's trace column (a metric,
                              * spec 4.4). AUTO (default): recorded where it is an
                              * incremental O(B NC) update; NaN in the exact mode's dense
                              * first solve, where it needs the inverse of a Cholesky factor
                              * (NC^3/3 flops, as much as the solve). ALWAYS: everywhere */
} sgp_laplace_opts;

enum { SGP_EVIDENCE_AUTO = 0, SGP_EVIDENCE_EXACT = 1, SGP_EVIDENCE_STOCHASTIC = 2 };
enum { SGP_HISTORY_TRACE_AUTO = 0, SGP_HISTORY_TRACE_ALWAYS = 1 };

/* What is learned by maximizing the evidence; AUTO: every hyperparameter not given. */
enum {
  SGP_LEARN_LENGTHSCALE = 1u, SGP_LEARN_OUTPUTSCALE = 2u, SGP_LEARN_MEAN = 4u,
  SGP_LEARN_NOISE = 8u, SGP_LEARN_AUTO = 16u
};

/* The hyperparameters a fit used, and its model selection (spec model_selection.md
 * §6; gp_laplace, and ski_gsgp with its one constant mean: n_mean 1): the evidence and its
 * gradient in the coordinates theta = (log lengthscale(s), log outputscale, mean(s),
 * log noise), and the optimizer's trace. */
typedef struct sgp_hyper {
  double *lengthscale;     /* n_lengthscale */
  int64_t n_lengthscale;
  double outputscale;
  double *mean;            /* n_mean: 1, or C (softmax) */
  int64_t n_mean;
  double noise;            /* gaussian with one noise value (NaN otherwise) */
  unsigned requested;      /* SGP_LEARN_* bits asked for (learn, AUTO resolved) */
  unsigned learned;        /* SGP_LEARN_* bits that were optimized */
  int64_t n_theta;         /* coordinates of grad */
  double loglik;           /* the evidence (gp_laplace: exact Laplace or the matrix-free
                            * estimate; ski_gsgp: SLQ estimate); NaN when not computed
                            * (note says why) */
  double loglik_se;        /* the estimate's standard error; 0 when exact */
  double *grad;            /* n_theta, or NULL with loglik */
  int64_t n_eval;          /* optimizer evaluations (rows of the trace) */
  double *tr_loglik, *tr_gradnorm, *tr_seconds; /* n_eval each */
  double *tr_theta;        /* n_eval x n_theta (ld n_eval): the values evaluated, on the
                            * user's scale (lengthscale, outputscale, mean, noise) */
  int optim_converged;
  int optim_timed_out;     /* the learning stopped at the time limit */
  int optim_interrupted;   /* always 0: an interrupted learning ends the call (SGP_EINTERRUPT) */
  char optim_message[256];
  char note[256];          /* "" or why the hyperparameters were not learned / loglik is NaN */
} sgp_hyper;
typedef sgp_hyper sgp_laplace_hyper;
/* The name of coordinate k of theta ("lengthscale" or "lengthscale1".., "outputscale",
 * "mean" or "mean1".., "noise"). */
void sgp_hyper_theta_name(const sgp_hyper *h, int64_t k, char *buf, size_t size);
void sgp_hyper_free(sgp_hyper *h);

void sgp_laplace_opts_default(sgp_laplace_opts *o);

/* History: one row per accepted solver iteration (iteration arrays) and one per
 * Newton step (step arrays). */
typedef struct {
  int64_t n_iter, n_step;
  /* per accepted iteration */
  int *it_newton, *it_iter; /* Newton step from 0; iteration within it from 1 */
  int64_t *it_total, *it_buffer, *it_rank; /* total from 1 */
  double *it_resid, *it_rel_resid, *it_alpha, *it_eta, *it_trace, *it_time;
  /* per Newton step */
  double *st_psi;     /* Psi at the linearization point f_i */
  double *st_delta;   /* relative Newton step delta_i */
  double *st_mode_err;/* bound on max |f_i - f_mode| at the linearization point f_i */
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
  int64_t empty_class;     /* softmax: the first class in 1..C no training point has, else 0 */
  int64_t var_unresolved;  /* variances in var below what rounding resolves (warned) */
  sgp_laplace_hyper hyper; /* the hyperparameters used and their selection */
  sgp_laplace_history history;
} sgp_laplace_fit_t;

/* y: N x 1 (softmax labels 1..C as doubles); prior_mean: N x C or empty (= 0). */
int sgp_laplace_fit(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                    const sgp_laplace_opts *o, sgp_laplace_fit_t **out);
/* The warnings of a fit, one wording for both hosts, one per line of buf ("" and 0
 * when none): it did not converge, a softmax class has no training point, variances
 * that rounding does not resolve, model selection fell short. ids (may be NULL) gets
 * each line's identifier ("not-converged", "empty-class", "variance-unresolved",
 * "model-selection"), one per line. Returns the count. */
#define SGP_LAPLACE_WARNING_SIZE 2048
int sgp_laplace_warning(const sgp_laplace_fit_t *fit, const sgp_laplace_opts *o, char *buf,
                        size_t size, char *ids, size_t ids_size);
void sgp_laplace_fit_free(sgp_laplace_fit_t *fit);
/* Latent mean / variance (Ns x C each; var may have data NULL) at Xs (with the
 * fit's constant prior mean), and the response (optional, data NULL to skip), Ns x C each:
 * bernoulli P(y=1) by the probit approximation and its Bernoulli variance;
 * softmax probabilities softmax(mu_c kappa(s2_c)) and p(1-p); poisson rate mean
 * exp(mu+o+s2/2) and variance (e^{s2}-1) e^{2(mu+o)+s2}; gaussian mu and s2+noise.
 * offset_s: Ns x 1 test log exposure (poisson) or empty. */
int sgp_laplace_predict(sgp_ctx *ctx, const sgp_laplace_fit_t *fit, sgp_cmat Xs,
                        sgp_cmat offset_s, sgp_mat mean, sgp_mat var, sgp_mat resp_mean,
                        sgp_mat resp_var);
/* The same, counting into *unresolved the latent variances below what rounding
 * resolves (reported as computed, 0 where negative; the caller warns). */
int sgp_laplace_predict_count(sgp_ctx *ctx, const sgp_laplace_fit_t *fit, sgp_cmat Xs,
                              sgp_cmat offset_s, sgp_mat mean, sgp_mat var, sgp_mat resp_mean,
                              sgp_mat resp_var, int64_t *unresolved);

/* A non-owning fit for predictions from plain data (a fit reloaded from R or
 * Octave): fills *fit with pointers to X (n x d), weights (n x C) and root
 * (nC x r, r may be 0), the kernel (its lengthscale array is referenced), the
 * likelihood, C, the gaussian noise and the constant prior mean (1 or C values, or
 * empty = 0; referenced). Checks shapes and finiteness; messages
 * name the field ("x", "weights", "root", ...). Never pass the view to
 * sgp_laplace_fit_free. */
int sgp_laplace_fit_view(sgp_ctx *ctx, sgp_laplace_fit_t *fit, sgp_cmat X, sgp_cmat weights,
                         sgp_cmat root, const sgp_kernel *kernel, sgp_likelihood likelihood,
                         double noise, sgp_cmat mean);

/* ---- ski_gsgp ---- */
/* Structured kernel interpolation on a regular grid (spec shared/spec/ski_gsgp.md).
 * Grid vectors are stored first dimension fastest, g = i_1 + m_1 (i_2 + ...), so
 * R's array(v, dim = grid_size) reshapes them. The internals (K_G operators,
 * solvers, LOVE) are declared in core/ski/ski.h; the shims need only this. */

#define SGP_SKI_MAX_D 8

/* interpolation: cubic convolution (Keys, a = -1/2; 4 taps per dimension) or
 * linear (2 taps per dimension). */
typedef enum { SGP_SKI_CUBIC = 0, SGP_SKI_LINEAR = 1 } sgp_ski_interpolation;

/* bounds_policy: what to do with a point outside the valid range of the grid
 * (cubic 1 <= t_j <= m_j - 2, linear 0 <= t_j <= m_j - 1, t_j = (x_j - lo_j)/h_j).
 *  ERROR    (default) SGP_EINVAL naming `x`, its row and column;
 *  TRUNCATE taps that fall outside the grid are dropped (index -1, weight 0);
 *           the remaining weights no longer sum to 1 (authors' reference code);
 *  CLAMP    t_j is clamped into the valid range (the nearest valid position);
 *  DROP     the whole point is dropped: every tap has index -1 and weight 0.
 * Non-finite coordinates are an error under every policy. */
typedef enum {
  SGP_SKI_BOUNDS_ERROR = 0,
  SGP_SKI_BOUNDS_TRUNCATE = 1,
  SGP_SKI_BOUNDS_CLAMP = 2,
  SGP_SKI_BOUNDS_DROP = 3
} sgp_ski_bounds_policy;

/* A regular grid: m[j] points in dimension j at lo[j] + i h[j], i = 0..m[j]-1
 * (grid_size = m; grid_bounds[j, ] = (lo[j], lo[j] + (m[j] - 1) h[j])).
 * Entries at j >= d are unused. h[j] is 1 where m[j] = 1. */
typedef struct {
  int d;
  int64_t m[SGP_SKI_MAX_D];
  double lo[SGP_SKI_MAX_D], h[SGP_SKI_MAX_D];
} sgp_ski_grid;

typedef enum { SGP_SKI_METHOD_GSGP = 0, SGP_SKI_METHOD_SKI = 1 } sgp_ski_method;
typedef enum {
  SGP_SKI_VARIANCE_NONE = 0,
  SGP_SKI_VARIANCE_LANCZOS = 1,
  SGP_SKI_VARIANCE_EXACT = 2
} sgp_ski_variance;
/* How the log marginal likelihood and its gradient are computed (option
 * loglik_method): AUTO picks EXACT for small grids (sgp_ski_loglik_use_exact),
 * EXACT is the dense m-by-m evaluation (ski_loglik_exact.c), SLQ the
 * stochastic Lanczos quadrature with the probe sketches (ski_loglik.c), EIGEN
 * the preconditioned SLQ in a separable kernel's eigenbasis
 * (ski_loglik_eig.c; the learning's choice under AUTO where it applies). */
typedef enum {
  SGP_SKI_LOGLIK_AUTO = 0,
  SGP_SKI_LOGLIK_EXACT = 1,
  SGP_SKI_LOGLIK_SLQ = 2,
  SGP_SKI_LOGLIK_EIGEN = 3
} sgp_ski_loglik_method;

/* Options of ski_gsgp (same names in R and Octave). The seed of the probes,
 * threads, backend and verbosity live in sgp_ctx. */
typedef struct {
  int64_t grid_size[SGP_SKI_MAX_D]; /* points per dimension; 0 = automatic (spec §8.2) */
  const double *grid_bounds;        /* d-by-2 (lower, upper; both are grid points);
                                       NULL = data range plus grid_pad cells */
  int grid_pad;                     /* < 0 (default): 2 cells cubic, 1 linear */
  int64_t max_grid_points;          /* cap of the automatic size; <= 0: 2^20 */
  int grid_rule;                    /* automatic size with a lengthscale: 1 (default) the
                                       kernel's smoothness rule (ski_grid_rule.c), 0 the
                                       lengthscale / 3 spacing of ski_grid */
  sgp_ski_interpolation interpolation; /* CUBIC */
  sgp_ski_bounds_policy bounds_policy; /* ERROR */
  sgp_kernel kernel;                /* default rbf; lengthscale NULL and outputscale NaN:
                                       not given (learned by sgp_ski_fit_learn, else 1) */
  double noise;                     /* Gaussian noise variance; default NaN: not given
                                       (learned by sgp_ski_fit_learn, else 1) */
  double mean;                      /* constant prior mean; default NaN: not given (learned:
                                       the GLS estimate at fixed kernel and noise, else a
                                       coordinate of the learning; 0 when learn leaves it out) */
  sgp_ski_method method;            /* GSGP (EFCG on grid statistics) or SKI (CG on n) */
  double tol;                       /* relative residual of the solves; 0.01 */
  int64_t max_iter;                 /* 1000 */
  sgp_ski_variance variance;        /* NONE */
  int64_t rank;                     /* Lanczos rank; <= 0: min(m, 256) */
  int loglik;                       /* 0 */
  int64_t probes;                   /* SLQ probes of the log-determinant; 0 (default):
                                       sgp_ski_probes */
  uint64_t seed;                    /* seed of the probes (sketches are keyed by
                                       seed, probe and global row); 1 */
  int64_t slq_max_iter;             /* Krylov steps per probe; 100 */
  sgp_ski_loglik_method loglik_method; /* AUTO */
  int64_t precond_rank;             /* method GSGP: rank q of the K_G preconditioner
                                       of the mean solve (spec §8.4); 0 = none (default) */
  int64_t n_grid_size;              /* values given in grid_size: 0 (default) every entry
                                       j < d as stored; 1: grid_size[0] for every
                                       dimension; else it must be d */
  int64_t n_grid_bounds;            /* numbers in grid_bounds: 0 (default) d-by-2 as
                                       stored; else it must be 2 d */
  /* model selection (spec model_selection.md §4-§6; sgp_ski_fit_learn) */
  unsigned learn;                   /* SGP_SKI_LEARN_* bits; default AUTO: those not given */
  int optim_max_iter;               /* log-likelihood evaluations of the optimizer; 100 */
  int restarts;                     /* extra seeded starts of the optimizer; 0 */
} sgp_ski_opts;
/* ski_gsgp's `learn` (bit i: choice i of the option table). */
enum {
  SGP_SKI_LEARN_LENGTHSCALE = 1u, SGP_SKI_LEARN_OUTPUTSCALE = 2u, SGP_SKI_LEARN_NOISE = 4u,
  SGP_SKI_LEARN_MEAN = 8u, SGP_SKI_LEARN_AUTO = 16u
};

void sgp_ski_opts_default(sgp_ski_opts *o);
/* The probes a log-likelihood uses: o->probes when given (> 0), else
 * SGP_SKI_PROBES for the sketch SLQ and SGP_SKI_EIG_PROBES for the eigenbasis
 * one (eigen != 0), whose preconditioned probes vary far less than the plain
 * ones (bench_ski_learn, n = 1e6: logdet se 0.06 with 10 against 17 with 30
 * plain): 10 of them are more precise than 30 plain ones at a third of the
 * cost of 30. */
#define SGP_SKI_PROBES 30
#define SGP_SKI_EIG_PROBES 10
int64_t sgp_ski_probes(const sgp_ski_opts *o, int eigen);

/* The grid of a fit: o->grid_size (0 entries chosen from n, d and the kernel's
 * lengthscale) and o->grid_bounds (NULL: from data_range, d-by-2 min/max, with
 * the pad). Errors name grid_size, grid_bounds, interpolation. */
int sgp_ski_make_grid(sgp_ctx *ctx, sgp_cmat data_range, int64_t n, const sgp_ski_opts *o,
                      sgp_ski_grid *out);

/* Sufficient statistics (opaque; core/ski/ski.h): B = W'W as a stencil, W'y,
 * W'1, y'y, sum y, n. */
typedef struct sgp_ski_stats sgp_ski_stats;

/* The statistics as plain arrays (what R lists and Octave structs hold). m grid
 * points, S = (2 (2r - 1) + 1)^d stencil offsets (7^d cubic, 3^d linear):
 * D[s + S g] = B[g, g + o_s] (column g of an S-by-m matrix) with offset o_s
 * given by s = sum_j (o_j + R) P^j, P = 2R + 1, R = 3 cubic / 1 linear, and 0
 * where g + o leaves the grid. Optional probe sketches for the log-likelihood:
 * uz = W'Z (m-by-probes) of Rademacher probes keyed by (probe_seed, probe,
 * global row), rhoz = sum z^2 (= n). */
typedef struct {
  sgp_ski_grid grid;
  sgp_ski_interpolation interpolation;
  int64_t m, S;
  int64_t n;
  double yy, ysum;
  const double *uy, *u1;  /* m each */
  const double *D;        /* m-by-S */
  int64_t probes;         /* 0: no sketches */
  uint64_t probe_seed;
  double rhoz;
  const double *uz;       /* m-by-probes (NULL when probes = 0) */
} sgp_ski_stats_data;

/* m and S of statistics on grid g (errors name grid_size, interpolation). */
int sgp_ski_stats_shape(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                        int64_t *m, int64_t *S);
/* Statistics of the rows of X (n-by-d), y (n) in one pass (o->interpolation,
 * o->bounds_policy) and, when uz is not NULL, the o->probes probe sketches
 * uz (m-by-probes, caller-allocated) with seed o->seed, and *rhoz. first_row:
 * global index of X's first row (keys the probes; messages). */
int sgp_ski_stats_compute(sgp_ctx *ctx, const sgp_ski_grid *g, const sgp_ski_opts *o,
                          sgp_cmat X, sgp_cmat y, int64_t first_row, sgp_ski_stats **out,
                          double *uz, double *rhoz);
/* Views of st's arrays (valid while st lives); the sketch fields are zeroed. */
int sgp_ski_stats_export(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_ski_stats_data *out);
/* A validated copy of plain statistics (sizes consistent, values finite, B's
 * diagonal non-negative, zero outside the grid, n >= 0); errors name `stats`
 * and the field by its R/Octave name (yty, Wty, Wt1, WtW, Wtz for yy, uy, u1,
 * D, uz).
 * The sketch fields are checked too but not copied (the fit reads them). */
int sgp_ski_stats_import(sgp_ctx *ctx, const sgp_ski_stats_data *in, sgp_ski_stats **out);
/* dst += src; grids and interpolation must match (ski_merge.c). */
int sgp_ski_stats_merge(sgp_ctx *ctx, sgp_ski_stats *dst, const sgp_ski_stats *src);

/* The sum of plain statistics (ski_stats_merge). Arrays caller-allocated with
 * in[0]'s sizes (uz m-by-probes, NULL when probes = 0); they may be in[0]'s. */
typedef struct {
  double *uy, *u1, *D, *uz;
  int64_t n;               /* written, as the scalars */
  double yy, ysum, rhoz;
} sgp_ski_stats_sum;
/* out = in[0] + in[1] + ... + in[k-1], in that order. Every in[i] must match
 * its grid (sizes from sgp_ski_stats_shape) and have in[0]'s grid,
 * interpolation and probe sketches (probes; probe_seed when probes > 0); the
 * sums must stay finite. Errors name label[i], the user's name of the
 * argument: "'b' was built on another grid than 'a' (...)", "'b' has other
 * probe sketches than 'a' (...)", "'b' makes the merged 'yty' overflow ...". */
int sgp_ski_stats_merge_data(sgp_ctx *ctx, int64_t k, const sgp_ski_stats_data *in,
                             const char *const *label, sgp_ski_stats_sum *out);
void sgp_ski_stats_free(sgp_ski_stats *st);

/* Why an iterative solve of ski_gsgp stopped (the fit's mean solve, exact
 * variances). Only TOL is convergence: the true relative residual of the
 * returned iterate met tol (recomputed, not CG's recursive estimate). */
typedef enum {
  SGP_SKI_STOP_TOL = 0,       /* converged */
  SGP_SKI_STOP_MAX_ITER = 1,  /* max_iter iterations without meeting tol */
  SGP_SKI_STOP_ACCURACY = 2,  /* the true residual stopped decreasing above tol: rounding
                                 errors limit the attainable accuracy (raise tol) */
  SGP_SKI_STOP_BREAKDOWN = 3  /* p'Ap <= 0: the system is not numerically positive definite */
} sgp_ski_stop;

/* Largest LOVE rank a fit may keep: min(m, o->rank), o->rank <= 0 -> min(m, 256). */
int64_t sgp_ski_love_rank_max(const sgp_ski_opts *o, int64_t m);

/* Output of sgp_ski_fit. Arrays are caller-allocated (NULL where not wanted). */
typedef struct {
  double *weights;        /* m: the grid mean cache a, mu(x*) = w(x*)' a (required) */
  double *history;        /* max_iter + 1 relative residuals of the mean solve */
  double *love_Ft;        /* variance LANCZOS: rank_max-by-m LOVE factor (F') */
  double *love_c0;        /* variance LANCZOS: m, K_G e_0 (prior table) */
  /* written by the fit */
  int64_t love_rank;      /* rows of love_Ft in use (ld stays love_rank too) */
  double love_error;      /* variance LANCZOS: the bound on the LOVE variances' relative
                             error at the cache's check points (ski_love_check.c; NaN
                             otherwise) */
  int64_t iterations;     /* mean solve iterations */
  int converged;          /* mean solve met tol (its true residual) */
  double rel_residual;    /* of the mean solve at exit: the true relative residual */
  sgp_ski_stop stop;      /* why the mean solve stopped */
  double mean;            /* the constant prior mean used (o->mean, or its GLS estimate) */
  double interp_error;    /* estimated max |posterior mean - exact GP's| due to the grid
                             (sgp_ski_interp_error_est; NaN: not estimated) */
  double loglik, logdet, logdet_se, datafit; /* with o->loglik */
  int64_t probes_used;
  int loglik_converged;
} sgp_ski_fit_result;

/* Fits the posterior mean from the statistics: method GSGP by EFCG with grid
 * work only; method SKI by CG on the n data (X, y needed: the rows the
 * statistics came from). Builds the LOVE factor with variance LANCZOS and the
 * SLQ log-likelihood with loglik (needs stats->probes > 0). Non-convergence is
 * reported in res, not as an error. Errors name stats, x, y, noise,
 * lengthscale, outputscale, tol, max_iter, rank, probes. */
int sgp_ski_fit(sgp_ctx *ctx, const sgp_ski_stats_data *stats, const sgp_ski_opts *o,
                sgp_cmat X, sgp_cmat y, sgp_ski_fit_result *res);

/* The hyperparameters a fit uses (not given: 1) in *out: o with a NULL
 * lengthscale, a NaN outputscale or noise replaced by 1. */
void sgp_ski_fixed_defaults(const sgp_ski_opts *o, sgp_ski_opts *out);
/* What o->learn asks for, as SGP_LEARN_* bits ("auto": each of lengthscale,
 * outputscale, noise not given). */
unsigned sgp_ski_learn_bits(const sgp_ski_opts *o);
/* The bits the optimizer learns (those of sgp_ski_learn_bits but the mean alone,
 * whose GLS estimate is closed form): they need probe sketches. */
unsigned sgp_ski_learn_optimized(const sgp_ski_opts *o);

/* The model selection of a ski_gsgp fit (spec model_selection.md §4-§6). */
typedef struct {
  sgp_hyper hyper;        /* values used, loglik, its gradient (n_mean 0), the trace */
  int evaluated;          /* loglik and the fields below are set */
  int at_floor;           /* a learned lengthscale ended at its floor (3 grid cells) */
  int eigen;              /* evaluated by the eigenbasis SLQ (loglik_method "eigen") */
  double loglik_se;       /* standard error of loglik (from the SLQ log-determinant) */
  double logdet, logdet_se, datafit;
  int64_t probes_used;
  int loglik_converged;
} sgp_ski_selection;
void sgp_ski_selection_free(sgp_ski_selection *sel);

/* sgp_ski_fit with model selection: the hyperparameters in o->learn (AUTO:
 * those not given) maximize the SLQ log marginal likelihood (value and
 * gradient from the statistics and the probe sketches only: no data pass;
 * probes fixed, so the objective is smooth) by L-BFGS from data-based initial
 * values (X, when given, for the lengthscale; else the statistics); the others
 * are the user's or 1. Then the fit runs at those values (*ro: o with them;
 * ro's lengthscale points into sel). The log-likelihood and its gradient are
 * evaluated at the values used when something was learned or o->loglik, and
 * res's log-likelihood fields are then those of sel. Needs probe sketches
 * when anything is learned. sel is freed with sgp_ski_selection_free (also on
 * error). */
int sgp_ski_fit_learn(sgp_ctx *ctx, const sgp_ski_stats_data *stats, const sgp_ski_opts *o,
                      sgp_cmat X, sgp_cmat y, sgp_ski_opts *ro, sgp_ski_selection *sel,
                      sgp_ski_fit_result *res);
/* The model-selection warning of a fit ("fn: ..."; "" when none): identifier
 * "model-selection" (the hosts' warning id scalegp:model-selection). */
void sgp_ski_selection_warning(const char *fn, const sgp_ski_selection *sel, char *buf,
                               size_t size);

/* One shot from the data: the statistics of X (n-by-d), y (n) on the grid g
 * (from sgp_ski_make_grid; m from sgp_ski_stats_shape sizes res's arrays), with
 * o->probes sketches when o->loglik, then sgp_ski_fit. The statistics are
 * freed; use sgp_ski_stats_compute + sgp_ski_stats_export to keep them. */
int sgp_ski_fit_xy(sgp_ctx *ctx, const sgp_ski_grid *g, const sgp_ski_opts *o, sgp_cmat X,
                   sgp_cmat y, sgp_ski_fit_result *res);

typedef struct {
  int64_t iterations;     /* exact variances: the most any point needed */
  int converged;          /* the variances are resolved: exact, every point's solve met
                             tol and its error bound; lanczos, the fit's LOVE check
                             (else 1) */
  double rel_residual;    /* exact: the worst */
  sgp_ski_stop stop;      /* exact: the worst reason (TOL when every point converged) */
  double var_error;       /* bound on the variances' relative error: exact, the largest
                             at these points; lanczos, the fit's at its check points
                             (NaN: not known, or no variances) */
  int64_t clamped;        /* variances whose estimate fell below 0, set to 0 */
} sgp_ski_predict_info;

/* Predictive mean (t) at the rows of Xs from the fit's weights plus the fit's
 * prior mean o->mean (the weights are those of the centred targets; NaN: none),
 * and, unless
 * var is NULL or o->variance is NONE, the latent (noise-free) variance (t,
 * >= 0): LANCZOS from love_Ft (love_rank-by-m) and love_c0; EXACT by one
 * grid-size solve per point from the statistics. Under bounds_policy DROP,
 * mean and var are NaN at points outside the grid (they have no taps). Errors
 * name xtest, stats, and weights or love when the fit's arrays are not finite
 * (damaged). */
int sgp_ski_predict(sgp_ctx *ctx, const sgp_ski_stats_data *stats, const sgp_ski_opts *o,
                    const double *weights, const double *love_Ft, const double *love_c0,
                    int64_t love_rank, sgp_cmat Xs, double *mean, double *var,
                    sgp_ski_predict_info *info);

/* ski_grid as one verb (its options by name: the table "ski_grid"): the grid
 * of x's range (n: x's rows unless given), of `range` (d-by-2 min, max; a
 * 2-vector for d = 1; n 0 unless given) or of grid_bounds with grid_size.
 * Errors name x, range, grid_size, grid_bounds, lengthscale, ... */
typedef struct {
  sgp_ski_opts ski;  /* grid_size, grid_bounds, grid_pad, interpolation, kernel.lengthscale
                        (default NULL: the size from n) */
  int64_t n;         /* data points for the automatic size; < 0 (default): as above */
} sgp_ski_grid_opts;
void sgp_ski_grid_opts_default(sgp_ski_grid_opts *o);
int sgp_ski_grid_make(sgp_ctx *ctx, const sgp_ski_grid_opts *o, sgp_cmat X, sgp_cmat range,
                      sgp_ski_grid *out);

/* ski_stats's options (the table "ski_stats"): bounds_policy, probes (default
 * 0), seed of the probes (its own row, default 1: every chunk must use the
 * same) in ski; first_row, the global index of x's first row (keys the probes). */
typedef struct {
  sgp_ski_opts ski;
  int64_t first_row;
} sgp_ski_stats_opts;
void sgp_ski_stats_opts_default(sgp_ski_stats_opts *o);

/* ski_gsgp as one verb (its options by name: the table "ski_gsgp", sgp_options.h).
 * The statistics a fit uses: those of X (n-by-d), y on the grid of the options
 * (with o->probes sketches of seed o->seed when o->loglik), or the given
 * `stats` (views), after the checks of the options against each other and the
 * data (a grid fixed by stats, interpolation, dimensions, probe sketches,
 * method "ski" needs x, y, precond_rank below the grid points).
 * interpolation_given: the user set `interpolation` (it must then match the
 * statistics'). X, y: data NULL when not given. Free with
 * sgp_ski_gsgp_input_free (the views of given statistics stay the caller's). */
typedef struct {
  sgp_ski_stats_data stats; /* what the fit reads (and a host returns) */
  int computed;             /* 1: computed from X, y (owned below) */
  sgp_ski_stats *owned;
  double *uz;
} sgp_ski_gsgp_input;
int sgp_ski_gsgp_prepare(sgp_ctx *ctx, const sgp_ski_opts *o, int interpolation_given,
                         sgp_cmat X, sgp_cmat y, const sgp_ski_stats_data *stats,
                         sgp_ski_gsgp_input *out);
void sgp_ski_gsgp_input_free(sgp_ski_gsgp_input *in);
/* "tol", "max_iter", "accuracy", "breakdown" */
const char *sgp_ski_stop_name(sgp_ski_stop stop);
/* The warnings of a fit (both hosts print them): the mean solve that did not
 * converge, in words that say why, and a rough log-likelihood; "" each when
 * there is none. */
/* The grid warning of a fit ("" when none): its estimated interpolation error
 * is above a tenth of the noise sd. */
void sgp_ski_grid_warning(const char *fn, const sgp_ski_fit_result *res, const sgp_ski_opts *o,
                          char *buf, size_t size);
void sgp_ski_warnings(const char *fn, const sgp_ski_fit_result *res, const sgp_ski_opts *o,
                      char *mean_warning, char *loglik_warning, size_t size);
/* The warning of predictions ("" when none): variances (of kind variance, a
 * sgp_ski_variance) not resolved (info->converged 0) and variances set to 0 from
 * below; fn: the user's function (ski_gsgp, predict). */
void sgp_ski_predict_warning(const char *fn, const sgp_ski_predict_info *info, int variance,
                             char *buf, size_t size);

/* ---------------------------------------------------------------- valla ---- */
/* VaLLA (spec shared/spec/valla.md): variational linearized Laplace for a
 * pre-trained MLP, with exact LLA and ELLA baselines, a small MAP trainer and
 * metrics. Points are rows (X is n-by-D); labels are 0..C-1 as doubles (the R
 * and Octave fronts shift 1..C). A block of rows for n points and all C outputs
 * has row r = i + n*c. Internal pieces live in core/valla/valla.h. */

typedef enum {
  SGP_ACT_IDENTITY = 0,
  SGP_ACT_TANH = 1,
  SGP_ACT_SIGMOID = 2,      /* logistic */
  SGP_ACT_SIGMOID_NNET = 3, /* nnet's logistic, clipped to 0/1 outside [-15, 15] */
  SGP_ACT_RELU = 4
} sgp_activation;

/* A user's MLP as views: layer l (0-based) maps width[l] -> width[l+1] by
 * h = a W[l] + b[l] (W[l] in-by-out, API.md) or, with transpose = 1, W[l] stored
 * out-by-in. Hidden units apply `activation`, the last layer `output`
 * (identity or a logistic). skip (data NULL = none): width[0]-by-C (in-by-out;
 * out-by-in with transpose), added to the last pre-activation. */
typedef struct {
  int n_layers;
  const int64_t *width;     /* n_layers + 1 widths: width[0] = D, width[L] = C */
  const sgp_cmat *W, *b;    /* n_layers each; b[l] has width[l+1] entries */
  int transpose;
  sgp_cmat skip;
  sgp_activation activation, output;
} sgp_valla_mlp;

/* The network as owned, normalized storage (always in-by-out, contiguous). */
typedef struct {
  int n_layers;
  int64_t *width;           /* n_layers + 1 */
  double **W, **b;          /* W[l]: width[l] x width[l+1]; b[l]: width[l+1] */
  double *skip;             /* D x C or NULL */
  sgp_activation activation, output;
} sgp_valla_net;

/* Names used by R and Octave: "identity", "tanh", "sigmoid", "sigmoid_nnet",
 * "relu". Returns SGP_OK or SGP_EINVAL (no message; the caller names the argument). */
int sgp_valla_activation_from_name(const char *name, sgp_activation *act);
const char *sgp_valla_activation_name(sgp_activation act);

/* Checks the view (shapes, finiteness, activations) and copies it. Messages name
 * the pieces `W[l]`, `b[l]`, `skip`, `width` (l 1-based). */
int  sgp_valla_net_from_mlp(sgp_ctx *ctx, const sgp_valla_mlp *mlp, sgp_valla_net *net);
/* nnet layout (spec §4.4): D inputs, H hidden (0 allowed with skip), K outputs;
 * out_sigmoid: output units apply the clipped logistic (entropy / logistic LS). */
int  sgp_valla_net_from_nnet(sgp_ctx *ctx, int64_t D, int64_t H, int64_t K, int skip,
                             int out_sigmoid, sgp_cmat wts, sgp_valla_net *net);
int  sgp_valla_net_copy(sgp_ctx *ctx, const sgp_valla_net *src, sgp_valla_net *dst);
void sgp_valla_net_free(sgp_valla_net *net);
/* Number of parameters P (weights, biases, skip). */
int64_t sgp_valla_net_nparam(const sgp_valla_net *net);
/* A view of owned storage (W, b point into net; width into net): for exporting a
 * network as plain data. W and b must hold net->n_layers entries each. */
void sgp_valla_net_view(const sgp_valla_net *net, sgp_cmat *W, sgp_cmat *b, sgp_valla_mlp *mlp);
/* Network outputs g (n x C) at X (n x D). */
int  sgp_valla_forward(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_mat G);
/* K_XZ (nC x M, row i + n*c), K_ZZ (M x M), kxx_diag (nC) and Kxx_full (C x C x n)
 * of the NTK scaled by s0, between X (all C outputs) and Z with one output tag
 * per row; any output with data NULL is skipped; layers: n_layers flags (NULL = all). */
int  sgp_valla_ntk(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat Z,
                   const int *tags, const int *layers, double s0, sgp_mat K_XZ,
                   sgp_mat K_ZZ, sgp_mat kxx_diag, sgp_mat Kxx_full);

typedef enum { SGP_VALLA_METHOD_VALLA = 0, SGP_VALLA_METHOD_LLA = 1,
               SGP_VALLA_METHOD_ELLA = 2 } sgp_valla_method;
/* Why training stopped (valla's Adam loop, mlp_fit). */
typedef enum {
  SGP_VALLA_STOP_ITERATIONS = 0, /* ran the iterations asked for */
  SGP_VALLA_STOP_EARLY = 1,      /* validation early stopping */
  SGP_VALLA_STOP_DIVERGED = 2,   /* the objective, a gradient or a step was not finite (or
                                    gave a prior/noise variance outside the normal doubles,
                                    or H = I + L'K L lost its Cholesky factor): stopped, the
                                    last usable state kept (else the start) */
  SGP_VALLA_STOP_LOSS_ROSE = 3   /* the training loss rose: mlp_fit's final full-data loss
                                    exceeds the initial one; valla's minibatch objective over
                                    the last 100 iterations exceeds the first value by more
                                    than 3 standard errors */
} sgp_valla_stop;
/* "iterations", "early_stopping", "diverged", "loss_rose". */
const char *sgp_valla_stop_name(sgp_valla_stop stop);
/* For a warning: what went wrong and what to change ("" for the first two). */
const char *sgp_valla_stop_advice(sgp_valla_stop stop);
enum { SGP_VALLA_LEARN_A = 1, SGP_VALLA_LEARN_INDUCING = 2, SGP_VALLA_LEARN_PRIOR_VAR = 4,
       SGP_VALLA_LEARN_NOISE = 8 };
enum { SGP_VALLA_INIT_IDENTITY = 0, SGP_VALLA_INIT_CLOSED_FORM = 1 };
/* How a learned gaussian noise is chosen when there are validation data. */
enum { SGP_VALLA_NOISE_VALIDATION = 0, SGP_VALLA_NOISE_ADAM = 1 };

typedef struct {
  /* API.md arguments */
  sgp_likelihood likelihood;  /* gaussian (C = 1), softmax (labels 0..C-1), bernoulli
                                 (one logit output, labels 0/1); default gaussian */
  sgp_valla_method method;    /* default valla */
  int64_t n_inducing;         /* M when inducing is empty (k-means on the rows of x left
                                 after the val_frac hold-out; more is an error); default 0:
                                 100, or all those rows when fewer */
  sgp_cmat inducing;          /* M x D initial locations (data NULL = k-means) */
  const int *inducing_tags;   /* output tag per row of inducing (NULL = m mod C) */
  double prior_var;           /* initial s0 = sigma0^2; default 1 */
  double noise;               /* initial noise variance, original scale; <= 0 =
                                 exp(-5) on the standardized scale (default) */
  unsigned learn;             /* SGP_VALLA_LEARN_* bits; default all four */
  int closed_form;            /* 1: Titsias/GGN optimum for A (spec §1.4); default 0 */
  int64_t iterations, batch_size;   /* 20000, 100 */
  double lr, alpha;           /* 1e-3, 1 (alpha in [0, 1], gaussian only below 1) */
  /* additional options */
  int64_t eval_every, patience;     /* 100, 1 */
  int restore_best;           /* 1 */
  double beta1, beta2, adam_eps;    /* 0.9, 0.999, 1e-8 */
  int init_A;                 /* SGP_VALLA_INIT_*; default identity */
  int standardize_y;          /* 1 (gaussian only) */
  int noise_fit;              /* SGP_VALLA_NOISE_*; default validation: with "noise" in
                                 learn and validation data, the noise minimizes the
                                 validation NLL at each check instead of being learned by
                                 Adam on x (valla_noise.c) */
  int64_t folds;              /* 5: without validation data, the fronts refit the network
                                 (R: an nnet fit from its call, or `refit`) on folds - 1
                                 of folds parts of x and pass the out-of-fold residuals as
                                 validation data; 0 or no refit: the val_frac hold-out.
                                 sgp_valla_fit does not read it */
  int64_t kmeans_iter, kmeans_max;  /* 10, 50000 */
  double jitter;              /* closed form with M < P (network parameters): eps =
                                 jitter * mean diag K_ZZ; 1e-8. M >= P uses the SVD
                                 of the inducing points' Jacobian, no jitter */
  size_t cache_max_bytes;     /* fixed Z: cache the training kernels when they fit; 2 GiB */
  double val_frac;            /* 0.1: held out when no validation set is given */
  int64_t val_max;            /* validation rows used (a seeded subsample; default 10000; < 0: all) */
  const int *layers;          /* n_layers flags; NULL = all layers */
  int64_t lla_max;            /* N*C guard for exact LLA; 5000 */
  int64_t ella_rank;          /* ELLA eigenpairs K; default 20 */
} sgp_valla_opts;

void sgp_valla_opts_default(sgp_valla_opts *o);
/* The rules between the options of the user-facing valla (R, Octave), after
 * they are set by name: noise only with likelihood gaussian, closed_form only
 * with method valla (sgp_valla_fit itself ignores those fields instead). */
int sgp_valla_opts_check(sgp_ctx *ctx, const sgp_valla_opts *o);
/* The warning of a training stop (sgp_valla_stop_advice with the iteration it
 * diverged at), "" when nothing went wrong; returns 1 when there is one. */
int sgp_valla_stop_warning(sgp_valla_stop stop, int64_t diverged_at, char *buf, size_t size);

/* Predictive latent covariance of every method in one form (spec §1.3, §1.4, §6):
 *   K*(x,x) = prior * K_xx - |P1 K_Zx|^2 + |P2 K_Zx|^2   (P1, P2: M x M or NULL)
 * with K = s0 * k0 / y_sd^2 (regression) between x and the tagged points Z. */
typedef struct sgp_valla_fit {
  sgp_valla_net net;
  sgp_likelihood likelihood;
  sgp_valla_method method;
  int64_t D, C, n_class, M, N;
  double *Z; int *tags;       /* M x D, M */
  int *layers;                /* n_layers flags or NULL */
  double *L;                  /* M x M lower (valla), A = L L'; NULL for lla / ella */
  double log_sigma0;          /* omega0 = log sigma0 */
  double log_noise;           /* rho = log s, standardized scale (gaussian) */
  double y_mean, y_sd;        /* regression standardization (0, 1 when off) */
  double alpha;
  int closed_form, prior;     /* prior: 1 when the K_xx term enters K* */
  double *P1, *P2;            /* M x M, may be NULL */
  int64_t iterations, best_iteration, n_eval;
  double *trace_obj;          /* iterations entries: objective l */
  double *trace_val;          /* n_eval entries: validation NLL */
  int64_t *trace_val_iter;    /* n_eval entries */
  int64_t clamps;             /* variances clamped at 0 during training */
  int stopped_early;
  sgp_valla_stop stop;        /* why the Adam loop stopped (iterations when it did not run) */
  int64_t diverged_at;        /* iteration with a non-finite objective or step; 0 */
  int kernel_cache;           /* 1 when the fixed-Z training kernels were cached */
  int noise_from_val;         /* 1 when the noise was chosen on the validation data */
  int overfit;                /* 1 when validation residuals exceed x's (valla_noise.c) */
  double rmse_train, rmse_val;  /* the network's RMSE on x and on the validation data
                                   (original scale; 0 without validation data) */
} sgp_valla_fit_t;

/* y: N x 1 (regression targets; labels 0..C-1 / 0-1 as doubles). X_val/y_val: an
 * explicit validation set (data NULL: a val_frac hold-out of X when valla runs
 * Adam with early stopping). Dispatches on o->method. */
int  sgp_valla_fit(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                   sgp_cmat X_val, sgp_cmat y_val, const sgp_valla_opts *o,
                   sgp_valla_fit_t **out);
void sgp_valla_fit_free(sgp_valla_fit_t *fit);
/* Original-scale hyperparameters of a fit: prior_var = sigma0^2, noise = s y_sd^2
 * (0 for classification). */
double sgp_valla_fit_prior_var(const sgp_valla_fit_t *fit);
double sgp_valla_fit_noise(const sgp_valla_fit_t *fit);
/* The overfitting warning of a gaussian fit with validation data ("" when the
 * network's validation residuals are not much larger than those on x); returns 1
 * when there is one. The hosts' warning id is scalegp:overfit. */
int sgp_valla_overfit_warning(const sgp_valla_fit_t *fit, char *buf, size_t size);

/* What prediction needs from a fit, as plain data (a fit saved by R or Octave
 * and reloaded): the network comes separately as an sgp_valla_mlp view. */
typedef struct {
  sgp_likelihood likelihood;
  sgp_valla_method method;
  sgp_cmat inducing;          /* M x D (M may be 0) */
  const int *tags;            /* M output tags 0..C-1 (NULL allowed when C = 1) */
  const int *layers;          /* n_layers flags or NULL */
  sgp_cmat P1, P2;            /* M x M each, or empty (data NULL) */
  int prior;                  /* 1: the prior K_xx term enters K* */
  int closed_form;            /* 1: a valla fit with the closed-form A (then P2 is set) */
  double prior_var, noise;    /* original scale (noise ignored for classification) */
  double y_mean, y_sd;        /* regression standardization */
} sgp_valla_fit_data;

/* An owning fit for prediction from plain data (free with sgp_valla_fit_free).
 * Checks shapes, finiteness and ranges, and that P1, P2 and prior are the ones
 * the method produces (valla: P1 and prior; closed form: P2, with P1 exactly
 * when prior; lla: P1 and prior; ella: P2 without prior); messages name the
 * field ("inducing", "P1", "tags", "prior_var", ...). Traces are empty. */
int  sgp_valla_fit_from_data(sgp_ctx *ctx, const sgp_valla_mlp *model,
                             const sgp_valla_fit_data *d, sgp_valla_fit_t **out);

/* Latent/predictive quantities at X (n x D): mean (n x C, network output on the
 * original scale), var (n x C: regression predictive variance incl. noise,
 * classification latent variance), latent_var (n x C), prob (n x n_class, probit),
 * cov (C*C x n: column i is the latent C x C block of point i, column-major).
 * Any output with data NULL is skipped. */
int  sgp_valla_predict(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat X, sgp_mat mean,
                       sgp_mat var, sgp_mat latent_var, sgp_mat prob, sgp_mat cov);
/* The same, counting into *unresolved the latent variances below what rounding
 * resolves (reported as computed, 0 where negative; the caller warns). An output
 * or variance that overflows is an error naming the test point. */
int  sgp_valla_predict_count(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat X, sgp_mat mean,
                             sgp_mat var, sgp_mat latent_var, sgp_mat prob, sgp_mat cov,
                             int64_t *unresolved);
/* Monte-Carlo class probabilities (prob_method = "mc", spec §5): the mean over
 * mc_samples draws f = g + chol(K* + eps I) e of softmax(f) (Bernoulli: the
 * sigmoid, prob n x 2), seeded from the ctx RNG. */
int  sgp_valla_predict_mc(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat X,
                          int64_t mc_samples, sgp_mat prob);

/* Laplace log evidence of LLA at (prior_var, noise) on the original target scale
 * (spec §6.1): sum log p(y|g) - |theta|^2/(2 prior_var) - log|I + L^1/2 K L^1/2|/2. */
int sgp_valla_lla_log_evidence(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                               sgp_likelihood lik, const int *layers, double prior_var,
                               double noise, double *log_evidence);
/* Maximizes it over log prior_var (and log noise for gaussian) by Nelder-Mead
 * from the values passed in (<= 0: 1); N*C must not exceed lla_max. */
int sgp_valla_lla_tune(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                       sgp_likelihood lik, const int *layers, int64_t lla_max, double *prior_var,
                       double *noise, double *log_evidence);

/* MAP trainer (mlp_fit). */
typedef struct {
  sgp_likelihood likelihood;  /* gaussian (squared error), softmax, bernoulli */
  int64_t iterations, batch_size;   /* 2000, 100 */
  double lr, weight_decay;    /* 1e-3, 0 (added as weight_decay * theta to the gradient) */
} sgp_valla_mlp_fit_opts;

void sgp_valla_mlp_fit_opts_default(sgp_valla_mlp_fit_opts *o);
/* Glorot-uniform weights from the ctx RNG, zero biases and skip. */
int  sgp_valla_net_init_random(sgp_ctx *ctx, sgp_valla_net *net);
/* An untrained network of the given widths (n_layers + 1 entries) and hidden
 * activation, identity output, no skip, Glorot-initialized from the ctx RNG. */
int  sgp_valla_net_new(sgp_ctx *ctx, int n_layers, const int64_t *width,
                       sgp_activation activation, sgp_valla_net *net);
/* What sgp_valla_mlp_fit did. */
typedef struct {
  double initial_loss, final_loss;  /* full-data mean loss before and after training */
  int64_t iterations;               /* Adam steps taken */
  sgp_valla_stop stop;              /* iterations, diverged or loss_rose */
  int64_t diverged_at;              /* iteration whose loss, gradient or step was not
                                       finite (the parameters before it are kept, or the
                                       start when their loss is not finite); 0 */
} sgp_valla_mlp_fit_info;

/* Trains net in place from its current weights (seeded minibatches); info (may
 * be NULL) receives what happened. A non-finite loss, gradient or step stops the
 * training with the last finite parameters (stop = diverged; not an error). */
int  sgp_valla_mlp_fit(sgp_ctx *ctx, sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                       const sgp_valla_mlp_fit_opts *o, sgp_valla_mlp_fit_info *info);
/* Refuses (SGP_ENOMEM, naming `hidden`) a network of these widths whose training
 * with this batch size would not fit in this machine's memory, and widths beyond
 * the BLAS int range (SGP_EINVAL); called by sgp_valla_net_new and
 * sgp_valla_mlp_fit before they allocate. */
int  sgp_valla_mlp_check_size(sgp_ctx *ctx, int n_layers, const int64_t *width, int skip,
                              int64_t batch_size);

/* Metrics. Regression: Gaussian predictive (mu, var) against y, means over n. */
double sgp_valla_gauss_nll(int64_t n, const double *y, const double *mu, const double *var);
double sgp_valla_crps(int64_t n, const double *y, const double *mu, const double *var);
/* trapezoid over alpha = 0, 0.1, ..., 1; paper_compat puts 1 at alpha = 1 (+0.05). */
double sgp_valla_cqm(int64_t n, const double *y, const double *mu, const double *var,
                     int paper_compat);
/* Classification: prob n x C (ld n), labels 0..C-1. */
double sgp_valla_accuracy(int64_t n, int64_t C, const double *prob, const double *y);
double sgp_valla_class_nll(int64_t n, int64_t C, const double *prob, const double *y);
/* bins equal-width confidence bins (lo, hi] on max_c p (spec: 15). */
double sgp_valla_ece(int64_t n, int64_t C, const double *prob, const double *y, int bins);
double sgp_valla_brier(int64_t n, int64_t C, const double *prob, const double *y);
/* ROC AUC of score for labels 1 (positive) vs 0, tie-averaged ranks (Mann-Whitney). */
double sgp_valla_auc(int64_t n, const double *score, const double *label);
/* The checked metrics behind R's and Octave's valla_metrics (messages name y,
 * pred, var, bins). Regression (prob.data NULL): out = nll, crps, cqm of the
 * Gaussian predictive (mu, var) at targets y (vectors of n). Classification:
 * out = accuracy, nll, ece (bins), brier of prob (n x C, rows summing to 1) at
 * labels y (0..C-1), and auc of prob's second column when C = 2 (NaN when y
 * holds one class only). *count: how many values were written (3, 4 or 5). */
int sgp_valla_metrics(sgp_ctx *ctx, sgp_cmat y, sgp_cmat mu, sgp_cmat var, sgp_cmat prob,
                      int64_t bins, double *out, int *count);

#ifdef __cplusplus
}
#endif
#endif /* SGP_H */
