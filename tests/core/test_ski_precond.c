/* test_ski_precond.c -- the opt-in preconditioned EFCG of ski_gsgp (docs/ski_gsgp.md,
 * "precond_rank"; core/ski/ski_precond.c) and the K_G eigenpairs it uses (ski_kg_eig.c), on
 * problem P2 of test_helpers.h (d = 2, grid 12 x 10, RBF ell = (0.6, 0.8), s = 1.3,
 * noise 0.5, n = 400) with dense oracles:
 *  - eigenpairs: ||K_G v - lam v|| small, V'V = I, lam equal the top
 *    eigenvalues of the dense K_G (Jacobi);
 *  - PCG at a tight tolerance gives the dense SKI GP mean cache
 *    a = K_G W' A^{-1} y and test means to the same tolerance as EFCG
 *    (test_ski_solve.c), and y'x the dense y'A^{-1}y;
 *  - its rel_residual is the unpreconditioned ||y - A x|| / ||y|| (dense A);
 *  - an ill-conditioned case (~200 points per cell, noise 1e-3): clearly
 *    at least 10 times fewer iterations with q = 40;
 *  - precond_rank = 0 is bitwise the default path; bad ranks name
 *    precond_rank; interrupts; no data gives mean 0. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double eig_res = 0, eig_orth = 0, eig_val = 0, err_pcg = 0, err_mean = 0, err_fit = 0,
              err_res = 0;
static int64_t eig_it = 0;
static int it_efcg = 0, it_pcg = 0, it_ill0 = 0, it_ill = 0;

typedef th_ski_p2 problem;

static int setup(void **state)
{
  *state = th_ski_p2_new();
  return 0;
}

static int report(void **state)
{
  (void)state;
  printf("ski precond (P2, m = 120): eigenpairs q = 10: max ||Kv - lv||/l1 %.2e (%lld it), "
         "|V'V - I| %.2e, eigenvalues vs dense %.2e; PCG q = 8 tol 1e-11: weights vs dense "
         "%.2e (%d it; EFCG %d it), test means %.2e, y'x %.2e; rel_residual vs dense "
         "||y - Ax||/||y|| %.2e; ill-conditioned tol 1e-6: EFCG %d it, PCG q = 40 %d it\n",
         eig_res, (long long)eig_it, eig_orth, eig_val, err_pcg, it_pcg, it_efcg, err_mean,
         err_fit, err_res, it_ill0, it_ill);
  return 0;
}

static int teardown(void **state)
{
  report(state);
  th_ski_p2_free((th_ski_p2 *)*state);
  return 0;
}

static void eigenpairs_of_kg(void **state)
{
  problem *p = (problem *)*state;
  const int64_t m = p->m, q = 10;
  double *V = th_zeros(m * q), *lam = th_zeros(q), *KV = th_zeros(m * q), *w = th_zeros(m);
  double resid = 0;
  sgp_rng_seed(&p->ctx.rng, 7);
  int code = sgp_ski_kg_eig(&p->ctx, &p->kg, q, 1e-10, 500, V, lam, &eig_it, &resid);
  if (code) fail_msg("kg_eig: %s", p->ctx.errmsg);
  /* residuals with the dense K_G (independent of the FFT operator) */
  th_matmul(m, q, m, p->KG, V, KV);
  eig_res = 0;
  for (int64_t j = 0; j < q; j++) {
    double s = 0;
    for (int64_t i = 0; i < m; i++) {
      const double d = KV[i + j * m] - lam[j] * V[i + j * m];
      s += d * d;
    }
    if (sqrt(s) / lam[0] > eig_res) eig_res = sqrt(s) / lam[0];
    for (int64_t k = 0; k < q; k++) {
      const double vv = sgp_dot(m, V + j * m, V + k * m) - (j == k ? 1.0 : 0.0);
      if (fabs(vv) > eig_orth) eig_orth = fabs(vv);
    }
  }
  assert_le(resid, 1e-10);
  assert_le(eig_res, 1e-8);
  assert_le(eig_orth, 1e-12);
  th_jacobi_eig(m, p->KG, w);
  for (int64_t j = 0; j < q; j++) {
    const double e = fabs(lam[j] - w[m - 1 - j]) / w[m - 1];
    if (e > eig_val) eig_val = e;
  }
  assert_le(eig_val, 1e-10);
  free(V); free(lam); free(KV); free(w);
}

/* Tight tolerance: PCG gives the dense SKI GP mean like EFCG does. */
static void pcg_matches_dense_ski_gp(void **state)
{
  problem *p = (problem *)*state;
  const int64_t m = p->m, n = p->n, nt = p->nt;
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  assert_int_equal(o.precond_rank, 0);
  o.tol = 1e-11;
  double *a = th_zeros(m), *mu = th_zeros(nt), *xh = th_zeros(m), cx = 0;
  double *hist = th_zeros(o.max_iter + 1), *z = th_zeros(n);
  sgp_ski_solve_info info;
  int code = sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, NULL, NULL, &info,
                               NULL, NULL, NULL);
  if (code) fail_msg("efcg: %s", p->ctx.errmsg);
  it_efcg = (int)info.iterations;
  for (int64_t q = 1; q <= 40; q += 7) {
    o.precond_rank = q;
    code = sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, xh, &cx, &info, hist,
                             NULL, NULL);
    if (code) fail_msg("pcg q = %lld: %s", (long long)q, p->ctx.errmsg);
    assert_true(info.converged);
    assert_le(info.rel_residual, o.tol);
    assert_close(hist[info.iterations], info.rel_residual, 0);
    assert_close(hist[0], 1.0, 0);
    const double e = th_rel_max(m, a, p->a_ref);
    assert_le(e, 1e-9);
    if (q == 8) { err_pcg = e; it_pcg = (int)info.iterations; }
    assert_int_equal(sgp_ski_predict_mean(&p->ctx, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                          sgp_cmat_of(p->Xt, nt, 2), a, mu), SGP_OK);
    const double em = th_rel_max(nt, mu, p->mean_ref);
    assert_le(em, 1e-8);
    if (em > err_mean) err_mean = em;
    /* y'x = u_y'xhat + c_x y'y against the dense y'A^{-1}y */
    double yx = sgp_dot(m, p->st->uy, xh) + cx * p->st->yy;
    assert_int_equal(th_chol_solve(n, p->A, 1, p->y, z), 0);
    const double ef = fabs(yx - sgp_dot(n, p->y, z)) / sgp_dot(n, p->y, z);
    assert_le(ef, 1e-9);
    if (ef > err_fit) err_fit = ef;
  }
  free(a); free(mu); free(xh); free(hist); free(z);
}

/* rel_residual is the unpreconditioned ||y - A x|| / ||y||, x = W xhat + c_x y. */
static void pcg_residual_is_unpreconditioned(void **state)
{
  problem *p = (problem *)*state;
  const int64_t m = p->m, n = p->n;
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  double *a = th_zeros(m), *xh = th_zeros(m), *x = th_zeros(n), *r = th_zeros(n), cx = 0;
  sgp_ski_solve_info info;
  for (int64_t q = 3; q <= 30; q *= 3) {
    o.precond_rank = q;
    for (int k = 1; k <= 3; k++) {
      o.tol = 0.0;
      o.max_iter = k;
      assert_int_equal(sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, xh, &cx,
                                         &info, NULL, NULL, NULL), SGP_OK);
      assert_int_equal(info.iterations, k);
      th_matmul(n, 1, m, p->W, xh, x);
      for (int64_t i = 0; i < n; i++) x[i] += cx * p->y[i];
      th_matmul(n, 1, n, p->A, x, r);
      for (int64_t i = 0; i < n; i++) r[i] = p->y[i] - r[i];
      const double rel = sgp_nrm2(n, r) / sgp_nrm2(n, p->y);
      const double e = fabs(rel - info.rel_residual) / rel;
      assert_le(e, 1e-8);
      if (e > err_res) err_res = e;
    }
  }
  o.tol = 0.01;
  o.max_iter = 1000;
  o.precond_rank = 10;
  assert_int_equal(sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, NULL, NULL,
                                     &info, NULL, NULL, NULL), SGP_OK);
  assert_true(info.converged);
  assert_le(info.rel_residual, 0.01);
  free(a); free(xh); free(x); free(r);
}

/* Many points per cell and little noise: EFCG needs many iterations, the
 * rank-40 preconditioner at least 10 times fewer. */
static void pcg_cuts_iterations_when_ill_conditioned(void **state)
{
  problem *p = (problem *)*state;
  const int64_t n = 24000, m = p->m;
  sgp_rng rng;
  sgp_rng_seed(&rng, 99);
  double *X = th_zeros(n * 2), *y = th_zeros(n), *a0 = th_zeros(m), *a1 = th_zeros(m);
  th_ski_data(&rng, &p->g, SGP_SKI_CUBIC, n, 0.0, X, y);
  sgp_ski_stats *st = NULL;
  assert_int_equal(sgp_ski_stats_create(&p->ctx, &p->g, SGP_SKI_CUBIC, &st), SGP_OK);
  assert_int_equal(sgp_ski_stats_accumulate(&p->ctx, st, sgp_cmat_of(X, n, 2),
                                            sgp_cmat_of(y, n, 1), 0, SGP_SKI_BOUNDS_ERROR),
                   SGP_OK);
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  o.tol = 1e-6;
  o.max_iter = 5000;
  const double noise = 1e-3;
  sgp_ski_solve_info i0, i1;
  assert_int_equal(sgp_ski_mean_efcg(&p->ctx, st, &p->kg, noise, &o, a0, NULL, NULL, &i0,
                                     NULL, NULL, NULL), SGP_OK);
  o.precond_rank = 40;
  assert_int_equal(sgp_ski_mean_efcg(&p->ctx, st, &p->kg, noise, &o, a1, NULL, NULL, &i1,
                                     NULL, NULL, NULL), SGP_OK);
  it_ill0 = (int)i0.iterations;
  it_ill = (int)i1.iterations;
  assert_true(i0.converged && i1.converged);
  assert_le(th_rel_max(m, a1, a0), 1e-4);
  assert_le(10.0 * (double)i1.iterations, (double)i0.iterations);
  sgp_ski_stats_free(st);
  free(X); free(y); free(a0); free(a1);
}

/* precond_rank = 0 is the unpreconditioned path, bit for bit. */
static void rank_zero_is_the_old_path(void **state)
{
  problem *p = (problem *)*state;
  const int64_t m = p->m;
  sgp_ski_solve_opts o, d;
  sgp_ski_solve_opts_default(&d);
  memset(&o, 0xff, sizeof o); /* garbage everywhere else, then the fields */
  o.tol = d.tol;
  o.max_iter = d.max_iter;
  o.precond_rank = 0;
  double *a0 = th_zeros(m), *a1 = th_zeros(m), *h0 = th_zeros(1001), *h1 = th_zeros(1001);
  sgp_ski_solve_info i0, i1;
  assert_int_equal(sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &d, a0, NULL, NULL,
                                     &i0, h0, NULL, NULL), SGP_OK);
  assert_int_equal(sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a1, NULL, NULL,
                                     &i1, h1, NULL, NULL), SGP_OK);
  assert_int_equal(i0.iterations, i1.iterations);
  assert_true(memcmp(a0, a1, (size_t)m * sizeof(double)) == 0);
  assert_true(memcmp(h0, h1, (size_t)(i0.iterations + 1) * sizeof(double)) == 0);
  free(a0); free(a1); free(h0); free(h1);
}

static int stop_now(void *user) { (void)user; return 1; }

static void bad_ranks_name_precond_rank(void **state)
{
  problem *p = (problem *)*state;
  const int64_t m = p->m;
  sgp_ski_solve_opts o;
  sgp_ski_solve_opts_default(&o);
  double *a = th_zeros(m), *V = th_zeros(m), lam = 0;
  const int64_t bad[] = {-1, m, m + 5};
  for (int i = 0; i < 3; i++) {
    o.precond_rank = bad[i];
    p->ctx.errmsg[0] = 0;
    assert_int_equal(sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, NULL, NULL,
                                       NULL, NULL, NULL, NULL), SGP_EINVAL);
    assert_contains(p->ctx.errmsg, "precond_rank");
  }
  /* called directly, the preconditioned solver checks tol and max_iter too */
  o.precond_rank = 4;
  o.tol = -1;
  assert_int_equal(sgp_ski_mean_pefcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, NULL, NULL,
                                      NULL, NULL, NULL, NULL), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "tol");
  o.tol = 0.01;
  o.max_iter = -2;
  assert_int_equal(sgp_ski_mean_pefcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, NULL, NULL,
                                      NULL, NULL, NULL, NULL), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "max_iter");
  assert_int_equal(sgp_ski_kg_eig(&p->ctx, &p->kg, 0, 1e-3, 10, V, &lam, NULL, NULL),
                   SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "precond_rank");
  /* interrupts reach the eigen sweeps and the solve; nothing leaks */
  o.max_iter = 1000;
  p->ctx.interrupt = stop_now;
  assert_int_equal(sgp_ski_mean_efcg(&p->ctx, p->st, &p->kg, p->noise, &o, a, NULL, NULL, NULL,
                                     NULL, NULL, NULL), SGP_EINTERRUPT);
  p->ctx.interrupt = NULL;
  /* no data: mean 0, converged at once */
  sgp_ski_stats *e = NULL;
  sgp_ski_solve_info info;
  assert_int_equal(sgp_ski_stats_create(&p->ctx, &p->g, SGP_SKI_CUBIC, &e), SGP_OK);
  a[0] = 7;
  assert_int_equal(sgp_ski_mean_efcg(&p->ctx, e, &p->kg, p->noise, &o, a, NULL, NULL, &info,
                                     NULL, NULL, NULL), SGP_OK);
  assert_true(info.converged);
  assert_int_equal(info.iterations, 0);
  assert_true(th_max_abs(m, a) == 0.0);
  sgp_ski_stats_free(e);
  free(a); free(V);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(eigenpairs_of_kg),
    cmocka_unit_test(pcg_matches_dense_ski_gp),
    cmocka_unit_test(pcg_residual_is_unpreconditioned),
    cmocka_unit_test(pcg_cuts_iterations_when_ill_conditioned),
    cmocka_unit_test(rank_zero_is_the_old_path),
    cmocka_unit_test(bad_ranks_name_precond_rank),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
