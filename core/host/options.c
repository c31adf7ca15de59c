/* options.c -- options by name (sgp_options.h): the checks and messages every
 * verb's table shares, and the registry of tables. */
#include "api/sgp_options.h"
#include "runtime/sgp_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

extern const sgp_verb_table sgp_laplace_table;
extern const sgp_verb_table sgp_valla_table;
extern const sgp_verb_table sgp_mlp_fit_table;
extern const sgp_verb_table sgp_context_table;
extern const sgp_verb_table sgp_kernel_table;
extern const sgp_verb_table sgp_ski_gsgp_table;
extern const sgp_verb_table sgp_ski_grid_table;
extern const sgp_verb_table sgp_ski_stats_table;
extern const sgp_verb_table sgp_laplace_predict_table;
extern const sgp_verb_table sgp_valla_metrics_table;
extern const sgp_verb_table sgp_ski_predict_table;
extern const sgp_verb_table sgp_valla_predict_table;
extern const sgp_verb_table sgp_ski_laplace_table;
extern const sgp_verb_table sgp_ski_laplace_predict_table;

static const sgp_verb_table *const tables[] = {&sgp_context_table, &sgp_kernel_table,
                                               &sgp_laplace_table, &sgp_valla_table,
                                               &sgp_mlp_fit_table, &sgp_ski_gsgp_table,
                                               &sgp_ski_grid_table, &sgp_ski_stats_table,
                                               &sgp_laplace_predict_table,
                                               &sgp_valla_metrics_table, &sgp_ski_predict_table,
                                               &sgp_valla_predict_table, &sgp_ski_laplace_table,
                                               &sgp_ski_laplace_predict_table};

const sgp_verb_table *sgp_verb_options(const char *verb)
{
  for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++)
    if (!strcmp(tables[i]->verb, verb)) return tables[i];
  return NULL;
}

const char *sgp_opt_kind_name(sgp_opt_kind kind)
{
  static const char *const names[] = {"flag", "count", "real", "choice", "positives", "vector",
                                      "subset", "counts"};
  return kind >= 0 && (size_t)kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

const sgp_opt_spec *sgp_opt_find(const sgp_verb_table *t, const char *name)
{
  for (int i = 0; i < t->n; i++)
    if (!strcmp(t->opts[i].name, name)) return &t->opts[i];
  return NULL;
}

const sgp_opt_spec *sgp_ctx_opt_find(const sgp_verb_table *t, const char *name)
{
  if (t->no_context || sgp_opt_find(t, name)) return NULL;
  return sgp_opt_find(&sgp_context_table, name);
}

/* "got ..." for one value as the user wrote it */
static void got(const sgp_value *v, char *buf, size_t size)
{
  if (v->type == SGP_VAL_NULL) snprintf(buf, size, "nothing");
  else if (v->type == SGP_VAL_OTHER || v->type == SGP_VAL_LIST) snprintf(buf, size, "another type");
  else if (v->type == SGP_VAL_STRING && v->len == 1) snprintf(buf, size, "\"%s\"", v->str);
  else if (v->type == SGP_VAL_STRING) snprintf(buf, size, "%lld strings", (long long)v->len);
  else if (v->len != 1) snprintf(buf, size, "%lld values", (long long)v->len);
  else if (isnan(v->real[0])) snprintf(buf, size, v->type == SGP_VAL_LOGICAL ? "NA" : "NaN");
  else if (v->type == SGP_VAL_LOGICAL) snprintf(buf, size, "%s", v->real[0] ? "TRUE" : "FALSE");
  else if (isinf(v->real[0])) snprintf(buf, size, "%s", v->real[0] > 0 ? "Inf" : "-Inf");
  else snprintf(buf, size, "%.15g", v->real[0]);
}

static int bad(sgp_ctx *ctx, const sgp_opt_spec *s, const sgp_value *v, const char *what)
{
  char g[64];
  got(v, g, sizeof g);
  return sgp_fail(ctx, SGP_EINVAL, "'%s' must be %s (got %s)", s->name, what, g);
}

static void store_number(const sgp_opt_spec *s, void *opts, double x)
{
  char *p = (char *)opts + s->offset;
  switch (s->store) {
  case SGP_STORE_INT: *(int *)p = (int)x; break;
  case SGP_STORE_INT64: *(int64_t *)p = (int64_t)x; break;
  case SGP_STORE_DOUBLE: *(double *)p = x; break;
  case SGP_STORE_SIZE: *(size_t *)p = x >= 1e18 ? (size_t)1e18 : (size_t)x; break;
  }
}

static int is_one_number(const sgp_value *v)
{
  return v->type == SGP_VAL_REAL && v->len == 1 && !isnan(v->real[0]);
}

static int set_count(sgp_ctx *ctx, const sgp_opt_spec *s, void *opts, const sgp_value *v)
{
  char what[96];
  const int inf = (s->flags & SGP_OPT_INF_NONE) != 0;
  snprintf(what, sizeof what, "a whole number >= %.17g%s", s->lo, inf ? " or Inf" : "");
  if (!is_one_number(v)) return bad(ctx, s, v, what);
  const double x = v->real[0];
  if (inf && x == INFINITY) { store_number(s, opts, -1.0); return SGP_OK; }
  if (!isfinite(x) || x != floor(x) || x < s->lo) return bad(ctx, s, v, what);
  if (x > s->hi) {
    snprintf(what, sizeof what, "at most %.17g", s->hi);
    return bad(ctx, s, v, what);
  }
  store_number(s, opts, x);
  return SGP_OK;
}

static int set_real(sgp_ctx *ctx, const sgp_opt_spec *s, void *opts, const sgp_value *v)
{
  char what[96];
  const int inf = (s->flags & SGP_OPT_INF_NONE) != 0, open = (s->flags & SGP_OPT_LO_OPEN) != 0;
  const int hi_open = (s->flags & SGP_OPT_HI_OPEN) != 0;
  if (open && s->lo == 0 && isinf(s->hi) && !inf)
    snprintf(what, sizeof what, "positive and finite");
  else if (isinf(s->lo) && isinf(s->hi))
    snprintf(what, sizeof what, "a finite number");
  else if (isinf(s->hi))
    snprintf(what, sizeof what, "a number %s %.15g%s", open ? ">" : ">=", s->lo,
             inf ? " (Inf: none)" : " and finite");
  else
    snprintf(what, sizeof what, "a number in %s%.15g, %.15g%s", open ? "(" : "[", s->lo, s->hi,
             hi_open ? ")" : "]");
  if (!is_one_number(v)) return bad(ctx, s, v, what);
  const double x = v->real[0];
  if (inf && x == INFINITY) { store_number(s, opts, -1.0); return SGP_OK; }
  if (!isfinite(x) || x < s->lo || (open && x == s->lo) || x > s->hi || (hi_open && x == s->hi))
    return bad(ctx, s, v, what);
  store_number(s, opts, x);
  return SGP_OK;
}

/* "\"a\", \"b\"" (the offered choices: "" entries are left out) */
static void list_choices(const sgp_opt_spec *s, char *buf, size_t size)
{
  int k = 0;
  for (int i = 0; s->choices[i]; i++) {
    if (!s->choices[i][0]) continue;
    const size_t l = strlen(buf);
    snprintf(buf + l, size - l, "%s\"%s\"", k++ ? ", " : "", s->choices[i]);
  }
}

static int set_choice(sgp_ctx *ctx, const sgp_opt_spec *s, void *opts, const sgp_value *v)
{
  char what[256] = "one of ";
  list_choices(s, what, sizeof what);
  if (v->type != SGP_VAL_STRING || v->len != 1) return bad(ctx, s, v, what);
  for (int i = 0; s->choices[i]; i++) /* names in any case (Octave's habit) */
    if (s->choices[i][0] && !strcasecmp(v->str, s->choices[i])) {
      *(int *)((char *)opts + s->offset) = i;
      return SGP_OK;
    }
  return bad(ctx, s, v, what);
}

static int set_positives(sgp_ctx *ctx, const sgp_opt_spec *s, void *opts, const sgp_value *v)
{
  if (v->type != SGP_VAL_REAL || v->len < 1) return bad(ctx, s, v, "positive and finite numbers");
  for (int64_t i = 0; i < v->len; i++)
    if (!(v->real[i] > 0) || !isfinite(v->real[i])) {
      const sgp_value one = {SGP_VAL_REAL, 1, v->real + i, NULL, NULL, 0, 0, NULL};
      return bad(ctx, s, &one, "positive and finite");
    }
  *(const double **)((char *)opts + s->offset) = v->real;
  *(int64_t *)((char *)opts + s->count_offset) = v->len;
  return SGP_OK;
}

static int set_vector(sgp_ctx *ctx, const sgp_opt_spec *s, void *opts, const sgp_value *v)
{
  sgp_cmat *m = (sgp_cmat *)((char *)opts + s->offset);
  const double **p = (const double **)((char *)opts + s->offset);
  int64_t *count = (int64_t *)((char *)opts + s->count_offset);
  const int ptr = (s->flags & SGP_OPT_PTR) != 0;
  if (v->type == SGP_VAL_NULL) {
    if (ptr) { *p = NULL; *count = 0; }
    else *m = sgp_cmat_of(NULL, 0, 0);
    return SGP_OK;
  }
  if (v->type != SGP_VAL_REAL || v->len < 1) return bad(ctx, s, v, "numbers");
  for (int64_t i = 0; i < v->len; i++)
    if (!isfinite(v->real[i]))
      return sgp_fail(ctx, SGP_EINVAL, "'%s' contains NaN, NA or Inf (first at %lld)", s->name,
                      (long long)i + 1);
  if (ptr) { *p = v->real; *count = v->len; }
  else *m = sgp_cmat_of(v->real, v->len, 1);
  return SGP_OK;
}

/* COUNTS: 1 to SGP_OPT_MAX_COUNTS whole numbers in [lo, hi], copied */
static int set_counts(sgp_ctx *ctx, const sgp_opt_spec *s, void *opts, const sgp_value *v)
{
  char what[128];
  snprintf(what, sizeof what, "1 to %d whole numbers >= %.17g", SGP_OPT_MAX_COUNTS, s->lo);
  if (v->type != SGP_VAL_REAL || v->len < 1 || v->len > SGP_OPT_MAX_COUNTS)
    return bad(ctx, s, v, what);
  for (int64_t i = 0; i < v->len; i++) {
    const double x = v->real[i];
    const sgp_value one = {SGP_VAL_REAL, 1, v->real + i, NULL, NULL, 0, 0, NULL};
    if (isnan(x) || !isfinite(x) || x != floor(x) || x < s->lo) return bad(ctx, s, &one, what);
    if (x > s->hi) {
      snprintf(what, sizeof what, "at most %.17g", s->hi);
      return bad(ctx, s, &one, what);
    }
  }
  int64_t *a = (int64_t *)((char *)opts + s->offset);
  for (int64_t i = 0; i < v->len; i++) a[i] = (int64_t)v->real[i];
  *(int64_t *)((char *)opts + s->count_offset) = v->len;
  return SGP_OK;
}

/* Strings out of the choices, each at most once in effect (repeats allowed);
 * nothing (NULL, Octave [] or {}) is the empty set. */
static int set_subset(sgp_ctx *ctx, const sgp_opt_spec *s, void *opts, const sgp_value *v)
{
  char all[256] = "";
  list_choices(s, all, sizeof all);
  unsigned bits = 0;
  if (v->type != SGP_VAL_NULL) {
    char what[300];
    snprintf(what, sizeof what, "strings out of %s", all);
    if (v->type != SGP_VAL_STRING) return bad(ctx, s, v, what);
    char unknown[200] = "";
    int n_unknown = 0;
    for (int64_t j = 0; j < v->len; j++) {
      const char *e = v->strs ? v->strs[j] : v->str;
      int i = 0;
      while (s->choices[i] && strcmp(e, s->choices[i])) i++;
      if (s->choices[i]) { bits |= 1u << i; continue; }
      int seen = 0; /* each unknown entry named once */
      for (int64_t k = 0; k < j && !seen; k++) seen = !strcmp(e, v->strs[k]);
      const size_t l = strlen(unknown);
      if (!seen)
        snprintf(unknown + l, sizeof unknown - l, "%s\"%s\"", n_unknown++ ? ", " : "", e);
    }
    if (n_unknown)
      return sgp_fail(ctx, SGP_EINVAL, "'%s' has unknown entries %s; use any of %s", s->name,
                      unknown, all);
  }
  *(unsigned *)((char *)opts + s->offset) = bits;
  return SGP_OK;
}

static const char *const *choices_of(const char *verb, const char *option, int *n)
{
  const sgp_verb_table *t = sgp_verb_options(verb);
  const sgp_opt_spec *s = t ? sgp_opt_find(t, option) : NULL;
  *n = 0;
  if (!s || !s->choices) return NULL;
  while (s->choices[*n]) (*n)++;
  return s->choices;
}

const char *sgp_opt_choice_name(const char *verb, const char *option, int index)
{
  int n;
  const char *const *c = choices_of(verb, option, &n);
  return c && index >= 0 && index < n ? c[index] : "";
}

int sgp_opt_choice_index(const char *verb, const char *option, const char *name)
{
  int n;
  const char *const *c = choices_of(verb, option, &n);
  for (int i = 0; name && i < n; i++)
    if (c[i][0] && !strcmp(name, c[i])) return i;
  return -1;
}

int sgp_opts_set(sgp_ctx *ctx, const sgp_verb_table *t, void *opts, const char *name,
                 const sgp_value *v)
{
  const sgp_opt_spec *s = sgp_opt_find(t, name);
  if (!s) {
    char list[1024] = "";
    const sgp_verb_table *c = sgp_verb_options("context");
    const int nc = t->no_context ? 0 : c->n;
    for (int i = 0; i < t->n + nc; i++) {
      const size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "",
               i < t->n ? t->opts[i].name : c->opts[i - t->n].name);
    }
    for (int i = 0; i < t->n + nc; i++) {
      const char *known = i < t->n ? t->opts[i].name : c->opts[i - t->n].name;
      if (!strcasecmp(name, known))
        return sgp_fail(ctx, SGP_EINVAL, "unknown option '%s'; option names are lower case: "
                        "'%s'", name, known);
    }
    return sgp_fail(ctx, SGP_EINVAL, "unknown option '%s'; valid options are %s", name, list);
  }
  if (v->type == SGP_VAL_NULL && (s->flags & SGP_OPT_NULL_OK) && s->kind != SGP_OPT_VECTOR &&
      s->kind != SGP_OPT_SUBSET)
    return SGP_OK;
  switch (s->kind) {
  case SGP_OPT_FLAG: /* a logical, or the number 0 or 1 (Octave's habit) */
    if ((v->type != SGP_VAL_LOGICAL && v->type != SGP_VAL_REAL) || v->len != 1 ||
        isnan(v->real[0]) || (v->type == SGP_VAL_REAL && v->real[0] != 0 && v->real[0] != 1))
      return bad(ctx, s, v, "true or false");
    *(int *)((char *)opts + s->offset) = v->real[0] != 0;
    return SGP_OK;
  case SGP_OPT_COUNT: return set_count(ctx, s, opts, v);
  case SGP_OPT_REAL: return set_real(ctx, s, opts, v);
  case SGP_OPT_CHOICE: return set_choice(ctx, s, opts, v);
  case SGP_OPT_POSITIVES: return set_positives(ctx, s, opts, v);
  case SGP_OPT_VECTOR: return set_vector(ctx, s, opts, v);
  case SGP_OPT_SUBSET: return set_subset(ctx, s, opts, v);
  case SGP_OPT_COUNTS: return set_counts(ctx, s, opts, v);
  }
  return sgp_fail(ctx, SGP_EINVAL, "'%s': unknown kind", name);
}

/* ------------------------------------------------------------ context options */

typedef struct { int backend; int64_t seed; double threads; int verbose; } ctx_opts;

static const char *const backend_names[] = {"auto", "cpu", "cuda", NULL};

static const sgp_opt_spec ctx_specs[] = {
  {"backend", SGP_OPT_CHOICE, "\"auto\"", 0, 0, 0, backend_names, offsetof(ctx_opts, backend),
   SGP_STORE_INT, 0, "compute backend: \"auto\", \"cpu\" or \"cuda\""},
  {"seed", SGP_OPT_COUNT, "NULL", 0, 9007199254740992.0, 0, NULL, offsetof(ctx_opts, seed),
   SGP_STORE_INT64, 0, "whole number for reproducible random choices"},
  {"verbose", SGP_OPT_FLAG, "FALSE", 0, 0, 0, NULL, offsetof(ctx_opts, verbose), SGP_STORE_INT, 0,
   "print progress"},
  {"threads", SGP_OPT_COUNT, "0", 0, SGP_MAX_THREADS, SGP_OPT_NULL_OK, NULL,
   offsetof(ctx_opts, threads), SGP_STORE_DOUBLE, 0, "OpenMP threads (0: the OpenMP default)"},
};
const sgp_verb_table sgp_context_table = {"context", ctx_specs, 4, 0};

static int set_threads(sgp_ctx *ctx, const sgp_value *v);

int sgp_ctx_opt_set(sgp_ctx *ctx, const char *name, const sgp_value *v, int *verbose)
{
  if (!strcmp(name, "threads")) return set_threads(ctx, v);
  ctx_opts c = {(int)ctx->backend, (int64_t)ctx->seed, 0.0, verbose ? *verbose : 0};
  int st = sgp_opts_set(ctx, &sgp_context_table, &c, name, v);
  if (st) return st;
  if (!strcmp(name, "backend")) {
    ctx->backend = (sgp_backend)c.backend;
    if (ctx->backend == SGP_BACKEND_CUDA && !sgp_backend_available(SGP_BACKEND_CUDA)) {
      const char *why = sgp_cuda_unavailable(); /* NULL: loaded, no device */
      return sgp_fail(ctx, SGP_EUNSUPPORTED, "'backend' \"cuda\" is not available (%s); use \"cpu\"",
                      why ? why : "no CUDA device");
    }
  }
  else if (!strcmp(name, "seed")) sgp_ctx_set_seed(ctx, (uint64_t)c.seed);
  else if (!strcmp(name, "verbose") && verbose) *verbose = c.verbose;
  else if (!strcmp(name, "threads") && v->type != SGP_VAL_NULL)
    return sgp_ctx_set_threads(ctx, c.threads);
  return SGP_OK;
}

/* threads: the context's own rule and message (sgp_ctx_set_threads) */
static int set_threads(sgp_ctx *ctx, const sgp_value *v)
{
  if (v->type == SGP_VAL_NULL) return SGP_OK;
  if (v->type != SGP_VAL_REAL && v->type != SGP_VAL_LOGICAL) {
    const sgp_opt_spec s = {"threads", SGP_OPT_COUNT, "0", 0, 0, 0, NULL, 0, 0, 0, ""};
    return bad(ctx, &s, v, "one whole number (0: the OpenMP default)");
  }
  if (v->len != 1)
    return sgp_fail(ctx, SGP_EINVAL, "'threads' must be one whole number (got %lld values)",
                    (long long)v->len);
  return sgp_ctx_set_threads(ctx, v->real[0]);
  return SGP_OK;
}

/* ------------------------------------------------------------ messages */

void sgp_user_message(const char *fn, const sgp_ctx *ctx, int status, char *buf, size_t size)
{
  const char *m = ctx->errmsg[0] ? ctx->errmsg : sgp_strerror(status);
  if (status == SGP_EINTERRUPT) { snprintf(buf, size, "%s: interrupted", fn); return; }
  size_t k = 0; /* "arg: rest" with arg an identifier (dots allowed: fit.weights) */
  while (m[k] == '_' || m[k] == '.' || (m[k] >= 'a' && m[k] <= 'z') ||
         (m[k] >= 'A' && m[k] <= 'Z') || (k > 0 && m[k] >= '0' && m[k] <= '9'))
    k++;
  if (k > 0 && m[k] == ':' && m[k + 1] == ' ')
    snprintf(buf, size, "%s: '%.*s' %s", fn, (int)k, m, m + k + 2);
  else
    snprintf(buf, size, "%s: %s", fn, m);
}

int sgp_opts_apply(sgp_ctx *ctx, const sgp_verb_table *t, void *opts, int64_t n,
                   const char *const *names, const sgp_value *values)
{
  for (int64_t i = 0; i < n; i++) {
    for (int64_t j = 0; j < i; j++)
      if (!strcmp(names[i], names[j]))
        return sgp_fail(ctx, SGP_EINVAL, "'%s' is given twice", names[i]);
    int st, verbose = ctx->verbose;
    if (sgp_ctx_opt_find(t, names[i])) {
      st = sgp_ctx_opt_set(ctx, names[i], &values[i], &verbose);
      ctx->verbose = verbose;
    } else {
      st = sgp_opts_set(ctx, t, opts, names[i], &values[i]);
    }
    if (st) return st;
  }
  return SGP_OK;
}
