/* test_lik_counts.c -- the count likelihoods of gp_laplace (binomial with
 * trials, negative binomial NB2 with a dispersion and offsets) against a dense
 * Laplace oracle written out here: Newton on the dense K with the likelihood's
 * derivatives from their formulas, and the evidence
 *   -1/2 a'K a + log p(y | f) - 1/2 log |I + W^1/2 K W^1/2|
 * at its mode; the fit (policy cholesky, the full budget) and the core's exact
 * evidence must match it to 1e-8 relative, the evidence's gradient central
 * differences to 1e-6, and bad labels are errors naming y or trials. */
#include "test_helpers.h"
#include "laplace/evidence.h"

#define N 30

typedef struct {
  sgp_likelihood lik;
  double X[N], y[N], trials[N], off[N], par, ls, s, mean;
} case_t;

static void make_case(sgp_likelihood lik, case_t *c)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 11);
  memset(c, 0, sizeof *c);
  c->lik = lik; c->ls = 0.8; c->s = 1.3; c->mean = 0.4; c->par = 2.5;
  th_randn(&rng, N, c->X, 1.0, 0.0);
  for (int i = 0; i < N; i++) {
    const double t = sin(2.0 * c->X[i]) + 0.3 * sgp_rng_normal(&rng);
    c->trials[i] = 1 + i % 7;
    c->off[i] = 0.3 * sgp_rng_normal(&rng);
    if (lik == SGP_LIK_BINOMIAL) /* a share of successes that follows t */
      c->y[i] = floor(c->trials[i] / (1.0 + exp(-t)) + sgp_rng_uniform(&rng));
    else /* an overdispersed count around exp(1 + t + off) */
      c->y[i] = floor(exp(1.0 + t + c->off[i]) * (0.3 + 1.4 * sgp_rng_uniform(&rng)) +
                      sgp_rng_uniform(&rng));
    if (c->y[i] > c->trials[i] && lik == SGP_LIK_BINOMIAL) c->y[i] = c->trials[i];
  }
}

/* log p(y_i | f_i), its gradient and W = -d2 log p from the formulas. */
static double oracle_lik(const case_t *c, int i, double f, double *g, double *w)
{
  const double y = c->y[i];
  if (c->lik == SGP_LIK_BINOMIAL) {
    const double t = c->trials[i], p = 1.0 / (1.0 + exp(-f));
    *g = y - t * p;
    *w = t * p * (1.0 - p);
    return lgamma(t + 1) - lgamma(y + 1) - lgamma(t - y + 1) + y * log(p) + (t - y) * log1p(-p);
  }
  const double r = c->par, mu = exp(f + c->off[i]);
  *g = r * (y - mu) / (r + mu);
  *w = r * mu * (y + r) / ((r + mu) * (r + mu));
  return lgamma(y + r) - lgamma(r) - lgamma(y + 1) + r * log(r / (r + mu)) + y * log(mu / (r + mu));
}

/* In-place lower Cholesky of an n x n matrix; returns log det. */
static double chol(double *A, int n)
{
  double logdet = 0.0;
  for (int j = 0; j < n; j++) {
    for (int k = 0; k < j; k++) A[j + j * n] -= A[j + k * n] * A[j + k * n];
    A[j + j * n] = sqrt(A[j + j * n]);
    logdet += 2 * log(A[j + j * n]);
    for (int i = j + 1; i < n; i++) {
      for (int k = 0; k < j; k++) A[i + j * n] -= A[i + k * n] * A[j + k * n];
      A[i + j * n] /= A[j + j * n];
    }
  }
  return logdet;
}

/* x = (L L')^-1 x */
static void chol_solve(const double *L, int n, double *x)
{
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < i; k++) x[i] -= L[i + k * n] * x[k];
    x[i] /= L[i + i * n];
  }
  for (int i = n - 1; i >= 0; i--) {
    for (int k = i + 1; k < n; k++) x[i] -= L[k + i * n] * x[k];
    x[i] /= L[i + i * n];
  }
}

/* The mode f (R&W Alg. 3.1, Newton to rounding) and the evidence. */
static double oracle(const case_t *c, double *f)
{
  double K[N * N], B[N * N], a[N], b[N], kb[N], sw[N], g[N], w[N];
  th_kernel_matrix(SGP_KERNEL_RBF, c->s, &c->ls, 1, c->X, N, c->X, N, 1, K);
  for (int i = 0; i < N; i++) f[i] = c->mean;
  double q = 0.0, half_logdet = 0.0;
  for (int it = 0; it < 100; it++) {
    double lp = 0.0;
    for (int i = 0; i < N; i++) { lp += oracle_lik(c, i, f[i], &g[i], &w[i]); sw[i] = sqrt(w[i]); }
    for (int j = 0; j < N; j++)
      for (int i = 0; i < N; i++) B[i + j * N] = (i == j) + sw[i] * K[i + j * N] * sw[j];
    half_logdet = 0.5 * chol(B, N);
    for (int i = 0; i < N; i++) b[i] = w[i] * (f[i] - c->mean) + g[i];
    th_matmul(N, 1, N, K, b, kb);
    for (int i = 0; i < N; i++) kb[i] *= sw[i];
    chol_solve(B, N, kb);
    for (int i = 0; i < N; i++) a[i] = b[i] - sw[i] * kb[i];
    double fn[N], step = 0.0;
    th_matmul(N, 1, N, K, a, fn);
    for (int i = 0; i < N; i++) {
      fn[i] += c->mean;
      step = fmax(step, fabs(fn[i] - f[i]));
      f[i] = fn[i];
    }
    q = lp;
    if (step < 1e-13) break;
  }
  /* the evidence at the final mode: W and log p there */
  double lp = 0.0, quad = 0.0;
  for (int i = 0; i < N; i++) { lp += oracle_lik(c, i, f[i], &g[i], &w[i]); sw[i] = sqrt(w[i]); }
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) B[i + j * N] = (i == j) + sw[i] * K[i + j * N] * sw[j];
  half_logdet = 0.5 * chol(B, N);
  for (int i = 0; i < N; i++) quad += a[i] * (f[i] - c->mean);
  (void)q;
  return -0.5 * quad + lp - half_logdet;
}

/* the likelihood's scalar parameter, where it has one */
static void set_par(sgp_laplace_opts *o, double par) { o->dispersion = par; }

static void opts_of(const case_t *c, sgp_laplace_opts *o)
{
  sgp_laplace_opts_default(o);
  o->likelihood = c->lik;
  o->kernel.lengthscale = &c->ls;
  o->kernel.n_lengthscale = 1;
  o->kernel.outputscale = c->s;
  o->mean = &c->mean;
  o->n_mean = 1;
  o->learn = 0;
  o->policy = SGP_POLICY_CHOLESKY;
  o->max_iter = N;
  o->max_newton = 50;
  o->tol = 1e-12;
  if (c->lik == SGP_LIK_BINOMIAL) o->trials = sgp_cmat_of(c->trials, N, 1);
  else o->offset = sgp_cmat_of(c->off, N, 1);
  set_par(o, c->par);
}

/* The core's exact-evidence problem for the case (theta: log ls, log s, mean). */
static void problem_of(case_t *c, sgp_ev_problem *p)
{
  memset(p, 0, sizeof *p);
  p->lik.kind = c->lik; p->lik.n = N; p->lik.C = 1; p->lik.y = c->y; p->lik.noise_max = 1e300;
  if (c->lik == SGP_LIK_BINOMIAL) { p->lik.trials = c->trials; p->lik.n_trials = N; }
  else { p->lik.offset = c->off; p->lik.par = c->par; }
  p->X = sgp_cmat_of(c->X, N, 1);
  p->kernel.kind = SGP_KERNEL_RBF; p->kernel.lengthscale = &c->ls; p->kernel.n_lengthscale = 1;
  p->kernel.outputscale = c->s;
  p->mean = &c->mean;
  p->layout.n_ls = 1; p->layout.n_mean = 1;
}

static const sgp_likelihood kinds[] = {SGP_LIK_BINOMIAL, SGP_LIK_NEGBIN};

/* Newton with the full budget ends at the mode (quadratic convergence: rounding
 * of f's O(1) entries, ~1e-15); 1e-8 leaves room for the conditioning of
 * I + W^1/2 K W^1/2 (its condition number here is below 1e3). */
static void mode_and_evidence_match_the_dense_oracle(void **state)
{
  (void)state;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    case_t c;
    make_case(kinds[k], &c);
    double f_or[N];
    const double q_or = oracle(&c, f_or);
    sgp_laplace_opts o;
    opts_of(&c, &o);
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    sgp_laplace_result *fit = NULL;
    if (sgp_laplace_fit(&ctx, sgp_cmat_of(c.X, N, 1), sgp_cmat_of(c.y, N, 1),
                        sgp_cmat_of(NULL, 0, 0), &o, &fit))
      fail_msg("%s", ctx.errmsg);
    assert_true(fit->converged);
    const double ef = th_rel_max(N, fit->f, f_or);
    if (!(ef <= 1e-8)) fail_msg("likelihood %d: mode off by %.3g relative", (int)c.lik, ef);
    sgp_laplace_fit_free(fit);
    sgp_ev_problem p;
    problem_of(&c, &p);
    sgp_ev_ws ws;
    assert_int_equal(sgp_ev_ws_init(&ctx, &ws, N, 1, 1), SGP_OK);
    double q;
    if (sgp_evidence(&ctx, &p, &ws, &q, NULL)) fail_msg("%s", ctx.errmsg);
    if (!(fabs(q - q_or) <= 1e-8 * fabs(q_or)))
      fail_msg("likelihood %d: evidence %.15g vs the oracle's %.15g", (int)c.lik, q, q_or);
    sgp_ev_ws_free(&ws);
  }
}

/* Central differences with h = 1e-4: truncation h^2/6 |q'''| ~ 1e-9 |q'''| and
 * rounding ~ 1e-13 |q| / h, below 1e-6 max(|g|, 1) for these O(10..100) evidences. */
static void gradient_matches_finite_differences(void **state)
{
  (void)state;
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    case_t c;
    make_case(kinds[k], &c);
    sgp_ev_problem p;
    problem_of(&c, &p);
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    sgp_ev_ws ws;
    assert_int_equal(sgp_ev_ws_init(&ctx, &ws, N, 1, 1), SGP_OK);
    double q, g[4], *coord[] = {&c.ls, &c.s, &c.mean};
    if (sgp_evidence(&ctx, &p, &ws, &q, g)) fail_msg("%s", ctx.errmsg);
    const double h = 1e-4;
    for (int j = 0; j < 3; j++) {
      double qp, qm, *v = coord[j];
      const double v0 = *v;
      *v = j < 2 ? v0 * exp(h) : v0 + h; /* log lengthscale, log outputscale, mean */
      p.kernel.outputscale = c.s;
      assert_int_equal(sgp_evidence(&ctx, &p, &ws, &qp, NULL), SGP_OK);
      *v = j < 2 ? v0 * exp(-h) : v0 - h;
      p.kernel.outputscale = c.s;
      assert_int_equal(sgp_evidence(&ctx, &p, &ws, &qm, NULL), SGP_OK);
      *v = v0;
      p.kernel.outputscale = c.s;
      const double fd = (qp - qm) / (2 * h);
      if (!(fabs(g[j] - fd) <= 1e-6 * fmax(fabs(g[j]), 1.0)))
        fail_msg("likelihood %d coordinate %d: gradient %.12g vs finite differences %.12g",
                 (int)c.lik, j, g[j], fd);
    }
    sgp_ev_ws_free(&ws);
  }
}

static void expect_error(const case_t *c, const sgp_laplace_opts *o, const double *y,
                         const char *want)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_laplace_result *fit = NULL;
  assert_int_not_equal(sgp_laplace_fit(&ctx, sgp_cmat_of(c->X, N, 1), sgp_cmat_of(y, N, 1),
                                       sgp_cmat_of(NULL, 0, 0), o, &fit), SGP_OK);
  assert_null(fit);
  if (!strstr(ctx.errmsg, want)) fail_msg("got <%s>, want <%s>", ctx.errmsg, want);
}

static void binomial_rejects_bad_labels_and_trials(void **state)
{
  (void)state;
  case_t c;
  make_case(SGP_LIK_BINOMIAL, &c);
  sgp_laplace_opts o;
  opts_of(&c, &o);
  double y[N], t[N];
  memcpy(y, c.y, sizeof y);
  y[2] = -1;
  expect_error(&c, &o, y,
               "y: binomial counts must be whole numbers in 0..trials (trials = 3) (element 3 is -1)");
  y[2] = 0.5;
  expect_error(&c, &o, y, "y: binomial counts must be whole numbers in 0..trials");
  y[2] = 4; /* trials[2] = 3 */
  expect_error(&c, &o, y, "(element 3 is 4)");
  memcpy(t, c.trials, sizeof t);
  t[4] = 0;
  o.trials = sgp_cmat_of(t, N, 1);
  expect_error(&c, &o, c.y, "trials: must be whole numbers >= 1 (element 5 is 0)");
  t[4] = 2.5;
  expect_error(&c, &o, c.y, "trials: must be whole numbers >= 1 (element 5 is 2.5)");
  o.trials = sgp_cmat_of(t, 3, 1);
  expect_error(&c, &o, c.y, "trials: needs 1 or 30 values (got 3)");
  opts_of(&c, &o);
  o.likelihood = SGP_LIK_BERNOULLI;
  expect_error(&c, &o, c.y, "trials: is only used with likelihood = \"binomial\"");
}

/* The evidence at the mode f with its a = K^-1 (f - m) held fixed, at dispersion
 * r: log p and W from the formulas, so that its derivative in log r is the
 * gradient without the mode's move (the implicit term). */
static double frozen_evidence(const case_t *c0, const double *f, const double *a, double r)
{
  case_t c = *c0;
  c.par = r;
  double K[N * N], B[N * N], sw[N], g, w, lp = 0.0, quad = 0.0;
  th_kernel_matrix(SGP_KERNEL_RBF, c.s, &c.ls, 1, c.X, N, c.X, N, 1, K);
  for (int i = 0; i < N; i++) {
    lp += oracle_lik(&c, i, f[i], &g, &w);
    sw[i] = sqrt(w);
    quad += a[i] * (f[i] - c.mean);
  }
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++) B[i + j * N] = (i == j) + sw[i] * K[i + j * N] * sw[j];
  return -0.5 * quad + lp - 0.5 * chol(B, N);
}

/* The gradient in log dispersion against central differences of the exact
 * evidence (h = 1e-4, the bound above: 1e-6 max(|g|, 1)), the kernel and mean
 * coordinates unchanged by the extra one; and the implicit term (the mode moving
 * with r: the total derivative minus that of the evidence at the frozen mode)
 * is over 1e3 times that tolerance here, so a gradient without it fails. */
static void negbin_dispersion_gradient(void **state)
{
  (void)state;
  case_t c;
  make_case(SGP_LIK_NEGBIN, &c);
  sgp_ev_problem p;
  problem_of(&c, &p);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ev_ws ws;
  assert_int_equal(sgp_ev_ws_init(&ctx, &ws, N, 1, 1), SGP_OK);
  double q0, g0[3], q, g[4], f[N], a[N];
  if (sgp_evidence(&ctx, &p, &ws, &q0, g0)) fail_msg("%s", ctx.errmsg);
  sgp_ev_ws_free(&ws); /* a cold start again: the same Newton steps */
  assert_int_equal(sgp_ev_ws_init(&ctx, &ws, N, 1, 1), SGP_OK);
  p.layout.has_par = 1;
  if (sgp_evidence(&ctx, &p, &ws, &q, g)) fail_msg("%s", ctx.errmsg);
  assert_memory_equal(g, g0, sizeof g0);
  memcpy(f, ws.f, sizeof f);
  memcpy(a, ws.a, sizeof a);
  const double h = 1e-4, r = c.par;
  double qp, qm;
  p.lik.par = r * exp(h);
  assert_int_equal(sgp_evidence(&ctx, &p, &ws, &qp, NULL), SGP_OK);
  p.lik.par = r * exp(-h);
  assert_int_equal(sgp_evidence(&ctx, &p, &ws, &qm, NULL), SGP_OK);
  const double fd = (qp - qm) / (2 * h), tol = 1e-6 * fmax(fabs(g[3]), 1.0);
  if (!(fabs(g[3] - fd) <= tol))
    fail_msg("d/dlog dispersion: gradient %.12g vs finite differences %.12g", g[3], fd);
  const double frozen = (frozen_evidence(&c, f, a, r * exp(h)) -
                         frozen_evidence(&c, f, a, r * exp(-h))) / (2 * h);
  print_message("d/dlog dispersion %.12g, differences %.12g, implicit term %.4g\n", g[3], fd,
                fd - frozen);
  if (!(fabs(fd - frozen) > 1e3 * tol))
    fail_msg("the implicit term %.3g is too small to be tested", fd - frozen);
  sgp_ev_ws_free(&ws);
}

static void negbin_rejects_bad_labels_and_dispersion(void **state)
{
  (void)state;
  case_t c;
  make_case(SGP_LIK_NEGBIN, &c);
  sgp_laplace_opts o;
  opts_of(&c, &o);
  double y[N];
  memcpy(y, c.y, sizeof y);
  y[2] = -1;
  expect_error(&c, &o, y, "y: negbin counts must be non-negative integers (element 3 is -1)");
  y[2] = 0.5;
  expect_error(&c, &o, y, "y: negbin counts must be non-negative integers (element 3 is 0.5)");
  o.dispersion = 0;
  expect_error(&c, &o, c.y, "dispersion: must be positive and finite (got 0)");
  o.dispersion = INFINITY;
  expect_error(&c, &o, c.y, "dispersion: must be positive and finite (got inf)");
  opts_of(&c, &o);
  o.trials = sgp_cmat_of(c.trials, N, 1);
  expect_error(&c, &o, c.y, "trials: is only used with likelihood = \"binomial\"");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(mode_and_evidence_match_the_dense_oracle),
    cmocka_unit_test(gradient_matches_finite_differences),
    cmocka_unit_test(negbin_dispersion_gradient),
    cmocka_unit_test(binomial_rejects_bad_labels_and_trials),
    cmocka_unit_test(negbin_rejects_bad_labels_and_dispersion),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
