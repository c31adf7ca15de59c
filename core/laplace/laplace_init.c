/* laplace_init.c -- data-based initial hyperparameters: the
 * values a fit starts learning from, and uses when told to learn
 * nothing of what the user did not give. */
#include "laplace/lik_table.h"

#include <math.h>

int sgp_laplace_initial(sgp_ctx *ctx, sgp_cmat X, const sgp_lik *lik, int want_ls, double *ls,
                        double *s, double *mean, double *noise)
{
  int st = want_ls ? sgp_select_init_lengthscale(ctx, X, ls) : SGP_OK;
  if (st) return st;
  *noise = NAN;
  sgp_lik_ops_of(lik->kind)->initial(lik, s, mean, noise);
  return SGP_OK;
}
