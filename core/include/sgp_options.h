/* sgp_options.h -- options by name: one table per verb, owned by the core.
 *
 * Each user-facing option (its R/Octave argument name, kind, default, range,
 * choices and one line of doc) is defined once, in the verb's table. The hosts
 * coerce their values into an sgp_value and call sgp_opts_set by name; the core
 * validates, stores into the verb's options struct and words every error as
 * "'name' must be ..." (the shims prefix the function name). Adding an option
 * to a verb: a row in its table, the code that uses the field, and tests. */
#ifndef SGP_OPTIONS_H
#define SGP_OPTIONS_H

#include "sgp.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A host value: numbers (integers, doubles; NA as NaN), logicals (0/1, NA as
 * NaN), strings (an R character vector, an Octave string or cellstr), or nothing
 * (R NULL, Octave []). */
typedef enum {
  SGP_VAL_NULL, SGP_VAL_REAL, SGP_VAL_LOGICAL, SGP_VAL_STRING,
  SGP_VAL_OTHER, /* anything else (a cell, a function): always an error */
  SGP_VAL_LIST,  /* an R list / data frame or an Octave scalar struct: named elements
                    (a fit as plain data, its kernel, its history) */
  SGP_VAL_INT    /* results only (the hosts never give one): whole numbers in real,
                    R's integers (Octave: doubles) */
} sgp_value_type;
typedef struct sgp_value {
  sgp_value_type type;
  int64_t len;          /* REAL/LOGICAL: number of values; STRING: number of strings;
                           LIST: number of elements */
  const double *real;   /* REAL/LOGICAL values (host memory, valid during the call) */
  const char *str;      /* STRING: the first one */
  const char *const *strs; /* STRING: all len of them (NULL: only str, len <= 1);
                              LIST: the elements' names; REAL/LOGICAL: the values'
                              names when the host has them (R's named vectors), or NULL */
  int64_t rows, cols;   /* REAL/LOGICAL: the host's dimensions (0, 0: a plain vector,
                           read as len x 1; cols < 0: more than two dimensions) */
  const struct sgp_value *elts; /* LIST: the len elements */
} sgp_value;

typedef enum {
  SGP_OPT_FLAG,    /* one logical -> int 0/1 */
  SGP_OPT_COUNT,   /* one whole number in [lo, hi] -> int or int64 (store) */
  SGP_OPT_REAL,    /* one number in the range -> double */
  SGP_OPT_CHOICE,  /* one string out of choices -> int (its index) */
  SGP_OPT_POSITIVES, /* 1 or more positive finite numbers -> pointer + count (host memory) */
  SGP_OPT_VECTOR,  /* finite numbers or nothing -> sgp_cmat (len x 1, host memory);
                      with SGP_OPT_PTR: const double * + int64 count (count_offset) */
  SGP_OPT_SUBSET,  /* 0 or more strings out of choices (nothing: none) -> unsigned bitmask,
                      bit i for choices[i] */
  SGP_OPT_COUNTS   /* 1 to SGP_OPT_MAX_COUNTS whole numbers in [lo, hi] (one per dimension)
                      -> int64 array (copied) + int64 count (count_offset) */
} sgp_opt_kind;

#define SGP_OPT_MAX_COUNTS 8

typedef enum { SGP_STORE_INT, SGP_STORE_INT64, SGP_STORE_DOUBLE, SGP_STORE_SIZE } sgp_opt_store;

/* Range flags */
#define SGP_OPT_INF_NONE 1u /* Inf accepted, meaning "none": stored as -1 */
#define SGP_OPT_LO_OPEN  2u /* REAL: > lo instead of >= lo */
#define SGP_OPT_NULL_OK  4u /* nothing (NULL / []) accepted: the default is kept */
#define SGP_OPT_HI_OPEN  8u /* REAL: < hi instead of <= hi */
#define SGP_OPT_PTR     16u /* VECTOR: stored as a pointer and a count (see the kind) */

typedef struct {
  const char *name;   /* the argument name in R and Octave */
  sgp_opt_kind kind;
  const char *def;    /* the default as a user writes it ("5", "Inf", "\"cg\"", "TRUE") */
  double lo, hi;      /* COUNT / REAL range (inclusive unless LO_OPEN) */
  unsigned flags;
  const char *const *choices; /* CHOICE, SUBSET: NULL-terminated names, index = stored value
                                 (CHOICE: "" marks an index that is not offered) */
  size_t offset;      /* the field in the verb's options struct */
  sgp_opt_store store;/* COUNT / REAL: the field's type */
  size_t count_offset;/* POSITIVES, COUNTS, VECTOR with PTR: the int64 count field */
  const char *doc;    /* one line */
} sgp_opt_spec;

typedef struct {
  const char *verb;
  const sgp_opt_spec *opts;
  int n;
  int no_context;  /* 1: the verb reads none of the context options (ski_grid computes
                      a grid: no randomness, threads, backend or progress), so they are
                      not its options (an error, and absent from its docs) */
} sgp_verb_table;

/* The table of a verb ("gp_laplace", ...) or of the context options ("context":
 * backend, seed, verbose, threads); NULL when unknown. */
const sgp_verb_table *sgp_verb_options(const char *verb);
/* The context option `name` as verb t takes it (the hosts route it to the context):
 * NULL when t has its own row of that name (ski_stats' seed) or reads no context
 * option. */
const sgp_opt_spec *sgp_ctx_opt_find(const sgp_verb_table *t, const char *name);
/* The name of a kind ("flag", "count", ...) for the hosts' option listings. */
const char *sgp_opt_kind_name(sgp_opt_kind kind);
/* The spec of option `name` in t, or NULL. */
const sgp_opt_spec *sgp_opt_find(const sgp_verb_table *t, const char *name);
/* The hosts' names of a CHOICE option's stored values, from the table: the name of
 * value `index` of option `option` of `verb` ("" when there is none), and the value
 * of a name (-1 when it is not one of the choices). E.g. ("gp_laplace",
 * "likelihood", 1) -> "bernoulli". */
const char *sgp_opt_choice_name(const char *verb, const char *option, int index);
int sgp_opt_choice_index(const char *verb, const char *option, const char *name);
/* Validates v for option `name` of t and stores it into opts. Errors:
 * SGP_EINVAL "'name' must be ..." (or "unknown option 'name'"). */
int sgp_opts_set(sgp_ctx *ctx, const sgp_verb_table *t, void *opts, const char *name,
                 const sgp_value *v);
/* Stores options names[i] = values[i] (i < n) of verb t: the context's into ctx
 * (sgp_ctx_opt_find), the others into opts. The one rule of both hosts: a name
 * as the table writes it (another letter case is the unknown-option error,
 * naming the right one) and at most once ("'tol' is given twice"). */
int sgp_opts_apply(sgp_ctx *ctx, const sgp_verb_table *t, void *opts, int64_t n,
                   const char *const *names, const sgp_value *values);
/* The user's message for a failed call of verb fn, in the one form both hosts
 * show: "fn: 'arg' rest" from the core's "arg: rest" (or "'arg' rest"), else
 * "fn: message". */
void sgp_user_message(const char *fn, const sgp_ctx *ctx, int status, char *buf, size_t size);
/* The context options, stored into ctx: "backend" (auto, cpu, cuda), "seed" (whole
 * number 0..2^53), "verbose" (logical), "threads" (0..SGP_MAX_THREADS). */
int sgp_ctx_opt_set(sgp_ctx *ctx, const char *name, const sgp_value *v, int *verbose);

/* Kernel names by sgp_kernel_kind ("rbf", ...; NULL-terminated) and the kernel
 * option's doc (each name and formula), from the kernel table (kernel_table.c). */
extern const char *const sgp_kernel_names[];
extern const char sgp_kernel_doc[];
/* gp_laplace's likelihoods (core/laplace/lik_table.c): names, index = sgp_likelihood;
 * valla's choices (the names of those it offers, "" for the others); the doc */
extern const char *const sgp_lik_names[];
extern const char *const sgp_lik_valla_names[];
extern const char sgp_lik_doc[];
/* Facts of a likelihood (0 for a kind out of range): C latents per point with a
 * block W (softmax); offered by valla and mlp_fit (with their own arithmetic). */
int sgp_lik_multiclass(sgp_likelihood kind);
int sgp_lik_valla(sgp_likelihood kind);

/* The four rows of a kernel (kernel, lengthscale, outputscale, alpha) for a table over
 * the options struct TYPE whose sgp_kernel is MEMBER: every verb with a kernel
 * uses these, so the kernel's options are written once. */
#define SGP_KERNEL_OPTION_ROWS(TYPE, MEMBER)                                              \
  SGP_KERNEL_OPTION_ROWS_AS(TYPE, MEMBER, "1", "1", 0, "")
/* The kernel rows with the defaults as written (LS_DEF, OS_DEF), extra flags on the
 * lengthscale and outputscale (SGP_OPT_NULL_OK where "not given" means learned) and a
 * doc suffix. */
#define SGP_KERNEL_OPTION_ROWS_AS(TYPE, MEMBER, LS_DEF, OS_DEF, OS_FLAGS, DOC)              \
  {"kernel", SGP_OPT_CHOICE, "\"rbf\"", 0, 0, 0, sgp_kernel_names,                        \
   offsetof(TYPE, MEMBER.kind), SGP_STORE_INT, 0, sgp_kernel_doc},                         \
  {"lengthscale", SGP_OPT_POSITIVES, LS_DEF, 0, 0, (OS_FLAGS), NULL,                      \
   offsetof(TYPE, MEMBER.lengthscale),                                                     \
   SGP_STORE_DOUBLE, offsetof(TYPE, MEMBER.n_lengthscale),                                 \
   "one lengthscale, or one per column of x (ARD)" DOC},                                   \
  {"outputscale", SGP_OPT_REAL, OS_DEF, 0, INFINITY, SGP_OPT_LO_OPEN | (OS_FLAGS), NULL,    \
   offsetof(TYPE, MEMBER.outputscale), SGP_STORE_DOUBLE, 0, "kernel variance" DOC},          \
  {"alpha", SGP_OPT_REAL, "1", 0, INFINITY, SGP_OPT_LO_OPEN, NULL,                         \
   offsetof(TYPE, MEMBER.alpha), SGP_STORE_DOUBLE, 0,                                      \
   "shape parameter of the kernels whose formula has alpha (the others ignore it)"}

/* What a host returns from predict (the "type" of the predict tables). */
enum { SGP_PREDICT_LIST, SGP_PREDICT_RESPONSE, SGP_PREDICT_CLASS, SGP_PREDICT_LINK };

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
                          sgp_laplace_fit_t *view, sgp_kernel *k);

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
int sgp_laplace_predict_check(sgp_ctx *ctx, const sgp_laplace_fit_t *fit,
                              const sgp_laplace_predict_opts *o, int64_t m);

/* gp_kernel's options: its kernel. */
typedef struct { sgp_kernel kernel; } sgp_kernel_opts;
void sgp_kernel_opts_default(sgp_kernel_opts *o);

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

/* The model selection of a fit (gp_laplace, ski_gsgp; spec model_selection.md §6):
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
sgp_value sgp_laplace_fit_plain(const sgp_laplace_fit_t *fit, const sgp_laplace_opts *o,
                                uint64_t seed, sgp_value_arena *a);

/* The parts of a ski_gsgp fit that its plain data is written from. */
typedef struct {
  const sgp_ski_fit_result *res;
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
int sgp_laplace_predict_plain(sgp_ctx *ctx, const sgp_laplace_fit_t *fit, sgp_cmat X,
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
 * cuda_built, cuda_devices (INT). */
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
  const sgp_valla_fit_t *fit;
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
int sgp_valla_predict_plain(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat X,
                            const sgp_valla_predict_opts *o, sgp_value_arena *a,
                            sgp_value *out);
/* predict's result: list(pred (sgp_valla_predict_plain), type (the option's name)). */
int sgp_valla_predict_result(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat X,
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
                       sgp_valla_fit_t **out);

#ifdef __cplusplus
}
#endif

#endif
