/* ski_kron_rect.c -- products with a Kronecker product of rectangular factors,
 * Y = op(F_d) x ... x op(F_1) X, F_j of rows_j x ranks_j: the truncated
 * eigenbasis Q_r Lambda_r^{1/2} of a separable grid kernel whose factor
 * eigenvalues below the floor are dropped (ski_laplace's eigen path). The
 * dimensions are applied in the order of fewest flops (the tensor shrinks or
 * grows with each one), each as BLAS-3 products over fixed slices, so that the
 * bits do not depend on the thread count. */
#include "ski/ski.h"

#include <string.h>

/* rows (or columns along the first dimension) per dense product */
#define SLICE 256

/* Mode j of the tensor of sizes n (cols columns): A (S x in x R) to B (S x out x R). */
static void mode_rect(sgp_ctx *ctx, int nt, const double *F, int64_t ld, char trans, int64_t in,
                      int64_t out, int64_t S, int64_t R, const double *A, double *B)
{
  (void)nt;
  if (S == 1) {  /* B (out x R) = op(F) A (in x R), in column slices */
    const int64_t slices = (R + SLICE - 1) / SLICE;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t c = 0; c < slices; c++) {
      const int64_t c0 = c * SLICE, nc = R - c0 < SLICE ? R - c0 : SLICE;
      (void)sgp_gemm(ctx, trans, 'N', out, nc, in, 1.0, F, ld, A + c0 * in, in, 0.0,
                     B + c0 * out, out);
    }
    return;
  }
  /* per slab B_s (S x out) = A_s (S x in) op(F)', in row slices of each slab */
  const int64_t rs = (S + SLICE - 1) / SLICE, tasks = R * rs;
  const char tb = trans == 'N' ? 'T' : 'N';
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t k = 0; k < tasks; k++) {
    const int64_t s = k / rs, r0 = (k % rs) * SLICE, nr = S - r0 < SLICE ? S - r0 : SLICE;
    (void)sgp_gemm(ctx, 'N', tb, nr, out, in, 1.0, A + s * S * in + r0, S, F, ld, 0.0,
                   B + s * S * out + r0, S);
  }
}

/* flops of applying the dimensions in order perm (sizes in -> out) */
static double order_cost(int d, const int *perm, const int64_t *in, const int64_t *out)
{
  double n[SGP_SKI_MAX_D], total = 1.0, cost = 0.0;
  for (int j = 0; j < d; j++) { n[j] = (double)in[j]; total *= n[j]; }
  for (int k = 0; k < d; k++) {
    const int j = perm[k];
    cost += total * (double)out[j];
    total = total / n[j] * (double)out[j];
    n[j] = (double)out[j];
  }
  return cost;
}

/* The cheapest order over all permutations (d <= 4), else the natural one. */
static void best_order(int d, const int64_t *in, const int64_t *out, int *best)
{
  for (int j = 0; j < d; j++) best[j] = j;
  if (d > 4) return;
  int perm[4] = {0, 1, 2, 3}, c[4] = {0};
  double low = order_cost(d, best, in, out);
  for (int i = 1; i < d;) {  /* Heap's algorithm */
    if (c[i] < i) {
      const int a = i % 2 ? c[i] : 0, t = perm[a];
      perm[a] = perm[i]; perm[i] = t;
      const double v = order_cost(d, perm, in, out);
      if (v < low) { low = v; memcpy(best, perm, (size_t)d * sizeof(int)); }
      c[i]++;
      i = 1;
    } else {
      c[i++] = 0;
    }
  }
}

int sgp_ski_kron_rect_apply(sgp_ctx *ctx, int d, const int64_t *rows, const int64_t *ranks,
                            const double *const *F, char trans, int64_t cols, const double *X,
                            double *Y, double *work)
{
  int64_t in[SGP_SKI_MAX_D], out[SGP_SKI_MAX_D], n[SGP_SKI_MAX_D], total = cols;
  int order[SGP_SKI_MAX_D], left = 0;
  for (int j = 0; j < d; j++) {
    in[j] = trans == 'N' ? ranks[j] : rows[j];
    out[j] = trans == 'N' ? rows[j] : ranks[j];
    n[j] = in[j];
    total *= in[j];
    left += F[j] != NULL;
  }
  if (left == 0) {
    if (X != Y) memcpy(Y, X, (size_t)total * sizeof(double));
    return SGP_OK;
  }
  best_order(d, in, out, order);
  /* the last product lands in Y: start in Y or work so that the ping-pong ends there */
  double *bufs[2] = {left % 2 ? Y : work, left % 2 ? work : Y};
  const int blas = sgp_blas_serial_begin();
  const double *src = X;
  int code = SGP_OK, done = 0;
  for (int k = 0; k < d; k++) {
    const int j = order[k];
    if (!F[j]) continue;
    if ((code = sgp_poll_interrupt(ctx))) break;
    int64_t S = 1, R = cols;
    for (int i = 0; i < j; i++) S *= n[i];
    for (int i = j + 1; i < d; i++) R *= n[i];
    double *dst = bufs[done % 2];
    const int nt = sgp_par_threads_blas3(ctx, 2.0 * (double)S * (double)R * (double)in[j] *
                                                (double)out[j]);
    mode_rect(ctx, nt, F[j], rows[j], trans, in[j], out[j], S, R, src, dst);
    n[j] = out[j];
    src = dst;
    done++;
  }
  sgp_blas_serial_end(blas);
  return code;
}
