/* kernel_table.c -- the kernels' facts, one row each (kernel_table.h); the
 * kernel names of every option table and fit check come from here.
 *
 * SKI grid rule (ski_grid_rule.c has the model): p = 1 (Matern-1/2), 2 (3/2),
 * 3 (5/2, and the analytic kernels: cubic convolution's order), C measured
 * against the dense exact GP as described there, except rq's: rq is a scale
 * mixture of rbfs (precision tau ~ Gamma(alpha, rate alpha)), so its error is the
 * rbf's times E[tau^(3/2)] = Gamma(alpha + 3/2) / (Gamma(alpha) alpha^(3/2)),
 * 1.33 at alpha = 1 and below 1.67 for alpha >= 1/2: C = 0.2 (not measured). */
#include "kernel_table.h"
#include "sgp_options.h"

#include <stddef.h>

/* One row per kernel: its kind, name, SKI grid rule (C, p), separability, whether
 * it reads alpha, and its formula for the option's doc (s the outputscale). */
#define KERNEL_ROWS(X)                                                                   \
  X(SGP_KERNEL_RBF, "rbf", 0.12, 3.0, 1, 0, "s exp(-r^2/2)")                             \
  X(SGP_KERNEL_MATERN12, "matern12", 1.7, 1.0, 0, 0, "s exp(-r)")                        \
  X(SGP_KERNEL_MATERN32, "matern32", 1.3, 2.0, 0, 0, "s (1 + sqrt(3) r) exp(-sqrt(3) r)") \
  X(SGP_KERNEL_MATERN52, "matern52", 1.3, 3.0, 0, 0,                                     \
    "s (1 + sqrt(5) r + 5 r^2/3) exp(-sqrt(5) r)")                                       \
  X(SGP_KERNEL_RQ, "rq", 0.2, 3.0, 0, 1, "s (1 + r^2/(2 alpha))^(-alpha)")

#define INFO_ROW(kind, name, C, p, sep, al, formula) [kind] = {name, C, p, sep, al},
static const sgp_kernel_info rows[SGP_KERNEL_COUNT] = {KERNEL_ROWS(INFO_ROW)};

#define NAME_ROW(kind, name, C, p, sep, al, formula) [kind] = name,
const char *const sgp_kernel_names[SGP_KERNEL_COUNT + 1] = {KERNEL_ROWS(NAME_ROW)
                                                            [SGP_KERNEL_COUNT] = NULL};

#define DOC_ROW(kind, name, C, p, sep, al, formula) "\"" name "\": " formula "; "
const char sgp_kernel_doc[] = KERNEL_ROWS(DOC_ROW) "r = |x - x'| / lengthscale";

const sgp_kernel_info *sgp_kernel_info_of(sgp_kernel_kind kind)
{
  return (int)kind >= 0 && kind < SGP_KERNEL_COUNT ? &rows[kind] : NULL;
}
