/* valla.h -- VaLLA (variational linearized Laplace; api/sgp_valla.h cites the
 * paper):
 * MLP forward pass and sensitivities, the NTK contraction and its
 * adjoint for Z, k-means, Adam, the alpha-objective with hand-coded gradients,
 * the fit loop, predictions, exact LLA / ELLA baselines and metrics.
 * The public part (network views, options, fit, predict, MAP trainer, metrics)
 * is api/sgp_valla.h; this header holds the internals.
 *
 * Conventions: points are rows (X is n-by-D); labels are 0..C-1 as doubles;
 * a block of NTK rows for n points and all C outputs has row r = i + n*c. */
#ifndef SGP_VALLA_H
#define SGP_VALLA_H

#include "runtime/sgp_internal.h"

/* ------------------------------------------------------------ internal: network */

/* Most network outputs C supported (per-point C-vectors live on the stack). */
#define VALLA_MAX_C 1024
#define VALLA_DEFAULT_INDUCING 100  /* inducing points when n_inducing = 0 and x has enough rows */

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
/* Parameters of the layers the linearization covers (layers: n_layers flags or
 * NULL = all; skip counts with the last layer). */
int64_t valla_nparam_active(const sgp_valla_net *net, const int *layers);
/* Rows of the Jacobian for every sensitivity row of cache c (row r: output
 * cls[r] at point pt[r]), restricted to the active layers' parameters in the
 * order above: J (c->nr x valla_nparam_active, leading dimension ldj). */
void valla_jacobian_rows(const sgp_valla_net *net, const valla_cache *c, const int *layers,
                         double *J, int64_t ldj);

/* ------------------------------------------------------------ internal: NTK */

/* Unscaled NTK blocks for caches cB (rows = sensitivities) and cZ:
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
/* Adjoint for Z: given Om_BZ (cB.nr x cZ.nr) and symmetric Om_ZZ
 * (cZ.nr x cZ.nr) adjoints of the unscaled blocks, adds d/dZ of
 * <Om_BZ, K0_BZ> + <Om_ZZ, K0_ZZ> to Zbar (M x D). cZ must be tagged (nr = n). */
int  valla_ntk_adjoint_z(sgp_ctx *ctx, const sgp_valla_net *net, const valla_cache *cB,
                         const valla_cache *cZ, const int *layers, const double *Om_BZ,
                         const double *Om_ZZ, double *Zbar);

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
int  valla_objective(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat Xb, sgp_cmat yb,
                     double *value, valla_grad *grad, int64_t *clamps);
/* Unscaled kernel blocks of a batch computed beforehand (fixed Z, the
 * first phase of training): K0BZ (nb*C x M, row i + nb*c), kd0 (nb*C), K0ZZ (M x M), outputs G
 * (nb x C). */
typedef struct { int64_t nb; const double *K0BZ, *kd0, *K0ZZ, *G; } valla_kernels;
/* valla_objective from precomputed kernels (pre != NULL; Xb unused; no Z gradient). */
int  valla_objective_k(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat Xb,
                       const valla_kernels *pre, sgp_cmat yb, double *value, valla_grad *grad,
                       int64_t *clamps);
/* valla_objective_k with its scratch memory in arena (NULL: malloc). */
int  valla_objective_a(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat Xb,
                       const valla_kernels *pre, sgp_cmat yb, double *value, valla_grad *grad,
                       int64_t *clamps, valla_arena *arena);
/* KL term alone from L and K_ZZ (scaled): 0.5 (log|H| - M + tr H^{-1}). */
int  valla_kl(sgp_ctx *ctx, int64_t M, const double *L, const double *K, double *kl);

/* Builds P1/P2 of a valla fit from its L (or the closed form). */
int  valla_fit_finalize(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X);
/* Closed-form (Titsias / GGN) P1, P2 from the data X, for any K_ZZ
 * (valla_closed_form.c); the reported L is an exact lower factor of A*. */
int  valla_closed_form(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, double jitter);
/* Scaled K_ZZ of the fit (M x M). */
int  valla_kzz(sgp_ctx *ctx, const sgp_valla_result *fit, double *K);
/* Inverse of a lower-triangular T (n x n) into Ti (n x n). */
int  valla_tri_inverse(sgp_ctx *ctx, int64_t n, const double *T, double *Ti);
/* Exact LLA: Z = X with all C tags; P1 from the dense posterior. */
int  valla_lla_exact(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X);
/* s0 / y_sd^2 (regression) or s0: the factor from k0 to the fit's kernel. */
double valla_kernel_scale(const sgp_valla_result *fit);
/* ELLA: valla_ella_pick draws M training points with a uniform
 * output tag each into fit->Z / tags; valla_ella builds P2 from at most `rank`
 * eigenpairs at the fit's prior and noise. */
int  valla_ella_pick(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, int64_t M);
int  valla_ella(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, int64_t rank);
/* Mean predictive NLL of (X, y) under the fit (validation criterion). */
/* fit->log_noise := the minimizer of the validation NLL given the latent variances
 * (gaussian; no-op otherwise). */
int  valla_noise_from_validation(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat Xv, sgp_cmat yv);
/* fit->rmse_train, rmse_val and overfit from the network's residuals on (X, y) and
 * on the validation data (gaussian; clears overfit otherwise). */
int  valla_overfit_check(sgp_ctx *ctx, sgp_valla_result *fit, sgp_cmat X, sgp_cmat y, sgp_cmat Xv,
                         sgp_cmat yv);
int  valla_nll(sgp_ctx *ctx, const sgp_valla_result *fit, sgp_cmat X, sgp_cmat y, double *nll);

/* ------------------------------------------------------------ internal: MAP trainer */

/* Mean loss over (X, y) and its gradient in the documented parameter order. */
int  valla_mlp_loss_grad(sgp_ctx *ctx, const sgp_valla_net *net, sgp_likelihood lik, sgp_cmat X,
                         const double *y, double *loss, double *grad);

#endif
