/* ski_fft_plan.c -- FFTW planning for the K_G operator of ski_fft.c.
 *
 * FFTW's planner (plan creation, plan destruction, the time limit, wisdom) is
 * not thread-safe; only the execution of a finished plan is. Every planner
 * call of the core goes through this file and holds one process-wide lock, an
 * OpenMP named critical section (the core's threads are OpenMP threads; a
 * host that calls the core from threads of its own gets the same lock; a
 * build without OpenMP spins on an atomic flag). The lock is the one piece of
 * process state the core keeps, as FFTW's wisdom is. */
#define _POSIX_C_SOURCE 199309L
#include "ski/ski_fft_plan.h"

static unsigned effort_flags(ski_plan_effort effort)
{
  switch (effort) {
  case SKI_PLAN_WISDOM: return FFTW_MEASURE | FFTW_WISDOM_ONLY;
  case SKI_PLAN_MEASURE: return FFTW_MEASURE;
  case SKI_PLAN_ESTIMATE:
  default: return FFTW_ESTIMATE;
  }
}

/* FFTW's guru64 dimensions of the r2c (rdims) and c2r (cdims) transforms. */
static void guru_dims(int rank, const int64_t *L, int64_t howmany, fftw_iodim64 *rdims,
                      fftw_iodim64 *cdims, fftw_iodim64 *hr, fftw_iodim64 *hc, int64_t *rs,
                      int64_t *cs)
{
  *rs = *cs = 1;
  for (int j = 0; j < rank; j++) {
    const int k = rank - 1 - j; /* FFTW lists dimensions slowest first */
    rdims[k].n = cdims[k].n = L[j];
    rdims[k].is = cdims[k].os = *rs;
    rdims[k].os = cdims[k].is = *cs;
    *rs *= L[j];
    *cs *= j == 0 ? L[0] / 2 + 1 : L[j];
  }
  hr->n = hc->n = howmany;
  hr->is = hc->os = *rs;
  hr->os = hc->is = *cs;
}

/* Without OpenMP (a build without it has no threads of its own, but a host
 * may call from several): a spin lock on GCC-compatible compilers. */
#if !defined(_OPENMP) && defined(__GNUC__)
static int planner_busy;
#define PLANNER_LOCK() while (__atomic_exchange_n(&planner_busy, 1, __ATOMIC_ACQUIRE)) {}
#define PLANNER_UNLOCK() __atomic_store_n(&planner_busy, 0, __ATOMIC_RELEASE)
#else
#define PLANNER_LOCK() (void)0
#define PLANNER_UNLOCK() (void)0
#endif

/* The planner calls proper, in the critical section. */
static void plan_locked(int rank, const fftw_iodim64 *rdims, const fftw_iodim64 *cdims,
                        const fftw_iodim64 *hr, const fftw_iodim64 *hc, double *re,
                        fftw_complex *cx, unsigned flags, double seconds, fftw_plan *fwd,
                        fftw_plan *bwd)
{
  PLANNER_LOCK();
#ifdef _OPENMP
#pragma omp critical(sgp_fftw_planner)
#endif
  {
    fftw_set_timelimit(seconds > 0 ? seconds : FFTW_NO_TIMELIMIT);
    *fwd = fftw_plan_guru64_dft_r2c(rank, rdims, 1, hr, re, cx, flags);
    *bwd = fftw_plan_guru64_dft_c2r(rank, cdims, 1, hc, cx, re, flags);
    fftw_set_timelimit(FFTW_NO_TIMELIMIT);
    if (!*fwd || !*bwd) { /* both or neither */
      if (*fwd) fftw_destroy_plan(*fwd);
      if (*bwd) fftw_destroy_plan(*bwd);
      *fwd = *bwd = NULL;
    }
  }
  PLANNER_UNLOCK();
}

int ski_fft_plan_pair(sgp_ctx *ctx, int rank, const int64_t *L, int64_t howmany,
                      ski_plan_effort effort, double seconds, fftw_plan *fwd, fftw_plan *bwd)
{
  fftw_iodim64 rdims[SGP_SKI_MAX_D], cdims[SGP_SKI_MAX_D], hr, hc;
  int64_t rs, cs;
  *fwd = *bwd = NULL;
  guru_dims(rank, L, howmany, rdims, cdims, &hr, &hc, &rs, &cs);
  /* scratch: FFTW_MEASURE overwrites the arrays it plans on */
  double *re = fftw_alloc_real((size_t)(rs * howmany));
  fftw_complex *cx = fftw_alloc_complex((size_t)(cs * howmany));
  int st = SGP_OK;
  if (!re || !cx) {
    st = sgp_fail(ctx, SGP_ENOMEM, "out of memory for FFT planning (%lld values)",
                  (long long)(rs * howmany));
  } else {
    plan_locked(rank, rdims, cdims, &hr, &hc, re, cx, effort_flags(effort),
                effort == SKI_PLAN_MEASURE ? seconds : 0.0, fwd, bwd);
    if (!*fwd && effort != SKI_PLAN_WISDOM)
      st = sgp_fail(ctx, SGP_ENOMEM, "FFTW could not plan a transform of %lld values",
                    (long long)rs);
  }
  fftw_free(re);
  fftw_free(cx);
  return st;
}

void ski_fft_plan_destroy(fftw_plan *p)
{
  if (!*p) return;
  PLANNER_LOCK();
#ifdef _OPENMP
#pragma omp critical(sgp_fftw_planner)
#endif
  fftw_destroy_plan(*p);
  PLANNER_UNLOCK();
  *p = NULL;
}
