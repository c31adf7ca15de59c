/* kernel_table.h -- the stationary kernels, one table (core-internal).
 *
 * A kernel is k(x, x') = s phi(r2; alpha), r2 = |(x - x') / lengthscale|^2. Its
 * facts (name, SKI grid rule, separability, shape parameter) are one row of
 * kernel_table.c; its arithmetic is one case of each switch below (value and
 * psi), and the dispatch SGP_KERNEL_DISPATCH gives the tile loops of kernels.c
 * one constant kind per loop, so each kind's loop vectorizes. The CUDA device
 * dispatch (cuda_kernel_op.cu) repeats the value. ARCHITECTURE.md lists the
 * steps of adding a kernel. */
#ifndef SGP_KERNEL_TABLE_H
#define SGP_KERNEL_TABLE_H

#include "api/sgp.h"
#include "kernels/kernel_exp.h"

#include <math.h>

typedef struct {
  const char *name;   /* the `kernel` option's value */
  /* SKI grid rule (ski_grid_rule.c): the posterior mean's cubic-interpolation
   * error ~ C (h/ell)^p */
  double ski_C, ski_p;
  double ski_C_alpha; /* C grows by the factor (1 + ski_C_alpha / alpha) */
  /* phi(sum_j r_j^2) = prod_j phi(r_j^2): the grid kernel is a Kronecker product
   * of 1-D ones on any grid (the SKI Kronecker and eigenbasis paths) */
  int separable;
  int uses_alpha;     /* reads the shape parameter alpha (> 0) */
} sgp_kernel_info;

/* The row of a kind (NULL for a kind out of range). */
const sgp_kernel_info *sgp_kernel_info_of(sgp_kernel_kind kind);

/* The statement LOOP(K) once per kind, with K a constant. */
#define SGP_KERNEL_DISPATCH(kind, LOOP)                                          \
  switch (kind) {                                                                \
  case SGP_KERNEL_RBF: LOOP(SGP_KERNEL_RBF); break;                              \
  case SGP_KERNEL_MATERN12: LOOP(SGP_KERNEL_MATERN12); break;                    \
  case SGP_KERNEL_MATERN32: LOOP(SGP_KERNEL_MATERN32); break;                    \
  case SGP_KERNEL_MATERN52: LOOP(SGP_KERNEL_MATERN52); break;                    \
  case SGP_KERNEL_RQ: LOOP(SGP_KERNEL_RQ); break;                                \
  case SGP_KERNEL_COUNT: break;                                                  \
  }

/* s phi(r2); always inlined with a constant kind (SGP_KERNEL_DISPATCH). */
static inline __attribute__((always_inline)) double sgp_kernel_of_r2(sgp_kernel_kind kind,
                                                                     double s2, double alpha,
                                                                     double r2)
{
  double a;
  switch (kind) {
  case SGP_KERNEL_RBF: return s2 * exp_nonpositive(-0.5 * r2);
  case SGP_KERNEL_MATERN12: return s2 * exp_nonpositive(-sqrt(r2));
  case SGP_KERNEL_MATERN32:
    a = sqrt(3.0 * r2);
    a = a < 745.0 ? a : 745.0; /* exp(-a) underflows: keep (1 + a) finite */
    return s2 * (1.0 + a) * exp_nonpositive(-a);
  case SGP_KERNEL_MATERN52:
    a = sqrt(5.0 * r2);
    a = a < 745.0 ? a : 745.0; /* as above */
    return s2 * (1.0 + a + a * a / 3.0) * exp_nonpositive(-a);
  case SGP_KERNEL_RQ: /* log1p keeps small r2 accurate; the exponent is <= 0 */
    return s2 * exp_nonpositive(-alpha * log1p(r2 / (2.0 * alpha)));
  case SGP_KERNEL_COUNT: break;
  }
  return NAN;
}

/* psi = -2 dk/dr2 from the kernel's value kval = k(r2), as a multiple of k
 * itself so that no exp is evaluated again (kernels.h: sgp_kernel_psi). */
static inline double sgp_kernel_psi_of(sgp_kernel_kind kind, double alpha, double kval,
                                       double r2)
{
  switch (kind) {
  case SGP_KERNEL_RBF: return kval;
  case SGP_KERNEL_MATERN12: return r2 > 0 ? kval / sqrt(r2) : 0.0;
  case SGP_KERNEL_MATERN32: return 3.0 * kval / (1.0 + sqrt(3.0 * r2));
  case SGP_KERNEL_MATERN52: {
    const double a = sqrt(5.0 * r2);
    return (5.0 / 3.0) * (1.0 + a) * kval / (1.0 + a + a * a / 3.0);
  }
  case SGP_KERNEL_RQ: return kval / (1.0 + r2 / (2.0 * alpha));
  case SGP_KERNEL_COUNT: break;
  }
  return NAN;
}

/* dk/dlog alpha from the kernel's value kval = k(r2), for the kernels that read
 * alpha (0 for the others). rq: log k = log s - alpha log1p(x), x = r2 / (2 alpha),
 * so dk/dlog alpha = alpha k (x / (1 + x) - log1p(x)); below x = 0.01 the
 * difference (about -x^2/2) is summed as its series sum_{j>=2} (-1)^(j+1) x^j
 * (1 - 1/j), whose terms past j = 8 are below x^9 (1e-14 of the leading term),
 * as the two logarithms would cancel to an absolute error of eps. */
static inline double sgp_kernel_dalpha_of(sgp_kernel_kind kind, double alpha, double kval,
                                          double r2)
{
  switch (kind) {
  case SGP_KERNEL_RQ: {
    const double x = r2 / (2.0 * alpha);
    double d;
    if (x < 0.01) {
      double p = x, sgn = -1.0;
      d = 0.0;
      for (int j = 2; j <= 8; j++) { p *= x; d += sgn * p * (1.0 - 1.0 / j); sgn = -sgn; }
    } else {
      d = x / (1.0 + x) - log1p(x);
    }
    return alpha * kval * d;
  }
  case SGP_KERNEL_RBF: case SGP_KERNEL_MATERN12: case SGP_KERNEL_MATERN32:
  case SGP_KERNEL_MATERN52: return 0.0;
  case SGP_KERNEL_COUNT: break;
  }
  return NAN;
}

#endif
