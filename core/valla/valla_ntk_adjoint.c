/* valla_ntk_adjoint.c -- gradient of <Om_BZ, K0_BZ> + <Om_ZZ, K0_ZZ> with respect
 * to the inducing inputs Z: adjoints of the per-layer products, then
 * a second-order ("double") backprop through Z's backward and forward passes. */
#include "valla/valla.h"

#include <stdlib.h>
#include <string.h>

typedef struct { double **Ab, **Db, **Hb; double *T, *P, *Y, *Q, *X; valla_arena *a; } adj_work;

static void work_free(const sgp_valla_net *net, adj_work *w)
{
  valla_arena *a = w->a;
  for (int l = 0; l < net->n_layers; l++) {
    if (w->Ab) valla_arena_free(a, w->Ab[l]);
    if (w->Db) valla_arena_free(a, w->Db[l]);
    if (w->Hb) valla_arena_free(a, w->Hb[l]);
  }
  free(w->Ab); free(w->Db); free(w->Hb);
  valla_arena_free(a, w->T); valla_arena_free(a, w->P); valla_arena_free(a, w->Y);
  valla_arena_free(a, w->Q); valla_arena_free(a, w->X);
}

static int work_alloc(const sgp_valla_net *net, int64_t nrB, int64_t nB, int64_t M,
                      valla_arena *a, adj_work *w)
{
  const int L = net->n_layers;
  int64_t wmax = 1;
  for (int l = 0; l <= L; l++) if (net->width[l] > wmax) wmax = net->width[l];
  memset(w, 0, sizeof *w);
  w->a = a;
  w->Ab = (double **)calloc((size_t)L, sizeof(double *));
  w->Db = (double **)calloc((size_t)L, sizeof(double *));
  w->Hb = (double **)calloc((size_t)L, sizeof(double *));
  const int64_t big = (nrB > M ? nrB : M) * M;
  w->T = valla_arena_alloc(a, big); w->Q = valla_arena_alloc(a, big);
  w->P = valla_arena_alloc(a, (nB > M ? nB : M) * M);
  w->Y = valla_arena_alloc(a, (nB > 0 ? nB : 1) * M);
  w->X = valla_arena_alloc(a, M * wmax);
  int ok = w->Ab && w->Db && w->Hb && w->T && w->Q && w->P && w->Y && w->X;
  for (int l = 0; ok && l < L; l++) {
    w->Ab[l] = valla_arena_calloc(a, M * net->width[l]);
    w->Db[l] = valla_arena_calloc(a, M * net->width[l + 1]);
    w->Hb[l] = valla_arena_calloc(a, M * net->width[l + 1]);
    ok = w->Ab[l] && w->Db[l] && w->Hb[l];
  }
  return ok;
}

/* P (n1 x n2) = A1 A2' + 1 (+ X1 X2' at the last layer with skip). */
static int products(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *c1,
                    const valla_cache *c2, int l, double *P)
{
  for (int64_t k = 0; k < c1->n * c2->n; k++) P[k] = 1.0;
  int st = sgp_gemm(ctx, 'N', 'T', c1->n, c2->n, net->width[l], 1.0, c1->A[l], c1->n, c2->A[l],
                    c2->n, 1.0, P, c1->n);
  if (!st && l == net->n_layers - 1 && net->skip)
    st = sgp_gemm(ctx, 'N', 'T', c1->n, c2->n, net->width[0], 1.0, c1->A[0], c1->n, c2->A[0],
                  c2->n, 1.0, P, c1->n);
  return st;
}

/* Adjoints of the layer products into w->Ab[l] (and Ab[0] for skip) and w->Db[l]. */
static int layer_adjoints(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *cB,
                          const valla_cache *cZ, int l, const double *Om_BZ,
                          const double *Om_ZZ, adj_work *w)
{
  const int64_t nrB = cB->nr, nB = cB->n, M = cZ->n, wi = net->width[l], wo = net->width[l + 1];
  const int skip_here = l == net->n_layers - 1 && net->skip;
  int st = SGP_OK;
  if (Om_BZ && nrB > 0) {
    st = sgp_gemm(ctx, 'N', 'T', nrB, M, wo, 1.0, cB->Dl[l], nrB, cZ->Dl[l], M, 0.0, w->T, nrB);
    if (!st) st = products(ctx, net, cB, cZ, l, w->P);
    if (st) return st;
    memset(w->Y, 0, (size_t)(nB * M) * sizeof(double));
    for (int64_t m = 0; m < M; m++)
      for (int64_t r = 0; r < nrB; r++) {
        const double om = Om_BZ[r + nrB * m];
        w->Y[cB->pt[r] + nB * m] += om * w->T[r + nrB * m];
        w->Q[r + nrB * m] = om * w->P[cB->pt[r] + nB * m];
      }
    st = sgp_gemm(ctx, 'T', 'N', M, wi, nB, 1.0, w->Y, nB, cB->A[l], nB, 1.0, w->Ab[l], M);
    if (!st && skip_here)
      st = sgp_gemm(ctx, 'T', 'N', M, net->width[0], nB, 1.0, w->Y, nB, cB->A[0], nB, 1.0,
                    w->Ab[0], M);
    if (!st) st = sgp_gemm(ctx, 'T', 'N', M, wo, nrB, 1.0, w->Q, nrB, cB->Dl[l], nrB, 1.0, w->Db[l], M);
    if (st) return st;
  }
  if (Om_ZZ) {
    st = sgp_gemm(ctx, 'N', 'T', M, M, wo, 1.0, cZ->Dl[l], M, cZ->Dl[l], M, 0.0, w->T, M);
    if (!st) st = products(ctx, net, cZ, cZ, l, w->P);
    if (st) return st;
    for (int64_t k = 0; k < M * M; k++) {
      w->Q[k] = Om_ZZ[k] * w->T[k];   /* Om o T */
      w->P[k] = Om_ZZ[k] * w->P[k];   /* Om o P */
    }
    st = sgp_gemm(ctx, 'N', 'N', M, wi, M, 2.0, w->Q, M, cZ->A[l], M, 1.0, w->Ab[l], M);
    if (!st && skip_here)
      st = sgp_gemm(ctx, 'N', 'N', M, net->width[0], M, 2.0, w->Q, M, cZ->A[0], M, 1.0, w->Ab[0], M);
    if (!st) st = sgp_gemm(ctx, 'N', 'N', M, wo, M, 2.0, w->P, M, cZ->Dl[l], M, 1.0, w->Db[l], M);
  }
  return st;
}

int valla_ntk_adjoint_z(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *cB,
                        const valla_cache *cZ, const int *layers, const double *Om_BZ,
                        const double *Om_ZZ, double *Zbar)
{
  const int L = net->n_layers;
  const int64_t M = cZ->n;
  adj_work w;
  if (!work_alloc(net, cB ? cB->nr : 0, cB ? cB->n : 0, M, cZ->arena, &w)) {
    work_free(net, &w);
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the Z gradient");
  }
  int st = SGP_OK;
  for (int l = 0; l < L && !st; l++)
    if (!layers || layers[l])
      st = layer_adjoints(ctx, net, cB, cZ, l, cB ? Om_BZ : NULL, Om_ZZ, &w);
  /* pass 1: adjoint of the delta recursion, first layer upwards; w.X carries
   * the adjoint flowing into Dl[l+1] */
  for (int l = 0; l < L - 1 && !st; l++) {
    const int64_t wo = net->width[l + 1], w2 = net->width[l + 2];
    double *Db = w.Db[l];
    if (l > 0) for (int64_t k = 0; k < M * wo; k++) Db[k] += w.X[k];
    for (int64_t k = 0; k < M * wo; k++) {
      const double h = cZ->H[l][k], a = cZ->A[l + 1][k];
      w.Hb[l][k] += Db[k] * valla_act_d2(net->activation, h, a) * cZ->U[l][k];
      Db[k] *= valla_act_d1(net->activation, h, a);
    }
    st = sgp_gemm(ctx, 'N', 'N', M, w2, wo, 1.0, Db, M, net->W[l + 1], wo, 0.0, w.X, M);
  }
  if (!st) {
    double *Db = w.Db[L - 1];
    for (int64_t m = 0; m < M; m++) {
      const int64_t k = m + M * cZ->cls[m];
      const double d = Db[k] + (L > 1 ? w.X[k] : 0.0);
      w.Hb[L - 1][k] += d * valla_act_d2(net->output, cZ->H[L - 1][k], cZ->G[k]);
    }
  }
  /* pass 2: adjoint of the forward pass, last layer downwards */
  for (int l = L - 1; l >= 0 && !st; l--) {
    const int64_t wi = net->width[l], wo = net->width[l + 1];
    if (l < L - 1)
      for (int64_t k = 0; k < M * wo; k++)
        w.Hb[l][k] += w.Ab[l + 1][k] * valla_act_d1(net->activation, cZ->H[l][k], cZ->A[l + 1][k]);
    st = sgp_gemm(ctx, 'N', 'T', M, wi, wo, 1.0, w.Hb[l], M, net->W[l], wi, 1.0, w.Ab[l], M);
    if (!st && l == L - 1 && net->skip)
      st = sgp_gemm(ctx, 'N', 'T', M, net->width[0], wo, 1.0, w.Hb[l], M, net->skip,
                    net->width[0], 1.0, w.Ab[0], M);
  }
  if (!st)
    for (int64_t k = 0; k < M * net->width[0]; k++) Zbar[k] += w.Ab[0][k];
  work_free(net, &w);
  return st;
}
