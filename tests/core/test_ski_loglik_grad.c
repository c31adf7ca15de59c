/* test_ski_loglik_grad.c -- gradient of ski_gsgp's log marginal likelihood
 * from statistics and probe sketches (sgp_ski_loglik_grad), and the
 * derivative grid operators it uses (sgp_ski_grid_op_deriv).
 *
 * Oracles (all dense, n <= 300):
 *  - dK_G/dlog ell products equal the dense derivative matrix (every kernel,
 *    both paths, ARD and isotropic masks, a one-point dimension);
 *  - the exact dense gradient (1/2 a'dA a - 1/2 tr(A^{-1} dA), Cholesky) equals
 *    central finite differences of the exact dense log-likelihood, so the
 *    oracle itself is proven;
 *  - the quadratic terms equal the dense ones within a bound from the mean
 *    solve's true residual and rounding (conditioning via 1/noise);
 *  - the stochastic gradient lies within 4 standard errors of the exact one,
 *    and the mean over seeds within 4 standard errors of that mean;
 *  - with many probes the noise trace approaches noise tr(A^{-1}) and its
 *    standard error the Rademacher-Hutchinson standard deviation;
 *  - the scaling identity (A(c s, c noise) = c A): grad_s + grad_noise =
 *    1/2 y'A^{-1}y - n/2, where for Rademacher probes the trace part is n/2
 *    up to the solve tolerance alone (x_j'A z_j = z_j'z_j = n exactly).
 * The finite differences of the fixed-probe SLQ objective
 * are NOT an oracle: the Hutchinson trace x_j'(dA)z_j is not the
 * derivative of the quadrature of z_j' log(A) z_j (they agree in expectation
 * only, or when A and dA commute). */
#include "test_helpers.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>

#define EPS DBL_EPSILON

/* TEST_VERBOSE=1 prints the compared figures. */
static int verbose(void)
{
  const char *v = getenv("TEST_VERBOSE");
  return v && *v && *v != '0';
}
#define NT SGP_SKI_NTHETA_MAX

/* ------------------------------------------------------------ dense oracles */

/* -k'(r)/r, so that dk/dlog ell_j = that * q_j^2 (q_j = delta_j/ell_j). */
static double dk_factor(sgp_kernel_kind kind, double s, double r)
{
  switch (kind) {
  case SGP_KERNEL_RBF: return s * exp(-0.5 * r * r);
  case SGP_KERNEL_MATERN12: return r > 0 ? s * exp(-r) / r : 0.0;
  case SGP_KERNEL_MATERN32: return 3.0 * s * exp(-sqrt(3.0) * r);
  case SGP_KERNEL_MATERN52: return 5.0 / 3.0 * s * (1.0 + sqrt(5.0) * r) * exp(-sqrt(5.0) * r);

  case SGP_KERNEL_RQ: break; /* alpha not here: NaN */
  case SGP_KERNEL_COUNT: break;
  }
  return NAN;
}

/* Dense m-by-m K_G (mask 0) or d K_G / d log ell for the dimensions in mask,
 * from the grid points P (m-by-d). */
static void dense_kg(const sgp_kernel *k, const double *P, int64_t m, int d, unsigned mask,
                     double *K)
{
  for (int64_t b = 0; b < m; b++)
    for (int64_t a = 0; a < m; a++) {
      double r2 = 0.0, qm = 0.0;
      for (int j = 0; j < d; j++) {
        const double q = (P[a + j * m] - P[b + j * m]) / k->lengthscale[k->n_lengthscale == 1 ? 0 : j];
        r2 += q * q;
        if (mask >> j & 1u) qm += q * q;
      }
      const double r = sqrt(r2);
      K[a + b * m] = mask ? dk_factor(k->kind, k->outputscale, r) * qm
                          : th_kernel_of_r(k->kind, k->outputscale, r);
    }
}

/* Naive Cholesky A = L L' in place (lower triangle); 0, or -1 if not PD. */
static int chol(int64_t n, double *A)
{
  for (int64_t j = 0; j < n; j++) {
    double s = A[j + j * n];
    for (int64_t l = 0; l < j; l++) s -= A[j + l * n] * A[j + l * n];
    if (!(s > 0)) return -1;
    A[j + j * n] = sqrt(s);
    for (int64_t i = j + 1; i < n; i++) {
      double t = A[i + j * n];
      for (int64_t l = 0; l < j; l++) t -= A[i + l * n] * A[j + l * n];
      A[i + j * n] = t / A[j + j * n];
    }
  }
  return 0;
}

/* Inverse of the lower-triangular L (n-by-n) into Li (lower), column by column. */
static void tri_inv(int64_t n, const double *L, double *Li)
{
  memset(Li, 0, (size_t)(n * n) * sizeof *Li);
  for (int64_t c = 0; c < n; c++)
    for (int64_t i = c; i < n; i++) {
      double s = i == c ? 1.0 : 0.0;
      for (int64_t l = c; l < i; l++) s -= L[i + l * n] * Li[l + c * n];
      Li[i + c * n] = s / L[i + i * n];
    }
}

/* ------------------------------------------------------------ problems */

typedef struct {
  sgp_ctx ctx;
  sgp_ski_grid g;
  double ell[2];
  sgp_kernel k;
  double noise;
  int64_t n, m;
  int d;
  double *X, *y, *W, *P;
  sgp_ski_stats *st;
} prob;

typedef struct {
  int d;
  int64_t m[2];
  double h[2];
  sgp_kernel_kind kind;
  int nell;
  double ell[2], s, noise;
} config;

static const config CFG_1D = {1, {50, 1}, {0.1, 1.0}, SGP_KERNEL_RBF, 1, {0.5, 0}, 1.3, 0.3};
static const config CFG_2D_ARD = {2, {12, 10}, {0.25, 0.25}, SGP_KERNEL_RBF, 2, {0.6, 0.8},
                                  1.3, 0.5};
static const config CFG_2D_ISO = {2, {12, 10}, {0.25, 0.25}, SGP_KERNEL_RBF, 1, {0.7, 0},
                                  1.3, 0.5};
static const config CFG_2D_M52 = {2, {12, 10}, {0.25, 0.25}, SGP_KERNEL_MATERN52, 2,
                                  {0.7, 0.9}, 1.1, 0.4};
static const config CFG_1D_M32 = {1, {44, 1}, {0.1, 1.0}, SGP_KERNEL_MATERN32, 1, {0.6, 0},
                                  0.9, 0.2};

/* Rows i1 + n1 i2 of X (n-by-2) become (x_1 of row i1, x_2 of row i2): data on
 * a tensor product of coordinates, whose B = W'W is a Kronecker product. */
static void tensor_rows(int64_t n, int64_t n1, double *X)
{
  double *x0 = th_zeros(2 * n);
  memcpy(x0, X, (size_t)(2 * n) * sizeof(double));
  for (int64_t i = 0; i < n; i++) {
    X[i] = x0[i % n1];
    X[i + n] = x0[i / n1 + n];
  }
  free(x0);
}

/* The problem of config c with n random data points (tensor data of n1 by
 * n / n1 points when n1 > 0, 2-D only). */
static prob *prob_make(const config *c, int64_t n, int64_t n1)
{
  prob *p = (prob *)calloc(1, sizeof *p);
  assert_non_null(p);
  sgp_ctx_init(&p->ctx);
  p->ctx.nthreads = 2;
  const double lo[2] = {0.0, 0.0};
  p->g = th_ski_grid(c->d, c->m, lo, c->h);
  p->d = c->d;
  p->ell[0] = c->ell[0]; p->ell[1] = c->ell[1];
  p->k.kind = c->kind;
  p->k.lengthscale = p->ell;
  p->k.n_lengthscale = c->nell;
  p->k.outputscale = c->s;
  p->noise = c->noise;
  p->n = n;
  p->m = sgp_ski_grid_npoints(&p->g);
  sgp_rng rng;
  sgp_rng_seed(&rng, 77);
  p->X = th_zeros(n * c->d);
  p->y = th_zeros(n);
  th_ski_data(&rng, &p->g, SGP_SKI_CUBIC, n, 0.0, p->X, p->y);
  if (n1 > 0) tensor_rows(n, n1, p->X);
  p->W = th_ski_dense_W(&p->ctx, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, p->X, n);
  p->P = th_zeros(p->m * c->d);
  assert_int_equal(sgp_ski_grid_points(&p->ctx, &p->g, sgp_mat_of(p->P, p->m, c->d)), SGP_OK);
  assert_int_equal(sgp_ski_stats_create(&p->ctx, &p->g, SGP_SKI_CUBIC, &p->st), SGP_OK);
  assert_int_equal(sgp_ski_stats_accumulate(&p->ctx, p->st, sgp_cmat_of(p->X, n, c->d),
                                            sgp_cmat_of(p->y, n, 1), 0, SGP_SKI_BOUNDS_ERROR),
                   SGP_OK);
  return p;
}

static prob *prob_new(const config *c, int64_t n)
{
  return prob_make(c, n, 0);
}

static void prob_free(prob *p)
{
  sgp_ski_stats_free(p->st);
  free(p->X); free(p->y); free(p->W); free(p->P);
  free(p);
}

/* Probe sketches W'Z (m-by-t) of seed `seed`; *rhoz = n. */
static double *sketch(prob *p, uint64_t seed, int64_t t, double *rhoz)
{
  double *uz = th_zeros(p->m * t);
  *rhoz = 0.0;
  assert_int_equal(sgp_ski_probe_sketch(&p->ctx, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR,
                                        sgp_cmat_of(p->X, p->n, p->d), 0, seed, t, uz, rhoz),
                   SGP_OK);
  assert_true(*rhoz == (double)p->n);
  return uz;
}

/* Dense A = W K W' + noise I (n-by-n) for the kernel matrix K (m-by-m). */
static void dense_A(const prob *p, const double *K, double noise, double *A)
{
  const int64_t n = p->n, m = p->m;
  double *WK = th_zeros(n * m), *Wt = th_zeros(m * n);
  th_matmul(n, m, m, p->W, K, WK);
  for (int64_t i = 0; i < n; i++)
    for (int64_t a = 0; a < m; a++) Wt[a + i * m] = p->W[i + a * n];
  th_matmul(n, n, m, WK, Wt, A);
  for (int64_t i = 0; i < n; i++) A[i + i * n] += noise;
  free(WK); free(Wt);
}

/* Exact log-likelihood -1/2 (logdet A + y'A^{-1}y + n log 2 pi) at theta
 * (log ell (nell), log s, log noise) by Cholesky. */
static double dense_loglik(const prob *p, const double *theta)
{
  const int64_t n = p->n, m = p->m, L = p->k.n_lengthscale;
  double ell[2];
  for (int64_t j = 0; j < L; j++) ell[j] = exp(theta[j]);
  sgp_kernel k = p->k;
  k.lengthscale = ell;
  k.outputscale = exp(theta[L]);
  double *K = th_zeros(m * m), *A = th_zeros(n * n), *z = th_zeros(n);
  dense_kg(&k, p->P, m, p->d, 0u, K);
  dense_A(p, K, exp(theta[L + 1]), A);
  assert_int_equal(chol(n, A), 0);
  double logdet = 0.0, fit = 0.0;
  for (int64_t i = 0; i < n; i++) logdet += 2.0 * log(A[i + i * n]);
  for (int64_t i = 0; i < n; i++) { /* z = L^{-1} y: y'A^{-1}y = z'z */
    double s = p->y[i];
    for (int64_t l = 0; l < i; l++) s -= A[i + l * n] * z[l];
    z[i] = s / A[i + i * n];
    fit += z[i] * z[i];
  }
  free(K); free(A); free(z);
  return -0.5 * (logdet + fit + (double)n * 1.8378770664093454836);
}

/* The exact gradient and what the bounds need. */
typedef struct {
  double quad[NT], trace[NT], grad[NT];
  double dnorm[NT];      /* bound on ||dA/dtheta||_2: ||B||_inf ||dK||_inf, noise */
  double alpha_norm, y_norm, a_norm; /* ||A^{-1}y||, ||y||, ||A||_F */
  double probe_sd_noise; /* sd of one Rademacher probe's noise trace 1/2 noise z'A^{-1}z */
  double kappa_m, kappa_a; /* inf-norm condition numbers of M = noise I + K_G B and A */
  double logdet, fit, sum_alpha, ones; /* log|A|, y'A^{-1}y, 1'A^{-1}y, 1'A^{-1}1 */
} dense_ref;

/* max row sum of |a| (m-by-m): bounds ||a||_2 for symmetric a. */
static double norm_inf(int64_t m, const double *a)
{
  double mx = 0.0;
  for (int64_t i = 0; i < m; i++) {
    double s = 0.0;
    for (int64_t j = 0; j < m; j++) s += fabs(a[i + j * m]);
    if (s > mx) mx = s;
  }
  return mx;
}

static double frob(int64_t n, const double *a)
{
  double s = 0.0;
  for (int64_t i = 0; i < n; i++) s += a[i] * a[i];
  return sqrt(s);
}

/* Kernel entries: 1/2 a'W dK W'a and 1/2 tr(M dK), M = W'A^{-1}W. */
static void dense_kernel_entry(const prob *p, const double *dK, const double *M,
                               const double *wa, double bnorm, dense_ref *r, int e)
{
  const int64_t m = p->m;
  double q = 0.0, tr = 0.0;
  for (int64_t b = 0; b < m; b++)
    for (int64_t a = 0; a < m; a++) {
      q += wa[a] * dK[a + b * m] * wa[b];
      tr += M[a + b * m] * dK[b + a * m];
    }
  r->quad[e] = 0.5 * q;
  r->trace[e] = 0.5 * tr;
  r->grad[e] = r->quad[e] - r->trace[e];
  r->dnorm[e] = bnorm * norm_inf(m, dK); /* ||W dK W'|| <= ||W'W|| ||dK|| */
}

static void dense_reference(const prob *p, dense_ref *r)
{
  const int64_t n = p->n, m = p->m, L = p->k.n_lengthscale;
  double *K = th_zeros(m * m), *A = th_zeros(n * n), *Li = th_zeros(n * n),
         *Ai = th_zeros(n * n), *AiW = th_zeros(n * m), *M = th_zeros(m * m),
         *alpha = th_zeros(n), *wa = th_zeros(m);
  memset(r, 0, sizeof *r);
  dense_kg(&p->k, p->P, m, p->d, 0u, K);
  dense_A(p, K, p->noise, A);
  r->a_norm = frob(n * n, A);
  const double a_inf = norm_inf(n, A);
  assert_int_equal(chol(n, A), 0);
  for (int64_t i = 0; i < n; i++) r->logdet += 2.0 * log(A[i + i * n]);
  tri_inv(n, A, Li);
  for (int64_t j = 0; j < n; j++) /* A^{-1} = Li' Li */
    for (int64_t i = 0; i < n; i++) {
      double s = 0.0;
      for (int64_t l = i > j ? i : j; l < n; l++) s += Li[l + i * n] * Li[l + j * n];
      Ai[i + j * n] = s;
    }
  th_matmul(n, 1, n, Ai, p->y, alpha);
  for (int64_t i = 0; i < n; i++) {
    r->fit += p->y[i] * alpha[i];
    r->sum_alpha += alpha[i];
    for (int64_t j = 0; j < n; j++) r->ones += Ai[i + j * n];
  }
  th_matmul(n, m, n, Ai, p->W, AiW);
  for (int64_t b = 0; b < m; b++)
    for (int64_t a = 0; a < m; a++) {
      double s = 0.0;
      for (int64_t i = 0; i < n; i++) s += p->W[i + a * n] * AiW[i + b * n];
      M[a + b * m] = s;
    }
  for (int64_t a = 0; a < m; a++) {
    double s = 0.0;
    for (int64_t i = 0; i < n; i++) s += p->W[i + a * n] * alpha[i];
    wa[a] = s;
  }
  double *B = th_zeros(m * m);
  for (int64_t b = 0; b < m; b++)
    for (int64_t a = 0; a < m; a++) {
      double s = 0.0;
      for (int64_t i = 0; i < n; i++) s += p->W[i + a * n] * p->W[i + b * n];
      B[a + b * m] = s;
    }
  const double bnorm = norm_inf(m, B);
  /* M = noise I + K B and M^{-1} = (I - K S) / noise, S = W'A^{-1}W (here M) */
  double *Mm = th_zeros(m * m), *Mi = th_zeros(m * m);
  th_matmul(m, m, m, K, B, Mm);
  th_matmul(m, m, m, K, M, Mi);
  for (int64_t j = 0; j < m; j++)
    for (int64_t i = 0; i < m; i++) Mi[i + j * m] = ((i == j) - Mi[i + j * m]) / p->noise;
  for (int64_t i = 0; i < m; i++) Mm[i + i * m] += p->noise;
  r->kappa_m = norm_inf(m, Mm) * norm_inf(m, Mi);
  r->kappa_a = a_inf * norm_inf(n, Ai);
  free(Mm); free(Mi);
  free(B);
  const unsigned all = (1u << p->d) - 1u;
  for (int64_t e = 0; e < L; e++) {
    dense_kg(&p->k, p->P, m, p->d, L == 1 ? all : 1u << e, K);
    dense_kernel_entry(p, K, M, wa, bnorm, r, (int)e);
  }
  dense_kg(&p->k, p->P, m, p->d, 0u, K);
  dense_kernel_entry(p, K, M, wa, bnorm, r, (int)L);
  double tr = 0.0, off2 = 0.0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      if (i == j) tr += Ai[i + j * n];
      else off2 += Ai[i + j * n] * Ai[i + j * n];
    }
  r->alpha_norm = frob(n, alpha);
  r->y_norm = frob(n, p->y);
  r->quad[L + 1] = 0.5 * p->noise * r->alpha_norm * r->alpha_norm;
  r->trace[L + 1] = 0.5 * p->noise * tr;
  r->grad[L + 1] = r->quad[L + 1] - r->trace[L + 1];
  r->dnorm[L + 1] = p->noise;
  /* Var(z'Bz) = 2 sum_{i != j} B_ij^2 for Rademacher z and symmetric B */
  r->probe_sd_noise = 0.5 * p->noise * sqrt(2.0 * off2);
  free(K); free(A); free(Li); free(Ai); free(AiW); free(M); free(alpha); free(wa);
}

/* ------------------------------------------------------------ runs */

static void tight_opts(sgp_ski_loglik_opts *o)
{
  sgp_ski_loglik_opts_default(o);
  o->tol = 1e-10;
  o->slq_max_iter = 1000;
  o->mean_tol = 1e-10;
  o->max_iter = 1000;
}

static void run_grad(prob *p, uint64_t seed, int64_t t, const sgp_ski_kg_opts *kgo,
                     sgp_ski_loglik_grad_result *res)
{
  double rhoz;
  double *uz = sketch(p, seed, t, &rhoz);
  sgp_ski_loglik_opts o;
  tight_opts(&o);
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, p->st, &p->k, p->noise, kgo, uz, rhoz, t, &o,
                                       NULL, res),
                   SGP_OK);
  assert_true(res->value.converged);
  assert_int_equal(res->value.probes_used, t);
  assert_int_equal(res->ntheta, p->k.n_lengthscale + 2);
  free(uz);
}

/* Bound on |x - A^{-1}y| of the mean solve: ||A^{-1}|| <= 1/noise times the
 * true residual (reported relative to ||y||; itself an upper bound with a
 * rounding allowance, sgp_ski_fnorm2). */
static double mean_error(const prob *p, const sgp_ski_loglik_grad_result *res,
                         const dense_ref *r)
{
  return res->value.mean_info.rel_residual * r->y_norm / p->noise;
}

/* Bound on |quad_e - dense quad_e| = 1/2 |x'Dx - a'Da| <= 1/2 ||D|| (2 ||a|| e
 * + e^2) for an error e in x: the solve error (mean_error) plus the rounding
 * of the compressed representation x = W xh + c_x y, whose two pieces are of
 * size ||y||/noise each (c_x -> 1/noise, W xh -> -W K_G W'a/noise) and
 * cancel down to ||a||: 16 (n + m) eps S, S = ||a|| + 2 ||y||/noise (the
 * factor covers the stencil, FFT and dot-product sums). */
static double quad_bound(const prob *p, const sgp_ski_loglik_grad_result *res,
                         const dense_ref *r, int e)
{
  const double S = r->alpha_norm + 2.0 * r->y_norm / p->noise;
  const double err = mean_error(p, res, r) + 16.0 * (double)(p->n + p->m) * EPS * S;
  return 0.5 * r->dnorm[e] * (2.0 * r->alpha_norm * err + err * err);
}

/* ------------------------------------------------------------ tests */

/* sgp_ski_grid_op_deriv = dense d K_G / d log ell on random blocks, every
 * kernel, both paths, single dimensions and the isotropic mask. The product is
 * exact up to FFT rounding: 1e-12 relative. */
static void deriv_ops_match_dense(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 5);
  const int64_t shapes[3][2] = {{9, 1}, {7, 6}, {8, 1}};
  const int dims[3] = {1, 2, 2}; /* the last: a second dimension of one point */
  for (int sh = 0; sh < 3; sh++)
    for (int kind = SGP_KERNEL_RBF; kind <= SGP_KERNEL_MATERN52; kind++)
      for (int nell = 1; nell <= dims[sh]; nell++)
        for (int path = SGP_SKI_KG_AUTO; path <= SGP_SKI_KG_CIRCULANT; path++) {
          const int d = dims[sh];
          const double lo[2] = {0.0, -1.0}, h[2] = {0.3, 0.4}, ell[2] = {0.7, 1.1};
          const sgp_ski_grid g = th_ski_grid(d, shapes[sh], lo, h);
          const sgp_kernel k = {(sgp_kernel_kind)kind, ell, nell, 1.7, 1.0};
          const int64_t m = sgp_ski_grid_npoints(&g), b = 3;
          double *P = th_zeros(m * d), *D = th_zeros(m * m), *V = th_zeros(m * b),
                 *Y = th_zeros(m * b), *R = th_zeros(m * b);
          assert_int_equal(sgp_ski_grid_points(&ctx, &g, sgp_mat_of(P, m, d)), SGP_OK);
          th_randn(&rng, m * b, V, 1.0, 0.0);
          const unsigned all = (1u << d) - 1u;
          for (int e = 0; e < (nell == 1 ? 1 : d); e++) {
            const unsigned mask = nell == 1 ? all : 1u << e;
            const int multi = (mask & (mask - 1u)) != 0;
            const int sep = kind == SGP_KERNEL_RBF || shapes[sh][1] == 1;
            sgp_ski_kg_opts o;
            sgp_ski_kg_opts_default(&o);
            o.path = (sgp_ski_kg_path)path;
            sgp_op op;
            const int code = sgp_ski_grid_op_deriv(&ctx, &k, &g, &o, mask, &op);
            if (path == SGP_SKI_KG_KRONECKER && (multi || !sep)) {
              assert_int_equal(code, SGP_EINVAL);
              assert_contains(ctx.errmsg, "path:");
              continue;
            }
            assert_int_equal(code, SGP_OK);
            assert_int_equal(op.apply(&op, sgp_cmat_of(V, m, b), sgp_mat_of(Y, m, b), &ctx),
                             SGP_OK);
            dense_kg(&k, P, m, d, mask, D);
            th_matmul(m, b, m, D, V, R);
            assert_le(th_rel_max(m * b, Y, R), 1e-12);
            sgp_op_destroy(&op);
          }
          free(P); free(D); free(V); free(Y); free(R);
        }
}

static void deriv_op_errors(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = SGP_BACKEND_CPU; /* the CPU operator's path: AUTO would take a GPU (test_backend) */
  const int64_t m[2] = {6, 5};
  const double lo[2] = {0, 0}, h[2] = {0.5, 0.5}, ell[1] = {1.0};
  const sgp_ski_grid g = th_ski_grid(2, m, lo, h);
  const sgp_kernel k = {SGP_KERNEL_RBF, ell, 1, 1.0, 1.0};
  sgp_op op;
  assert_int_equal(sgp_ski_grid_op_deriv(&ctx, &k, &g, NULL, 0u, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "lengthscale:");
  assert_int_equal(sgp_ski_grid_op_deriv(&ctx, &k, &g, NULL, 4u, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "lengthscale:");
  /* AUTO with both dimensions: the circulant path, diag 0 */
  assert_int_equal(sgp_ski_grid_op_deriv(&ctx, &k, &g, NULL, 3u, &op), SGP_OK);
  assert_int_equal(sgp_ski_grid_op_path(&op), SGP_SKI_KG_CIRCULANT);
  double dg[30];
  assert_int_equal(op.diag(&op, sgp_mat_of(dg, 30, 1), &ctx), SGP_OK);
  assert_true(th_max_abs(30, dg) == 0.0);
  sgp_op_destroy(&op);
}

/* (b) The dense oracle: exact gradient = central differences of the exact
 * log-likelihood. The truncation error C h^2 is estimated from two steps
 * (|FD(2h) - FD(h)| = 3 C h^2, Richardson) and the rounding of L by
 * |dL| <= 1/2 ||A^{-1}|| ||dA|| (n + ||alpha||^2) with ||A^{-1}|| <= 1/noise
 * and a backward error ||dA|| <= 2 (n + m) eps ||A||_F (forming and
 * factoring A), divided by the step. */
static void check_fd(const config *c)
{
  prob *p = prob_new(c, 200);
  dense_ref r;
  dense_reference(p, &r);
  const int64_t L = p->k.n_lengthscale, nt = L + 2;
  double theta[NT];
  for (int64_t j = 0; j < L; j++) theta[j] = log(p->ell[j]);
  theta[L] = log(p->k.outputscale);
  theta[L + 1] = log(p->noise);
  const double h = 1e-3;
  const double dL = 0.5 / p->noise * 2.0 * (double)(p->n + p->m) * EPS * r.a_norm *
                    ((double)p->n + r.alpha_norm * r.alpha_norm);
  for (int64_t e = 0; e < nt; e++) {
    double fd[2];
    for (int k = 0; k < 2; k++) {
      const double step = h * (k + 1);
      double tp[NT], tm[NT];
      memcpy(tp, theta, sizeof tp);
      memcpy(tm, theta, sizeof tm);
      tp[e] += step;
      tm[e] -= step;
      fd[k] = (dense_loglik(p, tp) - dense_loglik(p, tm)) / (2.0 * step);
    }
    const double tol = fabs(fd[1] - fd[0]) / 3.0 * 2.0 + 2.0 * dL / h;
    if (verbose())
      print_message("fd   kind %d nell %d e %d: exact %.10g fd %.10g diff %.2e tol %.2e\n",
                    (int)c->kind, c->nell, (int)e, r.grad[e], fd[0], fabs(fd[0] - r.grad[e]),
                    tol);
    assert_close(fd[0], r.grad[e], tol);
    assert_le(tol, 1e-4 * (1.0 + fabs(r.grad[e]))); /* the check has teeth */
  }
  prob_free(p);
}

static void dense_gradient_matches_fd(void **state)
{
  (void)state;
  check_fd(&CFG_1D);
  check_fd(&CFG_2D_ARD);
  check_fd(&CFG_2D_ISO);
  check_fd(&CFG_2D_M52);
  check_fd(&CFG_1D_M32);
}

/* A 300-point problem of c, its dense reference and the K_G options of path. */
static prob *prob_with_reference(const config *c, sgp_ski_kg_path path, dense_ref *r,
                                 sgp_ski_kg_opts *ko)
{
  prob *p = prob_new(c, 300);
  dense_reference(p, r);
  sgp_ski_kg_opts_default(ko);
  ko->path = path;
  return p;
}

/* (a) quadratic terms = dense ones within quad_bound; every entry of the
 * stochastic gradient within 4 standard errors of the exact one. */
static void check_grad(const config *c, sgp_ski_kg_path path)
{
  dense_ref r;
  sgp_ski_kg_opts ko;
  prob *p = prob_with_reference(c, path, &r, &ko);
  sgp_ski_loglik_grad_result res;
  run_grad(p, 11, 64, &ko, &res);
  for (int e = 0; e < res.ntheta; e++) {
    if (verbose())
      print_message("grad kind %d nell %d path %d e %d: quad %.12g dense %.12g diff %.2e "
                    "bound %.2e | grad %.6g exact %.6g se %.3g z %.2f\n",
                    (int)c->kind, c->nell, (int)path, e, res.quad[e], r.quad[e],
                    fabs(res.quad[e] - r.quad[e]), quad_bound(p, &res, &r, e), res.grad[e],
                    r.grad[e], res.grad_se[e], (res.grad[e] - r.grad[e]) / res.grad_se[e]);
    assert_close(res.quad[e], r.quad[e], quad_bound(p, &res, &r, e));
    assert_true(res.grad_se[e] > 0);
    assert_close(res.grad[e], r.grad[e], 4.0 * res.grad_se[e] + quad_bound(p, &res, &r, e));
    assert_close(res.grad[e], res.quad[e] - res.trace[e], 1e-12 * fabs(res.quad[e]) + 1e-300);
  }
  prob_free(p);
}

/* The configurations and K_G paths every gradient check runs on. */
static void each_case(void (*check)(const config *, sgp_ski_kg_path))
{
  check(&CFG_1D, SGP_SKI_KG_AUTO);
  check(&CFG_2D_ARD, SGP_SKI_KG_AUTO);      /* Kronecker, one factor each */
  check(&CFG_2D_ISO, SGP_SKI_KG_AUTO);      /* Kronecker, sum over factors */
  check(&CFG_2D_ISO, SGP_SKI_KG_CIRCULANT); /* one BTTB derivative */
  check(&CFG_2D_M52, SGP_SKI_KG_AUTO);      /* circulant, ARD */
  check(&CFG_1D_M32, SGP_SKI_KG_AUTO);
}

static void gradient_within_se(void **state)
{
  (void)state;
  each_case(check_grad);
}

/* (a) The mean over S seeds is within 4 of its standard errors
 * sqrt(sum se_s^2)/S (about se/sqrt(S): closer than one run). */
static void seed_mean_closer(void **state)
{
  (void)state;
  prob *p = prob_new(&CFG_2D_ARD, 300);
  dense_ref r;
  dense_reference(p, &r);
  enum { S = 8 };
  double mean[NT] = {0}, var[NT] = {0}, qb[NT] = {0};
  int nt = 0;
  for (int s = 0; s < S; s++) {
    sgp_ski_loglik_grad_result res;
    run_grad(p, 100 + (uint64_t)s, 32, NULL, &res);
    nt = (int)res.ntheta;
    for (int e = 0; e < nt; e++) {
      mean[e] += res.grad[e] / S;
      var[e] += res.grad_se[e] * res.grad_se[e];
      const double b = quad_bound(p, &res, &r, e);
      if (b > qb[e]) qb[e] = b;
    }
  }
  for (int e = 0; e < nt; e++) {
    if (verbose())
      print_message("seeds e %d: mean %.6g exact %.6g se %.3g z %.2f\n", e, mean[e], r.grad[e],
                    sqrt(var[e]) / S, (mean[e] - r.grad[e]) / (sqrt(var[e]) / S));
    assert_close(mean[e], r.grad[e], 4.0 * sqrt(var[e]) / S + qb[e]);
  }
  prob_free(p);
}

/* (c) Many probes: the noise trace 1/2 noise tr(A^{-1}) within 4 standard
 * errors, and the reported standard error against the Rademacher-Hutchinson
 * one, 1/2 noise sqrt(2 sum_{i != j} (A^{-1})_ij^2 / t). The sample sd of
 * t = 2000 near-Gaussian values has a relative sd of about 1/sqrt(2t) = 1.6%;
 * the band 15% leaves room for a heavier tail (kurtosis up to ~30). */
static void noise_trace_many_probes(void **state)
{
  (void)state;
  prob *p = prob_new(&CFG_1D, 300);
  dense_ref r;
  dense_reference(p, &r);
  const int64_t t = 2000, e = p->k.n_lengthscale + 1;
  sgp_ski_loglik_grad_result res;
  run_grad(p, 3, t, NULL, &res);
  assert_close(res.trace[e], r.trace[e], 4.0 * res.grad_se[e]);
  const double se_theory = r.probe_sd_noise / sqrt((double)t);
  if (verbose())
    print_message("noise trace: %.8g exact %.8g se %.3g (theory %.3g) z %.2f\n", res.trace[e],
                  r.trace[e], res.grad_se[e], se_theory,
                  (res.trace[e] - r.trace[e]) / res.grad_se[e]);
  assert_le(fabs(res.grad_se[e] / se_theory - 1.0), 0.15);
  assert_le(res.grad_se[e], 0.01 * fabs(r.trace[e])); /* close indeed */
  prob_free(p);
}

/* (d) A(c s, c noise) = c A: dL/dlog s + dL/dlog noise = 1/2 y'A^{-1}y - n/2.
 * The trace parts: 1/2 mean_j x_j'A z_j, and x_j'A z_j = z_j'z_j + r_j'z_j =
 * n + r_j'z_j with |r_j'z_j| <= ||r_j|| sqrt(n) <= tol n (relative to ||z_j||
 * = sqrt(n), the recursion's residual; the true one may differ by the drift
 * of CG, <= 4 K eps ||A|| ||x_j|| with ||x_j|| <= sqrt(n)/noise over K steps),
 * plus rounding of the sums (16 (n + m) eps n ||A||/noise): no probe noise at
 * all. The quadratic parts: 1/2 x'Ax vs 1/2 y'x differ by 1/2 |x'(Ax - y)| <=
 * 1/2 ||x|| rel ||y||. */
static void scaling_identity(void **state)
{
  (void)state;
  const config *cfgs[2] = {&CFG_1D, &CFG_2D_M52};
  for (int c = 0; c < 2; c++) {
    prob *p = prob_new(cfgs[c], 300);
    dense_ref r;
    dense_reference(p, &r);
    sgp_ski_loglik_grad_result res;
    run_grad(p, 21, 16, NULL, &res);
    const int64_t L = p->k.n_lengthscale, n = p->n;
    const double kappa = r.a_norm / p->noise, K = (double)res.value.slq_iterations;
    const double tr_bound = 0.5 * (1e-10 + 4.0 * K * EPS * kappa) * (double)n +
                            16.0 * (double)(n + p->m) * EPS * (double)n * kappa;
    assert_close(res.trace[L] + res.trace[L + 1], 0.5 * (double)n, tr_bound);
    const double xn = r.alpha_norm + mean_error(p, &res, &r);
    const double q_bound = 0.5 * xn * res.value.mean_info.rel_residual * r.y_norm +
                           16.0 * (double)(n + p->m) * EPS * kappa * xn * r.y_norm;
    if (verbose())
      print_message("identity: trace sum - n/2 = %.2e (bound %.2e); quad sum - fit/2 = %.2e "
                    "(bound %.2e); SLQ steps %lld, kappa bound %.3g\n",
                    res.trace[L] + res.trace[L + 1] - 0.5 * (double)n, tr_bound,
                    res.quad[L] + res.quad[L + 1] - 0.5 * res.value.datafit, q_bound,
                    (long long)res.value.slq_iterations, kappa);
    assert_close(res.quad[L] + res.quad[L + 1], 0.5 * res.value.datafit, q_bound);
    assert_close(res.grad[L] + res.grad[L + 1], 0.5 * res.value.datafit - 0.5 * (double)n,
                 tr_bound + q_bound);
    prob_free(p);
  }
}

/* The value from the gradient call is sgp_ski_loglik's, bit for bit (the
 * solves are the same; the probe iterates only add axpys). */
static void value_matches_loglik(void **state)
{
  (void)state;
  prob *p = prob_new(&CFG_2D_ARD, 300);
  double rhoz;
  const int64_t t = 8;
  double *uz = sketch(p, 9, t, &rhoz);
  sgp_ski_loglik_opts o;
  sgp_ski_loglik_opts_default(&o); /* the defaults: tol 0.01 */
  sgp_op kg;
  assert_int_equal(sgp_ski_grid_op(&p->ctx, &p->k, &p->g, NULL, &kg), SGP_OK);
  sgp_ski_loglik_result lr;
  double *w1 = th_zeros(p->m), *w2 = th_zeros(p->m);
  assert_int_equal(sgp_ski_loglik(&p->ctx, p->st, &kg, p->noise, uz, rhoz, t, &o, w1, &lr),
                   SGP_OK);
  sgp_ski_loglik_grad_result res;
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, p->st, &p->k, p->noise, NULL, uz, rhoz, t, &o,
                                       w2, &res),
                   SGP_OK);
  assert_true(res.value.loglik == lr.loglik);
  assert_true(res.value.logdet == lr.logdet);
  assert_true(res.value.logdet_se == lr.logdet_se);
  assert_true(res.value.datafit == lr.datafit);
  assert_true(th_max_abs_diff(p->m, w1, w2) == 0.0);
  for (int e = 0; e < res.ntheta; e++) assert_true(isfinite(res.grad[e]));
  sgp_op_destroy(&kg);
  free(uz); free(w1); free(w2);
  prob_free(p);
}

/* The derivative in a constant prior mean mu (ski_select.c learns it as a
 * coordinate): dmean = 1'A^-1(y - mu 1) of statistics centred on mu
 * (sgp_ski_stats_centred), for data with a mean near 500 (the statistics of
 * y + 500 are those of y centred on -500). Oracles: the dense
 * 1'A^-1(y + 500 - mu 1) by Cholesky, and the central difference of the
 * computed log-likelihood, which is exact for a quadratic in mu (the SLQ part
 * does not depend on y). Bounds: the solve error |1'dz| <= sqrt(n) ||A^-1||
 * tol ||y - mu 1|| with ||A^-1|| <= 1/noise; the difference of two data fits
 * each within ||y - mu 1||^2 tol / noise, over 2 delta (L = -datafit/2 + ...). */
static void mean_derivative(void **state)
{
  (void)state;
  prob *p = prob_new(&CFG_2D_ARD, 300);
  const int64_t n = p->n, m = p->m, t = 4;
  double rhoz, *uz = sketch(p, 5, t, &rhoz);
  sgp_ski_loglik_opts o;
  tight_opts(&o);
  double *K = th_zeros(m * m), *A = th_zeros(n * n), *r = th_zeros(n), *z = th_zeros(n);
  double *ub = th_zeros(m), *ub2 = th_zeros(m);
  dense_kg(&p->k, p->P, m, p->d, 0u, K);
  dense_A(p, K, p->noise, A);
  double ysum = 0.0;
  for (int64_t i = 0; i < n; i++) ysum += p->y[i];
  const double shift = 500.0, mu = shift + ysum / (double)n + 0.3, delta = 1.0;
  sgp_ski_stats s500, c, cp, cm;
  sgp_ski_stats_centred(p->st, -shift, ub, &s500);
  sgp_ski_stats_centred(&s500, mu, ub2, &c);
  double rn2 = 0.0;
  for (int64_t i = 0; i < n; i++) {
    r[i] = p->y[i] + shift - mu;
    rn2 += r[i] * r[i];
  }
  assert_int_equal(th_chol_solve(n, A, 1, r, z), 0);
  double dense = 0.0;
  for (int64_t i = 0; i < n; i++) dense += z[i];
  sgp_ski_loglik_grad_result g, gp, gm;
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, &c, &p->k, p->noise, NULL, uz, rhoz, t, &o,
                                       NULL, &g), SGP_OK);
  assert_true(g.value.converged);
  const double tol = g.value.mean_info.rel_residual;
  const double bound = sqrt((double)n) * tol * sqrt(rn2) / p->noise + 1e-12 * fabs(dense);
  /* the centred statistics hold sum (y - mu)^2 up to the rounding of the cancellation */
  assert_true(fabs(c.yy - rn2) <= 16 * EPS * (double)n * (shift + 10) * (shift + 10));
  printf("# dL/dmu %.10g, dense %.10g (bound %.2g)\n", g.dmean, dense, bound);
  assert_true(fabs(g.dmean - dense) <= bound);
  double *ub3 = th_zeros(m), *ub4 = th_zeros(m);
  sgp_ski_stats_centred(&s500, mu + delta, ub3, &cp);
  sgp_ski_stats_centred(&s500, mu - delta, ub4, &cm);
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, &cp, &p->k, p->noise, NULL, uz, rhoz, t, &o,
                                       NULL, &gp), SGP_OK);
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, &cm, &p->k, p->noise, NULL, uz, rhoz, t, &o,
                                       NULL, &gm), SGP_OK);
  assert_true(gp.value.logdet == g.value.logdet && gm.value.logdet == g.value.logdet);
  const double fd = (gp.value.loglik - gm.value.loglik) / (2.0 * delta);
  const double rmax = sqrt(rn2) + delta * sqrt((double)n);
  const double fd_bound = rmax * rmax * tol / p->noise / (2.0 * delta) +
                          4.0 * EPS * fabs(gp.value.loglik) / delta;
  printf("# finite difference %.10g (bound %.2g)\n", fd, fd_bound + bound);
  assert_true(fabs(fd - g.dmean) <= fd_bound + bound);
  free(uz); free(K); free(A); free(r); free(z); free(ub); free(ub2); free(ub3); free(ub4);
  prob_free(p);
}


/* ------------------------------------------------------------ exact evaluation */

/* sgp_ski_loglik_exact (ski_loglik_exact.c: the LU of M = noise I + K_G B)
 * against the dense n-by-n computation. Tolerance from the conditioning of
 * the two computations, kappa_M = ||M|| ||M^{-1}|| and kappa_A = ||A||
 * ||A^{-1}|| (inf-norms, from the dense matrices: M^{-1} = (I - K_G S) /
 * noise with S = W'A^{-1}W): LU with partial pivoting is the exact factor of
 * M + E with ||E|| <= gamma_m ||M||, gamma_m ~ m eps (growth factor 1), so
 * log|M| moves by |tr(M^{-1}E)| <= m ||M^{-1}|| ||E|| <= m^2 eps kappa_M, and
 * each solve or entry of the inverse by a relative m eps kappa_M; the dense
 * side's Cholesky likewise by n^2 eps kappa_A. Both within
 * 4 eps (m^2 kappa_M + n^2 kappa_A) times the size of the terms compared. */
static double exact_tol(const prob *p, const dense_ref *r, double size)
{
  const double m = (double)p->m, n = (double)p->n;
  return 4.0 * EPS * (m * m * r->kappa_m + n * n * r->kappa_a) * size;
}

static void exact_run(prob *p, const sgp_ski_kg_opts *ko, int grad, sgp_ski_loglik_grad_result *res)
{
  assert_int_equal(sgp_ski_loglik_exact(&p->ctx, p->st, &p->k, p->noise, ko, grad, NULL, res,
                                        NULL), SGP_OK);
  assert_int_equal(res->ntheta, p->k.n_lengthscale + 2);
  assert_true(res->value.logdet_se == 0.0 && res->value.probes_used == 0);
}

static void check_exact(const config *c, sgp_ski_kg_path path)
{
  dense_ref r;
  sgp_ski_kg_opts ko;
  prob *p = prob_with_reference(c, path, &r, &ko);
  sgp_ski_loglik_grad_result res;
  exact_run(p, &ko, 1, &res);
  const int64_t L = p->k.n_lengthscale;
  double theta[NT];
  for (int64_t j = 0; j < L; j++) theta[j] = log(p->ell[j]);
  theta[L] = log(p->k.outputscale);
  theta[L + 1] = log(p->noise);
  const double dl = dense_loglik(p, theta);
  const double vtol = exact_tol(p, &r, (double)p->n + res.value.datafit + fabs(res.value.logdet));
  if (verbose())
    print_message("exact kind %d nell %d path %d: loglik %.12g dense %.12g diff %.2e tol %.2e "
                  "(kappa_M %.3g, kappa_A %.3g)\n", (int)c->kind, c->nell, (int)path,
                  res.value.loglik, dl, fabs(res.value.loglik - dl), vtol, r.kappa_m, r.kappa_a);
  assert_close(res.value.loglik, dl, vtol);
  assert_le(vtol, 1e-4); /* teeth: a wrong term is O(1) */
  for (int e = 0; e < res.ntheta; e++) {
    const double tol = exact_tol(p, &r, fabs(r.quad[e]) + fabs(r.trace[e]));
    if (verbose())
      print_message("  e %d: grad %.12g dense %.12g diff %.2e tol %.2e\n", e, res.grad[e],
                    r.grad[e], fabs(res.grad[e] - r.grad[e]), tol);
    assert_close(res.quad[e], r.quad[e], tol);
    assert_close(res.trace[e], r.trace[e], tol);
    assert_close(res.grad[e], r.grad[e], tol);
    assert_le(tol, 1e-4 * (fabs(r.quad[e]) + fabs(r.trace[e])));
    assert_true(res.grad_se[e] == 0.0);
  }
  prob_free(p);
}

static void exact_matches_dense(void **state)
{
  (void)state;
  each_case(check_exact);
}

/* The exact value at theta (log ell.., log s, log noise). */
static double exact_value(prob *p, const double *theta)
{
  const int64_t L = p->k.n_lengthscale;
  double ell[2];
  for (int64_t j = 0; j < L; j++) ell[j] = exp(theta[j]);
  sgp_kernel k = p->k;
  k.lengthscale = ell;
  k.outputscale = exp(theta[L]);
  sgp_ski_loglik_grad_result res;
  assert_int_equal(sgp_ski_loglik_exact(&p->ctx, p->st, &k, exp(theta[L + 1]), NULL, 0, NULL,
                                        &res, NULL), SGP_OK);
  return res.value.loglik;
}

/* Fourth-order central difference of the exact value in entry e at step h:
 * (8 (f(h) - f(-h)) - (f(2h) - f(-2h))) / (12 h). */
static double exact_fd4(prob *p, const double *theta, int64_t e, double h)
{
  double f[4];
  const double off[4] = {h, -h, 2 * h, -2 * h};
  for (int k = 0; k < 4; k++) {
    double t[NT];
    memcpy(t, theta, sizeof t);
    t[e] += off[k];
    f[k] = exact_value(p, t);
  }
  return (8.0 * (f[0] - f[1]) - (f[2] - f[3])) / (12.0 * h);
}

/* The exact gradient = central differences of the exact value itself (the
 * objective the optimizer sees: no Hutchinson/quadrature mismatch here).
 * Fourth order, so that a step large against the rounding is possible: the
 * truncation C h^4 is estimated from two steps (D(2h) - D(h) = 15 C h^4,
 * Richardson; twice that is allowed); each value's rounding is within the
 * exact side's part of exact_tol, 4 eps m^2 kappa_M times its size, and the
 * stencil's weights (16 + 2)/12 carry it over the step. */
static void check_exact_fd(const config *c)
{
  prob *p = prob_new(c, 200);
  dense_ref r;
  dense_reference(p, &r);
  sgp_ski_loglik_grad_result res;
  exact_run(p, NULL, 1, &res);
  const int64_t L = p->k.n_lengthscale, nt = L + 2;
  double theta[NT];
  for (int64_t j = 0; j < L; j++) theta[j] = log(p->ell[j]);
  theta[L] = log(p->k.outputscale);
  theta[L + 1] = log(p->noise);
  const double h = 0.02, m = (double)p->m;
  const double dL = 4.0 * EPS * m * m * r.kappa_m *
                    ((double)p->n + res.value.datafit + fabs(res.value.logdet));
  for (int64_t e = 0; e < nt; e++) {
    const double d1 = exact_fd4(p, theta, e, h), d2 = exact_fd4(p, theta, e, 2 * h);
    const double tol = 2.0 * fabs(d2 - d1) / 15.0 + 1.5 * dL / h;
    if (verbose())
      print_message("exact fd kind %d nell %d e %d: grad %.10g fd %.10g diff %.2e tol %.2e\n",
                    (int)c->kind, c->nell, (int)e, res.grad[e], d1,
                    fabs(d1 - res.grad[e]), tol);
    assert_close(d1, res.grad[e], tol);
    assert_le(tol, 1e-3 * (1.0 + fabs(res.grad[e]))); /* teeth: a wrong term is O(|grad|) */
  }
  prob_free(p);
}

static void exact_gradient_matches_fd(void **state)
{
  (void)state;
  check_exact_fd(&CFG_1D);
  check_exact_fd(&CFG_2D_ARD);
  check_exact_fd(&CFG_2D_ISO);
  check_exact_fd(&CFG_2D_M52);
  check_exact_fd(&CFG_1D_M32);
}

/* The mean: dmean = 1'A^{-1}(y - mu 1) and the GLS estimate against the dense
 * Cholesky solves (relative m eps kappa^2 as above, on ||1|| ||A^{-1}||
 * ||y - mu 1|| and on 1'A^{-1}1); the mean cache equals sgp_ski_loglik's to
 * its solve tolerance. */
static void exact_mean(void **state)
{
  (void)state;
  prob *p = prob_new(&CFG_2D_ARD, 300);
  dense_ref r;
  dense_reference(p, &r);
  const int64_t n = p->n, m = p->m;
  double *K = th_zeros(m * m), *A = th_zeros(n * n), *rhs = th_zeros(2 * n), *z = th_zeros(2 * n);
  double *ub = th_zeros(m), *w = th_zeros(m);
  dense_kg(&p->k, p->P, m, p->d, 0u, K);
  dense_A(p, K, p->noise, A);
  const double mu = 0.4;
  sgp_ski_stats c;
  sgp_ski_stats_centred(p->st, mu, ub, &c);
  for (int64_t i = 0; i < n; i++) { rhs[i] = p->y[i] - mu; rhs[n + i] = 1.0; }
  assert_int_equal(th_chol_solve(n, A, 2, rhs, z), 0);
  double d1 = 0.0, d2 = 0.0, yn = 0.0;
  for (int64_t i = 0; i < n; i++) { d1 += z[i]; d2 += z[n + i]; yn += rhs[i] * rhs[i]; }
  sgp_ski_loglik_grad_result res;
  double gls = NAN;
  assert_int_equal(sgp_ski_loglik_exact(&p->ctx, &c, &p->k, p->noise, NULL, 0, w, &res, &gls),
                   SGP_OK);
  const double tol1 = exact_tol(p, &r, sqrt((double)n) * sqrt(yn) / p->noise);
  const double tol2 = exact_tol(p, &r, (double)n / p->noise);
  if (verbose())
    print_message("exact mean: dmean %.12g dense %.12g (tol %.2e); gls %.12g dense %.12g\n",
                  res.dmean, d1, tol1, gls, d1 / d2);
  assert_close(res.dmean, d1, tol1);
  /* gls = d1/d2: relative errors add */
  assert_close(gls, d1 / d2, fabs(d1 / d2) * (tol1 / fabs(d1) + tol2 / fabs(d2)));
  free(K); free(A); free(rhs); free(z); free(ub); free(w);
  prob_free(p);
}

/* ------------------------------------------------------------ eigenbasis path */

/* Dense Q diag(lamh^pw) Q' (m-by-m) from the Kronecker transforms. */
static double *kron_dense(sgp_ctx *ctx, const sgp_ski_kron_eig *ke, const double *lamh,
                          double pw)
{
  const int64_t m = ke->mtot;
  double *I = th_zeros(m * m), *Y = th_zeros(m * m), *w = th_zeros(m * m), *out = th_zeros(m * m);
  for (int64_t i = 0; i < m; i++) I[i + i * m] = 1.0;
  assert_int_equal(sgp_ski_kron_eig_transform(ctx, ke, 'T', m, I, Y, w), SGP_OK);
  for (int64_t j = 0; j < m; j++)
    for (int64_t i = 0; i < m; i++) Y[i + j * m] *= pow(lamh[i], pw);
  assert_int_equal(sgp_ski_kron_eig_transform(ctx, ke, 'N', m, Y, out, w), SGP_OK);
  free(I); free(Y); free(w);
  return out;
}

/* Q Lambda Q' = the dense K_G to the eigensolver's rounding (a backward
 * error of m_j eps ||T_j|| per factor, d factors: 16 d m eps ||K_G||_inf,
 * plus the clamp of eigenvalues below 1e-14 of the largest), and Q'Q = I to
 * the same order. Separable cases: RBF in 2-D (ARD), Matern 3/2 on a 1-D
 * grid. */
static void kron_eig_matches_dense(void **state)
{
  (void)state;
  const config *cases[] = {&CFG_2D_ARD, &CFG_1D_M32};
  for (int c = 0; c < 2; c++) {
    prob *p = prob_new(cases[c], 10);
    const int64_t m = p->m;
    sgp_ski_kron_eig ke;
    assert_true(sgp_ski_kron_eig_applies(&p->k, &p->g));
    assert_int_equal(sgp_ski_kron_eig_make(&p->ctx, &p->k, &p->g, &ke), SGP_OK);
    double *lamh = th_zeros(m), *K = th_zeros(m * m);
    sgp_ski_kron_eig_sqrt_values(&ke, lamh);
    double *QLQ = kron_dense(&p->ctx, &ke, lamh, 2.0), *QQ = kron_dense(&p->ctx, &ke, lamh, 0.0);
    dense_kg(&p->k, p->P, m, p->d, 0u, K);
    const double kn = norm_inf(m, K), tol = 16.0 * p->d * (double)m * EPS;
    for (int64_t i = 0; i < m * m; i++) {
      assert_close(QLQ[i], K[i], (tol + 1e-14 * m) * kn);
      assert_close(QQ[i], (i % m) == (i / m) ? 1.0 : 0.0, tol);
    }
    free(lamh); free(K); free(QLQ); free(QQ);
    sgp_ski_kron_eig_free(&ke);
    prob_free(p);
  }
}

/* Q dS' Q' (sgp_ski_kron_eig_dsqrt) = central differences of K_G^{1/2} in
 * each log lengthscale and the isotropic one, on a grid where T_j is well
 * conditioned (ell ~ h: eigenvalues far above the clamp, so K^{1/2} is
 * smooth). Step 1e-4: truncation h^2/6 times the third derivative ~ 1e-9,
 * rounding eps ||S|| / h ~ 1e-12; tolerance 1e-7. */
static void kron_eig_dsqrt_matches_fd(void **state)
{
  (void)state;
  const int64_t ms[2] = {6, 5}, m = 30;
  const double lo[2] = {0, 0}, hh[2] = {0.25, 0.25}, h = 1e-4;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const sgp_ski_grid g = th_ski_grid(2, ms, lo, hh);
  for (int nell = 1; nell <= 2; nell++)
    for (int e = 0; e < nell; e++) {
      const unsigned mask = nell == 1 ? 3u : 1u << e;
      double ell[2] = {0.3, 0.35}, *S[2], *lamh = th_zeros(m);
      sgp_kernel k = {SGP_KERNEL_RBF, ell, nell, 1.7, 1.0};
      for (int sgn = 0; sgn < 2; sgn++) {
        double el[2] = {ell[0], ell[1]};
        el[e] *= exp(sgn ? h : -h);
        sgp_kernel kk = {SGP_KERNEL_RBF, el, nell, 1.7, 1.0};
        sgp_ski_kron_eig ke;
        assert_int_equal(sgp_ski_kron_eig_make(&ctx, &kk, &g, &ke), SGP_OK);
        sgp_ski_kron_eig_sqrt_values(&ke, lamh);
        S[sgn] = kron_dense(&ctx, &ke, lamh, 1.0);
        sgp_ski_kron_eig_free(&ke);
      }
      sgp_ski_kron_eig ke;
      assert_int_equal(sgp_ski_kron_eig_make(&ctx, &k, &g, &ke), SGP_OK);
      double *I = th_zeros(m * m), *D = th_zeros(m * m), *w = th_zeros(m * m),
             *Y = th_zeros(m * m), *dS = th_zeros(m * m), worst = 0.0;
      for (int64_t i = 0; i < m; i++) I[i + i * m] = 1.0;
      assert_int_equal(sgp_ski_kron_eig_transform(&ctx, &ke, 'T', m, I, Y, w), SGP_OK);
      assert_int_equal(sgp_ski_kron_eig_dsqrt(&ctx, &ke, mask, m, Y, D, w), SGP_OK);
      assert_int_equal(sgp_ski_kron_eig_transform(&ctx, &ke, 'N', m, D, dS, w), SGP_OK);
      for (int64_t i = 0; i < m * m; i++) {
        const double fd = (S[1][i] - S[0][i]) / (2.0 * h);
        if (fabs(fd - dS[i]) > worst) worst = fabs(fd - dS[i]);
        assert_close(dS[i], fd, 1e-7);
      }
      if (verbose()) print_message("dsqrt nell %d e %d: worst %.2e\n", nell, e, worst);
      free(S[0]); free(S[1]); free(lamh); free(I); free(D); free(w); free(Y); free(dS);
      sgp_ski_kron_eig_free(&ke);
    }
}

/* The eigenbasis log-likelihood against the dense one, every separable case,
 * with either preconditioner. The data fit, the quadratic terms, dL/dmu and
 * d2L/dmu2 carry no probe noise: an error err in z = A^{-1}y (quad_bound's:
 * the mean solve's residual over noise plus the rounding of pieces of size
 * |y|/noise that cancel down to |a|) moves y'z by |y| err, 1'z by sqrt(n)
 * err, a quadratic term by quad_bound; 1'A^{-1}1 likewise with 1 for y
 * (pieces sqrt(n)/noise, solve tolerance mean_tol). logdet and each gradient
 * entry within 4 of their standard errors (64 probes). In 1-D the marginal
 * preconditioner is B itself, M's exact inverse: every probe converges in
 * its first step (to M's rounding, ~m eps cond(M) ~ 1e-12 here against the
 * tolerance 1e-10; 2 steps allowed) and the standard errors are rounding,
 * the gradient's too (its control variate is then exact). */
static void check_eig_precond(prob *p, const dense_ref *r, const sgp_ski_kg_opts *ko,
                              sgp_ski_eig_precond pc)
{
  sgp_ski_loglik_opts o;
  tight_opts(&o);
  o.eig_precond = pc;
  sgp_ski_loglik_grad_result res;
  const int64_t t = 64;
  assert_int_equal(sgp_ski_loglik_grad_eig(&p->ctx, p->st, &p->k, p->noise, ko, t, 5, &o,
                                           NULL, &res), SGP_OK);
  assert_true(res.value.converged);
  assert_int_equal(res.value.probes_used, t);
  const int exact = pc == SGP_SKI_EIG_PRECOND_MARGINAL && p->d == 1;
  const double n = (double)p->n, nm = (double)(p->n + p->m);
  const double err = mean_error(p, &res, r) +
                     16.0 * nm * EPS * (r->alpha_norm + 2.0 * r->y_norm / p->noise);
  const double ftol = r->y_norm * err, mtol = sqrt(n) * err;
  const double otol = n / p->noise * (48.0 * nm * EPS + o.mean_tol);
  if (verbose())
    print_message("eig precond %d kind %d nell %d: fit %.12g dense %.12g (tol %.2e) logdet "
                  "%.10g dense %.10g se %.3g its %lld/%lld\n", (int)pc, (int)p->k.kind,
                  (int)p->k.n_lengthscale, res.value.datafit, r->fit, ftol, res.value.logdet,
                  r->logdet, res.value.logdet_se, (long long)res.value.slq_iterations,
                  (long long)res.value.mean_info.iterations);
  assert_close(res.value.datafit, r->fit, ftol);
  assert_le(ftol, 1e-4 * r->fit); /* teeth: a wrong term is O(1) */
  if (exact) assert_true(res.value.slq_iterations <= 2);
  else assert_true(res.value.logdet_se > 0);
  assert_close(res.value.logdet, r->logdet, 4.0 * res.value.logdet_se + 16.0 * nm * EPS * n);
  assert_close(res.value.loglik, -0.5 * (res.value.logdet + res.value.datafit +
                                         n * 1.8378770664093454836), 1e-12 * n);
  assert_close(res.dmean, r->sum_alpha, mtol);
  assert_close(res.dmean2, -r->ones, otol);
  assert_le(otol, 1e-4 * r->ones);
  for (int e = 0; e < res.ntheta; e++) {
    const double qtol = quad_bound(p, &res, r, e);
    if (verbose())
      print_message("  e %d: quad %.12g dense %.12g (tol %.2e) grad %.6g exact %.6g se %.3g "
                    "z %.2f\n", e, res.quad[e], r->quad[e], qtol, res.grad[e], r->grad[e],
                    res.grad_se[e], (res.grad[e] - r->grad[e]) / res.grad_se[e]);
    assert_close(res.quad[e], r->quad[e], qtol);
    assert_le(qtol, 1e-4 * fabs(r->quad[e]) + 1e-6);
    /* exact: Rademacher probes of the diagonal P^{-1} = M^{-1} and the
     * lengthscales' control variate (B = Bk) leave rounding alone, far below
     * 1e-6 and far below the probe noise without them (0.06 to 0.6 here) */
    if (exact) assert_true(res.grad_se[e] <= 1e-6 * (fabs(r->grad[e]) + 1.0));
    else assert_true(res.grad_se[e] > 0);
    assert_close(res.grad[e], r->grad[e], 4.0 * res.grad_se[e] + qtol);
  }
}

static void check_eig(const config *c, sgp_ski_kg_path path)
{
  if (path != SGP_SKI_KG_AUTO) return;
  dense_ref r;
  sgp_ski_kg_opts ko;
  prob *p = prob_with_reference(c, path, &r, &ko);
  if (sgp_ski_kron_eig_applies(&p->k, &p->g)) {
    check_eig_precond(p, &r, &ko, SGP_SKI_EIG_PRECOND_DENSITY);
    check_eig_precond(p, &r, &ko, SGP_SKI_EIG_PRECOND_MARGINAL);
  }
  prob_free(p);
}

static void eig_matches_dense(void **state)
{
  (void)state;
  each_case(check_eig);
}

/* The preconditioner's point: on an evenly covered grid the log-determinant's
 * standard error is a small fraction of the plain SLQ's with the same number
 * of probes (the probes estimate only logdet(P^{-1/2} M P^{-1/2})): with the
 * default (marginal) preconditioner 0.148 against 3.37 here (the density one
 * gave 1.11), and on the 3-D benchmark 0.06 with 10 probes against 17 with
 * 30 plain ones. Asserted below half,
 * three of the ratio's sd (each se is itself estimated from 32 probes, to
 * ~13%) above the density one's ratio. */
static void eig_smaller_se(void **state)
{
  (void)state;
  prob *p = prob_new(&CFG_2D_ARD, 300);
  sgp_ski_loglik_opts o;
  tight_opts(&o);
  sgp_ski_loglik_grad_result e, q;
  double rhoz;
  double *uz = sketch(p, 5, 32, &rhoz);
  assert_int_equal(sgp_ski_loglik_grad_eig(&p->ctx, p->st, &p->k, p->noise, NULL, 32, 5, &o,
                                           NULL, &e), SGP_OK);
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, p->st, &p->k, p->noise, NULL, uz, rhoz, 32,
                                       &o, NULL, &q), SGP_OK);
  if (verbose())
    print_message("se: eig %.3g plain %.3g\n", e.value.logdet_se, q.value.logdet_se);
  assert_le(e.value.logdet_se, 0.5 * q.value.logdet_se);
  free(uz);
  prob_free(p);
}

/* sgp_ski_marginals_make against sums of the dense W'W, to the rounding of
 * sums of up to S m terms of size at most max|B| (the stencil adds them in
 * another order), and bitwise the same on 1 and 2 threads. A log-likelihood
 * given these marginals (the learning's: made once) is bitwise the one that
 * makes its own. */
static void marginals_match_dense(void **state)
{
  (void)state;
  prob *p = prob_new(&CFG_2D_ARD, 300);
  const int64_t n = p->n, m = p->m, m1 = p->g.m[0], m2 = p->g.m[1];
  double *ref[2] = {th_zeros(m1 * m1), th_zeros(m2 * m2)}, tref = 0.0, bmax = 0.0;
  for (int64_t b = 0; b < m; b++)
    for (int64_t a = 0; a < m; a++) {
      double v = 0.0;
      for (int64_t i = 0; i < n; i++) v += p->W[i + a * n] * p->W[i + b * n];
      ref[0][a % m1 + (b % m1) * m1] += v;
      ref[1][a / m1 + (b / m1) * m2] += v;
      tref += v;
      if (fabs(v) > bmax) bmax = fabs(v);
    }
  sgp_ski_marginals mg, mg1;
  assert_int_equal(sgp_ski_marginals_make(&p->ctx, p->st, &mg), SGP_OK);
  p->ctx.nthreads = 1;
  assert_int_equal(sgp_ski_marginals_make(&p->ctx, p->st, &mg1), SGP_OK);
  p->ctx.nthreads = 2;
  assert_true(mg1.total == mg.total);
  assert_memory_equal(mg1.B[0], mg.B[0], (size_t)(m1 * m1) * sizeof(double));
  assert_memory_equal(mg1.B[1], mg.B[1], (size_t)(m2 * m2) * sizeof(double));
  const double tol = 4.0 * (double)(p->st->S * m) * EPS * bmax;
  assert_close(mg.total, tref, tol);
  assert_close(tref, (double)n, 1e-12 * n); /* the cubic weights sum to 1 */
  for (int j = 0; j < 2; j++)
    for (int64_t i = 0; i < p->g.m[j] * p->g.m[j]; i++) assert_close(mg.B[j][i], ref[j][i], tol);
  sgp_ski_loglik_opts o;
  tight_opts(&o);
  sgp_ski_loglik_grad_result own, given;
  assert_int_equal(sgp_ski_loglik_grad_eig(&p->ctx, p->st, &p->k, p->noise, NULL, 8, 5, &o,
                                           NULL, &own), SGP_OK);
  o.marginals = &mg;
  assert_int_equal(sgp_ski_loglik_grad_eig(&p->ctx, p->st, &p->k, p->noise, NULL, 8, 5, &o,
                                           NULL, &given), SGP_OK);
  assert_true(given.value.loglik == own.value.loglik);
  assert_memory_equal(given.grad, own.grad, (size_t)own.ntheta * sizeof(double));
  sgp_ski_marginals_free(&mg);
  sgp_ski_marginals_free(&mg1);
  free(ref[0]); free(ref[1]);
  prob_free(p);
}

/* On data at a tensor product of coordinates B is a Kronecker product, so
 * the marginal preconditioner is M's exact inverse in 2-D too: the probes
 * converge in one step (two allowed, see check_eig_precond), logdet is the
 * dense one to rounding and so is the gradient (its control variate exact);
 * the density preconditioner takes several steps. */
static void marginal_exact_for_tensor_data(void **state)
{
  (void)state;
  prob *p = prob_make(&CFG_2D_ARD, 300, 20);
  dense_ref r;
  dense_reference(p, &r);
  sgp_ski_loglik_opts o;
  tight_opts(&o);
  sgp_ski_loglik_grad_result res[2];
  for (int pc = 0; pc < 2; pc++) {
    o.eig_precond = pc;
    assert_int_equal(sgp_ski_loglik_grad_eig(&p->ctx, p->st, &p->k, p->noise, NULL, 16, 5,
                                             &o, NULL, &res[pc]), SGP_OK);
    if (verbose())
      print_message("tensor precond %d: logdet %.12g dense %.12g se %.3g its %lld\n", pc,
                    res[pc].value.logdet, r.logdet, res[pc].value.logdet_se,
                    (long long)res[pc].value.slq_iterations);
  }
  const double nm = (double)(p->n + p->m);
  const sgp_ski_loglik_grad_result *mg = &res[SGP_SKI_EIG_PRECOND_MARGINAL];
  for (int e = 0; e < mg->ntheta; e++) { /* exact too: see check_eig_precond */
    const double qtol = quad_bound(p, mg, &r, e);
    if (verbose())
      print_message("  e %d: grad %.12g dense %.12g se %.3g (density se %.3g)\n", e, mg->grad[e],
                    r.grad[e], mg->grad_se[e], res[SGP_SKI_EIG_PRECOND_DENSITY].grad_se[e]);
    assert_true(mg->grad_se[e] <= 1e-6 * (fabs(r.grad[e]) + 1.0));
    assert_close(mg->grad[e], r.grad[e], 4.0 * mg->grad_se[e] + qtol);
  }
  assert_true(res[SGP_SKI_EIG_PRECOND_MARGINAL].value.slq_iterations <= 2);
  assert_true(res[SGP_SKI_EIG_PRECOND_DENSITY].value.slq_iterations > 4);
  assert_close(res[SGP_SKI_EIG_PRECOND_MARGINAL].value.logdet, r.logdet,
               4.0 * res[SGP_SKI_EIG_PRECOND_MARGINAL].value.logdet_se +
               16.0 * nm * EPS * (double)p->n);
  prob_free(p);
}

static void eig_errors(void **state)
{
  (void)state;
  prob *p = prob_new(&CFG_2D_ARD, 50);
  sgp_ski_loglik_opts o;
  tight_opts(&o);
  sgp_ski_loglik_grad_result res;
  assert_int_equal(sgp_ski_loglik_grad_eig(&p->ctx, p->st, &p->k, p->noise, NULL, 0, 1, &o,
                                           NULL, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "probes:");
  assert_int_equal(sgp_ski_loglik_grad_eig(&p->ctx, p->st, &p->k, 0.0, NULL, 4, 1, &o, NULL,
                                           &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "noise:");
  o.eig_precond = 7;
  assert_int_equal(sgp_ski_loglik_grad_eig(&p->ctx, p->st, &p->k, p->noise, NULL, 4, 1, &o, NULL,
                                           &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "eig_precond:");
  o.eig_precond = SGP_SKI_EIG_PRECOND_MARGINAL;
  p->k.kind = SGP_KERNEL_MATERN52; /* not separable in 2-D */
  assert_false(sgp_ski_kron_eig_applies(&p->k, &p->g));
  assert_int_equal(sgp_ski_loglik_grad_eig(&p->ctx, p->st, &p->k, p->noise, NULL, 4, 1, &o,
                                           NULL, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "kernel:");
  prob_free(p);
}

static void errors(void **state)
{
  (void)state;
  prob *p = prob_new(&CFG_1D, 50);
  double rhoz;
  double *uz = sketch(p, 1, 2, &rhoz);
  sgp_ski_loglik_opts o;
  sgp_ski_loglik_opts_default(&o);
  sgp_ski_loglik_grad_result res;
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, p->st, &p->k, p->noise, NULL, uz, rhoz, 2, &o,
                                       NULL, NULL), SGP_EINVAL);
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, NULL, &p->k, p->noise, NULL, uz, rhoz, 2, &o,
                                       NULL, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "stats:");
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, p->st, &p->k, p->noise, NULL, uz, rhoz, 0, &o,
                                       NULL, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "probes:");
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, p->st, &p->k, -1.0, NULL, uz, rhoz, 2, &o,
                                       NULL, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "noise:");
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, p->st, &p->k, p->noise, NULL, NULL, rhoz, 2,
                                       &o, NULL, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "probes:");
  p->ell[0] = -1.0;
  assert_int_equal(sgp_ski_loglik_grad(&p->ctx, p->st, &p->k, p->noise, NULL, uz, rhoz, 2, &o,
                                       NULL, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "lengthscale");
  free(uz);
  prob_free(p);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(deriv_ops_match_dense),
    cmocka_unit_test(deriv_op_errors),
    cmocka_unit_test(dense_gradient_matches_fd),
    cmocka_unit_test(gradient_within_se),
    cmocka_unit_test(seed_mean_closer),
    cmocka_unit_test(noise_trace_many_probes),
    cmocka_unit_test(scaling_identity),
    cmocka_unit_test(value_matches_loglik),
    cmocka_unit_test(mean_derivative),
    cmocka_unit_test(exact_matches_dense),
    cmocka_unit_test(exact_gradient_matches_fd),
    cmocka_unit_test(exact_mean),
    cmocka_unit_test(kron_eig_matches_dense),
    cmocka_unit_test(kron_eig_dsqrt_matches_fd),
    cmocka_unit_test(eig_matches_dense),
    cmocka_unit_test(eig_smaller_se),
    cmocka_unit_test(marginals_match_dense),
    cmocka_unit_test(marginal_exact_for_tensor_data),
    cmocka_unit_test(eig_errors),
    cmocka_unit_test(errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
