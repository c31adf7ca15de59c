/* test_valla_lla.c -- LLA Laplace log evidence vs a dense
 * parameter-space computation on the explicit Jacobian
 * (log|I + s0 J' Lambda J| by Jacobi eigenvalues), and the tuned
 * hyper-parameters are a stationary maximum (central differences). */
#include "valla_fixtures.h"

static void evidence_matches_parameter_space(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 61);
  for (int k = 0; k < 3; k++) {
    const sgp_likelihood lik = k == 0 ? SGP_LIK_GAUSSIAN : k == 1 ? SGP_LIK_SOFTMAX : SGP_LIK_BERNOULLI;
    const int64_t C = k == 1 ? 3 : 1, width[3] = {2, 4, C}, n = 9, nC = n * C;
    sgp_valla_net net;
    vf_random_net(&rng, 2, width, 1, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
    const int64_t P = sgp_valla_net_nparam(&net);
    double X[18], y[9], G[27];
    th_randn(&rng, 18, X, 1.0, 0.0);
    assert_int_equal(sgp_valla_forward(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_mat_of(G, n, C)), SGP_OK);
    for (int64_t i = 0; i < n; i++) y[i] = k == 0 ? G[i] + 0.3 * sgp_rng_normal(&rng) : (double)(i % (k == 1 ? 3 : 2));
    const double s0 = 0.7, s = 0.2;
    double *J = th_zeros(nC * P), *Lam = th_zeros(nC * nC), *LJ = th_zeros(nC * P), *A = th_zeros(P * P), *w = th_zeros(P);
    assert_int_equal(sgp_valla_jacobian(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_mat_of(J, nC, P)), SGP_OK);
    double ll = 0, th2 = 0;
    for (int64_t p = 0; p < P; p++) th2 += pow(*vf_param(&net, p), 2);
    for (int64_t i = 0; i < n; i++) {
      if (k == 0) { Lam[i + nC * i] = 1 / s; ll += -0.5 * log(2 * 3.141592653589793 * s) - pow(y[i] - G[i], 2) / (2 * s); continue; }
      double pr[3], z = 0;
      for (int64_t c = 0; c < C; c++) z += exp(G[i + n * c]);
      for (int64_t c = 0; c < C; c++) pr[c] = exp(G[i + n * c]) / z;
      if (k == 2) {
        const double q = 1 / (1 + exp(-G[i]));
        Lam[i + nC * i] = q * (1 - q);
        ll += y[i] > 0.5 ? log(q) : log(1 - q);
        continue;
      }
      ll += log(pr[(int)y[i]]);
      for (int64_t a = 0; a < C; a++)
        for (int64_t b = 0; b < C; b++) Lam[i + n * a + nC * (i + n * b)] = (a == b ? pr[a] : 0) - pr[a] * pr[b];
    }
    th_matmul(nC, P, nC, Lam, J, LJ);
    for (int64_t a = 0; a < P; a++)
      for (int64_t b = 0; b < P; b++) {
        double q = 0;
        for (int64_t r = 0; r < nC; r++) q += J[r + nC * a] * LJ[r + nC * b];
        A[a + P * b] = s0 * q + (a == b);
      }
    th_jacobi_eig(P, A, w);
    double ld = 0;
    for (int64_t p = 0; p < P; p++) ld += log(w[p]);
    const double ref = ll - th2 / (2 * s0) - 0.5 * ld;
    double lz;
    assert_int_equal(sgp_valla_lla_log_evidence(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), lik, NULL, s0, s, &lz), SGP_OK);
    assert_close(lz, ref, 1e-10 * fabs(ref));
    /* tuned: a stationary point that beats the start */
    double ps = 1.0, ns = 1.0, best;
    assert_int_equal(sgp_valla_lla_tune(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), lik, NULL, 5000, &ps, &ns, &best), SGP_OK);
    double l1;
    assert_int_equal(sgp_valla_lla_log_evidence(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), lik, NULL, 1.0, 1.0, &l1), SGP_OK);
    assert_true(best >= l1);
    for (int v = 0; v < (k == 0 ? 2 : 1); v++) {
      const double h = 1e-4;
      double fp, fm;
      assert_int_equal(sgp_valla_lla_log_evidence(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), lik, NULL,
                                                  ps * (v == 0 ? exp(h) : 1), ns * (v == 1 ? exp(h) : 1), &fp), SGP_OK);
      assert_int_equal(sgp_valla_lla_log_evidence(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), lik, NULL,
                                                  ps * (v == 0 ? exp(-h) : 1), ns * (v == 1 ? exp(-h) : 1), &fm), SGP_OK);
      assert_le(fabs(fp - fm) / (2 * h), 1e-4 * (1 + fabs(best)));
      assert_true(best >= fp - 1e-12 && best >= fm - 1e-12);
    }
    assert_int_equal(sgp_valla_lla_tune(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), lik, NULL, nC - 1, &ps, &ns, &best), SGP_EINVAL);
    assert_contains(ctx.errmsg, "lla_max");
    sgp_valla_net_free(&net);
    free(J); free(Lam); free(LJ); free(A); free(w);
  }
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(evidence_matches_parameter_space),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
