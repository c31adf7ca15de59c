/* test_ski_laplace_scattered.c -- ski_laplace's scattered layout against
 * independent oracles on a 12 x 10 grid (spacing 0.25, rbf, ARD lengthscales
 * 0.6 and 0.8, outputscale 1.3), n = 300 random points, cubic interpolation:
 *  - the mode f^ and the evidence log q equal a dense Laplace (Rasmussen and
 *    Williams, Alg. 3.1 and 3.2) on K_f = W K_G W', formed here from the naive
 *    kernel matrix of the grid points and the dense W, to 1e-8 relative
 *    (poisson with offsets, bernoulli); so does the latent variance at new
 *    points, k** - k*'sw B^-1 sw k*. Both solve the same equations, ours with
 *    FFT products and CG, the oracle with dense products and a naive Cholesky:
 *    rounding (1e-16 times cond(B) <= 1 + max(d) lambda_max(K_f), about 1e3),
 *    the mode bound tol = 1e-11 and the variance solves' residual (inner_rtol
 *    1e-12 times |sw k*|^2 <= 1e2) stay below 1e-8;
 *  - the exact gradient = central differences of the exact evidence (h = 1e-4
 *    on the log scale: truncation h^2 |q'''| / 6 ~ 1e-8, rounding ~1e-13 |q| / h
 *    ~ 1e-7 for |q| ~ 1e2) to 1e-6 max(|g|, 1);
 *  - the slq estimate of the evidence and gradient is unbiased: the mean over
 *    50 seeds lies within 3 standard errors of the exact value;
 *  - points at grid nodes with linear interpolation (W is then the selection
 *    P) equal the cells layout to 1e-10: only the rounding of K_OO (direct
 *    kernel values against FFT products) differs;
 *  - errors name the argument; loglik_method "eigen" is refused. */
#include "test_helpers.h"
#include "ski_laplace/skl.h"

#include <stdlib.h>

#define M1 12
#define M2 10
#define MG (M1 * M2)
#define NOBS 300
#define NT 5

typedef struct {
  double x[2 * NOBS], y[NOBS], off[NOBS], bounds[4], ls[2], xt[2 * NT];
  sgp_ski_laplace_opts o;
  sgp_ski_laplace_data d;
} case_t;

/* n points uniform in the cubic valid range ([h, (m - 2) h] per dimension) */
static void make_case(sgp_likelihood lik, case_t *c)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 21);
  memset(c, 0, sizeof *c);
  sgp_ski_laplace_opts_default(&c->o);
  c->o.likelihood = lik;
  c->o.layout = SGP_SKL_LAYOUT_SCATTERED;
  c->ls[0] = 0.6; c->ls[1] = 0.8;
  c->o.kernel.lengthscale = c->ls;
  c->o.kernel.n_lengthscale = 2;
  c->o.kernel.outputscale = 1.3;
  c->o.mean = lik == SGP_LIK_POISSON ? 0.5 : -0.2;
  c->o.tol = 1e-11;
  c->o.max_newton = 50;
  c->o.inner_rtol = 1e-12; /* a variance's CG error is <= inner_rtol |sw k*|^2 (B >= I) */
  c->o.learn = 0;
  c->o.probes = 8;
  c->o.loglik_method = SGP_SKL_LOGLIK_EXACT;
  c->bounds[0] = 0.0; c->bounds[1] = 0.0; c->bounds[2] = 0.25 * (M1 - 1); c->bounds[3] = 0.25 * (M2 - 1);
  c->o.grid_bounds = c->bounds;
  c->o.n_grid_bounds = 4;
  c->o.grid_size[0] = M1; c->o.grid_size[1] = M2;
  c->o.n_grid_size = 2;
  for (int i = 0; i < NOBS; i++) {
    const double x1 = 0.25 + 0.25 * (M1 - 3) * sgp_rng_uniform(&rng);
    const double x2 = 0.25 + 0.25 * (M2 - 3) * sgp_rng_uniform(&rng);
    const double t = sin(1.3 * x1) + cos(x2);
    c->x[i] = x1; c->x[NOBS + i] = x2;
    c->off[i] = 0.2 * sgp_rng_normal(&rng);
    c->y[i] = lik == SGP_LIK_POISSON
              ? floor(exp(0.5 + t + c->off[i]) * sgp_rng_uniform(&rng) * 1.5)
              : (sgp_rng_uniform(&rng) < 1.0 / (1.0 + exp(-2.0 * t)) ? 1.0 : 0.0);
  }
  for (int k = 0; k < NT; k++) { c->xt[k] = 0.3 + 0.41 * k; c->xt[NT + k] = 1.9 - 0.33 * k; }
  c->d.x = sgp_cmat_of(c->x, NOBS, 2);
  c->d.y = sgp_cmat_of(c->y, NOBS, 1);
  if (lik == SGP_LIK_POISSON) c->d.offset = sgp_cmat_of(c->off, NOBS, 1);
}

typedef struct {
  skl_problem p;
  skl_prior pr;
  skl_state s;
} fit_t;

static void fit_at(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *d,
                   fit_t *f)
{
  if (skl_problem_make(ctx, o, d, &f->p)) fail_msg("%s", ctx->errmsg);
  if (skl_prior_make(ctx, &f->p, &o->kernel, o->mean, &f->pr)) fail_msg("%s", ctx->errmsg);
  if (skl_state_init(ctx, &f->s, f->p.m, f->p.n, 64)) fail_msg("%s", ctx->errmsg);
  if (skl_newton(ctx, &f->p, &f->pr, o, 0.0, &f->s)) fail_msg("%s", ctx->errmsg);
  if (!f->s.converged) fail_msg("Newton: %s, mode bound %.3g", f->s.stop, f->s.mode_error);
}

static void refit(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, fit_t *f)
{
  skl_prior_free(&f->pr);
  if (skl_prior_make(ctx, &f->p, &o->kernel, o->mean, &f->pr)) fail_msg("%s", ctx->errmsg);
  if (skl_newton(ctx, &f->p, &f->pr, o, 0.0, &f->s)) fail_msg("%s", ctx->errmsg);
  if (!f->s.converged) fail_msg("Newton: %s", f->s.stop);
}

static void fit_free(fit_t *f)
{
  skl_state_free(&f->s); skl_prior_free(&f->pr); skl_problem_free(&f->p);
}

/* In-place naive Cholesky (lower) of the n x n A; log|A| / 2 returned. */
static double chol(int64_t n, double *A)
{
  double hld = 0.0;
  for (int64_t j = 0; j < n; j++) {
    double s = A[j + j * n];
    for (int64_t k = 0; k < j; k++) s -= A[j + k * n] * A[j + k * n];
    assert_true(s > 0.0);
    A[j + j * n] = sqrt(s);
    hld += log(A[j + j * n]);
    for (int64_t i = j + 1; i < n; i++) {
      double t = A[i + j * n];
      for (int64_t k = 0; k < j; k++) t -= A[i + k * n] * A[j + k * n];
      A[i + j * n] = t / A[j + j * n];
    }
  }
  return hld;
}

/* x = L^-1 b (trans 0) or L'^-1 b (trans 1), in place. */
static void tri(int64_t n, const double *L, int trans, double *x)
{
  if (!trans)
    for (int64_t i = 0; i < n; i++) {
      for (int64_t k = 0; k < i; k++) x[i] -= L[i + k * n] * x[k];
      x[i] /= L[i + i * n];
    }
  else
    for (int64_t i = n - 1; i >= 0; i--) {
      for (int64_t k = i + 1; k < n; k++) x[i] -= L[k + i * n] * x[k];
      x[i] /= L[i + i * n];
    }
}

/* The dense oracle: K_f = W K_G W' and R&W Alg. 3.1 (mode f, a = K_f^-1 (f -
 * mean)), 3.2 (log q), and the latent variance at xt. */
typedef struct { double *Kf, *W, *KG, *f, *L, *sw, q; } oracle_t;

static void oracle(sgp_ctx *ctx, const case_t *c, const skl_problem *p, oracle_t *r)
{
  const int64_t n = p->n, m = p->m;
  double *G = th_zeros(m * 2);
  int64_t sub[2];
  for (int64_t g = 0; g < m; g++) {
    sgp_ski_grid_subscripts(&p->grid, g, sub);
    G[g] = p->grid.lo[0] + sub[0] * p->grid.h[0];
    G[g + m] = p->grid.lo[1] + sub[1] * p->grid.h[1];
  }
  r->KG = th_zeros(m * m);
  th_kernel_matrix(c->o.kernel.kind, c->o.kernel.outputscale, c->ls, 2, G, m, G, m, 2, r->KG);
  r->W = th_ski_dense_W(ctx, &p->grid, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, c->x, n);
  double *WK = th_zeros(n * m), *Wt = th_zeros(m * n);
  for (int64_t i = 0; i < n; i++)
    for (int64_t g = 0; g < m; g++) Wt[g + i * m] = r->W[i + g * n];
  r->Kf = th_zeros(n * n);
  th_matmul(n, m, m, r->W, r->KG, WK);
  th_matmul(n, n, m, WK, Wt, r->Kf);
  r->f = th_zeros(n); r->L = th_zeros(n * n); r->sw = th_zeros(n);
  double *g = th_zeros(n), *w = th_zeros(n), *d3 = th_zeros(n), *b = th_zeros(n), *x = th_zeros(n);
  double *a = th_zeros(n);
  const double mu = c->o.mean;
  for (int64_t i = 0; i < n; i++) r->f[i] = mu;
  double lp = 0.0, hld = 0.0, step = INFINITY;
  for (int it = 0; it < 100 && step > 0.0; it++) {
    lp = sgp_ev_lik_derivs(&p->lik, r->f, g, w, d3);
    for (int64_t i = 0; i < n; i++) { r->sw[i] = sqrt(w[i]); b[i] = w[i] * (r->f[i] - mu) + g[i]; }
    for (int64_t j = 0; j < n; j++)
      for (int64_t i = 0; i < n; i++)
        r->L[i + j * n] = r->sw[i] * r->Kf[i + j * n] * r->sw[j] + (i == j);
    hld = chol(n, r->L);
    th_matmul(n, 1, n, r->Kf, b, x);
    for (int64_t i = 0; i < n; i++) x[i] *= r->sw[i];
    tri(n, r->L, 0, x);
    tri(n, r->L, 1, x);
    for (int64_t i = 0; i < n; i++) a[i] = b[i] - r->sw[i] * x[i];
    th_matmul(n, 1, n, r->Kf, a, x);
    step = 0.0;
    for (int64_t i = 0; i < n; i++) { step = fmax(step, fabs(mu + x[i] - r->f[i])); r->f[i] = mu + x[i]; }
    if (step < 1e-13) step = 0.0;
  }
  /* Alg. 3.2 at the mode: the factor at f (recomputed), a from the last step */
  lp = sgp_ev_lik_derivs(&p->lik, r->f, g, w, d3);
  for (int64_t i = 0; i < n; i++) r->sw[i] = sqrt(w[i]);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) r->L[i + j * n] = r->sw[i] * r->Kf[i + j * n] * r->sw[j] + (i == j);
  hld = chol(n, r->L);
  double qa = 0.0;
  for (int64_t i = 0; i < n; i++) qa += a[i] * (r->f[i] - mu);
  r->q = lp - 0.5 * qa - hld;
  free(G); free(WK); free(Wt); free(g); free(w); free(d3); free(b); free(x); free(a);
}

static void oracle_free(oracle_t *r)
{
  free(r->Kf); free(r->W); free(r->KG); free(r->f); free(r->L); free(r->sw);
}

/* The latent variance at x*: w*'K_G w* - |L^-1 sw W K_G w*|^2. */
static double oracle_var(sgp_ctx *ctx, const skl_problem *p, const oracle_t *r, const double *xs)
{
  const int64_t n = p->n, m = p->m;
  double *ws = th_ski_dense_W(ctx, &p->grid, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, xs, 1);
  double *kw = th_zeros(m), *ks = th_zeros(n);
  th_matmul(m, 1, m, r->KG, ws, kw);
  th_matmul(n, 1, m, r->W, kw, ks);
  for (int64_t i = 0; i < n; i++) ks[i] *= r->sw[i];
  tri(n, r->L, 0, ks);
  const double v = sgp_dot(m, ws, kw) - sgp_dot(n, ks, ks);
  free(ws); free(kw); free(ks);
  return v;
}

static void dense_laplace_equals(void **state)
{
  (void)state;
  const sgp_likelihood kinds[] = {SGP_LIK_POISSON, SGP_LIK_BERNOULLI};
  double worst_f = 0.0, worst_q = 0.0, worst_v = 0.0;
  for (int k = 0; k < 2; k++) {
    static case_t c;
    make_case(kinds[k], &c);
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    fit_t f;
    fit_at(&ctx, &c.o, &c.d, &f);
    assert_int_equal(f.p.n, NOBS);
    assert_int_equal(f.p.T, 16);
    double q;
    if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &q, NULL)) fail_msg("%s", ctx.errmsg);
    oracle_t r;
    oracle(&ctx, &c, &f.p, &r);
    const double ef = th_rel_max(NOBS, f.s.f, r.f), eq = fabs(q - r.q) / fabs(r.q);
    if (!(ef <= 1e-8) || !(eq <= 1e-8))
      fail_msg("likelihood %d: mode off by %.3g, evidence %.15g vs %.15g", (int)kinds[k], ef, q, r.q);
    double u[MG], mean[NT], var[NT];
    for (int g = 0; g < MG; g++) u[g] = c.o.mean + f.s.kappa[g];
    if (skl_predict(&ctx, &f.p, &f.pr.K, u, f.s.sw, &c.o, sgp_cmat_of(c.xt, NT, 2), mean, var))
      fail_msg("%s", ctx.errmsg);
    for (int j = 0; j < NT; j++) {
      const double xs[2] = {c.xt[j], c.xt[NT + j]}, vo = oracle_var(&ctx, &f.p, &r, xs);
      worst_v = fmax(worst_v, fabs(var[j] - vo) / vo);
    }
    if (!(worst_v <= 1e-8)) fail_msg("likelihood %d: latent variance off by %.3g", (int)kinds[k], worst_v);
    worst_f = fmax(worst_f, ef); worst_q = fmax(worst_q, eq);
    oracle_free(&r);
    fit_free(&f);
  }
  print_message("scattered vs dense Laplace: mode %.3g, evidence %.3g, variance %.3g (relative)\n",
                worst_f, worst_q, worst_v);
}

static void gradient_matches_finite_differences(void **state)
{
  (void)state;
  static case_t c;
  make_case(SGP_LIK_POISSON, &c);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_t f;
  fit_at(&ctx, &c.o, &c.d, &f);
  double q, g[4], worst = 0.0;
  if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &q, g)) fail_msg("%s", ctx.errmsg);
  const double h = 1e-4, ls0[2] = {c.ls[0], c.ls[1]}, s0 = c.o.kernel.outputscale, mu0 = c.o.mean;
  for (int j = 0; j < 4; j++) {
    double qs[2];
    for (int side = 0; side < 2; side++) {
      const double e = side ? -h : h;
      c.ls[0] = ls0[0]; c.ls[1] = ls0[1]; c.o.kernel.outputscale = s0; c.o.mean = mu0;
      if (j < 2) c.ls[j] = ls0[j] * exp(e);
      else if (j == 2) c.o.kernel.outputscale = s0 * exp(e);
      else c.o.mean = mu0 + e;
      refit(&ctx, &c.o, &f);
      if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &qs[side], NULL)) fail_msg("%s", ctx.errmsg);
    }
    const double fd = (qs[0] - qs[1]) / (2 * h), e = fabs(g[j] - fd) / fmax(fabs(fd), 1.0);
    if (!(e <= 1e-6)) fail_msg("coordinate %d: gradient %.10g, central difference %.10g", j, g[j], fd);
    worst = fmax(worst, e);
  }
  c.ls[0] = ls0[0]; c.ls[1] = ls0[1]; c.o.kernel.outputscale = s0; c.o.mean = mu0;
  print_message("scattered gradient vs central differences: %.3g (relative)\n", worst);
  fit_free(&f);
}

/* 50 seeds of the slq estimate: the means within 3 standard errors of exact. */
static void slq_is_unbiased(void **state)
{
  (void)state;
  static case_t c;
  make_case(SGP_LIK_POISSON, &c);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_t f;
  fit_at(&ctx, &c.o, &c.d, &f);
  double q, g[4];
  if (skl_evidence_exact(&ctx, &f.p, &f.pr, &f.s, &q, g)) fail_msg("%s", ctx.errmsg);
  const double ex[5] = {q, g[0], g[1], g[2], g[3]};
  const int S = 50;
  double sum[5] = {0}, sum2[5] = {0}, worst = 0.0;
  for (int k = 0; k < S; k++) {
    double v[5], se;
    if (skl_evidence_slq(&ctx, &f.p, &f.pr, &f.s, &c.o, 100 + (uint64_t)k, v, &se, v + 1, NULL))
      fail_msg("%s", ctx.errmsg);
    for (int j = 0; j < 5; j++) { sum[j] += v[j]; sum2[j] += v[j] * v[j]; }
  }
  for (int j = 0; j < 5; j++) {
    const double mean = sum[j] / S, sd = sqrt(fmax(sum2[j] / S - mean * mean, 0.0) * S / (S - 1.0));
    const double se = sd / sqrt((double)S), z = fabs(mean - ex[j]) / se;
    if (!(fabs(mean - ex[j]) <= 3.0 * se + 1e-9 * fabs(ex[j])))
      fail_msg("slq entry %d: mean %.8g vs exact %.8g (se %.3g)", j, mean, ex[j], se);
    worst = fmax(worst, z);
  }
  print_message("scattered slq: largest |mean - exact| / se over 50 seeds %.3g\n", worst);
  fit_free(&f);
}

/* Observations at 80 grid nodes, linear interpolation: the cells layout's fit. */
static void nodes_equal_cells(void **state)
{
  (void)state;
  static case_t c;
  make_case(SGP_LIK_POISSON, &c);
  c.o.interpolation = SGP_SKI_LINEAR;
  double ycell[MG], dim[2] = {M1, M2}, xs[2 * MG], ys[MG];
  int64_t n = 0;
  for (int g = 0; g < MG; g++) {
    ycell[g] = NAN;
    if (g % 3 == 1) continue;
    ycell[g] = (double)((g * 7) % 5);
    xs[n] = 0.25 * (g % M1);
    xs[MG + n] = 0.25 * (g / M1);
    ys[n++] = ycell[g];
  }
  for (int64_t i = 0; i < n; i++) xs[n + i] = xs[MG + i];  /* n x 2, ld n */
  sgp_ski_laplace_data dc, ds;
  memset(&dc, 0, sizeof dc);
  memset(&ds, 0, sizeof ds);
  dc.y = sgp_cmat_of(ycell, MG, 1);
  dc.ydim = sgp_cmat_of(dim, 2, 1);
  ds.x = sgp_cmat_of(xs, n, 2);
  ds.y = sgp_cmat_of(ys, n, 1);
  sgp_ski_laplace_opts oc = c.o;
  oc.layout = SGP_SKL_LAYOUT_CELLS;
  oc.n_grid_size = 0;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  fit_t fc, fs;
  fit_at(&ctx, &oc, &dc, &fc);
  fit_at(&ctx, &c.o, &ds, &fs);
  assert_int_equal(fc.p.n, n);
  assert_int_equal(fs.p.n, n);
  assert_null(fc.p.widx);
  assert_non_null(fs.p.widx);
  assert_int_equal(fs.p.T, 4);
  double qc, qs, gc[4], gs[4], uc[MG], us[MG];
  if (skl_evidence_exact(&ctx, &fc.p, &fc.pr, &fc.s, &qc, gc)) fail_msg("%s", ctx.errmsg);
  if (skl_evidence_exact(&ctx, &fs.p, &fs.pr, &fs.s, &qs, gs)) fail_msg("%s", ctx.errmsg);
  for (int g = 0; g < MG; g++) { uc[g] = fc.s.kappa[g]; us[g] = fs.s.kappa[g]; }
  const double ef = th_rel_max(n, fs.s.f, fc.s.f), eu = th_rel_max(MG, us, uc);
  const double eq = fabs(qs - qc) / fabs(qc), eg = th_rel_max(4, gs, gc);
  if (!(ef <= 1e-10) || !(eu <= 1e-10) || !(eq <= 1e-10) || !(eg <= 1e-10))
    fail_msg("scattered at nodes vs cells: f %.3g, u %.3g, evidence %.3g, gradient %.3g", ef, eu,
             eq, eg);
  print_message("scattered at nodes vs cells: f %.3g, u %.3g, evidence %.3g, gradient %.3g\n", ef,
                eu, eq, eg);
  fit_free(&fc);
  fit_free(&fs);
}

static void expect_error(sgp_ctx *ctx, const sgp_ski_laplace_opts *o, const sgp_ski_laplace_data *d,
                         const char *msg)
{
  skl_problem p;
  const int st = skl_problem_make(ctx, o, d, &p);
  skl_problem_free(&p);
  assert_int_not_equal(st, SGP_OK);
  if (!strstr(ctx->errmsg, msg)) fail_msg("error \"%s\" lacks \"%s\"", ctx->errmsg, msg);
}

static void bad_input_names_the_argument(void **state)
{
  (void)state;
  static case_t c;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  make_case(SGP_LIK_POISSON, &c);
  c.y[4] = 2.5;
  expect_error(&ctx, &c.o, &c.d, "y: poisson counts must be non-negative integers (element 5");
  make_case(SGP_LIK_BERNOULLI, &c);
  c.y[2] = 2.0;
  expect_error(&ctx, &c.o, &c.d, "y: bernoulli labels must be 0 or 1 (element 3");
  make_case(SGP_LIK_BINOMIAL, &c);
  double tr[NOBS];
  for (int i = 0; i < NOBS; i++) tr[i] = 2.0;
  c.d.trials = sgp_cmat_of(tr, NOBS, 1);
  c.y[0] = 3.0;
  expect_error(&ctx, &c.o, &c.d, "y: binomial counts must be whole numbers in 0..trials");
  c.d.trials = sgp_cmat_of(tr, 7, 1);
  expect_error(&ctx, &c.o, &c.d, "trials: needs 1 or one value per row of x (300); got 7");
  make_case(SGP_LIK_POISSON, &c);
  c.d.y = sgp_cmat_of(c.y, NOBS - 1, 1);
  expect_error(&ctx, &c.o, &c.d, "y: needs one value per row of x (300); got 299");
  make_case(SGP_LIK_POISSON, &c);
  c.d.offset = sgp_cmat_of(c.off, 10, 1);
  expect_error(&ctx, &c.o, &c.d, "offset: needs one value per row of x (300); got 10");
  make_case(SGP_LIK_POISSON, &c);
  c.x[NOBS + 6] = NAN;
  expect_error(&ctx, &c.o, &c.d, "x:");
  make_case(SGP_LIK_POISSON, &c);
  c.x[6] = 2.7; /* inside the grid, outside cubic's valid range [0.25, 2.5] */
  expect_error(&ctx, &c.o, &c.d, "x: row 7, column 1 (2.7) is outside the grid's valid range");
  /* clamp keeps it, drop drops it */
  c.o.bounds_policy = SGP_SKI_BOUNDS_CLAMP;
  skl_problem p;
  assert_int_equal(skl_problem_make(&ctx, &c.o, &c.d, &p), SGP_OK);
  assert_int_equal(p.n, NOBS);
  skl_problem_free(&p);
  c.o.bounds_policy = SGP_SKI_BOUNDS_DROP;
  assert_int_equal(skl_problem_make(&ctx, &c.o, &c.d, &p), SGP_OK);
  assert_int_equal(p.n, NOBS - 1);
  assert_int_equal(p.dropped, 1);
  assert_true(p.y[6] == c.y[7] && p.xo[6] == c.x[7]);
  skl_problem_free(&p);
  c.o.bounds_policy = SGP_SKI_BOUNDS_TRUNCATE;
  expect_error(&ctx, &c.o, &c.d, "bounds_policy:");
  /* the eigen path assumes a diagonal curvature on the grid */
  make_case(SGP_LIK_POISSON, &c);
  c.o.loglik_method = SGP_SKL_LOGLIK_EIGEN;
  sgp_value_arena *a = sgp_value_arena_new();
  sgp_value out;
  assert_int_equal(sgp_ski_laplace_run(&ctx, &c.o, &c.d, a, &out), SGP_EINVAL);
  if (!strstr(ctx.errmsg, "loglik_method: the eigen path takes the cells, points and binned"))
    fail_msg("%s", ctx.errmsg);
  sgp_value_arena_free(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(dense_laplace_equals),
    cmocka_unit_test(gradient_matches_finite_differences),
    cmocka_unit_test(slq_is_unbiased),
    cmocka_unit_test(nodes_equal_cells),
    cmocka_unit_test(bad_input_names_the_argument),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
