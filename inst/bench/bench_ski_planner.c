/* bench_ski_planner.c -- the cost of deterministic FFT plans: the
 * seconds of one K_G product with FFTW_ESTIMATE plans (ski_gsgp's default)
 * against FFTW_MEASURE plans (the former AUTO choice for long solves), on the
 * grids of bench-ski-first (1-D, m = 8000, rbf) and test-ski-deterministic.R
 * (128 x 128, Matern-3/2, circulant path). The two operators are timed
 * alternately, `rounds` rounds of `reps` products each; prints the medians
 * and their ratio. make bench-ski-planner [BENCH_ARGS="rounds reps"]. */
#define _POSIX_C_SOURCE 199309L
#include "ski/ski.h"

#include <math.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void make_op(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g,
                    sgp_ski_fft_planner planner, sgp_op *op)
{
  sgp_ski_kg_opts o;
  sgp_ski_kg_opts_default(&o);
  o.path = g->d > 1 ? SGP_SKI_KG_CIRCULANT : SGP_SKI_KG_AUTO;
  o.planner = planner;
  if (sgp_ski_grid_op(ctx, k, g, &o, op)) {
    fprintf(stderr, "K_G operator: %s\n", ctx->errmsg);
    exit(1);
  }
}

static void one_case(const char *name, const sgp_kernel *k, const sgp_ski_grid *g, int rounds,
                     int reps)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_op op[2];
  make_op(&ctx, k, g, SGP_SKI_FFT_PLAN_ESTIMATE, &op[0]);
  make_op(&ctx, k, g, SGP_SKI_FFT_PLAN_MEASURE, &op[1]);
  const int64_t m = op[0].n;
  double *x = malloc((size_t)m * sizeof(double)), *y = malloc((size_t)m * sizeof(double));
  double *t[2] = {malloc((size_t)rounds * sizeof(double)), malloc((size_t)rounds * sizeof(double))};
  for (int64_t i = 0; i < m; i++) x[i] = sin(0.37 * (double)i);
  for (int r = 0; r < rounds; r++)
    for (int p = 0; p < 2; p++) {
      op[p].apply(&op[p], sgp_cmat_of(x, m, 1), sgp_mat_of(y, m, 1), &ctx); /* warm */
      const double t0 = now_s();
      for (int q = 0; q < reps; q++) op[p].apply(&op[p], sgp_cmat_of(x, m, 1), sgp_mat_of(y, m, 1), &ctx);
      t[p][r] = (now_s() - t0) / reps;
    }
  qsort(t[0], (size_t)rounds, sizeof(double), cmp);
  qsort(t[1], (size_t)rounds, sizeof(double), cmp);
  const double e = t[0][rounds / 2], me = t[1][rounds / 2];
  printf("%-28s m=%-7lld estimate %8.1f us  measure %8.1f us  ratio %.3f  (medians of %d x %d)\n",
         name, (long long)m, 1e6 * e, 1e6 * me, e / me, rounds, reps);
  printf("BENCH ski_planner case=%s m=%lld estimate_us=%.1f measure_us=%.1f ratio=%.3f\n", name,
         (long long)m, 1e6 * e, 1e6 * me, e / me);
  sgp_op_destroy(&op[0]);
  sgp_op_destroy(&op[1]);
  free(x); free(y); free(t[0]); free(t[1]);
}

int main(int argc, char **argv)
{
  const int rounds = argc > 1 ? atoi(argv[1]) : 9, reps = argc > 2 ? atoi(argv[2]) : 200;
  double ell1 = 0.1, ell2 = 0.1;
  const sgp_kernel rbf = {SGP_KERNEL_RBF, &ell1, 1, 1.0}, m32 = {SGP_KERNEL_MATERN32, &ell2, 1, 1.0};
  sgp_ski_grid g1, g2;
  memset(&g1, 0, sizeof g1);
  memset(&g2, 0, sizeof g2);
  g1.d = 1; g2.d = 2;
  for (int j = 0; j < SGP_SKI_MAX_D; j++) {
    g1.m[j] = j == 0 ? 8000 : 1; g1.h[j] = j == 0 ? 10.0 / 7999.0 : 1.0;
    g2.m[j] = j < 2 ? 128 : 1; g2.h[j] = j < 2 ? 1.0 / 127.0 : 1.0;
  }
  one_case("1d_m8000_rbf", &rbf, &g1, rounds, reps);
  one_case("2d_128x128_matern32", &m32, &g2, rounds, reps);
  return 0;
}
