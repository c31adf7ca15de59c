/* backend.c -- CPU-only stand-ins for the CUDA backend's queries; a build with
 * SGP_HAVE_CUDA takes them from cuda/ instead. */
#include "sgp_internal.h"

#ifndef SGP_HAVE_CUDA
int sgp_cuda_built(void) { return 0; }
int sgp_cuda_device_count(void) { return 0; }
#endif
