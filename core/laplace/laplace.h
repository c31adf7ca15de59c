/* laplace.h -- gp_laplace (IterNCGP, spec shared/spec/gp_laplace.md): likelihoods,
 * the IterGP inner loop with recycling/compression, the Newton outer loop and
 * predictions. Core-internal for now; the declarations marked PUBLIC are meant to
 * move to core/include/sgp.h once the R/Octave fronts exist.
 *
 * Storage: every NC-vector is a column-major N-by-C matrix (entry (n, c) at
 * n + N*c); a block of b such vectors is one N-by-(C*b) matrix with ld = N. */
#ifndef SGP_LAPLACE_H
#define SGP_LAPLACE_H

#include "sgp_internal.h"
#include "kernels.h"

/* ------------------------------------------------------------ PUBLIC: options */

typedef enum {
  SGP_LIK_GAUSSIAN = 0,   /* y real, variance `noise` (scalar or per point) */
  SGP_LIK_BERNOULLI = 1,  /* y in {0, 1}, logit link, one latent function */
  SGP_LIK_POISSON = 2,    /* y in {0, 1, 2, ...}, log link, log exposure `offset` */
  SGP_LIK_SOFTMAX = 3     /* y in {1, ..., n_class}, C = n_class latents, shared kernel */
} sgp_likelihood;

typedef enum { SGP_POLICY_CG = 0, SGP_POLICY_CHOLESKY = 1 } sgp_policy;
typedef enum { SGP_RESIDUAL_EXPLICIT = 0, SGP_RESIDUAL_RECURSIVE = 1 } sgp_residual;

/* Stop reasons (inner loop and outer loop). */
enum {
  SGP_STOP_NONE = 0,
  SGP_STOP_RESID = 1,      /* inner: residual below max(inner_atol, inner_rtol ||b||) */
  SGP_STOP_MAXITER = 2,    /* inner: max_iter iterations in this Newton step */
  SGP_STOP_BUDGET = 3,     /* max_total_iter reached or the buffer is full */
  SGP_STOP_BREAKDOWN = 4,  /* inner: eta <= eta_tol s'z (action in span(S)) */
  SGP_STOP_EXHAUSTED = 5,  /* inner: unit policy used all NC unit vectors */
  SGP_STOP_CONVERGED = 6,  /* outer: relative Newton step <= tol */
  SGP_STOP_MAXNEWTON = 7,  /* outer: max_newton steps */
  SGP_STOP_DIVERGED = 8,   /* outer: non-finite latent / pseudo-targets */
  SGP_STOP_TIME = 9        /* outer: time_limit reached */
};
const char *sgp_laplace_stop_name(int reason);

typedef struct {
  sgp_likelihood likelihood; /* default bernoulli */
  sgp_cmat noise;            /* gaussian variance: 1x1 or Nx1 (gaussian only; default 1) */
  sgp_cmat offset;           /* Nx1 poisson log exposure; empty (data NULL) = 0 */
  sgp_kernel kernel;         /* shared by all classes */
  sgp_policy policy;         /* default CG */
  int max_newton;            /* default 20 */
  int max_iter;              /* solver iterations per Newton step; default 5 */
  int64_t rank;              /* compression rank R; < 0 = Inf (default) */
  double tol;                /* outer tolerance on ||g_{i+1}-g_i||/||g_{i+1}||; 0.01 */
  int n_class;               /* C for softmax (>= 2), ignored otherwise */
  int recycle;               /* 1: recycle S, T across Newton steps (default) */
  int64_t max_total_iter;    /* < 0 = none (default) */
  double time_limit;         /* seconds; < 0 = none (default) */
  double inner_atol, inner_rtol, eta_tol; /* 1e-5, 1e-5, 0 */
  double eig_rtol, kappa, noise_max;      /* 1e-12, 0, 1e12 */
  sgp_residual residual;     /* default explicit */
  int damping;               /* 1: backtracking on Psi after each Newton step (spec 3.8); 0 */
  int random_order;          /* unit policy: seeded random permutation (default 0) */
  size_t kernel_cache_bytes; /* materialize K_x when 8 N^2 bytes fit; default 2 GiB */
  int tile;                  /* kernel tile size; default 512 */
} sgp_laplace_opts;

void sgp_laplace_opts_default(sgp_laplace_opts *o);

/* History: one row per accepted solver iteration (iteration arrays) and one per
 * Newton step (step arrays). */
typedef struct {
  int64_t n_iter, n_step;
  /* per accepted iteration */
  int *it_newton, *it_iter; int64_t *it_total, *it_buffer, *it_rank;
  double *it_resid, *it_rel_resid, *it_alpha, *it_eta, *it_trace, *it_time;
  /* per Newton step */
  double *st_psi;     /* Psi at the linearization point f_i */
  double *st_delta;   /* relative Newton step delta_i */
  int *st_inner_stop; /* inner stop reason */
  int64_t *st_kprod;  /* K products in this step */
  int64_t *st_dropped;/* eigenpairs dropped/truncated by the virtual run */
  double *st_time;
} sgp_laplace_history;

typedef struct sgp_laplace_fit {
  int64_t n, d, C, r;      /* data points, input dimension, latents, rank of root */
  sgp_likelihood likelihood;
  sgp_kernel kernel;       /* lengthscale points into the fit's own copy */
  double *lengthscale;
  double *X;               /* N x d copy of the inputs */
  double noise;            /* gaussian scalar noise (first entry) for the response */
  double *m;               /* N x C prior mean at X */
  double *f;               /* N x C latent mode estimate f_{i+1} = m + K v */
  double *var;             /* N x C latent variances incl. computational uncertainty */
  double *weights;         /* N x C representer weights v */
  double *root;            /* NC x r, C_j = Q Q' */
  double *flin;            /* N x C linearization point f_i of the last problem */
  double *noise_data;      /* N x C W^{-1} diagonal (softmax: capped 1/pi) at flin */
  int newton_steps;
  int64_t iterations;      /* total accepted solver iterations J */
  int converged;
  int stop_reason, inner_stop_reason;
  int64_t kernel_products;
  sgp_laplace_history history;
} sgp_laplace_fit_t;

/* y: N x 1 (softmax labels 1..C as doubles); prior_mean: N x C or empty (= 0). */
int sgp_laplace_fit(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                    const sgp_laplace_opts *o, sgp_laplace_fit_t **out);
void sgp_laplace_fit_free(sgp_laplace_fit_t *fit);
/* Latent mean / variance (Ns x C each; var may have data NULL) at Xs (zero prior
 * mean at Xs), and the response (optional, data NULL to skip), Ns x C each:
 * bernoulli P(y=1) by the probit approximation and its Bernoulli variance;
 * softmax probabilities softmax(mu_c kappa(s2_c)) and p(1-p); poisson rate mean
 * exp(mu+o+s2/2) and variance (e^{s2}-1) e^{2(mu+o)+s2}; gaussian mu and s2+noise.
 * offset_s: Ns x 1 test log exposure (poisson) or empty. */
int sgp_laplace_predict(sgp_ctx *ctx, const sgp_laplace_fit_t *fit, sgp_cmat Xs,
                        sgp_cmat offset_s, sgp_mat mean, sgp_mat var, sgp_mat resp_mean,
                        sgp_mat resp_var);

/* ------------------------------------------------------------ internal: likelihoods */

typedef struct {
  sgp_likelihood kind;
  int64_t n, C;
  const double *y;        /* N (labels 1..C for softmax) */
  const double *offset;   /* N or NULL */
  const double *noise;    /* gaussian: 1 or N values */
  int64_t n_noise;
  double noise_max;
} sgp_lik;

/* Checks y (and noise/offset) for the likelihood; messages name `y`, `noise`, `offset`. */
int sgp_lik_check(sgp_ctx *ctx, const sgp_lik *lik);
/* At f (N x C): log-likelihood sum, gradient grad (NC), pseudo-target increment
 * delta = W^{-1} grad (NC) and the noise data nd (NC; W^{-1} diagonal, capped at
 * noise_max; softmax: capped 1/pi). Any output pointer may be NULL except nd. */
void sgp_lik_eval(const sgp_lik *lik, const double *f, double *loglik, double *grad,
                  double *delta, double *nd);
/* Y = W^{-1} V for b NC-vectors (V, Y: NC x b with ld NC); Y may not alias V. */
void sgp_lik_winv(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                  double *Y);
/* Y += W^{-1} V. */
void sgp_lik_winv_add(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                      double *Y);
/* Softmax per point: out = W_n^dagger u for a C-vector u given inv_pi = 1/pi. */
void sgp_softmax_pinv_apply(int64_t C, const double *inv_pi, int64_t stride,
                            const double *u, int64_t su, double *out, int64_t so);

/* ------------------------------------------------------------ internal: IterGP */

typedef struct {
  int64_t n, C, NC, cap;   /* cap = allocated buffer capacity (columns) */
  int64_t B, r;            /* buffer width, rank of Q */
  double *S, *T, *Q, *G;   /* NC x cap (ld NC); G cap x cap (ld cap): Q = S G */
  double *M, *w, *work;    /* cap x cap, cap, NC x cap */
  double trace_KQ;         /* ||K Q||_F^2 (valid when kq_valid) */
  int64_t dropped;         /* eigenpairs dropped by the last virtual run */
  /* Structure that makes unit-vector actions cheap (laplace_block.c):
   * unit: every column of S is a distinct unit vector e_{idx[l]} (S = P_I), so
   * Q = P_I G has non-zero rows only at idx and Q'z = G' z[idx];
   * g_tri: G is upper triangular (Gram-Schmidt/Cholesky order, no eigenbasis);
   * kq_valid: work[:, 0..r-1] holds K Q = T G and trace_KQ is current (else both
   * are computed on demand by sgp_itergp_kq). */
  int64_t *idx;            /* cap: unit index of each column when unit */
  int unit, g_tri, kq_valid;
} sgp_itergp;

int  sgp_itergp_init(sgp_ctx *ctx, sgp_itergp *s, int64_t n, int64_t C, int64_t cap);
void sgp_itergp_free(sgp_itergp *s);
/* Grows the buffers (geometrically, at most to cap_max columns) so that `need`
 * columns fit; keeps S, T, Q and G. Called between Newton steps, never inside
 * the solver iterations. */
int  sgp_itergp_reserve(sgp_ctx *ctx, sgp_itergp *s, int64_t need, int64_t cap_max);
/* Virtual solver run (spec 3.3) for the noise data nd: replaces S, T by the kept
 * (rotated when compressing) actions and builds Q = S G with Q'K^Q = I.
 * rank < 0: no truncation. Sets *finite to 0 when M is not finite. */
int  sgp_itergp_virtual(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                        int64_t rank, double kappa, double eig_rtol, int *finite);
/* Makes work[:, 0..r-1] = K Q = T G and trace_KQ = ||K Q||_F^2 current. */
int  sgp_itergp_kq(sgp_ctx *ctx, sgp_itergp *s);

/* ------------------------------------------------------------ internal: unit-vector blocks */

/* One block of b unit-vector actions e_{idx[0..b-1]} (storage indices, all outside
 * span(S) in exact arithmetic) appended with BLAS-3 work (spec 2.2: K e_(p,c) is
 * column p of K_x in class block c, evaluated directly). Equal, up to rounding, to
 * b one-at-a-time IterGP iterations: q_j, G, v, K Q, the trace and the residual
 * after each action are the same. Stops early (accepting j < b actions) when the
 * residual before action j is below rtol (reason SGP_STOP_RESID) or when
 * eta_j <= eta_rtol * s_j'z_j (SGP_STOP_BREAKDOWN; action j is the rejected one). */
typedef struct {
  /* in */
  const sgp_lik *lik;
  const double *nd;          /* noise data of the current problem */
  const sgp_kernel *kernel;
  const sgp_kprep *prep;     /* the training inputs, for kernel columns */
  const double *rhs;         /* b of K^ v = b */
  const int64_t *idx;        /* b storage indices p + N c */
  int64_t b;
  double rtol, eta_rtol;
  double *ws;                /* workspace of sgp_unit_block_ws(NC, b, cap) doubles */
  /* in/out */
  double *v, *res;           /* weights and residual b - K^ v (updated per action) */
  double *Kv;                /* K v, updated when not NULL (recursive residual) */
  /* out: per accepted action j (arrays of b) and the stop */
  double *rho, *alpha, *eta, *trace_KQ; /* rho_{j-1}, s'res, eta, ||K Q||^2 after j */
  int64_t accepted;
  int reason;                /* SGP_STOP_NONE, _RESID or _BREAKDOWN */
} sgp_unit_block;

int64_t sgp_unit_block_ws(int64_t NC, int64_t b, int64_t cap);
int sgp_itergp_unit_block(sgp_ctx *ctx, sgp_itergp *it, sgp_unit_block *ub);

/* sgp_laplace_fit with the unit-vector block size (1 = one action at a time, the
 * reference path; sgp_laplace_fit uses SGP_LAPLACE_UNIT_BLOCK). */
#define SGP_LAPLACE_UNIT_BLOCK 128
int sgp_laplace_fit_blocked(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                            const sgp_laplace_opts *o, int unit_block,
                            sgp_laplace_fit_t **out);

#endif
