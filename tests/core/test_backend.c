/* test_backend.c -- backend selection and the CUDA kernel operator.
 * Without a GPU (or without the CUDA build) the GPU comparisons skip and the
 * selection rules are checked: "cpu" and "auto" run on the CPU, "cuda" is an
 * error naming `backend`. With a GPU the CUDA operator must equal the CPU
 * operator and the naive dense oracle to 1e-10 relative (double precision). */
#define _POSIX_C_SOURCE 200809L /* readlink */
#include "test_helpers.h"
#include "runtime/sgp_internal.h"
#ifdef SGP_HAVE_CUDA
#include "backend/cuda_plugin.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int gpu_present(void) { return sgp_cuda_built() && sgp_cuda_device_count() > 0; }

static void test_selection_rules(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  int use = -1;
  ctx.backend = SGP_BACKEND_CPU;
  assert_int_equal(sgp_backend_use_cuda(&ctx, &use), SGP_OK);
  assert_int_equal(use, 0);
  ctx.backend = SGP_BACKEND_AUTO;
  assert_int_equal(sgp_backend_use_cuda(&ctx, &use), SGP_OK);
  assert_int_equal(use, gpu_present());
  ctx.backend = SGP_BACKEND_CUDA;
  const int st = sgp_backend_use_cuda(&ctx, &use);
  if (gpu_present()) {
    assert_int_equal(st, SGP_OK);
    assert_int_equal(use, 1);
  } else {
    assert_int_equal(st, sgp_cuda_built() ? SGP_ECUDA : SGP_EUNSUPPORTED);
    assert_contains(ctx.errmsg, "backend");
    assert_int_equal(use, 0);
  }
  sgp_build_info info;
  sgp_info(&info);
  assert_int_equal(info.cuda_built, sgp_cuda_built());
  assert_int_equal(sgp_backend_available(SGP_BACKEND_CUDA), gpu_present());
}

/* A dense kernel operator asked for CUDA fails cleanly (no op state) without a GPU. */
static void test_cuda_request_without_gpu(void **state)
{
  (void)state;
  if (gpu_present()) skip();
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = SGP_BACKEND_CUDA;
  double X[6] = {0, 1, 2, 3, 4, 5}, ell = 1.0;
  sgp_kernel k = {SGP_KERNEL_RBF, &ell, 1, 1.0, 1.0};
  sgp_dense_op_opts o;
  sgp_dense_op_opts_default(&o);
  sgp_op op;
  assert_true(sgp_op_dense_kernel(&ctx, &k, (sgp_cmat){X, 6, 1, 6}, &o, &op, NULL) < 0);
  assert_null(op.state);
  assert_contains(ctx.errmsg, "backend");
}

/* GPU vs CPU vs the naive oracle for every kernel, d in {2, 7, 16} (direct and
 * dgemm distance paths) and several tile-crossing sizes. */
static void test_cuda_operator_equals_cpu(void **state)
{
  (void)state;
  if (!gpu_present()) skip();
  const int64_t sizes[] = {1, 300, 5000}, dims[] = {2, 7, 16}, nb = 10;
  sgp_rng rng;
  sgp_rng_seed(&rng, 42);
  for (int kind = 0; kind < 4; kind++)
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        const int64_t n = sizes[a], d = dims[b];
        double *X = th_zeros(n * d), *V = th_zeros(n * nb), *Yc = th_zeros(n * nb),
               *Yg = th_zeros(n * nb), ell[16];
        th_randn(&rng, n * d, X, 1.0, 0.3);
        th_randn(&rng, n * nb, V, 1.0, 0.0);
        for (int64_t l = 0; l < d; l++) ell[l] = 0.5 + sgp_rng_uniform(&rng);
        sgp_kernel k = {(sgp_kernel_kind)kind, ell, d, 1.7, 1.0};
        sgp_dense_op_opts o;
        sgp_dense_op_opts_default(&o);
        o.shift = 0.25;
        sgp_ctx cpu, gpu;
        sgp_ctx_init(&cpu);
        sgp_ctx_init(&gpu);
        cpu.backend = SGP_BACKEND_CPU;
        gpu.backend = SGP_BACKEND_CUDA;
        sgp_op opc, opg;
        sgp_cmat Xv = {X, n, d, n}, Vv = {V, n, nb, n};
        assert_int_equal(sgp_op_dense_kernel(&cpu, &k, Xv, &o, &opc, NULL), SGP_OK);
        assert_int_equal(sgp_op_dense_kernel(&gpu, &k, Xv, &o, &opg, NULL), SGP_OK);
        assert_int_equal(opc.apply(&opc, Vv, (sgp_mat){Yc, n, nb, n}, &cpu), SGP_OK);
        assert_int_equal(opg.apply(&opg, Vv, (sgp_mat){Yg, n, nb, n}, &gpu), SGP_OK);
        const double err = th_max_abs_diff(n * nb, Yg, Yc), scale = th_max_abs(n * nb, Yc);
        if (!(err <= 1e-10 * scale))
          fail_msg("kind %d n %lld d %lld: GPU vs CPU max error %.3g (scale %.3g)", kind,
                   (long long)n, (long long)d, err, scale);
        if (n <= 300) { /* the naive oracle is O(n^2 d) */
          double *K = th_zeros(n * n), *Yr = th_zeros(n * nb);
          th_kernel_matrix(k.kind, k.outputscale, ell, d, X, n, X, n, d, K);
          th_matmul(n, nb, n, K, V, Yr);
          for (int64_t i = 0; i < n * nb; i++) Yr[i] += o.shift * V[i];
          assert_le(th_max_abs_diff(n * nb, Yg, Yr), 1e-10 * th_max_abs(n * nb, Yr));
          free(K);
          free(Yr);
        }
        sgp_op_destroy(&opc);
        sgp_op_destroy(&opg);
        free(X); free(V); free(Yc); free(Yg);
      }
}


#ifdef SGP_HAVE_CUDA
/* The SKI operators on the GPU (K_G by cuFFT, B = W'W by the stencil) equal
 * the CPU ones on a 3-D grid with a non-separable kernel (circulant path). */
static void test_cuda_ski_operators_equal_cpu(void **state)
{
  (void)state;
  if (!gpu_present()) skip();
  const int64_t m[3] = {23, 17, 9}, n = 4000, nb = 3;
  const double lo[3] = {0, 0, 0}, h[3] = {0.1, 0.12, 0.2};
  sgp_ski_grid g = th_ski_grid(3, m, lo, h);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = SGP_BACKEND_CPU; /* the reference operators */
  sgp_rng rng;
  sgp_rng_seed(&rng, 7);
  double *X = th_zeros(n * 3), *y = th_zeros(n);
  for (int64_t i = 0; i < n; i++)
    for (int j = 0; j < 3; j++) /* inside the cubic stencil's valid range */
      X[i + j * n] = lo[j] + h[j] * (1.0 + (double)(m[j] - 3) * sgp_rng_uniform(&rng));
  th_randn(&rng, n, y, 1.0, 0.0);
  sgp_ski_stats *st = NULL;
  assert_int_equal(sgp_ski_stats_create(&ctx, &g, SGP_SKI_CUBIC, &st), SGP_OK);
  assert_int_equal(sgp_ski_stats_accumulate(&ctx, st, (sgp_cmat){X, n, 3, n},
                                            (sgp_cmat){y, n, 1, n}, 0, SGP_SKI_BOUNDS_ERROR),
                   SGP_OK);
  double ell = 0.3;
  sgp_kernel k = {SGP_KERNEL_MATERN32, &ell, 1, 1.4, 1.0};
  sgp_ski_kg_opts ko;
  sgp_ski_kg_opts_default(&ko);
  ko.path = SGP_SKI_KG_CIRCULANT;
  sgp_op kg, kgg, B, Bg;
  assert_int_equal(sgp_ski_grid_op(&ctx, &k, &g, &ko, &kg), SGP_OK);
  assert_int_equal(sgp_cuda_op_ski_grid(&ctx, &kg, &kgg), SGP_OK);
  assert_int_equal(sgp_ski_stats_op(&ctx, st, &B), SGP_OK);
  assert_int_equal(sgp_cuda_op_ski_stencil(&ctx, st, &Bg), SGP_OK);
  const int64_t mt = kg.n;
  double *V = th_zeros(mt * nb), *Yc = th_zeros(mt * nb), *Yg = th_zeros(mt * nb);
  th_randn(&rng, mt * nb, V, 1.0, 0.0);
  const sgp_op *cpu_ops[2] = {&kg, &B}, *gpu_ops[2] = {&kgg, &Bg};
  for (int o = 0; o < 2; o++) {
    assert_int_equal(cpu_ops[o]->apply(cpu_ops[o], (sgp_cmat){V, mt, nb, mt},
                                       (sgp_mat){Yc, mt, nb, mt}, &ctx), SGP_OK);
    assert_int_equal(gpu_ops[o]->apply(gpu_ops[o], (sgp_cmat){V, mt, nb, mt},
                                       (sgp_mat){Yg, mt, nb, mt}, &ctx), SGP_OK);
    assert_le(th_max_abs_diff(mt * nb, Yg, Yc), 1e-10 * th_max_abs(mt * nb, Yc));
  }
  /* backend "cuda" routes the SKI operators themselves to the GPU (K_G on the
   * circulant path even where the CPU would take Kronecker), and the factorized
   * CG gives the CPU's weights */
  sgp_ctx gctx;
  sgp_ctx_init(&gctx);
  gctx.backend = SGP_BACKEND_CUDA;
  sgp_kernel kr = {SGP_KERNEL_RBF, &ell, 1, 1.4, 1.0};
  for (int kk = 0; kk < 2; kk++) {
    const sgp_kernel *kern = kk ? &kr : &k;
    sgp_op kc, kgpu;
    assert_int_equal(sgp_ski_grid_op(&ctx, kern, &g, NULL, &kc), SGP_OK);
    assert_int_equal(sgp_ski_grid_op(&gctx, kern, &g, NULL, &kgpu), SGP_OK);
    assert_int_equal(sgp_ski_grid_op_path(&kgpu), SGP_SKI_KG_AUTO); /* not a CPU operator */
    assert_int_equal(kc.apply(&kc, (sgp_cmat){V, mt, nb, mt}, (sgp_mat){Yc, mt, nb, mt}, &ctx),
                     SGP_OK);
    assert_int_equal(kgpu.apply(&kgpu, (sgp_cmat){V, mt, nb, mt}, (sgp_mat){Yg, mt, nb, mt},
                                &gctx), SGP_OK);
    assert_le(th_max_abs_diff(mt * nb, Yg, Yc), 1e-10 * th_max_abs(mt * nb, Yc));
    sgp_ski_solve_opts so;
    sgp_ski_solve_opts_default(&so);
    so.tol = 1e-10;
    sgp_ski_solve_info ic, ig;
    double *wc = th_zeros(mt), *wg = th_zeros(mt);
    assert_int_equal(sgp_ski_mean_efcg(&ctx, st, &kc, 0.1, &so, wc, NULL, NULL, &ic, NULL, NULL,
                                       NULL), SGP_OK);
    assert_int_equal(sgp_ski_mean_efcg(&gctx, st, &kgpu, 0.1, &so, wg, NULL, NULL, &ig, NULL,
                                       NULL, NULL), SGP_OK);
    assert_le(th_max_abs_diff(mt, wg, wc), 1e-8 * th_max_abs(mt, wc));
    free(wc); free(wg);
    sgp_op_destroy(&kc);
    sgp_op_destroy(&kgpu);
  }
  sgp_op_destroy(&kgg);
  sgp_op_destroy(&Bg);
  sgp_op_destroy(&kg);
  sgp_op_destroy(&B);
  sgp_ski_stats_free(st);
  free(X); free(y); free(V); free(Yc); free(Yg);
}
#endif

/* Without a device, backend "cuda" stops the SKI grid operator with an error
 * naming `backend` (a CPU build says CUDA is not built; a CUDA build, no device). */
static void test_ski_cuda_request_without_gpu(void **state)
{
  (void)state;
  if (gpu_present()) skip();
  const int64_t m[2] = {16, 12};
  const double lo[2] = {0, 0}, h[2] = {0.1, 0.1};
  sgp_ski_grid g = th_ski_grid(2, m, lo, h);
  double ell = 0.3;
  sgp_kernel k = {SGP_KERNEL_RBF, &ell, 1, 1.0, 1.0};
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.backend = SGP_BACKEND_CUDA;
  sgp_op kg;
  const int st = sgp_ski_grid_op(&ctx, &k, &g, NULL, &kg);
  assert_true(st == SGP_ECUDA || st == SGP_EUNSUPPORTED);
  assert_contains(ctx.errmsg, "backend");
  assert_null(kg.state);
}

#ifdef SGP_HAVE_CUDA
/* The backend's shared object (loaded on first use, never linked):
 * it opens beside this binary and answers with this build's interface (0
 * devices on a machine without a GPU, as the runtime reports); a missing file
 * is an error naming it, never a crash. The process maps no CUDA library
 * before, and, without an NVIDIA driver, "auto" does not open it at all. */
static int maps_cuda(void)
{
  FILE *f = fopen("/proc/self/maps", "r");
  char line[1024];
  int hit = 0;
  if (!f) return -1;
  while (!hit && fgets(line, sizeof line, f)) hit = strstr(line, "libcudart") != NULL;
  fclose(f);
  return hit;
}

static void test_cuda_plugin_loads_on_demand(void **state)
{
  (void)state;
  const char *why = sgp_cuda_unavailable();
  if (why && strstr(why, "no NVIDIA driver")) /* "auto" above opened nothing */
    assert_int_equal(maps_cuda(), 0);
  sgp_cuda_api api;
  char msg[600];
  assert_int_equal(sgp_cuda_plugin_open("no/such/scalegp_cuda.so", &api, msg, sizeof msg),
                   SGP_ECUDA);
  assert_contains(msg, "no/such/scalegp_cuda.so");
  char path[512];
  const ssize_t len = readlink("/proc/self/exe", path, sizeof path - 64);
  assert_true(len > 0);
  path[len] = 0;
  snprintf(strrchr(path, '/') + 1, 64, "%s", SGP_CUDA_PLUGIN_FILE); /* beside this binary */
  memset(&api, 0, sizeof api);
  assert_int_equal(sgp_cuda_plugin_open(path, &api, msg, sizeof msg), SGP_OK);
  assert_non_null(api.op_dense_kernel);
  assert_non_null(api.op_ski_stencil);
  assert_int_equal(maps_cuda(), 1);
  assert_int_equal(api.device_count() > 0, gpu_present());
  /* a kind without a device case is refused before any device work, never
   * evaluated as another kernel */
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const double ell = 1.0;
  const sgp_kernel bad = {SGP_KERNEL_COUNT, &ell, 1, 1.0, 1.0};
  sgp_kprep prep;
  memset(&prep, 0, sizeof prep);
  sgp_op op;
  assert_int_equal(api.op_dense_kernel(&ctx, &bad, &prep, 0.0, &op), SGP_EINVAL);
  assert_contains(ctx.errmsg, "no CUDA implementation");
}
#endif

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_selection_rules),
    cmocka_unit_test(test_cuda_request_without_gpu),
    cmocka_unit_test(test_cuda_operator_equals_cpu),
    cmocka_unit_test(test_ski_cuda_request_without_gpu),
#ifdef SGP_HAVE_CUDA
    cmocka_unit_test(test_cuda_ski_operators_equal_cpu),
    cmocka_unit_test(test_cuda_plugin_loads_on_demand),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
