/* ski_fit.c -- the public one-shot entry points of ski_gsgp: options, the grid
 * of a fit, the fit from (plain) sufficient statistics and the predictions
 * from the plain fit data (weights, LOVE factor, statistics). */
#include "ski/ski.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double unit_lengthscale = 1.0;

int64_t sgp_ski_probes(const sgp_ski_opts *o, int eigen)
{
  return o->probes > 0 ? o->probes : eigen ? SGP_SKI_EIG_PROBES : SGP_SKI_PROBES;
}

void sgp_ski_opts_default(sgp_ski_opts *o)
{
  memset(o, 0, sizeof *o);
  o->grid_pad = -1;
  o->interpolation = SGP_SKI_CUBIC;
  o->bounds_policy = SGP_SKI_BOUNDS_ERROR;
  o->kernel.kind = SGP_KERNEL_RBF;
  o->kernel.lengthscale = NULL; /* not given: learned, or 1 (sgp_ski_fixed_defaults) */
  o->kernel.n_lengthscale = 1;
  o->kernel.outputscale = NAN;
  o->kernel.alpha = 1.0;
  o->noise = NAN;
  o->mean = NAN;
  o->grid_rule = 1;
  o->learn = SGP_SKI_LEARN_AUTO;
  o->optim_max_iter = 100;
  o->restarts = 0;
  o->method = SGP_SKI_METHOD_GSGP;
  o->tol = 0.01;
  o->max_iter = 1000;
  o->variance = SGP_SKI_VARIANCE_NONE;
  o->probes = 0; /* NULL: sgp_ski_probes */
  o->slq_max_iter = 100;
  o->loglik_method = SGP_SKI_LOGLIK_AUTO;
  o->seed = 1;
}

int sgp_ski_check_grid_dims(sgp_ctx *ctx, const sgp_ski_opts *o, int64_t d)
{
  if (o->n_grid_size > 1 && o->n_grid_size != d)
    return sgp_fail(ctx, SGP_EINVAL, "grid_size: must be one value or d = %lld (got %lld)",
                    (long long)d, (long long)o->n_grid_size);
  if (o->grid_bounds && o->n_grid_bounds && o->n_grid_bounds != 2 * d)
    return sgp_fail(ctx, SGP_EINVAL, "grid_bounds: must be a %lld-by-2 matrix (got %lld numbers)",
                    (long long)d, (long long)o->n_grid_bounds);
  return SGP_OK;
}

/* Cells per lengthscale of the default grid: the kernel's rule at the noise sd
 * over sqrt(outputscale) when both are known; a value still to be learned is
 * taken at its start's ratio (noise var(y)/4 over outputscale var(y)/2). The
 * ski_grid verb (o->grid_rule 0) keeps 3 cells. */
static double cells_per_ell(const sgp_ski_opts *o, int d)
{
  if (!o->grid_rule) return 3.0;
  const double s = o->kernel.outputscale, noise = o->noise;
  const double ratio = isnan(s) || isnan(noise) ? sqrt(0.5) : sqrt(noise / s);
  return sgp_ski_cells_per_lengthscale(&o->kernel, o->interpolation, ratio, d);
}

int sgp_ski_grid_from_range(sgp_ctx *ctx, sgp_cmat data_range, int64_t n, const sgp_ski_opts *o,
                      sgp_ski_grid *out)
{
  int code;
  int64_t size[SGP_SKI_MAX_D];
  const int64_t d = data_range.rows;
  if (!o || !out) return sgp_fail(ctx, SGP_EINVAL, "grid: options or output missing");
  if (d < 1 || d > SGP_SKI_MAX_D || data_range.cols != 2)
    return sgp_fail(ctx, SGP_EDIM, "x: the grid needs 1 to %d columns (got %lld)",
                    SGP_SKI_MAX_D, (long long)d);
  if ((code = sgp_ski_check_grid_dims(ctx, o, d))) return code;
  sgp_ski_opts one;
  if (o->n_grid_size == 1) { /* one size for every dimension */
    one = *o;
    for (int64_t j = 1; j < d; j++) one.grid_size[j] = o->grid_size[0];
    o = &one;
  }
  int any_auto = 0;
  for (int64_t j = 0; j < d; j++) {
    if (o->grid_size[j] < 0)
      return sgp_fail(ctx, SGP_EINVAL, "grid_size: must be positive (dimension %lld has %lld)",
                      (long long)j + 1, (long long)o->grid_size[j]);
    any_auto |= o->grid_size[j] == 0;
  }
  if (any_auto) {
    const double *ell = o->kernel.lengthscale;
    double scaled[SGP_SKI_MAX_D];
    if (ell) { /* size_auto puts 3 cells in a lengthscale: scale it to `cells` */
      const double c = cells_per_ell(o, (int)d);
      for (int64_t j = 0; j < o->kernel.n_lengthscale && j < SGP_SKI_MAX_D; j++)
        scaled[j] = ell[j] * 3.0 / c;
      ell = scaled;
    }
    if ((code = sgp_ski_grid_size_auto(ctx, data_range, n, ell,
                                       ell ? o->kernel.n_lengthscale : 0, o->interpolation,
                                       o->grid_pad, o->max_grid_points, size)))
      return code;
  }
  for (int64_t j = 0; j < d; j++)
    if (o->grid_size[j] > 0) size[j] = o->grid_size[j];
  code = o->grid_bounds
             ? sgp_ski_grid_bounds(ctx, sgp_cmat_of(o->grid_bounds, d, 2), size, out)
             : sgp_ski_grid_auto(ctx, data_range, size, o->interpolation, o->grid_pad, out);
  return code ? code : sgp_ski_grid_fits(ctx, out, o->interpolation);
}

int64_t sgp_ski_love_rank_max(const sgp_ski_opts *o, int64_t m)
{
  const int64_t r = o->rank > 0 ? o->rank : 256;
  return r < m ? r : m;
}

void sgp_ski_fixed_defaults(const sgp_ski_opts *o, sgp_ski_opts *out)
{
  *out = *o;
  if (!out->kernel.lengthscale) {
    out->kernel.lengthscale = &unit_lengthscale;
    out->kernel.n_lengthscale = 1;
  }
  if (isnan(out->kernel.outputscale)) out->kernel.outputscale = 1.0;
  if (isnan(out->noise)) out->noise = 1.0;
}

/* The kernel of the options (resolved by sgp_ski_fixed_defaults), checked. */
static int fit_kernel(sgp_ctx *ctx, const sgp_ski_opts *o, int d, sgp_kernel *k)
{
  *k = o->kernel;
  return sgp_kernel_check(ctx, k, d);
}

static int check_noise(sgp_ctx *ctx, double noise)
{
  if (!(noise > 0) || !isfinite(noise))
    return sgp_fail(ctx, SGP_EINVAL, "noise: must be a positive finite variance (got %g)",
                    noise);
  return SGP_OK;
}

/* Renames the argument a lower-level message starts with ("x: ..." becomes
 * "xtest: ..."), so errors name what the caller passed. */
static int rename_arg(sgp_ctx *ctx, int code, const char *from, const char *to)
{
  const size_t len = strlen(from);
  if (code && strncmp(ctx->errmsg, from, len) == 0 && ctx->errmsg[len] == ':') {
    char msg[sizeof ctx->errmsg];
    memcpy(msg, ctx->errmsg + len, sizeof msg - len);
    msg[sizeof msg - len - 1] = 0;
    return sgp_fail(ctx, code, "%s%s", to, msg);
  }
  return code;
}

/* The K_G operator of a fit or a prediction; FFTW's planning effort follows
 * the column products the call may need (sgp_ski_fft_planner, ski.h). */
static int grid_op(sgp_ctx *ctx, const sgp_kernel *k, const sgp_ski_grid *g, double products,
                   sgp_op *kg)
{
  sgp_ski_kg_opts ko;
  sgp_ski_kg_opts_default(&ko);
  ko.expected_products = products;
  return sgp_ski_grid_op(ctx, k, g, &ko, kg);
}

/* Most K_G column products a fit may make: the mean solve, LOVE, the SLQ
 * probes and the log-likelihood's own mean solve, the preconditioner's
 * subspace iteration (at most 30 sweeps of q columns). */
static double fit_products(const sgp_ski_opts *o, int64_t m)
{
  double p = (double)o->max_iter + 2.0;
  if (o->variance == SGP_SKI_VARIANCE_LANCZOS) p += (double)sgp_ski_love_rank_max(o, m) + 2.0;
  if (o->loglik)
    p += (double)sgp_ski_probes(o, 0) * (double)(o->slq_max_iter > 0 ? o->slq_max_iter : 100) +
         (double)o->max_iter;
  if (o->precond_rank > 0) p += 30.0 * (double)o->precond_rank;
  return p;
}

/* Method "ski" under bounds_policy "drop": copies of the rows of X, y that are
 * kept (the statistics count only those) into *buf, viewed by *Xk, *yk; with
 * any other policy *Xk, *yk are X, y. Rows the policy rejects are left to
 * sgp_ski_op_ski's message. */
static int kept_rows(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_ski_bounds_policy policy,
                     sgp_cmat X, sgp_cmat y, double **buf, sgp_cmat *Xk, sgp_cmat *yk)
{
  *Xk = X;
  *yk = y;
  *buf = NULL;
  if (policy != SGP_SKI_BOUNDS_DROP || X.rows == 0) return SGP_OK;
  const int64_t n = X.rows, d = X.cols, T = st->T;
  int64_t *idx = (int64_t *)malloc((size_t)T * sizeof(int64_t));
  double *w = sgp_alloc(T), *b = sgp_alloc(n * (d + 1));
  if (!idx || !w || !b) {
    free(idx); free(w); free(b);
    return sgp_fail(ctx, SGP_ENOMEM, "x: out of memory for the rows inside the grid");
  }
  int64_t k = 0;
  for (int64_t i = 0; i < n; i++) {
    int bad;
    if (sgp_ski_interp_point(&st->grid, st->interp, policy, X.data + i, X.ld, idx, w, &bad) ==
        SGP_SKI_POINT_DROPPED)
      continue;
    for (int64_t j = 0; j < d; j++) b[k + j * n] = X.data[i + j * X.ld];
    b[k + d * n] = y.data[i];
    k++;
  }
  free(idx);
  free(w);
  *buf = b;
  *Xk = (sgp_cmat){b, k, d, n};
  *yk = (sgp_cmat){b + d * n, k, 1, n};
  return SGP_OK;
}

/* The prior mean (o->mean, or its GLS estimate when NaN) into res->mean, the
 * statistics centred on it (st is the fit's own copy), and the mean solve of
 * the centred targets: its stopping rule is relative to ||y - mu 1||. info
 * is the solve's; a GLS solve that did not converge makes it unconverged. */
static int mean_solve(sgp_ctx *ctx, sgp_ski_stats *st, const sgp_op *kg, const sgp_kernel *k,
                      const sgp_ski_opts *o, const sgp_ski_solve_opts *so, sgp_cmat X,
                      sgp_cmat y, sgp_ski_result *res, sgp_ski_solve_info *info,
                      double **kept, sgp_op *ski)
{
  int code;
  sgp_ski_solve_info gi = {0};
  double mu = o->mean, *work = NULL;
  gi.converged = 1;
  if (o->method == SGP_SKI_METHOD_GSGP) {
    if (isnan(mu)) {
      if (!(work = sgp_alloc(2 * st->m))) return sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory");
      code = sgp_ski_gls_mean(ctx, st, kg, o->noise, so, work, &mu, &gi);
      free(work);
      if (code) return code;
    }
    sgp_ski_stats c;
    sgp_ski_stats_centred(st, mu, st->uy, &c);
    *st = c;
    res->mean = mu;
    code = sgp_ski_mean_efcg(ctx, st, kg, o->noise, so, res->weights, NULL, NULL, info,
                             res->history, NULL, NULL);
  } else if (o->method == SGP_SKI_METHOD_SKI) {
    if (!X.data || !y.data)
      return sgp_fail(ctx, SGP_EINVAL, "x: method \"ski\" needs the data x and y");
    sgp_cmat Xk, yk;
    if ((code = kept_rows(ctx, st, o->bounds_policy, X, y, kept, &Xk, &yk))) return code;
    if (Xk.rows != st->n)
      return sgp_fail(ctx, SGP_EDIM, "x: has %lld rows%s but the statistics count %lld points",
                      (long long)Xk.rows, *kept ? " inside the grid" : "", (long long)st->n);
    if ((code = sgp_ski_op_ski(ctx, k, &st->grid, st->interp, o->bounds_policy, Xk, o->noise,
                               kg, ski)))
      return code;
    const int64_t n = Xk.rows;
    if (!(work = sgp_alloc(3 * n + st->m))) return sgp_fail(ctx, SGP_ENOMEM, "y: out of memory");
    if (isnan(mu)) code = sgp_ski_gls_mean_cg(ctx, ski, yk, so, work + n, &mu, &gi);
    for (int64_t i = 0; i < n; i++) work[i] = yk.data[i] - mu;
    sgp_ski_stats c;
    sgp_ski_stats_centred(st, mu, st->uy, &c);
    *st = c;
    res->mean = mu;
    if (!code)
      code = sgp_ski_mean_cg(ctx, ski, sgp_cmat_of(work, n, 1), so, res->weights, NULL, info,
                             res->history, NULL, NULL);
    free(work);
  } else {
    return sgp_fail(ctx, SGP_EINVAL, "method: unknown code %d", (int)o->method);
  }
  if (!code && !gi.converged && info->converged) {
    info->converged = 0;
    info->stop = gi.stop;
    info->rel_residual = gi.rel_residual;
  }
  return code;
}

/* The fit's log-likelihood (loglik = TRUE): exact (loglik_method) or SLQ
 * with the statistics' probe sketches. */
static int fit_loglik(sgp_ctx *ctx, const sgp_ski_stats *st, const sgp_ski_stats_data *stats,
                      const sgp_op *kg, const sgp_kernel *k, const sgp_ski_opts *o,
                      sgp_ski_result *res)
{
  sgp_ski_loglik_result lr;
  int code;
  if (sgp_ski_loglik_use_exact(o->loglik_method, st->m)) {
    sgp_ski_loglik_grad_result er;
    if ((code = sgp_ski_loglik_exact(ctx, st, k, o->noise, NULL, 0, NULL, &er, NULL)))
      return code;
    lr = er.value;
  } else {
    sgp_ski_loglik_opts lo;
    if (stats->probes < 1)
      return sgp_fail(ctx, SGP_EINVAL, "stats: has no probe sketches for the log-likelihood "
                      "(make it with probes > 0)");
    sgp_ski_loglik_opts_default(&lo);
    lo.mean_tol = o->tol;
    lo.datafit_rtol = SGP_SKI_RTOL; /* a reported value: resolved (ski_loglik.c) */
    lo.max_iter = o->max_iter;
    if (o->slq_max_iter > 0) lo.slq_max_iter = o->slq_max_iter;
    if ((code = sgp_ski_loglik(ctx, st, kg, o->noise, stats->uz, stats->rhoz, stats->probes,
                               &lo, NULL, &lr)))
      return code;
  }
  res->loglik = lr.loglik;
  res->logdet = lr.logdet;
  res->logdet_se = lr.logdet_se;
  res->datafit = lr.datafit;
  res->probes_used = lr.probes_used;
  res->loglik_converged = lr.converged;
  return SGP_OK;
}

int sgp_ski_fit(sgp_ctx *ctx, const sgp_ski_stats_data *stats, const sgp_ski_opts *o,
                sgp_cmat X, sgp_cmat y, sgp_ski_result *res)
{
  int code;
  sgp_ski_stats *st = NULL;
  sgp_ski_love *lv = NULL;
  sgp_op kg = {0}, ski = {0};
  sgp_kernel k;
  sgp_ski_solve_opts so;
  sgp_ski_solve_info info = {0};
  double *kept = NULL; /* method "ski", bounds_policy "drop": the rows inside the grid */
  if (!o || !res || !res->weights) return sgp_fail(ctx, SGP_EINVAL, "weights: output missing");
  sgp_ski_opts fixed; /* what is not given: 1 */
  sgp_ski_fixed_defaults(o, &fixed);
  o = &fixed;
  res->love_rank = 0;
  res->love_error = NAN;
  res->iterations = 0;
  res->converged = 0;
  res->rel_residual = NAN;
  res->mean = NAN;
  res->interp_error = NAN;
  res->stop = SGP_SKI_STOP_MAX_ITER;
  res->loglik = res->logdet = res->logdet_se = res->datafit = NAN;
  res->probes_used = 0;
  res->loglik_converged = 0;
  if ((code = sgp_ski_stats_import(ctx, stats, &st))) return code;
  const int64_t m = st->m;
  if ((code = fit_kernel(ctx, o, st->grid.d, &k))) goto cleanup;
  if ((code = check_noise(ctx, o->noise))) goto cleanup;
  res->interp_error = sgp_ski_interp_error_est(&st->grid, st->interp, &k);
  if (o->variance < SGP_SKI_VARIANCE_NONE || o->variance > SGP_SKI_VARIANCE_EXACT) {
    code = sgp_fail(ctx, SGP_EINVAL, "variance: unknown code %d", (int)o->variance);
    goto cleanup;
  }
  if (o->variance == SGP_SKI_VARIANCE_LANCZOS && (!res->love_Ft || !res->love_c0)) {
    code = sgp_fail(ctx, SGP_EINVAL, "rank: room for the LOVE factor missing");
    goto cleanup;
  }
  sgp_ski_solve_opts_default(&so);
  so.tol = o->tol;
  so.max_iter = o->max_iter;
  so.precond_rank = o->precond_rank;
  if (o->precond_rank != 0 && o->method != SGP_SKI_METHOD_GSGP) {
    code = sgp_fail(ctx, SGP_EINVAL, "precond_rank: applies to method \"gsgp\" only");
    goto cleanup;
  }
  if ((code = grid_op(ctx, &k, &st->grid, fit_products(o, m), &kg))) goto cleanup;
  sgp_progress(ctx, "ski_gsgp: mean", 0.0);
  code = mean_solve(ctx, st, &kg, &k, o, &so, X, y, res, &info, &kept, &ski);
  if (code) goto cleanup;
  res->iterations = info.iterations;
  res->converged = info.converged;
  res->rel_residual = info.rel_residual;
  res->stop = info.stop;
  sgp_say(ctx, "ski_gsgp: mean solve %lld iterations, relative residual %.3g%s",
          (long long)info.iterations, info.rel_residual, info.converged ? "" : " (not converged)");
  if (o->variance == SGP_SKI_VARIANCE_LANCZOS) {
    sgp_progress(ctx, "ski_gsgp: LOVE", 0.0);
    if (o->rank < 0) {
      code = sgp_fail(ctx, SGP_EINVAL, "rank: must be >= 0 (got %lld)", (long long)o->rank);
      goto cleanup;
    }
    if ((code = sgp_ski_love_build(ctx, st, &kg, o->noise, sgp_ski_love_rank_max(o, m), &lv)))
      goto cleanup;
    res->love_rank = lv->rank;
    res->love_error = lv->error;
    memcpy(res->love_Ft, lv->Ft, (size_t)(lv->rank * m) * sizeof(double));
    memcpy(res->love_c0, lv->c0, (size_t)m * sizeof(double));
  }
  if (o->loglik) {
    sgp_progress(ctx, "ski_gsgp: log-likelihood", 0.0);
    if ((code = fit_loglik(ctx, st, stats, &kg, &k, o, res))) goto cleanup;
  }
  sgp_progress(ctx, "ski_gsgp", 1.0);
cleanup:
  sgp_ski_love_free(lv);
  sgp_op_destroy(&ski);
  free(kept);
  sgp_op_destroy(&kg);
  sgp_ski_stats_free(st);
  return code;
}

int sgp_ski_fit_xy(sgp_ctx *ctx, const sgp_ski_grid *g, const sgp_ski_opts *o, sgp_cmat X,
                   sgp_cmat y, sgp_ski_result *res)
{
  int code;
  int64_t m = 0;
  double *uz = NULL, rhoz = 0.0;
  sgp_ski_stats *st = NULL;
  sgp_ski_stats_data d;
  if (!o) return sgp_fail(ctx, SGP_EINVAL, "opts: missing");
  if ((code = sgp_ski_stats_shape(ctx, g, o->interpolation, &m, NULL))) return code;
  const int64_t np = sgp_ski_probes(o, 0);
  if (o->loglik && !sgp_ski_loglik_use_exact(o->loglik_method, m)) {
    if (!(uz = sgp_alloc(m * np)))
      return sgp_fail(ctx, SGP_ENOMEM, "probes: out of memory for the sketches");
  }
  code = sgp_ski_stats_compute(ctx, g, o, X, y, 0, &st, uz, &rhoz);
  if (!code) code = sgp_ski_stats_export(ctx, st, &d);
  if (!code) {
    if (uz) {
      d.probes = np;
      d.probe_seed = o->seed;
      d.uz = uz;
      d.rhoz = rhoz;
    }
    code = sgp_ski_fit(ctx, &d, o, X, y, res);
  }
  sgp_ski_stats_free(st);
  free(uz);
  return code;
}

/* The first non-finite value of v (n), or -1. */
static int64_t first_nonfinite(const double *v, int64_t n)
{
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(v[i])) return i;
  return -1;
}

/* A fit's arrays must be finite: a NaN in the LOVE factor gave variance 0. */
static int check_fit_arrays(sgp_ctx *ctx, int64_t m, const double *weights,
                            const double *love_Ft, const double *love_c0, int64_t love_rank)
{
  int64_t i;
  if ((i = first_nonfinite(weights, m)) >= 0)
    return sgp_fail(ctx, SGP_EINVAL, "weights: value %lld is not finite (the fit is damaged)",
                    (long long)i + 1);
  if (love_Ft && (i = first_nonfinite(love_Ft, love_rank * m)) >= 0)
    return sgp_fail(ctx, SGP_EINVAL, "love: the factor Ft has a non-finite value at %lld (the "
                    "fit is damaged)", (long long)i + 1);
  if (love_c0 && (i = first_nonfinite(love_c0, m)) >= 0)
    return sgp_fail(ctx, SGP_EINVAL, "love: c0 has a non-finite value at %lld (the fit is "
                    "damaged)", (long long)i + 1);
  return SGP_OK;
}

static int predict_values(sgp_ctx *ctx, const sgp_ski_stats_data *stats, const sgp_ski_opts *o,
                          const double *weights, const double *love_Ft, const double *love_c0,
                          int64_t love_rank, sgp_cmat Xs, double *mean, double *var,
                          sgp_ski_predict_info *info);

int sgp_ski_predict(sgp_ctx *ctx, const sgp_ski_stats_data *stats, const sgp_ski_opts *o,
                    const double *weights, const double *love_Ft, const double *love_c0,
                    int64_t love_rank, sgp_cmat Xs, double *mean, double *var,
                    sgp_ski_predict_info *info)
{
  const int code = predict_values(ctx, stats, o, weights, love_Ft, love_c0, love_rank, Xs,
                                  mean, var, info);
  if (code || o->bounds_policy != SGP_SKI_BOUNDS_DROP) return code;
  /* a dropped point has no taps: NaN rather than the 0 of an empty row */
  const int want_var = var && o->variance != SGP_SKI_VARIANCE_NONE;
  for (int64_t i = 0; i < Xs.rows; i++)
    if (sgp_ski_outside(&stats->grid, stats->interpolation, Xs.data + i, Xs.ld)) {
      mean[i] = NAN;
      if (want_var) var[i] = NAN;
    }
  return SGP_OK;
}

static int predict_values(sgp_ctx *ctx, const sgp_ski_stats_data *stats, const sgp_ski_opts *o,
                          const double *weights, const double *love_Ft, const double *love_c0,
                          int64_t love_rank, sgp_cmat Xs, double *mean, double *var,
                          sgp_ski_predict_info *info)
{
  int code;
  sgp_ski_stats *st = NULL;
  sgp_op kg = {0};
  sgp_kernel k;
  if (info) {
    info->iterations = 0;
    info->converged = 1;
    info->rel_residual = 0.0;
    info->stop = SGP_SKI_STOP_TOL;
    info->var_error = NAN;
    info->clamped = 0;
  }
  if (!stats || !o) return sgp_fail(ctx, SGP_EINVAL, "stats: missing");
  if (!weights || !mean) return sgp_fail(ctx, SGP_EINVAL, "weights: missing");
  sgp_ski_opts fixed; /* what is not given: 1 */
  sgp_ski_fixed_defaults(o, &fixed);
  o = &fixed;
  const sgp_ski_grid *g = &stats->grid;
  if ((code = sgp_ski_grid_check(ctx, g))) return code;
  if (Xs.cols != g->d)
    return sgp_fail(ctx, SGP_EDIM, "xtest: has %lld columns but the grid has %d dimensions",
                    (long long)Xs.cols, g->d);
  const int lanczos = var && o->variance == SGP_SKI_VARIANCE_LANCZOS;
  if ((code = check_fit_arrays(ctx, sgp_ski_grid_npoints(g), weights, lanczos ? love_Ft : NULL,
                               lanczos ? love_c0 : NULL, love_rank)))
    return code;
  code = sgp_ski_predict_mean(ctx, g, stats->interpolation, o->bounds_policy, Xs, weights, mean);
  if (code) return rename_arg(ctx, code, "x", "xtest");
  if (isfinite(o->mean)) /* the weights are those of the centred targets */
    for (int64_t i = 0; i < Xs.rows; i++) mean[i] += o->mean;
  if (!var || o->variance == SGP_SKI_VARIANCE_NONE) return SGP_OK;
  if (o->variance == SGP_SKI_VARIANCE_LANCZOS) {
    sgp_ski_love lv;
    if (!love_Ft || !love_c0 || love_rank < 0)
      return sgp_fail(ctx, SGP_EINVAL, "love: the fit has no LOVE factor");
    lv.grid = *g;
    lv.interp = stats->interpolation;
    lv.m = stats->m;
    lv.rank = love_rank;
    lv.Ft = (double *)love_Ft;  /* read only: love_var does not write */
    lv.c0 = (double *)love_c0;
    lv.error = NAN;
    int64_t clamped = 0;
    code = sgp_ski_love_var(ctx, &lv, o->bounds_policy, Xs, o->noise, var, NULL, &clamped);
    if (info) info->clamped = clamped;
    return code;
  }
  if (o->variance != SGP_SKI_VARIANCE_EXACT)
    return sgp_fail(ctx, SGP_EINVAL, "variance: unknown code %d", (int)o->variance);
  sgp_ski_solve_opts so;
  sgp_ski_var_info si;
  sgp_ski_var_info_init(&si);
  sgp_ski_solve_opts_default(&so);
  so.tol = o->tol;
  so.max_iter = o->max_iter;
  if ((code = sgp_ski_stats_import(ctx, stats, &st))) return code;
  if (!(code = fit_kernel(ctx, o, g->d, &k)) && !(code = check_noise(ctx, o->noise)) &&
      !(code = grid_op(ctx, &k, g, (double)Xs.rows * ((double)o->max_iter + 2.0), &kg)))
    code = sgp_ski_var_exact(ctx, st, &kg, o->noise, o->bounds_policy, Xs, &so, var, NULL, &si);
  if (!code && info) {
    info->iterations = si.solve.iterations;
    info->converged = si.solve.converged;
    info->rel_residual = si.solve.rel_residual;
    info->stop = si.solve.stop;
    info->var_error = si.rel_error;
    info->clamped = si.clamped;
  }
  sgp_op_destroy(&kg);
  sgp_ski_stats_free(st);
  return code;
}
