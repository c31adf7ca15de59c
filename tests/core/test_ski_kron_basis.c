/* test_ski_kron_basis.c -- the Kronecker eigenbasis of separable grid kernels:
 *  - products with a Kronecker product of rectangular factors (ski_kron_rect.c)
 *    against the dense Kronecker matrix formed entry by entry, in both
 *    directions, in 2-D and 3-D (all orders of application are tried by the
 *    cheapest-order search), with a 1 x 1 identity factor (NULL) among them.
 *    Each entry is a sum of at most 60 products of numbers below 1, so 1e-13
 *    relative to the entries' scale bounds the rounding;
 *  - the eigenvectors' signs do not flip between nearby lengthscales (the
 *    eigen paths key their probes by eigen index). */
#include "test_helpers.h"
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* the dense entry (row a, column b) of op(F_d) x ... x op(F_1) */
static double dense_entry(int d, const int64_t *rows, const int64_t *ranks, double *const *F,
                          char trans, int64_t a, int64_t b)
{
  double v = 1.0;
  for (int j = 0; j < d; j++) {
    const int64_t out = trans == 'N' ? rows[j] : ranks[j], in = trans == 'N' ? ranks[j] : rows[j];
    const int64_t ia = a % out, ib = b % in;
    a /= out;
    b /= in;
    if (F[j]) v *= trans == 'N' ? F[j][ia + ib * rows[j]] : F[j][ib + ia * rows[j]];
  }
  return v;
}

static void check_case(int d, const int64_t *rows, const int64_t *ranks, int null_dim)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_rng rng;
  sgp_rng_seed(&rng, 11);
  double *F[SGP_SKI_MAX_D] = {NULL};
  int64_t M = 1, R = 1;
  for (int j = 0; j < d; j++) {
    M *= rows[j];
    R *= ranks[j];
    if (j == null_dim) continue;
    F[j] = malloc((size_t)(rows[j] * ranks[j]) * sizeof(double));
    for (int64_t i = 0; i < rows[j] * ranks[j]; i++) F[j][i] = sgp_rng_uniform(&rng) - 0.5;
  }
  const int64_t cols = 3;
  for (int t = 0; t < 2; t++) {
    const char trans = t ? 'T' : 'N';
    const int64_t in = t ? M : R, out = t ? R : M;
    double *X = malloc((size_t)(in * cols) * sizeof(double));
    double *Y = malloc((size_t)(M * cols) * sizeof(double)), *W = malloc((size_t)(M * cols) * sizeof(double));
    for (int64_t i = 0; i < in * cols; i++) X[i] = sgp_rng_uniform(&rng) - 0.5;
    if (sgp_ski_kron_rect_apply(&ctx, d, rows, ranks, (const double *const *)F, trans, cols, X, Y, W))
      fail_msg("%s", ctx.errmsg);
    double err = 0.0;
    for (int64_t c = 0; c < cols; c++)
      for (int64_t a = 0; a < out; a++) {
        double ref = 0.0;
        for (int64_t b = 0; b < in; b++)
          ref += dense_entry(d, rows, ranks, F, trans, a, b) * X[b + c * in];
        err = fmax(err, fabs(Y[a + c * out] - ref));
      }
    if (!(err <= 1e-13)) fail_msg("d = %d trans %c: off by %.3g", d, trans, err);
    free(X); free(Y); free(W);
  }
  for (int j = 0; j < d; j++) free(F[j]);
}

static void rect_kron_equals_dense(void **state)
{
  (void)state;
  const int64_t r2[2] = {7, 5}, k2[2] = {3, 4};
  check_case(2, r2, k2, -1);
  const int64_t r3[3] = {6, 1, 5}, k3[3] = {2, 1, 5};
  check_case(3, r3, k3, 1);
  const int64_t r3b[3] = {4, 6, 3}, k3b[3] = {4, 2, 1};
  check_case(3, r3b, k3b, -1);
}

/* Between lengthscales 1e-4 apart (relative) every well separated eigenvector
 * (eigenvalue above 1e-6 of the largest: the rbf's gaps there are far larger
 * than the O(1e-4) change of the matrix) moves by O(1e-4), so q(l)'q(l') is
 * near +1; a flipped sign makes it near -1. */
static void eigenvector_signs_are_continuous(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ski_grid g;
  memset(&g, 0, sizeof g);
  g.d = 1; g.m[0] = 200; g.lo[0] = 0.0; g.h[0] = 1.0;
  int checked = 0;
  for (double ell = 2.0; ell < 40.0; ell *= 1.13) {
    double ls[2] = {ell, ell * (1.0 + 1e-4)};
    sgp_ski_kron_eig ke[2];
    for (int t = 0; t < 2; t++) {
      sgp_kernel k;
      memset(&k, 0, sizeof k);
      k.kind = SGP_KERNEL_RBF;
      k.lengthscale = &ls[t];
      k.n_lengthscale = 1;
      k.outputscale = 1.0;
      if (sgp_ski_kron_eig_make(&ctx, &k, &g, &ke[t])) fail_msg("%s", ctx.errmsg);
    }
    const int64_t m = g.m[0];
    for (int64_t b = 0; b < m; b++) {
      if (!(ke[0].mu[0][b] > 1e-6 * ke[0].mu[0][m - 1])) continue;
      double dot = 0.0;
      for (int64_t i = 0; i < m; i++) dot += ke[0].Q[0][i + b * m] * ke[1].Q[0][i + b * m];
      if (!(dot > 0.5)) fail_msg("eigenvector %lld at lengthscale %g: q'q' = %.3g", (long long)b, ell, dot);
      checked++;
    }
    sgp_ski_kron_eig_free(&ke[0]);
    sgp_ski_kron_eig_free(&ke[1]);
  }
  assert_true(checked > 100);
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(rect_kron_equals_dense),
                                     cmocka_unit_test(eigenvector_signs_are_continuous)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
