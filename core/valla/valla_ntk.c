/* valla_ntk.c -- the NTK by the corrected layer-wise contraction of appendix
 * E.3 of Ortega, Santana and Hernandez-Lobato, "Variational Linearized Laplace
 * Approximation for Bayesian Deep Learning", ICML 2024:
 * k0_cc'(x,x') = sum_l (delta^l_c(x) . delta^l_c'(x')) (a^l(x) . a^l(x') + 1),
 * two GEMMs per layer, never forming Jacobians. */
#include "valla/valla.h"

#include <stdlib.h>
#include <string.h>

static int use_layer(const int *layers, int l) { return !layers || layers[l]; }

/* P (nB x nZ) = A_B A_Z' + 1, plus X_B X_Z' at the last layer with skip. */
static int input_products(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *cB,
                          const valla_cache *cZ, int l, double *P)
{
  const int64_t nB = cB->n, nZ = cZ->n, in = net->width[l];
  for (int64_t k = 0; k < nB * nZ; k++) P[k] = 1.0;
  int st = sgp_gemm(ctx, 'N', 'T', nB, nZ, in, 1.0, cB->A[l], nB, cZ->A[l], nZ, 1.0, P, nB);
  if (!st && l == net->n_layers - 1 && net->skip)
    st = sgp_gemm(ctx, 'N', 'T', nB, nZ, net->width[0], 1.0, cB->A[0], nB, cZ->A[0], nZ, 1.0,
                  P, nB);
  return st;
}

int valla_ntk_cross(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *cB,
                    const valla_cache *cZ, const int *layers, double *K, int64_t ldk)
{
  const int64_t rB = cB->nr, rZ = cZ->nr, nB = cB->n;
  for (int64_t j = 0; j < rZ; j++) memset(K + j * ldk, 0, (size_t)rB * sizeof(double));
  valla_arena *a = cB->arena;
  double *T = valla_arena_alloc(a, rB * rZ), *P = valla_arena_alloc(a, nB * cZ->n);
  if (!T || !P) {
    valla_arena_free(a, T); valla_arena_free(a, P);
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the NTK contraction");
  }
  int st = SGP_OK;
  for (int l = 0; l < net->n_layers && !st; l++) {
    if (!use_layer(layers, l)) continue;
    st = sgp_gemm(ctx, 'N', 'T', rB, rZ, net->width[l + 1], 1.0, cB->Dl[l], rB, cZ->Dl[l], rZ,
                  0.0, T, rB);
    if (!st) st = input_products(ctx, net, cB, cZ, l, P);
    if (st) break;
    const int64_t *ptB = cB->pt, *ptZ = cZ->pt;
    const int nt = sgp_ctx_threads(ctx);
#pragma omp parallel for num_threads(nt) if (rB * rZ > 65536)
    for (int64_t j = 0; j < rZ; j++)
      for (int64_t r = 0; r < rB; r++)
        K[r + j * ldk] += T[r + j * rB] * P[ptB[r] + nB * ptZ[j]];
  }
  valla_arena_free(a, T); valla_arena_free(a, P);
  return st;
}

/* Squared norm of row i of an n x w matrix. */
static double row_sq(const double *A, int64_t n, int64_t w, int64_t i)
{
  double s = 0.0;
  for (int64_t j = 0; j < w; j++) s += A[i + n * j] * A[i + n * j];
  return s;
}

/* ||a^l(x_i)||^2 + 1 (+ ||x_i||^2 at the last layer with skip). */
static double self_product(const sgp_valla_net *net, const valla_cache *c, int l, int64_t i)
{
  double p = row_sq(c->A[l], c->n, net->width[l], i) + 1.0;
  if (l == net->n_layers - 1 && net->skip) p += row_sq(c->A[0], c->n, net->width[0], i);
  return p;
}

void valla_ntk_diag(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *c, const int *layers,
                    double *diag)
{
  const int64_t nr = c->nr;
  const int nt = sgp_ctx_threads(ctx);
#pragma omp parallel for num_threads(nt) if (nr > 2048)
  for (int64_t r = 0; r < nr; r++) {
    double s = 0.0;
    for (int l = 0; l < net->n_layers; l++)
      if (use_layer(layers, l))
        s += row_sq(c->Dl[l], nr, net->width[l + 1], r) * self_product(net, c, l, c->pt[r]);
    diag[r] = s;
  }
}

void valla_ntk_blocks(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *c, const int *layers,
                      double *out)
{
  const int64_t n = c->n, nr = c->nr, C = net->width[net->n_layers];
  const int nt = sgp_ctx_threads(ctx);
#pragma omp parallel for num_threads(nt) if (n > 512)
  for (int64_t i = 0; i < n; i++) {
    double *B = out + C * C * i;
    for (int64_t k = 0; k < C * C; k++) B[k] = 0.0;
    for (int l = 0; l < net->n_layers; l++) {
      if (!use_layer(layers, l)) continue;
      const double p = self_product(net, c, l, i), *Dl = c->Dl[l];
      for (int64_t a = 0; a < C; a++)
        for (int64_t b = 0; b <= a; b++) {
          double s = 0.0;
          for (int64_t j = 0; j < net->width[l + 1]; j++)
            s += Dl[i + n * a + nr * j] * Dl[i + n * b + nr * j];
          B[a + C * b] += s * p;
        }
    }
    for (int64_t a = 0; a < C; a++)
      for (int64_t b = a + 1; b < C; b++) B[a + C * b] = B[b + C * a];
  }
}

int sgp_valla_ntk(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat Z,
                  const int *tags, const int *layers, double s0, sgp_mat K_XZ, sgp_mat K_ZZ,
                  sgp_mat kxx_diag, sgp_mat Kxx_full)
{
  const int64_t n = X.rows, M = Z.rows, C = net->width[net->n_layers];
  int st;
  if ((st = sgp_check_finite(ctx, "x", X))) return st;
  if (!(s0 > 0) || s0 == 1.0 / 0.0) return sgp_fail(ctx, SGP_EINVAL, "prior_var must be positive and finite");
  const int need_z = K_XZ.data || K_ZZ.data;
  if (need_z) {
    if ((st = sgp_check_finite(ctx, "inducing", Z))) return st;
    if (!tags) return sgp_fail(ctx, SGP_EINVAL, "tags are required with inducing points");
    for (int64_t m = 0; m < M; m++)
      if (tags[m] < 0 || tags[m] >= C)
        return sgp_fail(ctx, SGP_EINVAL, "tags[%lld] = %d is outside 0..%lld", (long long)m,
                        tags[m], (long long)(C - 1));
  }
  if ((K_XZ.data && (K_XZ.rows != n * C || K_XZ.cols != M)) ||
      (K_ZZ.data && (K_ZZ.rows != M || K_ZZ.cols != M)) ||
      (kxx_diag.data && kxx_diag.rows * kxx_diag.cols != n * C) ||
      (Kxx_full.data && Kxx_full.rows * Kxx_full.cols != n * C * C))
    return sgp_fail(ctx, SGP_EDIM, "sgp_valla_ntk: output sizes do not match x and inducing");
  valla_cache cX, cZ;
  memset(&cZ, 0, sizeof cZ);
  if ((st = valla_cache_build(ctx, net, X, NULL, &cX))) return st;
  if (need_z && (st = valla_cache_build(ctx, net, Z, tags, &cZ))) goto done;
  if (K_XZ.data && (st = valla_ntk_cross(ctx, net, &cX, &cZ, layers, K_XZ.data, K_XZ.ld)))
    goto done;
  if (K_ZZ.data && (st = valla_ntk_cross(ctx, net, &cZ, &cZ, layers, K_ZZ.data, K_ZZ.ld)))
    goto done;
  if (kxx_diag.data) valla_ntk_diag(ctx, net, &cX, layers, kxx_diag.data);
  if (Kxx_full.data) valla_ntk_blocks(ctx, net, &cX, layers, Kxx_full.data);
  if (K_XZ.data)
    for (int64_t j = 0; j < M; j++) for (int64_t r = 0; r < n * C; r++) K_XZ.data[r + j * K_XZ.ld] *= s0;
  if (K_ZZ.data)
    for (int64_t j = 0; j < M; j++) for (int64_t r = 0; r < M; r++) K_ZZ.data[r + j * K_ZZ.ld] *= s0;
  if (kxx_diag.data) for (int64_t r = 0; r < n * C; r++) kxx_diag.data[r] *= s0;
  if (Kxx_full.data) for (int64_t r = 0; r < n * C * C; r++) Kxx_full.data[r] *= s0;
done:
  valla_cache_free(net, &cX);
  if (need_z) valla_cache_free(net, &cZ);
  return st;
}
