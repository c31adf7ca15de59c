/* sgp_ski_laplace.h -- the public C API of ski_laplace: Laplace inference for a
 * non-Gaussian GP whose latent field lives on a regular SKI grid (counts per
 * cell, point patterns as log-Gaussian Cox processes, labels per cell);
 * docs/ski_laplace.md has the model and the algorithms. */
#ifndef SGP_SKI_LAPLACE_PUBLIC_H
#define SGP_SKI_LAPLACE_PUBLIC_H

#include "api/sgp_ski.h"
#include "api/sgp_likelihood.h"
#include "api/sgp_plain.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How the data reach the grid (option layout):
 *  CELLS  y holds one value per grid cell (first dimension fastest), x absent;
 *         NA or an offset of -Inf marks a cell without data;
 *  POINTS x holds the locations of a point pattern, y absent: a log-Gaussian Cox
 *         process whose cell counts are the interpolation weights summed over the
 *         points (c = W'1) and whose exposure is each cell's area (offset);
 *  BINNED x, y per observation, summed into the nearest cell (labels become
 *         binomial counts with trials per cell);
 *  SCATTERED x, y per observation at its own location: the latent there is
 *         w(x_i)'u with the interpolation weights w (no binning; the model is
 *         the GP with kernel matrix W K W' on the observations);
 *  AUTO   CELLS without x, POINTS without y, else BINNED (SCATTERED only by name). */
typedef enum {
  SGP_SKL_LAYOUT_AUTO = 0, SGP_SKL_LAYOUT_CELLS = 1, SGP_SKL_LAYOUT_POINTS = 2,
  SGP_SKL_LAYOUT_BINNED = 3, SGP_SKL_LAYOUT_SCATTERED = 4
} sgp_skl_layout;

/* interpolation "auto" (the default): cubic for the scattered layout (as
 * ski_gsgp), linear for the others (the points layout's counts W'1 stay >= 0). */
#define SGP_SKL_INTERPOLATION_AUTO 2

/* How the Newton solves and the evidence are computed (option loglik_method):
 * EXACT the dense Cholesky of B = I + D^1/2 K D^1/2 on the observed cells,
 * SLQ conjugate gradients on B with stochastic Lanczos quadrature and Hutchinson
 * traces (probes), EIGEN the whitened latent in the Kronecker eigenbasis of a
 * separable kernel with a Jacobi preconditioner there (preconditioned SLQ;
 * not for the scattered layout, whose curvature W'DW is not diagonal on the
 * grid), AUTO exact up to SGP_SKL_EXACT_AUTO_MAX observed cells (or
 * observations), else eigen where it applies, else slq. */
typedef enum {
  SGP_SKL_LOGLIK_AUTO = 0, SGP_SKL_LOGLIK_EXACT = 1, SGP_SKL_LOGLIK_SLQ = 2,
  SGP_SKL_LOGLIK_EIGEN = 3
} sgp_skl_loglik_method;
#define SGP_SKL_EXACT_AUTO_MAX 512

/* Predictive variances: none; exact (one solve per xtest point and per observed
 * cell); stochastic (the variance at every grid point from the evidence's probes,
 * with a standard error per point: maps of 1e5-1e6 cells). */
typedef enum {
  SGP_SKL_VARIANCE_NONE = 0, SGP_SKL_VARIANCE_EXACT = 1, SGP_SKL_VARIANCE_STOCHASTIC = 2
} sgp_skl_variance;

typedef struct {
  sgp_likelihood likelihood;   /* poisson (default), bernoulli, binomial, negbin, gaussian */
  sgp_skl_layout layout;       /* AUTO */
  int64_t grid_size[SGP_SKI_MAX_D]; /* points per dimension; 0: cells from dim(y), else 64 */
  int64_t n_grid_size;         /* values given (1: the same for every dimension) */
  const double *grid_bounds;   /* d-by-2 cell centres' range; NULL: cells 1..m_j,
                                  points and binned the data range plus grid_pad */
  int64_t n_grid_bounds;
  int grid_pad;                /* < 0 (default): 1 cell */
  sgp_ski_interpolation interpolation; /* SGP_SKL_INTERPOLATION_AUTO; points: LINEAR */
  sgp_ski_bounds_policy bounds_policy; /* scattered x outside the grid: ERROR, CLAMP or DROP */
  sgp_kernel kernel;           /* lengthscale NULL / outputscale NaN: learned */
  double mean;                 /* constant prior mean; NaN: learned */
  double noise;                /* gaussian: the noise variance (fixed); 1 */
  double dispersion;           /* negbin: r of var = mu + mu^2 / r (fixed); 1 */
  unsigned learn;              /* SGP_LEARN_* bits (lengthscale, outputscale, mean, auto) */
  int optim_max_iter;          /* evidence evaluations of the optimizer; 100 */
  int restarts;                /* 0 */
  int max_newton;              /* Newton steps at most; 20 */
  double tol;                  /* converged when the mode bound <= tol; 1e-6 */
  int damping;                 /* globalized steps; 1 */
  double inner_rtol;           /* relative residual of the last solves; 1e-8 */
  int64_t max_iter;            /* CG steps per solve at most; 1000 */
  int loglik;                  /* -1 (default): when learning or on the exact path; 0, 1 */
  sgp_skl_loglik_method loglik_method; /* AUTO */
  int64_t probes;              /* SLQ probes; 30 */
  int64_t slq_max_iter;        /* Krylov steps per probe; 100 */
  sgp_skl_variance variance;   /* at xtest: EXACT when xtest is given (default) */
  double time_limit;           /* seconds; <= 0 or Inf: none */
} sgp_ski_laplace_opts;

void sgp_ski_laplace_opts_default(sgp_ski_laplace_opts *o);

/* The data of one call, as the hosts pass them (column-major views; empty views
 * have data NULL):
 *  x      n-by-d locations (points, binned, scattered) or empty (cells);
 *  y      cells: m values (NaN = no data); binned, scattered: n values; points: empty;
 *  ydim   cells: the grid's shape (d whole numbers; empty: a vector, d = 1);
 *  offset cells: m log exposures (-Inf = no data); points: m log cell areas
 *         (default: the cell volume); binned: n per observation, summed as
 *         exposures per cell; scattered: n per observation; empty: 0;
 *  trials binomial: 1 or as many values as y;
 *  xtest  ns-by-d prediction points or empty;
 *  stats  points layout: ski_stats of the point locations (linear
 *         interpolation; read by sgp_ski_stats_check) in the place of x, so
 *         that the counts W'1 may come from files and clusters; their grid is
 *         the fit's. NULL: none. */
typedef struct {
  sgp_cmat x, y, ydim, offset, trials, xtest;
  const sgp_ski_stats_data *stats;
} sgp_ski_laplace_data;

/* Fits (learning what o->learn asks) and writes the whole result as plain data
 * (api/sgp_plain.h) into *out: grid, weights (the latent mode at the m grid
 * points), alpha, f and var at the observed cells, counts (the y the likelihood
 * saw per observed cell), observed (their 1-based grid indices; scattered: NULL,
 * and x, the n x d locations the observations kept, instead), newton_steps,
 * iterations, converged, stop_reason, mode_error, history, loglik, loglik_se,
 * selection, used, warnings and test (mean, var, response, lower, upper) when
 * xtest is given. Non-convergence is not an error: converged is FALSE and a
 * warning says why. Errors name the argument (SGP_EINVAL, SGP_EDIM), SGP_ENOMEM,
 * SGP_EUNSUPPORTED (softmax), SGP_EINTERRUPT. */
int sgp_ski_laplace_run(sgp_ctx *ctx, const sgp_ski_laplace_opts *o,
                        const sgp_ski_laplace_data *data, sgp_value_arena *arena,
                        sgp_value *out);

/* The options of predictions from a fit (table "ski_laplace_predict"): what the
 * host returns (SGP_PREDICT_LIST, _RESPONSE or _LINK), the latent variances
 * (EXACT, or NONE) and the log exposures at the new points (count likelihoods;
 * empty: 0). */
typedef struct {
  int type;
  sgp_skl_variance variance;
  sgp_cmat offset;
} sgp_ski_laplace_predict_opts;
void sgp_ski_laplace_predict_opts_default(sgp_ski_laplace_predict_opts *o);

/* Predictions from a fit given back as plain data (fit: the host's list or
 * struct, saved, reloaded or edited). The core checks every field it reads,
 * errors naming the field as the host's user writes it (arg, sep: "'object$weights'
 * has 10 values; need 120 (one per grid point) (the fit is damaged; refit it)"),
 * then the options against the fit (an offset only for a likelihood that takes
 * one, one per point), then predicts at Xs (ns x d; errors name "xtest"): out =
 * list(pred = list(mean, var (NULL with variance "none"), response, response_var),
 * type), the same numbers as the fit's test at the same points. Xs.data NULL:
 * the check only (out NULL). */
int sgp_ski_laplace_predict_plain(sgp_ctx *ctx, const sgp_value *fit, const char *arg,
                                  const char *sep, const sgp_ski_laplace_predict_opts *o,
                                  sgp_cmat Xs, sgp_value_arena *arena, sgp_value *out);

#ifdef __cplusplus
}
#endif
#endif
