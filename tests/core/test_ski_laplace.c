/* test_ski_laplace.c -- ski_laplace against independent oracles on a 12 x 10
 * grid (spacing 0.25, rbf, ARD lengthscales 0.6 and 0.8, outputscale 1.3):
 *  - cells = gp_laplace's exact evidence (evidence.c, its own Newton and dense
 *    factors) at the observed cells' centres: mode, evidence and every gradient
 *    entry to 1e-8 relative (poisson with offsets, -Inf cells and zeros;
 *    bernoulli with NaN cells; binomial with trials);
 *  - the exact gradient = central differences of the exact evidence to 1e-6,
 *    and the implicit term (the mode's dependence on theta) is larger than that
 *    tolerance, so the test fails without it;
 *  - the slq estimate of the evidence and gradient is unbiased: the mean over
 *    50 seeds lies within 3 standard errors of the exact value;
 *  - the eigen path (whitened latent, preconditioned SLQ): the same mode, an
 *    unbiased evidence and gradient, and an exact one for a constant curvature
 *    (gaussian on every cell: the preconditioner is then M itself), also when
 *    long lengthscales leave fewer basis vectors than grid points;
 *  - points: c = W'1 with linear weights (c >= 0, sum c = n) and the Cox
 *    process log-likelihood sum_i f(x_i) - sum_g a_g exp(u_g) at the mode. */
#include "test_helpers.h"
#include "ski_laplace/skl_eig.h"

#include <stdlib.h>

#define M1 12
#define M2 10
#define MG (M1 * M2)

typedef struct {
  double y[MG], off[MG], trials[MG], bounds[4], dim[2];
  sgp_ski_laplace_opts o;
  double ls[2];
} cells_t;

static void make_cells(sgp_likelihood lik, cells_t *c)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 5);
  memset(c, 0, sizeof *c);
  sgp_ski_laplace_opts_default(&c->o);
  c->o.likelihood = lik;
  c->ls[0] = 0.6; c->ls[1] = 0.8;
  c->o.kernel.lengthscale = c->ls;
  c->o.kernel.n_lengthscale = 2;
  c->o.kernel.outputscale = 1.3;
  c->o.mean = lik == SGP_LIK_POISSON ? 0.5 : -0.2;
  c->o.tol = 1e-11;
  c->o.max_newton = 50;
  c->o.learn = 0;
  c->o.probes = 30;
  c->o.loglik_method = SGP_SKL_LOGLIK_EXACT;
  c->bounds[0] = 0.0; c->bounds[1] = 0.0; c->bounds[2] = 0.25 * (M1 - 1); c->bounds[3] = 0.25 * (M2 - 1);
  c->o.grid_bounds = c->bounds;
  c->o.n_grid_bounds = 4;
  c->dim[0] = M1; c->dim[1] = M2;
  for (int g = 0; g < MG; g++) {
    const int i = g % M1, j = g / M1;
    const double t = sin(0.25 * i * 1.3) + cos(0.25 * j);
    c->off[g] = 0.2 * sgp_rng_normal(&rng);
    c->trials[g] = 1 + g % 5;
    if (lik == SGP_LIK_POISSON) {
      c->y[g] = floor(exp(0.5 + t + c->off[g]) * sgp_rng_uniform(&rng) * 1.5);
      if (g % 6 == 3) { c->off[g] = -INFINITY; c->y[g] = 0.0; } /* 20 cells without exposure */
    } else if (lik == SGP_LIK_BINOMIAL) {
      c->y[g] = floor(c->trials[g] * sgp_rng_uniform(&rng) * (t > 0 ? 1.0 : 0.5));
    } else {
      c->y[g] = sgp_rng_uniform(&rng) < 1.0 / (1.0 + exp(-2.0 * t)) ? 1.0 : 0.0;
      if (g % 7 == 2) c->y[g] = NAN;
    }
  }
}

static sgp_ski_laplace_data data_of(cells_t *c)
{
  sgp_ski_laplace_data d;
  memset(&d, 0, sizeof d);
  d.y = sgp_cmat_of(c->y, MG, 1);
  d.ydim = sgp_cmat_of(c->dim, 2, 1);
  if (c->o.likelihood == SGP_LIK_POISSON) d.offset = sgp_cmat_of(c->off, MG, 1);
  if (c->o.likelihood == SGP_LIK_BINOMIAL) d.trials = sgp_cmat_of(c->trials, MG, 1);
  return d;
}

typedef struct {
  skl_problem p;
  skl_prior pr;
  skl_state s;
} fit_t;

static void fit_at(sgp_ctx *ctx, cells_t *c, fit_t *f)
{
  const sgp_ski_laplace_data d = data_of(c);
  if (skl_problem_make(ctx, &c->o, &d, &f->p)) fail_msg("%s", ctx->errmsg);
  if (skl_prior_make(ctx, &f->p, &c->o.kernel, c->o.mean, &f->pr)) fail_msg("%s", ctx->errmsg);
  if (skl_state_init(ctx, &f->s, f->p.m, f->p.n, 64)) fail_msg("%s", ctx->errmsg);
  if (skl_newton(ctx, &f->p, &f->pr, &c->o, 0.0, &f->s)) fail_msg("%s", ctx->errmsg);
  if (!f->s.converged) fail_msg("Newton: %s, mode bound %.3g", f->s.stop, f->s.mode_error);
}

static void fit_free(fit_t *f)
{
  skl_state_free(&f->s); skl_prior_free(&f->pr); skl_problem_free(&f->p);
}

static void refit(sgp_ctx *ctx, cells_t *c, fit_t *f)
{
  skl_prior_free(&f->pr);
  if (skl_prior_make(ctx, &f->p, &c->o.kernel, c->o.mean, &f->pr)) fail_msg("%s", ctx->errmsg);
  if (skl_newton(ctx, &f->p, &f->pr, &c->o, 0.0, &f->s)) fail_msg("%s", ctx->errmsg);
  if (!f->s.converged) fail_msg("Newton: %s", f->s.stop);
}

/* Mode, evidence and gradient against gp_laplace's exact evidence on the
 * observed cells: both are the f-space Laplace of K_OO (the unobserved cells
 * carry no likelihood, so marginalizing them is exact). */
static void cells_equal_gp_laplace_exact(void **state)
{
  (void)state;
  const sgp_likelihood kinds[] = {SGP_LIK_POISSON, SGP_LIK_BERNOULLI, SGP_LIK_BINOMIAL};
  for (size_t k = 0; k < 3; k++) {
    cells_t c;
    make_cells(kinds[k], &c);
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    fit_t f;
    fit_at(&ctx, &c, &f);
    const int64_t n = f.p.n;
    if (k < 2) assert_true(n < MG);
    double q, g[4];
    if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &q, g)) fail_msg("%s", ctx.errmsg);
    sgp_ev_problem ep;
    memset(&ep, 0, sizeof ep);
    ep.lik = f.p.lik;
    ep.X = sgp_cmat_of(f.p.xo, n, 2);
    ep.kernel = f.pr.kernel;
    ep.mean = &c.o.mean;
    ep.layout = (sgp_ev_layout){2, 1, 0, 0, 0};
    sgp_ev_ws ws;
    assert_int_equal(sgp_ev_ws_init(&ctx, &ws, n, 1, 1), SGP_OK);
    double q_or, g_or[4];
    if (sgp_evidence(&ctx, &ep, &ws, &q_or, g_or)) fail_msg("%s", ctx.errmsg);
    const double ef = th_rel_max(n, f.s.f, ws.f), eq = fabs(q - q_or) / fabs(q_or);
    if (!(ef <= 1e-8) || !(eq <= 1e-8))
      fail_msg("likelihood %d: mode off by %.3g, evidence %.15g vs %.15g", (int)kinds[k], ef, q, q_or);
    for (int j = 0; j < 4; j++)
      if (!(fabs(g[j] - g_or[j]) <= 1e-8 * fmax(fabs(g_or[j]), 1.0)))
        fail_msg("likelihood %d: gradient %d is %.12g, gp_laplace's %.12g", (int)kinds[k], j, g[j],
                 g_or[j]);
    sgp_ev_ws_free(&ws);
    fit_free(&f);
  }
}

/* The evidence with the mode frozen at f (no implicit term): log p(y | f) -
 * 1/2 (f - mu)'K_OO^-1 (f - mu) - 1/2 log|I + sw K_OO sw|, densely. */
static double frozen_evidence(sgp_ctx *ctx, const fit_t *f, const sgp_kernel *k, double mu)
{
  const int64_t n = f->p.n;
  double *K = th_zeros(n * n), *Bm = th_zeros(n * n), *r = th_zeros(n), *x = th_zeros(n);
  sgp_kernel_matrix(ctx, k, sgp_cmat_of(f->p.xo, n, 2), sgp_cmat_of(f->p.xo, n, 2),
                    sgp_mat_of(K, n, n));
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++)
      Bm[i + j * n] = f->s.sw[i] * K[i + j * n] * f->s.sw[j] + (i == j);
  for (int64_t i = 0; i < n; i++) r[i] = f->s.f[i] - mu;
  assert_int_equal(th_chol_solve(n, K, 1, r, x), 0);
  int64_t minor = 0;
  assert_int_equal(sgp_ev_potrf(ctx, n, Bm, n, &minor), 0);
  double hld = 0.0;
  for (int64_t i = 0; i < n; i++) hld += log(Bm[i + i * n]);
  const double q = f->s.logp - 0.5 * sgp_dot(n, r, x) - hld;
  free(K); free(Bm); free(r); free(x);
  return q;
}

/* Central differences with h = 1e-4 on the log scale: truncation ~h^2 |q'''|/6
 * and rounding ~1e-13 |q| / h, below 1e-6 max(|g|, 1) for these evidences. */
static void gradient_matches_finite_differences(void **state)
{
  (void)state;
  cells_t c;
  make_cells(SGP_LIK_POISSON, &c);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_t f;
  fit_at(&ctx, &c, &f);
  double q, g[4];
  if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &q, g)) fail_msg("%s", ctx.errmsg);
  const double h = 1e-4, ls0[2] = {c.ls[0], c.ls[1]}, s0 = c.o.kernel.outputscale, mu0 = c.o.mean;
  double implicit_max = 0.0;
  for (int j = 0; j < 4; j++) {
    double qs[2], fr[2];
    for (int pass = 0; pass < 2; pass++)  /* the frozen mode first, then the refits */
      for (int side = 0; side < 2; side++) {
        const double e = side ? -h : h;
        c.ls[0] = ls0[0]; c.ls[1] = ls0[1]; c.o.kernel.outputscale = s0; c.o.mean = mu0;
        if (j < 2) c.ls[j] = ls0[j] * exp(e);
        else if (j == 2) c.o.kernel.outputscale = s0 * exp(e);
        else c.o.mean = mu0 + e;
        if (pass == 0) {
          const sgp_kernel k = {c.o.kernel.kind, c.ls, 2, c.o.kernel.outputscale, c.o.kernel.alpha};
          fr[side] = frozen_evidence(&ctx, &f, &k, c.o.mean);
          continue;
        }
        refit(&ctx, &c, &f);
        if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &qs[side], NULL)) fail_msg("%s", ctx.errmsg);
      }
    const double fd = (qs[0] - qs[1]) / (2 * h), explicit_fd = (fr[0] - fr[1]) / (2 * h);
    if (!(fabs(g[j] - fd) <= 1e-6 * fmax(fabs(fd), 1.0)))
      fail_msg("coordinate %d: gradient %.10g, central difference %.10g", j, g[j], fd);
    implicit_max = fmax(implicit_max, fabs(fd - explicit_fd) / fmax(fabs(fd), 1.0));
    c.ls[0] = ls0[0]; c.ls[1] = ls0[1]; c.o.kernel.outputscale = s0; c.o.mean = mu0;
    refit(&ctx, &c, &f);
  }
  /* without the implicit term the gradient would miss by this much */
  if (!(implicit_max > 1e-3)) fail_msg("implicit term only %.3g of the gradient", implicit_max);
  fit_free(&f);
}

/* 50 seeds of an estimate (est: evidence and 4 gradient entries at seed k): the
 * mean of each within 3 standard errors (of the 50) of the exact values ex. */
typedef int (*estimate_fn)(sgp_ctx *ctx, void *data, uint64_t seed, double v[5]);
static void expect_unbiased(sgp_ctx *ctx, estimate_fn est, void *data, uint64_t seed0,
                            const double ex[5], const char *what)
{
  const int S = 50;
  double sum[5] = {0}, sum2[5] = {0};
  for (int k = 0; k < S; k++) {
    double v[5];
    if (est(ctx, data, seed0 + (uint64_t)k, v)) fail_msg("%s", ctx->errmsg);
    for (int j = 0; j < 5; j++) { sum[j] += v[j]; sum2[j] += v[j] * v[j]; }
  }
  for (int j = 0; j < 5; j++) {
    const double mean = sum[j] / S, sd = sqrt(fmax(sum2[j] / S - mean * mean, 0.0) * S / (S - 1.0));
    const double se = sd / sqrt((double)S);
    if (!(fabs(mean - ex[j]) <= 3.0 * se + 1e-9 * fabs(ex[j])))
      fail_msg("%s entry %d: mean %.8g vs exact %.8g (se %.3g)", what, j, mean, ex[j], se);
  }
}

typedef struct { fit_t *f; cells_t *c; skl_eig *e; skl_state *s; } est_t;

static int slq_estimate(sgp_ctx *ctx, void *data, uint64_t seed, double v[5])
{
  est_t *d = (est_t *)data;
  double se;
  return skl_evidence_slq(ctx, &d->f->p, &d->f->pr, &d->f->s, &d->c->o, seed, v, &se, v + 1, NULL);
}

static int eig_estimate(sgp_ctx *ctx, void *data, uint64_t seed, double v[5])
{
  est_t *d = (est_t *)data;
  double se;
  return skl_evidence_eig(ctx, &d->f->p, &d->f->pr, d->e, d->s, &d->c->o, seed, v, &se, v + 1, NULL);
}

/* 50 seeds of the slq estimate: the mean of the evidence and of each gradient
 * entry within 3 standard errors (of the 50) of the exact values. */
static void slq_is_unbiased(void **state)
{
  (void)state;
  cells_t c;
  make_cells(SGP_LIK_POISSON, &c);
  c.o.probes = 8;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_t f;
  fit_at(&ctx, &c, &f);
  double q, g[4];
  if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &q, g)) fail_msg("%s", ctx.errmsg);
  const double ex[5] = {q, g[0], g[1], g[2], g[3]};
  est_t d = {&f, &c, NULL, NULL};
  expect_unbiased(&ctx, slq_estimate, &d, 100, ex, "slq");
  fit_free(&f);
}

/* The eigen path's fit of the same problem: its state and basis. */
static void eig_fit_at(sgp_ctx *ctx, cells_t *c, fit_t *f, skl_state *s2, skl_eig *e)
{
  if (skl_state_init(ctx, s2, f->p.m, f->p.n, 64) || skl_eig_make(ctx, &f->p, &f->pr.kernel, 8, e) ||
      skl_newton_eig(ctx, &f->p, &f->pr, e, &c->o, 0.0, s2))
    fail_msg("%s", ctx->errmsg);
  if (!s2->converged) fail_msg("eigen Newton: %s, mode bound %.3g", s2->stop, s2->mode_error);
}

/* The eigen path's mode equals the B-form Newton's; its estimates are unbiased. */
static void eigen_path_mode_and_unbiased(void **state)
{
  (void)state;
  cells_t c;
  make_cells(SGP_LIK_POISSON, &c);
  c.o.probes = 8;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_t f;
  fit_at(&ctx, &c, &f);
  double q, g[4];
  if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &q, g)) fail_msg("%s", ctx.errmsg);
  skl_state s2;
  skl_eig e;
  eig_fit_at(&ctx, &c, &f, &s2, &e);
  const double ef = th_rel_max(f.p.n, s2.f, f.s.f);
  if (!(ef <= 1e-8)) fail_msg("eigen mode off by %.3g", ef);
  const double ex[5] = {q, g[0], g[1], g[2], g[3]};
  est_t d = {&f, &c, &e, &s2};
  expect_unbiased(&ctx, eig_estimate, &d, 300, ex, "eigen");
  skl_eig_free(&e);
  skl_state_free(&s2);
  fit_free(&f);
}

/* Gaussian on every cell: the curvature is the constant 1 / noise, Q'HQ = I /
 * noise, so the preconditioner is M and the eigen evidence is exact. */
static void eigen_exact_for_constant_curvature(void **state)
{
  (void)state;
  cells_t c;
  make_cells(SGP_LIK_BERNOULLI, &c);
  c.o.likelihood = SGP_LIK_GAUSSIAN;
  c.o.noise = 0.3;
  for (int gi = 0; gi < MG; gi++) c.y[gi] = sin(0.3 * gi);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_t f;
  fit_at(&ctx, &c, &f);
  double q, g[4], qe, se, ge[4];
  if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &q, g)) fail_msg("%s", ctx.errmsg);
  skl_state s2;
  skl_eig e;
  eig_fit_at(&ctx, &c, &f, &s2, &e);
  if (skl_evidence_eig(&ctx, &f.p, &f.pr, &e, &s2, &c.o, 7, &qe, &se, ge, NULL)) fail_msg("%s", ctx.errmsg);
  /* rounding of m = 120 logs and of the eigen-decomposition (~1e-13 relative) */
  if (!(fabs(qe - q) <= 1e-9 * fabs(q))) fail_msg("eigen %.15g vs exact %.15g", qe, q);
  assert_true(se <= 1e-9 * fabs(q));
  skl_eig_free(&e);
  skl_state_free(&s2);
  fit_free(&f);
}

/* Long lengthscales (12 and 16 cells): most factor eigenvalues fall below the
 * floor, so the eigen basis keeps fewer than m vectors. The dropped ones have
 * lambda = 0 in F, so the mode still equals the B-form Newton's (whose K
 * products keep them, at <= 1e-14 of the norm) to 1e-8, and with a constant
 * curvature the evidence is exact up to that floor: m 1e-14 lambda_max d, far
 * below 1e-9 relative. */
static void eigen_truncated_basis(void **state)
{
  (void)state;
  for (int gauss = 0; gauss <= 1; gauss++) {
    cells_t c;
    make_cells(SGP_LIK_POISSON, &c);
    c.ls[0] = 3.0; c.ls[1] = 4.0;
    if (gauss) {
      c.o.likelihood = SGP_LIK_GAUSSIAN;
      c.o.noise = 0.3;
      for (int gi = 0; gi < MG; gi++) { c.y[gi] = sin(0.3 * gi); c.off[gi] = 0.0; }
    }
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    fit_t f;
    fit_at(&ctx, &c, &f);
    skl_state s2;
    skl_eig e;
    eig_fit_at(&ctx, &c, &f, &s2, &e);
    if (!(e.mr <= MG / 2)) fail_msg("the basis kept %lld of %d vectors", (long long)e.mr, MG);
    const double ef = th_rel_max(f.p.n, s2.f, f.s.f);
    if (!(ef <= 1e-8)) fail_msg("truncated eigen mode off by %.3g", ef);
    if (gauss) {
      double q, g[4], qe, se, ge[4];
      if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &q, g) ||
          skl_evidence_eig(&ctx, &f.p, &f.pr, &e, &s2, &c.o, 7, &qe, &se, ge, NULL))
        fail_msg("%s", ctx.errmsg);
      if (!(fabs(qe - q) <= 1e-9 * fabs(q))) fail_msg("eigen %.15g vs exact %.15g", qe, q);
    }
    skl_eig_free(&e);
    skl_state_free(&s2);
    fit_free(&f);
  }
}

/* The stochastic variance map on both paths against the exact variances at
 * every grid point: each within 5 of its standard errors (120 cells: a false
 * alarm has probability ~1e-4 for estimates near normal). */
static void variance_map_matches_exact(void **state)
{
  (void)state;
  cells_t c;
  make_cells(SGP_LIK_POISSON, &c);
  c.o.probes = 64;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_t f;
  fit_at(&ctx, &c, &f);
  const int64_t m = f.p.m;
  double *pts = th_zeros(m * 2), *mean = th_zeros(m), *ex = th_zeros(m);
  double *var = th_zeros(m), *se = th_zeros(m);
  if (sgp_ski_grid_points(&ctx, &f.p.grid, sgp_mat_of(pts, m, 2))) fail_msg("%s", ctx.errmsg);
  double *u = th_zeros(m);
  for (int64_t i = 0; i < m; i++) u[i] = f.pr.mean + f.s.kappa[i];
  if (skl_predict(&ctx, &f.p, &f.pr.K, u, f.s.sw, &c.o, sgp_cmat_of(pts, m, 2), mean, ex))
    fail_msg("%s", ctx.errmsg);
  skl_varmap map = {var, se, NULL};
  double q, qse;
  if (skl_evidence_slq(&ctx, &f.p, &f.pr, &f.s, &c.o, 11, &q, &qse, NULL, &map)) fail_msg("%s", ctx.errmsg);
  for (int64_t i = 0; i < m; i++)
    if (!(se[i] > 0.0 && fabs(var[i] - ex[i]) <= 5.0 * se[i]))
      fail_msg("slq map at %lld: %.6g vs exact %.6g (se %.3g)", (long long)i, var[i], ex[i], se[i]);
  skl_state s2;
  skl_eig e;
  eig_fit_at(&ctx, &c, &f, &s2, &e);
  if (skl_evidence_eig(&ctx, &f.p, &f.pr, &e, &s2, &c.o, 11, &q, &qse, NULL, &map)) fail_msg("%s", ctx.errmsg);
  for (int64_t i = 0; i < m; i++)
    if (!(fabs(var[i] - ex[i]) <= 5.0 * se[i] + 1e-12 * ex[i]))
      fail_msg("eigen map at %lld: %.6g vs exact %.6g (se %.3g)", (long long)i, var[i], ex[i], se[i]);
  skl_eig_free(&e);
  skl_state_free(&s2);
  free(pts); free(mean); free(ex); free(var); free(se); free(u);
  fit_free(&f);
}

/* Points: c = W'1 with linear weights, and the reported log-likelihood is the
 * Cox process's at the mode. */
static void points_counts_and_loglik(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 9);
  enum { NP = 200 };
  double x[2 * NP];
  for (int i = 0; i < NP; i++) {
    x[i] = 3.0 * sgp_rng_uniform(&rng);
    x[i + NP] = 2.0 * sgp_rng_uniform(&rng) * (x[i] > 1.5 ? 1.0 : 0.5);
  }
  sgp_ski_laplace_opts o;
  sgp_ski_laplace_opts_default(&o);
  int64_t gs[2] = {16, 12};
  memcpy(o.grid_size, gs, sizeof gs);
  o.n_grid_size = 2;
  double ls = 0.7;
  o.kernel.lengthscale = &ls;
  o.kernel.n_lengthscale = 1;
  o.kernel.outputscale = 1.0;
  o.mean = 3.0;
  o.tol = 1e-9;
  o.max_newton = 50;
  sgp_ski_laplace_data d;
  memset(&d, 0, sizeof d);
  d.x = sgp_cmat_of(x, NP, 2);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_t f;
  if (skl_problem_make(&ctx, &o, &d, &f.p)) fail_msg("%s", ctx.errmsg);
  double csum = 0.0, cmin = INFINITY;
  for (int64_t i = 0; i < f.p.n; i++) { csum += f.p.y[i]; cmin = fmin(cmin, f.p.y[i]); }
  assert_int_equal(f.p.n, f.p.m);
  assert_true(cmin >= 0.0);
  assert_true(fabs(csum - NP) <= 1e-12 * NP);
  if (skl_prior_make(&ctx, &f.p, &o.kernel, o.mean, &f.pr)) fail_msg("%s", ctx.errmsg);
  if (skl_state_init(&ctx, &f.s, f.p.m, f.p.n, 64)) fail_msg("%s", ctx.errmsg);
  if (skl_newton(&ctx, &f.p, &f.pr, &o, 0.0, &f.s)) fail_msg("%s", ctx.errmsg);
  assert_true(f.s.converged);
  /* sum_i f(x_i) - sum_g a_g exp(u_g), f(x_i) = w(x_i)'u */
  double *u = th_zeros(f.p.m), *fx = th_zeros(NP);
  for (int64_t g = 0; g < f.p.m; g++) u[g] = o.mean + f.s.kappa[g];
  if (sgp_ski_predict_mean(&ctx, &f.p.grid, SGP_SKI_LINEAR, SGP_SKI_BOUNDS_ERROR, d.x, u, fx))
    fail_msg("%s", ctx.errmsg);
  double ll = 0.0;
  for (int i = 0; i < NP; i++) ll += fx[i];
  for (int64_t g = 0; g < f.p.m; g++) ll -= exp(u[g] + f.p.off[g]);
  if (!(fabs(ll - f.s.logp) <= 1e-10 * fabs(ll))) fail_msg("loglik %.15g vs %.15g", f.s.logp, ll);
  free(u); free(fx);
  fit_free(&f);
}

/* Errors name the argument. */
static void bad_input_names_the_argument(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  cells_t c;
  skl_problem p;
  make_cells(SGP_LIK_POISSON, &c);
  c.y[4] = 2.5;
  sgp_ski_laplace_data d = data_of(&c);
  assert_int_equal(skl_problem_make(&ctx, &c.o, &d, &p), SGP_EINVAL);
  assert_non_null(strstr(ctx.errmsg, "y:"));
  assert_non_null(strstr(ctx.errmsg, "element 5"));
  skl_problem_free(&p);
  make_cells(SGP_LIK_POISSON, &c);
  c.y[3] = 2.0; /* a count in a cell without exposure (g % 6 == 3) */
  d = data_of(&c);
  assert_int_equal(skl_problem_make(&ctx, &c.o, &d, &p), SGP_EINVAL);
  assert_non_null(strstr(ctx.errmsg, "offset is -Inf"));
  skl_problem_free(&p);
  make_cells(SGP_LIK_BINOMIAL, &c);
  c.y[0] = c.trials[0] + 1;
  d = data_of(&c);
  assert_int_equal(skl_problem_make(&ctx, &c.o, &d, &p), SGP_EINVAL);
  assert_non_null(strstr(ctx.errmsg, "y:"));
  skl_problem_free(&p);
  make_cells(SGP_LIK_BERNOULLI, &c);
  c.y[0] = 2.0;
  d = data_of(&c);
  assert_int_equal(skl_problem_make(&ctx, &c.o, &d, &p), SGP_EINVAL);
  skl_problem_free(&p);
  make_cells(SGP_LIK_POISSON, &c);
  c.dim[0] = 11;
  d = data_of(&c);
  assert_int_equal(skl_problem_make(&ctx, &c.o, &d, &p), SGP_EDIM);
  assert_non_null(strstr(ctx.errmsg, "y:"));
  skl_problem_free(&p);
  make_cells(SGP_LIK_POISSON, &c);
  c.o.layout = SGP_SKL_LAYOUT_POINTS;
  d = data_of(&c);
  assert_int_equal(skl_problem_make(&ctx, &c.o, &d, &p), SGP_EINVAL);
  assert_non_null(strstr(ctx.errmsg, "layout"));
  skl_problem_free(&p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(cells_equal_gp_laplace_exact),
    cmocka_unit_test(gradient_matches_finite_differences),
    cmocka_unit_test(slq_is_unbiased),
    cmocka_unit_test(eigen_path_mode_and_unbiased),
    cmocka_unit_test(eigen_exact_for_constant_curvature),
    cmocka_unit_test(eigen_truncated_basis),
    cmocka_unit_test(variance_map_matches_exact),
    cmocka_unit_test(points_counts_and_loglik),
    cmocka_unit_test(bad_input_names_the_argument),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
