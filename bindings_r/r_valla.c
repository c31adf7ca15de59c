/* r_valla.c -- .Call entry points of valla (fit, predict from a plain-data fit),
 * mlp_forward, mlp_fit and valla_metrics. valla's options go by name to the
 * core's table (r_gateway.c); the R front (R/valla*.R, R/mlp_fit.R) shapes the
 * data; the checks here only guard the shapes this file relies on. */
#include "r_shim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const sgp_cmat NO_CMAT = {NULL, 0, 0, 1};
static const sgp_mat NO_MAT = {NULL, 0, 0, 1};

/* Sets ctx->errmsg like the core's sgp_fail (the shim cannot use the internal header). */
static int fail(sgp_ctx *ctx, int status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
  va_end(ap);
  return status;
}

static sgp_likelihood likelihood_arg(SEXP s)
{
  const char *l = CHAR(STRING_ELT(s, 0));
  return !strcmp(l, "softmax") ? SGP_LIK_SOFTMAX : !strcmp(l, "bernoulli") ? SGP_LIK_BERNOULLI
                                                                          : SGP_LIK_GAUSSIAN;
}

static sgp_valla_method method_arg(SEXP s)
{
  const char *m = CHAR(STRING_ELT(s, 0));
  return !strcmp(m, "lla") ? SGP_VALLA_METHOD_LLA : !strcmp(m, "ella") ? SGP_VALLA_METHOD_ELLA
                                                                      : SGP_VALLA_METHOD_VALLA;
}

static int activation_arg(sgp_ctx *ctx, SEXP s, const char *what, sgp_activation *act)
{
  if (!Rf_isString(s) || XLENGTH(s) != 1 ||
      sgp_valla_activation_from_name(CHAR(STRING_ELT(s, 0)), act))
    return fail(ctx, SGP_EINVAL, "model$%s is not a known activation", what);
  return SGP_OK;
}

/* A generic MLP view of list(weights, biases, activation, output, skip, transpose);
 * the arrays live in R_alloc memory until the .Call returns. */
static int mlp_view(sgp_ctx *ctx, SEXP m, sgp_valla_mlp *mlp)
{
  SEXP Ws = sgp_r_list_elt(m, "weights"), bs = sgp_r_list_elt(m, "biases");
  memset(mlp, 0, sizeof *mlp);
  const int L = (int)XLENGTH(Ws);
  const int tr = Rf_asLogical(sgp_r_list_elt(m, "transpose")) == TRUE;
  sgp_cmat *W = (sgp_cmat *)R_alloc((size_t)L, sizeof(sgp_cmat));
  sgp_cmat *b = (sgp_cmat *)R_alloc((size_t)L, sizeof(sgp_cmat));
  int64_t *width = (int64_t *)R_alloc((size_t)L + 1, sizeof(int64_t));
  for (int l = 0; l < L; l++) {
    W[l] = sgp_r_cmat(VECTOR_ELT(Ws, l));
    b[l] = sgp_r_cmat(VECTOR_ELT(bs, l));
    width[l] = tr ? W[l].cols : W[l].rows;
    width[l + 1] = tr ? W[l].rows : W[l].cols;
  }
  mlp->n_layers = L;
  mlp->width = width;
  mlp->W = W;
  mlp->b = b;
  mlp->transpose = tr;
  mlp->skip = Rf_isNull(sgp_r_list_elt(m, "skip")) ? NO_CMAT : sgp_r_cmat(sgp_r_list_elt(m, "skip"));
  int st = activation_arg(ctx, sgp_r_list_elt(m, "activation"), "activation", &mlp->activation);
  if (!st) st = activation_arg(ctx, sgp_r_list_elt(m, "output"), "output", &mlp->output);
  return st;
}

/* The core network of a model spec: list(kind = "nnet", n, skip, out_sigmoid, wts)
 * or a generic MLP list. */
static int net_from_r(sgp_ctx *ctx, SEXP spec, sgp_valla_net *net)
{
  if (!strcmp(CHAR(STRING_ELT(sgp_r_list_elt(spec, "kind"), 0)), "nnet")) {
    const double *n = REAL(sgp_r_list_elt(spec, "n"));
    return sgp_valla_net_from_nnet(ctx, (int64_t)n[0], (int64_t)n[1], (int64_t)n[2],
                                   Rf_asInteger(sgp_r_list_elt(spec, "skip")),
                                   Rf_asInteger(sgp_r_list_elt(spec, "out_sigmoid")),
                                   sgp_r_cmat(sgp_r_list_elt(spec, "wts")), net);
  }
  sgp_valla_mlp mlp;
  int st = mlp_view(ctx, spec, &mlp);
  return st ? st : sgp_valla_net_from_mlp(ctx, &mlp, net);
}

/* The network as plain data: list(weights, biases, activation, output, skip). */
static SEXP net_to_r(const sgp_valla_net *net)
{
  const int L = net->n_layers;
  SEXP W = PROTECT(Rf_allocVector(VECSXP, L)), b = PROTECT(Rf_allocVector(VECSXP, L));
  for (int l = 0; l < L; l++) {
    SET_VECTOR_ELT(W, l, sgp_r_real_copy(net->width[l], net->width[l + 1], net->W[l], 1));
    SET_VECTOR_ELT(b, l, sgp_r_real_copy(net->width[l + 1], 1, net->b[l], 0));
  }
  SEXP skip = net->skip ? sgp_r_real_copy(net->width[0], net->width[L], net->skip, 1) : R_NilValue;
  PROTECT(skip);
  const char *names[] = {"weights", "biases", "activation", "output", "skip"};
  SEXP values[] = {W, b, PROTECT(Rf_mkString(sgp_valla_activation_name(net->activation))),
                   PROTECT(Rf_mkString(sgp_valla_activation_name(net->output))), skip};
  SEXP out = sgp_r_named_list(5, names, values);
  UNPROTECT(5);
  return out;
}

/* Predictions at xs: list(mean, var, latent_var, prob, cov). pred = c(full_cov,
 * mc (0 probit, 1 mc), mc_samples). */
static SEXP predict_list(sgp_ctx *ctx, const sgp_valla_fit_t *fit, SEXP xs,
                         const sgp_valla_predict_opts *o, int *st)
{
  const sgp_cmat X = sgp_r_cmat(xs);
  const int n = (int)X.rows, C = (int)fit->C, K = (int)fit->n_class;
  const int full_cov = o->full_cov, mc = o->mc;
  const int cls = fit->likelihood != SGP_LIK_GAUSSIAN;
  SEXP mean = PROTECT(Rf_allocMatrix(REALSXP, n, C)), var = PROTECT(Rf_allocMatrix(REALSXP, n, C));
  SEXP lv = PROTECT(Rf_allocMatrix(REALSXP, n, C));
  SEXP prob = PROTECT(cls ? Rf_allocMatrix(REALSXP, n, K) : R_NilValue);
  SEXP cov = PROTECT(full_cov ? Rf_allocMatrix(REALSXP, C * C, n) : R_NilValue);
  *st = sgp_valla_predict(ctx, fit, X, sgp_r_mat(mean), sgp_r_mat(var), sgp_r_mat(lv),
                          cls && !mc ? sgp_r_mat(prob) : NO_MAT, full_cov ? sgp_r_mat(cov) : NO_MAT);
  if (!*st && cls && mc) *st = sgp_valla_predict_mc(ctx, fit, X, o->mc_samples, sgp_r_mat(prob));
  SEXP type = PROTECT(Rf_mkString(sgp_opt_choice_name("valla_predict", "type", o->type)));
  const char *names[] = {"mean", "var", "latent_var", "prob", "cov", "type"};
  SEXP values[] = {mean, var, lv, prob, cov, type};
  SEXP out = sgp_r_named_list(6, names, values);
  UNPROTECT(6);
  return out;
}

/* The stop fields of a training result: stop_reason, its advice for a warning
 * ("" when nothing went wrong) and diverged_at. */
static void stop_fields(sgp_valla_stop stop, int64_t diverged_at, SEXP *reason, SEXP *advice,
                        SEXP *at)
{
  *reason = PROTECT(Rf_mkString(sgp_valla_stop_name(stop)));
  *advice = PROTECT(Rf_mkString(sgp_valla_stop_advice(stop)));
  *at = PROTECT(Rf_ScalarReal((double)diverged_at));
}

/* The fit as plain data (everything predict needs, plus traces). */
static SEXP fit_to_r(const sgp_valla_fit_t *fit, SEXP test)
{
  const int64_t M = fit->M;
  SEXP vi = PROTECT(Rf_allocVector(REALSXP, (R_xlen_t)fit->n_eval));
  for (int64_t i = 0; i < fit->n_eval; i++) REAL(vi)[i] = (double)fit->trace_val_iter[i];
  const char *hn[] = {"objective", "val_iteration", "val_nll"};
  SEXP hv[] = {PROTECT(sgp_r_real_copy(fit->trace_obj ? fit->iterations : 0, 1, fit->trace_obj, 0)), vi,
               PROTECT(sgp_r_real_copy(fit->n_eval, 1, fit->trace_val, 0))};
  SEXP hist = PROTECT(sgp_r_named_list(3, hn, hv));
  const char *names[] = {"model", "inducing", "tags", "L", "P1", "P2", "prior", "prior_var",
                         "noise", "y_mean", "y_sd", "layers", "iterations", "best_iteration",
                         "stopped_early", "clamps", "kernel_cache", "n_train", "history", "test",
                         "stop_reason", "advice", "diverged_at"};
  SEXP values[] = {
    PROTECT(net_to_r(&fit->net)), PROTECT(sgp_r_real_copy(M, fit->D, fit->Z, 1)),
    PROTECT(sgp_r_int_copy(M, fit->tags, 1)),
    PROTECT(fit->L ? sgp_r_real_copy(M, M, fit->L, 1) : R_NilValue),
    PROTECT(fit->P1 ? sgp_r_real_copy(M, M, fit->P1, 1) : R_NilValue),
    PROTECT(fit->P2 ? sgp_r_real_copy(M, M, fit->P2, 1) : R_NilValue),
    PROTECT(Rf_ScalarLogical(fit->prior)), PROTECT(Rf_ScalarReal(sgp_valla_fit_prior_var(fit))),
    PROTECT(Rf_ScalarReal(sgp_valla_fit_noise(fit))), PROTECT(Rf_ScalarReal(fit->y_mean)),
    PROTECT(Rf_ScalarReal(fit->y_sd)),
    PROTECT(fit->layers ? sgp_r_int_copy(fit->net.n_layers, fit->layers, 0) : R_NilValue),
    PROTECT(Rf_ScalarReal((double)fit->iterations)), PROTECT(Rf_ScalarReal((double)fit->best_iteration)),
    PROTECT(Rf_ScalarLogical(fit->stopped_early)), PROTECT(Rf_ScalarReal((double)fit->clamps)),
    PROTECT(Rf_ScalarLogical(fit->kernel_cache)), PROTECT(Rf_ScalarReal((double)fit->N)), hist, test,
    R_NilValue, R_NilValue, R_NilValue};
  stop_fields(fit->stop, fit->diverged_at, &values[20], &values[21], &values[22]);
  SEXP out = sgp_r_named_list(23, names, values);
  UNPROTECT(25);
  return out;
}

/* The options a valla fit used, echoed under their argument names (likelihood,
 * method, closed_form, seed), its warning ("" when nothing went wrong) and its
 * overfitting warning (overfit, "" when none). */
static SEXP used_list(const sgp_ctx *ctx, const sgp_valla_opts *o, const sgp_valla_fit_t *fit)
{
  char warn[512], over[512];
  sgp_valla_stop_warning(fit->stop, fit->diverged_at, warn, sizeof warn);
  sgp_valla_overfit_warning(fit, over, sizeof over);
  const char *names[] = {"likelihood", "method", "closed_form", "seed", "warning", "overfit"};
  SEXP values[] = {PROTECT(Rf_mkString(sgp_opt_choice_name("gp_laplace", "likelihood", o->likelihood))), PROTECT(Rf_mkString(sgp_opt_choice_name("valla", "method", o->method))),
                   PROTECT(Rf_ScalarLogical(o->closed_form != 0)),
                   PROTECT(Rf_ScalarReal((double)ctx->seed)), PROTECT(Rf_mkString(warn)),
                   PROTECT(Rf_mkString(over))};
  SEXP out = sgp_r_named_list(6, names, values);
  UNPROTECT(6);
  return out;
}

/* valla(): opts, the user's options by name (sgp_options.h: the core's table
 * "valla" and the context's); the data: inducing NULL or an M x D matrix, tags
 * NULL or M integers 0..C-1, layers NULL or n_layers integers, xtest (or NULL)
 * with pred, its options by name (the core's table "valla_predict": full_cov,
 * prob_method, mc_samples); interrupt_after (tests): report an
 * interrupt after that many polls. Returns the fit as plain data with `used`. */
SEXP sgp_valla_fit_r(SEXP model, SEXP x, SEXP y, SEXP xval, SEXP yval, SEXP inducing, SEXP tags,
                     SEXP layers, SEXP xtest, SEXP pred, SEXP opts, SEXP interrupt_after)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_valla_opts o;
  sgp_valla_net net;
  sgp_valla_fit_t *fit = NULL;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, interrupt_after);
  sgp_valla_opts_default(&o);
  sgp_valla_predict_opts po; /* xtest's: full_cov, prob_method, mc_samples */
  sgp_valla_predict_opts_default(&po);
  int st = sgp_r_apply_options(&ctx, "valla", opts, &o);
  if (!st) st = sgp_valla_opts_check(&ctx, &o);
  if (!st) st = sgp_r_apply_options(&ctx, "valla_predict", pred, &po);
  if (st) sgp_r_fail("valla", &ctx, st);
  if (!Rf_isNull(inducing)) o.inducing = sgp_r_cmat(inducing);
  if (!Rf_isNull(tags)) o.inducing_tags = INTEGER(tags);
  if (!Rf_isNull(layers)) o.layers = INTEGER(layers);
  st = net_from_r(&ctx, model, &net);
  if (st) sgp_r_fail("valla", &ctx, st);
  st = sgp_valla_fit(&ctx, &net, sgp_r_cmat(x), sgp_r_cmat(y),
                     Rf_isNull(xval) ? NO_CMAT : sgp_r_cmat(xval),
                     Rf_isNull(yval) ? NO_CMAT : sgp_r_cmat(yval), &o, &fit);
  sgp_valla_net_free(&net);
  if (st) sgp_r_fail("valla", &ctx, st);
  /* from here on the fit must be freed before any R error */
  SEXP test = PROTECT(Rf_isNull(xtest) ? R_NilValue : predict_list(&ctx, fit, xtest, &po, &st));
  if (st) {
    sgp_valla_fit_free(fit);
    sgp_r_fail("valla", &ctx, st);
  }
  SEXP out = PROTECT(fit_to_r(fit, test));
  SEXP used = PROTECT(used_list(&ctx, &o, fit));
  sgp_valla_fit_free(fit);
  SEXP res = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(res, 0, out);
  SET_VECTOR_ELT(res, 1, used);
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, 2));
  SET_STRING_ELT(nm, 0, Rf_mkChar("fit"));
  SET_STRING_ELT(nm, 1, Rf_mkChar("used"));
  Rf_setAttrib(res, R_NamesSymbol, nm);
  UNPROTECT(5);
  return res;
}

/* predict.valla(): predictions from the plain data of a fit. fit is the R list
 * (model, inducing, tags, layers, P1, P2, prior, prior_var, noise, y_mean, y_sd,
 * likelihood, method). */
SEXP sgp_valla_predict_r(SEXP rfit, SEXP xnew, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_valla_predict_opts o;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_valla_mlp mlp;
  sgp_valla_fit_data d;
  memset(&d, 0, sizeof d);
  d.likelihood = likelihood_arg(sgp_r_list_elt(rfit, "likelihood"));
  sgp_valla_predict_opts_default(&o);
  int st = sgp_r_apply_options(&ctx, "valla_predict", opts, &o);
  if (!st) st = sgp_valla_predict_check(&ctx, d.likelihood, &o);
  if (st) sgp_r_fail("predict.valla", &ctx, st);
  d.method = method_arg(sgp_r_list_elt(rfit, "method"));
  SEXP Z = sgp_r_list_elt(rfit, "inducing"), tg = sgp_r_list_elt(rfit, "tags"), ly = sgp_r_list_elt(rfit, "layers");
  d.inducing = sgp_r_cmat(Z);
  int *tags = (int *)R_alloc((size_t)d.inducing.rows + 1, sizeof(int));
  if (XLENGTH(tg) != d.inducing.rows) Rf_error("predict.valla: 'tags' must have one entry per row of 'inducing'");
  for (R_xlen_t m = 0; m < XLENGTH(tg); m++) tags[m] = INTEGER(tg)[m] - 1;
  d.tags = tags;
  d.layers = Rf_isNull(ly) ? NULL : INTEGER(ly);
  d.P1 = Rf_isNull(sgp_r_list_elt(rfit, "P1")) ? NO_CMAT : sgp_r_cmat(sgp_r_list_elt(rfit, "P1"));
  d.P2 = Rf_isNull(sgp_r_list_elt(rfit, "P2")) ? NO_CMAT : sgp_r_cmat(sgp_r_list_elt(rfit, "P2"));
  d.prior = Rf_asLogical(sgp_r_list_elt(rfit, "prior")) == TRUE;
  d.closed_form = Rf_asLogical(sgp_r_list_elt(rfit, "closed_form")) == TRUE;
  d.prior_var = Rf_asReal(sgp_r_list_elt(rfit, "prior_var"));
  d.noise = Rf_asReal(sgp_r_list_elt(rfit, "noise"));
  d.y_mean = Rf_asReal(sgp_r_list_elt(rfit, "y_mean"));
  d.y_sd = Rf_asReal(sgp_r_list_elt(rfit, "y_sd"));
  sgp_valla_fit_t *fit = NULL;
  st = mlp_view(&ctx, sgp_r_list_elt(rfit, "model"), &mlp);
  if (!st && d.layers && XLENGTH(ly) != mlp.n_layers)
    st = fail(&ctx, SGP_EINVAL, "layers must have one flag per layer");
  if (!st) st = sgp_valla_fit_from_data(&ctx, &mlp, &d, &fit);
  if (st) sgp_r_fail("predict.valla", &ctx, st);
  SEXP out = PROTECT(predict_list(&ctx, fit, xnew, &o, &st));
  sgp_valla_fit_free(fit);
  if (st) sgp_r_fail("predict.valla", &ctx, st);
  UNPROTECT(1);
  return out;
}

/* The check of a valla fit given back as plain data (predict, print, summary,
 * plot): the core's, errors naming the field of `arg` for function `fn`. */
SEXP sgp_valla_fit_check_r(SEXP object, SEXP fn, SEXP arg)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  const sgp_value fit = sgp_r_value(object);
  const int st = sgp_valla_fit_check(&ctx, &fit, CHAR(STRING_ELT(arg, 0)), "$");
  if (st) sgp_r_fail(CHAR(STRING_ELT(fn, 0)), &ctx, st);
  return R_NilValue;
}

/* mlp_forward(): network outputs (n x C) of a model spec at x. */
SEXP sgp_valla_forward_r(SEXP model, SEXP x, SEXP threads)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_valla_net net;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, threads, R_NilValue);
  int st = net_from_r(&ctx, model, &net);
  if (st) sgp_r_fail("mlp_forward", &ctx, st);
  const sgp_cmat X = sgp_r_cmat(x);
  SEXP G = PROTECT(Rf_allocMatrix(REALSXP, (int)X.rows, (int)net.width[net.n_layers]));
  st = sgp_valla_forward(&ctx, &net, X, sgp_r_mat(G));
  sgp_valla_net_free(&net);
  if (st) sgp_r_fail("mlp_forward", &ctx, st);
  UNPROTECT(1);
  return G;
}

/* mlp_fit(): width = c(D, hidden..., C) as doubles; opts, the user's options by
 * name (the core's table "mlp_fit" and the context's). Returns list(model, loss,
 * initial_loss, iterations, stop_reason, advice, diverged_at, used), used =
 * list(likelihood, seed, warning). */
SEXP sgp_mlp_fit_r(SEXP x, SEXP y, SEXP width, SEXP activation, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_valla_net net;
  sgp_valla_mlp_fit_opts o;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_valla_mlp_fit_opts_default(&o);
  int st = sgp_r_apply_options(&ctx, "mlp_fit", opts, &o);
  if (st) sgp_r_fail("mlp_fit", &ctx, st);
  const int L = (int)XLENGTH(width) - 1;
  int64_t *w = (int64_t *)R_alloc((size_t)L + 1, sizeof(int64_t));
  for (int l = 0; l <= L; l++) w[l] = (int64_t)REAL(width)[l]; /* whole numbers <= 2^53 (R) */
  const int64_t n = Rf_nrows(x), nb = o.batch_size < n ? o.batch_size : n;
  sgp_activation act;
  st = activation_arg(&ctx, activation, "activation", &act);
  if (!st) st = sgp_valla_mlp_check_size(&ctx, L, w, 0, nb); /* before anything is allocated */
  if (!st) st = sgp_valla_net_new(&ctx, L, w, act, &net);
  if (st) sgp_r_fail("mlp_fit", &ctx, st);
  sgp_valla_mlp_fit_info info;
  st = sgp_valla_mlp_fit(&ctx, &net, sgp_r_cmat(x), sgp_r_cmat(y), &o, &info);
  if (st) {
    sgp_valla_net_free(&net);
    sgp_r_fail("mlp_fit", &ctx, st);
  }
  SEXP m = PROTECT(net_to_r(&net));
  sgp_valla_net_free(&net);
  char warn[512];
  sgp_valla_stop_warning(info.stop, info.diverged_at, warn, sizeof warn);
  const char *un[] = {"likelihood", "seed", "warning"};
  SEXP uv[] = {PROTECT(Rf_mkString(sgp_opt_choice_name("gp_laplace", "likelihood", o.likelihood))), PROTECT(Rf_ScalarReal((double)ctx.seed)),
               PROTECT(Rf_mkString(warn))};
  SEXP used = PROTECT(sgp_r_named_list(3, un, uv));
  const char *names[] = {"model", "loss", "initial_loss", "iterations", "stop_reason", "advice",
                         "diverged_at", "used"};
  SEXP values[8] = {m, PROTECT(Rf_ScalarReal(info.final_loss)),
                    PROTECT(Rf_ScalarReal(info.initial_loss)),
                    PROTECT(Rf_ScalarReal((double)info.iterations))};
  stop_fields(info.stop, info.diverged_at, &values[4], &values[5], &values[6]);
  values[7] = used;
  SEXP out = sgp_r_named_list(8, names, values);
  UNPROTECT(11);
  return out;
}

/* valla_metrics(): the core reads pred (a list of mean and var or of prob, n-by-C
 * probabilities, P(y = 1), or means with var), codes the labels, checks every
 * input (messages name pred, y, var, bins) and names the metrics. */
SEXP sgp_valla_metrics_r(SEXP pred, SEXP y, SEXP var, SEXP bins)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  const sgp_value p = sgp_r_value(pred), yv = sgp_r_value(y), v = sgp_r_value(var),
                  b = sgp_r_value(bins);
  const char *const opt[] = {"bins"};
  double out[5];
  int count = 0;
  const char *const *names = NULL;
  const int st = sgp_valla_metrics_of(&ctx, &p, &yv, &v, 1, opt, &b, out, &count, &names);
  if (st) sgp_r_fail("valla_metrics", &ctx, st);
  SEXP vals[5];
  for (int k = 0; k < count; k++) vals[k] = PROTECT(Rf_ScalarReal(isnan(out[k]) ? NA_REAL : out[k]));
  SEXP res = sgp_r_named_list(count, (const char **)names, vals);
  UNPROTECT(count);
  return res;
}
