/* test_op.c -- matrix-free kernel products (sgp_kernel_apply), the dense kernel
 * operator (matrix-free and cached), the explicit-matrix operator, and the
 * host hooks (interrupt, progress, print) that these products drive.
 * Oracle: the naive dense kernel th_kernel_matrix times V by plain loops
 * (th_matmul); the interrupt oracle is a hook that counts its calls. */
#include "test_helpers.h"
#include "runtime/sgp_internal.h" /* sgp_say: the print hook's only caller */

#include <stdio.h>
#include <stdlib.h>

static const int tiles[] = {0, 1, 7, 64, 512};
static const int threads[] = {1, 2, 3};
static const int64_t widths[] = {1, 10};

/* Random rows X (n-by-d) and a kernel with ARD lengthscales in [0.5, 1.5]. */
typedef struct {
  int64_t n, d;
  double *X, ell[8];
  sgp_kernel k;
} data_set;

static void make_data(sgp_rng *rng, data_set *s, int64_t n, int64_t d, sgp_kernel_kind kind)
{
  s->n = n;
  s->d = d;
  s->X = th_zeros(n * d);
  th_randn(rng, n * d, s->X, 1.0, 0.0);
  for (int64_t l = 0; l < d; l++) s->ell[l] = 0.5 + sgp_rng_uniform(rng);
  s->k.kind = kind;
  s->k.lengthscale = s->ell;
  s->k.n_lengthscale = d;
  s->k.outputscale = 1.3;
}

/* Yref = k(A, B) V + shift V (shift only when A == B), by the naive oracle. */
static void oracle_product(const data_set *a, const data_set *b, const double *V, int64_t nb,
                           double shift, double *Yref)
{
  double *K = th_zeros(a->n * b->n);
  th_kernel_matrix(a->k.kind, a->k.outputscale, a->ell, a->d, a->X, a->n, b->X, b->n, a->d, K);
  th_matmul(a->n, nb, b->n, K, V, Yref);
  if (shift != 0.0) /* square case only: V has a->n rows */
    for (int64_t i = 0; i < a->n * nb; i++) Yref[i] += shift * V[i];
  free(K);
}

static void assert_product_close(const double *Y, const double *Yref, int64_t len,
                                 const char *what, int tile, int nthreads, int64_t nb)
{
  const double err = th_max_abs_diff(len, Y, Yref), scale = th_max_abs(len, Yref);
  if (!(err <= 1e-10 * scale))
    fail_msg("%s tile=%d threads=%d b=%lld: max abs error %.3g (max |Y| %.3g)", what, tile,
             nthreads, (long long)nb, err, scale);
}

/* ------------------------------------------------------------ sgp_kernel_apply */

/* Rectangular k(X1, X2) V for every tile size, thread count and width; results
 * must not depend on the thread count. */
static void check_kernel_apply(int64_t n1, int64_t n2, int64_t d, sgp_kernel_kind kind,
                               uint64_t seed)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, seed);
  data_set a, b;
  make_data(&ctx.rng, &a, n1, d, kind);
  make_data(&ctx.rng, &b, n2, d, kind);
  b.k = a.k;
  memcpy(b.ell, a.ell, sizeof a.ell);
  for (int w = 0; w < 2; w++) {
    const int64_t nb = widths[w];
    double *V = th_zeros(n2 * nb), *Yref = th_zeros(n1 * nb), *Y = th_zeros(n1 * nb),
           *Y1 = th_zeros(n1 * nb);
    th_randn(&ctx.rng, n2 * nb, V, 1.0, 0.0);
    oracle_product(&a, &b, V, nb, 0.0, Yref);
    for (int t = 0; t < 5; t++)
      for (int h = 0; h < 3; h++) {
        ctx.nthreads = threads[h];
        for (int64_t i = 0; i < n1 * nb; i++) Y[i] = NAN;
        assert_int_equal(sgp_kernel_apply(&ctx, &a.k, sgp_cmat_of(a.X, n1, d),
                                          sgp_cmat_of(b.X, n2, d), sgp_cmat_of(V, n2, nb),
                                          sgp_mat_of(Y, n1, nb), tiles[t]), SGP_OK);
        assert_product_close(Y, Yref, n1 * nb, "kernel_apply", tiles[t], threads[h], nb);
        if (h == 0) memcpy(Y1, Y, (size_t)(n1 * nb) * sizeof(double));
        else assert_le(th_max_abs_diff(n1 * nb, Y, Y1), 1e-12 * th_max_abs(n1 * nb, Y1));
      }
    free(V); free(Yref); free(Y); free(Y1);
  }
  free(a.X); free(b.X);
}

static void kernel_apply_matches_dense_product_small(void **state)
{
  (void)state; /* 150 and 130 are multiples of none of the tile sizes > 1 */
  check_kernel_apply(150, 130, 3, SGP_KERNEL_MATERN32, 1);
  check_kernel_apply(130, 150, 7, SGP_KERNEL_RBF, 2);
}

static void kernel_apply_matches_dense_product_across_default_tiles(void **state)
{
  (void)state; /* several 512-row tiles, the last one partial */
  check_kernel_apply(1100, 700, 2, SGP_KERNEL_MATERN52, 3);
}

/* Strided views: V and Y with ld > rows; Y's padding is left alone. */
static void kernel_apply_respects_leading_dimensions(void **state)
{
  (void)state;
  const int64_t n1 = 40, n2 = 33, d = 2, nb = 3, ldv = n2 + 2, ldy = n1 + 3;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  data_set a, b;
  make_data(&ctx.rng, &a, n1, d, SGP_KERNEL_MATERN12);
  make_data(&ctx.rng, &b, n2, d, SGP_KERNEL_MATERN12);
  memcpy(b.ell, a.ell, sizeof a.ell);
  double *V = th_zeros(n2 * nb), *Vs = th_zeros(ldv * nb), *Ys = th_zeros(ldy * nb),
         *Yref = th_zeros(n1 * nb);
  th_randn(&ctx.rng, n2 * nb, V, 1.0, 0.0);
  for (int64_t j = 0; j < nb; j++)
    for (int64_t i = 0; i < ldv; i++) Vs[i + j * ldv] = i < n2 ? V[i + j * n2] : NAN;
  for (int64_t i = 0; i < ldy * nb; i++) Ys[i] = -3.0;
  oracle_product(&a, &b, V, nb, 0.0, Yref);
  const sgp_cmat vv = {Vs, n2, nb, ldv};
  const sgp_mat yv = {Ys, n1, nb, ldy};
  assert_int_equal(sgp_kernel_apply(&ctx, &a.k, sgp_cmat_of(a.X, n1, d), sgp_cmat_of(b.X, n2, d),
                                    vv, yv, 16), SGP_OK);
  for (int64_t j = 0; j < nb; j++)
    for (int64_t i = 0; i < ldy; i++) {
      if (i < n1) assert_close(Ys[i + j * ldy], Yref[i + j * n1], 1e-10 * th_max_abs(n1 * nb, Yref));
      else assert_true(Ys[i + j * ldy] == -3.0);
    }
  free(V); free(Vs); free(Ys); free(Yref); free(a.X); free(b.X);
}

static void kernel_apply_rejects_bad_arguments(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  data_set a;
  make_data(&ctx.rng, &a, 6, 2, SGP_KERNEL_RBF);
  double V[12] = {0}, Y[12];
  const sgp_cmat X = sgp_cmat_of(a.X, 6, 2);
  assert_int_equal(sgp_kernel_apply(&ctx, &a.k, X, X, sgp_cmat_of(V, 5, 2), sgp_mat_of(Y, 6, 2), 0),
                   SGP_EDIM);
  assert_contains(ctx.errmsg, "v:");
  assert_int_equal(sgp_kernel_apply(&ctx, &a.k, X, X, sgp_cmat_of(V, 6, 2), sgp_mat_of(Y, 6, 1), 0),
                   SGP_EDIM);
  assert_int_equal(sgp_kernel_apply(&ctx, &a.k, X, X, sgp_cmat_of(V, 6, 1), sgp_mat_of(Y, 5, 1), 0),
                   SGP_EDIM);
  assert_int_equal(sgp_kernel_apply(&ctx, &a.k, X, X, sgp_cmat_of(V, 6, 0), sgp_mat_of(Y, 6, 0), 0),
                   SGP_EDIM);
  V[4] = NAN;
  assert_int_equal(sgp_kernel_apply(&ctx, &a.k, X, X, sgp_cmat_of(V, 6, 2), sgp_mat_of(Y, 6, 2), 0),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "v:");
  V[4] = 0.0;
  a.ell[1] = -1.0;
  assert_int_equal(sgp_kernel_apply(&ctx, &a.k, X, X, sgp_cmat_of(V, 6, 2), sgp_mat_of(Y, 6, 2), 0),
                   SGP_EINVAL);
  assert_contains(ctx.errmsg, "lengthscale");
  a.ell[1] = 1.0;
  a.X[3] = INFINITY;
  assert_int_equal(sgp_kernel_apply(&ctx, &a.k, X, X, sgp_cmat_of(V, 6, 2), sgp_mat_of(Y, 6, 2), 0),
                   SGP_EINVAL);
  assert_true(strncmp(ctx.errmsg, "x:", 2) == 0);
  free(a.X);
}

/* ------------------------------------------------------------ dense operator */

static void dense_operator_matches_dense_product(void **state)
{
  (void)state;
  const int64_t n = 170, d = 2;
  const double shift = 0.3;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = SGP_BACKEND_CPU; /* the CPU operator's path: AUTO would take a GPU (test_backend) */
  data_set a;
  make_data(&ctx.rng, &a, n, d, SGP_KERNEL_MATERN52);
  const size_t caches[] = {0, (size_t)1 << 30};
  for (int w = 0; w < 2; w++) {
    const int64_t nb = widths[w];
    double *V = th_zeros(n * nb), *Y = th_zeros(n * nb), *Yref = th_zeros(n * nb),
           *Y1 = th_zeros(n * nb), *dg = th_zeros(n);
    th_randn(&ctx.rng, n * nb, V, 1.0, 0.0);
    oracle_product(&a, &a, V, nb, shift, Yref);
    for (int c = 0; c < 2; c++)
      for (int t = 0; t < 5; t++)
        for (int h = 0; h < 3; h++) {
          sgp_dense_op_opts o;
          sgp_dense_op_opts_default(&o);
          o.shift = shift;
          o.tile = tiles[t];
          o.cache_bytes = caches[c];
          ctx.nthreads = threads[h];
          sgp_op op;
          int cached = -1;
          assert_int_equal(sgp_op_dense_kernel(&ctx, &a.k, sgp_cmat_of(a.X, n, d), &o, &op, &cached),
                           SGP_OK);
          assert_int_equal(cached, c);
          assert_int_equal(op.n, n);
          assert_int_equal(op.apply(&op, sgp_cmat_of(V, n, nb), sgp_mat_of(Y, n, nb), &ctx), SGP_OK);
          assert_product_close(Y, Yref, n * nb, c ? "cached op" : "matrix-free op", tiles[t],
                               threads[h], nb);
          if (c == 0 && t == 0 && h == 0) memcpy(Y1, Y, (size_t)(n * nb) * sizeof(double));
          else assert_le(th_max_abs_diff(n * nb, Y, Y1), 1e-12 * th_max_abs(n * nb, Y1));
          assert_int_equal(op.diag(&op, sgp_mat_of(dg, n, 1), &ctx), SGP_OK);
          for (int64_t i = 0; i < n; i++) assert_close(dg[i], a.k.outputscale + shift, 1e-15);
          sgp_op_destroy(&op);
          assert_null(op.state);
        }
    free(V); free(Y); free(Yref); free(Y1); free(dg);
  }
  free(a.X);
}

/* The cache is used exactly when 8 n^2 bytes fit the budget. */
static void dense_operator_cache_threshold(void **state)
{
  (void)state;
  const int64_t n = 30;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = SGP_BACKEND_CPU; /* the CPU operator's path: AUTO would take a GPU (test_backend) */
  data_set a;
  make_data(&ctx.rng, &a, n, 3, SGP_KERNEL_RBF);
  sgp_dense_op_opts o;
  sgp_dense_op_opts_default(&o);
  assert_true(o.shift == 0.0);
  assert_int_equal(o.tile, 512);
  assert_int_equal(o.cache_bytes, 0);
  const size_t budgets[] = {0, 8 * n * n - 1, 8 * n * n};
  for (int i = 0; i < 3; i++) {
    o.cache_bytes = budgets[i];
    sgp_op op;
    int cached = -1;
    assert_int_equal(sgp_op_dense_kernel(&ctx, &a.k, sgp_cmat_of(a.X, n, 3), &o, &op, &cached),
                     SGP_OK);
    assert_int_equal(cached, i == 2);
    sgp_op_destroy(&op);
    /* cached may be NULL */
    assert_int_equal(sgp_op_dense_kernel(&ctx, &a.k, sgp_cmat_of(a.X, n, 3), &o, &op, NULL), SGP_OK);
    sgp_op_destroy(&op);
  }
  free(a.X);
}

static void operators_reject_bad_arguments(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  data_set a;
  make_data(&ctx.rng, &a, 8, 2, SGP_KERNEL_MATERN12);
  sgp_dense_op_opts o;
  sgp_dense_op_opts_default(&o);
  sgp_op op;
  o.tile = -1;
  assert_int_equal(sgp_op_dense_kernel(&ctx, &a.k, sgp_cmat_of(a.X, 8, 2), &o, &op, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "tile");
  assert_null(op.state);
  sgp_op_destroy(&op); /* safe on a failed (zeroed) operator */
  o.tile = 0;
  a.k.outputscale = 0.0;
  assert_int_equal(sgp_op_dense_kernel(&ctx, &a.k, sgp_cmat_of(a.X, 8, 2), &o, &op, NULL), SGP_EINVAL);
  assert_contains(ctx.errmsg, "outputscale");
  a.k.outputscale = 1.0;
  assert_int_equal(sgp_op_dense_kernel(&ctx, &a.k, sgp_cmat_of(a.X, 8, 2), &o, &op, NULL), SGP_OK);
  double V[16] = {0}, Y[16];
  assert_int_equal(op.apply(&op, sgp_cmat_of(V, 7, 2), sgp_mat_of(Y, 8, 2), &ctx), SGP_EDIM);
  assert_contains(ctx.errmsg, "operator");
  assert_int_equal(op.apply(&op, sgp_cmat_of(V, 8, 2), sgp_mat_of(Y, 8, 1), &ctx), SGP_EDIM);
  assert_int_equal(op.diag(&op, sgp_mat_of(Y, 7, 1), &ctx), SGP_EDIM);
  sgp_op_destroy(&op);
  sgp_op_destroy(&op); /* twice is safe */
  sgp_op_destroy(NULL);
  assert_int_equal(sgp_op_matrix(&ctx, sgp_cmat_of(a.X, 8, 2), &op), SGP_EDIM);
  assert_contains(ctx.errmsg, "A:");
  sgp_op_destroy(&op);
  free(a.X);
}

static void matrix_operator_matches_loops(void **state)
{
  (void)state;
  const int64_t n = 45, nb = 4;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double *A = th_zeros(n * n), *V = th_zeros(n * nb), *Y = th_zeros(n * nb),
         *Yref = th_zeros(n * nb), *dg = th_zeros(n);
  th_random_spd(&ctx.rng, n, 0.5, A);
  th_randn(&ctx.rng, n * nb, V, 1.0, 0.0);
  th_matmul(n, nb, n, A, V, Yref);
  sgp_op op;
  assert_int_equal(sgp_op_matrix(&ctx, sgp_cmat_of(A, n, n), &op), SGP_OK);
  assert_int_equal(op.apply(&op, sgp_cmat_of(V, n, nb), sgp_mat_of(Y, n, nb), &ctx), SGP_OK);
  assert_le(th_max_abs_diff(n * nb, Y, Yref), 1e-12 * th_max_abs(n * nb, Yref));
  assert_int_equal(op.diag(&op, sgp_mat_of(dg, n, 1), &ctx), SGP_OK);
  for (int64_t i = 0; i < n; i++) assert_true(dg[i] == A[i + i * n]);
  assert_int_equal(op.apply(&op, sgp_cmat_of(V, n - 1, nb), sgp_mat_of(Y, n, nb), &ctx), SGP_EDIM);
  sgp_op_destroy(&op);
  free(A); free(V); free(Y); free(Yref); free(dg);
}

/* ------------------------------------------------------------ hooks */

/* Counts its calls and asks to stop once it has been called more than
 * stop_after times (stop_after < 0: never). Also records whether it ran
 * inside a parallel region, which the API forbids. */
typedef struct {
  int calls, stop_after, in_parallel;
  int progress_calls, progress_bad;
  double last_fraction;
  int print_calls;
  char last_line[128];
} hook_log;

static int counting_interrupt(void *ud)
{
  hook_log *h = (hook_log *)ud;
  h->calls++;
#ifdef _OPENMP
  if (omp_in_parallel() || omp_get_thread_num() != 0) h->in_parallel = 1;
#endif
  return h->stop_after >= 0 && h->calls > h->stop_after;
}

static void recording_progress(void *ud, const char *task, double fraction)
{
  hook_log *h = (hook_log *)ud;
  h->progress_calls++;
  if (!task || !(fraction >= 0.0 && fraction <= 1.0)) h->progress_bad = 1;
#ifdef _OPENMP
  if (omp_in_parallel()) h->in_parallel = 1;
#endif
  h->last_fraction = fraction;
}

static void recording_print(void *ud, const char *msg)
{
  hook_log *h = (hook_log *)ud;
  h->print_calls++;
  snprintf(h->last_line, sizeof h->last_line, "%s", msg);
}

static void hooked_ctx(sgp_ctx *ctx, hook_log *h, int stop_after, int nthreads)
{
  memset(h, 0, sizeof *h);
  h->stop_after = stop_after;
  sgp_ctx_init(ctx);
  ctx->backend = SGP_BACKEND_CPU; /* the CPU operator's path: AUTO would take a GPU (test_backend) */
  ctx->interrupt = counting_interrupt;
  ctx->progress = recording_progress;
  ctx->print = recording_print;
  ctx->user_data = h;
  ctx->nthreads = nthreads;
}

typedef struct {
  data_set a;
  double *V, *Y;
} big_fixture;

enum { BIG_N = 3000 };

static int big_setup(void **state)
{
  big_fixture *f = (big_fixture *)calloc(1, sizeof *f);
  if (!f) return -1;
  sgp_rng rng;
  sgp_rng_seed(&rng, 77);
  make_data(&rng, &f->a, BIG_N, 2, SGP_KERNEL_MATERN32);
  f->V = th_zeros(BIG_N);
  f->Y = th_zeros(BIG_N);
  th_randn(&rng, BIG_N, f->V, 1.0, 0.0);
  *state = f;
  return 0;
}

static int big_teardown(void **state)
{
  big_fixture *f = (big_fixture *)*state;
  free(f->a.X); free(f->V); free(f->Y); free(f);
  return 0;
}

static void interrupt_hook_is_polled_during_long_product(void **state)
{
  big_fixture *f = (big_fixture *)*state;
  const sgp_cmat X = sgp_cmat_of(f->a.X, BIG_N, 2);
  for (int h = 0; h < 3; h++) {
    sgp_ctx ctx;
    hook_log log;
    hooked_ctx(&ctx, &log, -1, threads[h]);
    assert_int_equal(sgp_kernel_apply(&ctx, &f->a.k, X, X, sgp_cmat_of(f->V, BIG_N, 1),
                                      sgp_mat_of(f->Y, BIG_N, 1), 0), SGP_OK);
    assert_true(log.calls >= 1);
    assert_int_equal(log.in_parallel, 0);
  }
  /* the uninterrupted product is right: first row against the oracle */
  double *K = th_zeros(BIG_N), y0 = 0.0, x0[2] = {f->a.X[0], f->a.X[BIG_N]};
  th_kernel_matrix(f->a.k.kind, f->a.k.outputscale, f->a.ell, 2, x0, 1, f->a.X, BIG_N, 2, K);
  for (int64_t j = 0; j < BIG_N; j++) y0 += K[j] * f->V[j];
  assert_close(f->Y[0], y0, 1e-10 * fabs(y0) + 1e-12);
  free(K);
}

static void interrupt_stops_kernel_apply(void **state)
{
  big_fixture *f = (big_fixture *)*state;
  const sgp_cmat X = sgp_cmat_of(f->a.X, BIG_N, 2);
  for (int h = 0; h < 3; h++) {
    sgp_ctx ctx;
    hook_log log;
    hooked_ctx(&ctx, &log, 2, threads[h]); /* 64-row tiles: 47 tiles, >= 3 blocks */
    assert_int_equal(sgp_kernel_apply(&ctx, &f->a.k, X, X, sgp_cmat_of(f->V, BIG_N, 1),
                                      sgp_mat_of(f->Y, BIG_N, 1), 64), SGP_EINTERRUPT);
    assert_contains(ctx.errmsg, "interrupt");
    assert_int_equal(log.calls, 3); /* stopped at the first poll that said so */
    assert_int_equal(log.in_parallel, 0);
  }
}

static void interrupt_stops_dense_operator(void **state)
{
  big_fixture *f = (big_fixture *)*state;
  sgp_ctx ctx;
  hook_log log;
  hooked_ctx(&ctx, &log, -1, 2);
  sgp_dense_op_opts o;
  sgp_dense_op_opts_default(&o);
  o.tile = 64;
  sgp_op op;
  assert_int_equal(sgp_op_dense_kernel(&ctx, &f->a.k, sgp_cmat_of(f->a.X, BIG_N, 2), &o, &op, NULL),
                   SGP_OK);
  log.stop_after = log.calls + 1;
  assert_int_equal(op.apply(&op, sgp_cmat_of(f->V, BIG_N, 1), sgp_mat_of(f->Y, BIG_N, 1), &ctx),
                   SGP_EINTERRUPT);
  assert_contains(ctx.errmsg, "interrupt");
  sgp_op_destroy(&op);

  /* cached operator: interrupted while filling the cache (no leak of the
   * half-built state), then interrupted in apply */
  const int64_t n = 1100;
  const sgp_cmat Xs = sgp_cmat_of(f->a.X, n, 2);
  o.cache_bytes = (size_t)1 << 30;
  hooked_ctx(&ctx, &log, 1, 2);
  int cached = -1;
  assert_int_equal(sgp_op_dense_kernel(&ctx, &f->a.k, Xs, &o, &op, &cached), SGP_EINTERRUPT);
  assert_contains(ctx.errmsg, "interrupt");
  assert_null(op.state);
  assert_int_equal(cached, 0);
  sgp_op_destroy(&op);
  log.stop_after = -1;
  assert_int_equal(sgp_op_dense_kernel(&ctx, &f->a.k, Xs, &o, &op, &cached), SGP_OK);
  assert_int_equal(cached, 1);
  log.stop_after = 0;
  assert_int_equal(op.apply(&op, sgp_cmat_of(f->V, n, 1), sgp_mat_of(f->Y, n, 1), &ctx),
                   SGP_EINTERRUPT);
  assert_contains(ctx.errmsg, "interrupt");
  sgp_op_destroy(&op);
}

static void interrupt_stops_cg_and_lanczos(void **state)
{
  big_fixture *f = (big_fixture *)*state;
  const int64_t n = 600;
  sgp_ctx ctx;
  hook_log log;
  hooked_ctx(&ctx, &log, -1, 2);
  sgp_dense_op_opts o;
  sgp_dense_op_opts_default(&o);
  o.tile = 64;
  o.shift = 0.1;
  sgp_op op;
  assert_int_equal(sgp_op_dense_kernel(&ctx, &f->a.k, sgp_cmat_of(f->a.X, n, 2), &o, &op, NULL),
                   SGP_OK);
  double *X = th_zeros(n), *Q = th_zeros(n * 5), a[5], b[5];
  sgp_cg_opts co;
  sgp_cg_opts_default(&co);
  sgp_cg_info info;
  /* interrupted inside an operator application, then by CG's own poll */
  /* (the product polls twice per call, CG once per iteration: calls 3, 6, 9, 12 are CG's) */
  for (int stop = 1; stop <= 11; stop += 10) {
    memset(X, 0, (size_t)n * sizeof(double));
    hooked_ctx(&ctx, &log, stop, 2);
    assert_int_equal(sgp_cg(&ctx, &op, sgp_cmat_of(f->V, n, 1), sgp_mat_of(X, n, 1), &co, &info,
                            NULL, NULL), SGP_EINTERRUPT);
    assert_contains(ctx.errmsg, "interrupt");
    assert_int_equal(log.calls, stop + 1);
  }
  /* explicit-matrix operator (never polls): only CG's per-iteration poll */
  double *A = th_zeros(50 * 50);
  sgp_op mop;
  th_random_spd(&ctx.rng, 50, 0.1, A);
  assert_int_equal(sgp_op_matrix(&ctx, sgp_cmat_of(A, 50, 50), &mop), SGP_OK);
  hooked_ctx(&ctx, &log, 3, 1);
  memset(X, 0, 50 * sizeof(double));
  assert_int_equal(sgp_cg(&ctx, &mop, sgp_cmat_of(f->V, 50, 1), sgp_mat_of(X, 50, 1), &co, &info,
                          NULL, NULL), SGP_EINTERRUPT);
  assert_int_equal(log.calls, 4);
  int steps = -1;
  hooked_ctx(&ctx, &log, 2, 1);
  assert_int_equal(sgp_lanczos(&ctx, &mop, f->V, 5, a, b, sgp_mat_of(Q, 50, 5), &steps),
                   SGP_EINTERRUPT);
  assert_contains(ctx.errmsg, "interrupt");
  assert_int_equal(steps, 2);
  hooked_ctx(&ctx, &log, 0, 1); /* without a caller's basis: the internal one is freed */
  assert_int_equal(sgp_lanczos(&ctx, &mop, f->V, 5, a, b, sgp_mat_of(NULL, 0, 0), &steps),
                   SGP_EINTERRUPT);
  sgp_op_destroy(&mop);
  sgp_op_destroy(&op);
  free(X); free(Q); free(A);
}

static void progress_hook_follows_verbose(void **state)
{
  big_fixture *f = (big_fixture *)*state;
  const int64_t n = 1200;
  const sgp_cmat X = sgp_cmat_of(f->a.X, n, 2);
  sgp_ctx ctx;
  hook_log log;
  for (int verbose = 0; verbose <= 1; verbose++) {
    hooked_ctx(&ctx, &log, -1, 2);
    ctx.verbose = verbose;
    assert_int_equal(sgp_kernel_apply(&ctx, &f->a.k, X, X, sgp_cmat_of(f->V, n, 1),
                                      sgp_mat_of(f->Y, n, 1), 64), SGP_OK);
    sgp_say(&ctx, "summary %d of %s", 7, "kernel");
    if (!verbose) {
      assert_int_equal(log.progress_calls, 0);
      assert_int_equal(log.print_calls, 0);
    } else {
      assert_true(log.progress_calls >= 2);
      assert_int_equal(log.progress_bad, 0);
      assert_close(log.last_fraction, 1.0, 0.0);
      assert_int_equal(log.print_calls, 1);
      assert_string_equal(log.last_line, "summary 7 of kernel");
    }
    assert_int_equal(log.in_parallel, 0);
  }
  /* CG reports progress too, only when verbose */
  double *A = th_zeros(50 * 50), *Xs = th_zeros(50);
  sgp_rng rng;
  sgp_rng_seed(&rng, 5);
  th_random_spd(&rng, 50, 0.5, A);
  sgp_op mop;
  assert_int_equal(sgp_op_matrix(&ctx, sgp_cmat_of(A, 50, 50), &mop), SGP_OK);
  sgp_cg_opts co;
  sgp_cg_opts_default(&co);
  sgp_cg_info info;
  for (int verbose = 0; verbose <= 1; verbose++) {
    hooked_ctx(&ctx, &log, -1, 1);
    ctx.verbose = verbose;
    memset(Xs, 0, 50 * sizeof(double));
    assert_int_equal(sgp_cg(&ctx, &mop, sgp_cmat_of(f->V, 50, 1), sgp_mat_of(Xs, 50, 1), &co, &info,
                            NULL, NULL), SGP_OK);
    assert_int_equal(log.progress_calls, verbose ? info.iterations : 0);
    assert_int_equal(log.progress_bad, 0);
  }
  sgp_op_destroy(&mop);
  free(A); free(Xs);
  /* verbose without hooks is harmless */
  sgp_ctx_init(&ctx);
  ctx.verbose = 1;
  sgp_say(&ctx, "nobody listens");
  assert_int_equal(sgp_kernel_apply(&ctx, &f->a.k, X, X, sgp_cmat_of(f->V, n, 1),
                                    sgp_mat_of(f->Y, n, 1), 0), SGP_OK);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(kernel_apply_matches_dense_product_small),
    cmocka_unit_test(kernel_apply_matches_dense_product_across_default_tiles),
    cmocka_unit_test(kernel_apply_respects_leading_dimensions),
    cmocka_unit_test(kernel_apply_rejects_bad_arguments),
    cmocka_unit_test(dense_operator_matches_dense_product),
    cmocka_unit_test(dense_operator_cache_threshold),
    cmocka_unit_test(operators_reject_bad_arguments),
    cmocka_unit_test(matrix_operator_matches_loops),
    cmocka_unit_test(interrupt_hook_is_polled_during_long_product),
    cmocka_unit_test(interrupt_stops_kernel_apply),
    cmocka_unit_test(interrupt_stops_dense_operator),
    cmocka_unit_test(interrupt_stops_cg_and_lanczos),
    cmocka_unit_test(progress_hook_follows_verbose),
  };
  return cmocka_run_group_tests_name("op", tests, big_setup, big_teardown);
}
