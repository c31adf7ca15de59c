/* valla_mlp.c -- MLP forward pass and per-layer sensitivities for a
 * point set, as GEMMs over all points at once; the explicit Jacobian for tests. */
#include "valla/valla.h"

#include <stdlib.h>
#include <string.h>

#define PAR_MIN 65536 /* elementwise loops this long go parallel (shorter: fork/spin costs more) */

void valla_cache_free(const sgp_valla_net *net, valla_cache *c)
{
  if (!c) return;
  const int L = net->n_layers;
  valla_arena *a = c->arena;
  for (int l = 0; l < L; l++) {
    if (c->A) valla_arena_free(a, c->A[l]);
    if (c->H) valla_arena_free(a, c->H[l]);
    if (c->Dl) valla_arena_free(a, c->Dl[l]);
    if (c->U) valla_arena_free(a, c->U[l]);
  }
  free(c->A); free(c->H); free(c->Dl); free(c->U);
  valla_arena_free(a, c->G);
  free(c->pt); free(c->cls);
  memset(c, 0, sizeof *c);
}

/* Forward pass into c->A, c->H, c->G. */
static int forward(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, valla_cache *c)
{
  const int L = net->n_layers;
  const int64_t n = c->n, D = net->width[0], C = net->width[L];
  for (int64_t j = 0; j < D; j++)
    memcpy(c->A[0] + j * n, X.data + j * X.ld, (size_t)n * sizeof(double));
  for (int l = 0; l < L; l++) {
    const int64_t in = net->width[l], out = net->width[l + 1];
    double *H = c->H[l];
    for (int64_t j = 0; j < out; j++)
      for (int64_t i = 0; i < n; i++) H[i + j * n] = net->b[l][j];
    int st = sgp_gemm(ctx, 'N', 'N', n, out, in, 1.0, c->A[l], n, net->W[l], in, 1.0, H, n);
    if (!st && l == L - 1 && net->skip)
      st = sgp_gemm(ctx, 'N', 'N', n, out, D, 1.0, c->A[0], n, net->skip, D, 1.0, H, n);
    if (st) return st;
    const sgp_activation f = l < L - 1 ? net->activation : net->output;
    double *dst = l < L - 1 ? c->A[l + 1] : c->G;
    const int64_t len = n * out;
    const int nt = sgp_ctx_threads(ctx);
#pragma omp parallel for num_threads(nt) if (len > PAR_MIN)
    for (int64_t k = 0; k < len; k++) dst[k] = valla_act(f, H[k]);
  }
  (void)C;
  return SGP_OK;
}

/* Backprop of output cls[r] at point pt[r] for every row r. */
static int backward(sgp_ctx *ctx, const sgp_valla_net *net, valla_cache *c)
{
  const int L = net->n_layers;
  const int64_t n = c->n, nr = c->nr, C = net->width[L];
  double *DL = c->Dl[L - 1];
  memset(DL, 0, (size_t)(nr * C) * sizeof(double));
  for (int64_t r = 0; r < nr; r++) {
    const int64_t k = c->pt[r] + n * c->cls[r];
    DL[r + nr * c->cls[r]] = valla_act_d1(net->output, c->H[L - 1][k], c->G[k]);
  }
  for (int l = L - 2; l >= 0; l--) {
    const int64_t w = net->width[l + 1], w2 = net->width[l + 2];
    int st = sgp_gemm(ctx, 'N', 'T', nr, w, w2, 1.0, c->Dl[l + 1], nr, net->W[l + 1], w, 0.0,
                      c->U[l], nr);
    if (st) return st;
    const double *H = c->H[l], *A = c->A[l + 1], *U = c->U[l];
    double *Dn = c->Dl[l];
    const int64_t *pt = c->pt;
    const sgp_activation f = net->activation;
    const int nt = sgp_ctx_threads(ctx);
#pragma omp parallel for num_threads(nt) if (nr * w > PAR_MIN)
    for (int64_t j = 0; j < w; j++)
      for (int64_t r = 0; r < nr; r++) {
        const int64_t k = pt[r] + n * j;
        Dn[r + nr * j] = U[r + nr * j] * valla_act_d1(f, H[k], A[k]);
      }
  }
  return SGP_OK;
}

int valla_cache_build(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, const int *tags,
                      valla_cache *c)
{
  return valla_cache_build_a(ctx, net, X, tags, NULL, c);
}

int valla_cache_build_a(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, const int *tags,
                        valla_arena *arena, valla_cache *c)
{
  int st = valla_cache_forward(ctx, net, X, arena, c);
  if (st) return st;
  const int L = net->n_layers;
  const int64_t n = c->n, C = net->width[L];
  c->nr = tags ? n : n * C;
  c->Dl = (double **)calloc((size_t)L, sizeof(double *));
  c->U = (double **)calloc((size_t)L, sizeof(double *));
  c->pt = (int64_t *)malloc((size_t)(c->nr > 0 ? c->nr : 1) * sizeof(int64_t));
  c->cls = (int *)malloc((size_t)(c->nr > 0 ? c->nr : 1) * sizeof(int));
  int ok = c->Dl && c->U && c->pt && c->cls;
  for (int l = 0; ok && l < L; l++) {
    c->Dl[l] = valla_arena_alloc(arena, c->nr * net->width[l + 1]);
    if (l < L - 1) c->U[l] = valla_arena_alloc(arena, c->nr * net->width[l + 1]);
    ok = c->Dl[l] && (l == L - 1 || c->U[l]);
  }
  if (!ok) {
    valla_cache_free(net, c);
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory for the network caches");
  }
  for (int64_t r = 0; r < c->nr; r++) {
    c->pt[r] = tags ? r : r % n;
    c->cls[r] = tags ? tags[r] : (int)(r / n);
  }
  st = backward(ctx, net, c);
  if (st) valla_cache_free(net, c);
  return st;
}

int valla_cache_forward(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, valla_arena *arena,
                        valla_cache *c)
{
  const int L = net->n_layers;
  const int64_t n = X.rows, C = net->width[L];
  memset(c, 0, sizeof *c);
  if (X.cols != net->width[0])
    return sgp_fail(ctx, SGP_EINVAL, "x has %lld columns but the network expects %lld inputs",
                    (long long)X.cols, (long long)net->width[0]);
  c->arena = arena;
  c->n = n;
  c->A = (double **)calloc((size_t)L, sizeof(double *));
  c->H = (double **)calloc((size_t)L, sizeof(double *));
  c->G = valla_arena_alloc(arena, n * C);
  int ok = c->A && c->H && c->G;
  for (int l = 0; ok && l < L; l++) {
    c->A[l] = valla_arena_alloc(arena, n * net->width[l]);
    c->H[l] = valla_arena_alloc(arena, n * net->width[l + 1]);
    ok = c->A[l] && c->H[l];
  }
  int st = ok ? forward(ctx, net, X, c)
              : sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory in the forward pass");
  if (st) valla_cache_free(net, c);
  return st;
}

int sgp_valla_forward(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_mat G)
{
  const int L = net->n_layers;
  const int64_t n = X.rows, C = net->width[L];
  if (G.rows != n || G.cols != C)
    return sgp_fail(ctx, SGP_EDIM, "output must be %lld x %lld", (long long)n, (long long)C);
  valla_cache c;
  int st = valla_cache_forward(ctx, net, X, NULL, &c);
  if (st) return st;
  for (int64_t j = 0; j < C; j++)
    memcpy(G.data + j * G.ld, c.G + j * n, (size_t)n * sizeof(double));
  valla_cache_free(net, &c);
  return SGP_OK;
}

int64_t valla_nparam_active(const sgp_valla_net *net, const int *layers)
{
  const int L = net->n_layers;
  int64_t P = 0;
  for (int l = 0; l < L; l++)
    if (!layers || layers[l]) P += (net->width[l] + 1) * net->width[l + 1];
  if (net->skip && (!layers || layers[L - 1])) P += net->width[0] * net->width[L];
  return P;
}

void valla_jacobian_rows(const sgp_valla_net *net, const valla_cache *c, const int *layers,
                         double *J, int64_t ldj)
{
  const int L = net->n_layers;
  const int64_t n = c->n, nr = c->nr;
  int64_t col = 0;
  for (int l = 0; l < L; l++) {
    if (layers && !layers[l]) continue;
    const int64_t in = net->width[l], out = net->width[l + 1];
    for (int64_t o = 0; o < out; o++)
      for (int64_t i = 0; i < in; i++, col++)
        for (int64_t r = 0; r < nr; r++)
          J[r + col * ldj] = c->Dl[l][r + nr * o] * c->A[l][c->pt[r] + n * i];
    for (int64_t o = 0; o < out; o++, col++)
      for (int64_t r = 0; r < nr; r++) J[r + col * ldj] = c->Dl[l][r + nr * o];
  }
  if (net->skip && (!layers || layers[L - 1])) {
    const int64_t D = net->width[0], C = net->width[L];
    for (int64_t o = 0; o < C; o++)
      for (int64_t i = 0; i < D; i++, col++)
        for (int64_t r = 0; r < nr; r++)
          J[r + col * ldj] = c->Dl[L - 1][r + nr * o] * c->A[0][c->pt[r] + n * i];
  }
}

int sgp_valla_jacobian(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_mat J)
{
  const int64_t n = X.rows, C = net->width[net->n_layers], P = sgp_valla_net_nparam(net);
  if (J.rows != n * C || J.cols != P)
    return sgp_fail(ctx, SGP_EDIM, "J must be %lld x %lld", (long long)(n * C), (long long)P);
  valla_cache c;
  int st = valla_cache_build(ctx, net, X, NULL, &c);
  if (st) return st;
  valla_jacobian_rows(net, &c, NULL, J.data, J.ld);
  valla_cache_free(net, &c);
  return SGP_OK;
}
