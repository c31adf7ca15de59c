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

#ifndef VALLA_FIXTURES_FIT
#define VALLA_FIXTURES_FIT
/* A hand-made fit state (no training) for objective / prediction tests:
 * Z ~ N(0, 1), tags m mod C (all 0 for one output), L random lower with a
 * dominant diagonal when lscale > 0 (L = I when lscale == 0). */
static inline sgp_valla_result *vf_fit_state(sgp_rng *rng, const sgp_valla_net *net,
                                            sgp_likelihood lik, int64_t M, int64_t N,
                                            double lscale)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_valla_result *f = calloc(1, sizeof *f);
  assert_int_equal(sgp_valla_net_copy(&ctx, net, &f->net), SGP_OK);
  f->likelihood = lik;
  f->D = net->width[0];
  f->C = net->width[net->n_layers];
  f->n_class = lik == SGP_LIK_BERNOULLI ? 2 : f->C;
  f->M = M;
  f->N = N;
  f->Z = th_zeros(M * f->D);
  th_randn(rng, M * f->D, f->Z, 1.0, 0.0);
  f->tags = calloc((size_t)M, sizeof(int));
  for (int64_t m = 0; m < M; m++) f->tags[m] = (int)(m % f->C);
  f->L = th_zeros(M * M);
  for (int64_t j = 0; j < M; j++) {
    f->L[j + M * j] = 1.0 + (lscale > 0 ? lscale * sgp_rng_uniform(rng) : 0.0);
    for (int64_t i = j + 1; i < M; i++) f->L[i + M * j] = lscale * sgp_rng_normal(rng) * 0.5;
  }
  f->log_sigma0 = 0.5 * log(0.8);
  f->log_noise = log(0.3);
  f->y_mean = 0.0;
  f->y_sd = 1.0;
  f->alpha = 1.0;
  f->prior = 1;
  return f;
}
#endif
