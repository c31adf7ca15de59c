/* test_options.c -- options by name (sgp_options.h): every verb table's defaults
 * agree with the verb's defaults function, every kind's checks and messages, and
 * the one user-message form. */
#include "test_helpers.h"
#include "sgp_options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value a user writes as `def` ("5", "Inf", "\"cg\"", "TRUE", "NULL",
 * "c(\"a\", \"b\")"); strings are copied into str (their pointers into ptrs). */
static sgp_value parse_def(const char *def, double *num, char *str, const char **ptrs)
{
  sgp_value v = {SGP_VAL_NULL, 0, NULL, NULL, NULL};
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
    if (s->kind == SGP_OPT_POSITIVES) {
      const double *pa = *(const double *const *)a, *pb = *(const double *const *)b;
      assert_true(*(const int64_t *)((const char *)dflt + s->count_offset) == 1);
      assert_true(pa[0] == pb[0]);
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
  const sgp_value s2 = {SGP_VAL_STRING, 2, NULL, "noise", two},
                  s0 = {SGP_VAL_STRING, 0, NULL, NULL, NULL},
                  nul = {SGP_VAL_NULL, 0, NULL, NULL, NULL},
                  sb = {SGP_VAL_STRING, 4, NULL, "A", bad};
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
  const sgp_value r1 = {SGP_VAL_REAL, 1, &one, NULL, NULL}, r0 = {SGP_VAL_REAL, 1, &pois, NULL, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "learn", &r1), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'learn' must be strings out of \"A\", \"inducing\", "
                      "\"prior_var\", \"noise\" (got 1)");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "beta1", &r1), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'beta1' must be a number in [0, 1) (got 1)");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "beta1", &r0), SGP_OK);
  const sgp_value p = {SGP_VAL_STRING, 1, NULL, "poisson", NULL},
                  sm = {SGP_VAL_STRING, 1, NULL, "softmax", NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "likelihood", &p), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'likelihood' must be one of \"gaussian\", \"bernoulli\", "
                      "\"softmax\" (got \"poisson\")");
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "likelihood", &sm), SGP_OK);
  assert_int_equal(o.likelihood, SGP_LIK_SOFTMAX);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "likelihood", &nul), SGP_OK);
  assert_int_equal(o.likelihood, SGP_LIK_SOFTMAX); /* NULL keeps it */
  const double inf = INFINITY;
  const sgp_value ri = {SGP_VAL_REAL, 1, &inf, NULL, NULL};
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
  const sgp_value r0 = {SGP_VAL_REAL, 1, &zero, NULL, NULL}, rh = {SGP_VAL_REAL, 1, &half, NULL, NULL},
                  rinf = {SGP_VAL_REAL, 1, &inf, NULL, NULL}, l0 = {SGP_VAL_LOGICAL, 1, &zero, NULL, NULL},
                  lna = {SGP_VAL_LOGICAL, 1, &nan, NULL, NULL}, r2 = {SGP_VAL_REAL, 2, two, NULL, NULL},
                  s = {SGP_VAL_STRING, 1, NULL, "lanczos", NULL}, nul = {SGP_VAL_NULL, 0, NULL, NULL, NULL};
  expect_message(t, "max_iter", r0, "'max_iter' must be a whole number >= 1 (got 0)");
  expect_message(t, "max_iter", rh, "'max_iter' must be a whole number >= 1 (got 2.5)");
  expect_message(t, "max_iter", rinf, "'max_iter' must be a whole number >= 1 (got Inf)");
  expect_message(t, "max_iter", l0, "'max_iter' must be a whole number >= 1 (got FALSE)");
  expect_message(t, "rank", rh, "'rank' must be a whole number >= 0 or Inf (got 2.5)");
  expect_message(t, "recycle", lna, "'recycle' must be true or false (got NA)");
  expect_message(t, "recycle", rh, "'recycle' must be true or false (got 2.5)");
  expect_message(t, "policy", s, "'policy' must be one of \"cg\", \"cholesky\" (got \"lanczos\")");
  expect_message(t, "outputscale", r0, "'outputscale' must be positive and finite (got 0)");
  expect_message(t, "tol", rinf, "'tol' must be a number >= 0 and finite (got Inf)");
  expect_message(t, "lengthscale", r2, "'lengthscale' must be positive and finite (got 0)");
  expect_message(t, "max_newton", nul, "'max_newton' must be a whole number >= 1 (got nothing)");
  expect_message(t, "nonsense", r0,
                 "unknown option 'nonsense'; valid options are likelihood, kernel, lengthscale, "
                 "outputscale, noise, offset, policy, max_newton, max_iter, rank, tol, n_class, "
                 "recycle, damping, max_total_iter, random_order, time_limit, inner_atol, "
                 "inner_rtol, noise_max, kernel_cache_bytes, backend, seed, verbose, threads");
  /* what is valid is stored; Inf means none */
  sgp_laplace_opts o;
  sgp_laplace_opts_default(&o);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "rank", &rinf), SGP_OK);
  assert_true(o.rank == -1);
  const double twelve = 12;
  const sgp_value r12 = {SGP_VAL_REAL, 1, &twelve, NULL, NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "rank", &r12), SGP_OK);
  assert_true(o.rank == 12);
  const sgp_value ch = {SGP_VAL_STRING, 1, NULL, "cholesky", NULL};
  assert_int_equal(sgp_opts_set(&ctx, t, &o, "policy", &ch), SGP_OK);
  assert_int_equal(o.policy, SGP_POLICY_CHOLESKY);
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
  const sgp_value s7 = {SGP_VAL_REAL, 1, &seven, NULL, NULL}, sb = {SGP_VAL_REAL, 1, &big, NULL, NULL},
                  t3 = {SGP_VAL_REAL, 1, &three, NULL, NULL}, cpu = {SGP_VAL_STRING, 1, NULL, "cpu", NULL};
  assert_int_equal(sgp_ctx_opt_set(&ctx, "seed", &s7, NULL), SGP_OK);
  assert_true(ctx.seed == 7);
  assert_int_equal(sgp_ctx_opt_set(&ctx, "seed", &sb, NULL), SGP_EINVAL);
  assert_string_equal(ctx.errmsg, "'seed' must be at most 9007199254740992 (got 1e+300)");
  assert_int_equal(sgp_ctx_opt_set(&ctx, "threads", &t3, NULL), SGP_OK);
  assert_int_equal(ctx.nthreads, 3);
  assert_int_equal(sgp_ctx_opt_set(&ctx, "backend", &cpu, NULL), SGP_OK);
  assert_int_equal(ctx.backend, SGP_BACKEND_CPU);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(laplace_defaults_agree),
    cmocka_unit_test(kernel_defaults_agree),
    cmocka_unit_test(valla_defaults_agree),
    cmocka_unit_test(valla_kinds),
    cmocka_unit_test(mlp_fit_defaults_agree),
    cmocka_unit_test(kinds_check_and_word_errors),
    cmocka_unit_test(user_message_form),
    cmocka_unit_test(context_options),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
