/* sgp_valla.h -- the public C API of valla and mlp_fit: networks, options,
 * fit, predict and metrics. */
#ifndef SGP_VALLA_PUBLIC_H
#define SGP_VALLA_PUBLIC_H

#include "api/sgp_runtime.h"
#include "api/sgp_likelihood.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- valla ---- */
/* VaLLA: variational linearized Laplace (Ortega, Santana and Hernandez-Lobato,
 * "Variational Linearized Laplace Approximation for Bayesian Deep Learning",
 * ICML 2024; docs/valla.md) for a pre-trained MLP, with exact LLA and ELLA baselines, a small MAP trainer and
 * metrics. Points are rows (X is n-by-D); labels are 0..C-1 as doubles (the R
 * and Octave fronts shift 1..C). A block of rows for n points and all C outputs
 * has row r = i + n*c. Internal pieces live in valla/valla.h. */

typedef enum {
  SGP_ACT_IDENTITY = 0,
  SGP_ACT_TANH = 1,
  SGP_ACT_SIGMOID = 2,      /* logistic */
  SGP_ACT_SIGMOID_NNET = 3, /* nnet's logistic, clipped to 0/1 outside [-15, 15] */
  SGP_ACT_RELU = 4
} sgp_activation;

/* A user's MLP as views: layer l (0-based) maps width[l] -> width[l+1] by
 * h = a W[l] + b[l] (W[l] in-by-out, API.md) or, with transpose = 1, W[l] stored
 * out-by-in. Hidden units apply `activation`, the last layer `output`
 * (identity or a logistic). skip (data NULL = none): width[0]-by-C (in-by-out;
 * out-by-in with transpose), added to the last pre-activation. */
typedef struct {
  int n_layers;
  const int64_t *width;     /* n_layers + 1 widths: width[0] = D, width[L] = C */
  const sgp_cmat *W, *b;    /* n_layers each; b[l] has width[l+1] entries */
  int transpose;
  sgp_cmat skip;
  sgp_activation activation, output;
} sgp_valla_mlp;

/* The network as owned, normalized storage (always in-by-out, contiguous). */
typedef struct {
  int n_layers;
  int64_t *width;           /* n_layers + 1 */
  double **W, **b;          /* W[l]: width[l] x width[l+1]; b[l]: width[l+1] */
  double *skip;             /* D x C or NULL */
  sgp_activation activation, output;
} sgp_valla_net;

/* Names used by R and Octave: "identity", "tanh", "sigmoid", "sigmoid_nnet",
 * "relu". Returns SGP_OK or SGP_EINVAL (no message; the caller names the argument). */
int sgp_valla_activation_from_name(const char *name, sgp_activation *act);
const char *sgp_valla_activation_name(sgp_activation act);

/* Checks the view (shapes, finiteness, activations) and copies it. Messages name
 * the pieces `W[l]`, `b[l]`, `skip`, `width` (l 1-based). */
int  sgp_valla_net_from_mlp(sgp_ctx *ctx, const sgp_valla_mlp *mlp, sgp_valla_net *net);
/* nnet layout: D inputs, H hidden (0 allowed with skip), K outputs;
 * out_sigmoid: output units apply the clipped logistic (entropy / logistic LS). */
int  sgp_valla_net_from_nnet(sgp_ctx *ctx, int64_t D, int64_t H, int64_t K, int skip,
                             int out_sigmoid, sgp_cmat wts, sgp_valla_net *net);
int  sgp_valla_net_copy(sgp_ctx *ctx, const sgp_valla_net *src, sgp_valla_net *dst);
void sgp_valla_net_free(sgp_valla_net *net);
/* Number of parameters P (weights, biases, skip). */
int64_t sgp_valla_net_nparam(const sgp_valla_net *net);
/* A view of owned storage (W, b point into net; width into net): for exporting a
 * network as plain data. W and b must hold net->n_layers entries each. */
void sgp_valla_net_view(const sgp_valla_net *net, sgp_cmat *W, sgp_cmat *b, sgp_valla_mlp *mlp);
/* Network outputs g (n x C) at X (n x D). */
int  sgp_valla_forward(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_mat G);
/* K_XZ (nC x M, row i + n*c), K_ZZ (M x M), kxx_diag (nC) and Kxx_full (C x C x n)
 * of the NTK scaled by s0, between X (all C outputs) and Z with one output tag
 * per row; any output with data NULL is skipped; layers: n_layers flags (NULL = all). */
int  sgp_valla_ntk(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat Z,
                   const int *tags, const int *layers, double s0, sgp_mat K_XZ,
                   sgp_mat K_ZZ, sgp_mat kxx_diag, sgp_mat Kxx_full);

typedef enum { SGP_VALLA_METHOD_VALLA = 0, SGP_VALLA_METHOD_LLA = 1,
               SGP_VALLA_METHOD_ELLA = 2 } sgp_valla_method;
/* Why training stopped (valla's Adam loop, mlp_fit). */
typedef enum {
  SGP_VALLA_STOP_ITERATIONS = 0, /* ran the iterations asked for */
  SGP_VALLA_STOP_EARLY = 1,      /* validation early stopping */
  SGP_VALLA_STOP_DIVERGED = 2,   /* the objective, a gradient or a step was not finite (or
                                    gave a prior/noise variance outside the normal doubles,
                                    or H = I + L'K L lost its Cholesky factor): stopped, the
                                    last usable state kept (else the start) */
  SGP_VALLA_STOP_LOSS_ROSE = 3   /* the training loss rose: mlp_fit's final full-data loss
                                    exceeds the initial one; valla's minibatch objective over
                                    the last 100 iterations exceeds the first value by more
                                    than 3 standard errors */
} sgp_valla_stop;
/* "iterations", "early_stopping", "diverged", "loss_rose". */
const char *sgp_valla_stop_name(sgp_valla_stop stop);
/* For a warning: what went wrong and what to change ("" for the first two). */
const char *sgp_valla_stop_advice(sgp_valla_stop stop);
enum { SGP_VALLA_LEARN_A = 1, SGP_VALLA_LEARN_INDUCING = 2, SGP_VALLA_LEARN_PRIOR_VAR = 4,
       SGP_VALLA_LEARN_NOISE = 8 };
enum { SGP_VALLA_INIT_IDENTITY = 0, SGP_VALLA_INIT_CLOSED_FORM = 1 };
/* How a learned gaussian noise is chosen when there are validation data. */
enum { SGP_VALLA_NOISE_VALIDATION = 0, SGP_VALLA_NOISE_ADAM = 1 };

typedef struct {
  /* API.md arguments */
  sgp_likelihood likelihood;  /* gaussian (C = 1), softmax (labels 0..C-1), bernoulli
                                 (one logit output, labels 0/1); default gaussian */
  sgp_valla_method method;    /* default valla */
  int64_t n_inducing;         /* M when inducing is empty (k-means on the rows of x left
                                 after the val_frac hold-out; more is an error); default 0:
                                 100, or all those rows when fewer */
  sgp_cmat inducing;          /* M x D initial locations (data NULL = k-means) */
  const int *inducing_tags;   /* output tag per row of inducing (NULL = m mod C) */
  double prior_var;           /* initial s0 = sigma0^2; default 1 */
  double noise;               /* initial noise variance, original scale; <= 0 =
                                 exp(-5) on the standardized scale (default) */
  unsigned learn;             /* SGP_VALLA_LEARN_* bits; default all four */
  int closed_form;            /* 1: Titsias/GGN optimum for A; default 0 */
  int64_t iterations, batch_size;   /* 20000, 100 */
  double lr, alpha;           /* 1e-3, 1 (alpha in [0, 1], gaussian only below 1) */
  /* additional options */
  int64_t eval_every, patience;     /* 100, 1 */
  int restore_best;           /* 1 */
  double beta1, beta2, adam_eps;    /* 0.9, 0.999, 1e-8 */
  int init_A;                 /* SGP_VALLA_INIT_*; default identity */
  int standardize_y;          /* 1 (gaussian only) */
  int noise_fit;              /* SGP_VALLA_NOISE_*; default validation: with "noise" in
                                 learn and validation data, the noise minimizes the
                                 validation NLL at each check instead of being learned by
                                 Adam on x (valla_noise.c) */
  int64_t folds;              /* 5: without validation data, the fronts refit the network
                                 (R: an nnet fit from its call, or `refit`) on folds - 1
                                 of folds parts of x and pass the out-of-fold residuals as
                                 validation data; 0 or no refit: the val_frac hold-out.
                                 sgp_valla_fit does not read it */
  int64_t kmeans_iter, kmeans_max;  /* 10, 50000 */
  double jitter;              /* closed form with M < P (network parameters): eps =
                                 jitter * mean diag K_ZZ; 1e-8. M >= P uses the SVD
                                 of the inducing points' Jacobian, no jitter */
  size_t cache_max_bytes;     /* fixed Z: cache the training kernels when they fit; 2 GiB */
  double val_frac;            /* 0.1: held out when no validation set is given */
  int64_t val_max;            /* validation rows used (a seeded subsample; default 10000; < 0: all) */
  const int *layers;          /* n_layers flags; NULL = all layers */
  int64_t lla_max;            /* N*C guard for exact LLA; 5000 */
  int64_t ella_rank;          /* ELLA eigenpairs K; default 20 */
} sgp_valla_opts;

void sgp_valla_opts_default(sgp_valla_opts *o);
/* The rules between the options of the user-facing valla (R, Octave), after
 * they are set by name: noise only with likelihood gaussian, closed_form only
 * with method valla (sgp_valla_fit itself ignores those fields instead). */
int sgp_valla_opts_check(sgp_ctx *ctx, const sgp_valla_opts *o);
/* The warning of a training stop (sgp_valla_stop_advice with the iteration it
 * diverged at), "" when nothing went wrong; returns 1 when there is one. */
int sgp_valla_stop_warning(sgp_valla_stop stop, int64_t diverged_at, char *buf, size_t size);

/* Predictive latent covariance of every method in one form:
 *   K*(x,x) = prior * K_xx - |P1 K_Zx|^2 + |P2 K_Zx|^2   (P1, P2: M x M or NULL)
 * with K = s0 * k0 / y_sd^2 (regression) between x and the tagged points Z. */
typedef struct sgp_valla_result {
  sgp_valla_net net;
  sgp_likelihood likelihood;
  sgp_valla_method method;
  int64_t D, C, n_class, M, N;
  double *Z; int *tags;       /* M x D, M */
  int *layers;                /* n_layers flags or NULL */
  double *L;                  /* M x M lower (valla), A = L L'; NULL for lla / ella */
  double log_sigma0;          /* omega0 = log sigma0 */
  double log_noise;           /* rho = log s, standardized scale (gaussian) */
  double y_mean, y_sd;        /* regression standardization (0, 1 when off) */
  double alpha;
  int closed_form, prior;     /* prior: 1 when the K_xx term enters K* */
  double *P1, *P2;            /* M x M, may be NULL */
  int64_t iterations, best_iteration, n_eval;
  double *trace_obj;          /* iterations entries: objective l */
  double *trace_val;          /* n_eval entries: validation NLL */
  int64_t *trace_val_iter;    /* n_eval entries */
  int64_t clamps;             /* variances clamped at 0 during training */
  int stopped_early;
  sgp_valla_stop stop;        /* why the Adam loop stopped (iterations when it did not run) */
  int64_t diverged_at;        /* iteration with a non-finite objective or step; 0 */
  int kernel_cache;           /* 1 when the fixed-Z training kernels were cached */
  int noise_from_val;         /* 1 when the noise was chosen on the validation data */
  int overfit;                /* 1 when validation residuals exceed x's (valla_noise.c) */
  double rmse_train, rmse_val;  /* the network's RMSE on x and on the validation data
                                   (original scale; 0 without validation data) */
} sgp_valla_result;

/* y: N x 1 (regression targets; labels 0..C-1 / 0-1 as doubles). X_val/y_val: an
 * explicit validation set (data NULL: a val_frac hold-out of X when valla runs
 * Adam with early stopping). Dispatches on o->method. */
int  sgp_valla_fit(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                   sgp_cmat X_val, sgp_cmat y_val, const sgp_valla_opts *o,
                   sgp_valla_result **out);
void sgp_valla_fit_free(sgp_valla_result *fit);
/* Original-scale hyperparameters of a fit: prior_var = sigma0^2, noise = s y_sd^2
 * (0 for classification). */
double sgp_valla_fit_prior_var(const sgp_valla_result *fit);
double sgp_valla_fit_noise(const sgp_valla_result *fit);
/* The overfitting warning of a gaussian fit with validation data ("" when the
 * network's validation residuals are not much larger than those on x); returns 1
 * when there is one. The hosts' warning id is scalegp:overfit. */
int sgp_valla_overfit_warning(const sgp_valla_result *fit, char *buf, size_t size);

/* What prediction needs from a fit, as plain data (a fit saved by R or Octave
 * and reloaded): the network comes separately as an sgp_valla_mlp view. */
typedef struct {
  sgp_likelihood likelihood;
  sgp_valla_method method;
  sgp_cmat inducing;          /* M x D (M may be 0) */
  const int *tags;            /* M output tags 0..C-1 (NULL allowed when C = 1) */
  const int *layers;          /* n_layers flags or NULL */
  sgp_cmat P1, P2;            /* M x M each, or empty (data NULL) */
  int prior;                  /* 1: the prior K_xx term enters K* */
  int closed_form;            /* 1: a valla fit with the closed-form A (then P2 is set) */
  double prior_var, noise;    /* original scale (noise ignored for classification) */
  double y_mean, y_sd;        /* regression standardization */
} sgp_valla_fit_data;

/* An owning fit for prediction from plain data (free with sgp_valla_fit_free).
 * Checks shapes, finiteness and ranges, and that P1, P2 and prior are the ones
 * the method produces (valla: P1 and prior; closed form: P2, with P1 exactly
 * when prior; lla: P1 and prior; ella: P2 without prior); messages name the
 * field ("inducing", "P1", "tags", "prior_var", ...). Traces are empty. */
int  sgp_valla_fit_from_data(sgp_ctx *ctx, const sgp_valla_mlp *model,
                             const sgp_valla_fit_data *d, sgp_valla_result **out);

/* Latent/predictive quantities at X (n x D): mean (n x C, network output on the
 * original scale), var (n x C: regression predictive variance incl. noise,
 * classification latent variance), latent_var (n x C), prob (n x n_class, probit),
 * cov (C*C x n: column i is the latent C x C block of point i, column-major).
 * Any output with data NULL is skipped. */
int  sgp_valla_predict(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, sgp_mat mean,
                       sgp_mat var, sgp_mat latent_var, sgp_mat prob, sgp_mat cov);
/* The same, counting into *unresolved the latent variances below what rounding
 * resolves (reported as computed, 0 where negative; the caller warns). An output
 * or variance that overflows is an error naming the test point. */
int  sgp_valla_predict_count(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, sgp_mat mean,
                             sgp_mat var, sgp_mat latent_var, sgp_mat prob, sgp_mat cov,
                             int64_t *unresolved);
/* Monte-Carlo class probabilities (prob_method = "mc"): the mean over
 * mc_samples draws f = g + chol(K* + eps I) e of softmax(f) (Bernoulli: the
 * sigmoid, prob n x 2), seeded from the ctx RNG. */
int  sgp_valla_predict_mc(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X,
                          int64_t mc_samples, sgp_mat prob);

/* Laplace log evidence of LLA at (prior_var, noise) on the original target scale:
 * sum log p(y|g) - |theta|^2/(2 prior_var) - log|I + L^1/2 K L^1/2|/2. */
int sgp_valla_lla_log_evidence(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                               sgp_likelihood lik, const int *layers, double prior_var,
                               double noise, double *log_evidence);
/* Maximizes it over log prior_var (and log noise for gaussian) by Nelder-Mead
 * from the values passed in (<= 0: 1); N*C must not exceed lla_max. */
int sgp_valla_lla_tune(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                       sgp_likelihood lik, const int *layers, int64_t lla_max, double *prior_var,
                       double *noise, double *log_evidence);

/* MAP trainer (mlp_fit). */
typedef struct {
  sgp_likelihood likelihood;  /* gaussian (squared error), softmax, bernoulli */
  int64_t iterations, batch_size;   /* 2000, 100 */
  double lr, weight_decay;    /* 1e-3, 0 (added as weight_decay * theta to the gradient) */
} sgp_valla_mlp_fit_opts;

void sgp_valla_mlp_fit_opts_default(sgp_valla_mlp_fit_opts *o);
/* Glorot-uniform weights from the ctx RNG, zero biases and skip. */
int  sgp_valla_net_init_random(sgp_ctx *ctx, sgp_valla_net *net);
/* An untrained network of the given widths (n_layers + 1 entries) and hidden
 * activation, identity output, no skip, Glorot-initialized from the ctx RNG. */
int  sgp_valla_net_new(sgp_ctx *ctx, int n_layers, const int64_t *width,
                       sgp_activation activation, sgp_valla_net *net);
/* What sgp_valla_mlp_fit did. */
typedef struct {
  double initial_loss, final_loss;  /* full-data mean loss before and after training */
  int64_t iterations;               /* Adam steps taken */
  sgp_valla_stop stop;              /* iterations, diverged or loss_rose */
  int64_t diverged_at;              /* iteration whose loss, gradient or step was not
                                       finite (the parameters before it are kept, or the
                                       start when their loss is not finite); 0 */
} sgp_valla_mlp_fit_info;

/* Trains net in place from its current weights (seeded minibatches); info (may
 * be NULL) receives what happened. A non-finite loss, gradient or step stops the
 * training with the last finite parameters (stop = diverged; not an error). */
int  sgp_valla_mlp_fit(sgp_ctx *ctx, sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                       const sgp_valla_mlp_fit_opts *o, sgp_valla_mlp_fit_info *info);
/* Refuses (SGP_ENOMEM, naming `hidden`) a network of these widths whose training
 * with this batch size would not fit in this machine's memory, and widths beyond
 * the BLAS int range (SGP_EINVAL); called by sgp_valla_net_new and
 * sgp_valla_mlp_fit before they allocate. */
int  sgp_valla_mlp_check_size(sgp_ctx *ctx, int n_layers, const int64_t *width, int skip,
                              int64_t batch_size);

/* Metrics. Regression: Gaussian predictive (mu, var) against y, means over n. */
double sgp_valla_gauss_nll(int64_t n, const double *y, const double *mu, const double *var);
double sgp_valla_crps(int64_t n, const double *y, const double *mu, const double *var);
/* trapezoid over alpha = 0, 0.1, ..., 1; paper_compat puts 1 at alpha = 1 (+0.05). */
double sgp_valla_cqm(int64_t n, const double *y, const double *mu, const double *var,
                     int paper_compat);
/* Classification: prob n x C (ld n), labels 0..C-1. */
double sgp_valla_accuracy(int64_t n, int64_t C, const double *prob, const double *y);
double sgp_valla_class_nll(int64_t n, int64_t C, const double *prob, const double *y);
/* bins equal-width confidence bins (lo, hi] on max_c p (15 is the usual choice). */
double sgp_valla_ece(int64_t n, int64_t C, const double *prob, const double *y, int bins);
double sgp_valla_brier(int64_t n, int64_t C, const double *prob, const double *y);
/* ROC AUC of score for labels 1 (positive) vs 0, tie-averaged ranks (Mann-Whitney). */
double sgp_valla_auc(int64_t n, const double *score, const double *label);
/* The checked metrics behind R's and Octave's valla_metrics (messages name y,
 * pred, var, bins). Regression (prob.data NULL): out = nll, crps, cqm of the
 * Gaussian predictive (mu, var) at targets y (vectors of n). Classification:
 * out = accuracy, nll, ece (bins), brier of prob (n x C, rows summing to 1) at
 * labels y (0..C-1), and auc of prob's second column when C = 2 (NaN when y
 * holds one class only). *count: how many values were written (3, 4 or 5). */
int sgp_valla_metrics(sgp_ctx *ctx, sgp_cmat y, sgp_cmat mu, sgp_cmat var, sgp_cmat prob,
                      int64_t bins, double *out, int *count);

#ifdef __cplusplus
}
#endif
#endif /* SGP_VALLA_PUBLIC_H */
