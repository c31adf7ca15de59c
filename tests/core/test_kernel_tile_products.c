/* test_kernel_tile_products.c -- the register-blocked products of one kernel
 * tile (core/kernels/kernel_tile_products.c), y += K v and y += K' v, against plain
 * loops: every row, column and width remainder of the blocks (ni, nj in 1..19,
 * nb in 1..23), strided K, v and y whose padding must survive, and both the
 * AVX-512 and the narrow blocks whatever the CPU. Tolerance: each entry is a
 * sum of at most 19 products of values in [-1, 1], so two summation orders
 * differ by at most 19 * 19 eps < 1e-13 (absolute). */
#include "test_helpers.h"
#include "kernels/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void check_sizes(sgp_rng *rng, int64_t ni, int64_t nj, int64_t nb, int transposed)
{
  const int64_t ldk = ni + 2, nv = transposed ? ni : nj, ny = transposed ? nj : ni;
  const int64_t ldv = nv + 1, ldy = ny + 3;
  double *K = th_zeros(ldk * nj), *v = th_zeros(ldv * nb), *y = th_zeros(ldy * nb),
         *ref = th_zeros(ldy * nb);
  for (int64_t q = 0; q < ldk * nj; q++) K[q] = 2.0 * sgp_rng_uniform(rng) - 1.0;
  for (int64_t q = 0; q < ldv * nb; q++) v[q] = 2.0 * sgp_rng_uniform(rng) - 1.0;
  for (int64_t q = 0; q < ldy * nb; q++) ref[q] = y[q] = 2.0 * sgp_rng_uniform(rng) - 1.0;
  for (int64_t c = 0; c < nb; c++)
    for (int64_t r = 0; r < ny; r++) {
      double s = 0.0;
      for (int64_t m = 0; m < nv; m++)
        s += (transposed ? K[m + r * ldk] : K[r + m * ldk]) * v[m + c * ldv];
      ref[r + c * ldy] += s;
    }
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  if (transposed) sgp_tile_product_t(&ctx, ni, nj, nb, K, ldk, v, ldv, y, ldy);
  else sgp_tile_product_n(&ctx, ni, nj, nb, K, ldk, v, ldv, y, ldy);
  for (int64_t q = 0; q < ldy * nb; q++) {
    const int pad = q % ldy >= ny;
    if (pad ? y[q] != ref[q] : !(fabs(y[q] - ref[q]) <= 1e-13))
      fail_msg("%s ni %lld nj %lld nb %lld: entry %lld is %.17g, expected %.17g",
               transposed ? "K'v" : "Kv", (long long)ni, (long long)nj, (long long)nb,
               (long long)q, y[q], ref[q]);
  }
  free(K); free(v); free(y); free(ref);
}

static void products_match_loops(void **state)
{
  (void)state;
  sgp_rng rng;
  sgp_rng_seed(&rng, 7);
  for (int wide = 0; wide <= 1; wide++) {
    sgp_tile_products_force_wide(wide);
    for (int64_t ni = 1; ni <= 19; ni++)
      for (int64_t nj = 1; nj <= 19; nj += 3)
        for (int64_t nb = 1; nb <= 23; nb += 2) {
          check_sizes(&rng, ni, nj, nb, 0);
          check_sizes(&rng, ni, nj, nb, 1);
        }
  }
  sgp_tile_products_force_wide(-1);
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(products_match_loops)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
