/* test_kernels.c -- sgp_kernel_matrix and kernel argument checks.
 * Oracle: th_kernel_matrix, a naive dense kernel (plain loops, libm exp/sqrt,
 * r = ||(x - x') / lengthscale||) written from the formulas in sgp.h. */
#include "test_helpers.h"
#include "kernels/kernels.h" /* sgp_kernel_value_r2 */

#include <stdlib.h>

static const sgp_kernel_kind all_kinds[] = {SGP_KERNEL_RBF, SGP_KERNEL_MATERN12,
                                            SGP_KERNEL_MATERN32, SGP_KERNEL_MATERN52};
static const int64_t all_dims[] = {1, 3, 7, 16}; /* 7 and 16 take the dgemm path (d > 4) */

/* Compares sgp_kernel_matrix with the oracle on random inputs. X1 gets
 * duplicate rows (row 1 = row 0) and rows copied from X2 (coincident points). */
static void compare_with_oracle(sgp_kernel_kind kind, int64_t d, int ard, int64_t n1,
                                int64_t n2, uint64_t seed)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, seed);
  double *X1 = th_zeros(n1 * d), *X2 = th_zeros(n2 * d), *K = th_zeros(n1 * n2),
         *Kref = th_zeros(n1 * n2), ell[16];
  th_randn(&ctx.rng, n1 * d, X1, 1.0, 0.0);
  th_randn(&ctx.rng, n2 * d, X2, 1.0, 0.5);
  for (int64_t l = 0; l < d; l++) {
    X1[1 + l * n1] = X1[0 + l * n1];
    X1[2 + l * n1] = X2[0 + l * n2];
    X1[n1 - 1 + l * n1] = X2[n2 - 1 + l * n2];
  }
  const int64_t nell = ard ? d : 1;
  for (int64_t l = 0; l < nell; l++) ell[l] = 0.5 + 1.5 * sgp_rng_uniform(&ctx.rng);
  const sgp_kernel k = {kind, ell, nell, 1.7, 1.0};
  assert_int_equal(sgp_kernel_matrix(&ctx, &k, sgp_cmat_of(X1, n1, d), sgp_cmat_of(X2, n2, d),
                                     sgp_mat_of(K, n1, n2)), SGP_OK);
  th_kernel_matrix(kind, k.outputscale, ell, nell, X1, n1, X2, n2, d, Kref);
  const double err = th_max_abs_diff(n1 * n2, K, Kref);
  if (!(err <= 1e-12 * k.outputscale))
    fail_msg("%s d=%lld ard=%d n=%lldx%lld: max abs error %.3g", sgp_kernel_name(kind),
             (long long)d, ard, (long long)n1, (long long)n2, err);
  /* coincident points give the outputscale; duplicate rows give equal rows */
  for (int64_t j = 0; j < n2; j++) assert_close(K[1 + j * n1], K[0 + j * n1], 1e-12 * k.outputscale);
  assert_close(K[2 + 0 * n1], k.outputscale, 1e-12 * k.outputscale);
  assert_close(K[(n1 - 1) + (n2 - 1) * n1], k.outputscale, 1e-12 * k.outputscale);
  free(X1); free(X2); free(K); free(Kref);
}

static void kernel_matrix_matches_naive_oracle_scalar_lengthscale(void **state)
{
  (void)state;
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 4; i++) compare_with_oracle(all_kinds[c], all_dims[i], 0, 37, 29, 11 + i);
}

static void kernel_matrix_matches_naive_oracle_ard_lengthscale(void **state)
{
  (void)state;
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 4; i++) compare_with_oracle(all_kinds[c], all_dims[i], 1, 41, 23, 21 + i);
}

static void kernel_matrix_spans_several_tiles(void **state)
{
  (void)state; /* 600 x 530 crosses the 512 tile boundary in both directions */
  compare_with_oracle(SGP_KERNEL_MATERN32, 3, 1, 600, 530, 5);
  compare_with_oracle(SGP_KERNEL_RBF, 7, 0, 530, 600, 6);
}

/* Symmetric K(X, X) of data far from the origin (offset 1e3, ell = 1): the
 * diagonal is exactly the outputscale and every entry matches the oracle. */
static void kernel_matrix_far_from_origin_keeps_diagonal(void **state)
{
  (void)state;
  const int64_t n = 50;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  for (int c = 0; c < 4; c++)
    for (int i = 0; i < 4; i++) {
      const int64_t d = all_dims[i];
      double *X = th_zeros(n * d), *K = th_zeros(n * n), *Kref = th_zeros(n * n), ell = 1.0;
      th_randn(&ctx.rng, n * d, X, 1.0, 1e3);
      const sgp_kernel k = {all_kinds[c], &ell, 1, 2.5, 1.0};
      assert_int_equal(sgp_kernel_matrix(&ctx, &k, sgp_cmat_of(X, n, d), sgp_cmat_of(X, n, d),
                                         sgp_mat_of(K, n, n)), SGP_OK);
      for (int64_t j = 0; j < n; j++) assert_close(K[j + j * n], 2.5, 1e-12 * 2.5);
      th_kernel_matrix(all_kinds[c], 2.5, &ell, 1, X, n, X, n, d, Kref);
      assert_le(th_max_abs_diff(n * n, K, Kref), 1e-12 * 2.5);
      free(X); free(K); free(Kref);
    }
}

/* Two clusters at +-50 lengthscales from the centre in d = 7 (dgemm path):
 * distances are then taken from |z|^2 + |z'|^2 - 2 z.z' with |z|^2 ~ 2e4 down
 * to the 1e-4 relative recompute threshold, which bounds the accuracy at about
 * 1e-11 (observed 1.3e-12); this guards that bound. */
static void kernel_matrix_clustered_far_data_within_documented_bound(void **state)
{
  (void)state;
  const int64_t n = 120, d = 7;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  for (int c = 0; c < 4; c++) {
    double *X = th_zeros(n * d), *K = th_zeros(n * n), *Kref = th_zeros(n * n), ell = 1.0;
    th_randn(&ctx.rng, n * d, X, 0.5, 0.0);
    for (int64_t l = 0; l < d; l++)
      for (int64_t i = 0; i < n; i++) X[i + l * n] += i % 2 ? 50.0 : -50.0;
    const sgp_kernel k = {all_kinds[c], &ell, 1, 1.0, 1.0};
    assert_int_equal(sgp_kernel_matrix(&ctx, &k, sgp_cmat_of(X, n, d), sgp_cmat_of(X, n, d),
                                       sgp_mat_of(K, n, n)), SGP_OK);
    th_kernel_matrix(all_kinds[c], 1.0, &ell, 1, X, n, X, n, d, Kref);
    assert_le(th_max_abs_diff(n * n, K, Kref), 1e-11);
    for (int64_t j = 0; j < n; j++) assert_close(K[j + j * n], 1.0, 1e-12);
    free(X); free(K); free(Kref);
  }
}

/* Views with ld > rows: padding (NaN in X, a sentinel in K) is neither read nor written. */
static void kernel_matrix_respects_leading_dimensions(void **state)
{
  (void)state;
  const int64_t n1 = 13, n2 = 9, d = 5, ldx = n1 + 3, ldk = n1 + 4;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double *X1 = th_zeros(ldx * d), *X1c = th_zeros(n1 * d), *X2 = th_zeros(n2 * d),
         *K = th_zeros(ldk * n2), *Kref = th_zeros(n1 * n2), ell = 1.3;
  for (int64_t i = 0; i < ldx * d; i++) X1[i] = NAN;
  for (int64_t i = 0; i < ldk * n2; i++) K[i] = -7.0;
  th_randn(&ctx.rng, n1 * d, X1c, 1.0, 0.0);
  th_randn(&ctx.rng, n2 * d, X2, 1.0, 0.0);
  for (int64_t l = 0; l < d; l++)
    for (int64_t i = 0; i < n1; i++) X1[i + l * ldx] = X1c[i + l * n1];
  const sgp_kernel k = {SGP_KERNEL_MATERN52, &ell, 1, 1.0, 1.0};
  sgp_cmat xv = {X1, n1, d, ldx};
  sgp_mat kv = {K, n1, n2, ldk};
  assert_int_equal(sgp_kernel_matrix(&ctx, &k, xv, sgp_cmat_of(X2, n2, d), kv), SGP_OK);
  th_kernel_matrix(k.kind, 1.0, &ell, 1, X1c, n1, X2, n2, d, Kref);
  for (int64_t j = 0; j < n2; j++)
    for (int64_t i = 0; i < ldk; i++) {
      if (i < n1) assert_close(K[i + j * ldk], Kref[i + j * n1], 1e-12);
      else assert_true(K[i + j * ldk] == -7.0);
    }
  free(X1); free(X1c); free(X2); free(K); free(Kref);
}

/* ------------------------------------------------------------ names */

static void kernel_names_round_trip(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const char *names[] = {"rbf", "matern12", "matern32", "matern52"};
  for (int i = 0; i < 4; i++) {
    sgp_kernel_kind kind = (sgp_kernel_kind)-1;
    assert_int_equal(sgp_kernel_from_name(&ctx, names[i], &kind), SGP_OK);
    assert_int_equal(kind, all_kinds[i]);
    assert_string_equal(sgp_kernel_name(kind), names[i]);
  }
  assert_string_equal(sgp_kernel_name((sgp_kernel_kind)9), "unknown");
}

static void kernel_from_name_rejects_unknown_names(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_kernel_kind kind = SGP_KERNEL_MATERN32;
  const char *bad[] = {"gauss", "RBF", "", "matern", NULL};
  for (int i = 0; i < 5; i++) {
    ctx.errmsg[0] = '\0';
    assert_int_equal(sgp_kernel_from_name(&ctx, bad[i], &kind), SGP_EINVAL);
    assert_contains(ctx.errmsg, "kernel");
    assert_int_equal(kind, SGP_KERNEL_MATERN32); /* untouched */
  }
  /* a very long name is truncated, never overflowing errmsg */
  char longname[2000];
  memset(longname, 'z', sizeof longname - 1);
  longname[sizeof longname - 1] = '\0';
  assert_int_equal(sgp_kernel_from_name(&ctx, longname, &kind), SGP_EINVAL);
  assert_true(strlen(ctx.errmsg) < sizeof ctx.errmsg);
  assert_contains(ctx.errmsg, "kernel");
}

/* ------------------------------------------------------------ error paths */

typedef struct {
  double X[15], X2[8], X3[9], K[20], ell[3];
  sgp_ctx ctx;
} err_fixture;

static int err_setup(void **state)
{
  err_fixture *f = (err_fixture *)calloc(1, sizeof *f);
  if (!f) return -1;
  sgp_ctx_init(&f->ctx);
  th_randn(&f->ctx.rng, 15, f->X, 1.0, 0.0);  /* 5 x 3 */
  th_randn(&f->ctx.rng, 8, f->X2, 1.0, 0.0);  /* 4 x 2: wrong column count */
  th_randn(&f->ctx.rng, 9, f->X3, 1.0, 0.0);  /* 3 x 3 */
  f->ell[0] = f->ell[1] = f->ell[2] = 1.0;
  *state = f;
  return 0;
}

static int err_teardown(void **state)
{
  free(*state);
  return 0;
}

/* Calls sgp_kernel_matrix(X (5x3), X2) and checks the status and message. */
static void expect_error(err_fixture *f, const sgp_kernel *k, sgp_cmat X1, sgp_cmat X2,
                         sgp_mat K, int code, const char *prefix)
{
  f->ctx.errmsg[0] = '\0';
  const int st = sgp_kernel_matrix(&f->ctx, k, X1, X2, K);
  if (st != code) fail_msg("status %d (%s), expected %d", st, f->ctx.errmsg, code);
  if (strncmp(f->ctx.errmsg, prefix, strlen(prefix)) != 0)
    fail_msg("message \"%s\" does not start with \"%s\"", f->ctx.errmsg, prefix);
}

static void kernel_matrix_rejects_bad_kernel_parameters(void **state)
{
  err_fixture *f = (err_fixture *)*state;
  const sgp_cmat X = sgp_cmat_of(f->X, 5, 3);
  const sgp_mat K = sgp_mat_of(f->K, 5, 4);
  const sgp_cmat X4 = sgp_cmat_of(f->X, 4, 3);
  const double bad_ell[] = {0.0, -1.0, NAN, INFINITY};
  for (int i = 0; i < 4; i++) {
    f->ell[1] = bad_ell[i];
    sgp_kernel ard = {SGP_KERNEL_RBF, f->ell, 3, 1.0, 1.0};
    expect_error(f, &ard, X, X4, K, SGP_EINVAL, "lengthscale");
    sgp_kernel iso = {SGP_KERNEL_RBF, f->ell + 1, 1, 1.0, 1.0};
    expect_error(f, &iso, X, X4, K, SGP_EINVAL, "lengthscale");
  }
  f->ell[1] = 1.0;
  sgp_kernel two = {SGP_KERNEL_MATERN12, f->ell, 2, 1.0, 1.0}; /* 2 values for d = 3 */
  expect_error(f, &two, X, X4, K, SGP_EDIM, "lengthscale");
  sgp_kernel none = {SGP_KERNEL_MATERN12, f->ell, 0, 1.0, 1.0};
  expect_error(f, &none, X, X4, K, SGP_EDIM, "lengthscale");
  const double bad_s2[] = {0.0, -2.0, NAN, INFINITY};
  for (int i = 0; i < 4; i++) {
    sgp_kernel k = {SGP_KERNEL_MATERN52, f->ell, 1, bad_s2[i], 1.0};
    expect_error(f, &k, X, X4, K, SGP_EINVAL, "outputscale");
  }
  sgp_kernel unknown = {(sgp_kernel_kind)7, f->ell, 1, 1.0, 1.0};
  expect_error(f, &unknown, X, X4, K, SGP_EINVAL, "kernel");
  /* scales beyond double precision: a lengthscale so small that the squared
   * scaled inputs would overflow */
  const sgp_kernel k1 = {SGP_KERNEL_RBF, f->ell, 1, 1.0, 1.0};
  const double tiny = 1e-300;
  sgp_kernel small = {SGP_KERNEL_MATERN32, &tiny, 1, 1.0, 1.0};
  expect_error(f, &small, X, X4, K, SGP_EINVAL, "x: divided by the lengthscale");
  const double far[6] = {-1e120, 1e120, 0, 0, 0, 0}; /* x2 far from its mean 0 */
  expect_error(f, &k1, X, sgp_cmat_of(far, 2, 3), sgp_mat_of(f->K, 5, 2), SGP_EINVAL,
               "x2: divided by the lengthscale");
}

/* Far apart points (scaled distance ~1e99, squares ~1e198) give a finite 0-ish
 * covariance for every kernel, never Inf * 0. */
static void kernel_values_at_huge_distances_are_finite(void **state)
{
  (void)state;
  for (int kind = SGP_KERNEL_RBF; kind <= SGP_KERNEL_MATERN52; kind++) {
    const sgp_kernel k = {(sgp_kernel_kind)kind, NULL, 0, 2.0, 0.0};
    const double v = sgp_kernel_value_r2(&k, 2.0, 1e198);
    assert_true(isfinite(v) && v >= 0.0 && v < 1e-290);
    const double w = sgp_kernel_value_r2(&k, 2.0, INFINITY);
    assert_true(isfinite(w) && w >= 0.0 && w < 1e-290);
  }
}

static void kernel_matrix_rejects_bad_inputs(void **state)
{
  err_fixture *f = (err_fixture *)*state;
  const sgp_kernel k = {SGP_KERNEL_MATERN32, f->ell, 1, 1.0, 1.0};
  const sgp_cmat X4 = sgp_cmat_of(f->X, 4, 3);
  const sgp_mat K = sgp_mat_of(f->K, 5, 4);
  const double bad[] = {NAN, INFINITY, -INFINITY};
  for (int i = 0; i < 3; i++) {
    f->X[7] = bad[i]; /* row 3, column 2 of X */
    expect_error(f, &k, sgp_cmat_of(f->X, 5, 3), sgp_cmat_of(f->X3, 3, 3),
                 sgp_mat_of(f->K, 5, 3), SGP_EINVAL, "x:");
    assert_contains(f->ctx.errmsg, "row 3");
    expect_error(f, &k, sgp_cmat_of(f->X3, 3, 3), sgp_cmat_of(f->X, 5, 3),
                 sgp_mat_of(f->K, 3, 5), SGP_EINVAL, "x2:");
  }
  f->X[7] = 0.25;
  expect_error(f, &k, sgp_cmat_of(f->X, 0, 3), X4, sgp_mat_of(f->K, 0, 4), SGP_EDIM, "x:");
  expect_error(f, &k, sgp_cmat_of(f->X, 5, 0), X4, K, SGP_EDIM, "x:");
  expect_error(f, &k, sgp_cmat_of(f->X, 5, 3), sgp_cmat_of(f->X2, 0, 3),
               sgp_mat_of(f->K, 5, 0), SGP_EDIM, "x2:");
  /* x2 with 2 columns while x has 3 */
  expect_error(f, &k, sgp_cmat_of(f->X, 5, 3), sgp_cmat_of(f->X2, 4, 2), K, SGP_EDIM, "x2:");
  /* K of the wrong size, either way */
  expect_error(f, &k, sgp_cmat_of(f->X, 5, 3), X4, sgp_mat_of(f->K, 4, 4), SGP_EDIM, "K:");
  expect_error(f, &k, sgp_cmat_of(f->X, 5, 3), X4, sgp_mat_of(f->K, 5, 3), SGP_EDIM, "K:");
  expect_error(f, &k, sgp_cmat_of(f->X, 5, 3), X4, sgp_mat_of(f->K, 4, 5), SGP_EDIM, "K:");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(kernel_matrix_matches_naive_oracle_scalar_lengthscale),
    cmocka_unit_test(kernel_matrix_matches_naive_oracle_ard_lengthscale),
    cmocka_unit_test(kernel_matrix_spans_several_tiles),
    cmocka_unit_test(kernel_matrix_far_from_origin_keeps_diagonal),
    cmocka_unit_test(kernel_matrix_clustered_far_data_within_documented_bound),
    cmocka_unit_test(kernel_matrix_respects_leading_dimensions),
    cmocka_unit_test(kernel_names_round_trip),
    cmocka_unit_test(kernel_from_name_rejects_unknown_names),
    cmocka_unit_test(kernel_values_at_huge_distances_are_finite),
    cmocka_unit_test_setup_teardown(kernel_matrix_rejects_bad_kernel_parameters, err_setup,
                                    err_teardown),
    cmocka_unit_test_setup_teardown(kernel_matrix_rejects_bad_inputs, err_setup, err_teardown),
  };
  return cmocka_run_group_tests_name("kernels", tests, NULL, NULL);
}
