/* r_value_out.c -- a result the core gives back as plain data (an sgp_value tree,
 * sgp_options.h) as R data: the one converter from the core to R, the inverse of
 * sgp_r_value. */
#include "r_shim.h"

#include <limits.h>
#include <math.h>

static SEXP strings_of(const sgp_value *v)
{
  if (!v->strs) return Rf_mkString(v->str ? v->str : "");
  SEXP s = PROTECT(Rf_allocVector(STRSXP, (R_xlen_t)v->len));
  for (int64_t i = 0; i < v->len; i++) SET_STRING_ELT(s, i, Rf_mkChar(v->strs[i]));
  UNPROTECT(1);
  return s;
}

/* REAL: a vector or a matrix, named when strs; LOGICAL: NaN as NA; INT: integers
 * (beyond R's integers: NA). */
/* x's names from v's strings, where v has them */
static void set_names(SEXP x, const sgp_value *v)
{
  if (!v->strs) return;
  SEXP names = PROTECT(Rf_allocVector(STRSXP, (R_xlen_t)v->len));
  for (int64_t i = 0; i < v->len; i++) SET_STRING_ELT(names, i, Rf_mkChar(v->strs[i]));
  Rf_setAttrib(x, R_NamesSymbol, names);
  UNPROTECT(1);
}

static SEXP numbers_of(const sgp_value *v)
{
  const int logical = v->type == SGP_VAL_LOGICAL, integer = v->type == SGP_VAL_INT;
  const SEXPTYPE t = logical ? LGLSXP : integer ? INTSXP : REALSXP;
  const int64_t rc = v->rows * v->cols; /* a rows x cols x k array when len = k rc, k != 1 */
  SEXP x = PROTECT(rc > 0 && v->len != rc
                       ? Rf_alloc3DArray(t, (int)v->rows, (int)v->cols, (int)(v->len / rc))
                   : v->rows > 0 || v->cols > 0
                       ? Rf_allocMatrix(t, (int)v->rows, (int)v->cols)
                       : Rf_allocVector(t, (R_xlen_t)v->len));
  for (int64_t i = 0; i < v->len; i++) {
    const double r = v->real[i];
    if (logical) LOGICAL(x)[i] = isnan(r) ? NA_LOGICAL : r != 0;
    else if (integer) INTEGER(x)[i] = fabs(r) <= INT_MAX ? (int)r : NA_INTEGER;
    else REAL(x)[i] = r;
  }
  set_names(x, v);
  UNPROTECT(1);
  return x;
}

SEXP sgp_r_from_value(const sgp_value *v)
{
  switch (v->type) {
  case SGP_VAL_REAL: case SGP_VAL_LOGICAL: case SGP_VAL_INT: return numbers_of(v);
  case SGP_VAL_STRING: return strings_of(v);
  case SGP_VAL_LIST: {
    SEXP out = PROTECT(Rf_allocVector(VECSXP, (R_xlen_t)v->len));
    for (int64_t i = 0; i < v->len; i++) SET_VECTOR_ELT(out, i, sgp_r_from_value(&v->elts[i]));
    set_names(out, v); /* none: an unnamed list */
    UNPROTECT(1);
    return out;
  }
  default: return R_NilValue;
  }
}

typedef struct {
  sgp_value (*build)(const void *, sgp_value_arena *);
  const void *what;
  sgp_value_arena *arena;
} build_call;

static SEXP run_build(void *data)
{
  build_call *c = (build_call *)data;
  const sgp_value v = c->build(c->what, c->arena);
  if (sgp_value_arena_failed(c->arena)) Rf_error("out of memory");
  return sgp_r_from_value(&v);
}

static void free_arena(void *data)
{
  sgp_value_arena_free(((build_call *)data)->arena);
}

SEXP sgp_r_build(sgp_value (*build)(const void *, sgp_value_arena *), const void *what)
{
  build_call c = {build, what, sgp_value_arena_new()};
  if (!c.arena) Rf_error("out of memory");
  /* the arena is freed on every path, an R error in the conversion included */
  return R_ExecWithCleanup(run_build, &c, free_arena, &c);
}

typedef struct {
  int (*build)(const void *, sgp_value_arena *, sgp_value *);
  const void *what;
  int *status;
} status_call;

static sgp_value run_status(const void *data, sgp_value_arena *a)
{
  const status_call *c = (const status_call *)data;
  sgp_value v = {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL};
  *c->status = c->build(c->what, a, &v);
  if (*c->status) v.type = SGP_VAL_NULL;
  return v;
}

SEXP sgp_r_build_status(int (*build)(const void *, sgp_value_arena *, sgp_value *),
                        const void *what, int *status)
{
  const status_call c = {build, what, status};
  return sgp_r_build(run_status, &c);
}
