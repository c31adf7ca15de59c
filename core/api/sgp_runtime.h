/* sgp_runtime.h -- the public C API's base: version, matrix views, status codes,
 * the seeded RNG, the context (hooks, threads, seed, backend) and build information. */
#ifndef SGP_RUNTIME_H
#define SGP_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SGP_VERSION_MAJOR 0
#define SGP_VERSION_MINOR 1
#define SGP_VERSION_PATCH 0
#define SGP_VERSION_STRING "0.1.0"

/* ---------------------------------------------------------------- views */

typedef struct { const double *data; int64_t rows, cols, ld; } sgp_cmat;
typedef struct { double *data; int64_t rows, cols, ld; } sgp_mat;

/* View helpers: a contiguous rows-by-cols block (ld = rows). */
static inline sgp_cmat sgp_cmat_of(const double *data, int64_t rows, int64_t cols)
{ sgp_cmat m; m.data = data; m.rows = rows; m.cols = cols; m.ld = rows > 0 ? rows : 1; return m; }
static inline sgp_mat sgp_mat_of(double *data, int64_t rows, int64_t cols)
{ sgp_mat m; m.data = data; m.rows = rows; m.cols = cols; m.ld = rows > 0 ? rows : 1; return m; }
static inline sgp_cmat sgp_const(sgp_mat m)
{ sgp_cmat c; c.data = m.data; c.rows = m.rows; c.cols = m.cols; c.ld = m.ld; return c; }

/* ---------------------------------------------------------------- status */

enum {
  SGP_OK = 0,
  SGP_EINVAL = -1,        /* invalid argument value (the message names it) */
  SGP_EDIM = -2,          /* inconsistent dimensions */
  SGP_ENOMEM = -3,        /* allocation failed */
  SGP_ELAPACK = -4,       /* a LAPACK routine reported failure */
  SGP_ENOTPD = -5,        /* matrix not positive definite */
  SGP_EINTERRUPT = -6,    /* stopped by the host's interrupt hook */
  SGP_ECUDA = -7,         /* CUDA runtime / library failure */
  SGP_EUNSUPPORTED = -8   /* feature not built or not available */
};

/* Generic text for a status code (static storage; never NULL). */
const char *sgp_strerror(int status);

/* ---------------------------------------------------------------- RNG */

/* xoshiro256** state; seeded through splitmix64 so any 64-bit seed is fine. */
typedef struct { uint64_t s[4]; } sgp_rng;

void     sgp_rng_seed(sgp_rng *rng, uint64_t seed);
uint64_t sgp_rng_next(sgp_rng *rng);          /* uniform 64-bit integer */
double   sgp_rng_uniform(sgp_rng *rng);       /* uniform on (0, 1), never 0 or 1 */
double   sgp_rng_normal(sgp_rng *rng);        /* standard normal (Box-Muller, no cache) */
/* Jump to an independent stream (2^128 steps ahead), e.g. one per thread. */
void     sgp_rng_jump(sgp_rng *rng);

/* ---------------------------------------------------------------- context */

typedef enum { SGP_BACKEND_AUTO = 0, SGP_BACKEND_CPU = 1, SGP_BACKEND_CUDA = 2 } sgp_backend;

typedef struct sgp_ctx {
  /* Host hooks; any may be NULL. They are only ever called from the thread
   * that called the core, never inside a parallel region. */
  void (*print)(void *user_data, const char *msg);     /* verbose output */
  int  (*interrupt)(void *user_data);                  /* nonzero = stop now */
  void (*progress)(void *user_data, const char *task, double fraction);
  void *user_data;
  int verbose;            /* 0 = silent; 1 = progress and short summaries */
  int nthreads;           /* OpenMP threads; <= 0 means the OpenMP default; set it
                           * through sgp_ctx_set_threads (at most SGP_MAX_THREADS) */
  uint64_t seed;          /* seed given to sgp_ctx_init / sgp_ctx_set_seed */
  sgp_rng rng;            /* the only source of randomness in the core */
  sgp_backend backend;    /* requested backend (AUTO falls back to CPU) */
  char errmsg[1024];      /* detail of the last error */
} sgp_ctx;

/* Defaults: no hooks, silent, OpenMP default threads, seed 1, AUTO backend. */
void sgp_ctx_init(sgp_ctx *ctx);
void sgp_ctx_set_seed(sgp_ctx *ctx, uint64_t seed);
/* Most OpenMP threads a context may ask for. More threads than cores only
 * slow the core down, and each OpenMP thread reserves a stack (8 MB by
 * default): thousands exhaust the address space or a `ulimit -v`, and libgomp
 * then exits the whole process. 256 threads reserve about 2 GB. */
#define SGP_MAX_THREADS 256
/* Sets ctx->nthreads from a host number: 0 = the OpenMP default, else a whole
 * number 1..SGP_MAX_THREADS. Anything else (negative, fractional, NaN, Inf,
 * above the maximum) leaves ctx->nthreads alone and returns SGP_EINVAL with a
 * message naming `threads`. */
int  sgp_ctx_set_threads(sgp_ctx *ctx, double threads);
/* The tests' hooks (`name`, e.g. interrupt_after: a simulated Ctrl-C after that
 * many interrupt polls) work only where the environment variable
 * SCALEGP_TEST_HOOKS is "1", so that no user reaches one by accident. SGP_OK when
 * value < 0 (the hook is off) or the variable is set, else SGP_EINVAL naming it. */
int  sgp_ctx_test_hook(sgp_ctx *ctx, const char *name, double value);
/* When ctx->errmsg starts with "<from>:", makes it "<to>:" (a host whose argument
 * has another name than the core's, e.g. predict's newdata for the core's xtest). */
void sgp_ctx_rename_arg(sgp_ctx *ctx, const char *from, const char *to);
/* Thread count the core will actually use: nthreads <= 0 resolves to the OpenMP
 * default; a field set directly above SGP_MAX_THREADS (or OpenMP's thread
 * limit) is capped there; 1 in a process forked after the library was loaded
 * (OpenMP's thread pool does not survive fork). Every parallel region of the
 * core takes its team size from here. */
int  sgp_ctx_threads(const sgp_ctx *ctx);

/* ---------------------------------------------------------------- build info */

typedef struct {
  const char *version;      /* SGP_VERSION_STRING */
  const char *fftw;         /* FFTW's version string */
  int openmp;               /* 1 when compiled with OpenMP */
  int max_threads;          /* OpenMP's default thread count (1 without OpenMP) */
  int cuda_built;           /* 1 when the CUDA backend was compiled in */
  int cuda_devices;         /* CUDA devices found at run time (0 if not built) */
} sgp_build_info;

void sgp_info(sgp_build_info *info);
/* 1 when the backend can run here (CPU always; CUDA when built and a device is present). */
int  sgp_backend_available(sgp_backend backend);

#ifdef __cplusplus
}
#endif
#endif /* SGP_RUNTIME_H */
