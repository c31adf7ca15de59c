/* laplace_plain.c -- a gp_laplace fit as plain data (sgp_laplace_fit_plain,
 * sgp_options.h): its fields written once for both hosts, which shape the fit
 * from them (R's gp_laplace, Octave's gp_laplace.m). */
#include "laplace/lik_table.h"
#include "host/value_out.h"
#include "kernels/kernel_table.h"

#include <math.h>
#include <string.h>


/* One row per accepted solver iteration (newton from 1, iteration within it from 1,
 * total, residual, rel_residual, trace, rank, buffer, seconds). */
static sgp_value iterations_list(const sgp_laplace_history *h, sgp_value_arena *a)
{
  const int64_t n = h->n_iter;
  /* the trace is NaN where it was not computed (history_trace): NA in the hosts */
  double *trace = (double *)sgp_vo_alloc(a, (size_t)(n > 0 ? n : 1) * sizeof(double));
  for (int64_t i = 0; trace && i < n; i++)
    trace[i] = isnan(h->it_trace[i]) ? sgp_vo_na() : h->it_trace[i];
  const char *names[] = {"newton", "iteration", "total", "residual", "rel_residual", "trace",
                         "rank", "buffer", "seconds"};
  const sgp_value v[] = {
    sgp_vo_int32(a, n, h->it_newton, 1), sgp_vo_int32(a, n, h->it_iter, 0),
    sgp_vo_count(a, n, h->it_total), sgp_vo_real(a, n, h->it_resid, 0, 0),
    sgp_vo_real(a, n, h->it_rel_resid, 0, 0), sgp_vo_real(a, n, trace, 0, 0),
    sgp_vo_count(a, n, h->it_rank), sgp_vo_count(a, n, h->it_buffer),
    sgp_vo_real(a, n, h->it_time, 0, 0)};
  return sgp_vo_list(a, 9, names, v);
}

/* One row per Newton step (psi, delta, mode_error, inner_stop: a column of names in
 * Octave, kernel_products, dropped, seconds). */
static sgp_value steps_list(const sgp_laplace_history *h, sgp_value_arena *a)
{
  const int64_t n = h->n_step;
  const char **stop = (const char **)sgp_vo_alloc(a, (size_t)n * sizeof(char *));
  for (int64_t i = 0; stop && i < n; i++) stop[i] = sgp_laplace_stop_name(h->st_inner_stop[i]);
  sgp_value inner = stop ? sgp_vo_strings(a, n, stop) : sgp_vo_null();
  inner.rows = n;
  inner.cols = 1;
  const char *names[] = {"psi", "delta", "mode_error", "inner_stop", "kernel_products",
                         "dropped", "seconds"};
  const sgp_value v[] = {
    sgp_vo_real(a, n, h->st_psi, 0, 0), sgp_vo_real(a, n, h->st_delta, 0, 0),
    sgp_vo_real(a, n, h->st_mode_err, 0, 0), inner, sgp_vo_count(a, n, h->st_kprod),
    sgp_vo_count(a, n, h->st_dropped), sgp_vo_real(a, n, h->st_time, 0, 0)};
  return sgp_vo_list(a, 7, names, v);
}

/* A vector option (noise, offset) as given, or NULL. */
static sgp_value given(const sgp_cmat *m, sgp_value_arena *a)
{
  return m->data ? sgp_vo_real(a, m->rows, m->data, 0, 0) : sgp_vo_null();
}

/* The fit's lengthscales on the inputs' own scale (in the arena; NULL when it is
 * full). */
static const double *lengthscale_original(const sgp_laplace_result *fit, sgp_value_arena *a,
                                          int64_t *nk)
{
  double *ls = (double *)sgp_vo_alloc(a, (size_t)(fit->d + 1) * sizeof(double));
  *nk = 0;
  if (ls)
    sgp_laplace_lengthscale_original(fit->kernel.lengthscale, fit->kernel.n_lengthscale,
                                     fit->scale, fit->scaled, fit->d, ls, nk);
  return ls;
}

/* A vector in a row (Octave's lengthscale, centre, scale: one per column of x). */
static sgp_value row(sgp_value_arena *a, int64_t n, const double *x)
{
  sgp_value v = sgp_vo_real(a, n, x, 0, 0);
  v.rows = SGP_VO_ROW;
  return v;
}

/* The scaling of the inputs (laplace_scale.c): the kernel saw (x - centre) / scale
 * column by column, with the lengthscale(s) `lengthscale` on that scale; scaled:
 * the scale is the columns' sd (else 1); note: what was done and why. */
static sgp_value scaling_list(const sgp_laplace_result *fit, sgp_value_arena *a)
{
  const char *names[] = {"scaled", "centre", "scale", "lengthscale", "note"};
  const sgp_value v[] = {sgp_vo_flag(a, fit->scaled != 0), row(a, fit->d, fit->centre),
                         row(a, fit->d, fit->scale),
                         row(a, fit->kernel.n_lengthscale, fit->kernel.lengthscale),
                         sgp_vo_string(a, fit->scale_note)};
  return sgp_vo_list(a, 5, names, v);
}

/* The options a fit used under their argument names (the kernel: kernel,
 * lengthscale on the inputs' own scale as a row in Octave, outputscale; likelihood,
 * the policy that ran and why (policy auto's choice), n_class, the one noise value
 * used or the user's per-point values, offset, seed), its warnings with their
 * identifiers ("" when converged) and the inputs' scaling. */
static sgp_value used_list(const sgp_laplace_result *fit, const sgp_laplace_opts *o,
                           uint64_t seed, sgp_value_arena *a)
{
  char warn[SGP_LAPLACE_WARNING_SIZE], ids[128];
  sgp_laplace_warning(fit, o, warn, sizeof warn, ids, sizeof ids);
  int64_t n_ls;
  const double *ls_orig = lengthscale_original(fit, a, &n_ls);
  const sgp_value ls = row(a, n_ls, ls_orig);
  /* alpha only for the kernels that read it */
  const char *kn[] = {"kernel", "lengthscale", "outputscale", "alpha"};
  const sgp_value kv[] = {sgp_vo_string(a, sgp_kernel_names[fit->kernel.kind]), ls,
                          sgp_vo_scalar(a, fit->kernel.outputscale),
                          sgp_vo_scalar(a, fit->kernel.alpha)};
  const int nk = sgp_kernel_info_of(fit->kernel.kind)->uses_alpha ? 4 : 3;
  const double noise1 = fit->noise;
  const sgp_cmat noise = o->noise.data && o->noise.rows * o->noise.cols > 1
                             ? o->noise : sgp_cmat_of(&noise1, 1, 1);
  const int64_t C = fit->C;
  const sgp_lik_ops *ops = sgp_lik_ops_of(o->likelihood);
  /* and the likelihood's own: trials, its scalar parameter */
  const char *names[13] = {"kernel", "likelihood", "policy", "policy_reason", "n_class", "noise",
                           "offset", "seed", "warning", "warning_id", "scaling"};
  sgp_value v[13] = {
    sgp_vo_list(a, nk, kn, kv),
    sgp_vo_string(a, sgp_lik_names[o->likelihood]),
    sgp_vo_string(a, sgp_opt_choice_name("gp_laplace", "policy", fit->policy)),
    sgp_vo_string(a, fit->policy_reason),
    sgp_vo_int(a, 1, &C),
    !sgp_lik_has_noise(o->likelihood) ? sgp_vo_null() : given(&noise, a), given(&o->offset, a),
    sgp_vo_scalar(a, (double)seed), sgp_vo_string(a, warn), sgp_vo_string(a, ids),
    scaling_list(fit, a)};
  int k = 11;
  if (ops->takes_trials) {
    static const double one = 1.0;
    const sgp_cmat t1 = sgp_cmat_of(&one, 1, 1);
    names[k] = "trials";
    v[k++] = given(o->trials.data ? &o->trials : &t1, a);
  }
  if (ops->par_name) { /* the value used: learned, given or the default */
    names[k] = ops->par_name;
    v[k++] = sgp_vo_scalar(a, fit->hyper.has_dispersion ? fit->hyper.dispersion
                                                        : sgp_lik_par_of(o));
  }
  return sgp_vo_list(a, k, names, v);
}

/* The model selection with its lengthscales on the inputs' own scale, as the
 * kernel's; theta (the trace, the gradient) stays the optimizer's, on the inputs
 * the kernel saw. */
static sgp_value hyper_plain(const sgp_laplace_result *fit, sgp_value_arena *a)
{
  sgp_hyper h = fit->hyper;
  if (h.lengthscale) h.ls_report = lengthscale_original(fit, a, &h.n_ls_report);
  return sgp_hyper_plain(&h, a);
}

sgp_value sgp_laplace_fit_plain(const sgp_laplace_result *fit, const sgp_laplace_opts *o,
                                uint64_t seed, sgp_value_arena *a)
{
  const int64_t n = fit->n, C = fit->C, r = fit->r, steps = fit->newton_steps;
  const char *names[] = {"f", "var", "weights", "root", "newton_steps", "iterations",
                         "converged", "stop_reason", "inner_stop_reason", "kernel_products",
                         "history", "steps", "used", "selection"};
  const sgp_value v[] = {
    sgp_vo_real(a, n * C, fit->f, n, C), sgp_vo_real(a, n * C, fit->var, n, C),
    sgp_vo_real(a, n * C, fit->weights, n, C), sgp_vo_real(a, n * C * r, fit->root, n * C, r),
    sgp_vo_int(a, 1, &steps), sgp_vo_scalar(a, (double)fit->iterations),
    sgp_vo_flag(a, fit->converged != 0),
    sgp_vo_string(a, sgp_laplace_stop_name(fit->stop_reason)),
    sgp_vo_string(a, sgp_laplace_stop_name(fit->inner_stop_reason)),
    sgp_vo_scalar(a, (double)fit->kernel_products), iterations_list(&fit->history, a),
    steps_list(&fit->history, a), used_list(fit, o, seed, a), hyper_plain(fit, a)};
  return sgp_vo_list(a, 14, names, v);
}

sgp_value sgp_predict_result_plain(sgp_value pred, const char *type, sgp_value_arena *a)
{
  const char *names[] = {"pred", "type"};
  const sgp_value v[] = {pred, sgp_vo_string(a, type)};
  return sgp_vo_list(a, 2, names, v);
}

/* m doubles as a plain vector when C = 1, else an m x C matrix. */
static sgp_value by_latent(sgp_value_arena *a, int64_t m, int64_t C)
{
  return sgp_vo_real(a, m * C, NULL, C == 1 ? 0 : m, C == 1 ? 0 : C);
}

int sgp_laplace_predict_plain(sgp_ctx *ctx, const sgp_laplace_result *fit, sgp_cmat X,
                              sgp_cmat offset, sgp_value_arena *a, sgp_value *out)
{
  const int64_t m = X.rows, C = fit->C;
  sgp_value v[5] = {by_latent(a, m, C), by_latent(a, m, C), by_latent(a, m, C),
                    by_latent(a, m, C)};
  *out = sgp_vo_null();
  if (sgp_value_arena_failed(a)) return sgp_fail(ctx, SGP_ENOMEM, "gp_laplace: out of memory");
  int64_t unresolved = 0;
  const int st = sgp_laplace_predict_count(ctx, fit, X, offset,
                                           sgp_mat_of((double *)v[0].real, m, C),
                                           sgp_mat_of((double *)v[1].real, m, C),
                                           sgp_mat_of((double *)v[2].real, m, C),
                                           sgp_mat_of((double *)v[3].real, m, C), &unresolved);
  if (st) return st;
  /* the response: class probabilities, the rate's mean and variance, or y's variance;
   * last, the warning of unresolved variances ("" when none), which the hosts take off */
  char warning[512];
  sgp_variance_warning(unresolved, m * C, warning, sizeof warning);
  const char *names[5] = {"mean", "var"};
  int k = 2;
  const sgp_lik_ops *ops = sgp_lik_ops_of(fit->likelihood);
  if (strcmp(ops->resp_mean, "mean")) { names[k] = ops->resp_mean; v[k] = v[2]; k++; }
  if (ops->resp_var) { names[k] = ops->resp_var; v[k] = v[3]; k++; }
  names[k] = "warning";
  v[k++] = sgp_vo_string(a, warning);
  *out = sgp_vo_list(a, k, names, v);
  return sgp_value_arena_failed(a) ? sgp_fail(ctx, SGP_ENOMEM, "gp_laplace: out of memory") : SGP_OK;
}
