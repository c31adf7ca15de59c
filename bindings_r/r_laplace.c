/* r_laplace.c -- .Call entry points of gp_laplace: the fit (with optional test
 * predictions) and predictions from a plain-data fit (a reloaded R list). */
#include "r_shim.h"

#include <math.h>
#include <string.h>

typedef struct {
  sgp_ctx *ctx;
  const sgp_laplace_result *fit;
  sgp_cmat X, offset;
  const char *type;   /* predict: list(pred, type); NULL: the predictions */
} predict_args;

static int predict_plain(const void *p, sgp_value_arena *a, sgp_value *out)
{
  const predict_args *q = (const predict_args *)p;
  const int st = sgp_laplace_predict_plain(q->ctx, q->fit, q->X, q->offset, a, out);
  if (!st && q->type) *out = sgp_predict_result_plain(*out, q->type, a);
  return st;
}

typedef struct {
  sgp_ctx *ctx;
  const sgp_value *fit;
} train_args;

static int train_plain(const void *p, sgp_value_arena *a, sgp_value *out)
{
  const train_args *t = (const train_args *)p;
  return sgp_laplace_train_plain(t->ctx, t->fit, a, out);
}

/* The core fit lives in an external pointer while R objects are allocated from it,
 * so an R error (allocation failure, interrupt) lets the finalizer free it. */
static void fit_finalizer(SEXP p)
{
  sgp_laplace_result *fit = (sgp_laplace_result *)R_ExternalPtrAddr(p);
  if (fit) sgp_laplace_fit_free(fit);
  R_ClearExternalPtr(p);
}

typedef struct {
  const sgp_laplace_result *fit;
  const sgp_laplace_opts *o;
  uint64_t seed;
} plain_args;

static sgp_value fit_plain(const void *p, sgp_value_arena *a)
{
  const plain_args *q = (const plain_args *)p;
  return sgp_laplace_fit_plain(q->fit, q->o, q->seed, a);
}

/* gp_laplace(): the fit. opts: the user's options by name (sgp_options.h); the
 * data x, y (labels as numbers), xtest and xtest_offset (or NULL). */
SEXP sgp_laplace_fit_r(SEXP x, SEXP y, SEXP xtest, SEXP xtest_offset, SEXP opts,
                       SEXP interrupt_after)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_laplace_opts o;
  sgp_laplace_result *fit = NULL;
  sgp_r_ctx(&ctx, &hooks, R_NilValue, R_NilValue, interrupt_after);
  sgp_laplace_opts_default(&o);
  int st = sgp_ctx_test_hook(&ctx, "interrupt_after", hooks.interrupt_after);
  if (!st) st = sgp_r_apply_options(&ctx, "gp_laplace", opts, &o);
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
  SEXP test = R_NilValue;
  if (!Rf_isNull(xtest)) { /* the core's predictions (sgp_laplace_predict_plain) */
    const predict_args q = {&ctx, fit, sgp_r_cmat(xtest),
                            Rf_isNull(xtest_offset) ? sgp_cmat_of(NULL, 0, 0)
                                                    : sgp_r_cmat(xtest_offset), NULL};
    test = PROTECT(sgp_r_build_status(predict_plain, &q, &st));
    nprot++;
    sgp_ctx_rename_arg(&ctx, "offset", "xtest_offset");
    if (st) sgp_r_fail("gp_laplace", &ctx, st);
  }
  /* the fit's fields as the core writes them (sgp_laplace_fit_plain), and test */
  const plain_args q = {fit, &o, ctx.seed};
  SEXP res = PROTECT(sgp_r_build(fit_plain, &q));
  nprot++;
  fit_finalizer(holder);
  const R_xlen_t k = XLENGTH(res);
  SEXP out = PROTECT(Rf_xlengthgets(res, k + 1)); /* names kept, one more: test */
  nprot++;
  SET_VECTOR_ELT(out, k, test);
  SET_STRING_ELT(Rf_getAttrib(out, R_NamesSymbol), k, Rf_mkChar("test"));
  UNPROTECT(nprot);
  return out;
}

/* predict.gp_laplace() (and the check of print, summary, plot): the core checks
 * the fit `object` (plain data, named `arg` in errors of function `fn`), the
 * options (offset, type, threads) and newdata, then predicts: list(pred
 * (sgp_laplace_predict_plain), type). newdata NULL: the check only, returning
 * what summary and plot read (sgp_laplace_train_plain). */
SEXP sgp_laplace_predict_r(SEXP object, SEXP fn_s, SEXP arg_s, SEXP newdata, SEXP opts)
{
  sgp_ctx ctx;
  sgp_r_hooks hooks;
  sgp_kernel k;
  sgp_laplace_result view;
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
  if (Rf_isNull(newdata)) { /* the check: what summary and plot read */
    const train_args t = {&ctx, &fit};
    SEXP out = PROTECT(sgp_r_build_status(train_plain, &t, &st));
    if (st) sgp_r_fail(fn, &ctx, st);
    UNPROTECT(1);
    return out;
  }
  const predict_args q = {&ctx, &view, sgp_r_cmat(newdata), o.offset,
                          sgp_opt_choice_name("gp_laplace_predict", "type", o.type)};
  SEXP out = PROTECT(sgp_r_build_status(predict_plain, &q, &st));
  sgp_ctx_rename_arg(&ctx, "xtest", "newdata");
  if (st) sgp_r_fail(fn, &ctx, st);
  UNPROTECT(1);
  return out;
}
