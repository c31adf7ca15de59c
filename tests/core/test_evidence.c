/* test_evidence.c -- gp_laplace's exact Laplace evidence (core/laplace/evidence.c)
 * against independent oracles: the gaussian closed form, the dense determinant
 * of I + K W, and central finite differences of the evidence for every
 * coordinate of the gradient (docs/gp_laplace.md derives both). */
#include "test_helpers.h"
#include "laplace/evidence.h"

typedef struct {
  sgp_likelihood lik;
  sgp_kernel_kind kind;
  int64_t n, d, C, n_ls;
  double ls[2], s, mean[3], noise;
  int offset;
  double alpha, par; /* rq's alpha, negbin's dispersion (0: not the kernel's or likelihood's) */
} ev_case;

typedef struct {
  double X[80], y[40], off[40], ls[2], mean[3], noise;
  sgp_ev_problem p;
} ev_data;

static void make_data(const ev_case *c, ev_data *e)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 7);
  const int64_t n = c->n;
  th_randn(&rng, n * c->d, e->X, 1.0, 0.0);
  for (int64_t i = 0; i < n; i++) {
    const double t = sin(2.0 * e->X[i]) + 0.3 * sgp_rng_normal(&rng);
    e->off[i] = 0.2 * sgp_rng_normal(&rng);
    switch (c->lik) {
    case SGP_LIK_BERNOULLI: e->y[i] = t > 0; break;
    case SGP_LIK_POISSON: e->y[i] = floor(exp(1.0 + t) + sgp_rng_uniform(&rng)); break;
    case SGP_LIK_NEGBIN: /* overdispersed around exp(1 + t) */
      e->y[i] = floor(exp(1.0 + t) * (0.2 + 1.6 * sgp_rng_uniform(&rng)) + sgp_rng_uniform(&rng));
      break;
    case SGP_LIK_GAUSSIAN: e->y[i] = 1.5 + t; break;
    default: e->y[i] = 1.0 + (double)(i % c->C); /* every class occurs */
      if (t > 0.5) e->y[i] = 1.0;
    }
  }
  memcpy(e->ls, c->ls, sizeof e->ls);
  memcpy(e->mean, c->mean, sizeof e->mean);
  e->noise = c->noise;
  sgp_ev_problem *p = &e->p;
  memset(p, 0, sizeof *p);
  p->lik.kind = c->lik; p->lik.n = n; p->lik.C = c->C; p->lik.y = e->y;
  p->lik.offset = c->offset ? e->off : NULL;
  p->lik.noise = &e->noise; p->lik.n_noise = 1; p->lik.noise_max = 1e300;
  p->lik.par = c->par;
  p->X = sgp_cmat_of(e->X, n, c->d);
  p->kernel.kind = c->kind; p->kernel.lengthscale = e->ls; p->kernel.n_lengthscale = c->n_ls;
  p->kernel.outputscale = c->s;
  p->kernel.alpha = c->alpha > 0 ? c->alpha : 1.0;
  p->mean = e->mean;
  p->layout.n_ls = c->n_ls; p->layout.n_mean = c->C; p->layout.has_noise = c->lik == SGP_LIK_GAUSSIAN;
  p->layout.has_par = c->par > 0;
  p->layout.has_alpha = c->alpha > 0;
}

/* Coordinate k of theta (log lengthscales, log outputscale, means, log noise,
 * log dispersion, log alpha) moved by h. */
static void shift(ev_data *e, int64_t k, double h)
{
  const sgp_ev_layout *l = &e->p.layout;
  if (k < l->n_ls) e->ls[k] *= exp(h);
  else if (k == l->n_ls) e->p.kernel.outputscale *= exp(h);
  else if (k < l->n_ls + 1 + l->n_mean) e->mean[k - l->n_ls - 1] += h;
  else if (l->has_noise && k == sgp_ev_noise_at(l)) e->noise *= exp(h);
  else if (l->has_par && k == sgp_ev_par_at(l)) e->p.lik.par *= exp(h);
  else e->p.kernel.alpha *= exp(h);
}

/* Every gradient entry against central differences with h = 1e-4: truncation
 * h^2/6 |q'''| ~ 1e-9 |q'''| and rounding ~ 1e-13 |q| / h stay below the
 * tolerance 1e-6 max(|g|, 1) for these O(10..100) evidences. */
static void check_gradient(const ev_case *c)
{
  ev_data e;
  make_data(c, &e);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ev_ws ws;
  assert_int_equal(sgp_ev_ws_init(&ctx, &ws, c->n, c->C, 1), SGP_OK);
  const int64_t np = sgp_ev_size(&e.p.layout);
  double q, g[8];
  if (sgp_evidence(&ctx, &e.p, &ws, &q, g)) fail_msg("%s", ctx.errmsg);
  assert_true(isfinite(q));
  const double h = 1e-4;
  for (int64_t k = 0; k < np; k++) {
    double qp, qm;
    shift(&e, k, h);
    assert_int_equal(sgp_evidence(&ctx, &e.p, &ws, &qp, NULL), SGP_OK);
    shift(&e, k, -2 * h);
    assert_int_equal(sgp_evidence(&ctx, &e.p, &ws, &qm, NULL), SGP_OK);
    shift(&e, k, h);
    const double fd = (qp - qm) / (2 * h);
    if (!(fabs(g[k] - fd) <= 1e-6 * fmax(fabs(g[k]), 1.0)))
      fail_msg("likelihood %d kernel %d coordinate %lld: gradient %.12g vs finite differences %.12g",
               (int)c->lik, (int)c->kind, (long long)k, g[k], fd);
  }
  sgp_ev_ws_free(&ws);
}

static void gradients_match_finite_differences(void **state)
{
  (void)state;
  const ev_case cases[] = {
    {SGP_LIK_BERNOULLI, SGP_KERNEL_RBF, 30, 1, 1, 1, {0.8, 0}, 1.5, {0.3, 0, 0}, 1, 0, 0, 0},
    {SGP_LIK_BERNOULLI, SGP_KERNEL_MATERN52, 30, 2, 1, 2, {0.7, 1.6}, 2.0, {-0.4, 0, 0}, 1, 0, 0, 0},
    {SGP_LIK_BERNOULLI, SGP_KERNEL_MATERN12, 25, 2, 1, 1, {1.1, 0}, 1.0, {0.0, 0, 0}, 1, 0, 0, 0},
    {SGP_LIK_POISSON, SGP_KERNEL_RBF, 30, 1, 1, 1, {0.6, 0}, 0.8, {0.7, 0, 0}, 1, 1, 0, 0},
    {SGP_LIK_POISSON, SGP_KERNEL_MATERN32, 30, 2, 1, 2, {0.9, 1.3}, 0.5, {1.0, 0, 0}, 1, 1, 0, 0},
    {SGP_LIK_GAUSSIAN, SGP_KERNEL_MATERN32, 30, 2, 1, 2, {0.9, 1.2}, 1.3, {1.0, 0, 0}, 0.2, 0, 0, 0},
    {SGP_LIK_GAUSSIAN, SGP_KERNEL_RBF, 30, 1, 1, 1, {0.5, 0}, 1.0, {0.2, 0, 0}, 0.05, 0, 0, 0},
    {SGP_LIK_SOFTMAX, SGP_KERNEL_RBF, 24, 1, 3, 1, {0.7, 0}, 2.0, {0.2, -0.1, 0.4}, 1, 0, 0, 0},
    {SGP_LIK_SOFTMAX, SGP_KERNEL_MATERN52, 24, 2, 3, 2, {0.8, 1.5}, 1.5, {0, 0.3, -0.2}, 1, 0, 0, 0},
    /* log alpha (rq), log dispersion (negbin) */
    {SGP_LIK_BERNOULLI, SGP_KERNEL_RQ, 30, 1, 1, 1, {0.8, 0}, 1.5, {0.3, 0, 0}, 1, 0, 3.0, 0},
    {SGP_LIK_POISSON, SGP_KERNEL_RQ, 30, 2, 1, 2, {0.9, 1.3}, 0.8, {0.7, 0, 0}, 1, 1, 0.7, 0},
    {SGP_LIK_GAUSSIAN, SGP_KERNEL_RQ, 30, 1, 1, 1, {0.5, 0}, 1.0, {0.2, 0, 0}, 0.05, 0, 1.5, 0},
    {SGP_LIK_SOFTMAX, SGP_KERNEL_RQ, 24, 1, 3, 1, {0.7, 0}, 2.0, {0.2, -0.1, 0.4}, 1, 0, 0.6, 0},
    {SGP_LIK_NEGBIN, SGP_KERNEL_RBF, 30, 1, 1, 1, {0.6, 0}, 0.8, {0.7, 0, 0}, 1, 1, 0, 0.6},
    {SGP_LIK_NEGBIN, SGP_KERNEL_RQ, 30, 2, 1, 2, {0.9, 1.3}, 0.5, {1.0, 0, 0}, 1, 1, 2.0, 4.0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) check_gradient(&cases[i]);
}

/* Gaussian: the Laplace evidence is the exact GP evidence -1/2 r'(K+s2 I)^-1 r
 * - 1/2 log|K + s2 I| - n/2 log 2pi, here by a plain-loop Cholesky. */
static void gaussian_is_the_exact_evidence(void **state)
{
  (void)state;
  const ev_case c = {SGP_LIK_GAUSSIAN, SGP_KERNEL_MATERN52, 30, 2, 1, 1, {0.9, 0}, 1.3,
                     {1.0, 0, 0}, 0.2, 0, 0, 0};
  ev_data e;
  make_data(&c, &e);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ev_ws ws;
  assert_int_equal(sgp_ev_ws_init(&ctx, &ws, c.n, 1, 1), SGP_OK);
  double q;
  assert_int_equal(sgp_evidence(&ctx, &e.p, &ws, &q, NULL), SGP_OK);
  const int64_t n = c.n;
  double A[900], r[30];
  th_kernel_matrix(c.kind, c.s, e.ls, 1, e.X, n, e.X, n, 2, A);
  for (int64_t i = 0; i < n; i++) { A[i + i * n] += c.noise; r[i] = e.y[i] - c.mean[0]; }
  double logdet = 0.0;
  for (int64_t j = 0; j < n; j++) { /* in-place Cholesky, lower */
    for (int64_t k = 0; k < j; k++) A[j + j * n] -= A[j + k * n] * A[j + k * n];
    A[j + j * n] = sqrt(A[j + j * n]);
    logdet += 2 * log(A[j + j * n]);
    for (int64_t i = j + 1; i < n; i++) {
      for (int64_t k = 0; k < j; k++) A[i + j * n] -= A[i + k * n] * A[j + k * n];
      A[i + j * n] /= A[j + j * n];
    }
  }
  for (int64_t i = 0; i < n; i++) { /* r = L^-1 r */
    for (int64_t k = 0; k < i; k++) r[i] -= A[i + k * n] * r[k];
    r[i] /= A[i + i * n];
  }
  double quad = 0.0;
  for (int64_t i = 0; i < n; i++) quad += r[i] * r[i];
  const double exact = -0.5 * quad - 0.5 * logdet - 0.5 * n * log(6.283185307179586476925);
  /* both sides are O(n) sums of O(1) terms with condition ~ |K|/s2 ~ 1e2 */
  assert_close(q, exact, 1e-10 * n * 100);
  sgp_ev_ws_free(&ws);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(gradients_match_finite_differences),
    cmocka_unit_test(gaussian_is_the_exact_evidence),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
