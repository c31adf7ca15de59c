/* op_dense.c -- matrix-free kernel products K(X1, X2) V and the dense kernel
 * operator (optionally with K cached when it fits a memory budget). */
#include "kernels/kernels.h"
#include "kernels/kernel_cache.h"
#ifdef SGP_HAVE_CUDA
#include "runtime/cuda_backend.h"
#endif

#include <stdlib.h>
#include <string.h>

static int check_inputs(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X1, const char *name1,
                        sgp_cmat X2, const char *name2)
{
  int st;
  if ((st = sgp_check_finite(ctx, name1, X1))) return st;
  if (X2.data != X1.data && (st = sgp_check_finite(ctx, name2, X2))) return st;
  if (X1.cols != X2.cols)
    return sgp_fail(ctx, SGP_EDIM, "%s: has %lld columns; %s has %lld", name2,
                    (long long)X2.cols, name1, (long long)X1.cols);
  return sgp_kernel_check(ctx, k, X1.cols);
}

/* Row blocks of several tiles are shared out to the threads; between blocks the
 * calling thread polls the interrupt hook and reports progress. */
int sgp_kernel_apply_prepared(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *a,
                              const sgp_kprep *b, sgp_cmat V, sgp_mat Y, int tile)
{
  const int64_t n1 = a->n, n2 = b->n, nb = V.cols;
  const int nthreads = sgp_par_threads(ctx, (double)n1 * (double)n2 * (30.0 + 2.0 * (double)nb));
  const int64_t t = tile > 0 ? tile : SGP_DEFAULT_TILE;
  const int64_t ntiles = (n1 + t - 1) / t, per_block = 4 * (int64_t)nthreads;
  if (V.rows != n2 || Y.rows != n1 || Y.cols != nb)
    return sgp_fail(ctx, SGP_EDIM, "v: is %lld x %lld; need %lld rows and Y %lld x %lld",
                    (long long)V.rows, (long long)V.cols, (long long)n2, (long long)n1,
                    (long long)nb);
  if (n1 == 0 || nb == 0) return SGP_OK;
  int st = SGP_OK;
  const int blas_threads = sgp_blas_serial_begin();
  for (int64_t blk = 0; blk < ntiles && !st; blk += per_block) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    sgp_progress(ctx, "kernel product", (double)blk / (double)ntiles);
    const int64_t end = blk + per_block < ntiles ? blk + per_block : ntiles;
    int nomem = 0;
#pragma omp parallel num_threads(nthreads)
    {
      double *kt = sgp_alloc(t * (n2 < t ? n2 : t));
      if (!kt) {
#pragma omp atomic write
        nomem = 1;
      }
#pragma omp for schedule(dynamic, 1)
      for (int64_t it = blk; it < end; it++) {
        if (!kt) continue;
        const int64_t i0 = it * t, ni = i0 + t <= n1 ? t : n1 - i0;
        for (int64_t j0 = 0; j0 < n2; j0 += t) {
          const int64_t nj = j0 + t <= n2 ? t : n2 - j0;
          sgp_kernel_tile(ctx, k, a, i0, ni, b, j0, nj, kt, ni);
          if (j0 == 0)
            for (int64_t c = 0; c < nb; c++)
              memset(Y.data + i0 + c * Y.ld, 0, (size_t)ni * sizeof(double));
          sgp_tile_product_n(ctx, ni, nj, nb, kt, ni, V.data + j0, V.ld, Y.data + i0, Y.ld);
        }
      }
      free(kt);
    }
    if (nomem) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory for kernel tiles");
  }
  sgp_blas_serial_end(blas_threads);
  if (!st) sgp_progress(ctx, "kernel product", 1.0);
  return st;
}

int sgp_kernel_apply(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X1, sgp_cmat X2, sgp_cmat V,
                     sgp_mat Y, int tile)
{
  return sgp_kernel_apply_named(ctx, k, X1, "x", X2, "x2", V, Y, tile);
}

int sgp_kernel_apply_named(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X1, const char *name1,
                           sgp_cmat X2, const char *name2, sgp_cmat V, sgp_mat Y, int tile)
{
  sgp_kprep a = {0}, b = {0};
  double *center = NULL;
  int st = check_inputs(ctx, k, X1, name1, X2, name2);
  if (st) return st;
  if ((st = sgp_check_finite(ctx, "v", V))) return st;
  if ((st = sgp_column_means(ctx, X2, &center))) goto cleanup;
  if ((st = sgp_kprep_init(ctx, k, X1, center, &a, name1))) goto cleanup;
  if ((st = sgp_kprep_init(ctx, k, X2, center, &b, name2))) goto cleanup;
  st = sgp_kernel_apply_prepared(ctx, k, &a, &b, V, Y, tile);
cleanup:
  sgp_kprep_free(&a);
  sgp_kprep_free(&b);
  free(center);
  return st;
}

/* Fills K = k(a, b) tile by tile in parallel. */
static int fill_kernel_matrix(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *a,
                              const sgp_kprep *b, double *K, int64_t ldk)
{
  const int64_t t = SGP_DEFAULT_TILE, nti = (a->n + t - 1) / t, ntj = (b->n + t - 1) / t;
  /* one row of tiles per region */
  const int nthreads = sgp_par_threads(ctx, 30.0 * (double)(a->n < t ? a->n : t) * (double)b->n);
  int st = SGP_OK;
  const int blas_threads = sgp_blas_serial_begin();
  for (int64_t ti = 0; ti < nti; ti++) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    const int64_t i0 = ti * t, ni = i0 + t <= a->n ? t : a->n - i0;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
    for (int64_t tj = 0; tj < ntj; tj++) {
      const int64_t j0 = tj * t, nj = j0 + t <= b->n ? t : b->n - j0;
      sgp_kernel_tile(ctx, k, a, i0, ni, b, j0, nj, K + i0 + j0 * ldk, ldk);
    }
  }
  sgp_blas_serial_end(blas_threads);
  return st;
}

int sgp_kernel_matrix(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X1, sgp_cmat X2, sgp_mat K)
{
  sgp_kprep a = {0}, b = {0};
  double *center = NULL;
  int st = check_inputs(ctx, k, X1, "x", X2, "x2");
  if (st) return st;
  if (K.rows != X1.rows || K.cols != X2.rows)
    return sgp_fail(ctx, SGP_EDIM, "K: is %lld x %lld; need %lld x %lld", (long long)K.rows,
                    (long long)K.cols, (long long)X1.rows, (long long)X2.rows);
  if ((st = sgp_column_means(ctx, X2, &center))) goto cleanup;
  if ((st = sgp_kprep_init(ctx, k, X1, center, &a, "x"))) goto cleanup;
  if ((st = sgp_kprep_init(ctx, k, X2, center, &b, "x2"))) goto cleanup;
  st = fill_kernel_matrix(ctx, k, &a, &b, K.data, K.ld);
cleanup:
  sgp_kprep_free(&a);
  sgp_kprep_free(&b);
  free(center);
  return st;
}

/* ------------------------------------------------------------ the operator */

typedef struct {
  sgp_kernel k;
  sgp_kprep prep;
  double *K;      /* cached kernel matrix (lower triangle, kernel_cache.h) or NULL */
  double shift;
  int tile;
} dense_state;

static int dense_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  const dense_state *s = (const dense_state *)op->state;
  const int64_t n = op->n;
  int st;
  if (V.rows != n || Y.rows != n || Y.cols != V.cols)
    return sgp_fail(ctx, SGP_EDIM, "operator: block is %lld x %lld; need %lld rows",
                    (long long)V.rows, (long long)V.cols, (long long)n);
  if (s->K) {
    if ((st = sgp_poll_interrupt(ctx))) return st;
    st = sgp_kcache_apply(ctx, s->K, n, V, Y, s->tile);
  } else {
    st = sgp_kernel_apply_symmetric(ctx, &s->k, &s->prep, V, Y, s->tile);
  }
  if (st) return st;
  if (s->shift != 0.0)
    for (int64_t j = 0; j < V.cols; j++)
      for (int64_t i = 0; i < n; i++) Y.data[i + j * Y.ld] += s->shift * V.data[i + j * V.ld];
  return SGP_OK;
}

static int dense_diag(const sgp_op *op, sgp_mat d, sgp_ctx *ctx)
{
  const dense_state *s = (const dense_state *)op->state;
  if (d.rows != op->n) return sgp_fail(ctx, SGP_EDIM, "operator diag: wrong length");
  for (int64_t i = 0; i < op->n; i++) d.data[i] = s->k.outputscale + s->shift;
  return SGP_OK;
}

static void dense_destroy(sgp_op *op)
{
  dense_state *s = (dense_state *)op->state;
  if (!s) return;
  sgp_kprep_free(&s->prep);
  free(s->K);
  free(s);
  op->state = NULL;
}

void sgp_dense_op_opts_default(sgp_dense_op_opts *o)
{
  o->shift = 0.0;
  o->tile = SGP_DEFAULT_TILE;
  o->cache_bytes = 0;
}

int sgp_op_dense_kernel(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X,
                        const sgp_dense_op_opts *o, sgp_op *op, int *cached)
{
  double *center = NULL;
  dense_state *s = NULL;
  int st = check_inputs(ctx, k, X, "x", X, "x");
  memset(op, 0, sizeof *op);
  if (cached) *cached = 0;
  if (st) return st;
  if (o->tile < 0) return sgp_fail(ctx, SGP_EINVAL, "tile: must be positive (got %d)", o->tile);
  s = (dense_state *)calloc(1, sizeof *s);
  if (!s) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  s->k = *k;
  s->shift = o->shift;
  s->tile = o->tile;
  if ((st = sgp_column_means(ctx, X, &center))) goto cleanup;
  if ((st = sgp_kprep_init(ctx, k, X, center, &s->prep, "x"))) goto cleanup;
  int use_cuda = 0;
  if ((st = sgp_backend_use_cuda(ctx, &use_cuda))) goto cleanup;
  (void)use_cuda;
#ifdef SGP_HAVE_CUDA
  if (use_cuda) { /* the GPU recomputes tiles faster than a cached K is read */
    st = sgp_cuda_op_dense_kernel(ctx, k, &s->prep, o->shift, op);
    goto cleanup;
  }
#endif
  const double need = 8.0 * (double)X.rows * (double)X.rows;
  if (need <= (double)o->cache_bytes) {
    s->K = sgp_kcache_alloc(X.rows);
    if (s->K) { /* no memory for the cache is not an error: stay matrix-free */
      if ((st = sgp_kcache_fill(ctx, k, &s->prep, s->K))) goto cleanup;
      sgp_kprep_free(&s->prep); /* the products read only K (peak memory) */
      if (cached) *cached = 1;
    }
  }
  op->n = X.rows;
  op->state = s;
  op->apply = dense_apply;
  op->diag = dense_diag;
  op->destroy = dense_destroy;
  s = NULL;
cleanup:
  if (s) {
    sgp_kprep_free(&s->prep);
    free(s->K);
    free(s);
  }
  free(center);
  return st;
}

void sgp_op_destroy(sgp_op *op)
{
  if (op && op->destroy && op->state) op->destroy(op);
  if (op) op->state = NULL;
}

/* ------------------------------------------------------------ explicit matrix */

static int matrix_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  const sgp_cmat *A = (const sgp_cmat *)op->state;
  if (V.rows != op->n || Y.rows != op->n || Y.cols != V.cols)
    return sgp_fail(ctx, SGP_EDIM, "operator: block has %lld rows; need %lld",
                    (long long)V.rows, (long long)op->n);
  return sgp_gemm(ctx, 'N', 'N', op->n, V.cols, op->n, 1.0, A->data, A->ld, V.data, V.ld, 0.0,
                  Y.data, Y.ld);
}

static int matrix_diag(const sgp_op *op, sgp_mat d, sgp_ctx *ctx)
{
  const sgp_cmat *A = (const sgp_cmat *)op->state;
  if (d.rows != op->n) return sgp_fail(ctx, SGP_EDIM, "operator diag: wrong length");
  for (int64_t i = 0; i < op->n; i++) d.data[i] = A->data[i + i * A->ld];
  return SGP_OK;
}

static void matrix_destroy(sgp_op *op)
{
  free(op->state);
  op->state = NULL;
}

int sgp_op_matrix(sgp_ctx *ctx, sgp_cmat A, sgp_op *op)
{
  memset(op, 0, sizeof *op);
  if (A.rows != A.cols)
    return sgp_fail(ctx, SGP_EDIM, "A: must be square (is %lld x %lld)", (long long)A.rows,
                    (long long)A.cols);
  sgp_cmat *copy = (sgp_cmat *)malloc(sizeof *copy);
  if (!copy) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  *copy = A;
  op->n = A.rows;
  op->state = copy;
  op->apply = matrix_apply;
  op->diag = matrix_diag;
  op->destroy = matrix_destroy;
  return SGP_OK;
}
