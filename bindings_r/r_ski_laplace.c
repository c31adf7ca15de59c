/* r_ski_laplace.c -- ski_laplace(): the data as views, the options by name to
 * the core's table, and the fit the core writes as plain data. */
#include "r_shim.h"

#include <string.h>

typedef struct {
  sgp_ctx *ctx;
  const sgp_ski_laplace_opts *o;
  const sgp_ski_laplace_data *d;
} run_args;

static int run_plain(const void *p, sgp_value_arena *a, sgp_value *out)
{
  const run_args *q = (const run_args *)p;
  return sgp_ski_laplace_run(q->ctx, q->o, q->d, a, out);
}

static sgp_cmat view_or_empty(SEXP x)
{
  const sgp_cmat none = {NULL, 0, 0, 1};
  return Rf_isNull(x) || Rf_length(x) == 0 ? none : sgp_r_cmat(x);
}

SEXP sgp_ski_laplace_r(SEXP x, SEXP y, SEXP ydim, SEXP offset, SEXP trials, SEXP xtest, SEXP stats,
                       SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_laplace_opts o;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_ski_laplace_opts_default(&o);
  int code = sgp_r_apply_options(&ctx, "ski_laplace", opts, &o);
  if (code) sgp_r_fail("ski_laplace", &ctx, code);
  sgp_ski_stats_data sd;
  const sgp_value sv = sgp_r_value(stats);
  if (!Rf_isNull(stats) && (code = sgp_ski_stats_check(&ctx, &sv, "stats", "$", &sd)))
    sgp_r_fail("ski_laplace", &ctx, code);
  const sgp_ski_laplace_data d = {view_or_empty(x), view_or_empty(y), view_or_empty(ydim),
                                  view_or_empty(offset), view_or_empty(trials),
                                  view_or_empty(xtest), Rf_isNull(stats) ? NULL : &sd};
  const run_args q = {&ctx, &o, &d};
  SEXP out = PROTECT(sgp_r_build_status(run_plain, &q, &code));
  if (code) sgp_r_fail("ski_laplace", &ctx, code);
  UNPROTECT(1);
  return out;
}

typedef struct {
  sgp_ctx *ctx;
  const sgp_value *fit;
  const char *arg;
  const sgp_ski_laplace_predict_opts *o;
  sgp_cmat X;
} predict_args;

static int predict_plain(const void *p, sgp_value_arena *a, sgp_value *out)
{
  const predict_args *q = (const predict_args *)p;
  return sgp_ski_laplace_predict_plain(q->ctx, q->fit, q->arg, "$", q->o, q->X, a, out);
}

/* predict.ski_laplace() (and the check of logLik, nobs, coef): the core checks the
 * fit `object` (plain data, named `arg` in errors of function `fn`), the options
 * (type, variance, offset; table "ski_laplace_predict") and newdata, then
 * predicts: list(pred = list(mean, var, response, response_var), type).
 * newdata NULL: the check only (NULL). */
SEXP sgp_ski_laplace_predict_r(SEXP object, SEXP fn_s, SEXP arg_s, SEXP newdata, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_laplace_predict_opts o;
  const char *fn = CHAR(STRING_ELT(fn_s, 0));
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_ski_laplace_predict_opts_default(&o);
  const sgp_value fit = sgp_r_value(object);
  int code = sgp_r_apply_options(&ctx, "ski_laplace_predict", opts, &o);
  if (code) sgp_r_fail(fn, &ctx, code);
  const predict_args q = {&ctx, &fit, CHAR(STRING_ELT(arg_s, 0)), &o,
                          Rf_isNull(newdata) ? sgp_cmat_of(NULL, 0, 0) : sgp_r_cmat(newdata)};
  SEXP out = PROTECT(sgp_r_build_status(predict_plain, &q, &code));
  if (code) {
    sgp_ctx_rename_arg(&ctx, "xtest", "newdata");
    sgp_r_fail(fn, &ctx, code);
  }
  UNPROTECT(1);
  return out;
}
