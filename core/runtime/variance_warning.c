/* variance_warning.c -- the words of predictive variances that rounding does not
 * resolve (sgp_variance_resolved, sgp_internal.h), shared by every method. */
#include "runtime/sgp_internal.h"

#include <stdio.h>

void sgp_variance_warning(int64_t count, int64_t n, char *buf, size_t size)
{
  if (size == 0) return;
  buf[0] = '\0';
  if (count <= 0) return;
  snprintf(buf, size,
           "%lld of %lld latent variances are below the rounding error of the difference "
           "that gives them (the prior variance minus what the data explain); they are "
           "reported as computed (0 where negative) and may be far below the exact ones "
           "(an outputscale far from the data's, or an edited fit, does this)",
           (long long)count, (long long)n);
}
