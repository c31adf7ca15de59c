/* bench_kernel_bound.c -- the matrix-free symmetric product Y = K V (K = k(X, X)
 * never stored, V n x b) against its physical bound on this machine,
 * all measured in one run with the same thread count:
 *   R_gemm  the DGEMM rate: each thread multiplies its own 1024^3 square matrices
 *           (serial BLAS per thread, as the product's tiles run);
 *   R_exp   the rate of the tiles' vectorized exponential (kernel_exp.h) over
 *           L1-resident arrays, one array per thread;
 *   bound   2 n^2 b / R_gemm (the products of the tiles)
 *         + (n^2 / 2) / R_exp (one exponential per entry on and below the diagonal)
 *         + (n^2 / 2) 2 d / R_gemm (the distances' flops, at the GEMM rate);
 *   ratio   measured / bound (min and median of the repetitions).
 * Every figure is taken twice: by the wall clock, and by the process's CPU
 * seconds divided by the threads (the same on an idle machine; on a loaded one
 * the CPU figures leave out the time other processes held the cores).
 * Every case also checks that 1 thread gives the same bits as `threads` threads.
 * One `BENCH kernel_rates` line and one `BENCH kernel_bound` line per case
 * (make bench-report tabulates them).
 * Build and run (as the package builds): make bench-kernel ARGS="reps threads n..."
 * Not part of make check. */
#define _POSIX_C_SOURCE 200809L
#include "kernels/kernels.h"
#include "kernels/kernel_exp.h"

#include <math.h>
#include <omp.h>
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

static double cpu_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* flops per second of `threads` concurrent serial 1024^3 DGEMMs (best of 3);
 *cpu_rate: the same per CPU second of each thread */
static double gemm_rate(sgp_ctx *ctx, int threads, double *cpu_rate)
{
  const int64_t m = 1024;
  double best = 0.0;
  *cpu_rate = 0.0;
  const int saved = sgp_blas_serial_begin();
  for (int rep = 0; rep < 3; rep++) {
    double t0 = 0.0, t1 = 0.0, c0 = 0.0, c1 = 0.0;
#pragma omp parallel num_threads(threads)
    {
      double *a = malloc((size_t)(3 * m * m) * sizeof(double)), *b = a + m * m, *c = b + m * m;
      for (int64_t i = 0; i < 3 * m * m; i++) a[i] = 1.0 / (double)(1 + i % 7);
#pragma omp barrier
#pragma omp single
      t0 = now_s(), c0 = cpu_s();
      (void)sgp_gemm(ctx, 'N', 'N', m, m, m, 1.0, a, m, b, m, 0.0, c, m);
#pragma omp barrier
#pragma omp single
      t1 = now_s(), c1 = cpu_s();
      free(a);
    }
    const double r = (double)threads * 2.0 * (double)(m * m * m) / (t1 - t0);
    const double rc = (double)threads * (double)threads * 2.0 * (double)(m * m * m) / (c1 - c0);
    if (r > best) best = r;
    if (rc > *cpu_rate) *cpu_rate = rc;
  }
  sgp_blas_serial_end(saved);
  return best;
}

/* one sweep of the exponential, cloned for the widest SIMD this CPU has */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
static void exp_sweep(const double *x, double *y, int64_t len)
{
#pragma omp simd
  for (int64_t i = 0; i < len; i++) y[i] = exp_nonpositive(x[i]);
}

/* exponentials per second over L1-resident arrays of arguments in [-40, 0] (best
 * of 3); *cpu_rate: the same per CPU second of each thread */
static double exp_rate(int threads, double *cpu_rate)
{
  const int64_t len = 1024, sweeps = 40000;
  double best = 0.0;
  *cpu_rate = 0.0;
  for (int rep = 0; rep < 3; rep++) {
    double t0 = 0.0, t1 = 0.0, c0 = 0.0, c1 = 0.0, sink = 0.0;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
      double x[1024], y[1024];
      for (int64_t i = 0; i < len; i++) x[i] = -40.0 * (double)i / (double)len;
#pragma omp barrier
#pragma omp single
      t0 = now_s(), c0 = cpu_s();
      for (int64_t s = 0; s < sweeps; s++) {
        exp_sweep(x, y, len);
        x[s % len] = -y[(s * 7) % len]; /* keeps the loop from being hoisted */
      }
#pragma omp barrier
#pragma omp single
      t1 = now_s(), c1 = cpu_s();
      sink += y[0];
    }
    if (sink == 12345.0) printf(" ");
    const double r = (double)threads * (double)(len * sweeps) / (t1 - t0);
    const double rc = (double)threads * (double)threads * (double)(len * sweeps) / (c1 - c0);
    if (r > best) best = r;
    if (rc > *cpu_rate) *cpu_rate = rc;
  }
  return best;
}

static double bound_s(int64_t n, int64_t d, int64_t b, double rg, double re)
{
  const double nn = (double)n * (double)n;
  return 2.0 * nn * (double)b / rg + 0.5 * nn / re + 0.5 * nn * 2.0 * (double)d / rg;
}

/* rates[0..1]: DGEMM and exp by the wall clock; rates[2..3]: by CPU seconds */
static int bench_case(sgp_ctx *ctx, int64_t n, int64_t d, sgp_kernel_kind kind, int64_t b,
                      int threads, int reps, const double *rates)
{
  double *X = malloc((size_t)(n * d) * sizeof(double)), *V = malloc((size_t)(n * b) * sizeof(double));
  double *Y = malloc((size_t)(n * b) * sizeof(double)), *Y1 = malloc((size_t)(n * b) * sizeof(double));
  double *t = malloc((size_t)reps * sizeof(double)), *tc = malloc((size_t)reps * sizeof(double));
  const int tile = getenv("BENCH_TILE") ? atoi(getenv("BENCH_TILE")) : 0; /* 0: the default */
  for (int64_t i = 0; i < n * d; i++) X[i] = sgp_rng_normal(&ctx->rng);
  for (int64_t i = 0; i < n * b; i++) V[i] = sgp_rng_normal(&ctx->rng);
  const double ell = sqrt((double)d); /* about as many neighbours in every d */
  sgp_kernel k = {kind, &ell, 1, 1.0};
  sgp_kprep p;
  int st = sgp_kprep_init(ctx, &k, sgp_cmat_of(X, n, d), NULL, &p, "x");
  for (int r = 0; !st && r < reps; r++) {
    ctx->nthreads = threads;
    const double t0 = now_s(), c0 = cpu_s();
    st = sgp_kernel_apply_symmetric(ctx, &k, &p, sgp_cmat_of(V, n, b), sgp_mat_of(Y, n, b), tile);
    t[r] = now_s() - t0;
    tc[r] = (cpu_s() - c0) / (double)threads;
  }
  ctx->nthreads = 1;
  if (!st) st = sgp_kernel_apply_symmetric(ctx, &k, &p, sgp_cmat_of(V, n, b), sgp_mat_of(Y1, n, b), tile);
  ctx->nthreads = threads;
  if (st) { fprintf(stderr, "error: %s\n", ctx->errmsg); return st; }
  const int same = memcmp(Y, Y1, (size_t)(n * b) * sizeof(double)) == 0;
  qsort(t, (size_t)reps, sizeof(double), cmp_double);
  qsort(tc, (size_t)reps, sizeof(double), cmp_double);
  const double bound = bound_s(n, d, b, rates[0], rates[1]), bc = bound_s(n, d, b, rates[2], rates[3]);
  printf("n=%-6lld d=%-2lld %-8s b=%lld  wall: bound %7.3f s product min %7.3f median %7.3f "
         "ratio %.2f / %.2f  cpu: bound %7.3f product min %7.3f median %7.3f ratio %.2f / %.2f  "
         "threads 1 = %d: %s\n", (long long)n, (long long)d, sgp_kernel_name(kind),
         (long long)b, bound, t[0], t[reps / 2], t[0] / bound, t[reps / 2] / bound, bc, tc[0],
         tc[reps / 2], tc[0] / bc, tc[reps / 2] / bc, threads, same ? "bitwise" : "DIFFERENT");
  printf("BENCH kernel_bound n=%lld d=%lld kernel=%s b=%lld threads=%d bound=%.3fs min=%.3fs "
         "median=%.3fs ratio_min=%.2f ratio_median=%.2f cpu_ratio_median=%.2f bits=%s\n",
         (long long)n, (long long)d, sgp_kernel_name(kind), (long long)b, threads, bound, t[0],
         t[reps / 2], t[0] / bound, t[reps / 2] / bound, tc[reps / 2] / bc,
         same ? "same" : "DIFFERENT");
  fflush(stdout);
  sgp_kprep_free(&p);
  free(X); free(V); free(Y); free(Y1); free(t); free(tc);
  return same ? 0 : 1;
}

int main(int argc, char **argv)
{
  const int reps = argc > 1 ? atoi(argv[1]) : 3, threads = argc > 2 ? atoi(argv[2]) : 2;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 1);
  ctx.nthreads = threads;
  double rates[4];
  rates[0] = gemm_rate(&ctx, threads, &rates[2]);
  rates[1] = exp_rate(threads, &rates[3]);
  printf("threads %d: DGEMM %.1f GFLOP/s (per CPU second of each thread: %.1f), exp %.2f G/s "
         "(%.2f); ratios: min / median\n", threads, rates[0] * 1e-9, rates[2] * 1e-9,
         rates[1] * 1e-9, rates[3] * 1e-9);
  printf("BENCH kernel_rates threads=%d dgemm=%.1fGFLOP/s dgemm_cpu=%.1fGFLOP/s exp=%.2fG/s "
         "exp_cpu=%.2fG/s\n", threads, rates[0] * 1e-9, rates[2] * 1e-9, rates[1] * 1e-9,
         rates[3] * 1e-9);
  int bad = 0;
  const int64_t width = getenv("BENCH_B") ? atoll(getenv("BENCH_B")) : 10; /* b */
  const int64_t ns_default[] = {20000, 100000};
  const int nn = argc > 3 ? argc - 3 : 2;
  for (int in = 0; in < nn; in++) {
    const int64_t n = argc > 3 ? atoll(argv[3 + in]) : ns_default[in];
    const int64_t ds[] = {2, 16};
    const sgp_kernel_kind kinds[] = {SGP_KERNEL_RBF, SGP_KERNEL_MATERN32};
    for (int id = 0; id < 2; id++)
      for (int ik = 0; ik < 2; ik++)
        bad += bench_case(&ctx, n, ds[id], kinds[ik], width, threads, reps, rates) != 0;
  }
  return bad ? 1 : 0;
}
