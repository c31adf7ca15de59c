/* test_evidence_blocked.c -- the exact evidence's dense steps in blocks that poll
 * the interrupt (core/laplace/evidence_blocked.c).
 * Oracles: LAPACK's unblocked-to-the-caller dpotrf, dpotri, dtrtri and plain BLAS
 * calls on the whole matrices, and plain loops for L'L; the gaussian evidence in
 * several blocks against its closed form by a plain-loop Cholesky.
 * Tolerances: the matrices are n I + (entries in (-1/2, 1/2)), condition number
 * below 3, so two backward-stable factorizations (or inverses, products) of one
 * matrix differ by a few n eps of its size: 1e-12 relative at n <= 1100
 * (n eps <= 2.5e-13). Sizes cover one block, a block plus one, and several
 * blocks with a ragged last one; n = 1100 also cuts the panel products into
 * several calls. */
#include "test_helpers.h"
#include "laplace/evidence.h"

#include <float.h>
#include <stdlib.h>

static double *spd(sgp_rng *rng, int64_t n)
{
  double *A = th_zeros(n * n);
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = 0; i <= j; i++) {
      const double v = sgp_rng_uniform(rng) - 0.5;
      A[i + j * n] = A[j + i * n] = v + (i == j ? (double)n : 0.0);
    }
  return A;
}

static double *copy(const double *A, int64_t len)
{
  double *B = th_zeros(len);
  memcpy(B, A, (size_t)len * sizeof(double));
  return B;
}

/* max over the lower triangle of |A - B|, relative to max |B| there */
static double lower_rel_diff(int64_t n, const double *A, const double *B)
{
  double d = 0.0, s = 0.0;
  for (int64_t j = 0; j < n; j++)
    for (int64_t i = j; i < n; i++) {
      d = fmax(d, fabs(A[i + j * n] - B[i + j * n]));
      s = fmax(s, fabs(B[i + j * n]));
    }
  return s > 0 ? d / s : d;
}

typedef struct { long polls, fire_at; } hook_t;

static int count_hook(void *ud)
{
  hook_t *h = (hook_t *)ud;
  return h->polls++ == h->fire_at;
}

static void factorizations_match_lapack(void **state)
{
  (void)state;
  const int64_t sizes[] = {1, 7, 256, 257, 700, 1100};
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    const int64_t n = sizes[s];
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    sgp_ctx_set_seed(&ctx, 40 + (uint64_t)s);
    double *A = spd(&ctx.rng, n), *L = copy(A, n * n), *Lb = copy(A, n * n);
    int64_t minor = -1;
    assert_int_equal(sgp_potrf(&ctx, n, L, n), SGP_OK);
    assert_int_equal(sgp_ev_potrf(&ctx, n, Lb, n, &minor), SGP_OK);
    assert_int_equal(minor, 0);
    assert_le(lower_rel_diff(n, Lb, L), 1e-12);
    /* L^-1 and L'L of it (plain loops) against dtrtri */
    double *V = copy(L, n * n), *Vb = copy(L, n * n);
    assert_int_equal(sgp_trtri(&ctx, 'L', n, V, n), SGP_OK);
    assert_int_equal(sgp_ev_trtri(&ctx, n, Vb, n), SGP_OK);
    assert_le(lower_rel_diff(n, Vb, V), 1e-12);
    if (n <= 300) {
      double *P = th_zeros(n * n), *Pb = copy(V, n * n);
      for (int64_t j = 0; j < n; j++)
        for (int64_t i = j; i < n; i++)
          for (int64_t k = i; k < n; k++) P[i + j * n] += V[k + i * n] * V[k + j * n];
      assert_int_equal(sgp_ev_lauum(&ctx, n, Pb, n), SGP_OK);
      assert_le(lower_rel_diff(n, Pb, P), 1e-12);
      free(P); free(Pb);
    }
    /* the inverse from the factor against dpotri */
    double *Q = copy(L, n * n), *Qb = copy(L, n * n);
    assert_int_equal(sgp_potri(&ctx, n, Q, n), SGP_OK);
    assert_int_equal(sgp_ev_potri(&ctx, n, Qb, n), SGP_OK);
    assert_le(lower_rel_diff(n, Qb, Q), 1e-12);
    free(A); free(L); free(Lb); free(V); free(Vb); free(Q); free(Qb);
  }
}

/* Not positive definite: the leading minor LAPACK reports, in any block. */
static void indefinite_reports_lapacks_minor(void **state)
{
  (void)state;
  const int64_t n = 700, bad[] = {0, 255, 256, 300, 699};
  for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
    sgp_ctx ctx;
    sgp_ctx_init(&ctx);
    double *A = spd(&ctx.rng, n);
    A[bad[b] + bad[b] * n] = -1.0;
    double *L = copy(A, n * n);
    int64_t want = -1, got = -1;
    assert_int_equal(sgp_potrf_minor(&ctx, n, L, n, &want), SGP_OK);
    memcpy(L, A, (size_t)(n * n) * sizeof(double));
    assert_int_equal(sgp_ev_potrf(&ctx, n, L, n, &got), SGP_OK);
    assert_int_equal(got, want);
    assert_int_equal(got, bad[b] + 1);
    free(A); free(L);
  }
}

/* The panel products against one BLAS call each. */
static void panel_products_match_blas(void **state)
{
  (void)state;
  const int64_t n = 1100;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double *A = spd(&ctx.rng, n), *B = th_zeros(n * n);
  th_randn(&ctx.rng, n * n, B, 1.0, 0.0);
  assert_int_equal(sgp_potrf(&ctx, n, A, n), SGP_OK); /* a well-conditioned triangle */
  double *X = copy(B, n * n), *Xb = copy(B, n * n);
  assert_int_equal(sgp_trsm(&ctx, 'L', 'L', 'N', n, n, 1.0, A, n, X, n), SGP_OK);
  assert_int_equal(sgp_ev_trsm_left(&ctx, 'L', 'N', n, n, A, n, Xb, n), SGP_OK);
  assert_le(th_rel_max(n * n, Xb, X), 1e-12);
  memcpy(X, B, (size_t)(n * n) * sizeof(double));
  memcpy(Xb, B, (size_t)(n * n) * sizeof(double));
  assert_int_equal(sgp_trmm(&ctx, 'L', 'L', 'N', n, n, 1.0, A, n, X, n), SGP_OK);
  assert_int_equal(sgp_ev_trmm_left(&ctx, 'L', 'N', n, n, A, n, Xb, n), SGP_OK);
  assert_le(th_rel_max(n * n, Xb, X), 1e-12);
  assert_int_equal(sgp_gemm(&ctx, 'N', 'N', n, n, n, 1.0, A, n, B, n, 0.0, X, n), SGP_OK);
  assert_int_equal(sgp_ev_gemm_nn(&ctx, n, n, n, A, n, B, n, Xb, n), SGP_OK);
  assert_le(th_rel_max(n * n, Xb, X), 1e-12);
  double *Q = spd(&ctx.rng, n), *Qb = copy(Q, n * n);
  assert_int_equal(sgp_syrk(&ctx, 'T', n, n, -1.0, B, n, 1.0, Q, n), SGP_OK);
  assert_int_equal(sgp_ev_syrk_sub(&ctx, n, n, B, n, Qb, n), SGP_OK);
  assert_le(th_rel_max(n * n, Qb, Q), 1e-12); /* both triangles */
  free(A); free(B); free(X); free(Xb); free(Q); free(Qb);
}

/* Every step polls: an interrupt at any poll stops the call with
 * SGP_EINTERRUPT, and the polls come at least once per block column. */
static void every_step_polls_the_interrupt(void **state)
{
  (void)state;
  const int64_t n = 700, blocks = (n + 255) / 256;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  hook_t h = {0, -1};
  ctx.interrupt = count_hook;
  ctx.user_data = &h;
  double *A = spd(&ctx.rng, n), *L = copy(A, n * n), *B = th_zeros(n * n);
  int64_t minor;
  for (int what = 0; what < 4; what++) {
    /* count the polls of an uninterrupted call, then stop it at each of them */
    long total = 0;
    for (long k = -1; k < total; k++) {
      h.polls = 0;
      h.fire_at = k;
      memcpy(L, A, (size_t)(n * n) * sizeof(double));
      if (what >= 2) assert_int_equal(sgp_potrf(&ctx, n, L, n), SGP_OK);
      int st = SGP_OK;
      switch (what) {
      case 0: st = sgp_ev_potrf(&ctx, n, L, n, &minor); break;
      case 1: st = sgp_ev_trsm_left(&ctx, 'L', 'N', n, n, A, n, B, n); break;
      case 2: st = sgp_ev_potri(&ctx, n, L, n); break;
      default: st = sgp_ev_lauum(&ctx, n, L, n); break;
      }
      if (k < 0) {
        assert_int_equal(st, SGP_OK);
        total = h.polls;
        assert_true(total >= (what == 1 ? 1 : blocks - 1));
      } else {
        assert_int_equal(st, SGP_EINTERRUPT);
        assert_contains(ctx.errmsg, "interrupted");
        assert_int_equal(h.polls, k + 1); /* nothing polled after the interrupt */
      }
    }
  }
  free(A); free(L); free(B);
}

/* The gaussian evidence, here in three blocks, is the exact GP evidence
 * -1/2 r'(K + s2 I)^-1 r - 1/2 log|K + s2 I| - n/2 log 2pi (plain-loop Cholesky):
 * both are backward stable, so they differ by n eps cond(K + s2 I) of its size,
 * cond at most (n s + s2) / s2. */
static void gaussian_evidence_in_blocks_is_exact(void **state)
{
  (void)state;
  const int64_t n = 600, d = 2;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  double *X = th_zeros(n * d), *y = th_zeros(n), ls = 0.7, noise = 0.2, mean = 0.4;
  th_randn(&ctx.rng, n * d, X, 1.0, 0.0);
  for (int64_t i = 0; i < n; i++) y[i] = sin(2.0 * X[i]) + 0.3 * sgp_rng_normal(&ctx.rng);
  sgp_ev_problem p;
  memset(&p, 0, sizeof p);
  p.lik.kind = SGP_LIK_GAUSSIAN; p.lik.n = n; p.lik.C = 1; p.lik.y = y;
  p.lik.noise = &noise; p.lik.n_noise = 1; p.lik.noise_max = 1e300;
  p.X = sgp_cmat_of(X, n, d);
  p.kernel.kind = SGP_KERNEL_MATERN52; p.kernel.lengthscale = &ls; p.kernel.n_lengthscale = 1;
  p.kernel.outputscale = 1.3;
  p.mean = &mean;
  p.layout.n_ls = 1; p.layout.n_mean = 1; p.layout.has_noise = 1;
  sgp_ev_ws ws;
  assert_int_equal(sgp_ev_ws_init(&ctx, &ws, n, 1, 1), SGP_OK);
  double q, g[4];
  assert_int_equal(sgp_evidence(&ctx, &p, &ws, &q, g), SGP_OK);
  double *A = th_zeros(n * n), *r = th_zeros(n), logdet = 0.0, quad = 0.0;
  th_kernel_matrix(SGP_KERNEL_MATERN52, 1.3, &ls, 1, X, n, X, n, d, A);
  for (int64_t i = 0; i < n; i++) { A[i + i * n] += noise; r[i] = y[i] - mean; }
  for (int64_t j = 0; j < n; j++) { /* in-place Cholesky, lower */
    for (int64_t k = 0; k < j; k++) A[j + j * n] -= A[j + k * n] * A[j + k * n];
    A[j + j * n] = sqrt(A[j + j * n]);
    logdet += 2 * log(A[j + j * n]);
    for (int64_t i = j + 1; i < n; i++) {
      for (int64_t k = 0; k < j; k++) A[i + j * n] -= A[i + k * n] * A[j + k * n];
      A[i + j * n] /= A[j + j * n];
    }
  }
  for (int64_t i = 0; i < n; i++) {
    for (int64_t k = 0; k < i; k++) r[i] -= A[i + k * n] * r[k];
    r[i] /= A[i + i * n];
    quad += r[i] * r[i];
  }
  const double exact = -0.5 * quad - 0.5 * logdet - 0.5 * (double)n * log(6.283185307179586476925);
  const double kappa = ((double)n * 1.3 + noise) / noise; /* cond(K + s2 I) at most */
  assert_close(q, exact, (double)n * DBL_EPSILON * kappa * fabs(exact));
  sgp_ev_ws_free(&ws);
  free(X); free(y); free(A); free(r);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(factorizations_match_lapack),
    cmocka_unit_test(indefinite_reports_lapacks_minor),
    cmocka_unit_test(panel_products_match_blas),
    cmocka_unit_test(every_step_polls_the_interrupt),
    cmocka_unit_test(gaussian_evidence_in_blocks_is_exact),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
