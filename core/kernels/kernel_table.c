/* kernel_table.c -- the kernels' facts, one row each (kernel_table.h); the
 * kernel names of every option table and fit check come from here.
 *
 * SKI grid rule (ski_grid_rule.c has the model): p = 1 (Matern-1/2), 2 (3/2),
 * 3 (5/2, and the analytic kernels: cubic convolution's order), C measured
 * against the dense exact GP as described there. rq is a scale mixture of rbfs
 * (precision ~ Gamma(alpha, rate alpha)) whose short lengthscales raise the
 * error as alpha falls: against the dense GP (1-D, n = 300 uniform on [0, 1],
 * ell 0.3, s 1, noise variance 0.04, 40 test points, h/ell 0.33, 0.13, 0.06)
 * its error was the rbf's times 4.3, 3.0, 1.9, 1.35 at alpha = 0.3, 0.5, 1, 2
 * (the slope 3 at each), within 10% of 1 + 1/alpha: C = 0.12 (1 + 1/alpha). */
#include "kernels/kernel_table.h"
#include "api/sgp_options.h"

#include <stddef.h>

/* One row per kernel: its kind, name, SKI grid rule (C, p, C's alpha factor),
 * separability, whether it reads alpha, and its formula for the option's doc
 * (s the outputscale). */
#define KERNEL_ROWS(X)                                                                     \
  X(SGP_KERNEL_RBF, "rbf", 0.12, 3.0, 0.0, 1, 0, "s exp(-r^2/2)")                          \
  X(SGP_KERNEL_MATERN12, "matern12", 1.7, 1.0, 0.0, 0, 0, "s exp(-r)")                     \
  X(SGP_KERNEL_MATERN32, "matern32", 1.3, 2.0, 0.0, 0, 0,                                  \
    "s (1 + sqrt(3) r) exp(-sqrt(3) r)")                                                   \
  X(SGP_KERNEL_MATERN52, "matern52", 1.3, 3.0, 0.0, 0, 0,                                  \
    "s (1 + sqrt(5) r + 5 r^2/3) exp(-sqrt(5) r)")                                         \
  X(SGP_KERNEL_RQ, "rq", 0.12, 3.0, 1.0, 0, 1, "s (1 + r^2/(2 alpha))^(-alpha)")

#define INFO_ROW(kind, name, C, p, Ca, sep, al, formula) [kind] = {name, C, p, Ca, sep, al},
static const sgp_kernel_info rows[SGP_KERNEL_COUNT] = {KERNEL_ROWS(INFO_ROW)};

#define NAME_ROW(kind, name, C, p, Ca, sep, al, formula) [kind] = name,
const char *const sgp_kernel_names[SGP_KERNEL_COUNT + 1] = {KERNEL_ROWS(NAME_ROW)
                                                            [SGP_KERNEL_COUNT] = NULL};

#define DOC_ROW(kind, name, C, p, Ca, sep, al, formula) "\"" name "\": " formula "; "
const char sgp_kernel_doc[] = KERNEL_ROWS(DOC_ROW) "r = |x - x'| / lengthscale";

const sgp_kernel_info *sgp_kernel_info_of(sgp_kernel_kind kind)
{
  return (int)kind >= 0 && kind < SGP_KERNEL_COUNT ? &rows[kind] : NULL;
}
