/* test_valla_fit.c -- VaLLA posterior, fit and predictions (and the
 * error paths): exact LLA and the closed form with Z = X vs a
 * dense GP on the explicit Jacobian, ELBO stationarity at A*, variance bounds,
 * permutation invariance, seeded reproducibility, early stopping, bad input. */
#include "valla_fixtures.h"

static const sgp_mat NOMAT = {NULL, 0, 0, 1};
static const sgp_cmat NOCMAT = {NULL, 0, 0, 1};

/* Naive lower Cholesky factor (0 on success). */
static int naive_chol(int64_t n, const double *A, double *L)
{
  memset(L, 0, (size_t)(n * n) * sizeof(double));
  for (int64_t j = 0; j < n; j++) {
    double s = A[j + n * j];
    for (int64_t k = 0; k < j; k++) s -= L[j + n * k] * L[j + n * k];
    if (!(s > 0)) return -1;
    L[j + n * j] = sqrt(s);
    for (int64_t i = j + 1; i < n; i++) {
      double t = A[i + n * j];
      for (int64_t k = 0; k < j; k++) t -= L[i + n * k] * L[j + n * k];
      L[i + n * j] = t / L[j + n * j];
    }
  }
  return 0;
}

/* Solves A X = B (n x n, n x m) by Gaussian elimination with partial pivoting. */
static void gauss_solve(int64_t n, const double *A0, int64_t m, const double *B0, double *X)
{
  double *A = th_zeros(n * n);
  memcpy(A, A0, (size_t)(n * n) * sizeof(double));
  memcpy(X, B0, (size_t)(n * m) * sizeof(double));
  for (int64_t k = 0; k < n; k++) {
    int64_t p = k;
    for (int64_t i = k + 1; i < n; i++) if (fabs(A[i + n * k]) > fabs(A[p + n * k])) p = i;
    for (int64_t j = 0; j < n; j++) { double t = A[k + n * j]; A[k + n * j] = A[p + n * j]; A[p + n * j] = t; }
    for (int64_t j = 0; j < m; j++) { double t = X[k + n * j]; X[k + n * j] = X[p + n * j]; X[p + n * j] = t; }
    for (int64_t i = k + 1; i < n; i++) {
      const double f = A[i + n * k] / A[k + n * k];
      for (int64_t j = k; j < n; j++) A[i + n * j] -= f * A[k + n * j];
      for (int64_t j = 0; j < m; j++) X[i + n * j] -= f * X[k + n * j];
    }
  }
  for (int64_t j = 0; j < m; j++)
    for (int64_t i = n - 1; i >= 0; i--) {
      double s = X[i + n * j];
      for (int64_t k = i + 1; k < n; k++) s -= A[i + n * k] * X[k + n * j];
      X[i + n * j] = s / A[i + n * i];
    }
  free(A);
}

/* Dense exact-LLA latent variances (ns*C, row i + ns*c) at Xs on the original
 * scale: s0 J J' with the GGN Hessian Lambda (gaussian: 1/noise). */
static void dense_lla(const sgp_valla_net *net, sgp_likelihood lik, double s0, double noise,
                      const double *X, int64_t n, const double *Xs, int64_t ns, double *var)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t D = net->width[0], C = net->width[net->n_layers], P = sgp_valla_net_nparam(net);
  const int64_t nC = n * C, sC = ns * C;
  double *J = th_zeros(nC * P), *Js = th_zeros(sC * P), *K = th_zeros(nC * nC), *Ks = th_zeros(nC * sC),
         *Lam = th_zeros(nC * nC), *A = th_zeros(nC * nC), *RHS = th_zeros(nC * sC), *Y = th_zeros(nC * sC),
         *G = th_zeros(nC);
  assert_int_equal(sgp_valla_jacobian(&ctx, net, sgp_cmat_of(X, n, D), sgp_mat_of(J, nC, P)), SGP_OK);
  assert_int_equal(sgp_valla_jacobian(&ctx, net, sgp_cmat_of(Xs, ns, D), sgp_mat_of(Js, sC, P)), SGP_OK);
  assert_int_equal(sgp_valla_forward(&ctx, net, sgp_cmat_of(X, n, D), sgp_mat_of(G, n, C)), SGP_OK);
  for (int64_t a = 0; a < nC; a++)
    for (int64_t b = 0; b < nC; b++) {
      double s = 0;
      for (int64_t p = 0; p < P; p++) s += J[a + nC * p] * J[b + nC * p];
      K[a + nC * b] = s0 * s;
    }
  for (int64_t a = 0; a < nC; a++)
    for (int64_t b = 0; b < sC; b++) {
      double s = 0;
      for (int64_t p = 0; p < P; p++) s += J[a + nC * p] * Js[b + sC * p];
      Ks[a + nC * b] = s0 * s;
    }
  for (int64_t i = 0; i < n; i++) {
    if (lik == SGP_LIK_GAUSSIAN) { Lam[i + nC * i] = 1.0 / noise; continue; }
    if (lik == SGP_LIK_BERNOULLI) { const double q = 1 / (1 + exp(-G[i])); Lam[i + nC * i] = q * (1 - q); continue; }
    double p[8], z = 0;
    for (int64_t c = 0; c < C; c++) { p[c] = exp(G[i + n * c]); z += p[c]; }
    for (int64_t a = 0; a < C; a++)
      for (int64_t b = 0; b < C; b++)
        Lam[i + n * a + nC * (i + n * b)] = (a == b ? p[a] / z : 0) - p[a] * p[b] / (z * z);
  }
  /* (I + Lam K) Y = Lam K_Xs ; var = diag(Ks_ss) - K_sX Y */
  th_matmul(nC, nC, nC, Lam, K, A);
  for (int64_t i = 0; i < nC; i++) A[i + nC * i] += 1.0;
  th_matmul(nC, sC, nC, Lam, Ks, RHS);
  gauss_solve(nC, A, sC, RHS, Y);
  for (int64_t r = 0; r < sC; r++) {
    double kss = 0, q = 0;
    for (int64_t p = 0; p < P; p++) kss += Js[r + sC * p] * Js[r + sC * p];
    for (int64_t a = 0; a < nC; a++) q += Ks[a + nC * r] * Y[a + nC * r];
    var[r] = s0 * kss - q;
  }
  free(J); free(Js); free(K); free(Ks); free(Lam); free(A); free(RHS); free(Y); free(G);
}

static void make_data(sgp_rng *rng, int64_t n, int64_t D, double *X)
{
  th_randn(rng, n * D, X, 1.0, 0.0);
}

/* Exact LLA and the closed form with Z = X (all C tags) equal the dense oracle. */
static void lla_and_closed_form_equal_dense(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 31);
  for (int k = 0; k < 3; k++) {
    const sgp_likelihood lik = k == 2 ? SGP_LIK_BERNOULLI : k ? SGP_LIK_SOFTMAX : SGP_LIK_GAUSSIAN;
    const int64_t width[3] = {2, k == 1 ? 8 : 20, k == 1 ? 3 : 1};
    const int64_t D = 2, C = width[2], n = k == 1 ? 8 : 15, ns = 7;
    sgp_valla_net net;
    vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 2.0, &net);
    double *X = th_zeros(n * D), *Xs = th_zeros(ns * D), *y = th_zeros(n);
    make_data(&rng, n, D, X);
    make_data(&rng, ns, D, Xs);
    for (int64_t i = 0; i < n; i++) y[i] = k ? (double)(i % (k == 2 ? 2 : C)) : 2.0 + 3.0 * sin(X[i]) + 0.3 * sgp_rng_normal(&rng);
    sgp_valla_opts o;
    sgp_valla_opts_default(&o);
    o.likelihood = lik;
    o.prior_var = 0.5;
    o.noise = 0.05;
    o.method = SGP_VALLA_METHOD_LLA;
    sgp_valla_result *lla = NULL, *cf = NULL;
    assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &lla), SGP_OK);
    /* closed form with Z = X and all C tags per point */
    double *Zr = th_zeros(n * C * D);
    int *tags = calloc((size_t)(n * C), sizeof(int));
    for (int64_t c = 0; c < C; c++)
      for (int64_t i = 0; i < n; i++) {
        tags[i + n * c] = (int)c;
        for (int64_t j = 0; j < D; j++) Zr[i + n * c + n * C * j] = X[i + n * j];
      }
    o.method = SGP_VALLA_METHOD_VALLA;
    o.closed_form = 1;
    o.jitter = 0;
    o.inducing = sgp_cmat_of(Zr, n * C, D);
    o.inducing_tags = tags;
    assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &cf), SGP_OK);
    double *v1 = th_zeros(ns * C), *v2 = th_zeros(ns * C), *ref = th_zeros(ns * C);
    assert_int_equal(sgp_valla_predict(&ctx, lla, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, sgp_mat_of(v1, ns, C), NOMAT, NOMAT), SGP_OK);
    assert_int_equal(sgp_valla_predict(&ctx, cf, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, sgp_mat_of(v2, ns, C), NOMAT, NOMAT), SGP_OK);
    dense_lla(&net, lik, 0.5, 0.05, X, n, Xs, ns, ref);
    assert_le(vf_rel(ns * C, v1, ref), 1e-8);
    assert_le(vf_rel(ns * C, v2, ref), 1e-8);
    /* ELLA with Z_E = all (x_n, c) pairs and full rank, plus the prior Nystrom
     * residual s0 (k_ss - k_sX K_XX^{-1} k_Xs), equals exact LLA */
    sgp_valla_result *el = NULL;
    o.method = SGP_VALLA_METHOD_ELLA;
    o.closed_form = 0;
    o.ella_rank = n * C;
    assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &el), SGP_OK);
    double *v3 = th_zeros(ns * C), *K0 = th_zeros(n * C * n * C), *Ks = th_zeros(ns * C * n * C),
           *kd = th_zeros(ns * C), *Ksx = th_zeros(n * C * ns * C), *Yk = th_zeros(n * C * ns * C);
    assert_int_equal(sgp_valla_predict(&ctx, el, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, sgp_mat_of(v3, ns, C), NOMAT, NOMAT), SGP_OK);
    assert_int_equal(sgp_valla_ntk(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(Zr, n * C, D), tags, NULL, 1.0,
                                   sgp_mat_of(K0, n * C, n * C), NOMAT, NOMAT, NOMAT), SGP_OK);
    assert_int_equal(sgp_valla_ntk(&ctx, &net, sgp_cmat_of(Xs, ns, D), sgp_cmat_of(Zr, n * C, D), tags, NULL, 1.0,
                                   sgp_mat_of(Ks, ns * C, n * C), NOMAT, sgp_mat_of(kd, ns * C, 1), NOMAT), SGP_OK);
    for (int64_t r = 0; r < ns * C; r++) for (int64_t a = 0; a < n * C; a++) Ksx[a + n * C * r] = Ks[r + ns * C * a];
    assert_int_equal(th_chol_solve(n * C, K0, ns * C, Ksx, Yk), 0);
    for (int64_t r = 0; r < ns * C; r++) {
      double q = 0;
      for (int64_t a = 0; a < n * C; a++) q += Ksx[a + n * C * r] * Yk[a + n * C * r];
      v3[r] += 0.5 * (kd[r] - q);
    }
    assert_le(vf_rel(ns * C, v3, ref), 1e-6);
    sgp_valla_fit_free(el);
    free(v3); free(K0); free(Ks); free(kd); free(Ksx); free(Yk);
    sgp_valla_fit_free(lla); sgp_valla_fit_free(cf);
    sgp_valla_net_free(&net);
    free(X); free(Xs); free(y); free(Zr); free(tags); free(v1); free(v2); free(ref);
  }
}

/* Eigenvalue bounds 0 <= K* <= K_xx and K* >= Nystrom residual; L = 0 gives K_xx. */
static void variance_bounds(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 32);
  const int64_t width[3] = {2, 6, 3}, D = 2, C = 3, M = 5, ns = 6;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 1, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
  sgp_valla_result *f = vf_fit_state(&rng, &net, SGP_LIK_SOFTMAX, M, 40, 1.0);
  double Xs[12], cov[9 * 6], Kf[9 * 6], KXZ[18 * 5], KZZ[25], Y[25 * 18], w[3], Dm[9];
  make_data(&rng, ns, D, Xs);
  const double s0 = exp(2 * f->log_sigma0);
  assert_int_equal(sgp_valla_ntk(&ctx, &net, sgp_cmat_of(Xs, ns, D), sgp_cmat_of(f->Z, M, D), f->tags, NULL, s0,
                                 sgp_mat_of(KXZ, ns * C, M), sgp_mat_of(KZZ, M, M), NOMAT, sgp_mat_of(Kf, 9 * ns, 1)), SGP_OK);
  double KZX[5 * 18];
  for (int64_t r = 0; r < ns * C; r++) for (int64_t m = 0; m < M; m++) KZX[m + M * r] = KXZ[r + ns * C * m];
  assert_int_equal(th_chol_solve(M, KZZ, ns * C, KZX, Y), 0);
  for (int trial = 0; trial < 2; trial++) {
    if (trial == 1) memset(f->L, 0, (size_t)(M * M) * sizeof(double));
    assert_int_equal(valla_fit_finalize(&ctx, f, NOCMAT), SGP_OK);
    assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, NOMAT, NOMAT, sgp_mat_of(cov, 9, ns)), SGP_OK);
    for (int64_t i = 0; i < ns; i++) {
      const double *Ks = cov + 9 * i, *Kx = Kf + 9 * i;
      const double tr = Kx[0] + Kx[4] + Kx[8];
      if (trial == 1) { for (int k = 0; k < 9; k++) assert_true(Ks[k] == Kx[k]); continue; }
      th_jacobi_eig(C, Ks, w);
      assert_true(w[0] >= -1e-10 * tr);
      for (int k = 0; k < 9; k++) Dm[k] = Kx[k] - Ks[k];
      th_jacobi_eig(C, Dm, w);
      assert_true(w[0] >= -1e-10 * tr);
      assert_true(w[C - 1] > 1e-6 * tr); /* the data reduce the variance */
      for (int64_t a = 0; a < C; a++)
        for (int64_t b = 0; b < C; b++) {
          double q = 0;
          for (int64_t m = 0; m < M; m++) q += KXZ[i + ns * a + ns * C * m] * Y[m + M * (i + ns * b)];
          Dm[a + C * b] = Ks[a + C * b] - (Kx[a + C * b] - q);
        }
      th_jacobi_eig(C, Dm, w);
      assert_true(w[0] >= -1e-8 * tr);
    }
  }
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

/* Permuting the inducing points (tags, rows and columns of A) leaves predictions unchanged. */
static void permutation_invariance(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 33);
  const int64_t width[3] = {2, 5, 3}, D = 2, C = 3, M = 4, ns = 5;
  const int perm[4] = {2, 0, 3, 1};
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_SIGMOID, SGP_ACT_IDENTITY, 1.5, &net);
  sgp_valla_result *f = vf_fit_state(&rng, &net, SGP_LIK_SOFTMAX, M, 40, 1.0);
  sgp_valla_result *g = vf_fit_state(&rng, &net, SGP_LIK_SOFTMAX, M, 40, 1.0);
  /* A = L L'; permuted A' = Pi A Pi' factored as L' = chol(A') */
  double A[16], Ap[16];
  for (int64_t i = 0; i < M; i++)
    for (int64_t j = 0; j < M; j++) {
      double s = 0;
      for (int64_t k = 0; k < M; k++) s += f->L[i + M * k] * f->L[j + M * k];
      A[i + M * j] = s;
    }
  for (int64_t i = 0; i < M; i++) {
    g->tags[i] = f->tags[perm[i]];
    for (int64_t j = 0; j < D; j++) g->Z[i + M * j] = f->Z[perm[i] + M * j];
    for (int64_t j = 0; j < M; j++) Ap[i + M * j] = A[perm[i] + M * perm[j]];
  }
  assert_int_equal(naive_chol(M, Ap, g->L), 0);
  double Xs[10], v1[15], v2[15], p1[15], p2[15];
  make_data(&rng, ns, D, Xs);
  assert_int_equal(valla_fit_finalize(&ctx, f, NOCMAT), SGP_OK);
  assert_int_equal(valla_fit_finalize(&ctx, g, NOCMAT), SGP_OK);
  assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), NOMAT, sgp_mat_of(v1, ns, C), NOMAT, sgp_mat_of(p1, ns, C), NOMAT), SGP_OK);
  assert_int_equal(sgp_valla_predict(&ctx, g, sgp_cmat_of(Xs, ns, D), NOMAT, sgp_mat_of(v2, ns, C), NOMAT, sgp_mat_of(p2, ns, C), NOMAT), SGP_OK);
  assert_le(vf_rel(ns * C, v2, v1), 1e-12);
  assert_le(th_max_abs_diff(ns * C, p2, p1), 1e-12);
  for (int64_t i = 0; i < ns; i++) assert_close(p1[i] + p1[i + ns] + p1[i + 2 * ns], 1.0, 1e-14);
  sgp_valla_fit_free(f); sgp_valla_fit_free(g);
  sgp_valla_net_free(&net);
}

/* ELBO (alpha = 0) on the full data: zero L-gradient at L = chol(A*), and A*
 * beats random perturbations. */
static void elbo_stationary_at_closed_form(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 34);
  const int64_t width[3] = {2, 10, 1}, D = 2, M = 6, n = 20;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
  sgp_valla_result *f = vf_fit_state(&rng, &net, SGP_LIK_GAUSSIAN, M, n, 0.0);
  f->alpha = 0.0;
  double X[40], y[20], KXZ[120], KZZ[36], Phi[36], W[36], Wt[36], As[36], Ls[36];
  make_data(&rng, n, D, X);
  th_randn(&rng, n, y, 1.0, 0.0);
  const double s0 = exp(2 * f->log_sigma0), s = exp(f->log_noise);
  assert_int_equal(sgp_valla_ntk(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(f->Z, M, D), f->tags, NULL, s0,
                                 sgp_mat_of(KXZ, n, M), sgp_mat_of(KZZ, M, M), NOMAT, NOMAT), SGP_OK);
  for (int64_t a = 0; a < M; a++)
    for (int64_t b = 0; b < M; b++) {
      double q = 0;
      for (int64_t i = 0; i < n; i++) q += KXZ[i + n * a] * KXZ[i + n * b];
      Phi[a + M * b] = q;
    }
  assert_int_equal(th_chol_solve(M, KZZ, M, Phi, W), 0); /* W = K^{-1} Phi */
  for (int64_t a = 0; a < M; a++) for (int64_t b = 0; b < M; b++) Wt[a + M * b] = W[b + M * a];
  assert_int_equal(th_chol_solve(M, KZZ, M, Wt, As), 0); /* K^{-1} Phi K^{-1} */
  for (int64_t k = 0; k < M * M; k++) As[k] /= s;
  for (int64_t a = 0; a < M; a++) for (int64_t b = 0; b < a; b++) As[a + M * b] = As[b + M * a] = 0.5 * (As[a + M * b] + As[b + M * a]);
  assert_int_equal(naive_chol(M, As, Ls), 0);
  memcpy(f->L, Ls, sizeof Ls);
  valla_grad g;
  memset(&g, 0, sizeof g);
  g.dL = th_zeros(M * M);
  double val;
  assert_int_equal(valla_objective(&ctx, f, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), &val, &g, NULL), SGP_OK);
  /* d KL / d L by central differences */
  double dkl = 0;
  for (int64_t j = 0; j < M; j++)
    for (int64_t i = j; i < M; i++) {
      double *x = &f->L[i + M * j], x0 = *x, h = 1e-6 * fmax(1, fabs(x0)), kp, km;
      *x = x0 + h; assert_int_equal(valla_kl(&ctx, M, f->L, KZZ, &kp), SGP_OK);
      *x = x0 - h; assert_int_equal(valla_kl(&ctx, M, f->L, KZZ, &km), SGP_OK);
      *x = x0;
      dkl = fmax(dkl, fabs(kp - km) / (2 * h));
    }
  assert_true(dkl > 1e-3);
  assert_le(th_max_abs(M * M, g.dL), 1e-8 * dkl);
  for (int t = 0; t < 20; t++) {
    for (int64_t j = 0; j < M; j++)
      for (int64_t i = j; i < M; i++) f->L[i + M * j] = Ls[i + M * j] + 0.05 * sgp_rng_normal(&rng);
    double v2;
    assert_int_equal(valla_objective(&ctx, f, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), &v2, NULL, NULL), SGP_OK);
    assert_true(v2 > val);
  }
  free(g.dL);
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

static void kmeans_seeded_and_recovers_blobs(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 35);
  const int64_t n = 300, D = 2;
  const double ctr[3][2] = {{-5, 0}, {5, 0}, {0, 8}};
  double X[600], c1[6], c2[6];
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < D; j++) X[i + n * j] = ctr[i % 3][j] + 0.3 * sgp_rng_normal(&rng);
  sgp_ctx_set_seed(&ctx, 7);
  assert_int_equal(valla_kmeans(&ctx, sgp_cmat_of(X, n, D), NULL, n, 3, 10, 50000, c1, 3), SGP_OK);
  sgp_ctx_set_seed(&ctx, 7);
  assert_int_equal(valla_kmeans(&ctx, sgp_cmat_of(X, n, D), NULL, n, 3, 10, 50000, c2, 3), SGP_OK);
  assert_memory_equal(c1, c2, sizeof c1);
  /* converged Lloyd: each centre is the mean of the points nearest to it in
   * column-standardized coordinates (checked with an independent loop) */
  assert_int_equal(valla_kmeans(&ctx, sgp_cmat_of(X, n, D), NULL, n, 3, 100, 50000, c1, 3), SGP_OK);
  double mu[2] = {0, 0}, sd[2] = {0, 0}, sum[6] = {0}, cnt[3] = {0};
  for (int64_t j = 0; j < D; j++) {
    for (int64_t i = 0; i < n; i++) mu[j] += X[i + n * j] / n;
    for (int64_t i = 0; i < n; i++) sd[j] += (X[i + n * j] - mu[j]) * (X[i + n * j] - mu[j]) / n;
    sd[j] = sqrt(sd[j]);
  }
  for (int64_t i = 0; i < n; i++) {
    int best = 0;
    double bd = INFINITY;
    for (int c = 0; c < 3; c++) {
      double d2 = 0;
      for (int64_t j = 0; j < D; j++) d2 += pow((X[i + n * j] - c1[c + 3 * j]) / sd[j], 2);
      if (d2 < bd) { bd = d2; best = c; }
    }
    cnt[best]++;
    for (int64_t j = 0; j < D; j++) sum[best + 3 * j] += X[i + n * j];
  }
  for (int c = 0; c < 3; c++) {
    assert_true(cnt[c] > 0);
    for (int64_t j = 0; j < D; j++) assert_close(c1[c + 3 * j], sum[c + 3 * j] / cnt[c], 1e-12 * 10);
  }
  assert_int_equal(valla_kmeans(&ctx, sgp_cmat_of(X, n, D), NULL, n, 301, 10, 50000, c1, 3), SGP_EINVAL);
  assert_contains(ctx.errmsg, "inducing");
}

/* Regression toy: train inputs away from the gap, validation in the gap. */
static void gap_toy(sgp_rng *rng, const sgp_valla_net *net, int64_t n, double *X, double *y,
                    int64_t nv, double *Xv, double *yv)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  for (int64_t i = 0; i < n; i++) X[i] = (i % 2 ? 1.0 : -2.0) + sgp_rng_uniform(rng);
  for (int64_t i = 0; i < nv; i++) Xv[i] = -0.5 + sgp_rng_uniform(rng);
  assert_int_equal(sgp_valla_forward(&ctx, net, sgp_cmat_of(X, n, 1), sgp_mat_of(y, n, 1)), SGP_OK);
  assert_int_equal(sgp_valla_forward(&ctx, net, sgp_cmat_of(Xv, nv, 1), sgp_mat_of(yv, nv, 1)), SGP_OK);
  for (int64_t i = 0; i < n; i++) y[i] += 0.1 * sgp_rng_normal(rng);
  for (int64_t i = 0; i < nv; i++) yv[i] += 0.1 * sgp_rng_normal(rng) + 0.5 * sin(3 * Xv[i]);
}

static void fit_is_seeded(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 36);
  const int64_t width[3] = {1, 8, 1}, n = 60;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 2.0, &net);
  double X[60], y[60], Xv[20], yv[20];
  gap_toy(&rng, &net, n, X, y, 20, Xv, yv);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.n_inducing = 6; o.iterations = 60; o.batch_size = 16; o.lr = 1e-2; o.eval_every = 10;
  sgp_valla_result *f[3];
  for (int k = 0; k < 3; k++) {
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    sgp_ctx_set_seed(&ctx, k < 2 ? 5 : 6);
    assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f[k]), SGP_OK);
  }
  assert_int_equal(f[0]->iterations, f[1]->iterations);
  assert_memory_equal(f[0]->Z, f[1]->Z, 6 * sizeof(double));
  assert_memory_equal(f[0]->L, f[1]->L, 36 * sizeof(double));
  assert_memory_equal(f[0]->trace_obj, f[1]->trace_obj, (size_t)f[0]->iterations * sizeof(double));
  assert_true(f[0]->log_sigma0 == f[1]->log_sigma0 && f[0]->log_noise == f[1]->log_noise);
  assert_true(memcmp(f[0]->trace_obj, f[2]->trace_obj, 10 * sizeof(double)) != 0);
  for (int k = 0; k < 3; k++) sgp_valla_fit_free(f[k]);
  sgp_valla_net_free(&net);
}

/* The gap toy (seed 37, 1-10-1 tanh net, n = 80, 30 validation points) fitted
 * with M = 5, batch 20, prior variance 4 and the given schedule. */
static sgp_valla_result *gap_fit(int64_t iterations, double lr, int64_t eval_every,
                                sgp_valla_net *net, double *Xv, double *yv)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 37);
  const int64_t width[3] = {1, 10, 1}, n = 80, nv = 30;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 2.0, net);
  double X[80], y[80];
  gap_toy(&rng, net, n, X, y, nv, Xv, yv);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.n_inducing = 5; o.iterations = iterations; o.batch_size = 20; o.lr = lr;
  o.eval_every = eval_every; o.prior_var = 4.0;
  sgp_valla_result *f = NULL;
  assert_int_equal(sgp_valla_fit(&ctx, net, sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1),
                                 sgp_cmat_of(Xv, nv, 1), sgp_cmat_of(yv, nv, 1), &o, &f), SGP_OK);
  return f;
}

/* The validation NLL of the returned state equals trace entry `arg`. */
static void check_restored_nll(sgp_valla_result *f, const double *Xv, const double *yv,
                               int64_t arg)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double nll;
  assert_int_equal(valla_nll(&ctx, f, sgp_cmat_of(Xv, 30, 1), sgp_cmat_of(yv, 30, 1), &nll),
                   SGP_OK);
  assert_close(nll, f->trace_val[arg], 1e-12 * fabs(nll));
}

static void early_stopping_restores_best(void **state)
{
  (void)state;
  sgp_valla_net net;
  double Xv[30], yv[30];
  sgp_valla_result *f = gap_fit(3000, 0.05, 20, &net, Xv, yv);
  assert_true(f->stopped_early);
  assert_true(f->iterations < 3000);
  int64_t arg = 0;
  for (int64_t k = 1; k < f->n_eval; k++) if (f->trace_val[k] < f->trace_val[arg]) arg = k;
  assert_int_equal(f->best_iteration, f->trace_val_iter[arg]);
  check_restored_nll(f, Xv, yv, arg);
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

/* Without early stopping the final iterate is evaluated too and kept when it is
 * the best; eval_every > iterations still trains (only iteration 1 and the end
 * are evaluated). */
static void final_iterate_is_evaluated(void **state)
{
  (void)state;
  sgp_valla_net net;
  double Xv[30], yv[30];
  sgp_valla_result *f = gap_fit(150, 0.02, 1000, &net, Xv, yv);
  assert_false(f->stopped_early);
  assert_int_equal(f->iterations, 150);
  assert_int_equal(f->n_eval, 2);
  assert_int_equal(f->trace_val_iter[0], 1);
  assert_int_equal(f->trace_val_iter[1], 150);
  const int64_t arg = f->trace_val[1] < f->trace_val[0] ? 1 : 0;
  assert_int_equal(arg, 1); /* 150 Adam steps improve on one */
  assert_int_equal(f->best_iteration, 150);
  check_restored_nll(f, Xv, yv, 1);
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

/* init_A = closed_form with no iterations reproduces the closed-form predictions. */
static void closed_form_warm_start(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 39);
  const int64_t width[3] = {2, 12, 1}, D = 2, n = 30, ns = 9;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
  double X[60], y[30], Xs[18], v1[9], v2[9];
  make_data(&rng, n, D, X);
  make_data(&rng, ns, D, Xs);
  for (int64_t i = 0; i < n; i++) y[i] = 5 * sin(X[i]) + 0.2 * sgp_rng_normal(&rng);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.n_inducing = 6;
  o.noise = 0.1;
  sgp_valla_result *f[2];
  for (int k = 0; k < 2; k++) {
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    o.closed_form = k == 0;
    o.init_A = SGP_VALLA_INIT_CLOSED_FORM;
    o.iterations = 0;
    assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f[k]), SGP_OK);
    assert_int_equal(sgp_valla_predict(&ctx, f[k], sgp_cmat_of(Xs, ns, D), NOMAT, sgp_mat_of(k ? v2 : v1, ns, 1), NOMAT, NOMAT, NOMAT), SGP_OK);
  }
  assert_memory_equal(f[0]->Z, f[1]->Z, sizeof(double) * 12);
  assert_le(vf_rel(ns, v2, v1), 1e-6);
  for (int k = 0; k < 2; k++) sgp_valla_fit_free(f[k]);
  sgp_valla_net_free(&net);
}

/* Adam fits for softmax and binary probit: per-class k-means tags, probabilities
 * sum to 1, variances >= 0, the mean is the network output. */
static void classification_fits(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 40);
  for (int k = 0; k < 2; k++) {
    const int64_t C = k ? 1 : 3, K = k ? 2 : 3, width[3] = {2, 6, C}, D = 2, n = 60, ns = 8;
    sgp_valla_net net;
    vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
    double X[120], y[60], Xs[16], mu[24], g[24], v[24], p[24];
    make_data(&rng, n, D, X);
    make_data(&rng, ns, D, Xs);
    for (int64_t i = 0; i < n; i++) y[i] = (double)(i % K);
    sgp_valla_opts o;
    sgp_valla_opts_default(&o);
    o.likelihood = k ? SGP_LIK_BERNOULLI : SGP_LIK_SOFTMAX;
    o.n_inducing = 7;
    o.iterations = 30;
    o.lr = 1e-2;
    o.eval_every = 10;
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    sgp_valla_result *f = NULL;
    assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_OK);
    assert_int_equal(f->M, K * (7 / K)); /* floor(M / K) per class */
    for (int64_t m = 0; m < f->M; m++) assert_int_equal(f->tags[m], k ? 0 : m / (7 / K));
    assert_true(f->n_eval >= 1 && isfinite(f->trace_val[0]));
    assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), sgp_mat_of(mu, ns, C), sgp_mat_of(v, ns, C), NOMAT,
                                       sgp_mat_of(p, ns, K), NOMAT), SGP_OK);
    assert_int_equal(sgp_valla_forward(&ctx, &net, sgp_cmat_of(Xs, ns, D), sgp_mat_of(g, ns, C)), SGP_OK);
    assert_memory_equal(mu, g, sizeof(double) * ns * C);
    for (int64_t i = 0; i < ns; i++) {
      double s = 0;
      for (int64_t c = 0; c < K; c++) { s += p[i + ns * c]; assert_true(p[i + ns * c] > 0); }
      assert_close(s, 1.0, 1e-14);
      for (int64_t c = 0; c < C; c++) assert_true(v[i + ns * c] >= 0);
    }
    sgp_valla_fit_free(f);
    sgp_valla_net_free(&net);
  }
}

static int stop_after(void *user) { int *k = (int *)user; return --(*k) < 0; }

/* The interrupt hook stops a fit cleanly (no leak under ASan). */
static void interrupt_stops_fit(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 44);
  const int64_t width[3] = {1, 6, 1}, n = 40;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.0, &net);
  double X[40], y[40], Xv[10], yv[10];
  gap_toy(&rng, &net, n, X, y, 10, Xv, yv);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.n_inducing = 4;
  o.iterations = 1000;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  int budget = 25;
  ctx.interrupt = stop_after;
  ctx.user_data = &budget;
  sgp_valla_result *f = NULL;
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_EINTERRUPT);
  assert_null(f);
  assert_contains(ctx.errmsg, "interrupted");
  sgp_valla_net_free(&net);
}

/* Shifting y and the output bias by c (standardize on) leaves the predictive
 * variance unchanged and shifts the mean; the regression predictive variance is
 * latent + noise; a val_max-capped validation set runs. (Scaling the output
 * weights does not scale the NTK uniformly, so no scale invariance is asserted.) */
static void regression_scaling_and_predictive(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 45);
  const int64_t width[3] = {1, 8, 1}, n = 60, nv = 30, ns = 7;
  const double c = 3.0;
  sgp_valla_net net[2];
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 2.0, &net[0]);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  assert_int_equal(sgp_valla_net_copy(&ctx, &net[0], &net[1]), SGP_OK);
  net[1].b[1][0] += c;
  double X[60], y[2][60], Xv[30], yv[2][30], Xs[7], v[2][7], lv[7], mu[7];
  gap_toy(&rng, &net[0], n, X, y[0], nv, Xv, yv[0]);
  for (int64_t i = 0; i < n; i++) y[1][i] = c + y[0][i];
  for (int64_t i = 0; i < nv; i++) yv[1][i] = c + yv[0][i];
  for (int64_t i = 0; i < ns; i++) Xs[i] = -2 + 0.6 * i;
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.n_inducing = 5; o.iterations = 120; o.batch_size = 15; o.lr = 1e-2; o.eval_every = 25; o.val_max = 12;
  sgp_valla_result *f[2];
  for (int k = 0; k < 2; k++) {
    sgp_ctx_set_seed(&ctx, 3);
    assert_int_equal(sgp_valla_fit(&ctx, &net[k], sgp_cmat_of(X, n, 1), sgp_cmat_of(y[k], n, 1), sgp_cmat_of(Xv, nv, 1),
                                   sgp_cmat_of(yv[k], nv, 1), &o, &f[k]), SGP_OK);
    assert_int_equal(sgp_valla_predict(&ctx, f[k], sgp_cmat_of(Xs, ns, 1), sgp_mat_of(mu, ns, 1), sgp_mat_of(v[k], ns, 1),
                                       sgp_mat_of(lv, ns, 1), NOMAT, NOMAT), SGP_OK);
    const double noise = exp(f[k]->log_noise) * f[k]->y_sd * f[k]->y_sd;
    for (int64_t i = 0; i < ns; i++) assert_close(v[k][i], lv[i] + noise, 1e-12 * v[k][i]);
  }
  assert_int_equal(f[0]->iterations, f[1]->iterations);
  for (int64_t i = 0; i < ns; i++) assert_close(v[1][i], v[0][i], 1e-9 * v[1][i]);
  sgp_valla_fit_free(f[0]); sgp_valla_fit_free(f[1]);
  sgp_valla_net_free(&net[0]); sgp_valla_net_free(&net[1]);
}

/* Closed form with K-means Z approaches exact LLA as M grows; Z = X is exact
 * (the trend is reported, the Z = X equality asserted). */
static void closed_form_converges_to_lla(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 46);
  const int64_t width[3] = {2, 30, 1}, D = 2, n = 25, ns = 20;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 2.0, &net);
  double X[80], y[40], Xs[40], vl[20], vc[20];
  make_data(&rng, n, D, X);
  make_data(&rng, ns, D, Xs);
  for (int64_t i = 0; i < n; i++) y[i] = sin(2 * X[i]) + 0.1 * sgp_rng_normal(&rng);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.noise = 0.05;
  o.method = SGP_VALLA_METHOD_LLA;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_valla_result *f = NULL;
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_OK);
  assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, sgp_mat_of(vl, ns, 1), NOMAT, NOMAT), SGP_OK);
  sgp_valla_fit_free(f);
  o.method = SGP_VALLA_METHOD_VALLA;
  o.closed_form = 1;
  o.jitter = 0;
  const int64_t Ms[5] = {5, 10, 15, 20, 0};
  double err[5];
  for (int k = 0; k < 5; k++) {
    o.n_inducing = Ms[k];
    o.inducing = Ms[k] ? NOCMAT : sgp_cmat_of(X, n, D);
    if (Ms[k]) o.jitter = 1e-10;
    else o.jitter = 0;
    assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_OK);
    assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, sgp_mat_of(vc, ns, 1), NOMAT, NOMAT), SGP_OK);
    err[k] = th_max_abs_diff(ns, vc, vl) / th_max_abs(ns, vl);
    sgp_valla_fit_free(f);
  }
  print_message("closed form vs LLA, max rel diff: M=5 %.3g, 10 %.3g, 15 %.3g, 20 %.3g, Z=X %.3g\n",
                err[0], err[1], err[2], err[3], err[4]);
  assert_le(err[4], 1e-8);
  assert_true(err[0] > err[4]);
  sgp_valla_net_free(&net);
}

/* Fixed Z: the cached-kernel path gives the same fit as recomputing per batch. */
static void kernel_cache_matches_direct(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 47);
  for (int k = 0; k < 2; k++) {
    const int64_t C = k ? 3 : 1, width[3] = {2, 7, C}, D = 2, n = 50;
    sgp_valla_net net;
    vf_random_net(&rng, 2, width, 1, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
    double X[100], y[50];
    make_data(&rng, n, D, X);
    for (int64_t i = 0; i < n; i++) y[i] = k ? (double)(i % C) : sin(X[i]) + 0.1 * sgp_rng_normal(&rng);
    sgp_valla_opts o;
    sgp_valla_opts_default(&o);
    o.likelihood = k ? SGP_LIK_SOFTMAX : SGP_LIK_GAUSSIAN;
    o.n_inducing = 6; o.iterations = 80; o.batch_size = 12; o.lr = 1e-2; o.eval_every = 20;
    o.learn = SGP_VALLA_LEARN_A | SGP_VALLA_LEARN_PRIOR_VAR | SGP_VALLA_LEARN_NOISE;
    sgp_valla_result *f[2];
    for (int c = 0; c < 2; c++) {
      sgp_ctx ctx;
      sgp_ctx_init(&ctx);
      sgp_ctx_set_seed(&ctx, 4);
      o.cache_max_bytes = c ? 0 : (size_t)1 << 31;
      assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f[c]), SGP_OK);
      assert_int_equal(f[c]->kernel_cache, !c);
    }
    assert_int_equal(f[0]->iterations, f[1]->iterations);
    assert_memory_equal(f[0]->Z, f[1]->Z, sizeof(double) * 6 * D);
    assert_le(vf_rel(f[0]->iterations, f[0]->trace_obj, f[1]->trace_obj), 1e-10);
    assert_le(vf_rel(36, f[0]->L, f[1]->L), 1e-8);
    assert_true(f[0]->L[1] != 0.0); /* L moved away from I */
    sgp_valla_fit_free(f[0]); sgp_valla_fit_free(f[1]);
    sgp_valla_net_free(&net);
  }
}

/* MC probabilities: binary case vs Simpson integration of E[sigmoid(g + sd e)]
 * (4 MC standard errors), softmax rows sum to 1, seeded draws reproduce. */
static void mc_probabilities(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 48);
  for (int k = 0; k < 2; k++) {
    const int64_t C = k ? 3 : 1, K = k ? 3 : 2, width[3] = {2, 5, C}, D = 2, ns = 4, S = 20000;
    sgp_valla_net net;
    vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 2.5, &net);
    sgp_valla_result *f = vf_fit_state(&rng, &net, k ? SGP_LIK_SOFTMAX : SGP_LIK_BERNOULLI, 3, 30, 0.5);
    f->log_sigma0 = log(2.0);
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    assert_int_equal(valla_fit_finalize(&ctx, f, NOCMAT), SGP_OK);
    double Xs[8], p[12], p2[12], mu[12], v[12];
    make_data(&rng, ns, D, Xs);
    sgp_ctx_set_seed(&ctx, 8);
    assert_int_equal(sgp_valla_predict_mc(&ctx, f, sgp_cmat_of(Xs, ns, D), S, sgp_mat_of(p, ns, K)), SGP_OK);
    sgp_ctx_set_seed(&ctx, 8);
    assert_int_equal(sgp_valla_predict_mc(&ctx, f, sgp_cmat_of(Xs, ns, D), S, sgp_mat_of(p2, ns, K)), SGP_OK);
    assert_memory_equal(p, p2, sizeof(double) * ns * K);
    assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), sgp_mat_of(mu, ns, C), sgp_mat_of(v, ns, C), NOMAT, NOMAT, NOMAT), SGP_OK);
    for (int64_t i = 0; i < ns; i++) {
      double sum = 0;
      for (int64_t c = 0; c < K; c++) sum += p[i + ns * c];
      assert_close(sum, 1.0, 1e-12);
      if (k) continue;
      const double sd = sqrt(v[i]), h = 16.0 / 4000;
      double ref = 0;
      for (int j = 0; j <= 4000; j++) {
        const double e = -8 + j * h, w = (j == 0 || j == 4000) ? 1 : (j % 2 ? 4 : 2);
        ref += w * exp(-e * e / 2) / sqrt(2 * 3.141592653589793) / (1 + exp(-(mu[i] + sd * e)));
      }
      ref *= h / 3;
      assert_true(sd > 0.1);
      assert_close(p[i + ns], ref, 4 * 0.5 / sqrt((double)S));
    }
    sgp_valla_fit_free(f);
    sgp_valla_net_free(&net);
  }
}

/* Predictions large enough for the parallel loops are identical for 1 and 2 threads. */
static void predictions_thread_independent(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 49);
  const int64_t C = 3, width[3] = {2, 30, C}, D = 2, ns = 3000, M = 10;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 1, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
  sgp_valla_result *f = vf_fit_state(&rng, &net, SGP_LIK_SOFTMAX, M, 100, 0.5);
  double *Xs = th_zeros(ns * D), *v[2], *cv[2], *p[2];
  make_data(&rng, ns, D, Xs);
  for (int t = 0; t < 2; t++) {
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    ctx.nthreads = t + 1;
    v[t] = th_zeros(ns * C); cv[t] = th_zeros(ns * C * C); p[t] = th_zeros(ns * C);
    assert_int_equal(valla_fit_finalize(&ctx, f, NOCMAT), SGP_OK);
    assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), NOMAT, sgp_mat_of(v[t], ns, C), NOMAT,
                                       sgp_mat_of(p[t], ns, C), sgp_mat_of(cv[t], C * C, ns)), SGP_OK);
  }
  assert_memory_equal(v[0], v[1], sizeof(double) * ns * C);
  assert_memory_equal(cv[0], cv[1], sizeof(double) * ns * C * C);
  assert_memory_equal(p[0], p[1], sizeof(double) * ns * C);
  for (int t = 0; t < 2; t++) { free(v[t]); free(cv[t]); free(p[t]); }
  free(Xs);
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

/* The default n_inducing = 0 on fewer rows than VALLA_DEFAULT_INDUCING: all the rows
 * left after the val_frac hold-out (here 40 - 4), the same as asking for them. */
static void default_inducing_adapts(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 12);
  const int64_t width[3] = {1, 4, 1}, n = 40;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.0, &net);
  double X[40], y[40];
  for (int i = 0; i < n; i++) { X[i] = -2.0 + 4.0 * i / (n - 1); y[i] = sin(X[i]); }
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  assert_int_equal(o.n_inducing, 0);
  o.iterations = 5; o.batch_size = 10;
  sgp_valla_result *f = NULL, *g = NULL;
  sgp_ctx_set_seed(&ctx, 3);
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1), NOCMAT,
                                 NOCMAT, &o, &f), SGP_OK);
  assert_int_equal(f->M, 36);
  o.n_inducing = 36;
  sgp_ctx_set_seed(&ctx, 3);
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, 1), sgp_cmat_of(y, n, 1), NOCMAT,
                                 NOCMAT, &o, &g), SGP_OK);
  assert_memory_equal(f->Z, g->Z, 36 * sizeof(double));
  sgp_valla_fit_free(f); sgp_valla_fit_free(g);
  sgp_valla_net_free(&net);
}

static void bad_input_is_named(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 38);
  const int64_t width[3] = {2, 4, 3}, n = 10;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.0, &net);
  double X[30], y[10];
  th_randn(&rng, 30, X, 1.0, 0.0);
  for (int i = 0; i < n; i++) y[i] = i % 3;
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.likelihood = SGP_LIK_SOFTMAX;
  o.n_inducing = 6;
  o.iterations = 2;
  sgp_valla_result *f = NULL;
#define EXPECT(Xv, yv, msg) do { \
    assert_int_equal(sgp_valla_fit(&ctx, &net, Xv, yv, NOCMAT, NOCMAT, &o, &f), SGP_EINVAL); \
    assert_null(f); assert_contains(ctx.errmsg, msg); } while (0)
  EXPECT(sgp_cmat_of(X, n, 3), sgp_cmat_of(y, n, 1), "x has 3 columns");       /* shape mismatch */
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n - 1, 1), "y must have one value");
  y[4] = 3;
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "y: label 3 at row 5");  /* label outside */
  y[4] = 1.5;
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "y: label 1.5");
  y[4] = 1;
  o.n_inducing = 10;   /* fits n = 10 but not the 9 rows left after the val_frac hold-out */
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1),
         "inducing: M = 10 inducing points exceed the 9 rows of x left after the val_frac = 0.1");
  o.closed_form = 1; o.learn = 0; o.n_inducing = 11;   /* no hold-out: all n rows */
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "inducing: M = 11 inducing points exceed the n = 10 rows of x");
  o.closed_form = 0; o.learn = SGP_VALLA_LEARN_A;
  o.n_inducing = 2;
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "inducing: M = 2 must be at least the number of classes");
  o.n_inducing = 6;
  X[3] = NAN;
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "x: contains NaN");       /* non-finite */
  X[3] = 0;
  y[2] = INFINITY;
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "y: contains NaN");
  y[2] = 2;
  o.likelihood = SGP_LIK_GAUSSIAN;
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "likelihood: gaussian needs a network with one output");
  o.likelihood = SGP_LIK_SOFTMAX;
  o.alpha = 0.5;
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "alpha");
  o.alpha = 1;
  o.prior_var = -1;
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "prior_var");
  o.prior_var = 1;
  o.method = SGP_VALLA_METHOD_LLA;
  o.lla_max = 20;
  EXPECT(sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), "lla_max");
  o.method = SGP_VALLA_METHOD_VALLA;
  /* a good call works; predict checks newdata */
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_OK);
  double P[30];
  assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(X, n, 3), NOMAT, NOMAT, NOMAT, sgp_mat_of(P, n, 3), NOMAT), SGP_EINVAL);
  assert_contains(ctx.errmsg, "newdata");
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(lla_and_closed_form_equal_dense),
    cmocka_unit_test(variance_bounds),
    cmocka_unit_test(permutation_invariance),
    cmocka_unit_test(elbo_stationary_at_closed_form),
    cmocka_unit_test(kmeans_seeded_and_recovers_blobs),
    cmocka_unit_test(fit_is_seeded),
    cmocka_unit_test(early_stopping_restores_best),
    cmocka_unit_test(final_iterate_is_evaluated),
    cmocka_unit_test(closed_form_warm_start),
    cmocka_unit_test(classification_fits),
    cmocka_unit_test(interrupt_stops_fit),
    cmocka_unit_test(regression_scaling_and_predictive),
    cmocka_unit_test(closed_form_converges_to_lla),
    cmocka_unit_test(kernel_cache_matches_direct),
    cmocka_unit_test(mc_probabilities),
    cmocka_unit_test(predictions_thread_independent),
    cmocka_unit_test(default_inducing_adapts),
    cmocka_unit_test(bad_input_is_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
