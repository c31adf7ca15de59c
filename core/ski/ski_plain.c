/* ski_plain.c -- a SKI grid and SKI statistics as plain data (sgp_ski_grid_plain,
 * sgp_ski_stats_plain, the merged sgp_ski_stats_merge_plain; sgp_options.h) and a
 * ski_gsgp fit (sgp_ski_fit_plain) and its predictions (sgp_ski_predict_plain):
 * their fields written once for both hosts. */
#include "ski/ski.h"
#include "runtime/sgp_internal.h"
#include "host/value_out.h"
#include "kernels/kernel_table.h"

#include <math.h>
#include <string.h>

sgp_value sgp_ski_grid_plain(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                             const double *user_bounds, sgp_value_arena *a)
{
  const int d = g->d;
  double bounds[2 * SGP_SKI_MAX_D];
  for (int j = 0; j < d; j++) {
    /* given bounds are kept exactly (lo + (m - 1) h may round), so grids made from
     * the same bounds compare equal */
    bounds[j] = user_bounds ? user_bounds[j] : g->lo[j];
    bounds[d + j] = user_bounds ? user_bounds[d + j]
                    : g->m[j] > 1 ? g->lo[j] + (double)(g->m[j] - 1) * g->h[j] : g->lo[j];
  }
  const char *names[] = {"size", "bounds", "interpolation"};
  sgp_value v[] = {sgp_vo_int(a, d, g->m), sgp_vo_real(a, 2 * d, bounds, d, 2),
                   sgp_vo_string(a, interp == SGP_SKI_LINEAR ? "linear" : "cubic")};
  v[0].rows = SGP_VO_ROW;
  return sgp_vo_list(a, 3, names, v);
}

sgp_value sgp_ski_stats_plain(const sgp_ski_stats_data *d, const double *user_bounds,
                              sgp_value_arena *a)
{
  const int64_t m = d->m, one = 1;
  const char *names[] = {"grid", "n", "yty", "ysum", "Wty", "Wt1", "WtW", "probes",
                         "probe_seed", "rhoz", "Wtz", "version"};
  const sgp_value v[] = {
    sgp_ski_grid_plain(&d->grid, d->interpolation, user_bounds, a),
    sgp_vo_scalar(a, (double)d->n), sgp_vo_scalar(a, d->yy), sgp_vo_scalar(a, d->ysum),
    sgp_vo_real(a, m, d->uy, 0, 0), sgp_vo_real(a, m, d->u1, 0, 0),
    sgp_vo_real(a, m * d->S, d->D, m, d->S), sgp_vo_scalar(a, (double)d->probes),
    sgp_vo_scalar(a, (double)d->probe_seed), sgp_vo_scalar(a, d->rhoz),
    sgp_vo_real(a, m * d->probes, d->probes > 0 ? d->uz : NULL, m, d->probes),
    sgp_vo_int(a, 1, &one)};
  return sgp_vo_list(a, 12, names, v);
}

int sgp_ski_stats_merge_plain(sgp_ctx *ctx, int64_t k, const sgp_ski_stats_data *in,
                              const char *const *label, const sgp_value *first,
                              sgp_value_arena *a, sgp_value *out)
{
  const int64_t m = in[0].m, np = in[0].probes;
  sgp_ski_stats_sum sum;
  memset(&sum, 0, sizeof sum);
  sum.uy = (double *)sgp_vo_alloc(a, (size_t)m * sizeof(double));
  sum.u1 = (double *)sgp_vo_alloc(a, (size_t)m * sizeof(double));
  sum.D = (double *)sgp_vo_alloc(a, (size_t)(m * in[0].S) * sizeof(double));
  sum.uz = np > 0 ? (double *)sgp_vo_alloc(a, (size_t)(m * np) * sizeof(double)) : NULL;
  *out = sgp_vo_null();
  if (sgp_value_arena_failed(a)) return sgp_fail(ctx, SGP_ENOMEM, "ski_stats_merge: out of memory");
  const int st = sgp_ski_stats_merge_data(ctx, k, in, label, &sum);
  if (st) return st;
  sgp_ski_stats_data d = in[0];
  d.n = sum.n;
  d.yy = sum.yy;
  d.ysum = sum.ysum;
  d.uy = sum.uy;
  d.u1 = sum.u1;
  d.D = sum.D;
  d.rhoz = sum.rhoz;
  d.uz = sum.uz;
  /* the first argument's grid bounds, kept exactly (sgp_ski_stats_check read them) */
  const sgp_value *g = NULL, *b = NULL;
  for (int64_t i = 0; first && first->type == SGP_VAL_LIST && first->strs && i < first->len; i++)
    if (!strcmp(first->strs[i], "grid")) g = &first->elts[i];
  for (int64_t i = 0; g && g->type == SGP_VAL_LIST && g->strs && i < g->len; i++)
    if (!strcmp(g->strs[i], "bounds")) b = &g->elts[i];
  *out = sgp_ski_stats_plain(&d, b && b->type == SGP_VAL_REAL ? b->real : NULL, a);
  return sgp_value_arena_failed(a) ? sgp_fail(ctx, SGP_ENOMEM, "ski_stats_merge: out of memory")
                                   : SGP_OK;
}

/* The options a fit used under their argument names (the lengthscale a row in
 * Octave), the context's backend, seed and verbose, and its warnings. */
static sgp_value used_list(const sgp_ctx *ctx, const sgp_ski_fit_parts *p, sgp_value_arena *a)
{
  const sgp_ski_opts *o = p->used;
  char w1[512], w2[512], w3[512], w4[512];
  sgp_ski_warnings("ski_gsgp", p->res, o, w1, w2, sizeof w1);
  sgp_ski_selection_warning("ski_gsgp", p->sel, w3, sizeof w3);
  sgp_ski_grid_warning("ski_gsgp", p->res, o, w4, sizeof w4);
  sgp_value ls = sgp_vo_real(a, o->kernel.n_lengthscale, o->kernel.lengthscale, 0, 0);
  ls.rows = SGP_VO_ROW;
  const char *names[] = {"kernel", "lengthscale", "outputscale", "noise", "method", "variance",
                         "tol", "max_iter", "bounds_policy", "backend", "seed", "slq_max_iter",
                         "precond_rank", "loglik", "loglik_method", "verbose", "warning",
                         "loglik_warning", "selection_warning", "grid_warning", "alpha"};
  const sgp_value v[] = {
    sgp_vo_string(a, sgp_kernel_names[o->kernel.kind]), ls,
    sgp_vo_scalar(a, o->kernel.outputscale), sgp_vo_scalar(a, o->noise),
    sgp_vo_string(a, sgp_opt_choice_name("ski_gsgp", "method", o->method)),
    sgp_vo_string(a, sgp_opt_choice_name("ski_gsgp", "variance", o->variance)),
    sgp_vo_scalar(a, o->tol), sgp_vo_scalar(a, (double)o->max_iter),
    sgp_vo_string(a, sgp_opt_choice_name("ski_gsgp", "bounds_policy", o->bounds_policy)),
    sgp_vo_string(a, sgp_opt_choice_name("context", "backend", ctx->backend)),
    sgp_vo_scalar(a, (double)ctx->seed), sgp_vo_scalar(a, (double)o->slq_max_iter),
    sgp_vo_scalar(a, (double)o->precond_rank), sgp_vo_flag(a, o->loglik != 0),
    /* "auto" resolved: by the grid's size, and "eigen" when the learning used it */
    sgp_vo_string(a, sgp_ski_loglik_use_exact(o->loglik_method, p->m) ? "exact"
                     : p->sel && p->sel->eigen ? "eigen" : "slq"),
    sgp_vo_flag(a, ctx->verbose != 0), sgp_vo_string(a, w1), sgp_vo_string(a, w2),
    sgp_vo_string(a, w3), sgp_vo_string(a, w4), sgp_vo_scalar(a, o->kernel.alpha)};
  /* alpha (last) only for the kernels that read it */
  return sgp_vo_list(a, sgp_kernel_info_of(o->kernel.kind)->uses_alpha ? 21 : 20, names, v);
}

sgp_value sgp_ski_fit_plain(const sgp_ctx *ctx, const sgp_ski_fit_parts *p,
                            sgp_value_arena *a)
{
  const sgp_ski_result *r = p->res;
  const int64_t m = p->m, k = r->love_rank;
  sgp_value secs = sgp_vo_real(a, 2, p->seconds, 0, 0);
  secs.rows = SGP_VO_ROW;
  const char *names[] = {"weights", "iterations", "converged", "rel_residual", "history",
                         "love_Ft", "love_c0", "love_error", "loglik", "logdet", "logdet_se",
                         "datafit", "probes_used", "loglik_converged", "stop", "interp_error",
                         "stats", "used", "selection", "loglik_se", "seconds"};
  const sgp_value v[] = {
    sgp_vo_real(a, m, r->weights, 0, 0), sgp_vo_scalar(a, (double)r->iterations),
    sgp_vo_flag(a, r->converged != 0), sgp_vo_scalar(a, r->rel_residual),
    sgp_vo_real(a, r->iterations + 1, r->history, 0, 0),
    sgp_vo_real(a, k * m, k > 0 ? r->love_Ft : NULL, k, m),
    sgp_vo_real(a, p->n_love_c0, r->love_c0, 0, 0),
    sgp_vo_scalar(a, isnan(r->love_error) ? sgp_vo_na() : r->love_error),
    sgp_vo_scalar(a, r->loglik),
    sgp_vo_scalar(a, r->logdet), sgp_vo_scalar(a, r->logdet_se), sgp_vo_scalar(a, r->datafit),
    sgp_vo_scalar(a, (double)r->probes_used), sgp_vo_flag(a, r->loglik_converged != 0),
    sgp_vo_string(a, sgp_ski_stop_name(r->stop)), sgp_vo_scalar(a, r->interp_error),
    p->stats ? sgp_ski_stats_plain(p->stats, p->grid_bounds, a) : sgp_vo_null(),
    used_list(ctx, p, a), sgp_hyper_plain(&p->sel->hyper, a),
    sgp_vo_scalar(a, p->sel->evaluated ? p->sel->loglik_se : sgp_vo_na()), secs};
  return sgp_vo_list(a, 21, names, v);
}

int sgp_ski_predict_plain(sgp_ctx *ctx, const sgp_ski_fit_view *v, const sgp_ski_predict_opts *o,
                          sgp_cmat X, const char *fn, sgp_value_arena *a, sgp_value *out)
{
  const int want_var = o->variance != SGP_SKI_VARIANCE_NONE;
  sgp_value mean = sgp_vo_real(a, X.rows, NULL, 0, 0);
  sgp_value var = want_var ? sgp_vo_real(a, X.rows, NULL, 0, 0) : sgp_vo_null();
  *out = sgp_vo_null();
  if (sgp_value_arena_failed(a)) return sgp_fail(ctx, SGP_ENOMEM, "%s: out of memory", fn);
  sgp_ski_predict_info info;
  const int st = sgp_ski_fit_predict(ctx, v, o, X, (double *)mean.real,
                                     want_var ? (double *)var.real : NULL, &info);
  if (st) return st;
  char warn[1024];
  sgp_ski_predict_warning(fn, &info, o->variance, warn, sizeof warn);
  /* converged: the variances are resolved (always with none); var_error: the
   * bound on their relative error (0 with none: no variance to be wrong; NA: not
   * known); clamped: set to 0 from below */
  if (o->variance == SGP_SKI_VARIANCE_NONE) info.var_error = 0.0;
  const char *names[] = {"mean", "var", "converged", "var_error", "clamped", "warning"};
  const sgp_value e[] = {mean, var, sgp_vo_flag(a, info.converged != 0),
                         sgp_vo_scalar(a, isnan(info.var_error) ? sgp_vo_na() : info.var_error),
                         sgp_vo_int(a, 1, &info.clamped), sgp_vo_string(a, warn)};
  *out = sgp_vo_list(a, 6, names, e);
  return sgp_value_arena_failed(a) ? sgp_fail(ctx, SGP_ENOMEM, "%s: out of memory", fn) : SGP_OK;
}
