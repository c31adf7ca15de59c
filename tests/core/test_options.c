/* test_options.c -- options by name (sgp_options.h): every verb table's defaults
 * agree with the verb's defaults function, every kind's checks and messages, and
 * the one user-message form. */
#include "test_helpers.h"
#include "api/sgp_options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value a user writes as `def` ("5", "Inf", "\"cg\"", "TRUE", "NULL",
 * "c(\"a\", \"b\")"); strings are copied into str (their pointers into ptrs). */
static sgp_value parse_def(const char *def, double *num, char *str, const char **ptrs)
{
  sgp_value v = {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL};
  if (!strcmp(def, "NULL")) return v;
  if (!strncmp(def, "c(", 2)) { /* c("a", "b", ...) */
    strcpy(str, def + 2);
    v.type = SGP_VAL_STRING;
    for (char *p = strchr(str, '"'); p; p = strchr(p + 1, '"')) {
      char *e = strchr(p + 1, '"');
      *e = '\0';
      ptrs[v.len++] = p + 1;
      p = e;
    }
    v.str = ptrs[0];
    v.strs = ptrs;
    return v;
  }
  if (def[0] == '"') {
    strcpy(str, def + 1);
    str[strlen(str) - 1] = '\0';
    v.type = SGP_VAL_STRING; v.len = 1; v.str = str;
    return v;
  }
  v.len = 1; v.real = num;
  if (!strcmp(def, "TRUE") || !strcmp(def, "FALSE")) {
    v.type = SGP_VAL_LOGICAL; *num = def[0] == 'T';
  } else {
    v.type = SGP_VAL_REAL; *num = !strcmp(def, "Inf") ? INFINITY : strtod(def, NULL);
  }
  return v;
}

/* Setting every option of the table to its documented default leaves the
 * defaults function's struct unchanged (values compared through the table). */
static void defaults_agree(const sgp_verb_table *t, void *dflt, void *set, size_t size)
{
  memcpy(set, dflt, size);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  for (int i = 0; i < t->n; i++) {
    const sgp_opt_spec *s = &t->opts[i];
    double num;
    char str[256];
    const char *ptrs[16];
    const sgp_value v = parse_def(s->def, &num, str, ptrs);
    if (sgp_opts_set(&ctx, t, set, s->name, &v)) fail_msg("%s: %s", s->name, ctx.errmsg);
    const char *a = (const char *)dflt + s->offset, *b = (const char *)set + s->offset;
    if (s->kind == SGP_OPT_POSITIVES && !strcmp(s->def, "NULL")) {
      assert_null(*(const double *const *)a);
      assert_null(*(const double *const *)b);
    } else if (s->kind == SGP_OPT_POSITIVES) {
      const double *pa = *(const double *const *)a, *pb = *(const double *const *)b;
      assert_true(*(const int64_t *)((const char *)dflt + s->count_offset) == 1);
      assert_true(pa[0] == pb[0]);
    } else if (s->kind == SGP_OPT_VECTOR && (s->flags & SGP_OPT_PTR)) {
      assert_null(*(const double *const *)a);
      assert_null(*(const double *const *)b);
      assert_true(*(const int64_t *)((const char *)set + s->count_offset) == 0);
    } else if (s->kind == SGP_OPT_VECTOR) {
      assert_null(((const sgp_cmat *)a)->data);
      assert_null(((const sgp_cmat *)b)->data);
    } else {
      const size_t w = s->kind == SGP_OPT_FLAG || s->kind == SGP_OPT_CHOICE ? sizeof(int)
                       : s->kind == SGP_OPT_SUBSET ? sizeof(unsigned)
                       : s->store == SGP_STORE_INT ? sizeof(int)
                       : s->store == SGP_STORE_INT64 ? sizeof(int64_t)
                       : s->store == SGP_STORE_SIZE ? sizeof(size_t) : sizeof(double);
      if (memcmp(a, b, w)) fail_msg("option '%s': the table's default %s differs", s->name, s->def);
    }
  }
}

static void laplace_defaults_agree(void **state)
{
  (void)state;
  sgp_laplace_opts a, b;
  sgp_laplace_opts_default(&a);
  const sgp_verb_table *t = sgp_verb_options("gp_laplace");
  assert_non_null(t);
  defaults_agree(t, &a, &b, sizeof a);
}

static void valla_defaults_agree(void **state)
{
  (void)state;
  sgp_valla_opts a, b;
  sgp_valla_opts_default(&a);
  const sgp_verb_table *t = sgp_verb_options("valla");
  assert_non_null(t);
  defaults_agree(t, &a, &b, sizeof a);
}

static void mlp_fit_defaults_agree(void **state)
{
  (void)state;
  sgp_valla_mlp_fit_opts a, b;
  sgp_valla_mlp_fit_opts_default(&a);
  const sgp_verb_table *t = sgp_verb_options("mlp_fit");
  assert_non_null(t);
  defaults_agree(t, &a, &b, sizeof a);
}

/* valla: a subset of choices as a bitmask, choices not offered, open upper ends */
static void valla_kinds(void **state)
{
  (void)state;
  const sgp_verb_table *t = sgp_verb_options("valla");
  sgp_valla_opts o;
  sgp_valla_opts_default(&o);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const char *two[] = {"noise", "A"}, *bad[] = {"A", "lengthscale", "x", "lengthscale"};
  const sgp_value s2 = {SGP_VAL_STRING, 2, NULL, "noise", two, 0, 0, NULL},
                  s0 = {SGP_VAL_STRING, 0, NULL, NULL, NULL, 0, 0, NULL},
                  nul = {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL},
                  sb = {SGP_VAL_STRING, 4, NULL, "A", bad, 0, 0, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "learn", &s2), SGP_OK);
  assert_int_equal(o.learn, SGP_VALLA_LEARN_NOISE | SGP_VALLA_LEARN_A);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "learn", &s0), SGP_OK);
  assert_int_equal(o.learn, 0);
  o.learn = 3;
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "learn", &nul), SGP_OK);
  assert_int_equal(o.learn, 0);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "learn", &sb), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'learn' has unknown entries \"lengthscale\", \"x\"; use any "
                      "of \"A\", \"inducing\", \"prior_var\", \"noise\"");
  const double one = 1, pois = 0;
  const sgp_value r1 = {SGP_VAL_REAL, 1, &one, NULL, NULL, 0, 0, NULL}, r0 = {SGP_VAL_REAL, 1, &pois, NULL, NULL, 0, 0, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "learn", &r1), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'learn' must be strings out of \"A\", \"inducing\", "
                      "\"prior_var\", \"noise\" (got 1)");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "beta1", &r1), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'beta1' must be a number in [0, 1) (got 1)");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "beta1", &r0), SGP_OK);
  const sgp_value p = {SGP_VAL_STRING, 1, NULL, "poisson", NULL, 0, 0, NULL},
                  sm = {SGP_VAL_STRING, 1, NULL, "softmax", NULL, 0, 0, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "likelihood", &p), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'likelihood' must be one of \"gaussian\", \"bernoulli\", "
                      "\"softmax\" (got \"poisson\")");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "likelihood", &sm), SGP_OK);
  assert_int_equal(o.likelihood, SGP_LIK_SOFTMAX);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "likelihood", &nul), SGP_OK);
  assert_int_equal(o.likelihood, SGP_LIK_SOFTMAX); /* NULL keeps it */
  const double inf = INFINITY;
  const sgp_value ri = {SGP_VAL_REAL, 1, &inf, NULL, NULL, 0, 0, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "val_max", &ri), SGP_OK);
  assert_true(o.val_max < 0);
}

static void kernel_defaults_agree(void **state)
{
  (void)state;
  sgp_kernel_opts a, b;
  sgp_kernel_opts_default(&a);
  const sgp_verb_table *t = sgp_verb_options("gp_kernel");
  assert_non_null(t);
  defaults_agree(t, &a, &b, sizeof a);
}

static void expect_message(const sgp_verb_table *t, const char *name, sgp_value v,
                           const char *want)
{
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, name, &v), SGP_EINVAL);
  if (strcmp(ctx.errmsg, want)) fail_msg("got <%s>, want <%s>", ctx.errmsg, want);
}

static void kinds_check_and_word_errors(void **state)
{
  (void)state;
  const sgp_verb_table *t = sgp_verb_options("gp_laplace");
  const double zero = 0, half = 2.5, inf = INFINITY, nan = NAN, two[2] = {1, 0};
  const sgp_value r0 = {SGP_VAL_REAL, 1, &zero, NULL, NULL, 0, 0, NULL}, rh = {SGP_VAL_REAL, 1, &half, NULL, NULL, 0, 0, NULL},
                  rinf = {SGP_VAL_REAL, 1, &inf, NULL, NULL, 0, 0, NULL}, l0 = {SGP_VAL_LOGICAL, 1, &zero, NULL, NULL, 0, 0, NULL},
                  lna = {SGP_VAL_LOGICAL, 1, &nan, NULL, NULL, 0, 0, NULL}, r2 = {SGP_VAL_REAL, 2, two, NULL, NULL, 0, 0, NULL},
                  s = {SGP_VAL_STRING, 1, NULL, "lanczos", NULL, 0, 0, NULL}, nul = {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL};
  expect_message(t, "max_iter", r0, "'max_iter' must be a whole number >= 1 (got 0)");
  expect_message(t, "max_iter", rh, "'max_iter' must be a whole number >= 1 (got 2.5)");
  expect_message(t, "max_iter", rinf, "'max_iter' must be a whole number >= 1 (got Inf)");
  expect_message(t, "max_iter", l0, "'max_iter' must be a whole number >= 1 (got FALSE)");
  expect_message(t, "rank", rh, "'rank' must be a whole number >= 0 or Inf (got 2.5)");
  expect_message(t, "recycle", lna, "'recycle' must be true or false (got NA)");
  expect_message(t, "recycle", rh, "'recycle' must be true or false (got 2.5)");
  expect_message(t, "policy", s, "'policy' must be one of \"cg\", \"cholesky\", \"auto\" (got \"lanczos\")");
  expect_message(t, "outputscale", r0, "'outputscale' must be positive and finite (got 0)");
  expect_message(t, "tol", rinf, "'tol' must be a number >= 0 and finite (got Inf)");
  expect_message(t, "lengthscale", r2, "'lengthscale' must be positive and finite (got 0)");
  expect_message(t, "max_newton", nul, "'max_newton' must be a whole number >= 1 (got nothing)");
  expect_message(t, "nonsense", r0,
                 "unknown option 'nonsense'; valid options are likelihood, kernel, lengthscale, "
                 "outputscale, alpha, mean, noise, learn, optim_max_iter, restarts, evidence, probes, offset, trials, dispersion, policy, residual, max_newton, max_iter, precond_rank, class_actions, rank, tol, n_class, "
                 "recycle, damping, max_total_iter, random_order, time_limit, inner_atol, "
                 "inner_rtol, noise_max, history_trace, scale, kernel_cache_bytes, backend, seed, verbose, threads");
  /* what is valid is stored; Inf means none */
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "rank", &rinf), SGP_OK);
  assert_true(o.rank == -1);
  const double twelve = 12;
  const sgp_value r12 = {SGP_VAL_REAL, 1, &twelve, NULL, NULL, 0, 0, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "rank", &r12), SGP_OK);
  assert_true(o.rank == 12);
  const sgp_value ch = {SGP_VAL_STRING, 1, NULL, "cholesky", NULL, 0, 0, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "policy", &ch), SGP_OK);
  assert_int_equal(o.policy, SGP_POLICY_CHOLESKY);
}

static void ski_gsgp_defaults_agree(void **state)
{
  (void)state;
  sgp_ski_opts a, b;
  sgp_ski_opts_default(&a);
  const sgp_verb_table *t = sgp_verb_options("ski_gsgp");
  assert_non_null(t);
  defaults_agree(t, &a, &b, sizeof a);
  b.kernel.lengthscale = a.kernel.lengthscale; /* the same value 1, compared above */
  assert_memory_equal(&a, &b, sizeof a);       /* every default, the NULLs included */
}

static void ski_laplace_defaults_agree(void **state)
{
  (void)state;
  sgp_ski_laplace_opts a, b;
  sgp_ski_laplace_opts_default(&a);
  const sgp_verb_table *t = sgp_verb_options("ski_laplace");
  assert_non_null(t);
  defaults_agree(t, &a, &b, sizeof a);
  assert_memory_equal(&a, &b, sizeof a);
}

/* The per-dimension kinds: COUNTS (grid_size) copies 1..8 whole numbers and
 * their count; VECTOR with PTR (grid_bounds) keeps a pointer and a count. */
static void ski_gsgp_vector_kinds(void **state)
{
  (void)state;
  const sgp_verb_table *t = sgp_verb_options("ski_gsgp");
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const double sz[3] = {10, 20, 30}, bad_sz[2] = {10, 2.5}, zero = 0, nine[9] = {1, 1, 1, 1, 1,
                                                                                  1, 1, 1, 1};
  const double bounds[4] = {0, -1, 1, 2}, nanb[2] = {0, NAN};
  const sgp_value v3 = {SGP_VAL_REAL, 3, sz, NULL, NULL, 0, 0, NULL}, vbad = {SGP_VAL_REAL, 2, bad_sz, NULL, NULL, 0, 0, NULL},
                  v0 = {SGP_VAL_REAL, 1, &zero, NULL, NULL, 0, 0, NULL}, v9 = {SGP_VAL_REAL, 9, nine, NULL, NULL, 0, 0, NULL},
                  vb = {SGP_VAL_REAL, 4, bounds, NULL, NULL, 0, 0, NULL}, vnan = {SGP_VAL_REAL, 2, nanb, NULL, NULL, 0, 0, NULL},
                  str = {SGP_VAL_STRING, 1, NULL, "big", NULL, 0, 0, NULL}, nul = {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_size", &v3), SGP_OK);
  assert_true(o.n_grid_size == 3 && o.grid_size[0] == 10 && o.grid_size[2] == 30);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_size", &vbad), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid_size' must be 1 to 8 whole numbers >= 1 (got 2.5)");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_size", &v0), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid_size' must be 1 to 8 whole numbers >= 1 (got 0)");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_size", &v9), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid_size' must be 1 to 8 whole numbers >= 1 (got 9 values)");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_size", &str), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid_size' must be 1 to 8 whole numbers >= 1 (got \"big\")");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_size", &nul), SGP_OK); /* kept */
  assert_true(o.n_grid_size == 3);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_bounds", &vb), SGP_OK);
  assert_true(o.grid_bounds == bounds && o.n_grid_bounds == 4);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_bounds", &vnan), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'grid_bounds' contains NaN, NA or Inf (first at 2)");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_bounds", &nul), SGP_OK);
  assert_true(o.grid_bounds == NULL && o.n_grid_bounds == 0);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "bounds_policy", &str), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'bounds_policy' must be one of \"error\", \"truncate\", "
                                  "\"clamp\", \"drop\" (got \"big\")");
  /* one grid size for every dimension; a count that is neither 1 nor d */
  const double rng[4] = {0, 0, 1, 1}, one = 12;
  const sgp_value v1 = {SGP_VAL_REAL, 1, &one, NULL, NULL, 0, 0, NULL};
  sgp_ski_grid g;
  sgp_ski_opts_default(&o);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_size", &v1), SGP_OK);
  assert_int_equal(sgp_ski_grid_from_range(&ctx, sgp_cmat_of(rng, 2, 2), 10, &o, &g), SGP_OK);
  assert_true(g.m[0] == 12 && g.m[1] == 12);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "grid_size", &v3), SGP_OK);
  assert_int_equal(sgp_ski_grid_from_range(&ctx, sgp_cmat_of(rng, 2, 2), 10, &o, &g), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "grid_size: must be one value or d = 2 (got 3)");
}

static void ski_grid_defaults_and_sources(void **state)
{
  (void)state;
  sgp_ski_grid_opts a, b;
  sgp_ski_grid_opts_default(&a);
  const sgp_verb_table *t = sgp_verb_options("ski_grid");
  assert_non_null(t);
  defaults_agree(t, &a, &b, sizeof a);
  assert_memory_equal(&a, &b, sizeof a);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ski_grid g;
  const double x[4] = {0, 1, 2, 3}, rng[2] = {0, 3}, bad[2] = {3, 0}, bounds[2] = {-1, 4},
               sz = 11;
  const sgp_cmat none = {0};
  /* from x (n = 4 rows), from a range, from bounds and size; none: an error */
  assert_int_equal(sgp_ski_grid_make(&ctx, &a, sgp_cmat_of(x, 4, 1), none, &g), SGP_OK);
  assert_int_equal(g.d, 1);
  sgp_ski_grid g2;
  a.n = 4; /* (a range has no rows) */
  assert_int_equal(sgp_ski_grid_make(&ctx, &a, none, sgp_cmat_of(rng, 1, 2), &g2), SGP_OK);
  assert_true(g2.lo[0] == g.lo[0] && g2.h[0] == g.h[0] && g2.m[0] == g.m[0]);
  a.n = -1;
  assert_int_equal(sgp_ski_grid_make(&ctx, &a, none, sgp_cmat_of(bad, 2, 1), &g2), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "range: must have min <= max in every row");
  assert_int_equal(sgp_ski_grid_make(&ctx, &a, none, none, &g2), SGP_EINVAL);
  assert_string_equal(ctx.errmsg,
                      "x: is needed (or 'range', or both 'grid_size' and 'grid_bounds')");
  const sgp_value vs = {SGP_VAL_REAL, 1, &sz, NULL, NULL, 0, 0, NULL}, vb = {SGP_VAL_REAL, 2, bounds, NULL, NULL, 0, 0, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &a, "grid_size", &vs), SGP_OK);
  assert_int_equal(sgp_opts_set(&ctx, t, &a, "grid_bounds", &vb), SGP_OK);
  assert_int_equal(sgp_ski_grid_make(&ctx, &a, none, none, &g2), SGP_OK);
  assert_true(g2.m[0] == 11 && g2.lo[0] == -1 && g2.h[0] == 0.5);
}

static void ski_stats_defaults_agree(void **state)
{
  (void)state;
  sgp_ski_stats_opts a, b;
  sgp_ski_stats_opts_default(&a);
  const sgp_verb_table *t = sgp_verb_options("ski_stats");
  assert_non_null(t);
  defaults_agree(t, &a, &b, sizeof a);
  b.ski.kernel.lengthscale = a.ski.kernel.lengthscale;
  assert_memory_equal(&a, &b, sizeof a);
  assert_true(a.ski.seed == 1 && a.ski.probes == 0);
}

/* The checks of ski_gsgp's options against each other and the data, worded once. */
static void ski_gsgp_checks(void **state)
{
  (void)state;
  sgp_ski_opts o;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  sgp_ski_gsgp_input in;
  double x[20], y[20];
  for (int i = 0; i < 20; i++) { x[i] = i / 19.0; y[i] = x[i] * x[i]; }
  const sgp_cmat X = sgp_cmat_of(x, 20, 1), Y = sgp_cmat_of(y, 20, 1), none = {0};
  sgp_ski_opts_default(&o);
  o.precond_rank = 2;
  o.method = SGP_SKI_METHOD_SKI;
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 0, X, Y, NULL, &in), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "precond_rank: applies to method = \"gsgp\" only");
  sgp_ski_opts_default(&o);
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 0, none, none, NULL, &in), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "x: and 'y' are needed (or 'stats')");
  o.grid_pad = 0;
  o.kernel.lengthscale = NULL;
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 0, X, Y, NULL, &in), SGP_EINVAL);
  assert_true(strstr(ctx.errmsg, "grid_pad: is 0: with fewer than 1 cell") == ctx.errmsg);
  sgp_ski_opts_default(&o);
  o.loglik = 1;
  o.probes = 4;
  o.loglik_method = SGP_SKI_LOGLIK_SLQ; /* "exact" makes no sketches (below) */
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 0, X, Y, NULL, &in), SGP_OK);
  assert_true(in.computed && in.stats.n == 20 && in.stats.probes == 4 && in.stats.uz);
  sgp_ski_stats_data s = in.stats;
  s.probes = 0;
  sgp_ski_gsgp_input in2;
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 0, none, none, &s, &in2), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "stats: has no probe sketches for loglik = TRUE; make them "
                                  "with ski_stats(..., probes = 4)");
  /* "exact" (and "auto" on this small grid) needs no sketches and makes none */
  o.loglik_method = SGP_SKI_LOGLIK_EXACT;
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 0, none, none, &s, &in2), SGP_OK);
  sgp_ski_gsgp_input_free(&in2);
  o.loglik_method = SGP_SKI_LOGLIK_AUTO;
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 0, X, Y, NULL, &in2), SGP_OK);
  assert_true(in2.computed && in2.stats.probes == 0 && !in2.stats.uz);
  sgp_ski_gsgp_input_free(&in2);
  o.loglik_method = SGP_SKI_LOGLIK_SLQ;
  o.interpolation = SGP_SKI_LINEAR;
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 1, none, none, &in.stats, &in2), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "interpolation: differs from that of 'stats' (\"cubic\")");
  o.interpolation = SGP_SKI_CUBIC;
  o.precond_rank = in.stats.m;
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 1, none, none, &in.stats, &in2), SGP_EINVAL);
  assert_true(strstr(ctx.errmsg, "precond_rank: must be less than the ") == ctx.errmsg);
  o.precond_rank = 0;
  o.method = SGP_SKI_METHOD_SKI;
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 0, none, none, &in.stats, &in2), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "x: and 'y' are needed by method = \"ski\" (the statistics "
                                  "are not enough)");
  assert_int_equal(sgp_ski_gsgp_prepare(&ctx, &o, 0, X, Y, &in.stats, &in2), SGP_OK);
  assert_false(in2.computed);
  sgp_ski_gsgp_input_free(&in2);
  sgp_ski_gsgp_input_free(&in);
  /* the warnings' words */
  sgp_ski_result r = {0};
  char w1[256], w2[256];
  r.iterations = 5;
  r.rel_residual = 0.5;
  r.stop = SGP_SKI_STOP_MAX_ITER;
  o.loglik = 1;
  sgp_ski_warnings("ski_gsgp", &r, &o, w1, w2, sizeof w1);
  assert_string_equal(w1, "ski_gsgp: the mean solve did not converge in 5 iterations "
                          "(relative residual 0.5 > tol 0.01)");
  assert_true(strstr(w2, "ski_gsgp: a log-likelihood solve did not reach tol") == w2);
  assert_string_equal(sgp_ski_stop_name(SGP_SKI_STOP_ACCURACY), "accuracy");
}

static void user_message_form(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  char buf[256];
  sgp_fail(&ctx, SGP_EINVAL, "y: bernoulli labels must be 0 or 1");
  sgp_user_message("gp_laplace", &ctx, SGP_EINVAL, buf, sizeof buf);
  assert_string_equal(buf, "gp_laplace: 'y' bernoulli labels must be 0 or 1");
  sgp_fail(&ctx, SGP_EINVAL, "'max_iter' must be a whole number >= 1 (got 0)");
  sgp_user_message("gp_laplace", &ctx, SGP_EINVAL, buf, sizeof buf);
  assert_string_equal(buf, "gp_laplace: 'max_iter' must be a whole number >= 1 (got 0)");
  sgp_fail(&ctx, SGP_ENOMEM, "out of memory");
  sgp_user_message("valla", &ctx, SGP_ENOMEM, buf, sizeof buf);
  assert_string_equal(buf, "valla: out of memory");
  sgp_user_message("valla", &ctx, SGP_EINTERRUPT, buf, sizeof buf);
  assert_string_equal(buf, "valla: interrupted");
}

static void context_options(void **state)
{
  (void)state;
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const double seven = 7, big = 1e300, three = 3;
  const sgp_value s7 = {SGP_VAL_REAL, 1, &seven, NULL, NULL, 0, 0, NULL}, sb = {SGP_VAL_REAL, 1, &big, NULL, NULL, 0, 0, NULL},
                  t3 = {SGP_VAL_REAL, 1, &three, NULL, NULL, 0, 0, NULL}, cpu = {SGP_VAL_STRING, 1, NULL, "cpu", NULL, 0, 0, NULL};
  assert_int_equal(sgp_ctx_opt_set(&ctx, "seed", &s7, NULL), SGP_OK);
  assert_true(ctx.seed == 7);
  assert_int_equal(sgp_ctx_opt_set(&ctx, "seed", &sb, NULL), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'seed' must be at most 9007199254740992 (got 1e+300)");
  assert_int_equal(sgp_ctx_opt_set(&ctx, "threads", &t3, NULL), SGP_OK);
  assert_int_equal(ctx.nthreads, 3);
  assert_int_equal(sgp_ctx_opt_set(&ctx, "backend", &cpu, NULL), SGP_OK);
  assert_int_equal(ctx.backend, SGP_BACKEND_CPU);
  /* ski_grid reads no context option: they are not its options; ski_stats' own seed wins */
  const sgp_verb_table *grid = sgp_verb_options("ski_grid"), *stats = sgp_verb_options("ski_stats");
  assert_null(sgp_ctx_opt_find(grid, "threads"));
  assert_non_null(sgp_ctx_opt_find(stats, "threads"));
  assert_null(sgp_ctx_opt_find(stats, "seed"));
  int o[64] = {0};
  assert_int_equal(sgp_opts_set(&ctx, grid, o, "threads", &t3), SGP_EINVAL);
  assert_null(strstr(ctx.errmsg, "backend"));
}

/* The hosts' names of stored choices come from the tables, both ways. */
static void choice_names_follow_the_tables(void **state)
{
  (void)state;
  assert_string_equal(sgp_opt_choice_name("gp_laplace", "likelihood", SGP_LIK_SOFTMAX), "softmax");
  assert_string_equal(sgp_opt_choice_name("gp_laplace", "policy", SGP_POLICY_CHOLESKY), "cholesky");
  assert_string_equal(sgp_opt_choice_name("context", "backend", SGP_BACKEND_CUDA), "cuda");
  assert_string_equal(sgp_opt_choice_name("gp_laplace", "likelihood", 99), "");
  assert_string_equal(sgp_opt_choice_name("gp_laplace", "nonsense", 0), "");
  assert_int_equal(sgp_opt_choice_index("gp_laplace", "likelihood", "poisson"), SGP_LIK_POISSON);
  assert_int_equal(sgp_opt_choice_index("valla", "likelihood", "poisson"), -1); /* not offered */
  assert_int_equal(sgp_opt_choice_index("valla", "likelihood", ""), -1);
  assert_int_equal(sgp_opt_choice_index("valla", "method", "ella"), SGP_VALLA_METHOD_ELLA);
  assert_int_equal(sgp_opt_choice_index("ski_gsgp", "variance", "exact"), SGP_SKI_VARIANCE_EXACT);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(choice_names_follow_the_tables),
    cmocka_unit_test(laplace_defaults_agree),
    cmocka_unit_test(kernel_defaults_agree),
    cmocka_unit_test(valla_defaults_agree),
    cmocka_unit_test(valla_kinds),
    cmocka_unit_test(mlp_fit_defaults_agree),
    cmocka_unit_test(ski_gsgp_defaults_agree),
    cmocka_unit_test(ski_laplace_defaults_agree),
    cmocka_unit_test(ski_gsgp_vector_kinds),
    cmocka_unit_test(ski_gsgp_checks),
    cmocka_unit_test(ski_grid_defaults_and_sources),
    cmocka_unit_test(ski_stats_defaults_agree),
    cmocka_unit_test(kinds_check_and_word_errors),
    cmocka_unit_test(user_message_form),
    cmocka_unit_test(context_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
