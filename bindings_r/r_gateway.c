/* r_gateway.c -- the one .Call entry of the verbs and the forwarding of options:
 * R's values become sgp_values, checked and stored by the core's option tables
 * (sgp_options.h); the verb's runner does the data and the result. */
#include "r_shim.h"
#include "api/sgp.h"

#include <math.h>
#include <string.h>

/* A list (a data frame too) as the core sees it: its elements, named. */
static sgp_value list_of(SEXP x)
{
  const R_xlen_t n = XLENGTH(x);
  SEXP names = Rf_getAttrib(x, R_NamesSymbol);
  sgp_value *e = (sgp_value *)R_alloc((size_t)(n > 0 ? n : 1), sizeof(sgp_value));
  const char **s = (const char **)R_alloc((size_t)(n > 0 ? n : 1), sizeof(const char *));
  for (R_xlen_t i = 0; i < n; i++) {
    e[i] = sgp_r_value(VECTOR_ELT(x, i));
    s[i] = Rf_isNull(names) ? "" : CHAR(STRING_ELT(names, i));
  }
  sgp_value v = {SGP_VAL_LIST, (int64_t)n, NULL, NULL, s, 0, 0, e};
  return v;
}

/* An R value as the core sees it: integers and logicals as doubles (NA as NaN,
 * in R_alloc memory freed when the .Call returns), doubles in place, a matrix
 * with its dimensions, a list with its elements. */
sgp_value sgp_r_value(SEXP x)
{
  sgp_value v = {SGP_VAL_OTHER, 0, NULL, NULL, NULL, 0, 0, NULL};
  if (Rf_isNull(x)) { v.type = SGP_VAL_NULL; return v; }
  if (Rf_isFactor(x) || !Rf_isVector(x)) return v; /* a formula, a function, ... */
  if (TYPEOF(x) == VECSXP) return list_of(x);
  const R_xlen_t n = XLENGTH(x);
  v.len = (int64_t)n;
  SEXP dim = Rf_getAttrib(x, R_DimSymbol);
  if (!Rf_isNull(dim)) {
    v.rows = XLENGTH(dim) >= 1 ? INTEGER(dim)[0] : 0;
    v.cols = XLENGTH(dim) == 2 ? INTEGER(dim)[1] : XLENGTH(dim) == 1 ? 1 : -1;
  }
  SEXP names = Rf_getAttrib(x, R_NamesSymbol); /* a named vector's names (timings) */
  if (TYPEOF(x) != STRSXP && !Rf_isNull(names) && XLENGTH(names) == n) {
    const char **s = (const char **)R_alloc((size_t)(n > 0 ? n : 1), sizeof(const char *));
    for (R_xlen_t i = 0; i < n; i++) s[i] = CHAR(STRING_ELT(names, i));
    v.strs = s;
  }
  switch (TYPEOF(x)) {
  case REALSXP: v.type = SGP_VAL_REAL; v.real = REAL_RO(x); break;
  case INTSXP: case LGLSXP: {
    double *d = (double *)R_alloc((size_t)(n > 0 ? n : 1), sizeof(double));
    const int *p = TYPEOF(x) == INTSXP ? INTEGER_RO(x) : LOGICAL_RO(x);
    for (R_xlen_t i = 0; i < n; i++) d[i] = p[i] == NA_INTEGER ? NAN : (double)p[i];
    v.type = TYPEOF(x) == INTSXP ? SGP_VAL_REAL : SGP_VAL_LOGICAL;
    v.real = d;
    break;
  }
  case STRSXP: {
    const char **s = (const char **)R_alloc((size_t)(n > 0 ? n : 1), sizeof(const char *));
    for (R_xlen_t i = 0; i < n; i++)
      s[i] = STRING_ELT(x, i) != NA_STRING ? CHAR(STRING_ELT(x, i)) : "NA";
    v.type = SGP_VAL_STRING;
    v.str = n > 0 ? s[0] : "NA";
    v.strs = s;
    break;
  }
  default: break;
  }
  return v;
}

int sgp_r_apply_options(sgp_ctx *ctx, const char *verb, SEXP opts, void *o)
{
  const sgp_verb_table *t = sgp_verb_options(verb);
  SEXP names = Rf_getAttrib(opts, R_NamesSymbol);
  if (!t || TYPEOF(opts) != VECSXP || (XLENGTH(opts) > 0 && Rf_isNull(names)))
    Rf_error("internal: options must be a named list");
  const R_xlen_t n = XLENGTH(opts);
  const char **nm = (const char **)R_alloc((size_t)(n > 0 ? n : 1), sizeof(const char *));
  sgp_value *v = (sgp_value *)R_alloc((size_t)(n > 0 ? n : 1), sizeof(sgp_value));
  for (R_xlen_t i = 0; i < n; i++) {
    nm[i] = CHAR(STRING_ELT(names, i));
    if (!nm[i][0]) Rf_error("internal: option %d has no name", (int)i + 1);
    v[i] = sgp_r_value(VECTOR_ELT(opts, i));
  }
  return sgp_opts_apply(ctx, t, o, (int64_t)n, nm, v);
}

void sgp_r_fail(const char *fn, sgp_ctx *ctx, int status)
{
  char msg[sizeof ctx->errmsg + 64];
  sgp_user_message(fn, ctx, status, msg, sizeof msg);
  Rf_errorcall(R_NilValue, "%s", msg);
}

static sgp_value build_options(const void *t, sgp_value_arena *a)
{
  return sgp_options_plain((const sgp_verb_table *)t, a);
}

/* The options of a verb as the core writes them (sgp_options_plain): name, kind,
 * default, doc columns and context, for the fronts' docs and tests (no front
 * restates them). */
SEXP sgp_options_r(SEXP verb)
{
  const sgp_verb_table *t = sgp_verb_options(CHAR(STRING_ELT(verb, 0)));
  if (!t) Rf_error("unknown verb");
  return sgp_r_build(build_options, t);
}

/* Checks one option of a verb as the core does (the value is not kept): for a
 * front that needs an option before the call (e.g. a likelihood that decides how
 * labels are coded). Returns NULL or raises the user's error. */
SEXP sgp_option_check_r(SEXP verb, SEXP name, SEXP value)
{
  const char *fn = CHAR(STRING_ELT(verb, 0)), *nm = CHAR(STRING_ELT(name, 0));
  const sgp_verb_table *t = sgp_verb_options(fn);
  if (!t) Rf_error("unknown verb");
  union { double d; int64_t i; void *p; char bytes[4096]; } scratch; /* any verb's struct */
  memset(&scratch, 0, sizeof scratch);
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  const sgp_value v = sgp_r_value(value);
  const int st = sgp_opts_set(&ctx, t, &scratch, nm, &v);
  if (st) sgp_r_fail(fn, &ctx, st);
  return R_NilValue;
}
