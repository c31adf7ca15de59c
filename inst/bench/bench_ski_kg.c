/* bench_ski_kg.c -- t_K, the unit of ski_laplace's benchmark: the median of
 * 20 products K_G v on an m1 x m2 grid (rbf, lengthscale in cells), in this
 * process. Usage: bench_ski_kg m1 m2 [lengthscale_cells]; prints one BENCH line. */
#include "api/sgp.h"
#include "runtime/sgp_internal.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
  if (argc < 3) { fprintf(stderr, "usage: bench_ski_kg m1 m2 [lengthscale_cells]\n"); return 2; }
  const int64_t m1 = atol(argv[1]), m2 = atol(argv[2]);
  const double ls = argc > 3 ? atof(argv[3]) : 16.0;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t size[2] = {m1, m2};
  const double bounds[4] = {0.0, 0.0, (double)(m1 - 1), (double)(m2 - 1)};
  sgp_ski_grid g;
  sgp_op K;
  const sgp_kernel k = {SGP_KERNEL_RBF, &ls, 1, 1.0, 1.0};
  if (sgp_ski_grid_bounds(&ctx, sgp_cmat_of(bounds, 2, 2), size, &g) ||
      sgp_ski_grid_op(&ctx, &k, &g, NULL, &K)) {
    fprintf(stderr, "%s\n", ctx.errmsg);
    return 1;
  }
  const int64_t m = m1 * m2;
  double *v = sgp_alloc(m), *y = sgp_alloc(m), t[20];
  for (int64_t i = 0; i < m; i++) v[i] = (double)(i % 7) - 3.0;
  for (int r = 0; r < 21; r++) {  /* the first is a warm-up */
    const double t0 = sgp_clock();
    K.apply(&K, sgp_cmat_of(v, m, 1), sgp_mat_of(y, m, 1), &ctx);
    if (r > 0) t[r - 1] = sgp_clock() - t0;
  }
  qsort(t, 20, sizeof t[0], cmp);
  printf("BENCH ski_kg grid=%lldx%lld lengthscale_cells=%g t_K=%.6fs\n", (long long)m1,
         (long long)m2, ls, 0.5 * (t[9] + t[10]));
  sgp_op_destroy(&K);
  free(v); free(y);
  return 0;
}
