/* fft.c -- FFTW build information. FFTW is called only here and in
 * core/ski/ski_fft.c, which holds the grid products of ski_gsgp (plans are
 * created at operator creation through core/ski/ski_fft_plan.c, which
 * serializes every planner call: FFTW's planner is not thread-safe; execution
 * uses the thread-safe new-array functions). */
#include "runtime/sgp_internal.h"
#include <fftw3.h>

const char *sgp_fft_version(void) { return fftw_version; }
