/* r_laplace.c -- .Call entry points of gp_laplace: the fit (with optional test
 * predictions) and predictions from a plain-data fit (a reloaded R list). */
#include "r_shim.h"

#include <math.h>
#include <string.h>

static SEXP int64_vec(int64_t n, const int64_t *x)
{
  SEXP v = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)n));
  for (int64_t i = 0; i < n; i++) REAL(v)[i] = (double)x[i];
  UNPROTECT(1);
  return v;
}

static SEXP stop_names(int64_t n, const int *x)
{
  SEXP v = PROTECT(Rf_allocVector(STRSXP, (R_xlen_t)n));
  for (int64_t i = 0; i < n; i++) SET_STRING_ELT(v, i, Rf_mkChar(sgp_laplace_stop_name(x[i])));
  UNPROTECT(1);
  return v;
}

/* Per-iteration and per-Newton-step history as two named lists of columns. */
static SEXP history_list(const sgp_laplace_history *h)
{
  const int64_t ni = h->n_iter, ns = h->n_step;
  const char *in[] = {"newton", "iteration", "total", "residual", "rel_residual", "trace",
                      "rank", "buffer", "seconds"};
  SEXP iv[] = {PROTECT(sgp_r_int_copy(ni, h->it_newton, 1)),
               PROTECT(sgp_r_int_copy(ni, h->it_iter, 0)),
               PROTECT(int64_vec(ni, h->it_total)),
               PROTECT(sgp_r_real_copy(ni, 1, h->it_resid, 0)),
               PROTECT(sgp_r_real_copy(ni, 1, h->it_rel_resid, 0)),
               PROTECT(sgp_r_real_copy(ni, 1, h->it_trace, 0)),
               PROTECT(int64_vec(ni, h->it_rank)),
               PROTECT(int64_vec(ni, h->it_buffer)),
               PROTECT(sgp_r_real_copy(ni, 1, h->it_time, 0))};
  /* the trace is NaN in the core where it was not computed (history_trace): NA here */
  for (int64_t i = 0; i < ni; i++)
    if (ISNAN(REAL(iv[5])[i])) REAL(iv[5])[i] = NA_REAL;
  SEXP iters = PROTECT(sgp_r_named_list(9, in, iv));
  const char *sn[] = {"psi", "delta", "mode_error", "inner_stop", "kernel_products", "dropped",
                      "seconds"};
  SEXP sv[] = {PROTECT(sgp_r_real_copy(ns, 1, h->st_psi, 0)),
               PROTECT(sgp_r_real_copy(ns, 1, h->st_delta, 0)),
               PROTECT(sgp_r_real_copy(ns, 1, h->st_mode_err, 0)),
               PROTECT(stop_names(ns, h->st_inner_stop)),
               PROTECT(int64_vec(ns, h->st_kprod)),
               PROTECT(int64_vec(ns, h->st_dropped)),
               PROTECT(sgp_r_real_copy(ns, 1, h->st_time, 0))};
  SEXP steps = PROTECT(sgp_r_named_list(7, sn, sv));
  const char *nn[] = {"iterations", "steps"};
  SEXP vv[] = {iters, steps};
  SEXP out = sgp_r_named_list(2, nn, vv);
  UNPROTECT(18);
  return out;
}

/* Predictions at xs for a fit (owning or view): list(mean, var, resp_mean, resp_var). */
static SEXP predict_list(sgp_ctx *ctx, const sgp_laplace_fit_t *fit, SEXP xs, SEXP offset_s,
                         int *status)
{
  const sgp_cmat Xs = sgp_r_cmat(xs);
  const int ns = (int)Xs.rows, C = (int)fit->C;
  SEXP mean = PROTECT(Rf_allocMatrix(REALSXP, ns, C));
  SEXP var = PROTECT(Rf_allocMatrix(REALSXP, ns, C));
  SEXP rm = PROTECT(Rf_allocMatrix(REALSXP, ns, C));
  SEXP rv = PROTECT(Rf_allocMatrix(REALSXP, ns, C));
  const sgp_cmat off = Rf_isNull(offset_s) ? sgp_cmat_of(NULL, 0, 0) : sgp_r_cmat(offset_s);
  *status = sgp_laplace_predict(ctx, fit, Xs, off, sgp_r_mat(mean), sgp_r_mat(var),
                                sgp_r_mat(rm), sgp_r_mat(rv));
  const char *names[] = {"mean", "var", "resp_mean", "resp_var"};
  SEXP values[] = {mean, var, rm, rv};
  SEXP out = sgp_r_named_list(4, names, values);
  UNPROTECT(4);
  return out;
}

/* The core fit lives in an external pointer while R objects are allocated from it,
 * so an R error (allocation failure, interrupt) lets the finalizer free it. */
static void fit_finalizer(SEXP p)
{
  sgp_laplace_fit_t *fit = (sgp_laplace_fit_t *)R_ExternalPtrAddr(p);
  if (fit) sgp_laplace_fit_free(fit);
  R_ClearExternalPtr(p);
}

/* The options a fit used, echoed under their argument names (the kernel list,
 * likelihood, policy, n_class, noise, offset, seed), and its warning ("" when
 * converged). */
static SEXP used_list(const sgp_ctx *ctx, const sgp_laplace_opts *o,
                      const sgp_laplace_fit_t *fit)
{
  char warn[SGP_LAPLACE_WARNING_SIZE];
  sgp_laplace_warning(fit, o, warn, sizeof warn, NULL, 0);
  const char *kn[] = {"kernel", "lengthscale", "outputscale"};
  SEXP kv[] = {PROTECT(Rf_mkString(sgp_kernel_names[fit->kernel.kind])),
               PROTECT(sgp_r_real_copy(fit->kernel.n_lengthscale, 1, fit->kernel.lengthscale, 0)),
               PROTECT(Rf_ScalarReal(fit->kernel.outputscale))};
  const double noise1 = fit->noise; /* the one noise value used (given or learned) */
  const sgp_cmat noise = o->noise.data && o->noise.rows * o->noise.cols > 1
                             ? o->noise : sgp_cmat_of(&noise1, 1, 1),
                 off = o->offset;
  const char *un[] = {"kernel", "likelihood", "policy", "n_class", "noise", "offset", "seed",
                      "warning"};
  SEXP uv[] = {PROTECT(sgp_r_named_list(3, kn, kv)), PROTECT(Rf_mkString(sgp_opt_choice_name("gp_laplace", "likelihood", o->likelihood))),
               PROTECT(Rf_mkString(sgp_opt_choice_name("gp_laplace", "policy", o->policy))), PROTECT(Rf_ScalarInteger((int)fit->C)),
               o->likelihood != SGP_LIK_GAUSSIAN ? R_NilValue
               : PROTECT(sgp_r_real_copy(noise.rows, 1, noise.data, 0)),
               off.data ? PROTECT(sgp_r_real_copy(off.rows, 1, off.data, 0)) : R_NilValue,
               PROTECT(Rf_ScalarReal((double)ctx->seed)), PROTECT(Rf_mkString(warn))};
  const int nprot = 9 + (o->likelihood == SGP_LIK_GAUSSIAN) + (off.data != NULL);
  SEXP out = sgp_r_named_list(8, un, uv);
  UNPROTECT(nprot);
  return out;
}

/* gp_laplace(): the fit. opts: the user's options by name (sgp_options.h); the
 * data x, y (labels as numbers), xtest and xtest_offset (or NULL). */
SEXP sgp_laplace_fit_r(SEXP x, SEXP y, SEXP xtest, SEXP xtest_offset, SEXP opts,
                       SEXP interrupt_after)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_laplace_opts o;
  sgp_laplace_fit_t *fit = NULL;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, interrupt_after);
  sgp_laplace_opts_default(&o);
  int st = sgp_r_apply_options(&ctx, "gp_laplace", opts, &o);
  if (st) sgp_r_fail("gp_laplace", &ctx, st);
  /* the core fit is handed to this holder (allocated before the fit, so that no R
   * allocation can fail while the fit is unowned) and freed by the GC on an R error */
  SEXP holder = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizer(holder, fit_finalizer);
  int nprot = 1;
  st = sgp_laplace_fit(&ctx, sgp_r_cmat(x), sgp_r_cmat(y), sgp_cmat_of(NULL, 0, 0), &o, &fit);
  if (st) {
    sgp_laplace_fit_free(fit);
    sgp_r_fail("gp_laplace", &ctx, st);
  }
  R_SetExternalPtrAddr(holder, fit);
  const int n = (int)fit->n, C = (int)fit->C, r = (int)fit->r;
  SEXP test = R_NilValue;
  if (!Rf_isNull(xtest)) {
    test = PROTECT(predict_list(&ctx, fit, xtest, xtest_offset, &st));
    nprot++;
    sgp_ctx_rename_arg(&ctx, "offset", "xtest_offset");
    if (st) sgp_r_fail("gp_laplace", &ctx, st);
  }
  SEXP f = PROTECT(Rf_allocMatrix(REALSXP, n, C));
  SEXP var = PROTECT(Rf_allocMatrix(REALSXP, n, C));
  SEXP w = PROTECT(Rf_allocMatrix(REALSXP, n, C));
  SEXP root = PROTECT(Rf_allocMatrix(REALSXP, n * C, r));
  nprot += 4;
  memcpy(REAL(f), fit->f, sizeof(double) * (size_t)n * C);
  memcpy(REAL(var), fit->var, sizeof(double) * (size_t)n * C);
  memcpy(REAL(w), fit->weights, sizeof(double) * (size_t)n * C);
  if (r > 0) memcpy(REAL(root), fit->root, sizeof(double) * (size_t)n * C * r);
  const char *names[] = {"f", "var", "weights", "root", "newton_steps", "iterations",
                         "converged", "stop_reason", "inner_stop_reason", "kernel_products",
                         "history", "test", "used", "selection"};
  SEXP values[] = {f, var, w, root, PROTECT(Rf_ScalarInteger(fit->newton_steps)),
                   PROTECT(Rf_ScalarReal((double)fit->iterations)),
                   PROTECT(Rf_ScalarLogical(fit->converged)),
                   PROTECT(Rf_mkString(sgp_laplace_stop_name(fit->stop_reason))),
                   PROTECT(Rf_mkString(sgp_laplace_stop_name(fit->inner_stop_reason))),
                   PROTECT(Rf_ScalarReal((double)fit->kernel_products)),
                   PROTECT(history_list(&fit->history)), test,
                   PROTECT(used_list(&ctx, &o, fit)), PROTECT(sgp_r_selection_list(&fit->hyper))};
  nprot += 9;
  fit_finalizer(holder);
  SEXP out = sgp_r_named_list(14, names, values);
  UNPROTECT(nprot);
  return out;
}

/* predict.gp_laplace() (and the check of print, summary, plot): the core checks
 * the fit `object` (plain data, named `arg` in errors of function `fn`), the
 * options (offset, type, threads) and newdata, then predicts: list(mean, var,
 * resp_mean, resp_var, type). newdata NULL: the check only (returns NULL). */
SEXP sgp_laplace_predict_r(SEXP object, SEXP fn_s, SEXP arg_s, SEXP newdata, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_kernel k;
  sgp_laplace_fit_t view;
  sgp_laplace_predict_opts o;
  const char *fn = CHAR(STRING_ELT(fn_s, 0));
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_laplace_predict_opts_default(&o);
  const sgp_value fit = sgp_r_value(object);
  int st = sgp_laplace_fit_check(&ctx, &fit, CHAR(STRING_ELT(arg_s, 0)), "$", &view, &k);
  if (!st) st = sgp_r_apply_options(&ctx, "gp_laplace_predict", opts, &o);
  if (!st && !Rf_isNull(newdata))
    st = sgp_laplace_predict_check(&ctx, &view, &o, sgp_r_cmat(newdata).rows);
  if (st) sgp_r_fail(fn, &ctx, st);
  if (Rf_isNull(newdata)) return R_NilValue;
  SEXP off = PROTECT(o.offset.data ? sgp_r_real_copy(o.offset.rows, 1, o.offset.data, 0)
                                   : R_NilValue);
  SEXP out = PROTECT(predict_list(&ctx, &view, newdata, off, &st));
  sgp_ctx_rename_arg(&ctx, "xtest", "newdata");
  if (st) sgp_r_fail(fn, &ctx, st);
  SEXP type = PROTECT(Rf_mkString(sgp_opt_choice_name("gp_laplace_predict", "type", o.type)));
  SEXP res = PROTECT(Rf_allocVector(VECSXP, 5)), names = PROTECT(Rf_allocVector(STRSXP, 5));
  const char *nm[] = {"mean", "var", "resp_mean", "resp_var", "type"};
  for (int i = 0; i < 5; i++) {
    SET_VECTOR_ELT(res, i, i < 4 ? VECTOR_ELT(out, i) : type);
    SET_STRING_ELT(names, i, Rf_mkChar(nm[i]));
  }
  Rf_setAttrib(res, R_NamesSymbol, names);
  UNPROTECT(5);
  return res;
}
