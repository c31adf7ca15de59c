/* sgp_ski.h -- the public C API of ski_gsgp: grids, statistics, options,
 * fit and predict. */
#ifndef SGP_SKI_PUBLIC_H
#define SGP_SKI_PUBLIC_H

#include "api/sgp_kernels.h"
#include "api/sgp_select.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ski_gsgp ---- */
/* Structured kernel interpolation on a regular grid (Wilson and Nickisch, "Kernel
 * Interpolation for Scalable Structured Gaussian Processes (KISS-GP)", ICML 2015),
 * fitted from sufficient statistics; docs/ski_gsgp.md.
 * Grid vectors are stored first dimension fastest, g = i_1 + m_1 (i_2 + ...), so
 * R's array(v, dim = grid_size) reshapes them. The internals (K_G operators,
 * solvers, LOVE) are declared in ski/ski.h; the shims need only this. */

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
  int64_t grid_size[SGP_SKI_MAX_D]; /* points per dimension; 0 = automatic */
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
                                       of the mean solve; 0 = none (default) */
  int64_t n_grid_size;              /* values given in grid_size: 0 (default) every entry
                                       j < d as stored; 1: grid_size[0] for every
                                       dimension; else it must be d */
  int64_t n_grid_bounds;            /* numbers in grid_bounds: 0 (default) d-by-2 as
                                       stored; else it must be 2 d */
  /* model selection */
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
int sgp_ski_grid_from_range(sgp_ctx *ctx, sgp_cmat data_range, int64_t n, const sgp_ski_opts *o,
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
} sgp_ski_result;

/* Fits the posterior mean from the statistics: method GSGP by EFCG with grid
 * work only; method SKI by CG on the n data (X, y needed: the rows the
 * statistics came from). Builds the LOVE factor with variance LANCZOS and the
 * SLQ log-likelihood with loglik (needs stats->probes > 0). Non-convergence is
 * reported in res, not as an error. Errors name stats, x, y, noise,
 * lengthscale, outputscale, tol, max_iter, rank, probes. */
int sgp_ski_fit(sgp_ctx *ctx, const sgp_ski_stats_data *stats, const sgp_ski_opts *o,
                sgp_cmat X, sgp_cmat y, sgp_ski_result *res);

/* The hyperparameters a fit uses (not given: 1) in *out: o with a NULL
 * lengthscale, a NaN outputscale or noise replaced by 1. */
void sgp_ski_fixed_defaults(const sgp_ski_opts *o, sgp_ski_opts *out);
/* What o->learn asks for, as SGP_LEARN_* bits ("auto": each of lengthscale,
 * outputscale, noise not given). */
unsigned sgp_ski_learn_bits(const sgp_ski_opts *o);
/* The bits the optimizer learns (those of sgp_ski_learn_bits but the mean alone,
 * whose GLS estimate is closed form): they need probe sketches. */
unsigned sgp_ski_learn_optimized(const sgp_ski_opts *o);

/* The model selection of a ski_gsgp fit. */
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
                      sgp_ski_result *res);
/* The model-selection warning of a fit ("fn: ..."; "" when none): identifier
 * "model-selection" (the hosts' warning id scalegp:model-selection). */
void sgp_ski_selection_warning(const char *fn, const sgp_ski_selection *sel, char *buf,
                               size_t size);

/* One shot from the data: the statistics of X (n-by-d), y (n) on the grid g
 * (from sgp_ski_grid_from_range; m from sgp_ski_stats_shape sizes res's arrays), with
 * o->probes sketches when o->loglik, then sgp_ski_fit. The statistics are
 * freed; use sgp_ski_stats_compute + sgp_ski_stats_export to keep them. */
int sgp_ski_fit_xy(sgp_ctx *ctx, const sgp_ski_grid *g, const sgp_ski_opts *o, sgp_cmat X,
                   sgp_cmat y, sgp_ski_result *res);

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
void sgp_ski_grid_warning(const char *fn, const sgp_ski_result *res, const sgp_ski_opts *o,
                          char *buf, size_t size);
void sgp_ski_warnings(const char *fn, const sgp_ski_result *res, const sgp_ski_opts *o,
                      char *mean_warning, char *loglik_warning, size_t size);
/* The warning of predictions ("" when none): variances (of kind variance, a
 * sgp_ski_variance) not resolved (info->converged 0) and variances set to 0 from
 * below; fn: the user's function (ski_gsgp, predict). */
void sgp_ski_predict_warning(const char *fn, const sgp_ski_predict_info *info, int variance,
                             char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* SGP_SKI_PUBLIC_H */
