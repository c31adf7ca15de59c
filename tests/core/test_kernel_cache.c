/* test_kernel_cache.c -- the dense operator's cached K kept as its lower triangle
 * (core/kernels/kernel_cache.c): the fill writes exactly the lower triangle, the tiled
 * symmetric product equals the untiled full product, and the untouched upper
 * half never becomes resident.
 * Oracles: the naive kernel matrix th_kernel_matrix; the full symmetric matrix
 * (the filled triangle mirrored) times V by plain loops (th_matmul); NaN in the
 * strictly upper part (any read of it would show in the product); mincore(2). */
#if defined(__linux__)
#define _DEFAULT_SOURCE /* mincore */
#endif
#include "test_helpers.h"
#include "kernels/kernel_cache.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

static sgp_cmat cview(const double *p, int64_t rows, int64_t cols, int64_t ld)
{
  sgp_cmat m = sgp_cmat_of(p, rows, cols);
  m.ld = ld;
  return m;
}

static sgp_mat mview(double *p, int64_t rows, int64_t cols, int64_t ld)
{
  sgp_mat m = sgp_mat_of(p, rows, cols);
  m.ld = ld;
  return m;
}

typedef struct {
  int64_t n, d;
  double *X, ell[3];
  sgp_kernel k;
  sgp_kprep prep;
  double *center;
} kdata;

static void make_kdata(sgp_ctx *ctx, kdata *s, int64_t n, sgp_kernel_kind kind)
{
  s->n = n;
  s->d = 3;
  s->X = th_zeros(n * s->d);
  th_randn(&ctx->rng, n * s->d, s->X, 1.0, 0.0);
  for (int l = 0; l < 3; l++) s->ell[l] = 0.5 + sgp_rng_uniform(&ctx->rng);
  s->k.kind = kind;
  s->k.lengthscale = s->ell;
  s->k.n_lengthscale = 3;
  s->k.outputscale = 1.3;
  const sgp_cmat X = sgp_cmat_of(s->X, n, s->d);
  assert_int_equal(sgp_column_means(ctx, X, &s->center), SGP_OK);
  assert_int_equal(sgp_kprep_init(ctx, &s->k, X, s->center, &s->prep, "x"), SGP_OK);
}

static void free_kdata(kdata *s)
{
  sgp_kprep_free(&s->prep);
  free(s->center);
  free(s->X);
}

/* Fill over an array whose strictly upper part holds NaN: the lower triangle must
 * match the naive kernel and the NaN must survive (nothing written above). */
static double *fill_checked(sgp_ctx *ctx, const kdata *s)
{
  const int64_t n = s->n;
  double *K = th_zeros(n * n), *Kref = th_zeros(n * n);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < j; i++) K[i + j * n] = NAN;
  assert_int_equal(sgp_kcache_fill(ctx, &s->k, &s->prep, K), SGP_OK);
  th_kernel_matrix(s->k.kind, s->k.outputscale, s->ell, 3, s->X, n, s->X, n, 3, Kref);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) {
      if (i < j && !isnan(K[i + j * n])) fail_msg("upper entry (%lld, %lld) written", (long long)i, (long long)j);
      if (i >= j && !(fabs(K[i + j * n] - Kref[i + j * n]) <= 1e-12))
        fail_msg("K(%lld, %lld) = %.17g, naive %.17g", (long long)i, (long long)j, K[i + j * n],
                 Kref[i + j * n]);
    }
  free(Kref);
  return K;
}

/* Tiled symmetric product (views with ld > rows, private accumulators and column
 * chunks) == untiled full product to 1e-12, for every tile, thread count, width
 * and accumulator budget; bitwise repeatable for a fixed thread count and tile. */
static void check_product(int64_t n, uint64_t seed)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, seed);
  kdata s;
  make_kdata(&ctx, &s, n, SGP_KERNEL_MATERN32);
  double *K = fill_checked(&ctx, &s), *Kfull = th_zeros(n * n);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i < n; i++) Kfull[i + j * n] = i >= j ? K[i + j * n] : K[j + i * n];
  const int tiles[] = {0, 1, 7, 64, 512};
  const int threads[] = {1, 2, 3};
  const int64_t widths[] = {1, 10};
  for (int w = 0; w < 2; w++) {
    const int64_t nb = widths[w], ld = n + 3;
    const int64_t budgets[] = {SGP_KCACHE_ACC_DOUBLES, n, 3 * n}; /* 1 or 3 columns a pass */
    double *V = th_zeros(ld * nb), *Vc = th_zeros(n * nb), *Yref = th_zeros(n * nb),
           *Y = th_zeros(ld * nb), *Y1 = th_zeros(ld * nb);
    th_randn(&ctx.rng, ld * nb, V, 1.0, 0.0);
    for (int64_t c = 0; c < nb; c++) memcpy(Vc + c * n, V + c * ld, (size_t)n * sizeof(double));
    th_matmul(n, nb, n, Kfull, Vc, Yref);
    const double scale = th_max_abs(n * nb, Yref);
    for (int t = 0; t < 5; t++)
      for (int h = 0; h < 3; h++)
        if (tiles[t] != 1 || n <= 200) /* 1 x 1 tiles: small n only (time) */
        for (int b = 0; b < 3; b++) {
          ctx.nthreads = threads[h];
          for (int64_t q = 0; q < ld * nb; q++) Y[q] = -7.0; /* padding must survive */
          assert_int_equal(sgp_kcache_apply_chunked(&ctx, K, n, cview(V, n, nb, ld),
                                                    mview(Y, n, nb, ld), tiles[t],
                                                    budgets[b]),
                           SGP_OK);
          double err = 0.0;
          for (int64_t c = 0; c < nb; c++) {
            for (int64_t i = 0; i < n; i++) {
              const double e = fabs(Y[i + c * ld] - Yref[i + c * n]);
              if (!(e <= err)) err = isnan(e) ? INFINITY : e; /* NaN: an upper entry was read */
            }
            for (int64_t i = n; i < ld; i++) assert_true(Y[i + c * ld] == -7.0);
          }
          if (!(err <= 1e-12 * scale))
            fail_msg("n=%lld tile=%d threads=%d b=%lld budget=%lld: error %.3g (max |Y| %.3g)",
                     (long long)n, tiles[t], threads[h], (long long)nb, (long long)budgets[b],
                     err, scale);
          if (b == 0) memcpy(Y1, Y, (size_t)(ld * nb) * sizeof(double));
          else if (b == 2 && nb == 1) /* a single column: same arithmetic as b == 0 */
            assert_memory_equal(Y, Y1, (size_t)(ld * nb) * sizeof(double));
        }
    /* repeatable: the same call twice gives the same bits */
    ctx.nthreads = 2;
    for (int r = 0; r < 2; r++)
      assert_int_equal(sgp_kcache_apply(&ctx, K, n, cview(V, n, nb, ld),
                                        mview(r ? Y : Y1, n, nb, ld), 7), SGP_OK);
    assert_memory_equal(Y, Y1, (size_t)(ld * nb) * sizeof(double));
    free(V); free(Vc); free(Yref); free(Y); free(Y1);
  }
  free(K); free(Kfull);
  free_kdata(&s);
}

static void product_matches_full_matrix_small(void **state)
{
  (void)state;
  check_product(1, 1);
  check_product(5, 2);
  check_product(170, 3);
}

/* More tiles than threads and a ragged last tile of the default size. */
static void product_matches_full_matrix_default_tiles(void **state)
{
  (void)state;
  check_product(1100, 4);
}

/* The strictly upper half of a cache is never faulted in: resident pages of a
 * filled n-by-n cache stay below the lower triangle plus one partial page per
 * column (a full fill would make all of it resident). n is chosen so that the
 * block exceeds glibc's largest mmap threshold: fresh, untouched pages. */
static void upper_half_is_never_resident(void **state)
{
  (void)state;
#if defined(__linux__) && !defined(__SANITIZE_ADDRESS__)
  const int64_t n = 2100;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.nthreads = 2;
  kdata s;
  make_kdata(&ctx, &s, n, SGP_KERNEL_RBF);
  double *K = sgp_kcache_alloc(n);
  assert_non_null(K);
  assert_int_equal(sgp_kcache_fill(&ctx, &s.k, &s.prep, K), SGP_OK);
  double *V = th_zeros(n), *Y = th_zeros(n);
  V[0] = 1.0;
  assert_int_equal(sgp_kcache_apply(&ctx, K, n, sgp_cmat_of(V, n, 1), sgp_mat_of(Y, n, 1), 0),
                   SGP_OK);
  assert_true(Y[n - 1] == K[n - 1]); /* column 0 of K */
  const size_t page = (size_t)sysconf(_SC_PAGESIZE), bytes = (size_t)(n * n) * sizeof(double);
  const uintptr_t a0 = (uintptr_t)K / page * page;
  const size_t len = (uintptr_t)K + bytes - a0, npages = (len + page - 1) / page;
  unsigned char *vec = (unsigned char *)malloc(npages);
  assert_non_null(vec);
  assert_int_equal(mincore((void *)a0, len, vec), 0);
  size_t resident = 0;
  for (size_t p = 0; p < npages; p++) resident += vec[p] & 1;
  const double bound = (double)(n * (n + 1) / 2) * 8.0 + (double)(n + 2) * (double)page;
  if (!((double)resident * (double)page <= bound))
    fail_msg("%zu of %zu pages resident (bound %.0f pages)", resident, npages,
             bound / (double)page);
  free(vec); free(V); free(Y); free(K);
  free_kdata(&s);
#else
  skip();
#endif
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(product_matches_full_matrix_small),
    cmocka_unit_test(product_matches_full_matrix_default_tiles),
    cmocka_unit_test(upper_half_is_never_resident),
  };
  return cmocka_run_group_tests_name("kernel_cache", tests, NULL, NULL);
}
