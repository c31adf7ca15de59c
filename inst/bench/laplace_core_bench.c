/* laplace_core_bench.c -- times sgp_laplace_fit from C (no R), for profiling the
 * core: binary toy in d dimensions (Matern-3/2). Build and run:
 *   make bench-laplace-core ARGS="exact 5000 16"
 * Not part of make check. */
#define _POSIX_C_SOURCE 200809L
#include "laplace/laplace.h"

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

static void say(void *user, const char *msg) { (void)user; fprintf(stderr, "%.2f %s\n", now_s(), msg); }

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "cg";
  const int64_t n = argc > 2 ? atoll(argv[2]) : 5000, d = argc > 3 ? atoll(argv[3]) : 16;
  const int threads = argc > 4 ? atoi(argv[4]) : 2;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 1);
  ctx.nthreads = threads;
  if (getenv("SGP_VERBOSE")) ctx.print = say;
  double *X = malloc((size_t)(n * d) * sizeof(double)), *y = malloc((size_t)n * sizeof(double));
  for (int64_t i = 0; i < n * d; i++) X[i] = 2.0 * sgp_rng_uniform(&ctx.rng) - 1.0;
  for (int64_t i = 0; i < n; i++) {
    const double f = sin(2 * X[i]) + X[i + n] * X[i + 2 * n] + cos(3 * X[i + 3 * n]) - 0.5;
    y[i] = sgp_rng_uniform(&ctx.rng) < 1.0 / (1.0 + exp(-3.0 * f));
  }
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  const double ell = 2.0;
  o.kernel.kind = SGP_KERNEL_MATERN32;
  o.kernel.lengthscale = &ell;
  o.kernel.outputscale = 4.0;
  if (!strcmp(mode, "exact")) { o.policy = SGP_POLICY_CHOLESKY; o.max_iter = (int)n; }
  else { o.max_iter = 5; o.max_newton = 10; }
  sgp_laplace_result *fit = NULL;
  const double t0 = now_s();
  const int st = sgp_laplace_fit(&ctx, sgp_cmat_of(X, n, d), sgp_cmat_of(y, n, 1),
                                 sgp_cmat_of(NULL, 0, 0), &o, &fit);
  const double t1 = now_s();
  if (st) { fprintf(stderr, "error: %s\n", ctx.errmsg); return 1; }
  printf("%s n=%lld d=%lld threads=%d time=%.3fs steps=%d iterations=%lld kprod=%lld\n", mode,
         (long long)n, (long long)d, threads, t1 - t0, fit->newton_steps,
         (long long)fit->iterations, (long long)fit->kernel_products);
  for (int64_t i = 0; i < fit->history.n_step; i++)
    printf("  step %lld at %.3fs inner %s\n", (long long)i, fit->history.st_time[i],
           sgp_laplace_stop_name(fit->history.st_inner_stop[i]));
  sgp_laplace_fit_free(fit);
  free(X); free(y);
  return 0;
}
