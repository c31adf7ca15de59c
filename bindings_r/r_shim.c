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
  if (h->interrupted) return 1;
  if (h->interrupt_after >= 0 && h->polls++ >= h->interrupt_after) return h->interrupted = 1;
  /* R_ToplevelExec returns FALSE when R_CheckUserInterrupt wanted to jump. That
   * consumes R's pending interrupt, so it is kept here: a Ctrl-C stops the whole
   * call (as Octave's flag, which the hook only peeks at, does), never one loop. */
  return h->interrupted = R_ToplevelExec(check_interrupt, NULL) == FALSE;
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
  hooks->interrupted = 0;
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
  k->alpha = 1.0; /* the kernel option's default */
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

int sgp_r_backend(sgp_ctx *ctx, SEXP name)
{
  /* the core's context option: its check and its words (why "cuda" is unavailable) */
  const sgp_value v = {SGP_VAL_STRING, 1, NULL, CHAR(STRING_ELT(name, 0)), NULL};
  return sgp_ctx_opt_set(ctx, "backend", &v, NULL);
}
