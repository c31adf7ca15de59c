/* fit_data.c -- reading and checking the fields of a fit as plain data
 * (fit_data.h): shapes, types and finiteness, in the words both hosts show. */
#include "host/fit_data.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const sgp_value null_value = {SGP_VAL_NULL, 0, NULL, NULL, NULL, 0, 0, NULL};

sgp_fd sgp_fd_of(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                 const char *suffix)
{
  const sgp_fd f = {ctx, fit, arg, sep, suffix, sep && !strcmp(sep, ".")};
  return f;
}

int sgp_fd_begin(sgp_fd *f, sgp_ctx *ctx, const sgp_value *fit, const char *arg,
                 const char *sep, const char *what, const char *const *need,
                 const char *suffix)
{
  *f = sgp_fd_of(ctx, fit, arg, sep, suffix);
  if (!fit || fit->type != SGP_VAL_LIST)
    return sgp_fail(ctx, SGP_EINVAL, "'%s' must be a %s fit (a list or struct)", arg, what);
  for (int i = 0; need && need[i]; i++)
    if (sgp_fd_elt(fit, need[i]) == &null_value) return sgp_fd_bad(f, need[i], "is missing");
  return SGP_OK;
}

const sgp_value *sgp_fd_elt(const sgp_value *list, const char *name)
{
  if (!list || list->type != SGP_VAL_LIST || !list->strs) return &null_value;
  for (int64_t i = 0; i < list->len; i++)
    if (list->strs[i] && !strcmp(list->strs[i], name)) return &list->elts[i];
  return &null_value;
}

int sgp_fd_has(const sgp_value *list, const char *name)
{
  return sgp_fd_elt(list, name) != &null_value;
}

int sgp_fd_bad(const sgp_fd *f, const char *name, const char *fmt, ...)
{
  char rest[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rest, sizeof rest, fmt, ap);
  va_end(ap);
  return sgp_fail(f->ctx, SGP_EINVAL, "'%s%s%s' %s%s", f->arg, f->sep, name, rest,
                  f->suffix ? f->suffix : "");
}

int sgp_fd_is_numeric(const sgp_value *v)
{
  return (v->type == SGP_VAL_REAL || v->type == SGP_VAL_LOGICAL) && v->cols >= 0;
}

int64_t sgp_fd_rows(const sgp_value *v) { return v->rows || v->cols ? v->rows : v->len; }
int64_t sgp_fd_cols(const sgp_value *v) { return v->rows || v->cols ? v->cols : 1; }

int sgp_fd_finite(const sgp_value *v)
{
  for (int64_t i = 0; i < v->len; i++)
    if (!isfinite(v->real[i])) return 0;
  return 1;
}

int sgp_fd_is_nothing(const sgp_value *v)
{
  return v->type == SGP_VAL_NULL || (v->type != SGP_VAL_LIST && v->len == 0 &&
                                     v->type != SGP_VAL_OTHER);
}

int sgp_fd_absent(const sgp_fd *f, const sgp_value *v)
{
  return v->type == SGP_VAL_NULL || (f->empty_absent && sgp_fd_is_nothing(v));
}

static const char *type_word(const sgp_value *v)
{
  switch (v->type) {
  case SGP_VAL_NULL: return "nothing";
  case SGP_VAL_STRING: return "strings";
  case SGP_VAL_LIST: return "a list";
  case SGP_VAL_REAL: case SGP_VAL_LOGICAL: return "an array of more than two dimensions";
  default: return "another type";
  }
}

int sgp_fd_matrix(const sgp_fd *f, const char *name, int64_t rows, int64_t cols, sgp_cmat *out)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  if (!sgp_fd_is_numeric(v))
    return sgp_fd_bad(f, name, "must be a numeric matrix (got %s)", type_word(v));
  const int64_t r = sgp_fd_rows(v), c = sgp_fd_cols(v);
  if ((rows >= 0 && r != rows) || (cols >= 0 && c != cols)) {
    char need_r[32] = "any", need_c[32] = "any";
    if (rows >= 0) snprintf(need_r, sizeof need_r, "%lld", (long long)rows);
    if (cols >= 0) snprintf(need_c, sizeof need_c, "%lld", (long long)cols);
    return sgp_fd_bad(f, name, "is %lld x %lld; need %s x %s", (long long)r, (long long)c,
                      need_r, need_c);
  }
  if (!sgp_fd_finite(v)) return sgp_fd_bad(f, name, "contains NaN, NA or Inf");
  *out = sgp_cmat_of(v->real, r, c);
  return SGP_OK;
}

int sgp_fd_whole(const sgp_fd *f, const char *name, double lo, double *out)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  if (v->type != SGP_VAL_REAL || v->len != 1 || !isfinite(v->real[0]) ||
      v->real[0] != floor(v->real[0]) || v->real[0] < lo)
    return sgp_fd_bad(f, name, "must be a whole number >= %g", lo);
  *out = v->real[0];
  return SGP_OK;
}

int sgp_fd_flag(const sgp_fd *f, const char *name, int *out)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  if ((v->type != SGP_VAL_LOGICAL && v->type != SGP_VAL_REAL) || v->len != 1 ||
      isnan(v->real[0]) || (v->real[0] != 0 && v->real[0] != 1))
    return sgp_fd_bad(f, name, "must be TRUE or FALSE");
  *out = v->real[0] != 0;
  return SGP_OK;
}

int sgp_fd_string(const sgp_fd *f, const char *name, const char *const *choices, int *index)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  int ok = v->type == SGP_VAL_STRING && v->len == 1 && v->str && strcmp(v->str, "NA");
  if (ok && !choices) return SGP_OK;
  for (int i = 0; ok && choices[i]; i++)
    if (choices[i][0] && !strcmp(v->str, choices[i])) { if (index) *index = i; return SGP_OK; }
  if (!choices) return sgp_fd_bad(f, name, "must be one string");
  char list[256] = "";
  int k = 0;
  for (int i = 0; choices[i]; i++) {
    if (!choices[i][0]) continue;
    const size_t l = strlen(list);
    snprintf(list + l, sizeof list - l, "%s\"%s\"", k++ ? ", " : "", choices[i]);
  }
  return sgp_fd_bad(f, name, "must be one of %s", list);
}

int sgp_fd_columns(const sgp_fd *f, const char *name, const char *const *need, int n_need)
{
  const sgp_value *v = sgp_fd_elt(f->fit, name);
  int ok = v->type == SGP_VAL_LIST;
  int64_t len = -1;
  for (int i = 0; ok && i < n_need; i++) {
    const sgp_value *c = sgp_fd_elt(v, need[i]);
    ok = sgp_fd_is_numeric(c) && (len < 0 || c->len == len);
    len = c->len;
  }
  if (ok) return SGP_OK;
  char list[256] = "";
  for (int i = 0; i < n_need; i++) {
    const size_t l = strlen(list);
    snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", need[i]);
  }
  return sgp_fd_bad(f, name, "must be a data frame with numeric columns %s", list);
}

int sgp_fd_hyper_mean(const sgp_fd *f, int64_t n_max, sgp_cmat *out)
{
  const sgp_value *h = sgp_fd_elt(f->fit, "hyper");
  char name[32];
  snprintf(name, sizeof name, "hyper%smean", f->sep);
  if (h->type != SGP_VAL_LIST)
    return sgp_fd_is_nothing(h) && !sgp_fd_has(f->fit, "hyper")
             ? sgp_fd_bad(f, "hyper", "is missing")
             : sgp_fd_bad(f, "hyper", "must be a list or struct");
  const sgp_value *m = sgp_fd_elt(h, "mean");
  if (!sgp_fd_has(h, "mean")) return sgp_fd_bad(f, name, "is missing");
  if (m->type != SGP_VAL_REAL || !(m->len == 1 || m->len == n_max)) {
    if (n_max > 1)
      return sgp_fd_bad(f, name, "must be 1 or %lld numbers (the constant prior mean)",
                        (long long)n_max);
    return sgp_fd_bad(f, name, "must be one number (the constant prior mean)");
  }
  if (!sgp_fd_finite(m)) return sgp_fd_bad(f, name, "contains NaN, NA or Inf");
  *out = sgp_cmat_of(m->real, m->len, 1);
  return SGP_OK;
}
