/* kernel_cache.c -- the dense operator's cached K as its lower triangle: fill and
 * symmetric product (see kernel_cache.h for why). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "kernels/kernel_cache.h"

#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

double *sgp_kcache_alloc(int64_t n)
{
  if (n < 1 || (uint64_t)n > SIZE_MAX / sizeof(double) / (uint64_t)n) return NULL;
  const size_t bytes = (size_t)n * (size_t)n * sizeof(double);
  double *K = (double *)malloc(bytes);
#if defined(__linux__) && defined(MADV_NOHUGEPAGE)
  /* advice only, on the whole pages inside the block */
  const long page = sysconf(_SC_PAGESIZE);
  if (K && page > 0) {
    const uintptr_t a = ((uintptr_t)K + (uintptr_t)page - 1) / (uintptr_t)page * (uintptr_t)page,
                    e = ((uintptr_t)K + bytes) / (uintptr_t)page * (uintptr_t)page;
    if (e > a) (void)madvise((void *)a, e - a, MADV_NOHUGEPAGE);
  }
#endif
  return K;
}

/* Tile pair number q (row-major over the lower triangle of tiles) -> (ti, tj). */
static void tile_pair(int64_t q, int64_t *ti, int64_t *tj)
{
  int64_t i = 0;
  while ((i + 1) * (i + 2) / 2 <= q) i++;
  *ti = i;
  *tj = q - i * (i + 1) / 2;
}

int sgp_kcache_fill(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *p, double *K)
{
  const int64_t n = p->n, t = SGP_DEFAULT_TILE, nt = (n + t - 1) / t;
  const int64_t pairs = nt * (nt + 1) / 2;
  const int nthreads = sgp_par_threads(ctx, 15.0 * (double)n * (double)n);
  const int64_t per_block = 2 * (int64_t)nthreads; /* tiles between interrupt polls */
  int st = SGP_OK;
  const int blas_threads = sgp_blas_serial_begin();
  for (int64_t q0 = 0; q0 < pairs && !st; q0 += per_block) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    const int64_t q1 = q0 + per_block < pairs ? q0 + per_block : pairs;
    int nomem = 0;
#pragma omp parallel num_threads(nthreads)
    {
      double *diag = NULL; /* scratch for the diagonal tiles: their upper half stays out of K */
#pragma omp for schedule(dynamic, 1)
      for (int64_t q = q0; q < q1; q++) {
        int64_t ti, tj;
        tile_pair(q, &ti, &tj);
        const int64_t i0 = ti * t, ni = i0 + t <= n ? t : n - i0, j0 = tj * t;
        if (ti != tj) {
          sgp_kernel_tile(ctx, k, p, i0, ni, p, j0, t, K + i0 + j0 * n, n);
          continue;
        }
        if (!diag && !(diag = sgp_alloc(t * t))) {
#pragma omp atomic write
          nomem = 1;
          continue;
        }
        sgp_kernel_tile(ctx, k, p, i0, ni, p, i0, ni, diag, ni);
        for (int64_t j = 0; j < ni; j++)
          memcpy(K + (i0 + j) + (i0 + j) * n, diag + j + j * ni, (size_t)(ni - j) * sizeof(double));
      }
      free(diag);
    }
    if (nomem) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory for kernel tiles");
  }
  sgp_blas_serial_end(blas_threads);
  return st;
}

/* y += A v for the lower triangle of an nj-by-nj diagonal block A (ld lda): each
 * stored entry serves both of its places. */
static void diag_block(const double *A, int64_t lda, int64_t nj, const double *v, int64_t ldv,
                       int64_t m, double *y, int64_t ldy)
{
  for (int64_t c = 0; c < m; c++) {
    const double *vc = v + c * ldv;
    double *yc = y + c * ldy;
    for (int64_t j = 0; j < nj; j++) {
      const double *a = A + j * lda;
      const double vj = vc[j];
      double s = a[j] * vj;
      for (int64_t i = j + 1; i < nj; i++) {
        yc[i] += a[i] * vj;
        s += a[i] * vc[i];
      }
      yc[j] += s;
    }
  }
}

int sgp_kcache_apply(sgp_ctx *ctx, const double *K, int64_t n, sgp_cmat V, sgp_mat Y,
                     int tile)
{
  return sgp_kcache_apply_chunked(ctx, K, n, V, Y, tile, SGP_KCACHE_ACC_DOUBLES);
}

int sgp_kcache_apply_chunked(sgp_ctx *ctx, const double *K, int64_t n, sgp_cmat V, sgp_mat Y,
                             int tile, int64_t acc_doubles)
{
  const int64_t t = tile > 0 ? tile : SGP_DEFAULT_TILE, nt = (n + t - 1) / t;
  const int64_t nb = V.cols;
  int nacc = sgp_par_threads(ctx, 2.0 * (double)n * (double)n * (double)nb);
  if (nacc > nt) nacc = (int)nt;
  if (nacc < 1) nacc = 1;
  if (n == 0 || nb == 0) return SGP_OK;
  int64_t chunk = nb; /* columns per pass, so that the private accumulators fit */
  if (nacc > 1) {
    const int64_t fit = acc_doubles / ((int64_t)(nacc - 1) * n);
    if (chunk > fit) chunk = fit > 1 ? fit : 1;
  }
  /* and a pass does about SGP_KCACHE_PASS_FLOPS at most (2 n^2 a column; at least
   * SGP_KCACHE_PASS_MIN columns, which keep it compute-bound): the interrupt is
   * polled between passes */
  const double per_column = 2.0 * (double)n * (double)n;
  int64_t by_work = (int64_t)(SGP_KCACHE_PASS_FLOPS / per_column);
  if (by_work < SGP_KCACHE_PASS_MIN) by_work = SGP_KCACHE_PASS_MIN;
  if (chunk > by_work) chunk = by_work;
  double *acc = NULL;
  if (nacc > 1 && !(acc = sgp_alloc((int64_t)(nacc - 1) * n * chunk)))
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory for the kernel product");
  const int blas_threads = sgp_blas_serial_begin();
  int st = SGP_OK;
  for (int64_t c0 = 0; c0 < nb && !(st = sgp_poll_interrupt(ctx)); c0 += chunk) {
    const int64_t m = c0 + chunk <= nb ? chunk : nb - c0;
    const double *v = V.data + c0 * V.ld;
    double *y = Y.data + c0 * Y.ld;
#pragma omp parallel num_threads(nacc)
    {
      const int id = sgp_thread_num(), team = sgp_team_size();
      double *a = id == 0 ? y : acc + (int64_t)(id - 1) * n * m;
      const int64_t lda = id == 0 ? Y.ld : n;
      for (int64_t c = 0; c < m; c++) memset(a + c * lda, 0, (size_t)n * sizeof(double));
      /* static cyclic schedule: which thread sums what, and so the rounding, is
       * fixed for a thread count */
#pragma omp for schedule(static, 1)
      for (int64_t tj = 0; tj < nt; tj++) {
        const int64_t j0 = tj * t, nj = j0 + t <= n ? t : n - j0;
        diag_block(K + j0 + j0 * n, n, nj, v + j0, V.ld, m, a + j0, lda);
        /* below the diagonal: one tile feeds both Y[i] (N) and Y[j] (T) while cached */
        for (int64_t i0 = j0 + nj; i0 < n; i0 += t) {
          const int64_t ni = i0 + t <= n ? t : n - i0;
          const double *B = K + i0 + j0 * n;
          sgp_tile_product_n(ctx, ni, nj, m, B, n, v + j0, V.ld, a + i0, lda);
          sgp_tile_product_t(ctx, ni, nj, m, B, n, v + i0, V.ld, a + j0, lda);
        }
      }
      /* y += the other threads' sums, in thread order */
#pragma omp for schedule(static)
      for (int64_t i = 0; i < n; i++)
        for (int64_t c = 0; c < m; c++)
          for (int k = 1; k < team; k++) y[i + c * Y.ld] += acc[(int64_t)(k - 1) * n * m + i + c * n];
    }
  }
  sgp_blas_serial_end(blas_threads);
  free(acc);
  return st;
}
