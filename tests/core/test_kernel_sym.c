/* test_kernel_sym.c -- the matrix-free symmetric product Y = k(X, X) V
 * (core/kernels/kernel_sym_apply.c), which evaluates only the tiles on and below the
 * diagonal and uses each for both of its places.
 * Oracles: the naive kernel matrix th_kernel_matrix times V by plain loops, and
 * the general tiled product sgp_kernel_apply_prepared; 1e-12 relative for every
 * tile size, thread count and width, with strided views whose padding must
 * survive; bitwise the same for every thread count (and on a repeat). */
#include "test_helpers.h"
#include "kernels/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double max_err = 0.0;

static void check_case(int64_t n, sgp_kernel_kind kind, uint64_t seed)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, seed);
  const int64_t d = 3;
  double ell[3], *X = th_zeros(n * d), *center = NULL;
  th_randn(&ctx.rng, n * d, X, 1.0, 0.0);
  for (int l = 0; l < 3; l++) ell[l] = 0.5 + sgp_rng_uniform(&ctx.rng);
  sgp_kernel k = {0};
  k.kind = kind;
  k.lengthscale = ell;
  k.n_lengthscale = 3;
  k.outputscale = 1.3;
  sgp_kprep prep = {0};
  const sgp_cmat Xv = sgp_cmat_of(X, n, d);
  assert_int_equal(sgp_column_means(&ctx, Xv, &center), SGP_OK);
  assert_int_equal(sgp_kprep_init(&ctx, &k, Xv, center, &prep, "x"), SGP_OK);
  double *K = th_zeros(n * n);
  th_kernel_matrix(kind, k.outputscale, ell, 3, X, n, X, n, 3, K);
  const int tiles[] = {0, 1, 7, 64};
  const int64_t widths[] = {1, 3, 10, 13};
  for (int w = 0; w < 4; w++) {
    const int64_t nb = widths[w], ld = n + 3;
    double *V = th_zeros(ld * nb), *Vc = th_zeros(n * nb), *Yref = th_zeros(n * nb),
           *Y = th_zeros(ld * nb), *Y1 = th_zeros(ld * nb), *Yg = th_zeros(n * nb),
           *Yt1 = th_zeros(ld * nb);
    th_randn(&ctx.rng, ld * nb, V, 1.0, 0.0);
    for (int64_t c = 0; c < nb; c++) memcpy(Vc + c * n, V + c * ld, (size_t)n * sizeof(double));
    th_matmul(n, nb, n, K, Vc, Yref);
    const double scale = th_max_abs(n * nb, Yref);
    for (int t = 0; t < 4; t++) {
      if (tiles[t] == 1 && n > 200) continue; /* 1 x 1 tiles: small n only (time) */
      for (int h = 1; h <= 3; h++) {
        ctx.nthreads = h;
        for (int64_t q = 0; q < ld * nb; q++) Y[q] = -7.0;
        sgp_mat Ym = sgp_mat_of(Y, n, nb);
        Ym.ld = ld;
        sgp_cmat Vm = sgp_cmat_of(V, n, nb);
        Vm.ld = ld;
        assert_int_equal(sgp_kernel_apply_symmetric(&ctx, &k, &prep, Vm, Ym, tiles[t]), SGP_OK);
        for (int64_t c = 0; c < nb; c++) {
          for (int64_t i = 0; i < n; i++) {
            const double e = fabs(Y[i + c * ld] - Yref[i + c * n]) / scale;
            if (!(e <= 1e-12))
              fail_msg("n %lld tile %d threads %d width %lld: Y(%lld, %lld) rel err %.3g",
                       (long long)n, tiles[t], h, (long long)nb, (long long)i, (long long)c, e);
            if (e > max_err) max_err = e;
          }
          for (int64_t i = n; i < ld; i++) assert_true(Y[i + c * ld] == -7.0);
        }
        /* the general path agrees; the same call repeats bitwise */
        assert_int_equal(sgp_kernel_apply_prepared(&ctx, &k, &prep, &prep, sgp_cmat_of(Vc, n, nb),
                                                   sgp_mat_of(Yg, n, nb), tiles[t]), SGP_OK);
        for (int64_t c = 0; c < nb; c++)
          for (int64_t i = 0; i < n; i++)
            assert_true(fabs(Y[i + c * ld] - Yg[i + c * n]) <= 1e-12 * scale);
        memcpy(Y1, Y, (size_t)(ld * nb) * sizeof(double));
        assert_int_equal(sgp_kernel_apply_symmetric(&ctx, &k, &prep, Vm, Ym, tiles[t]), SGP_OK);
        assert_memory_equal(Y, Y1, (size_t)(ld * nb) * sizeof(double));
        if (h == 1) memcpy(Yt1, Y, (size_t)(ld * nb) * sizeof(double));
        else if (memcmp(Y, Yt1, (size_t)(ld * nb) * sizeof(double)))
          fail_msg("n %lld tile %d: %d threads differ from 1 thread", (long long)n, tiles[t], h);
      }
    }
    free(V); free(Vc); free(Yref); free(Y); free(Y1); free(Yg); free(Yt1);
  }
  /* a block of the wrong shape is an error, not a crash */
  double v[2] = {0, 0}, y[2];
  assert_int_equal(sgp_kernel_apply_symmetric(&ctx, &k, &prep, sgp_cmat_of(v, 2, 1),
                                              sgp_mat_of(y, 2, 1), 0), SGP_EDIM);
  free(K);
  free(X);
  free(center);
  sgp_kprep_free(&prep);
}

static void equals_dense_small(void **state)
{
  (void)state;
  check_case(1, SGP_KERNEL_RBF, 1);
  check_case(150, SGP_KERNEL_MATERN32, 2);
  check_case(97, SGP_KERNEL_MATERN12, 3);
}

static void equals_dense_several_default_tiles(void **state)
{
  (void)state;
  check_case(1100, SGP_KERNEL_MATERN52, 4); /* 3 default tiles, the last partial */
}

static int report(void **state)
{
  (void)state;
  printf("kernel symmetric product: max rel err vs naive K V %.2e (tol 1e-12; tiles 1/7/64/512, "
         "1-3 threads bitwise equal, widths 1, 3, 10 and 13, strided views)\n", max_err);
  return 0;
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(equals_dense_small),
    cmocka_unit_test(equals_dense_several_default_tiles),
  };
  return cmocka_run_group_tests(tests, NULL, report);
}
