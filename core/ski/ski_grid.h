/* ski_grid.h -- ski_gsgp internals: the regular grid, the interpolation
 * weights w(x) and the grid kernel matrix K_G as an sgp_op (Kronecker of
 * Toeplitz and multilevel circulant embedding, FFTW) (core-internal). */
#ifndef SGP_SKI_GRID_H
#define SGP_SKI_GRID_H

#include "runtime/sgp_internal.h"

/* SGP_SKI_MAX_D, sgp_ski_interpolation, sgp_ski_bounds_policy and sgp_ski_grid
 * are public: api/sgp_ski.h. */

/* ------------------------------------------------------------ ski_grid.c */

/* Checks a grid (1 <= d <= SGP_SKI_MAX_D, m_j >= 1, lo_j and the upper end
 * finite, h_j > 0, prod m_j representable); messages name grid_size or
 * grid_bounds. */
int sgp_ski_grid_check(sgp_ctx *ctx, const sgp_ski_grid *g);
/* sgp_ski_grid_check, and SGP_ENOMEM naming grid_size when the statistics of
 * the grid (the stencil of B, W'y, W'1: (P^d + 2) m doubles, P = 7 cubic, 3
 * linear) need more than the machine's physical memory. */
int sgp_ski_grid_fits(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp);
/* Total number of grid points m = prod m_j (assumes a checked grid). */
int64_t sgp_ski_grid_npoints(const sgp_ski_grid *g);
/* Upper end lo_j + (m_j - 1) h_j of dimension j. */
double sgp_ski_grid_hi(const sgp_ski_grid *g, int j);
/* Flattened index of the subscripts sub[0..d-1] (first dimension fastest). */
int64_t sgp_ski_grid_index(const sgp_ski_grid *g, const int64_t *sub);
/* Subscripts sub[0..d-1] of the flattened index idx. */
void sgp_ski_grid_subscripts(const sgp_ski_grid *g, int64_t idx, int64_t *sub);

/* User grid_bounds (d-by-2: lower, upper) and grid_size (d values): both ends
 * are grid points, points lo + (0:(m-1)) (hi - lo)/(m - 1). Needs hi > lo where
 * m_j > 1 (where m_j = 1 the only point is lo and hi is ignored). */
int sgp_ski_grid_bounds(sgp_ctx *ctx, sgp_cmat grid_bounds, const int64_t *grid_size,
                        sgp_ski_grid *out);
/* Default grid_bounds: data range [a_j, b_j] (d-by-2: min, max),
 * grid_size, and a pad of p cells (grid_pad < 0: 2 for cubic, 1 for linear):
 * h_j = (b_j - a_j)/(m_j - 1 - 2p) (1 when b_j = a_j), lo_j = a_j - p h_j, so
 * every datum lies at t in [p, m_j - 1 - p]. Needs m_j >= 2p + 2 and m_j at
 * least the interpolation's minimum (4 cubic, 2 linear). */
int sgp_ski_grid_auto(sgp_ctx *ctx, sgp_cmat data_range, const int64_t *grid_size,
                      sgp_ski_interpolation interp, int grid_pad, sgp_ski_grid *out);
/* Column minima and maxima of X (n-by-d, n >= 1) into range (d-by-2,
 * column-major: range[j] = min, range[d + j] = max); errors name `x`. */
int sgp_ski_data_range(sgp_ctx *ctx, sgp_cmat X, double *range);
/* Default grid_size for n data points with range data_range (d-by-2):
 *  - with lengthscales (n_lengthscale 1 or d, else NULL): resolve the kernel,
 *    h_j <= lengthscale_j / 3, i.e. m_j = ceil(3 (b_j - a_j)/ell_j) + 1 + 2p;
 *  - without: m_j = ceil(n^(1/d)) + 2p (GPyTorch's ratio-1 rule);
 * at least the minimum size (max(2p + 2, 4 cubic / 2 linear)); then, when
 * prod m_j > max_m (<= 0: 2^20), the padded interior is shrunk evenly until it
 * fits, and each m_j is rounded to a 2,3,5,7-smooth number (FFT friendly) when
 * that keeps prod m_j <= max_m. SGP_EINVAL naming grid_size when even the
 * minimum sizes exceed max_m. */
int sgp_ski_grid_size_auto(sgp_ctx *ctx, sgp_cmat data_range, int64_t n,
                           const double *lengthscale, int64_t n_lengthscale,
                           sgp_ski_interpolation interp, int grid_pad, int64_t max_m,
                           int64_t *grid_size);
/* ski_grid_rule.c: grid cells per lengthscale of the default grid (at least
 * 3) so that the estimated interpolation error of the posterior mean is 5%
 * of the noise sd; sd_ratio = noise sd / sqrt(outputscale). Linear
 * interpolation (not calibrated): 3. */
double sgp_ski_cells_per_lengthscale(const sgp_kernel *k, sgp_ski_interpolation interp,
                                     double sd_ratio, int d);
/* The estimated max |posterior mean - exact GP's| of SKI on grid g with
 * kernel k (ski_grid_rule.c has the model); NaN for linear interpolation or
 * no lengthscale. */
double sgp_ski_interp_error_est(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                                const sgp_kernel *k);
/* The grid points as an m-by-d matrix P (row g = point of flattened index g). */
int sgp_ski_grid_points(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_mat P);
/* Smallest 2,3,5,7-smooth integer >= n (n >= 1). */
int64_t sgp_ski_fft_good_size(int64_t n);

/* ------------------------------------------------------------ ski_interp.c */

/* Taps per dimension (2r: 4 cubic, 2 linear) and per point ((2r)^d). */
int sgp_ski_interp_width(sgp_ski_interpolation interp);
int64_t sgp_ski_interp_taps(sgp_ski_interpolation interp, int d);
/* Keys' cubic convolution kernel u(xi), a = -1/2. */
double sgp_ski_keys_kernel(double xi);
/* The four cubic weights at fractional offset f in [0, 1] (closed form). */
void sgp_ski_cubic_weights(double f, double w[4]);

/* Status of one point (sgp_ski_interp_point). */
enum {
  SGP_SKI_POINT_OK = 0,        /* weights computed (possibly truncated or clamped) */
  SGP_SKI_POINT_DROPPED = 1,   /* outside; every tap set to index -1, weight 0 (DROP) */
  SGP_SKI_POINT_OUTSIDE = 2,   /* outside the valid range under ERROR; taps undefined */
  SGP_SKI_POINT_NONFINITE = 3  /* NaN or Inf coordinate; taps undefined */
};

/* 1 when the point x (x[j * incx], j < d) is not finite or lies outside the
 * valid interpolation range of grid g (the test of every bounds policy, with
 * its rounding slack), else 0. */
int sgp_ski_outside(const sgp_ski_grid *g, sgp_ski_interpolation interp, const double *x,
                    int64_t incx);

/* Weights of one point x (x[j * incx], j < d) on a checked grid: idx[t] and
 * w[t] for the (2r)^d taps t = a_1 + 2r (a_2 + 2r (a_3 + ...)) (first
 * dimension fastest), idx = flattened grid index of the tap; dropped taps have
 * idx -1 and w 0. Returns an SGP_SKI_POINT_* status and, unless OK or DROPPED,
 * the offending dimension in *bad_dim. Thread-safe; no context; assumes m_j is
 * at least the interpolation's minimum (sgp_ski_interp checks it). */
int sgp_ski_interp_point(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                         sgp_ski_bounds_policy policy, const double *x, int64_t incx,
                         int64_t *idx, double *w, int *bad_dim);
/* The interpolation matrix W of the rows of X (n-by-d) in row-compressed form:
 * the taps of row i are idx[i T + t], w[i T + t], T = sgp_ski_interp_taps().
 * first_row is the global index of X's first row (streamed chunks); it is only
 * used in error messages, which name `x` with the (1-based) global row and
 * column. The grid needs m_j >= 4 (cubic) / 2 (linear): message names
 * grid_size. OpenMP over rows; the result does not depend on the thread count. */
int sgp_ski_interp(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                   sgp_ski_bounds_policy policy, sgp_cmat X, int64_t first_row,
                   int64_t *idx, double *w);

/* ------------------------------------------------------------ ski_fft.c */

/* How K_G V is computed. */
typedef enum {
  SGP_SKI_KG_AUTO = 0,      /* Kronecker when separable, else circulant */
  SGP_SKI_KG_KRONECKER = 1, /* s T_d (x) ... (x) T_1: separable kernels only (rbf,
                               or any kernel when at most one m_j > 1) */
  SGP_SKI_KG_CIRCULANT = 2  /* d-level circulant embedding: any stationary kernel */
} sgp_ski_kg_path;

/* Embedding length L_j per dimension (results do not depend on it). */
typedef enum {
  SGP_SKI_FFT_FAST = 0,     /* smallest 2,3,5,7-smooth L_j >= 2 m_j - 1 (default) */
  SGP_SKI_FFT_DOUBLE = 1,   /* L_j = 2 m_j (the paper's "pad to 2m") */
  SGP_SKI_FFT_MINIMAL = 2   /* L_j = 2 m_j - 1 */
} sgp_ski_fft_size;

/* How much FFTW plans (the planner is serialized process-wide: ski_fft_plan.c).
 * FFTW_MEASURE finds plans up to ~1.5x faster than FFTW_ESTIMATE but costs
 * 10^4..10^5 transforms of planning for 1-D sizes (1.6 s for L = 16000) and a
 * few hundred for large 3-D ones, so it pays only for long runs. AUTO: plans
 * measured earlier in the process (FFTW wisdom) are reused at no cost; else
 * ESTIMATE, and FFTW_MEASURE is tried under fftw_set_timelimit with a budget
 * of a quarter of the expected transform time (expected_products x one
 * product timed with the ESTIMATE plans) when that budget is at least 0.1 s;
 * a search that runs out of time keeps the ESTIMATE plans, and FFTW's planner
 * remembers it for the process: later operators of the same transform and
 * budget do not search again (measured: 0.35 s for the first 64 x 64 x 32
 * Matern operator with a ~0.1 s budget, 0.04 s for the next ones).
 * The default is ESTIMATE, so that a fit's arithmetic (and with it CG's
 * iteration count and the means, bit for bit) is the same in every run and
 * process: plans of different algorithms round differently, and which
 * algorithm FFTW_MEASURE picks depends on timings (identical ski_gsgp fits
 * took 652 to 666 iterations under AUTO). ESTIMATE's choice depends
 * only on the sizes, strides and alignment -- unless measured wisdom for the
 * same transform exists in the process (FFTW's planner reuses it for an
 * ESTIMATE request): the core never measures unless AUTO or MEASURE is asked
 * for. */
typedef enum {
  SGP_SKI_FFT_PLAN_AUTO = 0,
  SGP_SKI_FFT_PLAN_ESTIMATE = 1, /* FFTW_ESTIMATE (deterministic plans; the default) */
  SGP_SKI_FFT_PLAN_MEASURE = 2   /* FFTW_MEASURE, no time limit */
} sgp_ski_fft_planner;

typedef struct {
  sgp_ski_kg_path path;     /* default AUTO */
  sgp_ski_fft_size fft_size;/* default FAST */
  int64_t dense_max;        /* Kronecker: dimensions with m_j <= dense_max use a dense
                               T_j (dgemm), larger ones a 1-D circulant embedding
                               (FFT); default 128 (measured crossover on a
                               80 x 80 x 8 and a 200 x 200 x 10 grid) */
  sgp_ski_fft_planner planner; /* default AUTO */
  double expected_products; /* AUTO: K_G column products the caller expects at most
                               (e.g. max_iter of a solve); 0 (default): unknown,
                               no measuring */
} sgp_ski_kg_opts;

void sgp_ski_kg_opts_default(sgp_ski_kg_opts *o);
/* Operator v -> K_G v on the m = prod m_j grid values (first dimension
 * fastest), K_G[g, g'] = k(point g, point g') for the stationary kernel k
 * (lengthscale 1 or d values, outputscale s). Everything the products need
 * (Toeplitz factors, FFT eigenvalues, FFTW plans) is computed here, serially,
 * so neither the kernel nor the grid need outlive the operator. apply is
 * thread-safe (FFTW new-array execution) and threads, with the thread count of
 * the ctx it is given, over right-hand sides (circulant) or fibres/slabs
 * (Kronecker); results do not depend on the thread count beyond rounding of
 * the FFT batches. diag gives s. o may be NULL
 * (defaults). SGP_EINVAL naming `path` for the Kronecker path with a
 * non-separable kernel; SGP_ENOMEM when a buffer or an FFTW plan fails. */
int sgp_ski_grid_op(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                    const sgp_ski_kg_opts *o, sgp_op *op);
/* The path an operator from sgp_ski_grid_op uses (KRONECKER or CIRCULANT). */
sgp_ski_kg_path sgp_ski_grid_op_path(const sgp_op *op);
/* Operator v -> (d K_G / d log ell) v for the lengthscale shared by the
 * dimensions in mask (bit j: dimension j; an ARD ell_j is 1u << j, an
 * isotropic ell all d bits): K_G with the generating values k(delta)
 * replaced by -2 (dk/dr2) sum_{j in mask} (delta_j/ell_j)^2 (kernels.h), so
 * it is multilevel Toeplitz like K_G and built the same way. The Kronecker
 * path differentiates one factor and takes one bit only (SGP_EINVAL naming
 * `path` otherwise; AUTO then takes the circulant path); a dimension with
 * m_j = 1 in the mask gives the zero operator. diag gives 0. mask 0 or bits
 * beyond d: SGP_EINVAL naming `lengthscale`. */
int sgp_ski_grid_op_deriv(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                          const sgp_ski_kg_opts *o, unsigned mask, sgp_op *op);
/* The circulant embedding of a CIRCULANT-path operator, for other backends:
 * K_G v = the first m_j entries per dimension of IFFT(lambda .* FFT(v padded
 * into the L-array)), r2c along dimension 1 (the fastest), lambda already
 * divided by Ltot. Returns 0 (and leaves c alone) for any other operator. */
typedef struct {
  int d;
  int64_t m[SGP_SKI_MAX_D], L[SGP_SKI_MAX_D];
  int64_t mtot, Ltot, Lctot;
  const double *lambda;   /* Lctot values, owned by the operator */
} sgp_ski_circulant;
int sgp_ski_grid_op_circulant(const sgp_op *op, sgp_ski_circulant *c);

#endif
