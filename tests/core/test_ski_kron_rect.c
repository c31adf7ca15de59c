/* test_ski_kron_rect.c -- products with a Kronecker product of rectangular
 * factors (ski_kron_rect.c) against the dense Kronecker matrix formed entry by
 * entry, in both directions, in 2-D and 3-D (all orders of application are
 * tried by the cheapest-order search), with a 1 x 1 identity factor (NULL)
 * among them. Each entry is a sum of at most 60 products of numbers below 1,
 * so 1e-13 relative to the entries' scale bounds the rounding. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>

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

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(rect_kron_equals_dense)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
