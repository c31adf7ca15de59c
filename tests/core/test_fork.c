/* test_fork.c -- a process forked after the core ran threaded work (R's
 * parallel::mclapply, a FORK cluster) runs the core's threaded products and
 * LAPACK to the end. libgomp's thread pool survives fork() without its threads,
 * so a child entering a parallel region with more than one thread would wait
 * forever: the parent kills a child that has not finished within a limit and
 * the test fails. Oracles: the child's symmetric kernel product equals the
 * parent's bitwise (its lanes are summed in a fixed order for every thread
 * count); its Cholesky factor of a well-conditioned matrix equals the parent's
 * to 1e-12 of the factor's size sqrt(n) (both are backward stable and the
 * condition number is below 3: the factors differ by a few n eps of it). */
#define _POSIX_C_SOURCE 200809L
#include "test_helpers.h"
#include "kernels/kernels.h"
#include "runtime/sgp_internal.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N_KERNEL 1500 /* 3 default tiles per side: every thread gets tiles */
#define N_CHOL 800    /* above OpenBLAS's threshold for threading dpotrf */
#define WAIT_LIMIT_S 60.0

typedef struct {
  sgp_kernel k;
  sgp_kprep prep;
  double ell[3], *X, *center, *V;
} product;

static void product_init(sgp_ctx *ctx, product *p)
{
  const int64_t n = N_KERNEL, d = 3;
  memset(p, 0, sizeof *p);
  p->X = th_zeros(n * d);
  p->V = th_zeros(n * 2);
  th_randn(&ctx->rng, n * d, p->X, 1.0, 0.0);
  th_randn(&ctx->rng, n * 2, p->V, 1.0, 0.0);
  for (int l = 0; l < 3; l++) p->ell[l] = 0.7 + 0.3 * l;
  p->k.kind = SGP_KERNEL_MATERN52;
  p->k.lengthscale = p->ell;
  p->k.n_lengthscale = 3;
  p->k.outputscale = 1.1;
  const sgp_cmat Xv = sgp_cmat_of(p->X, n, d);
  assert_int_equal(sgp_column_means(ctx, Xv, &p->center), SGP_OK);
  assert_int_equal(sgp_kprep_init(ctx, &p->k, Xv, p->center, &p->prep, "x"), SGP_OK);
}

static int product_run(sgp_ctx *ctx, product *p, double *Y)
{
  return sgp_kernel_apply_symmetric(ctx, &p->k, &p->prep, sgp_cmat_of(p->V, N_KERNEL, 2),
                                    sgp_mat_of(Y, N_KERNEL, 2), 0);
}

static void product_free(product *p)
{
  sgp_kprep_free(&p->prep);
  free(p->X); free(p->V); free(p->center);
}

/* A = n I + a symmetric matrix of entries in (-1/2, 1/2): diagonally dominant,
 * condition number below 3. */
static void chol_matrix(sgp_rng *rng, double *A)
{
  const int64_t n = N_CHOL;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i <= j; i++) {
      const double v = sgp_rng_uniform(rng) - 0.5;
      A[i + j * n] = A[j + i * n] = v + (i == j ? (double)n : 0.0);
    }
}

/* The child's work: exit status 0 when all agrees, else the first check that failed. */
static int child_main(sgp_ctx *ctx, product *p, const double *Yparent, const double *A,
                      const double *Lparent)
{
  if (!sgp_forked_child()) return 2;
  if (sgp_ctx_threads(ctx) != 1) return 3;
  double *Y = th_zeros(N_KERNEL * 2), *L = th_zeros(N_CHOL * N_CHOL);
  if (product_run(ctx, p, Y) != SGP_OK) return 4;
  if (memcmp(Y, Yparent, (size_t)N_KERNEL * 2 * sizeof(double))) return 5;
  memcpy(L, A, (size_t)N_CHOL * N_CHOL * sizeof(double));
  if (sgp_potrf(ctx, N_CHOL, L, N_CHOL) != SGP_OK) return 6;
  for (int64_t j = 0; j < N_CHOL; j++)
    for (int64_t i = j; i < N_CHOL; i++)
      if (!(fabs(L[i + j * N_CHOL] - Lparent[i + j * N_CHOL]) <= 1e-12 * sqrt((double)N_CHOL)))
        return 7;
  free(Y); free(L);
  return 0;
}

/* waitpid by polling: a hung child is killed after WAIT_LIMIT_S; returns its
 * exit status, or -1 when it hung or died of a signal. */
static int wait_limited(pid_t pid)
{
  const struct timespec step = {0, 10 * 1000 * 1000};
  for (double waited = 0.0; waited < WAIT_LIMIT_S; waited += 0.01) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r < 0) return -1;
    nanosleep(&step, NULL);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

static void child_after_threaded_work_finishes(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ctx_set_seed(&ctx, 33);
  ctx.nthreads = 2;
  assert_int_equal(sgp_forked_child(), 0);
  assert_int_equal(sgp_ctx_threads(&ctx), 2);
  product p;
  product_init(&ctx, &p);
  double *Y = th_zeros(N_KERNEL * 2), *A = th_zeros(N_CHOL * N_CHOL),
         *L = th_zeros(N_CHOL * N_CHOL);
  /* threaded work in the parent first: OpenMP's pool and OpenBLAS's threads exist */
  assert_int_equal(product_run(&ctx, &p, Y), SGP_OK);
  chol_matrix(&ctx.rng, A);
  memcpy(L, A, (size_t)N_CHOL * N_CHOL * sizeof(double));
  assert_int_equal(sgp_potrf(&ctx, N_CHOL, L, N_CHOL), SGP_OK);
  for (int round = 0; round < 2; round++) { /* the parent's pool is used again in between */
    fflush(NULL);
    const pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(child_main(&ctx, &p, Y, A, L));
    const int code = wait_limited(pid);
    if (code != 0)
      fail_msg("round %d: the forked child %s", round,
               code < 0 ? "hung (killed after the limit) or died of a signal"
                        : "finished with a failed check");
    assert_int_equal(sgp_forked_child(), 0); /* the parent keeps its threads */
    assert_int_equal(sgp_ctx_threads(&ctx), 2);
    double *Y2 = th_zeros(N_KERNEL * 2);
    assert_int_equal(product_run(&ctx, &p, Y2), SGP_OK);
    assert_memory_equal(Y2, Y, (size_t)N_KERNEL * 2 * sizeof(double));
    free(Y2);
  }
  product_free(&p);
  free(Y); free(A); free(L);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(child_after_threaded_work_finishes),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
