/* ctx.c -- context, status text, host hooks, seeded RNG, build information. */
#define _POSIX_C_SOURCE 200809L
#include "runtime/sgp_internal.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *sgp_strerror(int status)
{
  switch (status) {
  case SGP_OK: return "success";
  case SGP_EINVAL: return "invalid argument";
  case SGP_EDIM: return "inconsistent dimensions";
  case SGP_ENOMEM: return "out of memory";
  case SGP_ELAPACK: return "LAPACK failure";
  case SGP_ENOTPD: return "matrix not positive definite";
  case SGP_EINTERRUPT: return "interrupted";
  case SGP_ECUDA: return "CUDA failure";
  case SGP_EUNSUPPORTED: return "not supported by this build";
  default: return "unknown status";
  }
}

void sgp_ctx_init(sgp_ctx *ctx)
{
  memset(ctx, 0, sizeof *ctx);
  ctx->backend = SGP_BACKEND_AUTO;
  sgp_ctx_set_seed(ctx, 1);
}

void sgp_ctx_set_seed(sgp_ctx *ctx, uint64_t seed)
{
  ctx->seed = seed;
  sgp_rng_seed(&ctx->rng, seed);
}

int sgp_ctx_set_threads(sgp_ctx *ctx, double threads)
{
  if (!(threads >= 0.0 && threads <= SGP_MAX_THREADS) || threads != floor(threads))
    return sgp_fail(ctx, SGP_EINVAL,
                    "threads: must be a whole number from 0 (the OpenMP default) to %d "
                    "(got %g)", SGP_MAX_THREADS, threads);
  ctx->nthreads = (int)threads;
  return SGP_OK;
}

int sgp_ctx_test_hook(sgp_ctx *ctx, const char *name, double value)
{
  const char *on = getenv("SCALEGP_TEST_HOOKS");
  if (!(value >= 0.0) || (on && !strcmp(on, "1"))) return SGP_OK;
  return sgp_fail(ctx, SGP_EINVAL,
                  "%s: is a test hook, honoured only where the environment variable "
                  "SCALEGP_TEST_HOOKS is 1", name);
}

#ifdef _OPENMP
#include <pthread.h>
/* libgomp keeps its thread pool across fork() but not the pool's threads: a
 * forked child (parallel::mclapply, a FORK cluster) that enters a parallel
 * region with more than one thread waits for them forever. Whether the parent
 * had a pool cannot be known (any library on the same libgomp may have made
 * one), so every child forked after this library was loaded runs its regions
 * with one thread; its parallelism is the processes'. The handler is registered
 * at load (glibc drops it when the library is unloaded). */
static volatile sig_atomic_t forked_child;

static void on_fork_child(void) { forked_child = 1; }

__attribute__((constructor)) static void register_fork_handler(void)
{
  pthread_atfork(NULL, NULL, on_fork_child);
}
#endif

int sgp_forked_child(void)
{
#ifdef _OPENMP
  return forked_child != 0;
#else
  return 0;
#endif
}

int sgp_ctx_threads(const sgp_ctx *ctx)
{
#ifdef _OPENMP
  if (forked_child) return 1;
  int n = ctx->nthreads > 0 ? ctx->nthreads : omp_get_max_threads();
  const int limit = omp_get_thread_limit();
  if (n > SGP_MAX_THREADS) n = SGP_MAX_THREADS;
  return limit > 0 && n > limit ? limit : n;
#else
  (void)ctx;
  return 1;
#endif
}

int sgp_par_threads(const sgp_ctx *ctx, double flops)
{
  const int nt = sgp_ctx_threads(ctx);
  if (nt <= 1 || !(flops >= 2.0 * SGP_PAR_MIN_FLOPS)) return 1;
  const double most = floor(flops / SGP_PAR_MIN_FLOPS);
  return most < (double)nt ? (int)most : nt;
}

void sgp_ctx_rename_arg(sgp_ctx *ctx, const char *from, const char *to)
{
  const size_t n = strlen(from);
  /* "from: ..." or, as the option tables word it, "'from' ..." */
  const int quoted = ctx->errmsg[0] == '\'' && !strncmp(ctx->errmsg + 1, from, n) &&
                     ctx->errmsg[n + 1] == '\'';
  if (!quoted && (strncmp(ctx->errmsg, from, n) != 0 || ctx->errmsg[n] != ':')) return;
  char out[2 * sizeof ctx->errmsg + 2];
  snprintf(out, sizeof out, "%s%s%s", quoted ? "'" : "", to, ctx->errmsg + n + 2 * quoted);
  size_t l = strlen(out);
  if (l >= sizeof ctx->errmsg) l = sizeof ctx->errmsg - 1;
  memcpy(ctx->errmsg, out, l);
  ctx->errmsg[l] = '\0';
}

int sgp_vfail(sgp_ctx *ctx, int code, const char *fmt, va_list ap)
{
  vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
  return code;
}

int sgp_fail(sgp_ctx *ctx, int code, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  sgp_vfail(ctx, code, fmt, ap);
  va_end(ap);
  return code;
}

void sgp_say(sgp_ctx *ctx, const char *fmt, ...)
{
  char line[512];
  va_list ap;
  if (!ctx->verbose || !ctx->print) return;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  ctx->print(ctx->user_data, line);
}

void sgp_progress(sgp_ctx *ctx, const char *task, double fraction)
{
  if (ctx->verbose && ctx->progress) ctx->progress(ctx->user_data, task, fraction);
}

int sgp_poll_interrupt(sgp_ctx *ctx)
{
  if (ctx->interrupt && ctx->interrupt(ctx->user_data))
    return sgp_fail(ctx, SGP_EINTERRUPT, "interrupted by the user");
  return SGP_OK;
}

double *sgp_alloc(int64_t n)
{
  if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(double)) return NULL;
  return (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
}

double *sgp_calloc(int64_t n)
{
  if (n < 0 || (uint64_t)n > SIZE_MAX / sizeof(double)) return NULL;
  return (double *)calloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

/* ------------------------------------------------------------------ RNG */

static uint64_t splitmix64(uint64_t *x)
{
  uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

void sgp_rng_seed(sgp_rng *rng, uint64_t seed)
{
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&x);
}

uint64_t sgp_rng_next(sgp_rng *rng)
{
  uint64_t *s = rng->s;
  const uint64_t result = rotl(s[1] * 5, 7) * 9;
  const uint64_t t = s[1] << 17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double sgp_rng_uniform(sgp_rng *rng)
{
  /* 53 random bits, shifted by half a step so the result is never 0 or 1.
   * The top value 2^53 - 1 + 0.5 is not representable and rounds to 2^53
   * (u = 1), so it is clamped to the largest double below 1. */
  const double u = ((double)(sgp_rng_next(rng) >> 11) + 0.5) * 0x1.0p-53;
  return u < 1.0 ? u : 0x1.fffffffffffffp-1;
}

double sgp_rng_normal(sgp_rng *rng)
{
  double u1 = sgp_rng_uniform(rng), u2 = sgp_rng_uniform(rng);
  return sqrt(-2.0 * log(u1)) * cos(6.283185307179586476925 * u2);
}

void sgp_rng_sample_prefix(sgp_rng *rng, int64_t *idx, int64_t n, int64_t k)
{
  for (int64_t i = 0; i < k && i < n; i++) { /* partial Fisher-Yates */
    int64_t j = i + (int64_t)(sgp_rng_uniform(rng) * (double)(n - i));
    if (j >= n) j = n - 1; /* uniform() < 1, but (n - i) u may round up to n - i */
    const int64_t t = idx[i]; idx[i] = idx[j]; idx[j] = t;
  }
}

void sgp_rng_jump(sgp_rng *rng)
{
  static const uint64_t JUMP[] = {0x180ec6d33cfd0abaULL, 0xd5a61266f0c9392cULL,
                                  0xa9582618e03fc9aaULL, 0x39abdc4529b1661cULL};
  uint64_t t[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; i++)
    for (int b = 0; b < 64; b++) {
      if (JUMP[i] & (1ULL << b))
        for (int j = 0; j < 4; j++) t[j] ^= rng->s[j];
      sgp_rng_next(rng);
    }
  memcpy(rng->s, t, sizeof t);
}

/* ------------------------------------------------------------ build info */

void sgp_info(sgp_build_info *info)
{
  info->version = SGP_VERSION_STRING;
  info->fftw = sgp_fft_version();
#ifdef _OPENMP
  info->openmp = 1;
  info->max_threads = forked_child ? 1 : omp_get_max_threads();
#else
  info->openmp = 0;
  info->max_threads = 1;
#endif
  info->cuda_built = sgp_cuda_built();
  info->cuda_devices = info->cuda_built ? sgp_cuda_device_count() : 0;
}

int sgp_backend_available(sgp_backend backend)
{
  switch (backend) {
  case SGP_BACKEND_AUTO:
  case SGP_BACKEND_CPU: return 1;
  case SGP_BACKEND_CUDA: return sgp_cuda_built() && sgp_cuda_device_count() > 0;
  default: return 0;
  }
}

double sgp_phys_mem_bytes(void)
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) return (double)pages * (double)page;
#endif
  return 0.0;
}

double sgp_clock(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
