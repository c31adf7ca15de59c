/* bench_ski_pass.c -- the crossover behind sgp_ski_stats_pass_choice:
 * time of sgp_ski_stats_compute_pass with the tap pass and with the moment pass
 * (create + accumulate + flush) for n / m in {0.5, 1, 2, 4, 8, 16}, cubic,
 * d = 1 (m = 2^16), 2 (256^2), 3 (32^3), 2 threads, uniform data, median of
 * 3 runs. Built and run by `make bench-ski-pass` (build/bench);
 * `bench_ski_pass DMIN DMAX R1 R2 ...` picks dimensions and ratios. Output: one
 * `BENCH pass d=.. m=.. n=.. tap=..s moments=..s` line per size. */
#define _GNU_SOURCE
#include "ski/ski.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static double time_pass(const sgp_ski_grid *g, const sgp_ski_opts *o, const double *X,
                        const double *y, int64_t n, sgp_ski_pass pass)
{
  double t[3];
  for (int r = 0; r < 3; r++) {
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    ctx.nthreads = 2;
    sgp_ski_stats *st = NULL;
    const double t0 = now();
    if (sgp_ski_stats_compute_pass(&ctx, g, o, sgp_cmat_of(X, n, g->d), sgp_cmat_of(y, n, 1), 0,
                                   pass, &st, NULL, NULL)) {
      fprintf(stderr, "bench_ski_pass: %s\n", ctx.errmsg);
      exit(1);
    }
    t[r] = now() - t0;
    sgp_ski_stats_free(st);
  }
  /* median of 3 */
  const double a = t[0], b = t[1], c = t[2];
  return a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
}

int main(int argc, char **argv)
{
  const int64_t sizes[3][3] = {{65536, 1, 1}, {256, 256, 1}, {32, 32, 32}};
  double ratios[16] = {0.5, 1, 2, 4, 8, 16};
  int nr = 6, dmin = 1, dmax = 3;
  if (argc >= 4) {
    dmin = atoi(argv[1]);
    dmax = atoi(argv[2]);
    nr = 0;
    for (int k = 3; k < argc && nr < 16; k++) ratios[nr++] = atof(argv[k]);
  }
  sgp_rng rng;
  sgp_rng_seed(&rng, 1);
  for (int d = dmin < 1 ? 1 : dmin; d <= (dmax > 3 ? 3 : dmax); d++) {
    sgp_ski_grid g;
    g.d = d;
    int64_t m = 1;
    for (int j = 0; j < d; j++) {
      g.m[j] = sizes[d - 1][j];
      g.lo[j] = 0.0;
      g.h[j] = 1.0 / (double)(g.m[j] - 3);
      m *= g.m[j];
      g.lo[j] = -g.h[j];
    }
    sgp_ski_opts o;
    sgp_ski_opts_default(&o);
    double rmax = 0;
    for (int k = 0; k < nr; k++) rmax = ratios[k] > rmax ? ratios[k] : rmax;
    const int64_t nmax = (int64_t)(rmax * (double)m);
    double *X = sgp_alloc(nmax * d), *y = sgp_alloc(nmax);
    if (!X || !y) return 1;
    for (int k = 0; k < nr; k++) {
      const int64_t n = (int64_t)(ratios[k] * (double)m);
      for (int j = 0; j < d; j++)
        for (int64_t i = 0; i < n; i++) X[i + j * n] = sgp_rng_uniform(&rng);
      for (int64_t i = 0; i < n; i++) y[i] = sin(6 * X[i]) + 0.1 * sgp_rng_normal(&rng);
      const double tt = time_pass(&g, &o, X, y, n, SGP_SKI_PASS_TAP);
      const double tm = time_pass(&g, &o, X, y, n, SGP_SKI_PASS_MOMENTS);
      printf("BENCH pass d=%d m=%lld n=%lld n/m=%g tap=%.4fs moments=%.4fs speedup=%.2f "
             "auto=%s\n", d, (long long)m, (long long)n, ratios[k], tt, tm, tt / tm,
             sgp_ski_stats_pass_choice(&g, o.bounds_policy, n) == SGP_SKI_PASS_MOMENTS ?
             "moments" : "tap");
      fflush(stdout);
    }
    free(X);
    free(y);
  }
  return 0;
}
