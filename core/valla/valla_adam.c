/* valla_adam.c -- Adam (Kingma & Ba) with bias correction, on a masked vector. */
#include "valla/valla.h"

#include <math.h>
#include <stdlib.h>

int valla_adam_init(sgp_ctx *ctx, valla_adam *a, int64_t n, double lr, double b1, double b2,
                    double eps)
{
  a->n = n; a->lr = lr; a->b1 = b1; a->b2 = b2; a->eps = eps; a->t = 0;
  a->m = sgp_calloc(n);
  a->v = sgp_calloc(n);
  if (!a->m || !a->v) {
    valla_adam_free(a);
    return sgp_fail(ctx, SGP_ENOMEM, "valla: out of memory for Adam");
  }
  return SGP_OK;
}

void valla_adam_step(valla_adam *a, double *x, const double *grad, const unsigned char *mask)
{
  a->t++;
  const double c1 = 1.0 - pow(a->b1, (double)a->t), c2 = 1.0 - pow(a->b2, (double)a->t);
  for (int64_t i = 0; i < a->n; i++) {
    if (mask && !mask[i]) continue;
    a->m[i] = a->b1 * a->m[i] + (1.0 - a->b1) * grad[i];
    a->v[i] = a->b2 * a->v[i] + (1.0 - a->b2) * grad[i] * grad[i];
    x[i] -= a->lr * (a->m[i] / c1) / (sqrt(a->v[i] / c2) + a->eps);
  }
}

void valla_adam_free(valla_adam *a)
{
  free(a->m); free(a->v);
  a->m = a->v = NULL;
}
