/* kernel_grad.c -- the kernel's derivatives contracted with a weight matrix,
 * sum_ik G_ik dK_ik/dtheta for every kernel coordinate in one pass over the
 * pairs: a gradient of the evidence is a few
 * solves plus this pass, not one pass per hyperparameter. With k = s phi(r):
 *   dk/dlog l_j = psi (x_j - x'_j)^2 / l_j^2 (psi = sgp_kernel_psi, from k),
 *   dk/dlog s   = k,
 *   dk/dlog alpha (the kernels that read it, when asked: sgp_kernel_dalpha_of),
 * so a kernel value (from K, or evaluated once per pair) gives every derivative.
 * G is either a dense matrix (the exact evidence) or a low-rank U V' formed tile
 * by tile (the matrix-free estimator); both share the per-pair code. */
#include "kernels/kernels.h"
#include "kernels/kernel_table.h"

#include <stdlib.h>

/* Kernel pairs between two polls of the interrupt: a small fraction of a second. */
#define ROUND_PAIRS 4194304.0

/* The squared scaled differences of rows i and c of X (buf, d values); their sum. */
static inline double pair_r2(sgp_cmat X, int64_t i, int64_t c, const double *inv, double *buf)
{
  double r2 = 0.0;
  for (int64_t j = 0; j < X.cols; j++) {
    const double t = (X.data[i + j * X.ld] - X.data[c + j * X.ld]) * inv[j];
    buf[j] = t * t;
    r2 += buf[j];
  }
  return r2;
}

/* pc[0..nl] += w dk/dtheta at a pair with kernel value kv and scaled differences
 * buf; pc[nl + 1] += w dk/dlog alpha with al. */
static inline void pair_grad(const sgp_kernel *k, int64_t d, double kv, double r2,
                             const double *buf, double w, int al, double *pc)
{
  const int64_t nl = k->n_lengthscale;
  const double psi = sgp_kernel_psi(k, kv, r2);
  if (nl == 1) pc[0] += w * psi * r2;
  else for (int64_t j = 0; j < d; j++) pc[j] += w * psi * buf[j];
  pc[nl] += w * kv;
  if (al) pc[nl + 1] += w * sgp_kernel_dalpha_of(k->kind, k->alpha, kv, r2);
}

typedef struct { double *part, *inv, *scratch; int al; } grad_work;

/* the parts per pair: the lengthscales, the outputscale and alpha when asked */
static int64_t n_parts(const sgp_kernel *k, const grad_work *g)
{
  return k->n_lengthscale + 1 + g->al;
}

static int work_init(sgp_ctx *ctx, const sgp_kernel *k, int64_t d, int64_t nparts,
                     int64_t scratch_per_thread, grad_work *g)
{
  const int64_t np = n_parts(k, g), nt = sgp_ctx_threads(ctx);
  g->part = sgp_calloc(nparts * np);
  g->inv = sgp_alloc(d);
  g->scratch = sgp_alloc(scratch_per_thread * nt);
  if (!g->part || !g->inv || !g->scratch) {
    free(g->part); free(g->inv); free(g->scratch);
    return sgp_fail(ctx, SGP_ENOMEM, "kernel gradient: out of memory");
  }
  for (int64_t j = 0; j < d; j++) g->inv[j] = 1.0 / k->lengthscale[k->n_lengthscale == 1 ? 0 : j];
  return SGP_OK;
}

/* grad (and *galpha) = the parts summed in their fixed order (the same for every
 * thread count). */
static int work_finish(sgp_ctx *ctx, const sgp_kernel *k, int64_t nparts, grad_work *g,
                       double *grad, double *galpha)
{
  const int64_t np = n_parts(k, g), ng = k->n_lengthscale + 1;
  double ga = 0.0;
  for (int64_t p = 0; p < ng; p++) grad[p] = 0.0;
  for (int64_t c = 0; c < nparts; c++) {
    for (int64_t p = 0; p < ng; p++) grad[p] += g->part[c * np + p];
    if (g->al) ga += g->part[c * np + ng];
  }
  if (g->al) *galpha = ga;
  free(g->part); free(g->inv); free(g->scratch);
  return sgp_poll_interrupt(ctx);
}

int sgp_kernel_grad_dense(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, const double *K,
                          const double *G, int64_t ldg, double *grad, double *galpha)
{
  const int64_t n = X.rows, d = X.cols;
  const int nt = sgp_ctx_threads(ctx);
  grad_work g = {.al = galpha != NULL};
  const int64_t np = n_parts(k, &g);
  int st = work_init(ctx, k, d, n, d, &g);
  if (st) return st;
  /* Column c sums the pairs i >= c in a fixed order: the result does not depend
   * on the thread count, nor on the rounds of about ROUND_PAIRS pairs between
   * which the interrupt is polled. */
  const double per_round = ROUND_PAIRS / (double)(n > 1 ? n : 1);
  const int64_t round = per_round > 16.0 ? (int64_t)per_round : 16;
  for (int64_t c0 = 0; c0 < n && !st; c0 += round) {
    const int64_t c1 = c0 + round < n ? c0 + round : n;
#pragma omp parallel for schedule(dynamic, 16) num_threads(nt)
    for (int64_t c = c0; c < c1; c++) {
      double *pc = g.part + c * np, *buf = g.scratch + d * sgp_thread_num();
      for (int64_t i = c; i < n; i++) {
        const double r2 = pair_r2(X, i, c, g.inv, buf);
        pair_grad(k, d, K[i + c * n], r2, buf, (i == c ? 1.0 : 2.0) * G[i + c * ldg], g.al, pc);
      }
    }
    st = sgp_poll_interrupt(ctx);
  }
  if (st) { free(g.part); free(g.inv); free(g.scratch); return st; }
  return work_finish(ctx, k, n, &g, grad, galpha);
}

int sgp_kernel_grad_lowrank(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, sgp_cmat U,
                            sgp_cmat V, int tile, double *grad, double *galpha)
{
  grad_work g = {.al = galpha != NULL};
  const int64_t n = X.rows, d = X.cols, r = U.cols, np = n_parts(k, &g);
  if (U.rows != n || V.rows != n || V.cols != r)
    return sgp_fail(ctx, SGP_EDIM, "kernel gradient: U is %lld x %lld and V %lld x %lld; "
                    "need %lld rows each and as many columns", (long long)U.rows,
                    (long long)r, (long long)V.rows, (long long)V.cols, (long long)n);
  const int64_t t = tile > 0 ? tile : SGP_DEFAULT_TILE, nb = (n + t - 1) / t;
  const int nt = sgp_ctx_threads(ctx);
  int st = work_init(ctx, k, d, nb, d + t * t, &g);
  if (st) return st;
  const int blas_threads = sgp_blas_serial_begin();
  /* Tile column tb sums its tiles on and below the diagonal in a fixed order into
   * its own part. H = U_I V_J' + V_I U_J' is G + G' on the tile, so a pair i > c
   * weighs H_ic and a diagonal pair H_cc / 2 = G_cc. The interrupt is polled
   * between rounds of tile columns of about ROUND_PAIRS pairs (a pair of H's
   * products counting r / 8 more), at least one column per thread. */
  const double per_column = (double)n * (double)t * (1.0 + (double)r / 8.0);
  int64_t round = (int64_t)(ROUND_PAIRS / per_column);
  if (round < nt) round = nt;
  for (int64_t tb0 = 0; tb0 < nb && !st; tb0 += round) {
    const int64_t tb1 = tb0 + round < nb ? tb0 + round : nb;
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int64_t tb = tb0; tb < tb1; tb++) {
      double *pc = g.part + tb * np, *buf = g.scratch + (d + t * t) * sgp_thread_num(),
             *H = buf + d;
      const int64_t j0 = tb * t, nj = j0 + t <= n ? t : n - j0;
      for (int64_t i0 = j0; i0 < n; i0 += t) {
        const int64_t ni = i0 + t <= n ? t : n - i0;
        (void)sgp_gemm(ctx, 'N', 'T', ni, nj, r, 1.0, U.data + i0, U.ld, V.data + j0, V.ld, 0.0,
                       H, ni);
        (void)sgp_gemm(ctx, 'N', 'T', ni, nj, r, 1.0, V.data + i0, V.ld, U.data + j0, U.ld, 1.0,
                       H, ni);
        for (int64_t c = 0; c < nj; c++)
          for (int64_t i = i0 == j0 ? c : 0; i < ni; i++) {
            const double r2 = pair_r2(X, i0 + i, j0 + c, g.inv, buf);
            const double kv = sgp_kernel_value_r2(k, k->outputscale, r2);
            pair_grad(k, d, kv, r2, buf, (i0 + i == j0 + c ? 0.5 : 1.0) * H[i + c * ni], g.al,
                      pc);
          }
      }
    }
    st = sgp_poll_interrupt(ctx);
  }
  sgp_blas_serial_end(blas_threads);
  if (st) { free(g.part); free(g.inv); free(g.scratch); return st; }
  return work_finish(ctx, k, nb, &g, grad, galpha);
}
