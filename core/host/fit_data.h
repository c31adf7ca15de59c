/* fit_data.h -- the checks of a fit given back as plain data (an R list or an
 * Octave struct, reloaded from a file or edited by a user): the one place that
 * reads its fields and words what is wrong with them, for both hosts. Errors
 * name the field as the host's user writes it: "'object$root' ..." (R) or
 * "'fit.root' ..." (Octave); the shims prefix the function. Core-internal. */
#ifndef SGP_FIT_DATA_H
#define SGP_FIT_DATA_H

#include "runtime/sgp_internal.h"
#include "api/sgp_options.h"

typedef struct {
  sgp_ctx *ctx;
  const sgp_value *fit; /* a LIST */
  const char *arg;      /* the fit's argument name ("object", "x", "fit") */
  const char *sep;      /* the host's field separator ("$", ".") */
  const char *suffix;   /* appended to every field error (NULL: nothing) */
  int empty_absent;     /* an empty value stands for an absent field (Octave, whose
                         * "nothing" is []; R has NULL, and an empty vector there is
                         * a damaged value) */
} sgp_fd;

/* A check's state for fit (no check made): the empty-value rule of the host whose
 * separator is sep ("." : Octave). */
sgp_fd sgp_fd_of(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                 const char *suffix);
/* Starts a check: "'arg' must be a <what> fit (a list or struct)" unless fit is a
 * LIST, then "'arg$name' is missing" for the first of the fields `need`
 * (NULL-terminated) that it lacks (R's NULL is a value: a field set to NULL is not
 * missing, its check words it). */
int sgp_fd_begin(sgp_fd *f, sgp_ctx *ctx, const sgp_value *fit, const char *arg,
                 const char *sep, const char *what, const char *const *need,
                 const char *suffix);
/* The element `name` of a LIST (a NULL value when absent or when list is not a LIST). */
const sgp_value *sgp_fd_elt(const sgp_value *list, const char *name);
/* Whether a LIST has an element `name` (R's NULL counts as one). */
int sgp_fd_has(const sgp_value *list, const char *name);
/* SGP_EINVAL with "'<arg><sep><name>' <fmt...>". */
int sgp_fd_bad(const sgp_fd *f, const char *name, const char *fmt, ...) SGP_PRINTF_LIKE(3, 4);
/* A numeric value read as a matrix (a vector is one column). */
int sgp_fd_is_numeric(const sgp_value *v);
int64_t sgp_fd_rows(const sgp_value *v);
int64_t sgp_fd_cols(const sgp_value *v);
/* A finite numeric matrix field of rows x cols (-1: any) as a view. */
int sgp_fd_matrix(const sgp_fd *f, const char *name, int64_t rows, int64_t cols, sgp_cmat *out);
/* A whole number >= lo. */
int sgp_fd_whole(const sgp_fd *f, const char *name, double lo, double *out);
/* One logical (TRUE or FALSE). */
int sgp_fd_flag(const sgp_fd *f, const char *name, int *out);
/* One string; with choices (NULL-terminated) its index, wording them when it is
 * not one of them. */
int sgp_fd_string(const sgp_fd *f, const char *name, const char *const *choices, int *index);
/* A list of equally long numeric columns among which are need[0..n_need). */
int sgp_fd_columns(const sgp_fd *f, const char *name, const char *const *need, int n_need);
/* Nothing: NULL, [] or {} (an absent optional field). */
int sgp_fd_is_nothing(const sgp_value *v);
/* An optional field left out: NULL, or in a host without NULL an empty value. */
int sgp_fd_absent(const sgp_fd *f, const sgp_value *v);
/* All finite. */
int sgp_fd_finite(const sgp_value *v);
/* hyper$mean, the constant prior mean every fit has: 1 or n_max finite numbers
 * (a fit without it would predict with the mean dropped). */
int sgp_fd_hyper_mean(const sgp_fd *f, int64_t n_max, sgp_cmat *out);
/* The model-selection fields (hyper, loglik, loglik_se, loglik_grad, learned,
 * optim; select_fit_check.c) against the n_ls lengthscales ls, the outputscale
 * and the noise (NULL: none to compare) the fit used, and its dispersion and
 * alpha where theta may hold them (NULL: the model has none); theta has
 * n_ls_theta lengthscale coordinates (n_ls but where hyper reports them on
 * another scale: gp_laplace's scaling). Call after sgp_fd_hyper_mean. */
int sgp_fd_selection(const sgp_fd *f, const double *ls, int64_t n_ls, int64_t n_ls_theta,
                     double outputscale, const double *noise, const double *dispersion,
                     const double *alpha);

#endif
