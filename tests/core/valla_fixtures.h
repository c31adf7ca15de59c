/* valla_fixtures.h -- small random networks and data shared by the test_valla*.c
 * programs (header-only: every test program is linked on its own). */
#ifndef VALLA_FIXTURES_H
#define VALLA_FIXTURES_H

#include "test_helpers.h"
#include "valla/valla.h"

#include <stdlib.h>

/* A random MLP with the given widths (n_layers + 1 of them), weights N(0, scale^2 / in). */
static inline void vf_random_net(sgp_rng *rng, int L, const int64_t *width, int skip,
                                 sgp_activation act, sgp_activation out, double scale,
                                 sgp_valla_net *net)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t D = width[0], C = width[L];
  sgp_cmat *W = calloc((size_t)L, sizeof *W), *b = calloc((size_t)L, sizeof *b);
  double **buf = calloc((size_t)(2 * L + 1), sizeof(double *));
  for (int l = 0; l < L; l++) {
    const int64_t in = width[l], o = width[l + 1];
    buf[2 * l] = th_zeros(in * o);
    buf[2 * l + 1] = th_zeros(o);
    th_randn(rng, in * o, buf[2 * l], scale / sqrt((double)in), 0.0);
    th_randn(rng, o, buf[2 * l + 1], 0.3, 0.0);
    W[l] = sgp_cmat_of(buf[2 * l], in, o);
    b[l] = sgp_cmat_of(buf[2 * l + 1], o, 1);
  }
  sgp_valla_mlp mlp;
  memset(&mlp, 0, sizeof mlp);
  mlp.n_layers = L;
  mlp.width = width;
  mlp.W = W;
  mlp.b = b;
  mlp.activation = act;
  mlp.output = out;
  if (skip) {
    buf[2 * L] = th_zeros(D * C);
    th_randn(rng, D * C, buf[2 * L], 0.5 / sqrt((double)D), 0.0);
    mlp.skip = sgp_cmat_of(buf[2 * L], D, C);
  }
  assert_int_equal(sgp_valla_net_from_mlp(&ctx, &mlp, net), SGP_OK);
  for (int l = 0; l < 2 * L + 1; l++) free(buf[l]);
  free(buf); free(W); free(b);
}

/* Pointer to parameter p in the documented order (per layer W column-major, b;
 * then skip). */
static inline double *vf_param(sgp_valla_net *net, int64_t p)
{
  for (int l = 0; l < net->n_layers; l++) {
    const int64_t nw = net->width[l] * net->width[l + 1];
    if (p < nw) return net->W[l] + p;
    p -= nw;
    if (p < net->width[l + 1]) return net->b[l] + p;
    p -= net->width[l + 1];
  }
  return net->skip + p;
}

/* Relative max-abs error of x against ref. */
static inline double vf_rel(int64_t n, const double *x, const double *ref)
{
  const double s = th_max_abs(n, ref);
  return th_max_abs_diff(n, x, ref) / (s > 0 ? s : 1.0);
}

#endif
