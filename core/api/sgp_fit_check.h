/* sgp_fit_check.h -- fits, grids and statistics given back as plain data, read
 * and checked once for both hosts; the predict options read against a fit. */
#ifndef SGP_FIT_CHECK_H
#define SGP_FIT_CHECK_H

#include "api/sgp_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- fits given back as plain data (an R list, an Octave struct) ----
 * A fit is plain data in both hosts: it may come back from a file, another program
 * or a user's edits. The core checks it, once for both hosts, before any method
 * reads it: fit is a LIST value (the host's list or struct, nested ones included);
 * errors name the field as the user writes it, arg and sep giving "'object$root'"
 * (R: "object", "$") or "'fit.root'" (Octave: "fit", "."). */

/* Checks every field of a gp_laplace fit that predict, print, summary and plot read
 * (types, shapes, finiteness, labels against the likelihood, counters, history) and
 * makes the view that sgp_laplace_predict needs (its kernel in *k, referenced). */
int sgp_laplace_fit_check(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                          sgp_laplace_result *view, sgp_kernel *k);

/* A SKI grid given as plain data, read and checked by sgp_ski_grid_read. */
typedef struct {
  sgp_ski_grid grid;
  sgp_ski_interpolation interpolation;
  const double *bounds; /* d x 2, column-major: the value's own numbers (kept exactly) */
} sgp_ski_grid_data;
/* Reads a grid given as plain data: a ski_grid result (a LIST of size, bounds,
 * interpolation; bounds may be a plain vector of 2 when d = 1), or ski_stats or a
 * ski_gsgp fit, whose `grid` is read. Checks it (1 to SGP_SKI_MAX_D sizes, whole
 * numbers in 1..2147483647; finite d x 2 bounds with lower < upper; "cubic" or
 * "linear"; a grid whose statistics fit in memory) and words every error once,
 * naming the argument and its fields as the host's user writes them (arg, sep:
 * "'grid$size' must be whole numbers >= 1 (got 2.5)" in R, "'grid.size' ..." in
 * Octave). ski_stats' grid argument, the grid of statistics and of a fit. */
int sgp_ski_grid_read(sgp_ctx *ctx, const sgp_value *g, const char *arg, const char *sep,
                      sgp_ski_grid_data *out);

/* Reads ski_stats given back as plain data (s: the host's list or struct) into
 * views on its arrays, checking the grid (sgp_ski_grid_read, as arg<sep>grid),
 * every field's shape against the grid's stencil and finiteness; errors name arg,
 * the user's argument ("'b' has a 'WtW' with NaN or Inf", "'b$grid$size' ...").
 * For ski_stats_merge, ski_gsgp(stats = ) and the fits' checks. */
int sgp_ski_stats_check(sgp_ctx *ctx, const sgp_value *s, const char *arg, const char *sep,
                        sgp_ski_stats_data *d);

/* valla_metrics as the user calls it (pred: a list or struct of mean and var, or of
 * prob; n-by-C probabilities; P(y = 1) with labels 0/1 or 1/2; means with var),
 * its n_opt options by name (table "valla_metrics": bins) and the checked
 * metrics: out (count values) named by *names. */
int sgp_valla_metrics_of(sgp_ctx *ctx, const sgp_value *pred, const sgp_value *y,
                         const sgp_value *var, int n_opt, const char *const *opt_names,
                         const sgp_value *opt_values, double *out, int *count,
                         const char *const **names);

/* A ski_gsgp fit checked by sgp_ski_fit_check: views on its plain data. */
typedef struct {
  sgp_ski_stats_data stats;
  sgp_ski_opts o;            /* the model: kernel (lengthscale referenced), noise, mean,
                                tol, max_iter, bounds_policy, interpolation */
  int variance;              /* the fit's (SGP_SKI_VARIANCE_*) */
  int backend;               /* the fit's (auto, cpu, cuda), -1 when it has none */
  const double *weights;     /* m */
  const double *love_Ft, *love_c0; /* the LOVE cache (rank-by-m, m) or NULL */
  int64_t love_rank;
  double love_error;         /* the LOVE cache's check (love$error; NaN: none) */
} sgp_ski_fit_view;
/* Checks every field of a ski_gsgp fit that predict, print, summary and plot read
 * (grid, statistics, model, weights, LOVE cache, results), errors naming the field
 * with "(the fit is damaged; refit it)", and makes the view its predictions need. */
int sgp_ski_fit_check(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                      sgp_ski_fit_view *v);
/* The options of ski_gsgp's predictions (table "ski_gsgp_predict": variance, by
 * default the fit's; backend and threads are the context's, backend by default
 * the fit's). */
typedef struct { int variance; } sgp_ski_predict_opts;
/* The predict options' defaults from the fit (its variance; its backend into ctx). */
int sgp_ski_predict_opts_default(sgp_ctx *ctx, const sgp_ski_fit_view *v, sgp_ski_predict_opts *o);
/* Mean (and variance, unless "none") at Xs from a checked fit; "lanczos" needs the
 * fit's LOVE cache. Errors about the test inputs name "xtest". */
int sgp_ski_fit_predict(sgp_ctx *ctx, const sgp_ski_fit_view *v, const sgp_ski_predict_opts *o,
                        sgp_cmat Xs, double *mean, double *var, sgp_ski_predict_info *info);

/* Checks the fields of a valla fit that predict, print, summary and plot read
 * (presence, types, lengths; the network by sgp_valla_net_from_value, named
 * '<arg><sep>model...'), errors naming the field with "(the fit is damaged; refit
 * it)". */
int sgp_valla_fit_check(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep);

/* The options of valla's predictions (table "valla_predict"; seed and threads are
 * the context's): what the host returns, the covariance blocks, Monte-Carlo class
 * probabilities; the rules against the fit's likelihood ("class" and "mc" need
 * classes). */
typedef struct {
  int type;            /* SGP_PREDICT_* */
  int full_cov;
  int mc;              /* prob_method: 0 probit, 1 mc */
  int64_t mc_samples;
} sgp_valla_predict_opts;
void sgp_valla_predict_opts_default(sgp_valla_predict_opts *o);
int sgp_valla_predict_check(sgp_ctx *ctx, sgp_likelihood likelihood,
                            const sgp_valla_predict_opts *o);

/* The options of gp_laplace's predictions (table "gp_laplace_predict"). */
typedef struct {
  int type;         /* SGP_PREDICT_*: what the host returns (it shapes the result) */
  sgp_cmat offset;  /* Poisson log exposure at the m new inputs, or empty */
} sgp_laplace_predict_opts;
void sgp_laplace_predict_opts_default(sgp_laplace_predict_opts *o);
/* The rules between the options and the fit at m new inputs (an offset only for
 * poisson and one per input; type "class" only for classification). */
int sgp_laplace_predict_check(sgp_ctx *ctx, const sgp_laplace_result *fit,
                              const sgp_laplace_predict_opts *o, int64_t m);

#ifdef __cplusplus
}
#endif
#endif /* SGP_FIT_CHECK_H */
