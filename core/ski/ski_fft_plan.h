/* ski_fft_plan.h -- FFTW planning of ski_fft.c (ski_fft_plan.c); private to
 * the files that include FFTW (ski_fft.c, ski_fft_kron.c, ski_fft_plan.c). */
#ifndef SKI_FFT_PLAN_H
#define SKI_FFT_PLAN_H

#include "ski/ski.h"

#include <fftw3.h>

typedef enum {
  SKI_PLAN_WISDOM = 0,   /* FFTW_MEASURE only from wisdom: NULL plans, no error, without */
  SKI_PLAN_ESTIMATE = 1, /* FFTW_ESTIMATE */
  SKI_PLAN_MEASURE = 2   /* FFTW_MEASURE, under a time limit when seconds > 0 */
} ski_plan_effort;

/* r2c and c2r plans for `howmany` consecutive real arrays of sizes L[0..rank-1]
 * (first dimension fastest, no padding) and their half-complex transforms
 * (first dimension halved to L[0]/2 + 1), planned on scratch arrays while
 * holding the process-wide planner lock. SGP_ENOMEM when FFTW cannot plan
 * (except SKI_PLAN_WISDOM, which leaves *fwd = *bwd = NULL without wisdom). */
int ski_fft_plan_pair(sgp_ctx *ctx, int rank, const int64_t *L, int64_t howmany,
                      ski_plan_effort effort, double seconds, fftw_plan *fwd, fftw_plan *bwd);
/* Destroys a plan (NULL is fine) under the planner lock and sets it to NULL. */
void ski_fft_plan_destroy(fftw_plan *p);

#endif
