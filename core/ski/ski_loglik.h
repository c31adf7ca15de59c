/* ski_loglik.h -- ski_gsgp internals: the log marginal likelihood from the
 * statistics (SLQ, eigenbasis, exact LU) and its gradient (core-internal). */
#ifndef SGP_SKI_LOGLIK_H
#define SGP_SKI_LOGLIK_H

#include "ski/ski_solve.h"

/* ------------------------------------------------------------ ski_loglik.c */

/* Counter-based probe RNG: a splitmix64-style hash of
 * (seed, probe, global row) -> Rademacher value +-1. No state, so probe
 * sketches do not depend on chunking or thread count. */
double sgp_ski_probe_value(uint64_t seed, int64_t probe, int64_t row);

/* Adds the probe sketches of a chunk: uz[:, j] += W' z_j (uz is m-by-probes,
 * column-major) for the rows of X (n_c-by-d) with global row index
 * first_row + i, and *rhoz += sum z^2 (= the kept rows of the chunk for
 * Rademacher: rows dropped under DROP are no data; the same for every probe).
 * Deterministic (parallel over probes, rows in order). Errors name `x`,
 * `probes`, `first_row`; SGP_EINTERRUPT (polled between blocks of rows)
 * leaves uz partly updated. */
int sgp_ski_probe_sketch(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                         sgp_ski_bounds_policy policy, sgp_cmat X, int64_t first_row,
                         uint64_t seed, int64_t probes, double *uz, double *rhoz);

typedef struct {
  double tol;            /* SLQ CG relative tolerance; default 0.01 */
  int64_t slq_max_iter;  /* Krylov steps per probe; default 100 */
  double mean_tol;       /* data-fit (mean) solve tolerance; default 0.01 */
  double datafit_rtol;   /* > 0: the mean solve also runs until the bound on the data fit's
                            error is this fraction of it (sgp_ski_solve_opts quad_rtol);
                            default 0: off (the learning keeps its solves' stopping rule
                            smooth in theta). Either way converged is 0 when the bound
                            exceeds SGP_SKI_RTOL of the data fit */
  int64_t max_iter;      /* mean solve iterations; default 1000 */
  int eig_precond;       /* sgp_ski_eig_precond of sgp_ski_loglik_grad_eig; default MARGINAL */
  const struct sgp_ski_marginals *marginals; /* MARGINAL: B's marginals made once for many
                                                calls on the same statistics
                                                (sgp_ski_marginals_make); NULL (default):
                                                made in each call */
} sgp_ski_loglik_opts;

typedef struct {
  double loglik;         /* -0.5 (logdet + datafit + n log 2 pi) */
  double logdet;         /* SLQ estimate of logdet A (n-by-n) */
  double logdet_se;      /* standard error sd(Gamma_j) / sqrt(probes used) */
  double datafit;        /* y' A^{-1} y */
  int64_t probes_used;   /* probes whose T had only positive Ritz values */
  int64_t probes_discarded;
  int64_t slq_iterations;/* most Krylov steps any probe took */
  int converged;         /* mean solve and every SLQ solve met their tolerance */
  sgp_ski_solve_info mean_info;
} sgp_ski_loglik_result;

/* Defaults: probes 30 is the caller's (API `probes`); the rest are the
 * tolerances below. */
void sgp_ski_loglik_opts_default(sgp_ski_loglik_opts *o);

/* SGP_EINVAL naming `tol`, `slq_max_iter` or `max_iter` when o is out of range. */
int sgp_ski_loglik_opts_check(sgp_ctx *ctx, const sgp_ski_loglik_opts *o);
/* SLQ log-determinant: batched EFCG (Alg. A3, general start
 * r0 = z_j, x0 = 0) on A x = z_j for all probes at once (one B and one K_G
 * block product per iteration), Lanczos tridiagonals from the CG
 * coefficients, Gamma_j = rho_z sum_i tau_i^2 log theta_i. uz
 * (m-by-probes) and rhoz come from sgp_ski_probe_sketch. Probes whose T has a
 * non-positive Ritz value are discarded and counted. Writes logdet,
 * logdet_se, probes_used/discarded, slq_iterations, converged of res. */
int sgp_ski_logdet_slq(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const double *uz, double rhoz, int64_t probes,
                       const sgp_ski_loglik_opts *o, sgp_ski_loglik_result *res);
/* The probe solves of the SLQ's batched EFCG (the mBCG idea):
 * x_j = A^{-1} z_j (to the SLQ tolerance) = W xh_j + c_j z_j, reported as
 * wx (m-by-probes) = W'x_j = B xh_j + c_j u_zj, xz (probes) = x_j'z_j =
 * xh_j'u_zj + c_j rho_z, kz (m-by-probes, may be NULL) = K_G u_zj (the
 * solve's first product) and kept (probes): 1 when the probe entered the
 * log-determinant (positive Ritz values). All caller-allocated. */
typedef struct {
  double *wx, *xz, *kz;
  char *kept;
} sgp_ski_slq_solves;
/* sgp_ski_logdet_slq, and the probe solves when sol is not NULL (two more
 * m-by-probes work arrays and two axpys per iteration; the same iterates). */
int sgp_ski_logdet_slq_solves(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg,
                              double noise, const double *uz, double rhoz, int64_t probes,
                              const sgp_ski_loglik_opts *o, sgp_ski_loglik_result *res,
                              sgp_ski_slq_solves *sol);
/* The Gauss quadrature e1' log(T) e1 of the Lanczos tridiagonal T of k CG
 * steps with coefficients alpha (k) and beta (k - 1); work is
 * 3 k + k^2. *ok = 0 (value partial) when a Ritz value is not positive. */
int sgp_ski_cg_quadrature(sgp_ctx *ctx, int64_t k, const double *alpha, const double *beta,
                          double *work, double *value, int *ok);
/* The data fit of a mean solve from x0 = 0 (info mi, y'x = yx): with
 * o->datafit_rtol y'x + x'r (mi->quad), else y'x, the value the learning's
 * optimizer has always seen (the x'r term, rounding-sized, changed its path);
 * and the bound on its error (mi->quad_err, plus |x'r| for y'x). */
double sgp_ski_datafit(const sgp_ski_loglik_opts *o, const sgp_ski_solve_info *mi, double yx);
double sgp_ski_datafit_err(const sgp_ski_loglik_opts *o, const sgp_ski_solve_info *mi,
                           double datafit);
/* Log marginal likelihood: SLQ log-determinant plus the data fit
 * y'A^{-1}y = u_y' xhat + c_x rho_y from the EFCG mean solve; weights (m, may
 * be NULL) receives the mean cache of that solve. */
int sgp_ski_loglik(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                   const double *uz, double rhoz, int64_t probes, const sgp_ski_loglik_opts *o,
                   double *weights, sgp_ski_loglik_result *res);

/* ------------------------------------------------------------ ski_loglik_grad.c */

/* theta = (log ell_1..log ell_L, log outputscale, log noise), L = the kernel's
 * n_lengthscale (1: isotropic, d: ARD); the learning adds the prior mean
 * (ski_select.c), hence + 3. */
#define SGP_SKI_NTHETA_MAX (SGP_SKI_MAX_D + 3)

typedef struct {
  sgp_ski_loglik_result value; /* as sgp_ski_loglik, from the same solves */
  int64_t ntheta;              /* L + 2 */
  double grad[SGP_SKI_NTHETA_MAX];    /* dL/dtheta = quad - trace */
  double grad_se[SGP_SKI_NTHETA_MAX]; /* standard error of the Hutchinson part:
                                         1/2 sd_j(tr_j) / sqrt(probes used) */
  double quad[SGP_SKI_NTHETA_MAX];    /* 1/2 z'(dA/dtheta)z, z = A^{-1}y of the mean
                                         solve (mean_tol; no probe noise) */
  double trace[SGP_SKI_NTHETA_MAX];   /* 1/2 tr(A^{-1} dA/dtheta) by Hutchinson:
                                         1/2 mean_j x_j'(dA) z_j over the kept probes */
  double dmean;                       /* dL/dmu = 1'z of the mean solve: the derivative in
                                         a constant prior mean mu the statistics' targets
                                         are centred on (sgp_ski_stats_centred) */
  double dmean2;                      /* d2L/dmu2 = -1'A^{-1}1 (L is quadratic in mu);
                                         0 where not computed (only ski_loglik_eig.c) */
} sgp_ski_loglik_grad_result;

/* Log marginal likelihood and its gradient in theta at the kernel
 * k and noise variance noise, from the statistics st and the probe sketches
 * uz (m-by-probes), rhoz of sgp_ski_probe_sketch: no data pass. One batched
 * EFCG over the probes gives the SLQ tridiagonals and the solves x_j =
 * A^{-1} z_j (o->tol, o->slq_max_iter); one EFCG mean solve gives z
 * (o->mean_tol, o->max_iter). dA/dtheta is W (dK_G) W' with dK_G = K_G for
 * log outputscale and sgp_ski_grid_op_deriv for each log ell (an isotropic
 * ell on the Kronecker path: the sum of the d one-factor derivatives), and
 * noise I for log noise. Work beyond the solves: one B product and one
 * derivative product of an m-by-(probes + 1) block per lengthscale (d of them
 * for an isotropic one on the Kronecker path); log outputscale reuses the
 * SLQ's first product K_G u_zj and the mean cache. Only K_G
 * and its derivatives are rebuilt per call (kgo: NULL for defaults; its
 * expected_products sizes FFTW's planning of K_G), so an optimizer calls this
 * once per evaluation with fixed st, uz (common random numbers): the
 * stochastic objective is then a smooth function of theta. Its exact
 * derivative is not grad: the Hutchinson trace x_j'(dA)z_j is an unbiased
 * estimate of tr(A^{-1} dA), while the derivative of the SLQ quadrature of
 * z_j' log(A) z_j equals it only in expectation (or when A and dA commute).
 * weights (m, may be NULL): the mean cache. Errors name `stats`, `kernel`,
 * `lengthscale`, `outputscale`, `noise`, `probes`, `tol`, `max_iter`,
 * `slq_max_iter`. */
/* The checks both log-likelihoods (this one and sgp_ski_loglik_exact) start
 * with: res present (and zeroed), stats and kernel present, the kernel valid for
 * the grid's dimension. */
int sgp_ski_loglik_args(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                        sgp_ski_loglik_grad_result *res);
int sgp_ski_loglik_grad(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                        double noise, const sgp_ski_kg_opts *kgo, const double *uz, double rhoz,
                        int64_t probes, const sgp_ski_loglik_opts *o, double *weights,
                        sgp_ski_loglik_grad_result *res);

/* ------------------------------------------------------------ ski_kron_eig.c */

/* Dimensions of at most this many points get the exact eigen-decomposition
 * (one dense m_j-by-m_j eigenproblem each: 0.1 s at 512). */
#define SGP_SKI_KRON_EIG_DIM_MAX 512
/* The most a caller may ask for (sgp_ski_kron_eig_make): ski_laplace's eigen path
 * takes 1024 (a cubic eigenproblem about 8 times the 512 one's, once per
 * hyperparameter value, against many Newton and probe solves). */
#define SGP_SKI_KRON_EIG_HARD_MAX 1024

/* K_G = Q Lambda Q' of a separable kernel: per dimension with m_j > 1 the
 * eigenvectors Q[j] (m_j-by-m_j) and ascending eigenvalues mu[j] of the
 * unit-scale Toeplitz factor (those below 1e-14 of the largest set to 0), and
 * dR[j] = Q_j' (d T_j^{1/2} / d log ell_j) Q_j; NULL for m_j = 1. */
typedef struct {
  int d;
  int64_t mtot, m[SGP_SKI_MAX_D];
  double *Q[SGP_SKI_MAX_D], *mu[SGP_SKI_MAX_D], *dR[SGP_SKI_MAX_D];
  double scale; /* the outputscale s: Lambda = s mu_d x ... x mu_1 */
} sgp_ski_kron_eig;

/* 1 when k is separable on g (rbf, or one dimension of more than one point)
 * and every m_j <= SGP_SKI_KRON_EIG_DIM_MAX. */
int sgp_ski_kron_eig_applies(const sgp_kernel *k, const sgp_ski_grid *g);
/* The same with another cap on every m_j (at most SGP_SKI_KRON_EIG_HARD_MAX,
 * the cap of sgp_ski_kron_eig_make). */
int sgp_ski_kron_eig_fits(const sgp_kernel *k, const sgp_ski_grid *g, int64_t dim_max);
int sgp_ski_kron_eig_make(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                          sgp_ski_kron_eig *ke);
void sgp_ski_kron_eig_free(sgp_ski_kron_eig *ke);
/* lamh (mtot) = Lambda^{1/2}, grid index order (first dimension fastest). */
void sgp_ski_kron_eig_sqrt_values(const sgp_ski_kron_eig *ke, double *lamh);
/* Y = Q X (trans 'N') or Q' X ('T') for an mtot-by-cols block; work is
 * mtot * cols; X, Y and work distinct. */
int sgp_ski_kron_eig_transform(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, char trans,
                               int64_t cols, const double *X, double *Y, double *work);
/* Y = op(F_d) x ... x op(F_1) X for per-dimension m_j-by-m_j factors F (NULL:
 * identity), on the grid of ke; same block layout and work as the transform. */
int sgp_ski_kron_eig_apply(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, double *const *F,
                           char trans, int64_t cols, const double *X, double *Y, double *work);
/* Y = Q' (d K_G^{1/2} / d log ell) Q X in the eigenbasis, summed over the
 * dimensions in mask (an isotropic lengthscale: all of them). */
int sgp_ski_kron_eig_dsqrt(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, unsigned mask,
                           int64_t cols, const double *X, double *Y, double *work);

/* Y = op(F_d) x ... x op(F_1) X (ski_kron_rect.c) for factors F_j of rows_j x
 * ranks_j (column-major, NULL: the 1 x 1 identity): 'N' maps a block of
 * prod ranks_j by cols to prod rows_j by cols, 'T' back. work holds the
 * largest intermediate block (prod rows_j * cols suffices); X, Y, work distinct. */
int sgp_ski_kron_rect_apply(sgp_ctx *ctx, int d, const int64_t *rows, const int64_t *ranks,
                            const double *const *F, char trans, int64_t cols, const double *X,
                            double *Y, double *work);

/* g = (Q o Q)' d: for d = W'1 (the data density on the grid), g_i
 * approximates q_i' B q_i, exactly so for a constant eigenvector q_i and
 * closely for the smooth ones that carry K_G's large eigenvalues. */
int sgp_ski_kron_eig_diag_proxy(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, const double *d,
                                double *g);

/* ------------------------------------------------------------ ski_eig_precond.c */

/* The preconditioner of sgp_ski_loglik_grad_eig (ski_eig_precond.c). */
typedef enum {
  SGP_SKI_EIG_PRECOND_MARGINAL = 0, /* B ~ c (B_d x ... x B_1) from B's marginals */
  SGP_SKI_EIG_PRECOND_DENSITY = 1   /* diagonal in the eigenbasis from the density W'1 */
} sgp_ski_eig_precond;

/* B's marginals: B[j] (m_j-by-m_j, column-major) = (I x 1')B(I x 1), B
 * summed over every dimension but j, and total = 1'B1. They depend on the
 * statistics alone, not on the hyperparameters. */
typedef struct sgp_ski_marginals {
  double *B[SGP_SKI_MAX_D];
  double total;
} sgp_ski_marginals;
int sgp_ski_marginals_make(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_ski_marginals *mg);
void sgp_ski_marginals_free(sgp_ski_marginals *mg);

/* The working basis: M = noise I + F'BF with F = sqrt(s) (F_d x ... x F_1),
 * F_j = Q_j diag(mu_j)^{1/2} U_j; U[j] NULL for the identity (DENSITY), F[j]
 * and U[j] NULL where m_j = 1. MARGINAL also keeps what the lengthscale
 * traces' control variate needs (ski_loglik_eig.c): the marginals mg (not
 * owned), c, E[j] and dA[j] = diag(U_j' diag(mu_j)^{1/2} Q_j'B_jQ_j dR_j U_j)
 * (NULL otherwise and where m_j = 1). */
typedef struct {
  double *F[SGP_SKI_MAX_D], *U[SGP_SKI_MAX_D];
  const sgp_ski_marginals *mg;
  double *E[SGP_SKI_MAX_D], *dA[SGP_SKI_MAX_D];
  double c; /* 0 for DENSITY */
} sgp_ski_eig_basis;

/* The basis and the preconditioner's diagonal pd (mtot) for the kernel of ke;
 * mg (MARGINAL: required, must outlive eb) from the same statistics. */
int sgp_ski_eig_basis_make(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_ski_kron_eig *ke,
                           const sgp_ski_marginals *mg, double noise,
                           sgp_ski_eig_precond precond, sgp_ski_eig_basis *eb, double *pd);
void sgp_ski_eig_basis_free(sgp_ski_eig_basis *eb);

/* ------------------------------------------------------------ ski_loglik_eig.c */

/* sgp_ski_loglik_grad for a separable kernel (sgp_ski_kron_eig_applies), in
 * the kernel's eigenbasis with a preconditioner there (ski_loglik_eig.c):
 * logdet A = (n - m) log noise + logdet(noise I + S B S), S = K_G^{1/2},
 * probes z_j in grid space (Rademacher, keyed by (seed, j, grid index); no
 * sketches needed), the data fit through S B S as well. Same result fields,
 * plus dmean2. */
int sgp_ski_loglik_grad_eig(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                            double noise, const sgp_ski_kg_opts *kgo, int64_t probes,
                            uint64_t seed, const sgp_ski_loglik_opts *o, double *weights,
                            sgp_ski_loglik_grad_result *res);

/* ------------------------------------------------------------ ski_loglik_exact.c */

/* Grids of at most this many points get the exact log-likelihood under
 * loglik_method "auto" (ski_loglik_exact.c: 2 m^3 flops per evaluation).
 * Measured per evaluation with gradient (2 shared cores, serial BLAS; SLQ
 * with 30 probes at the learning's tolerance 1e-6): 1-D m = 150: exact
 * 0.017 s, SLQ 0.029 s; m = 1000: 0.19 s, 0.51 s; m = 2048: 0.92 s, 0.65 s;
 * m = 4096: 5.3 s, 0.62 s; 2-D 64 x 64: 11.5 s, 20 s (SLQ at its Krylov cap).
 * Up to 2048 points the exact evaluation costs about what SLQ does (less in
 * 2-D, where SLQ hits its cap), ~1 s, and is exact and needs no probes; at
 * 4096 it costs 8 SLQ evaluations in 1-D and three m-by-m matrices (400 MB). */
#define SGP_SKI_EXACT_AUTO_MAX 2048
/* 1 when the log-likelihood of an m-point grid is computed exactly under
 * method (EXACT; AUTO with m <= SGP_SKI_EXACT_AUTO_MAX), 0 for SLQ. */
int sgp_ski_loglik_use_exact(sgp_ski_loglik_method method, int64_t m);
/* 1 when the learning evaluates sgp_ski_loglik_grad_eig: method EIGEN, or
 * AUTO on a grid too large for the exact one, for a kernel and grid it
 * applies to (sgp_ski_kron_eig_applies). */
int sgp_ski_loglik_use_eig(sgp_ski_loglik_method method, const sgp_kernel *k,
                           const sgp_ski_grid *g, int64_t m);
/* The exact log marginal likelihood at kernel k and noise (res->value: loglik,
 * logdet, datafit; logdet_se 0, probes_used 0, converged 1), and with grad its
 * gradient in theta = (log ell_1..L, log outputscale, log noise) (res->grad,
 * quad, trace; grad_se 0) and res->dmean = 1'A^{-1}(y - mu 1), from the
 * statistics alone by the LU of s2 I + K_G B (m-by-m; the derivation is in
 * the file). weights (m, may be NULL): the mean cache M^{-1} K_G u_y. gls
 * (may be NULL): the GLS estimate of a constant added to the statistics'
 * targets. kgo as for sgp_ski_loglik_grad. Errors name `stats`, `kernel`,
 * `noise` (a numerically singular matrix), `mean`, `loglik_method` (memory). */
int sgp_ski_loglik_exact(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_kernel *k,
                         double noise, const sgp_ski_kg_opts *kgo, int grad, double *weights,
                         sgp_ski_loglik_grad_result *res, double *gls);

/* acc = (dK_G / dlog ell) in for the lengthscale shared by the dimensions in
 * mask: one operator (sgp_ski_grid_op_deriv), or with sum_dims the sum of the
 * one-dimension operators (an isotropic lengthscale on the Kronecker path,
 * whose operators differentiate one factor at a time). in is m-by-cols; out
 * and acc are m-by-cols work and result (out unused without sum_dims). */
int sgp_ski_apply_dkg(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                      const sgp_ski_kg_opts *ko, int sum_dims, unsigned mask, sgp_cmat in,
                      double *out, double *acc);

/* grid_size (1 or d values) and grid_bounds (d x 2) against the data's d. */
int sgp_ski_check_grid_dims(sgp_ctx *ctx, const sgp_ski_opts *o, int64_t d);

#endif
