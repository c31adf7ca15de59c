/* r_shim.h -- glue between R objects and the scalegp core (R build only). */
#ifndef SGP_R_SHIM_H
#define SGP_R_SHIM_H

#define R_NO_REMAP
#include <R.h>
#include <Rinternals.h>

#include "api/sgp.h"

/* Host state behind the context hooks. */
typedef struct {
  int interrupt_after;   /* >= 0: report an interrupt after that many polls (tests) */
  int polls;
  int interrupted;       /* an interrupt was seen: every later poll of the call reports it */
  double last_progress;  /* wall time of the last progress line (or the start) */
  int progress_shown;    /* a line of the current task was printed */
} sgp_r_hooks;

/* Context with R's hooks: Rprintf output, interrupts through R_ToplevelExec (no
 * longjmp can cross the core), throttled progress lines. */
void sgp_r_ctx(sgp_ctx *ctx, sgp_r_hooks *hooks, SEXP verbose, SEXP threads,
               SEXP interrupt_after);

/* Monotonic wall-clock seconds. */
double sgp_r_seconds(void);

/* Views of a double matrix (a plain vector is one column). */
sgp_cmat sgp_r_cmat(SEXP x);
sgp_mat  sgp_r_mat(SEXP x);
/* Kernel description from R arguments; the lengthscale array stays owned by R. */
int sgp_r_kernel(sgp_ctx *ctx, SEXP kernel, SEXP lengthscale, SEXP outputscale,
                 sgp_kernel *k);
/* A named list from parallel arrays of names and (protected) values. */
SEXP sgp_r_named_list(int n, const char **names, SEXP *values);
/* ctx->backend from "auto", "cpu" or "cuda"; SGP_EUNSUPPORTED (message in
 * ctx->errmsg, naming `backend`) when "cuda" is asked for but not available. */
int sgp_r_backend(sgp_ctx *ctx, SEXP name);
/* Element `name` of a named list (R_NilValue when absent). */
SEXP sgp_r_list_elt(SEXP list, const char *name);

/* Options by name (r_gateway.c): each element of the named list `opts` goes to
 * the context ("backend", "seed", "verbose", "threads") or to the verb's table,
 * which checks it and stores it into o. */
int sgp_r_apply_options(sgp_ctx *ctx, const char *verb, SEXP opts, void *o);
/* An R value as the core's sgp_value (a list with its elements, a matrix with its
 * dimensions); memory from R_alloc, valid until the .Call returns. */
sgp_value sgp_r_value(SEXP x);
/* A result the core gives back as plain data (sgp_options.h) as R data: lists,
 * vectors and matrices (named vectors with strs), logicals, character vectors. */
SEXP sgp_r_from_value(const sgp_value *v);
/* The R data of build(what, arena), a core builder of a result's fields; the
 * arena is freed on every path. */
SEXP sgp_r_build(sgp_value (*build)(const void *, sgp_value_arena *), const void *what);
/* The same for a builder that computes first and may fail (predictions): its
 * status in *status (the R value is then NULL; the caller frees what it owns and
 * raises the core's error). */
SEXP sgp_r_build_status(int (*build)(const void *, sgp_value_arena *, sgp_value *),
                        const void *what, int *status);
/* Raises the error of a failed core call in the one user form (sgp_user_message). */
void sgp_r_fail(const char *fn, sgp_ctx *ctx, int status);

#endif
