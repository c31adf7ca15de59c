/* test_ski_select.c -- ski_gsgp's model selection (sgp_ski_fit_learn;
 * docs/ski_gsgp.md, "Hyperparameters").
 *
 * Problem: 1-D, n = 2000 points uniform on [0, 4], y = sin(3x) + 0.5 cos(7x)
 * + N(0, 0.1^2), a 100-point cubic grid (h = 0.04 against a learned
 * lengthscale near 0.4), 30 Rademacher probes; the SLQ path (loglik_method
 * "slq": "auto" would take the exact one on 100 points), for the probe seeds
 * 3 (the statistics'), 11, 16 and 27 (TEST_PROBE_SEED=s: seed s alone).
 *  - The optimizer converges, and where it stopped on a stalled line search
 *    each learned coordinate's gradient (what L-BFGS sees: quadratic term
 *    minus the Hutchinson trace) is within 3 of its standard errors of 0, the
 *    core's rule for accepting that stop (ski_select.c,
 *    accept_line_search_stop). Why not 0: the objective's value is the SLQ
 *    quadrature and its gradient the Hutchinson trace, which agree only in
 *    expectation (ski.h, sgp_ski_loglik_grad). The SE is that of the same
 *    evaluation. Where NLopt stopped on the objective's relative change
 *    (ftol_rel 1e-6) no gradient bound is claimed.
 *  - The learned objective is at least the objective at the start (the first
 *    row of the trace), and the trace's best row is the reported loglik up to
 *    the data fits' solve errors (polish_allowance has the bound).
 *  - Plausible values (wide: noise, lengthscale, outputscale).
 *  - Not given: learned from the data-based start; given: fixed
 *    (the reported value is the user's); learn = none: the not-given ones are 1
 *    and nothing is learned, and loglik is evaluated only with loglik = 1.
 *  - Without probe sketches SLQ learning is an error naming stats; the exact
 *    log-likelihood learns without them.
 *
 * Probe seeds. Before the moving box of ski_select.c (learn), probe seeds
 * 11-30 failed these checks in 9 of 20 runs with the kernels' fused
 * multiply-adds (11, 15, 16, 17, 19, 21, 22, 23, 28) and 10 of 20 without
 * (11, 15-20, 22, 23, 27): L-BFGS's third step put the outputscale at its
 * bound (1e4 times the start), where the SLQ value and its gradient disagree
 * and the optimizer stalled, not converged or with a reported value below the
 * best row, at a lengthscale of 0.67 and an exact evidence 25 below the
 * maximum. Since: seeds 1-60 pass in both arithmetics. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 2000, M = 100, T = 30 };

typedef struct {
  sgp_ctx ctx;
  sgp_ski_grid g;
  double X[N], y[N];
  sgp_ski_stats *st;
  double *uz, rhoz;
  sgp_ski_stats_data sd;
  double weights[M], hist[1001];
} problem;

static problem P;

/* TEST_VERBOSE=1 prints the compared figures. */
static int verbose(void)
{
  const char *v = getenv("TEST_VERBOSE");
  return v && *v && *v != '0';
}

/* The probes' seed: 3, or TEST_PROBE_SEED (the sweep of the header). */
static uint64_t probe_seed(void)
{
  const char *v = getenv("TEST_PROBE_SEED");
  return v && *v ? (uint64_t)strtoull(v, NULL, 10) : 3u;
}

static int setup(void **state)
{
  (void)state;
  problem *p = &P;
  sgp_ctx_init(&p->ctx);
  p->ctx.seed = 7;
  sgp_rng rng;
  sgp_rng_seed(&rng, 11);
  for (int i = 0; i < N; i++) {
    p->X[i] = 4.0 * sgp_rng_uniform(&rng);
    p->y[i] = sin(3 * p->X[i]) + 0.5 * cos(7 * p->X[i]) + 0.1 * sgp_rng_normal(&rng);
  }
  const double range[2] = {0.0, 4.0};
  const int64_t size[1] = {M};
  assert_int_equal(sgp_ski_grid_auto(&p->ctx, sgp_cmat_of(range, 1, 2), size, SGP_SKI_CUBIC, -1,
                                     &p->g), SGP_OK);
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  o.probes = T;
  o.seed = probe_seed();
  p->uz = th_zeros(M * T);
  p->rhoz = 0;
  assert_int_equal(sgp_ski_stats_compute(&p->ctx, &p->g, &o, sgp_cmat_of(p->X, N, 1),
                                         sgp_cmat_of(p->y, N, 1), 0, &p->st, p->uz, &p->rhoz),
                   SGP_OK);
  assert_int_equal(sgp_ski_stats_export(&p->ctx, p->st, &p->sd), SGP_OK);
  p->sd.probes = T;
  p->sd.probe_seed = probe_seed();
  p->sd.uz = p->uz;
  p->sd.rhoz = p->rhoz;
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  sgp_ski_stats_free(P.st);
  free(P.uz);
  return 0;
}

static int run(sgp_ski_opts *o, sgp_ski_opts *ro, sgp_ski_selection *sel, sgp_ski_result *res)
{
  memset(res, 0, sizeof *res);
  res->weights = P.weights;
  res->history = P.hist;
  return sgp_ski_fit_learn(&P.ctx, &P.sd, o, sgp_cmat_of(P.X, N, 1), sgp_cmat_of(P.y, N, 1), ro,
                           sel, res);
}

/* The probe sketches of seed `seed` in P (the statistics stay). */
static void use_probes(uint64_t seed)
{
  memset(P.uz, 0, sizeof(double) * M * T);
  P.rhoz = 0;
  assert_int_equal(sgp_ski_probe_sketch(&P.ctx, &P.g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                        sgp_cmat_of(P.X, N, 1), 0, seed, T, P.uz, &P.rhoz),
                   SGP_OK);
  P.sd.probe_seed = seed;
}

/* The reported value against the best row of the trace: both are the SLQ
 * part (which does not depend on the mean) minus half a data fit, and the GLS
 * mean maximizes the exact quadratic in the mean, so the reported value is
 * below the best row only by the two data fits' errors. Each data fit y'x of
 * a solve with true residual r = y - Ax is off by |y'A^-1 r| <= ||y||
 * ||r|| / noise (||A^-1|| <= 1/noise), with ||r|| <= tol ||y|| (tol = 1e-6,
 * the learning's) plus the rounding of the compressed form u'xh + c_x rho,
 * whose terms of size rho / noise cancel: 16 (n + m) eps rho / noise
 * (test_ski_loglik_grad.c, quad_bound); rho = |y - mu 1|^2 at either mean.
 * (The second-order bound tol^2 rho / noise of exact CG does not survive
 * rounding: seed 12 ends 5e-6 below its best row, above it.) */
static double polish_allowance(const sgp_hyper *h, double noise, int64_t best_row)
{
  double rho = 0.0;
  const double mus[2] = {h->mean[0], h->tr_theta[best_row + 2 * h->n_eval]};
  for (int j = 0; j < 2; j++) {
    double r = 0.0;
    for (int i = 0; i < N; i++) r += (P.y[i] - mus[j]) * (P.y[i] - mus[j]);
    if (r > rho) rho = r;
  }
  return (1e-6 + 16.0 * (double)(N + M) * DBL_EPSILON) * rho / noise;
}

static void check_stationary(uint64_t seed)
{
  sgp_ski_opts o, ro;
  sgp_ski_selection sel;
  sgp_ski_result res;
  use_probes(seed);
  sgp_ski_opts_default(&o);
  o.loglik_method = SGP_SKI_LOGLIK_SLQ;
  assert_int_equal(run(&o, &ro, &sel, &res), SGP_OK);
  const sgp_hyper *h = &sel.hyper;
  if (verbose())
    for (int64_t e = 0; e < h->n_eval; e++)
      printf("eval %lld: loglik %.8g |g| %.3g  ell %.4g s %.4g mean %.4g noise %.4g (%.2fs)\n",
             (long long)e, h->tr_loglik[e], h->tr_gradnorm[e], h->tr_theta[e],
             h->tr_theta[e + h->n_eval], h->tr_theta[e + 2 * h->n_eval],
             h->tr_theta[e + 3 * h->n_eval], h->tr_seconds[e]);
  if (verbose()) printf("seed %llu: %s\n", (unsigned long long)seed, h->optim_message);
  assert_int_equal(h->learned, SGP_LEARN_LENGTHSCALE | SGP_LEARN_OUTPUTSCALE | SGP_LEARN_MEAN |
                                   SGP_LEARN_NOISE);
  assert_int_equal(h->n_theta, 4);
  assert_true(h->optim_converged);
  assert_true(sel.evaluated);
  assert_true(h->n_eval >= 2);
  /* the learned objective is not below the start, and it is the trace's best
   * (within polish_allowance) */
  int64_t best_row = 0;
  for (int64_t e = 0; e < h->n_eval; e++)
    if (h->tr_loglik[e] > h->tr_loglik[best_row]) best_row = e;
  assert_true(h->loglik >= h->tr_loglik[0]);
  const double allow = polish_allowance(h, h->noise, best_row);
  if (verbose())
    printf("reported %.10g, best row %.10g, allowance %.3g\n", h->loglik, h->tr_loglik[best_row],
           allow);
  assert_true(h->loglik >= h->tr_loglik[best_row] - allow);
  assert_true(res.loglik == h->loglik);
  /* the gradient at the learned point against its standard error (same solves) */
  sgp_ski_loglik_opts lo;
  sgp_ski_loglik_opts_default(&lo);
  lo.tol = lo.mean_tol = 1e-6;
  lo.slq_max_iter = 300; /* ski_select.c: LEARN_TOL, LEARN_KRYLOV */
  sgp_kernel k = ro.kernel;
  sgp_ski_loglik_grad_result g;
  sgp_ski_stats c; /* the targets centred on the learned mean */
  double *uy = th_zeros(M);
  assert_true(ro.mean == h->mean[0] && res.mean == h->mean[0]);
  sgp_ski_stats_centred(P.st, h->mean[0], uy, &c);
  assert_int_equal(sgp_ski_loglik_grad(&P.ctx, &c, &k, ro.noise, NULL, P.uz, P.rhoz, T, &lo,
                                       NULL, &g), SGP_OK);
  assert_true(fabs(g.value.loglik - h->loglik) <= 1e-9 * fabs(h->loglik));
  const int stalled = strstr(h->optim_message, "within 3 standard errors") != NULL;
  for (int k2 = 0; k2 < 3; k2++) { /* h->grad: (ell, s, mean, noise); g.grad: (ell, s, noise) */
    const int kh = k2 < 2 ? k2 : 3;
    if (verbose())
      printf("theta %d: grad %.4g (reported %.4g), se %.4g\n", k2, g.grad[k2], h->grad[kh],
             g.grad_se[k2]);
    assert_true(g.grad[k2] == h->grad[kh]);
    if (stalled) assert_true(fabs(g.grad[k2]) <= 3.0 * g.grad_se[k2]);
  }
  /* the learned mean ends at its GLS estimate at the learned values, where the
   * derivative 1'A^-1(y - mu 1) (no probe noise) is 0 up to the two solves (GLS
   * and data fit, relative residual 1e-6 each): |1'A^-1 r| <= sqrt(n) ||r|| /
   * noise with ||r|| <= 1e-6 ||y - mu 1|| */
  assert_true(g.dmean == h->grad[2]);
  assert_true(fabs(g.dmean) <= 2.0 * sqrt((double)N) * 1e-6 * sqrt(c.yy) / ro.noise);
  if (verbose()) printf("mean %.6g: dL/dmu %.4g\n", h->mean[0], g.dmean);
  free(uy);
  /* plausible values for this signal (the exact evidence's maximum: noise
   * 0.0096, lengthscale 0.38, outputscale 1.5), wide: a sanity check, not a
   * tolerance; before the moving box, runs stalled at the outputscale's bound
   * 3152 with lengthscale 0.67 */
  assert_true(h->noise > 0.005 && h->noise < 0.02);
  assert_true(h->lengthscale[0] > 0.1 && h->lengthscale[0] < 1.0);
  assert_true(h->outputscale > 0.1 && h->outputscale < 30.0);
  assert_true(ro.noise == h->noise && ro.kernel.outputscale == h->outputscale);
  assert_true(res.converged);
  sgp_ski_selection_free(&sel);
}

/* TEST_PROBE_SEED=s runs seed s alone (the sweep of the header). */
static void learns_to_a_stationary_point(void **state)
{
  (void)state;
  const char *v = getenv("TEST_PROBE_SEED");
  if (v && *v) {
    check_stationary((uint64_t)strtoull(v, NULL, 10));
  } else {
    /* 3 (the statistics' sketches); 11, 16, 27 failed before the moving box */
    const uint64_t seeds[] = {3, 11, 16, 27};
    for (int i = 0; i < 4; i++) check_stationary(seeds[i]);
  }
  use_probes(3);
}

static void given_fixed_none_defaults(void **state)
{
  (void)state;
  sgp_ski_opts o, ro;
  sgp_ski_selection sel;
  sgp_ski_result res;
  const double ell = 0.4;
  /* given lengthscale and noise: fixed; outputscale learned from var(y)/2 */
  sgp_ski_opts_default(&o);
  o.kernel.lengthscale = &ell;
  o.noise = 0.02;
  assert_int_equal(run(&o, &ro, &sel, &res), SGP_OK);
  assert_int_equal(sel.hyper.learned, SGP_LEARN_OUTPUTSCALE | SGP_LEARN_MEAN);
  assert_true(sel.hyper.lengthscale[0] == ell && sel.hyper.noise == 0.02);
  assert_true(sel.hyper.tr_theta[0] == ell); /* the trace's lengthscale column: fixed */
  sgp_ski_selection_free(&sel);
  /* learn names a given value: it is the start */
  o.learn = SGP_SKI_LEARN_NOISE;
  assert_int_equal(run(&o, &ro, &sel, &res), SGP_OK);
  assert_int_equal(sel.hyper.learned, SGP_LEARN_NOISE);
  assert_true(sel.hyper.tr_theta[3 * sel.hyper.n_eval] == 0.02);
  assert_true(sel.hyper.mean[0] == 0.0 && res.mean == 0.0); /* not learned, not given: 0 */
  assert_true(sel.hyper.outputscale == 1.0); /* not given, not learned: 1 */
  sgp_ski_selection_free(&sel);
  /* learn = none: the old defaults, no log-likelihood unless asked */
  sgp_ski_opts_default(&o);
  o.learn = 0;
  assert_int_equal(run(&o, &ro, &sel, &res), SGP_OK);
  assert_int_equal(sel.hyper.learned, 0);
  assert_true(sel.hyper.lengthscale[0] == 1.0 && sel.hyper.outputscale == 1.0 &&
              sel.hyper.noise == 1.0 && sel.hyper.mean[0] == 0.0);
  assert_false(sel.evaluated);
  assert_true(isnan(sel.hyper.loglik) && !sel.hyper.grad);
  sgp_ski_selection_free(&sel);
  o.loglik = 1;
  assert_int_equal(run(&o, &ro, &sel, &res), SGP_OK);
  assert_true(sel.evaluated && sel.hyper.grad && res.loglik == sel.hyper.loglik);
  assert_int_equal(sel.hyper.n_eval, 0);
  sgp_ski_selection_free(&sel);
}

static void no_sketches(void **state)
{
  (void)state;
  sgp_ski_opts o, ro;
  sgp_ski_selection sel;
  sgp_ski_result res;
  sgp_ski_opts_default(&o);
  o.loglik_method = SGP_SKI_LOGLIK_SLQ;
  sgp_ski_stats_data sd = P.sd;
  sd.probes = 0;
  sd.uz = NULL;
  memset(&res, 0, sizeof res);
  res.weights = P.weights;
  assert_int_equal(sgp_ski_fit_learn(&P.ctx, &sd, &o, sgp_cmat_of(NULL, 0, 0),
                                     sgp_cmat_of(NULL, 0, 0), &ro, &sel, &res), SGP_EINVAL);
  assert_non_null(strstr(P.ctx.errmsg, "stats:"));
  sgp_ski_selection_free(&sel);
  /* the exact log-likelihood needs none */
  o.loglik_method = SGP_SKI_LOGLIK_EXACT;
  res.history = P.hist;
  assert_int_equal(sgp_ski_fit_learn(&P.ctx, &sd, &o, sgp_cmat_of(NULL, 0, 0),
                                     sgp_cmat_of(NULL, 0, 0), &ro, &sel, &res), SGP_OK);
  assert_true(sel.evaluated && sel.loglik_se == 0.0 && sel.probes_used == 0);
  sgp_ski_selection_free(&sel);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(learns_to_a_stationary_point),
    cmocka_unit_test(given_fixed_none_defaults),
    cmocka_unit_test(no_sketches),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
