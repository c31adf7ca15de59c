/* test_ski_fit.c -- the public ski_gsgp entry points (sgp.h): plain-data
 * statistics (export/import, validation), the one-shot fit and prediction.
 * Oracle: the dense SKI GP A = W K_G W' + noise I (dense W from the core's
 * taps, dense K_G from the naive kernel), 1-D, n = 80, grid 20, Matern 5/2:
 *  - gsgp and ski fits at tol 1e-12: mean at test points = w*' K_G W' A^{-1} y
 *    to 1e-8 relative to max |mean|;
 *  - exact and LOVE (rank = m) variances = dense w*'K_G w* - k~' A^{-1} k~ to 1e-8
 *    relative to the prior;
 *  - export -> import -> export gives the same arrays; chunks computed apart and
 *    merged equal one pass to 1e-13;
 *  - sgp_ski_fit_xy (one shot from the data) gives bitwise the fit from the
 *    statistics (same loglik with the same probe seed);
 *  - import rejects inconsistent shapes, NaN, asymmetric or off-grid stencils,
 *    naming `stats`; predict names `xtest`; loglik without sketches names `stats`. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 80, M = 20, NT = 15 };

typedef struct {
  sgp_ctx ctx;
  sgp_ski_opts o;
  sgp_ski_grid g;
  double ell, X[N], y[N], Xt[NT];
  double mean_ref[NT], var_ref[NT];
  sgp_ski_stats *st;
  sgp_ski_stats_data sd;
} problem;

static problem P;

static void dense_oracle(problem *p)
{
  double G[M], KG[M * M], *W, *A = th_zeros(N * N), *KW = th_zeros(M * N);
  double *Ws, *AiY = th_zeros(N), *KWs = th_zeros(M * NT), *C = th_zeros(N * NT);
  double *AiC = th_zeros(N * NT);
  for (int g = 0; g < M; g++) G[g] = p->g.lo[0] + g * p->g.h[0];
  th_kernel_matrix(SGP_KERNEL_MATERN52, 1.3, &p->ell, 1, G, M, G, M, 1, KG);
  W = th_ski_dense_W(&p->ctx, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, p->X, N);
  Ws = th_ski_dense_W(&p->ctx, &p->g, SGP_SKI_CUBIC, SGP_SKI_BOUNDS_ERROR, p->Xt, NT);
  /* KW = K_G W' (M-by-N), A = W KW + noise I */
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = 0;
      for (int l = 0; l < M; l++) s += KG[i + l * M] * W[j + l * N];
      KW[i + j * M] = s;
    }
  th_matmul(N, N, M, W, KW, A);
  for (int i = 0; i < N; i++) A[i + i * N] += p->o.noise;
  assert_int_equal(th_chol_solve(N, A, 1, p->y, AiY), 0);
  /* C = W K_G Ws' (N-by-NT): cross covariances */
  for (int i = 0; i < M; i++)
    for (int t = 0; t < NT; t++) {
      double s = 0;
      for (int l = 0; l < M; l++) s += KG[i + l * M] * Ws[t + l * NT];
      KWs[i + t * M] = s;
    }
  th_matmul(N, NT, M, W, KWs, C);
  assert_int_equal(th_chol_solve(N, A, NT, C, AiC), 0);
  for (int t = 0; t < NT; t++) {
    double mu = 0, prior = 0, red = 0;
    for (int i = 0; i < N; i++) {
      mu += C[i + t * N] * AiY[i];
      red += C[i + t * N] * AiC[i + t * N];
    }
    for (int l = 0; l < M; l++) prior += Ws[t + l * NT] * KWs[l + t * M];
    p->mean_ref[t] = mu;
    p->var_ref[t] = prior - red;
  }
  free(W); free(Ws); free(A); free(KW); free(AiY); free(KWs); free(C); free(AiC);
}

static int setup(void **state)
{
  (void)state;
  problem *p = &P;
  sgp_ctx_init(&p->ctx);
  sgp_ski_opts_default(&p->o);
  p->ell = 0.4;
  p->o.kernel.kind = SGP_KERNEL_MATERN52;
  p->o.kernel.lengthscale = &p->ell;
  p->o.kernel.outputscale = 1.3;
  p->o.noise = 0.2;
  p->o.mean = 0.0; /* the dense oracle is a zero-mean GP */
  p->o.tol = 1e-12;
  for (int i = 0; i < N; i++) {
    p->X[i] = 3.0 * sgp_rng_uniform(&p->ctx.rng);
    p->y[i] = sin(2 * p->X[i]) + 0.3 * sgp_rng_normal(&p->ctx.rng);
  }
  for (int t = 0; t < NT; t++) p->Xt[t] = 0.1 + 2.8 * t / (NT - 1.0);
  double range[2] = {0, 3};
  p->o.grid_size[0] = M;
  assert_int_equal(sgp_ski_grid_from_range(&p->ctx, sgp_cmat_of(range, 1, 2), N, &p->o, &p->g),
                   SGP_OK);
  assert_int_equal(p->g.m[0], M);
  assert_int_equal(sgp_ski_stats_compute(&p->ctx, &p->g, &p->o, sgp_cmat_of(p->X, N, 1),
                                         sgp_cmat_of(p->y, N, 1), 0, &p->st, NULL, NULL),
                   SGP_OK);
  assert_int_equal(sgp_ski_stats_export(&p->ctx, p->st, &p->sd), SGP_OK);
  dense_oracle(p);
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  sgp_ski_stats_free(P.st);
  return 0;
}

static double rel_err(int n, const double *a, const double *b)
{
  return th_max_abs_diff(n, a, b) / th_max_abs(n, b);
}

static void fit_and_predict(sgp_ski_method method, sgp_ski_variance variance, double *mean,
                            double *var, sgp_ski_result *res)
{
  problem *p = &P;
  sgp_ski_opts o = p->o;
  o.method = method;
  o.variance = variance;
  o.rank = M;
  static double w[M], hist[1001], Ft[M * M], c0[M];
  memset(res, 0, sizeof *res);
  res->weights = w;
  res->history = hist;
  res->love_Ft = Ft;
  res->love_c0 = c0;
  assert_int_equal(sgp_ski_fit(&p->ctx, &p->sd, &o, sgp_cmat_of(p->X, N, 1),
                               sgp_cmat_of(p->y, N, 1), res), SGP_OK);
  assert_true(res->converged);
  assert_true(hist[0] == 1.0);
  assert_int_equal(sgp_ski_predict(&p->ctx, &p->sd, &o, w, Ft, c0, res->love_rank,
                                   sgp_cmat_of(p->Xt, NT, 1), mean, var, NULL), SGP_OK);
}

/* A damaged fit (non-finite weights, LOVE factor or prior table) is refused
 * by predict naming the array, never answered (NaN in Ft gave variance 0). */
static void predict_rejects_damaged_fits(void **state)
{
  (void)state;
  double mean[NT], var[NT];
  sgp_ski_result res;
  fit_and_predict(SGP_SKI_METHOD_GSGP, SGP_SKI_VARIANCE_LANCZOS, mean, var, &res);
  sgp_ski_opts o = P.o;
  o.variance = SGP_SKI_VARIANCE_LANCZOS;
  const sgp_cmat Xt = sgp_cmat_of(P.Xt, NT, 1);
  const int64_t k = res.love_rank;
  double *w = th_zeros(M), *Ft = th_zeros(k * M), *c0 = th_zeros(M);
  for (int c = 0; c < 3; c++) {
    memcpy(w, res.weights, M * sizeof(double));
    memcpy(Ft, res.love_Ft, (size_t)(k * M) * sizeof(double));
    memcpy(c0, res.love_c0, M * sizeof(double));
    double *hit = c == 0 ? w + 3 : (c == 1 ? Ft + k * M - 1 : c0 + 5);
    *hit = NAN;
    assert_int_equal(sgp_ski_predict(&P.ctx, &P.sd, &o, w, Ft, c0, k, Xt, mean, var, NULL),
                     SGP_EINVAL);
    assert_contains(P.ctx.errmsg, c == 0 ? "weights:" : "love:");
    assert_contains(P.ctx.errmsg, "damaged");
  }
  free(w); free(Ft); free(c0);
}

/* Under bounds_policy DROP a test point outside the grid has no taps: NaN mean
 * and variance (the fronts no longer test "outside" themselves). */
static void predict_drop_gives_nan_outside(void **state)
{
  (void)state;
  double mean[NT], var[NT];
  sgp_ski_result res;
  fit_and_predict(SGP_SKI_METHOD_GSGP, SGP_SKI_VARIANCE_LANCZOS, mean, var, &res);
  sgp_ski_opts o = P.o;
  o.variance = SGP_SKI_VARIANCE_LANCZOS;
  o.bounds_policy = SGP_SKI_BOUNDS_DROP;
  const double far = P.g.lo[0] + (double)(M + 5) * P.g.h[0];
  const double xs[3] = {P.g.lo[0] - 1.0, P.Xt[0], far};
  double m3[3], v3[3];
  assert_int_equal(sgp_ski_predict(&P.ctx, &P.sd, &o, res.weights, res.love_Ft, res.love_c0,
                                   res.love_rank, sgp_cmat_of(xs, 3, 1), m3, v3, NULL), SGP_OK);
  assert_true(isnan(m3[0]) && isnan(v3[0]) && isnan(m3[2]) && isnan(v3[2]));
  assert_true(fabs(m3[1] - mean[0]) <= 1e-14 * (1.0 + fabs(mean[0])));
  assert_true(fabs(v3[1] - var[0]) <= 1e-14 * (1.0 + fabs(var[0])));
}

static void fit_matches_dense(void **state)
{
  (void)state;
  double mean[NT], var[NT];
  sgp_ski_result res;
  fit_and_predict(SGP_SKI_METHOD_GSGP, SGP_SKI_VARIANCE_EXACT, mean, var, &res);
  const double e_mean = rel_err(NT, mean, P.mean_ref), e_var = rel_err(NT, var, P.var_ref);
  fit_and_predict(SGP_SKI_METHOD_SKI, SGP_SKI_VARIANCE_LANCZOS, mean, var, &res);
  assert_true(res.love_rank > 0 && res.love_rank <= M); /* < M: invariant subspace */
  const double e_mean_ski = rel_err(NT, mean, P.mean_ref), e_love = rel_err(NT, var, P.var_ref);
  printf("# gsgp mean %.2e, exact var %.2e, ski mean %.2e, LOVE var %.2e\n", e_mean, e_var,
         e_mean_ski, e_love);
  assert_true(e_mean < 1e-8);
  assert_true(e_var < 1e-8);
  assert_true(e_mean_ski < 1e-8);
  assert_true(e_love < 1e-8);
  for (int t = 0; t < NT; t++) assert_true(var[t] >= 0);
}

static void export_import_merge(void **state)
{
  (void)state;
  problem *p = &P;
  sgp_ski_stats *a = NULL, *b = NULL, *c = NULL;
  sgp_ski_stats_data da, dc;
  assert_int_equal(sgp_ski_stats_compute(&p->ctx, &p->g, &p->o, sgp_cmat_of(p->X, 30, 1),
                                         sgp_cmat_of(p->y, 30, 1), 0, &a, NULL, NULL),
                   SGP_OK);
  assert_int_equal(sgp_ski_stats_compute(&p->ctx, &p->g, &p->o, sgp_cmat_of(p->X + 30, N - 30, 1),
                                         sgp_cmat_of(p->y + 30, N - 30, 1), 30, &b, NULL,
                                         NULL), SGP_OK);
  assert_int_equal(sgp_ski_stats_export(&p->ctx, a, &da), SGP_OK);
  assert_int_equal(sgp_ski_stats_import(&p->ctx, &da, &c), SGP_OK);
  assert_int_equal(sgp_ski_stats_merge(&p->ctx, c, b), SGP_OK);
  assert_int_equal(sgp_ski_stats_export(&p->ctx, c, &dc), SGP_OK);
  assert_int_equal(dc.n, N);
  assert_int_equal(dc.m, M);
  assert_int_equal(dc.S, 7);
  assert_true(fabs(dc.yy - p->sd.yy) <= 1e-13 * p->sd.yy);
  assert_true(th_max_abs_diff(M * 7, dc.D, p->sd.D) <= 1e-13 * th_max_abs(M * 7, p->sd.D));
  assert_true(th_max_abs_diff(M, dc.uy, p->sd.uy) <= 1e-13 * th_max_abs(M, p->sd.uy));
  sgp_ski_stats_free(a);
  sgp_ski_stats_free(b);
  sgp_ski_stats_free(c);
}

static void import_rejects_bad_data(void **state)
{
  (void)state;
  problem *p = &P;
  sgp_ski_stats *s = NULL;
  double D[M * 7], uy[M];
  sgp_ski_stats_data bad = p->sd;
  bad.m = M + 1;
  assert_int_equal(sgp_ski_stats_import(&p->ctx, &bad, &s), SGP_EDIM);
  assert_contains(p->ctx.errmsg, "stats:");
  bad = p->sd;
  memcpy(uy, p->sd.uy, sizeof uy);
  uy[3] = NAN;
  bad.uy = uy;
  assert_int_equal(sgp_ski_stats_import(&p->ctx, &bad, &s), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "stats: 'Wty' is not finite");
  bad = p->sd;
  memcpy(D, p->sd.D, sizeof D);
  D[0] = 1.0; /* offset -3 at grid point 0 leaves the grid */
  bad.D = D;
  assert_int_equal(sgp_ski_stats_import(&p->ctx, &bad, &s), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "leaves the grid");
  memcpy(D, p->sd.D, sizeof D);
  D[5 + 4 * M] += 1.0; /* offset +1 at point 5 without its mirror */
  assert_int_equal(sgp_ski_stats_import(&p->ctx, &bad, &s), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "symmetric");
  bad = p->sd;
  bad.grid.m[0] = 3;
  assert_int_equal(sgp_ski_stats_import(&p->ctx, &bad, &s), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "stats: grid_size");
  assert_null(s);
  /* predict names xtest, loglik without sketches names stats */
  double w[M] = {0}, mean[1], xo = 10.0;
  assert_int_equal(sgp_ski_predict(&p->ctx, &p->sd, &p->o, w, NULL, NULL, 0,
                                   sgp_cmat_of(&xo, 1, 1), mean, NULL, NULL), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "xtest");
  sgp_ski_opts o = p->o;
  o.loglik = 1;
  o.loglik_method = SGP_SKI_LOGLIK_SLQ;
  sgp_ski_result res = {0};
  res.weights = w;
  sgp_cmat none = {0};
  assert_int_equal(sgp_ski_fit(&p->ctx, &p->sd, &o, none, none, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "stats: has no probe sketches");
  o.loglik = 0;
  o.method = SGP_SKI_METHOD_SKI;
  assert_int_equal(sgp_ski_fit(&p->ctx, &p->sd, &o, none, none, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "x: method \"ski\" needs");
  o = p->o;
  o.noise = -1;
  assert_int_equal(sgp_ski_fit(&p->ctx, &p->sd, &o, none, none, &res), SGP_EINVAL);
  assert_contains(p->ctx.errmsg, "noise");
}

static void loglik_from_sketches(void **state)
{
  (void)state;
  problem *p = &P;
  enum { PR = 8 };
  sgp_ski_stats *s = NULL;
  sgp_ski_stats_data d;
  double uz[M * PR], rhoz = 0, w[M];
  sgp_ski_opts so = p->o;
  so.probes = PR;
  so.seed = 7;
  assert_int_equal(sgp_ski_stats_compute(&p->ctx, &p->g, &so, sgp_cmat_of(p->X, N, 1),
                                         sgp_cmat_of(p->y, N, 1), 0, &s, uz, &rhoz),
                   SGP_OK);
  assert_true(rhoz == N);
  sgp_ski_stats_export(&p->ctx, s, &d);
  d.probes = PR;
  d.probe_seed = 7;
  d.uz = uz;
  d.rhoz = rhoz;
  sgp_ski_opts o = p->o;
  o.loglik = 1;
  o.loglik_method = SGP_SKI_LOGLIK_SLQ;
  o.tol = 1e-10;
  sgp_ski_result res = {0};
  res.weights = w;
  assert_int_equal(sgp_ski_fit(&p->ctx, &d, &o, (sgp_cmat){0}, (sgp_cmat){0}, &res), SGP_OK);
  assert_true(isfinite(res.loglik) && isfinite(res.logdet) && res.datafit > 0);
  assert_true(res.probes_used > 0);
  /* one shot from the data: the same statistics and sketches, the same fit */
  double w2[M];
  sgp_ski_result r2 = {0};
  r2.weights = w2;
  o.probes = PR;
  o.seed = 7;
  assert_int_equal(sgp_ski_fit_xy(&p->ctx, &p->g, &o, sgp_cmat_of(p->X, N, 1),
                                  sgp_cmat_of(p->y, N, 1), &r2), SGP_OK);
  assert_true(r2.loglik == res.loglik);
  assert_true(th_max_abs_diff(M, w2, w) == 0.0);
  sgp_ski_stats_free(s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(fit_matches_dense),
    cmocka_unit_test(predict_rejects_damaged_fits),
    cmocka_unit_test(predict_drop_gives_nan_outside),
    cmocka_unit_test(export_import_merge),
    cmocka_unit_test(import_rejects_bad_data),
    cmocka_unit_test(loglik_from_sketches),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
