/* ski.h -- ski_gsgp internals (core-internal; not part of the public API yet).
 *
 * First layer of the ski_gsgp method (spec shared/spec/ski_gsgp.md §1.2, §1.3,
 * §2): the regular grid, the interpolation weights w(x) and the products with
 * the grid kernel matrix K_G as an sgp_op (Kronecker-of-Toeplitz and multilevel
 * circulant embedding, FFTW).
 *
 * Conventions (spec §0): a grid vector is stored first dimension fastest,
 *   g = i_1 + m_1 (i_2 + m_2 (i_3 + ...)),  0 <= i_j < m_j,
 * so R's array(v, dim = grid_size) reshapes it directly, and
 * K_G = s T_d (x) ... (x) T_1 for separable kernels. Grid point i has the
 * coordinates lo_j + i_j h_j. Dimensions are numbered from 0 in C and from 1 in
 * error messages (they name the R/Octave arguments).
 *
 * The types and entry points the shims need are public (core/api/sgp.h). */
#ifndef SGP_SKI_H
#define SGP_SKI_H

#include "runtime/sgp_internal.h"

/* SGP_SKI_MAX_D, sgp_ski_interpolation, sgp_ski_bounds_policy and sgp_ski_grid
 * are public: core/api/sgp.h (ski_gsgp section). */

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
/* Default grid_bounds (spec §1.3): data range [a_j, b_j] (d-by-2: min, max),
 * grid_size, and a pad of p cells (grid_pad < 0: 2 for cubic, 1 for linear):
 * h_j = (b_j - a_j)/(m_j - 1 - 2p) (1 when b_j = a_j), lo_j = a_j - p h_j, so
 * every datum lies at t in [p, m_j - 1 - p]. Needs m_j >= 2p + 2 and m_j at
 * least the interpolation's minimum (4 cubic, 2 linear). */
int sgp_ski_grid_auto(sgp_ctx *ctx, sgp_cmat data_range, const int64_t *grid_size,
                      sgp_ski_interpolation interp, int grid_pad, sgp_ski_grid *out);
/* Column minima and maxima of X (n-by-d, n >= 1) into range (d-by-2,
 * column-major: range[j] = min, range[d + j] = max); errors name `x`. */
int sgp_ski_data_range(sgp_ctx *ctx, sgp_cmat X, double *range);
/* Default grid_size (spec §8.2) for n data points with range data_range (d-by-2):
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
/* Keys' cubic convolution kernel u(xi), a = -1/2 (spec §1.3). */
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

/* How K_G V is computed (spec §2.3, §2.4). */
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
 * took 652 to 666 iterations under AUTO, issue 18). ESTIMATE's choice depends
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

/* ------------------------------------------------------------ ski_stats.c */

/* Sufficient statistics of the streaming pass (spec §3): B = W'W in
 * STENCIL_FULL storage, u_y = W'y, u_1 = W'1, rho_y = y'y, sum y, n.
 * Offsets o in {-R..R}^d, R = 2r - 1 (3 cubic, 1 linear), are numbered
 * s = (o_1 + R) + P ((o_2 + R) + P (...)), P = 2R + 1, S = P^d; then
 * D[s m + g] = B[g, g + o] (0 where g + o leaves the grid). Memory S m + 2 m
 * doubles, independent of n.
 * Accumulation is partitioned by grid point between threads and every entry
 * receives its contributions in data order, so the statistics are bitwise
 * identical for any chunking and thread count (merge adds, so merged
 * statistics equal one pass up to rounding). The struct is visible to the
 * core and the tests; treat it as read-only outside ski_stats.c. */
struct sgp_ski_stats {  /* typedef in sgp.h */
  sgp_ski_grid grid;
  sgp_ski_interpolation interp;
  int R;              /* stencil half-width 2r - 1 */
  int64_t m, S, T;    /* grid points, stencil offsets, taps per point */
  int64_t n;          /* data points accumulated (not those dropped under
                         bounds_policy "drop": they are no data of the model) */
  double yy, ysum;    /* y'y and sum y */
  double *uy, *u1;    /* W'y, W'1 (m each) */
  double *D;          /* S-by-m stencil (see above) */
  int *off;           /* S-by-d offset components, off[s d + j] = o_j */
  int64_t *delta;     /* S flattened grid offsets sum_j o_j stride_j */
  int64_t *tap_code;  /* T: sum_j a_j P^j for tap t = (a_1, ..., a_d) */
};

/* Empty statistics for a grid and interpolation (grid and minimum sizes
 * checked; messages name grid_size / interpolation). */
int sgp_ski_stats_create(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                         sgp_ski_stats **out);
/* Adds the chunk X (n_c-by-d), y (n_c-by-1); first_row is the global index of
 * X's first row (0-based; error messages only). Errors name `stats`, `x`
 * (non-finite, outside the grid under ERROR, wrong column count) or `y`
 * (length, non-finite); on error the statistics are unchanged. The interrupt
 * hook is polled between blocks of points (outside parallel regions); an
 * interrupt while the chunk is being added (SGP_EINTERRUPT) clears the
 * statistics (nothing of any chunk is left), before that it leaves them
 * unchanged. */
int sgp_ski_stats_accumulate(sgp_ctx *ctx, sgp_ski_stats *st, sgp_cmat X, sgp_cmat y,
                             int64_t first_row, sgp_ski_bounds_policy policy);

/* SGP_EINVAL naming y when y'y, sum y or W'y are not finite (a y whose
 * squares overflow). */
int sgp_ski_stats_check_values(sgp_ctx *ctx, const sgp_ski_stats *st);
void sgp_ski_stats_free(sgp_ski_stats *st);
/* Index of the offset o (d components) in the stencil, or -1 when outside. */
int64_t sgp_ski_stats_offset_index(const sgp_ski_stats *st, const int *o);
/* Operator v -> B v on grid vectors from the stencil (OpenMP over grid rows,
 * deterministic). st is not copied and must outlive the operator; diag gives
 * the diagonal of B. */
int sgp_ski_stats_op(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_op *op);
/* 1 when the fibre `row` (fixed i_2..i_d, first dimension fastest) shifted by
 * the offset o (its components 2..d) stays inside the grid: the stencil's
 * entries D[s][row's cells] then pair with cells of that shifted fibre. */
static inline int sgp_ski_fibre_inside(const sgp_ski_stats *st, int64_t row, const int *o)
{
  for (int j = 1; j < st->grid.d; j++) {
    const int64_t t = row % st->grid.m[j] + o[j];
    row /= st->grid.m[j];
    if (t < 0 || t >= st->grid.m[j]) return 0;
  }
  return 1;
}

/* The grid subscript after sub (d dimensions of m[j] points, the first
 * fastest), back to 0 after the last: walks grid index order alongside i. */
static inline void sgp_ski_sub_next(int64_t *sub, const int64_t *m, int d)
{
  for (int j = 0; j < d; j++) {
    if (++sub[j] < m[j]) return;
    sub[j] = 0;
  }
}

/* ------------------------------------------------------------ ski_bop.c */

/* Storage of B used by the operator (spec §3.2; option b_format). */
typedef enum {
  SGP_SKI_B_AUTO = 0,    /* CSR when nnz(B) <= S m / 3, else STENCIL (default) */
  SGP_SKI_B_STENCIL = 1, /* the S-by-m stencil D as stored: O(S m) per product */
  SGP_SKI_B_CSR = 2      /* rows with data only, non-zeros only: O(nnz) per product */
} sgp_ski_b_format;
/* sgp_ski_stats_op with a chosen storage (sgp_ski_stats_op is AUTO). CSR copies
 * the non-zeros (12 bytes each); both forms give the same products. */
int sgp_ski_stats_op_format(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_ski_b_format format,
                            sgp_op *op);
/* Storage an operator of sgp_ski_stats_op uses (AUTO for another kind of
 * operator); nnz (may be NULL) receives the entries one product touches. */
sgp_ski_b_format sgp_ski_stats_op_kind(const sgp_op *op, int64_t *nnz);

/* ------------------------------------------------------------ ski_moments.c */

/* Moment pass (a faster alternative to sgp_ski_stats_accumulate for large n):
 * per-cell power moments of the points' local offsets, (2r+1)^d + (r+1)^d
 * doubles per grid point (407 m for cubic 3-D), turned into B, W'y, W'1 by
 * sgp_ski_moments_flush. ~(2r+1)^d contiguous multiply-adds per point instead
 * of T (T+1)/2 scattered ones. Moments are bitwise independent of chunking and
 * thread count; the flushed statistics equal the tap pass's up to rounding
 * (flush once, after the last chunk, for chunk-independent bits). d <= 3;
 * bounds policies error, clamp, drop (truncate: SGP_EUNSUPPORTED). */
typedef struct sgp_ski_moments sgp_ski_moments;
/* Empty moments for the grid and interpolation of st (errors name `stats`,
 * `grid_size`). */
int sgp_ski_moments_create(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_ski_moments **out);
/* Adds a chunk, as sgp_ski_stats_accumulate (same arguments, errors and
 * global row numbering); on error the moments are unchanged, except that an
 * interrupt while the chunk is being added (polled between blocks) clears
 * them. */
int sgp_ski_moments_accumulate(sgp_ctx *ctx, sgp_ski_moments *mo, sgp_cmat X, sgp_cmat y,
                               int64_t first_row, sgp_ski_bounds_policy policy);
/* st += the statistics of the accumulated points; the moments are reset. An
 * interrupt (polled between the flush's phases) leaves both unchanged. */
int sgp_ski_moments_flush(sgp_ctx *ctx, sgp_ski_moments *mo, sgp_ski_stats *st);
void sgp_ski_moments_free(sgp_ski_moments *mo);

/* ------------------------------------------------------------ ski_stats_pass.c */

/* Which pass computes the statistics in sgp_ski_stats_compute. */
typedef enum {
  SGP_SKI_PASS_AUTO = 0,   /* sgp_ski_stats_pass_choice; moments -> taps on SGP_ENOMEM */
  SGP_SKI_PASS_TAP = 1,    /* sgp_ski_stats_accumulate */
  SGP_SKI_PASS_MOMENTS = 2 /* sgp_ski_moments_* (one flush) */
} sgp_ski_pass;
/* The automatic choice for n points: MOMENTS when d <= 3, the bounds policy is
 * error, clamp or drop and n >= c_d m (m grid points; c_d = 4, 16, 24 for
 * d = 1, 2, 3: the measured crossovers), else TAP. */
sgp_ski_pass sgp_ski_stats_pass_choice(const sgp_ski_grid *g, sgp_ski_bounds_policy policy,
                                       int64_t n);
/* sgp_ski_stats_compute with a given pass (AUTO: what it uses). */
int sgp_ski_stats_compute_pass(sgp_ctx *ctx, const sgp_ski_grid *g, const sgp_ski_opts *o,
                               sgp_cmat X, sgp_cmat y, int64_t first_row, sgp_ski_pass pass,
                               sgp_ski_stats **out, double *uz, double *rhoz);

/* Classic SKI operator (spec §5.1, method "ski"): v -> W K_G W' v + noise v on
 * R^n. W of the rows of X is computed and kept (n taps indices and weights);
 * kg (from sgp_ski_grid_op with the same kernel and grid) is not copied and
 * must outlive the operator; the kernel is copied (diag evaluates it at the
 * tap pairs). apply uses work buffers inside the operator: do not apply one
 * operator from two threads at once. Errors name `x`, `noise`. */
int sgp_ski_op_ski(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                   sgp_ski_interpolation interp, sgp_ski_bounds_policy policy, sgp_cmat X,
                   double noise, const sgp_op *kg, sgp_op *op);
/* u = W' v (m) for an n-vector v with the W of a SKI operator (serial,
 * deterministic). SGP_EINVAL naming `op` for an operator of another kind. */
int sgp_ski_op_ski_wt(sgp_ctx *ctx, const sgp_op *op, const double *v, double *u);
/* The K_G operator a SKI operator was built with (NULL for another kind). */
const sgp_op *sgp_ski_op_ski_kg(const sgp_op *op);

/* ------------------------------------------------------------ ski_solve.c */

typedef struct {
  double tol;        /* stop when ||r_k|| <= tol ||b||; default 0.01 */
  int64_t max_iter;  /* default 1000 */
  int64_t precond_rank; /* sgp_ski_mean_efcg only: rank q of the K_G
                           preconditioner (ski_precond.c); 0 (default) = off */
  double quad_rtol;  /* sgp_ski_mean_efcg without preconditioner: > 0 also stops only
                        once the bound on y'A^{-1}y's error is at most quad_rtol of it
                        (the data fit, ski_loglik.c); 0 (default) = off */
} sgp_ski_solve_opts;

typedef struct {
  int64_t iterations;  /* CG iterations run */
  int converged;       /* 1 when the true relative residual met tol */
  double rel_residual; /* ||b - A x|| / ||b|| of the returned x (recomputed) */
  sgp_ski_stop stop;   /* why it stopped (TOL when converged) */
  double quad, quad_err; /* sgp_ski_mean_efcg without preconditioner (else NaN):
                            y'A^{-1}y ~ y'x + x'r of the returned x, short by at
                            most quad_err (||r||^2 / noise and rounding) */
} sgp_ski_solve_info;

void sgp_ski_solve_opts_default(sgp_ski_solve_opts *o);

/* ------------------------------------------------------------ ski_cg.c */

/* A conjugate-gradient solve for sgp_ski_cg_run: callbacks on its state.
 *  step:    delta = p'Ap and the step a = gamma / delta (a unused if delta <= 0);
 *  advance: x += a p, r -= a A p; *g2 = ||r||^2 of the recursion;
 *  verify:  *g2 = ||b - A x||^2 of the iterate (an upper bound: rounding
 *           allowance included) without touching the recursion's vectors;
 *           replace: r becomes that true residual;
 *  direct:  p = r + b p (b from the new g2, CG's or PCG's; b = 0 when
 *           restart, after a replacement), returns b;
 *  target:  (may be NULL) the relative residual the iterate of the last
 *           verify needs for the quantity the solve is for (<= 0: none
 *           reachable); the solve's tolerance becomes min(tol, target).
 * what names the solve in messages ("mean", "variance"). */
typedef struct {
  void *state;
  const char *what;
  int (*step)(void *state, sgp_ctx *ctx, double *delta, double *a);
  int (*advance)(void *state, sgp_ctx *ctx, double a, double *g2);
  int (*verify)(void *state, sgp_ctx *ctx, int replace, double *g2);
  double (*direct)(void *state, double g2, int restart);
  double (*target)(void *state);
} sgp_ski_cg;

/* Runs cg from ||r0||^2 = g2 (relative to nb = ||b||) until the true relative
 * residual meets o->tol, max_iter iterations, the attainable accuracy (the
 * recursion drifted again and the true residual did not halve since it was
 * last replaced) or a breakdown (ski_cg.c explains); info as
 * sgp_ski_solve_info says, history (max_iter + 1)
 * relative residuals (the recursion's; the true one where verified, always the
 * last), alpha / beta the coefficients (iterations resp. iterations - 1 of
 * them when it stopped before max_iter). The returned iterate is always
 * verified last (verify with replace = 0 when needed). A non-finite value is
 * SGP_EINVAL naming outputscale; SGP_EINTERRUPT from the hook (polled every
 * iteration). */
int sgp_ski_cg_run(sgp_ctx *ctx, const sgp_ski_cg *cg, double g2, double nb,
                   const sgp_ski_solve_opts *o, sgp_ski_solve_info *info, double *history,
                   double *alpha, double *beta);
/* a'b and c'd in one pass (each summed in index order, as a plain loop). */
void sgp_ski_dot2(int64_t n, const double *a, const double *b, const double *c,
                  const double *d, double *ab, double *cd);
/* a[k]'b[k], k = 0..3, in one pass. */
void sgp_ski_dot4(int64_t n, const double *const a[4], const double *const b[4],
                  double out[4]);
/* ||W rh + c y||^2 = rh'u + 2 c rh'u0 + c^2 rho0 (u = B rh, u0 = W'y or NULL)
 * plus an allowance for the rounding of the sums ((2 + sqrt(m)) eps times the
 * magnitudes of the terms): at least 0 and not below the true value but by
 * rounding beyond the allowance. */
double sgp_ski_fnorm2(int64_t m, const double *rh, const double *u, const double *u0, double c,
                      double rho0);

/* Posterior mean, SKI baseline (spec §4.2 route 1, Alg. A1): CG on
 * (W K_G W' + noise I) x = y from x0 = 0 with the operator of sgp_ski_op_ski;
 * weights (m) = K_G W' x, the mean cache a: mu(x*) = w(x*)' a.
 * Optional outputs (NULL to skip): x (n), history (max_iter + 1 relative
 * residuals, history[0] = 1; iterations + 1 are written), alpha and beta
 * (max_iter each: the CG coefficients; iterations resp. iterations - 1 of them
 * are written when converged, iterations otherwise). Errors name `y`, `op`,
 * `tol`, `max_iter`; SGP_EINTERRUPT from the interrupt hook (polled every
 * iteration). */
int sgp_ski_mean_cg(sgp_ctx *ctx, const sgp_op *ski, sgp_cmat y, const sgp_ski_solve_opts *o,
                    double *weights, double *x, sgp_ski_solve_info *info, double *history,
                    double *alpha, double *beta);

/* Checks the model every SKI solve shares: statistics present, K_G operator of
 * the grid's order, noise a positive finite variance (errors name them). */
int sgp_ski_check_model(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise);

/* The factorized operator of spec §4.1, (v, u) = Bop(r): u = B r and
 * v = K_G u + noise r (m values each) -- the one B and one K_G product of a
 * factorized CG iteration (ski_solve.c, ski_precond.c). */
int sgp_ski_bop_pair(sgp_ctx *ctx, const sgp_op *B, const sgp_op *kg, double noise, int64_t m,
                     const double *r, double *u, double *v);

/* The true residual r = y - A x of x = W xh + cx y in factorized form (spec
 * §4.1): t = B xh + cx u_y, weights = K_G t (the mean cache of x),
 * r = W rh + cr y with rh = -(weights + noise xh), cr = 1 - noise cx;
 * uh = B rh and *g2 = ||r||^2 (sgp_ski_fnorm2's bound). t, weights, rh, uh: m. */
int sgp_ski_efcg_residual(sgp_ctx *ctx, const sgp_op *B, const sgp_op *kg, double noise,
                          const sgp_ski_stats *st, const double *xh, double cx, double *t,
                          double *weights, double *rh, double *cr, double *uh, double *g2);

/* Posterior mean by efficiently factorized CG (spec §4.2 route 2, Alg. A3
 * corrected, x0 = 0, r0 = y): the same iterates as sgp_ski_mean_cg in exact
 * arithmetic, with only grid-size work per iteration (one K_G and one B
 * product). Needs only the statistics st, the K_G operator kg and the noise
 * variance. weights (m) = K_G W'x = K_G (B xhat + c_x u_y). Optional: xhat (m) and cx with
 * x = W xhat + c_x y, and history / alpha / beta as for sgp_ski_mean_cg.
 * Errors name `stats`, `kg`, `noise`, `tol`, `max_iter`. */
int sgp_ski_mean_efcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      const sgp_ski_solve_opts *o, double *weights, double *xhat, double *cx,
                      sgp_ski_solve_info *info, double *history, double *alpha,
                      double *beta);

/* Simplified EFCG (spec §5.4, Alg. A4) for A x = b from x0 when the initial
 * residual r0 = b - A x0 = W rhat0 lies in span(W) (e.g. x0 = 0, b = W rhat0:
 * the exact covariance columns of §4.3; or the mean with x0 = y/noise).
 * Only B and K_G products. nb = ||b|| for the relative stopping rule
 * ||r_k|| <= tol nb (nb <= 0: nb = ||r0|| = sqrt(rhat0' B rhat0), the x0 = 0
 * case). Returns xd (m) = W'(x - x0) and optionally xhat (m) with
 * x - x0 = W xhat; info, history (history[0] = ||r0||/nb), alpha, beta as for
 * sgp_ski_mean_cg. Errors name `stats`, `kg`, `noise`, `rhat0`, `tol`,
 * `max_iter`. */
int sgp_ski_sefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                  const double *rhat0, double nb, const sgp_ski_solve_opts *o, double *xd,
                  double *xhat, sgp_ski_solve_info *info, double *history, double *alpha,
                  double *beta);
/* An exact variance v = prior - k'A^{-1}k, k = W rhat0, and its a-posteriori
 * bound (ski_var.c derives it): in, prior = w*'K_G w* and rtol, the relative
 * accuracy wanted; out, var (the estimate) and err with |var - v| <= err. */
typedef struct {
  double prior, rtol;
  double var, err;
} sgp_ski_var_bound;
/* sgp_ski_sefcg from x0 = 0 (nb = ||W rhat0||) for the variance of vb: the
 * solve also stops only once err <= rtol (var - err) (tol then shrinks as
 * sgp_ski_cg's target says; info->converged: both met). xd as there. */
int sgp_ski_sefcg_var(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      const double *rhat0, const sgp_ski_solve_opts *o, double *xd,
                      sgp_ski_var_bound *vb, sgp_ski_solve_info *info);
/* Posterior mean by sEFCG from x0 = y/noise (spec §4.2 route 3, the paper's
 * and reference code's choice): rhat0 = -K_G u_y/noise, nb = ||y||,
 * W'x = xd + u_y/noise, weights = K_G W'x. history[0] may exceed 1. */
int sgp_ski_mean_sefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const sgp_ski_solve_opts *o, double *weights, sgp_ski_solve_info *info,
                       double *history, double *alpha, double *beta);

/* Predictive mean mu(x*) = w(x*)' a at the rows of Xs (errors name `x`). */
int sgp_ski_predict_mean(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                         sgp_ski_bounds_policy policy, sgp_cmat Xs, const double *weights,
                         double *mean);

/* ------------------------------------------------------------ ski_mean.c */

/* *out: st with the targets y - mu 1 (W'y - mu W'1, their sum and squares);
 * shares st's arrays except uy, which is uy_buf (m). Never free *out. */
void sgp_ski_stats_centred(const sgp_ski_stats *st, double mu, double *uy_buf,
                           sgp_ski_stats *out);
/* GLS estimate of the constant prior mean, mu = 1'A^-1 y / 1'A^-1 1, from the
 * statistics: one EFCG solve of A x = 1 (so's tolerance, relative to ||1||),
 * x = W xh + c 1, so 1'x and y'x are sums over the grid. work: 2 m. 0 when
 * n = 0. info: that solve's. */
int sgp_ski_gls_mean(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                     const sgp_ski_solve_opts *so, double *work, double *mu,
                     sgp_ski_solve_info *info);
/* The same by CG on the n data (method "ski"; ski from sgp_ski_op_ski), y the
 * targets. work: 2 n + m. */
int sgp_ski_gls_mean_cg(sgp_ctx *ctx, const sgp_op *ski, sgp_cmat y, const sgp_ski_solve_opts *so,
                        double *work, double *mu, sgp_ski_solve_info *info);
/* The error of a GLS mean whose 1'A^-1 1 (den) is not positive and finite. */
int sgp_ski_gls_fail(sgp_ctx *ctx, double den);

/* ------------------------------------------------------------ ski_precond.c */

/* Top-q eigenpairs of K_G (spec §8.4) by block subspace iteration with
 * Rayleigh-Ritz on q + oversampling columns from a Gaussian start drawn from
 * ctx->rng, using only kg products (any kernel the grid operator supports).
 * Stops when every kept pair has ||K_G v - lam v|| <= tol lam_1 or after
 * max_iter iterations. V (m-by-q, orthonormal columns), lam (q, descending).
 * iters / resid (may be NULL): iterations run and the largest
 * ||K_G v - lam v|| / lam_1 of the kept pairs. Errors name `precond_rank`. */
int sgp_ski_kg_eig(sgp_ctx *ctx, const sgp_op *kg, int64_t q, double tol, int64_t max_iter,
                   double *V, double *lam, int64_t *iters, double *resid);

/* Preconditioned EFCG for the posterior mean (spec §8.4): P = noise I +
 * W V L V' W' with V L V' the top-q eigenpairs of K_G (q = o->precond_rank),
 * applied by Woodbury in factorized form with V'BV formed once. One B and one
 * K_G product per iteration plus O(m q); stops on the unpreconditioned
 * ||r_k|| <= tol ||y||. Same outputs as sgp_ski_mean_efcg (alpha / beta are
 * the preconditioned CG coefficients), which calls it when precond_rank > 0. */
int sgp_ski_mean_pefcg(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const sgp_ski_solve_opts *o, double *weights, double *xhat, double *cx,
                       sgp_ski_solve_info *info, double *history, double *alpha,
                       double *beta);

/* ------------------------------------------------------------ ski_var.c */

/* Prior SKI variance w(x)' K_G w(x) at the rows of Xs (spec §2.5): a table of
 * K_G's first column (one K_G product) and the tap pairs of each point, so
 * O(taps^2) per point. kg is the operator of sgp_ski_grid_op for the grid g
 * (stationary kernels are even in each coordinate). Errors name `xtest`. */
int sgp_ski_prior_var(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                      sgp_ski_bounds_policy policy, const sgp_op *kg, sgp_cmat Xs,
                      double *prior);

/* The relative accuracy of what ski_gsgp reads from its solves beyond their
 * residual: an exact variance (its solve runs until the bound on its error is
 * at most this fraction of it; ski_var.c derives the bound), the data fit of
 * the log-likelihood (ski_loglik.c), and what the LOVE check must show for the
 * lanczos variances to count as resolved (ski_love_check.c). */
#define SGP_SKI_RTOL 1e-4

/* What the variances of a set of test points met: solve (iterations = the most
 * any point needed, converged = every point met its tolerance, rel_residual and
 * stop the worst), rel_error = the largest bound on a variance's relative error
 * (Inf: one not resolved from 0), clamped = estimates below 0 set to 0. */
typedef struct {
  sgp_ski_solve_info solve;
  double rel_error;
  int64_t clamped;
} sgp_ski_var_info;
void sgp_ski_var_info_init(sgp_ski_var_info *info);

/* Exact posterior variances at the rows of Xs (spec §4.3, variance = "exact"):
 * var(x*) = w*' K_G w* - rhat' W'A^{-1}W rhat with rhat = K_G w(x*), one sEFCG
 * solve (Alg. A4, x0 = 0, relative to ||W rhat|| = sqrt(rhat' B rhat)) per
 * test point (sgp_ski_sefcg_var: to tol and to a relative error bound of
 * SGP_SKI_RTOL); only grid-size work. var (t) receives the latent
 * (noise-free) variance in [0, prior], a negative estimate set to 0 and
 * counted; pvar (t, may be NULL) the predictive variance var + noise. info
 * (may be NULL) as sgp_ski_var_info says. Errors name `stats`, `kg`, `noise`,
 * `xtest`, `tol`, `max_iter`. */
int sgp_ski_var_exact(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                      sgp_ski_bounds_policy policy, sgp_cmat Xs, const sgp_ski_solve_opts *o,
                      double *var, double *pvar, sgp_ski_var_info *info);

/* LOVE-style low-rank cache (spec §4.4, variance = "lanczos"): k steps of
 * span-W efficiently factorized Lanczos (Alg. A6', full reorthogonalization
 * by CGS2, start bhat = K_G 1/m) give Q = W Qhat, T; with R = K_G B Qhat and
 * T = C C' (bidiagonal Cholesky), F = R C^{-T} (m-by-k) so that
 * K_G W' Q T^{-1} Q' W K_G = F F'. Stored transposed (k-by-m) so a test point
 * costs O(k taps) (+ O(taps^2) for the prior). */
typedef struct sgp_ski_love {
  sgp_ski_grid grid;
  sgp_ski_interpolation interp;
  int64_t m;
  int64_t rank;        /* Lanczos steps kept (<= requested: invariant subspace) */
  double *Ft;          /* rank-by-m: Ft[j + g rank] = F[g, j] */
  double *c0;          /* m: K_G e_0 (prior table) */
  double error;        /* sgp_ski_love_check's bound (NaN: not checked) */
} sgp_ski_love;

/* Check points of the LOVE cache (ski_love_check.c). */
#define SGP_SKI_LOVE_CHECKS 8
/* The Lanczos basis a LOVE cache was made of: Qhat, Phat = B Qhat (m-by-k,
 * leading dimension m) and T = C C' (cc: k, ee: k - 1); c0 = K_G e_0. */
typedef struct {
  int64_t k;
  const double *Qh, *Ph, *cc, *ee, *c0;
} sgp_ski_love_basis;
/* *rel_error: the largest bound on the relative error of the LOVE variance at
 * the check points (ski_love_check.c derives it; Inf: one not resolved from 0;
 * 0 without data). B is the operator of st (sgp_ski_stats_op). */
int sgp_ski_love_check(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, const sgp_op *B,
                       double noise, const sgp_ski_love_basis *lb, double *rel_error);

/* rank: 0 = the default min(m, 256); values above m are reduced to m;
 * negative is SGP_EINVAL naming `rank`. Errors also name `stats`, `kg`,
 * `noise`. Free with sgp_ski_love_free. */
int sgp_ski_love_build(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       int64_t rank, sgp_ski_love **out);
void sgp_ski_love_free(sgp_ski_love *lv);
/* Low-rank variances at the rows of Xs: var = max(0, prior - ||F' w(x)||^2)
 * (never negative; never above the prior); pvar (may be NULL) = var + noise;
 * clamped (may be NULL): how many estimates fell below 0 and were set to 0.
 * Errors name `xtest`. */
int sgp_ski_love_var(sgp_ctx *ctx, const sgp_ski_love *lv, sgp_ski_bounds_policy policy,
                     sgp_cmat Xs, double noise, double *var, double *pvar, int64_t *clamped);

/* ------------------------------------------------------------ ski_loglik.c */

/* Counter-based probe RNG (spec §3.3, §4.5): a splitmix64-style hash of
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
  double tol;            /* SLQ CG relative tolerance; default 0.01 (spec §5.8) */
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

/* Defaults: probes 30 is the caller's (API `probes`); the rest per spec §5.8. */
void sgp_ski_loglik_opts_default(sgp_ski_loglik_opts *o);

/* SGP_EINVAL naming `tol`, `slq_max_iter` or `max_iter` when o is out of range. */
int sgp_ski_loglik_opts_check(sgp_ctx *ctx, const sgp_ski_loglik_opts *o);
/* SLQ log-determinant (spec §4.5): batched EFCG (Alg. A3, general start
 * r0 = z_j, x0 = 0) on A x = z_j for all probes at once (one B and one K_G
 * block product per iteration), Lanczos tridiagonals from the CG
 * coefficients (§5.5), Gamma_j = rho_z sum_i tau_i^2 log theta_i. uz
 * (m-by-probes) and rhoz come from sgp_ski_probe_sketch. Probes whose T has a
 * non-positive Ritz value are discarded and counted. Writes logdet,
 * logdet_se, probes_used/discarded, slq_iterations, converged of res. */
int sgp_ski_logdet_slq(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_op *kg, double noise,
                       const double *uz, double rhoz, int64_t probes,
                       const sgp_ski_loglik_opts *o, sgp_ski_loglik_result *res);
/* The probe solves of the SLQ's batched EFCG (the mBCG idea, spec §8.1):
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
 * steps with coefficients alpha (k) and beta (k - 1) (spec §5.5); work is
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
/* Log marginal likelihood (spec §4.5): SLQ log-determinant plus the data fit
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

/* Log marginal likelihood and its gradient in theta (spec §8.1) at the kernel
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
