/* fft.c -- the only file that calls FFTW (plans are created serially: FFTW's
 * planner is not thread-safe). The grid products of ski_gsgp live here. */
#include "sgp_internal.h"
#include <fftw3.h>

const char *sgp_fft_version(void) { return fftw_version; }
