/* test_ski_fft.c -- products with the grid kernel matrix K_G: the Kronecker-of-Toeplitz and the multilevel circulant paths
 * against the dense K_G V, with K_G = sgp_kernel_matrix on the grid points
 * (first dimension fastest) and the product by plain loops. */
#include "test_helpers.h"
#include "ski/ski.h"

#include <stdio.h>
#include <stdlib.h>

static double max_err_kron = 0.0, max_err_circ = 0.0, max_err_kron_vs_circ = 0.0;
static int ncases = 0;

static sgp_ski_grid make_grid(int d, const int64_t *m)
{
  sgp_ski_grid g;
  memset(&g, 0, sizeof g);
  g.d = d;
  for (int j = 0; j < SGP_SKI_MAX_D; j++) {
    g.m[j] = j < d ? m[j] : 1;
    g.lo[j] = j < d ? -0.7 * j + 0.1 : 0.0;
    g.h[j] = j < d ? 0.3 + 0.1 * j : 1.0;
  }
  return g;
}

static double rel_diff(int64_t rows, int64_t cols, const double *A, int64_t lda,
                       const double *B, int64_t ldb)
{
  double num = 0.0, den = 0.0;
  for (int64_t j = 0; j < cols; j++)
    for (int64_t i = 0; i < rows; i++) {
      const double a = A[i + j * lda], b = B[i + j * ldb];
      const double diff = fabs(a - b);
      if (isnan(diff)) return NAN;
      if (diff > num) num = diff;
      if (fabs(b) > den) den = fabs(b);
    }
  return den > 0 ? num / den : num;
}

/* Y = K_G V by the operator (V and Y with padded leading dimensions) against
 * the dense product; returns the relative max-norm error. */
static double check_case(sgp_kernel_kind kind, int d, const int64_t *m, int ard, int64_t b,
                         const sgp_ski_kg_opts *o, sgp_ski_kg_path expect_path)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 1000 + 17 * (uint64_t)ncases);
  ctx.backend = SGP_BACKEND_CPU; /* the CPU operator's path: AUTO would take a GPU (test_backend) */
  const sgp_ski_grid g = make_grid(d, m);
  const int64_t M = sgp_ski_grid_npoints(&g), ldv = M + 2, ldy = M + 1;
  const double ell[3] = {0.6, 0.8, 0.5}, iso = 0.7;
  const sgp_kernel k = {kind, ard ? ell : &iso, ard ? d : 1, 1.3, 1.0};
  double *P = th_zeros(M * d), *K = th_zeros(M * M), *V = th_zeros(ldv * b),
         *Y = th_zeros(ldy * b), *Vc = th_zeros(M * b), *Yref = th_zeros(M * b);
  assert_int_equal(sgp_ski_grid_points(&ctx, &g, sgp_mat_of(P, M, d)), SGP_OK);
  assert_int_equal(sgp_kernel_matrix(&ctx, &k, sgp_cmat_of(P, M, d), sgp_cmat_of(P, M, d),
                                     sgp_mat_of(K, M, M)), SGP_OK);
  th_randn(&ctx.rng, ldv * b, V, 1.0, 0.0);
  for (int64_t j = 0; j < b; j++) memcpy(Vc + j * M, V + j * ldv, (size_t)M * sizeof *V);
  th_matmul(M, b, M, K, Vc, Yref);
  sgp_op op;
  const int st = sgp_ski_grid_op(&ctx, &k, &g, o, &op);
  if (st) fail_msg("sgp_ski_grid_op: %s", ctx.errmsg);
  assert_int_equal(op.n, M);
  assert_int_equal(sgp_ski_grid_op_path(&op), expect_path);
  sgp_mat Ym = {Y, M, b, ldy};
  sgp_cmat Vm = {V, M, b, ldv};
  assert_int_equal(op.apply(&op, Vm, Ym, &ctx), SGP_OK);
  const double err = rel_diff(M, b, Y, ldy, Yref, M);
  if (!(err <= 1e-10))
    fail_msg("%s d=%d m=%lld..%lld path=%d fft_size=%d dense_max=%lld b=%lld: rel error %.3g",
             sgp_kernel_name(kind), d, (long long)m[0], (long long)m[d - 1], (int)expect_path,
             (int)o->fft_size, (long long)o->dense_max, (long long)b, err);
  double *dg = th_zeros(M);
  assert_int_equal(op.diag(&op, sgp_mat_of(dg, M, 1), &ctx), SGP_OK);
  for (int64_t i = 0; i < M; i++) assert_close(dg[i], K[i + i * M], 1e-14);
  sgp_op_destroy(&op);
  sgp_op_destroy(&op); /* safe twice */
  double *mx = expect_path == SGP_SKI_KG_KRONECKER ? &max_err_kron : &max_err_circ;
  if (err > *mx) *mx = err;
  ncases++;
  free(P); free(K); free(V); free(Y); free(Vc); free(Yref); free(dg);
  return err;
}

static const int64_t shapes1[][1] = {{1}, {2}, {3}, {4}, {17}, {100}};
static const int64_t shapes2[][2] = {{7, 5}, {1, 6}, {6, 1}, {2, 2}, {12, 10}, {2, 1}, {3, 8}};
static const int64_t shapes3[][3] = {{7, 5, 4}, {1, 2, 3}, {6, 1, 5}, {1, 1, 1},
                                     {2, 2, 2}, {4, 3, 9}, {5, 1, 1}};

static void for_all_shapes(sgp_kernel_kind kind, const sgp_ski_kg_opts *o, int64_t b,
                           sgp_ski_kg_path path)
{
  for (size_t s = 0; s < sizeof shapes1 / sizeof *shapes1; s++)
    check_case(kind, 1, shapes1[s], (int)(s % 2), b, o, path);
  for (size_t s = 0; s < sizeof shapes2 / sizeof *shapes2; s++)
    check_case(kind, 2, shapes2[s], (int)(s % 2), b, o, path);
  for (size_t s = 0; s < sizeof shapes3 / sizeof *shapes3; s++)
    check_case(kind, 3, shapes3[s], (int)((s + 1) % 2), b, o, path);
}

/* Every stationary kernel, every embedding length rule, d = 1, 2, 3. */
static void circulant_matches_dense(void **state)
{
  (void)state;
  const sgp_kernel_kind kinds[4] = {SGP_KERNEL_RBF, SGP_KERNEL_MATERN12, SGP_KERNEL_MATERN32,
                                    SGP_KERNEL_MATERN52};
  sgp_ski_kg_opts o;
  sgp_ski_kg_opts_default(&o);
  o.path = SGP_SKI_KG_CIRCULANT;
  o.planner = SGP_SKI_FFT_PLAN_ESTIMATE;
  for (int c = 0; c < 4; c++)
    for (int f = 0; f < 3; f++) {
      o.fft_size = (sgp_ski_fft_size)f;
      for_all_shapes(kinds[c], &o, f == 1 ? 3 : 1, SGP_SKI_KG_CIRCULANT);
    }
  /* FFTW_MEASURE plans on a few shapes */
  o.planner = SGP_SKI_FFT_PLAN_MEASURE;
  o.fft_size = SGP_SKI_FFT_FAST;
  check_case(SGP_KERNEL_MATERN32, 3, shapes3[0], 1, 2, &o, SGP_SKI_KG_CIRCULANT);
  check_case(SGP_KERNEL_MATERN52, 2, shapes2[4], 0, 1, &o, SGP_SKI_KG_CIRCULANT);
}

/* RBF by Kronecker: dense factors (dgemm), FFT factors, and a mixture. */
static void kronecker_matches_dense(void **state)
{
  (void)state;
  sgp_ski_kg_opts o;
  sgp_ski_kg_opts_default(&o);
  o.path = SGP_SKI_KG_KRONECKER;
  o.planner = SGP_SKI_FFT_PLAN_ESTIMATE;
  const int64_t dense_max[3] = {128, 0, 4};
  for (int dm = 0; dm < 3; dm++)
    for (int f = 0; f < 3; f++) {
      o.dense_max = dense_max[dm];
      o.fft_size = (sgp_ski_fft_size)f;
      for_all_shapes(SGP_KERNEL_RBF, &o, (dm + f) % 2 ? 3 : 1, SGP_SKI_KG_KRONECKER);
    }
  /* defaults (AUTO picks Kronecker for rbf; the ESTIMATE planner), a large
   * factor split into several fibre batches, and a
   * middle dimension by FFT */
  sgp_ski_kg_opts_default(&o);
  const int64_t big1[1] = {300}, big2[2] = {70, 3}, mid[3] = {3, 70, 2};
  check_case(SGP_KERNEL_RBF, 1, big1, 0, 2, &o, SGP_SKI_KG_KRONECKER);
  o.dense_max = 32;
  check_case(SGP_KERNEL_RBF, 2, big2, 1, 4, &o, SGP_SKI_KG_KRONECKER);
  o.dense_max = 8;
  check_case(SGP_KERNEL_RBF, 3, mid, 1, 3, &o, SGP_SKI_KG_KRONECKER);
  /* a non-separable kernel is separable when at most one m_j > 1 */
  sgp_ski_kg_opts_default(&o);
  o.planner = SGP_SKI_FFT_PLAN_ESTIMATE;
  const int64_t line[3] = {1, 9, 1};
  check_case(SGP_KERNEL_MATERN12, 3, line, 1, 2, &o, SGP_SKI_KG_KRONECKER);
  check_case(SGP_KERNEL_MATERN32, 1, big1, 0, 1, &o, SGP_SKI_KG_KRONECKER);
  o.path = SGP_SKI_KG_CIRCULANT;
  check_case(SGP_KERNEL_MATERN32, 1, big1, 0, 1, &o, SGP_SKI_KG_CIRCULANT);
  o.path = SGP_SKI_KG_AUTO;
  check_case(SGP_KERNEL_MATERN52, 2, shapes2[0], 1, 2, &o, SGP_SKI_KG_CIRCULANT);
}

/* Kronecker = circulant for rbf (a separable, stationary kernel) and batched = column by column. */
static void paths_agree_and_batches_are_columns(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t m[3] = {9, 6, 5}, M = 270, b = 4;
  const sgp_ski_grid g = make_grid(3, m);
  const double ell[3] = {0.5, 0.9, 0.4};
  const sgp_kernel k = {SGP_KERNEL_RBF, ell, 3, 2.1, 1.0};
  double *V = th_zeros(M * b), *Y1 = th_zeros(M * b), *Y2 = th_zeros(M * b),
         *Y3 = th_zeros(M * b);
  th_randn(&ctx.rng, M * b, V, 1.0, 0.0);
  sgp_ski_kg_opts o;
  sgp_ski_kg_opts_default(&o);
  o.planner = SGP_SKI_FFT_PLAN_ESTIMATE;
  sgp_op kron, kfft, circ;
  o.path = SGP_SKI_KG_KRONECKER;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &o, &kron), SGP_OK);
  o.dense_max = 0;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &o, &kfft), SGP_OK);
  o.path = SGP_SKI_KG_CIRCULANT;
  o.fft_size = SGP_SKI_FFT_DOUBLE;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &o, &circ), SGP_OK);
  assert_int_equal(kron.apply(&kron, sgp_cmat_of(V, M, b), sgp_mat_of(Y1, M, b), &ctx), SGP_OK);
  assert_int_equal(kfft.apply(&kfft, sgp_cmat_of(V, M, b), sgp_mat_of(Y2, M, b), &ctx), SGP_OK);
  assert_int_equal(circ.apply(&circ, sgp_cmat_of(V, M, b), sgp_mat_of(Y3, M, b), &ctx), SGP_OK);
  const double e12 = rel_diff(M, b, Y1, M, Y2, M), e13 = rel_diff(M, b, Y1, M, Y3, M);
  assert_le(e12, 1e-12);
  assert_le(e13, 1e-12);
  max_err_kron_vs_circ = e12 > e13 ? e12 : e13;
  /* each column alone */
  double *y = th_zeros(M);
  const sgp_op *ops[3] = {&kron, &kfft, &circ};
  double *Ys[3] = {Y1, Y2, Y3};
  for (int p = 0; p < 3; p++)
    for (int64_t j = 0; j < b; j++) {
      assert_int_equal(ops[p]->apply(ops[p], sgp_cmat_of(V + j * M, M, 1), sgp_mat_of(y, M, 1),
                                     &ctx), SGP_OK);
      assert_le(rel_diff(M, 1, y, M, Ys[p] + j * M, M), 1e-14);
    }
  /* thread count: 1 vs 2 */
  ctx.nthreads = 1;
  double *Z = th_zeros(M * b);
  sgp_op one;
  for (int p = 0; p < 3; p++) {
    o.path = p == 2 ? SGP_SKI_KG_CIRCULANT : SGP_SKI_KG_KRONECKER;
    o.dense_max = p == 1 ? 0 : 128;
    assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &o, &one), SGP_OK);
    assert_int_equal(one.apply(&one, sgp_cmat_of(V, M, b), sgp_mat_of(Z, M, b), &ctx), SGP_OK);
    assert_le(rel_diff(M, b, Z, M, Ys[p], M), 1e-14);
    sgp_op_destroy(&one);
  }
  /* zero columns is a no-op */
  assert_int_equal(circ.apply(&circ, sgp_cmat_of(V, M, 0), sgp_mat_of(Z, M, 0), &ctx), SGP_OK);
  sgp_op_destroy(&kron);
  sgp_op_destroy(&kfft);
  sgp_op_destroy(&circ);
  free(V); free(Y1); free(Y2); free(Y3); free(y); free(Z);
}

/* Oracle 7.2: K_G from the grid points in first-dimension-fastest order equals
 * s T_3 (x) T_2 (x) T_1 (explicit Kronecker products of 1-D rbf Toeplitz factors). */
static void dense_grid_kernel_is_kronecker_product(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const int64_t m[3] = {4, 3, 2}, M = 24;
  const sgp_ski_grid g = make_grid(3, m);
  const double ell[3] = {0.6, 0.8, 0.5}, s = 1.3;
  const sgp_kernel k = {SGP_KERNEL_RBF, ell, 3, s, 1.0};
  double *P = th_zeros(M * 3), *K = th_zeros(M * M);
  assert_int_equal(sgp_ski_grid_points(&ctx, &g, sgp_mat_of(P, M, 3)), SGP_OK);
  assert_int_equal(sgp_kernel_matrix(&ctx, &k, sgp_cmat_of(P, M, 3), sgp_cmat_of(P, M, 3),
                                     sgp_mat_of(K, M, M)), SGP_OK);
  for (int64_t a = 0; a < M; a++)
    for (int64_t b = 0; b < M; b++) {
      int64_t sa[3], sb[3];
      sgp_ski_grid_subscripts(&g, a, sa);
      sgp_ski_grid_subscripts(&g, b, sb);
      double v = s;
      for (int j = 0; j < 3; j++) {
        const double z = (double)(sa[j] - sb[j]) * g.h[j] / ell[j];
        v *= exp(-0.5 * z * z);
      }
      assert_close(K[a + b * M], v, 1e-14);
    }
  free(P);
  free(K);
}

/* Every planner choice gives the product (the plans change rounding only):
 * ESTIMATE, MEASURE, AUTO without expected work (ESTIMATE, or measured plans
 * from the process's wisdom) and AUTO with an expected work large enough to
 * measure under the time limit; both paths. */
static void planner_choices_give_the_product(void **state)
{
  (void)state;
  const int64_t m1[1] = {300}, m2[2] = {12, 10};
  const sgp_ski_fft_planner pl[3] = {SGP_SKI_FFT_PLAN_ESTIMATE, SGP_SKI_FFT_PLAN_MEASURE,
                                     SGP_SKI_FFT_PLAN_AUTO};
  sgp_ski_kg_opts o;
  for (int i = 0; i < 4; i++) {
    sgp_ski_kg_opts_default(&o);
    o.planner = pl[i < 3 ? i : 2];
    if (i == 3) o.expected_products = 1e9; /* budget: a quarter of 1e9 products */
    o.dense_max = 64;
    check_case(SGP_KERNEL_RBF, 1, m1, 0, 2, &o, SGP_SKI_KG_KRONECKER);
    o.fft_size = SGP_SKI_FFT_DOUBLE; /* sizes not planned above: fresh planning */
    check_case(SGP_KERNEL_MATERN32, 2, m2, 1, 3, &o, SGP_SKI_KG_CIRCULANT);
  }
}

/* Operators made, applied and destroyed from several threads at once: the
 * planner calls are serialized (ski_fft_plan.c), execution is thread-safe. */
static void operators_made_concurrently(void **state)
{
  (void)state;
  enum { NOPS = 8 };
  const int64_t m2[2] = {9, 7};
  const sgp_ski_grid g = make_grid(2, m2);
  const int64_t M = sgp_ski_grid_npoints(&g);
  const double ell = 0.7;
  const sgp_kernel k = {SGP_KERNEL_MATERN52, &ell, 1, 1.3, 1.0};
  double *V = th_zeros(M), *Yref = th_zeros(M), *Y = th_zeros(M * NOPS);
  for (int64_t i = 0; i < M; i++) V[i] = sin(0.3 * (double)i);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_op op;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, NULL, &op), SGP_OK);
  assert_int_equal(op.apply(&op, sgp_cmat_of(V, M, 1), sgp_mat_of(Yref, M, 1), &ctx), SGP_OK);
  sgp_op_destroy(&op);
  int fails = 0;
#pragma omp parallel for num_threads(4) schedule(static, 1) reduction(+ : fails)
  for (int t = 0; t < NOPS; t++) {
    sgp_ctx c;
    sgp_ctx_init(&c);
    c.nthreads = 1;
    sgp_ski_kg_opts o;
    sgp_ski_kg_opts_default(&o);
    o.planner = t % 3 == 0 ? SGP_SKI_FFT_PLAN_MEASURE : SGP_SKI_FFT_PLAN_AUTO;
    o.fft_size = (sgp_ski_fft_size)(t % 3);
    sgp_op p;
    if (sgp_ski_grid_op(&c, &k, &g, &o, &p) ||
        p.apply(&p, sgp_cmat_of(V, M, 1), sgp_mat_of(Y + t * M, M, 1), &c))
      fails++;
    sgp_op_destroy(&p);
  }
  assert_int_equal(fails, 0);
  for (int t = 0; t < NOPS; t++) assert_le(rel_diff(M, 1, Y + t * M, M, Yref, M), 1e-12);
  free(V); free(Yref); free(Y);
}

static void grid_op_rejects_bad_arguments(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = SGP_BACKEND_CPU; /* the CPU operator's path: AUTO would take a GPU (test_backend) */
  const int64_t m[2] = {5, 4};
  const sgp_ski_grid g = make_grid(2, m);
  const double ell[3] = {0.5, 0.6, 0.7};
  sgp_kernel k = {SGP_KERNEL_MATERN32, ell, 2, 1.0, 1.0};
  sgp_ski_kg_opts o;
  sgp_ski_kg_opts_default(&o);
  sgp_op op;
  o.path = SGP_SKI_KG_KRONECKER;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &o, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "path:");
  assert_null(op.state);
  o.path = (sgp_ski_kg_path)5;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &o, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "path:");
  sgp_ski_kg_opts_default(&o);
  o.fft_size = (sgp_ski_fft_size)-1;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &o, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "fft_size");
  sgp_ski_kg_opts_default(&o);
  o.dense_max = -2;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &o, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "dense_max");
  sgp_ski_kg_opts_default(&o);
  o.planner = (sgp_ski_fft_planner)3;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &o, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "planner");
  k.n_lengthscale = 3;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, NULL, &op), SGP_EDIM);
  assert_contains(ctx.errmsg, "lengthscale");
  k.n_lengthscale = 1;
  k.outputscale = -1.0;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, NULL, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "outputscale");
  k.outputscale = 1.0;
  sgp_ski_grid bad = g;
  bad.d = 0;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &bad, NULL, &op), SGP_EDIM);
  assert_contains(ctx.errmsg, "grid_size");
  bad = g;
  bad.m[1] = 0;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &bad, NULL, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "grid_size");
  /* a good operator refuses blocks of the wrong shape */
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, NULL, &op), SGP_OK);
  assert_int_equal(sgp_ski_grid_op_path(&op), SGP_SKI_KG_CIRCULANT);
  double V[40] = {0}, Y[40] = {0};
  assert_int_equal(op.apply(&op, sgp_cmat_of(V, 19, 2), sgp_mat_of(Y, 19, 2), &ctx), SGP_EDIM);
  assert_contains(ctx.errmsg, "operator");
  assert_int_equal(op.apply(&op, sgp_cmat_of(V, 20, 2), sgp_mat_of(Y, 20, 1), &ctx), SGP_EDIM);
  assert_int_equal(op.diag(&op, sgp_mat_of(Y, 19, 1), &ctx), SGP_EDIM);
  sgp_op_destroy(&op);
  assert_int_equal(sgp_ski_grid_op_path(&op), SGP_SKI_KG_AUTO);
}

static int report(void **state)
{
  (void)state;
  printf("ski K_G: %d cases vs dense; max rel error kronecker %.2e, circulant %.2e; "
         "kronecker vs circulant %.2e\n", ncases, max_err_kron, max_err_circ,
         max_err_kron_vs_circ);
  return 0;
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(circulant_matches_dense),
    cmocka_unit_test(kronecker_matches_dense),
    cmocka_unit_test(paths_agree_and_batches_are_columns),
    cmocka_unit_test(dense_grid_kernel_is_kronecker_product),
    cmocka_unit_test(planner_choices_give_the_product),
    cmocka_unit_test(operators_made_concurrently),
    cmocka_unit_test(grid_op_rejects_bad_arguments),
  };
  return cmocka_run_group_tests_name("ski_fft", tests, NULL, report);
}
