/* valla.h -- VaLLA (variational linearized Laplace, spec shared/spec/valla.md):
 * MLP forward pass and sensitivities, the NTK contraction (spec §4.3) and its
 * adjoint for Z, k-means, Adam, the alpha-objective with hand-coded gradients,
 * the fit loop, predictions, exact LLA / ELLA baselines and metrics.
 * Core-internal for now; the declarations marked PUBLIC are meant to move to
 * core/include/sgp.h once the R/Octave fronts exist.
 *
 * Conventions: points are rows (X is n-by-D); labels are 0..C-1 as doubles;
 * a block of NTK rows for n points and all C outputs has row r = i + n*c. */
#ifndef SGP_VALLA_H
#define SGP_VALLA_H

#include "sgp_internal.h"
#include "laplace/laplace.h" /* the shared sgp_likelihood enum */

/* ------------------------------------------------------------ PUBLIC: network */

/* Most network outputs C supported (per-point C-vectors live on the stack). */
#define VALLA_MAX_C 1024

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

/* Checks the view (shapes, finiteness, activations) and copies it. Messages name
 * `model$weights[[l]]`-style arguments as `W[l]`, `b[l]`, `skip`, `width`. */
int  sgp_valla_net_from_mlp(sgp_ctx *ctx, const sgp_valla_mlp *mlp, sgp_valla_net *net);
/* nnet layout (spec §4.4): D inputs, H hidden (0 allowed with skip), K outputs;
 * out_sigmoid: output units apply the clipped logistic (entropy / logistic LS). */
int  sgp_valla_net_from_nnet(sgp_ctx *ctx, int64_t D, int64_t H, int64_t K, int skip,
                             int out_sigmoid, sgp_cmat wts, sgp_valla_net *net);
int  sgp_valla_net_copy(sgp_ctx *ctx, const sgp_valla_net *src, sgp_valla_net *dst);
void sgp_valla_net_free(sgp_valla_net *net);
/* Number of parameters P (weights, biases, skip). */
int64_t sgp_valla_net_nparam(const sgp_valla_net *net);
/* Network outputs g (n x C) at X (n x D). */
int  sgp_valla_forward(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_mat G);

/* ------------------------------------------------------------ internal: caches */

/* Forward activations and sensitivities for a point set. Row r of the Delta
 * matrices is the sensitivity of output cls[r] at point pt[r]. */
typedef struct {
  int64_t n, nr;            /* points, sensitivity rows */
  double **A;               /* A[l]: n x width[l] (A[0] = X copy) */
  double **H;               /* H[l]: n x width[l+1] pre-activations */
  double **Dl;              /* Dl[l]: nr x width[l+1], d g_cls / d H[l] */
  double **U;               /* U[l] = Dl[l+1] W[l+1]' (nr x width[l+1]); l < L-1 */
  double *G;                /* n x C outputs */
  int64_t *pt; int *cls;    /* nr each */
  struct valla_arena *arena; /* where the matrices live (NULL: malloc) */
} valla_cache;

/* ------------------------------------------------------------ internal: scratch arena */

/* Scratch memory of the fit loop (valla_arena.c): slices of one block, all
 * released by valla_arena_reset; a zero-initialized struct is an empty arena.
 * Every function taking a valla_arena * accepts NULL (plain malloc/free). */
typedef struct valla_arena {
  double *buf; size_t cap, used, need;
  double **extra; int n_extra, max_extra;
} valla_arena;
double *valla_arena_alloc(valla_arena *a, int64_t n);   /* NULL when out of memory */
double *valla_arena_calloc(valla_arena *a, int64_t n);
void    valla_arena_free(valla_arena *a, double *p);      /* no-op with an arena */
void    valla_arena_reset(valla_arena *a);
void    valla_arena_destroy(valla_arena *a);

/* Forward pass (all points) and backprop of all C outputs per point
 * (tags == NULL; nr = n*C, row i + n*c) or of the tagged output only (nr = n). */
int  valla_cache_build(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X,
                       const int *tags, valla_cache *c);
void valla_cache_free(const sgp_valla_net *net, valla_cache *c);
/* Forward pass only (A, H, G; nr = 0, no sensitivities). */
int  valla_cache_forward(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, valla_arena *arena,
                         valla_cache *c);
/* The same with the matrices in arena (the NTK functions then take their
 * scratch from cB's / cZ's arena too). */
int  valla_cache_build_a(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, const int *tags,
                         valla_arena *arena, valla_cache *c);
/* Activation, derivative and second derivative given the pre-activation h and
 * the activation value a. */
double valla_act(sgp_activation f, double h);
double valla_act_d1(sgp_activation f, double h, double a);
double valla_act_d2(sgp_activation f, double h, double a);

/* Explicit Jacobian (tests only): J (nC x P), row i + n*c; parameter order per
 * layer: W[l] column-major (in x out), b[l]; then skip (D x C column-major). */
int  sgp_valla_jacobian(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_mat J);

/* ------------------------------------------------------------ internal: NTK */

/* Unscaled NTK blocks (spec §4.3) for caches cB (rows = sensitivities) and cZ:
 * K (cB.nr x cZ.nr) = sum_l (Dl_B Dl_Z') o (A_B A_Z' + 1 [+ X_B X_Z' at the last
 * layer with skip]). layers: n_layers flags (NULL = all). */
int  valla_ntk_cross(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *cB,
                     const valla_cache *cZ, const int *layers, double *K, int64_t ldk);
/* diag[r] = k0(row r, row r) for every sensitivity row. */
void valla_ntk_diag(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *c, const int *layers,
                    double *diag);
/* Full C x C blocks per point (cache built with tags == NULL): out (C x C x n). */
void valla_ntk_blocks(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *c, const int *layers,
                      double *out);
/* Adjoint for Z (spec §3.4): given Om_BZ (cB.nr x cZ.nr) and symmetric Om_ZZ
 * (cZ.nr x cZ.nr) adjoints of the unscaled blocks, adds d/dZ of
 * <Om_BZ, K0_BZ> + <Om_ZZ, K0_ZZ> to Zbar (M x D). cZ must be tagged (nr = n). */
int  valla_ntk_adjoint_z(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *cB,
                         const valla_cache *cZ, const int *layers, const double *Om_BZ,
                         const double *Om_ZZ, double *Zbar);

/* PUBLIC: K_XZ (nC x M, row i + n*c), K_ZZ (M x M), kxx_diag (nC) and Kxx_full
 * (C x C x n), each scaled by s0; any output with data NULL is skipped. */
int  sgp_valla_ntk(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat Z,
                   const int *tags, const int *layers, double s0, sgp_mat K_XZ,
                   sgp_mat K_ZZ, sgp_mat kxx_diag, sgp_mat Kxx_full);

/* ------------------------------------------------------------ internal: k-means, Adam */

/* Seeded Lloyd k-means (kmeans2 minit = "points"): k distinct rows of X as the
 * initial centres, iters iterations, empty clusters keep their centre. Works in
 * column-standardized coordinates and writes centres (k x D, ld k) in the
 * original ones. Uses at most max_points rows (seeded subsample). */
int  valla_kmeans(sgp_ctx *ctx, sgp_cmat X, const int64_t *rows, int64_t nrows, int64_t k,
                  int iters, int64_t max_points, double *centres, int64_t ldc);

typedef struct { int64_t n; double lr, b1, b2, eps; int64_t t; double *m, *v; } valla_adam;
int  valla_adam_init(sgp_ctx *ctx, valla_adam *a, int64_t n, double lr, double b1, double b2,
                     double eps);
/* One descent step x -= lr * mhat / (sqrt(vhat) + eps) on entries with mask != 0
 * (mask NULL = all). */
void valla_adam_step(valla_adam *a, double *x, const double *grad, const unsigned char *mask);
void valla_adam_free(valla_adam *a);

/* ------------------------------------------------------------ PUBLIC: options */

typedef enum { SGP_VALLA_METHOD_VALLA = 0, SGP_VALLA_METHOD_LLA = 1,
               SGP_VALLA_METHOD_ELLA = 2 } sgp_valla_method;
enum { SGP_VALLA_LEARN_A = 1, SGP_VALLA_LEARN_INDUCING = 2, SGP_VALLA_LEARN_PRIOR_VAR = 4,
       SGP_VALLA_LEARN_NOISE = 8 };
enum { SGP_VALLA_INIT_IDENTITY = 0, SGP_VALLA_INIT_CLOSED_FORM = 1 };

typedef struct {
  /* API.md arguments */
  sgp_likelihood likelihood;  /* gaussian (C = 1), softmax (labels 0..C-1), bernoulli
                                 (one logit output, labels 0/1); default gaussian */
  sgp_valla_method method;    /* default valla */
  int64_t n_inducing;         /* M when inducing is empty; default 100 */
  sgp_cmat inducing;          /* M x D initial locations (data NULL = k-means) */
  const int *inducing_tags;   /* output tag per row of inducing (NULL = m mod C) */
  double prior_var;           /* initial s0 = sigma0^2; default 1 */
  double noise;               /* initial noise variance, original scale; <= 0 =
                                 exp(-5) on the standardized scale (default) */
  unsigned learn;             /* SGP_VALLA_LEARN_* bits; default all four */
  int closed_form;            /* 1: Titsias/GGN optimum for A (spec §1.4); default 0 */
  int64_t iterations, batch_size;   /* 20000, 100 */
  double lr, alpha;           /* 1e-3, 1 (alpha in [0, 1], gaussian only below 1) */
  /* additional options */
  int64_t eval_every, patience;     /* 100, 1 */
  int restore_best;           /* 1 */
  double beta1, beta2, adam_eps;    /* 0.9, 0.999, 1e-8 */
  int init_A;                 /* SGP_VALLA_INIT_*; default identity */
  int standardize_y;          /* 1 (gaussian only) */
  int64_t kmeans_iter, kmeans_max;  /* 10, 50000 */
  double jitter;              /* closed form: eps = jitter * mean diag K_ZZ; 1e-8 */
  size_t cache_max_bytes;     /* fixed Z: cache the training kernels when they fit; 2 GiB */
  double val_frac;            /* 0.1: held out when no validation set is given */
  int64_t val_max;            /* < 0 (default): no subsampling of validation */
  const int *layers;          /* n_layers flags; NULL = all layers */
  int64_t lla_max;            /* N*C guard for exact LLA; 5000 */
  int64_t ella_rank;          /* ELLA eigenpairs K; default 20 */
} sgp_valla_opts;

void sgp_valla_opts_default(sgp_valla_opts *o);

/* ------------------------------------------------------------ PUBLIC: fit */

/* Predictive latent covariance of every method in one form (spec §1.3, §1.4, §6):
 *   K*(x,x) = prior * K_xx - |P1 K_Zx|^2 + |P2 K_Zx|^2   (P1, P2: M x M or NULL)
 * with K = s0 * k0 / y_sd^2 (regression) between x and the tagged points Z. */
typedef struct sgp_valla_fit {
  sgp_valla_net net;
  sgp_likelihood likelihood;
  sgp_valla_method method;
  int64_t D, C, n_class, M, N;
  double *Z; int *tags;       /* M x D, M */
  int *layers;                /* n_layers flags or NULL */
  double *L;                  /* M x M lower (valla), A = L L' */
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
  int kernel_cache;           /* 1 when the fixed-Z training kernels were cached */
} sgp_valla_fit_t;

/* y: N x 1 (regression targets; labels 0..C-1 / 0-1 as doubles). X_val/y_val: an
 * explicit validation set (data NULL: a val_frac hold-out of X when valla runs
 * Adam with early stopping). */
int  sgp_valla_fit(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                   sgp_cmat X_val, sgp_cmat y_val, const sgp_valla_opts *o,
                   sgp_valla_fit_t **out);
void sgp_valla_fit_free(sgp_valla_fit_t *fit);

/* Latent/predictive quantities at X (n x D): mean (n x C, network output on the
 * original scale), var (n x C: regression predictive variance incl. noise,
 * classification latent variance), latent_var (n x C), prob (n x n_class, probit),
 * cov (C x C x n latent). Any output with data NULL is skipped. */
int  sgp_valla_predict(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat X, sgp_mat mean,
                       sgp_mat var, sgp_mat latent_var, sgp_mat prob, sgp_mat cov);

/* Monte-Carlo class probabilities (prob_method = "mc", spec §5): the mean over
 * mc_samples draws f = g + chol(K* + eps I) e of softmax(f) (Bernoulli: the
 * sigmoid, prob n x 2), seeded from the ctx RNG. */
int  sgp_valla_predict_mc(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat X,
                          int64_t mc_samples, sgp_mat prob);

/* ------------------------------------------------------------ internal: objective */

typedef struct {
  double *dL;                 /* M x M (lower triangle meaningful) */
  double d_log_sigma0, d_log_noise;
  double *dZ;                 /* M x D, or NULL to skip the Z gradient */
  double d_log_s0;            /* d l / d log s0 (= d_log_sigma0 / 2) */
} valla_grad;

/* Objective l = -(N/n_b) sum_i e_i + KL on the batch (Xb, yb), at the fit's
 * current Z, tags, L, log_sigma0, log_noise (regression targets on the original
 * scale; standardized with fit->y_mean / y_sd). grad may be NULL. *clamps counts
 * batch variances clamped at 0 (may be NULL). */
int  valla_objective(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat Xb, sgp_cmat yb,
                     double *value, valla_grad *grad, int64_t *clamps);
/* Unscaled kernel blocks of a batch computed beforehand (fixed Z, spec §3.5
 * phase 1): K0BZ (nb*C x M, row i + nb*c), kd0 (nb*C), K0ZZ (M x M), outputs G
 * (nb x C). */
typedef struct { int64_t nb; const double *K0BZ, *kd0, *K0ZZ, *G; } valla_kernels;
/* valla_objective from precomputed kernels (pre != NULL; Xb unused; no Z gradient). */
int  valla_objective_k(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat Xb,
                       const valla_kernels *pre, sgp_cmat yb, double *value, valla_grad *grad,
                       int64_t *clamps);
/* valla_objective_k with its scratch memory in arena (NULL: malloc). */
int  valla_objective_a(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat Xb,
                       const valla_kernels *pre, sgp_cmat yb, double *value, valla_grad *grad,
                       int64_t *clamps, valla_arena *arena);
/* KL term alone from L and K_ZZ (scaled): 0.5 (log|H| - M + tr H^{-1}). */
int  valla_kl(sgp_ctx *ctx, int64_t M, const double *L, const double *K, double *kl);

/* Builds P1/P2 of a valla fit from its L (or the closed form). */
int  valla_fit_finalize(sgp_ctx *ctx, sgp_valla_fit_t *fit, sgp_cmat X);
/* Closed-form (Titsias / GGN) P1, P2 from the data X (spec §1.4). */
int  valla_closed_form(sgp_ctx *ctx, sgp_valla_fit_t *fit, sgp_cmat X, double jitter);
/* Exact LLA (spec §6.1): Z = X with all C tags; P1 from the dense posterior. */
int  valla_lla_exact(sgp_ctx *ctx, sgp_valla_fit_t *fit, sgp_cmat X);
/* s0 / y_sd^2 (regression) or s0: the factor from k0 to the fit's kernel. */
double valla_kernel_scale(const sgp_valla_fit_t *fit);
/* ELLA (spec §6.2): valla_ella_pick draws M training points with a uniform
 * output tag each into fit->Z / tags; valla_ella builds P2 from at most `rank`
 * eigenpairs at the fit's prior and noise. */
int  valla_ella_pick(sgp_ctx *ctx, sgp_valla_fit_t *fit, sgp_cmat X, int64_t M);
int  valla_ella(sgp_ctx *ctx, sgp_valla_fit_t *fit, sgp_cmat X, int64_t rank);
/* Mean predictive NLL of (X, y) under the fit (validation criterion). */
int  valla_nll(sgp_ctx *ctx, const sgp_valla_fit_t *fit, sgp_cmat X, sgp_cmat y, double *nll);

/* ------------------------------------------------------------ PUBLIC: LLA evidence */

/* Laplace log evidence of LLA at (prior_var, noise) on the original target scale
 * (spec §6.1): sum log p(y|g) - |theta|^2/(2 prior_var) - log|I + L^1/2 K L^1/2|/2. */
int sgp_valla_lla_log_evidence(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                               sgp_likelihood lik, const int *layers, double prior_var,
                               double noise, double *log_evidence);
/* Maximizes it over log prior_var (and log noise for gaussian) by Nelder-Mead
 * from the values passed in (<= 0: 1); N*C must not exceed lla_max. */
int sgp_valla_lla_tune(sgp_ctx *ctx, const sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                       sgp_likelihood lik, const int *layers, int64_t lla_max, double *prior_var,
                       double *noise, double *log_evidence);

/* ------------------------------------------------------------ PUBLIC: MAP trainer */

typedef struct {
  sgp_likelihood likelihood;  /* gaussian (squared error), softmax, bernoulli */
  int64_t iterations, batch_size;   /* 2000, 100 */
  double lr, weight_decay;    /* 1e-3, 0 (added as weight_decay * theta to the gradient) */
} sgp_valla_mlp_fit_opts;

void sgp_valla_mlp_fit_opts_default(sgp_valla_mlp_fit_opts *o);
/* Glorot-uniform weights from the ctx RNG, zero biases and skip. */
int  sgp_valla_net_init_random(sgp_ctx *ctx, sgp_valla_net *net);
/* Trains net in place from its current weights (seeded minibatches); final_loss
 * (may be NULL) receives the full-data mean loss. */
int  sgp_valla_mlp_fit(sgp_ctx *ctx, sgp_valla_net *net, sgp_cmat X, sgp_cmat y,
                       const sgp_valla_mlp_fit_opts *o, double *final_loss);
/* Mean loss over (X, y) and its gradient in the documented parameter order. */
int  valla_mlp_loss_grad(sgp_ctx *ctx, const sgp_valla_net *net, sgp_likelihood lik, sgp_cmat X,
                         const double *y, double *loss, double *grad);

/* ------------------------------------------------------------ PUBLIC: metrics */

double sgp_valla_gauss_nll(int64_t n, const double *y, const double *mu, const double *var);
double sgp_valla_crps(int64_t n, const double *y, const double *mu, const double *var);
/* trapezoid over alpha = 0, 0.1, ..., 1; paper_compat puts 1 at alpha = 1 (+0.05). */
double sgp_valla_cqm(int64_t n, const double *y, const double *mu, const double *var,
                     int paper_compat);
/* Classification: prob n x C (ld n), labels 0..C-1. */
double sgp_valla_accuracy(int64_t n, int64_t C, const double *prob, const double *y);
double sgp_valla_class_nll(int64_t n, int64_t C, const double *prob, const double *y);
/* bins equal-width confidence bins (lo, hi] on max_c p (spec: 15). */
double sgp_valla_ece(int64_t n, int64_t C, const double *prob, const double *y, int bins);
double sgp_valla_brier(int64_t n, int64_t C, const double *prob, const double *y);
/* ROC AUC of score for labels 1 (positive) vs 0, tie-averaged ranks (Mann-Whitney). */
double sgp_valla_auc(int64_t n, const double *score, const double *label);

#endif
