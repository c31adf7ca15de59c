/* bench_cuda.c -- GPU against 2-thread CPU for the operators the CUDA backend
 * accelerates. Run on a machine with a GPU:
 *   make bench-cuda            (BENCH_CUDA_QUICK=1 for a smaller smoke run)
 * Prints a table and one BENCH line per figure. Without a device it says so
 * and exits 0. */
#include "runtime/sgp_internal.h"
#include "backend/cuda_backend.h"
#include "laplace/laplace.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>

static double now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Median seconds of reps applications after one warm-up. */
static double time_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx, int reps)
{
  double t[16];
  if (op->apply(op, V, Y, ctx)) { fprintf(stderr, "apply failed: %s\n", ctx->errmsg); exit(1); }
  for (int r = 0; r < reps; r++) {
    const double t0 = now();
    if (op->apply(op, V, Y, ctx)) { fprintf(stderr, "apply failed: %s\n", ctx->errmsg); exit(1); }
    t[r] = now() - t0;
  }
  qsort(t, (size_t)reps, sizeof *t, cmp);
  return t[reps / 2];
}

static double max_rel_diff(int64_t len, const double *a, const double *b)
{
  double e = 0, s = 0;
  for (int64_t i = 0; i < len; i++) {
    const double d = a[i] - b[i] < 0 ? b[i] - a[i] : a[i] - b[i];
    const double m = b[i] < 0 ? -b[i] : b[i];
    if (d > e) e = d;
    if (m > s) s = m;
  }
  return s > 0 ? e / s : e;
}

static void bench_kernel(int64_t n, int64_t d, int64_t b, int cpu_reps, int gpu_reps)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 1);
  double *X = sgp_alloc(n * d), *V = sgp_alloc(n * b), *Yc = sgp_alloc(n * b),
         *Yg = sgp_alloc(n * b), ell = 1.0;
  for (int64_t i = 0; i < n * d; i++) X[i] = sgp_rng_normal(&rng);
  for (int64_t i = 0; i < n * b; i++) V[i] = sgp_rng_normal(&rng);
  sgp_kernel k = {SGP_KERNEL_MATERN32, &ell, 1, 1.0};
  sgp_dense_op_opts o;
  sgp_dense_op_opts_default(&o);
  sgp_ctx cpu, gpu;
  sgp_ctx_init(&cpu);
  sgp_ctx_init(&gpu);
  cpu.backend = SGP_BACKEND_CPU;
  cpu.nthreads = 2;
  gpu.backend = SGP_BACKEND_CUDA;
  sgp_op opc, opg;
  sgp_cmat Xv = {X, n, d, n}, Vv = {V, n, b, n};
  if (sgp_op_dense_kernel(&cpu, &k, Xv, &o, &opc, NULL) ||
      sgp_op_dense_kernel(&gpu, &k, Xv, &o, &opg, NULL)) {
    fprintf(stderr, "operator setup failed: %s %s\n", cpu.errmsg, gpu.errmsg);
    exit(1);
  }
  const double tc = time_apply(&opc, Vv, (sgp_mat){Yc, n, b, n}, &cpu, cpu_reps);
  const double tg = time_apply(&opg, Vv, (sgp_mat){Yg, n, b, n}, &gpu, gpu_reps);
  const double err = max_rel_diff(n * b, Yg, Yc);
  printf("K V  n=%-8lld d=%-3lld b=%-3lld  cpu(2 thr) %9.3f s  gpu %8.4f s  speed-up %7.1fx"
         "  (target >= 50x)  rel.diff %.1e\n", (long long)n, (long long)d, (long long)b, tc, tg,
         tc / tg, err);
  printf("BENCH cuda_kernel_product n=%lld d=%lld b=%lld cpu_time=%.4fs gpu_time=%.5fs "
         "speedup=%.1f rel_diff=%.2e\n", (long long)n, (long long)d, (long long)b, tc, tg,
         tc / tg, err);
  sgp_op_destroy(&opc);
  sgp_op_destroy(&opg);
  free(X); free(V); free(Yc); free(Yg);
}

/* One GSGP solver iteration = one K_G product and one B product on grid vectors. */
static void bench_ski(const int64_t *m, int64_t n, int reps)
{
  /* the CPU operators under a CPU context: with "auto" a GPU would take them too */
  sgp_ctx ctx, gpu;
  sgp_ctx_init(&ctx);
  sgp_ctx_init(&gpu);
  ctx.backend = SGP_BACKEND_CPU;
  ctx.nthreads = 2;
  gpu.backend = SGP_BACKEND_CUDA;
  sgp_rng rng;
  sgp_rng_seed(&rng, 2);
  sgp_ski_grid g = {0};
  g.d = 3;
  for (int j = 0; j < 3; j++) { g.m[j] = m[j]; g.lo[j] = 0.0; g.h[j] = 1.0 / (double)(m[j] - 1); }
  sgp_ski_stats *st = NULL;
  if (sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &st)) { fprintf(stderr, "%s\n", ctx.errmsg); exit(1); }
  const int64_t chunk = 1000000;
  double *X = sgp_alloc(chunk * 3), *y = sgp_alloc(chunk);
  for (int64_t done = 0; done < n; done += chunk) {
    const int64_t c = done + chunk <= n ? chunk : n - done;
    for (int64_t i = 0; i < c; i++) {
      for (int j = 0; j < 3; j++) X[i + j * c] = 0.05 + 0.9 * sgp_rng_uniform(&rng);
      y[i] = sgp_rng_normal(&rng);
    }
    if (sgp_ski_stats_accumulate(&ctx, st, (sgp_cmat){X, c, 3, c}, (sgp_cmat){y, c, 1, c}, done,
                                 SGP_SKI_BOUNDS_ERROR)) { fprintf(stderr, "%s\n", ctx.errmsg); exit(1); }
  }
  double ell = 0.1;
  sgp_kernel k = {SGP_KERNEL_MATERN32, &ell, 1, 1.0};
  sgp_ski_kg_opts ko;
  sgp_ski_kg_opts_default(&ko);
  ko.path = SGP_SKI_KG_CIRCULANT;
  sgp_op kg, kgg, B, Bg;
  if (sgp_ski_grid_op(&ctx, &k, &g, &ko, &kg) || sgp_cuda_op_ski_grid(&gpu, &kg, &kgg) ||
      sgp_ski_stats_op(&ctx, st, &B) || sgp_cuda_op_ski_stencil(&gpu, st, &Bg)) {
    fprintf(stderr, "SKI operator setup failed: %s %s\n", ctx.errmsg, gpu.errmsg);
    exit(1);
  }
  const int64_t mt = kg.n;
  double *v = sgp_alloc(mt), *yc = sgp_alloc(mt), *yg = sgp_alloc(mt);
  for (int64_t i = 0; i < mt; i++) v[i] = sgp_rng_normal(&rng);
  sgp_cmat V = {v, mt, 1, mt};
  const double tc = time_apply(&kg, V, (sgp_mat){yc, mt, 1, mt}, &ctx, reps) +
                    time_apply(&B, V, (sgp_mat){yc, mt, 1, mt}, &ctx, reps);
  const double tg = time_apply(&kgg, V, (sgp_mat){yg, mt, 1, mt}, &gpu, reps) +
                    time_apply(&Bg, V, (sgp_mat){yg, mt, 1, mt}, &gpu, reps);
  printf("SKI iteration m=%lld (%lldx%lldx%lld)  cpu(2 thr) %8.4f s  gpu %8.5f s  speed-up %6.1fx"
         "  (target >= 20x)\n", (long long)mt, (long long)m[0], (long long)m[1], (long long)m[2],
         tc, tg, tc / tg);
  printf("BENCH cuda_ski_iteration m=%lld cpu_time=%.5fs gpu_time=%.6fs speedup=%.1f\n",
         (long long)mt, tc, tg, tc / tg);
  sgp_op_destroy(&kgg); sgp_op_destroy(&Bg); sgp_op_destroy(&kg); sgp_op_destroy(&B);
  sgp_ski_stats_free(st);
  free(X); free(y); free(v); free(yc); free(yg);
}


/* The GMM of bench_laplace.R's E4: C = 10 classes in 3-D, n points, labels 1..C in y. */
static void gmm_data(int64_t n, uint64_t seed, double *X, double *y)
{
  sgp_rng rng;
  sgp_rng_seed(&rng, 11); /* the classes are fixed; only the points vary */
  double mu[10][3], L[10][9];
  for (int c = 0; c < 10; c++) {
    double A[9], w[3];
    for (int j = 0; j < 3; j++) mu[c][j] = 2.0 * sgp_rng_uniform(&rng) - 1.0;
    for (int j = 0; j < 9; j++) A[j] = sgp_rng_uniform(&rng);
    double S[9] = {0};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        for (int l = 0; l < 3; l++) S[i + 3 * j] += A[i + 3 * l] * A[j + 3 * l];
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    (void)sgp_syev(&ctx, 3, S, 3, w); /* S now holds U */
    for (int j = 0; j < 3; j++) {
      const double sd = sqrt(0.001 + 0.099 * sgp_rng_uniform(&rng));
      for (int i = 0; i < 3; i++) L[c][i + 3 * j] = S[i + 3 * j] * sd; /* U diag(sqrt(lambda)) */
    }
  }
  sgp_rng_seed(&rng, seed);
  for (int64_t i = 0; i < n; i++) {
    const int c = (int)(i % 10);
    double z[3];
    for (int j = 0; j < 3; j++) z[j] = sgp_rng_normal(&rng);
    for (int r = 0; r < 3; r++) {
      double v = mu[c][r];
      for (int j = 0; j < 3; j++) v += L[c][r + 3 * j] * z[j];
      X[i + r * n] = v;
    }
    y[i] = c + 1;
  }
}

/* gp_laplace softmax on the GMM with the paper's budget (max_iter 5, rank 10). */
static void bench_laplace(int64_t n, sgp_backend backend, double *seconds, double *acc)
{
  double *X = sgp_alloc(n * 3), *y = sgp_alloc(n), ell = 0.05;
  gmm_data(n, 5, X, y);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = backend;
  ctx.nthreads = 2;
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  o.likelihood = SGP_LIK_SOFTMAX;
  o.n_class = 10;
  o.kernel = (sgp_kernel){SGP_KERNEL_MATERN32, &ell, 1, 0.05};
  o.max_iter = 5;
  o.rank = 10;
  o.tol = 0.01;
  sgp_laplace_result *fit = NULL;
  const double t0 = now();
  if (sgp_laplace_fit(&ctx, (sgp_cmat){X, n, 3, n}, (sgp_cmat){y, n, 1, n},
                      (sgp_cmat){NULL, 0, 0, 0}, &o, &fit)) {
    fprintf(stderr, "gp_laplace failed: %s\n", ctx.errmsg);
    exit(1);
  }
  *seconds = now() - t0;
  int64_t right = 0;
  for (int64_t i = 0; i < n; i++) {
    int best = 0;
    for (int c = 1; c < 10; c++)
      if (fit->f[i + c * n] > fit->f[i + best * n]) best = c;
    right += best + 1 == (int)y[i];
  }
  *acc = (double)right / (double)n;
  sgp_laplace_fit_free(fit);
  free(X);
  free(y);
}

int main(void)
{
  if (!sgp_cuda_built() || sgp_cuda_device_count() <= 0) {
    printf("bench_cuda: no CUDA device here (built with CUDA: %s); nothing to measure\n",
           sgp_cuda_built() ? "yes" : "no");
    return 0;
  }
  const int quick = getenv("BENCH_CUDA_QUICK") != NULL;
  const int64_t n = quick ? 20000 : 100000;
  bench_kernel(n, 2, 10, quick ? 3 : 1, 5);
  bench_kernel(n, 16, 10, quick ? 3 : 1, 5);
  const int64_t m[3] = {64, 64, 32};
  bench_ski(m, quick ? 1000000 : 10000000, 5);
  const int64_t nl = quick ? 10000 : 100000;
  double tg, ag;
  bench_laplace(nl, SGP_BACKEND_CUDA, &tg, &ag);
  printf("gp_laplace softmax GMM n=%lld C=10 (max_iter 5, rank 10): gpu %.1f s (target <= 60 s),"
         " train accuracy %.3f\n", (long long)nl, tg, ag);
  printf("BENCH cuda_laplace_gmm n=%lld C=10 rank=10 gpu_time=%.2fs train_acc=%.4f\n",
         (long long)nl, tg, ag);
  if (quick) { /* the CPU run of the full size takes too long for a side-by-side */
    double tc, ac;
    bench_laplace(nl, SGP_BACKEND_CPU, &tc, &ac);
    printf("  cpu (2 threads) %.1f s, train accuracy %.3f\n", tc, ac);
  }
  return 0;
}
