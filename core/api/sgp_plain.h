/* sgp_plain.h -- results given back as plain data (sgp_value trees in an
 * arena), written once for both hosts; valla's networks and fits read back. */
#ifndef SGP_PLAIN_H
#define SGP_PLAIN_H

#include "api/sgp_fit_check.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- results given back as plain data ----
 * The core writes the fields of a result once, as an sgp_value tree (a LIST of
 * named elements); each host turns it into its own data with one converter
 * (R: sgp_r_from_value, a list; Octave: sgp_octave::host_value, a struct), so
 * both hosts give the same fields. The tree reads: REAL / LOGICAL / INT with rows =
 * cols = 0 a plain vector (Octave: len x 1), rows = -1 (cols 0) a plain vector that
 * Octave shows as a row (1 x len), else a rows x cols matrix (a rows x cols x k
 * array when len = k rows cols with k != 1); REAL with
 * strs its values' names (R: a named vector, Octave: a struct of scalars);
 * LOGICAL NaN is NA, REAL NA is R's NA_real_ (a NaN whose low word is 1954, which
 * Octave's converter turns into its NA); STRING with strs == NULL one string, with strs a list of len
 * strings (R: a character vector, Octave: a 1 x len cellstr, len x 1 with cols =
 * 1); LIST with strs == NULL an unnamed list (R: a list, Octave: a 1 x len cell);
 * NULL is R's NULL,
 * Octave's []. The values live in an arena, freed when the host has converted. */
typedef struct sgp_value_arena sgp_value_arena;
sgp_value_arena *sgp_value_arena_new(void);
void sgp_value_arena_free(sgp_value_arena *a);
/* Whether a builder ran out of memory (the tree is then incomplete): SGP_ENOMEM. */
int sgp_value_arena_failed(const sgp_value_arena *a);

/* The model selection of a fit (gp_laplace, ski_gsgp):
 * hyper (lengthscale, outputscale, mean when the model has one, noise: NULL when
 * there is none), loglik, loglik_se (0 when exact), loglik_grad (named by theta's
 * coordinates), learned (the names of gp_laplace's `learn` choices that were
 * optimized), optim (columns evaluation, loglik, grad_norm, seconds and one per
 * coordinate), optim_converged (NA when nothing was learned), optim_message, note. */
sgp_value sgp_hyper_plain(const sgp_hyper *h, sgp_value_arena *a);

/* A gp_laplace fit as plain data: f, var, weights (n x C), root (nC x r),
 * newton_steps, iterations, converged, stop_reason, inner_stop_reason,
 * kernel_products, history (one row per solver iteration) and steps (one per
 * Newton step): lists of columns, used (the
 * options it used under their argument names, its warnings and their
 * identifiers) and selection (sgp_hyper_plain); seed: the context's. */
sgp_value sgp_laplace_fit_plain(const sgp_laplace_result *fit, const sgp_laplace_opts *o,
                                uint64_t seed, sgp_value_arena *a);

/* The parts of a ski_gsgp fit that its plain data is written from. */
typedef struct {
  const sgp_ski_result *res;
  const sgp_ski_opts *used;          /* the options the fit used (sgp_ski_fit_learn's) */
  const sgp_ski_selection *sel;
  const sgp_ski_stats_data *stats;   /* the statistics it computed, or NULL (given ones) */
  const double *grid_bounds;         /* the user's grid_bounds (kept exactly) or NULL */
  int64_t m, n_love_c0;              /* grid points; length of res->love_c0 (0 or m) */
  double seconds[2];                 /* preparing the statistics, the fit */
} sgp_ski_fit_parts;
/* A ski_gsgp fit as plain data: weights, iterations, converged, rel_residual,
 * history (iterations + 1 relative residuals), love_Ft (love_rank x m), love_c0,
 * love_error (the LOVE cache's check, NA without one), loglik, logdet, logdet_se, datafit, probes_used, loglik_converged, stop,
 * interp_error, stats (sgp_ski_stats_plain, NULL when given), used (the options
 * under their argument names, the context's backend, seed and verbose, and the
 * warnings), selection (sgp_hyper_plain), loglik_se (NA when not evaluated),
 * seconds (a row in Octave). */
sgp_value sgp_ski_fit_plain(const sgp_ctx *ctx, const sgp_ski_fit_parts *p,
                            sgp_value_arena *a);

/* A SKI grid as plain data: size (INT, d values), bounds (d x 2;
 * user_bounds, d x 2 column-major, kept exactly when given, else lo and
 * lo + (m - 1) h) and interpolation ("linear", "cubic"). ski_grid's result. */
sgp_value sgp_ski_grid_plain(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                             const double *user_bounds, sgp_value_arena *a);
/* SKI statistics as plain data (ski_stats' result without its class, and the
 * statistics a ski_gsgp fit computed): grid (sgp_ski_grid_plain), n, yty, ysum,
 * Wty, Wt1 (m), WtW (m x S), probes, probe_seed, rhoz, Wtz (m x probes), version
 * (INT 1). */
sgp_value sgp_ski_stats_plain(const sgp_ski_stats_data *d, const double *user_bounds,
                              sgp_value_arena *a);
/* ski_stats_merge's result: the sum of the k statistics in (checked, each named by
 * its label in errors: sgp_ski_stats_merge_data) as sgp_ski_stats_plain, with the
 * grid of in[0] and its bounds as given in first (in[0]'s plain data). */
int sgp_ski_stats_merge_plain(sgp_ctx *ctx, int64_t k, const sgp_ski_stats_data *in,
                              const char *const *label, const sgp_value *first,
                              sgp_value_arena *a, sgp_value *out);

/* predict's result: list(pred, type (the name of the checked option "type")). */
sgp_value sgp_predict_result_plain(sgp_value pred, const char *type, sgp_value_arena *a);
/* gp_laplace's predictions at X as plain data: mean, var (latent; plain vectors
 * when C = 1, else m x C) and the response under the likelihood's field names
 * (core/laplace/lik_table.h): prob (bernoulli, softmax, binomial), rate_mean
 * and rate_var (poisson, negbin) or y_var (gaussian); last, warning (sgp_variance_warning,
 * "" when none: the hosts warn with it and take it off). */
int sgp_laplace_predict_plain(sgp_ctx *ctx, const sgp_laplace_result *fit, sgp_cmat X,
                              sgp_cmat offset, sgp_value_arena *a, sgp_value *out);
/* What summary and plot read of a gp_laplace fit given back as plain data (fit
 * checked by sgp_laplace_fit_check first): loglik (log p(y | f) at the fit's f),
 * accuracy (the training accuracy of a classifier, else NULL), plot_scale
 * ("latent", "rate", "probability" or "classes": what the 1-D plot's line is,
 * f, exp f or the inverse logit of f, or f with the labels as ticks) and
 * plot_y (the data on that scale: y, y / exposure, y / trials; NULL for
 * classes). */
int sgp_laplace_train_plain(sgp_ctx *ctx, const sgp_value *fit, sgp_value_arena *a,
                            sgp_value *out);
/* ski_gsgp's predictions at X as plain data: mean, var (NULL with variance
 * "none") and warning (sgp_ski_predict_warning for function fn, "" when none). */
int sgp_ski_predict_plain(sgp_ctx *ctx, const sgp_ski_fit_view *v, const sgp_ski_predict_opts *o,
                          sgp_cmat X, const char *fn, sgp_value_arena *a, sgp_value *out);

/* A verb's option table as plain data: columns name, kind, default, doc (strings,
 * Octave: column cellstrs) and context (whether the verb takes the context
 * options). */
sgp_value sgp_options_plain(const sgp_verb_table *t, sgp_value_arena *a);
/* The build information (sgp_info): version, fftw, openmp, max_threads (INT),
 * cuda_built, cuda_devices (INT), and likelihoods: gp_laplace's likelihoods with
 * how each codes class labels (sgp_lik_label_coding; columns name, classes,
 * n_classes, first_class), which the fronts read to code a factor y. */
sgp_value sgp_info_plain(sgp_value_arena *a);

/* ---- valla and mlp_fit as plain data (core/valla/valla_net_read.c, valla_plain.c) */
/* A network given as plain data (valla's and mlp_forward's model, a fit's model):
 * list(weights (a list / cell of in-by-out matrices), biases (one vector per
 * matrix), activation (default "tanh"), output (default "identity"), skip (D x C or
 * nothing), transpose (matrices out-by-in)); Octave's older field names W and b
 * are read too. R's front passes an nnet fit as list(kind = "nnet", n, skip,
 * out_sigmoid, wts). Checked and copied; errors name arg and the element in the
 * host's syntax ("'model$weights[[2]]' has 4 rows but ...", "'model.weights{2}'
 * ..."; sep "$" or "."). */
int sgp_valla_net_from_value(sgp_ctx *ctx, const sgp_value *model, const char *arg,
                             const char *sep, sgp_valla_net *net);
/* The network as plain data: weights (unnamed list of width[l] x width[l+1]
 * matrices), biases (plain vectors), activation, output, skip (D x C or NULL). */
sgp_value sgp_valla_net_plain(const sgp_valla_net *net, sgp_value_arena *a);
/* A network's inputs D, outputs C and layers L (INT each), for the fronts. */
sgp_value sgp_valla_net_shape_plain(const sgp_valla_net *net, sgp_value_arena *a);
/* What a valla fit's plain data is written from: the fit, the options it used,
 * the context's seed, the training inputs (n, x_range) and the predictions at
 * xtest (sgp_valla_predict_plain) or NULL. */
typedef struct {
  const sgp_valla_result *fit;
  const sgp_valla_opts *opts;
  uint64_t seed;
  sgp_cmat X;
  const sgp_value *test;
} sgp_valla_fit_parts;
/* list(fit, warning, overfit): the fit's fields (inducing, tags (1-based), L,
 * prior_var, noise (NULL for classes), history (objective; validation: iteration,
 * nll), iterations, best_iteration, stopped_early, clamps, kernel_cache, model
 * (sgp_valla_net_plain), P1, P2, prior, layers, y_mean, y_sd, likelihood, method,
 * closed_form, n_class, levels (NULL: the hosts' class names), n, n_train, d, C,
 * x_range (2 x d), seed, stop_reason, diverged_at and test when there is one) and
 * the warnings' texts ("" when none). */
sgp_value sgp_valla_fit_plain(const sgp_valla_fit_parts *p, sgp_value_arena *a);
/* Predictions at X (n x D) as plain data: mean, var (plain vectors when C = 1, else
 * n x C), latent_var (gaussian), prob (softmax n x classes, bernoulli P(y = 1)),
 * cov (with full_cov: C x C x n). */
int sgp_valla_predict_plain(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X,
                            const sgp_valla_predict_opts *o, sgp_value_arena *a,
                            sgp_value *out);
/* predict's result: list(pred (sgp_valla_predict_plain), type (the option's name)). */
int sgp_valla_predict_result(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X,
                             const sgp_valla_predict_opts *o, sgp_value_arena *a,
                             sgp_value *out);
/* mlp_fit's result: model, loss, initial_loss, iterations, stop_reason, diverged_at,
 * used (likelihood, seed, warning). */
sgp_value sgp_valla_mlp_fit_plain(const sgp_valla_net *net, const sgp_valla_mlp_fit_info *info,
                                  const sgp_valla_mlp_fit_opts *o, uint64_t seed,
                                  sgp_value_arena *a);
/* A valla fit given back as plain data, checked (sgp_valla_fit_check) and read into
 * an owning fit for prediction (sgp_valla_fit_free). */
int sgp_valla_fit_read(sgp_ctx *ctx, const sgp_value *fit, const char *arg, const char *sep,
                       sgp_valla_result **out);

#ifdef __cplusplus
}
#endif
#endif /* SGP_PLAIN_H */
