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

SEXP sgp_ski_laplace_r(SEXP x, SEXP y, SEXP ydim, SEXP offset, SEXP trials, SEXP xtest, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_laplace_opts o;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_ski_laplace_opts_default(&o);
  int code = sgp_r_apply_options(&ctx, "ski_laplace", opts, &o);
  if (code) sgp_r_fail("ski_laplace", &ctx, code);
  const sgp_ski_laplace_data d = {view_or_empty(x), view_or_empty(y), view_or_empty(ydim),
                                  view_or_empty(offset), view_or_empty(trials),
                                  view_or_empty(xtest)};
  const run_args q = {&ctx, &o, &d};
  SEXP out = PROTECT(sgp_r_build_status(run_plain, &q, &code));
  if (code) sgp_r_fail("ski_laplace", &ctx, code);
  UNPROTECT(1);
  return out;
}
