/* kernel_options.c -- gp_kernel's option table (sgp_options.h); the kernel
 * names every table with a kernel shares are kernel_table.c's. */
#include "api/sgp_options.h"

#include <math.h>
#include <stddef.h>

void sgp_kernel_opts_default(sgp_kernel_opts *o)
{
  static const double one = 1.0;
  o->kernel.kind = SGP_KERNEL_RBF;
  o->kernel.lengthscale = &one;
  o->kernel.n_lengthscale = 1;
  o->kernel.outputscale = 1.0;
  o->kernel.alpha = 1.0;
}

static const sgp_opt_spec specs[] = {SGP_KERNEL_OPTION_ROWS(sgp_kernel_opts, kernel)};

const sgp_verb_table sgp_kernel_table = {"gp_kernel", specs, (int)(sizeof specs / sizeof specs[0]), 0};
