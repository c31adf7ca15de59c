/* value_out.c -- the arena of a result given back as plain data and the builders
 * of its values (value_out.h). */
#include "host/value_out.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* One malloc per allocation, chained for the free; a result has tens of them. */
typedef struct block { struct block *next; } block;

struct sgp_value_arena {
  block *head;
  int failed;
};

sgp_value_arena *sgp_value_arena_new(void)
{
  return (sgp_value_arena *)calloc(1, sizeof(sgp_value_arena));
}

void sgp_value_arena_free(sgp_value_arena *a)
{
  if (!a) return;
  for (block *b = a->head, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  free(a);
}

int sgp_value_arena_failed(const sgp_value_arena *a)
{
  return !a || a->failed;
}

void *sgp_vo_alloc(sgp_value_arena *a, size_t n)
{
  /* the payload after the link, aligned for doubles */
  const size_t head = (sizeof(block) + sizeof(double) - 1) / sizeof(double) * sizeof(double);
  block *b = a && !a->failed ? (block *)malloc(head + (n > 0 ? n : 1)) : NULL;
  if (!b) {
    if (a) a->failed = 1;
    return NULL;
  }
  b->next = a->head;
  a->head = b;
  return (char *)b + head;
}

double sgp_vo_na(void)
{
  const uint64_t bits = 0x7FF00000u * (uint64_t)0x100000000u + 1954u;
  double x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

static sgp_value empty(sgp_value_type type)
{
  sgp_value v = {type, 0, NULL, NULL, NULL, 0, 0, NULL};
  return v;
}

static const char *copy_string(sgp_value_arena *a, const char *s)
{
  const size_t n = strlen(s) + 1;
  char *c = (char *)sgp_vo_alloc(a, n);
  if (c) memcpy(c, s, n);
  return c ? c : "";
}

static const char **copy_strings(sgp_value_arena *a, int64_t n, const char *const *s)
{
  const char **c = (const char **)sgp_vo_alloc(a, (size_t)n * sizeof(const char *));
  for (int64_t i = 0; c && i < n; i++) c[i] = copy_string(a, s[i]);
  return c;
}

sgp_value sgp_vo_null(void)
{
  return empty(SGP_VAL_NULL);
}

sgp_value sgp_vo_real(sgp_value_arena *a, int64_t n, const double *x, int64_t rows,
                      int64_t cols)
{
  double *d = (double *)sgp_vo_alloc(a, (size_t)n * sizeof(double));
  if (!d) return empty(SGP_VAL_NULL);
  for (int64_t i = 0; i < n; i++) d[i] = x ? x[i] : NAN;
  sgp_value v = empty(SGP_VAL_REAL);
  v.len = n;
  v.real = d;
  v.rows = rows;
  v.cols = cols;
  return v;
}

sgp_value sgp_vo_scalar(sgp_value_arena *a, double x)
{
  return sgp_vo_real(a, 1, &x, 0, 0);
}

sgp_value sgp_vo_int(sgp_value_arena *a, int64_t n, const int64_t *x)
{
  sgp_value v = sgp_vo_count(a, n, x);
  if (v.type == SGP_VAL_REAL) v.type = SGP_VAL_INT;
  return v;
}

sgp_value sgp_vo_int32(sgp_value_arena *a, int64_t n, const int *x, int add)
{
  sgp_value v = sgp_vo_real(a, n, NULL, 0, 0);
  if (v.type != SGP_VAL_REAL) return v;
  double *d = (double *)v.real;
  for (int64_t i = 0; i < n; i++) d[i] = (double)x[i] + add;
  v.type = SGP_VAL_INT;
  return v;
}

sgp_value sgp_vo_count(sgp_value_arena *a, int64_t n, const int64_t *x)
{
  sgp_value v = sgp_vo_real(a, n, NULL, 0, 0);
  double *d = (double *)v.real;
  for (int64_t i = 0; d && i < n; i++) d[i] = (double)x[i];
  return v;
}

sgp_value sgp_vo_named(sgp_value_arena *a, int64_t n, const double *x,
                       const char *const *names)
{
  sgp_value v = sgp_vo_real(a, n, x, 0, 0);
  const char **c = copy_strings(a, n, names);
  if (v.type == SGP_VAL_REAL) v.strs = c;
  return c ? v : empty(SGP_VAL_NULL);
}

sgp_value sgp_vo_flag(sgp_value_arena *a, double x)
{
  sgp_value v = sgp_vo_real(a, 1, &x, 0, 0);
  if (v.type == SGP_VAL_REAL) v.type = SGP_VAL_LOGICAL;
  return v;
}

sgp_value sgp_vo_string(sgp_value_arena *a, const char *s)
{
  sgp_value v = empty(SGP_VAL_STRING);
  v.len = 1;
  v.str = copy_string(a, s);
  return v;
}

sgp_value sgp_vo_strings(sgp_value_arena *a, int64_t n, const char *const *s)
{
  const char **c = copy_strings(a, n, s);
  if (!c) return empty(SGP_VAL_NULL);
  sgp_value v = empty(SGP_VAL_STRING);
  v.len = n;
  v.str = n > 0 ? c[0] : "";
  v.strs = c;
  return v;
}

sgp_value sgp_vo_list(sgp_value_arena *a, int64_t n, const char *const *names,
                      const sgp_value *elts)
{
  const char **c = copy_strings(a, n, names);
  sgp_value *e = (sgp_value *)sgp_vo_alloc(a, (size_t)n * sizeof(sgp_value));
  if (!c || !e) return empty(SGP_VAL_NULL);
  memcpy(e, elts, (size_t)n * sizeof(sgp_value));
  sgp_value v = empty(SGP_VAL_LIST);
  v.len = n;
  v.strs = c;
  v.elts = e;
  return v;
}

sgp_value sgp_vo_cells(sgp_value_arena *a, int64_t n, const sgp_value *elts)
{
  sgp_value *e = (sgp_value *)sgp_vo_alloc(a, (size_t)n * sizeof(sgp_value));
  if (!e) return empty(SGP_VAL_NULL);
  memcpy(e, elts, (size_t)n * sizeof(sgp_value));
  sgp_value v = empty(SGP_VAL_LIST);
  v.len = n;
  v.elts = e;
  return v;
}

sgp_value sgp_vo_array3(sgp_value_arena *a, int64_t rows, int64_t cols, int64_t k,
                        const double *x)
{
  return sgp_vo_real(a, rows * cols * k, x, rows, cols);
}
