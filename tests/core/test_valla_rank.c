/* test_valla_rank.c -- the closed form (docs/valla.md) when K_ZZ is singular:
 * more inducing points than network parameters (Z = X, the identity to exact
 * LLA), layer masks, skip layers, duplicated inducing points, and the reported
 * factor L of A*, against dense oracles in weight space built from the explicit
 * Jacobian with plain loops.
 *
 * Tolerances. With Z = X, F K_Zx is formed from the SVD of the explicit Jacobian
 * J_Z (backward stable: relative error of order n u cond(J_Z)), and the posterior
 * quadratic form from the Cholesky factor of I + W, whose relative error is of
 * order n u cond(I + G), G = s0 J' Lambda J (the conditioning of LLA itself; the
 * oracle's solve has the same). So rel err <= n u (cond(J_Z) + cond(I + G)) with
 * n = max(M, P) (the gamma_n of dense factorizations). */
#include "valla_fixtures.h"

#include <float.h>

static const sgp_mat NOMAT = {NULL, 0, 0, 1};
static const sgp_cmat NOCMAT = {NULL, 0, 0, 1};

/* Likelihood Hessian block (C x C) at outputs g (stride gs); noise for gaussian. */
static void hessian_block(sgp_likelihood lik, int64_t C, const double *g, int64_t gs, double noise,
                          double *Lam)
{
  if (lik == SGP_LIK_GAUSSIAN) { Lam[0] = 1.0 / noise; return; }
  if (lik == SGP_LIK_BERNOULLI) { const double q = 1 / (1 + exp(-g[0])); Lam[0] = q * (1 - q); return; }
  double p[8], z = 0;
  for (int64_t c = 0; c < C; c++) { p[c] = exp(g[gs * c]); z += p[c]; }
  for (int64_t a = 0; a < C; a++)
    for (int64_t b = 0; b < C; b++) Lam[a + C * b] = (a == b ? p[a] / z : 0) - p[a] * p[b] / (z * z);
}

/* Columns p0.. of the explicit Jacobian (rows i + n*c) at X: J (nC x P). */
static double *jacobian_cols(const sgp_valla_net *net, const double *X, int64_t n, int64_t p0, int64_t P)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t C = net->width[net->n_layers], Pf = sgp_valla_net_nparam(net), nC = n * C;
  double *Jf = th_zeros(nC * Pf), *J = th_zeros(nC * P);
  assert_int_equal(sgp_valla_jacobian(&ctx, net, sgp_cmat_of(X, n, net->width[0]), sgp_mat_of(Jf, nC, Pf)), SGP_OK);
  memcpy(J, Jf + nC * p0, (size_t)(nC * P) * sizeof(double));
  free(Jf);
  return J;
}

/* Largest / smallest eigenvalue of a symmetric n x n matrix (Jacobi oracle). */
static void eig_range(int64_t n, const double *A, double *lo, double *hi)
{
  double *w = th_zeros(n);
  th_jacobi_eig(n, A, w);
  *lo = w[0];
  *hi = w[n - 1];
  free(w);
}

/* Weight-space LLA over parameters p0..p0+P: var (ns*C) = s0 j (I + G)^{-1} j',
 * G = s0 sum_n J_n' Lambda_n J_n; *tol = max(nC, P) u (cond(J_X) + cond(I + G));
 * *kmax (may be NULL) = max prior variance s0 |j|^2 over Xs. */
static void ws_lla(const sgp_valla_net *net, sgp_likelihood lik, double s0, double noise, int64_t p0,
                   int64_t P, const double *X, int64_t n, const double *Xs, int64_t ns, double *var,
                   double *tol, double *kmax)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t C = net->width[net->n_layers], nC = n * C, sC = ns * C;
  double *J = jacobian_cols(net, X, n, p0, P), *Js = jacobian_cols(net, Xs, ns, p0, P);
  double *g = th_zeros(nC), *A = th_zeros(P * P), *JtJ = th_zeros(P * P), *Lam = th_zeros(C * C),
         *Jst = th_zeros(P * sC), *Y = th_zeros(P * sC);
  assert_int_equal(sgp_valla_forward(&ctx, net, sgp_cmat_of(X, n, net->width[0]), sgp_mat_of(g, n, C)), SGP_OK);
  for (int64_t i = 0; i < n; i++) {
    hessian_block(lik, C, g + i, n, noise, Lam);
    for (int64_t p = 0; p < P; p++)
      for (int64_t q = 0; q < P; q++)
        for (int64_t a = 0; a < C; a++)
          for (int64_t b = 0; b < C; b++)
            A[p + P * q] += s0 * J[i + n * a + nC * p] * Lam[a + C * b] * J[i + n * b + nC * q];
  }
  for (int64_t p = 0; p < P; p++)
    for (int64_t q = 0; q < P; q++)
      for (int64_t r = 0; r < nC; r++) JtJ[p + P * q] += J[r + nC * p] * J[r + nC * q];
  double glo, ghi, jlo, jhi;
  eig_range(P, A, &glo, &ghi);
  eig_range(P, JtJ, &jlo, &jhi);
  for (int64_t p = 0; p < P; p++) A[p + P * p] += 1.0;
  for (int64_t r = 0; r < sC; r++) for (int64_t p = 0; p < P; p++) Jst[p + P * r] = Js[r + sC * p];
  assert_int_equal(th_chol_solve(P, A, sC, Jst, Y), 0);
  for (int64_t r = 0; r < sC; r++) var[r] = s0 * sgp_dot(P, Jst + P * r, Y + P * r);
  for (int64_t r = 0; kmax && r < sC; r++) *kmax = fmax(r ? *kmax : 0, s0 * sgp_dot(P, Jst + P * r, Jst + P * r));
  assert_true(jlo > 0); /* J_X has full column rank: the identity to exact LLA applies */
  *tol = (double)(nC > P ? nC : P) * DBL_EPSILON * (sqrt(jhi / jlo) + 1.0 + ghi);
  free(J); free(Js); free(g); free(A); free(JtJ); free(Lam); free(Jst); free(Y);
}

/* Z = X with all C tags per point (row i + n*c). */
static void z_all_tags(const double *X, int64_t n, int64_t D, int64_t C, double *Z, int *tags)
{
  for (int64_t c = 0; c < C; c++)
    for (int64_t i = 0; i < n; i++) {
      tags[i + n * c] = (int)c;
      for (int64_t j = 0; j < D; j++) Z[i + n * c + n * C * j] = X[i + n * j];
    }
}

typedef struct {
  int64_t width[3];
  int skip;
  sgp_likelihood lik;
  int64_t n;
  int last_layer_only;
} rank_case;

static void one_rank_case(const rank_case *rc, sgp_rng *rng)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t D = rc->width[0], C = rc->width[2], n = rc->n, ns = 9, nC = n * C;
  sgp_valla_net net;
  vf_random_net(rng, 2, rc->width, rc->skip, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
  const int64_t Pf = sgp_valla_net_nparam(&net), p0 = rc->last_layer_only ? (D + 1) * rc->width[1] : 0;
  const int layers[2] = {0, 1};
  assert_true(nC > Pf - p0); /* more inducing points than parameters: K_ZZ singular */
  double *X = th_zeros(n * D), *Xs = th_zeros(ns * D), *y = th_zeros(n), *Z = th_zeros(nC * D);
  int *tags = calloc((size_t)nC, sizeof(int));
  th_randn(rng, n * D, X, 1.0, 0.0);
  th_randn(rng, ns * D, Xs, 1.0, 0.0);
  for (int64_t i = 0; i < n; i++) y[i] = rc->lik == SGP_LIK_GAUSSIAN ? 1 + 2 * sin(X[i]) : (double)(i % (C > 1 ? C : 2));
  z_all_tags(X, n, D, C, Z, tags);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.likelihood = rc->lik;
  o.prior_var = 0.7;
  o.noise = 0.02;
  o.closed_form = 1;
  o.inducing = sgp_cmat_of(Z, nC, D);
  o.inducing_tags = tags;
  o.layers = rc->last_layer_only ? layers : NULL;
  sgp_valla_result *f = NULL, *lla = NULL;
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_OK);
  assert_int_equal(f->prior, 0); /* Z spans every parameter direction */
  assert_null(f->P1);
  o.method = SGP_VALLA_METHOD_LLA;
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &lla), SGP_OK);
  double *v = th_zeros(ns * C), *vl = th_zeros(ns * C), *ref = th_zeros(ns * C), tol;
  assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, sgp_mat_of(v, ns, C), NOMAT, NOMAT), SGP_OK);
  assert_int_equal(sgp_valla_predict(&ctx, lla, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, sgp_mat_of(vl, ns, C), NOMAT, NOMAT), SGP_OK);
  ws_lla(&net, rc->lik, 0.7, 0.02, p0, Pf - p0, X, n, Xs, ns, ref, &tol, NULL);
  double e1 = 0, e2 = 0;
  for (int64_t r = 0; r < ns * C; r++) {
    e1 = fmax(e1, fabs(v[r] - ref[r]) / ref[r]);
    e2 = fmax(e2, fabs(vl[r] - ref[r]) / ref[r]);
  }
  print_message("M = %lld > P = %lld: closed form %.2g, lla %.2g (rel), tol %.2g\n", (long long)nC,
                (long long)(Pf - p0), e1, e2, tol);
  for (int64_t r = 0; r < ns * C; r++) {
    assert_close(v[r], ref[r], tol * ref[r]);
    assert_close(vl[r], ref[r], tol * ref[r]);
  }
  sgp_valla_fit_free(f); sgp_valla_fit_free(lla);
  sgp_valla_net_free(&net);
  free(X); free(Xs); free(y); free(Z); free(tags); free(v); free(vl); free(ref);
}

/* Z = X with more inducing points than parameters equals exact LLA (gaussian,
 * softmax with all C tags, bernoulli, skip layer, last layer only). */
static void z_equals_x_beyond_the_parameter_count(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 71);
  const rank_case cases[] = {
    {{3, 4, 1}, 0, SGP_LIK_GAUSSIAN, 40, 0},
    {{2, 3, 3}, 0, SGP_LIK_SOFTMAX, 12, 0},
    {{2, 4, 1}, 0, SGP_LIK_BERNOULLI, 30, 0},
    {{2, 5, 1}, 1, SGP_LIK_GAUSSIAN, 30, 0},
    {{3, 6, 1}, 0, SGP_LIK_GAUSSIAN, 15, 1},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) one_rank_case(&cases[k], &rng);
}

/* Titsias oracle in function space at distinct inducing points Zd (md x D):
 * var = K_xx - k K^{-1} k + k (K + Phi / s)^{-1} k with K = s0 J_Z J_Z', Phi = K_ZX K_XZ;
 * *scale = max K_xx, *cond = cond(K) + 1 + lambda_max(Phi / s) / lambda_min(K). */
static void titsias_oracle(const sgp_valla_net *net, double s0, double s, const double *Zd, int64_t md,
                           const double *X, int64_t n, const double *Xs, int64_t ns, double *var,
                           double *scale, double *cond)
{
  const int64_t P = sgp_valla_net_nparam(net);
  double *JZ = jacobian_cols(net, Zd, md, 0, P), *JX = jacobian_cols(net, X, n, 0, P),
         *Js = jacobian_cols(net, Xs, ns, 0, P), *K = th_zeros(md * md), *A = th_zeros(md * md),
         *KZX = th_zeros(md * n), *kZs = th_zeros(md * ns), *Y1 = th_zeros(md * ns), *Y2 = th_zeros(md * ns);
  for (int64_t a = 0; a < md; a++) {
    for (int64_t b = 0; b < md; b++) for (int64_t p = 0; p < P; p++) K[a + md * b] += s0 * JZ[a + md * p] * JZ[b + md * p];
    for (int64_t i = 0; i < n; i++) for (int64_t p = 0; p < P; p++) KZX[a + md * i] += s0 * JZ[a + md * p] * JX[i + n * p];
    for (int64_t i = 0; i < ns; i++) for (int64_t p = 0; p < P; p++) kZs[a + md * i] += s0 * JZ[a + md * p] * Js[i + ns * p];
  }
  for (int64_t a = 0; a < md; a++)
    for (int64_t b = 0; b < md; b++) {
      double q = 0;
      for (int64_t i = 0; i < n; i++) q += KZX[a + md * i] * KZX[b + md * i];
      A[a + md * b] = q / s;
    }
  double klo, khi, plo, phi;
  eig_range(md, K, &klo, &khi);
  eig_range(md, A, &plo, &phi);
  *cond = khi / klo + 1.0 + phi / klo;
  for (int64_t k = 0; k < md * md; k++) A[k] += K[k];
  assert_int_equal(th_chol_solve(md, K, ns, kZs, Y1), 0);
  assert_int_equal(th_chol_solve(md, A, ns, kZs, Y2), 0);
  *scale = 0;
  for (int64_t i = 0; i < ns; i++) {
    double kxx = 0;
    for (int64_t p = 0; p < P; p++) kxx += s0 * Js[i + ns * p] * Js[i + ns * p];
    *scale = fmax(*scale, kxx);
    var[i] = kxx - sgp_dot(md, kZs + md * i, Y1 + md * i) + sgp_dot(md, kZs + md * i, Y2 + md * i);
  }
  free(JZ); free(JX); free(Js); free(K); free(A); free(KZX); free(kZs); free(Y1); free(Y2);
}

/* Duplicated inducing points with jitter 0 (M < P, K_ZZ singular): the
 * eigenpair factor gives the Titsias posterior of the distinct points. Error:
 * the Nystrom residual is a difference of terms of size K_xx, each with relative
 * error of order M u cond(K) (the eigenvectors of the retained part) plus
 * M u cond(I + W) (the Cholesky factor of I + W). */
static void duplicated_inducing_points(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 72);
  const int64_t width[3] = {2, 10, 1}, D = 2, n = 30, ns = 9, md = 4, M = 2 * md;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
  double X[60], y[30], Xs[18], Zd[8], Z[16], v[9], ref[9], scale, cond;
  th_randn(&rng, n * D, X, 1.0, 0.0);
  th_randn(&rng, ns * D, Xs, 1.0, 0.0);
  th_randn(&rng, md * D, Zd, 1.0, 0.0);
  for (int64_t i = 0; i < n; i++) y[i] = sin(X[i]);
  for (int64_t m = 0; m < M; m++) for (int64_t j = 0; j < D; j++) Z[m + M * j] = Zd[m % md + md * j];
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.prior_var = 0.7;
  o.noise = 0.02;
  o.closed_form = 1;
  o.jitter = 0;
  o.inducing = sgp_cmat_of(Z, M, D);
  sgp_valla_result *f = NULL;
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_OK);
  assert_int_equal(f->prior, 1);
  assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, sgp_mat_of(v, ns, 1), NOMAT, NOMAT), SGP_OK);
  titsias_oracle(&net, 0.7, 0.02, Zd, md, X, n, Xs, ns, ref, &scale, &cond);
  const double tol = (double)M * DBL_EPSILON * cond * scale;
  print_message("duplicated Z: max abs err %.2g, tol %.2g\n", th_max_abs_diff(ns, v, ref), tol);
  for (int64_t i = 0; i < ns; i++) assert_close(v[i], ref[i], tol);
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

/* init_A = "closed_form" with M > P: the reported L (an exact lower factor of the
 * singular A*, by QR) warm-starts the trained-L form, which with no iterations
 * reproduces exact LLA. That form subtracts |R_H^{-1} L' k|^2 from K_xx, so its
 * error is absolute, of order n u (cond(J_Z) + cond(I + G)) K_xx. */
static void warm_start_beyond_the_parameter_count(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 73);
  const int64_t width[3] = {3, 4, 1}, D = 3, n = 40, ns = 9;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
  double X[120], y[40], Xs[27], v[9], ref[9], tol, kmax;
  th_randn(&rng, n * D, X, 1.0, 0.0);
  th_randn(&rng, ns * D, Xs, 1.0, 0.0);
  for (int64_t i = 0; i < n; i++) y[i] = sin(X[i]);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.prior_var = 0.7;
  o.noise = 0.02;
  o.inducing = sgp_cmat_of(X, n, D);
  o.init_A = SGP_VALLA_INIT_CLOSED_FORM;
  o.iterations = 0;
  sgp_valla_result *f = NULL;
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_OK);
  assert_int_equal(f->prior, 1);
  assert_int_equal(sgp_valla_predict(&ctx, f, sgp_cmat_of(Xs, ns, D), NOMAT, NOMAT, sgp_mat_of(v, ns, 1), NOMAT, NOMAT), SGP_OK);
  ws_lla(&net, SGP_LIK_GAUSSIAN, 0.7, 0.02, 0, sgp_valla_net_nparam(&net), X, n, Xs, ns, ref, &tol, &kmax);
  print_message("warm start, M > P: max abs err %.2g, tol %.2g\n", th_max_abs_diff(ns, v, ref), tol * kmax);
  for (int64_t i = 0; i < ns; i++) assert_close(v[i], ref[i], tol * kmax);
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

/* Exact LLA with a noise below the rounding level of a rank-deficient K_XX cannot
 * factor K + noise I: the error says so and names the way out, which works. */
static void lla_noise_below_rounding_is_explained(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 74);
  const int64_t width[3] = {3, 4, 1}, D = 3, n = 40;
  sgp_valla_net net;
  vf_random_net(&rng, 2, width, 0, SGP_ACT_TANH, SGP_ACT_IDENTITY, 1.5, &net);
  double X[120], y[40];
  th_randn(&rng, n * D, X, 1.0, 0.0);
  for (int64_t i = 0; i < n; i++) y[i] = sin(X[i]);
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  o.noise = 1e-20; /* 19 null directions of K_XX: their pivots are rounding noise */
  o.method = SGP_VALLA_METHOD_LLA;
  sgp_valla_result *f = NULL;
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_ENOTPD);
  assert_contains(ctx.errmsg, "raise noise");
  assert_contains(ctx.errmsg, "closed_form");
  o.method = SGP_VALLA_METHOD_VALLA;
  o.closed_form = 1;
  o.inducing = sgp_cmat_of(X, n, D);
  assert_int_equal(sgp_valla_fit(&ctx, &net, sgp_cmat_of(X, n, D), sgp_cmat_of(y, n, 1), NOCMAT, NOCMAT, &o, &f), SGP_OK);
  assert_int_equal(f->prior, 0);
  sgp_valla_fit_free(f);
  sgp_valla_net_free(&net);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(z_equals_x_beyond_the_parameter_count),
    cmocka_unit_test(duplicated_inducing_points),
    cmocka_unit_test(warm_start_beyond_the_parameter_count),
    cmocka_unit_test(lla_noise_below_rounding_is_explained),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
