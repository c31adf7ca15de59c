/* ski_fft_state.h -- the state of the grid operator K_G shared by its two
 * files: ski_fft.c (the operator, the circulant path, plans and work space)
 * and ski_fft_kron.c (the Kronecker path); core-internal. */
#ifndef SGP_SKI_FFT_STATE_H
#define SGP_SKI_FFT_STATE_H

#include "ski/ski_fft_plan.h"

enum { MODE_SKIP = 0, MODE_DENSE = 1, MODE_FFT = 2 };

typedef struct {
  int mode;
  int64_t m;          /* points in this dimension */
  int64_t L, Lc;      /* FFT: embedding length and L/2 + 1 */
  int64_t nb;         /* FFT: fibres per batch (the plans' howmany) */
  double *T;          /* DENSE: m-by-m Toeplitz factor */
  double *lambda;     /* FFT: Lc eigenvalues divided by L */
  fftw_plan fwd, bwd;
  int measured;       /* FFT: the plans are FFTW_MEASURE ones */
} kron_dim;

/* Per-thread FFT buffers (allocated serially, outside parallel regions). */
typedef struct {
  int count;
  double **re;
  fftw_complex **cx;
} fft_buffers;

/* The work space of one product: per-thread FFT buffers and the Kronecker
 * path's ping-pong arrays A, B (mtot x columns). */
typedef struct {
  fft_buffers fft;
  double *A, *B;
  int cached;         /* the operator's own (give it back, do not free it) */
} kg_work;

typedef struct {
  sgp_ski_kg_path path;
  int d;
  int64_t m[SGP_SKI_MAX_D], mtot;
  double outputscale;
  double scale;       /* factor applied on copy-out (outputscale when no factor holds it) */
  int nthreads;       /* at creation: sizes the Kronecker fibre batches */
  /* circulant */
  int64_t L[SGP_SKI_MAX_D], Ltot, Lctot;
  double *lambda;     /* Lctot eigenvalues divided by Ltot */
  fftw_plan fwd, bwd;
  int measured;
  /* Kronecker */
  kron_dim dim[SGP_SKI_MAX_D];
  /* work space: FFT buffers per thread of nre + ncx (complex) values; a
   * single-column product (one per solver iteration) takes the operator's own
   * when it is free (busy, an atomic flag), so that products do not allocate
   * (fresh pages per product cost 60 of 105 us at m = 8000, 1-D) */
  int64_t work_nre, work_ncx;
  kg_work cache;
  int busy;
} kg_state;

/* Embedding length L >= 2 m - 1 of one dimension by the size rule. */
int64_t sgp_ski_fft_embed_length(sgp_ski_fft_size rule, int64_t m);
/* The operator's first plans (see ski_fft.c). */
int sgp_ski_fft_first_plans(sgp_ctx *ctx, int rank, const int64_t *L, int64_t howmany,
                            sgp_ski_fft_planner planner, fftw_plan *fwd, fftw_plan *bwd,
                            int *measured);
/* Re(r2c(c)) / scale into lambda (length Lc). */
int sgp_ski_fft_eigenvalues(sgp_ctx *ctx, int rank, const int64_t *L, double *c, int64_t Lc,
                            double scale, double *lambda);
/* ski_fft_kron.c: the Kronecker path's factors (mask: 0 or one dimension
 * differentiated) and its product. */
int sgp_ski_fft_setup_kronecker(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                                const sgp_ski_kg_opts *o, unsigned mask, kg_state *s);
int sgp_ski_fft_apply_kronecker(const kg_state *s, const kg_work *w, sgp_cmat V, sgp_mat Y,
                                int nthreads, sgp_ctx *ctx);

#endif
