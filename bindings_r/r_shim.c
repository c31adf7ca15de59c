/* r_shim.c -- context hooks and conversions shared by the R entry points. */
#include "r_shim.h"

#include <R_ext/Utils.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double sgp_r_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void r_print(void *ud, const char *msg)
{
  (void)ud;
  Rprintf("%s\n", msg);
}

static void check_interrupt(void *unused)
{
  (void)unused;
  R_CheckUserInterrupt();
}

static int r_interrupt(void *ud)
{
  sgp_r_hooks *h = (sgp_r_hooks *)ud;
  if (h->interrupt_after >= 0 && h->polls++ >= h->interrupt_after) return 1;
  /* R_ToplevelExec returns FALSE when R_CheckUserInterrupt wanted to jump. */
  return R_ToplevelExec(check_interrupt, NULL) == FALSE;
}

static void r_progress(void *ud, const char *task, double fraction)
{
  sgp_r_hooks *h = (sgp_r_hooks *)ud;
  const double now = sgp_r_seconds();
  if (fraction >= 1.0) {
    if (!h->progress_shown) return; /* a task under a second stays quiet */
    h->progress_shown = 0;
  } else if (now - h->last_progress < 1.0) {
    return;
  } else {
    h->progress_shown = 1;
  }
  h->last_progress = now;
  Rprintf("%s: %3.0f%%\n", task, 100.0 * fraction);
}

void sgp_r_ctx(sgp_ctx *ctx, sgp_r_hooks *hooks, SEXP verbose, SEXP threads,
               SEXP interrupt_after)
{
  sgp_ctx_init(ctx);
  hooks->interrupt_after = Rf_isNull(interrupt_after) ? -1 : Rf_asInteger(interrupt_after);
  hooks->polls = 0;
  hooks->last_progress = sgp_r_seconds();
  hooks->progress_shown = 0;
  ctx->print = r_print;
  ctx->interrupt = r_interrupt;
  ctx->progress = r_progress;
  ctx->user_data = hooks;
  ctx->verbose = Rf_isNull(verbose) ? 0 : Rf_asLogical(verbose) == TRUE;
  /* the fronts check threads first (sgp_check_threads_r); this is the backstop */
  if (!Rf_isNull(threads) && sgp_ctx_set_threads(ctx, Rf_asReal(threads)))
    Rf_error("%s", ctx->errmsg);
}

/* check_threads(): the core's rule for `threads` (0..SGP_MAX_THREADS) with the
 * user-facing function named in the error; returns the count as an integer. */
SEXP sgp_check_threads_r(SEXP threads, SEXP fn)
{
  sgp_ctx ctx;
  sgp_ctx_init(&ctx);
  if (sgp_ctx_set_threads(&ctx, Rf_asReal(threads)))
    sgp_r_fail(CHAR(STRING_ELT(fn, 0)), &ctx, SGP_EINVAL);
  return Rf_ScalarInteger(ctx.nthreads);
}


static void dims(SEXP x, int64_t *rows, int64_t *cols)
{
  SEXP d = Rf_getAttrib(x, R_DimSymbol);
  if (Rf_isNull(d) || Rf_length(d) != 2) {
    *rows = XLENGTH(x);
    *cols = 1;
  } else {
    *rows = INTEGER(d)[0];
    *cols = INTEGER(d)[1];
  }
}

sgp_cmat sgp_r_cmat(SEXP x)
{
  int64_t r, c;
  if (TYPEOF(x) != REALSXP) Rf_error("internal: expected a double matrix");
  dims(x, &r, &c);
  /* read-only access: REAL() on an ALTREP wrapper (e.g. after attributes<-) with a
   * shared payload would duplicate the whole matrix (peak memory) */
  return sgp_cmat_of(REAL_RO(x), r, c);
}

sgp_mat sgp_r_mat(SEXP x)
{
  int64_t r, c;
  if (TYPEOF(x) != REALSXP) Rf_error("internal: expected a double matrix");
  dims(x, &r, &c);
  return sgp_mat_of(REAL(x), r, c);
}

int sgp_r_kernel(sgp_ctx *ctx, SEXP kernel, SEXP lengthscale, SEXP outputscale, sgp_kernel *k)
{
  if (!Rf_isString(kernel) || XLENGTH(kernel) != 1 || TYPEOF(lengthscale) != REALSXP)
    Rf_error("internal: bad kernel arguments");
  int st = sgp_kernel_from_name(ctx, CHAR(STRING_ELT(kernel, 0)), &k->kind);
  k->lengthscale = REAL(lengthscale);
  k->n_lengthscale = XLENGTH(lengthscale);
  k->outputscale = Rf_asReal(outputscale);
  return st;
}

SEXP sgp_r_named_list(int n, const char **names, SEXP *values)
{
  SEXP out = PROTECT(Rf_allocVector(VECSXP, n));
  SEXP nm = PROTECT(Rf_allocVector(STRSXP, n));
  for (int i = 0; i < n; i++) {
    SET_VECTOR_ELT(out, i, values[i]);
    SET_STRING_ELT(nm, i, Rf_mkChar(names[i]));
  }
  Rf_setAttrib(out, R_NamesSymbol, nm);
  UNPROTECT(2);
  return out;
}

SEXP sgp_r_list_elt(SEXP list, const char *name)
{
  SEXP nm = Rf_getAttrib(list, R_NamesSymbol);
  for (R_xlen_t i = 0; i < XLENGTH(list); i++)
    if (!strcmp(CHAR(STRING_ELT(nm, i)), name)) return VECTOR_ELT(list, i);
  return R_NilValue;
}

SEXP sgp_r_real_copy(int64_t rows, int64_t cols, const double *x, int matrix)
{
  SEXP v = PROTECT(matrix ? Rf_allocMatrix(REALSXP, (int)rows, (int)cols)
                          : Rf_allocVector(REALSXP, (R_xlen_t)(rows * cols)));
  if (rows * cols > 0) memcpy(REAL(v), x, (size_t)(rows * cols) * sizeof(double));
  UNPROTECT(1);
  return v;
}

SEXP sgp_r_int_copy(int64_t n, const int *x, int add)
{
  SEXP v = PROTECT(Rf_allocVector(INTSXP, (R_xlen_t)n));
  for (int64_t i = 0; i < n; i++) INTEGER(v)[i] = x[i] + add;
  UNPROTECT(1);
  return v;
}

int sgp_r_backend(sgp_ctx *ctx, SEXP name)
{
  /* the core's context option: its check and its words (why "cuda" is unavailable) */
  const sgp_value v = {SGP_VAL_STRING, 1, NULL, CHAR(STRING_ELT(name, 0)), NULL};
  return sgp_ctx_opt_set(ctx, "backend", &v, NULL);
}

/* SGP_LEARN_* bits as the names of gp_laplace's `learn` choices (bit i = choice i;
 * ski_gsgp's hyperparameters carry the same bits). */
static SEXP learn_names(unsigned bits)
{
  const char *const *nm = sgp_opt_find(sgp_verb_options("gp_laplace"), "learn")->choices;
  int k = 0;
  for (int i = 0; nm[i]; i++) k += (bits >> i) & 1u;
  SEXP v = PROTECT(Rf_allocVector(STRSXP, k));
  for (int i = 0, j = 0; nm[i]; i++) if ((bits >> i) & 1u) SET_STRING_ELT(v, j++, Rf_mkChar(nm[i]));
  UNPROTECT(1);
  return v;
}

/* The model selection of a fit (spec model_selection.md §6; gp_laplace and
 * ski_gsgp, whose hyper has no mean): hyper, loglik, loglik_se (NaN when exact),
 * loglik_grad (named by theta's coordinates), learned, and the optimizer's trace
 * with its verdict. */
SEXP sgp_r_selection_list(const sgp_hyper *h)
{
  const int64_t nt = h->n_theta, ne = h->n_eval;
  SEXP grad = PROTECT(h->grad ? sgp_r_real_copy(nt, 1, h->grad, 0) : Rf_allocVector(REALSXP, 0));
  SEXP gnames = PROTECT(Rf_allocVector(STRSXP, h->grad ? nt : 0));
  SEXP tcols = PROTECT(Rf_allocVector(VECSXP, 4 + nt));
  SEXP tnames = PROTECT(Rf_allocVector(STRSXP, 4 + nt));
  const char *fixed[] = {"evaluation", "loglik", "grad_norm", "seconds"};
  const double *fcol[] = {NULL, h->tr_loglik, h->tr_gradnorm, h->tr_seconds};
  for (int i = 0; i < 4; i++) {
    SEXP c = Rf_allocVector(REALSXP, (R_xlen_t)ne);
    SET_VECTOR_ELT(tcols, i, c);
    for (int64_t e = 0; e < ne; e++) REAL(c)[e] = fcol[i] ? fcol[i][e] : (double)(e + 1);
    SET_STRING_ELT(tnames, i, Rf_mkChar(fixed[i]));
  }
  for (int64_t k = 0; k < nt; k++) {
    char name[32];
    sgp_hyper_theta_name(h, k, name, sizeof name);
    if (h->grad) SET_STRING_ELT(gnames, k, Rf_mkChar(name));
    SET_STRING_ELT(tnames, 4 + k, Rf_mkChar(name));
    SET_VECTOR_ELT(tcols, 4 + k, sgp_r_real_copy(ne, 1, h->tr_theta + k * ne, 0));
  }
  Rf_setAttrib(grad, R_NamesSymbol, gnames);
  Rf_setAttrib(tcols, R_NamesSymbol, tnames);
  const int has_mean = h->n_mean > 0, has_noise = !isnan(h->noise);
  const char *hn[] = {"lengthscale", "outputscale", has_mean ? "mean" : "noise", "noise"};
  SEXP hv[4];
  int nh = 0;
  hv[nh++] = PROTECT(sgp_r_real_copy(h->n_lengthscale, 1, h->lengthscale, 0));
  hv[nh++] = PROTECT(Rf_ScalarReal(h->outputscale));
  if (has_mean) hv[nh++] = PROTECT(sgp_r_real_copy(h->n_mean, 1, h->mean, 0));
  if (has_mean || has_noise) /* gp_laplace: noise NULL when there is none */
    hv[nh++] = has_noise ? PROTECT(Rf_ScalarReal(h->noise)) : R_NilValue;
  const int nprot_h = 2 + has_mean + has_noise;
  const char *sn[] = {"hyper", "loglik", "loglik_se", "loglik_grad", "learned", "optim",
                      "optim_converged", "optim_message", "note"};
  SEXP sv[] = {PROTECT(sgp_r_named_list(nh, hn, hv)), PROTECT(Rf_ScalarReal(h->loglik)),
               PROTECT(Rf_ScalarReal(h->loglik_se)), grad,
               PROTECT(learn_names(h->learned)), tcols,
               PROTECT(Rf_ScalarLogical(h->learned ? h->optim_converged : NA_LOGICAL)),
               PROTECT(Rf_mkString(h->optim_message)), PROTECT(Rf_mkString(h->note))};
  SEXP out = sgp_r_named_list(9, sn, sv);
  UNPROTECT(4 + nprot_h + 7);
  return out;
}
