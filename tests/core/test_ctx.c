/* test_ctx.c -- status text, context defaults, test hooks, the RNG and build
 * information. Oracles: a reference splitmix64 + xoshiro256** written here from
 * the published algorithm, and sample moments of 1e5 draws against 4 standard
 * errors. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test_helpers.h"
#include "runtime/sgp_internal.h" /* sgp_cuda_built */

#include <stdlib.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* ------------------------------------------------------------ status text */

static void strerror_is_distinct_for_every_code(void **state)
{
  (void)state;
  const int codes[] = {SGP_OK, SGP_EINVAL, SGP_EDIM, SGP_ENOMEM, SGP_ELAPACK,
                       SGP_ENOTPD, SGP_EINTERRUPT, SGP_ECUDA, SGP_EUNSUPPORTED, 12345};
  const int nc = (int)(sizeof codes / sizeof codes[0]);
  for (int i = 0; i < nc; i++) {
    const char *a = sgp_strerror(codes[i]);
    assert_non_null(a);
    assert_true(strlen(a) > 0);
    for (int j = 0; j < i; j++) assert_string_not_equal(a, sgp_strerror(codes[j]));
  }
  assert_string_equal(sgp_strerror(-99), sgp_strerror(12345)); /* unknown codes */
  assert_contains(sgp_strerror(SGP_EINTERRUPT), "interrupt");
}

/* ------------------------------------------------------------ context */

static void ctx_init_sets_documented_defaults(void **state)
{
  (void)state;
  sgp_ctx ctx;
  memset(&ctx, 0xAB, sizeof ctx);
  sgp_ctx_init(&ctx);
  assert_null(ctx.print);
  assert_null(ctx.interrupt);
  assert_null(ctx.progress);
  assert_null(ctx.user_data);
  assert_int_equal(ctx.verbose, 0);
  assert_int_equal(ctx.nthreads, 0);
  assert_int_equal(ctx.seed, 1);
  assert_int_equal(ctx.backend, SGP_BACKEND_AUTO);
  assert_int_equal(ctx.errmsg[0], '\0');
  sgp_rng r;
  sgp_rng_seed(&r, 1);
  assert_memory_equal(&r, &ctx.rng, sizeof r);
  sgp_ctx_set_seed(&ctx, 42);
  sgp_rng_seed(&r, 42);
  assert_int_equal(ctx.seed, 42);
  assert_memory_equal(&r, &ctx.rng, sizeof r);
}

static void ctx_threads_resolves_default(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  ctx.nthreads = 3;
  assert_int_equal(sgp_ctx_threads(&ctx), 3);
  ctx.nthreads = 1;
  assert_int_equal(sgp_ctx_threads(&ctx), 1);
#ifdef _OPENMP
  const int def = omp_get_max_threads();
#else
  const int def = 1;
#endif
  ctx.nthreads = 0;
  assert_int_equal(sgp_ctx_threads(&ctx), def);
  ctx.nthreads = -4;
  assert_int_equal(sgp_ctx_threads(&ctx), def);
  assert_true(def >= 1);
}

static void ctx_set_threads_checks_the_range(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  assert_int_equal(sgp_ctx_set_threads(&ctx, 3), SGP_OK);
  assert_int_equal(ctx.nthreads, 3);
  assert_int_equal(sgp_ctx_set_threads(&ctx, SGP_MAX_THREADS), SGP_OK);
  assert_int_equal(ctx.nthreads, SGP_MAX_THREADS);
  assert_int_equal(sgp_ctx_set_threads(&ctx, 0), SGP_OK);
  assert_int_equal(ctx.nthreads, 0);
  const double bad[] = {-1, 1.5, SGP_MAX_THREADS + 1, 1e6, 1e300, NAN, INFINITY};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ctx.errmsg[0] = '\0';
    assert_int_equal(sgp_ctx_set_threads(&ctx, bad[i]), SGP_EINVAL);
    assert_contains(ctx.errmsg, "threads: must be a whole number from 0");
    assert_int_equal(ctx.nthreads, 0); /* unchanged */
  }
  ctx.nthreads = 1000000; /* set directly: capped where it is used */
  assert_true(sgp_ctx_threads(&ctx) <= SGP_MAX_THREADS);
}

static void ctx_rename_arg_changes_only_the_leading_name(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  strcpy(ctx.errmsg, "xtest: has 3 columns; the fit has 2");
  sgp_ctx_rename_arg(&ctx, "xtest", "newdata");
  assert_string_equal(ctx.errmsg, "newdata: has 3 columns; the fit has 2");
  sgp_ctx_rename_arg(&ctx, "xtest", "xnew"); /* no longer starts with xtest */
  assert_string_equal(ctx.errmsg, "newdata: has 3 columns; the fit has 2");
  strcpy(ctx.errmsg, "xtest2: other");       /* a longer name is not a match */
  sgp_ctx_rename_arg(&ctx, "xtest", "xnew");
  assert_string_equal(ctx.errmsg, "xtest2: other");
}

/* A test hook is refused (naming it) unless SCALEGP_TEST_HOOKS is exactly "1";
 * a value < 0 (the hook off) is always fine. */
static void test_hooks_need_the_environment_variable(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  unsetenv("SCALEGP_TEST_HOOKS");
  assert_int_equal(sgp_ctx_test_hook(&ctx, "interrupt_after", -1), SGP_OK);
  assert_int_equal(sgp_ctx_test_hook(&ctx, "interrupt_after", 0), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "interrupt_after: is a test hook, honoured only where the "
                      "environment variable SCALEGP_TEST_HOOKS is 1");
  setenv("SCALEGP_TEST_HOOKS", "yes", 1);
  assert_int_equal(sgp_ctx_test_hook(&ctx, "interrupt_after", 3), SGP_EINVAL);
  setenv("SCALEGP_TEST_HOOKS", "1", 1);
  assert_int_equal(sgp_ctx_test_hook(&ctx, "interrupt_after", 3), SGP_OK);
  unsetenv("SCALEGP_TEST_HOOKS");
}

/* ------------------------------------------------------------ RNG */

/* Reference generator: splitmix64 seeding then xoshiro256** (Blackman & Vigna). */
static uint64_t ref_splitmix(uint64_t *x)
{
  uint64_t z = (*x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}
static uint64_t ref_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
static uint64_t ref_next(uint64_t s[4])
{
  const uint64_t result = ref_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
  s[2] ^= t;
  s[3] = ref_rotl(s[3], 45);
  return result;
}

static void rng_matches_reference_xoshiro256starstar(void **state)
{
  (void)state;
  const uint64_t seeds[] = {0, 1, 42, 0xFFFFFFFFFFFFFFFFULL};
  for (int c = 0; c < 4; c++) {
    uint64_t x = seeds[c], s[4];
    for (int i = 0; i < 4; i++) s[i] = ref_splitmix(&x);
    sgp_rng r;
    sgp_rng_seed(&r, seeds[c]);
    for (int i = 0; i < 1000; i++) assert_int_equal(sgp_rng_next(&r), ref_next(s));
  }
}

static void rng_same_seed_same_stream_different_seed_differs(void **state)
{
  (void)state;
  sgp_rng a, b, c;
  sgp_rng_seed(&a, 2024);
  sgp_rng_seed(&b, 2024);
  sgp_rng_seed(&c, 2025);
  int same_ac = 0;
  for (int i = 0; i < 1000; i++) {
    const double ua = sgp_rng_uniform(&a), ub = sgp_rng_uniform(&b), uc = sgp_rng_uniform(&c);
    assert_true(ua == ub);
    same_ac += ua == uc;
  }
  assert_int_equal(same_ac, 0);
  for (int i = 0; i < 100; i++) assert_true(sgp_rng_normal(&a) == sgp_rng_normal(&b));
}

/* Multiplicative inverse of an odd number modulo 2^64 (Newton iteration). */
static uint64_t inverse_odd(uint64_t a)
{
  uint64_t x = a; /* correct to 3 bits */
  for (int i = 0; i < 5; i++) x *= 2 - a * x;
  return x;
}

static void rng_uniform_strictly_inside_unit_interval(void **state)
{
  (void)state;
  sgp_rng r;
  sgp_rng_seed(&r, 7);
  double lo = 1.0, hi = 0.0, sum = 0.0;
  const int n = 100000;
  for (int i = 0; i < n; i++) {
    const double u = sgp_rng_uniform(&r);
    assert_true(u > 0.0 && u < 1.0);
    lo = u < lo ? u : lo;
    hi = u > hi ? u : hi;
    sum += u;
  }
  assert_le(lo, 1e-3);
  assert_le(1.0 - hi, 1e-3);
  /* mean 1/2, sd sqrt(1/12): within 4 standard errors */
  assert_close(sum / n, 0.5, 4.0 * sqrt(1.0 / 12.0 / n));
  /* The extreme raw outputs 0 and 2^64 - 1 must still map inside (0, 1). The
   * output is rotl(s[1] * 5, 7) * 9, so a state giving any wanted value exists. */
  sgp_rng z = {{0, 0, 0, 0}};
  const double u0 = sgp_rng_uniform(&z); /* all-zero state outputs 0 */
  assert_true(u0 > 0.0 && u0 < 1.0);
  const uint64_t target = ~(uint64_t)0, t9 = target * inverse_odd(9);
  sgp_rng m = {{0, ((t9 >> 7) | (t9 << 57)) * inverse_odd(5), 0, 0}};
  sgp_rng probe = m;
  assert_int_equal(sgp_rng_next(&probe), target);
  const double u1 = sgp_rng_uniform(&m);
  if (!(u1 > 0.0 && u1 < 1.0)) fail_msg("largest raw output gives u = %.17g", u1);
}

static void rng_normal_moments_within_four_standard_errors(void **state)
{
  (void)state;
  sgp_rng r;
  sgp_rng_seed(&r, 12345);
  const int n = 100000;
  double s1 = 0.0, s2 = 0.0;
  for (int i = 0; i < n; i++) {
    const double z = sgp_rng_normal(&r);
    assert_true(isfinite(z));
    s1 += z;
    s2 += z * z;
  }
  const double mean = s1 / n, var = s2 / n - mean * mean;
  assert_close(mean, 0.0, 4.0 / sqrt((double)n));        /* se = 1/sqrt(n) */
  assert_close(var, 1.0, 4.0 * sqrt(2.0 / (double)n));   /* se of var = sqrt(2/n) */
}

static void rng_jump_gives_a_different_reproducible_stream(void **state)
{
  (void)state;
  sgp_rng a, b, c;
  sgp_rng_seed(&a, 99);
  b = a;
  c = a;
  sgp_rng_jump(&b);
  sgp_rng_jump(&c);
  assert_memory_equal(&b, &c, sizeof b); /* deterministic */
  assert_memory_not_equal(&a, &b, sizeof a);
  enum { N = 1000 };
  uint64_t va[N];
  for (int i = 0; i < N; i++) va[i] = sgp_rng_next(&a);
  for (int i = 0; i < N; i++) {
    const uint64_t vb = sgp_rng_next(&b);
    for (int j = 0; j < N; j++) assert_true(vb != va[j]);
  }
}

/* ------------------------------------------------------------ build info */

static void info_fields_are_filled(void **state)
{
  (void)state;
  sgp_build_info info;
  memset(&info, 0, sizeof info);
  sgp_info(&info);
  assert_non_null(info.version);
  assert_string_equal(info.version, SGP_VERSION_STRING);
  assert_non_null(info.fftw);
  assert_contains(info.fftw, "fftw");
  assert_int_equal(info.openmp, 1);
  assert_true(info.max_threads >= 1);
#ifdef SGP_HAVE_CUDA
  assert_int_equal(info.cuda_built, 1);
#else
  assert_int_equal(info.cuda_built, 0);
  assert_int_equal(info.cuda_devices, 0);
#endif
  assert_true(info.cuda_devices >= 0);
}

static void backend_availability(void **state)
{
  (void)state;
  assert_int_equal(sgp_backend_available(SGP_BACKEND_CPU), 1);
  assert_int_equal(sgp_backend_available(SGP_BACKEND_AUTO), 1);
  assert_int_equal(sgp_backend_available(SGP_BACKEND_CUDA),
                   sgp_cuda_built() && sgp_cuda_device_count() > 0);
  assert_int_equal(sgp_backend_available((sgp_backend)77), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(strerror_is_distinct_for_every_code),
    cmocka_unit_test(ctx_init_sets_documented_defaults),
    cmocka_unit_test(ctx_threads_resolves_default),
      cmocka_unit_test(ctx_set_threads_checks_the_range),
      cmocka_unit_test(ctx_rename_arg_changes_only_the_leading_name),
    cmocka_unit_test(test_hooks_need_the_environment_variable),
    cmocka_unit_test(rng_matches_reference_xoshiro256starstar),
    cmocka_unit_test(rng_same_seed_same_stream_different_seed_differs),
    cmocka_unit_test(rng_uniform_strictly_inside_unit_interval),
    cmocka_unit_test(rng_normal_moments_within_four_standard_errors),
    cmocka_unit_test(rng_jump_gives_a_different_reproducible_stream),
    cmocka_unit_test(info_fields_are_filled),
    cmocka_unit_test(backend_availability),
  };
  return cmocka_run_group_tests_name("ctx", tests, NULL, NULL);
}
