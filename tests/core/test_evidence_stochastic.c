/* test_evidence_stochastic.c -- the matrix-free Laplace evidence
 * (core/laplace/evidence_stochastic.c) against the exact one (evidence.c), and its one-pass low-rank kernel contraction
 * (sgp_kernel_grad_lowrank) against the dense one. */
#include "test_helpers.h"

#include <stdlib.h>
#include "kernels/kernels.h"
#include "laplace/evidence.h"
#include "laplace/laplace.h"

/* ------------------------------------------------ low-rank contraction */

/* sum_ik (U V')_ik dK_ik equals the dense contraction with G = (U V' + V U') / 2
 * (the same sum: dK is symmetric). Both add the same n^2 / 2 terms in other
 * orders, so they differ by rounding: a few eps times log2(n^2) times the sum of
 * the terms' magnitudes (the dense contraction of |G|, every dk/dtheta >= 0). */
static void lowrank_matches_dense(sgp_kernel_kind kind, int64_t nl)
{
  const int64_t n = 157, d = 3, r = 5; /* n not a multiple of the tile (32) */
  sgp_rng rng;
  sgp_rng_seed(&rng, 11);
  double *X = th_zeros(n * d), *U = th_zeros(n * r), *V = th_zeros(n * r);
  double *K = th_zeros(n * n), *G = th_zeros(n * n), *A = th_zeros(n * n);
  th_randn(&rng, n * d, X, 1.0, 0.0);
  th_randn(&rng, n * r, U, 1.0, 0.0);
  th_randn(&rng, n * r, V, 1.0, 0.0);
  double ls[3] = {0.8, 1.3, 0.6};
  sgp_kernel k = {kind, ls, nl, 1.7, 1.0};
  th_kernel_matrix(kind, k.outputscale, ls, nl, X, n, X, n, d, K);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      double g = 0.0;
      for (int64_t c = 0; c < r; c++) g += U[i + c * n] * V[j + c * n] + V[i + c * n] * U[j + c * n];
      G[i + j * n] = 0.5 * g;
      A[i + j * n] = fabs(0.5 * g);
    }
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  /* the last entry: log alpha (0 but for rq) */
  double gd[5], gl[5], gl1[5], ga[5];
  assert_int_equal(sgp_kernel_grad_dense(&ctx, &k, sgp_cmat_of(X, n, d), K, G, n, gd,
                                         gd + nl + 1), SGP_OK);
  assert_int_equal(sgp_kernel_grad_dense(&ctx, &k, sgp_cmat_of(X, n, d), K, A, n, ga,
                                         ga + nl + 1), SGP_OK);
  assert_int_equal(sgp_kernel_grad_lowrank(&ctx, &k, sgp_cmat_of(X, n, d), sgp_cmat_of(U, n, r),
                                           sgp_cmat_of(V, n, r), 32, gl, gl + nl + 1), SGP_OK);
  for (int64_t p = 0; p <= nl + 1; p++)
    if (!(fabs(gl[p] - gd[p]) <= 1e-12 * fabs(ga[p])))
      fail_msg("kernel %d coordinate %lld: low-rank %.17g dense %.17g (scale %.3g)", (int)kind,
               (long long)p, gl[p], gd[p], ga[p]);
  /* the same bitwise on one thread */
  sgp_ctx_set_threads(&ctx, 1);
  assert_int_equal(sgp_kernel_grad_lowrank(&ctx, &k, sgp_cmat_of(X, n, d), sgp_cmat_of(U, n, r),
                                           sgp_cmat_of(V, n, r), 32, gl1, gl1 + nl + 1), SGP_OK);
  assert_memory_equal(gl, gl1, (size_t)(nl + 2) * sizeof(double));
  free(X); free(U); free(V); free(K); free(G); free(A);
}

static void lowrank_contraction(void **state)
{
  (void)state;
  const sgp_kernel_kind kinds[] = {SGP_KERNEL_RBF, SGP_KERNEL_MATERN12, SGP_KERNEL_MATERN32,
                                   SGP_KERNEL_MATERN52};
  for (int i = 0; i < 4; i++) { lowrank_matches_dense(kinds[i], 1); lowrank_matches_dense(kinds[i], 3); }
}

/* ------------------------------------------------ the preconditioner */

/* The factor with kept pivots (one tile, a Cholesky of K(piv, piv) and a
 * triangular solve) equals the greedy pivoted Cholesky that chose them: F F'
 * entrywise. Both are Cholesky factorizations of K(piv, piv) in the same order,
 * computed by different operations; the greedy rule keeps every pivot's
 * remaining diagonal L_jj^2 above 1e-4 s, so |L^-1|^2 <= 1e4 / s and the
 * difference is within k eps |K| |L^-1|^2 s ~ k 1e4 eps s: 1e-9 s for k <= 50.
 * And a duplicated pivot (remaining diagonal 0) ends the kept factor there. */
static void precond_kept_pivots(int64_t d)
{
  const int64_t n = 300, rank = 50;
  sgp_rng rng;
  sgp_rng_seed(&rng, 21);
  double *X = th_zeros(n * d), ls[1] = {0.9};
  th_randn(&rng, n * d, X, 1.0, 0.0);
  sgp_kernel k = {SGP_KERNEL_MATERN52, ls, 1, 1.6, 1.0};
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  int64_t piv[50], npiv = 0;
  sgp_evs_precond g, kept;
  assert_int_equal(sgp_evs_precond_build(&ctx, &k, sgp_cmat_of(X, n, d), (int)rank, piv, &npiv, &g),
                   SGP_OK);
  assert_int_equal(npiv, g.k);
  assert_true(g.k >= 10);
  assert_int_equal(sgp_evs_precond_build(&ctx, &k, sgp_cmat_of(X, n, d), (int)rank, piv, &npiv,
                                         &kept), SGP_OK);
  assert_int_equal(kept.k, g.k);
  double worst = 0.0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      double a = 0.0, b = 0.0;
      for (int64_t c = 0; c < g.k; c++) {
        a += g.F[i + c * n] * g.F[j + c * n];
        b += kept.F[i + c * n] * kept.F[j + c * n];
      }
      worst = fmax(worst, fabs(a - b));
    }
  if (!(worst <= 1e-9 * k.outputscale)) fail_msg("d = %lld: |F F' - F_kept F_kept'| = %g", (long long)d, worst);
  sgp_evs_precond_free(&kept);
  /* the second pivot's row duplicated into the first's: nothing is left of it */
  for (int64_t c = 0; c < d; c++) X[piv[1] + c * n] = X[piv[0] + c * n];
  assert_int_equal(sgp_evs_precond_build(&ctx, &k, sgp_cmat_of(X, n, d), (int)rank, piv, &npiv,
                                         &kept), SGP_OK);
  assert_int_equal(kept.k, 1);
  sgp_evs_precond_free(&kept);
  sgp_evs_precond_free(&g);
  free(X);
}

/* d = 3 and 8: the two tile paths (direct differences, and dot products by BLAS) */
static void precond_kept_pivots_match_greedy(void **state)
{
  (void)state;
  precond_kept_pivots(3);
  precond_kept_pivots(8);
}

/* ------------------------------------------------ the estimator vs exact */

typedef struct {
  int64_t n, d;
  double *X, *y, *off, ls[2], mean, noise;
  sgp_ev_problem p;
} prob;

static void make_prob(sgp_likelihood lik, int64_t n, prob *e)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 5);
  e->n = n; e->d = 2;
  e->X = th_zeros(n * 2); e->y = th_zeros(n); e->off = th_zeros(n);
  th_randn(&rng, n * 2, e->X, 1.0, 0.0);
  for (int64_t i = 0; i < n; i++) {
    const double t = sin(2.0 * e->X[i]) + cos(e->X[i + n]) + 0.3 * sgp_rng_normal(&rng);
    e->off[i] = 0.2 * sgp_rng_normal(&rng);
    if (lik == SGP_LIK_NEGBIN) { /* overdispersed: a uniform factor on the rate */
      const double u = sgp_rng_uniform(&rng);
      e->y[i] = floor(exp(0.5 + t) * 2.0 * u + sgp_rng_uniform(&rng));
      continue;
    }
    e->y[i] = lik == SGP_LIK_BERNOULLI ? t > 0.4
              : lik == SGP_LIK_POISSON ? floor(exp(0.5 + t) + sgp_rng_uniform(&rng)) : 1.0 + t;
  }
  e->ls[0] = 0.9; e->ls[1] = 1.4; e->mean = 0.2; e->noise = 0.3;
  sgp_ev_problem *p = &e->p;
  memset(p, 0, sizeof *p);
  p->lik.kind = lik; p->lik.n = n; p->lik.C = 1; p->lik.y = e->y;
  p->lik.offset = lik == SGP_LIK_POISSON || lik == SGP_LIK_NEGBIN ? e->off : NULL;
  p->lik.noise = &e->noise; p->lik.n_noise = 1; p->lik.noise_max = 1e300;
  p->lik.par = 1.5;
  p->X = sgp_cmat_of(e->X, n, 2);
  p->kernel.kind = SGP_KERNEL_MATERN52; p->kernel.lengthscale = e->ls;
  p->kernel.n_lengthscale = 2; p->kernel.outputscale = 1.5;
  p->mean = &e->mean;
  p->layout.n_ls = 2; p->layout.n_mean = 1; p->layout.has_noise = lik == SGP_LIK_GAUSSIAN;
  if (lik == SGP_LIK_NEGBIN) { /* the learned dispersion and rq's alpha, matrix-free */
    p->kernel.kind = SGP_KERNEL_RQ;
    p->kernel.alpha = 1.2;
    p->layout.has_par = p->layout.has_alpha = 1;
  }
}

static void free_prob(prob *e) { free(e->X); free(e->y); free(e->off); }

/* the option's default (laplace_options.c) */
static int default_probes(void)
{
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  return o.probes;
}

/* The problem, its exact evidence q, gradient g and mode f (NULL: not kept); the
 * number of coordinates. */
static int64_t exact_evidence(sgp_likelihood lik, int64_t n, prob *e, sgp_ctx *ctx, double *q,
                              double *g, double *f)
{
  make_prob(lik, n, e);
  sgp_ctx_init(ctx);
  sgp_ev_ws ws;
  assert_int_equal(sgp_ev_ws_init(ctx, &ws, n, 1, 1), SGP_OK);
  if (sgp_evidence(ctx, &e->p, &ws, q, g)) fail_msg("%s", ctx->errmsg);
  if (f) memcpy(f, ws.f, (size_t)n * sizeof(double));
  sgp_ev_ws_free(&ws);
  return sgp_ev_size(&e->p.layout);
}

#define SEEDS 50

/* Oracle 3 at n = 300: over 50 probe seeds, the mean estimate is within 3 of its
 * standard errors (the seeds' spread / sqrt(50)) of the exact evidence, and so is
 * each gradient coordinate's mean (the diag(Sigma) estimator of the implicit term
 * included: its bias would show here). Each seed's reported standard error agrees
 * with the spread across seeds (within a factor 2: the sd of 50 draws is known to
 * about 10%, each reported one from 16+ probes to about 18%). The mode equals the
 * exact mode to the Newton tolerance: both stop after taking a full step of at most
 * SGP_EV_MODE_STEP_TOL (1 + max|f - m|) (1e-9), which leaves the exact mode's
 * error at its square and the CG one's at the step times the solver's relative
 * tolerance (1e-4) and the preconditioned system's conditioning: 10 times the step
 * tolerance has a wide margin. */
static void matches_exact(sgp_likelihood lik)
{
  const int64_t n = 300;
  prob e;
  sgp_ctx ctx;
  double q, g[6], fex[300];
  const int64_t np = exact_evidence(lik, n, &e, &ctx, &q, g, fex);
  double qs[SEEDS], gs[SEEDS][6], se_mean = 0.0;
  for (int s = 0; s < SEEDS; s++) {
    sgp_evs_ws mw;
    assert_int_equal(sgp_evs_ws_init(&ctx, &mw, n, default_probes(), 1000 + s, 0, 64), SGP_OK);
    double se;
    if (sgp_evidence_stochastic(&ctx, &e.p, &mw, &qs[s], &se, gs[s])) fail_msg("%s", ctx.errmsg);
    se_mean += se / SEEDS;
    if (s == 0) {
      double fmax = 0.0;
      for (int64_t i = 0; i < n; i++) fmax = fmax > fabs(fex[i] - e.mean) ? fmax : fabs(fex[i] - e.mean);
      const double df = th_max_abs_diff(n, mw.ev.f, fex);
      print_message("likelihood %d: the mode differs from the exact one by %.3g (scale %.3g)\n",
                    (int)lik, df, fmax);
      if (!(df <= 10 * SGP_EV_MODE_STEP_TOL * (1.0 + fmax)))
        fail_msg("mode off by %.3g (scale %.3g)", df, fmax);
    }
    sgp_evs_ws_free(&mw);
  }
  double m = 0.0, v = 0.0;
  for (int s = 0; s < SEEDS; s++) m += qs[s] / SEEDS;
  for (int s = 0; s < SEEDS; s++) v += (qs[s] - m) * (qs[s] - m) / (SEEDS - 1);
  print_message("likelihood %d: exact %.6f, mean of %d seeds %.6f (sd %.4f, reported se %.4f)\n",
                (int)lik, q, SEEDS, m, sqrt(v), se_mean);
  if (!(fabs(m - q) <= 3.0 * sqrt(v / SEEDS)))
    fail_msg("mean estimate %.8g vs exact %.8g: more than 3 standard errors (%.3g)", m, q,
             sqrt(v / SEEDS));
  if (!(se_mean <= 2.0 * sqrt(v) && sqrt(v) <= 2.0 * se_mean))
    fail_msg("reported se %.3g vs the seeds' sd %.3g", se_mean, sqrt(v));
  for (int64_t k = 0; k < np; k++) {
    double gm = 0.0, gv = 0.0;
    for (int s = 0; s < SEEDS; s++) gm += gs[s][k] / SEEDS;
    for (int s = 0; s < SEEDS; s++) gv += (gs[s][k] - gm) * (gs[s][k] - gm) / (SEEDS - 1);
    print_message("  grad %lld: exact %.6f, mean %.6f (se of the mean %.2g)\n", (long long)k,
                  g[k], gm, sqrt(gv / SEEDS));
    /* the value and the mean gradient of the Gaussian are exact up to the solves when
     * the probes do not enter (1e-6: the probe tolerance times the scale) */
    if (!(fabs(gm - g[k]) <= 3.0 * sqrt(gv / SEEDS) + 1e-6 * fmax(fabs(g[k]), 1.0)))
      fail_msg("coordinate %lld: mean %.8g vs exact %.8g (se %.3g)", (long long)k, gm, g[k],
               sqrt(gv / SEEDS));
  }
  free_prob(&e);
}

static void stochastic_matches_exact(void **state)
{
  (void)state;
  matches_exact(SGP_LIK_BERNOULLI);
  matches_exact(SGP_LIK_POISSON);
  matches_exact(SGP_LIK_GAUSSIAN);
  matches_exact(SGP_LIK_NEGBIN);
}

/* Oracle 3's gradient: cosine >= 0.99 with the default probes at n = 2000. */
static void gradient_cosine(void **state)
{
  (void)state;
  const int64_t n = 2000;
  const sgp_likelihood liks[] = {SGP_LIK_BERNOULLI, SGP_LIK_POISSON};
  for (int l = 0; l < 2; l++) {
    prob e;
    sgp_ctx ctx;
    double q, g[6];
    const int64_t np = exact_evidence(liks[l], n, &e, &ctx, &q, g, NULL);
    for (int s = 0; s < 3; s++) {
      sgp_evs_ws mw;
      assert_int_equal(sgp_evs_ws_init(&ctx, &mw, n, default_probes(), 77 + s, 0, 0), SGP_OK);
      double qm, se, gm[6], dot = 0.0, a2 = 0.0, b2 = 0.0;
      if (sgp_evidence_stochastic(&ctx, &e.p, &mw, &qm, &se, gm)) fail_msg("%s", ctx.errmsg);
      for (int64_t k = 0; k < np; k++) { dot += g[k] * gm[k]; a2 += g[k] * g[k]; b2 += gm[k] * gm[k]; }
      const double cosv = dot / sqrt(a2 * b2);
      print_message("n = %lld likelihood %d seed %d: loglik exact %.4f estimate %.4f (se %.4f), "
                    "gradient cosine %.5f, %lld CG products\n", (long long)n, (int)liks[l], s, q,
                    qm, se, cosv, (long long)mw.cg_iterations);
      if (!(cosv >= 0.99)) fail_msg("gradient cosine %.5f < 0.99", cosv);
      if (!(fabs(qm - q) <= 4.0 * se)) fail_msg("estimate %.6f vs exact %.6f, se %.3g", qm, q, se);
      sgp_evs_ws_free(&mw);
    }
    free_prob(&e);
  }
}

/* Learning on the stochastic evidence with n >= 2 SGP_EVS_PILOT_N starts from the
 * exact evidence's maximizer on the seeded subset (laplace_select.c): the first
 * row of its trace is where exact learning on those rows (sgp_laplace_pilot_rows),
 * from the same data-based start, ends. Both are the same deterministic
 * computation on the same numbers, so they agree to rounding (1e-12); and the
 * stochastic learning itself converges (path values, optim.c). */
static void stochastic_learning_starts_at_the_subset_optimum(void **state)
{
  (void)state;
  const int64_t n = 2 * SGP_EVS_PILOT_N, m = SGP_EVS_PILOT_N;
  prob e;
  make_prob(SGP_LIK_BERNOULLI, n, &e);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double ls0, s0, mu0, noise0;
  assert_int_equal(sgp_laplace_initial(&ctx, e.p.X, &e.p.lik, 1, &ls0, &s0, &mu0, &noise0), SGP_OK);
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  o.likelihood = SGP_LIK_BERNOULLI;
  o.max_iter = 2; /* the fit after the learning is not the subject */
  o.learn = SGP_LEARN_LENGTHSCALE | SGP_LEARN_OUTPUTSCALE | SGP_LEARN_MEAN;
  o.evidence = SGP_EVIDENCE_STOCHASTIC;
  /* both fits on the inputs as given: the oracle's subset fit starts from the
   * raw inputs' initial values (and centring would change its rounding) */
  o.scale = 0;
  sgp_laplace_result *st = NULL, *ex = NULL;
  if (sgp_laplace_fit(&ctx, e.p.X, sgp_cmat_of(e.y, n, 1), sgp_cmat_of(NULL, 0, 0), &o, &st))
    fail_msg("%s", ctx.errmsg);
  int64_t *idx = malloc((size_t)n * sizeof *idx);
  double *Xs = th_zeros(m * 2), *ys = th_zeros(m);
  sgp_laplace_pilot_rows(&ctx, n, idx);
  for (int64_t i = 0; i < m; i++) {
    Xs[i] = e.X[idx[i]];
    Xs[i + m] = e.X[idx[i] + n];
    ys[i] = e.y[idx[i]];
  }
  o.evidence = SGP_EVIDENCE_EXACT;
  o.kernel.lengthscale = &ls0; /* given and learned: the starting point */
  o.kernel.outputscale = s0;
  o.mean = &mu0;
  o.n_mean = 1;
  if (sgp_laplace_fit(&ctx, sgp_cmat_of(Xs, m, 2), sgp_cmat_of(ys, m, 1), sgp_cmat_of(NULL, 0, 0),
                      &o, &ex))
    fail_msg("%s", ctx.errmsg);
  const sgp_hyper *h = &st->hyper;
  const int64_t ne = h->n_eval;
  assert_true(ne >= 1);
  print_message("subset optimum: lengthscale %.6g outputscale %.6g mean %.6g; stochastic "
                "learning: %lld evaluations to lengthscale %.6g outputscale %.6g mean %.6g (%s)\n",
                ex->hyper.lengthscale[0], ex->hyper.outputscale, ex->hyper.mean[0],
                (long long)ne, h->lengthscale[0], h->outputscale, h->mean[0], h->optim_message);
  assert_close(h->tr_theta[0], ex->hyper.lengthscale[0], 1e-12 * ex->hyper.lengthscale[0]);
  assert_close(h->tr_theta[ne], ex->hyper.outputscale, 1e-12 * ex->hyper.outputscale);
  assert_close(h->tr_theta[2 * ne], ex->hyper.mean[0], 1e-12 * (1.0 + fabs(ex->hyper.mean[0])));
  assert_int_equal(h->optim_converged, 1);
  assert_true(isfinite(h->loglik_se) && h->loglik_se > 0.0);
  sgp_laplace_fit_free(st);
  sgp_laplace_fit_free(ex);
  free(idx); free(Xs); free(ys);
  free_prob(&e);
}

/* softmax is refused with a message naming the estimator's scope */
static void softmax_refused(void **state)
{
  (void)state;
  prob e;
  make_prob(SGP_LIK_BERNOULLI, 20, &e);
  e.p.lik.kind = SGP_LIK_SOFTMAX;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_evs_ws mw;
  assert_int_equal(sgp_evs_ws_init(&ctx, &mw, 20, 4, 1, 0, 0), SGP_OK);
  double q, se;
  assert_int_equal(sgp_evidence_stochastic(&ctx, &e.p, &mw, &q, &se, NULL), SGP_EINVAL);
  assert_non_null(strstr(ctx.errmsg, "softmax"));
  sgp_evs_ws_free(&mw);
  free_prob(&e);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(lowrank_contraction),
    cmocka_unit_test(precond_kept_pivots_match_greedy),
    cmocka_unit_test(stochastic_matches_exact),
    cmocka_unit_test(gradient_cosine),
    cmocka_unit_test(softmax_refused),
    cmocka_unit_test(stochastic_learning_starts_at_the_subset_optimum),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
