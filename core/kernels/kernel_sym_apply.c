/* kernel_sym_apply.c -- Y = K V for K = k(X, X) evaluated on the fly from the
 * tiles on and below the diagonal only: an off-diagonal tile K_ij serves both
 * of its places (K_ij V_j into Y_i, K_ij' V_i into Y_j) while it is in cache,
 * so a product evaluates half the kernel entries of the general path.
 * The tile columns are dealt to SGP_KSYM_LANES lanes (column tj to lane
 * tj mod lanes); a lane sums its columns in increasing order into its own copy
 * of Y (lane 0 into Y itself), and the copies are added in lane order at the
 * end. Threads only choose which lane they run, so the result is the same
 * bitwise for every thread count (like the general path). */
#include "kernels/kernels.h"

#include <stdlib.h>
#include <string.h>

int sgp_kernel_apply_symmetric(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *a,
                               sgp_cmat V, sgp_mat Y, int tile)
{
  const int64_t n = a->n, nb = V.cols;
  if (V.rows != n || Y.rows != n || Y.cols != nb)
    return sgp_fail(ctx, SGP_EDIM, "v: is %lld x %lld; need %lld rows and Y %lld x %lld",
                    (long long)V.rows, (long long)V.cols, (long long)n, (long long)n,
                    (long long)nb);
  if (n == 0 || nb == 0) return SGP_OK;
  const int64_t t = tile > 0 ? tile : SGP_DEFAULT_TILE, nt = (n + t - 1) / t;
  const int64_t lanes = nt < SGP_KSYM_LANES ? nt : SGP_KSYM_LANES;
  double *acc = NULL;
  if (lanes > 1) {
    /* the lanes' copies of Y must fit; otherwise the general product */
    if ((lanes - 1) * n * nb > SGP_KSYM_ACC_DOUBLES ||
        !(acc = sgp_calloc((lanes - 1) * n * nb)))
      return sgp_kernel_apply_prepared(ctx, k, a, a, V, Y, tile);
  }
  for (int64_t c = 0; c < nb; c++) memset(Y.data + c * Y.ld, 0, (size_t)n * sizeof(double));
  int nthreads = sgp_par_threads(ctx, (double)n * (double)n * (15.0 + 2.0 * (double)nb));
  if (nthreads > lanes) nthreads = (int)lanes;
  const int64_t per_block = lanes, pairs = nt * (nt + 1) / 2; /* columns between polls */
  int64_t done = 0; /* tile pairs before the current block (progress) */
  int st = SGP_OK;
  const int blas_threads = sgp_blas_serial_begin();
  for (int64_t tj0 = 0; tj0 < nt && !st; tj0 += per_block) {
    if ((st = sgp_poll_interrupt(ctx))) break;
    sgp_progress(ctx, "kernel product", (double)done / (double)pairs);
    const int64_t tj1 = tj0 + per_block < nt ? tj0 + per_block : nt;
    for (int64_t tj = tj0; tj < tj1; tj++) done += nt - tj;
    int nomem = 0;
#pragma omp parallel num_threads(nthreads)
    {
      double *kt = sgp_alloc(t * t);
      if (!kt) {
#pragma omp atomic write
        nomem = 1;
      }
#pragma omp for schedule(dynamic, 1)
      for (int64_t lane = 0; lane < lanes; lane++) {
        if (!kt) continue;
        double *y = lane == 0 ? Y.data : acc + (lane - 1) * n * nb;
        const int64_t ldy = lane == 0 ? Y.ld : n;
        /* tj0 is a multiple of lanes, so column tj belongs to lane tj mod lanes */
        for (int64_t tj = tj0 + lane; tj < tj1; tj += lanes) {
          const int64_t j0 = tj * t, nj = j0 + t <= n ? t : n - j0;
          for (int64_t i0 = j0; i0 < n; i0 += t) {
            const int64_t ni = i0 + t <= n ? t : n - i0;
            sgp_kernel_tile(ctx, k, a, i0, ni, a, j0, nj, kt, ni);
            sgp_tile_product_n(ctx, ni, nj, nb, kt, ni, V.data + j0, V.ld, y + i0, ldy);
            if (i0 != j0)
              sgp_tile_product_t(ctx, ni, nj, nb, kt, ni, V.data + i0, V.ld, y + j0, ldy);
          }
        }
      }
      free(kt);
    }
    if (nomem) st = sgp_fail(ctx, SGP_ENOMEM, "out of memory for kernel tiles");
  }
  if (!st && acc) {
    /* Y += the other lanes' sums, in lane order */
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int64_t i = 0; i < n; i++)
      for (int64_t c = 0; c < nb; c++)
        for (int64_t l = 1; l < lanes; l++)
          Y.data[i + c * Y.ld] += acc[(l - 1) * n * nb + i + c * n];
  }
  sgp_blas_serial_end(blas_threads);
  free(acc);
  if (!st) sgp_progress(ctx, "kernel product", 1.0);
  return st;
}
