/* ski_grid_rule.c -- the default grid spacing of ski_gsgp from the kernel's
 * smoothness, and the estimated interpolation error of the
 * posterior mean a fit reports.
 *
 * Model. Cubic convolution reproduces quadratics, so for a smooth kernel its
 * error falls like (h/ell)^3; a Matern-nu kernel is less smooth at 0 and the
 * error of the posterior mean falls like (h/ell)^(nu + 1/2) (the order of
 * the Sobolev smoothness the kernel's spectrum ~ w^-(2 nu + d) gives its
 * sample paths beyond H^(d/2)), capped by the cubic order 3:
 *   E(h) = (d/2) sqrt(s) C_k max_j (h_j/ell_j)^p_k,
 *   p = 1 (Matern-1/2), 2 (3/2), 3 (5/2), 3 (rbf); C and p are the kernel's row
 *   of kernel_table.c.
 * The constants C_k are the upper envelope of max |mean - exact| / sqrt(s)
 * measured against the dense exact GP (2-D, n = 3000 uniform on the unit
 * square, ell 0.2, s 1, noise sd 0.1 and 0.3, 400 test points, tol 1e-9,
 * h/ell from 1/3 to 1/24; the error was within 30% the same at both noise
 * levels, and the fitted slopes were 2.96 (rbf), 3.0 (5/2), 2.05 (3/2) and
 * 1.05 (1/2)): C = 0.09, 1.3, 1.3, 1.7; the rbf's raised to 0.12 by a
 * second data set (ell 0.3, noise sd 0.3: 0.0035 at h = ell/3, the test of
 * test-ski-mean-grid.R). The factor d/2 carries the 2-D
 * calibration to other dimensions (each dimension's interpolation adds its
 * error). Linear interpolation is not calibrated: its default keeps h <= ell/3
 * and its error is not estimated (NaN). */
#include "ski/ski.h"
#include "kernels/kernel_table.h"

#include <math.h>

/* The default grid aims at half of what a fit warns about (0.1 noise sd). */
#define TARGET_FRACTION 0.05
/* h <= ell/3 at least: the rule of the spec (and of linear interpolation). */
#define MIN_CELLS 3.0

/* C and p of the kernel's row (kernel_table.c), C times (1 + ski_C_alpha /
 * alpha) for a kernel with a shape parameter; a kind out of range never
 * reaches here (sgp_kernel_check), NaN if one did. */
static void kernel_rule(const sgp_kernel *k, double *C, double *p)
{
  const sgp_kernel_info *info = sgp_kernel_info_of(k->kind);
  *C = info ? info->ski_C * (info->uses_alpha ? 1.0 + info->ski_C_alpha / k->alpha : 1.0) : NAN;
  *p = info ? info->ski_p : NAN;
}

double sgp_ski_cells_per_lengthscale(const sgp_kernel *k, sgp_ski_interpolation interp,
                                     double sd_ratio, int d)
{
  if (interp != SGP_SKI_CUBIC || !(sd_ratio > 0) || !isfinite(sd_ratio)) return MIN_CELLS;
  double C, p;
  kernel_rule(k, &C, &p);
  /* (d/2) C (h/ell)^p <= TARGET_FRACTION sd_ratio */
  const double cells = pow(0.5 * (double)d * C / (TARGET_FRACTION * sd_ratio), 1.0 / p);
  return cells > MIN_CELLS ? cells : MIN_CELLS;
}

double sgp_ski_interp_error_est(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                                const sgp_kernel *k)
{
  if (interp != SGP_SKI_CUBIC || !k->lengthscale) return NAN;
  double C, p, r = 0.0;
  kernel_rule(k, &C, &p);
  for (int j = 0; j < g->d; j++) {
    if (g->m[j] < 2) continue;
    const double ell = k->lengthscale[k->n_lengthscale == 1 ? 0 : j];
    if (g->h[j] / ell > r) r = g->h[j] / ell;
  }
  return 0.5 * (double)g->d * sqrt(k->outputscale) * C * pow(r, p);
}
