/* laplace_poisson_bench.c -- gp_laplace on spatial Poisson counts: a 100 x 50 grid of cells (n = 5000) with a smooth log intensity over
 * [-3.5, 5.7] and seeded Poisson counts, so that W^-1 = exp(-f) at the mode spans
 * about 1e4. Build and run (as the package builds: R's CC and CFLAGS):
 *   make bench-laplace-poisson ARGS="exact"          per Newton step vs one dpotrf
 *   make bench-laplace-poisson ARGS="cg 0 2500"      cg, no preconditioner
 *   make bench-laplace-poisson ARGS="cg 200 2500"    cg, precond_rank 200
 *   make bench-laplace-poisson ARGS="solve 200"      one cg solve at the mode
 *   make bench-laplace-poisson ARGS="default 200"    the defaults (max_iter 5) + rank
 * solve: the exact fit's mode first, then one gp_laplace cg solve of
 * (K + W^-1) v = y at that iterate's W^-1 (a gaussian likelihood with noise W^-1,
 * one Newton step), to inner_rtol 1e-5: the iterations that preconditioning
 * saves. The Makefile target builds with
 * SGP_LAPLACE_STAGNATION raised so that an unpreconditioned solve is not cut
 * short by the stagnation rule (20 iterations without halving the residual).
 * Arguments: mode (exact | cg), precond_rank, max_iter (cg), nx (cells per row;
 * ny = nx / 2), masked (1: every 50th cell has exposure e^-20, offset -20, as
 * cells almost outside the observation window: W^-1 ~ 1e9 there, so that
 * min W^-1 < 1e-8 max(K_ii + W^-1_ii), the pivot test of the old K + W^-1 root),
 * max_newton (20), inner_rtol (1e-5; cg: 1e-8 lets the mode be reached to tol 1e-6). cg runs without recycling so that every Newton step's iteration
 * count is that of one solve to the same tolerance. Not part of make check. */
#define _GNU_SOURCE /* dlsym(RTLD_NEXT) */
#include "laplace/laplace.h"

#include <dlfcn.h>

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

/* Eigendecompositions of order >= 1000 the fit took (an eigendecomposition fallback):
 * LAPACK's dsyevd_ interposed, counted, and forwarded. */
static long n_syevd = 0;
typedef void syevd_fn(const char *, const char *, const int *, double *, const int *, double *,
                      double *, const int *, int *, const int *, int *, size_t, size_t);
void dsyevd_(const char *jobz, const char *uplo, const int *n, double *a, const int *lda,
             double *w, double *work, const int *lwork, int *iwork, const int *liwork, int *info,
             size_t l1, size_t l2)
{
  static syevd_fn *real = NULL;
  if (!real) *(void **)&real = dlsym(RTLD_NEXT, "dsyevd_");
  if (*lwork != -1 && *n >= 1000) n_syevd++;
  real(jobz, uplo, n, a, lda, w, work, lwork, iwork, liwork, info, l1, l2);
}

/* Poisson(lambda) by the product of uniforms (lambda <= 700: exp(-lambda) > 0). */
static double rpois(sgp_rng *rng, double lambda)
{
  const double l = exp(-lambda);
  double p = 1.0;
  int k = -1;
  do { p *= sgp_rng_uniform(rng); k++; } while (p > l);
  return (double)k;
}

/* log intensity at cell (i, j): smooth, in [-3.5, 5.7] */
static double log_rate(double x, double y)
{
  const double a = sin(x / 13.0) * cos(y / 9.0), b = cos((x + y) / 21.0);
  return 1.1 + 3.2 * a + 1.4 * b;
}

/* The same K^ = K + W^-1 (the last step's noise data) in a fresh n x n buffer:
 * seconds of one dpotrf (the reference cost of a Newton step). */
static double time_cholesky(sgp_ctx *ctx, const sgp_laplace_result *fit, const sgp_kernel *k,
                            int64_t n)
{
  double *A = malloc((size_t)(n * n) * sizeof(double));
  sgp_kprep prep;
  memset(&prep, 0, sizeof prep);
  sgp_kprep_init(ctx, k, sgp_cmat_of(fit->X, n, fit->d), NULL, &prep, "x");
  sgp_kernel_tile(ctx, k, &prep, 0, n, &prep, 0, n, A, n);
  for (int64_t i = 0; i < n; i++) A[i + i * n] += fit->noise_data[i];
  const double t0 = now_s();
  int64_t minor = 0;
  sgp_potrf_minor(ctx, n, A, n, &minor);
  const double t = now_s() - t0;
  sgp_kprep_free(&prep);
  free(A);
  return minor ? -t : t;
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "exact";
  const int prank = argc > 2 ? atoi(argv[2]) : 0, max_iter = argc > 3 ? atoi(argv[3]) : 2500;
  const int64_t nx = argc > 4 ? atoll(argv[4]) : 100, ny = nx / 2, n = nx * ny;
  const int masked = argc > 5 ? atoi(argv[5]) : 0, max_newton = argc > 6 ? atoi(argv[6]) : 20;
  const double inner_rtol = argc > 7 ? atof(argv[7]) : 1e-5;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 1);
  ctx.nthreads = 2;
  double *X = malloc((size_t)(2 * n) * sizeof(double)), *y = malloc((size_t)n * sizeof(double)),
         *off = malloc((size_t)n * sizeof(double));
  for (int64_t j = 0; j < ny; j++)
    for (int64_t i = 0; i < nx; i++) {
      const int64_t q = i + nx * j;
      X[q] = i + 0.5;
      X[q + n] = j + 0.5;
      off[q] = masked && q % 50 == 7 ? -20.0 : 0.0;
      y[q] = rpois(&ctx.rng, exp(log_rate(X[q], X[q + n]) + off[q]));
    }
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  const double ell = 8.0, mean = 1.0;
  o.likelihood = SGP_LIK_POISSON;
  o.kernel.kind = SGP_KERNEL_MATERN32;
  o.kernel.lengthscale = &ell;
  o.kernel.outputscale = 4.0;
  o.mean = &mean;
  o.n_mean = 1;
  o.learn = 0;
  o.max_newton = max_newton;
  o.inner_rtol = inner_rtol;
  if (masked) o.offset = sgp_cmat_of(off, n, 1);
  if (!strcmp(mode, "exact")) { o.policy = SGP_POLICY_CHOLESKY; o.max_iter = (int)n; }
  else if (!strcmp(mode, "default")) { /* gp_laplace's defaults (cg, max_iter 5, recycling) */
#ifndef BENCH_NO_PRECOND
    o.precond_rank = prank;
#endif
  } else { o.max_iter = max_iter; o.recycle = 0;
#ifndef BENCH_NO_PRECOND /* a baseline build of a core without the option */
    o.precond_rank = prank;
#endif
  }
  const int solve = !strcmp(mode, "solve");
  if (solve) { o.policy = SGP_POLICY_CHOLESKY; o.max_iter = (int)n; }
  sgp_laplace_result *fit = NULL;
  if (solve) { /* the mode's W^-1, then one solve there */
    if (sgp_laplace_fit(&ctx, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1),
                        sgp_cmat_of(NULL, 0, 0), &o, &fit)) {
      fprintf(stderr, "error: %s\n", ctx.errmsg);
      return 1;
    }
    for (int64_t i = 0; i < n; i++) y[i] = fit->f[i]; /* any right-hand side will do */
    memcpy(off, fit->noise_data, (size_t)n * sizeof(double));
    sgp_laplace_fit_free(fit);
    fit = NULL;
    o.likelihood = SGP_LIK_GAUSSIAN;
    o.offset = sgp_cmat_of(NULL, 0, 0);
    o.noise = sgp_cmat_of(off, n, 1);
    o.policy = SGP_POLICY_CG;
    o.max_iter = max_iter;
    o.max_newton = 1;
#ifndef BENCH_NO_PRECOND
    o.precond_rank = prank;
#endif
  }
  const double t0 = now_s();
  const int st = sgp_laplace_fit(&ctx, sgp_cmat_of(X, n, 2), sgp_cmat_of(y, n, 1),
                                 sgp_cmat_of(NULL, 0, 0), &o, &fit);
  const double t1 = now_s();
  if (st) { fprintf(stderr, "error: %s\n", ctx.errmsg); return 1; }
  double dmin = INFINITY, dmax = 0.0;
  for (int64_t i = 0; i < n; i++) {
    dmin = fmin(dmin, fit->noise_data[i]);
    dmax = fmax(dmax, fit->noise_data[i]);
  }
  printf("%s%s n=%lld precond_rank=%d time=%.3fs steps=%d converged=%d iterations=%lld "
         "kprod=%lld W^-1 in [%.3g, %.3g] (span %.3g) eigendecompositions(n>=1000)=%ld\n", mode, masked ? " masked" : "", (long long)n, prank, t1 - t0,
         fit->newton_steps, fit->converged, (long long)fit->iterations,
         (long long)fit->kernel_products, dmin, dmax, dmax / dmin, n_syevd);
  const sgp_laplace_history *h = &fit->history;
  double prev = 0.0;
  for (int64_t i = 0; i < h->n_step; i++) {
    int64_t its = 0;
    for (int64_t r = 0; r < h->n_iter; r++) its += h->it_newton[r] == i;
    printf("  step %lld: %.3f s, %lld iterations, inner %s, Psi %.10g, mode bound %.3g\n",
           (long long)i, h->st_time[i] - prev, (long long)its,
           sgp_laplace_stop_name(h->st_inner_stop[i]), h->st_psi[i], h->st_mode_err[i]);
    prev = h->st_time[i];
  }
  if (!strcmp(mode, "exact"))
    for (int rep = 0; rep < 3; rep++)
      printf("  one dpotrf of K + W^-1 (n = %lld): %.3f s\n", (long long)n,
             time_cholesky(&ctx, fit, &o.kernel, n));
  sgp_laplace_fit_free(fit);
  free(X); free(y); free(off);
  return 0;
}
