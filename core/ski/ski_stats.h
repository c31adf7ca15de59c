/* ski_stats.h -- ski_gsgp internals: the sufficient statistics (the stencil
 * of B = W'W, W'y, moments), their operator and the passes over data that
 * build them (core-internal). */
#ifndef SGP_SKI_STATS_H
#define SGP_SKI_STATS_H

#include "ski/ski_grid.h"

/* ------------------------------------------------------------ ski_stats.c */

/* Sufficient statistics of the streaming pass: B = W'W in
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
/* sgp_ski_stats_accumulate into L, the caller's grid-major copy of the
 * canonical half of the stencil ((S + 1) / 2 * m doubles, zero at first; T <=
 * 4096), kept across calls: a call then costs what its rows cost (no S m
 * copies and mirror per call). D is not touched until
 * sgp_ski_stats_half_finish makes it from L (L stays valid: later calls go on
 * from it). The same bits as sgp_ski_stats_accumulate. */
int sgp_ski_stats_accumulate_half(sgp_ctx *ctx, sgp_ski_stats *st, double *L, sgp_cmat X,
                                  sgp_cmat y, int64_t first_row, sgp_ski_bounds_policy policy);
void sgp_ski_stats_half_finish(sgp_ctx *ctx, sgp_ski_stats *st, double *L);

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

/* Storage of B used by the operator. */
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
/* Points accumulated since the last flush (those dropped not counted). */
int64_t sgp_ski_moments_points(const sgp_ski_moments *mo);
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

/* Classic SKI operator: v -> W K_G W' v + noise v on
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

#endif
