/* test_helpers.h -- shared pieces of the core unit tests: cmocka includes,
 * numeric assertions with explicit tolerances, and independent dense oracles
 * (naive kernel matrix, naive products, Cholesky, Jacobi eigenvalues) written
 * with plain loops and libm only, so they share no code with the core. */
#ifndef TEST_HELPERS_H
#define TEST_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "api/sgp.h"
#include "ski/ski.h"

/* |a - b| <= tol, reporting both values (NaN fails). */
#define assert_close(a, b, tol) do { \
    const double a_ = (a), b_ = (b), t_ = (tol); \
    if (!(fabs(a_ - b_) <= t_)) \
      fail_msg("%s = %.17g vs %s = %.17g: |diff| = %.3g > tol %.3g", #a, a_, #b, b_, \
               fabs(a_ - b_), t_); \
  } while (0)

/* value <= bound (NaN fails). */
#define assert_le(value, bound) do { \
    const double v_ = (value), b_ = (bound); \
    if (!(v_ <= b_)) fail_msg("%s = %.6g exceeds %s = %.6g", #value, v_, #bound, b_); \
  } while (0)

/* The string contains the substring. */
#define assert_contains(str, sub) do { \
    const char *s_ = (str), *u_ = (sub); \
    if (!s_ || !strstr(s_, u_)) fail_msg("\"%s\" does not contain \"%s\"", s_ ? s_ : "(null)", u_); \
  } while (0)

/* Zero-filled array of n doubles (fails the test when out of memory). */
double *th_zeros(int64_t n);
/* x[i] = offset + scale * N(0,1) from the core RNG. */
void th_randn(sgp_rng *rng, int64_t n, double *x, double scale, double offset);

/* Naive kernel value for a (non-squared) scaled distance r, libm exp/sqrt. */
double th_kernel_of_r(sgp_kernel_kind kind, double outputscale, double r);
/* Naive n1-by-n2 kernel matrix (column-major) of row sets X1 (n1-by-d) and
 * X2 (n2-by-d), with r = ||(x - x') / lengthscale|| per sgp.h. */
void th_kernel_matrix(sgp_kernel_kind kind, double outputscale, const double *ell,
                      int64_t nell, const double *X1, int64_t n1, const double *X2,
                      int64_t n2, int64_t d, double *K);

/* C (m-by-n) = A (m-by-k) B (k-by-n), all contiguous column-major, plain loops. */
void th_matmul(int64_t m, int64_t n, int64_t k, const double *A, const double *B, double *C);
double th_max_abs(int64_t n, const double *a);
double th_max_abs_diff(int64_t n, const double *a, const double *b);
/* max |a - b| / max |b| (the absolute error when b is zero) */
double th_rel_max(int64_t n, const double *a, const double *b);

/* Random symmetric positive definite A = G G' / n + shift I (n-by-n). */
void th_random_spd(sgp_rng *rng, int64_t n, double shift, double *A);
/* Solves A X = B (n-by-nrhs) by a naive Cholesky; returns 0, or -1 if not PD. */
int th_chol_solve(int64_t n, const double *A, int64_t nrhs, const double *B, double *X);
/* Appends u to the orthonormal columns S[:, 0..k) (n rows) by two Gram-Schmidt
 * passes: S[:, k] = u / |u|. Returns |u| before / after (the cancellation, by
 * which the new direction inherits its predecessors' rounding); u is overwritten. */
double th_orthonormal_append(int64_t n, int64_t k, double *S, double *u);
/* The Galerkin solution of Kh v = b on span(S) (S: n x k): KhS = Kh S, M = S'Kh S
 * (k x k) and v = S M^-1 S'b. Returns th_chol_solve's status. */
int th_galerkin(int64_t n, int64_t k, const double *S, const double *Kh, const double *b,
                double *KhS, double *M, double *v);
/* Eigenvalues (ascending) of the symmetric n-by-n A by cyclic Jacobi rotations. */
void th_jacobi_eig(int64_t n, const double *A, double *w);

/* SKI tests: a d-dimensional grid (unused dimensions have one point), and the
 * dense n-by-m interpolation matrix W built from the core's taps. */
sgp_ski_grid th_ski_grid(int d, const int64_t *m, const double *lo, const double *h);
double *th_ski_dense_W(sgp_ctx *ctx, const sgp_ski_grid *g, sgp_ski_interpolation interp,
                       sgp_ski_bounds_policy policy, const double *X, int64_t n);
/* n points uniform in the valid range of the grid widened by `out` cells (so
 * that clamp and drop are exercised), y = smooth function + noise. */
void th_ski_data(sgp_rng *rng, const sgp_ski_grid *g, sgp_ski_interpolation interp, int64_t n,
                 double out, double *X, double *y);
/* 1 when two statistics are bitwise equal (n, y'y, sum y, W'W stencil, W'y, W'1) */
int th_ski_stats_same_bits(const sgp_ski_stats *a, const sgp_ski_stats *b);

/* SKI problem P2: n = 400 points of a 2-D field on a 12 x 10 cubic
 * grid (h = 0.25), RBF kernel (lengthscales 0.6, 0.8; outputscale 1.3), noise
 * 0.5, 50 test points; dense oracles W, Wt, K_G, A = W K_G W' + noise I,
 * a_ref = K_G W' A^{-1} y and mean_ref = Wt a_ref; the K_G and classic SKI
 * operators and the statistics of (X, y). Shared by the solver tests. */
typedef struct {
  sgp_ctx ctx;
  sgp_ski_grid g;
  double ell[2];
  sgp_kernel k;
  double noise;
  int64_t n, m, nt;
  double *X, *y, *Xt;
  double *W, *Wt, *KG, *A;   /* dense oracles */
  double *a_ref, *mean_ref;  /* K_G W' A^{-1} y, W* a_ref */
  sgp_op kg, ski;
  sgp_ski_stats *st;
} th_ski_p2;
th_ski_p2 *th_ski_p2_new(void);
void th_ski_p2_free(th_ski_p2 *p);
/* The same in place (the struct must not move: the operators point into it). */
void th_ski_p2_init(th_ski_p2 *p);
void th_ski_p2_release(th_ski_p2 *p);

#endif
