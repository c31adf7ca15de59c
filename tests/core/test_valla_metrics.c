/* test_valla_metrics.c -- metrics of valla_metrics: CRPS vs numerical
 * integration, CQM and ECE near 0 for calibrated samples, AUC vs brute-force
 * Mann-Whitney with ties, hand-computed NLL / Brier / accuracy / ECE. */
#include "valla_fixtures.h"

static double norm_cdf(double z) { return 0.5 * erfc(-z / sqrt(2.0)); }

/* CRPS = int (F(t) - 1[t >= y])^2 dt by composite Simpson, split at y. */
static double crps_numeric(double y, double mu, double sd)
{
  const double lo = mu - 14 * sd - fabs(y - mu), hi = mu + 14 * sd + fabs(y - mu);
  double total = 0;
  for (int part = 0; part < 2; part++) {
    const double a = part ? y : lo, b = part ? hi : y;
    const int m = 20000;
    const double h = (b - a) / m;
    double s = 0;
    for (int k = 0; k <= m; k++) {
      const double t = a + k * h, F = norm_cdf((t - mu) / sd), d = part ? F - 1 : F;
      s += (k == 0 || k == m ? 1 : k % 2 ? 4 : 2) * d * d;
    }
    total += s * h / 3;
  }
  return total;
}

static void regression_metrics(void **state)
{
  (void)state;
  const double y[3] = {0.3, -1.2, 4.0}, mu[3] = {0.0, 0.5, 1.0}, var[3] = {1.0, 0.25, 4.0};
  for (int i = 0; i < 3; i++) {
    const double c = sgp_valla_crps(1, y + i, mu + i, var + i);
    assert_close(c, crps_numeric(y[i], mu[i], sqrt(var[i])), 1e-8);
  }
  /* NLL by hand: 0.5 log(2 pi var) + r^2 / (2 var) */
  double ref = 0;
  for (int i = 0; i < 3; i++) ref += (0.5 * log(2 * 3.141592653589793 * var[i]) + pow(y[i] - mu[i], 2) / (2 * var[i])) / 3;
  assert_close(sgp_valla_gauss_nll(3, y, mu, var), ref, 1e-14);
  /* calibrated samples: CQM ~ 0; over-dispersed: clearly positive; paper_compat adds 0.05 */
  const int64_t n = 100000;
  double *ys = th_zeros(n), *m0 = th_zeros(n), *v1 = th_zeros(n), *v9 = th_zeros(n);
  sgp_rng rng;
  sgp_rng_seed(&rng, 41);
  for (int64_t i = 0; i < n; i++) {
    m0[i] = sgp_rng_normal(&rng);
    v1[i] = 0.5 + sgp_rng_uniform(&rng);
    ys[i] = m0[i] + sqrt(v1[i]) * sgp_rng_normal(&rng);
    v9[i] = 9 * v1[i];
  }
  const double q = sgp_valla_cqm(n, ys, m0, v1, 0);
  assert_le(q, 0.02);
  assert_true(sgp_valla_cqm(n, ys, m0, v9, 0) > 0.2);
  assert_close(sgp_valla_cqm(n, ys, m0, v1, 1), q + 0.05, 1e-12);
  free(ys); free(m0); free(v1); free(v9);
}

static void classification_metrics(void **state)
{
  (void)state;
  /* 3 points, C = 2 (column-major n x C) */
  const double p[6] = {0.9, 0.4, 0.6, 0.1, 0.6, 0.4}, y[3] = {0, 1, 1};
  assert_close(sgp_valla_accuracy(3, 2, p, y), 2.0 / 3.0, 1e-15);
  assert_close(sgp_valla_class_nll(3, 2, p, y), -(log(0.9) + log(0.6) + log(0.4)) / 3, 1e-15);
  assert_close(sgp_valla_brier(3, 2, p, y), (2 * 0.01 + 2 * 0.16 + 2 * 0.36) / 3, 1e-15);
  /* ECE by hand, 15 bins: conf 0.9 (bin 13, correct), 0.6 and 0.6 (bin 8, one correct) */
  assert_close(sgp_valla_ece(3, 2, p, y, 15), (1.0 / 3) * 0.1 + (2.0 / 3) * fabs(0.5 - 0.6), 1e-15);
  /* calibrated model: labels drawn from the probabilities */
  const int64_t n = 100000, C = 4;
  double *P = th_zeros(n * C), *Y = th_zeros(n);
  sgp_rng rng;
  sgp_rng_seed(&rng, 42);
  for (int64_t i = 0; i < n; i++) {
    double z = 0, u = sgp_rng_uniform(&rng), cum = 0;
    for (int64_t c = 0; c < C; c++) { P[i + n * c] = exp(2 * sgp_rng_normal(&rng)); z += P[i + n * c]; }
    for (int64_t c = 0; c < C; c++) P[i + n * c] /= z;
    Y[i] = C - 1;
    for (int64_t c = 0; c < C; c++) { cum += P[i + n * c]; if (u <= cum) { Y[i] = c; break; } }
  }
  assert_le(sgp_valla_ece(n, C, P, Y, 15), 0.02);
  for (int64_t i = 0; i < n; i++) Y[i] = ((int64_t)Y[i] + 1) % C; /* miscalibrated */
  assert_true(sgp_valla_ece(n, C, P, Y, 15) > 0.2);
  free(P); free(Y);
}

static void auc_is_mann_whitney(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 43);
  const int64_t n = 300;
  double s[300], l[300];
  for (int64_t i = 0; i < n; i++) {
    l[i] = sgp_rng_uniform(&rng) < 0.4;
    s[i] = floor(4 * sgp_rng_uniform(&rng) + l[i]); /* many ties */
  }
  double u = 0, n1 = 0, n0 = 0;
  for (int64_t i = 0; i < n; i++) {
    if (l[i] > 0.5) n1++; else n0++;
    for (int64_t j = 0; j < n; j++)
      if (l[i] > 0.5 && l[j] < 0.5) u += s[i] > s[j] ? 1.0 : s[i] == s[j] ? 0.5 : 0.0;
  }
  assert_close(sgp_valla_auc(n, s, l), u / (n1 * n0), 1e-14);
}

/* The checked entry point: bad input is an error naming the argument (never a
 * NaN result); good input gives exactly the unchecked functions' values. */
static void checked_metrics(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double y[4] = {0.1, -0.3, 1.2, 0.4}, mu[4] = {0, 0, 1, 0.5}, var[4] = {0.5, 1, 2, 0.3},
         lab[4] = {0, 1, 1, 0}, P[8] = {0.8, 0.3, 0.4, 0.6, 0.2, 0.7, 0.6, 0.4}, out[5];
  int cnt;
  const sgp_cmat none = sgp_cmat_of(NULL, 0, 0), Y = sgp_cmat_of(y, 4, 1), MU = sgp_cmat_of(mu, 4, 1),
                 V = sgp_cmat_of(var, 4, 1), L = sgp_cmat_of(lab, 4, 1), PR = sgp_cmat_of(P, 4, 2);
  assert_int_equal(sgp_valla_metrics(&ctx, Y, MU, V, none, 15, out, &cnt), SGP_OK);
  assert_int_equal(cnt, 3);
  assert_true(out[0] == sgp_valla_gauss_nll(4, y, mu, var) && out[1] == sgp_valla_crps(4, y, mu, var));
  assert_int_equal(sgp_valla_metrics(&ctx, L, none, none, PR, 15, out, &cnt), SGP_OK);
  assert_int_equal(cnt, 5);
  assert_true(out[4] == sgp_valla_auc(4, P + 4, lab) && out[3] == sgp_valla_brier(4, 2, P, lab));
  const struct { sgp_cmat y, mu, var, prob; int64_t bins; const char *msg; } cases[] = {
    {sgp_cmat_of(y, 0, 1), MU, V, none, 15, "y: is empty"},
    {Y, sgp_cmat_of(mu, 3, 1), V, none, 15, "pred: must have one predictive mean per entry of y"},
    {Y, MU, sgp_cmat_of(var, 3, 1), none, 15, "var: must have one predictive variance"},
    {Y, MU, none, none, 15, "var: is empty"},
    {Y, MU, V, none, 0, "bins: must be at least 1"},
    {L, none, none, sgp_cmat_of(P, 3, 2), 15, "pred: must have one row of probabilities"},
    {L, none, none, sgp_cmat_of(P, 4, 1), 15, "pred: needs at least 2 class columns"},
    {L, none, none, sgp_cmat_of(P, 2, 4), 15, "pred: must have one row"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    assert_int_not_equal(sgp_valla_metrics(&ctx, cases[k].y, cases[k].mu, cases[k].var, cases[k].prob,
                                           cases[k].bins, out, &cnt), SGP_OK);
    assert_contains(ctx.errmsg, cases[k].msg);
    assert_int_equal(cnt, 0);
  }
  /* NaN / NA (NA is a NaN payload) in each input, and values out of range */
  for (int k = 0; k < 7; k++) {
    double yy[4], mm[4], vv[4], ll[4], pp[8];
    memcpy(yy, y, sizeof yy); memcpy(mm, mu, sizeof mm); memcpy(vv, var, sizeof vv);
    memcpy(ll, lab, sizeof ll); memcpy(pp, P, sizeof pp);
    const char *msg[7] = {"y: contains NaN", "pred: contains NaN", "var: contains NaN",
                          "var: must be positive (row 2)", "pred: contains NaN",
                          "pred: row 3 sums to", "y: the label at row 4 is not one of the 2 classes"};
    switch (k) {
    case 0: yy[2] = NAN; break;
    case 1: mm[0] = NAN; break;
    case 2: vv[3] = INFINITY; break;
    case 3: vv[1] = 0; break;
    case 4: pp[5] = NAN; break;
    case 5: pp[2] = 0.5; break;
    default: ll[3] = 2; break;
    }
    const int cls = k >= 4;
    assert_int_not_equal(sgp_valla_metrics(&ctx, sgp_cmat_of(cls ? ll : yy, 4, 1), cls ? none : sgp_cmat_of(mm, 4, 1),
                                           cls ? none : sgp_cmat_of(vv, 4, 1), cls ? sgp_cmat_of(pp, 4, 2) : none,
                                           15, out, &cnt), SGP_OK);
    assert_contains(ctx.errmsg, msg[k]);
  }
  /* values whose squares overflow: refused naming the input (fuzz: y = 1e300 gave Inf) */
  double yb[4] = {0.1, -0.3, 1e300, 0.4}, mb[4] = {0, -1e101, 1, 0.5}, vt[4] = {1e-300, 1, 2, 0.3};
  assert_int_not_equal(sgp_valla_metrics(&ctx, sgp_cmat_of(yb, 4, 1), MU, V, none, 15, out, &cnt), SGP_OK);
  assert_contains(ctx.errmsg, "y: 1e+300 at row 3, column 1 is too large (at most 1e+100");
  assert_int_not_equal(sgp_valla_metrics(&ctx, Y, sgp_cmat_of(mb, 4, 1), V, none, 15, out, &cnt), SGP_OK);
  assert_contains(ctx.errmsg, "pred: -1e+101 at row 2, column 1 is too large");
  yb[2] = 1e100; yb[0] = 1e100;
  assert_int_not_equal(sgp_valla_metrics(&ctx, sgp_cmat_of(yb, 4, 1), MU, sgp_cmat_of(vt, 4, 1), none,
                                         15, out, &cnt), SGP_OK);
  assert_contains(ctx.errmsg, "var: the metrics overflow");
  assert_int_equal(cnt, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(regression_metrics),
    cmocka_unit_test(classification_metrics),
    cmocka_unit_test(auc_is_mann_whitney),
    cmocka_unit_test(checked_metrics),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
