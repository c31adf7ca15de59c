/* ski_fft_kron.c -- the Kronecker path of the grid operator K_G (separable
 * kernels): K_G = s T_d (x) ... (x) T_1, each symmetric Toeplitz T_j applied
 * along mode j of the grid tensor, densely (dgemm) for small m_j or by a 1-D
 * circulant embedding with batched real FFTs for large m_j. Its setup and its
 * product; the operator itself is ski_fft.c's. */
#include "ski/ski_fft_state.h"
#include "kernels/kernels.h"
#include "kernels/kernel_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* mask: 0 or one dimension j (d K_G / d log ell_j: factor j differentiated;
 * zero when m_j = 1, where the only lag is 0). */
int sgp_ski_fft_setup_kronecker(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                                const sgp_ski_kg_opts *o, unsigned mask, kg_state *s)
{
  double *t = NULL, *c = NULL;
  int st = SGP_OK, scaled = 0, zero = 0;
  s->scale = 1.0;
  for (int j = 0; j < g->d; j++) {
    kron_dim *kd = &s->dim[j];
    const int64_t m = g->m[j];
    const int dj = mask >> j & 1u;
    kd->m = m;
    if (m == 1) { kd->mode = MODE_SKIP; zero |= dj; continue; }
    const double ell = k->lengthscale[k->n_lengthscale == 1 ? 0 : j];
    /* the factor's scale: outputscale in the first non-trivial dimension only */
    const double f = scaled ? 1.0 : k->outputscale;
    scaled = 1;
    t = sgp_alloc(m);
    if (!t) { st = sgp_fail(ctx, SGP_ENOMEM, "out of memory"); goto cleanup; }
    for (int64_t i = 0; i < m; i++) {
      const double z = (double)i * g->h[j] / ell;
      t[i] = dj ? sgp_kernel_dlogell_r2(k, 1.0, z * z, z * z)
                : sgp_kernel_value_r2(k, 1.0, z * z);
    }
    if (m <= o->dense_max) {
      kd->mode = MODE_DENSE;
      kd->T = sgp_alloc(m * m);
      if (!kd->T) { st = sgp_fail(ctx, SGP_ENOMEM, "out of memory"); goto cleanup; }
      for (int64_t b = 0; b < m; b++)
        for (int64_t a = 0; a < m; a++) kd->T[a + b * m] = f * t[a > b ? a - b : b - a];
    } else {
      kd->mode = MODE_FFT;
      kd->L = sgp_ski_fft_embed_length(o->fft_size, m);
      kd->Lc = kd->L / 2 + 1;
      const int64_t fibres = s->mtot / m;
      int64_t nb = 32768 / kd->L;
      const int64_t share = (fibres + s->nthreads - 1) / s->nthreads;
      if (nb > share) nb = share;
      kd->nb = nb < 1 ? 1 : nb;
      c = fftw_alloc_real((size_t)kd->L);
      kd->lambda = fftw_alloc_real((size_t)kd->Lc);
      if (!c || !kd->lambda) { st = sgp_fail(ctx, SGP_ENOMEM, "out of memory"); goto cleanup; }
      if ((st = sgp_ski_fft_first_plans(ctx, 1, &kd->L, kd->nb, o->planner, &kd->fwd, &kd->bwd,
                            &kd->measured)))
        goto cleanup;
      for (int64_t i = 0; i < kd->L; i++) {
        if (i < m) c[i] = f * t[i];
        else if (i > kd->L - m) c[i] = f * t[kd->L - i];
        else c[i] = 0.0;
      }
      if ((st = sgp_ski_fft_eigenvalues(ctx, 1, &kd->L, c, kd->Lc, (double)kd->L, kd->lambda)))
        goto cleanup;
      fftw_free(c);
      c = NULL;
    }
    free(t);
    t = NULL;
  }
  if (!scaled) s->scale = k->outputscale;
  if (zero) s->scale = 0.0;
cleanup:
  free(t);
  fftw_free(c);
  return st;
}

/* Kronecker path, one mode by dense T_j: B = A x_j T_j for all slabs. Every
 * dgemm here runs with a serial BLAS: a threaded OpenBLAS splits one product
 * by its thread count, and the bits of the result change with it (learned
 * values differed between OPENBLAS_NUM_THREADS=1 and 2 on a 1-D 100-point
 * grid with 64 probes and a 30 x 30 grid); the slabs are threaded by OpenMP
 * instead, each slab's product the same whatever the thread count. */
static int mode_dense_slabs(int nthreads, const kron_dim *kd, int64_t S, int64_t total,
                            const double *A, double *B, sgp_ctx *ctx)
{
  const int64_t m = kd->m, slabs = total / (S * m);
  if (S == 1)
    return sgp_gemm(ctx, 'N', 'N', m, slabs, m, 1.0, kd->T, m, A, m, 0.0, B, m);
  if (slabs < 2 || nthreads < 2) {
    int st = SGP_OK;
    for (int64_t p = 0; p < slabs && !st; p++)
      st = sgp_gemm(ctx, 'N', 'N', S, m, m, 1.0, A + p * S * m, S, kd->T, m, 0.0,
                    B + p * S * m, S);
    return st;
  }
  const int nt = (int64_t)nthreads < slabs ? nthreads : (int)slabs;
  (void)nt; /* used by OpenMP only */
#pragma omp parallel for num_threads(nt) schedule(static)
  for (int64_t p = 0; p < slabs; p++)
    (void)sgp_gemm(ctx, 'N', 'N', S, m, m, 1.0, A + p * S * m, S, kd->T, m, 0.0,
                   B + p * S * m, S);
  return SGP_OK;
}

static int mode_dense(int nthreads, const kron_dim *kd, int64_t S, int64_t total,
                      const double *A, double *B, sgp_ctx *ctx)
{
  const int blas_threads = sgp_blas_serial_begin();
  const int code = mode_dense_slabs(nthreads, kd, S, total, A, B, ctx);
  sgp_blas_serial_end(blas_threads);
  return code;
}

/* Kronecker path, one mode by 1-D circulant embedding: fibres (stride S) are
 * packed nb at a time into zero-padded length-L rows, transformed, scaled by
 * the eigenvalues and transformed back. */
static void mode_fft(int nthreads, const kron_dim *kd, const fft_buffers *bufp, int64_t S,
                     int64_t total, const double *A, double *B)
{
  const int64_t m = kd->m, L = kd->L, Lc = kd->Lc, nb = kd->nb;
  const int64_t fibres = total / m, batches = (fibres + nb - 1) / nb;
  const int nt = (int64_t)nthreads < batches ? nthreads : (int)batches;
  const fft_buffers buf = *bufp;
  (void)nt;
#pragma omp parallel for num_threads(nt) schedule(dynamic, 1)
  for (int64_t bt = 0; bt < batches; bt++) {
    const int tid = sgp_thread_num();
    double *re = buf.re[tid];
    fftw_complex *cx = buf.cx[tid];
    const int64_t f0 = bt * nb, cnt = f0 + nb <= fibres ? nb : fibres - f0;
    for (int64_t q = 0; q < cnt; q++) { /* the fibre, then zeros */
      const int64_t f = f0 + q, p = f / S, o = f % S;
      const double *src = A + p * S * m + o;
      double *row = re + q * L;
      for (int64_t i = 0; i < m; i++) row[i] = src[i * S];
      memset(row + m, 0, (size_t)(L - m) * sizeof *re);
    }
    if (cnt < nb) memset(re + cnt * L, 0, (size_t)((nb - cnt) * L) * sizeof *re);
    fftw_execute_dft_r2c(kd->fwd, re, cx);
    for (int64_t q = 0; q < cnt; q++) {
      fftw_complex *c = cx + q * Lc;
      for (int64_t k = 0; k < Lc; k++) {
        c[k][0] *= kd->lambda[k];
        c[k][1] *= kd->lambda[k];
      }
    }
    fftw_execute_dft_c2r(kd->bwd, cx, re);
    for (int64_t q = 0; q < cnt; q++) {
      const int64_t f = f0 + q, p = f / S, o = f % S;
      double *dst = B + p * S * m + o;
      const double *row = re + q * L;
      for (int64_t i = 0; i < m; i++) dst[i * S] = row[i];
    }
  }
}

/* Modes applied one after the other, ping-ponging between the work arrays;
 * a contiguous V is read in place and the last mode writes into a contiguous
 * Y when no scale is left to apply (no copies in the solvers' products). */
int sgp_ski_fft_apply_kronecker(const kg_state *s, const kg_work *w, sgp_cmat V, sgp_mat Y,
                                int nthreads, sgp_ctx *ctx)
{
  const int64_t n = s->mtot, nb = V.cols, total = n * nb;
  int st = SGP_OK, left = 0;
  for (int j = 0; j < s->d; j++) left += s->dim[j].mode != MODE_SKIP;
  const double *in = V.data;
  if (V.ld != n) {
    for (int64_t j = 0; j < nb; j++)
      memcpy(w->A + j * n, V.data + j * V.ld, (size_t)n * sizeof *w->A);
    in = w->A;
  }
  int64_t S = 1;
  for (int j = 0; j < s->d; j++) {
    const kron_dim *kd = &s->dim[j];
    S *= kd->m;
    if (kd->mode == MODE_SKIP) continue;
    double *out = --left == 0 && Y.ld == n && s->scale == 1.0 ? Y.data
                                                              : (in == w->A ? w->B : w->A);
    if ((st = sgp_poll_interrupt(ctx))) return st;
    if (kd->mode == MODE_DENSE) st = mode_dense(nthreads, kd, S / kd->m, total, in, out, ctx);
    else mode_fft(nthreads, kd, &w->fft, S / kd->m, total, in, out);
    if (st) return st;
    in = out;
  }
  if (in != Y.data)
    for (int64_t j = 0; j < nb; j++) {
      double *y = Y.data + j * Y.ld;
      const double *a = in + j * n;
      for (int64_t i = 0; i < n; i++) y[i] = s->scale * a[i];
    }
  return SGP_OK;
}
