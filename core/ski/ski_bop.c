/* ski_bop.c -- the operator v -> B v (B = W'W) of the statistics,
 * in one of two forms chosen when the operator is built:
 *  - STENCIL: the S-by-m stencil D as stored (branch-free, streams S m doubles);
 *  - CSR: only the grid rows that carry data (B[g, g] != 0; a zero diagonal
 *    means a zero row since B[g, g] = sum_i w_i(g)^2) and, within them, only the
 *    non-zero stencil entries, so a product costs O(nnz) instead of O(S m).
 *    Chosen by AUTO when nnz(B) <= S m / 3, typically m >~ n or
 *    data covering only part of the grid.
 * Both add the terms of a row in increasing stencil order starting from 0, and
 * CSR drops only exact zeros, so the two give the same numbers (up to the sign
 * of zero). Neither copies D's values for STENCIL; CSR copies the non-zeros. */
#include "ski/ski.h"
#include "kernels/target_clones.h"
#ifdef SGP_HAVE_CUDA
#include "runtime/cuda_backend.h"
#endif

#include <stdlib.h>
#include <string.h>

typedef struct {
  const sgp_ski_stats *st;  /* not owned */
  sgp_ski_b_format format;  /* STENCIL or CSR */
  /* CSR over the covered rows: row k is grid point rows[k], its entries
   * rowptr[k] .. rowptr[k + 1] - 1 have stencil index sidx[] and value val[] */
  int64_t nrows, nnz;
  int64_t *rows, *rowptr;
  int32_t *sidx;
  double *val;
} bop_state;

static void bop_free(bop_state *b)
{
  if (!b) return;
  free(b->rows);
  free(b->rowptr);
  free(b->sidx);
  free(b->val);
  free(b);
}

#define FIBRE_BLOCK_CELLS 2048
#define STENCIL_COLUMNS 16

/* Fibres r0..r1-1 of Y = B V. The offsets go in groups of the P along
 * dimension 1 (o_1 = -R..R, numbered consecutively): they share the fibre and
 * the test of the other dimensions, and a column's fibre of y stays in L1
 * across the group. Each entry still sums the offsets in the order s = 0, 1,
 * ...; the clones (target_clones.h, which also pins the contraction) run the
 * innermost loop in AVX2/AVX-512 registers. */
SGP_TARGET_CLONES static void stencil_fibres(const sgp_ski_stats *st, const double *v,
                                             int64_t ldv, double *y, int64_t ldy, int64_t nc,
                                             int64_t r0, int64_t r1)
{
  const int d = st->grid.d;
  const int64_t m = st->m, m1 = st->grid.m[0], S = st->S, P = 2 * st->R + 1;
  for (int64_t c = 0; c < nc; c++)
    memset(y + c * ldy + r0 * m1, 0, (size_t)((r1 - r0) * m1) * sizeof(double));
  for (int64_t s0 = 0; s0 < S; s0 += P) {
    const int *o = st->off + s0 * d;
    for (int64_t row = r0; row < r1; row++) {
      if (!sgp_ski_fibre_inside(st, row, o)) continue;
      const int64_t g0 = row * m1;
      for (int64_t c = 0; c < nc; c++) {
        double *yr = y + c * ldy + g0;
        for (int64_t s = s0; s < s0 + P; s++) {
          const int o1 = st->off[s * d];
          const int64_t lo = o1 < 0 ? -o1 : 0, hi = o1 > 0 ? m1 - o1 : m1;
          const double *Ds = st->D + s * m + g0, *vs = v + c * ldv + g0 + st->delta[s];
#pragma omp simd
          for (int64_t i = lo; i < hi; i++) yr[i] += Ds[i] * vs[i];
        }
      }
    }
  }
}

/* Y = B V from the stencil for nc columns (ld m each); parallel over blocks of
 * grid fibres (fixed i_2..i_d). A block of FIBRE_BLOCK fibres is swept once per
 * offset, so D is read in long runs: its S rows lie m doubles apart (a power
 * of two on common grids), and one fibre at a time would touch S pages per few
 * hundred bytes. The columns are swept inside the offset loop, so a run of D
 * is read once for all of them (D is S m doubles, far more than the columns:
 * one column at a time made a block product of the SLQ probes memory-bound);
 * every entry still sums its offsets in the same order, so each column is
 * bitwise what a one-column product gives. */
static void stencil_apply(const sgp_ski_stats *st, const double *v, int64_t ldv, double *y,
                          int64_t ldy, int64_t nc, int nthreads)
{
  const int64_t m1 = st->grid.m[0], fibres = st->m / m1;
  const int64_t fb = m1 >= FIBRE_BLOCK_CELLS ? 1 : FIBRE_BLOCK_CELLS / m1;
  const int64_t nblocks = (fibres + fb - 1) / fb;
  (void)nthreads;
#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (int64_t blk = 0; blk < nblocks; blk++) {
    const int64_t r0 = blk * fb, r1 = r0 + fb < fibres ? r0 + fb : fibres;
    stencil_fibres(st, v, ldv, y, ldy, nc, r0, r1);
  }
}

/* y = B v from the CSR rows; rows without data get 0. */
static void csr_apply(const bop_state *b, const double *v, double *y, int nthreads)
{
  const int64_t *delta = b->st->delta;
  memset(y, 0, (size_t)b->st->m * sizeof(double));
  (void)nthreads;
#pragma omp parallel for num_threads(nthreads) schedule(static)
  for (int64_t k = 0; k < b->nrows; k++) {
    const int64_t g = b->rows[k];
    const double *vg = v + g;
    double acc = 0.0;
    for (int64_t e = b->rowptr[k]; e < b->rowptr[k + 1]; e++)
      acc += b->val[e] * vg[delta[b->sidx[e]]];
    y[g] = acc;
  }
}

static int bop_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  const bop_state *b = (const bop_state *)op->state;
  const sgp_ski_stats *st = b->st;
  if (V.rows != st->m || Y.rows != st->m || Y.cols != V.cols)
    return sgp_fail(ctx, SGP_EDIM, "B: blocks are %lld x %lld and %lld x %lld; order %lld",
                    (long long)V.rows, (long long)V.cols, (long long)Y.rows,
                    (long long)Y.cols, (long long)st->m);
  const int64_t work = b->format == SGP_SKI_B_CSR ? b->nnz : st->m * st->S;
  if (b->format != SGP_SKI_B_CSR) {
    const int64_t nc = V.cols < STENCIL_COLUMNS ? V.cols : STENCIL_COLUMNS;
    const int nthreads = sgp_par_threads(ctx, 2.0 * (double)(work * nc));
    /* columns in blocks that keep a run of D in cache with them */
    for (int64_t j = 0; j < V.cols; j += STENCIL_COLUMNS)
      stencil_apply(st, V.data + j * V.ld, V.ld, Y.data + j * Y.ld, Y.ld,
                    V.cols - j < STENCIL_COLUMNS ? V.cols - j : STENCIL_COLUMNS, nthreads);
    return SGP_OK;
  }
  const int nthreads = sgp_par_threads(ctx, 2.0 * (double)work);
  for (int64_t j = 0; j < V.cols; j++)
    csr_apply(b, V.data + j * V.ld, Y.data + j * Y.ld, nthreads);
  return SGP_OK;
}

static int bop_diag(const sgp_op *op, sgp_mat dg, sgp_ctx *ctx)
{
  const sgp_ski_stats *st = ((const bop_state *)op->state)->st;
  if (dg.rows != st->m) return sgp_fail(ctx, SGP_EDIM, "B: diagonal needs %lld rows",
                                        (long long)st->m);
  int o[SGP_SKI_MAX_D] = {0};
  const int64_t c0 = sgp_ski_stats_offset_index(st, o);
  memcpy(dg.data, st->D + c0 * st->m, (size_t)st->m * sizeof(double));
  return SGP_OK;
}

static void bop_destroy(sgp_op *op)
{
  bop_free((bop_state *)op->state); /* the statistics belong to the caller */
  op->state = NULL;
}

/* CSR of the rows with a non-zero diagonal; *nnz_out receives nnz(B). With
 * build = 0 only counts (rows and nnz); cost O(m + S covered). */
static int csr_build(bop_state *b, int build, int64_t *nnz_out)
{
  const sgp_ski_stats *st = b->st;
  const int64_t m = st->m, S = st->S;
  int o[SGP_SKI_MAX_D] = {0};
  const double *diag = st->D + sgp_ski_stats_offset_index(st, o) * m;
  int64_t nrows = 0, nnz = 0;
  for (int64_t g = 0; g < m; g++)
    if (diag[g] != 0.0) {
      nrows++;
      for (int64_t s = 0; s < S; s++) nnz += st->D[s * m + g] != 0.0;
    }
  *nnz_out = nnz;
  if (!build) return SGP_OK;
  b->rows = (int64_t *)malloc((size_t)(nrows > 0 ? nrows : 1) * sizeof(int64_t));
  b->rowptr = (int64_t *)malloc((size_t)(nrows + 1) * sizeof(int64_t));
  b->sidx = (int32_t *)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int32_t));
  b->val = sgp_alloc(nnz > 0 ? nnz : 1);
  if (!b->rows || !b->rowptr || !b->sidx || !b->val) return SGP_ENOMEM;
  int64_t k = 0, e = 0;
  b->rowptr[0] = 0;
  for (int64_t g = 0; g < m; g++) {
    if (diag[g] == 0.0) continue;
    for (int64_t s = 0; s < S; s++) {
      const double v = st->D[s * m + g];
      if (v != 0.0) { b->sidx[e] = (int32_t)s; b->val[e] = v; e++; }
    }
    b->rows[k++] = g;
    b->rowptr[k] = e;
  }
  b->nrows = nrows;
  b->nnz = nnz;
  return SGP_OK;
}

int sgp_ski_stats_op_format(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_ski_b_format format,
                            sgp_op *op)
{
  if (!op) return sgp_fail(ctx, SGP_EINVAL, "op: missing");
  memset(op, 0, sizeof *op);
  if (!st) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  if (format != SGP_SKI_B_AUTO && format != SGP_SKI_B_STENCIL && format != SGP_SKI_B_CSR)
    return sgp_fail(ctx, SGP_EINVAL, "b_format: unknown code %d (auto, stencil or csr)",
                    (int)format);
#ifdef SGP_HAVE_CUDA
  int use_cuda = 0;
  {
    const int code = sgp_backend_use_cuda(ctx, &use_cuda);
    if (code) return code;
  }
  if (use_cuda && format != SGP_SKI_B_CSR) return sgp_cuda_op_ski_stencil(ctx, st, op);
#endif
  if (format == SGP_SKI_B_CSR && st->S > INT32_MAX)
    return sgp_fail(ctx, SGP_EUNSUPPORTED, "b_format: csr needs fewer than 2^31 offsets");
  bop_state *b = (bop_state *)calloc(1, sizeof *b);
  if (!b) return sgp_fail(ctx, SGP_ENOMEM, "B: out of memory");
  b->st = st;
  b->format = format == SGP_SKI_B_CSR ? SGP_SKI_B_CSR : SGP_SKI_B_STENCIL;
  if (format == SGP_SKI_B_AUTO && st->S <= INT32_MAX) {
    int64_t nnz;
    csr_build(b, 0, &nnz);
    if (3 * nnz <= st->S * st->m) b->format = SGP_SKI_B_CSR;
  }
  if (b->format == SGP_SKI_B_CSR) {
    int64_t nnz;
    if (csr_build(b, 1, &nnz)) {
      bop_free(b);
      return sgp_fail(ctx, SGP_ENOMEM, "B: out of memory for the CSR form (%lld non-zeros)",
                      (long long)nnz);
    }
  }
  op->n = st->m;
  op->state = b;
  op->apply = bop_apply;
  op->diag = bop_diag;
  op->destroy = bop_destroy;
  return SGP_OK;
}

int sgp_ski_stats_op(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_op *op)
{
  return sgp_ski_stats_op_format(ctx, st, SGP_SKI_B_AUTO, op);
}

sgp_ski_b_format sgp_ski_stats_op_kind(const sgp_op *op, int64_t *nnz)
{
  if (!op || op->destroy != bop_destroy || !op->state) return SGP_SKI_B_AUTO;
  const bop_state *b = (const bop_state *)op->state;
  if (nnz) *nnz = b->format == SGP_SKI_B_CSR ? b->nnz : b->st->S * b->st->m;
  return b->format;
}
