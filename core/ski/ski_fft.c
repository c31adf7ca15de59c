/* ski_fft.c -- products with the grid kernel matrix K_G: the operator, its
 * circulant path and its FFTW plans and work space (the Kronecker path is
 * ski_fft_kron.c; these and ski_fft_plan.c are the files of ski_gsgp that call
 * FFTW). docs/ski_gsgp.md; Wilson and Nickisch, "Kernel Interpolation for
 * Scalable Structured Gaussian Processes (KISS-GP)", ICML 2015.
 *
 * Two paths, both exact up to rounding:
 *  - Kronecker (separable kernels): K_G = s T_d (x) ... (x) T_1,
 *    each symmetric Toeplitz T_j applied along mode j of the m_1 x ... x m_d
 *    tensor, densely (dgemm) for small m_j or by a 1-D circulant embedding of
 *    length L_j (batched real FFTs over packed fibres) for large m_j;
 *  - circulant (any stationary kernel): the d-level Toeplitz K_G is
 *    embedded in a d-level circulant of size L = prod L_j, L_j >= 2 m_j - 1,
 *    whose eigenvalues are the real parts of the r2c transform of the
 *    generating array; v is zero-padded into an L-array, transformed,
 *    multiplied and transformed back.
 * Kernel values come from sgp_kernel_value_r2 (the arithmetic of the tiles),
 * so no kernel formula is repeated here.
 *
 * FFTW: plans are made once, when the operator is created, by
 * ski_fft_plan.c (one process-wide planner lock; the effort chosen by the
 * expected work, see sgp_ski_fft_planner), on fftw_malloc'ed scratch; apply
 * executes them with the new-array functions fftw_execute_dft_r2c/c2r, which
 * are thread-safe, on per-thread fftw_malloc'ed buffers (same alignment). FFTW's
 * row-major multi-dimensional layout is described through the guru64
 * interface with our first-dimension-fastest strides, so the halved r2c axis is
 * dimension 1 and sizes beyond INT_MAX are fine. */
#include "ski/ski_fft_state.h"
#ifdef SGP_HAVE_CUDA
#include "runtime/cuda_backend.h"
#endif
#include "kernels/kernels.h"
#include "kernels/kernel_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void sgp_ski_kg_opts_default(sgp_ski_kg_opts *o)
{
  o->path = SGP_SKI_KG_AUTO;
  o->fft_size = SGP_SKI_FFT_FAST;
  o->dense_max = 128;
  o->planner = SGP_SKI_FFT_PLAN_ESTIMATE; /* deterministic fits: see sgp_ski_fft_planner */
  o->expected_products = 0.0;
}

int64_t sgp_ski_fft_embed_length(sgp_ski_fft_size rule, int64_t m)
{
  switch (rule) {
  case SGP_SKI_FFT_DOUBLE: return 2 * m;
  case SGP_SKI_FFT_MINIMAL: return 2 * m - 1;
  case SGP_SKI_FFT_FAST:
  default: return sgp_ski_fft_good_size(2 * m - 1);
  }
}

static void buffers_free(fft_buffers *b)
{
  for (int t = 0; t < b->count; t++) {
    if (b->re) fftw_free(b->re[t]);
    if (b->cx) fftw_free(b->cx[t]);
  }
  free(b->re);
  free(b->cx);
  memset(b, 0, sizeof *b);
}

static int buffers_alloc(sgp_ctx *ctx, fft_buffers *b, int count, int64_t nre, int64_t ncx)
{
  memset(b, 0, sizeof *b);
  b->re = (double **)calloc((size_t)count, sizeof *b->re);
  b->cx = (fftw_complex **)calloc((size_t)count, sizeof *b->cx);
  if (!b->re || !b->cx) goto nomem;
  b->count = count;
  for (int t = 0; t < count; t++) {
    b->re[t] = fftw_alloc_real((size_t)nre);
    b->cx[t] = fftw_alloc_complex((size_t)ncx);
    if (!b->re[t] || !b->cx[t]) goto nomem;
  }
  return SGP_OK;
nomem:
  buffers_free(b);
  return sgp_fail(ctx, SGP_ENOMEM, "out of memory for FFT buffers (%lld + %lld complex values)",
                  (long long)nre, (long long)ncx);
}

static void work_free(kg_work *w)
{
  buffers_free(&w->fft);
  free(w->A);
  free(w->B);
  memset(w, 0, sizeof *w);
}

/* Fresh work space for products of `cols` columns with `threads` threads. */
static int work_alloc(sgp_ctx *ctx, const kg_state *s, int64_t cols, int threads, kg_work *w)
{
  int st = SGP_OK;
  memset(w, 0, sizeof *w);
  if (s->work_nre > 0) st = buffers_alloc(ctx, &w->fft, threads, s->work_nre, s->work_ncx);
  if (!st && s->path == SGP_SKI_KG_KRONECKER) {
    w->A = sgp_alloc(s->mtot * cols);
    w->B = sgp_alloc(s->mtot * cols);
    if (!w->A || !w->B)
      st = sgp_fail(ctx, SGP_ENOMEM, "out of memory for K_G products (%lld values)",
                    (long long)(s->mtot * cols));
  }
  if (st) work_free(w);
  return st;
}

/* 1 when this caller got the operator's work space (atomic test-and-set). */
static int cache_acquire(kg_state *s)
{
  int was;
#if defined(_OPENMP)
#pragma omp atomic capture
  { was = s->busy; s->busy = 1; }
#elif defined(__GNUC__)
  was = __atomic_exchange_n(&s->busy, 1, __ATOMIC_ACQUIRE);
#else
  was = s->busy;
  s->busy = 1;
#endif
  return !was;
}

static void cache_release(kg_state *s)
{
#if defined(_OPENMP)
#pragma omp atomic write
  s->busy = 0;
#elif defined(__GNUC__)
  __atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
#else
  s->busy = 0;
#endif
}

/* FFT buffers a product of `cols` columns uses: one per column at most
 * (circulant: a thread per column), else one per thread (Kronecker). */
static int work_threads(const kg_state *s, int64_t cols, int threads)
{
  return s->path == SGP_SKI_KG_CIRCULANT && cols < threads ? (int)cols : threads;
}

static int work_take(sgp_ctx *ctx, kg_state *s, int64_t cols, int threads, kg_work *w)
{
  const int need = work_threads(s, cols, threads);
  if (cols == 1 && (s->work_nre == 0 || need <= s->cache.fft.count) && cache_acquire(s)) {
    *w = s->cache;
    w->cached = 1;
    return SGP_OK;
  }
  return work_alloc(ctx, s, cols, need, w);
}

/* Sizes of the FFT buffers (one column) and the operator's own work space. */
static int work_setup(sgp_ctx *ctx, kg_state *s)
{
  s->work_nre = s->work_ncx = 0;
  if (s->path == SGP_SKI_KG_CIRCULANT) {
    s->work_nre = s->Ltot;
    s->work_ncx = s->Lctot;
  }
  for (int j = 0; s->path == SGP_SKI_KG_KRONECKER && j < s->d; j++) {
    const kron_dim *kd = &s->dim[j];
    if (kd->mode != MODE_FFT) continue;
    if (kd->nb * kd->L > s->work_nre) s->work_nre = kd->nb * kd->L;
    if (kd->nb * kd->Lc > s->work_ncx) s->work_ncx = kd->nb * kd->Lc;
  }
  return work_alloc(ctx, s, 1, work_threads(s, 1, s->nthreads), &s->cache);
}

static void work_give(kg_state *s, kg_work *w)
{
  if (w->cached) cache_release(s);
  else work_free(w);
}

/* The operator's first plans: MEASURE when asked for; AUTO takes measured
 * plans from the process's wisdom when there are some, else ESTIMATE ones
 * (plan_effort may measure later, once the expected work is known). */
int sgp_ski_fft_first_plans(sgp_ctx *ctx, int rank, const int64_t *L, int64_t howmany,
                            sgp_ski_fft_planner planner, fftw_plan *fwd, fftw_plan *bwd,
                            int *measured)
{
  *measured = planner == SGP_SKI_FFT_PLAN_MEASURE;
  if (planner == SGP_SKI_FFT_PLAN_MEASURE)
    return ski_fft_plan_pair(ctx, rank, L, howmany, SKI_PLAN_MEASURE, 0.0, fwd, bwd);
  if (planner == SGP_SKI_FFT_PLAN_AUTO) {
    const int st = ski_fft_plan_pair(ctx, rank, L, howmany, SKI_PLAN_WISDOM, 0.0, fwd, bwd);
    if (st || *fwd) {
      *measured = *fwd != NULL;
      return st;
    }
  }
  return ski_fft_plan_pair(ctx, rank, L, howmany, SKI_PLAN_ESTIMATE, 0.0, fwd, bwd);
}

static void kg_free(kg_state *s)
{
  if (!s) return;
  ski_fft_plan_destroy(&s->fwd);
  ski_fft_plan_destroy(&s->bwd);
  fftw_free(s->lambda);
  work_free(&s->cache);
  for (int j = 0; j < SGP_SKI_MAX_D; j++) {
    kron_dim *k = &s->dim[j];
    ski_fft_plan_destroy(&k->fwd);
    ski_fft_plan_destroy(&k->bwd);
    free(k->T);
    fftw_free(k->lambda);
  }
  free(s);
}

/* Re(r2c(c)) / scale into lambda (length Lc), via a one-off estimate plan. */
int sgp_ski_fft_eigenvalues(sgp_ctx *ctx, int rank, const int64_t *L, double *c, int64_t Lc,
                            double scale, double *lambda)
{
  fftw_plan fwd = NULL, bwd = NULL;
  fftw_complex *cx = fftw_alloc_complex((size_t)Lc);
  int st = SGP_OK;
  if (!cx) return sgp_fail(ctx, SGP_ENOMEM, "out of memory for FFT eigenvalues");
  if ((st = ski_fft_plan_pair(ctx, rank, L, 1, SKI_PLAN_ESTIMATE, 0.0, &fwd, &bwd)))
    goto cleanup;
  fftw_execute_dft_r2c(fwd, c, cx);
  for (int64_t k = 0; k < Lc; k++) lambda[k] = cx[k][0] / scale;
cleanup:
  ski_fft_plan_destroy(&fwd);
  ski_fft_plan_destroy(&bwd);
  fftw_free(cx);
  return st;
}

/* ------------------------------------------------------------ creation */

/* mask (as in sgp_ski_grid_op_deriv): 0 for K_G, else the generating array
 * of d K_G / d log ell for the lengthscale shared by the dimensions in mask. */
static int setup_circulant(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                           const sgp_ski_kg_opts *o, unsigned mask, kg_state *s)
{
  const int d = g->d;
  double *q2[SGP_SKI_MAX_D] = {0}; /* squared scaled lag per index, < 0 where unused */
  double *c = NULL;
  int st = SGP_OK;
  s->Ltot = 1;
  for (int j = 0; j < d; j++) {
    s->L[j] = sgp_ski_fft_embed_length(o->fft_size, g->m[j]);
    if (s->Ltot > ((int64_t)1 << 52) / s->L[j])
      return sgp_fail(ctx, SGP_EUNSUPPORTED, "grid_size: the circulant embedding is too large");
    s->Ltot *= s->L[j];
  }
  s->Lctot = s->Ltot / s->L[0] * (s->L[0] / 2 + 1);
  for (int j = 0; j < d; j++) {
    const double ell = k->lengthscale[k->n_lengthscale == 1 ? 0 : j];
    q2[j] = sgp_alloc(s->L[j]);
    if (!q2[j]) { st = sgp_fail(ctx, SGP_ENOMEM, "out of memory"); goto cleanup; }
    for (int64_t i = 0; i < s->L[j]; i++) {
      int64_t lag;
      if (i < g->m[j]) lag = i;
      else if (i > s->L[j] - g->m[j]) lag = i - s->L[j];
      else { q2[j][i] = -1.0; continue; }
      const double z = (double)lag * g->h[j] / ell;
      q2[j][i] = z * z;
    }
  }
  c = fftw_alloc_real((size_t)s->Ltot);
  s->lambda = fftw_alloc_real((size_t)s->Lctot);
  if (!c || !s->lambda) {
    st = sgp_fail(ctx, SGP_ENOMEM, "out of memory for the circulant embedding (%lld values)",
                  (long long)s->Ltot);
    goto cleanup;
  }
  /* plans first: FFTW_MEASURE overwrites its arrays (scratch here anyway) */
  if ((st = sgp_ski_fft_first_plans(ctx, d, s->L, 1, o->planner, &s->fwd, &s->bwd, &s->measured)))
    goto cleanup;
  {
    int64_t sub[SGP_SKI_MAX_D] = {0};
    for (int64_t idx = 0; idx < s->Ltot; idx++) {
      double r2 = 0.0, qm = 0.0;
      int used = 1;
      for (int j = 0; j < d; j++) {
        const double v = q2[j][sub[j]];
        if (v < 0) { used = 0; break; }
        r2 += v;
        if (mask >> j & 1u) qm += v;
      }
      c[idx] = !used ? 0.0
               : mask ? sgp_kernel_dlogell_r2(k, k->outputscale, r2, qm)
                      : sgp_kernel_value_r2(k, k->outputscale, r2);
      sgp_ski_sub_next(sub, s->L, d);
    }
  }
  st = sgp_ski_fft_eigenvalues(ctx, d, s->L, c, s->Lctot, (double)s->Ltot, s->lambda);
cleanup:
  for (int j = 0; j < d; j++) free(q2[j]);
  fftw_free(c);
  return st;
}

/* ------------------------------------------------------------ products */

/* Circulant path: one right-hand side per task. */
static void apply_circulant(const kg_state *s, const fft_buffers *bufp, sgp_cmat V, sgp_mat Y,
                            int nthreads)
{
  const int64_t nb = V.cols, m1 = s->m[0], rows = s->mtot / m1;
  const int nt = (int64_t)nthreads < nb ? nthreads : (int)nb;
  const fft_buffers buf = *bufp;
  (void)nt;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
  for (int64_t col = 0; col < nb; col++) {
    const int tid = sgp_thread_num();
    double *re = buf.re[tid];
    fftw_complex *cx = buf.cx[tid];
    const double *v = V.data + col * V.ld;
    double *y = Y.data + col * Y.ld;
    memset(re, 0, (size_t)s->Ltot * sizeof *re);
    int64_t sub[SGP_SKI_MAX_D] = {0}, off = 0; /* sub of dims 2..d, offset in the L-array */
    for (int64_t r = 0; r < rows; r++) {
      memcpy(re + off, v + r * m1, (size_t)m1 * sizeof *re);
      int64_t stride = s->L[0];
      for (int j = 1; j < s->d; j++) {
        if (++sub[j] < s->m[j]) { off += stride; break; }
        off -= (sub[j] - 1) * stride;
        sub[j] = 0;
        stride *= s->L[j];
      }
    }
    fftw_execute_dft_r2c(s->fwd, re, cx);
    for (int64_t k = 0; k < s->Lctot; k++) {
      cx[k][0] *= s->lambda[k];
      cx[k][1] *= s->lambda[k];
    }
    fftw_execute_dft_c2r(s->bwd, cx, re);
    off = 0;
    memset(sub, 0, sizeof sub);
    for (int64_t r = 0; r < rows; r++) {
      memcpy(y + r * m1, re + off, (size_t)m1 * sizeof *re);
      int64_t stride = s->L[0];
      for (int j = 1; j < s->d; j++) {
        if (++sub[j] < s->m[j]) { off += stride; break; }
        off -= (sub[j] - 1) * stride;
        sub[j] = 0;
        stride *= s->L[j];
      }
    }
  }
}

static int kg_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  const kg_state *s = (const kg_state *)op->state;
  int st;
  if (V.rows != op->n || Y.rows != op->n || Y.cols != V.cols || V.ld < V.rows ||
      Y.ld < Y.rows)
    return sgp_fail(ctx, SGP_EDIM, "operator: block is %lld x %lld (result %lld x %lld); "
                    "need %lld rows", (long long)V.rows, (long long)V.cols, (long long)Y.rows,
                    (long long)Y.cols, (long long)op->n);
  if (V.cols == 0) return SGP_OK;
  if ((st = sgp_poll_interrupt(ctx))) return st;
  kg_state *ms = (kg_state *)op->state; /* its work space only */
  /* two real FFTs of the padded grid per column */
  const double L = (double)s->Ltot;
  const int nthreads = sgp_par_threads(ctx, (double)V.cols * 5.0 * L * log2(L + 1.0));
  kg_work w;
  if ((st = work_take(ctx, ms, V.cols, nthreads, &w))) return st;
  if (s->path == SGP_SKI_KG_KRONECKER) st = sgp_ski_fft_apply_kronecker(s, &w, V, Y, nthreads, ctx);
  else apply_circulant(s, &w.fft, V, Y, nthreads);
  work_give(ms, &w);
  return st;
}

static int kg_diag(const sgp_op *op, sgp_mat d, sgp_ctx *ctx)
{
  const kg_state *s = (const kg_state *)op->state;
  if (d.rows != op->n) return sgp_fail(ctx, SGP_EDIM, "operator diag: wrong length");
  for (int64_t i = 0; i < op->n; i++) d.data[i] = s->outputscale;
  return SGP_OK;
}

static void kg_destroy(sgp_op *op)
{
  kg_free((kg_state *)op->state);
  op->state = NULL;
}

sgp_ski_kg_path sgp_ski_grid_op_path(const sgp_op *op)
{
  return op && op->state && op->destroy == kg_destroy ? ((const kg_state *)op->state)->path
                                                      : SGP_SKI_KG_AUTO;
}

/* ------------------------------------------------------------ planning effort */

/* AUTO measures with at most this share of the expected transform time, and
 * only when that is at least PLAN_MIN_BUDGET seconds: FFTW_MEASURE needs
 * 0.1-0.4 s even for small sizes (L = 256 .. 4096 measured), so a smaller
 * budget would time out and be wasted. */
#define PLAN_BUDGET_SHARE 0.25
#define PLAN_MIN_BUDGET 0.1

typedef struct {
  int rank;
  const int64_t *L;
  int64_t howmany;
  fftw_plan *fwd, *bwd;
  int *measured;
} plan_slot;

/* The operator's plan pairs that are not measured yet. */
static int unmeasured_slots(kg_state *s, plan_slot *slot)
{
  int n = 0;
  if (s->path == SGP_SKI_KG_CIRCULANT) {
    if (!s->measured) slot[n++] = (plan_slot){s->d, s->L, 1, &s->fwd, &s->bwd, &s->measured};
    return n;
  }
  for (int j = 0; j < s->d; j++) {
    kron_dim *kd = &s->dim[j];
    if (kd->mode == MODE_FFT && !kd->measured)
      slot[n++] = (plan_slot){1, &kd->L, kd->nb, &kd->fwd, &kd->bwd, &kd->measured};
  }
  return n;
}

/* Seconds of one product (the second of two: the first touches fresh pages). */
static int time_product(sgp_ctx *ctx, const sgp_op *op, double *seconds)
{
  double *x = sgp_calloc(op->n), *y = sgp_alloc(op->n);
  int st = x && y ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int rep = 0; rep < 2 && !st; rep++) {
    const double t0 = sgp_clock();
    st = kg_apply(op, sgp_cmat_of(x, op->n, 1), sgp_mat_of(y, op->n, 1), ctx);
    *seconds = sgp_clock() - t0;
  }
  free(x);
  free(y);
  return st;
}

/* AUTO: replaces the ESTIMATE plans by FFTW_MEASURE ones (under
 * fftw_set_timelimit) when the expected work pays for it (see the
 * PLAN_ constants and sgp_ski_fft_planner). */
static int plan_effort(sgp_ctx *ctx, const sgp_ski_kg_opts *o, const sgp_op *op)
{
  plan_slot slot[SGP_SKI_MAX_D];
  const int ns = unmeasured_slots((kg_state *)op->state, slot);
  double t1 = 0.0;
  int st;
  if (o->planner != SGP_SKI_FFT_PLAN_AUTO || ns == 0 || !(o->expected_products > 0))
    return SGP_OK;
  if ((st = time_product(ctx, op, &t1))) return st;
  const double budget = PLAN_BUDGET_SHARE * o->expected_products * t1;
  if (!(budget >= PLAN_MIN_BUDGET)) return SGP_OK;
  sgp_say(ctx, "ski_gsgp: measuring FFT plans (at most %.2g s for about %.3g products of "
          "%.2g s)", budget, o->expected_products, t1);
  for (int i = 0; i < ns; i++) {
    fftw_plan fwd, bwd;
    if ((st = ski_fft_plan_pair(ctx, slot[i].rank, slot[i].L, slot[i].howmany,
                                SKI_PLAN_MEASURE, budget / ns, &fwd, &bwd)))
      return st;
    ski_fft_plan_destroy(slot[i].fwd);
    ski_fft_plan_destroy(slot[i].bwd);
    *slot[i].fwd = fwd;
    *slot[i].bwd = bwd;
    *slot[i].measured = 1;
  }
  return SGP_OK;
}

/* ------------------------------------------------------------ creation (public) */

static int grid_op_make(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                        const sgp_ski_kg_opts *opts, unsigned mask, sgp_op *op)
{
  sgp_ski_kg_opts o;
  kg_state *s = NULL;
  int st;
  memset(op, 0, sizeof *op);
  if (opts) o = *opts; else sgp_ski_kg_opts_default(&o);
  if ((st = sgp_ski_grid_check(ctx, g))) return st;
  if ((st = sgp_kernel_check(ctx, k, g->d))) return st;
  if (o.path < SGP_SKI_KG_AUTO || o.path > SGP_SKI_KG_CIRCULANT)
    return sgp_fail(ctx, SGP_EINVAL, "path: unknown code %d (auto, kronecker or circulant)",
                    (int)o.path);
  if (o.fft_size < SGP_SKI_FFT_FAST || o.fft_size > SGP_SKI_FFT_MINIMAL)
    return sgp_fail(ctx, SGP_EINVAL, "fft_size: unknown code %d (fast, double or minimal)",
                    (int)o.fft_size);
  if (o.dense_max < 0)
    return sgp_fail(ctx, SGP_EINVAL, "dense_max: must be non-negative (got %lld)",
                    (long long)o.dense_max);
  if (o.planner < SGP_SKI_FFT_PLAN_AUTO || o.planner > SGP_SKI_FFT_PLAN_MEASURE)
    return sgp_fail(ctx, SGP_EINVAL, "planner: unknown code %d (auto, estimate or measure)",
                    (int)o.planner);
  int nontrivial = 0;
  for (int j = 0; j < g->d; j++) nontrivial += g->m[j] > 1;
  const int separable = sgp_kernel_info_of(k->kind)->separable || nontrivial <= 1;
  if (mask >> g->d)
    return sgp_fail(ctx, SGP_EINVAL, "lengthscale: derivative mask 0x%x names dimensions "
                    "beyond d = %d", mask, g->d);
  const int multi = (mask & (mask - 1u)) != 0; /* a lengthscale of several dimensions */
  if (o.path == SGP_SKI_KG_KRONECKER && multi)
    return sgp_fail(ctx, SGP_EINVAL, "path: the Kronecker path differentiates one "
                    "dimension's lengthscale at a time");
  if (o.path == SGP_SKI_KG_KRONECKER && !separable)
    return sgp_fail(ctx, SGP_EINVAL,
                    "path: the Kronecker path needs a separable kernel (rbf); %s is not "
                    "separable on a grid with %d dimensions of more than one point",
                    sgp_kernel_name(k->kind), nontrivial);
  /* The GPU operator takes the circulant eigenvalues of the CPU one (any
   * stationary kernel has them; the Kronecker path has none to hand over). */
  int use_cuda = 0;
  if ((st = sgp_backend_use_cuda(ctx, &use_cuda))) return st;
  if (use_cuda && o.path == SGP_SKI_KG_AUTO) o.path = SGP_SKI_KG_CIRCULANT;
  if (use_cuda && o.planner == SGP_SKI_FFT_PLAN_AUTO) o.expected_products = 0.0; /* GPU FFTs */
  s = (kg_state *)calloc(1, sizeof *s);
  if (!s) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  s->path = o.path == SGP_SKI_KG_AUTO
                ? (separable && !multi ? SGP_SKI_KG_KRONECKER : SGP_SKI_KG_CIRCULANT) : o.path;
  s->d = g->d;
  s->mtot = sgp_ski_grid_npoints(g);
  for (int j = 0; j < g->d; j++) s->m[j] = g->m[j];
  /* the diagonal: k(0), or 0 for a lengthscale derivative (lag 0) */
  s->outputscale = mask ? 0.0 : sgp_kernel_value_r2(k, k->outputscale, 0.0);
  s->scale = 1.0;
  s->nthreads = sgp_ctx_threads(ctx);
  if (s->nthreads < 1) s->nthreads = 1;
  st = s->path == SGP_SKI_KG_KRONECKER ? sgp_ski_fft_setup_kronecker(ctx, k, g, &o, mask, s)
                                       : setup_circulant(ctx, k, g, &o, mask, s);
  if (!st) st = work_setup(ctx, s);
  if (st) goto cleanup;
  op->n = s->mtot;
  op->state = s;
  op->apply = kg_apply;
  op->diag = kg_diag;
  op->destroy = kg_destroy;
  s = NULL;
  if ((st = plan_effort(ctx, &o, op))) {
    sgp_op_destroy(op);
    return st;
  }
#ifdef SGP_HAVE_CUDA
  if (use_cuda && o.path == SGP_SKI_KG_CIRCULANT) {
    sgp_op host = *op;
    if ((st = sgp_cuda_op_ski_grid_take(ctx, &host, op))) sgp_op_destroy(&host);
  }
#endif
cleanup:
  kg_free(s);
  return st;
}

int sgp_ski_grid_op(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                    const sgp_ski_kg_opts *o, sgp_op *op)
{
  return grid_op_make(ctx, k, g, o, 0u, op);
}

int sgp_ski_grid_op_deriv(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                          const sgp_ski_kg_opts *o, unsigned mask, sgp_op *op)
{
  if (mask == 0u) {
    memset(op, 0, sizeof *op);
    return sgp_fail(ctx, SGP_EINVAL, "lengthscale: empty derivative mask");
  }
  return grid_op_make(ctx, k, g, o, mask, op);
}

int sgp_ski_grid_op_circulant(const sgp_op *op, sgp_ski_circulant *c)
{
  if (sgp_ski_grid_op_path(op) != SGP_SKI_KG_CIRCULANT) return 0;
  const kg_state *s = (const kg_state *)op->state;
  memset(c, 0, sizeof *c);
  c->d = s->d;
  for (int j = 0; j < s->d; j++) {
    c->m[j] = s->m[j];
    c->L[j] = s->L[j];
  }
  c->mtot = s->mtot;
  c->Ltot = s->Ltot;
  c->Lctot = s->Lctot;
  c->lambda = s->lambda;
  return 1;
}
