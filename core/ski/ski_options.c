/* ski_options.c -- ski_gsgp's options (names, kinds, defaults, ranges, docs;
 * sgp_options.h), the checks of the options against each other and the data,
 * the statistics a fit reads, and the words of its warnings: defined once, for
 * both hosts. The defaults here are what sgp_ski_opts_default stores; a test
 * checks that the two agree. */
#include "ski/ski.h"
#include "api/sgp_options.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFF(field) offsetof(sgp_ski_opts, field)
#define INTMAX 2147483647.0

static const char *const interpolation_names[] = {"cubic", "linear", NULL};
static const char *const method_names[] = {"gsgp", "ski", NULL};
static const char *const variance_names[] = {"none", "lanczos", "exact", NULL};
static const char *const loglik_method_names[] = {"auto", "exact", "slq", "eigen", NULL};
static const char *const bounds_names[] = {"error", "truncate", "clamp", "drop", NULL};
/* bit i of sgp_ski_opts.learn (SGP_SKI_LEARN_*) */
static const char *const learn_names[] = {"lengthscale", "outputscale", "noise", "mean", "auto",
                                          NULL};

static const sgp_opt_spec specs[] = {
  {"grid_size", SGP_OPT_COUNTS, "NULL", 1, INTMAX, SGP_OPT_NULL_OK, NULL, OFF(grid_size),
   SGP_STORE_INT64, OFF(n_grid_size),
   "grid points per dimension, one value or d (NULL: from the lengthscale and the data range)"},
  {"grid_bounds", SGP_OPT_VECTOR, "NULL", 0, 0, SGP_OPT_PTR, NULL, OFF(grid_bounds),
   SGP_STORE_DOUBLE, OFF(n_grid_bounds),
   "d-by-2 matrix of grid bounds, both grid points (NULL: the data range plus grid_pad cells)"},
  {"grid_pad", SGP_OPT_COUNT, "NULL", 0, INTMAX, SGP_OPT_NULL_OK, NULL, OFF(grid_pad),
   SGP_STORE_INT, 0, "cells of padding of the default bounds (NULL: 2 cubic, 1 linear)"},
  SGP_KERNEL_OPTION_ROWS_AS(sgp_ski_opts, kernel, "NULL", "NULL", SGP_OPT_NULL_OK,
                            "; not given: learned (or 1 when learn leaves it out)"),
  {"noise", SGP_OPT_REAL, "NULL", 0, INFINITY, SGP_OPT_LO_OPEN | SGP_OPT_NULL_OK, NULL,
   OFF(noise), SGP_STORE_DOUBLE, 0,
   "Gaussian noise variance; not given: learned (or 1 when learn leaves it out)"},
  {"mean", SGP_OPT_REAL, "NULL", -INFINITY, INFINITY, SGP_OPT_NULL_OK, NULL, OFF(mean),
   SGP_STORE_DOUBLE, 0,
   "constant prior mean; not given: learned (its GLS estimate when nothing else is; 0 when "
   "learn leaves it out)"},
  {"learn", SGP_OPT_SUBSET, "\"auto\"", 0, 0, 0, learn_names, OFF(learn), SGP_STORE_INT, 0,
   "maximize the log marginal likelihood over these of \"lengthscale\", \"outputscale\", "
   "\"noise\", \"mean\" (\"auto\": those not given; none (R character(0), Octave {}): all "
   "fixed, the ones not given at 1, the mean at 0)"},
  {"optim_max_iter", SGP_OPT_COUNT, "100", 1, INTMAX, 0, NULL, OFF(optim_max_iter),
   SGP_STORE_INT, 0, "log-likelihood evaluations of the optimizer at most"},
  {"restarts", SGP_OPT_COUNT, "0", 0, 1000, 0, NULL, OFF(restarts), SGP_STORE_INT, 0,
   "extra optimizer starts from seeded random values"},
  {"interpolation", SGP_OPT_CHOICE, "\"cubic\"", 0, 0, 0, interpolation_names,
   OFF(interpolation), SGP_STORE_INT, 0,
   "\"cubic\" (4 taps per dimension) or \"linear\" (2); with stats: theirs"},
  {"method", SGP_OPT_CHOICE, "\"gsgp\"", 0, 0, 0, method_names, OFF(method), SGP_STORE_INT, 0,
   "\"gsgp\" (grid work per iteration) or \"ski\" (classic SKI on the n data; needs x, y)"},
  {"tol", SGP_OPT_REAL, "0.01", 0, INFINITY, SGP_OPT_LO_OPEN, NULL, OFF(tol), SGP_STORE_DOUBLE,
   0, "relative residual of the solves"},
  {"max_iter", SGP_OPT_COUNT, "1000", 1, INTMAX - 1, 0, NULL, OFF(max_iter), SGP_STORE_INT64, 0,
   "solver iterations at most"},
  {"variance", SGP_OPT_CHOICE, "\"none\"", 0, 0, 0, variance_names, OFF(variance),
   SGP_STORE_INT, 0, "latent variances at xtest: \"none\", \"lanczos\" (LOVE) or \"exact\""},
  {"rank", SGP_OPT_COUNT, "NULL", 1, INTMAX, SGP_OPT_NULL_OK, NULL, OFF(rank), SGP_STORE_INT64,
   0, "Lanczos rank of variance \"lanczos\" (NULL: min(m, 256))"},
  {"loglik", SGP_OPT_FLAG, "FALSE", 0, 0, 0, NULL, OFF(loglik), SGP_STORE_INT, 0,
   "estimate the log marginal likelihood (stochastic Lanczos quadrature)"},
  {"probes", SGP_OPT_COUNT, "NULL", 1, INTMAX, SGP_OPT_NULL_OK, NULL, OFF(probes),
   SGP_STORE_INT64, 0,
   "random probes of the log-determinant estimate (NULL: 30, or 10 for the learning's "
   "\"eigen\" log-likelihood, whose preconditioned probes vary far less: on 3-D data "
   "10 of them gave a standard error of 0.06 where 30 plain ones gave 17)"},
  {"bounds_policy", SGP_OPT_CHOICE, "\"error\"", 0, 0, 0, bounds_names, OFF(bounds_policy),
   SGP_STORE_INT, 0,
   "points outside the grid: \"error\", \"truncate\", \"clamp\" or \"drop\" (also at xtest)"},
  {"slq_max_iter", SGP_OPT_COUNT, "100", 1, INTMAX, 0, NULL, OFF(slq_max_iter), SGP_STORE_INT64,
   0, "Lanczos steps per probe of the log-determinant"},
  {"loglik_method", SGP_OPT_CHOICE, "\"auto\"", 0, 0, 0, loglik_method_names,
   OFF(loglik_method), SGP_STORE_INT, 0,
   "log-likelihood and its gradient: \"exact\" (dense m-by-m, O(m^3), no probes), \"slq\" "
   "(stochastic, the statistics' probe sketches), \"eigen\" (stochastic, preconditioned in "
   "the kernel's eigenbasis; learning with rbf, or on a 1-D grid, with at most 512 points per "
   "dimension) or \"auto\" (exact for at most 2048 grid points, else eigen where it "
   "applies, else slq)"},
  {"precond_rank", SGP_OPT_COUNT, "0", 0, INTMAX, 0, NULL, OFF(precond_rank), SGP_STORE_INT64, 0,
   "method \"gsgp\": rank of the K_G preconditioner of the mean solve (0: none)"},
};

const sgp_verb_table sgp_ski_gsgp_table = {"ski_gsgp", specs,
                                           (int)(sizeof specs / sizeof specs[0]), 0};

#define GOFF(field) offsetof(sgp_ski_grid_opts, field)

static const sgp_opt_spec grid_specs[] = {
  {"grid_size", SGP_OPT_COUNTS, "NULL", 1, INTMAX, SGP_OPT_NULL_OK, NULL, GOFF(ski.grid_size),
   SGP_STORE_INT64, GOFF(ski.n_grid_size),
   "grid points per dimension, one value or d (NULL: from the lengthscale or n and the range)"},
  {"grid_bounds", SGP_OPT_VECTOR, "NULL", 0, 0, SGP_OPT_PTR, NULL, GOFF(ski.grid_bounds),
   SGP_STORE_DOUBLE, GOFF(ski.n_grid_bounds),
   "d-by-2 matrix of grid bounds, both grid points (NULL: the range plus grid_pad cells)"},
  {"interpolation", SGP_OPT_CHOICE, "\"cubic\"", 0, 0, 0, interpolation_names,
   GOFF(ski.interpolation), SGP_STORE_INT, 0, "\"cubic\" (4 taps per dimension) or \"linear\" (2)"},
  {"lengthscale", SGP_OPT_POSITIVES, "NULL", 0, 0, SGP_OPT_NULL_OK, NULL,
   GOFF(ski.kernel.lengthscale), SGP_STORE_DOUBLE, GOFF(ski.kernel.n_lengthscale),
   "kernel lengthscale(s), one or d, for the default size (a third of it per cell)"},
  {"n", SGP_OPT_COUNT, "NULL", 0, 9007199254740992.0, SGP_OPT_NULL_OK, NULL, GOFF(n),
   SGP_STORE_INT64, 0, "data points, for the default size without lengthscale (NULL: nrow(x))"},
  {"grid_pad", SGP_OPT_COUNT, "NULL", 0, INTMAX, SGP_OPT_NULL_OK, NULL, GOFF(ski.grid_pad),
   SGP_STORE_INT, 0, "cells of padding of the default bounds (NULL: 2 cubic, 1 linear)"},
};

const sgp_verb_table sgp_ski_grid_table = {"ski_grid", grid_specs,
                                           (int)(sizeof grid_specs / sizeof grid_specs[0]), 1};

#define SOFF(field) offsetof(sgp_ski_stats_opts, field)

static const sgp_opt_spec stats_specs[] = {
  {"first_row", SGP_OPT_COUNT, "0", 0, 9007199254740992.0, 0, NULL, SOFF(first_row),
   SGP_STORE_INT64, 0, "global index (0-based) of x's first row: keys the probes of the chunk"},
  {"bounds_policy", SGP_OPT_CHOICE, "\"error\"", 0, 0, 0, bounds_names, SOFF(ski.bounds_policy),
   SGP_STORE_INT, 0, "points outside the grid: \"error\", \"truncate\", \"clamp\" or \"drop\""},
  {"probes", SGP_OPT_COUNT, "0", 0, INTMAX, 0, NULL, SOFF(ski.probes), SGP_STORE_INT64, 0,
   "probe sketches for ski_gsgp(loglik = TRUE) (0: none)"},
  /* the verb's own seed (a row here wins over the context's): the same for every chunk */
  {"seed", SGP_OPT_COUNT, "1", 0, 9007199254740992.0, 0, NULL, SOFF(ski.seed), SGP_STORE_INT64,
   0, "seed of the probes; the same for every chunk"},
};

const sgp_verb_table sgp_ski_stats_table = {"ski_stats", stats_specs,
                                            (int)(sizeof stats_specs / sizeof stats_specs[0]), 0};

void sgp_ski_stats_opts_default(sgp_ski_stats_opts *o)
{
  sgp_ski_opts_default(&o->ski);
  o->ski.probes = 0;
  o->first_row = 0;
}

void sgp_ski_grid_opts_default(sgp_ski_grid_opts *o)
{
  sgp_ski_opts_default(&o->ski);
  o->ski.grid_rule = 0; /* no kernel or noise here: lengthscale / 3 */
  o->ski.kernel.lengthscale = NULL;
  o->ski.kernel.n_lengthscale = 0;
  o->n = -1;
}

const char *sgp_ski_stop_name(sgp_ski_stop stop)
{
  static const char *const names[] = {"tol", "max_iter", "accuracy", "breakdown"};
  return (unsigned)stop < 4 ? names[stop] : "unknown";
}

static const char *stop_words(sgp_ski_stop stop)
{
  switch (stop) {
  case SGP_SKI_STOP_TOL: return "converged";
  case SGP_SKI_STOP_MAX_ITER: return "max_iter reached";
  case SGP_SKI_STOP_ACCURACY:
    return "rounding errors keep the residual from getting smaller: the attainable accuracy; "
           "raise tol";
  default: return "the system is not numerically positive definite";
  }
}

void sgp_ski_warnings(const char *fn, const sgp_ski_result *res, const sgp_ski_opts *o,
                      char *mean_warning, char *loglik_warning, size_t size)
{
  mean_warning[0] = loglik_warning[0] = '\0';
  if (!res->converged && res->stop == SGP_SKI_STOP_MAX_ITER)
    snprintf(mean_warning, size,
             "%s: the mean solve did not converge in %lld iterations (relative residual %.3g "
             "> tol %.3g)", fn, (long long)res->iterations, res->rel_residual, o->tol);
  else if (!res->converged)
    snprintf(mean_warning, size,
             "%s: the mean solve stopped after %lld iterations at relative residual %.3g > tol "
             "%.3g: %s", fn, (long long)res->iterations, res->rel_residual, o->tol,
             stop_words(res->stop));
  if (o->loglik && !res->loglik_converged)
    snprintf(loglik_warning, size,
             "%s: a log-likelihood solve did not reach tol or the accuracy its data fit needs (or "
             "probes were discarded); the estimate is rough", fn);
}

void sgp_ski_grid_warning(const char *fn, const sgp_ski_result *res, const sgp_ski_opts *o,
                          char *buf, size_t size)
{
  buf[0] = '\0';
  const double sd = sqrt(o->noise);
  if (res->interp_error > 0.1 * sd)
    snprintf(buf, size,
             "%s: the grid's estimated interpolation error of the posterior mean (%.3g) is not "
             "small against the noise sd (%.3g): use a finer grid (grid_size)", fn,
             res->interp_error, sd);
}

void sgp_ski_predict_warning(const char *fn, const sgp_ski_predict_info *info, int variance,
                             char *buf, size_t size)
{
  size_t k = 0;
  buf[0] = '\0';
  if (!info->converged && variance == SGP_SKI_VARIANCE_EXACT)
    k = (size_t)snprintf(buf, size,
                         "%s: the exact variance solves did not all converge: %s (worst relative "
                         "residual %.3g; bound on a variance's relative error %.3g, needed "
                         "%.3g)", fn, stop_words(info->stop), info->rel_residual,
                         info->var_error, SGP_SKI_RTOL);
  else if (!info->converged && variance == SGP_SKI_VARIANCE_LANCZOS)
    k = (size_t)snprintf(buf, size,
                         "%s: the lanczos variances are not resolved at the fit's rank: at the "
                         "fit's check points the bound on their relative error is %.3g (needed "
                         "%.3g); raise rank or use variance = \"exact\"", fn, info->var_error,
                         SGP_SKI_RTOL);
  if (info->clamped > 0 && k < size)
    snprintf(buf + k, size - k, "%s%s%lld %s variance%s fell below 0 and %s set to 0",
             k ? "; " : fn, k ? "" : ": ", (long long)info->clamped,
             variance == SGP_SKI_VARIANCE_EXACT ? "exact" : "lanczos",
             info->clamped > 1 ? "s" : "", info->clamped > 1 ? "were" : "was");
}

/* The options against the grid's dimension d (lengthscale, grid_size). */
static int check_dims(sgp_ctx *ctx, const sgp_ski_opts *o, int64_t d, int given_stats)
{
  const int64_t nl = o->kernel.n_lengthscale;
  if (o->kernel.lengthscale && nl != 1 && nl != d)
    return d == 1 ? sgp_fail(ctx, SGP_EINVAL, "lengthscale: must be numeric of length 1 (got "
                             "length %lld)", (long long)nl)
                  : sgp_fail(ctx, SGP_EINVAL, "lengthscale: must be numeric of length 1 or %lld "
                             "(got length %lld)", (long long)d, (long long)nl);
  return given_stats ? SGP_OK : sgp_ski_check_grid_dims(ctx, o, d);
}

/* A grid_pad that leaves the data at the edges outside the valid range. */
static int check_pad(sgp_ctx *ctx, const sgp_ski_opts *o)
{
  const int need = o->interpolation == SGP_SKI_LINEAR ? 0 : 1;
  if (o->grid_pad < 0 || o->grid_pad >= need || o->grid_bounds ||
      o->bounds_policy != SGP_SKI_BOUNDS_ERROR)
    return SGP_OK;
  return sgp_fail(ctx, SGP_EINVAL,
                  "grid_pad: is %d: with fewer than %d cell of padding the data at the edges "
                  "fall outside the valid range of %s interpolation (use grid_pad >= %d, or "
                  "bounds_policy \"clamp\", \"truncate\" or \"drop\")",
                  o->grid_pad, need, interpolation_names[o->interpolation], need);
}

/* The checks of given statistics against the options and the data. */
static int check_stats(sgp_ctx *ctx, const sgp_ski_opts *o, int interpolation_given, sgp_cmat X,
                       const sgp_ski_stats_data *s)
{
  if (o->n_grid_size || o->grid_bounds || o->grid_pad >= 0)
    return sgp_fail(ctx, SGP_EINVAL,
                    "stats: fixes the grid: leave 'grid_size', 'grid_bounds' and 'grid_pad' unset");
  if (interpolation_given && o->interpolation != s->interpolation)
    return sgp_fail(ctx, SGP_EINVAL, "interpolation: differs from that of 'stats' (\"%s\")",
                    interpolation_names[s->interpolation]);
  if (X.data && X.cols != s->grid.d)
    return sgp_fail(ctx, SGP_EINVAL, "x: has %lld columns but 'stats' has a %d-dimensional grid",
                    (long long)X.cols, s->grid.d);
  const int exact = sgp_ski_loglik_use_exact(o->loglik_method, s->m);
  const int eigen = sgp_ski_loglik_use_eig(o->loglik_method, &o->kernel, &s->grid, s->m);
  if (o->loglik && !exact && s->probes < 1)
    return sgp_fail(ctx, SGP_EINVAL,
                    "stats: has no probe sketches for loglik = TRUE; make them with "
                    "ski_stats(..., probes = %lld)", (long long)sgp_ski_probes(o, 0));
  if (sgp_ski_learn_optimized(o) && !exact && !eigen && s->probes < 1)
    return sgp_fail(ctx, SGP_EINVAL,
                    "stats: has no probe sketches for learning the hyperparameters; make them "
                    "with ski_stats(..., probes = %lld), or give lengthscale, outputscale and "
                    "noise (or learn none of them)", (long long)sgp_ski_probes(o, 0));
  return check_dims(ctx, o, s->grid.d, 1);
}

/* min and max of each column of X (d <= SGP_SKI_MAX_D): range, d-by-2 */
static void data_range(sgp_cmat X, double *range)
{
  for (int64_t j = 0; j < X.cols; j++) {
    double lo = INFINITY, hi = -INFINITY;
    for (int64_t i = 0; i < X.rows; i++) {
      const double v = X.data[i + X.ld * j];
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    range[j] = lo;
    range[X.cols + j] = hi;
  }
}

int sgp_ski_grid_make(sgp_ctx *ctx, const sgp_ski_grid_opts *o, sgp_cmat X, sgp_cmat range,
                      sgp_ski_grid *out)
{
  int code;
  double rng[2 * SGP_SKI_MAX_D];
  int64_t d, n = o->n;
  if (X.data) {
    d = X.cols;
    if (d > SGP_SKI_MAX_D)
      return sgp_fail(ctx, SGP_EINVAL, "x: has %lld columns; the grid supports at most %d",
                      (long long)d, SGP_SKI_MAX_D);
    data_range(X, rng);
    if (n < 0) n = X.rows;
  } else if (range.data) {
    const int64_t len = range.rows * range.cols;
    d = range.cols == 2 ? range.rows : len == 2 ? 1 : 0;
    if (d < 1) return sgp_fail(ctx, SGP_EINVAL, "range: must be a d-by-2 matrix of (min, max) "
                               "per dimension");
    if (d > SGP_SKI_MAX_D)
      return sgp_fail(ctx, SGP_EINVAL, "range: has %lld rows; the grid supports at most %d",
                      (long long)d, SGP_SKI_MAX_D);
    for (int64_t j = 0; j < d; j++) {
      rng[j] = range.data[range.cols == 2 ? j : 0];
      rng[d + j] = range.data[range.cols == 2 ? j + range.ld : range.rows == 2 ? 1 : range.ld];
      if (!isfinite(rng[j]) || !isfinite(rng[d + j]))
        return sgp_fail(ctx, SGP_EINVAL, "range: must be finite");
      if (rng[d + j] < rng[j])
        return sgp_fail(ctx, SGP_EINVAL, "range: must have min <= max in every row");
    }
    if (n < 0) n = 0;
  } else if (o->ski.grid_bounds && o->ski.n_grid_size > 0) {
    d = o->ski.n_grid_bounds / 2;
    if (d < 1 || d > SGP_SKI_MAX_D || o->ski.n_grid_bounds != 2 * d)
      return sgp_fail(ctx, SGP_EINVAL, "grid_bounds: must be a d-by-2 matrix, d <= %d (got %lld "
                      "numbers)", SGP_SKI_MAX_D, (long long)o->ski.n_grid_bounds);
    memcpy(rng, o->ski.grid_bounds, sizeof(double) * (size_t)(2 * d));
    if (n < 0) n = 0;
  } else {
    return sgp_fail(ctx, SGP_EINVAL,
                    "x: is needed (or 'range', or both 'grid_size' and 'grid_bounds')");
  }
  if ((code = check_dims(ctx, &o->ski, d, 0))) return code;
  return sgp_ski_grid_from_range(ctx, sgp_cmat_of(rng, d, 2), n, &o->ski, out);
}

/* The statistics of X, y on the options' grid (sketches with loglik). */
static int compute_stats(sgp_ctx *ctx, const sgp_ski_opts *o, sgp_cmat X, sgp_cmat y,
                         sgp_ski_gsgp_input *out)
{
  int code;
  const int64_t n = X.rows, d = X.cols;
  double range[2 * SGP_SKI_MAX_D];
  data_range(X, range);
  sgp_ski_grid g;
  int64_t m = 0;
  /* the default grid size follows the lengthscale when it is fixed (given, or 1
   * when not learned), else the number of points */
  sgp_ski_opts go = *o;
  if (!o->kernel.lengthscale && !(sgp_ski_learn_bits(o) & SGP_LEARN_LENGTHSCALE))
    sgp_ski_fixed_defaults(o, &go);
  if ((code = sgp_ski_grid_from_range(ctx, sgp_cmat_of(range, d, 2), n, &go, &g))) return code;
  if ((code = sgp_ski_stats_shape(ctx, &g, o->interpolation, &m, NULL))) return code;
  /* probe sketches for the sketch SLQ only: loglik = TRUE, or learning that the
   * exact or eigenbasis log-likelihood does not take (those need none) */
  const int learn_sketches = sgp_ski_learn_optimized(o) &&
                             !sgp_ski_loglik_use_eig(o->loglik_method, &o->kernel, &g, m);
  const int64_t np = (o->loglik || learn_sketches) &&
                     !sgp_ski_loglik_use_exact(o->loglik_method, m) ? sgp_ski_probes(o, 0) : 0;
  double rhoz = 0.0;
  if (np > 0 && !(out->uz = sgp_alloc(m * np)))
    return sgp_fail(ctx, SGP_ENOMEM, "probes: out of memory for the sketches");
  out->computed = 1;
  code = sgp_ski_stats_compute(ctx, &g, o, X, y, 0, &out->owned, out->uz, &rhoz);
  if (!code) code = sgp_ski_stats_export(ctx, out->owned, &out->stats);
  if (code) return code;
  out->stats.probes = np;
  out->stats.probe_seed = o->seed;
  out->stats.rhoz = rhoz;
  out->stats.uz = out->uz;
  return SGP_OK;
}

int sgp_ski_gsgp_prepare(sgp_ctx *ctx, const sgp_ski_opts *o, int interpolation_given,
                         sgp_cmat X, sgp_cmat y, const sgp_ski_stats_data *stats,
                         sgp_ski_gsgp_input *out)
{
  int code;
  memset(out, 0, sizeof *out);
  if (o->precond_rank > 0 && o->method != SGP_SKI_METHOD_GSGP)
    return sgp_fail(ctx, SGP_EINVAL, "precond_rank: applies to method = \"gsgp\" only");
  const int has_data = X.data != NULL;
  /* method "gsgp" fits from the statistics alone: data beside them would be
   * ignored (method "ski" needs both: its CG runs on the data) */
  if (stats && has_data && o->method != SGP_SKI_METHOD_SKI)
    return sgp_fail(ctx, SGP_EINVAL,
                    "x: and 'y' are given with 'stats'; method = \"gsgp\" fits from the "
                    "statistics alone and would ignore them: give either x and y or stats");
  if (stats) {
    if ((code = check_stats(ctx, o, interpolation_given, X, stats))) return code;
    out->stats = *stats;
  } else {
    if (!has_data) return sgp_fail(ctx, SGP_EINVAL, "x: and 'y' are needed (or 'stats')");
    if (X.cols > SGP_SKI_MAX_D)
      return sgp_fail(ctx, SGP_EINVAL, "x: has %lld columns; the grid supports at most %d",
                      (long long)X.cols, SGP_SKI_MAX_D);
    if ((code = check_dims(ctx, o, X.cols, 0)) || (code = check_pad(ctx, o))) return code;
    if ((code = compute_stats(ctx, o, X, y, out))) return code;
  }
  if (o->method == SGP_SKI_METHOD_SKI && !has_data)
    return sgp_fail(ctx, SGP_EINVAL,
                    "x: and 'y' are needed by method = \"ski\" (the statistics are not enough)");
  /* (with bounds_policy "drop" the statistics count the kept rows only; the fit
   * compares those) */
  if (o->method == SGP_SKI_METHOD_SKI && o->bounds_policy != SGP_SKI_BOUNDS_DROP &&
      X.rows != out->stats.n)
    return sgp_fail(ctx, SGP_EINVAL, "x: has %lld rows but 'stats' count %lld points",
                    (long long)X.rows, (long long)out->stats.n);
  if (o->precond_rank >= out->stats.m)
    return sgp_fail(ctx, SGP_EINVAL, "precond_rank: must be less than the %lld grid points",
                    (long long)out->stats.m);
  return SGP_OK;
}

void sgp_ski_gsgp_input_free(sgp_ski_gsgp_input *in)
{
  if (!in) return;
  sgp_ski_stats_free(in->owned);
  free(in->uz);
  in->owned = NULL;
  in->uz = NULL;
}
