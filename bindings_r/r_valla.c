/* r_valla.c -- .Call entry points of valla (fit, predict from a plain-data fit),
 * mlp_forward, mlp_fit and valla_metrics. valla's options go by name to the
 * core's table (r_gateway.c), networks and fits given as plain data are read by
 * the core, and results are the core's plain data (core/valla/valla_plain.c)
 * converted by sgp_r_build; the R front (R/valla*.R, R/mlp_fit.R) shapes the data. */
#include "r_shim.h"

#include <math.h>

static const sgp_cmat NO_CMAT = {NULL, 0, 0, 1};

/* The core network of a model (a generic MLP list, or list(kind = "nnet", ...)
 * from the front's nnet_spec), read and checked by the core; errors name arg. */
static int net_from_r(sgp_ctx *ctx, SEXP model, const char *arg, sgp_valla_net *net)
{
  const sgp_value v = sgp_r_value(model);
  return sgp_valla_net_from_value(ctx, &v, arg, "$", net);
}

/* What valla's results are written from (the core's builders). */
typedef struct {
  sgp_ctx *ctx;
  const sgp_valla_result *fit;
  sgp_cmat X;                       /* predictions: the inputs (data NULL: none) */
  const sgp_valla_predict_opts *po;
  const sgp_valla_opts *o;          /* a fit's plain data (NULL: predict's result) */
  sgp_cmat Xtrain;
} valla_build;

static int build_valla(const void *what, sgp_value_arena *a, sgp_value *out)
{
  const valla_build *b = (const valla_build *)what;
  if (!b->o) return sgp_valla_predict_result(b->ctx, b->fit, b->X, b->po, a, out);
  sgp_value test;
  const int st = b->X.data ? sgp_valla_predict_plain(b->ctx, b->fit, b->X, b->po, a, &test) : 0;
  const sgp_valla_fit_parts p = {b->fit, b->o, b->ctx->seed, b->Xtrain,
                                 b->X.data ? &test : NULL};
  if (!st) *out = sgp_valla_fit_plain(&p, a);
  return st;
}

/* The plain data of b (freeing fit on every path); errors name fn. */
static SEXP valla_result(const valla_build *b, sgp_valla_result *fit, const char *fn)
{
  int st;
  SEXP out = PROTECT(sgp_r_build_status(build_valla, b, &st));
  sgp_valla_fit_free(fit);
  if (st) sgp_r_fail(fn, b->ctx, st);
  UNPROTECT(1);
  return out;
}

/* valla(): opts, the user's options by name (sgp_options.h: the core's table
 * "valla" and the context's); the data: inducing NULL or an M x D matrix, tags
 * NULL or M integers 0..C-1, layers NULL or n_layers integers, xtest (or NULL)
 * with pred, its options by name (the core's table "valla_predict": full_cov,
 * prob_method, mc_samples); interrupt_after (tests): report an
 * interrupt after that many polls. Returns the core's list(fit, warning, overfit)
 * (sgp_valla_fit_plain). */
SEXP sgp_valla_fit_r(SEXP model, SEXP x, SEXP y, SEXP xval, SEXP yval, SEXP inducing, SEXP tags,
                     SEXP layers, SEXP xtest, SEXP pred, SEXP opts, SEXP interrupt_after)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_valla_opts o;
  sgp_valla_net net;
  sgp_valla_result *fit = NULL;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, interrupt_after);
  sgp_valla_opts_default(&o);
  sgp_valla_predict_opts po; /* xtest's: full_cov, prob_method, mc_samples */
  sgp_valla_predict_opts_default(&po);
  int st = sgp_ctx_test_hook(&ctx, "interrupt_after", hooks.interrupt_after);
  if (!st) st = sgp_r_apply_options(&ctx, "valla", opts, &o);
  if (!st) st = sgp_valla_opts_check(&ctx, &o);
  if (!st) st = sgp_r_apply_options(&ctx, "valla_predict", pred, &po);
  if (!st) st = net_from_r(&ctx, model, "model", &net);
  if (st) sgp_r_fail("valla", &ctx, st);
  if (!Rf_isNull(inducing)) o.inducing = sgp_r_cmat(inducing);
  if (!Rf_isNull(tags)) o.inducing_tags = INTEGER(tags);
  if (!Rf_isNull(layers)) o.layers = INTEGER(layers);
  st = sgp_valla_fit(&ctx, &net, sgp_r_cmat(x), sgp_r_cmat(y),
                     Rf_isNull(xval) ? NO_CMAT : sgp_r_cmat(xval),
                     Rf_isNull(yval) ? NO_CMAT : sgp_r_cmat(yval), &o, &fit);
  sgp_valla_net_free(&net);
  if (st) sgp_r_fail("valla", &ctx, st);
  const valla_build b = {&ctx, fit, Rf_isNull(xtest) ? NO_CMAT : sgp_r_cmat(xtest), &po, &o,
                         sgp_r_cmat(x)};
  return valla_result(&b, fit, "valla");
}

/* predict.valla(): predictions from the plain data of a fit, read and checked by
 * the core. Returns list(pred (sgp_valla_predict_plain), type). */
SEXP sgp_valla_predict_r(SEXP rfit, SEXP xnew, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_valla_predict_opts o;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  sgp_valla_predict_opts_default(&o);
  sgp_valla_result *fit = NULL;
  const sgp_value v = sgp_r_value(rfit);
  int st = sgp_r_apply_options(&ctx, "valla_predict", opts, &o);
  if (!st) st = sgp_valla_fit_read(&ctx, &v, "object", "$", &fit);
  if (!st) st = sgp_valla_predict_check(&ctx, fit->likelihood, &o);
  if (st) {
    sgp_valla_fit_free(fit);
    sgp_r_fail("predict.valla", &ctx, st);
  }
  const valla_build b = {&ctx, fit, sgp_r_cmat(xnew), &o, NULL, NO_CMAT};
  return valla_result(&b, fit, "predict.valla");
}

/* The check of a valla fit given back as plain data (predict, print, summary,
 * plot): the core's, its network included, errors naming the field of `arg` for
 * function `fn`. */
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

static sgp_value build_shape(const void *net, sgp_value_arena *a)
{
  return sgp_valla_net_shape_plain((const sgp_valla_net *)net, a);
}

/* The core's check of a network given by the user (valla, mlp_forward, a fit's
 * model): list(D, C, L), errors naming `arg` for function `fn`. */
SEXP sgp_valla_net_check_r(SEXP model, SEXP fn, SEXP arg)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_valla_net net;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, R_NilValue);
  const int st = net_from_r(&ctx, model, CHAR(STRING_ELT(arg, 0)), &net);
  if (st) sgp_r_fail(CHAR(STRING_ELT(fn, 0)), &ctx, st);
  SEXP out = PROTECT(sgp_r_build(build_shape, &net));
  sgp_valla_net_free(&net);
  UNPROTECT(1);
  return out;
}

/* mlp_forward(): network outputs (n x C) of a model at x. */
SEXP sgp_valla_forward_r(SEXP model, SEXP x, SEXP threads)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_valla_net net;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, threads, R_NilValue);
  int st = net_from_r(&ctx, model, "model", &net);
  if (st) sgp_r_fail("mlp_forward", &ctx, st);
  const sgp_cmat X = sgp_r_cmat(x);
  SEXP G = PROTECT(Rf_allocMatrix(REALSXP, (int)X.rows, (int)net.width[net.n_layers]));
  st = sgp_valla_forward(&ctx, &net, X, sgp_r_mat(G));
  sgp_valla_net_free(&net);
  if (st) sgp_r_fail("mlp_forward", &ctx, st);
  UNPROTECT(1);
  return G;
}

typedef struct {
  const sgp_valla_net *net;
  const sgp_valla_mlp_fit_info *info;
  const sgp_valla_mlp_fit_opts *o;
  uint64_t seed;
} mlp_build;

static sgp_value build_mlp(const void *what, sgp_value_arena *a)
{
  const mlp_build *m = (const mlp_build *)what;
  return sgp_valla_mlp_fit_plain(m->net, m->info, m->o, m->seed, a);
}

/* mlp_fit(): width = c(D, hidden..., C) as doubles; activation checked by the
 * front; opts, the user's options by name (the core's table "mlp_fit" and the
 * context's). Returns the core's sgp_valla_mlp_fit_plain. */
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
  sgp_activation act = SGP_ACT_TANH;
  sgp_valla_activation_from_name(CHAR(STRING_ELT(activation, 0)), &act);
  st = sgp_valla_mlp_check_size(&ctx, L, w, 0, nb); /* before anything is allocated */
  if (!st) st = sgp_valla_net_new(&ctx, L, w, act, &net);
  if (st) sgp_r_fail("mlp_fit", &ctx, st);
  sgp_valla_mlp_fit_info info;
  st = sgp_valla_mlp_fit(&ctx, &net, sgp_r_cmat(x), sgp_r_cmat(y), &o, &info);
  if (st) {
    sgp_valla_net_free(&net);
    sgp_r_fail("mlp_fit", &ctx, st);
  }
  const mlp_build m = {&net, &info, &o, ctx.seed};
  SEXP out = PROTECT(sgp_r_build(build_mlp, &m));
  sgp_valla_net_free(&net);
  UNPROTECT(1);
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
