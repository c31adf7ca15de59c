/* r_ski.c -- .Call entry points of ski_gsgp: the grid, the plain-data
 * sufficient statistics of a chunk, the fit from statistics, predictions.
 * ski_gsgp's options go by name to the core's table (sgp_options.h), which
 * checks them; R checks the structure of the lists it passes (stats, fits). */
#include "r_shim.h"
#include "ski/ski.h" /* sgp_ski_outside */

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static double real_elt(SEXP list, const char *name)
{
  SEXP v = sgp_r_list_elt(list, name);
  if (Rf_isNull(v)) Rf_error("internal: '%s' missing", name);
  return Rf_asReal(v);
}

/* Grid from size (d integers) and bounds (d-by-2); both ends are grid points.
 * interp: that of the statistics on it (the core checks that they fit). */
static int r_grid(sgp_ctx *ctx, SEXP size, SEXP bounds, sgp_ski_interpolation interp,
                  sgp_ski_grid *g)
{
  sgp_ski_opts o;
  const int d = Rf_length(size);
  if (d < 1 || d > SGP_SKI_MAX_D || TYPEOF(bounds) != REALSXP || XLENGTH(bounds) != 2 * d)
    Rf_error("internal: bad grid");
  sgp_ski_opts_default(&o);
  o.interpolation = interp;
  for (int j = 0; j < d; j++)
    o.grid_size[j] = TYPEOF(size) == INTSXP ? INTEGER(size)[j] : (int64_t)REAL(size)[j];
  o.grid_bounds = REAL(bounds);
  const sgp_cmat range = sgp_cmat_of(REAL(bounds), d, 2); /* only its row count is used */
  return sgp_ski_grid_from_range(ctx, range, 0, &o, g);
}

static sgp_ski_interpolation r_interp(SEXP name)
{
  return strcmp(CHAR(STRING_ELT(name, 0)), "linear") ? SGP_SKI_CUBIC : SGP_SKI_LINEAR;
}

/* Views of an R ski_stats list, read and checked by the core (errors name arg). */
static int r_stats(sgp_ctx *ctx, SEXP s, const char *arg, sgp_ski_stats_data *d)
{
  const sgp_value v = sgp_r_value(s);
  return sgp_ski_stats_check(ctx, &v, arg, "$", d);
}

/* backend (opts$backend: "auto", "cpu", "cuda") goes to the context like
 * gp_laplace's; "cuda" must be available here. */
static void r_backend(SEXP opts, sgp_ctx *ctx, const char *fn)
{
  SEXP b = sgp_r_list_elt(opts, "backend");
  if (Rf_isNull(b)) return;
  const int st = sgp_r_backend(ctx, b);
  if (st) sgp_r_fail(fn, ctx, st);
}

static void r_opts(SEXP opts, sgp_ski_opts *o, sgp_ctx *ctx, const char *fn)
{
  r_backend(opts, ctx, fn);
  sgp_ski_opts_default(o);
  int st = sgp_r_kernel(ctx, sgp_r_list_elt(opts, "kernel"), sgp_r_list_elt(opts, "lengthscale"),
                        sgp_r_list_elt(opts, "outputscale"), &o->kernel);
  if (st) sgp_r_fail(fn, ctx, st);
  o->noise = real_elt(opts, "noise");
  SEXP mu = sgp_r_list_elt(opts, "mean"); /* the fit's prior mean; none before it had one */
  o->mean = Rf_isNull(mu) ? 0.0 : Rf_asReal(mu);
  o->method = (sgp_ski_method)(int)real_elt(opts, "method");
  o->tol = real_elt(opts, "tol");
  o->max_iter = (int64_t)real_elt(opts, "max_iter");
  o->variance = (sgp_ski_variance)(int)real_elt(opts, "variance");
  o->rank = (int64_t)real_elt(opts, "rank");
  o->loglik = Rf_asLogical(sgp_r_list_elt(opts, "loglik")) == TRUE;
  o->slq_max_iter = (int64_t)real_elt(opts, "slq_max_iter");
  SEXP pr = sgp_r_list_elt(opts, "precond_rank"); /* fits only; predict has none */
  o->precond_rank = Rf_isNull(pr) ? 0 : (int64_t)Rf_asReal(pr);
  o->bounds_policy = (sgp_ski_bounds_policy)(int)real_elt(opts, "bounds_policy");
}

/* The grid's sizes are R's integers (the automatic size is capped). */
static void grid_fits_r(const sgp_ski_grid *g, const char *fn)
{
  for (int j = 0; j < g->d; j++)
    if (g->m[j] > INT_MAX)
      Rf_error("%s: 'grid_size' %lld is beyond R's integers", fn, (long long)g->m[j]);
}

typedef struct {
  const sgp_ski_grid *g;
  sgp_ski_interpolation interp;
  const double *user_bounds;
  const sgp_ski_stats_data *d;
} plain_args;

static sgp_value grid_plain(const void *p, sgp_value_arena *a)
{
  const plain_args *q = (const plain_args *)p;
  return sgp_ski_grid_plain(q->g, q->interp, q->user_bounds, a);
}

static sgp_value stats_plain(const void *p, sgp_value_arena *a)
{
  const plain_args *q = (const plain_args *)p;
  return sgp_ski_stats_plain(q->d, q->user_bounds, a);
}

/* A grid as R's list(size, bounds, interpolation), as the core writes it
 * (sgp_ski_grid_plain: bounds given by the user are kept exactly). */
static SEXP grid_list(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                      const double *user_bounds, const char *fn)
{
  grid_fits_r(g, fn);
  const plain_args q = {g, interp, user_bounds, NULL};
  return sgp_r_build(grid_plain, &q);
}

/* ski_grid(): options by name to the core's table "ski_grid"; the grid of x
 * (or of range, or of grid_bounds with grid_size). */
SEXP sgp_ski_grid_r(SEXP x, SEXP range, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_grid_opts o;
  sgp_ski_grid g;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_ski_grid_opts_default(&o);
  int st = sgp_r_apply_options(&ctx, "ski_grid", opts, &o);
  const sgp_cmat none = {0};
  if (!st) st = sgp_ski_grid_make(&ctx, &o, Rf_isNull(x) ? none : sgp_r_cmat(x),
                                  Rf_isNull(range) ? none : sgp_r_cmat(range), &g);
  if (st) sgp_r_fail("ski_grid", &ctx, st);
  return grid_list(&g, o.ski.interpolation, o.ski.grid_bounds, "ski_grid");
}

/* Statistics that R's integers can index (or an R error naming fn). */
static void stats_fit_r(const sgp_ski_stats_data *d, const char *fn)
{
  if ((double)d->m * (double)d->S > 2147483647.0 || (double)d->m * (double)d->probes > 2147483647.0)
    Rf_error("%s: 'grid' is too large for R (%lld x %lld stencil)", fn, (long long)d->m,
             (long long)d->S);
  grid_fits_r(&d->grid, fn);
}

/* ski_stats' statistics as an R list, as the core writes them (sgp_ski_stats_plain). */
static SEXP stats_list(const sgp_ski_stats_data *d, const sgp_ski_opts *o, const char *fn)
{
  stats_fit_r(d, fn);
  const plain_args q = {NULL, d->interpolation, o->grid_bounds, d};
  return sgp_r_build(stats_plain, &q);
}

static void stats_finalizer(SEXP p)
{
  sgp_ski_stats_free((sgp_ski_stats *)R_ExternalPtrAddr(p));
  R_ClearExternalPtr(p);
}

/* A grid given as plain data (a ski_grid, ski_stats or ski_gsgp list, or a list
 * of size, bounds, interpolation), read and checked by the core (sgp_ski_grid_read:
 * errors name arg, "'object$grid$size' ..."), as the core writes a grid. */
SEXP sgp_ski_grid_check_r(SEXP grid, SEXP fn_, SEXP arg)
{
  const char *fn = CHAR(STRING_ELT(fn_, 0));
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_grid_data gd;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  const sgp_value v = sgp_r_value(grid);
  const int code = sgp_ski_grid_read(&ctx, &v, CHAR(STRING_ELT(arg, 0)), "$", &gd);
  if (code) sgp_r_fail(fn, &ctx, code);
  return grid_list(&gd.grid, gd.interpolation, gd.bounds, fn);
}

/* ski_stats' options and grid (as the user gave it: the core reads and checks
 * it, sgp_ski_grid_read) into o and gd; R errors name ski_stats. */
static void stats_setup(sgp_ctx *ctx, SEXP grid, SEXP opts, sgp_ski_stats_opts *o,
                        sgp_ski_grid_data *gd)
{
  int64_t m = 0, S = 0;
  memset(gd, 0, sizeof *gd);
  sgp_ski_stats_opts_default(o);
  int code = sgp_r_apply_options(ctx, "ski_stats", opts, o);
  const sgp_value gv = sgp_r_value(grid);
  if (!code) code = sgp_ski_grid_read(ctx, &gv, "grid", "$", gd);
  o->ski.interpolation = gd->interpolation;
  o->ski.grid_bounds = gd->bounds; /* kept exactly in the result's grid */
  if (!code) code = sgp_ski_stats_shape(ctx, &gd->grid, o->ski.interpolation, &m, &S);
  if (code) sgp_r_fail("ski_stats", ctx, code);
  if ((double)m * (double)S > 2147483647.0 || (double)m * (double)o->ski.probes > 2147483647.0)
    Rf_error("ski_stats: 'grid' is too large for R (%lld x %lld stencil)", (long long)m,
             (long long)S);
}

/* ski_stats(): options by name to the core's table "ski_stats"; the
 * statistics of one chunk on `grid` as an R list. */
SEXP sgp_ski_stats_r(SEXP x, SEXP y, SEXP grid, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_stats_opts o;
  sgp_ski_grid_data gd;
  sgp_ski_stats *st = NULL;
  sgp_ski_stats_data d;
  double rhoz = 0.0;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  stats_setup(&ctx, grid, opts, &o, &gd);
  const int64_t np = o.ski.probes, m = sgp_ski_grid_npoints(&gd.grid);
  SEXP Wtz = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)(m * np)));
  SEXP holder = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizer(holder, stats_finalizer);
  int code = sgp_ski_stats_compute(&ctx, &gd.grid, &o.ski, sgp_r_cmat(x), sgp_r_cmat(y),
                                   o.first_row, &st, np > 0 ? REAL(Wtz) : NULL, &rhoz);
  R_SetExternalPtrAddr(holder, st);
  if (!code) code = sgp_ski_stats_export(&ctx, st, &d);
  if (code) sgp_r_fail("ski_stats", &ctx, code);
  d.probes = np;
  d.probe_seed = o.ski.seed;
  d.rhoz = rhoz;
  d.uz = REAL(Wtz);
  SEXP out = stats_list(&d, &o.ski, "ski_stats");
  stats_finalizer(holder);
  UNPROTECT(2);
  return out;
}

/* The running accumulator of chunk sources (sgp_ski_stats_acc) behind an
 * external pointer, with the threads of its options. */
typedef struct {
  sgp_ski_stats_acc *acc;
  int nthreads;
} acc_hold;

static void acc_finalizer(SEXP p)
{
  acc_hold *h = (acc_hold *)R_ExternalPtrAddr(p);
  if (h) {
    sgp_ski_stats_acc_free(h->acc);
    free(h);
  }
  R_ClearExternalPtr(p);
}

static acc_hold *acc_of(SEXP p)
{
  acc_hold *h = TYPEOF(p) == EXTPTRSXP ? (acc_hold *)R_ExternalPtrAddr(p) : NULL;
  if (!h) Rf_error("ski_stats: the accumulator is gone (saved and loaded, or freed)");
  return h;
}

/* A new accumulator for ski_stats' grid and options (the errors of ski_stats). */
SEXP sgp_ski_acc_new_r(SEXP grid, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_stats_opts o;
  sgp_ski_grid_data gd;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  stats_setup(&ctx, grid, opts, &o, &gd);
  SEXP p = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizer(p, acc_finalizer);
  acc_hold *h = (acc_hold *)calloc(1, sizeof *h);
  if (!h) Rf_error("ski_stats: out of memory");
  R_SetExternalPtrAddr(p, h);
  h->nthreads = ctx.nthreads;
  const int code = sgp_ski_stats_acc_create(&ctx, &gd.grid, &o.ski, &h->acc);
  if (code) sgp_r_fail("ski_stats", &ctx, code);
  UNPROTECT(1);
  return p;
}

/* Adds the rows of x, y (checked by R) keyed from first_row; the points
 * accumulated so far. */
SEXP sgp_ski_acc_add_r(SEXP p, SEXP x, SEXP y, SEXP first_row)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  acc_hold *h = acc_of(p);
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  ctx.nthreads = h->nthreads;
  int64_t n = 0;
  const int code = sgp_ski_stats_acc_add(&ctx, h->acc, sgp_r_cmat(x), sgp_r_cmat(y),
                                         (int64_t)Rf_asReal(first_row), &n);
  if (code) sgp_r_fail("ski_stats", &ctx, code);
  return Rf_ScalarReal((double)n);
}

/* The accumulated statistics as ski_stats' list (grid and options as given to
 * sgp_ski_acc_new_r: the grid's bounds kept exactly); the accumulator is freed
 * then (its memory is the C heap's, which R's collector does not see). grid
 * NULL: only freed. */
SEXP sgp_ski_acc_stats_r(SEXP p, SEXP grid, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_stats_opts o;
  sgp_ski_grid_data gd;
  sgp_ski_stats_data d;
  if (Rf_isNull(grid)) {
    if (TYPEOF(p) == EXTPTRSXP) acc_finalizer(p);
    return R_NilValue;
  }
  acc_hold *h = acc_of(p);
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  stats_setup(&ctx, grid, opts, &o, &gd);
  ctx.nthreads = h->nthreads;
  const int code = sgp_ski_stats_acc_export(&ctx, h->acc, &d);
  if (code) sgp_r_fail("ski_stats", &ctx, code);
  SEXP out = PROTECT(stats_list(&d, &o.ski, "ski_stats"));
  acc_finalizer(p);
  UNPROTECT(1);
  return out;
}

/* The input of a fit and its model selection, owned by an external pointer while
 * R objects are allocated (an R error lets the finalizer free them). */
typedef struct {
  sgp_ski_gsgp_input in;
  sgp_ski_selection sel;
} fit_hold;

static void input_finalizer(SEXP p)
{
  fit_hold *fh = (fit_hold *)R_ExternalPtrAddr(p);
  if (fh) {
    sgp_ski_gsgp_input_free(&fh->in);
    sgp_ski_selection_free(&fh->sel);
    free(fh);
  }
  R_ClearExternalPtr(p);
}

typedef struct {
  const sgp_ctx *ctx;
  const sgp_ski_fit_parts *parts;
} fit_args;

static sgp_value fit_plain(const void *p, sgp_value_arena *a)
{
  const fit_args *q = (const fit_args *)p;
  return sgp_ski_fit_plain(q->ctx, q->parts, a);
}

/* ski_gsgp(): options by name to the core's table; the statistics of x, y (or
 * the given stats list) and the fit. Returns the fit's arrays, `stats` (NULL
 * when given), `used` (the options used, the warnings) and the seconds. */
SEXP sgp_ski_gsgp_r(SEXP x, SEXP y, SEXP stats, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_opts o;
  sgp_ski_stats_data given;
  sgp_ski_result res;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_ski_opts_default(&o);
  int code = sgp_r_apply_options(&ctx, "ski_gsgp", opts, &o);
  if (code) sgp_r_fail("ski_gsgp", &ctx, code);
  o.seed = ctx.seed; /* the probes' seed is the context's */
  if (!Rf_isNull(stats) && (code = r_stats(&ctx, stats, "stats", &given))) sgp_r_fail("ski_gsgp", &ctx, code);
  SEXP holder = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizer(holder, input_finalizer);
  fit_hold *fh = (fit_hold *)calloc(1, sizeof *fh);
  if (!fh) Rf_error("ski_gsgp: out of memory");
  R_SetExternalPtrAddr(holder, fh);
  sgp_ski_gsgp_input *in = &fh->in;
  sgp_ski_opts ro;
  const sgp_cmat none = {0}, X = Rf_isNull(x) ? none : sgp_r_cmat(x),
                 Y = Rf_isNull(y) ? none : sgp_r_cmat(y);
  const double t0 = sgp_r_seconds();
  code = sgp_ski_gsgp_prepare(&ctx, &o, !Rf_isNull(sgp_r_list_elt(opts, "interpolation")), X, Y,
                              Rf_isNull(stats) ? NULL : &given, in);
  if (code) sgp_r_fail("ski_gsgp", &ctx, code);
  const double t1 = sgp_r_seconds();
  const int64_t m = in->stats.m;
  const int64_t kmax = o.variance == SGP_SKI_VARIANCE_LANCZOS ? sgp_ski_love_rank_max(&o, m) : 0;
  if ((double)kmax * (double)m > 2147483647.0)
    Rf_error("ski_gsgp: 'rank' is too large for R (rank x grid points)");
  SEXP weights = PROTECT(Rf_allocVector(REALSXP, m));
  SEXP hist = PROTECT(Rf_allocVector(REALSXP, o.max_iter + 1));
  SEXP Ft = PROTECT(Rf_allocVector(REALSXP, kmax * m));
  SEXP c0 = PROTECT(Rf_allocVector(REALSXP, kmax > 0 ? m : 0));
  memset(&res, 0, sizeof res);
  res.weights = REAL(weights);
  res.history = REAL(hist);
  res.love_Ft = kmax > 0 ? REAL(Ft) : NULL;
  res.love_c0 = kmax > 0 ? REAL(c0) : NULL;
  code = sgp_ski_fit_learn(&ctx, &in->stats, &o, X, o.method == SGP_SKI_METHOD_SKI ? Y : none,
                           &ro, &fh->sel, &res);
  if (code) sgp_r_fail("ski_gsgp", &ctx, code);
  const double t2 = sgp_r_seconds();
  if (in->computed) stats_fit_r(&in->stats, "ski_gsgp");
  /* the fit's fields as the core writes them (sgp_ski_fit_plain) */
  const sgp_ski_fit_parts parts = {&res, &ro, &fh->sel, in->computed ? &in->stats : NULL,
                                   o.grid_bounds, m, kmax > 0 ? m : 0, {t1 - t0, t2 - t1}};
  const fit_args q = {&ctx, &parts};
  SEXP out = PROTECT(sgp_r_build(fit_plain, &q));
  input_finalizer(holder);
  UNPROTECT(6);
  return out;
}

/* The core names the test inputs `xtest`; the R caller may call them otherwise
 * (predict's `newdata`): rename the prefix of the message. */
static void rename_xtest(sgp_ctx *ctx, const char *arg)
{
  if (strncmp(ctx->errmsg, "xtest:", 6) != 0 || strcmp(arg, "xtest") == 0) return;
  char buf[sizeof ctx->errmsg];
  snprintf(buf, sizeof buf, "%s:%s", arg, ctx->errmsg + 6);
  memcpy(ctx->errmsg, buf, sizeof buf);
}

/* predict() (and the check of print, summary, plot): the core checks the fit
 * `object` (plain data, named `arg` in errors of function `fn`) and the options
 * (variance, backend, threads), then predicts at xtest (named xarg): list(mean,
 * var, warning). xtest NULL: the check only (returns NULL). */
typedef struct {
  sgp_ctx *ctx;
  const sgp_ski_fit_view *v;
  const sgp_ski_predict_opts *o;
  sgp_cmat X;
  const char *fn;
} predict_args;

static int predict_plain(const void *p, sgp_value_arena *a, sgp_value *out)
{
  const predict_args *q = (const predict_args *)p;
  return sgp_ski_predict_plain(q->ctx, q->v, q->o, q->X, q->fn, a, out);
}

SEXP sgp_ski_predict_r(SEXP object, SEXP fn_, SEXP arg_, SEXP xtest, SEXP opts, SEXP xarg_)
{
  const char *fn = CHAR(STRING_ELT(fn_, 0)), *xarg = CHAR(STRING_ELT(xarg_, 0));
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_fit_view v;
  sgp_ski_predict_opts o;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  const sgp_value fit = sgp_r_value(object);
  int code = sgp_ski_fit_check(&ctx, &fit, CHAR(STRING_ELT(arg_, 0)), "$", &v);
  if (!code && !Rf_isNull(xtest)) code = sgp_ski_predict_opts_default(&ctx, &v, &o);
  if (!code && !Rf_isNull(xtest)) code = sgp_r_apply_options(&ctx, "ski_gsgp_predict", opts, &o);
  if (code) sgp_r_fail(fn, &ctx, code);
  if (Rf_isNull(xtest)) return R_NilValue;
  const predict_args q = {&ctx, &v, &o, sgp_r_cmat(xtest), fn};
  SEXP out = PROTECT(sgp_r_build_status(predict_plain, &q, &code));
  if (code) {
    rename_xtest(&ctx, xarg);
    sgp_r_fail(fn, &ctx, code);
  }
  UNPROTECT(1);
  return out;
}

/* ski_check_stats(): c(m, S), the grid points and stencil offsets of
 * statistics on a grid (the core's sizes, so the fronts compute none). */
SEXP sgp_ski_shape_r(SEXP size, SEXP bounds, SEXP interpolation, SEXP fn)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_grid g;
  int64_t m = 0, S = 0;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  const sgp_ski_interpolation interp = r_interp(interpolation);
  int code = r_grid(&ctx, size, bounds, interp, &g);
  if (!code) code = sgp_ski_stats_shape(&ctx, &g, interp, &m, &S);
  if (code) sgp_r_fail(CHAR(STRING_ELT(fn, 0)), &ctx, code);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, 2));
  REAL(out)[0] = (double)m;
  REAL(out)[1] = (double)S;
  UNPROTECT(1);
  return out;
}

typedef struct {
  sgp_ctx *ctx;
  int64_t k;
  const sgp_ski_stats_data *in;
  const char *const *label;
  const sgp_value *first;
} merge_args;

static int merge_plain(const void *p, sgp_value_arena *a, sgp_value *out)
{
  const merge_args *c = (const merge_args *)p;
  return sgp_ski_stats_merge_plain(c->ctx, c->k, c->in, c->label, c->first, a, out);
}

/* ski_stats_merge(): the sum of a list of ski_stats lists, each read and checked
 * by the core; labels: the user's names of the arguments, named in the core's
 * errors. Returns the merged statistics (sgp_ski_stats_merge_plain); merge FALSE:
 * only the checks. */
SEXP sgp_ski_stats_merge_r(SEXP stats, SEXP labels, SEXP fn_, SEXP merge)
{
  const char *fn = CHAR(STRING_ELT(fn_, 0));
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  const R_xlen_t k = XLENGTH(stats);
  if (k < 1 || XLENGTH(labels) != k) Rf_error("internal: bad merge arguments");
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_ski_stats_data *in = (sgp_ski_stats_data *)R_alloc((size_t)k, sizeof *in);
  const char **label = (const char **)R_alloc((size_t)k, sizeof *label);
  const sgp_value first = sgp_r_value(VECTOR_ELT(stats, 0));
  for (R_xlen_t i = 0; i < k; i++) {
    label[i] = CHAR(STRING_ELT(labels, i));
    const int code = r_stats(&ctx, VECTOR_ELT(stats, i), label[i], &in[i]);
    if (code) sgp_r_fail(fn, &ctx, code);
  }
  if (!Rf_asLogical(merge)) return R_NilValue; /* the check of ski_check_stats only */
  const merge_args c = {&ctx, (int64_t)k, in, label, &first};
  int code;
  SEXP out = PROTECT(sgp_r_build_status(merge_plain, &c, &code));
  if (code) sgp_r_fail(fn, &ctx, code);
  UNPROTECT(1);
  return out;
}

/* Rows of x (n-by-d, checked by R) outside the grid, by the core's one
 * definition (sgp_ski_outside): their 1-based indices, e.g. the rows that
 * bounds_policy = "drop" leaves out of a chunk's statistics. */
SEXP sgp_ski_outside_r(SEXP x, SEXP size, SEXP bounds, SEXP interpolation)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_ski_grid g;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  const sgp_ski_interpolation interp = r_interp(interpolation);
  const int code = r_grid(&ctx, size, bounds, interp, &g);
  if (code) sgp_r_fail("ski_stats", &ctx, code);
  const sgp_cmat X = sgp_r_cmat(x);
  if (X.cols != g.d) Rf_error("internal: x does not match the grid");
  int64_t k = 0;
  for (int64_t i = 0; i < X.rows; i++) k += sgp_ski_outside(&g, interp, X.data + i, X.ld) != 0;
  SEXP out = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)k));
  k = 0;
  for (int64_t i = 0; i < X.rows; i++)
    if (sgp_ski_outside(&g, interp, X.data + i, X.ld)) REAL(out)[k++] = (double)(i + 1);
  UNPROTECT(1);
  return out;
}
