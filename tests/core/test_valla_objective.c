/* test_valla_objective.c -- the VaLLA alpha-objective (docs/valla.md):
 * every gradient (L, log sigma0, log noise, Z) vs central differences for
 * Gaussian (alpha 1, 0, 0.5), softmax probit and binary probit with tanh,
 * logistic, relu and nnet networks; the KL vs dense formulas. */
#include "valla_fixtures.h"

typedef struct {
  sgp_likelihood lik; double alpha; int L; int64_t width[4]; int skip;
  sgp_activation act, out; int nnet;
} obj_case;

static const obj_case cases[] = {
  {SGP_LIK_GAUSSIAN, 1.0, 2, {2, 5, 1}, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 0},
  {SGP_LIK_GAUSSIAN, 0.0, 2, {2, 5, 1}, 1, SGP_ACT_SIGMOID, SGP_ACT_IDENTITY, 0},
  {SGP_LIK_GAUSSIAN, 0.5, 3, {1, 4, 3, 1}, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 0},
  {SGP_LIK_GAUSSIAN, 1.0, 2, {2, 3, 1}, 1, SGP_ACT_SIGMOID_NNET, SGP_ACT_SIGMOID_NNET, 1},
  {SGP_LIK_SOFTMAX, 1.0, 2, {2, 4, 3}, 0, SGP_ACT_SIGMOID, SGP_ACT_IDENTITY, 0},
  {SGP_LIK_SOFTMAX, 1.0, 2, {3, 6, 3}, 1, SGP_ACT_RELU, SGP_ACT_IDENTITY, 0},
  {SGP_LIK_SOFTMAX, 1.0, 2, {2, 3, 3}, 1, SGP_ACT_SIGMOID_NNET, SGP_ACT_IDENTITY, 1},
  {SGP_LIK_BERNOULLI, 1.0, 2, {2, 4, 1}, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 0},
};
#define NCASES ((int)(sizeof cases / sizeof cases[0]))

static double objective_at(sgp_valla_result *f, sgp_cmat Xb, sgp_cmat yb)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double v = 0;
  assert_int_equal(valla_objective(&ctx, f, Xb, yb, &v, NULL, NULL), SGP_OK);
  return v;
}

/* Central difference of the objective in *x. */
static double fd(sgp_valla_result *f, sgp_cmat Xb, sgp_cmat yb, double *x)
{
  const double x0 = *x, h = 1e-6 * fmax(1.0, fabs(x0));
  *x = x0 + h;
  const double fp = objective_at(f, Xb, yb);
  *x = x0 - h;
  const double fm = objective_at(f, Xb, yb);
  *x = x0;
  return (fp - fm) / (2 * h);
}

static void gradients_match_fd(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 21);
  for (int k = 0; k < NCASES; k++) {
    const obj_case *oc = &cases[k];
    sgp_valla_net net;
    if (oc->nnet) {
      const int64_t D = oc->width[0], H = oc->width[1], K = oc->width[2];
      const int64_t P = H * (D + 1) + K * (H + 1 + D);
      double w[64];
      th_randn(&rng, P, w, 1.0, 0.0);
      assert_int_equal(sgp_valla_net_from_nnet(&ctx, D, H, K, oc->skip, oc->out != SGP_ACT_IDENTITY,
                                               sgp_cmat_of(w, P, 1), &net), SGP_OK);
    } else {
      vf_random_net(&rng, oc->L, oc->width, oc->skip, oc->act, oc->out, 1.3, &net);
    }
    const int64_t M = 4, nb = 6, D = oc->width[0];
    sgp_valla_result *f = vf_fit_state(&rng, &net, oc->lik, M, 50, 0.6);
    f->alpha = oc->alpha;
    if (oc->lik == SGP_LIK_GAUSSIAN) { f->y_mean = 0.3; f->y_sd = 1.7; }
    double *X = th_zeros(nb * D), y[6];
    th_randn(&rng, nb * D, X, 1.0, 0.0);
    for (int64_t i = 0; i < nb; i++)
      y[i] = oc->lik == SGP_LIK_GAUSSIAN ? 0.3 + 1.7 * sgp_rng_normal(&rng)
                                         : (double)(i % (oc->lik == SGP_LIK_BERNOULLI ? 2 : f->C));
    sgp_cmat Xb = sgp_cmat_of(X, nb, D), yb = sgp_cmat_of(y, nb, 1);
    valla_grad g;
    memset(&g, 0, sizeof g);
    g.dL = th_zeros(M * M);
    g.dZ = th_zeros(M * D);
    double val = 0;
    int64_t clamps = -1;
    assert_int_equal(valla_objective(&ctx, f, Xb, yb, &val, &g, &clamps), SGP_OK);
    assert_true(isfinite(val));
    assert_int_equal(clamps, 0);
    double *dL = th_zeros(M * M), *dZ = th_zeros(M * D);
    for (int64_t j = 0; j < M; j++)
      for (int64_t i = j; i < M; i++) dL[i + M * j] = fd(f, Xb, yb, &f->L[i + M * j]);
    for (int64_t p = 0; p < M * D; p++) dZ[p] = fd(f, Xb, yb, &f->Z[p]);
    const double ds = fd(f, Xb, yb, &f->log_sigma0), dn = fd(f, Xb, yb, &f->log_noise);
    assert_le(vf_rel(M * M, g.dL, dL), 1e-6);
    assert_le(vf_rel(M * D, g.dZ, dZ), 1e-6);
    assert_close(g.d_log_sigma0, ds, 1e-6 * fmax(1.0, fabs(ds)));
    assert_close(g.d_log_s0, 0.5 * ds, 1e-6 * fmax(1.0, fabs(ds)));
    assert_close(g.d_log_noise, dn, 1e-6 * fmax(1.0, fabs(dn)));
    if (oc->lik != SGP_LIK_GAUSSIAN) assert_true(g.d_log_noise == 0.0);
    free(g.dL); free(g.dZ); free(dL); free(dZ); free(X);
    sgp_valla_fit_free(f);
    sgp_valla_net_free(&net);
  }
}

/* log det of an SPD matrix from its Jacobi eigenvalues. */
static double logdet(int64_t n, const double *A)
{
  double w[16], s = 0;
  th_jacobi_eig(n, A, w);
  for (int64_t i = 0; i < n; i++) s += log(w[i]);
  return s;
}

static void kl_matches_dense_formulas(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 22);
  const int64_t M = 5;
  double K[25], L[25] = {0}, A[25], Ai[25], I[25] = {0}, Bi[25], B[25], KB[25], KBK[25], St[25],
         KiSt[25], w[5], kl;
  th_random_spd(&rng, M, 0.5, K);
  for (int64_t i = 0; i < M; i++) I[i + M * i] = 1.0;
  /* L = 0: KL = 0 */
  assert_int_equal(valla_kl(&ctx, M, L, K, &kl), SGP_OK);
  assert_close(kl, 0.0, 1e-15);
  for (int64_t j = 0; j < M; j++) {
    L[j + M * j] = 0.8 + sgp_rng_uniform(&rng);
    for (int64_t i = j + 1; i < M; i++) L[i + M * j] = 0.4 * sgp_rng_normal(&rng);
  }
  assert_int_equal(valla_kl(&ctx, M, L, K, &kl), SGP_OK);
  assert_true(kl > 0);
  /* classical KL(N(0, S~) || N(0, K)), S~ = K - K B K, B = (A^{-1} + K)^{-1} */
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < M; j++) {
      double s = 0;
      for (int64_t k = 0; k < M; k++) s += L[i + M * k] * L[j + M * k];
      A[i + M * j] = s;
    }
  assert_int_equal(th_chol_solve(M, A, M, I, Ai), 0);
  for (int64_t k = 0; k < M * M; k++) Bi[k] = Ai[k] + K[k];
  assert_int_equal(th_chol_solve(M, Bi, M, I, B), 0);
  th_matmul(M, M, M, K, B, KB);
  th_matmul(M, M, M, KB, K, KBK);
  for (int64_t k = 0; k < M * M; k++) St[k] = K[k] - KBK[k];
  assert_int_equal(th_chol_solve(M, K, M, St, KiSt), 0);
  double tr = 0;
  for (int64_t i = 0; i < M; i++) tr += KiSt[i + M * i];
  const double ref = 0.5 * (tr - M - logdet(M, St) + logdet(M, K));
  assert_close(kl, ref, 1e-10 * fabs(ref));
  /* eigenvalue formula on S = L'KL */
  double KLm[25], S[25], ev = 0;
  th_matmul(M, M, M, K, L, KLm);
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < M; j++) {
      double s = 0;
      for (int64_t k = 0; k < M; k++) s += L[k + M * i] * KLm[k + M * j];
      S[i + M * j] = s;
    }
  th_jacobi_eig(M, S, w);
  for (int64_t i = 0; i < M; i++) ev += 0.5 * (log1p(w[i]) - w[i] / (1 + w[i]));
  assert_close(kl, ev, 1e-10 * fabs(ev));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(gradients_match_fd),
    cmocka_unit_test(kl_matches_dense_formulas),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
