/* test_valla_ntk.c -- VaLLA network layer: forward pass vs a
 * naive per-point loop, the nnet weight layout vs a naive nnet forward, the
 * Jacobian vs central differences on every weight, and the NTK contraction vs the
 * explicit J J' for every activation, skip layers, mixed tags and layer masks. */
#include "valla_fixtures.h"

/* ------------------------------------------------------------ naive oracles */

static double naive_act(sgp_activation f, double h)
{
  switch (f) {
  case SGP_ACT_TANH: return (exp(h) - exp(-h)) / (exp(h) + exp(-h));
  case SGP_ACT_SIGMOID: return 1.0 / (1.0 + exp(-h));
  case SGP_ACT_SIGMOID_NNET: return h < -15 ? 0.0 : h > 15 ? 1.0 : 1.0 / (1.0 + exp(-h));
  case SGP_ACT_RELU: return h > 0 ? h : 0;
  default: return h;
  }
}

/* g (n x C) for row-major-free column-major X (n x D), one point at a time. */
static void naive_forward(const sgp_valla_net *net, const double *X, int64_t n, double *G)
{
  const int L = net->n_layers;
  const int64_t D = net->width[0], C = net->width[L];
  double a[64], h[64];
  for (int64_t i = 0; i < n; i++) {
    int64_t w = D;
    for (int64_t j = 0; j < D; j++) a[j] = X[i + n * j];
    for (int l = 0; l < L; l++) {
      const int64_t o = net->width[l + 1];
      for (int64_t k = 0; k < o; k++) {
        double s = net->b[l][k];
        for (int64_t j = 0; j < w; j++) s += a[j] * net->W[l][j + w * k];
        if (l == L - 1 && net->skip)
          for (int64_t j = 0; j < D; j++) s += X[i + n * j] * net->skip[j + D * k];
        h[k] = s;
      }
      for (int64_t k = 0; k < o; k++) a[k] = naive_act(l < L - 1 ? net->activation : net->output, h[k]);
      w = o;
    }
    for (int64_t k = 0; k < C; k++) G[i + n * k] = a[k];
  }
}

/* nnet's fpass on the raw wts vector (units: bias, inputs, hidden, outputs). */
static void naive_nnet(int64_t D, int64_t H, int64_t K, int skip, int out_sig, const double *w,
                       const double *X, int64_t n, double *G)
{
  double u[64];
  for (int64_t i = 0; i < n; i++) {
    u[0] = 1.0;
    for (int64_t j = 0; j < D; j++) u[1 + j] = X[i + n * j];
    int64_t p = 0;
    for (int64_t j = 0; j < H; j++) {
      double s = w[p++];
      for (int64_t k = 0; k < D; k++) s += w[p++] * u[1 + k];
      u[1 + D + j] = naive_act(SGP_ACT_SIGMOID_NNET, s);
    }
    for (int64_t k = 0; k < K; k++) {
      double s = w[p++];
      if (H > 0) {
        for (int64_t j = 0; j < H; j++) s += w[p++] * u[1 + D + j];
        if (skip) for (int64_t j = 0; j < D; j++) s += w[p++] * u[1 + j];
      } else {
        for (int64_t j = 0; j < D; j++) s += w[p++] * u[1 + j];
      }
      G[i + n * k] = out_sig ? naive_act(SGP_ACT_SIGMOID_NNET, s) : s;
    }
  }
}

/* Central-difference Jacobian (nC x P) of the core's forward pass. */
static void fd_jacobian(sgp_valla_net *net, const double *X, int64_t n, double *J)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t C = net->width[net->n_layers], P = sgp_valla_net_nparam(net);
  double *gp = th_zeros(n * C), *gm = th_zeros(n * C);
  sgp_cmat Xv = sgp_cmat_of(X, n, net->width[0]);
  for (int64_t p = 0; p < P; p++) {
    double *w = vf_param(net, p), w0 = *w, h = 1e-6 * fmax(1.0, fabs(w0));
    *w = w0 + h;
    assert_int_equal(sgp_valla_forward(&ctx, net, Xv, sgp_mat_of(gp, n, C)), SGP_OK);
    *w = w0 - h;
    assert_int_equal(sgp_valla_forward(&ctx, net, Xv, sgp_mat_of(gm, n, C)), SGP_OK);
    *w = w0;
    for (int64_t r = 0; r < n * C; r++) J[r + n * C * p] = (gp[r] - gm[r]) / (2 * h);
  }
  free(gp); free(gm);
}

/* ------------------------------------------------------------ cases */

typedef struct { int L; int64_t width[5]; int skip; sgp_activation act, out; } net_case;

static const net_case cases[] = {
  {2, {3, 5, 2}, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY},
  {3, {2, 4, 3, 3}, 0, SGP_ACT_SIGMOID, SGP_ACT_IDENTITY},
  {2, {3, 6, 3}, 1, SGP_ACT_RELU, SGP_ACT_IDENTITY},
  {2, {1, 4, 1}, 1, SGP_ACT_SIGMOID_NNET, SGP_ACT_SIGMOID_NNET},
  {3, {2, 3, 4, 2}, 1, SGP_ACT_TANH, SGP_ACT_SIGMOID},
  {1, {3, 2}, 1, SGP_ACT_TANH, SGP_ACT_IDENTITY},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static void forward_matches_naive(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 11);
  for (int k = 0; k < NCASES; k++) {
    const net_case *nc = &cases[k];
    sgp_valla_net net;
    vf_random_net(&rng, nc->L, nc->width, nc->skip, nc->act, nc->out, 1.5, &net);
    const int64_t n = 9, D = nc->width[0], C = nc->width[nc->L];
    double *X = th_zeros(n * D), *G = th_zeros(n * C), *R = th_zeros(n * C);
    th_randn(&rng, n * D, X, 1.0, 0.0);
    assert_int_equal(sgp_valla_forward(&ctx, &net, sgp_cmat_of(X, n, D), sgp_mat_of(G, n, C)), SGP_OK);
    naive_forward(&net, X, n, R);
    assert_le(vf_rel(n * C, G, R), 1e-13);
    sgp_valla_net_free(&net);
    free(X); free(G); free(R);
  }
}

static void nnet_layout_matches_naive_nnet(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 12);
  /* D, H, K, skip, out_sigmoid: linout, softmax K = 3, entropy, size 0 + skip */
  const int64_t conf[][5] = {{1, 3, 1, 0, 0}, {3, 4, 3, 1, 0}, {3, 2, 1, 1, 1},
                             {1, 0, 1, 1, 0}, {3, 0, 3, 1, 1}, {3, 5, 1, 0, 1}};
  for (int k = 0; k < 6; k++) {
    const int64_t D = conf[k][0], H = conf[k][1], K = conf[k][2];
    const int skip = (int)conf[k][3], os = (int)conf[k][4];
    const int64_t P = H > 0 ? H * (D + 1) + K * (H + 1 + skip * D) : K * (D + 1);
    const int64_t n = 12;
    double *w = th_zeros(P), *X = th_zeros(n * D), *G = th_zeros(n * K), *R = th_zeros(n * K);
    th_randn(&rng, P, w, 3.0, 0.0);
    th_randn(&rng, n * D, X, 4.0, 0.0); /* large: some units clip at +-15 */
    sgp_valla_net net;
    assert_int_equal(sgp_valla_net_from_nnet(&ctx, D, H, K, skip, os, sgp_cmat_of(w, P, 1), &net),
                     SGP_OK);
    assert_int_equal(sgp_valla_net_nparam(&net), P);
    assert_int_equal(sgp_valla_forward(&ctx, &net, sgp_cmat_of(X, n, D), sgp_mat_of(G, n, K)), SGP_OK);
    naive_nnet(D, H, K, skip, os, w, X, n, R);
    assert_le(vf_rel(n * K, G, R), 1e-12);
    sgp_valla_net_free(&net);
    free(w); free(X); free(G); free(R);
  }
  /* wrong length names wts */
  double w[3] = {0};
  sgp_valla_net net;
  assert_int_equal(sgp_valla_net_from_nnet(&ctx, 2, 1, 1, 0, 0, sgp_cmat_of(w, 3, 1), &net), SGP_EINVAL);
  assert_contains(ctx.errmsg, "wts");
  assert_int_equal(sgp_valla_net_from_nnet(&ctx, 2, 0, 1, 0, 0, sgp_cmat_of(w, 3, 1), &net), SGP_EINVAL);
  assert_contains(ctx.errmsg, "skip");
}

/* Jacobian vs central differences, and NTK = J J' for all output pairs. */
static void jacobian_and_ntk_match_dense(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 13);
  for (int k = 0; k < NCASES; k++) {
    const net_case *nc = &cases[k];
    sgp_valla_net net;
    vf_random_net(&rng, nc->L, nc->width, nc->skip, nc->act, nc->out, 1.2, &net);
    const int64_t n = 5, M = 4, D = nc->width[0], C = nc->width[nc->L];
    const int64_t P = sgp_valla_net_nparam(&net), nC = n * C;
    double *X = th_zeros(n * D), *Z = th_zeros(M * D);
    th_randn(&rng, n * D, X, 1.0, 0.0);
    th_randn(&rng, M * D, Z, 1.0, 0.0);
    int tags[4];
    for (int m = 0; m < M; m++) tags[m] = (int)((m * 7 + 1) % C);
    double *J = th_zeros(nC * P), *Jfd = th_zeros(nC * P), *JZ = th_zeros(M * C * P);
    assert_int_equal(sgp_valla_jacobian(&ctx, &net, sgp_cmat_of(X, n, D), sgp_mat_of(J, nC, P)), SGP_OK);
    fd_jacobian(&net, X, n, Jfd);
    assert_le(vf_rel(nC * P, J, Jfd), 1e-6);
    assert_int_equal(sgp_valla_jacobian(&ctx, &net, sgp_cmat_of(Z, M, D), sgp_mat_of(JZ, M * C, P)), SGP_OK);

    for (int mask = 0; mask < 2; mask++) { /* all layers; last layer only */
      int layers[4] = {0, 0, 0, 0};
      layers[nc->L - 1] = 1;
      const int *lay = mask ? layers : NULL;
      /* parameter range of the masked layers */
      int64_t p0 = 0;
      if (mask) for (int l = 0; l < nc->L - 1; l++) p0 += (nc->width[l] + 1) * nc->width[l + 1];
      const double s0 = 0.7;
      double *KXZ = th_zeros(nC * M), *KZZ = th_zeros(M * M), *kd = th_zeros(nC),
             *Kf = th_zeros(C * C * n);
      assert_int_equal(sgp_valla_ntk(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(Z, M, D), tags, lay,
                                     s0, sgp_mat_of(KXZ, nC, M), sgp_mat_of(KZZ, M, M),
                                     sgp_mat_of(kd, nC, 1), sgp_mat_of(Kf, C * C * n, 1)), SGP_OK);
      double *rXZ = th_zeros(nC * M), *rZZ = th_zeros(M * M), *rd = th_zeros(nC), *rf = th_zeros(C * C * n);
      for (int64_t r = 0; r < nC; r++)
        for (int64_t m = 0; m < M; m++) {
          double s = 0;
          for (int64_t p = p0; p < P; p++) s += J[r + nC * p] * JZ[m + M * tags[m] + M * C * p];
          rXZ[r + nC * m] = s0 * s;
        }
      for (int64_t a = 0; a < M; a++)
        for (int64_t m = 0; m < M; m++) {
          double s = 0;
          for (int64_t p = p0; p < P; p++)
            s += JZ[a + M * tags[a] + M * C * p] * JZ[m + M * tags[m] + M * C * p];
          rZZ[a + M * m] = s0 * s;
        }
      for (int64_t i = 0; i < n; i++)
        for (int64_t a = 0; a < C; a++)
          for (int64_t b = 0; b < C; b++) {
            double s = 0;
            for (int64_t p = p0; p < P; p++) s += J[i + n * a + nC * p] * J[i + n * b + nC * p];
            rf[a + C * b + C * C * i] = s0 * s;
            if (a == b) rd[i + n * a] = s0 * s;
          }
      assert_le(vf_rel(nC * M, KXZ, rXZ), 1e-12);
      assert_le(vf_rel(M * M, KZZ, rZZ), 1e-12);
      assert_le(vf_rel(nC, kd, rd), 1e-12);
      assert_le(vf_rel(C * C * n, Kf, rf), 1e-12);
      free(KXZ); free(KZZ); free(kd); free(Kf); free(rXZ); free(rZZ); free(rd); free(rf);
    }
    sgp_valla_net_free(&net);
    free(X); free(Z); free(J); free(Jfd); free(JZ);
  }
}

static void nnet_jacobian_matches_fd(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 14);
  const int64_t D = 2, H = 3, K = 3, P = H * (D + 1) + K * (H + 1 + D), n = 4;
  double w[64], X[8];
  th_randn(&rng, P, w, 1.0, 0.0);
  th_randn(&rng, n * D, X, 1.0, 0.0);
  sgp_valla_net net;
  assert_int_equal(sgp_valla_net_from_nnet(&ctx, D, H, K, 1, 0, sgp_cmat_of(w, P, 1), &net), SGP_OK);
  double *J = th_zeros(n * K * P), *Jfd = th_zeros(n * K * P);
  assert_int_equal(sgp_valla_jacobian(&ctx, &net, sgp_cmat_of(X, n, D), sgp_mat_of(J, n * K, P)), SGP_OK);
  fd_jacobian(&net, X, n, Jfd);
  assert_le(vf_rel(n * K * P, J, Jfd), 1e-6);
  sgp_valla_net_free(&net);
  free(J); free(Jfd);
}


/* f(Z) = <Om_BZ, K0_BZ> + <Om_ZZ, K0_ZZ> at unscaled kernels. */
static double adjoint_objective(const sgp_valla_net *net, const double *X, int64_t n,
                                const double *Z, int64_t M, const int *tags, const int *layers,
                                const double *Om_BZ, const double *Om_ZZ)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t D = net->width[0], C = net->width[net->n_layers];
  double *KXZ = th_zeros(n * C * M), *KZZ = th_zeros(M * M), f = 0;
  assert_int_equal(sgp_valla_ntk(&ctx, net, sgp_cmat_of(X, n, D), sgp_cmat_of(Z, M, D), tags, layers,
                                 1.0, sgp_mat_of(KXZ, n * C, M), sgp_mat_of(KZZ, M, M),
                                 sgp_mat_of(NULL, 0, 0), sgp_mat_of(NULL, 0, 0)), SGP_OK);
  for (int64_t k = 0; k < n * C * M; k++) f += Om_BZ[k] * KXZ[k];
  for (int64_t k = 0; k < M * M; k++) f += Om_ZZ[k] * KZZ[k];
  free(KXZ); free(KZZ);
  return f;
}

static void z_adjoint_matches_fd(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 16);
  for (int k = 0; k < NCASES; k++) {
    const net_case *nc = &cases[k];
    sgp_valla_net net;
    vf_random_net(&rng, nc->L, nc->width, nc->skip, nc->act, nc->out, 1.2, &net);
    const int64_t n = 4, M = 3, D = nc->width[0], C = nc->width[nc->L], nC = n * C;
    double *X = th_zeros(n * D), *Z = th_zeros(M * D), *Ob = th_zeros(nC * M), *Oz = th_zeros(M * M),
           *g = th_zeros(M * D), *gfd = th_zeros(M * D);
    th_randn(&rng, n * D, X, 1.0, 0.0);
    th_randn(&rng, M * D, Z, 1.0, 0.0);
    th_randn(&rng, nC * M, Ob, 1.0, 0.0);
    for (int64_t a = 0; a < M; a++)
      for (int64_t b = 0; b <= a; b++) Oz[a + M * b] = Oz[b + M * a] = sgp_rng_normal(&rng);
    int tags[3];
    for (int m = 0; m < M; m++) tags[m] = (int)((m + 1) % C);
    for (int mask = 0; mask < 2; mask++) {
      int layers[4] = {0, 0, 0, 0};
      layers[0] = 1; /* first layer only: exercises the full double backprop */
      const int *lay = mask ? layers : NULL;
      valla_cache cB, cZ;
      assert_int_equal(valla_cache_build(&ctx, &net, sgp_cmat_of(X, n, D), NULL, &cB), SGP_OK);
      assert_int_equal(valla_cache_build(&ctx, &net, sgp_cmat_of(Z, M, D), tags, &cZ), SGP_OK);
      memset(g, 0, (size_t)(M * D) * sizeof(double));
      assert_int_equal(valla_ntk_adjoint_z(&ctx, &net, &cB, &cZ, lay, Ob, Oz, g), SGP_OK);
      valla_cache_free(&net, &cB);
      valla_cache_free(&net, &cZ);
      for (int64_t p = 0; p < M * D; p++) {
        const double z0 = Z[p], h = 1e-6 * fmax(1.0, fabs(z0));
        Z[p] = z0 + h;
        const double fp = adjoint_objective(&net, X, n, Z, M, tags, lay, Ob, Oz);
        Z[p] = z0 - h;
        const double fm = adjoint_objective(&net, X, n, Z, M, tags, lay, Ob, Oz);
        Z[p] = z0;
        gfd[p] = (fp - fm) / (2 * h);
      }
      assert_le(vf_rel(M * D, g, gfd), 1e-6);
    }
    sgp_valla_net_free(&net);
    free(X); free(Z); free(Ob); free(Oz); free(g); free(gfd);
  }
}

static void bad_arguments_are_named(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 15);
  const int64_t width[3] = {2, 3, 2};
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.0, &net);
  double X[12] = {0}, G[8], KXZ[16], Z[4] = {0, 1, 2, 3};
  int tags[2] = {0, 2};
  /* shape mismatch between data and network */
  assert_int_equal(sgp_valla_forward(&ctx, &net, sgp_cmat_of(X, 4, 3), sgp_mat_of(G, 4, 2)), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x has 3 columns");
  /* tag outside 0..C-1 */
  assert_int_equal(sgp_valla_ntk(&ctx, &net, sgp_cmat_of(X, 4, 2), sgp_cmat_of(Z, 2, 2), tags, NULL, 1.0,
                                 sgp_mat_of(KXZ, 8, 2), sgp_mat_of(NULL, 0, 0), sgp_mat_of(NULL, 0, 0),
                                 sgp_mat_of(NULL, 0, 0)), SGP_EINVAL);
  assert_contains(ctx.errmsg, "tags[1]");
  /* non-finite input */
  X[3] = NAN;
  assert_int_equal(sgp_valla_ntk(&ctx, &net, sgp_cmat_of(X, 4, 2), sgp_cmat_of(Z, 2, 2), tags, NULL, 1.0,
                                 sgp_mat_of(KXZ, 8, 2), sgp_mat_of(NULL, 0, 0), sgp_mat_of(NULL, 0, 0),
                                 sgp_mat_of(NULL, 0, 0)), SGP_EINVAL);
  assert_contains(ctx.errmsg, "x");
  /* a layer of the wrong shape, a non-finite weight */
  double W1[6] = {0}, b1[3] = {0}, W2[6] = {0}, b2[2] = {0};
  sgp_cmat Wv[2] = {sgp_cmat_of(W1, 3, 2), sgp_cmat_of(W2, 3, 2)}, bv[2] = {sgp_cmat_of(b1, 3, 1), sgp_cmat_of(b2, 2, 1)};
  sgp_valla_mlp mlp = {2, width, Wv, bv, 0, sgp_cmat_of(NULL, 0, 0), SGP_ACT_TANH, SGP_ACT_IDENTITY};
  sgp_valla_net bad;
  assert_int_equal(sgp_valla_net_from_mlp(&ctx, &mlp, &bad), SGP_EINVAL);
  assert_contains(ctx.errmsg, "W[1] must be 2 x 3");
  mlp.transpose = 1; /* now both are read out x in */
  Wv[1] = sgp_cmat_of(W2, 2, 3);
  W2[4] = INFINITY;
  assert_int_equal(sgp_valla_net_from_mlp(&ctx, &mlp, &bad), SGP_EINVAL);
  assert_contains(ctx.errmsg, "W[2] has a non-finite");
  sgp_valla_net_free(&net);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(forward_matches_naive),
    cmocka_unit_test(nnet_layout_matches_naive_nnet),
    cmocka_unit_test(jacobian_and_ntk_match_dense),
    cmocka_unit_test(nnet_jacobian_matches_fd),
    cmocka_unit_test(z_adjoint_matches_fd),
    cmocka_unit_test(bad_arguments_are_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
